#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` from the build tree (Depends from dpkg-shlibdeps), extracted
# into a fresh root with dpkg-deb -x; the probity there audits the bundled sample, finds its own
# prompts, and its Python package imports from the root's dist-packages.
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v dpkg-shlibdeps >/dev/null || {
  echo "dpkg-shlibdeps is missing: apt-get install dpkg-dev (scripts/setup.sh)"
  exit 1
}
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1; then
  cat "$tmp/cpack.log"
  exit 1
fi
deb=$(ls "$tmp"/pkg/probity_*.deb)
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends
depends=$(dpkg-deb -f "$deb" Depends)
# From the libraries the binaries link (dpkg-shlibdeps), and the Python module's own needs.
for dep in libc6 libstdc++6 libsqlite3-0 python3-numpy "python3 (>= "; do
  grep -qF "$dep" <<<"$depends" || {
    echo "Depends lacks $dep: $depends"
    exit 1
  }
done
dpkg-deb -x "$deb" "$tmp/root"
usr=$tmp/root/usr
for f in bin/probity share/probity/prompts/judge_rating.v1.txt \
  share/probity/data/summeval/summeval_sample20.jsonl share/man/man1/probity.1 \
  share/bash-completion/completions/probity share/zsh/vendor-completions/_probity \
  share/doc/probity/examples/probity.toml lib/python3/dist-packages/probity/__init__.py; do
  test -f "$usr/$f" || {
    echo "the package lacks /usr/$f"
    exit 1
  }
done
out=$("$usr/bin/probity" --version)
grep -qx "prompts: $usr/share/probity/prompts" <<<"$out" || {
  echo "the packaged binary does not use its own prompts: $out"
  exit 1
}
"$usr/bin/probity" audit --data "$usr/share/probity/data/summeval/summeval_sample20.jsonl" \
  --metric bleu --metric chrf --bootstrap 50 --out "$tmp/audit" >"$tmp/audit.txt"
grep -q '"schema": "probity.audit/1"' "$tmp/audit/report.json"
grep -q "Degradation tests" "$tmp/audit.txt"
out=$(cd "$tmp" && env -u PYTHONPATH PYTHONPATH="$usr/lib/python3/dist-packages" /usr/bin/python3 -s -c \
  "import probity; print(probity.__file__); print(probity._probity.prompts_dir())")
grep -qx "$usr/lib/python3/dist-packages/probity/__init__.py" <<<"$out"
grep -qx "$usr/lib/python3/dist-packages/probity/prompts" <<<"$out"
bash -c "source '$usr/share/bash-completion/completions/probity' && complete -p probity" >/dev/null
echo "package: ok ($(basename "$deb"))"

#!/usr/bin/env bash
# The Python package from the source tree: `pip install --no-build-isolation .` (pyproject.toml,
# setup.py) into a venv of /usr/bin/python3 made with --system-site-packages (for Debian's
# NumPy), reusing the built tree's _probity target; the venv's probity scores the sample and
# reads the prompts installed inside it.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
if ! PROBITY_CMAKE_BUILD_DIR=$build PROBITY_WHEEL_BUILD_BASE=$tmp/wheel-build \
  "$tmp/venv/bin/python" -m pip install --no-build-isolation --no-index "$src" \
  >"$tmp/pip.log" 2>&1; then
  cat "$tmp/pip.log"
  exit 1
fi
cd "$tmp"
out=$(env -u PYTHONPATH "$tmp/venv/bin/python" -c "
import sys, probity
print(probity.__file__.startswith(sys.prefix))
print(probity.score_dataset('$src/data/summeval/summeval_sample20.jsonl', 'bleu')['bleu'].shape)
print(probity._probity.prompts_dir())
")
expected="True
(320,)
$(dirname "$(env -u PYTHONPATH "$tmp/venv/bin/python" -c 'import probity; print(probity.__file__)')")/prompts"
[ "$out" = "$expected" ] || {
  echo "the venv's probity: $out (expected $expected)"
  exit 1
}
# The whole of pip's output first: grep -q would close the pipe early (pip: "Pipe to stdout was
# broken", a failure under pipefail).
shown=$("$tmp/venv/bin/python" -m pip show probity)
want="Version: $(sed -nE 's/^project\(probity VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")"
grep -qx "$want" <<<"$shown" || {
  echo "pip show probity: $shown (expected $want)"
  exit 1
}
echo "wheel: ok"

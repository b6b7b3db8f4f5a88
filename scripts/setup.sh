#!/usr/bin/env bash
# Installs the Debian packages probity needs. Idempotent and non-interactive: packages already
# present are left alone and apt is not touched at all.
#   scripts/setup.sh --run   # what building and running the `probity` CLI needs (quickstart.sh)
#   scripts/setup.sh         # that, plus everything the tests, the sanitizer and fuzz build, the
#                            # cluster test, the Python module and the .deb need (test.sh)
set -euo pipefail

# Building and running the CLI.
RUN_PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config ccache mold git
  # libraries
  nlohmann-json3-dev libfmt-dev libcli11-dev libicu-dev libutf8proc-dev libboost-dev
  libsqlite3-dev libxxhash-dev libcurl4-openssl-dev libcpp-httplib-dev libssl-dev libtomlplusplus-dev
  libsimdjson-dev libfasttext-dev
  libmecab-dev mecab-ipadic-utf8
  # the synonym strategies and edits read WordNet at run time
  wordnet-base
)
# Testing, on top of RUN_PACKAGES.
TEST_PACKAGES=(
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev valgrind
  # the format check (test.sh: clang-format --dry-run -Werror over the tracked C++ files)
  clang-format
  # the cluster test (tests/cluster/slurm_array_test.sh): a one-node Slurm with its own munged
  slurm-wlm munge
  # sanitizer and fuzzing build (scripts/sanitize.sh): clang, its runtimes, llvm-symbolizer
  clang-19 libclang-rt-19-dev llvm-19
  # Python module and its tests; its wheel (pip install ., in a venv)
  python3 python3-dev pybind11-dev python3-numpy python3-pandas python3-setuptools python3-wheel python3-venv
  python3-pip
  # the .deb (cpack -G DEB: dpkg-shlibdeps) and the man page check (groff)
  dpkg-dev groff-base
)

case "${1:-}" in
  --run) PACKAGES=("${RUN_PACKAGES[@]}") ;;
  "") PACKAGES=("${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "usage: scripts/setup.sh [--run]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

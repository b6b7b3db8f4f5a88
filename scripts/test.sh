#!/usr/bin/env bash
# Sets up, builds and runs every test (the README's second quick-start command).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The Python module's tests (parity with the CLI), with Debian's interpreter (it has NumPy).
# Last, so that unittest's closing OK / FAILED line ends the output; a failure fails the script.
if grep -q '^PROBITY_BUILD_PYTHON:BOOL=OFF' build/CMakeCache.txt; then
  echo "test.sh: PROBITY_BUILD_PYTHON=OFF, Python tests skipped"
else
  PYTHONPATH="$PWD/build/python" /usr/bin/python3 -m unittest discover -s python/tests
fi

#!/usr/bin/env bash
# Sets up, builds and runs every test (the README's second quick-start command): the GoogleTest
# suite through ctest, then the Python module's tests with Debian's interpreter (it has NumPy).
# The last line sums both: "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 1
./scripts/build.sh || exit 1
logs=$(mktemp -d)
ctest --test-dir build --output-on-failure -j "$(nproc)" 2>&1 | tee "$logs/ctest"
ctest_rc=${PIPESTATUS[0]}
total=$(grep -oE 'tests failed out of [0-9]+' "$logs/ctest" | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '[0-9]+ tests failed out of' "$logs/ctest" | grep -oE '^[0-9]+' || echo 0)
py_rc=0
if grep -q '^PROBITY_BUILD_PYTHON:BOOL=OFF' build/CMakeCache.txt; then
  echo "test.sh: PROBITY_BUILD_PYTHON=OFF, Python tests skipped"
else
  PYTHONPATH="$PWD/build/python" /usr/bin/python3 -m unittest discover -s python/tests 2>&1 |
    tee "$logs/python"
  py_rc=${PIPESTATUS[0]}
  py_total=$(grep -oE '^Ran [0-9]+ test' "$logs/python" | grep -oE '[0-9]+' || echo 0)
  py_failed=$(grep -oE '(failures|errors)=[0-9]+' "$logs/python" | awk -F= '{s += $2} END {print s + 0}')
  total=$((total + py_total))
  failed=$((failed + py_failed))
fi
rm -rf "$logs"
echo "tests: $((total - failed)) passed, $failed failed"
[ "$ctest_rc" -eq 0 ] && [ "$py_rc" -eq 0 ]

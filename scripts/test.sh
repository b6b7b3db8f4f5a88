#!/usr/bin/env bash
# Sets up, checks the formatting, builds and runs every test (the README's second quick-start
# command): the GoogleTest suite and the build-level tests through ctest (the docs test among
# them), then the Python module's tests with Debian's interpreter (it has NumPy). Then the
# sanitizer and fuzz run (scripts/sanitize.sh). "tests: N passed, M failed" sums the first two;
# the sanitizer run ends "sanitize: clean" or "sanitize: FAILED".
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 1
# First and cheap (seconds): every tracked C++ file as .clang-format lays it out.
./scripts/check-format.sh || exit 1
# The same ./build as quickstart.sh, with the tests, benchmarks and module turned back on, and
# any compiler warning an error.
./scripts/build.sh -DPROBITY_BUILD_TESTS=ON -DPROBITY_BUILD_BENCH=ON -DPROBITY_BUILD_PYTHON=ON \
  -DPROBITY_WERROR=ON || exit 1
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
# The unit tests again under AddressSanitizer + UBSan, and each libFuzzer target for
# PROBITY_FUZZ_SECONDS (30) on its seed corpus (scripts/sanitize.sh; its own build-san/).
san_rc=0
if [ "${PROBITY_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "test.sh: PROBITY_SKIP_SANITIZE=1, sanitizer and fuzz run skipped"
else
  ./scripts/sanitize.sh
  san_rc=$?
fi
[ "$ctest_rc" -eq 0 ] && [ "$py_rc" -eq 0 ] && [ "$san_rc" -eq 0 ]

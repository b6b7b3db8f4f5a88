#!/usr/bin/env bash
# Builds probity with clang's AddressSanitizer + UndefinedBehaviorSanitizer in ./build-san, runs
# the GoogleTest suite under them, then runs every libFuzzer target (tests/fuzz) on a scratch copy
# of its seed corpus: a fixed seed and a fixed number of runs, so that CI gives the same verdict
# every time. Any sanitizer report, crash or failed test fails.
#   scripts/sanitize.sh                          # 20000 runs per fuzz target, seed 26
#   PROBITY_FUZZ_RUNS=200000 scripts/sanitize.sh # more runs, same seed
#   PROBITY_FUZZ_SECONDS=600 scripts/sanitize.sh # by hand: for a time, a new seed each run
# New inputs the fuzzers find stay in the scratch directory; a crashing input is copied to
# build-san/fuzz-crashes/ and its path printed (add it to tests/fuzz/corpus/<target>/ once fixed).
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${PROBITY_FUZZ_RUNS:-20000}
if [ -n "${PROBITY_FUZZ_SECONDS:-}" ]; then
  budget=(-max_total_time="$PROBITY_FUZZ_SECONDS")
  budget_text="${PROBITY_FUZZ_SECONDS}s"
else
  # A time limit far above what the runs take, so that it never decides a CI verdict.
  budget=(-seed=26 -runs="$runs" -max_total_time=600)
  budget_text="$runs runs, seed 26"
fi
cxx=${PROBITY_SANITIZE_CXX:-clang++-19}
command -v "$cxx" >/dev/null || { echo "sanitize.sh: $cxx not found (scripts/setup.sh installs it)"; exit 1; }

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# ccache caches the files compiled with a precompiled header (CMake passes it with -include)
# only when told that the PCH's macros, time macros and fresh include files are safe.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# -O1 with line tables only: readable reports at a fraction of the compile time of -O2 -g.
cmake -S . -B build-san -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" -DPROBITY_SANITIZE=address,undefined \
  -DPROBITY_FUZZ=ON -DPROBITY_WERROR=ON -DPROBITY_BUILD_PYTHON=OFF -DPROBITY_BUILD_BENCH=OFF \
  "${launcher[@]}" >/dev/null || exit 1
cmake --build build-san -j "$(nproc)" || exit 1

# Leaks are reported too; halt_on_error makes UBSan findings fatal as well as ASan's.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Reports with function names and lines (llvm-19 ships the symbolizer).
if [ -x /usr/bin/llvm-symbolizer-19 ]; then export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-19; fi
status=0
ctest --test-dir build-san --output-on-failure -j "$(nproc)" || status=1

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p build-san/fuzz-crashes
run_fuzzer() {
  local name=$1 corpus="$scratch/$1"
  cp -r "tests/fuzz/corpus/$name" "$corpus"
  # The seed corpora hold 64 KB (-max_len) inputs nested 32k deep, which a recursive parser
  # without a depth limit overflows on.
  if ./build-san/tests/fuzz/fuzz_"$name" "$corpus" "${budget[@]}" \
      -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="build-san/fuzz-crashes/$name-" >"$scratch/$name.log" 2>&1; then
    echo "fuzz $name: clean, $(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$scratch/$name.log" |
      grep -oE '[0-9]+$') runs (budget ${budget_text}), corpus $(ls "$corpus" | wc -l) inputs"
  else
    echo "fuzz $name: FAILED"
    tail -60 "$scratch/$name.log"
    return 1
  fi
}
targets=(jsonl csv scores metric_spec config llm_response)
# Two at a time: as many as there are cores on the CI machines.
jobs=$(nproc)
pids=()
for t in "${targets[@]}"; do
  run_fuzzer "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ "$status" -eq 0 ] && echo "sanitize: clean" || echo "sanitize: FAILED"
exit "$status"

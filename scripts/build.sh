#!/usr/bin/env bash
# Configures and builds probity (Release) in ./build.
#   scripts/build.sh [--target NAME] [cmake configure arguments...]
# --target builds that one target (quickstart.sh: `probity`) instead of everything configured;
# the other arguments go to cmake, e.g. -DPROBITY_BUILD_TESTS=OFF. Options given once stay in
# build/CMakeCache.txt until given again.
set -euo pipefail
cd "$(dirname "$0")/.."
target=()
configure=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=(--target "$2"); shift 2 ;;
    *) configure+=("$1"); shift ;;
  esac
done
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# ccache caches the files compiled with a precompiled header (CMake passes it with -include)
# only when told that the PCH's macros, time macros and fresh include files are safe.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
linker=()
if command -v mold >/dev/null; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=mold)
fi
# --no-warn-unused-cli: Python3_EXECUTABLE is unused when the module is off (quickstart.sh).
cmake -S . -B build -G Ninja --no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release \
  -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" "${linker[@]}" "${configure[@]}" >/dev/null
cmake --build build -j "$(nproc)" "${target[@]}"

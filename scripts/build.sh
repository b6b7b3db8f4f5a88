#!/usr/bin/env bash
# Configures and builds probity (Release) in ./build. Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# ccache caches the files compiled with a precompiled header (CMake passes it with -include)
# only when told that the PCH's macros, time macros and fresh include files are safe.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
linker=()
if command -v mold >/dev/null; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=mold)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" "${linker[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)"

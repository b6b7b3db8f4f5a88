#!/usr/bin/env bash
# Sets up, builds and runs every test (the README's second quick-start command).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"

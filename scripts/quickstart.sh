#!/usr/bin/env bash
# The README's first quick-start command: install what building and running the CLI needs, build
# only the `probity` executable (no tests, benchmarks or Python module) into ./build, and run the
# main job, an offline audit of the bundled SummEval sample with the lexical and MI metrics
# (tables on the terminal, report in out/quickstart/). A later ./scripts/test.sh reuses ./build:
# it turns the tests, benchmarks and module back on and adds their tooling.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --run
./scripts/build.sh --target probity \
  -DPROBITY_BUILD_TESTS=OFF -DPROBITY_BUILD_BENCH=OFF -DPROBITY_BUILD_PYTHON=OFF
./build/probity audit --data data/summeval/summeval_sample20.jsonl \
  --metric bleu --metric chrf --metric rougeL.f \
  --metric gem --metric gppm-j --metric tvd-mi --metric stmt-tv \
  --seed 0 --out out/quickstart

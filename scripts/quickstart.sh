#!/usr/bin/env bash
# The README's first quick-start command: set up, build, and run the main job, an offline audit
# of the bundled SummEval sample with the lexical and MI metrics (tables on the terminal, report
# in out/quickstart/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
./build/probity audit --data data/summeval/summeval_sample20.jsonl \
  --metric bleu --metric chrf --metric rougeL.f \
  --metric gem --metric gppm-j --metric tvd-mi --metric stmt-tv \
  --seed 0 --out out/quickstart

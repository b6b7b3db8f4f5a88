#!/usr/bin/env bash
# Regenerates the result tables committed under docs/results/ (offline, seed 0).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/docs}
mkdir -p docs/results "$out"
data=(--data data/summeval/summeval.jsonl --data data/dialsummeval/dialsummeval.jsonl
      --data data/newsroom_human_eval/newsroom_human_eval.jsonl)

# The paper's tables for the lexical metrics on three datasets.
./build/probity audit "${data[@]}" --metric bleu --metric chrf --metric rougeL.f --seed 0 \
  --out "$out/lexical-audit" > "$out/lexical-audit.txt"
cp "$out/lexical-audit/report.md" docs/results/lexical-audit.md

# The 30-cell sweep (Table 6 layout) and the audit of the four presets.
./scripts/mi-sweep.sh 30 "$out/mi-sweep-30" > "$out/mi-sweep-30.txt"
cp "$out/mi-sweep-30/report.md" docs/results/mi-sweep-30.md
./build/probity audit "${data[@]}" --metric gem --metric gppm-j --metric tvd-mi --metric stmt-tv \
  --metric rougeL.f --seed 0 --out "$out/mi-presets-audit" > "$out/mi-presets-audit.txt"
cp "$out/mi-presets-audit/report.md" docs/results/mi-presets-audit.md
echo "wrote docs/results/{lexical-audit,mi-sweep-30,mi-presets-audit}.md"

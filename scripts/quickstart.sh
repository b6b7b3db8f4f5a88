#!/usr/bin/env bash
# The README's first quick-start command: set up, build, and run the main job on the bundled
# SummEval sample with the offline defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
out=out/quickstart
mkdir -p "$out"
./build/probity score --data data/summeval/summeval_sample20.jsonl \
  --metric bleu --metric chrf --metric chrf++ --metric rouge1.f --metric rouge2.f \
  --metric rougeL.f --metric rougeLsum.f --out "$out/scores.jsonl"
./build/probity correlate --data data/summeval/summeval_sample20.jsonl \
  --scores "$out/scores.jsonl" --bootstrap 1000 --seed 0 | tee "$out/correlations.txt"
echo "scores: $out/scores.jsonl; correlation table: $out/correlations.txt"

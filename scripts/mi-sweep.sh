#!/usr/bin/env bash
# The MI design-space sweep (the paper's Table 6): Spearman of every cell
# (F, E) x (R, P) with human ratings on SummEval, DialSummEval and Newsroom, offline predictors.
# Usage: scripts/mi-sweep.sh [12|30] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
cells=${1:-30}
out=${2:-out/mi-sweep-$cells}
measures="kl tv"
[ "$cells" = 30 ] && measures="kl tv rkl chi2 hellinger"
metrics=(--metric bleu --metric chrf --metric rougeL.f)
for rp in token/ar report/oracle statement/oracle; do
  for f in $measures; do
    for e in direct fvar; do
      metrics+=(--metric "mi:$f/$e/$rp")
    done
  done
done
./build/probity audit --degrade none --manipulate none --seed 0 --bootstrap 1000 \
  --data data/summeval/summeval.jsonl \
  --data data/dialsummeval/dialsummeval.jsonl \
  --data data/newsroom_human_eval/newsroom_human_eval.jsonl \
  "${metrics[@]}" --out "$out"

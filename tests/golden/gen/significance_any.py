#!/usr/bin/env python3
"""Writes tests/golden/significance/any_metric.json: sacreBLEU 2.6.0's paired bootstrap and
approximate randomization applied to the mean of per-item scores (the corpus aggregation of
ROUGE, BERTScore, LLM judges and scores files), over every pair of systems, with the pairs'
p-values adjusted (statsmodels) and the systems ranked into WMT's significance clusters.

    /usr/bin/python3 tests/golden/gen/significance_any.py --data data/summeval/summeval.jsonl \\
        --scores tests/golden/meta_eval/summeval_scores.jsonl \\
        --out tests/golden/significance/any_metric.json

A NumPy reference written from sacreBLEU's significance.py (_paired_bs_test, _paired_ar_test,
_compute_p_value, estimate_ci; tag v2.6.0) with its per-resample statistic replaced by the mean
of the item scores; no sacreBLEU code is imported or copied. NumPy 1.24.2, statsmodels 0.13.5
(Debian bookworm). What it does, as sacreBLEU does for its metrics:
 - one numpy.random.default_rng(seed) per test of a pair (so every pair of systems sees the same
   draws); bootstrap: idxs = rng.choice(n, size=(samples, n), replace=True), each system's
   resample score the mean of its drawn item scores; randomization:
   pos_sel = rng.integers(2, size=(trials, n), dtype=bool), pseudo-system a takes system i's
   item where pos_sel is true and system j's elsewhere, b the other way round;
 - the actual score is the mean of the system's item scores; bootstrap p-value:
   diffs = |s_j - s_i| over the resamples, centred on its mean, c = #(centred > |score_i -
   score_j|); randomization: c = #(|a - b| > |score_i - score_j|); p = (c + 1) / (samples + 1);
   each system's bootstrap mean and CI as estimate_ci (sorted resample scores at n//40 and
   n - n//40 - 1, half their distance);
 - means are NumPy's (pairwise summation): a resample's or trial's mean is that of a
   contiguous row, so np.where(...).mean(axis=1) (checked against a per-row loop below) rather
   than sacreBLEU's `pos_sel @ stats`, a BLAS product whose rounding order of real numbers is
   its own (sacreBLEU's statistics are whole numbers, for which the order does not matter).
Clusters: the n(n-1)/2 pairs' p-values (upper triangle, row by row) adjusted by
statsmodels.stats.multitest.multipletests (holm, fdr_bh) or not at all; a pair whose two actual
scores are equal counts as p = 1 before adjusting (sacreBLEU's p of a zero difference is
1/(samples + 1), since no resample exceeds it; equal scores are no evidence of a difference).
Systems ordered best first (np.argsort(-score, kind="stable"); negated when lower is better),
then mt-metrics-eval's AssignRanks rule: walking down, a system starts a new cluster when the
adjusted p of it and any member of the current cluster is <= alpha.

Inputs: per-item scores from --scores (probity score records: task_id, candidate_id, metric,
score; SummEval's candidate ids are its system names) in the task order of --data, stored in
the output as `scores`: metric -> system -> [one score per task]. Each case: `metric`,
`systems` (the baseline first), `tasks` (how many of the first tasks), `test` (bs or ar), `n`
(resamples or trials), `seed`, `correction` (holm, bh, none), `alpha`, `better` (higher, lower)
and `results`: per system `score`, `p_value` (against the baseline; null for it), `mean` and
`ci` (bootstrap; else null); `pairwise` (p-values, null diagonal), `adjusted`, `rank` (per
system, 1 = best), `order` (system indices, best first).
"""

import argparse
import json
import pathlib
import platform

import numpy as np
from statsmodels.stats.multitest import multipletests


def estimate_ci(scores):
    s = np.sort(scores)
    n = len(s)
    lower = n // 40
    upper = n - lower - 1
    return float(s.mean()), float(0.5 * (s[upper] - s[lower]))


def p_value(stats, real):
    return (int(np.sum(stats > real)) + 1) / (len(stats) + 1)


def resample_scores(x, samples, seed):
    """(systems, samples): each system's mean over each bootstrap resample of its items."""
    rng = np.random.default_rng(seed)
    n = x.shape[1]
    idxs = rng.choice(n, size=(samples, n), replace=True)
    out = np.stack([x[s][idxs].mean(axis=1) for s in range(x.shape[0])])
    for s in range(x.shape[0]):  # the vectorized mean is that of each row on its own
        for r in (0, samples // 2, samples - 1):
            assert out[s][r] == x[s][idxs[r]].mean()
    return out


def ar_p(x, i, j, trials, seed, real):
    rng = np.random.default_rng(seed)
    n = x.shape[1]
    pos_sel = rng.integers(2, size=(trials, n), dtype=bool)
    a = np.where(pos_sel, x[i], x[j]).mean(axis=1)
    b = np.where(pos_sel, x[j], x[i]).mean(axis=1)
    for r in (0, trials - 1):
        assert a[r] == np.where(pos_sel[r], x[i], x[j]).mean()
    return p_value(np.abs(a - b), real)


def clusters(score, pairwise, correction, alpha, better):
    m = len(score)
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    raw = np.array([1.0 if score[i] == score[j] else pairwise[i][j] for i, j in pairs])
    if correction == "none":
        adj = raw
    else:
        method = {"holm": "holm", "bh": "fdr_bh"}[correction]
        adj = multipletests(raw, alpha=alpha, method=method)[1]
    adjusted = [[None] * m for _ in range(m)]
    for (i, j), p in zip(pairs, adj):
        adjusted[i][j] = adjusted[j][i] = float(p)
    values = np.array(score) if better == "higher" else -np.array(score)
    order = [int(k) for k in np.argsort(-values, kind="stable")]
    rank = [0] * m
    current, cluster = 1, []
    for s in order:
        if any(adjusted[c][s] <= alpha for c in cluster):
            current += 1
            cluster = []
        cluster.append(s)
        rank[s] = current
    return adjusted, rank, order


def run_case(scores, name, metric, systems, tasks, test, n, seed, correction, alpha, better):
    x = np.array([scores[metric][s][:tasks] for s in systems], dtype=np.float64)
    m = len(systems)
    score = [float(x[s].mean()) for s in range(m)]
    pairwise = [[None] * m for _ in range(m)]
    means = [None] * m
    cis = [None] * m
    if test == "bs":
        rs = resample_scores(x, n, seed)
        for s in range(m):
            means[s], cis[s] = estimate_ci(rs[s])
    for i in range(m):
        for j in range(i + 1, m):
            real = abs(score[i] - score[j])
            if test == "bs":
                diffs = np.abs(rs[j] - rs[i])
                p = p_value(diffs - diffs.mean(), real)
            else:
                p = ar_p(x, i, j, n, seed, real)
            pairwise[i][j] = pairwise[j][i] = p
    adjusted, rank, order = clusters(score, pairwise, correction, alpha, better)
    return {
        "name": name, "metric": metric, "systems": systems, "tasks": tasks, "test": test,
        "n": n, "seed": seed, "correction": correction, "alpha": alpha, "better": better,
        "results": {
            "systems": [{"score": score[s], "p_value": None if s == 0 else pairwise[0][s],
                         "mean": means[s], "ci": cis[s]} for s in range(m)],
            "pairwise": pairwise, "adjusted": adjusted, "rank": rank, "order": order,
        },
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--scores", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    tasks = [json.loads(line) for line in open(args.data, encoding="utf-8")]
    systems = [c["system"] for c in tasks[0]["candidates"]]
    metrics = ["rougeL.f", "rouge1.f", "gem", "chrf"]
    by_key = {}
    for line in open(args.scores, encoding="utf-8"):
        r = json.loads(line)
        if "metric" in r and r["metric"] in metrics:
            by_key[(r["task_id"], r["candidate_id"], r["metric"])] = r["score"]
    scores = {m: {s: [by_key[(t["task_id"], s, m)] for t in tasks] for s in systems}
              for m in metrics}
    # A copy of M0: equal scores on every item.
    scores["rougeL.f"]["M0-copy"] = list(scores["rougeL.f"]["M0"])
    n_tasks = len(tasks)
    six = ["M5", "M0", "M1", "M2", "M8", "M9"]  # the baseline need not be the first system
    cases = [
        # The defaults of `probity significance` on SummEval's 16 systems.
        run_case(scores, "rougeL_ar_holm", "rougeL.f", systems, n_tasks, "ar", 10000, 12345,
                 "holm", 0.05, "higher"),
        run_case(scores, "rougeL_bs_none", "rougeL.f", systems, n_tasks, "bs", 1000, 12345,
                 "none", 0.05, "higher"),
        run_case(scores, "rouge1_bs_holm_seed7", "rouge1.f", systems, n_tasks, "bs", 3000, 7,
                 "holm", 0.05, "higher"),
        run_case(scores, "gem_ar_bh_seed7", "gem", systems, n_tasks, "ar", 2000, 7, "bh", 0.1,
                 "higher"),
        # Lower is better: the clusters' order is reversed, the p-values are not.
        run_case(scores, "chrf_six_lower_ar", "chrf", six, n_tasks, "ar", 5000, 42, "none",
                 0.05, "lower"),
        run_case(scores, "chrf_six_lower_bs", "chrf", six, 50, "bs", 500, 42, "holm", 0.05,
                 "lower"),
        # Equal scores: sacreBLEU's p is 1/(n + 1); the two share a cluster.
        run_case(scores, "identical_ar", "rougeL.f", ["M0", "M0-copy", "M1", "M2"], n_tasks,
                 "ar", 1000, 12345, "none", 0.05, "higher"),
        run_case(scores, "identical_bs", "rougeL.f", ["M0", "M0-copy", "M1", "M2"], n_tasks,
                 "bs", 1000, 12345, "none", 0.05, "higher"),
        # One item: choice(1) draws nothing, every resample is that item.
        run_case(scores, "one_item_bs", "rougeL.f", systems[:3], 1, "bs", 100, 12345, "holm",
                 0.05, "higher"),
        run_case(scores, "one_item_ar", "rougeL.f", systems[:3], 1, "ar", 100, 12345, "holm",
                 0.05, "higher"),
    ]
    import statsmodels
    versions = {"numpy": np.__version__, "statsmodels": statsmodels.__version__,
                "python": platform.python_version(),
                "algorithm": "sacrebleu 2.6.0 significance.py (_paired_bs_test, _paired_ar_test) "
                             "on item means"}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"versions": versions, "data": args.data, "scores_file": args.scores,
                   "scores": scores, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes tests/golden/meta_eval/wmt24_tasks.json: mt-metrics-eval's (MTME's) own WMT24 task set
(tasks.WMT24: per language pair, system-level PCE and segment-level acc23 with tie calibration,
averaged over items) run by MTME's own code on the synthetic tree of gen/mtme_tree.py
(tests/golden/inputs/mtme_wmt/wmt24), with the averages MTME reports over the task set.

Reference code (none of it is in this project; the script imports it from --mme):
    https://github.com/google-research/mt-metrics-eval
    commit 68a481aea1a787392d55af8f76ac8ef40c5f4664
    files:  mt_metrics_eval/data.py, tasks.py, stats.py, meta_info.py, pce.py,
            tau_optimization.py, ratings.py (SHA-256 checked against that commit: a warning, not
            an error, if they differ; the digests used are written to the output)
    used:   data.EvalSet(name='wmt24', lp, read_stored_metric_scores=True, path=TREE) with the
            default strict=False and meta-info meta_info.DATA['wmt24'][lp];
            EvalSet.SetPrimaryMetrics(primaries | {'mymetric'}) (the user's metric as a primary);
            tasks.WMT24(k=K) (primary=True), Task.Run(eval_set_dict) per task in order;
            tasks.TaskSetResults .AverageCorrs(weights), .AverageRanks(weights),
            .AverageCorrMatrix(weights) (weights: the ones tasks.WMT24 returns), .AssignWeights.
    Get it:
        mkdir -p /tmp/mme-src && git --git-dir=REPO.git archive 68a481a | tar -x -C /tmp/mme-src

Stand-ins (MTME imports them, the run never needs them): `apache_beam` (data.py; used only for
parallel_file, which is None here) and `dacite` (ratings.py; from_dict, a minimal one for the
Rating/Error dataclasses, written here) are put in sys.modules before MTME is imported.

Two changes to make MTME's output a function of its input (both in `notes` of the output):
 (a) stats.PermutationSigDiff and stats.PairwisePermutationSigDiff draw from NumPy's unseeded
     global RandomState. Both are wrapped so that np.random.seed(BASE + 100000 * task_index +
     pair_index) runs immediately before each call: task_index = the task's position in the
     task list (0-based), pair_index = the position of the metric pair in ComputeSigMatrix's
     `for i: for j > i` loop over the metrics sorted by (-correlation, name) (0-based, counted
     per task), BASE = --base-seed (0).
 (b) EvalSet.Correlation iterates set(sys_names), whose order follows PYTHONHASHSEED; the order
     of systems changes the permutation draws of acc23 and PCE's one-sided p-values per ordered
     pair. It is replaced by a function of this script that builds the same stats.Correlation
     with the systems in sorted (code-point) order.

Run (from the repository root; Debian bookworm's /usr/bin/python3 3.11, NumPy 1.24.2, SciPy
1.10.1):

    /usr/bin/python3 tests/golden/gen/mtme_wmt24_tasks.py --mme /tmp/mme-src \
        --tree tests/golden/inputs/mtme_wmt --out tests/golden/meta_eval/wmt24_tasks.json

About 20 seconds on one core at K = 200; the output is about 1.3 MB (the draws).
"""

import argparse
import dataclasses
import hashlib
import json
import pathlib
import platform
import sys
import types

MME_REPO = "https://github.com/google-research/mt-metrics-eval"
MME_COMMIT = "68a481aea1a787392d55af8f76ac8ef40c5f4664"
MME_SHA256 = {
    "mt_metrics_eval/data.py": "71c61f6c19a8ced02290957cdf52e7774cee1a298e2167f7529dc2cbf85b0183",
    "mt_metrics_eval/tasks.py": "f3eb5999c4056168e7036fe51ed5327c6453d41f9406325412601ff15e5de2c5",
    "mt_metrics_eval/stats.py": "5c70ed278272ee82241140678dd2478bd0abce03c2e2726f58983af1c88e704f",
    "mt_metrics_eval/meta_info.py":
        "875714c6a2712e7df1cf210f5b32697ae9b38a46450bf82c1de9ec2b64b8d660",
    "mt_metrics_eval/pce.py": "4ec259bb89e0ee5b07f959c65d5650c4b30a37d68bf19ba2ffc4190618905cd3",
    "mt_metrics_eval/tau_optimization.py":
        "40af0d46f43f6b67745ebaf716998602514ca9ccfb48aa46c29906d73498eda9",
    "mt_metrics_eval/ratings.py":
        "ab7c075d7d7af1431d94a221ff803cf8498e4b46f06c2cf7b927b45e23fef7d4",
}
LPS = ["en-de", "en-es", "ja-zh"]
USER_METRIC = "mymetric"
SEED_STRIDE = 100000


def sha256_file(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def install_stand_ins():
    sys.modules["apache_beam"] = types.ModuleType("apache_beam")
    dacite = types.ModuleType("dacite")

    def from_dict(data_class, data):
        # Enough for ratings.Rating (a list of Error) and ratings.Error (flat fields).
        kwargs = {}
        for f in dataclasses.fields(data_class):
            if f.name not in data:
                continue
            v = data[f.name]
            if f.name == "errors":
                err_cls = sys.modules["mt_metrics_eval.ratings"].Error
                v = [from_dict(err_cls, e) for e in v]
            kwargs[f.name] = v
        return data_class(**kwargs)

    dacite.from_dict = from_dict
    sys.modules["dacite"] = dacite


def clean(x):
    """JSON-able copy: sets sorted, numpy scalars/arrays to Python, NaN to None."""
    import numpy as np
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (set, frozenset)):
        return sorted(clean(v) for v in x)
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return None if x != x else x
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


def dumps(x, indent=0):
    """JSON with dicts indented and lists of numbers on one line (one row per line)."""
    pad, pad1 = " " * indent, " " * (indent + 1)
    if isinstance(x, dict):
        if not x:
            return "{}"
        items = [f"{pad1}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in x.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(x, list) and x and all(isinstance(v, list) for v in x) and all(
            not any(isinstance(u, (list, dict)) for u in v) for v in x):
        return "[\n" + ",\n".join(pad1 + json.dumps(v) for v in x) + "\n" + pad + "]"
    if isinstance(x, list) and any(isinstance(v, (list, dict)) for v in x):
        return "[\n" + ",\n".join(pad1 + dumps(v, indent + 1) for v in x) + "\n" + pad + "]"
    return json.dumps(x, allow_nan=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mme", required=True, help="directory holding mt_metrics_eval/")
    ap.add_argument("--tree", required=True, help="parent of the wmt24/ test-set directory")
    ap.add_argument("--out", required=True)
    ap.add_argument("--k", type=int, default=200, help="permutation draws per metric pair")
    ap.add_argument("--base-seed", type=int, default=0)
    args = ap.parse_args()

    digests = {}
    for rel, want in MME_SHA256.items():
        got = sha256_file(pathlib.Path(args.mme) / rel)
        digests[rel] = got
        if got != want:
            print(f"warning: {rel} SHA-256 {got} differs from commit {MME_COMMIT}'s {want}",
                  file=sys.stderr)

    install_stand_ins()
    sys.path.insert(0, args.mme)
    import numpy as np
    import scipy
    from mt_metrics_eval import data, stats, tasks

    # (a) Seed the global RandomState before each permutation test.
    state = {"task": 0, "pair": 0}
    seeds_used = []

    def seeded(fn):
        def wrapper(*a, **kw):
            seed = args.base_seed + SEED_STRIDE * state["task"] + state["pair"]
            seeds_used.append(seed)
            state["pair"] += 1
            np.random.seed(seed)
            return fn(*a, **kw)
        return wrapper

    stats.PermutationSigDiff = seeded(stats.PermutationSigDiff)
    stats.PairwisePermutationSigDiff = seeded(stats.PairwisePermutationSigDiff)

    # (b) Systems in sorted order (MTME iterates a set).
    systems_used = {}

    def sorted_correlation(self, gold_scores, metric_scores, sys_names=None, indexes=None):
        names = sorted(gold_scores if sys_names is None else sys_names)
        for s in names:
            if s not in metric_scores:
                raise ValueError(f"Missing metric scores: {s}")
            if s not in gold_scores:
                raise ValueError(f"Missing gold scores: {s}")
        gold, metric = [], []
        for s in names:
            g, m = gold_scores[s], metric_scores[s]
            if indexes is not None:
                g, m = np.asarray(g)[indexes], np.asarray(m)[indexes]
            if len(g) != len(m):
                raise ValueError(f"Wrong number of scores for system {s}")
            gold.extend(g)
            metric.extend(m)
        systems_used[state["task"]] = names
        return stats.Correlation(len(names), gold, metric)

    data.EvalSet.Correlation = sorted_correlation

    evs_dict = {}
    eval_sets = {}
    for lp in LPS:
        evs = data.EvalSet("wmt24", lp, read_stored_metric_scores=True, path=args.tree)
        evs.SetPrimaryMetrics(evs.primary_metrics | {USER_METRIC})
        evs_dict[("wmt24", lp)] = evs
        eval_sets[lp] = {
            "std_ref": evs.std_ref,
            "ref_names": sorted(evs.ref_names),
            "sys_names": sorted(evs.sys_names),
            "human_sys_names": sorted(evs.human_sys_names),
            "outlier_sys_names": sorted(evs.outlier_sys_names),
            "domain_names": list(evs.domain_names),
            "doc_names": list(evs.doc_names),
            "num_segments": len(evs.src),
            "levels": sorted(evs.levels),
            "human_score_names": sorted(evs.human_score_names),
            "metric_names": sorted(evs.metric_names),
            "metric_basenames": sorted(evs.metric_basenames),
            "std_gold": dict(evs.info.std_gold),
        }

    def full_names(evs, task, shown):
        """Display name -> MTME's full metric name (BASE-REFS) for the metrics of a task."""
        out = {}
        for m in sorted(evs.metric_names):
            d = evs.DisplayName(m, "spreadsheet")
            if d in shown and evs.ReferencesUsed(m).issubset(task.refs):
                assert d not in out, d
                out[d] = m
        return {d: out[d] for d in shown}

    task_set, weights = tasks.WMT24(k=args.k)
    results = []
    records = []
    for ti, task in enumerate(task_set):
        state["task"], state["pair"] = ti, 0
        first_seed = len(seeds_used)
        res = task.Run(evs_dict)
        results.append(res)
        n = len(res.metrics)
        records.append({
            "index": ti,
            "name": res.name,
            "attributes": clean({a: getattr(task, a) for a in tasks.Attributes()}),
            "range": list(res.range),
            "systems": systems_used[ti],
            "metrics": res.metrics,
            "metric_full_names": full_names(evs_dict[("wmt24", task.lang)], task, res.metrics),
            "corr": [clean(res.Corr(m)) for m in res.metrics],
            "rank": [res.Rank(m) for m in res.metrics],
            "seeds": seeds_used[first_seed:],
            "sig_matrix": clean(res.matrix),
            "draws_index": clean(res.draws_index),
            "draws": clean(res.draws_list.reshape(-1, 2) if len(res.draws_list) else []),
            "num_pairs": n * (n - 1) // 2,
        })
        print(f"task {ti}: {res.name[:60]}... {n} metrics", file=sys.stderr)

    tsr = tasks.TaskSetResults(results)
    avg_corrs = tsr.AverageCorrs(weights)
    avg_ranks = tsr.AverageRanks(weights)
    corr_ranks, avg_matrix = tsr.AverageCorrMatrix(weights)

    out = {
        "reference": {
            "repository": MME_REPO,
            "commit": MME_COMMIT,
            "sha256": digests,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "generator": "tests/golden/gen/mtme_wmt24_tasks.py",
            "tree": "tests/golden/inputs/mtme_wmt/wmt24 (tests/golden/gen/mtme_tree.py)",
        },
        "notes": [
            "Task set: tasks.WMT24(k=K) with primary=True; every EvalSet has "
            f"SetPrimaryMetrics(primaries | {{'{USER_METRIC}'}}), so the user's metric is "
            "ranked with the primaries. Tasks are run one by one in list order "
            "(what TaskSet.Run does).",
            "Seeding: stats.PermutationSigDiff and stats.PairwisePermutationSigDiff are "
            "wrapped so that np.random.seed(base_seed + 100000 * task_index + pair_index) "
            "runs immediately before each call; task_index is the task's 0-based position, "
            "pair_index the 0-based position of the pair in ComputeSigMatrix's `for i in "
            "range(n): for j in range(i + 1, n)` loop over `metrics` (sorted by "
            "(-corr, name)). MTME itself draws from the unseeded global RandomState. "
            "`seeds` lists the seeds per task in call order.",
            "System order: EvalSet.Correlation is replaced by an equivalent that puts the "
            "systems in sorted (code-point) order; MTME iterates set(sys_names), whose order "
            "follows PYTHONHASHSEED and changes the acc23 permutation draws and PCE's "
            "one-sided p-values. `systems` is that order. Checked on this tree: with MTME's "
            "own Correlation, PYTHONHASHSEED 1, 2 and 3 give different PCE correlations "
            "(tasks 0, 2, 4) and different sig matrices in all six tasks.",
            "PCE (stats.PairwiseConfidenceError) draws from default_rng(4) per call "
            "(pce.compute_pairwise_p_values' default seed): deterministic without a change. "
            "acc23 uses sample_rate=1.0: tau_optimization draws nothing.",
            "PairwisePermutationSigDiff checks early stopping only on draws where "
            "c2 - c1 >= delta (its `if i % block_size == 0` is nested in that `if`); "
            "PermutationSigDiff checks on every block boundary. block_size is Task's default "
            "100, early_min 0.02, early_max 0.5.",
            "The pce task uses segment-level scores (GetCorrelations(level='seg')): metrics "
            "without seg scores (spBLEU here) are in no WMT24 task. Metric names are "
            "DisplayName(..., 'spreadsheet'): '*' before non-primary basenames, '[noref]' "
            "after reference-free ones.",
            "Repairs: with strict=False, MTME pads metric files missing a system (other than "
            "the references the metric uses) with 0 scores: en-es XCOMET-refA.seg (system "
            "refB, excluded: en-es has human=False) and en-de COMET-22-refB.sys (MSLC, an "
            "outlier). Human score files are not padded.",
            "draws: each task's draws_list, one [x, y] row per resampling draw. ComputeSigMatrix "
            "calls PermutationSigDiff(metric_corrs[metric j], metric_corrs[metric i]) for "
            "i < j (metrics in `metrics` order), which returns (corr2, corr1) pairs: x is the "
            "resampled correlation in metric i's slot, y in metric j's. Rows "
            "draws_index[i][j] .. draws_index[j][i] - 1 belong to pair (i, j). sig_matrix[i][j] "
            "(j > i) is the fraction of draws with x - y >= corr(i) - corr(j), the p-value "
            "that metric j is at least as good as metric i; ranks are data.AssignRanks(p <= "
            "0.05).",
            "Averages: weights are tasks.WMT24's (uniform, 1/6 each); AverageCorrs maps each "
            "task's correlation to [0, 1] by its range before weighting; AverageCorrMatrix "
            "reuses the per-task draws (tiling shorter draw lists to the longest).",
            "null = NaN.",
        ],
        "k": args.k,
        "base_seed": args.base_seed,
        "seed_stride": SEED_STRIDE,
        "eval_sets": eval_sets,
        "weights": list(weights),
        "assign_weights": {
            "lang": tsr.AssignWeights(["lang"]),
            "lang,level": tsr.AssignWeights(["lang", "level"]),
            "level": tsr.AssignWeights(["level"]),
        },
        "tasks": records,
        "average_corrs": clean(avg_corrs),
        "average_ranks": clean(avg_ranks),
        "average_corr_matrix": {
            "metrics": list(corr_ranks),
            "corr": [clean(c) for c, _ in corr_ranks.values()],
            "rank": [r for _, r in corr_ranks.values()],
            "sig_matrix": clean(avg_matrix),
        },
    }
    pathlib.Path(args.out).write_text(dumps(out) + "\n")


if __name__ == "__main__":
    main()

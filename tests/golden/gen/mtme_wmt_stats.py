#!/usr/bin/env python3
"""Writes tests/golden/meta_eval/wmt_stats.json: the WMT24/25 meta-evaluation statistics of
Google's mt-metrics-eval (MTME), computed by MTME's own code on synthetic score matrices made here
from a fixed seed: soft pairwise accuracy (1 - PCE), the 'scores' permutation test with the PCE
statistic, the 'pairs' permutation test (acc23), Pairwise Difference Pearson, WMT20's
Kendall-like tau and Williams' test.

Reference code (none of it is in this project; the script imports it from --mme):
    https://github.com/google-research/mt-metrics-eval
    commit 68a481aea1a787392d55af8f76ac8ef40c5f4664
    files:  mt_metrics_eval/stats.py, tau_optimization.py, pce.py, __init__.py (SHA-256 checked,
            a warning if they differ; the digests used are written to the output)
    used:   pce.compute_pairwise_p_values / compute_one_minus_pce; stats.PairwiseConfidenceError;
            stats.PermutationSigDiff(corr1, corr2, partial(PairwiseConfidenceError, num_sys,
            filter_nones), 'none', k, PermutationSigDiffParams(block_size, early_min, early_max))
            as data.CompareMetricsWithPairwiseConfidenceError calls it;
            stats.PairwisePermutationSigDiff(corr1, corr2, 'acc23', average_by, k, params,
            epsilon1, epsilon2, sample_rate=1.0); stats.KendallWithTiesOpt (the epsilons);
            stats.Correlation.Pearson(average_by, pdp=True); stats.Correlation.KendallLike;
            stats.WilliamsSigDiff (with AverageCorrelation(scipy.stats.pearsonr)) and
            stats.WilliamsTest.
    Get it:
        mkdir -p /tmp/mme-src/mt_metrics_eval
        for f in __init__.py stats.py tau_optimization.py pce.py; do
          git --git-dir=REPO.git show 68a481aea1a787392d55af8f76ac8ef40c5f4664:mt_metrics_eval/$f \
            > /tmp/mme-src/mt_metrics_eval/$f
        done

Run (from the repository root; Debian bookworm's /usr/bin/python3 3.11 with python3-numpy 1.24.2
and python3-scipy 1.10.1):

    /usr/bin/python3 tests/golden/gen/mtme_wmt_stats.py --mme /tmp/mme-src \
        --out tests/golden/meta_eval/wmt_stats.json

About 30 seconds on one core. Deterministic: the inputs come from default_rng(SEED) and every
permutation test is preceded by np.random.seed(its seed), recorded with it.
"""

import argparse
import functools
import hashlib
import json
import math
import pathlib
import platform
import sys
import time

MME_REPO = "https://github.com/google-research/mt-metrics-eval"
MME_COMMIT = "68a481aea1a787392d55af8f76ac8ef40c5f4664"
MME_SHA256 = {
    "mt_metrics_eval/stats.py":
        "5c70ed278272ee82241140678dd2478bd0abce03c2e2726f58983af1c88e704f",
    "mt_metrics_eval/tau_optimization.py":
        "40af0d46f43f6b67745ebaf716998602514ca9ccfb48aa46c29906d73498eda9",
    "mt_metrics_eval/pce.py":
        "4ec259bb89e0ee5b07f959c65d5650c4b30a37d68bf19ba2ffc4190618905cd3",
}
SEED = 2025
AVERAGE_BY = ["none", "item", "sys"]


def sha256_file(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def num(x):
    """A JSON number, or None for NaN (JSON has no NaN)."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def import_mme(root):
    root = pathlib.Path(root).resolve()
    digests = {}
    for rel, want in MME_SHA256.items():
        if not (root / rel).is_file():
            sys.exit(f"--mme {root}: no {rel} there")
        got = sha256_file(root / rel)
        digests[rel] = got
        if got != want:
            print(f"warning: {rel} differs from commit {MME_COMMIT} (sha256 {got})",
                  file=sys.stderr)
    sys.path.insert(0, str(root))
    from mt_metrics_eval import pce, stats  # noqa: F401
    return stats, pce, digests


# --------------------------------------------------------------------------- inputs


def make_inputs(np):
    """Flat systems x items lists (MTME's layout); None = missing gold."""
    rng = np.random.default_rng(SEED)
    inputs = {}

    def pack(gold, metrics, systems, items):
        return {"systems": systems, "items": items,
                "gold": [None if v is None else float(v) for v in gold],
                "metrics": {k: [float(v) for v in m] for k, m in metrics.items()}}

    # Small: 6 systems x 40 items, DA-like gold on a 0..100 scale in steps of 5 (ties; pairs 25
    # apart for Kendall-like), metrics with ties, one constant.
    ns, ni = 6, 40
    quality = rng.normal(0, 8, size=(ns, 1))
    gold = np.clip(np.round((60 + quality + rng.normal(0, 15, size=(ns, ni))) / 5) * 5, 0, 100)
    m1 = np.round(gold / 100 + rng.normal(0, 0.1, size=(ns, ni)), 2)
    m2 = np.round(gold / 100 + rng.normal(0, 0.2, size=(ns, ni)), 1)
    m3 = np.round(rng.normal(0, 1, size=(ns, ni)), 6)
    const = np.full((ns, ni), 0.5)
    metrics = {"m1": m1.ravel(), "m2": m2.ravel(), "noise": m3.ravel(), "const": const.ravel()}
    inputs["small"] = pack(list(gold.ravel()), metrics, ns, ni)
    # The same with missing gold: two whole items (so the rest still fills rows, as MTME's PCE
    # needs) and scattered cells (each item keeps >= 2 systems).
    g = [float(v) for v in gold.ravel()]
    for t in (3, 17):
        for s in range(ns):
            g[s * ni + t] = None
    for s, t in ((0, 5), (2, 5), (4, 9), (1, 30), (5, 31), (3, 31)):
        g[s * ni + t] = None
    inputs["small_missing"] = pack(g, metrics, ns, ni)
    gcols = list(g)
    for s, t in ((0, 5), (2, 5), (4, 9), (1, 30), (5, 31), (3, 31)):
        gcols[s * ni + t] = float(gold[s, t])
    inputs["small_missing_items"] = pack(gcols, metrics, ns, ni)
    # Integer MQM-like gold (exact float32 sums: many exact ties in the PCE test).
    errs = rng.poisson(0.6, size=(ns, ni)) * -1 + rng.poisson(0.15, size=(ns, ni)) * -5
    mi = np.round(errs + rng.normal(0, 1.5, size=(ns, ni)), 3)
    inputs["small_mqm"] = pack(list(errs.ravel().astype(float)),
                               {"m1": mi.ravel(), "m2": np.round(mi.ravel() * 0.5 + 1, 2)}, ns, ni)

    # WMT-sized (SPA only): 15 systems x 1000 segments, MQM-like gold with minor errors of -0.1
    # (not exact in float32), metrics rounded to 6 decimals.
    ns, ni = 15, 1000
    q = rng.normal(0, 0.5, size=(ns, 1))
    major = rng.poisson(np.clip(0.4 + 0.1 * q, 0.05, None), size=(ns, ni))
    minor = rng.poisson(np.clip(1.0 + 0.2 * q, 0.05, None), size=(ns, ni))
    punct = rng.poisson(0.3, size=(ns, ni))
    gold = -(5.0 * major + 1.0 * minor + 0.1 * punct)
    gold = np.round(gold, 6)
    wm1 = np.round(0.8 + 0.02 * gold + rng.normal(0, 0.05, size=(ns, ni)), 6)
    wm2 = np.round(0.5 + rng.normal(0, 0.1, size=(ns, ni)) + 0.05 * q, 6)
    inputs["wmt"] = pack(list(gold.ravel()), {"m1": wm1.ravel(), "m2": wm2.ravel()}, ns, ni)
    return inputs


# --------------------------------------------------------------------------- statistics


def triu(np, p):
    n = p.shape[0]
    return [float(v) for v in p[np.triu_indices(n, 1)]]


def spa_cases(stats, pce, np, inputs):
    out = []
    for name, inp in inputs.items():
        if name == "small_missing":
            continue  # scattered missing gold: MTME's PCE reshape fails
        ns = inp["systems"]
        gold = inp["gold"]
        keep = [i for i, v in enumerate(gold) if v is not None]
        g = np.asarray([gold[i] for i in keep]).reshape(ns, -1)
        gp = pce.compute_pairwise_p_values(g)
        for mname, m in inp["metrics"].items():
            mm = np.asarray([m[i] for i in keep]).reshape(ns, -1)
            mp = pce.compute_pairwise_p_values(mm)
            corr = stats.Correlation(ns, list(gold), list(m))
            spa = corr.PairwiseConfidenceError()[0]
            assert spa == pce.compute_one_minus_pce(gp, mp)
            out.append({"input": name, "metric": mname, "gold_p": triu(np, gp),
                        "metric_p": triu(np, mp), "spa": float(spa)})
    return out


def corr_of(stats, inp, mname):
    return stats.Correlation(inp["systems"], list(inp["gold"]), list(inp["metrics"][mname]))


def pce_sigdiff_cases(stats, np, inputs):
    cases = [("small", "m1", "m2", 11, 500), ("small", "m2", "m1", 12, 500),
             ("small", "noise", "m1", 13, 300), ("small", "m1", "const", 14, 200),
             ("small_missing_items", "m2", "m1", 15, 400), ("small_mqm", "m2", "m1", 16, 300),
             ("small", "m1", "m1", 17, 200), ("wmt", "m2", "m1", 18, 200)]
    out = []
    for name, a, b, seed, k in cases:
        inp = inputs[name]
        c1, c2 = corr_of(stats, inp, a), corr_of(stats, inp, b)
        fn = functools.partial(stats.PairwiseConfidenceError, num_sys=c1.num_sys,
                               filter_nones=c1.none_count > 0)
        params = stats.PermutationSigDiffParams(100, 0.02, 0.5)
        np.random.seed(seed)
        t0 = time.time()
        p, delta, used, draws = stats.PermutationSigDiff(c1, c2, fn, "none", k, params)
        print(f"pce sigdiff {name} {a} {b}: {time.time() - t0:.1f}s", file=sys.stderr)
        out.append({"input": name, "metric1": a, "metric2": b, "seed": seed, "k": k,
                    "block_size": 100, "early_min": 0.02, "early_max": 0.5,
                    "p": float(p), "delta": float(delta), "draws": int(used),
                    "resampled": [[num(x), num(y)] for x, y in draws]})
    return out


def pairs_sigdiff_cases(stats, np, inputs):
    cases = [("small", "m1", "m2", "none", 21, 500), ("small", "m2", "m1", "item", 22, 1000),
             ("small", "m2", "m1", "sys", 23, 500), ("small", "noise", "m1", "item", 24, 500),
             ("small", "m1", "const", "sys", 25, 300),
             ("small_missing", "m2", "m1", "none", 26, 300),
             ("small_missing", "m2", "m1", "item", 27, 500),
             ("small_missing", "m1", "m2", "sys", 28, 500),
             ("small_mqm", "m2", "m1", "item", 29, 500), ("small", "m1", "m1", "item", 30, 300)]
    out = []
    for name, a, b, ab, seed, k in cases:
        inp = inputs[name]
        c1, c2 = corr_of(stats, inp, a), corr_of(stats, inp, b)
        eps = []
        for c in (c1, c2):
            _, e, _ = stats.KendallWithTiesOpt(c.gold_scores, c.metric_scores, "acc23",
                                               c.num_sys, ab, 1.0)
            eps.append(float(e))
        params = stats.PermutationSigDiffParams(100, 0.02, 0.5)
        np.random.seed(seed)
        t0 = time.time()
        p, delta, used, draws = stats.PairwisePermutationSigDiff(
            c1, c2, "acc23", ab, k, params, sample_rate=1.0)
        print(f"pairs sigdiff {name} {a} {b} {ab}: {time.time() - t0:.1f}s", file=sys.stderr)
        out.append({"input": name, "metric1": a, "metric2": b, "average_by": ab, "seed": seed,
                    "k": k, "block_size": 100, "early_min": 0.02, "early_max": 0.5,
                    "epsilon1": eps[0], "epsilon2": eps[1],
                    "p": float(p), "delta": float(delta), "draws": int(used),
                    "resampled": [[num(x), num(y)] for x, y in draws]})
    # Given epsilons, and replace_nans_with_zeros irrelevant here (no NaN groups).
    inp = inputs["small"]
    c1, c2 = corr_of(stats, inp, "m1"), corr_of(stats, inp, "m2")
    np.random.seed(31)
    p, delta, used, draws = stats.PairwisePermutationSigDiff(
        c1, c2, "acc23", "item", 400, stats.PermutationSigDiffParams(100, 0.02, 0.5),
        epsilon1=0.05, epsilon2=0.0)
    out.append({"input": "small", "metric1": "m1", "metric2": "m2", "average_by": "item",
                "seed": 31, "k": 400, "block_size": 100, "early_min": 0.02, "early_max": 0.5,
                "epsilon1": 0.05, "epsilon2": 0.0, "given_epsilons": True,
                "p": float(p), "delta": float(delta), "draws": int(used),
                "resampled": [[num(x), num(y)] for x, y in draws]})
    return out


def correlation_cases(stats, np, scipy, inputs):
    pdp, kl, will = [], [], []
    for name in ("small", "small_missing", "small_mqm"):
        inp = inputs[name]
        for mname in inp["metrics"]:
            c = corr_of(stats, inp, mname)
            for ab in AVERAGE_BY:
                pdp.append({"input": name, "metric": mname, "average_by": ab,
                            "value": num(c.Pearson(ab, pdp=True)[0])})
                for thresh in (25, 10, 0):
                    kl.append({"input": name, "metric": mname, "average_by": ab,
                               "thresh": thresh, "value": num(c.KendallLike(ab, thresh)[0])})
        names = list(inp["metrics"])
        for a in names:
            for b in names:
                if a == b:
                    continue
                fn = stats.AverageCorrelation(scipy.stats.pearsonr, inp["systems"], "none")
                for one_sided in (True, False):
                    p, r1, r2 = stats.WilliamsSigDiff(corr_of(stats, inp, a),
                                                      corr_of(stats, inp, b), fn, one_sided)
                    will.append({"input": name, "metric1": a, "metric2": b,
                                 "one_sided": one_sided, "p": num(p), "r1": num(r1),
                                 "r2": num(r2)})
    wt = []
    for r12, r13, r23, n in ((0.9, 0.8, 0.7, 50), (0.3, 0.35, 0.9, 1000), (0.5, 0.5, 0.2, 10),
                             (-0.2, 0.4, 0.1, 20), (0.99, 0.2, 0.1, 4), (0.6, 0.1, -0.3, 7)):
        for one_sided in (True, False):
            wt.append({"r12": r12, "r13": r13, "r23": r23, "n": n, "one_sided": one_sided,
                       "p": num(stats.WilliamsTest(r12, r13, r23, n, one_sided))})
    return pdp, kl, will, wt


NOTES = [
    "Score lists are flat, MTME's layout: all items of system 0, then system 1, ...; null gold "
    "= MTME's None (missing).",
    "spa: pce.compute_pairwise_p_values (default 1000 permutations, seed 4) of the gold and the "
    "metric after dropping missing gold and reshaping to systems rows; gold_p/metric_p are the "
    "upper triangles in np.triu_indices order; spa = Correlation.PairwiseConfidenceError().",
    "pce_sigdiff: np.random.seed(seed) then PermutationSigDiff(corr(metric1), corr(metric2), "
    "partial(PairwiseConfidenceError, num_sys, filter_nones), 'none', k, "
    "PermutationSigDiffParams(block_size, early_min, early_max)); p for metric2 > metric1, "
    "delta = SPA(metric2) - SPA(metric1), draws = runs used, resampled = MTME's (c2, c1) list.",
    "pairs_sigdiff: np.random.seed(seed) then PairwisePermutationSigDiff(corr(metric1), "
    "corr(metric2), 'acc23', average_by, k, params, sample_rate=1.0) (epsilons optimized; "
    "given_epsilons: passed explicitly). epsilon1/2: KendallWithTiesOpt's thresholds.",
    "pdp: Correlation.Pearson(average_by, pdp=True); kendall_like: "
    "Correlation.KendallLike(average_by, thresh); williams: WilliamsSigDiff with "
    "AverageCorrelation(scipy.stats.pearsonr, num_sys, 'none'); williams_test: WilliamsTest.",
    "MTME's matmul in compute_pairwise_p_values is a float32 BLAS sgemm. Debian's NumPy links the "
    "reference BLAS, which sums each permutation's +-scores in segment order (checked: equal to "
    "np.cumsum in float32); an optimized BLAS sums in another order, so MTME's own p-values then "
    "differ at permutations whose null delta ties the observed one to float32 rounding.",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mme", required=True, help="directory holding mt_metrics_eval/")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    stats, pce, digests = import_mme(args.mme)
    import numpy as np
    import scipy
    import scipy.stats
    inputs = make_inputs(np)
    t0 = time.time()
    doc = {"reference": {
        "repository": MME_REPO, "commit": MME_COMMIT, "files_sha256": digests,
        "python": platform.python_version(), "numpy": np.__version__,
        "scipy": scipy.__version__, "generator": "tests/golden/gen/mtme_wmt_stats.py",
        "input_seed": SEED},
        "notes": NOTES, "inputs": inputs}
    doc["spa"] = spa_cases(stats, pce, np, inputs)
    doc["pce_sigdiff"] = pce_sigdiff_cases(stats, np, inputs)
    doc["pairs_sigdiff"] = pairs_sigdiff_cases(stats, np, inputs)
    doc["pdp"], doc["kendall_like"], doc["williams"], doc["williams_test"] = correlation_cases(
        stats, np, scipy, inputs)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(f"wrote {args.out} in {time.time() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes tests/golden/meta_eval/{summeval,summeval_edge,synthetic}.json: the meta-evaluation
statistics of Google's mt-metrics-eval (MTME), computed by MTME's own code, on SummEval (human
ratings of data/summeval/summeval.jsonl, metric scores of probity) and on derived and synthetic
edge cases.

Reference code (none of it is in this project; the script imports it from --mme):
    https://github.com/google-research/mt-metrics-eval
    commit 68a481aea1a787392d55af8f76ac8ef40c5f4664 (HEAD of the stored snapshot, 2026-04-22, "Updates the data
    package url to point to the one hosted on the WMT website.")
    files:  mt_metrics_eval/stats.py, mt_metrics_eval/tau_optimization.py (and
            mt_metrics_eval/pce.py, mt_metrics_eval/__init__.py, which stats.py imports;
            nothing of pce.py is used)
    used:   stats.Correlation(num_sys, gold, metric) .Pearson/.Spearman/.Kendall(variant='b'|'c')
            /.KendallVariants(variant, epsilon) with average_by 'none' | 'item' | 'sys'
            (these wrap stats.AverageCorrelation around scipy.stats.pearsonr / spearmanr /
            kendalltau and stats.KendallVariants);
            stats.KendallWithTiesOpt(gold, metric, variant='acc23'|'23', num_sys, average_by,
            sample_rate=1.0), i.e. tau_optimization.tau_optimization;
            stats.Agreement (the pairwise accuracy that data.CompareMetricsWithGlobalAccuracy
            sums over language pairs; with one "language pair" it is agree / num_pairs);
            stats._FenwickTreeSufficientStatistics (the synthetic case's (C, D, T_m, T_h, T_hm)).
    Get it:  fetch the repository, then
        mkdir -p /tmp/mme-src/mt_metrics_eval
        for f in __init__.py stats.py tau_optimization.py pce.py; do
          git --git-dir=REPO.git show 68a481aea1a787392d55af8f76ac8ef40c5f4664:mt_metrics_eval/$f \
            > /tmp/mme-src/mt_metrics_eval/$f
        done
    The SHA-256 of stats.py and tau_optimization.py are checked against the ones of that commit
    (a warning, not an error, if they differ; the digests used are written to the output).

Run (from the repository root; Debian bookworm's /usr/bin/python3 3.11 with python3-numpy 1.24.2
and python3-scipy 1.10.1 -- the SciPy version matters: MTME calls scipy.stats directly):

    /usr/bin/python3 tests/golden/gen/mt_metrics_eval_golden.py --mme /tmp/mme-src \
        --data data/summeval/summeval.jsonl \
        --scores tests/golden/meta_eval/summeval_scores.jsonl --out tests/golden/meta_eval

About 6 minutes on one core, about 1 GB of memory (MTME's pooled acc23 search enumerates the
1,279,200 pairs of SummEval as Python objects). The output is deterministic (sample_rate=1.0
draws no random numbers; numpy's global seed is fixed anyway).

The compact scores file was made once from `probity score` output with
    /usr/bin/python3 tests/golden/gen/mt_metrics_eval_golden.py \
        --extract-scores /tmp/mme/summeval_scores.jsonl \
        --scores tests/golden/meta_eval/summeval_scores.jsonl
(keeps the metrics in METRICS, drops the per-record signature, which the end record carries,
and rewrites the end record's record count and metric list).
"""

import argparse
import hashlib
import json
import math
import pathlib
import platform
import sys

MME_REPO = "https://github.com/google-research/mt-metrics-eval"
MME_COMMIT = "68a481aea1a787392d55af8f76ac8ef40c5f4664"
# SHA-256 of the two files at MME_COMMIT (both last changed in fc0e59f, 2025-07-08).
MME_SHA256 = {
    "mt_metrics_eval/stats.py":
        "5c70ed278272ee82241140678dd2478bd0abce03c2e2726f58983af1c88e704f",
    "mt_metrics_eval/tau_optimization.py":
        "40af0d46f43f6b67745ebaf716998602514ca9ccfb48aa46c29906d73498eda9",
}

DIMENSIONS = ["relevance", "coherence", "consistency", "fluency"]
METRICS = ["bleu", "chrf", "rouge1.f", "rougeL.f", "gem"]
CORRS = ["pearson", "spearman", "kendall_b", "kendall_c"]
AVERAGE_BY = ["none", "item", "sys"]
# probity's names for MTME's averaging modes.
LEVEL_OF = {"none": "item", "item": "task", "sys": "system_rows"}


# --------------------------------------------------------------------------- helpers


def sha256_file(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def num(x):
    """A JSON number, or None for NaN (JSON has no NaN)."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def flat(matrix):
    """MTME's layout: one score list per system, all of a system's items in order."""
    return [v for row in matrix for v in row]


def cell_in(v):
    """Input cell for MTME: None stays None (missing), the string "NaN" becomes float NaN."""
    if isinstance(v, str):
        assert v == "NaN"
        return float("nan")
    return v


def import_mme(root):
    root = pathlib.Path(root).resolve()
    pkg = root / "mt_metrics_eval"
    for f in ("__init__.py", "stats.py", "tau_optimization.py", "pce.py"):
        if not (pkg / f).is_file():
            sys.exit(f"--mme {root}: no mt_metrics_eval/{f} there")
    digests = {}
    for rel, want in MME_SHA256.items():
        got = sha256_file(root / rel)
        digests[rel] = got
        if got != want:
            print(f"warning: {rel} differs from commit {MME_COMMIT} (sha256 {got})", file=sys.stderr)
    sys.path.insert(0, str(root))
    import numpy as np
    import scipy
    from mt_metrics_eval import stats, tau_optimization  # noqa: F401
    np.random.seed(0)
    return stats, np, scipy, digests


# --------------------------------------------------------------------------- data


def load_summeval(data_path, scores_path):
    tasks = [json.loads(line) for line in open(data_path, encoding="utf-8") if line.strip()]
    systems = [c["system"] for c in tasks[0]["candidates"]]
    task_ids = [t["task_id"] for t in tasks]
    human = {}  # (task, system) -> {dim: mean}
    cand_of = {}
    for t in tasks:
        assert sorted(c["system"] for c in t["candidates"]) == sorted(systems)
        for c in t["candidates"]:
            assert c["id"] == c["system"]
            cand_of[(t["task_id"], c["system"])] = c["id"]
            # Human score of a candidate = arithmetic mean of its (3 expert) ratings.
            human[(t["task_id"], c["system"])] = {
                d: sum(c["human"][d]) / len(c["human"][d]) for d in DIMENSIONS}
    gold = {d: [[human[(t, s)][d] for t in task_ids] for s in systems] for d in DIMENSIONS}
    scores = {}
    for line in open(scores_path, encoding="utf-8"):
        r = json.loads(line)
        if "probity_scores" in r:
            continue
        scores[(r["metric"], r["task_id"], r["candidate_id"])] = r["score"]
    metric = {m: [[scores[(m, t, cand_of[(t, s)])] for t in task_ids] for s in systems]
              for m in METRICS}
    return systems, task_ids, gold, metric


def extract_scores(full_path, out_path):
    keep, trailer = [], None
    for line in open(full_path, encoding="utf-8"):
        r = json.loads(line)
        if "probity_scores" in r:
            trailer = r
            continue
        if r["metric"] in METRICS:
            rec = {"task_id": r["task_id"], "candidate_id": r["candidate_id"],
                   "metric": r["metric"], "score": r["score"]}
            if r.get("error") is not None:
                rec["error"] = r["error"]
            keep.append(rec)
    assert trailer is not None
    body = trailer["probity_scores"]
    body["records"] = len(keep)
    body["metrics"] = [m for m in body["metrics"] if m["name"] in METRICS]
    with open(out_path, "w", encoding="utf-8") as f:
        for rec in keep:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        f.write(json.dumps(trailer, separators=(",", ":")) + "\n")
    print(f"wrote {out_path}: {len(keep)} records", file=sys.stderr)


# --------------------------------------------------------------------------- statistics


class Gen:
    def __init__(self, stats, np):
        self.stats = stats
        self.np = np

    def _corr_call(self, corr, stat, ab):
        if stat == "pearson":
            return corr.Pearson(ab)
        if stat == "spearman":
            return corr.Spearman(ab)
        if stat == "kendall_b":
            return corr.Kendall(ab, variant="b")
        if stat == "kendall_c":
            return corr.Kendall(ab, variant="c")
        raise ValueError(stat)

    def groups(self, gold, metric, ab):
        """The vectors MTME correlates for average_by=ab (before its None filtering)."""
        ns, ni = len(gold), len(gold[0])
        if ab == "none":
            return [(flat(gold), flat(metric))]
        if ab == "sys":
            return [(gold[i], metric[i]) for i in range(ns)]
        return [([gold[i][j] for i in range(ns)], [metric[i][j] for i in range(ns)])
                for j in range(ni)]

    def correlation(self, gold, metric, stat, ab, per_group=False):
        """One MTME Correlation call; what it returns, or the exception it raises."""
        stats = self.stats
        ns = len(gold)
        g, m = flat(gold), flat(metric)
        corr = stats.Correlation(ns, g, m)
        rec = {"stat": stat, "average_by": ab, "level": LEVEL_OF[ab]}
        try:
            value, _pval, n = self._corr_call(corr, stat, ab)
        except Exception as e:  # the reference raises: record it
            rec.update({"raises": type(e).__name__, "message": str(e)})
            return rec
        rec.update({"value": num(value), "groups_used": int(n)})
        if ab != "none":
            # Which groups MTME left out: each group alone through the same wrapper (same
            # filter_nones flag as the whole call, i.e. Correlation's none_count).
            skipped, vals = [], []
            fcn = {"pearson": (self.stats_fn("pearsonr"), {}),
                   "spearman": (self.stats_fn("spearmanr"), {}),
                   "kendall_b": (self.stats_fn("kendalltau"), {"variant": "b"}),
                   "kendall_c": (self.stats_fn("kendalltau"), {"variant": "c"})}[stat]
            for k, (gg, mm) in enumerate(self.groups(gold, metric, ab)):
                wrap = stats.AverageCorrelation(fcn[0], 1, "none", corr.none_count, False,
                                                True, **fcn[1])
                v, _, used = wrap(gg, mm)
                if not used:
                    skipped.append(k)
                    vals.append(None)
                else:
                    vals.append(num(v))
            rec["skipped_groups"] = skipped
            used_vals = [v for v in vals if v is not None]
            assert len(used_vals) == rec["groups_used"], (stat, ab, len(used_vals), n)
            if used_vals:
                assert abs(sum(used_vals) / len(used_vals) - rec["value"]) < 1e-12
            if per_group:
                rec["per_group"] = vals
        return rec

    def stats_fn(self, name):
        import scipy.stats
        return getattr(scipy.stats, name)

    def kendall_variant(self, gold, metric, variant, ab, epsilon):
        corr = self.stats.Correlation(len(gold), flat(gold), flat(metric))
        try:
            value, _, n = corr.KendallVariants(ab, variant=variant, epsilon=epsilon)
        except Exception as e:
            return {"raises": type(e).__name__, "message": str(e)}
        return {"value": num(value), "groups_used": int(n)}

    def groups_with_pairs(self, gold, metric, ab):
        """Groups that tau_optimization counts: >= 2 items with gold and metric not None."""
        used = []
        for k, (gg, mm) in enumerate(self.groups(gold, metric, ab)):
            if sum(1 for a, b in zip(gg, mm) if a is not None and b is not None) >= 2:
                used.append(k)
        return used

    def tau_opt(self, gold, metric, ab, variant="acc23", curve=False):
        stats = self.stats
        rec = {"stat": "kendall_" + variant + "_opt", "average_by": ab, "level": LEVEL_OF[ab],
               "variant": variant, "sample_rate": 1.0}
        try:
            value, eps, res = stats.KendallWithTiesOpt(
                flat(gold), flat(metric), variant=variant, num_sys=len(gold), average_by=ab,
                sample_rate=1.0)
        except Exception as e:
            rec.update({"raises": type(e).__name__, "message": str(e)})
            return rec
        taus = [float(t) for t in res.taus]
        best = max(t for t in taus if not math.isnan(t))
        near = [float(th) for th, t in zip(res.thresholds, taus) if t >= best - 1e-12]
        used = self.groups_with_pairs(gold, metric, ab)
        rec.update({
            "value": num(value), "epsilon": float(eps),
            "num_thresholds": len(res.thresholds),
            "groups_used": len(used),
            # thresholds whose value is within 1e-12 of the best (MTME takes the first, i.e. the
            # smallest, of the exact maximum of its running sum)
            "near_best_thresholds": near[:20],
        })
        if ab != "none":
            rec["skipped_groups"] = [k for k in range(len(self.groups(gold, metric, ab)))
                                     if k not in used]
        if not any(isinstance(v, float) and math.isnan(v) for v in flat(metric)):
            exact = self.exact_acc(gold, metric, ab, near, variant)
            first = next(t for t, v in exact if v == max(v for _, v in exact))
            rec["near_best_exact"] = [[t, f"{v.numerator}/{v.denominator}"] for t, v in exact]
            rec["epsilon_is_first_exact_max"] = first == float(eps)
            rec["epsilon_exact"] = first
            assert abs(float(dict(exact)[float(eps)]) - rec["value"]) < 1e-12
        # The same statistic at the chosen epsilon, through KendallVariants (the matrix path).
        check = self.kendall_variant(gold, metric, variant, ab, float(eps))
        rec["kendall_variants_at_epsilon"] = check
        if curve:
            rec["thresholds"] = [float(t) for t in res.thresholds]
            rec["taus"] = [num(t) for t in taus]
        return rec

    def exact_acc(self, gold, metric, ab, thresholds, variant):
        """Exact (rational) objective at the given thresholds, counted independently of MTME:
        per group, a pair is correct when both tied (|dm| <= t and dg == 0) or concordant with
        |dm| > t; acc23 = correct / pairs, tau23 = (correct - wrong) / pairs; mean over groups
        with at least one pair."""
        from fractions import Fraction
        np = self.np
        per_group = []
        for gg, mm in self.groups(gold, metric, ab):
            keep = [(a, b) for a, b in zip(gg, mm) if a is not None and b is not None]
            if len(keep) < 2:
                continue
            g = np.asarray([a for a, _ in keep], dtype=float)
            m = np.asarray([b for _, b in keep], dtype=float)
            i, j = np.triu_indices(len(keep), 1)
            dg, dm = g[i] - g[j], m[i] - m[j]
            per_group.append((dg, dm, np.abs(dm), len(i)))
        out = []
        for t in thresholds:
            total = Fraction(0)
            for dg, dm, adm, n in per_group:
                tie_m = adm <= t
                tie_g = dg == 0
                good = int(np.count_nonzero((tie_g & tie_m) | (~tie_g & ~tie_m
                                                               & (np.sign(dg) == np.sign(dm)))))
                total += Fraction(good, n) if variant == "acc23" else Fraction(2 * good - n, n)
            out.append((float(t), total / len(per_group)))
        return out

    def sufficient_stats(self, gold, metric, ab):
        """(C, D, T_metric_only, T_gold_only, T_both) per group at epsilon 0."""
        np = self.np
        out = []
        for gg, mm in self.groups(gold, metric, ab):
            pairs = [(a, b) for a, b in zip(gg, mm) if a is not None]
            if len(pairs) < 2:
                out.append(None)
                continue
            y = np.asarray([a for a, _ in pairs], dtype=float)
            x = np.asarray([b for _, b in pairs], dtype=float)
            c, d, tx, ty, txy = self.stats._FenwickTreeSufficientStatistics(x, y, None)
            out.append({"concordant": int(c), "discordant": int(d), "ties_metric_only": int(tx),
                        "ties_gold_only": int(ty), "ties_both": int(txy)})
        return out

    def system_level(self, sys_gold, sys_metric):
        """System-level statistics on per-system vectors (MTME: average_by='none')."""
        stats = self.stats
        out = []
        corr = stats.Correlation(len(sys_gold), list(sys_gold), list(sys_metric))
        for stat in CORRS:
            rec = {"stat": stat, "average_by": "none", "level": "system"}
            try:
                v, _, n = self._corr_call(corr, stat, "none")
                rec.update({"value": num(v), "groups_used": int(n)})
            except Exception as e:
                rec.update({"raises": type(e).__name__, "message": str(e)})
            out.append(rec)
        agree, pairs = stats.Agreement(list(sys_gold), list(sys_metric))
        out.append({"stat": "pairwise_accuracy", "average_by": "none", "level": "system",
                    "agree": int(agree), "num_pairs": int(pairs),
                    "value": num(agree / pairs) if pairs else None})
        k = self.kendall_variant([list(sys_gold)], [list(sys_metric)], "acc23", "none", 0.0)
        out.append(dict({"stat": "kendall_acc23", "epsilon": 0.0, "average_by": "none",
                         "level": "system"}, **k))
        r = self.tau_opt([list(sys_gold)], [list(sys_metric)], "none")
        r["level"] = "system"
        out.append(r)
        return out


def sys_means(matrix, paired_with=None):
    """Per-system arithmetic mean over the system's items whose value is not None (and, with
    paired_with, whose cell in that other matrix is not None either); None if no item is left.
    Plain left-to-right float sum divided by the count."""
    out = []
    for i, row in enumerate(matrix):
        vals = [v for j, v in enumerate(row)
                if v is not None and (paired_with is None or paired_with[i][j] is not None)]
        if not vals:
            out.append(None)
            continue
        s = 0.0
        for v in vals:
            s += v
        out.append(s / len(vals))
    return out


def evaluate(gen, gold, metric, acc23_levels=("none", "item", "sys"), per_group=False,
             suff=False, tau23=False):
    recs = []
    for ab in AVERAGE_BY:
        for stat in CORRS:
            recs.append(gen.correlation(gold, metric, stat, ab, per_group=per_group))
    for ab in acc23_levels:
        recs.append(gen.tau_opt(gold, metric, ab, "acc23", curve=per_group))
        if tau23:
            recs.append(gen.tau_opt(gold, metric, ab, "23", curve=per_group))
    if per_group:
        for ab in AVERAGE_BY:
            for variant in ("b", "c", "23", "acc23"):
                k = gen.kendall_variant(gold, metric, variant, ab, 0.0)
                recs.append(dict({"stat": "kendall_variants_" + variant, "epsilon": 0.0,
                                  "average_by": ab, "level": LEVEL_OF[ab]}, **k))
    if suff:
        for ab in AVERAGE_BY:
            recs.append({"stat": "sufficient_stats_eps0", "average_by": ab, "level": LEVEL_OF[ab],
                         "per_group": gen.sufficient_stats(gold, metric, ab)})
    return recs


# --------------------------------------------------------------------------- notes

COMMON_NOTES = [
    "Layout (MTME's): a matrix is a list of num_sys rows (row = system, in `systems` order), each "
    "a list of num_items cells (in `items` order); MTME receives the rows concatenated "
    "(flat[i * num_items + j] = matrix[i][j]). null = missing (Python None). In outputs, a null "
    "number is NaN (JSON has none).",
    "Levels: average_by='none' pools every (system, item) cell into one vector (probity level "
    "`item`); average_by='item' correlates each item's column (the systems' candidates of one "
    "task) and averages (probity level `task`); average_by='sys' correlates each system's row "
    "over the items and averages ('system_rows': NOT the system level); the system level "
    "(probity `system`) is one correlation over per-system means, which MTME does not compute "
    "itself (it reads one score per system from *.sys.score files and calls "
    "Correlation(num_sys, sys_gold, sys_metric) with average_by='none'); here the means are "
    "computed by this generator (rule in `system_level.rule`).",
    "Correlations: Pearson = scipy.stats.pearsonr, Spearman = scipy.stats.spearmanr (Pearson of "
    "average ranks, ties get the mean rank), Kendall = scipy.stats.kendalltau(variant='b'|'c') "
    "(tau-b = (C-D)/sqrt((N-T_m)(N-T_h)) with T_* counting all pairs tied in that vector, tau-c "
    "= 2(C-D)/(n^2 (k-1)/k), k = min(#distinct gold, #distinct metric), n = group size) -- "
    "SciPy 1.10.1. p-values are not recorded.",
    "Averaging (stats.AverageCorrelation.Corr, stats.py l. 206-263): a plain (macro) mean of the "
    "per-group values; groups whose value is NaN are left out of both the sum and the count "
    "(`groups_used` is that count, MTME's third return value); if no group is left MTME "
    "returns value 0 with groups_used 0 (recorded as is: 0 means undefined here).",
    "Undefined groups: Pearson and Spearman are NaN when either vector is constant (exact "
    "equality): MTME forces it (is_constant_array, l. 251-253) and SciPy 1.10.1 does it itself; "
    "Kendall b and c are NaN when either vector is all ties. So a group where only the metric is "
    "constant, or only the gold, is skipped. A group of exactly 2 items is defined (+-1, or NaN "
    "with a tie).",
    "Missing gold (None) drops the cell and its metric score (filter_gold_nones, l. 129-147). "
    "That filter runs only when the whole gold vector has at least one None (Correlation passes "
    "none_count as filter_nones, l. 86-88); only then are groups left with fewer than 2 items "
    "skipped (l. 242). Trap: with None present the filtered groups are tuples and "
    "is_constant_array(tuple) is always False (tuple == float), so the constant-vector NaN then "
    "comes from SciPy alone (same result with SciPy 1.10.1). A missing metric score is not "
    "representable in MTME (metric score files may not hold None); here metric cells are null "
    "only where the gold cell is null too.",
    "acc23 with tie calibration (stats.KendallWithTiesOpt -> tau_optimization.tau_optimization, "
    "sample_rate=1.0; the method's default is 0.1, a random subsample of pairs): pairs are "
    "enumerated per group (both gold and metric not None); a pair is correct when concordant or "
    "tied in both; a gold tie is correct only if the metric is tied too (|m_i - m_j| <= epsilon); "
    "every pair, gold-tied or not, is in the denominator (acc23 = (C + T_both) / N). epsilon "
    "candidates: 0 and every distinct |m_i - m_j| (Python float abs of the difference) over the "
    "used groups, ascending; at a candidate every pair with |diff| <= candidate is tied. The "
    "objective is the unweighted mean over groups of the per-group acc23 (one epsilon shared by "
    "all groups); groups count when they have at least one pair (>= 2 usable items), including "
    "groups whose gold (or metric) is constant. The first maximum (np.nanargmax over the "
    "ascending candidates) wins, i.e. the smallest epsilon reaching the best value. MTME keeps "
    "the mean as a running float sum (total -= old; total += new): `near_best_thresholds` lists "
    "every candidate within 1e-12 of the best so that a reimplementation with exact counts can "
    "see whether the choice is a near tie; `near_best_exact` gives the exact rational objective "
    "at each of them (counted by this generator with integer pair counts, not by MTME) and "
    "`epsilon_is_first_exact_max` says whether MTME's float choice is the smallest epsilon of "
    "the exact maximum (`epsilon_exact` = that smallest epsilon). It is not always: SummEval "
    "consistency x chrf at average_by='item' -- MTME returns epsilon 28.471197492899343 with "
    "value 0.6741666666666685, but the exact objective is 809/1200 at 22.01616948856907, "
    "28.471197492899343 and 28.51828536216548 alike; the running sum's rounding (+1.8e-15) made "
    "the second look larger. A reimplementation with exact counts chooses 22.016...: test the "
    "value to 1e-9 and the epsilon against `epsilon` or `epsilon_exact`. Equal objectives at different epsilons are common and exact: tying a "
    "discordant pair that is not a gold tie changes nothing (wrong before, wrong after). "
    "`kendall_variants_at_epsilon` is "
    "Correlation.KendallVariants(variant, epsilon=chosen) -- the same value through the O(n^2) "
    "matrix path. `num_thresholds` = number of distinct candidates incl. 0.",
    "System-level pairwise accuracy (stats.Agreement, l. 350-358): over system pairs i<j with "
    "both gold not None, agree when np.sign(gold_i - gold_j) == np.sign(metric_i - metric_j); "
    "a pair tied in both agrees, tied in one only disagrees; accuracy = agree / num_pairs "
    "(data.CompareMetricsWithGlobalAccuracy, data.py l. 1076-1083, sums agree and num_pairs over "
    "language pairs; one here).",
]


# --------------------------------------------------------------------------- cases


def summeval_file(gen, systems, task_ids, gold, metric, meta):
    sys_block = {"rule": "per-system arithmetic mean over the system's 100 items (no item is "
                         "missing in this file), float sum left to right / count",
                 "gold": {d: sys_means(gold[d]) for d in DIMENSIONS},
                 "metrics": {m: sys_means(metric[m]) for m in METRICS}}
    results = []
    for d in DIMENSIONS:
        for m in METRICS:
            print(f"summeval {d} {m}", file=sys.stderr, flush=True)
            for r in evaluate(gen, gold[d], metric[m]):
                results.append(dict({"gold": d, "metric": m}, **r))
            for r in gen.system_level(sys_block["gold"][d], sys_block["metrics"][m]):
                results.append(dict({"gold": d, "metric": m}, **r))
    return {
        "description": "MTME statistics on SummEval: 16 systems x 100 tasks (items), expert "
                       "ratings (mean of 3) in 4 dimensions vs 5 probity metrics.",
        **meta,
        "notes": COMMON_NOTES + [
            "Gold: data/summeval/summeval.jsonl, a candidate's score in a dimension = "
            "sum(ratings) / len(ratings) of its 3 expert ratings (Python float). Metrics: "
            "tests/golden/meta_eval/summeval_scores.jsonl (probity score output).",
            "acc23 at average_by='none' is the full pooled search (1,279,200 pairs, no subset).",
        ],
        "systems": systems, "items": task_ids,
        "gold": gold, "metrics": metric, "system_level": sys_block,
        "results": results,
    }


def edge_file(gen, systems, task_ids, gold, metric, meta):
    ns, ni = len(systems), len(task_ids)
    dims, mets = ["relevance", "coherence"], ["chrf", "bleu", "rouge1.f"]
    g = {d: [row[:] for row in gold[d]] for d in dims}
    m = {k: [row[:] for row in metric[k]] for k in mets}
    M23 = systems.index("M23")
    edits = [
        "tasks 0-9: gold of system (task index mod 16) set to null (both dimensions); metric kept",
        "task 10: gold null for all systems but the first (M0): one item left, group skipped",
        "task 11: gold null for all systems but the first two (M0, M1): a group of 2 items",
        "task 12: every metric constant: all 16 metric scores set to system M0's score there",
        "task 13: gold constant: every gold score set to 3.0 (both dimensions)",
        "system M23 (last row) misses tasks 90-99: gold and metric null",
    ]
    for j in range(10):
        for d in dims:
            g[d][j % ns][j] = None
    for d in dims:
        for i in range(1, ns):
            g[d][i][10] = None
        for i in range(2, ns):
            g[d][i][11] = None
        for i in range(ns):
            g[d][i][13] = 3.0
    for k in mets:
        for i in range(ns):
            m[k][i][12] = m[k][0][12]
    for j in range(90, 100):
        for d in dims:
            g[d][M23][j] = None
        for k in mets:
            m[k][M23][j] = None

    sys_own = {"gold": {d: sys_means(g[d]) for d in dims},
               "metrics": {k: sys_means(m[k]) for k in mets}}
    sys_paired = {d: {k: sys_means(m[k], paired_with=g[d]) for k in mets} for d in dims}
    results = []
    for d in dims:
        for k in mets:
            print(f"edge {d} {k}", file=sys.stderr, flush=True)
            for r in evaluate(gen, g[d], m[k]):
                results.append(dict({"case": "missing_constant", "gold": d, "metric": k}, **r))
            for r in gen.system_level(sys_own["gold"][d], sys_own["metrics"][k]):
                results.append(dict({"case": "missing_constant", "gold": d, "metric": k,
                                     "system_rule": "own"}, **r))
            for r in gen.system_level(sys_own["gold"][d], sys_paired[d][k]):
                results.append(dict({"case": "missing_constant", "gold": d, "metric": k,
                                     "system_rule": "paired"}, **r))

    # NaN metric values (relevance x chrf of the unmodified data).
    nan_cells = [[3, 5], [3, 40], [7, 5]]
    g_nan = [row[:] for row in gold["relevance"]]
    m_nan = [row[:] for row in metric["chrf"]]
    for i, j in nan_cells:
        m_nan[i][j] = "NaN"
    m_nan_in = [[cell_in(v) for v in row] for row in m_nan]
    print("edge nan", file=sys.stderr, flush=True)
    nan_results = []
    for r in evaluate(gen, g_nan, m_nan_in):
        if r["stat"].startswith("kendall_acc23") or r["stat"].startswith("kendall_23"):
            r["ill_defined"] = True
        nan_results.append(dict({"case": "nan_metric", "gold": "relevance", "metric": "chrf"}, **r))
    sys_nan = sys_means(m_nan_in)
    for r in gen.system_level(sys_means(g_nan), sys_nan):
        if r["stat"].startswith("kendall_acc23"):
            r["ill_defined"] = True
        nan_results.append(dict({"case": "nan_metric", "gold": "relevance", "metric": "chrf",
                                 "system_rule": "own"}, **r))

    return {
        "description": "MTME statistics on SummEval data with derived edge cases: missing gold, "
                       "a task with 1 and one with 2 rated items, a task with a constant metric, "
                       "a task with a constant gold, a system missing 10 tasks; and NaN metric "
                       "values.",
        **meta,
        "notes": COMMON_NOTES + [
            "missing_constant: per-level `skipped_groups` are group indices (item index for "
            "average_by='item', system index for 'sys'). Expected at 'item': task 10 (1 item "
            "left) and task 12 (metric constant) and task 13 (gold constant) are skipped by "
            "Pearson/Spearman/Kendall; task 11 (2 items) is kept unless tied. acc23 at 'item' "
            "skips only task 10 (it has no pair); tasks 12 and 13 count (task 13: every pair is "
            "a gold tie, correct only where the metric ties at the chosen epsilon).",
            "System level with missing cells. MTME has no rule: it takes one score per system "
            "as input (a system-level human score may be None: Correlation drops that system, "
            "Agreement skips its pairs). Two rules are recorded here (`system_rule`): 'own' = "
            "gold mean over the system's non-null gold cells, metric mean over its non-null "
            "metric cells; 'paired' = metric mean over the cells where the gold is not null "
            "(the gold mean is the same in both). For M23 (10 tasks missing entirely) both rules "
            "average its 90 remaining tasks.",
            "nan_metric: chrf set to NaN (input string \"NaN\") at cells [system index, item "
            "index] of `nan_cells`; gold is relevance, unmodified. What MTME does: Pearson "
            "raises ValueError at every level whose groups include a NaN (scipy.stats.pearsonr "
            "1.10.1: 'array must not contain infs or NaNs'; the whole call fails, not just the "
            "group). Spearman and Kendall give NaN for a group holding a NaN, so that group is "
            "dropped ('none': the only group, value 0 with groups_used 0). Agreement: "
            "np.sign(NaN) is NaN and NaN == x is False, so every system pair involving a NaN "
            "system mean disagrees (counted in num_pairs). acc23 (tau_optimization): a pair with "
            "a NaN metric counts as discordant and its |diff| is NaN; the candidate list is "
            "sorted with NaN keys (Python sort, order-dependent) and NaN becomes a candidate "
            "epsilon -- recorded as MTME returns it, but this is not a behaviour to reproduce: "
            "treat NaN as an error or as missing.",
        ],
        "systems": systems, "items": task_ids,
        "cases": {
            "missing_constant": {
                "edits": edits,
                "gold": g, "metrics": m,
                "system_level": {
                    "own": {"rule": "each mean over the system's own non-null cells",
                            **sys_own},
                    "paired": {"rule": "metric mean over the cells whose gold (of that "
                                       "dimension) is not null; gold as in 'own'",
                               "gold": sys_own["gold"], "metrics": sys_paired},
                },
            },
            "nan_metric": {
                "nan_cells": nan_cells,
                "gold": {"relevance": g_nan}, "metrics": {"chrf": m_nan},
                "system_level": {"own": {"rule": "each mean over the system's own cells (NaN "
                                                 "propagates)",
                                         "gold": {"relevance": sys_means(g_nan)},
                                         "metrics": {"chrf": [
                                             "NaN" if v is not None and math.isnan(v) else v
                                             for v in sys_nan]}}},
            },
        },
        "results": results + nan_results,
    }


SYN_GOLD = [
    [1, 2, 3, 3, 2, 1],
    [2, 2, 4, 3, 2, 1],
    [3, 1, 4, 5, 2, 2],
    [1, 3, 5, 4, 2, 3],
]
SYN_METRIC = [
    [10, 20, 20, 30, 10, 20],
    [20, 20, 30, 30, 10, 20],
    [30, 10, 40, 40, 20, 20],
    [10, 30, 40, 30, 20, 20],
]
# Same, with missing gold: item 1 keeps one rated system, item 2 two, item 0 three.
SYN_GOLD_MISSING = [
    [1, None, 3, 3, 2, 1],
    [None, None, None, 3, 2, 1],
    [3, 1, None, 5, 2, 2],
    [1, None, 5, 4, 2, 3],
]


def synthetic_file(gen, meta):
    systems = ["s1", "s2", "s3", "s4"]
    items = ["i1", "i2", "i3", "i4", "i5", "i6"]
    out_cases = {}
    results = []
    for name, gold, metric in [("ties", SYN_GOLD, SYN_METRIC),
                               ("ties_missing", SYN_GOLD_MISSING, SYN_METRIC)]:
        g = [[None if v is None else float(v) for v in row] for row in gold]
        m = [[float(v) for v in row] for row in metric]
        sg = sys_means(g)
        sm_own = sys_means(m)
        sm_paired = sys_means(m, paired_with=g)
        out_cases[name] = {"gold": gold, "metric": metric,
                           "system_level": {"gold": sg, "metric_own": sm_own,
                                            "metric_paired": sm_paired}}
        for r in evaluate(gen, g, m, per_group=True, suff=True, tau23=True):
            results.append(dict({"case": name}, **r))
        for rule, sm in (("own", sm_own), ("paired", sm_paired)):
            if name == "ties" and rule == "paired":
                continue  # identical to own without missing cells
            for r in gen.system_level(sg, sm):
                results.append(dict({"case": name, "system_rule": rule}, **r))
    return {
        "description": "Small synthetic cases (4 systems x 6 items, integer scores, many ties) "
                       "for every statistic and level, readable by eye.",
        **meta,
        "notes": COMMON_NOTES + [
            "Case 'ties': item i5 has a constant gold (all 2), item i6 a constant metric (all "
            "20): both are skipped by Pearson/Spearman/Kendall at average_by='item' and counted "
            "by acc23. Case 'ties_missing': same metric, gold with nulls (i2 keeps one rated "
            "system -> skipped everywhere; i3 keeps two; s2 keeps three items).",
            "Scores are given as integers; MTME was called with them as Python floats.",
            "`per_group` lists each group's value (null = NaN or skipped), `skipped_groups` the "
            "group indices MTME left out. `sufficient_stats_eps0` are MTME's "
            "_FenwickTreeSufficientStatistics(metric, gold) per group after dropping null gold "
            "(null for a group of < 2 items): concordant, discordant, ties in the metric only, "
            "in the gold only, in both. acc23/23 `_opt` records carry the whole search curve "
            "(`thresholds` ascending, `taus` the objective at each). `kendall_variants_*` are "
            "Correlation.KendallVariants(variant, epsilon=0) ('23' = (C + T_both - D - T_m - "
            "T_h) / N, 'acc23' = (C + T_both) / N).",
            "System level: `system_level.gold` = per-system mean of the non-null gold cells; "
            "`metric_own` = mean of all 6 metric cells; `metric_paired` = mean over the cells "
            "with non-null gold.",
        ],
        "systems": systems, "items": items,
        "cases": out_cases,
        "results": results,
    }


# --------------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mme", help="directory holding mt-metrics-eval's mt_metrics_eval/ package")
    ap.add_argument("--data", default="data/summeval/summeval.jsonl")
    ap.add_argument("--scores", default="tests/golden/meta_eval/summeval_scores.jsonl")
    ap.add_argument("--out", default="tests/golden/meta_eval")
    ap.add_argument("--only", choices=["summeval", "summeval_edge", "synthetic"], action="append",
                    help="write only these files (default: all)")
    ap.add_argument("--extract-scores", metavar="FULL_SCORES_JSONL",
                    help="write --scores from a full `probity score` output and exit")
    args = ap.parse_args()

    if args.extract_scores:
        extract_scores(args.extract_scores, args.scores)
        return
    if not args.mme:
        ap.error("--mme is required")

    stats, np, scipy, digests = import_mme(args.mme)
    gen = Gen(stats, np)
    meta = {"reference": {
        "repository": MME_REPO, "commit": MME_COMMIT,
        "files_sha256": digests,
        "functions": ["stats.Correlation.Pearson/Spearman/Kendall/KendallVariants",
                      "stats.AverageCorrelation", "stats.KendallWithTiesOpt",
                      "tau_optimization.tau_optimization", "stats.Agreement",
                      "stats._FenwickTreeSufficientStatistics"],
        "python": platform.python_version(), "numpy": np.__version__,
        "scipy": scipy.__version__,
        "generator": "tests/golden/gen/mt_metrics_eval_golden.py",
    }}
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    only = set(args.only or ["summeval", "summeval_edge", "synthetic"])

    def write(name, obj):
        path = out / f"{name}.json"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=None, separators=(",", ":"), allow_nan=False)
            f.write("\n")
        print(f"wrote {path}", file=sys.stderr)

    if "synthetic" in only:
        write("synthetic", synthetic_file(gen, meta))
    if only & {"summeval", "summeval_edge"}:
        systems, task_ids, gold, metric = load_summeval(args.data, args.scores)
        inputs = {"data": {"path": "data/summeval/summeval.jsonl",
                           "sha256": sha256_file(args.data)},
                  "scores": {"path": "tests/golden/meta_eval/summeval_scores.jsonl",
                             "sha256": sha256_file(args.scores)}}
        meta2 = dict(meta, inputs=inputs)
        if "summeval_edge" in only:
            write("summeval_edge", edge_file(gen, systems, task_ids, gold, metric, meta2))
        if "summeval" in only:
            write("summeval", summeval_file(gen, systems, task_ids, gold, metric, meta2))


if __name__ == "__main__":
    main()

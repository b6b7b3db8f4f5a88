#!/usr/bin/env python3
"""Goldens for the Wilcoxon signed-rank test (src/stats/wilcoxon.cpp), from SciPy.

  /usr/bin/python3 tests/golden/gen/wilcoxon.py --out tests/golden/wilcoxon.json

Every case is a vector of paired differences d, and every result is scipy.stats.wilcoxon(d,
zero_method, correction, alternative, method) for all 3 x 2 x 3 x 3 combinations, as a row
[zero_method, correction, alternative, method, ran, statistic, pvalue, z]: `ran` is the branch
SciPy 1.10.1 takes ("exact" for method "auto" with at most 50 differences, "approx" as soon as one
is zero; checked against the results of method "exact"/"approx" themselves); `z` is the
zstatistic of the same call with method="approx" where the approximation ran, else null. `null`
statistic and p-value: SciPy raises ValueError (only zeros, zero_method "wilcox"/"pratt") or
returns NaN (no differences, a NaN difference, written as null in `d`). Cases: n = 1, only zeros, ties with and without
zeros, n = 50 / 51 / 50 with a zero around the auto switch, forced exact at n = 60 and 120 (the
distribution's probabilities no longer exact dyadic numbers), a large n, huge effects, the centre
of the distribution, and seeded samples (numpy default_rng) rounded to make ties and zeros.
"""
import argparse
import json
import math
import warnings

import numpy as np
import scipy
from scipy.stats import wilcoxon

ZERO = ["wilcox", "pratt", "zsplit"]
ALTS = ["two-sided", "greater", "less"]
METHODS = ["auto", "exact", "approx"]


def run(d, zm, corr, alt, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = wilcoxon(d, zero_method=zm, correction=corr, alternative=alt, method=method)
        except ValueError:
            return None
    return res


def num(v):
    v = float(v)
    return v if math.isfinite(v) else None


def ran(d, method):
    mode = method
    if mode == "auto":
        mode = "exact" if len(d) <= 50 else "approx"
    if mode == "exact" and np.any(np.asarray(d) == 0):
        mode = "approx"
    return mode


def results(d):
    rows = []
    for zm in ZERO:
        for corr in (False, True):
            for alt in ALTS:
                for method in METHODS:
                    res = run(d, zm, corr, alt, method)
                    branch = ran(d, method)
                    if res is None:
                        rows.append([zm, corr, alt, method, branch, None, None, None])
                        continue
                    same = run(d, zm, corr, alt, branch)
                    assert (np.isnan(res.pvalue) and np.isnan(same.pvalue)) or (
                        res.statistic == same.statistic and res.pvalue == same.pvalue), (d, method)
                    z = num(same.zstatistic) if branch == "approx" else None
                    rows.append([zm, corr, alt, method, branch, num(res.statistic),
                                 num(res.pvalue), z])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(1945)
    cases = [
        ("n = 1 positive", [0.7]),
        ("n = 1 negative", [-0.7]),
        ("only zeros", [0.0] * 5),
        ("one zero", [0.0]),
        ("no differences", []),
        ("a NaN difference", [0.5, float("nan"), -1.0, 2.0]),
        ("ties", [1.0, 1.0, -1.0, 2.0, 2.0, -2.0, 3.0, 3.0, 3.0, -0.5]),
        ("ties and zeros", [0.0, 0.0, 1.0, -1.0, 1.0, 2.0, 2.0, -3.0, 0.0, 4.0, 1.0, 2.0]),
        ("all positive, n = 10", [float(v) for v in range(1, 11)]),
        ("all negative with ties, n = 12", [-1.0, -1.0, -2.0, -3.0, -3.0, -3.0, -4.0, -5.0, -6.0,
                                            -7.0, -8.0, -8.0]),
        ("centre of the distribution", [1.0, -2.0, -3.0, 4.0]),
        ("huge effect, n = 200", [float(v) for v in rng.normal(5, 1, 200)]),
        ("signed zeros", [-0.0, 0.0, 1.5, -2.5, 3.5]),
    ]
    base = rng.normal(0.3, 1, 51)
    cases.append(("n = 50, auto exact", [float(v) for v in base[:50]]))
    cases.append(("n = 51, auto approx", [float(v) for v in base]))
    with_zero = [float(v) for v in base[:50]]
    with_zero[7] = 0.0
    cases.append(("n = 50 with a zero", with_zero))
    cases.append(("n = 60 forced exact", [float(v) for v in rng.normal(0.2, 1, 60)]))
    cases.append(("n = 120 forced exact", [float(v) for v in rng.normal(-0.1, 1, 120)]))
    cases.append(("n = 500", [float(v) for v in np.round(rng.normal(0.1, 1, 500), 1)]))
    for k in range(15):
        n = int(rng.integers(2, 45))
        shift = float(rng.choice([0.0, 0.3, -0.8]))
        d = rng.normal(shift, 1, n)
        if k % 3 == 1:
            d = np.round(d)  # ties and zeros
        elif k % 3 == 2:
            d = np.round(d * 4) / 4
        cases.append((f"seeded {k}", [float(v) for v in d]))
    out = {"reference": f"SciPy {scipy.__version__} scipy.stats.wilcoxon, NumPy {np.__version__}",
           "columns": ["zero_method", "correction", "alternative", "method", "ran", "statistic",
                       "pvalue", "z"],
           "cases": [{"name": name, "d": [v if math.isfinite(v) else None for v in d],
                      "results": results(d)} for name, d in cases]}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()

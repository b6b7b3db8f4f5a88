#!/usr/bin/env python3
"""Goldens for the binomial and sign tests (src/stats/sign_test.cpp), from SciPy.

  /usr/bin/python3 tests/golden/gen/sign_test.py --out tests/golden/sign_test.json

`binom_test`: scipy.stats.binomtest(k, n, p, alternative).pvalue of SciPy 1.10.1 (two-sided: the
outcomes with pmf <= pmf(k) (1 + 1e-7), found by SciPy's binary search; the binomial from SciPy's
bundled Boost.Math). `sign_test`: vectors of paired differences and
binomtest(k = #positive, n = #nonzero, p = 0.5, alternative) for the three alternatives; `null`
where SciPy raises (no nonzero difference: n = 0) or a difference is NaN (written as null in `d`;
probity reports no p-value). Cases: n = 1, k = 0 and k = n, p = 0 and 1, k at the mode (p = 1),
skewed p where the two-sided sum needs the search on either side, n = 1000 and 10^5, equal
probabilities on both sides, and seeded differences (numpy default_rng) with zeros.
"""
import argparse
import json
import math

import numpy as np
import scipy
from scipy.stats import binomtest

ALTS = ["two-sided", "greater", "less"]


def pvalue(k, n, p, alt):
    if n == 0:
        return None  # SciPy: ValueError, n must be >= 1
    return float(binomtest(k, n, p, alternative=alt).pvalue)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(1949)
    binom = [(0, 1, 0.5), (1, 1, 0.5), (0, 10, 0.5), (10, 10, 0.5), (5, 10, 0.5), (3, 10, 0.3),
             (2, 10, 0.3), (7, 10, 0.3), (0, 7, 0.0), (3, 7, 0.0), (7, 7, 1.0), (6, 7, 1.0),
             (1, 20, 0.05), (9, 20, 0.05), (480, 1000, 0.5), (430, 1000, 0.5),
             (50211, 100000, 0.5), (12, 40, 0.1234), (13, 50, 0.26)]
    for _ in range(6):
        n = int(rng.integers(1, 300))
        binom.append((int(rng.integers(0, n + 1)), n, round(float(rng.uniform(0.01, 0.99)), 3)))
    binom_out = []
    for k, n, p in binom:
        binom_out.append({"k": k, "n": n, "p": p,
                          "pvalue": {alt: pvalue(k, n, p, alt) for alt in ALTS}})

    vectors = [("n = 1 positive", [0.3]), ("n = 1 negative", [-2.0]), ("only zeros", [0.0] * 4),
               ("no differences", []), ("a NaN difference", [1.0, float("nan"), -1.0]),
               ("zeros dropped", [0.0, 1.0, 2.0, -0.5, 0.0, 3.0, 4.0, 0.0]),
               ("signed zeros", [-0.0, 0.0, 1.0, 1.0]), ("balanced", [1.0, -1.0] * 6),
               ("all positive, n = 30", [float(v) for v in range(1, 31)])]
    for j in range(11):
        n = int(rng.integers(2, 120))
        d = np.round(rng.normal(float(rng.choice([0.0, 0.2, -0.5])), 1, n), 1)
        vectors.append((f"seeded {j}", [float(v) for v in d]))
    sign_out = []
    for name, d in vectors:
        a = np.asarray(d, dtype=float)
        pos, neg = int(np.sum(a > 0)), int(np.sum(a < 0))
        nan = bool(np.any(np.isnan(a)))
        sign_out.append({"name": name, "d": [v if math.isfinite(v) else None for v in d],
                         "positive": pos, "negative": neg, "zeros": int(np.sum(a == 0)),
                         "pvalue": {alt: None if nan else pvalue(pos, pos + neg, 0.5, alt)
                                    for alt in ALTS}})
    out = {"reference": f"SciPy {scipy.__version__} scipy.stats.binomtest, NumPy {np.__version__}",
           "binom_test": binom_out, "sign_test": sign_out}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Goldens for McNemar's test (src/stats/mcnemar.cpp), from statsmodels.

  /usr/bin/python3 tests/golden/gen/mcnemar.py --out tests/golden/mcnemar.json

statsmodels.stats.contingency_tables.mcnemar(table, exact, correction) of statsmodels 0.13.5 on
2x2 tables [[a, b], [c, d]] (b, c the discordant counts; the diagonal, random here, does not
enter), for exact and correction True/False: statistic and p-value (exact: min(b, c) and
2 Binomial(b + c, 1/2).cdf capped at 1; else (|b - c| - correction)^2 / (b + c) and chi2(1).sf).
Cases: no discordant pair, one, b = c (p = 1 exact; the corrected statistic 1 / (b + c), not 0),
one side empty, huge imbalances (p-values to 1e-60), large balanced tables, and seeded tables
(numpy default_rng). Without exact and with b = c = 0 statsmodels divides by zero (statistic inf
and p 0 with correction, NaN without): `null` there, as probity reports no test; statsmodels'
own answer is kept as text in `statsmodels`.
"""
import argparse
import json
import math
import warnings

import numpy as np
import statsmodels
from statsmodels.stats.contingency_tables import mcnemar


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(1947)
    pairs = [(0, 0), (0, 1), (1, 0), (1, 1), (5, 5), (0, 10), (10, 0), (3, 12), (12, 3), (2, 9),
             (0, 200), (1, 150), (400, 350), (1000, 1100), (25, 25), (7, 8)]
    for _ in range(8):
        n = int(rng.integers(1, 80))
        b = int(rng.binomial(n, float(rng.uniform(0.2, 0.8))))
        pairs.append((b, n - b))
    cases = []
    for b, c in pairs:
        a, d = (int(v) for v in rng.integers(0, 100, 2))
        table = [[a, b], [c, d]]
        results = []
        for exact in (True, False):
            for correction in (True, False):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = mcnemar(np.array(table), exact=exact, correction=correction)
                stat, p = float(res.statistic), float(res.pvalue)
                row = {"exact": exact, "correction": correction, "statistic": stat, "pvalue": p}
                if not (math.isfinite(stat) and math.isfinite(p)) or (not exact and b + c == 0):
                    row = {"exact": exact, "correction": correction, "statistic": None,
                           "pvalue": None, "statsmodels": [repr(stat), repr(p)]}
                results.append(row)
        cases.append({"table": table, "results": results})
    out = {"reference": f"statsmodels {statsmodels.__version__} contingency_tables.mcnemar, "
                        f"NumPy {np.__version__}", "cases": cases}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Goldens for stats::paired_equivalence: statsmodels' ttost_paired (TOST for paired samples)
with the margin given in d units, i.e. +-margin * pooled sd in score units, where the pooled sd
is sqrt((var(perturbed) + var(original)) / 2) with ddof 1, d's denominator.

    /usr/bin/python3 tests/golden/gen/equivalence.py --out tests/golden/equivalence.json

statsmodels 0.13.5 and NumPy 1.24.2 (Debian bookworm). ttost_paired(x1, x2, low, upp) tests
x1 - x2 with x1 = perturbed; its first one-sided test (H1: mean > low) is p_above_lower, its
second (H1: mean < upp) p_below_upper.
"""
import argparse
import json

import numpy as np
import statsmodels
from statsmodels.stats.weightstats import ttost_paired


def case(name, original, perturbed, margin):
    o = np.asarray(original, dtype=float)
    p = np.asarray(perturbed, dtype=float)
    psd = float(np.sqrt((np.var(p, ddof=1) + np.var(o, ddof=1)) / 2))
    _, (t1, p1, _), (t2, p2, _) = ttost_paired(p, o, -margin * psd, margin * psd)
    return {"name": name, "original": o.tolist(), "perturbed": p.tolist(), "margin": margin,
            "pooled_sd": psd, "p_above_lower": float(p1), "p_below_upper": float(p2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(30)
    cases = []
    for i in range(24):
        n = int(rng.choice([3, 5, 12, 30, 100, 400]))
        shift = float(rng.choice([-0.5, -0.1, -0.02, 0.0, 0.02, 0.1, 0.5]))
        noise = float(rng.choice([0.05, 0.3, 1.0]))
        o = rng.normal(0.5, 0.2, n)
        p = o + shift * 0.2 + rng.normal(0, noise * 0.2, n)
        margin = float(rng.choice([0.05, 0.1, 0.2, 0.5]))
        cases.append(case(f"seeded {i}: n={n} shift={shift} noise={noise}", o, p, margin))
    cases.append(case("two items", [0.1, 0.9], [0.2, 0.7], 0.1))
    cases.append(case("margin zero", [0.1, 0.4, 0.9, 0.3], [0.2, 0.5, 0.7, 0.3], 0.0))
    cases.append(case("integer ratings", [1, 2, 3, 4, 5, 3, 2], [1, 2, 4, 4, 5, 3, 1], 0.1))
    doc = {"reference": f"statsmodels {statsmodels.__version__} ttost_paired, NumPy {np.__version__}",
           "cases": cases}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

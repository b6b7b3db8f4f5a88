#!/usr/bin/env python3
"""Goldens for the partial-conjunction test (src/stats/partial_conjunction.cpp), from SacreROUGE.

  git -C SACREROUGE show 0ca5202424aca64f0f27993638d6ac0078d9ded8:sacrerouge/stats.py \
      > /tmp/sacrerouge_stats.py
  /usr/bin/python3 tests/golden/gen/partial_conjunction.py \
      --sacrerouge-stats /tmp/sacrerouge_stats.py --out tests/golden/partial_conjunction.json

FILE: sacrerouge/stats.py of danieldeutsch/sacrerouge at SACREROUGE_COMMIT below (v0.2.5; the
functions last changed in 81977d1c). Only partial_conjunction_pvalue_test and
bonferroni_partial_conjunction_pvalue_test are taken from it (by the ast module) and run as they
are; the module's imports (sacrerouge.data, SciPy's correlations) are not needed by them. Its only
method is "bonferroni": the k-th smallest p-value times K - k + 1, a running maximum over k, and
k-hat = how many of those are <= alpha, with the datasets of the k-hat smallest p-values.

Each case: p-values of K datasets, alpha, SacreROUGE's (k, significant) as it returns them, and
two lists probity reports that SacreROUGE computes but does not return: `p_values`, the running
maximum capped at 1 (each checked against the function: its k reaches u at alpha = the uncapped
value and not one ulp below), and `bonferroni`, min(1, (K - u + 1) p_(u)) per u. Cases: K = 0
and 1, p-values of exactly 0 and 1, ties, a product landing exactly on alpha, a non-monotone
product (the running maximum decides), alpha = 0.01 / 0.05 / 0.1 / 1 (at 1 only the uncapped
values decide), and seeded sets (numpy default_rng) mixing effects and nulls.
"""
import argparse
import ast
import hashlib
import json
from typing import List, Tuple

import numpy as np

SACREROUGE_COMMIT = "0ca5202424aca64f0f27993638d6ac0078d9ded8"
FUNCTIONS = ("bonferroni_partial_conjunction_pvalue_test", "partial_conjunction_pvalue_test")


def load(path):
    source = open(path, encoding="utf-8").read()
    tree = ast.parse(source)
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in FUNCTIONS]
    assert len(fns) == len(FUNCTIONS)
    namespace = {"List": List, "Tuple": Tuple, "np": np}
    exec(compile(ast.Module(body=fns, type_ignores=[]), path, "exec"), namespace)
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    return namespace["partial_conjunction_pvalue_test"], digest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sacrerouge-stats", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    test, digest = load(args.sacrerouge_stats)
    rng = np.random.default_rng(1950)
    cases = [
        ([], 0.05), ([0.01], 0.05), ([0.2], 0.05), ([0.0], 0.05), ([1.0], 0.05),
        ([0.0, 0.0, 0.0], 0.05), ([1.0, 1.0], 0.05), ([0.01, 0.01, 0.02], 0.05),
        ([0.025, 0.05], 0.05),  # 2 x 0.025 is exactly alpha
        ([0.001, 0.04, 0.045], 0.05),  # 2 x 0.04 > alpha while 1 x 0.045 is not
        ([0.001, 0.04, 0.045], 0.1), ([0.003, 0.2, 0.0001, 0.04, 0.5], 0.01),
        ([0.003, 0.2, 0.0001, 0.04, 0.5], 0.05), ([0.6, 0.7], 1.0), ([0.3, 0.2, 0.9, 0.0], 1.0),
        ([0.04, 0.0, 1.0, 0.04, 0.01], 0.05),
    ]
    for j in range(14):
        k = int(rng.integers(2, 21))
        effects = int(rng.integers(0, k + 1))
        p = np.concatenate([rng.uniform(0, 0.01, effects) ** 2, rng.uniform(0, 1, k - effects)])
        rng.shuffle(p)
        cases.append(([float(v) for v in p], float(rng.choice([0.01, 0.05, 0.1]))))
    out_cases = []
    for p, alpha in cases:
        k, significant = test("bonferroni", list(p), alpha=alpha)
        order = sorted((v, i) for i, v in enumerate(p))
        products = [(len(p) - u) * v for u, (v, _) in enumerate(order)]
        running = list(np.maximum.accumulate(products)) if products else []
        for u, a in enumerate(running, start=1):
            assert test("bonferroni", list(p), alpha=a)[0] >= u
            assert test("bonferroni", list(p), alpha=float(np.nextafter(a, -np.inf)))[0] < u
        out_cases.append({"p": p, "alpha": alpha, "k": k, "significant": list(significant),
                          "p_values": [min(1.0, float(v)) for v in running],
                          "bonferroni": [min(1.0, float(v)) for v in products]})
    out = {"reference": f"danieldeutsch/sacrerouge {SACREROUGE_COMMIT} sacrerouge/stats.py "
                        f"(sha256 {digest}) partial_conjunction_pvalue_test(\"bonferroni\"), "
                        f"NumPy {np.__version__}", "cases": out_cases}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Goldens for the length-controlled win rate (src/stats/length_control.cpp).

  /usr/bin/python3 tests/golden/gen/length_controlled.py --out tests/golden/length_controlled.json

The reference is statsmodels' GLM with a Binomial family fitted by IRLS on soft labels (a tie is
0.5), the maximum-likelihood fit of AlpacaEval's length_controlled_v1 formula without its
leaderboard instruction-difficulty term and its L1 penalty: P(win) = logistic(theta + beta *
tanh(delta / sd(delta))), sd with ddof = 1 as pandas' Series.std; the LC win rate is
logistic(theta), the prediction at no length difference. Cases without a finite fit (separated
outcomes, a constant length difference) are `null`, as probity must report them undefined.
"""
import argparse
import json
import warnings

import numpy as np
import statsmodels
import statsmodels.api as sm


def fit(pref, delta):
    pref = np.asarray(pref, dtype=float)
    delta = np.asarray(delta, dtype=float)
    sd = delta.std(ddof=1)
    if not sd > 0:
        return None
    x = sm.add_constant(np.tanh(delta / sd), has_constant="add")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            res = sm.GLM(pref, x, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
        except Exception:  # perfect separation, no convergence
            return None
    theta, beta = (float(v) for v in res.params)
    if not (abs(theta) < 50 and abs(beta) < 50):
        return None
    return {"theta": theta, "beta": beta, "lc_win_rate": float(1 / (1 + np.exp(-theta)))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(2024)
    cases = []
    # Judges with a planted length effect of strength k on outputs whose lengths differ.
    for case in range(24):
        n = int(rng.integers(6, 300))
        k = [0.0, 0.5, 1.5, 3.0][case % 4]
        delta = rng.normal(0, [20, 200, 800][case % 3], n).round()
        p_win = 1 / (1 + np.exp(-(0.3 * (case % 5 - 2) + k * np.tanh(delta / delta.std(ddof=1)))))
        u = rng.random(n)
        # A tie where the judge is near indifferent (a share of the pairs).
        pref = np.where(u < p_win, 1.0, 0.0)
        ties = rng.random(n) < [0.0, 0.1, 0.3][case % 3]
        pref[ties] = 0.5
        cases.append({"preference": pref.tolist(), "delta_length": delta.tolist()})
    # Soft preferences (probabilities, as a judge's weighted verdict).
    for case in range(4):
        n = int(rng.integers(10, 80))
        delta = rng.integers(-500, 500, n).astype(float)
        pref = rng.random(n)
        cases.append({"preference": pref.tolist(), "delta_length": delta.tolist()})
    # Edge cases: separated by length, one length difference, two pairs.
    cases.append({"preference": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
                  "delta_length": [30.0, 40.0, 50.0, -30.0, -40.0, -50.0]})
    cases.append({"preference": [1.0, 0.0, 0.5, 1.0], "delta_length": [12.0, 12.0, 12.0, 12.0]})
    cases.append({"preference": [1.0, 0.0], "delta_length": [5.0, -5.0]})
    cases.append({"preference": [1.0, 0.0, 1.0, 0.0], "delta_length": [5.0, -5.0, -5.0, 5.0]})
    for c in cases:
        c["win_rate"] = float(np.mean(c["preference"]))
        c["expected"] = fit(c["preference"], c["delta_length"])
    out = {"reference": f"statsmodels {statsmodels.__version__} GLM Binomial (IRLS), NumPy "
                        f"{np.__version__}", "cases": cases}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=None)
        f.write("\n")


if __name__ == "__main__":
    main()

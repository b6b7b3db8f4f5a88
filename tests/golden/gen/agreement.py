#!/usr/bin/env python3
"""Golden values of the agreement statistics (src/stats/agreement.cpp) from scikit-learn.

  /usr/bin/python3 tests/golden/gen/agreement.py --out tests/golden/agreement.json

scikit-learn 1.2.1 and NumPy 1.24.2 (Debian bookworm's python3-sklearn, python3-numpy). Seeded
cases (numpy.random.default_rng) of binary and ordinal (1-5) labels: ties in scores, perfectly
separated and inverted scores, constant predictions and scores, one class only, imbalanced
classes, probabilities on the calibration bin edges, n from 2 to 500. A value scikit-learn
cannot give (it raises, or returns NaN) is null.
"""
import argparse
import json
import math
import warnings

import numpy as np
import sklearn
from sklearn.calibration import calibration_curve
from sklearn.metrics import (balanced_accuracy_score, brier_score_loss, cohen_kappa_score,
                             f1_score, matthews_corrcoef, roc_auc_score)

ECE_BINS = (10, 5, 7, 1)


def value(fn):
    """fn() as a float, None where scikit-learn raises or gives NaN."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            v = float(fn())
    except ValueError:
        return None
    return None if math.isnan(v) else v


def ece(labels, probs, bins):
    # calibration_curve gives the non-empty bins' means; their counts come from the same
    # assignment (searchsorted on the inner edges of linspace(0, 1, bins + 1)).
    prob_true, prob_pred = calibration_curve(labels, probs, n_bins=bins, strategy="uniform")
    edges = np.linspace(0.0, 1.0, bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], probs), minlength=bins)
    counts = counts[counts != 0]
    assert len(counts) == len(prob_true)
    return float(np.sum(counts / len(labels) * np.abs(prob_true - prob_pred)))


def classification(truth, pred):
    return {
        "kappa": value(lambda: cohen_kappa_score(truth, pred)),
        "kappa_linear": value(lambda: cohen_kappa_score(truth, pred, weights="linear")),
        "kappa_quadratic": value(lambda: cohen_kappa_score(truth, pred, weights="quadratic")),
        "mcc": value(lambda: matthews_corrcoef(truth, pred)),
        "balanced_accuracy": value(lambda: balanced_accuracy_score(truth, pred)),
        "f1_macro": value(lambda: f1_score(truth, pred, average="macro")),
    }


def binary_case(name, labels, scores, probs, pred):
    labels, scores, probs, pred = (np.asarray(v) for v in (labels, scores, probs, pred))
    expected = classification(labels, pred)
    expected["roc_auc"] = value(lambda: roc_auc_score(labels, scores))
    expected["brier"] = value(lambda: brier_score_loss(labels, probs))
    expected["ece"] = {str(b): value(lambda b=b: ece(labels, probs, b)) for b in ECE_BINS}
    return {"name": name, "kind": "binary", "labels": labels.tolist(), "scores": scores.tolist(),
            "probabilities": probs.tolist(), "pred": pred.tolist(), "expected": expected}


def ordinal_case(name, truth, pred):
    truth, pred = np.asarray(truth), np.asarray(pred)
    return {"name": name, "kind": "ordinal", "labels": truth.tolist(), "pred": pred.tolist(),
            "expected": classification(truth, pred)}


def binary_cases():
    out = []
    sizes = (2, 3, 5, 10, 37, 100, 500)
    for seed, n in enumerate(sizes * 3):
        rng = np.random.default_rng(1000 + seed)
        rate = (0.5, 0.2, 0.05)[seed // len(sizes)]
        labels = (rng.random(n) < rate).astype(int)
        if labels.min() == labels.max() and n >= 2:  # keep both classes in the random cases
            labels[rng.integers(n)] ^= 1
        noise = rng.normal(size=n)
        # Scores on a coarse grid (ties within and across classes).
        scores = np.round(labels + noise, 0 if seed % 2 else 1)
        probs = np.clip(0.35 * labels + 0.65 * rng.random(n), 0.0, 1.0)
        if seed % 3 == 0:
            probs = np.round(probs, 1)  # many on the bin edges 0.1, 0.2, ..., 1.0
        pred = np.where(rng.random(n) < 0.8, labels, 1 - labels)
        out.append(binary_case(f"random_n{n}_rate{rate}", labels, scores, probs, pred))
    for n in (2, 6, 50, 500):
        rng = np.random.default_rng(2000 + n)
        labels = np.array([0, 1] * (n // 2))
        rng.shuffle(labels)
        separated = labels * 10.0 + rng.random(n)
        probs = np.where(labels == 1, 0.9, 0.1)
        out.append(binary_case(f"separated_n{n}", labels, separated, probs, labels))
        out.append(binary_case(f"inverted_n{n}", labels, -separated, 1 - probs, 1 - labels))
        out.append(binary_case(f"constant_pred1_n{n}", labels, np.full(n, 0.5), np.full(n, 0.5),
                               np.ones(n, dtype=int)))
        out.append(binary_case(f"constant_pred0_n{n}", labels, np.zeros(n), np.zeros(n),
                               np.zeros(n, dtype=int)))
        out.append(binary_case(f"one_class0_n{n}", np.zeros(n, dtype=int), rng.random(n),
                               rng.random(n), (rng.random(n) < 0.3).astype(int)))
        out.append(binary_case(f"one_class1_n{n}", np.ones(n, dtype=int), rng.random(n),
                               np.ones(n), np.ones(n, dtype=int)))
    # Every edge of linspace(0, 1, 11) as written and as linspace computes it, plus 0 and 1.
    edges = np.linspace(0.0, 1.0, 11)
    written = np.array([k / 10 for k in range(11)])
    probs = np.concatenate([edges, written, np.nextafter(written, 2.0), [0.15, 0.35, 0.95]])
    probs = np.clip(probs, 0.0, 1.0)
    rng = np.random.default_rng(3000)
    labels = (rng.random(len(probs)) < probs).astype(int)
    out.append(binary_case("bin_edges", labels, probs, probs, (probs >= 0.5).astype(int)))
    # One positive among 499 negatives, scored in the middle with ties.
    labels = np.zeros(500, dtype=int)
    labels[17] = 1
    scores = np.round(np.random.default_rng(3001).random(500), 1)
    out.append(binary_case("imbalanced_1_of_500", labels, scores, scores,
                           (scores > 0.5).astype(int)))
    return out


def ordinal_cases():
    out = []
    sizes = (2, 3, 5, 10, 37, 100, 500)
    for seed, n in enumerate(sizes * 2):
        rng = np.random.default_rng(4000 + seed)
        truth = rng.integers(1, 6, n)
        if seed < len(sizes):
            pred = np.clip(truth + rng.integers(-1, 2, n), 1, 5)  # near misses
        else:
            pred = rng.integers(1, 6, n)  # unrelated
        out.append(ordinal_case(f"ordinal_n{n}_{'near' if seed < len(sizes) else 'random'}",
                                truth, pred))
    for n in (2, 10, 100, 500):
        rng = np.random.default_rng(5000 + n)
        truth = rng.integers(1, 6, n)
        out.append(ordinal_case(f"identical_n{n}", truth, truth))
        out.append(ordinal_case(f"constant_pred3_n{n}", truth, np.full(n, 3)))
        out.append(ordinal_case(f"both_constant_n{n}", np.full(n, 4), np.full(n, 4)))
        out.append(ordinal_case(f"disjoint_constants_n{n}", np.full(n, 1), np.full(n, 5)))
        # Labels 1, 3, 5 only in truth, 2 and 4 too in pred: weights on indices, not values.
        sparse = rng.choice([1, 3, 5], n)
        out.append(ordinal_case(f"sparse_labels_n{n}", sparse,
                                np.clip(sparse + rng.integers(-1, 2, n), 1, 5)))
        skewed = np.where(rng.random(n) < 0.9, 5, rng.integers(1, 5, n))
        out.append(ordinal_case(f"imbalanced_n{n}", skewed,
                                np.where(rng.random(n) < 0.7, skewed, rng.integers(1, 6, n))))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    cases = binary_cases() + ordinal_cases()
    doc = {
        "produced_with": {"scikit-learn": sklearn.__version__, "numpy": np.__version__},
        "ece_bins": list(ECE_BINS),
        "cases": cases,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(cases)} cases -> {args.out}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Goldens for Krippendorff's alpha (src/stats/krippendorff.cpp), from NLTK.

  /usr/bin/python3 tests/golden/gen/krippendorff.py --data data/summeval/summeval.jsonl \
      --out tests/golden/krippendorff.json

NLTK's AnnotationTask(data, distance).alpha() computes every value: binary_distance (nominal),
interval_distance (interval) and, for ordinal, Krippendorff's ordinal distance given to NLTK as a
function of the pairable values' frequencies (NLTK has no ordinal metric of its own; the function
is Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section C). Cases: the expert
ratings of SummEval (3 per summary, 4 dimensions), Krippendorff 2011's worked example (4 observers
x 12 units with gaps; published alpha nominal 0.743, ordinal 0.815, interval 0.849), and seeded
random ratings with missing values, single-rated units and real-valued scores. `null` where
probity reports alpha undefined: no pairable unit, or one value throughout (NLTK returns 1 there).
"""
import argparse
import json
from collections import Counter

import nltk
import numpy as np
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import binary_distance, interval_distance


def ordinal_distance(units):
    freq = Counter(v for u in units if len(u) >= 2 for v in u)
    values = sorted(freq)

    def distance(a, b):
        lo, hi = min(a, b), max(a, b)
        span = sum(freq[g] for g in values if lo <= g <= hi)
        return (span - (freq[lo] + freq[hi]) / 2) ** 2
    return distance


def alpha(units, metric):
    pairable = [u for u in units if len(u) >= 2]
    values = {v for u in pairable for v in u}
    if not pairable or len(values) < 2:
        return None
    data = [(str(c), str(i), v) for i, u in enumerate(units) for c, v in enumerate(u)]
    distance = {"nominal": binary_distance, "interval": interval_distance,
                "ordinal": ordinal_distance(units)}[metric]
    return float(AnnotationTask(data=data, distance=distance).alpha())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    cases = []
    dims = ["coherence", "consistency", "fluency", "relevance"]
    summeval = {d: [] for d in dims}
    with open(args.data, encoding="utf-8") as f:
        for line in f:
            task = json.loads(line)
            for c in task["candidates"]:
                for d in dims:
                    summeval[d].append([float(v) for v in c["human"][d]])
    for d in dims:
        cases.append({"name": f"summeval {d}", "units": summeval[d]})
    k = [[1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1],
         [None, 3, None, None]]
    cases.append({"name": "krippendorff 2011", "units": [[float(v) for v in u if v is not None]
                                                         for u in k]})
    rng = np.random.default_rng(30)
    for case in range(12):
        n = int(rng.integers(3, 60))
        raters = int(rng.integers(2, 6))
        scale = [3, 5, 7, 10][case % 4]
        units = []
        for _ in range(n):
            truth = rng.integers(1, scale + 1)
            u = []
            for _ in range(raters):
                if rng.random() < 0.2:
                    continue  # a missing rating
                v = int(np.clip(truth + rng.integers(-1, 2) * (case % 3), 1, scale))
                u.append(float(v) if case % 5 else float(v) + round(float(rng.random()), 3))
            units.append(u)
        cases.append({"name": f"random {case}", "units": units})
    cases.append({"name": "one value throughout", "units": [[2.0, 2.0], [2.0, 2.0, 2.0]]})
    cases.append({"name": "no pairable unit", "units": [[1.0], [3.0], []]})
    cases.append({"name": "two values", "units": [[1.0, 2.0], [1.0, 1.0]]})
    for c in cases:
        c["alpha"] = {m: alpha(c["units"], m) for m in ("nominal", "interval", "ordinal")}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"reference": f"NLTK {nltk.__version__} AnnotationTask.alpha", "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()

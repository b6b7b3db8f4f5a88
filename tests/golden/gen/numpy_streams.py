#!/usr/bin/env python3
"""Writes tests/golden/significance/numpy_streams.json: NumPy's own outputs for the streams that
src/util/numpy_random.* reproduces (sacreBLEU's default_rng draws, rouge-score's legacy
np.random draws) and for the float64 summation and percentile that the significance code
reproduces.

Run once by a developer with Debian bookworm's python3-numpy (1.24.2; the streams are those of
NumPy 1.17 and later):

    /usr/bin/python3 tests/golden/gen/numpy_streams.py

Records:
  seed_sequence: SeedSequence(entropy).generate_state(8, np.uint32)
  pcg64_state:   default_rng(seed).bit_generator.state: state and inc as decimal strings
  pcg64_raw:     default_rng(seed).bit_generator.random_raw(6) as decimal strings
  choice:        default_rng(seed).choice(n, size=(rows, cols), replace=True), flattened; then,
                 from the same generator, choice(n, size=3) (the buffered 32-bit half carries
                 over between calls)
  integers64:    default_rng(seed).integers(0, n, size=count, dtype=np.int64) (n >= 2^32 too)
  booleans:      default_rng(seed).integers(2, size=count, dtype=bool) as a 0/1 string, then
                 random_raw(1) of the same generator
  random:        default_rng(seed).random(5)
  legacy_choice: np.random.seed(seed); np.random.choice(np.arange(n), size=count), twice in a row
  legacy_randint: np.random.seed(seed); np.random.randint(0, n, size=count) (n >= 2^32 too)
  sum:           np.array(values).sum() and .mean() (pairwise summation)
  percentile:    np.percentile(values, q) for q in qs (linear)
"""

import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "significance" / "numpy_streams.json"
SEEDS = [0, 1, 7, 12345, 2**32 - 1, 2**32, 2**63 + 5, 2**64 - 1]


def main():
    rec = {"numpy": np.__version__, "seed_sequence": [], "pcg64_state": [], "pcg64_raw": [],
           "choice": [], "integers64": [], "booleans": [], "random": [], "legacy_choice": [],
           "legacy_randint": [], "sum": [], "percentile": []}
    for s in SEEDS:
        rec["seed_sequence"].append(
            {"entropy": str(s), "state": [int(x) for x in
                                          np.random.SeedSequence(s).generate_state(8)]})
        st = np.random.default_rng(s).bit_generator.state["state"]
        rec["pcg64_state"].append({"seed": str(s), "state": str(st["state"]),
                                   "inc": str(st["inc"])})
        raw = np.random.default_rng(s).bit_generator.random_raw(6)
        rec["pcg64_raw"].append({"seed": str(s), "raw": [str(int(x)) for x in raw]})
    for seed, n, rows, cols in [(12345, 1, 2, 3), (12345, 2, 4, 9), (12345, 7, 5, 7),
                                (12345, 100, 10, 100), (7, 1000, 3, 50), (0, 3, 1, 1),
                                (1, 2**31 + 11, 2, 5), (12345, 2**32, 2, 5)]:
        g = np.random.default_rng(seed)
        first = g.choice(n, size=(rows, cols), replace=True)
        then = g.choice(n, size=3, replace=True)
        rec["choice"].append({"seed": seed, "n": n, "rows": rows, "cols": cols,
                              "values": [int(x) for x in first.ravel()],
                              "then": [int(x) for x in then]})
    for seed, n, count in [(12345, 2**32 + 5, 20), (3, 2**40 + 1, 10), (12345, 5, 40)]:
        v = np.random.default_rng(seed).integers(0, n, size=count, dtype=np.int64)
        rec["integers64"].append({"seed": seed, "n": n, "values": [int(x) for x in v]})
    for seed, count in [(12345, 100), (7, 31), (0, 64), (1, 1)]:
        g = np.random.default_rng(seed)
        b = g.integers(2, size=count, dtype=bool)
        rec["booleans"].append({"seed": seed, "bits": "".join("1" if x else "0" for x in b),
                                "then_raw": str(int(g.bit_generator.random_raw()))})
    for seed in [12345, 0]:
        rec["random"].append({"seed": seed,
                              "values": [float(x) for x in np.random.default_rng(seed).random(5)]})
    for seed, n, count in [(12345, 7, 12), (0, 1, 4), (42, 300, 300), (2**32 - 1, 2, 70),
                           (1, 1000, 1000)]:
        np.random.seed(seed)
        a = np.random.choice(np.arange(n), size=count)
        b = np.random.choice(np.arange(n), size=count)
        rec["legacy_choice"].append({"seed": seed, "n": n, "values": [int(x) for x in a],
                                     "then": [int(x) for x in b]})
    for seed, n, count in [(5, 2**32, 6), (5, 2**32 + 7, 6), (9, 2**33 - 1, 8)]:
        np.random.seed(seed)
        v = np.random.randint(0, n, size=count, dtype=np.int64)
        rec["legacy_randint"].append({"seed": seed, "n": n, "values": [int(x) for x in v]})
    r = np.random.default_rng(2024)
    for n in [1, 5, 8, 9, 17, 127, 128, 129, 200, 1000, 1001, 4099]:
        v = r.standard_normal(n) * 10.0 ** r.integers(-6, 7, n)
        rec["sum"].append({"values": [float(x) for x in v], "sum": float(v.sum()),
                           "mean": float(v.mean())})
    for n, qs in [(1000, [2.5, 50.0, 97.5]), (1, [2.5, 50.0]), (2, [0.0, 25.0, 100.0]),
                  (37, [5.000000000000004, 50.0, 94.99999999999999]), (250, [2.5, 97.5])]:
        v = r.random(n)
        rec["percentile"].append({"values": [float(x) for x in v], "qs": qs,
                                  "expected": [float(np.percentile(v, q)) for q in qs]})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(rec) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

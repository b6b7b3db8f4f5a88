#!/usr/bin/env python3
"""The lexical rows of probity-bench timed through the Python module, so that the module's cost
shows next to the in-process figures. Run by `probity-bench --sections python` (which sets
PYTHONPATH to the build's python/ directory) or by hand:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--data FILE] [--rounds 5]

Prints one JSON document on stdout. Same method as peers.py: pinned to one core, threads=1,
process CPU time (time.process_time) of one pass over the 1,600 (candidate, first reference)
pairs, median of --rounds rounds. Variants per row:
  batch     one probity.score(metric, candidates, references, threads=1) call per metric over
            all pairs (what a user scoring a list does);
  per call  one probity.score(metric, [candidate], [reference], threads=1) call per pair and
            metric (the cost of a call: metric lookup, task grouping, conversions).
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import ROOT, load_pairs, split_sentences  # noqa: E402

import probity  # noqa: E402

ROWS = (
    ("bleu", ["bleu,refs=first"], False),
    ("chrf", ["chrf,refs=first"], False),
    ("rouge", ["rouge1,stem=true,refs=first", "rouge2,stem=true,refs=first",
               "rougeL,stem=true,refs=first"], False),
    ("rougeLsum", ["rougeLsum,stem=true,refs=first"], True),
)


def median_cpu(rounds, body):
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        body()
        times.append(time.process_time() - t0)
    return statistics.median(times), times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.path.join(ROOT, "data/summeval/summeval.jsonl"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    hyps, refs, _, _ = load_pairs(args.data)
    n = len(hyps)
    rows = {}
    for key, specs, split in ROWS:
        h = [split_sentences(t) for t in hyps] if split else hyps
        r = [split_sentences(t) for t in refs] if split else refs

        def batch(h=h, r=r, specs=specs):
            for spec in specs:
                probity.score(spec, h, r, threads=1)

        def per_call(h=h, r=r, specs=specs):
            for hyp, ref in zip(h, r):
                for spec in specs:
                    probity.score(spec, [hyp], [ref], threads=1)

        batch()  # first call of a metric: registry lookup and any lazily built tables
        checksum = sum(float(probity.score(spec, h, r, threads=1).sum()) for spec in specs)
        variants = {"batch": median_cpu(args.rounds, batch),
                    "per call": median_cpu(args.rounds, per_call)}
        rows[key] = {
            "specs": specs,
            "variants": {k: {"cpu_s": v[0], "rounds_cpu_s": v[1], "pairs_per_s": n / v[0]}
                         for k, v in variants.items()},
            "checksum": checksum,
        }
    json.dump({"pairs": n, "rounds": args.rounds, "probity": probity.__file__, "rows": rows},
              sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

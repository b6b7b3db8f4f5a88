#!/usr/bin/env python3
"""An exec: scorer for probity (probity-score/1, docs/external-scorers.md): unigram F1."""
import json, sys

def f1(candidate, reference):
    c, r = set(candidate.lower().split()), set(reference.lower().split())
    return 2 * len(c & r) / (len(c) + len(r)) if c & r else 0.0

for line in sys.stdin:  # one batch per line
    items = json.loads(line)["items"]
    scores = [max((f1(i["candidate"], r) for r in i["references"]), default=None) for i in items]
    print(json.dumps({"scores": scores}), flush=True)  # one answer line, same order

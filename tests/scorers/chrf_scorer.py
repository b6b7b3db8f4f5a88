#!/usr/bin/env python3
"""An exec: scorer (probity-score/1, docs/external-scorers.md) computing sentence chrF with
probity's own chrf through its Python module, for the equivalence tests: attacking
`exec:python3 tests/scorers/chrf_scorer.py` must give the same results as attacking `chrf`.
The module must be importable (PYTHONPATH=build/python)."""
import json
import sys

import probity

for line in sys.stdin:
    batch = json.loads(line)
    assert batch["protocol"] == "probity-score/1", batch.get("protocol")
    items = batch["items"]
    scores = probity.score("chrf", [i["candidate"] for i in items],
                           [i["references"] for i in items]) if items else []
    print(json.dumps({"scores": [float(s) for s in scores]}), flush=True)

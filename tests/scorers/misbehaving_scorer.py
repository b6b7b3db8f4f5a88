#!/usr/bin/env python3
"""An exec: scorer that breaks probity-score/1 in the way its argument names, for the tests of
the messages probity gives (tests/metrics/external_scorer_test.cpp).
Modes: exit (exits with code 3 after a line on stderr), badjson, count (one score too few),
timeout (never answers), string (a score that is a string), nan (Python's bare NaN),
null (null scores with an "errors" reason for odd ids), length (the candidate's length)."""
import json
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    items = json.loads(line)["items"]
    if mode == "exit":
        print("scorer: model file not found: /nonexistent/model.bin", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "badjson":
        print('{"scores": [1.0, }', flush=True)
    elif mode == "count":
        print(json.dumps({"scores": [1.0] * (len(items) - 1)}), flush=True)
    elif mode == "timeout":
        time.sleep(60)
    elif mode == "string":
        print(json.dumps({"scores": ["high"] * len(items)}), flush=True)
    elif mode == "nan":
        print(json.dumps({"scores": [float("nan")] * len(items)}), flush=True)
    elif mode == "null":
        print(json.dumps({
            "scores": [None if i["id"] % 2 else float(len(i["candidate"])) for i in items],
            "errors": ["empty after cleaning" if i["id"] % 2 else None for i in items]}),
            flush=True)
    else:
        print(json.dumps({"scores": [float(len(i["candidate"])) for i in items]}), flush=True)

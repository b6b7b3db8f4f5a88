#!/usr/bin/env python3
"""Golden for stats::wilson_interval: scipy.stats.binomtest(k, n).proportion_ci(method="wilson").

Run with Debian's python3-scipy (1.10): python3 tests/golden/gen/wilson.py > tests/golden/wilson.json
"""
import json

import scipy
from scipy.stats import binomtest

cases = []
for n in (1, 2, 3, 7, 10, 30, 97, 200, 1000):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        if k < 0 or k > n:
            continue
        for cl in (0.8, 0.95, 0.99):
            ci = binomtest(k, n).proportion_ci(confidence_level=cl, method="wilson")
            cases.append({"k": k, "n": n, "confidence": cl, "low": ci.low, "high": ci.high})
print(json.dumps({"scipy": scipy.__version__, "cases": cases}, indent=1))

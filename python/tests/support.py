"""Shared helpers of the Python tests: paths, the CLI binary and comparisons.

The tests import ``probity`` from the build tree (``PYTHONPATH=<build>/python``); the ``probity``
binary is taken from ``PROBITY_BINARY`` or from the same build tree.
"""

import json
import math
import os
import pathlib
import subprocess

import numpy as np

import probity

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "summeval" / "summeval_sample20.jsonl"
SUMMEVAL = REPO / "data" / "summeval" / "summeval.jsonl"
# <build>/python/probity/__init__.py -> <build>
BUILD = pathlib.Path(probity.__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("PROBITY_BINARY", BUILD / "probity"))


def run_cli(*args, check=True):
    """Runs the probity binary; returns the CompletedProcess (text mode)."""
    proc = subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True,
                          check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"probity {' '.join(map(str, args))} exited with "
                             f"{proc.returncode}: {proc.stderr}")
    return proc


def cli_error(*args):
    """(exit code, message) of a failing CLI call, without the 'probity: ' prefixes."""
    proc = run_cli(*args, check=False)
    msg = proc.stderr.strip()
    for prefix in ("probity: invalid input: ", "probity: "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
            break
    return proc.returncode, msg


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def nulls_to_nan(value):
    """JSON value with every null replaced by NaN (the Python API's undefined value)."""
    if value is None:
        return math.nan
    if isinstance(value, dict):
        return {k: nulls_to_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [nulls_to_nan(v) for v in value]
    return value


def same(a, b):
    """Deep equality where NaN equals NaN and numbers compare exactly."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return (math.isnan(a) and math.isnan(b)) or a == b
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def arrays_equal(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)

#!/usr/bin/env python3
"""Goldens for the judge bias statistics (src/stats/judge_bias.cpp), from their reference code.

  /usr/bin/python3 tests/golden/gen/judge_bias.py \
      --alpaca-eval DIR --judgelm DIR --out tests/golden/judge_bias.json

DIR: a checkout of tatsu-lab/alpaca_eval (its src/alpaca_eval/analyze.py get_length_biases and
get_list_biases, utils.contains_list) and of baaivision/JudgeLM (judgelm/llm_judge/
eval_model_judgement.py calculate_metrics). Their code runs as it is; the imports they make for
other parts of those packages (datasets, torch, ...) are stubbed, since the functions used here do
not touch them. The partial correlation comes from SciPy (linregress residuals, pearsonr), ICC(1,1)
from SciPy's one-way ANOVA F (f_oneway): ICC = (F - 1) / (F + k - 1).
"""
import argparse
import importlib
import json
import os
import sys
import tempfile
import types
from unittest import mock

import numpy as np
import pandas as pd
from scipy import stats


def stub_modules(names):
    for name in names:
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = mock.MagicMock(name=name)


def alpaca_eval(root):
    stub_modules(["datasets", "tqdm", "yaml", "pkg_resources", "openai", "tiktoken", "dotenv",
                  "fire", "transformers", "requests", "huggingface_hub", "matplotlib", "seaborn", "patsy", "sklearn"])
    sys.path.insert(0, os.path.join(root, "src"))
    analyze = importlib.import_module("alpaca_eval.analyze")
    utils = importlib.import_module("alpaca_eval.utils")
    return analyze.Analyzer, utils.contains_list


def judgelm(root):
    stub_modules(["torch", "shortuuid", "openai", "anthropic", "fastchat"])
    sys.path.insert(0, root)
    return importlib.import_module("judgelm.llm_judge.eval_model_judgement").calculate_metrics


LIST_TEXTS = [
    "Plain prose without any marker at all",
    "- first point\n- second point",
    "* starred item",
    "1. numbered item",
    "2) numbered with a parenthesis",
    "a) lettered",
    "e.g. this counts",
    "a well-known case",
    "Ends here. Next sentence",
    "\u2022 bullet item",
    "3.5 percent",
    "no marker here !",
    "x. y",
    "*",
    "-",
    "- ",
    "\u00e9t\u00e9. \u00e9t\u00e9",
    "caf\u00e9 - \u00e9l\u00e8ve",
    "1.\u00a0with a no-break space",
    "\u4e2d\u6587\u3002\u4e2d\u6587",
    "",
]

WORDS = ("the judge rates a text by its content and form and the length of the answer "
         "matters less than what it says about the task").split()


def random_text(rng, lists):
    n = int(rng.integers(1, 40))
    text = " ".join(rng.choice(WORDS, n))
    if lists and rng.random() < 0.5:
        text = "Points:\n- " + "\n- ".join(text.split(" and "))
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--alpaca-eval", required=True)
    ap.add_argument("--judgelm", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    Analyzer, contains_list = alpaca_eval(args.alpaca_eval)
    calculate_metrics = judgelm(args.judgelm)
    rng = np.random.default_rng(29)
    out = {"contains_list": [], "pairs": [], "position": [], "partial": [], "icc": []}

    out["contains_list"] = [{"text": t, "value": bool(contains_list(t))} for t in LIST_TEXTS]

    stub = types.SimpleNamespace(keys=["instruction", "output_1", "output_2"],
                                 annotation_key="preference")
    for case in range(6):
        n = int(rng.integers(8, 40))
        o1 = [random_text(rng, case % 2 == 0) for _ in range(n)]
        o2 = [random_text(rng, case % 3 == 0) for _ in range(n)]
        pref = [float(rng.choice([1.0, 1.5, 2.0])) for _ in range(n)]
        df = pd.DataFrame({"instruction": [f"task {case} {i}" for i in range(n)],
                           "output_1": o1, "output_2": o2, "preference": pref})
        longer = Analyzer.get_length_biases(stub, df)["probability_prefer_longer"]
        lists = Analyzer.get_list_biases(stub, df)["probability_prefer_list"]
        out["pairs"].append({"output_1": o1, "output_2": o2, "preference": pref,
                             "prefer_longer": None if np.isnan(longer) else float(longer),
                             "prefer_lists": None if np.isnan(lists) else float(lists)})

    with tempfile.TemporaryDirectory() as tmp:
        for case in range(6):
            n = int(rng.integers(5, 50))
            choices = [0.0, 0.5, 1.0]
            p = [[0.6, 0.2, 0.2], [0.2, 0.2, 0.6], [1 / 3] * 3][case % 3]
            first = [float(rng.choice(choices, p=p)) for _ in range(n)]
            second = [float(rng.choice(choices)) for _ in range(n)]
            scores = {1.0: "8 2", 0.5: "5 5", 0.0: "2 8"}
            gt = os.path.join(tmp, f"gt{case}.jsonl")
            with open(gt, "w") as f:
                for _ in range(n):
                    f.write(json.dumps({"text": "5 5\nreason"}) + "\n")
            # X shown first: X's verdict is answer 1's; X shown second: answer 2's.
            seq = [{"pred_text": scores[v] + "\nreason"} for v in first]
            rev = [{"pred_text": " ".join(reversed(scores[v].split())) + "\nreason"}
                   for v in second]
            m = calculate_metrics(gt, seq, rev)
            out["position"].append({"x_first": first, "x_second": second,
                                    "consistency": m["consistency"],
                                    "prefer_first": m["perfer_before_rate"],
                                    "prefer_second": m["perfer_after_rate"]})

    for case in range(8):
        n = int(rng.integers(5, 60))
        z = rng.normal(size=n)
        x = 0.5 * z + rng.normal(size=n)
        y = (0.3 * z + 0.4 * x + rng.normal(size=n)) if case % 2 else rng.normal(size=n)
        if case == 7:
            x = np.round(x)
        rx = x - stats.linregress(z, x).intercept - stats.linregress(z, x).slope * z
        ry = y - stats.linregress(z, y).intercept - stats.linregress(z, y).slope * z
        out["partial"].append({"x": x.tolist(), "y": y.tolist(), "z": z.tolist(),
                               "value": float(stats.pearsonr(rx, ry)[0])})

    for case in range(8):
        n = int(rng.integers(3, 40))
        k = int(rng.integers(2, 6))
        base = rng.integers(1, 6, size=n)
        noise = rng.integers(-1, 2, size=(n, k)) * (rng.random((n, k)) < 0.3 * (case % 4))
        ratings = np.clip(base[:, None] + noise, 1, 5).astype(float)
        if case == 3:
            ratings[0, :] = ratings[0, 0]
        rows = [r for r in ratings]
        f = stats.f_oneway(*rows).statistic
        # No spread within items (F = inf, SciPy warns): ICC's limit, 1.
        icc = 1.0 if np.isinf(f) else (f - 1) / (f + k - 1)
        same = [bool(np.all(r == r[0])) for r in ratings]
        out["icc"].append({"ratings": ratings.tolist(), "samples": k,
                           "icc": None if not np.isfinite(icc) else float(icc),
                           "flip_rate": 1 - float(np.mean(same)),
                           "mean_sd": float(np.mean(np.std(ratings, axis=1, ddof=1)))})

    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

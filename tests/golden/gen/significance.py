#!/usr/bin/env python3
"""Writes tests/golden/significance/paired.json (sacreBLEU 2.6.0's paired significance tests) and
tests/golden/significance/rouge_bootstrap.json (rouge-score's BootstrapAggregator).

Run once by a developer, with the reference code (none of it is in this project):

    /usr/bin/python3 tests/golden/gen/significance.py --sacrebleu DIR --rouge DIR \\
        --data data/summeval/summeval.jsonl

--sacrebleu  the directory holding the `sacrebleu` package of sacreBLEU 2.6.0 (tag v2.6.0 =
             commit 2277caccfc7b956671a6a09f1646f62250034157; `git archive v2.6.0 sacrebleu`), as
             for gen/empty_texts.py (whose loader this script uses). Its package imports
             portalocker, colorama, tabulate, regex and lxml.etree, which the significance code
             and the 13a tokenizer never call: where they are not installed, put empty stand-ins
             for them on PYTHONPATH for this run (the golden run used such stand-ins in /tmp).
--rouge      a directory holding google-research's `rouge/scoring.py` (imported as
             rouge.scoring); the golden run used google-research/google-research at commit
             0b7b841b4d58aac0854fd6daa3f80ea2724d14b3. Only BootstrapAggregator is called.
NumPy: 1.24.2 (Debian bookworm's python3-numpy). The streams used (default_rng = PCG64 seeded by
SeedSequence, Generator.choice/integers; the legacy MT19937 of np.random.seed with
RandomState.choice) are those of NumPy 1.17 and later. Resampled chrF and TER scores depend on
NumPy's type promotion: under NumPy 1.x a float32 / float32 quotient stays float32 and an
operation with a Python number gives float64 (NEP 50 in NumPy 2 changes the latter); the values
here are NumPy 1.24.2's.

paired.json: `cases`, each with the systems' hypotheses (`systems`: [name, lines]; the first is
the baseline), the reference streams (`refs`), the test (`test`: bs or ar), `n` (resamples or
trials), `seed` (SACREBLEU_SEED) and per metric (`metrics`: probity's name -> sacreBLEU's
constructor arguments) sacreBLEU's `PairedTest(...)()` results: score, p_value, mean, ci per
system, the signature, and the cells sacreBLEU's CLI prints (utils._format_score_lines with
width 1 and the table's column title; colours off).
Texts: SummEval candidates (newlines replaced by spaces, right-stripped as sacreBLEU's CLI reads
lines), references as given.

rouge_bootstrap.json: `cases`, each with per-item rouge-score scores (`scores`: rouge type ->
[[precision, recall, fmeasure], ...], the values of tests/golden/lexical/sentence.jsonl, which
rouge-score computed), `n_samples`, `confidence_interval`, `seed`, and `aggregate`: the
BootstrapAggregator's low/mid/high per type after np.random.seed(seed) (the aggregator draws from
NumPy's global state, one stream through the types in the order they were added).
"""

import argparse
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from empty_texts import import_sacrebleu  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "significance"

METRICS = {
    "bleu": ("BLEU", {}),
    "chrf": ("CHRF", {}),
    "chrf++": ("CHRF", {"word_order": 2}),
    "ter": ("TER", {}),
}


def clean(text):
    return text.replace("\r", " ").replace("\n", " ").rstrip()


def load(path, n_tasks):
    tasks = [json.loads(line) for line in open(path, encoding="utf-8")][:n_tasks]
    return tasks


def system_lines(tasks, system):
    out = []
    for t in tasks:
        (c,) = [c for c in t["candidates"] if c["id"] == system]
        out.append(clean(c["text"]))
    return out


def ref_streams(tasks, n_refs):
    return [[t["references"][r]["text"] for t in tasks] for r in range(n_refs)]


def run_case(sacrebleu, name, systems, refs, test, n, seed, metric_names):
    from sacrebleu import metrics as sm
    from sacrebleu.significance import PairedTest
    from sacrebleu.utils import Color, _format_score_lines

    Color.ENABLE_COLORS = False
    os.environ["SACREBLEU_SEED"] = str(seed)
    metrics = {}
    for m in metric_names:
        cls, kwargs = METRICS[m]
        metrics[m] = getattr(sm, cls)(references=refs, **kwargs)
    named = [(s, lines) for s, lines in systems]
    # The CLI prefixes the baseline's name.
    named[0] = (f"Baseline: {named[0][0]}", named[0][1])
    ps = PairedTest(named, metrics, references=None, test_type=test, n_samples=n)
    sigs, scores = ps()
    sacre_names = list(scores.keys())[1:]  # 'System' first, then one per metric in order
    assert len(sacre_names) == len(metric_names)
    formatted = _format_score_lines(dict(scores), width=1, multiline=False)
    titles = list(formatted.keys())[1:]
    results = {}
    for m, sname, title in zip(metric_names, sacre_names, titles):
        results[m] = {
            "sacrebleu_name": sname,
            "signature": sigs[sname].format(),
            "column": title,
            "cells": formatted[title],
            "systems": [
                {"score": r.score, "p_value": r.p_value, "mean": None if r.mean is None
                 else float(r.mean), "ci": None if r.ci is None else float(r.ci)}
                for r in scores[sname]
            ],
        }
    return {
        "name": name,
        "systems": [[s, lines] for s, lines in systems],
        "refs": refs,
        "test": test,
        "n": n,
        "seed": seed,
        "metrics": {m: {"sacrebleu": METRICS[m][0], "args": METRICS[m][1]} for m in metric_names},
        "results": results,
    }


def paired(sacrebleu, data):
    tasks100 = load(data, 100)
    tasks20 = tasks100[:20]
    sys4 = ["M0", "M1", "M2", "M5"]
    cases = []
    sys100 = [(s, system_lines(tasks100, s)) for s in sys4]
    sys20 = [(s, system_lines(tasks20, s)) for s in sys4[:3]]
    all4 = ["bleu", "chrf", "chrf++", "ter"]
    cases.append(run_case(sacrebleu, "summeval100_bs", sys100, ref_streams(tasks100, 1),
                          "bs", 1000, 12345, all4))
    cases.append(run_case(sacrebleu, "summeval100_ar", sys100, ref_streams(tasks100, 1),
                          "ar", 10000, 12345, all4))
    # Two reference streams: TER's average reference lengths are fractions (float32 sums).
    cases.append(run_case(sacrebleu, "summeval20_2refs_bs_seed7", sys20, ref_streams(tasks20, 2),
                          "bs", 500, 7, ["bleu", "chrf", "ter"]))
    cases.append(run_case(sacrebleu, "summeval20_2refs_ar_seed7", sys20, ref_streams(tasks20, 2),
                          "ar", 2000, 7, ["bleu", "chrf", "ter"]))
    # A system identical to the baseline (p = 1) and one item (choice(1) draws nothing).
    same = [sys20[0], ("copy", list(sys20[0][1])), sys20[1]]
    cases.append(run_case(sacrebleu, "identical_bs", same, ref_streams(tasks20, 1), "bs", 200,
                          12345, ["bleu", "ter"]))
    one = [(s, lines[:1]) for s, lines in sys20]
    cases.append(run_case(sacrebleu, "one_item_bs", one, ref_streams(tasks20[:1], 1), "bs", 100,
                          12345, ["bleu", "chrf"]))
    cases.append(run_case(sacrebleu, "one_item_ar", one, ref_streams(tasks20[:1], 1), "ar", 100,
                          12345, ["bleu", "chrf"]))
    return cases


def rouge_bootstrap(rouge_dir):
    sys.path.insert(0, str(pathlib.Path(rouge_dir).resolve()))
    import numpy as np
    from rouge import scoring

    records = [json.loads(line) for line in
               open(HERE.parent / "lexical" / "sentence.jsonl", encoding="utf-8")]
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]

    def matrix(recs, key):
        return {t: [[r[key][t]["precision"], r[key][t]["recall"], r[key][t]["fmeasure"]]
                    for r in recs] for t in types}

    cases = []
    for name, recs, key, n_samples, ci, seed in [
        ("summeval300", records[12:], "rouge_1ref", 1000, 0.95, 12345),
        ("summeval300_stem_seed0", records[12:], "rouge_stem_1ref", 1000, 0.95, 0),
        ("edge12_ci90", records[:12], "rouge_1ref", 250, 0.9, 42),
        ("first50_n37", records[12:62], "rouge_1ref", 37, 0.95, 2**32 - 1),
    ]:
        scores = matrix(recs, key)
        agg = scoring.BootstrapAggregator(confidence_interval=ci, n_samples=n_samples)
        for i in range(len(recs)):
            agg.add_scores({t: scoring.Score(*scores[t][i]) for t in types})
        np.random.seed(seed)
        result = agg.aggregate()
        cases.append({
            "name": name, "n_samples": n_samples, "confidence_interval": ci, "seed": seed,
            "types": types, "scores": scores,
            "aggregate": {t: {b: list(map(float, getattr(result[t], b)))
                              for b in ("low", "mid", "high")} for t in types},
        })
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True)
    ap.add_argument("--rouge", required=True)
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    import numpy as np
    sacrebleu = import_sacrebleu(args.sacrebleu)
    OUT.mkdir(parents=True, exist_ok=True)
    versions = {"sacrebleu": sacrebleu.__version__, "numpy": np.__version__,
                "rouge_scoring": "google-research/google-research rouge/scoring.py at "
                                 "0b7b841b4d58aac0854fd6daa3f80ea2724d14b3"}
    with open(OUT / "paired.json", "w", encoding="utf-8") as f:
        json.dump({"versions": versions, "cases": paired(sacrebleu, args.data)}, f,
                  ensure_ascii=False)
        f.write("\n")
    with open(OUT / "rouge_bootstrap.json", "w", encoding="utf-8") as f:
        json.dump({"versions": versions, "cases": rouge_bootstrap(args.rouge)}, f)
        f.write("\n")


if __name__ == "__main__":
    main()

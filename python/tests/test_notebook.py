"""A notebook-style session: load the SummEval sample, score, audit with a Python metric, read
the report."""

import json
import os
import tempfile
import unittest

import numpy as np

import probity
from support import SAMPLE


def length(candidates, references):
    """Candidate length in words: a deliberately naive metric."""
    length.batches.append(len(candidates))
    return [len(c.split()) for c in candidates]


length.batches = []


class NotebookSession(unittest.TestCase):
    def test_session(self):
        # Load and look around.
        ds = probity.load_dataset(SAMPLE)
        self.assertEqual(len(ds.tasks), 20)
        self.assertEqual(ds.num_candidates(), 320)
        self.assertEqual(ds.dimensions(), ["coherence", "consistency", "fluency", "relevance"])
        task = ds.tasks[0]
        cand = task.candidates[0]
        self.assertEqual(len(task.references), 11)
        self.assertTrue(task.source)
        self.assertEqual(ds.items()[0], (task.task_id, cand.id))
        self.assertEqual(ds.texts()[0], cand.text)
        relevance = ds.human("relevance")
        self.assertEqual(relevance[0], np.mean(cand.human["relevance"]))
        self.assertEqual(relevance[0], cand.human_mean("relevance"))

        # Score with built-in metrics and the Python one; correlate.
        scores = probity.score_dataset(ds, ["bleu", "rougeL.f", length])
        self.assertEqual(list(scores), ["bleu", "rougeL.f", "python:length"])
        self.assertEqual(scores["python:length"][0], len(cand.text.split()))
        rows = probity.correlate(scores, ds, dimensions=["relevance"], bootstrap=200)
        by_metric = {r["metric"]: r for r in rows}
        self.assertGreater(by_metric["python:length"]["spearman"], 0)
        lo, hi = by_metric["bleu"]["spearman_lo"], by_metric["bleu"]["spearman_hi"]
        self.assertLess(lo, by_metric["bleu"]["spearman"])
        self.assertLess(by_metric["bleu"]["spearman"], hi)

        # Audit with the Python metric next to BLEU.
        length.batches.clear()
        with tempfile.TemporaryDirectory() as out:
            stages = []
            report = probity.audit(
                ds, ["bleu", probity.PythonMetric(length, signature="words-v1")],
                bootstrap=200, out=out, progress=lambda stage, done, total: stages.append(stage))
            self.assertEqual(sorted(os.listdir(out)),
                             ["cache.sqlite", "report.html", "report.json", "report.md"])
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f), report)
            self.assertIn("score python:length", stages)
            # The Python metric was called in batches, never with more than 256 items.
            self.assertEqual(length.batches[0], 256)
            self.assertTrue(all(0 < b <= 256 for b in length.batches))
            # A re-run resumes from the cache: the Python metric is not called again.
            calls = len(length.batches)
            again = probity.audit(ds, ["bleu", probity.PythonMetric(length, signature="words-v1")],
                                  bootstrap=200, out=out)
            self.assertEqual(len(length.batches), calls)
            self.assertEqual(again["cache_misses"], 0)
            self.assertEqual(again["tests"], report["tests"])

        # Read the report.
        self.assertEqual(report["metrics"], ["bleu", "python:length"])
        self.assertTrue(report["signatures"][1].startswith("python:length|words-v1|"))
        tests = {(t["metric"], t["kind"], t["code"]): t for t in report["tests"]}
        self.assertEqual(len(tests), 24)
        # Sentence deletion shortens every answer: a length metric notices.
        deletion = tests[("python:length", "degradation", "S")]
        self.assertTrue(deletion["passed"])
        self.assertLess(deletion["mean_delta"], 0)
        self.assertEqual(deletion["considered"], 320)
        text = probity.format_report(report)
        self.assertIn("python:length", text)
        self.assertIn("Human correlation", text)
        self.assertIn("| python:length", probity.format_report(report, "markdown"))
        self.assertTrue(probity.format_report(report, "html").lstrip().startswith("<!DOCTYPE"))
        with tempfile.TemporaryDirectory() as out:
            probity.write_report(report, out)
            self.assertEqual(probity.format_report(os.path.join(out, "report.json"), "json"),
                             probity.format_report(report, "json"))


if __name__ == "__main__":
    unittest.main()

"""Data frames and notebooks: a pandas round trip DataFrame -> Dataset -> score ->
to_pandas whose numbers equal the CLI's on the same rows (a CSV read through --map), flat
records, DataFrames given directly, audit reports as tables and HTML."""

import json
import math
import os
import tempfile
import unittest

import pandas as pd

import probity
from support import SAMPLE, read_jsonl, run_cli

COLUMNS = "task=doc_id,candidate=prediction,reference=ref,human=relevance,system=model"


def flat_frame():
    """The SummEval sample as a flat table, one row per candidate, as an export would have it:
    its own column names, the first reference, the expert mean, and a column nobody asked for."""
    rows = []
    with open(SAMPLE, encoding="utf-8") as f:
        for line in f:
            task = json.loads(line)
            for c in task["candidates"]:
                rel = c["human"]["relevance"]
                rows.append({"doc_id": task["task_id"], "model": c["system"],
                             "prediction": c["text"], "ref": task["references"][0]["text"],
                             "relevance": sum(rel) / len(rel), "lang": "en"})
    return pd.DataFrame(rows)


class PandasRoundTrip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.df = flat_frame()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_round_trip_matches_the_cli(self):
        ds = probity.Dataset.from_pandas(self.df, task="doc_id", candidate="prediction",
                                         reference="ref", human=["relevance"], system="model")
        self.assertEqual(len(ds.tasks), 20)
        self.assertEqual(ds.num_candidates(), len(self.df))
        self.assertEqual(ds.dimensions(), ["relevance"])
        self.assertEqual(ds.tasks[0].candidates[0].id, self.df.loc[0, "model"])

        scores = probity.score_dataset(ds, ["bleu", "chrf"])
        frame = scores.to_pandas()
        self.assertEqual(list(frame.columns), ["task_id", "candidate_id", "bleu", "chrf"])
        self.assertEqual(len(frame), len(self.df))

        # The CLI on the same rows: a CSV written by pandas, read through the same column map.
        csv = os.path.join(self.tmp.name, "rows.csv")
        self.df.to_csv(csv, index=False)
        out = os.path.join(self.tmp.name, "scores.jsonl")
        proc = run_cli("score", "--data", csv, "--map", COLUMNS, "--metric", "bleu",
                       "--metric", "chrf", "--out", out)
        self.assertIn("lang", proc.stderr)  # the ignored column is named in a note
        cli = {(r["task_id"], r["candidate_id"], r["metric"]): r["score"]
               for r in read_jsonl(out) if "metric" in r}
        self.assertEqual(len(cli), 2 * len(self.df))
        for row in frame.itertuples(index=False):
            for metric in ("bleu", "chrf"):
                expected = cli[(row.task_id, row.candidate_id, metric)]
                self.assertTrue(math.isclose(getattr(row, metric), expected, rel_tol=1e-12,
                                             abs_tol=1e-12), (row, metric, expected))

        # And back: the dataset as a table holds the rows it was built from.
        back = ds.to_pandas()
        self.assertEqual(list(back["candidate"]), list(self.df["prediction"]))
        self.assertEqual(list(back["reference"]), list(self.df["ref"]))
        self.assertEqual(list(back["human:relevance"]), list(self.df["relevance"]))

    def test_dataframe_with_default_names_goes_straight_in(self):
        df = self.df.rename(columns={"doc_id": "task_id", "model": "system",
                                     "prediction": "candidate", "ref": "reference",
                                     "relevance": "human:relevance"})
        direct = probity.score_dataset(df, ["bleu"])
        built = probity.score_dataset(
            probity.Dataset.from_pandas(self.df, task="doc_id", candidate="prediction",
                                        reference="ref", human=["relevance"], system="model"),
            ["bleu"])
        self.assertEqual(direct.item_ids, built.item_ids)
        self.assertEqual(list(direct["bleu"]), list(built["bleu"]))

    def test_dataframe_without_default_names_says_what_to_do(self):
        with self.assertRaises(TypeError) as ctx:
            probity.score_dataset(self.df, ["bleu"])
        self.assertIn("Dataset.from_pandas", str(ctx.exception))
        self.assertIn("prediction", str(ctx.exception))  # lists the columns it has
        with self.assertRaises(TypeError):
            probity.score_dataset(42, ["bleu"])
        with self.assertRaises(probity.UsageError) as ctx:
            probity.Dataset.from_pandas(self.df, candidate="text")
        self.assertIn("'text'", str(ctx.exception))

    def test_records_and_their_errors(self):
        records = [{"id": "q1", "prediction": "a cat", "references": ["the cat", "a cat"],
                    "score": 1},
                   {"id": "q1", "prediction": "dogs", "references": ["the cat", "a cat"],
                    "score": None},
                   {"id": "q2", "prediction": "x", "references": ["y"], "score": float("nan")}]
        ds = probity.Dataset.from_records(records, task="id", candidate="prediction",
                                          reference="references", human={"quality": "score"})
        self.assertEqual([t.task_id for t in ds.tasks], ["q1", "q2"])
        self.assertEqual([c.id for c in ds.tasks[0].candidates], ["c1", "c2"])
        self.assertEqual(len(ds.tasks[0].references), 2)
        self.assertEqual(ds.tasks[0].candidates[0].human, {"quality": [1.0]})
        self.assertEqual(ds.tasks[0].candidates[1].human, {})
        records[2]["score"] = "great"
        with self.assertRaises(probity.InputError) as ctx:
            probity.Dataset.from_records(records, task="id", candidate="prediction",
                                         reference="references", human="score", name="hf")
        e = ctx.exception
        self.assertEqual((e.file, e.line, e.field), ("hf", 3, "score"))
        ds = probity.Dataset.from_records(records, task="id", candidate="prediction",
                                          human="score", skip_invalid=True)
        self.assertEqual(ds.num_candidates(), 2)
        self.assertEqual(ds.skipped[0].line, 3)

    def test_load_dataset_with_a_map(self):
        path = os.path.join(self.tmp.name, "flat.tsv")
        self.df.to_csv(path, sep="\t", index=False)
        with self.assertRaises(probity.InputError) as ctx:
            probity.load_dataset(path)
        self.assertIn("--map", str(ctx.exception))
        ds = probity.load_dataset(path, map=COLUMNS)
        self.assertEqual(ds.num_candidates(), len(self.df))

    def test_audit_report_tables_and_html(self):
        ds = probity.Dataset.from_pandas(self.df, task="doc_id", candidate="prediction",
                                         reference="ref", human=["relevance"], system="model")
        report = probity.audit(ds, ["bleu"], degrade="R", manipulate="none", bootstrap=50,
                               sample=100)
        self.assertIsInstance(report, probity.AuditReport)
        self.assertIsInstance(report, dict)
        tests = report.to_pandas()
        self.assertEqual(list(tests["metric"]), ["bleu"])
        self.assertEqual(list(tests["code"]), ["R"])
        corr = report.to_pandas("correlations")
        self.assertIn("relevance", set(corr["dimension"]))
        self.assertIn("spearman", corr.columns)
        html = report._repr_html_()
        self.assertIn("<table>", html)
        self.assertIn("bleu", html)
        self.assertIn("Spearman", html)
        self.assertIn("D:R", html)
        with self.assertRaises(probity.UsageError):
            report.to_pandas("nope")


if __name__ == "__main__":
    unittest.main()

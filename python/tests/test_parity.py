"""The Python module and the probity CLI give identical numbers on the same inputs."""

import json
import math
import pathlib
import tempfile
import unittest

import numpy as np

import probity
from support import (REPO, SAMPLE, arrays_equal, nulls_to_nan, read_jsonl, run_cli, same)

METRICS = ["bleu", "chrf", "rougeL", "gem", "stmt-tv"]
# Fields of report.json that depend on the run, not on the results.
RUN_FIELDS = ("seconds", "cache_hits", "cache_misses")


class ScoreParity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.scores_file = f"{cls.tmp.name}/scores.jsonl"
        args = ["score", "--data", SAMPLE, "--out", cls.scores_file]
        for m in METRICS:
            args += ["--metric", m]
        run_cli(*args)
        cls.records = read_jsonl(cls.scores_file)
        cls.ds = probity.load_dataset(SAMPLE)
        cls.scores = probity.score_dataset(cls.ds, METRICS)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_scores_identical(self):
        items = self.ds.items()
        index = {item: i for i, item in enumerate(items)}
        cli = {}
        signatures = {}
        # The file ends with a record of what it covers, not a score.
        self.assertIn("probity_scores", self.records[-1])
        self.assertEqual(self.records[-1]["probity_scores"]["records"], len(self.records) - 1)
        for r in self.records[:-1]:
            values = cli.setdefault(r["metric"], np.full(len(items), -1.0))
            score = r["score"]
            values[index[(r["task_id"], r["candidate_id"])]] = math.nan if score is None else score
            signatures[r["metric"]] = r["signature"]
        self.assertEqual(list(cli), list(self.scores))
        self.assertEqual(list(cli), ["bleu", "chrf", "rougeL.p", "rougeL.r", "rougeL.f", "gem",
                                     "stmt-tv"])
        for name, values in cli.items():
            with self.subTest(metric=name):
                self.assertEqual(self.scores[name].shape, (len(items),))
                self.assertTrue(arrays_equal(values, self.scores[name]))
                self.assertEqual(self.scores.signatures[name], signatures[name])

    def test_in_memory_lexical_scores_identical(self):
        texts, refs = self.ds.texts(), self.ds.references()
        for metric in ["bleu", "chrf", "rougeL.f"]:
            with self.subTest(metric=metric):
                self.assertTrue(arrays_equal(probity.score(metric, texts, refs),
                                             self.scores[metric]))
        parts = probity.score_parts("rougeL", texts, refs)
        self.assertEqual(list(parts), ["rougeL.p", "rougeL.r", "rougeL.f"])
        for name, values in parts.items():
            self.assertTrue(arrays_equal(values, self.scores[name]))

    def test_corpus_scores_match_cli_summary(self):
        proc = run_cli("score", "--data", SAMPLE, "--metric", "bleu", "--metric", "rougeL",
                       "--out", f"{self.tmp.name}/corpus.jsonl")
        summary = {}
        for line in proc.stdout.splitlines():
            # The sample has several systems: a row per system, then the pooled row.
            if "(pooled:" not in line:
                continue
            words = line.split()
            summary[words[0]] = float(words[words.index("corpus") + 1])
        streamed = probity.score_dataset(SAMPLE, ["bleu", "rougeL"])
        for name, value in summary.items():
            self.assertEqual(round(streamed.corpus[name], 4), value, name)
        texts, refs = self.ds.texts(), self.ds.references()
        self.assertEqual(round(probity.corpus_score("bleu", texts, refs), 4), summary["bleu"])
        self.assertEqual(round(probity.corpus_score("rougeL.p", texts, refs), 4),
                         summary["rougeL.p"])

    def test_correlate_identical(self):
        proc = run_cli("correlate", "--data", SAMPLE, "--scores", self.scores_file, "--json",
                       "--bootstrap", 200, "--seed", 3)
        cli = nulls_to_nan(json.loads(proc.stdout)["results"])
        py = probity.correlate(self.scores, self.ds, bootstrap=200, seed=3)
        self.assertEqual(len(cli), len(py))
        for a, b in zip(cli, py):
            with self.subTest(metric=a["metric"], dimension=a["dimension"]):
                self.assertTrue(same(a, b), (a, b))

    def test_correlate_one_dimension(self):
        proc = run_cli("correlate", "--data", SAMPLE, "--scores", self.scores_file, "--json",
                       "--metric", "chrf", "--dimension", "relevance", "--bootstrap", 100)
        cli = nulls_to_nan(json.loads(proc.stdout)["results"])
        py = probity.correlate({"chrf": self.scores["chrf"]}, self.ds, dimensions=["relevance"],
                               bootstrap=100)
        # The humans ceiling first (the sample has three experts per summary), then chrf.
        self.assertEqual(len(py), 2)
        self.assertEqual(py[0]["metric"], "humans")
        py[1]["signature"] = cli[1]["signature"]  # a plain dict carries no signatures
        self.assertTrue(same(cli, py), (cli, py))

    def test_compare_identical(self):
        proc = run_cli("compare", "--data", SAMPLE, "--scores", self.scores_file, "--json",
                       "--metric", "bleu", "--metric", "stmt-tv", "--permutations", 300,
                       "--seed", 5)
        cli = nulls_to_nan(json.loads(proc.stdout)["results"])
        py = probity.compare(self.scores, self.ds, metrics=["bleu", "stmt-tv"], permutations=300,
                             seed=5)
        self.assertTrue(same(cli, py), (cli, py))

    def test_metrics_listing_identical(self):
        cli = json.loads(run_cli("metrics", "--json").stdout)
        self.assertEqual(cli, probity.metrics())


class AuditParity(unittest.TestCase):
    def audit_both(self, cli_args, **kwargs):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            run_cli("audit", "--data", SAMPLE, "--out", a, *cli_args)
            with open(f"{a}/report.json", encoding="utf-8") as f:
                cli = json.load(f)
            py = probity.audit(str(SAMPLE), out=b, **kwargs)
            with open(f"{b}/report.json", encoding="utf-8") as f:
                written = json.load(f)
        return cli, py, written

    def assert_same_report(self, cli, py):
        for field in RUN_FIELDS:
            self.assertIn(field, cli)
            cli.pop(field)
            py.pop(field)
        self.assertEqual(list(cli), list(py))
        for key in cli:
            with self.subTest(field=key):
                self.assertTrue(same(cli[key], py[key]))

    def test_audit_identical(self):
        cli, py, written = self.audit_both(
            ["--metric", "bleu", "--metric", "rougeL", "--metric", "stmt-tv", "--bootstrap",
             200],
            metrics=["bleu", "rougeL", "stmt-tv"], bootstrap=200)
        self.assertEqual(py, written)
        self.assertEqual(len(py["tests"]), 3 * 12)
        self.assert_same_report(cli, py)

    def test_audit_options_identical(self):
        cli, py, _ = self.audit_both(
            ["--metric", "chrf", "--degrade", "S,D", "--manipulate", "none", "--sample", 150,
             "--seed", 7, "--bootstrap", 100, "--alpha", 0.01],
            metrics="chrf", degrade="S,D", manipulate="none", sample=150, seed=7, bootstrap=100,
            alpha=0.01)
        self.assertEqual([t["code"] for t in py["tests"]], ["S", "D"])
        self.assertEqual(py["datasets"][0]["audited"], 150)
        self.assert_same_report(cli, py)

    def test_audit_dimension_identical(self):
        cli, py, _ = self.audit_both(
            ["--metric", "chrf", "--dimension", "relevance", "--dimension", "fluency",
             "--degrade", "S", "--manipulate", "none", "--bootstrap", 50],
            metrics="chrf", dimensions=["relevance", "fluency"], degrade="S",
            manipulate="none", bootstrap=50)
        self.assertEqual(py["datasets"][0]["dimensions"], ["relevance", "fluency"])
        dims = {r["dimension"] for c in py["correlations"] for r in c["rows"]}
        self.assertEqual(dims, {"relevance", "fluency", "mean"})
        self.assert_same_report(cli, py)
        with self.assertRaisesRegex(probity.UsageError, "dimension 'nope' is not in"):
            probity.audit(str(SAMPLE), "chrf", dimensions="nope", degrade="none",
                          manipulate="none")

    def test_perturb_matches_audit_examples(self):
        report = probity.audit(str(SAMPLE), ["bleu"], bootstrap=10, seed=4)
        ds = probity.load_dataset(SAMPLE)
        index = {item: i for i, item in enumerate(ds.items())}
        self.assertEqual(len(report["examples"]), 12)
        for ex in report["examples"]:
            with self.subTest(kind=ex["kind"], code=ex["code"]):
                results = probity.perturb(ds, ex["kind"], ex["code"], seed=4)
                r = results[index[(ex["task_id"], ex["candidate_id"])]]
                self.assertEqual(r.status, "applied")
                self.assertEqual(r.text, ex["perturbed"])


if __name__ == "__main__":
    unittest.main()


class LevelParity(unittest.TestCase):
    """probity.level_statistic against mt-metrics-eval's values (tests/golden/meta_eval)."""

    def test_synthetic_levels_match_mt_metrics_eval(self):
        golden = json.loads((REPO / "tests" / "golden" / "meta_eval" /
                             "synthetic.json").read_text())
        names = {"pearson": "pearson", "spearman": "spearman", "kendall_b": "kendall",
                 "kendall_c": "kendall-c", "pairwise_accuracy": "pairwise-acc",
                 "kendall_acc23_opt": "acc-eq"}
        compared = 0
        for r in golden["results"]:
            if r["stat"] not in names or r["level"] not in ("item", "task", "system"):
                continue
            if r.get("system_rule", "paired") != "paired":
                continue
            case = golden["cases"][r["case"]]
            gold, metric, task, system = [], [], [], []
            for s, (grow, mrow) in enumerate(zip(case["gold"], case["metric"])):
                for i, (g, m) in enumerate(zip(grow, mrow)):
                    gold.append(g)
                    metric.append(m)
                    task.append(i)
                    system.append(s)
            got = probity.level_statistic(gold, metric, task, system=system, level=r["level"],
                                          statistic=names[r["stat"]])
            if r.get("groups_used", 1) == 0:
                self.assertTrue(math.isnan(got.value), r)
            else:
                self.assertAlmostEqual(got.value, r["value"], delta=1e-9, msg=str(r))
            if r["stat"] == "kendall_acc23_opt":
                self.assertEqual(got.epsilon, r["epsilon_exact"])
            compared += 1
        self.assertEqual(compared, 26)
        with self.assertRaises(ValueError):
            probity.level_statistic([1, 2], [1, 2], [0, 0], level="segment")

    def test_correlate_at_levels_gives_the_cli_rows(self):
        """probity.correlate(level=, statistic=) against `probity correlate --level --json` on
        the same scores: the same rows, baselines and bootstrap intervals."""
        ds = probity.load_dataset(str(SAMPLE))
        scores = probity.score_dataset(ds, ["chrf", "rougeL.f"], threads=1)
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "scores.jsonl"
            run_cli("score", "--data", SAMPLE, "--metric", "chrf", "--metric", "rougeL.f",
                    "--out", path)
            cli = json.loads(run_cli("correlate", "--data", SAMPLE, "--scores", path,
                                     "--level", "task", "--level", "system", "--statistic",
                                     "kendall", "--statistic", "acc-eq", "--bootstrap", "50",
                                     "--resample", "both", "--seed", "2", "--json").stdout)
        got = probity.correlate(scores, ds, level=["task", "system"],
                                statistic=["kendall", "acc-eq"], bootstrap=50, seed=2,
                                resample="both")
        self.assertEqual(len(got), len(cli["results"]))
        for mine, theirs in zip(got, cli["results"]):
            for key in ("metric", "baseline", "dimension", "level", "statistic", "resampled",
                        "n", "groups", "skipped_groups"):
                self.assertEqual(mine[key], theirs[key], (key, theirs))
            self.assertEqual(mine["value"], theirs["value"])
            # NaN in Python where the CLI writes null (the humans rows have no CI).
            self.assertTrue(same([mine["ci_lo"], mine["ci_hi"]],
                                 nulls_to_nan([theirs["ci_lo"], theirs["ci_hi"]])), theirs)
            if theirs["statistic"] == "acc-eq" and not theirs.get("humans"):
                self.assertEqual(mine["epsilon"], theirs["epsilon"])
        self.assertTrue(any(r["baseline"] for r in got))
        self.assertEqual(got[0]["metric"], "humans")
        with self.assertRaises(probity.UsageError):
            probity.correlate(scores, {"q": [1.0] * len(scores["chrf"])}, level="task")

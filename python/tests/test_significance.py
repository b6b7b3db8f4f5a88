"""probity.paired_test and probity.rouge_bootstrap against the reference tools' own numbers:
sacreBLEU 2.6.0's PairedTest (tests/golden/significance/paired.json) and rouge-score's
BootstrapAggregator after numpy.random.seed (tests/golden/significance/rouge_bootstrap.json);
probity.significance against the NumPy reference of the same tests on item means
(tests/golden/significance/any_metric.json) and against `probity significance --json`."""

import json
import math
import unittest

import probity
from support import REPO, SAMPLE, SUMMEVAL, run_cli

GOLDEN = REPO / "tests" / "golden" / "significance"


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


class PairedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cases = {c["name"]: c for c in
                     json.loads((GOLDEN / "paired.json").read_text(encoding="utf-8"))["cases"]}

    def check(self, name):
        c = self.cases[name]
        systems = [lines for _, lines in c["systems"]]
        refs = [list(r) for r in zip(*c["refs"])]
        got = probity.paired_test(systems, refs, metrics=list(c["results"]), test=c["test"],
                                  samples=c["n"], seed=c["seed"], threads=2)
        for metric, want in c["results"].items():
            self.assertIn(f"|{c['test']}:{c['n']}|seed:{c['seed']}|", got[metric]["signature"])
            for g, w in zip(got[metric]["systems"], want["systems"], strict=True):
                self.assertTrue(close(g["score"], w["score"]), (metric, g, w))
                self.assertEqual(g["p_value"], w["p_value"], (metric, g, w))
                for key in ("mean", "ci"):
                    if w[key] is None:
                        self.assertIsNone(g[key])
                    else:
                        self.assertTrue(close(g[key], w[key]), (metric, key, g, w))

    def test_bootstrap_equals_sacrebleu(self):
        self.check("summeval20_2refs_bs_seed7")

    def test_randomization_equals_sacrebleu(self):
        self.check("summeval20_2refs_ar_seed7")

    def test_errors(self):
        c = self.cases["one_item_bs"]
        systems = [lines for _, lines in c["systems"]]
        refs = c["refs"][0]
        with self.assertRaises(probity.UsageError):
            probity.paired_test(systems, refs, test="xx")
        with self.assertRaises(probity.UsageError):
            probity.paired_test(systems[:1], refs)
        # Any metric: ROUGE's item means (of its primary part, F).
        got = probity.paired_test(systems, refs, metrics=["rouge1"], samples=50)
        self.assertEqual(got["rouge1"]["aggregation"], "mean")
        self.assertTrue(close(got["rouge1"]["systems"][0]["score"],
                              probity.corpus_score("rouge1", systems[0], refs)))


class Significance(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        golden = json.loads((GOLDEN / "any_metric.json").read_text(encoding="utf-8"))
        cls.cases = {c["name"]: c for c in golden["cases"]}
        cls.scores = ("scores:" + str(REPO / "tests" / "golden" / "meta_eval" /
                                      "summeval_scores.jsonl")
                      + f",data={SUMMEVAL},metric=rougeL.f")

    def test_defaults_equal_the_numpy_reference(self):
        c = self.cases["rougeL_ar_holm"]
        got = probity.significance(str(SUMMEVAL), [self.scores], threads=2)
        self.assertEqual((got["test"], got["samples"], got["seed"], got["correction"]),
                         ("ar", 10000, 12345, "holm"))
        self.assertEqual(got["systems"], c["systems"])
        (m,) = got["metrics"]
        want = c["results"]
        for s, row in enumerate(m["systems"]):
            self.assertTrue(close(row["score"], want["systems"][s]["score"]))
            self.assertEqual(row["p_value"], want["systems"][s]["p_value"])
        self.assertEqual(m["clusters"]["p"], want["pairwise"])
        for a, b in zip(sum(m["clusters"]["p_adjusted"], []), sum(want["adjusted"], [])):
            self.assertTrue(a is None and b is None or close(a, b), (a, b))
        self.assertEqual([r["system"] for r in m["clusters"]["ranking"]],
                         [c["systems"][s] for s in want["order"]])
        self.assertEqual([r["rank"] for r in m["clusters"]["ranking"]],
                         [want["rank"][s] for s in want["order"]])

    def test_bootstrap_equals_the_numpy_reference(self):
        c = self.cases["rouge1_bs_holm_seed7"]
        got = probity.significance(SUMMEVAL, "rouge1.f", test="bs", samples=c["n"], seed=7)
        (m,) = got["metrics"]
        for row, want in zip(m["systems"], c["results"]["systems"], strict=True):
            for key in ("score", "mean", "ci"):
                self.assertTrue(close(row[key], want[key]), (key, row, want))
            self.assertEqual(row["p_value"], want["p_value"])
        self.assertEqual(m["clusters"]["p"], c["results"]["pairwise"])

    def test_equals_the_command_line(self):
        args = ["--paired-bs", "--paired-bs-n", "200", "--seed", "3", "--baseline", "M5",
                "--correction", "none"]
        cli = json.loads(run_cli("significance", "--data", SAMPLE, "-m", "rougeL.f", "-m",
                                 "chrf", *args, "--json").stdout)
        py = probity.significance(probity.load_dataset(str(SAMPLE)), ["rougeL.f", "chrf"],
                                  test="bs", samples=200, seed=3, baseline="M5",
                                  correction="none")
        cli.pop("data")
        py.pop("data")
        self.assertEqual(py, cli)

    def test_errors(self):
        with self.assertRaises(probity.UsageError):
            probity.significance(SAMPLE, "bleu", test="xx")
        with self.assertRaises(probity.UsageError):
            probity.significance(SAMPLE, "bleu", correction="bonferroni")
        with self.assertRaises(probity.UsageError):
            probity.significance(SAMPLE, "bleu", baseline="nobody")


class RougeBootstrap(unittest.TestCase):
    def test_equals_rouge_score_aggregator(self):
        golden = json.loads((GOLDEN / "rouge_bootstrap.json").read_text(encoding="utf-8"))
        text = (REPO / "tests" / "golden" / "lexical" / "sentence.jsonl").read_text(encoding="utf-8")
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
        (case,) = [c for c in golden["cases"] if c["name"] == "summeval300_stem_seed0"]
        hyps = [r["hyp"] for r in items[12:]]
        refs = [r["refs"][0] for r in items[12:]]
        got = probity.rouge_bootstrap(hyps, refs, types=[t + ",stem=true" for t in case["types"]],
                                      n_samples=case["n_samples"],
                                      confidence_interval=case["confidence_interval"],
                                      seed=case["seed"])
        for t in case["types"]:
            for bound in ("low", "mid", "high"):
                want = case["aggregate"][t][bound]
                have = got[t + ",stem=true"][bound]
                for k, name in enumerate(("precision", "recall", "fmeasure")):
                    self.assertTrue(close(have[name], want[k]), (t, bound, name))


if __name__ == "__main__":
    unittest.main()

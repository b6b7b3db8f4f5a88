"""probity.paired_test and probity.rouge_bootstrap against the reference tools' own numbers:
sacreBLEU 2.6.0's PairedTest (tests/golden/significance/paired.json) and rouge-score's
BootstrapAggregator after numpy.random.seed (tests/golden/significance/rouge_bootstrap.json)."""

import json
import math
import unittest

import probity
from support import REPO

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

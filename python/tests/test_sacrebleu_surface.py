"""sacreBLEU's surface beyond 13a BLEU and chrF, from Python: BLEU from raw statistics
(BLEU.compute_bleu), the zh/char/ja-mecab tokenizers, TER, chrF's eps_smoothing and corpus BLEU
with effective order, against the goldens written with sacreBLEU 2.6.0 (tests/golden/lexical)."""

import json
import math
import unittest

import probity
from support import REPO

GOLDEN = REPO / "tests" / "golden" / "lexical"


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


class BleuFromStats(unittest.TestCase):
    def test_corpus_statistics_give_sacrebleus_corpus_bleu(self):
        corpus = json.loads((GOLDEN / "corpus.json").read_text(encoding="utf-8"))
        for key in ("bleu_1ref", "bleu_allrefs"):
            g = corpus[key]
            r = probity.bleu_from_stats(g["counts"], g["totals"], g["sys_len"], g["ref_len"])
            self.assertTrue(close(r["score"], g["score"]), key)
            self.assertTrue(close(r["bp"], g["bp"]), key)
            for p, q in zip(r["precisions"], g["precisions"]):
                self.assertTrue(close(p, q), key)

    def test_degenerate_statistics_of_sacrebleus_tests(self):
        cases = json.loads((GOLDEN / "empty.json").read_text(encoding="utf-8"))["bleu_from_stats"]
        self.assertGreater(len(cases), 0)
        for c in cases:
            s = c["stats"]
            n = (len(s) - 2) // 2
            for key, kwargs in (("exp", {}), ("exp_effective_order", {"effective_order": True}),
                                ("floor", {"smooth_method": "floor", "smooth_value": 0.0})):
                r = probity.bleu_from_stats(s[2:2 + n], s[2 + n:], s[0], s[1], **kwargs)
                self.assertTrue(close(r["score"], c[key]["score"]), (key, s))
                self.assertTrue(close(r["bp"], c[key]["bp"]), (key, s))

    def test_bad_arguments(self):
        with self.assertRaises(probity.UsageError):
            probity.bleu_from_stats([1, 2], [3], 5, 5)
        with self.assertRaises(probity.UsageError):
            probity.bleu_from_stats([1], [3], 5, 5, smooth_method="magic")


class CjkTokenizers(unittest.TestCase):
    def test_corpus_bleu_with_zh_char_and_ja_mecab(self):
        g = json.loads((GOLDEN / "bleu_cjk.json").read_text(encoding="utf-8"))
        for key, values in g["bleu"].items():
            corpus_name, tok = key.split("/")
            corpus = g["corpora"][corpus_name]
            refs = [list(r) for r in zip(*corpus["refs"])]
            score = probity.corpus_score(f"bleu,tokenize={tok}", corpus["hyps"], refs)
            self.assertTrue(close(score, values["corpus"]["score"]), key)
            sentence = probity.score(f"bleu,tokenize={tok}", corpus["hyps"], refs)
            for got, want in zip(sentence, values["sentence"]):
                self.assertTrue(close(got, want["score"]), key)


class Ter(unittest.TestCase):
    def test_sacrebleus_test_ter_cases(self):
        g = json.loads((GOLDEN / "ter.json").read_text(encoding="utf-8"))
        for c in g["upstream"]["test_ter"]:
            refs = [[r] for r in c["refs"][0]]
            score = probity.corpus_score("ter", c["hyps"], refs)
            self.assertTrue(close(score, c["score"]), c["hyps"])
            self.assertLess(abs(score - 100 * c["expected"]), 1e-3)


class ChrfEpsAndBleuEffectiveOrder(unittest.TestCase):
    def test_chrf_eps_smoothing_corpus(self):
        g = json.loads((GOLDEN / "options.json").read_text(encoding="utf-8"))
        items = [it for it in g["items"] if it["source"] == "summeval"]
        score = probity.corpus_score("chrf,eps_smoothing=true", [it["hyp"] for it in items],
                                     [it["refs"][:1] for it in items])
        self.assertTrue(close(score, g["corpus"]["chrf_eps_1ref"]["score"]))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Writes tests/golden/lexical/empty.json: sacreBLEU's and rouge-score's own results for empty and
whitespace-only candidates and references.

Run once by a developer, with the reference tools' own code (none of it is in this project):

    python3 tests/golden/gen/empty_texts.py --sacrebleu /path/to/sacrebleu --rouge /path/to/rouge

--sacrebleu  the directory that holds the `sacrebleu` package of sacreBLEU 2.6.0:
             https://github.com/mjpost/sacrebleu, tag v2.6.0 = commit
             2277caccfc7b956671a6a09f1646f62250034157 (2026-01-12), e.g. `git archive v2.6.0`.
             A checkout has no sacrebleu/version.py (setuptools_scm writes it when the package is
             built); when it is missing, this script registers the module `sacrebleu.version` with
             the version of CHANGELOG.md's first release heading, the string setuptools_scm writes
             for that tag. Nothing else of sacreBLEU is replaced.
--rouge      Google's rouge-score: a directory holding the `rouge_score` package as PyPI's
             rouge-score 0.1.x installs it (its files carry no version; 0.1.2 is the last release),
             or the `rouge/` folder of https://github.com/google-research/google-research (imported
             as `rouge`; score_multi is required). The copy used for empty.json: the installed
             `rouge_score/` folder vendored in https://github.com/Qcompiler/MixQ_Tensorrt_LLM at
             commit 766cc5b277600216e392818e1747b7d051265a06, files headed "Copyright 2022 The
             rouge_score Authors", with score_multi. Its scoring code reads as google-research's
             rouge/rouge_scorer.py at 61ce9f0ca76025dac5b671c0631e443a9975a8a3 (but for
             score_multi), rouge/tokenizers.py at 30adf0ec5f35f9609c2f1d896005e184195d9146 and
             scoring.fmeasure at 10bf941a5a0625bf27bb8443aa849e9b48fdd5f9.

Dependencies, all Debian packages of bookworm, nothing stubbed: python3-numpy, python3-nltk (3.8;
rouge-score's use_stemmer=True is NLTK's PorterStemmer), python3-absl and python3-six (rouge-score);
python3-portalocker, python3-regex, python3-tabulate, python3-colorama and python3-lxml (imported
by sacreBLEU's package; the scoring path used here reads none of them).

Every upstream check listed in a case's "upstream" is recomputed with the upstream test's own call
and tolerance, and the script stops if the reference code does not reproduce it.
"""

import argparse
import importlib
import json
import math
import pathlib
import re
import sys
import types

SACREBLEU_VERSION = "2.6.0"


# --------------------------------------------------------------------------- reference code


def import_sacrebleu(root):
    root = pathlib.Path(root).resolve()
    if not (root / "sacrebleu" / "__init__.py").is_file():
        sys.exit(f"--sacrebleu {root}: no sacrebleu/__init__.py there")
    if not (root / "sacrebleu" / "version.py").is_file():
        changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
        m = re.search(r"^## (\d+\.\d+\.\d+)", changelog, re.M)
        if not m:
            sys.exit(f"--sacrebleu {root}: no sacrebleu/version.py and no release in CHANGELOG.md")
        version = types.ModuleType("sacrebleu.version")
        version.__version__ = version.version = m.group(1)
        sys.modules["sacrebleu.version"] = version
    sys.path.insert(0, str(root))
    sacrebleu = importlib.import_module("sacrebleu")
    loaded = pathlib.Path(sacrebleu.__file__).resolve()
    if root not in loaded.parents:
        sys.exit(f"sacrebleu was imported from {loaded}, not from {root}")
    if sacrebleu.__version__ != SACREBLEU_VERSION:
        sys.exit(f"sacreBLEU {sacrebleu.__version__} found, {SACREBLEU_VERSION} expected")
    return sacrebleu


def import_rouge(root):
    root = pathlib.Path(root).resolve()
    if (root / "rouge_score" / "rouge_scorer.py").is_file():
        parent, package = root, "rouge_score"
    elif (root / "rouge_scorer.py").is_file():
        parent, package = root.parent, root.name  # google-research's rouge/ imports itself as rouge
    else:
        sys.exit(f"--rouge {root}: neither rouge_score/rouge_scorer.py nor rouge_scorer.py there")
    sys.path.insert(0, str(parent))
    scorer = importlib.import_module(package + ".rouge_scorer")
    loaded = pathlib.Path(scorer.__file__).resolve()
    if root not in loaded.parents:
        sys.exit(f"rouge_scorer was imported from {loaded}, not from {root}")
    if not hasattr(scorer.RougeScorer, "score_multi"):
        sys.exit(f"{loaded}: RougeScorer has no score_multi (older than rouge-score 0.1.0)")
    header = re.search(r"^# (Copyright .*)$", loaded.read_text(encoding="utf-8"), re.M)
    scorer.provenance = (f"package {package}, rouge_scorer.py: "
                         + (header.group(1) if header else "no copyright line"))
    return scorer


# --------------------------------------------------------------------------- the cases

README_REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
README_SYS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]

SB = "sacreBLEU 2.6.0 "
RS = "rouge-score "


def replaced(seq, i, value):
    out = list(seq)
    out[i] = value
    return out


def build_cases():
    """(name, source, note, hyps, refs streams, upstream check names)."""
    cases = []

    def add(name, source, hyps, refs, note=None, upstream=()):
        cases.append({"name": name, "source": source, "note": note, "hyps": hyps, "refs": refs,
                      "upstream": list(upstream)})

    # sacreBLEU's suite
    add("sacrebleu_readme", SB + "README.md 'Using SacreBLEU from Python'; test/test_bleu.py::"
        "test_corpus_bleu (default settings)", README_SYS, README_REFS,
        upstream=["bleu_readme_default"])
    add("sacrebleu_all_empty_hyps", SB + "test/test_bleu.py::test_corpus_bleu "
        "('ensure that empty hypotheses are not removed')", ["", "", ""], README_REFS,
        note="every hypothesis is empty; the corpus keeps all three references' lengths",
        upstream=["bleu_all_empty_hyps"])
    add("sacrebleu_readme_variable_refs", SB + "README.md 'Variable Number of References'",
        README_SYS, [replaced(README_REFS[0], 0, ""), README_REFS[1]],
        note="sacreBLEU 2.6.0 drops only None references: the '' reference stays a reference of "
             "length 0 (the README's nrefs:var is what None gives)")
    add("sacrebleu_no_match", SB + "test/test_bleu.py::test_raw_bleu (#141: no n-gram matches)",
        ["this is a test", "another test"], [["ref1", "ref2"]], upstream=["raw_bleu_no_match"])
    add("sacrebleu_sentence_zero", SB + "test/test_sentence_bleu.py::test_api_sentence_bleu_zero "
        "(#141)", ["this is a cat"], [["okay thanks"]], upstream=["sentence_bleu_zero"])
    for ref in ["b", "ref", "reference"]:
        ups = ["chrf_beta3_eps:" + ref]
        if ref == "reference":
            ups.append("chrf_beta3_effective:" + ref)
        add("sacrebleu_chrf_empty_hyp_" + ref, SB + "test/test_chrf.py::test_chrf" +
            (", test_chrf_eff_order" if ref == "reference" else ""), [""], [[ref]], upstream=ups)
    add("sacrebleu_chrf_empty_hyp_c", SB + "test/test_chrf.py::test_chrf_eff_order", [""], [["c"]],
        upstream=["chrf_beta3_effective:c"])
    add("sacrebleu_chrf_extra_whitespace", SB + "test/test_chrf.py::test_chrf (leading, repeated "
        "and trailing spaces)",
        [" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
        [["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."]],
        upstream=["chrf_beta3_eps_whitespace"])
    add("sacrebleu_ter_empty_hyp", SB + "test/test_ter.py::test_ter (corner case, empty "
        "hypothesis)", [""], [["a"]], upstream=["ter:empty_hyp"])
    add("sacrebleu_ter_empty_ref", SB + "test/test_ter.py::test_ter (corner case, empty reference)",
        ["a"], [[""]], upstream=["ter:empty_ref"])
    add("sacrebleu_ter_both_empty", SB + "test/test_ter.py::test_ter (corner case, both empty)",
        [""], [[""]], upstream=["ter:both_empty"])

    # rouge-score's suite (score(target, prediction): the target is the reference)
    add("rouge_empty_prediction", RS + "rouge_scorer_test.py::RougeScorerTest::testRougeEmpty",
        [""], [["testing one two"]], upstream=["rouge_empty"])
    add("rouge_lsum_empty_prediction", RS + "rouge_scorer_test.py::RougeScorerTest::testRougeLsum "
        "(empty case)", [""], [["w1 w2 w3 w4 w5"]], upstream=["rouge_lsum:empty_prediction"])
    add("rouge_lsum_empty_target", RS + "rouge_scorer_test.py::RougeScorerTest::testRougeLsum "
        "(empty target)", ["w1"], [[""]], upstream=["rouge_lsum:empty_target"])
    add("rouge_lsum_non_word_prediction", RS + "rouge_scorer_test.py::RougeScorerTest::"
        "testRougeLsum (summary of non-word characters only)", ["/"], [["w1 w2 w3 w4 w5"]],
        note="BLEU and chrF see a token '/'; rouge-score's tokenizer drops it",
        upstream=["rouge_lsum:non_word_prediction"])
    add("rouge_lsum_all_tokens_dropped", RS + "rouge_scorer_test.py::RougeScorerTest::"
        "testSummaryLevelLcs ('Tokenizer may drop all tokens, resulting in empty candidate list')",
        ["/"], [["reference"]],
        note="the prediction is one sentence whose tokens are all dropped: _summary_level_lcs("
             "[['reference']], [[]])", upstream=["rouge_summary_level_lcs_empty"])

    # added
    for i in range(3):
        for label, value in [("empty", ""), ("spaces", "   ")]:
            add(f"readme_hyp{i + 1}_{label}", "added", replaced(README_SYS, i, value), README_REFS,
                note=f"sacreBLEU's README example, hypothesis {i + 1} replaced by {value!r}; the "
                     "item stays in the corpus with its references")
    add("all_whitespace_hyps", "added", ["   ", "\t", " \n "], README_REFS,
        note="every hypothesis is whitespace only")
    add("empty_ref_in_stream", "added", README_SYS,
        [["The dog bit the man.", "", "The man bit him first."]],
        note="one reference stream with an empty reference")
    add("whitespace_only_refs", "added", README_SYS,
        [["   ", "It was not unexpected.", "\t \n"],
         ["The dog had bit the man.", "  ", "The man had bitten the dog."]],
        note="whitespace-only references in both streams; item 3 has one real reference")
    add("whitespace_ref_whitespace_hyp", "added", ["   ", "a b c", "\n"], [["\t", "   ", ""]],
        note="whitespace or empty on both sides")
    add("unicode_whitespace_hyps", "added",
        ["\u00a0", "\u3000\u2003", "\u0085\u2028", "\x0b\x0c\x1c\x1d\x1e\x1f", "\u200b",
         "\u00a0The\u00a0dog\u00a0bit\u00a0the\u00a0man.\u00a0"],
        [["The dog bit the man."] * 6],
        note="Python's whitespace (str.split, str.rstrip): NBSP, ideographic and em space, NEL, "
             "LINE SEPARATOR, VT, FF and the separators \\x1c-\\x1f are whitespace; ZERO WIDTH "
             "SPACE U+200B is not")
    add("unicode_whitespace_refs", "added", ["The dog bit the man."] * 3,
        [["\u00a0", "\u3000", "\x1c\x1f"], ["The dog bit the man.", "\u200b", "\u2028"]],
        note="references of Unicode or control whitespace only (U+200B is a character)")
    add("multi_sentence_mix", "added",
        ["The cat sat on the mat.\nIt was happy.\n\nThen it slept.",
         "",
         "   ",
         "A dog barked loudly at the mailman.",
         "\n\n",
         "... !!! ???",
         "First line.\r\nSecond line.\n   \nThird line."],
        [["The cat sat on the mat.\nThe cat was happy and then slept.",
          "Nothing happened.",
          "  \n  ",
          "The dog barked at the mailman.",
          "Something.",
          "Nothing to say.",
          "First line.\nSecond line.\nThird line."],
         ["A cat sat on a mat. It was content, then slept.",
          "",
          "Something happened.",
          "A dog was barking.",
          "\n",
          "...",
          "First line. Second line. Third line."]],
        note="a multi-sentence hypothesis (rougeLsum splits on \\n, drops empty lines, keeps "
             "whitespace-only ones as sentences without tokens) among empty, whitespace-only, "
             "newline-only and punctuation-only texts")
    return cases


# --------------------------------------------------------------------------- computation


def bleu_dict(s):
    return {
        "score": float(s.score),
        "counts": [int(x) for x in s.counts],
        "totals": [int(x) for x in s.totals],
        "precisions": [float(x) for x in s.precisions],
        "bp": float(s.bp),
        "sys_len": int(s.sys_len),
        "ref_len": int(s.ref_len),
    }


def rouge_dict(scores):
    return {k: {"precision": v.precision, "recall": v.recall, "fmeasure": v.fmeasure}
            for k, v in scores.items()}


class Reference:
    def __init__(self, sacrebleu, rouge_scorer):
        from sacrebleu.metrics import BLEU, CHRF, TER
        self.sb = sacrebleu
        self.rs = rouge_scorer
        self.BLEU, self.CHRF, self.TER = BLEU, CHRF, TER
        types_ = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
        self.rouge = rouge_scorer.RougeScorer(types_, use_stemmer=False)
        self.rouge_stem = rouge_scorer.RougeScorer(types_, use_stemmer=True)

    def corpus(self, hyps, refs):
        out = {}
        for label, streams in [("allrefs", refs), ("1ref", refs[:1])]:
            compat = self.sb.corpus_bleu(hyps, streams)
            bleu = self.BLEU()
            score = bleu.corpus_score(hyps, streams)
            assert score.score == compat.score and score.counts == compat.counts
            out["bleu_" + label] = bleu_dict(score)
            out["signature_bleu_" + label] = str(bleu.get_signature())
            for key, word_order in [("chrf2", 0), ("chrf2pp", 2)]:
                chrf = self.CHRF(word_order=word_order)
                cs = chrf.corpus_score(hyps, streams)
                assert cs.score == self.sb.corpus_chrf(hyps, streams, word_order=word_order).score
                out[f"{key}_{label}"] = float(cs.score)
                out[f"signature_{key}_{label}"] = str(chrf.get_signature())
        return out

    def segment(self, hyp, seg_refs):
        out = {"hyp": hyp, "refs": seg_refs}
        for label, rs in [("1ref", seg_refs[:1]), ("allrefs", seg_refs)]:
            out["sentence_bleu_" + label] = bleu_dict(self.sb.sentence_bleu(hyp, rs))
            for key, word_order in [("chrf2", 0), ("chrf2pp", 2)]:
                chrf = self.CHRF(word_order=word_order)
                s = chrf.sentence_score(hyp, rs).score
                assert s == self.sb.sentence_chrf(hyp, rs, word_order=word_order).score
                out[f"{key}_{label}"] = float(s)
                if label == "allrefs":
                    # sacreBLEU's own statistics of the item, [hyp, ref, match] per order (the
                    # character orders, then the word orders), as sentence_score extracts them
                    stats = chrf._extract_corpus_statistics([hyp], [[r] for r in rs])[0]
                    assert chrf._compute_score_from_stats(stats).score == s
                    out[f"{key}_stats_{label}"] = [int(x) for x in stats]
        out["rouge_1ref"] = rouge_dict(self.rouge.score(seg_refs[0], hyp))
        out["rouge_stem_1ref"] = rouge_dict(self.rouge_stem.score(seg_refs[0], hyp))
        out["rouge_allrefs"] = rouge_dict(self.rouge.score_multi(seg_refs, hyp))
        out["rouge_stem_allrefs"] = rouge_dict(self.rouge_stem.score_multi(seg_refs, hyp))
        return out

    # The upstream tests' own calls, expected values and tolerances. Each returns a list of
    # {"test", "call", "expected", "tolerance", "value"} and checks it.
    def upstream(self, name, hyps, refs):
        sb, rs = self.sb, self.rs
        checks = []

        def check(test, call, expected, value, tolerance, ok):
            if not ok:
                sys.exit(f"upstream check failed: {test}: {call} = {value!r}, "
                         f"expected {expected!r}")
            checks.append({"test": test, "call": call, "expected": expected,
                           "tolerance": tolerance, "value": value})

        def absdiff(test, call, expected, value, eps):
            check(test, call, expected, value, f"abs < {eps!r}", abs(value - expected) < eps)

        def places(test, call, expected, value, n):
            # absltest.assertAlmostEqual(first, second, places=n)
            check(test, call, expected, value, f"round(diff, {n}) == 0",
                  round(abs(value - expected), n) == 0)

        kind, _, arg = name.partition(":")
        t_bleu = "sacrebleu test/test_bleu.py::"
        t_chrf = "sacrebleu test/test_chrf.py::"
        t_rs = "rouge-score rouge_scorer_test.py::RougeScorerTest::"
        if kind == "bleu_readme_default":
            absdiff(t_bleu + "test_corpus_bleu", "sacrebleu.corpus_bleu(hyps, refs).score",
                    48.530827, sb.corpus_bleu(hyps, refs).score, 1e-8)
        elif kind == "bleu_all_empty_hyps":
            absdiff(t_bleu + "test_corpus_bleu", "sacrebleu.corpus_bleu(hyps, refs).score",
                    0.0, sb.corpus_bleu(hyps, refs).score, 1e-8)
        elif kind == "raw_bleu_no_match":
            absdiff(t_bleu + "test_raw_bleu", "sacrebleu.raw_corpus_bleu(hyps, refs, .01).score "
                    "/ 100", 0.0, sb.raw_corpus_bleu(hyps, refs, .01).score / 100, 1e-8)
        elif kind == "sentence_bleu_zero":
            for method, value in [("exp", None), ("none", None), ("floor", None), ("floor", 0.1),
                                  ("add-k", None), ("add-k", 1)]:
                metric = self.BLEU(lowercase=False, force=False, tokenize="13a",
                                   smooth_method=method, smooth_value=value, effective_order=True)
                absdiff("sacrebleu test/test_sentence_bleu.py::test_api_sentence_bleu_zero",
                        f"BLEU(tokenize='13a', smooth_method={method!r}, smooth_value={value!r}, "
                        "effective_order=True).sentence_score(hyps[0], [refs[0][0]]).score",
                        0.0, metric.sentence_score(hyps[0], [refs[0][0]]).score, 1e-3)
        elif kind in ("chrf_beta3_eps", "chrf_beta3_effective", "chrf_beta3_eps_whitespace"):
            eps = kind != "chrf_beta3_effective"
            expected = 64.1302698 if kind == "chrf_beta3_eps_whitespace" else 0.0
            test = "test_chrf" if eps else "test_chrf_eff_order"
            absdiff(t_chrf + test, "sacrebleu.corpus_chrf(hyps, refs, char_order=6, word_order=0, "
                    f"beta=3, eps_smoothing={eps}).score", expected,
                    sb.corpus_chrf(hyps, refs, char_order=6, word_order=0, beta=3,
                                   eps_smoothing=eps).score, 1e-4)
        elif kind == "ter":
            expected = {"empty_hyp": 1, "empty_ref": 1, "both_empty": 0}[arg]
            absdiff("sacrebleu test/test_ter.py::test_ter",
                    "TER().corpus_score(hyps, refs).score (expected: 100 * the test's value)",
                    100.0 * expected, self.TER().corpus_score(hyps, refs).score, 1e-3)
        elif kind == "rouge_empty":
            for t in ["rouge1", "rouge2", "rougeL", "rougeLsum"]:
                s = rs.RougeScorer([t]).score(refs[0][0], hyps[0])[t]
                for field in ["precision", "recall", "fmeasure"]:
                    places(t_rs + "testRougeEmpty", f"RougeScorer([{t!r}]).score(refs[0][0], "
                           f"hyps[0])[{t!r}].{field}", 0, getattr(s, field), 7)
        elif kind == "rouge_lsum":
            s = rs.RougeScorer(["rougeLsum"]).score(refs[0][0], hyps[0])["rougeLsum"]
            for field in ["fmeasure", "recall", "precision"]:
                places(t_rs + "testRougeLsum", "RougeScorer(['rougeLsum']).score(refs[0][0], "
                       f"hyps[0])['rougeLsum'].{field}", 0.0, getattr(s, field), 3)
        elif kind == "rouge_summary_level_lcs_empty":
            value = rs._summary_level_lcs([["reference"]], [[]]).recall
            check(t_rs + "testSummaryLevelLcs", "rouge_scorer._summary_level_lcs([['reference']], "
                  "[[]]).recall", 0.0, value, "==", value == 0.0)
        else:
            raise KeyError(name)
        return checks

    def degenerate_stats(self):
        """sacreBLEU's test_bleu.py::test_degenerate_statistics: BLEU.compute_bleu on statistics
        with no matches or no n-grams (floor smoothing with the test's offset), and the same
        statistics under the defaults of corpus_bleu (exp) and sentence_bleu (exp, effective
        order)."""
        cases = [(([0, 0, 0, 0], [4, 4, 2, 1]), 0, 1, 0.0),
                 (([0, 0, 0, 0], [10, 11, 12, 0]), 14, 10, 0.0),
                 (([0, 0, 0, 0], [0, 0, 0, 0]), 0, 0, 0.0),
                 (([6, 5, 4, 0], [6, 5, 4, 3]), 6, 6, 0.0),
                 (([0, 0, 0, 0], [0, 0, 0, 0]), 0, 0, 0.1),
                 (([0, 0, 0, 0], [0, 0, 0, 0]), 1, 5, 0.01)]
        out = []
        for (correct, total), sys_len, ref_len, offset in cases:
            def run(method, value, eff):
                return self.BLEU.compute_bleu(list(correct), list(total), sys_len, ref_len,
                                              smooth_method=method, smooth_value=value,
                                              effective_order=eff)
            floor = run("floor", offset, False)
            if floor.score / 100 != 0.0:
                sys.exit(f"upstream check failed: test_degenerate_statistics {correct} {total}")
            out.append({
                "source": SB + "test/test_bleu.py::test_degenerate_statistics",
                "stats": [sys_len, ref_len] + correct + total,
                "floor_offset": offset,
                "expected_floor_score": 0.0,
                "floor": bleu_dict(floor),
                "exp": bleu_dict(run("exp", None, False)),
                "exp_effective_order": bleu_dict(run("exp", None, True)),
            })
        return out


def finite(obj, where="empty.json"):
    if isinstance(obj, float) and not math.isfinite(obj):
        sys.exit(f"{where}: non-finite value {obj!r}")
    if isinstance(obj, dict):
        for k, v in obj.items():
            finite(v, f"{where}.{k}")
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            finite(v, f"{where}[{i}]")


def main():
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True, help="directory holding the sacrebleu package")
    ap.add_argument("--rouge", required=True,
                    help="directory holding rouge_score/, or google-research's rouge/")
    ap.add_argument("--out", default=str(here.parent / "lexical" / "empty.json"))
    args = ap.parse_args()

    sacrebleu = import_sacrebleu(args.sacrebleu)
    rouge_scorer = import_rouge(args.rouge)
    import nltk
    if not nltk.__version__.startswith("3.8"):
        print(f"warning: NLTK {nltk.__version__}; the project's goldens use NLTK 3.8's Porter",
              file=sys.stderr)
    ref = Reference(sacrebleu, rouge_scorer)

    cases = []
    names = set()
    for c in build_cases():
        hyps, refs = c["hyps"], c["refs"]
        assert c["name"] not in names, c["name"]
        names.add(c["name"])
        assert all(len(stream) == len(hyps) for stream in refs), c["name"]
        case = {"name": c["name"], "source": c["source"], "hyps": hyps, "refs": refs}
        if c["note"]:
            case["note"] = c["note"]
        case["corpus"] = ref.corpus(hyps, refs)
        case["segments"] = [ref.segment(h, [stream[i] for stream in refs])
                            for i, h in enumerate(hyps)]
        checks = [x for u in c["upstream"] for x in ref.upstream(u, hyps, refs)]
        if checks:
            case["upstream"] = checks
        cases.append(case)

    doc = {
        "about": "sacreBLEU and rouge-score on empty and whitespace-only texts, computed with the "
                 "reference tools' own code by tests/golden/gen/empty_texts.py. refs: sacreBLEU's "
                 "layout, a list of reference streams (refs[k][i] is reference k of item i). "
                 "corpus: sacrebleu.corpus_bleu and CHRF(word_order=0|2).corpus_score defaults, "
                 "with all streams (allrefs) and the first (1ref). segments[i]: item i in the "
                 "layout of sentence.jsonl (sacrebleu.sentence_bleu defaults: exp smoothing, "
                 "effective order, 13a; sentence chrF2/chrF2++ and, for all references, "
                 "sacreBLEU's chrF statistics of the item, [hyp, ref, match] per order, which "
                 "corpus chrF sums; rouge-score target = first reference (1ref) or score_multi "
                 "over all (allrefs), use_stemmer False/True). bleu_from_stats: "
                 "BLEU.compute_bleu on sacreBLEU's stats layout [sys_len, ref_len, counts..., "
                 "totals...]. "
                 "upstream: the upstream test the case mirrors, recomputed with its own call.",
        "tools": {"sacrebleu": sacrebleu.__version__, "nltk": nltk.__version__,
                  "rouge_score": rouge_scorer.provenance},
        "cases": cases,
        "bleu_from_stats": ref.degenerate_stats(),
    }
    finite(doc)
    text = json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    pathlib.Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {len(cases)} cases, "
          f"{sum(len(c['segments']) for c in cases)} segments")


if __name__ == "__main__":
    main()

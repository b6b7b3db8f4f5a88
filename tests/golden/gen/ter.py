#!/usr/bin/env python3
"""Writes tests/golden/lexical/ter.json: sacreBLEU 2.6.0's TER (sacrebleu.metrics.TER and its
TercomTokenizer) with every combination of its options.

Run once by a developer, with sacreBLEU's own code (none of it is in this project):

    python3 tests/golden/gen/ter.py --sacrebleu DIR --data data/summeval/summeval_sample20.jsonl

--sacrebleu as for gen/empty_texts.py (whose loader this script uses). Contents:
  "upstream": the cases of sacreBLEU's test/test_ter.py (corpus TER, default options) and
    test/test_tokenizer_ter.py (tokenizer outputs), recomputed;
  "tokenizer": 1,500 random texts (random.Random(29)) from pieces the Tercom normalisation treats
    differently (ASCII punctuation, 's, digits with periods, commas and dashes, entities,
    newlines, Han, kana, CJK and full-width punctuation, upper case beyond ASCII), each with the
    tokenizer's output under the 16 combinations of normalized, no_punct, asian_support and
    case_sensitive (key "nNpPaAcC": upper case = on);
  "segments": hypothesis/references items (every 4th SummEval candidate with its first 1 and 3
    references;
    150 random word sequences from small vocabularies with shifted blocks, up to 140 words, and
    length ratios beyond 50 so that the shift limits, the beam width and the 1,000-candidate cap
    matter; test_ter.py's sentences; CJK sentences), each with sacreBLEU's segment statistics
    [num_edits, avg_ref_len] and sentence score for 4 option combinations (the random word
    sequences, which have no case or punctuation, for the default options only);
  "corpora": corpus TER (score, num_edits, ref_length) of the first 20 SummEval items under the
    16 option combinations and of the random items with the default options, with sacreBLEU's
    signature.
"""

import argparse
import itertools
import json
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from empty_texts import import_sacrebleu  # noqa: E402

PIECES = (["the", "Cat", "Jim's", "it's", "'s", "s'", "don't", "x", "ÉTÉ", "Σίσυφος", "İ", "2014",
           "3", "4.2", "1,000", "5.", ".5", "9-9", "a-b", "-", ".", ",", "..", "?", "!", ":", ";",
           "\"", "(", ")", "[", "]", "{", "}", "<", ">", "/", "@", "&", "&amp;", "&quot;",
           "&lt;", "&gt;", "'", "`", "~", "$", "%", "*", "+", "=", "\\", "^", "_", "|"] * 2
          + [" "] * 40 + ["\n", "\n-", "-\n", "\t", "\u00a0", "\u3000"]
          + ["美众院公布对特", "りの拳銃を持", "ひらがな", "カタカナ", "ㇰ", "⺀", "㌀", "豈", "︰",
             "㈀", "㼢", "㼣", "、", "。", "〈", "】", "〔", "〟", "｡", "･", "・", "．", "，",
             "？", "：", "；", "！", "＂", "（", "）", "Ａ", "ﾀ", "中文", "한국어"])

OPTION_KEYS = ["normalized", "no_punct", "asian_support", "case_sensitive"]


def combo_key(flags):
    return "".join(k[0].upper() if on else k[0] for k, on in zip(["n", "p", "a", "c"], flags))


def combos():
    return list(itertools.product([False, True], repeat=4))


def random_words(rng, n, vocab):
    return " ".join(rng.choice(vocab) for _ in range(n))


def shifted_pair(rng):
    vocab = [f"w{i}" for i in range(rng.choice([3, 5, 8, 20, 60]))]
    n = rng.randint(0, 140)
    ref = [rng.choice(vocab) for _ in range(n)]
    hyp = list(ref)
    for _ in range(rng.randint(0, 6)):  # move blocks, substitute, insert, delete
        kind = rng.random()
        if kind < 0.5 and len(hyp) > 2:
            a = rng.randrange(len(hyp))
            b = min(len(hyp), a + rng.randint(1, 12))
            block = hyp[a:b]
            del hyp[a:b]
            t = rng.randint(0, len(hyp))
            hyp[t:t] = block
        elif kind < 0.7 and hyp:
            hyp[rng.randrange(len(hyp))] = rng.choice(vocab + ["zz"])
        elif kind < 0.85:
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        elif hyp:
            del hyp[rng.randrange(len(hyp))]
    return " ".join(hyp), " ".join(ref)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True)
    ap.add_argument("--data", required=True, help="data/summeval/summeval_sample20.jsonl")
    ap.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent
                                         / "lexical" / "ter.json"))
    args = ap.parse_args()
    import_sacrebleu(args.sacrebleu)
    from sacrebleu.metrics import TER
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    rng = random.Random(29)
    out = {"upstream": {}, "tokenizer": [], "segments": [], "corpora": {}}

    # test_ter.py and test_tokenizer_ter.py
    sys.path.insert(0, str(pathlib.Path(args.sacrebleu) / "test"))
    if "pytest" not in sys.modules:
        try:
            import pytest  # noqa: F401
        except ImportError:  # the test modules only need pytest.mark.parametrize to import
            import types
            pytest = types.ModuleType("pytest")
            pytest.mark = types.SimpleNamespace(parametrize=lambda *a, **k: (lambda f: f))
            sys.modules["pytest"] = pytest
    import test_ter
    import test_tokenizer_ter as ttt
    out["upstream"]["test_ter"] = []
    for hyps, refs, expected in test_ter.test_cases:
        s = TER().corpus_score(hyps, [refs])
        out["upstream"]["test_ter"].append({"hyps": hyps, "refs": [refs], "expected": expected,
                                            "score": s.score, "num_edits": s.num_edits,
                                            "ref_length": s.ref_length})
    out["upstream"]["test_tokenizer_ter"] = []
    for name, kwargs in [("test_cases_default", {}), ("test_cases_no_punct", {"no_punct": True}),
                         ("test_cases_norm", {"normalized": True}),
                         ("test_cases_asian", {"normalized": True, "asian_support": True})]:
        for text, expected in getattr(ttt, name):
            got = TercomTokenizer(**kwargs)(text)
            assert got == expected, (text, got, expected)
            out["upstream"]["test_tokenizer_ter"].append({"in": text, "options": kwargs,
                                                          "out": got})

    # tokenizer
    tokenizers = {combo_key(f): TercomTokenizer(**dict(zip(OPTION_KEYS, f))) for f in combos()}
    seen = set()
    while len(out["tokenizer"]) < 1500:
        limit = rng.randint(0, 50)
        text = ""
        while len(text) < limit:
            text += rng.choice(PIECES)
        if text in seen:
            continue
        seen.add(text)
        out["tokenizer"].append({"in": text, "out": {k: t(text) for k, t in tokenizers.items()}})

    # segments
    items = []  # (source, hyp, refs)
    with open(args.data, encoding="utf-8") as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    for t in tasks:
        refs = [r["text"] for r in t["references"]]
        for c in t["candidates"][::4]:
            items.append(("summeval", c["text"], refs[:3]))
            items.append(("summeval-1ref", c["text"], refs[:1]))
    for _ in range(150):
        hyp, ref = shifted_pair(rng)
        refs = [ref]
        if rng.random() < 0.3:
            refs.append(shifted_pair(rng)[1])
        items.append(("shifted", hyp, refs))
    for _ in range(10):  # beam widths beyond 25: references more than 50 times longer
        n = rng.randint(1, 3)
        ref = random_words(rng, n * rng.randint(51, 120), ["a", "b", "c", "d"])
        items.append(("long-ref", random_words(rng, n, ["a", "b", "c"]), [ref]))
    for _ in range(5):  # many shift candidates: long texts over two words
        items.append(("two-words", random_words(rng, 120, ["a", "b"]),
                      [random_words(rng, 110, ["a", "b"])]))
    for c in test_ter.test_cases:
        for h, r in zip(c[0], c[1]):
            items.append(("test_ter", h, [r]))
    cjk = [("美众院公布对特朗普的调查报告。", ["美国众议院公布了对特朗普的调查报告。"]),
           ("りの拳銃を持っていた", ["拳銃を持っていたりの"]),
           ("「東京」、大阪。", ["大阪、「東京」。", "東京と大阪"]),
           ("Ｈｅｌｌｏ，世界！", ["Hello, 世界!"])]
    items += [("cjk", h, r) for h, r in cjk]
    segment_combos = [(False, False, False, False), (True, False, False, False),
                      (True, True, True, False), (True, True, True, True)]
    metrics = {combo_key(f): TER(**dict(zip(OPTION_KEYS, f))) for f in segment_combos}
    for source, hyp, refs in items:
        seg = {"source": source, "hyp": hyp, "refs": refs, "stats": {}, "score": {}}
        for k, m in metrics.items():
            if source in ("shifted", "long-ref", "two-words") and k != "npac":
                continue  # words without case or punctuation: the options change nothing
            ref_info = m._extract_reference_info(refs)
            stats = m._compute_segment_statistics(m._preprocess_segment(hyp), ref_info)
            seg["stats"][k] = stats
            seg["score"][k] = m._compute_score_from_stats(stats).score  # = sentence_score
        out["segments"].append(seg)

    # corpora: SummEval candidates with all their references (sacreBLEU's streams), random items
    summ = [(h, r) for s, h, r in items if s == "summeval"]
    nref = min(len(r) for _, r in summ)
    corpora = {"summeval": ([h for h, _ in summ], [[r[k] for _, r in summ] for k in range(nref)]),
               "shifted": ([h for s, h, r in items if s == "shifted"],
                           [[r[0] for s, h, r in items if s == "shifted"]])}
    corpora["summeval"] = tuple(x[:20] for x in corpora["summeval"][:1]) + (
        [s[:20] for s in corpora["summeval"][1]],)
    for name, (hyps, streams) in corpora.items():
        out["corpora"][name] = {"hyps": hyps, "refs": streams, "scores": {}}
        for f in (combos() if name == "summeval" else [(False, False, False, False)]):
            m = TER(**dict(zip(OPTION_KEYS, f)))
            s = m.corpus_score(hyps, streams)
            out["corpora"][name]["scores"][combo_key(f)] = {
                "score": s.score, "num_edits": s.num_edits, "ref_length": s.ref_length,
                "signature": str(m.get_signature())}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
        f.write("\n")
    print(f"{args.out}: {len(out['tokenizer'])} texts, {len(out['segments'])} segments",
          file=sys.stderr)


if __name__ == "__main__":
    main()

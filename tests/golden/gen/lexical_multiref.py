#!/usr/bin/env python3
"""Writes tests/golden/lexical/multiref.jsonl: sacreBLEU's and rouge-score's per-item results for
one candidate against several references, including the same references in another order,
duplicated references, and empty or whitespace-only references mixed with others.

Run once by a developer, with the reference tools' own code (none of it is in this project):

    python3 tests/golden/gen/lexical_multiref.py --sacrebleu DIR --rouge DIR \\
        --data data/summeval/summeval.jsonl

--sacrebleu and --rouge as for gen/empty_texts.py (whose loaders this script uses): sacreBLEU
2.6.0 and Google's rouge-score with score_multi; NLTK 3.8 for the Porter stemmer.

One JSON object a line:
  name     the variant and the SummEval item (task index, candidate index) it comes from;
  hyp, refs
  bleu     sacreBLEU's item statistics with all references, as BLEU(effective_order=True)
           extracts them: [sys_len, ref_len, correct_1..4, total_1..4]; the sentence score;
  chrf2, chrf2pp
           CHRF(word_order=0 / 2) item statistics ([hyp, ref, match] per order, character orders
           then word orders: those of the reference with the best f-score, the first one on a
           tie) and the sentence score;
  rouge, rouge_stem
           RougeScorer(use_stemmer=False / True).score_multi(refs, hyp): precision, recall and
           fmeasure of rouge1, rouge2, rougeL and rougeLsum (the reference with the best F).
"""

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from empty_texts import import_rouge, import_sacrebleu  # noqa: E402


def variants(refs):
    """(name, references) of one item: orders, duplicates, empty and blank references."""
    r = refs
    return [
        ("all", r),
        ("reversed", r[::-1]),
        ("rotated", r[3:] + r[:3]),
        ("duplicates", [r[0], r[0], r[3], r[1], r[3]]),
        ("empty_first", [""] + r[:3]),
        ("empty_middle", [r[0], "", r[1]]),
        ("blank_middle", [r[2], "   ", r[0]]),
        ("empty_only", [""]),
        ("empty_twice", ["", ""]),
    ]


HANDMADE = [
    # sacreBLEU keeps an empty reference as one of length 0: it can be the closest length.
    ("short_hyp_empty_ref", "a", ["", "a b c"]),
    ("short_hyp_empty_ref_last", "a", ["a b c", ""]),
    # chrF: every reference scores f = 0; the first one (the empty one) is kept.
    ("chrf_tie_empty_first", "abc", ["", "xyz"]),
    ("chrf_tie_empty_last", "abc", ["xyz", ""]),
    ("empty_hyp_mixed_refs", "", ["", "a b", "  "]),
    ("same_refs_other_order_1", "the cat sat on the mat .", ["a cat sat on a mat .",
                                                             "the cat is on the mat ."]),
    ("same_refs_other_order_2", "the cat sat on the mat .", ["the cat is on the mat .",
                                                             "a cat sat on a mat ."]),
    ("equal_f_different_stats", "ab cd", ["ab", "cd"]),
    ("equal_f_different_stats_swapped", "ab cd", ["cd", "ab"]),
]


class Reference:
    def __init__(self, rouge_scorer):
        from sacrebleu.metrics import BLEU, CHRF
        self.bleu = BLEU(effective_order=True)
        self.chrf = {"chrf2": CHRF(word_order=0), "chrf2pp": CHRF(word_order=2)}
        types_ = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
        self.rouge = rouge_scorer.RougeScorer(types_, use_stemmer=False)
        self.rouge_stem = rouge_scorer.RougeScorer(types_, use_stemmer=True)

    def item(self, name, hyp, refs):
        streams = [[x] for x in refs]
        out = {"name": name, "hyp": hyp, "refs": refs}
        stats = self.bleu._extract_corpus_statistics([hyp], streams)[0]
        score = self.bleu.sentence_score(hyp, refs).score
        assert self.bleu._compute_score_from_stats(stats).score == score
        out["bleu"] = {"stats": [int(x) for x in stats], "score": float(score)}
        for key, chrf in self.chrf.items():
            stats = chrf._extract_corpus_statistics([hyp], streams)[0]
            score = chrf.sentence_score(hyp, refs).score
            assert chrf._compute_score_from_stats(stats).score == score
            out[key] = {"stats": [int(x) for x in stats], "score": float(score)}
        for key, scorer in [("rouge", self.rouge), ("rouge_stem", self.rouge_stem)]:
            out[key] = {k: [v.precision, v.recall, v.fmeasure]
                        for k, v in scorer.score_multi(refs, hyp).items()}
        return out


def main():
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True, help="directory holding the sacrebleu package")
    ap.add_argument("--rouge", required=True,
                    help="directory holding rouge_score/, or google-research's rouge/")
    ap.add_argument("--data", required=True, help="data/summeval/summeval.jsonl")
    ap.add_argument("--every", type=int, default=32,
                    help="take every n-th SummEval candidate (default 32: 50 items)")
    ap.add_argument("--out", default=str(here.parent / "lexical" / "multiref.jsonl"))
    args = ap.parse_args()

    import_sacrebleu(args.sacrebleu)
    rouge_scorer = import_rouge(args.rouge)
    import nltk
    if not nltk.__version__.startswith("3.8"):
        print(f"warning: NLTK {nltk.__version__}; the project's goldens use NLTK 3.8's Porter",
              file=sys.stderr)
    ref = Reference(rouge_scorer)

    items = []
    for name, hyp, refs in HANDMADE:
        items.append(ref.item(name, hyp, refs))
    tasks = [json.loads(line) for line in open(args.data, encoding="utf-8") if line.strip()]
    k = 0
    for t, task in enumerate(tasks):
        refs = [r["text"] for r in task["references"]]
        for c, cand in enumerate(task["candidates"]):
            if k % args.every == 0:
                for vname, vrefs in variants(refs):
                    items.append(ref.item(f"{vname} t{t} c{c}", cand["text"], vrefs))
            k += 1
    with open(args.out, "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    print(f"{args.out}: {len(items)} items", file=sys.stderr)


if __name__ == "__main__":
    main()

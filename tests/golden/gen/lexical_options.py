#!/usr/bin/env python3
"""Writes tests/golden/lexical/options.json: sacreBLEU 2.6.0's chrF with eps_smoothing=True and
rouge-score's ROUGE-N beyond 2 (rouge3 .. rouge9), on SummEval candidates and edge cases.

Run once by a developer, with the reference code (none of it is in this project):

    python3 tests/golden/gen/lexical_options.py --sacrebleu DIR --rouge DIR \\
        --data data/summeval/summeval_sample20.jsonl

--sacrebleu and --rouge as for gen/empty_texts.py (whose loaders this script uses; the rouge-score
copy: the `rouge_score/` files of Qcompiler/MixQ_Tensorrt_LLM at 766cc5b, as there). Items: every
4th candidate of each task with all its references, then edge cases (empty and whitespace-only
hypotheses and references, repeated n-grams, texts shorter than n). Per item:
  chrf_eps / chrfpp_eps: CHRF(eps_smoothing=True) (word_order 0 / 2) sentence_score with all
    references, and its statistics of the chosen reference;
  rougeN[_stem]: RougeScorer([rouge3..rouge9], use_stemmer).score_multi(refs, hyp) p/r/F.
Corpus: chrF and chrF++ with eps_smoothing=True over the SummEval items with the first reference
and with the first 3 references (items with at least 3), with signatures; corpus BLEU with
effective_order=True and False over the SummEval items (first reference) and over the edge cases
(first reference) and over SHORT (hypotheses of at most 3 tokens: no 4-grams in the corpus,
where the two differ), with signatures (eff:yes / eff:no).
"""

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from empty_texts import import_rouge, import_sacrebleu  # noqa: E402

EDGE = [
    ("", ["a b c d"]),
    ("a b c d", [""]),
    ("   ", ["a b c", "   "]),
    ("the cat the cat the cat", ["the cat the cat", "cat the cat the"]),
    ("a a a a a a a a a a", ["a a a a a a a a a a a a"]),
    ("one two", ["one two three four five six seven eight nine ten"]),
    ("one two three four five six seven eight nine ten", ["one two"]),
    ("Running runners ran quickly; the runner's runs.", ["runner running run quick", "ran"]),
    ("x y z", ["x y z"]),
    ("Die Größe ist schön", ["Die Gr e ist sch n"]),
]
ROUGE_N = [f"rouge{n}" for n in range(3, 10)]
SHORT = [("the cat sat", "the cat sat down"), ("a dog", "a dog barked"), ("hi", "hi there"),
         ("x y z", "x y w")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True)
    ap.add_argument("--rouge", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent
                                         / "lexical" / "options.json"))
    args = ap.parse_args()
    import_sacrebleu(args.sacrebleu)
    rouge_scorer = import_rouge(args.rouge)
    from sacrebleu.metrics import CHRF

    items = []
    with open(args.data, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            refs = [r["text"] for r in t["references"]]
            for c in t["candidates"][::4]:
                items.append({"source": "summeval", "hyp": c["text"], "refs": refs})
    items += [{"source": "edge", "hyp": h, "refs": r} for h, r in EDGE]

    chrf = CHRF(eps_smoothing=True)
    chrfpp = CHRF(word_order=2, eps_smoothing=True)
    scorers = {False: rouge_scorer.RougeScorer(ROUGE_N, use_stemmer=False),
               True: rouge_scorer.RougeScorer(ROUGE_N, use_stemmer=True)}
    for it in items:
        for key, m in [("chrf_eps", chrf), ("chrfpp_eps", chrfpp)]:
            it[key] = m.sentence_score(it["hyp"], it["refs"]).score
            ref_info = m._extract_reference_info(it["refs"])
            it[key + "_stats"] = m._compute_segment_statistics(it["hyp"], ref_info)
        for stem, sc in scorers.items():
            res = sc.score_multi(it["refs"], it["hyp"])
            for name in ROUGE_N:
                s = res[name]
                it[name + ("_stem" if stem else "")] = [s.precision, s.recall, s.fmeasure]

    summ = [it for it in items if it["source"] == "summeval"]
    multi = [it for it in summ if len(it["refs"]) >= 3]
    corpus = {}
    for label, sel, k in [("1ref", summ, 1), ("3refs", multi, 3)]:
        hyps = [it["hyp"] for it in sel]
        streams = [[it["refs"][j] for it in sel] for j in range(k)]
        for key, m in [("chrf_eps", CHRF(eps_smoothing=True)),
                       ("chrfpp_eps", CHRF(word_order=2, eps_smoothing=True))]:
            s = m.corpus_score(hyps, streams)
            corpus[f"{key}_{label}"] = {"score": s.score, "signature": str(m.get_signature()),
                                        "items": len(sel)}
    from sacrebleu.metrics import BLEU
    edge = [it for it in items if it["source"] == "edge"]
    short = [{"hyp": h, "refs": [r]} for h, r in SHORT]
    for label, sel in [("summeval", summ), ("edge", edge), ("short", short)]:
        hyps = [it["hyp"] for it in sel]
        streams = [[it["refs"][0] for it in sel]]
        for eff in (True, False):
            m = BLEU(effective_order=eff)
            s = m.corpus_score(hyps, streams)
            corpus[f"bleu_{label}_eff_{'yes' if eff else 'no'}"] = {
                "score": s.score, "counts": s.counts, "totals": s.totals, "sys_len": s.sys_len,
                "ref_len": s.ref_len, "signature": str(m.get_signature()), "items": len(sel)}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"items": items, "corpus": corpus}, f, ensure_ascii=False)
        f.write("\n")
    print(f"{args.out}: {len(items)} items", file=sys.stderr)


if __name__ == "__main__":
    main()

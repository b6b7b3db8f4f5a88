#!/usr/bin/env python3
"""Writes tests/golden/lexical/tokenize_13a.jsonl: sacreBLEU 2.6.0's Tokenizer13a on random texts
that mix what its rules treat differently (letters, digits, apostrophes, single and repeated
spaces, tabs, newlines, periods, commas, dashes, the padded punctuation, entities, <skipped>,
Unicode whitespace and other non-ASCII characters) at every length up to 100 bytes, so that the
tokenizer's 16-bytes-at-a-time paths meet each rule at every offset.

Run once by a developer, with sacreBLEU's own code (none of it is in this project):

    python3 tests/golden/gen/tokenize_13a.py --sacrebleu DIR

--sacrebleu as for gen/empty_texts.py (whose loader this script uses). The texts are drawn with
Python's random.Random(13); one JSON object a line: {"in": text, "out": Tokenizer13a()(text)}.
"""

import argparse
import json
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from empty_texts import import_sacrebleu  # noqa: E402

PIECES = (
    ["the", "Cat", "sat", "ON", "mat", "x", "don't", "it's", "'", "''", "O'Neil", "e2e", "2014",
     "3", "10", "a1b2"] * 4
    + [" "] * 30 + ["  ", "   ", "\t", "\n", "-\n", "\r\n"] * 2
    + [".", ",", "-", "..", ",,", ".,", "...", "3.5", "1,000", "5.", ".5", "a-b", "9-9"] * 2
    + list("!\"#$%&()*+/:;<=>?@[\\]^_`{|}~")
    + ["&amp;", "&quot;", "&lt;", "&gt;", "&amp;lt;", "<skipped>", "<", "&"]
    + ["\u00a0", "\u2028", "\u3000", "\u0085", "\u1680", "\u2009", "\u00e9", "\u00c9t\u00e9",
       "\u4e2d\u6587", "\U0001F600", "\u00ad", "\u0301", "\x1c", "\x1f", "\x7f", "\x01"]
)


def main():
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True, help="directory holding the sacrebleu package")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--out", default=str(here.parent / "lexical" / "tokenize_13a.jsonl"))
    args = ap.parse_args()
    import_sacrebleu(args.sacrebleu)
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    tok = Tokenizer13a()
    rng = random.Random(13)
    seen = set()
    with open(args.out, "w", encoding="utf-8") as f:
        while len(seen) < args.count:
            limit = rng.randint(0, 100)
            text = ""
            while len(text.encode("utf-8")) < limit:
                text += rng.choice(PIECES)
            if text in seen:
                continue
            seen.add(text)
            f.write(json.dumps({"in": text, "out": tok(text)}, ensure_ascii=False) + "\n")
    print(f"{args.out}: {len(seen)} texts", file=sys.stderr)


if __name__ == "__main__":
    main()

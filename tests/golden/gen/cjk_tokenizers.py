#!/usr/bin/env python3
"""Writes tests/golden/lexical/tokenize_cjk.jsonl and tests/golden/lexical/bleu_cjk.json:
sacreBLEU 2.6.0's `zh`, `char` and `ja-mecab` tokenizers and BLEU with them.

Run once by a developer, with sacreBLEU's own code (none of it is in this project):

    python3 tests/golden/gen/cjk_tokenizers.py --sacrebleu DIR --ipadic DICDIR

--sacrebleu as for gen/empty_texts.py (whose loader this script uses). sacreBLEU's TokenizerJaMecab
imports `MeCab` and `ipadic` (pip's mecab-python3 and ipadic); this script takes MeCab from
Debian's python3-mecab (MeCab 0.996, as pip's) and stands in for pip's `ipadic` with a module whose
MECAB_ARGS point at DICDIR (Debian's mecab-ipadic-utf8 2.7.0-20070801+main-3:
/var/lib/mecab/dic/ipadic-utf8; Debian's SWIG binding does not unquote, so the path is unquoted).
sacreBLEU's __init__ asserts the dictionary has 392,126 entries (pip's ipadic 1.0.0, the same
IPADIC 2.7.0-20070801); Debian's has 392,127: its patch 0001-new-Japanese-era-reiwa-entry adds
one entry, 令和 (changelog 2.7.0-20070801+main-2.1). So the tagger is built exactly as that
__init__ builds it, the size check is made against 392,127, and sacreBLEU's own __call__ and
signature() run unchanged. The texts below avoid 令和, the one word where the two dictionaries
can differ.

tokenize_cjk.jsonl, one object a line: {"tok", "in", "out"}: 2,000 random texts per tokenizer
(Python's random.Random(17)) built from pieces that each tokenizer treats differently: Han
characters inside and outside sacreBLEU's `_UCODE_RANGES` (and at their edges, including the
string-comparison ranges '\\u20000'..'\\u2a6d6' and '\\u2f800'..'\\u2fa1d', which hold U+2001..U+2A6D
and U+2F81..U+2FA1), kana, full-width forms, CJK punctuation, ASCII punctuation runs, digits,
Python whitespace, combining marks and emoji; for ja-mecab Japanese phrases as well.
bleu_cjk.json: small Chinese and Japanese corpora (hand-written hypotheses against 1 or 2
reference streams); per tokenizer: sentence BLEU (effective_order=True) per item with all
references (score, counts, totals, sys_len, ref_len), corpus BLEU and its signature.
"""

import argparse
import json
import pathlib
import random
import sys
import types

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from empty_texts import import_sacrebleu  # noqa: E402

HAN = ["中", "文", "我们", "北京", "大学", "龍", "㐀", "䶵", "䶶", "鿥", "鿦", "龻", "鿼", "豈", "鶴",
       "\ufa2d", "\ufa2e", "\ufa30", "\ufa6a", "\ufa6b", "\ufa70", "\ufad9", "\ufada",
       "\U00020000", "\U0002a6d6", "\U0002f800"]
EDGES = ["\u2000", "\u2001", "\u2014", "\u2019", "\u201c", "\u2026", "\u20ac", "\u2122", "\u2192",
         "\u2a6d", "\u2a6e", "\u2e80", "\u2f00", "\u2f80", "\u2f81", "\u2fa1", "\u2fa2", "\u2ff0",
         "\u3000", "\u3001", "\u3002", "\u300c", "\u300d", "\u303f", "\u3040", "\u3100", "\u31a0",
         "\u31c0", "\u3200", "\u3300", "\u33ff", "\u3400", "\u4e00", "\u9fa5", "\u9fbb", "\u9fbc",
         "\ufe10", "\ufe30", "\ufe4f", "\ufe50", "\uff01", "\uff0c", "\uff10", "\uff21", "\uff61",
         "\uff9e", "\uffef", "\ufff0", "\u2600", "\u2700", "\u27bf", "\u27c0"]
KANA = ["ひらがな", "カタカナ", "の", "は", "を", "です", "ます", "ｶﾀｶﾅ", "ー", "ゃ"]
ASCII = ["the", "Cat", "x", "don't", "2014", "3", "10", "a1b2", ".", ",", "-", "..", ",,", ".,",
         "...", "3.5", "1,000", "5.", ".5", "a-b", "9-9", "!", "?", "(", ")", "\"", "'", "$", "%",
         "&", "&amp;", "<skipped>", "/", ":", ";", "@", "[", "]", "{", "}", "~", "^", "_", "`"]
SPACE = [" "] * 12 + ["  ", "\t", "\n", "-\n", "\u00a0", "\u3000", "\u2009", "\u0085", "\x1c",
                      "\u200b"]
OTHER = ["é", "Ü", "e\u0301", "\U0001F600", "\u00ad", "Привет", "한국어", "ñ"]
JA = ["私は", "東京に", "住んでいます", "。", "、", "今日は", "いい天気ですね", "「こんにちは」",
      "すもももももももものうち", "日本語の文章を", "形態素解析します", "コンピューター", "ＡＢＣ",
      "１２３", "2023年", "3月", "ＭｅＣａｂ", "（テスト）", "！", "？", "…", "ｱｲｳ", "〜"]

PIECES = {
    "zh": HAN * 3 + EDGES + KANA + ASCII + SPACE + OTHER,
    "char": HAN + EDGES + KANA + ASCII + SPACE + OTHER,
    "ja-mecab": JA * 3 + HAN + KANA * 2 + ASCII + SPACE + OTHER + EDGES,
}

ZH = {
    "hyps": [
        "我们今天去北京大学参观。",
        "他说：“这个问题很难解决。”",
        "2023年，经济增长了5.2%。",
        "猫坐在垫子上",
        "",
        "机器翻译的质量越来越好了，但是还有很多问题。",
        "The meeting ends at 3pm，大家请准时。",
        "请把窗户打开",
    ],
    "refs": [
        ["今天我们去参观北京大学。", "他说这个问题很难解决。", "2023年经济增长5.2%。",
         "猫坐在垫子上。", "你好", "机器翻译的质量越来越好，但仍有许多问题。",
         "会议在下午3点结束，请大家准时。", "请打开窗户。"],
        ["我们今天参观了北京大学。", "他说：“这个问题难以解决。”", "2023年，经济增长了5.2%。",
         "一只猫坐在垫子上。", "", "机器翻译质量越来越好了，但是问题还很多。",
         "The meeting ends at 3pm, 请大家准时。", "把窗户打开吧"],
    ],
}
JA_CORPUS = {
    "hyps": [
        "私は東京に住んでいます。",
        "今日はとてもいい天気ですね。",
        "すもももももももものうち",
        "この本は面白かったです。",
        "",
        "会議は午後3時に終わります。",
        "機械翻訳の品質は年々向上しているが、課題も多い。",
        "ＭｅＣａｂで形態素解析をします",
    ],
    "refs": [
        ["私は東京で暮らしています。", "今日はいい天気ですね。", "すもももももももものうち。",
         "この本はとても面白かった。", "こんにちは", "会議は午後三時に終了します。",
         "機械翻訳の品質は年々向上しているが、多くの課題が残る。", "MeCabで形態素解析を行います。"],
        ["東京に住んでいます。", "本日は晴天ですね。", "すもももももももものうちです",
         "この本は面白かったです", "", "会議は15時に終わります。",
         "機械翻訳の品質は毎年良くなっているが、課題も多い。", "ＭｅＣａｂで形態素解析をする"],
    ],
}


def install_ipadic_shim(dicdir):
    # sacreBLEU: MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati"); pip's ipadic gives '-d "DIR" -r
    # "DIR/mecabrc"'. Debian's dictionary directory holds no mecabrc; /etc/mecabrc only names the
    # default dictionary, which -d overrides.
    shim = types.ModuleType("ipadic")
    shim.DICDIR = dicdir
    shim.MECAB_ARGS = f"-d {dicdir} -r /etc/mecabrc"
    sys.modules["ipadic"] = shim


def random_texts(rng, pieces, count):
    seen, out = set(), []
    while len(out) < count:
        limit = rng.randint(0, 60)
        text = ""
        while len(text) < limit:
            text += rng.choice(pieces)
        if text in seen:
            continue
        seen.add(text)
        out.append(text)
    return out


def bleu_values(sacrebleu, tok, corpus):
    from sacrebleu.metrics import BLEU
    hyps, refs = corpus["hyps"], corpus["refs"]
    sent = BLEU(tokenize=tok, effective_order=True)
    items = []
    for i, h in enumerate(hyps):
        s = sent.sentence_score(h, [r[i] for r in refs])
        items.append({"score": s.score, "counts": s.counts, "totals": s.totals,
                      "sys_len": s.sys_len, "ref_len": s.ref_len})
    corp = BLEU(tokenize=tok)
    c = corp.corpus_score(hyps, refs)
    signature = str(corp.get_signature())  # before the 1-stream call changes nrefs
    c1 = corp.corpus_score(hyps, refs[:1])
    return {"sentence": items,
            "corpus": {"score": c.score, "counts": c.counts, "totals": c.totals,
                       "sys_len": c.sys_len, "ref_len": c.ref_len,
                       "signature": signature},
            "corpus_1ref": {"score": c1.score, "counts": c1.counts, "totals": c1.totals,
                            "sys_len": c1.sys_len, "ref_len": c1.ref_len}}


def main():
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sacrebleu", required=True, help="directory holding the sacrebleu package")
    ap.add_argument("--ipadic", default="/var/lib/mecab/dic/ipadic-utf8")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--out", default=str(here.parent / "lexical"))
    args = ap.parse_args()
    install_ipadic_shim(args.ipadic)
    sacrebleu = import_sacrebleu(args.sacrebleu)
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
    import ipadic
    import MeCab

    def debian_ipadic_init(self):
        # TokenizerJaMecab.__init__ with Debian's dictionary size (see the header).
        self.tagger = MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")
        d = self.tagger.dictionary_info()
        assert d.size == 392127 and d.charset.upper() == "UTF-8", (d.size, d.charset)
        assert d.next is None

    TokenizerJaMecab.__init__ = debian_ipadic_init
    tokenizers = {"zh": TokenizerZh(), "char": TokenizerChar(), "ja-mecab": TokenizerJaMecab()}
    out = pathlib.Path(args.out)
    rng = random.Random(17)
    with open(out / "tokenize_cjk.jsonl", "w", encoding="utf-8") as f:
        for name, tok in tokenizers.items():
            texts = random_texts(rng, PIECES[name], args.count)
            if name == "ja-mecab":
                texts = [t for t in texts if "\x00" not in t]
            for text in texts:
                f.write(json.dumps({"tok": name, "in": text, "out": tok(text)},
                                   ensure_ascii=False) + "\n")
    golden = {"ja_mecab_signature": tokenizers["ja-mecab"].signature(),
              "corpora": {"zh": ZH, "ja": JA_CORPUS}, "bleu": {}}
    for corpus_name, corpus in golden["corpora"].items():
        for tok in ["zh", "char", "ja-mecab", "13a"]:
            golden["bleu"][f"{corpus_name}/{tok}"] = bleu_values(sacrebleu, tok, corpus)
    with open(out / "bleu_cjk.json", "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{out}: tokenize_cjk.jsonl, bleu_cjk.json", file=sys.stderr)


if __name__ == "__main__":
    main()

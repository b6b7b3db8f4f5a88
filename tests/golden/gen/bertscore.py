#!/usr/bin/env python3
"""Writes tests/golden/bertscore/bertscore.jsonl: BERTScore P/R/F as Tiiiger/bert_score computes
them, on fixed (non-contextual) token embeddings, so that no model is needed.

Run once (Debian bookworm: python3-torch 1.13.1, python3-pandas 1.5.3, python3-packaging,
python3-tqdm):

    git --git-dir=<bare clone of github.com/Tiiiger/bert_score> archive \
        19e7f551fe4fa43fdd07b8129ae947015b902b2d bert_score | tar -x -C DIR
    /usr/bin/python3 tests/golden/gen/bertscore.py --bert-score DIR \
        --out tests/golden/bertscore/bertscore.jsonl

bert_score's own `score()` runs end to end (sent_encode, get_idf_dict, bert_cos_score_idf,
greedy_cos_idf, the multi-reference max and the baseline rescaling read with pandas from a CSV
in its rescale_baseline format). Only the two things that would need a download are replaced:
`get_tokenizer` returns a whitespace tokenizer over a fixed vocabulary that adds [CLS] and [SEP]
as BERT's does, and `get_model` returns a lookup table (token id -> vector), i.e. the "layer
output" is a known vector per token. `transformers` is imported by bert_score only for type
checks and its version; a stub module stands in for it (version 4.30.0, so sent_encode takes its
current branch), and matplotlib for plot_example, which is not called.

Precision: bert_score computes in float32 (`torch.float` idf weights, `.float()` baselines).
For goldens comparable to 1e-9 the table is float64 and `torch.float` is pointed at float64 while
bert_score runs; the baseline stays as bert_score makes it, rounded to float32 (`.float()` on the
baseline row), and probity rounds it the same way. batch_size=1, so that no item is padded:
bert_score's greedy_cos_idf multiplies padded positions' similarities by 0 and takes the max
with them, which makes a negative best similarity 0 when a longer sentence shares the batch
(probity takes the max over the real tokens only; with one item per batch both agree).
"""
import argparse
import json
import random
import sys
import types

ap = argparse.ArgumentParser()
ap.add_argument("--bert-score", required=True, help="directory holding the bert_score package")
ap.add_argument("--out", required=True)
args = ap.parse_args()

# --- stand-ins for imports that only matter with a real model -----------------------------------
tf = types.ModuleType("transformers")
tf.__version__ = "4.30.0"
for name in ["AutoModel", "AutoTokenizer", "BertConfig", "GPT2Tokenizer", "RobertaTokenizer",
             "RobertaConfig", "XLMConfig", "XLNetConfig"]:
    setattr(tf, name, type(name, (), {}))
sys.modules["transformers"] = tf
mpl = types.ModuleType("matplotlib")
mpl.pyplot = types.ModuleType("matplotlib.pyplot")
sys.modules["matplotlib"] = mpl
sys.modules["matplotlib.pyplot"] = mpl.pyplot
tk = types.ModuleType("mpl_toolkits")
tk.axes_grid1 = types.ModuleType("mpl_toolkits.axes_grid1")
tk.axes_grid1.make_axes_locatable = None
sys.modules["mpl_toolkits"] = tk
sys.modules["mpl_toolkits.axes_grid1"] = tk.axes_grid1

sys.path.insert(0, args.bert_score)
import torch  # noqa: E402
import bert_score  # noqa: E402
bs_score = sys.modules["bert_score.score"]  # the package exports a function of that name
import bert_score.utils as bs_utils  # noqa: E402

DIM = 6
rng = random.Random(18)
WORDS = ("the cat sat on mat a dog ran in park big small red house river boat sun moon "
         "old new man woman tree").split()
# Tokens 0..2: [PAD], [CLS], [SEP]; words after.
VOCAB = ["[PAD]", "[CLS]", "[SEP]"] + WORDS
TABLE = [[rng.gauss(0.0, 1.0) for _ in range(DIM)] for _ in VOCAB]
# "sun" is "moon" negated and "boat" is "river" negated: pairs with cosine -1, so that some best
# matches are negative.
TABLE[VOCAB.index("sun")] = [-x for x in TABLE[VOCAB.index("moon")]]
TABLE[VOCAB.index("boat")] = [-x for x in TABLE[VOCAB.index("river")]]


class Tokenizer:
    pad_token_id, cls_token_id, sep_token_id = 0, 1, 2
    model_max_length = 512

    def encode(self, sent, add_special_tokens=True, max_length=None, truncation=False):
        return [1] + [VOCAB.index(w) for w in sent.split()] + [2]

    def build_inputs_with_special_tokens(self, ids):
        return [1] + list(ids) + [2]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.tensor(TABLE, dtype=torch.float64))

    def forward(self, x, attention_mask=None, output_hidden_states=False):
        return (self.table[x],)


bs_score.get_tokenizer = lambda model_type, use_fast=False: Tokenizer()
bs_score.get_model = lambda model_type, num_layers, all_layers=None: Model()

CASES = [
    ("single", ["the cat sat on the mat", "a dog ran in the park"],
     [["the cat sat on mat"], ["a big dog ran"]]),
    ("negative_best", ["sun", "boat river", "sun moon"], [["moon"], ["boat"], ["river"]]),
    ("duplicates", ["the the the cat", "cat cat"], [["the cat the"], ["the cat"]]),
    ("empty", ["", "red house", "   ", "old tree"], [["red house"], [""], [""], ["   "]]),
    ("multiref", ["the old man sat in the house", "a small red boat", "new moon"],
     [["an old man sat", "the man sat in a house", "the woman"],
      ["small red boat", "the big red house on the river"],
      ["sun", "the new sun", "moon"]]),
    ("idf_zero_weight", ["the", "the cat", "river"], [["the dog"], ["the cat"], ["the sun"]]),
]
# No "an" in VOCAB: keep every text in the vocabulary.
CASES[4][2][0][0] = "a old man sat"

BASELINE_CSV = "LAYER,P,R,F\n0,0.3712891,0.37132213,0.36826715\n1,0.83150584,0.8314941,0.83122575\n"

out = open(args.out, "w")
out.write(json.dumps({"vocab": VOCAB, "vectors": TABLE, "special": ["[CLS]", "[SEP]"],
                      "baseline_csv": BASELINE_CSV,
                      "bert_score_commit": "19e7f551fe4fa43fdd07b8129ae947015b902b2d",
                      "bert_score_version": bert_score.__version__,
                      "torch": torch.__version__}) + "\n")
import tempfile, os  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    baseline_path = os.path.join(tmp, "baseline.tsv")
    with open(baseline_path, "w") as f:
        f.write(BASELINE_CSV)
    float32 = torch.float
    for name, cands, refs in CASES:
        for idf in (False, True):
            for layer in (None, 0, 1):
                torch.float = torch.float64
                try:
                    kw = dict(model_type="fixed-table", num_layers=layer if layer is not None else 0,
                              idf=idf, batch_size=1, nthreads=0, device="cpu")
                    if layer is not None:
                        kw.update(lang="en", rescale_with_baseline=True, baseline_path=baseline_path)
                    multi = any(len(r) != 1 for r in refs)
                    P, R, F = bs_score.score(cands, refs if multi else [r[0] for r in refs], **kw)
                    idf_dict = {}
                    if idf:
                        flat = [r for group in refs for r in group]
                        d = bs_utils.get_idf_dict(flat, Tokenizer(), nthreads=0)
                        idf_dict = {VOCAB[k]: v for k, v in sorted(d.items())}
                        idf_dict["<unseen>"] = d[-1]
                finally:
                    torch.float = float32
                rec = {"name": name, "cands": cands, "refs": refs, "idf": idf,
                       "baseline_layer": layer, "idf_dict": idf_dict,
                       "expected": [[None if x != x else x for x in (p, r, f)]
                                    for p, r, f in zip(P.tolist(), R.tolist(), F.tolist())]}
                out.write(json.dumps(rec) + "\n")
out.close()

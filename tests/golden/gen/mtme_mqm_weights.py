#!/usr/bin/env python3
"""Writes tests/golden/meta_eval/mqm_weights.json: segment-level MQM scores of MQM ratings under
several weight specifications, computed by mt-metrics-eval's (MTME's) own
converters/score_mqm.py, for the tests of probity's mqm_scores (src/data/mtme_mqm.cpp).

Reference code (none of it is in this project; the script imports it from --mme):
    https://github.com/google-research/mt-metrics-eval
    commit 68a481aea1a787392d55af8f76ac8ef40c5f4664
    files:  mt_metrics_eval/converters/score_mqm.py (main: --weights parsing, Score's
            most-specific severity[/category[/subcategory]] match, the per-segment sum over a
            rater's errors, the mean over raters, the negation), mt_metrics_eval/ratings.py
            (ReadRatingFile); SHA-256 checked (a warning if they differ)
    Get it:
        mkdir -p /tmp/mme-src && git --git-dir=REPO.git archive 68a481a | tar -x -C /tmp/mme-src

Input: the rating file human-scores/en-de.mqm.merged.seg.rating of the synthetic tree
(gen/mtme_tree.py), read with ratings.ReadRatingFile, turned into score_mqm's input (a tsv
with columns system, doc, doc_id, rater, severity, category: one row per error; an error-free
segment gets one row with severity and category `no-error`, which no weight matches, as in
WMT's MQM files; an unrated (None) segment gets no row) and scored by score_mqm.main itself
with --force_contiguous=false (unrated segments leave gaps). Its output rows
(system, doc, doc_id, score) are mapped back to segment positions; segments without a row are
null. score_mqm reads no error's start/end/score/is_source_error.

Stand-ins: `absl` (flags and app; score_mqm's flags are set directly on the stand-in FLAGS)
and `dacite` (from_dict for ratings.Rating/Error, written here) are put in sys.modules.

Run (from the repository root, /usr/bin/python3 3.11; well under a second):

    /usr/bin/python3 tests/golden/gen/mtme_mqm_weights.py --mme /tmp/mme-src \
        --tree tests/golden/inputs/mtme_wmt --out tests/golden/meta_eval/mqm_weights.json
"""

import argparse
import dataclasses
import hashlib
import io
import json
import pathlib
import platform
import sys
import types

MME_REPO = "https://github.com/google-research/mt-metrics-eval"
MME_COMMIT = "68a481aea1a787392d55af8f76ac8ef40c5f4664"
MME_SHA256 = {
    "mt_metrics_eval/converters/score_mqm.py":
        "3c68bf370654934fe941e38934408beb2d367a96cb6b42991ed98ae1a63f05fc",
    "mt_metrics_eval/ratings.py":
        "ab7c075d7d7af1431d94a221ff803cf8498e4b46f06c2cf7b927b45e23fef7d4",
}
DEFAULT = ("Major:5 Minor:1 Neutral:0 Major/Non-translation!:25 "
           "Minor/Fluency/Punctuation:0.1")
# (name, --weights, --weights_sep)
SPECS = [
    ("default", DEFAULT, " "),
    ("major5_minor1", "major:5 minor:1", " "),
    ("categories", "Major:5 Minor:1 Critical:10 minor/fluency:0.5 "
     "Major/Accuracy/Mistranslation:7 MINOR/FLUENCY/PUNCTUATION/COMMA:0.25", " "),
    ("comma_separated", "major:5,minor:1,neutral:0.5,major/non-translation!:25", ","),
]


def install_stand_ins():
    absl = types.ModuleType("absl")
    flags = types.ModuleType("absl.flags")
    app = types.ModuleType("absl.app")

    class Flags:
        pass

    flags.FLAGS = Flags()

    def define(name, default, _help):
        setattr(flags.FLAGS, name, default)

    flags.DEFINE_string = define
    flags.DEFINE_bool = define
    app.UsageError = Exception
    app.run = lambda main: main([sys.argv[0]])
    absl.flags, absl.app = flags, app
    sys.modules.update({"absl": absl, "absl.flags": flags, "absl.app": app})

    dacite = types.ModuleType("dacite")

    def from_dict(data_class, data):
        kwargs = {}
        for f in dataclasses.fields(data_class):
            if f.name in data:
                v = data[f.name]
                if f.name == "errors":
                    err_cls = sys.modules["mt_metrics_eval.ratings"].Error
                    v = [from_dict(err_cls, e) for e in v]
                kwargs[f.name] = v
        return data_class(**kwargs)

    dacite.from_dict = from_dict
    sys.modules["dacite"] = dacite


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mme", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    digests = {}
    for rel, want in MME_SHA256.items():
        digests[rel] = hashlib.sha256((pathlib.Path(args.mme) / rel).read_bytes()).hexdigest()
        if digests[rel] != want:
            print(f"warning: {rel} differs from commit {MME_COMMIT}", file=sys.stderr)
    install_stand_ins()
    sys.path.insert(0, args.mme)
    from mt_metrics_eval import ratings
    from mt_metrics_eval.converters import score_mqm

    test_set = pathlib.Path(args.tree) / "wmt24"
    rating_rel = "human-scores/en-de.mqm.merged.seg.rating"
    rating_file = test_set / rating_rel
    docs = [line.split()[1] for line in (test_set / "documents/en-de.docs").read_text()
            .splitlines()]
    doc_pos, seg_key = {}, []  # segment -> (doc, 1-based id in doc)
    for d in docs:
        doc_pos[d] = doc_pos.get(d, 0) + 1
        seg_key.append((d, doc_pos[d]))
    rats, raters = ratings.ReadRatingFile(str(rating_file), "mqm.merged")

    rows = ["system\tdoc\tdoc_id\trater\tseverity\tcategory"]
    for sys_name, rs in rats.items():
        for i, r in enumerate(rs):
            if r is None:
                continue
            doc, doc_id = seg_key[i]
            errs = r.errors or [ratings.Error(0, 0, "no-error", "no-error")]
            for e in errs:
                rows.append(f"{sys_name}\t{doc}\t{doc_id}\t{raters[sys_name][i]}\t"
                            f"{e.severity}\t{e.category}")
    tsv = pathlib.Path("/tmp/mtme_mqm_weights_input.tsv")
    tsv.write_text("\n".join(rows) + "\n")

    results = []
    for name, weights, sep in SPECS:
        out = pathlib.Path("/tmp/mtme_mqm_weights_output.tsv")
        f = score_mqm.FLAGS
        f.input, f.output, f.weights, f.weights_sep = str(tsv), str(out), weights, sep
        f.unbabel, f.recompute_unbabel, f.force_contiguous, f.doc_id = False, False, False, "doc_id"
        score_mqm.main([sys.argv[0]])
        by_key = {}
        for line in out.read_text().splitlines():
            cols = line.split("\t")
            by_key[(cols[0], cols[1], int(cols[2]))] = float(cols[3])
        scores = {s: [by_key.get((s, *seg_key[i])) for i in range(len(docs))] for s in rats}
        parsed = {}
        for e in weights.split(sep):
            c, w = e.split(":")
            parsed[c.lower()] = float(w)
        results.append({"name": name, "weights": weights, "weights_sep": sep,
                        "parsed": parsed, "scores": scores})

    doc = {
        "reference": {"repository": MME_REPO, "commit": MME_COMMIT, "sha256": digests,
                      "python": platform.python_version(),
                      "generator": "tests/golden/gen/mtme_mqm_weights.py"},
        "notes": [
            "Input: tests/golden/inputs/mtme_wmt/wmt24/" + rating_rel + " (one rating per "
            "segment; the third column is the rater). Scores: per system, one per segment in "
            "file order; null where the rating is None.",
            "Rule (score_mqm.py): weight keys are lower-cased; an error's key list is "
            "[severity] + category.split('/'), lower-cased; the longest prefix that is a key "
            "gives the weight, else 0. A segment's score is -(sum of its errors' weights, "
            "summed in file order from 0); with one rater per segment the mean over raters is "
            "that sum. An error-free segment scores -0.0.",
            "`parsed`: the weights as score_mqm parses --weights (split on --weights_sep, "
            "then on ':', key lower-cased, float weight).",
        ],
        "rating_file": "tests/golden/inputs/mtme_wmt/wmt24/" + rating_rel,
        "specs": results,
    }
    text = json.dumps(doc, indent=1, allow_nan=False)
    pathlib.Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()

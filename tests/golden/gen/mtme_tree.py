#!/usr/bin/env python3
"""Writes a synthetic test set in mt-metrics-eval's (MTME's) directory layout, shaped like
WMT24's MQM language pairs, for the tests of src/data/mtme_eval_set.cpp and for the golden of
MTME's own WMT24 task set (gen/mtme_wmt24_tasks.py).

The layout is the one of MTME's README, "File organization and naming convention"
(https://github.com/google-research/mt-metrics-eval, commit
68a481aea1a787392d55af8f76ac8ef40c5f4664). This script does not import MTME: it only writes
files, with NumPy's default_rng(SEED) and nothing else random.

Run (from the repository root, Python 3.11 with NumPy; a second or less):

    /usr/bin/python3 tests/golden/gen/mtme_tree.py --out tests/golden/inputs/mtme_wmt
    /usr/bin/python3 tests/golden/gen/mtme_tree.py --size wmt24 --out /tmp/mtme_big   # performance runs

The small tree (committed, tests/golden/inputs/mtme_wmt/wmt24/): language pairs en-de, en-es
and ja-zh (the pairs of MTME's tasks.WMT24), 11-13 segments in 3 documents and 2 domains (one
domain non-contiguous, and its name sorts after the other's, so MTME's sorted domain order is
not the order of first occurrence), 6 systems: 4 MT systems, MSLC (WMT24's outlier) and a
human system named as the non-standard reference (en-de: references refA, refB, std refB, so
system refA; en-es and ja-zh: std refA, system refB). Human scores: `mqm` at seg (some
segments None for every system, as unrated segments are), doc, domain and sys level; en-de's
seg scores are MQM ratings (human-scores/en-de.mqm.merged.seg.rating) weighted by
score_mqm.py's default weights and negated. Metric scores at seg and sys level for BLEU, chrF,
COMET-22, MetricX-24-Hybrid, XCOMET (both references), sentinel-cand-mqm and CometKiwi (-src),
the user's metric `mymetric` (standard reference), Random-sysname-src (not a WMT24 primary) and
spBLEU (sys level only). Rounded scores make ties. Two metric files lack a system MTME must
pad with 0 (strict=False): en-es XCOMET-refA.seg lacks the human system refB, en-de
COMET-22-refB.sys lacks MSLC. Metric files never score the reference they use, as MTME's
data does not.

--size wmt24 writes the same shape at WMT24 size: ~1000 segments in ~60 documents, 15
systems, ~30 metrics per pair (not committed).
"""

import argparse
import json
import pathlib

import numpy as np

SEED = 20240
DEFAULT_WEIGHTS = {  # score_mqm.py's default --weights, keys lower-cased as it does
    "major": 5.0, "minor": 1.0, "neutral": 0.0,
    "major/non-translation!": 25.0, "minor/fluency/punctuation": 0.1,
}
# (severity, category) pairs drawn for MQM errors: case differences, a severity without a
# weight (critical), a sub-category and a category with a deeper path on purpose.
ERROR_KINDS = [
    ("Major", "Accuracy/Mistranslation"), ("Minor", "Accuracy/Mistranslation"),
    ("Minor", "Fluency/Punctuation"), ("minor", "Fluency/Punctuation/Comma"),
    ("Major", "Non-translation!"), ("Neutral", "Style/Awkward"), ("Minor", "Style/Awkward"),
    ("Critical", "Accuracy/Omission"), ("MAJOR", "Fluency/Grammar"),
]

PAIRS = {
    # lp: (segments per document, domain per document, references, std ref)
    "en-de": ([5, 4, 3], ["speech", "literary", "speech"], ["refA", "refB"], "refB"),
    "en-es": ([4, 5, 4], ["speech", "literary", "speech"], ["refA", "refB"], "refA"),
    "ja-zh": ([3, 4, 4], ["social", "literary", "social"], ["refA", "refB"], "refA"),
}
MT_SYSTEMS = ["GPT-4", "IOL_Research", "ONLINE-W", "Unbabel-Tower70B"]
REF_METRICS = ["BLEU", "chrF", "COMET-22", "MetricX-24-Hybrid", "XCOMET"]
QE_METRICS = ["sentinel-cand-mqm", "CometKiwi"]


def fmt(x):
    return "None" if x is None else repr(float(x))


def mqm_score(errors):
    """score_mqm.py's rule: most specific severity[/category...] prefix, summed, negated."""
    total = 0.0
    for e in errors:
        items = [e["severity"].lower()] + [c.lower() for c in e["category"].split("/")]
        w = 0.0
        while items:
            if "/".join(items) in DEFAULT_WEIGHTS:
                w = DEFAULT_WEIGHTS["/".join(items)]
                break
            items = items[:-1]
        total += w
    return -total


class Writer:
    def __init__(self, root):
        self.root = root

    def lines(self, rel, lines):
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(line + "\n" for line in lines))

    def scores(self, rel, table, domain_names=None):
        out = []
        for sys_name, vals in table.items():
            if domain_names is None:
                out += [f"{sys_name}\t{fmt(v)}" for v in vals]
            else:
                out += [f"{d}\t{sys_name}\t{fmt(v)}" for d, v in zip(domain_names, vals)]
        self.lines(rel, out)


def write_pair(w, rng, lp, doc_sizes, doc_domains, refs, std_ref, mt_systems, extra_metrics,
               ratings):
    n = sum(doc_sizes)
    docs = [f"doc{d + 1}" for d, size in enumerate(doc_sizes) for _ in range(size)]
    domains = [doc_domains[d] for d, size in enumerate(doc_sizes) for _ in range(size)]
    w.lines(f"documents/{lp}.docs", [f"{dom} {doc}" for dom, doc in zip(domains, docs)])
    w.lines(f"sources/{lp}.txt", [f"{lp} source sentence {i + 1} of {docs[i]}" for i in range(n)])
    for r in refs:
        w.lines(f"references/{lp}.{r}.txt", [f"{r} translation {i + 1}" for i in range(n)])
    human = [r for r in refs if r != std_ref][0]
    systems = mt_systems + ["MSLC", human]
    for s in mt_systems + ["MSLC"]:
        w.lines(f"system-outputs/{lp}/{s}.txt", [f"{s} output {i + 1}" for i in range(n)])
    w.lines(f"system-outputs/{lp}/{human}.txt", [f"{human} translation {i + 1}" for i in range(n)])

    # Latent quality per system and segment; MSLC is poor, the human system good.
    sys_q = {s: rng.normal(0, 1) for s in mt_systems}
    sys_q["MSLC"], sys_q[human] = -3.0, 1.5
    seg_q = rng.normal(0, 1, n)
    quality = {s: sys_q[s] + seg_q + rng.normal(0, 1, n) for s in systems}
    unrated = set(rng.choice(n, size=max(1, n // 6), replace=False).tolist())

    # MQM ratings, then seg scores from them (None where unrated).
    gold_seg, rating_lines = {}, []
    for s in systems:
        vals = []
        for i in range(n):
            if i in unrated:
                vals.append(None)
                rating_lines.append(f"{s}\tNone")
                continue
            num = int(rng.poisson(max(0.2, 1.5 - 0.7 * quality[s][i])))
            errors = []
            for _ in range(num):
                sev, cat = ERROR_KINDS[rng.integers(len(ERROR_KINDS))]
                start = int(rng.integers(0, 20))
                errors.append({"start": start, "end": start + int(rng.integers(1, 6)),
                               "category": cat, "severity": sev})
            vals.append(mqm_score(errors))
            rating_lines.append(f"{s}\t{json.dumps({'errors': errors})}\trater{1 + i % 3}")
        gold_seg[s] = vals
    if ratings:
        w.lines(f"human-scores/{lp}.mqm.merged.seg.rating", rating_lines)
    w.scores(f"human-scores/{lp}.mqm.seg.score", gold_seg)

    def mean(vals):
        vals = [v for v in vals if v is not None]
        return sum(vals) / len(vals) if vals else None

    doc_bounds, b = [], 0
    for size in doc_sizes:
        doc_bounds.append((b, b + size))
        b += size
    w.scores(f"human-scores/{lp}.mqm.doc.score",
             {s: [mean(gold_seg[s][b:e]) for b, e in doc_bounds] for s in systems})
    dom_names = sorted(set(doc_domains))
    w.scores(f"human-scores/{lp}.mqm.domain.score",
             {s: [mean([v for v, d in zip(gold_seg[s], domains) if d == dn]) for dn in dom_names]
              for s in systems}, dom_names)
    w.scores(f"human-scores/{lp}.mqm.sys.score", {s: [mean(gold_seg[s])] for s in systems})

    # Metric scores: noisy views of the latent quality, rounded so that ties occur.
    def metric(name, ref, noise, scale, offset, digits, levels=("seg", "sys")):
        scored = [s for s in systems if s != ref]
        seg = {s: [round(offset + scale * (q + rng.normal(0, noise)), digits)
                   for q in quality[s]] for s in scored}
        if "seg" in levels:
            w.scores(f"metric-scores/{lp}/{name}-{ref}.seg.score", seg)
        if "sys" in levels:
            w.scores(f"metric-scores/{lp}/{name}-{ref}.sys.score",
                     {s: [round(float(np.mean(seg[s])), digits)] for s in scored})

    for ref in refs:
        for m, (noise, scale, offset, digits) in zip(REF_METRICS, [
                (2.0, 8, 30, 1), (1.5, 6, 50, 0), (0.8, 0.05, 0.8, 3), (0.6, -2, -5, 2),
                (0.7, 0.1, 0.7, 2)]):
            metric(m, ref, noise, scale, offset, digits)
    # Repairs MTME performs: rewrite two files without one system each.
    if lp == "en-es":
        p = w.root / f"metric-scores/{lp}/XCOMET-refA.seg.score"
        p.write_text("".join(l + "\n" for l in p.read_text().splitlines()
                             if not l.startswith("refB\t")))
    if lp == "en-de":
        p = w.root / f"metric-scores/{lp}/COMET-22-refB.sys.score"
        p.write_text("".join(l + "\n" for l in p.read_text().splitlines()
                             if not l.startswith("MSLC\t")))
    metric("sentinel-cand-mqm", "src", 1.5, 1, -4, 1)
    metric("CometKiwi", "src", 1.0, 0.04, 0.75, 3)
    metric("mymetric", std_ref, 0.9, 1, 0, 2)
    metric("Random-sysname", "src", 5.0, 1, 0, 0)
    metric("spBLEU", std_ref, 2.0, 8, 30, 1, levels=("sys",))
    for j in range(extra_metrics):
        metric(f"extra{j:02d}", std_ref if j % 3 else "src", 0.5 + 0.1 * j, 1, 0, 4)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="parent directory; wmt24/ is written in it")
    ap.add_argument("--size", choices=["small", "wmt24"], default="small")
    args = ap.parse_args()
    root = pathlib.Path(args.out) / "wmt24"
    if root.exists():
        raise SystemExit(f"{root} exists: remove it first (the tree is written whole)")
    rng = np.random.default_rng(SEED)
    w = Writer(root)
    for lp, (sizes, doms, refs, std_ref) in PAIRS.items():
        if args.size == "small":
            write_pair(w, rng, lp, sizes, doms, refs, std_ref, MT_SYSTEMS, 0, lp == "en-de")
        else:
            ndocs = 60
            sizes = [int(x) for x in rng.integers(8, 26, ndocs)]
            doms = [["speech", "literary", "news", "social"][d % 4] for d in range(ndocs)]
            mt = MT_SYSTEMS + [f"sys{k:02d}" for k in range(9)]  # + MSLC + human = 15
            write_pair(w, rng, lp, sizes, doms, refs, std_ref, mt, 16, True)


if __name__ == "__main__":
    main()

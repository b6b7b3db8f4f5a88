#!/usr/bin/env python3
"""Measures the reference tools (peers) on the workload of probity-bench and writes their figures
as JSON for `probity-bench --peers FILE`, so that the ratios it prints come from one machine and
one run instead of committed reference figures.

    PYTHONPATH=/path/to/sacrebleu:/path/to/rouge_score /usr/bin/python3 bench/peers.py \
        --out peers.json [--data data/summeval/summeval.jsonl] [--rounds 5] [--instructions 200]

Every peer is optional: a row whose tool does not import is left out (the bench then prints no
ratio for it). No peer code is part of probity.

Method, the same for every row and the same as probity-bench's one-thread rows: the process is
pinned to one core; a round is one pass over the 1,600 (candidate, first reference) pairs of
SummEval; its cost is the process CPU time of the pass (time.process_time); the figure is the
median of --rounds rounds. Rows:

  bleu       sacreBLEU BLEU(effective_order=True).sentence_score(hyp, [ref]) (exp smoothing, 13a),
             the metric object built once. sacreBLEU's 13a tokenizer is lru_cached per string:
             "cold" clears that cache before every round (a first pass: the reference, shared by
             16 candidates, is tokenized once per task), "warm" times a second pass over the same
             sentences (everything served from the cache). Ratios use the warm figure.
  chrf       sacreBLEU CHRF().sentence_score(hyp, [ref]) (chrF2); chrF has no tokenizer cache,
             cold and warm are measured the same way all the same.
  rouge      rouge-score RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
             .score(ref, hyp): the three types from one tokenization.
  rougeLsum  rouge-score RougeScorer(["rougeLsum"], use_stemmer=True).score(ref, hyp) on text
             split into sentences with newlines (see split_sentences; rouge-score's rougeLsum
             splits on "\\n" only, and SummEval's texts have no newline).
  bootstrap  SciPy: percentile CI (95%) of Spearman's rho between BLEU (candidate vs first
             reference) and the mean expert relevance, 1,000 paired resamples, n = 1,600.
             "loop": scipy.stats.bootstrap(vectorized=False) calling scipy.stats.spearmanr per
             resample; "vectorized": a statistic ranking all resamples at once along an axis.
  permutation  SciPy: paired permutation test (scipy.stats.permutation_test,
             permutation_type="samples", i.e. each item's two scores swapped or not) of
             rho(BLEU vs ref 1, relevance) - rho(BLEU vs ref 2, relevance), 1,000 permutations,
             scores z-scored first as mt-metrics-eval's PermutationSigDiff does; "loop" and
             "vectorized" as above. Ratios use the faster variant.

Each row records a checksum of what it computed (sum of the scores, or the statistic's estimate)
that probity-bench compares with its own, so a row is only compared when both did the same work.

--instructions PAIRS adds callgrind instruction counts per pass (see count_child), for a ratio
that does not move with the machine's load.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import warnings

# One core and no BLAS threads for NumPy/SciPy: set before they are imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SENTENCE_END = re.compile(r"([.!?])\s+", re.ASCII)


def split_sentences(text):
    """Puts a newline after every '.', '!' or '?' followed by ASCII whitespace, replacing that
    whitespace run. probity-bench applies the same rule (bench.cpp, split_sentences)."""
    return SENTENCE_END.sub("\\1\n", text)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average():
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def load_pairs(path):
    hyps, refs, refs2, relevance = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            task = json.loads(line)
            for cand in task["candidates"]:
                hyps.append(cand["text"])
                refs.append(task["references"][0]["text"])
                refs2.append(task["references"][1]["text"] if len(task["references"]) > 1 else "")
                rel = cand.get("human", {}).get("relevance")
                if isinstance(rel, list):
                    rel = sum(rel) / len(rel) if rel else float("nan")
                relevance.append(float("nan") if rel is None else float(rel))
    return hyps, refs, refs2, relevance


def median_cpu(rounds, body, before=None):
    """CPU seconds of `body()`, median over `rounds`; `before()` runs untimed ahead of each."""
    times = []
    for _ in range(rounds):
        if before:
            before()
        t0 = time.process_time()
        body()
        times.append(time.process_time() - t0)
    return statistics.median(times), times


def row(tool, call, variants, basis, checksum, pairs=None):
    """A row of the JSON: every measured variant, and the one ratios are taken against."""
    cpu = variants[basis][0]
    return {
        "tool": tool,
        "call": call,
        "variants": {k: {"cpu_s": v[0], "rounds_cpu_s": v[1]} for k, v in variants.items()},
        "basis": basis,
        "cpu_s": cpu,
        "pairs_per_s": pairs / cpu if pairs and cpu > 0 else None,
        "checksum": checksum,
    }


def measure_sacrebleu(hyps, refs, rounds):
    import sacrebleu
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    def clear_caches():
        Tokenizer13a.__call__.cache_clear()
        TokenizerRegexp.__call__.cache_clear()

    rows = {}
    n = len(hyps)
    for key, metric, label in (("bleu", BLEU(effective_order=True), "BLEU(effective_order=True)"),
                               ("chrf", CHRF(), "CHRF()")):
        def run(metric=metric):
            for h, r in zip(hyps, refs):
                metric.sentence_score(h, [r])

        cold = median_cpu(rounds, run, clear_caches)
        clear_caches()
        run()  # fills the cache: every round below is a second pass over the same sentences
        warm = median_cpu(rounds, run)
        checksum = sum(metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs))
        rows[key] = row(f"sacreBLEU {sacrebleu.__version__}",
                        f"{label}.sentence_score(hyp, [ref]), object built once",
                        {"cold": cold, "warm": warm}, "warm", checksum, n)
    return rows, {"sacrebleu": sacrebleu.__version__, "sacrebleu_path": sacrebleu.__file__}


def measure_rouge(hyps, refs, rounds):
    import nltk
    from rouge_score import rouge_scorer

    rows = {}
    n = len(hyps)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)

    def run_rouge():
        for h, r in zip(hyps, refs):
            scorer.score(r, h)

    checksum = 0.0
    for h, r in zip(hyps, refs):
        s = scorer.score(r, h)
        checksum += s["rouge1"].fmeasure + s["rouge2"].fmeasure + s["rougeL"].fmeasure
    rows["rouge"] = row(
        "rouge-score", 'RougeScorer(["rouge1","rouge2","rougeL"], use_stemmer=True).score(ref, hyp)',
        {"one pass": median_cpu(rounds, run_rouge)}, "one pass", checksum, n)
    lsum = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    hyps_s = [split_sentences(h) for h in hyps]
    refs_s = [split_sentences(r) for r in refs]

    def run_lsum():
        for h, r in zip(hyps_s, refs_s):
            lsum.score(r, h)

    checksum = sum(lsum.score(r, h)["rougeLsum"].fmeasure for h, r in zip(hyps_s, refs_s))
    rows["rougeLsum"] = row(
        "rouge-score",
        'RougeScorer(["rougeLsum"], use_stemmer=True).score(ref, hyp), sentences split with newlines',
        {"one pass": median_cpu(rounds, run_lsum)}, "one pass", checksum, n)
    return rows, {"rouge_score": os.path.dirname(rouge_scorer.__file__), "nltk": nltk.__version__}


def spearman_along(a, b, axis=-1):
    """Spearman's rho of a and b along `axis` (Pearson of average ranks), for batches."""
    import numpy as np
    from scipy.stats import rankdata

    ra = rankdata(a, axis=axis)
    rb = rankdata(b, axis=axis)
    ra = ra - ra.mean(axis=axis, keepdims=True)
    rb = rb - rb.mean(axis=axis, keepdims=True)
    return (ra * rb).sum(axis=axis) / np.sqrt((ra * ra).sum(axis=axis) * (rb * rb).sum(axis=axis))


def stats_inputs(hyps, refs, refs2, relevance):
    """BLEU against the first and second reference (sacreBLEU) and the relevance ratings, the
    inputs of probity-bench's statistics rows."""
    import numpy as np
    from sacrebleu.metrics import BLEU

    bleu = BLEU(effective_order=True)
    x = np.array([bleu.sentence_score(h, [r]).score for h, r in zip(hyps, refs)])
    z = np.array([bleu.sentence_score(h, [r]).score for h, r in zip(hyps, refs2)])
    return x, z, np.array(relevance)


def stats_bodies(x, z, y):
    """key -> variant -> callable: the SciPy calls of the statistics rows."""
    import numpy as np
    from scipy import stats

    # permutation_test computes the count of all permutations (2**1600) as a float first.
    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)

    def boot_loop():
        stats.bootstrap((x, y), lambda a, b: stats.spearmanr(a, b)[0], paired=True,
                        vectorized=False, n_resamples=1000, method="percentile",
                        random_state=np.random.default_rng(0))

    def boot_vec():
        stats.bootstrap((x, y), spearman_along, paired=True, vectorized=True, n_resamples=1000,
                        method="percentile", random_state=np.random.default_rng(0))

    # z-scored as mt-metrics-eval's PermutationSigDiff (and probity) do before swapping.
    xs = (x - x.mean()) / x.std()
    zs = (z - z.mean()) / z.std()

    def perm_loop():
        stats.permutation_test(
            (xs, zs), lambda a, b: stats.spearmanr(a, y)[0] - stats.spearmanr(b, y)[0],
            permutation_type="samples", vectorized=False, n_resamples=1000,
            random_state=np.random.default_rng(0))

    def perm_vec():
        stats.permutation_test(
            (xs, zs), lambda a, b, axis: spearman_along(a, y, axis) - spearman_along(b, y, axis),
            permutation_type="samples", vectorized=True, n_resamples=1000,
            random_state=np.random.default_rng(0))

    return {"bootstrap": {"loop": boot_loop, "vectorized": boot_vec},
            "permutation": {"loop": perm_loop, "vectorized": perm_vec}}, xs, zs


def measure_scipy(hyps, refs, refs2, relevance, rounds):
    import numpy as np
    import scipy
    from scipy import stats

    x, z, y = stats_inputs(hyps, refs, refs2, relevance)
    bodies, xs, zs = stats_bodies(x, z, y)
    rows = {}
    for key, estimate, call in (
            ("bootstrap", stats.spearmanr(x, y)[0],
             "scipy.stats.bootstrap((bleu, relevance), spearman, paired=True, n_resamples=1000, "
             "method='percentile')"),
            ("permutation", stats.spearmanr(xs, y)[0] - stats.spearmanr(zs, y)[0],
             "scipy.stats.permutation_test((bleu1_z, bleu2_z), rho(a, h) - rho(b, h), "
             "permutation_type='samples', n_resamples=1000)")):
        variants = {k: median_cpu(rounds, f) for k, f in bodies[key].items()}
        best = min(variants, key=lambda k: variants[k][0])
        rows[key] = row(f"SciPy {scipy.__version__}", call, variants, best, float(estimate))
    return rows, {"scipy": scipy.__version__, "numpy": np.__version__}


# Instruction counts. A child process (this script with --count) runs one row's workload under
# callgrind: a warm-up pass, then with --measured one more pass. The difference between the
# two children's totals is the instructions of one pass, whatever Python's start-up and imports
# cost. PYTHONHASHSEED is fixed so that both children do the same work. Lexical rows only:
# scipy.stats does not import under valgrind (3.19: SystemError initialising its Boost ufuncs).
COUNTED = {"bleu": "warm", "chrf": "warm", "rouge": "one pass", "rougeLsum": "one pass"}


class _NoScipy:
    """Import hook refusing scipy: NLTK imports it when present but the stemmer never uses it,
    and under valgrind the import fails."""

    def find_spec(self, name, path, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError("scipy is not imported in instruction-count children")
        return None


def count_child(args):
    sys.meta_path.insert(0, _NoScipy())
    hyps, refs, _, _ = load_pairs(args.data)
    key = args.count
    h, r = hyps[:args.pairs], refs[:args.pairs]
    if key in ("bleu", "chrf"):
        from sacrebleu.metrics import BLEU, CHRF
        metric = BLEU(effective_order=True) if key == "bleu" else CHRF()

        def body():
            for a, b in zip(h, r):
                metric.sentence_score(a, [b])
    else:
        from rouge_score import rouge_scorer
        types = ["rouge1", "rouge2", "rougeL"] if key == "rouge" else ["rougeLsum"]
        scorer = rouge_scorer.RougeScorer(types, use_stemmer=True)
        if key == "rougeLsum":
            h = [split_sentences(t) for t in h]
            r = [split_sentences(t) for t in r]

        def body():
            for a, b in zip(h, r):
                scorer.score(b, a)
    body()  # warm-up (fills sacreBLEU's tokenizer cache: the warm variant)
    if args.measured:
        body()


def callgrind_total(valgrind, argv, env):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run([valgrind, "--tool=callgrind", f"--callgrind-out-file={out}"] + argv,
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total = 0
        with open(out) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    total = max(total, int(line.split(":", 1)[1].split()[0]))
        return total


def count_instructions(rows, args):
    env = dict(os.environ, PYTHONHASHSEED="0")
    for key, r in rows.items():
        if key not in COUNTED or COUNTED[key] not in r["variants"]:
            continue
        base = [sys.executable, os.path.abspath(__file__), "--count", key, "--data", args.data,
                "--pairs", str(args.instructions)]
        try:
            diff = (callgrind_total(args.valgrind, base + ["--measured"], env) -
                    callgrind_total(args.valgrind, base, env))
        except (OSError, subprocess.CalledProcessError) as e:  # no valgrind, or the child failed
            print(f"peers.py: instruction count of {key} failed ({e})", file=sys.stderr)
            continue
        r["instructions"] = {
            "variant": COUNTED[key],
            "per_pass": diff,
            "pairs": args.instructions,
            "per_pair": diff / args.instructions,
            "method": "callgrind Ir of (warm-up + one pass) minus (warm-up) in two child "
                      f"processes, PYTHONHASHSEED=0, first {args.instructions} pairs",
        }
        print(f"peers.py: {key}: {diff} instructions per pass", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.path.join(ROOT, "data/summeval/summeval.jsonl"))
    parser.add_argument("--out", help="JSON file for probity-bench --peers")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=None,
                        help="core to pin to (default: the first allowed one)")
    parser.add_argument("--note", action="append", default=[],
                        help="provenance note to record (e.g. where a peer's code came from)")
    parser.add_argument("--instructions", type=int, default=0, metavar="PAIRS",
                        help="also count the lexical rows' instructions per pass with callgrind "
                             "on the first PAIRS pairs; slow")
    parser.add_argument("--valgrind", default="valgrind")
    parser.add_argument("--count", help=argparse.SUPPRESS)  # internal: the callgrind child
    parser.add_argument("--pairs", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--measured", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        count_child(args)
        return
    if not args.out:
        parser.error("--out is required")

    allowed = sorted(os.sched_getaffinity(0))
    core = args.cpu if args.cpu is not None else allowed[0]
    os.sched_setaffinity(0, {core})
    load_start = load_average()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    with open(args.data, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    hyps, refs, refs2, relevance = load_pairs(args.data)

    rows, versions, skipped = {}, {"python": platform.python_version()}, {}
    for name, fn, fargs in (("sacrebleu", measure_sacrebleu, (hyps, refs, args.rounds)),
                            ("rouge_score", measure_rouge, (hyps, refs, args.rounds)),
                            ("scipy", measure_scipy, (hyps, refs, refs2, relevance, args.rounds))):
        try:
            r, v = fn(*fargs)
        except ImportError as e:
            why = f"{e}; its inputs are sacreBLEU's BLEU" if name == "scipy" else str(e)
            skipped[name] = f"not importable: {why}"
            print(f"peers.py: {name} skipped ({why})", file=sys.stderr)
            continue
        rows.update(r)
        versions.update(v)
        print(f"peers.py: {name} measured", file=sys.stderr)
    load_end = load_average()  # of the timed part: instruction counts do not depend on the load
    if args.instructions > 0:
        count_instructions(rows, args)

    doc = {
        "generator": "bench/peers.py",
        "measured": {
            "date": started,
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "pinned_core": core,
            "load_start": load_start,
            "load_end": load_end,
            "kernel": platform.release(),
            "method": f"one core, process CPU time (time.process_time), median of {args.rounds} "
                      "rounds of one pass each",
        },
        "data": {"path": os.path.relpath(args.data, ROOT), "sha256": digest, "pairs": len(hyps)},
        "versions": versions,
        "skipped": skipped,
        "notes": args.note,
        "rows": rows,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

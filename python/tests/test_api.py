"""The Python API beyond the CLI: in-memory scoring, statistics with the C++ semantics, the GIL
released during long calls."""

import math
import threading
import time
import unittest

import numpy as np

import probity
from support import SAMPLE, SUMMEVAL

NAN = float("nan")


class InMemoryScoring(unittest.TestCase):
    def test_reference_shapes(self):
        cands = ["the cat sat on the mat", "a dog"]
        single = probity.score("bleu", cands, ["the cat sat on a mat", "a dog barked"])
        nested = probity.score("bleu", cands, [["the cat sat on a mat"], ["a dog barked"]])
        self.assertTrue(np.array_equal(single, nested))
        self.assertEqual(single.dtype, np.float64)
        multi = probity.score("bleu", cands, [["x y z", "the cat sat on a mat"], ("a dog",)])
        self.assertAlmostEqual(multi[1], 100.0)
        self.assertGreaterEqual(multi[0], single[0])

    def test_a_file_name_streams_with_corpus_scores_per_system(self):
        # A file name runs the CLI's chunked reading: the same item scores as the loaded
        # dataset, and the corpus scores pooled and per system (SummEval: 16 systems).
        ds = probity.load_dataset(SUMMEVAL)
        metrics = ["bleu", "rougeL", "stmt-tv"]
        streamed = probity.score_dataset(SUMMEVAL, metrics)
        loaded = probity.score_dataset(ds, metrics)
        self.assertEqual(list(streamed), list(loaded))
        self.assertEqual(streamed.item_ids, loaded.item_ids)
        for name in loaded:
            np.testing.assert_array_equal(streamed[name], loaded[name], err_msg=name)
            self.assertEqual(streamed.signatures[name], loaded.signatures[name])
        self.assertIsNone(loaded.corpus)
        want = probity.corpus_score("rougeL.f", ds.texts(), ds.references())
        self.assertAlmostEqual(streamed.corpus["rougeL.f"], want, places=12)
        systems = sorted({c.system for t in ds.tasks for c in t.candidates})
        self.assertEqual(sorted(streamed.corpus_by_system), systems)
        one = systems[0]
        texts = [c.text for t in ds.tasks for c in t.candidates if c.system == one]
        refs = [[r.text for r in t.references] for t in ds.tasks for c in t.candidates
                if c.system == one]
        self.assertAlmostEqual(streamed.corpus_by_system[one]["bleu"],
                               probity.corpus_score("bleu", texts, refs), places=9)

    def test_same_scores_as_the_dataset(self):
        # score() reads the strings in place and groups candidates into tasks by their
        # references (the very same strings, or equal ones): every metric's numbers are those of
        # score_dataset on the file, whatever the grouping.
        ds = probity.load_dataset(SUMMEVAL)
        texts, refs = ds.texts(), ds.references()
        copies = [[("%s" % r + ".")[:-1] for r in rs] for rs in refs]  # equal, not identical
        bytes_refs = [[r.encode() for r in rs] for rs in refs]
        for metric in ["bleu", "chrf", "rougeL.f", "rouge2.f"]:
            want = probity.score_dataset(ds, [metric])[metric]
            for given in (refs, copies, bytes_refs, [tuple(r) for r in refs]):
                self.assertTrue(np.array_equal(probity.score(metric, texts, given), want), metric)
        first = [r[0] for r in refs]
        self.assertTrue(np.array_equal(probity.score("bleu", texts, first),
                                       probity.score("bleu", texts, [[r] for r in first])))
        with self.assertRaises(TypeError):
            probity.score("bleu", texts[:2], [["ok"], [3]])

    def test_parts_and_primary(self):
        cands, refs = ["the cat sat"], ["the cat sat on the mat"]
        parts = probity.score_parts("rougeL", cands, refs)
        self.assertEqual(parts["rougeL.p"][0], 1.0)
        self.assertEqual(parts["rougeL.r"][0], 0.5)
        self.assertEqual(probity.score("rougeL", cands, refs)[0], parts["rougeL.f"][0])
        self.assertEqual(probity.score("rougeL.r", cands, refs)[0], 0.5)
        self.assertEqual(list(probity.score_parts("rougeL.r", cands, refs)), ["rougeL.r"])

    def test_corpus_score(self):
        cands = ["the cat sat on the mat today", "a dog barked at the postman"]
        refs = ["the cat sat on the mat", "a dog barked loudly at the postman"]
        # BLEU sums statistics: not the mean of sentence BLEU.
        self.assertNotAlmostEqual(probity.corpus_score("bleu", cands, refs),
                                  float(np.mean(probity.score("bleu", cands, refs))))
        self.assertAlmostEqual(probity.corpus_score("rougeL", cands, refs),
                               float(np.mean(probity.score("rougeL", cands, refs))), places=12)

    def test_mi_metrics_and_negatives(self):
        ds = probity.load_dataset(SAMPLE)
        texts, refs = ds.texts()[:48], ds.references()[:48]
        sources = [t.source for t in ds.tasks for _ in t.candidates][:48]
        gem = probity.score("gem", texts, refs, sources=sources)
        self.assertEqual(gem.shape, (48,))
        self.assertTrue(np.all(np.isfinite(gem)))
        sampled = probity.score("stmt-tv", texts, refs)
        self.assertTrue(np.all(np.isfinite(sampled)))
        # Explicit negatives: the candidate's own references make the contrast vanish.
        own = probity.score("stmt-tv", texts, refs, negatives=[r[:4] for r in refs])
        self.assertTrue(np.all(np.abs(own) < np.abs(sampled) + 1e-12))

    def test_python_callable(self):
        def overlap(candidates, references):
            return [len(set(c.split()) & set(r[0].split())) for c, r in zip(candidates, references)]

        self.assertEqual(list(probity.score(overlap, ["a b c", "x"], ["a c d", "y"])), [2.0, 0.0])
        self.assertEqual(probity.corpus_score(overlap, ["a b c", "x"], ["a c d", "y"]), 1.0)


class DatasetAndPerturb(unittest.TestCase):
    def test_dataset_views(self):
        ds = probity.load_dataset(SAMPLE)
        self.assertEqual(len(ds), 320)
        self.assertEqual(len(ds.items()), 320)
        self.assertEqual(len(ds.references()[0]), 11)
        self.assertEqual(ds.systems()[:2], ["M0", "M1"])
        ref = ds.tasks[0].references[0]
        self.assertEqual(ds.references()[0][0], ref.text)
        self.assertTrue(ref.id)
        with self.assertRaises(probity.UsageError):
            ds.human("fun")
        self.assertIn("20 tasks", repr(ds))

    def test_perturb(self):
        results = probity.perturb(SAMPLE, "degradation", "sentence-deletion", seed=1)
        self.assertEqual(len(results), 320)
        statuses = {r.status for r in results}
        self.assertTrue(statuses <= {"applied", "not_applicable", "unchanged", "failed"})
        self.assertIn("applied", statuses)
        again = probity.perturb(SAMPLE, "degradation", "S", seed=1, threads=1)
        self.assertEqual(results, again)
        self.assertEqual(len(probity.strategies()), 12)
        self.assertEqual([s["code"] for s in probity.strategies("manipulation")],
                         ["R", "M", "P", "N", "H", "S"])


class Statistics(unittest.TestCase):
    def test_correlations(self):
        x, y = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]
        self.assertAlmostEqual(probity.pearson(x, y).statistic, 0.8)
        self.assertAlmostEqual(probity.spearman(x, y).statistic, 0.8)
        tau, p = probity.kendall_tau_b(x, y)
        self.assertAlmostEqual(tau, 0.6)
        self.assertAlmostEqual(p, 0.23333333333333334)
        self.assertEqual(probity.correlation(x, y, "kendall"), probity.kendall_tau_b(x, y))
        self.assertTrue(math.isnan(probity.spearman([1, 1, 1], [1, 2, 3]).statistic))
        self.assertTrue(math.isnan(probity.pearson([1], [2]).pvalue))

    def test_paired_t_and_corrections(self):
        r = probity.paired_t([1.0, 2.0, 3.5], [2.0, 3.0, 5.0])
        self.assertEqual(r.n, 3)
        self.assertLess(r.mean_delta, 0)
        self.assertLess(r.p_less, 0.05)
        same = probity.paired_t([1.0, 1.0], [1.0, 1.0])
        self.assertTrue(math.isnan(same.t))
        holm = probity.holm([0.01, 0.04, NAN, 0.03])
        self.assertTrue(np.allclose(holm.adjusted, [0.03, 0.06, NAN, 0.06], equal_nan=True))
        self.assertEqual(list(holm.reject), [True, False, False, False])
        bh = probity.benjamini_hochberg([0.01, 0.04, 0.03])
        self.assertTrue(np.allclose(bh.adjusted, [0.03, 0.04, 0.04]))

    def test_bootstrap_and_permutation(self):
        rng = np.random.default_rng(0)
        h = rng.normal(size=200)
        a = h + rng.normal(scale=0.5, size=200)
        b = h + rng.normal(scale=2.0, size=200)
        boot = probity.bootstrap_correlation(a, h, resamples=300, seed=1)
        self.assertLess(boot.ci_low, boot.estimate)
        self.assertLess(boot.estimate, boot.ci_high)
        self.assertEqual(len(boot.distribution), 300)
        again = probity.bootstrap_correlation(a, h, resamples=300, seed=1, threads=1)
        self.assertTrue(np.array_equal(boot.distribution, again.distribution))
        clustered = probity.bootstrap_correlation(a, h, "pearson", resamples=100,
                                                  clusters=[f"s{i % 10}" for i in range(200)])
        self.assertEqual(clustered.undefined, 0)
        perm = probity.permutation_correlation_diff(a, b, h, permutations=300, seed=2)
        self.assertGreater(perm.delta, 0)
        self.assertLess(perm.p, 0.05)
        self.assertEqual(perm.permutations, 300)
        self.assertEqual(probity.cem_ord([1, 2], [1, 2], [1, 2, 3]), 1.0)


class GilReleased(unittest.TestCase):
    def test_other_threads_run_during_a_call(self):
        # Calls repeat until they span 0.5 s in all, whatever the machine's speed; a tick of the
        # main thread strictly inside a call (margins of 20 ms, four switch intervals) can only
        # happen when the call released the GIL.
        ds = probity.load_dataset(SUMMEVAL)
        calls = []

        def work():
            first = time.monotonic()
            while not calls or calls[-1][1] - first < 0.5:
                start = time.monotonic()
                probity.score_dataset(ds, ["chrf++", "rougeLsum", "rouge2"], threads=1)
                calls.append((start, time.monotonic()))

        worker = threading.Thread(target=work)
        ticks = []
        worker.start()
        while worker.is_alive():
            ticks.append(time.monotonic())  # pure Python work, needs the GIL
            sum(range(1000))
        worker.join()
        inside = [t for t in ticks if any(s + 0.02 < t < e - 0.02 for s, e in calls)]
        self.assertGreater(sum(e - s for s, e in calls), 0.5)
        self.assertGreater(len(inside), 10)

if __name__ == "__main__":
    unittest.main()

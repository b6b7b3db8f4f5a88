"""Errors raise Python exceptions with the CLI's messages; Ctrl-C interrupts long calls."""

import _thread
import signal
import tempfile
import threading
import time
import unittest

import numpy as np

import probity
from support import SAMPLE, SUMMEVAL, cli_error


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


class InputErrors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_invalid_field(self):
        bad = write(f"{self.tmp.name}/bad.jsonl",
                    '{"task_id": "t1", "references": ["a b"], "candidates": '
                    '[{"id": "c1", "text": "x"}]}\n'
                    '{"task_id": "t2", "references": ["a b"], "candidates": '
                    '[{"id": "c1", "text": 5}]}\n')
        code, message = cli_error("score", "--data", bad, "--metric", "bleu")
        self.assertEqual(code, 3)
        with self.assertRaises(probity.InputError) as cm:
            probity.load_dataset(bad)
        e = cm.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual(str(e), message)
        self.assertEqual(e.file, bad)
        self.assertEqual(e.line, 2)
        self.assertEqual(e.field, "candidates[0].text")
        self.assertEqual(e.detail, "expected a string, got number")

    def test_malformed_json_has_empty_field(self):
        bad = write(f"{self.tmp.name}/broken.jsonl", '{"task_id": \n')
        _, message = cli_error("score", "--data", bad, "--metric", "bleu")
        with self.assertRaises(probity.InputError) as cm:
            probity.score_dataset(bad, "bleu")
        self.assertEqual(str(cm.exception), message)
        self.assertEqual((cm.exception.line, cm.exception.field), (1, ""))

    def test_skip_invalid(self):
        bad = write(f"{self.tmp.name}/mixed.jsonl",
                    '{"task_id": "t1", "references": ["a b"], "candidates": '
                    '[{"id": "c1", "text": "a b c"}, {"id": "c2", "text": 5}]}\n')
        ds = probity.load_dataset(bad, skip_invalid=True)
        self.assertEqual(ds.num_candidates(), 1)
        self.assertEqual(len(ds.skipped), 1)
        s = ds.skipped[0]
        self.assertEqual((s.file, s.line, s.field, s.message),
                         (bad, 1, "candidates[1].text", "expected a string, got number"))

    def test_missing_file(self):
        with self.assertRaises(probity.InputError) as cm:
            probity.load_dataset(f"{self.tmp.name}/nope.jsonl")
        self.assertIn("cannot open file", str(cm.exception))


class UsageErrors(unittest.TestCase):
    def assert_usage(self, cli_args, call):
        code, message = cli_error(*cli_args)
        self.assertEqual(code, 2)
        with self.assertRaises(probity.UsageError) as cm:
            call()
        self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(str(cm.exception), message)

    def test_unknown_metric(self):
        self.assert_usage(["score", "--data", SAMPLE, "--metric", "blue"],
                          lambda: probity.score_dataset(SAMPLE, ["blue"]))
        self.assert_usage(["score", "--data", SAMPLE, "--metric", "blue"],
                          lambda: probity.score("blue", ["a"], ["a"]))

    def test_unknown_option_and_part(self):
        self.assert_usage(["score", "--data", SAMPLE, "--metric", "bleu,tokenise=intl"],
                          lambda: probity.score_dataset(SAMPLE, ["bleu,tokenise=intl"]))
        self.assert_usage(["score", "--data", SAMPLE, "--metric", "rougeL.x"],
                          lambda: probity.score("rougeL.x", ["a"], ["a"]))

    def test_unknown_strategy(self):
        with tempfile.TemporaryDirectory() as out:
            self.assert_usage(
                ["audit", "--data", SAMPLE, "--metric", "bleu", "--degrade", "X", "--out", out],
                lambda: probity.audit(SAMPLE, ["bleu"], degrade="X"))
        with self.assertRaises(probity.UsageError):
            probity.perturb(SAMPLE, "degradation", "X")

    def test_unknown_dimension(self):
        with self.assertRaises(probity.UsageError) as cm:
            probity.correlate(np.zeros(320), probity.load_dataset(SAMPLE),
                              dimensions=["fun"])
        self.assertIn("dimension 'fun' is not in", str(cm.exception))

    def test_shape_errors(self):
        with self.assertRaises(probity.UsageError):
            probity.score("bleu", ["a", "b"], ["a"])
        with self.assertRaises(probity.UsageError):
            probity.score("bleu", ["a"], [[]])
        with self.assertRaises(ValueError):
            probity.pearson([1, 2, 3], [1, 2])
        with self.assertRaises(ValueError):
            probity.spearman([[1, 2], [3, 4]], [1, 2])


class PythonMetricErrors(unittest.TestCase):
    def test_exception_propagates(self):
        class Boom(Exception):
            pass

        def broken(candidates, references):
            raise Boom("no")

        with self.assertRaises(Boom):
            probity.audit(SAMPLE, ["bleu", broken], bootstrap=10, degrade="S",
                          manipulate="none")
        with self.assertRaises(Boom):
            probity.score_dataset(SAMPLE, [broken])

    def test_wrong_length(self):
        def short(candidates, references):
            return [1.0]

        with self.assertRaises(ValueError) as cm:
            probity.audit(SAMPLE, [short], bootstrap=10, degrade="S", manipulate="none")
        self.assertRegex(str(cm.exception),
                         r"^Python metric 'short' returned 1 values for \d+ candidates")

    def test_duplicate_names(self):
        with self.assertRaises(probity.UsageError):
            probity.audit(SAMPLE, [lambda c, r: [0] * len(c), lambda c, r: [1] * len(c)])


class Interrupt(unittest.TestCase):
    # _thread.interrupt_main() does nothing while SIGINT is ignored, as it is for a command
    # started in the background by a non-interactive shell: take Python's handler for the test.
    def setUp(self):
        self._sigint = signal.signal(signal.SIGINT, signal.default_int_handler)

    def tearDown(self):
        signal.signal(signal.SIGINT, self._sigint)

    def interrupt_after(self, seconds, call):
        timer = threading.Timer(seconds, _thread.interrupt_main)
        start = time.monotonic()
        timer.start()
        try:
            call()
        except KeyboardInterrupt:
            return time.monotonic() - start
        try:  # the call finished first: take the pending interrupt before failing
            time.sleep(seconds + 1)
        except KeyboardInterrupt:
            pass
        self.fail("the call finished before the interrupt")

    def test_audit_stops_on_ctrl_c(self):
        elapsed = self.interrupt_after(0.5, lambda: probity.audit(
            SUMMEVAL, ["bleu", "chrf", "rougeL", "stmt-tv", "gem"], bootstrap=1000))
        self.assertLess(elapsed, 5.0)

    def test_score_dataset_stops_on_ctrl_c(self):
        ds = probity.load_dataset(SUMMEVAL)
        elapsed = self.interrupt_after(0.2, lambda: [
            probity.score_dataset(ds, ["stmt-tv", "chrf++", "rougeLsum"], threads=1)
            for _ in range(20)])
        self.assertLess(elapsed, 5.0)


if __name__ == "__main__":
    unittest.main()

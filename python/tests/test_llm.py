"""The LLM session from Python, against a small OpenAI-compatible server written here with the
standard library (the C++ tests use the full mock server; this one only answers the judge)."""

import http.server
import json
import os
import signal
import tempfile
import threading
import unittest

import numpy as np

import probity
from support import SAMPLE


def _send_chat(handler, model, content):
    """Writes an OpenAI chat completion whose message is `content`."""
    out = {"id": "x", "object": "chat.completion", "model": model,
           "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content}}],
           "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}
    data = json.dumps(out).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class _ServedTest(unittest.TestCase):
    """Tests against a stdlib server answering with `handler`, on a free port for the class."""
    handler = None

    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), cls.handler)
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.url = f"http://127.0.0.1:{cls.server.server_address[1]}/v1"

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        probity.disconnect_llm()


class _Judge(http.server.BaseHTTPRequestHandler):
    requests = 0
    authorizations = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests += 1
        type(self).authorizations.append(self.headers.get("Authorization", ""))
        prompt = body["messages"][0]["content"]
        candidate = prompt.split("CANDIDATE:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
        rating = min(5, max(1, len(candidate.split())))  # 1 point per word, up to 5
        _send_chat(self, body["model"], json.dumps({"rating": rating}))

    def log_message(self, *args):
        pass


class LlmSessionTest(_ServedTest):
    handler = _Judge

    def test_judge_scores_then_cache_serves_the_rerun(self):
        candidates = ["one", "one two three", "a b c d e f g"]
        references = ["ref"] * 3
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "cache.sqlite")
            os.environ["PROBITY_TEST_KEY"] = "sk-secret-python-key"
            probity.configure_llm(base_url=self.url, model="m", cache=cache,
                                  api_key_env="PROBITY_TEST_KEY")
            scores = probity.score("llm-judge", candidates, references)
            np.testing.assert_array_equal(scores, [1.0, 3.0, 5.0])
            first = _Judge.requests
            self.assertEqual(first, 3)
            usage = probity.llm_usage()
            self.assertEqual(usage["total"]["answers"], 3)
            self.assertEqual(usage["total"]["questions"], 3)
            self.assertNotIn("sk-secret-python-key", json.dumps(usage))
            self.assertIn("Bearer sk-secret-python-key", _Judge.authorizations)
            self.assertNotIn("sk-secret", probity.signature("llm-judge"))
            # A new session on the same cache: no request.
            probity.configure_llm(base_url=self.url, model="m", cache=cache,
                                  api_key_env="PROBITY_TEST_KEY")
            again = probity.score("llm-judge", candidates, references)
            np.testing.assert_array_equal(again, scores)
            self.assertEqual(_Judge.requests, first)
            self.assertEqual(probity.llm_usage()["total"]["cache_hits"], 3)

    def test_without_a_session_llm_metrics_are_a_usage_error(self):
        probity.disconnect_llm()
        self.assertIsNone(probity.llm_usage())
        with self.assertRaises(probity.UsageError) as ctx:
            probity.score("llm-judge", ["a"], ["b"])
        self.assertIn("--llm-base-url", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()


class _SlowJudge(_Judge):
    """Answers after a delay, so that a batch waits on the server."""
    delay = 0.3

    def do_POST(self):  # noqa: N802
        import time
        time.sleep(type(self).delay)
        try:
            super().do_POST()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client cancelled this request (the test's Ctrl-C)


class LlmInterruptTest(_ServedTest):
    """Ctrl-C while probity waits for LLM answers raises KeyboardInterrupt at once; the answers
    that had arrived stay in the cache (the CLI stops on Ctrl-C as any program does)."""

    # _thread.interrupt_main() does nothing while SIGINT is ignored, as it is for a command
    # started in the background by a non-interactive shell: take Python's handler for the test.
    handler = _SlowJudge

    def setUp(self):
        self._sigint = signal.signal(signal.SIGINT, signal.default_int_handler)

    def tearDown(self):
        signal.signal(signal.SIGINT, self._sigint)

    def test_ctrl_c_during_an_llm_batch(self):
        import _thread
        import time
        candidates = [f"candidate number {i}" for i in range(400)]
        references = ["ref"] * len(candidates)
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "cache.sqlite")
            # Two in flight at 0.3 s each: the batch would take a minute.
            probity.configure_llm(base_url=self.url, model="m", cache=cache, concurrency=2)
            timer = threading.Timer(1.0, _thread.interrupt_main)
            start = time.monotonic()
            timer.start()
            with self.assertRaises(KeyboardInterrupt):
                probity.score("llm-judge", candidates, references)
            elapsed = time.monotonic() - start
            self.assertLess(elapsed, 2.0)  # the interrupt at 1.0 s, then within a second
            usage = probity.llm_usage()["total"]
            self.assertGreater(usage["answers"], 0)
            # What arrived before the interrupt is cached: a rerun asks only for the rest.
            before = _SlowJudge.requests
            _SlowJudge.delay = 0
            probity.configure_llm(base_url=self.url, model="m", cache=cache, concurrency=16)
            scores = probity.score("llm-judge", candidates, references)
            self.assertEqual(len(scores), len(candidates))
            self.assertGreater(probity.llm_usage()["total"]["cache_hits"], 0)
            self.assertLess(_SlowJudge.requests - before, len(candidates))
            _SlowJudge.delay = 0.3


class _Rewriter(http.server.BaseHTTPRequestHandler):
    """Answers every chat request with a rewritten text, as a perturber model would."""
    requests = 0

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests += 1
        text = f"It may perhaps be that the rewritten answer number {type(self).requests} holds."
        _send_chat(self, body["model"], json.dumps({"text": text}))

    def log_message(self, *args):
        pass


class EngineTest(_ServedTest):
    """probity.Engine: state of its own, and LLM perturbations from Python."""

    handler = _Rewriter
    data = str(SAMPLE)

    def test_llm_strategies_run_from_python_on_the_engine_that_has_the_session(self):
        engine = probity.Engine(base_url=self.url, model="m")
        codes = [s["code"] for s in engine.strategies("manipulation")]
        self.assertIn("llm-H", codes)
        self.assertNotIn("llm-H", [s["code"] for s in probity.strategies("manipulation")])
        ds = probity.load_dataset(self.data)
        before = _Rewriter.requests
        results = engine.perturb(ds, "manipulation", "llm:H")
        self.assertEqual(len(results), ds.num_candidates())
        self.assertEqual(_Rewriter.requests - before, ds.num_candidates())
        self.assertEqual({r.status for r in results}, {"applied"}, results[:2])
        self.assertTrue(all("rewritten answer number" in r.text for r in results))
        # The default engine has no session: a named usage error, no request.
        with self.assertRaisesRegex(probity.UsageError, "LLM endpoint"):
            probity.perturb(ds, "manipulation", "llm:H")
        self.assertEqual(engine.llm_usage()["total"]["answers"], ds.num_candidates())
        self.assertIsNone(probity.Engine().llm_usage())

    def test_engines_share_nothing(self):
        a, b = probity.Engine(), probity.Engine()
        cands, refs = ["the cat sat on the mat", "a dog"], [["the cat sat"], ["a dog barked"]]
        np.testing.assert_array_equal(a.score("gem", cands, refs), b.score("gem", cands, refs))
        np.testing.assert_array_equal(a.score("gem", cands, refs), probity.score("gem", cands, refs))
        a.configure_llm(base_url=self.url, model="m")
        self.assertIsNotNone(a.llm_usage())
        self.assertIsNone(b.llm_usage())

    def test_audit_returns_native_objects_with_keyword_arguments(self):
        report = probity.Engine().audit(self.data, ["bleu"], degrade="S", manipulate="none",
                                        bootstrap=20, min_applied=5)
        self.assertIsInstance(report, dict)
        self.assertEqual(report["min_applied"], 5)
        self.assertEqual(report["metrics"], ["bleu"])
        self.assertEqual([t["code"] for t in report["tests"]], ["S"])

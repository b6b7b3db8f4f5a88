"""Batch files from Python: batch="file" raises BatchPending naming the requests file; the file,
answered as vllm run-batch would answer it and loaded with cache_import, lets the same call go
on from the cache, with the scores of the online run."""

import glob
import json
import os
import tempfile
import unittest

import numpy as np

import probity


def _rating(body):
    prompt = body["messages"][0]["content"]
    candidate = prompt.split("CANDIDATE:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
    return min(5, max(1, len(candidate.split())))  # 1 point per word, up to 5


def _answer(requests_path, results_path):
    """vllm run-batch's output lines for a requests file, the judge rating by word count."""
    with open(requests_path) as f, open(results_path, "w") as out:
        for n, line in enumerate(f):
            req = json.loads(line)
            body = {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": req["body"]["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant",
                                             "content": json.dumps({"rating": _rating(req["body"])})}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}
            out.write(json.dumps({"id": f"vllm-{n}", "custom_id": req["custom_id"],
                                  "response": {"status_code": 200, "request_id": f"r{n}",
                                               "body": body},
                                  "error": None}) + "\n")


class BatchFileTest(unittest.TestCase):
    def tearDown(self):
        probity.disconnect_llm()

    def test_file_round_trip_through_cache_import(self):
        candidates = ["one", "one two three", "a b c d e f g"]
        references = ["ref"] * 3
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "cache.sqlite")
            batches = os.path.join(tmp, "batches")
            # No server listens there: file mode sends nothing.
            probity.configure_llm(base_url="http://127.0.0.1:9/v1", model="m", cache=cache,
                                  batch="file", batch_dir=batches)
            with self.assertRaises(probity.BatchPending) as ctx:
                probity.score("llm-judge", candidates, references)
            self.assertIn("probity cache import", str(ctx.exception))
            files = glob.glob(os.path.join(batches, "requests-*.jsonl"))
            self.assertEqual(len(files), 1)
            results = os.path.join(tmp, "results.jsonl")
            _answer(files[0], results)
            summary = probity.cache_import(cache, results)
            self.assertEqual(summary["answers"], 3)
            self.assertEqual(summary["closed_batches"], 1)
            scores = probity.score("llm-judge", candidates, references)
            np.testing.assert_array_equal(scores, [1.0, 3.0, 5.0])
            self.assertEqual(probity.llm_usage()["total"]["cache_hits"], 3)
            [batch] = probity.cache_batches(cache)
            self.assertFalse(batch["open"])
            self.assertEqual(batch["requests"], 3)
            self.assertEqual(probity.cache_stats(cache)["entries"], 3)
            export = os.path.join(tmp, "export.jsonl")
            self.assertEqual(probity.cache_export(cache, export), 3)
            other = os.path.join(tmp, "other.sqlite")
            self.assertEqual(probity.cache_import(other, [export])["answers"], 3)
            merged = os.path.join(tmp, "merged.sqlite")
            self.assertEqual(probity.cache_merge(merged, [cache, other])["written"], 3)

    def test_bad_batch_arguments_are_usage_errors(self):
        with self.assertRaises(probity.UsageError):
            probity.configure_llm(base_url="http://127.0.0.1:9/v1", model="m", batch="fax")
        with self.assertRaises(probity.UsageError):
            probity.configure_llm(base_url="http://127.0.0.1:9/v1", model="m", budget_usd=-1)

    def test_a_bad_results_line_names_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            results = os.path.join(tmp, "r.jsonl")
            with open(results, "w") as f:
                f.write('{"id": 1}\n')
            with self.assertRaises(probity.InputError) as ctx:
                probity.cache_import(os.path.join(tmp, "c.sqlite"), results)
            self.assertEqual(ctx.exception.line, 1)
            self.assertEqual(ctx.exception.field, "custom_id")


if __name__ == "__main__":
    unittest.main()

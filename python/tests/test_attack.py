"""probity.attack: the same function attacked through four routes (the built-in chrf, a Python
callable, an exec: scorer and an http: scorer, each computing chrF with probity's own chrf)
gives identical results; a callable is given the items' sources; the CLI's attack.json agrees
with the Python result; a scores: file is refused naming the routes that work."""

import inspect
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import probity

from support import BUILD, REPO, SAMPLE, run_cli

SCORERS = REPO / "tests" / "scorers"
# The scorers import the module from this build tree.
ENV_PATH = str(BUILD / "python")
OPTIONS = dict(seed=7, budget=12, steps=2, programs=4, bootstrap=0, threads=2)


def small_dataset(path):
    """The first 4 tasks of the bundled sample, as a file (the CLI reads the same)."""
    with open(SAMPLE, encoding="utf-8") as f:
        lines = f.readlines()[:4]
    pathlib.Path(path).write_text("".join(lines), encoding="utf-8")
    return path


def comparable(entry):
    """A metric's attack entry without what names it (also in each held-out test) or depends on
    the clock."""
    out = {k: v for k, v in entry.items() if k not in ("metric", "signature", "seconds")}
    out["universal"] = [dict(u, held_out={k: v for k, v in u["held_out"].items() if k != "metric"})
                        for u in out["universal"]]
    return out


def chrf_callable(candidates, references):
    return probity.score("chrf", candidates, references)


class HttpChrfServer:
    def __enter__(self):
        env = dict(os.environ, PYTHONPATH=ENV_PATH)
        self.proc = subprocess.Popen([sys.executable, str(SCORERS / "chrf_http_server.py")],
                                     stdout=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        if not line.startswith("port "):
            self.proc.kill()
            raise RuntimeError(f"the test server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/score"
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


class AttackRoutesTest(unittest.TestCase):
    def test_four_routes_to_chrf_give_identical_attacks(self):
        with tempfile.TemporaryDirectory() as tmp, HttpChrfServer() as server:
            data = small_dataset(os.path.join(tmp, "d.jsonl"))
            exec_spec = (f"exec:PYTHONPATH={ENV_PATH} {sys.executable} "
                         f"{SCORERS / 'chrf_scorer.py'},batch=50,version=1")
            http_spec = f"{server.url},batch=40"
            report = probity.attack(
                data, ["chrf", probity.PythonMetric(chrf_callable, name="chrf_py"), exec_spec,
                       http_spec], **OPTIONS)
            entries = report["metrics"]  # names first, then callables (as the audit)
            self.assertEqual(len(entries), 4)
            builtin = comparable(entries[0])
            self.assertGreater(entries[0]["queries"], report["items"])
            self.assertTrue(entries[0]["universal"], "no held-out programs were tested")
            for other in entries[1:]:
                self.assertEqual(comparable(other), builtin, other["metric"])
            self.assertEqual([e["metric"] for e in entries],
                             ["chrf", exec_spec, http_spec, "python:chrf_py"])
            # The tables `probity attack` prints come with it; four metrics: a defense matrix.
            self.assertIsInstance(report, probity.AttackResult)
            self.assertIn("Defense matrix", report.text())
            for entry in entries:
                self.assertIn(entry["metric"], report.text())

            # The CLI on the same file and options writes the same numbers.
            out = os.path.join(tmp, "cli")
            run_cli("attack", "--data", data, "--metric", "chrf", "--metric", exec_spec,
                    "--metric", http_spec, "--out", out, "--seed", 7, "--budget", 12,
                    "--steps", 2, "--programs", 4, "--bootstrap", 0, "--threads", 2)
            with open(os.path.join(out, "attack.json"), encoding="utf-8") as f:
                cli = json.load(f)
            self.assertEqual(cli["held_out_tasks"], report["held_out_tasks"])
            for entry in cli["metrics"]:
                self.assertEqual(comparable(entry), builtin, entry["metric"])

    def test_a_callable_is_given_the_sources(self):
        seen = []

        def length(candidates, references, sources):
            seen.extend(sources)
            return [float(len(c)) for c in candidates]

        with tempfile.TemporaryDirectory() as tmp:
            data = small_dataset(os.path.join(tmp, "d.jsonl"))
            report = probity.attack(data, [length], seed=1, budget=4, steps=1, programs=2,
                                    bootstrap=0, threads=1)
            sources = {t.source for t in probity.load_dataset(data).tasks}
        self.assertTrue(report["metrics"][0]["items"] > 0)
        self.assertTrue(seen)
        self.assertEqual(set(seen), sources)
        self.assertNotIn("", sources)

        # score_dataset and score give them too, item by item.
        ds = probity.load_dataset(SAMPLE)
        seen.clear()
        probity.score_dataset(ds, [length])
        self.assertEqual(seen, [t.source for t in ds.tasks for _ in t.candidates])
        seen.clear()
        probity.score(length, ["a", "b"], ["r", "r"], sources=["s1", "s2"])
        self.assertEqual(seen, ["s1", "s2"])

    def test_the_defaults_are_the_libraries(self):
        o = probity._probity.AttackOptions()
        self.assertEqual((o.strategy, o.budget, o.steps, o.programs), ("greedy", 200, 3, 10))

    def test_every_attack_option_is_a_keyword(self):
        """A field added to the library's AttackOptions without its keyword here fails: the
        function would silently lack a CLI option."""
        fields = {n for n in dir(probity._probity.AttackOptions()) if not n.startswith("_")}
        params = set(inspect.signature(probity.attack).parameters)
        keywords = {probity._ATTACK_ALIASES.get(p, p) for p in params} - {"family"}
        self.assertEqual(fields - keywords, set())

    def test_the_new_families_and_options_reach_the_library(self):
        with tempfile.TemporaryDirectory() as tmp:
            data = small_dataset(os.path.join(tmp, "d.jsonl"))
            report = probity.attack(data, ["chrf"], family=["master-key", "universal-phrase"],
                                    tolerance=0.1, phrase_words=2, phrase_candidates=5,
                                    bootstrap=0, threads=1, seed=3)
            out = os.path.join(tmp, "out")
            run_cli("attack", "--data", data, "--metric", "chrf", "--family",
                    "master-key,universal-phrase", "--tolerance", 0.1, "--phrase-words", 2,
                    "--phrase-candidates", 5, "--bootstrap", 0, "--threads", 1, "--seed", 3,
                    "--out", out)
            with open(os.path.join(out, "attack.json"), encoding="utf-8") as f:
                cli = json.load(f)
        self.assertEqual(report["options"], cli["options"])
        self.assertEqual(report["options"]["tolerance"], 0.1)
        m = report["metrics"][0]
        self.assertEqual([r["family"] for r in m["replacements"]], ["master-key"])
        self.assertEqual([u["search"] for u in m["suffixes"]], ["universal-phrase"])
        self.assertEqual(comparable(m), comparable(cli["metrics"][0]))

    def test_a_scores_file_is_refused_naming_the_routes(self):
        with tempfile.TemporaryDirectory() as tmp:
            data = small_dataset(os.path.join(tmp, "d.jsonl"))
            scores = os.path.join(tmp, "s.jsonl")
            run_cli("score", "--data", data, "--metric", "chrf", "--out", scores)
            with self.assertRaises(probity.UsageError) as e:
                probity.attack(data, [f"scores:{scores},data={data}"], budget=2)
        self.assertIn("exec:COMMAND", str(e.exception))
        self.assertIn("probity.attack", str(e.exception))


if __name__ == "__main__":
    unittest.main()

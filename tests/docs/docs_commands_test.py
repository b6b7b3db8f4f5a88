#!/usr/bin/env python3
"""Runs every shell command of README.md and docs/**/*.md against a built probity.

Every ```sh block is cut into commands (a command ends where `bash -n` accepts the lines read so
far, so continuation lines, loops and multi-line quotes stay whole). The commands of one
document run in order in one bash process (a variable one command sets, the next one sees), in a
scratch directory holding:
  - `probity` on PATH: the binary under test;
  - data/ and examples/: the repository's, so that their paths work as written;
  - the placeholder files the docs name for "your files" (data.jsonl, preds.csv, ref.txt, ...),
    made from the bundled SummEval sample (fixtures() below), except d.jsonl, whose texts are
    words the embedding fakes know;
  - I=0, N=1: a one-shard run of the cluster commands, whose shard number and count a job
    script sets.
With --fake-servers (probity_fake_servers, the test-only executable of
tests/llm/fakes/serve_fakes.cpp) the commands that call an LLM or embedding server run against
the repository's fake servers (vLLM for the LLM roles, text-embeddings-inference and vLLM pooling
for BERTScore): one fake per served model, started once; only the server's address changes, in
the command text and in the scratch copy of examples/probity.toml (whose api_key_env variables
are set: the fakes check no key). Without --fake-servers those commands are not run.
Each command must exit 0, unless it is in NOT_RUN (with the cause: a real server binary, a
prompt the fakes cannot tokenize, a download, root, or CI itself) or in EXPECTED_TO_FAIL_UNTIL_FIXED (with the exit code it has
today and why). An entry that matches no command fails the test, so the lists cannot go stale.

  tests/docs/docs_commands_test.py --probity build/probity --source . [--fake-servers PATH]
                                   [--keep] [--only FILE]
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading

# (document, text the command contains) -> why the test does not run it.
NOT_RUN = {
    ("README.md", "./scripts/quickstart.sh"):
        "installs packages and rebuilds ./build with the tests off (the tree this test runs "
        "from); its cost is measured by hand, its audit command is the one below it in README.md",
    ("README.md", "./scripts/test.sh"): "is CI itself (this test runs inside it)",
    ("README.md", "--perturber llm --llm-base-url"):
        "gem,predictor=llm needs prompt log-probabilities (/v1/completions) of every SummEval "
        "prompt, and the fake vLLM tokenizes only the texts of its committed fixture "
        "(tests/llm/fixtures/tokens/llama3.json): every other prompt is its HTTP 500, so probity "
        "exits 5; besides, the fakes' copy model writes no usable answer to the llm-D, llm-U and "
        "llm-M perturbation prompts (a [GAP] left, over the word cap, no quoted text to copy)",
    ("README.md", "cmake --build build"): "rebuilds the tree under test (./build)",
    ("README.md", "cmake --install build"):
        "writes outside the scratch directory (a prefix); ctest's "
        "Build.MovedInstallTreeFindsItsPrompts installs and moves a tree",
    ("README.md", "cpack -G DEB"): "ctest's Build.DebianPackageAuditsTheSample builds and installs the .deb",
    ("README.md", "pip install --no-build-isolation"):
        "ctest's Build.PipInstallsThePackageIntoAVenv installs the package into a venv",
    ("docs/bertscore.md", "from transformers import"):
        "downloads roberta-large from the Hugging Face hub (Python transformers)",
    ("docs/bertscore.md", "text-embeddings-router"):
        "starts a real embedding server (text-embeddings-inference); the command below it runs "
        "against the fake",
    ("docs/bertscore.md", "vllm serve"):
        "starts a real embedding server (vLLM); the command below it runs against the fake",
    ("docs/cluster.md", "sbatch --parsable"):
        "needs a Slurm cluster; ctest's Cluster.SlurmJobArrayEqualsUnshardedAudit runs these "
        "job scripts on a one-node Slurm",
    ("docs/cluster.md", "sbatch --dependency"): "as above",
    ("docs/cluster.md", "ctest --test-dir build -L slurm"): "is a ctest run of its own (the test above)",
    ("docs/recipes.md", "--config examples/probity.toml --perturber llm"):
        "the token/ar cells (mi:*/token/ar,predictor=llm, the lm role) need prompt "
        "log-probabilities of every prompt of three whole datasets, and the fake vLLM tokenizes "
        "only the texts of its committed fixture (tests/llm/fixtures/tokens/llama3.json): every "
        "other prompt is its HTTP 500, so probity exits 5; its --perturber llm meets the copy "
        "model's limits named for README.md's LLM example",
    ("docs/recipes.md", "--metric 'llm-judge,mode=geval' "):
        "the fake vLLM answers a prompt outside its tokenizer fixture "
        "(tests/llm/fixtures/tokens/llama3.json) with synthetic tokens that have no top "
        "log-probabilities, which probity rightly refuses; tests/metrics/geval_test.cpp replays "
        "a real llama.cpp G-Eval run instead",
    ("docs/recipes.md", "mode=geval,estimate=samples"):
        "the fake vLLM's answer to a prompt without a response schema is \"ok\", never a rating, "
        "so every item is unparseable and probity exits 5 as it should; "
        "tests/audit/judge_diagnostics_test.cpp runs estimate=samples on a fake that rates",
}

# (document, text the command contains) -> (the exit code it has today, why). Flip an entry to
# nothing once the cause is fixed: the test then requires exit 0.
EXPECTED_TO_FAIL_UNTIL_FIXED = {}

DOCUMENTS = ["README.md", "docs"]

# The servers the docs' commands call, and the fakes that stand in for them: an LLM server by
# the model it serves (vLLM answers another model name with its 404), an embedding server by its
# kind (the tei: or vllm: of a bertscore spec) and the spec's model=. The LLM models are those
# of --llm-model in the docs and of examples/probity.toml.
FAKE_LLM_MODELS = ["my-model", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"]
FAKE_EMBED_MODELS = ["roberta-large"]
LLM_URL = re.compile(r"(--llm-base-url\s+)(http://127\.0\.0\.1:\d+/v1)")
EMBED_URL = re.compile(r"\b(tei|vllm):http://127\.0\.0\.1:\d+([^'\"\s]*)")
CONFIG = "--config examples/"
# (document, text the command contains) -> why it needs the fakes though it names no server.
AFTER_A_SERVER = {
    ("docs/recipes.md", "probity compare --data my.jsonl --scores scores.jsonl"):
        "reads the LLM-scored file of the command above",
}


def calls_a_server(doc, text):
    """Whether the command needs the fake servers (why), and whether it calls one itself."""
    if LLM_URL.search(text) or EMBED_URL.search(text) or CONFIG in text:
        return "calls an LLM or embedding server", True
    return lookup(AFTER_A_SERVER, doc, text)[1], False


class FakeServers:
    """probity_fake_servers, started once: one vLLM fake per LLM model, one text-embeddings-
    inference and one vLLM pooling fake per embedding model; it stops at EOF on its stdin."""

    def __init__(self, path):
        args = [str(path)]
        for model in FAKE_LLM_MODELS:
            args += ["--llm", model]
        for model in FAKE_EMBED_MODELS:
            args += ["--tei", model, "--vllm-embed", model]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        watchdog = threading.Timer(60, self.proc.kill)  # a fake that never prints its servers
        watchdog.start()
        self.urls = {"llm": {}, "tei": {}, "vllm_embed": {}}
        try:
            for _ in range(len(FAKE_LLM_MODELS) + 2 * len(FAKE_EMBED_MODELS)):
                line = self.proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"{path} exited ({self.proc.wait()}) before naming its "
                                       "servers")
                row = json.loads(line)
                self.urls[row["kind"]][row["model"]] = row["url"]
        finally:
            watchdog.cancel()

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def llm(self, model):
        if model not in self.urls["llm"]:
            raise KeyError(f"no fake LLM server serves {model!r} (FAKE_LLM_MODELS)")
        return self.urls["llm"][model]

    def rewrite(self, text):
        """The command with each server address replaced by its fake's address."""
        def llm(m):
            model = re.search(r"--llm-model\s+(\S+)", text)
            return m.group(1) + self.llm(model.group(1) if model else "")

        def embed(m):
            kind = {"tei": "tei", "vllm": "vllm_embed"}[m.group(1)]
            model = re.search(r"\bmodel=([^,'\"\s]+)", m.group(2))
            url = self.urls[kind].get(model.group(1) if model else "")
            if url is None:
                raise KeyError(f"no fake {kind} server serves {model and model.group(1)!r}")
            return f"{m.group(1)}:{url}{m.group(2)}"

        return EMBED_URL.sub(embed, LLM_URL.sub(llm, text))

    def rewrite_config(self, text):
        """A probity.toml with each base_url replaced by the fake serving its table's model (or
        [llm.default]'s, which the roles inherit)."""
        models, section = {}, None
        for line in text.split("\n"):
            if m := re.match(r"\s*\[([^\]]+)\]", line):
                section = m.group(1)
            elif m := re.match(r'\s*model\s*=\s*"([^"]*)"', line):
                models[section] = m.group(1)
        out, section = [], None
        for line in text.split("\n"):
            if m := re.match(r"\s*\[([^\]]+)\]", line):
                section = m.group(1)
            elif m := re.match(r'(\s*base_url\s*=\s*")[^"]*(".*)', line):
                model = models.get(section, models.get("llm.default"))
                line = m.group(1) + self.llm(model) + m.group(2)
            out.append(line)
        return "\n".join(out)

    @staticmethod
    def api_key_variables(text):
        """The api_key_env names a probity.toml gives (the fakes accept any key)."""
        return re.findall(r'^\s*api_key_env\s*=\s*"([^"]+)"', text, re.M)


def documents(source):
    paths = [source / "README.md"] + sorted((source / "docs").rglob("*.md"))
    return [p for p in paths if p.is_file()]


def sh_blocks(text):
    """Yields (first line number, lines) of each ```sh block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if re.match(r"^\s*```sh\s*$", lines[i]):
            start = i + 1
            j = start
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            yield start + 1, lines[start:j]
            i = j + 1
        else:
            i += 1


def complete(text):
    return subprocess.run(["bash", "-n", "-c", text], capture_output=True).returncode == 0


def commands(path):
    """Yields (line number, command text) of every command in the document's ```sh blocks."""
    for first, lines in sh_blocks(path.read_text(encoding="utf-8")):
        buffer, start = [], None
        for k, line in enumerate(lines):
            if not buffer and (not line.strip() or line.strip().startswith("#")):
                continue
            if not buffer:
                start = first + k
            buffer.append(line)
            text = "\n".join(buffer)
            if not text.rstrip().endswith("\\") and complete(text):
                yield start, text
                buffer = []
        if buffer:
            yield start, "\n".join(buffer)  # incomplete: bash reports the syntax error


MY_METRIC = """#!/usr/bin/env python3
# The docs' `my-metric`: one record per candidate of a task file, its length in words.
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        task = json.loads(line)
        for c in task["candidates"]:
            print(json.dumps({"task_id": task["task_id"], "candidate_id": c["id"],
                              "metric": "mine", "score": float(len(c["text"].split()))}))
"""


# The docs' d.jsonl (docs/bertscore.md's embedding-server commands): texts in the vocabulary of
# the embedding fakes' "golden" tokenizer (tests/golden/bertscore/bertscore.jsonl's word table),
# as those fakes answer HTTP 500 for a word they do not know.
GOLDEN_TASKS = [
    ("t1", "the cat sat on the mat", ["a cat sat on a mat", "the dog ran in the park"]),
    ("t2", "the old man sat in the boat on the river", ["a old man sat in a boat", "the sun"]),
    ("t3", "a big red house", ["a small red house", "the moon"]),
]


def fixtures(source, work, probity, fakes=None):
    """The repository's data/ and examples/ (with fakes: examples/*.toml naming the fake
    servers), and the docs' placeholder files."""
    (work / "data").symlink_to(source / "data")
    if fakes:
        (work / "examples").mkdir()
        for entry in sorted((source / "examples").iterdir()):
            if entry.suffix == ".toml":
                (work / "examples" / entry.name).write_text(fakes.rewrite_config(entry.read_text()))
            else:
                (work / "examples" / entry.name).symlink_to(entry)
    else:
        (work / "examples").symlink_to(source / "examples")
    (work / "wmt22").symlink_to(source / "tests/golden/inputs/mtme")  # a four-segment WMT layout
    # A synthetic WMT24-shaped test set with stored metric scores (rank --protocol).
    (work / "wmt24").symlink_to(source / "tests/golden/inputs/mtme_wmt/wmt24")
    bin_dir = work / ".bin"
    bin_dir.mkdir()
    (bin_dir / "probity").symlink_to(probity)
    (bin_dir / "my-metric").write_text(MY_METRIC)
    (bin_dir / "my-metric").chmod(0o755)
    sample = (source / "data/summeval/summeval_sample20.jsonl").read_text(encoding="utf-8")
    tasks = [json.loads(line) for line in sample.splitlines() if line.strip()][:4]
    small = "".join(json.dumps(t) + "\n" for t in tasks)  # 4 tasks x 16 systems
    for name in ("data.jsonl", "my.jsonl"):
        (work / name).write_text(small)
    golden = [{"task_id": t, "references": [{"id": "r1", "text": ref}],
               "candidates": [{"id": f"c{k}", "system": f"s{k}", "text": c,
                               "human": {"quality": 3 - k}} for k, c in enumerate(cands)]}
              for t, ref, cands in GOLDEN_TASKS]
    (work / "d.jsonl").write_text("".join(json.dumps(t) + "\n" for t in golden))
    # A flat file of one candidate per row, as Hugging Face-style predictions come.
    rows = []
    for t in tasks:
        for c in t["candidates"][:3]:
            rel = c["human"]["relevance"]
            rows.append({"doc_id": t["task_id"], "model": c["system"], "prediction": c["text"],
                         "ref": t["references"][0]["text"], "score": sum(rel) / len(rel)})
    (work / "preds.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    # The same rows nested, as docs/dataset-format.md's dotted-path example reads them.
    nested = [{"meta": {"doc_id": r["doc_id"], "model": r["model"]}, "output": r["prediction"],
               "refs": [r["ref"]]} for r in rows]
    (work / "nested.jsonl").write_text("".join(json.dumps(r) + "\n" for r in nested))
    with open(work / "preds.csv", "w", encoding="utf-8", newline="") as f:
        import csv
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (work / "columns.map").write_text(
        "# preds.csv's columns\ntask=doc_id\ncandidate=prediction\nreference=ref\nhuman=score\n"
        "system=model\n")
    (work / "ratings.csv").write_text(
        "task_id,candidate_id,system,candidate,reference_1,reference_2,human:fluency,relevance\n"
        't1,c1,s1,"Hello, world",Hi there,Hello there,4,3.5\n'
        "t1,c2,s2,Goodbye,,,2,1\n")
    plain = source / "examples/plain"
    for name, src in {"ref.txt": "ref.txt", "newstest.ref.txt": "ref.txt",
                      "newstest.sysA.txt": "M8.txt", "a.txt": "M8.txt", "b.txt": "M11.txt",
                      "a.score": "M8.relevance", "b.score": "M11.relevance",
                      "base.txt": "M8.txt", "sys1.txt": "M11.txt", "sys2.txt": "M17.txt"}.items():
        shutil.copy(plain / src, work / name)
    # The score file `correlate --hyp a.txt --hyp b.txt ... --scores scores.jsonl` reads.
    subprocess.run([str(probity), "score", "--hyp", "a.txt", "--hyp", "b.txt", "--ref", "ref.txt",
                    "--metric", "bleu", "--out", "scores.jsonl"], cwd=work, check=True,
                   capture_output=True)
    return bin_dir


def lookup(table, doc, text):
    for (d, needle), value in table.items():
        if d == doc and needle in text:
            return (d, needle), value
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--probity", required=True, type=pathlib.Path)
    ap.add_argument("--source", required=True, type=pathlib.Path)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    ap.add_argument("--only", help="run only this document (e.g. docs/recipes.md)")
    ap.add_argument("--fake-servers", type=pathlib.Path,
                    help="probity_fake_servers: run the commands that call an LLM or embedding "
                         "server against the fakes")
    args = ap.parse_args()
    source = args.source.resolve()
    probity = args.probity.resolve()
    used = set()
    failures = []
    counts = {"ran": 0, "not run": 0, "expected to fail": 0}
    root = pathlib.Path(tempfile.mkdtemp(prefix="probity-docs-"))
    fakes = None
    try:
        if args.fake_servers:
            fakes = FakeServers(args.fake_servers.resolve())
            for kind, servers in fakes.urls.items():
                for model, url in servers.items():
                    print(f"fake     {kind} {model}: {url}")
        for path in documents(source):
            doc = path.relative_to(source).as_posix()
            if args.only and doc != args.only:
                continue
            cmds = list(commands(path))
            if not cmds:
                continue
            work = root / doc.replace("/", "_")
            work.mkdir()
            bin_dir = fixtures(source, work, probity, fakes)
            script = ["cd " + json.dumps(str(work))]
            plan = []
            for k, (line, text) in enumerate(cmds):
                key, cause = lookup(NOT_RUN, doc, text)
                if key:
                    used.add(key)
                    counts["not run"] += 1
                    print(f"not run  {doc}:{line}: {cause}")
                    continue
                faked, calls = calls_a_server(doc, text)
                after, _ = lookup(AFTER_A_SERVER, doc, text)
                if after:
                    used.add(after)
                if faked and not fakes:
                    counts["not run"] += 1
                    print(f"not run  {doc}:{line}: {faked} (--fake-servers runs it against the "
                          "fakes)")
                    continue
                key, expected = lookup(EXPECTED_TO_FAIL_UNTIL_FIXED, doc, text)
                code = 0
                if key:
                    used.add(key)
                    code = expected[0]
                plan.append((k, line, text, code, expected[1] if key else None, faked, calls))
                out = work / f".out{k}"
                run = fakes.rewrite(text) if calls else text
                script.append(f"{{\n{run}\n}} >{json.dumps(str(out))} 2>&1 </dev/null\n"
                              f"echo {k} $? >>.rcs")
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", I="0", N="1",
                       NO_COLOR="1")
            if fakes:  # the key variables examples/*.toml name (the fakes accept any key)
                for toml in (work / "examples").glob("*.toml"):
                    for name in FakeServers.api_key_variables(toml.read_text()):
                        env.setdefault(name, "fake-key")
            subprocess.run(["bash", "-c", "\n".join(script)], env=env, cwd=work)
            rcs = {}
            if (work / ".rcs").exists():
                for row in (work / ".rcs").read_text().split("\n"):
                    if row.strip():
                        k, rc = row.split()
                        rcs[int(k)] = int(rc)
            for k, line, text, code, why, faked, calls in plan:
                rc = rcs.get(k)
                first = text.split("\n")[0]
                if rc == code:
                    counts["expected to fail" if code else "ran"] += 1
                    note = f" (exit {rc} as expected until fixed: {why})" if code else ""
                    if faked:
                        note += " (against the fake servers)" if calls else f" ({faked})"
                    print(f"ok       {doc}:{line}: {first}{note}")
                else:
                    output = (work / f".out{k}").read_text(errors="replace") if (work / f".out{k}").exists() else ""
                    failures.append(f"{doc}:{line}: exit {rc}, expected {code}: {text}\n"
                                    + "\n".join("    " + s for s in output.strip().split("\n")[-15:]))
                    print(f"FAILED   {doc}:{line}: exit {rc} (expected {code}): {first}")
        if not args.only:
            for key in [*NOT_RUN, *EXPECTED_TO_FAIL_UNTIL_FIXED, *AFTER_A_SERVER]:
                if key not in used:
                    failures.append(f"{key[0]}: no command contains {key[1]!r} (a stale entry)")
    finally:
        if fakes:
            fakes.stop()
        if args.keep:
            print(f"scratch: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"docs: {counts['ran']} commands ran, {counts['expected to fail']} failed as expected "
          f"until fixed, {counts['not run']} not run (causes above), {len(failures)} failures")
    for f in failures:
        print("\n" + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs every shell command of README.md and docs/**/*.md against a built probity.

Every ```sh block is cut into commands (a command ends where `bash -n` accepts the lines read so
far, so continuation lines, loops and multi-line quotes stay whole). The commands of one
document run in order in one bash process (a variable one command sets, the next one sees), in a
scratch directory holding:
  - `probity` on PATH: the binary under test;
  - data/ and examples/: the repository's, so that their paths work as written;
  - the placeholder files the docs name for "your files" (data.jsonl, preds.csv, ref.txt, ...),
    made from the bundled SummEval sample (fixtures() below);
  - I=0, N=1: a one-shard run of the cluster commands, whose shard number and count a job
    script sets.
Each command must exit 0, unless it is in NOT_RUN (with the cause: an LLM or embedding server,
a download, root, or CI itself) or in EXPECTED_TO_FAIL_UNTIL_FIXED (with the exit code it has
today and why). An entry that matches no command fails the test, so the lists cannot go stale.

  tests/docs/docs_commands_test.py --probity build/probity --source .  [--keep] [--only FILE]
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

# (document, text the command contains) -> why the test does not run it.
NOT_RUN = {
    ("README.md", "./scripts/quickstart.sh"):
        "installs packages and rebuilds ./build with the tests off (the tree this test runs "
        "from); its cost is measured by hand, its audit command is the one below it in README.md",
    ("README.md", "./scripts/test.sh"): "is CI itself (this test runs inside it)",
    ("README.md", "export MY_KEY"): "part of the LLM example below",
    ("README.md", "--perturber llm --llm-base-url"):
        "needs an LLM server with prompt log-probabilities (gem,predictor=llm); the repository's "
        "fake server serves none, so the command exits 2 against it",
    ("README.md", "cmake --build build"): "rebuilds the tree under test (./build)",
    ("README.md", "cmake --install build"):
        "writes outside the scratch directory (a prefix); ctest's "
        "Build.MovedInstallTreeFindsItsPrompts installs and moves a tree",
    ("README.md", "cpack -G DEB"): "ctest's Build.DebianPackageAuditsTheSample builds and installs the .deb",
    ("README.md", "pip install --no-build-isolation"):
        "ctest's Build.PipInstallsThePackageIntoAVenv installs the package into a venv",
    ("docs/bertscore.md", "from transformers import"):
        "downloads roberta-large from the Hugging Face hub (Python transformers)",
    ("docs/bertscore.md", "text-embeddings-router"): "an embedding server (text-embeddings-inference)",
    ("docs/bertscore.md", "embed=tei:"): "needs the text-embeddings-inference server above",
    ("docs/bertscore.md", "vllm serve"): "an embedding server (vLLM)",
    ("docs/bertscore.md", "embed=vllm:"): "needs the vLLM server above",
    ("docs/cluster.md", "export PROBITY_DATA="): "part of the sbatch example below",
    ("docs/cluster.md", "sbatch --parsable"):
        "needs a Slurm cluster; ctest's Cluster.SlurmJobArrayEqualsUnshardedAudit runs these "
        "job scripts on a one-node Slurm",
    ("docs/cluster.md", "sbatch --dependency"): "as above",
    ("docs/cluster.md", "ctest --test-dir build -L slurm"): "is a ctest run of its own (the test above)",
    ("docs/recipes.md", "--metric llm-judge,scale=1-5"): "needs an LLM server (the judge)",
    ("docs/recipes.md", "for rp in token/ar"): "part of the LLM paper-protocol audit below",
    ("docs/recipes.md", "--config examples/probity.toml --perturber llm"):
        "needs an LLM server with prompt log-probabilities (mi:*/token/ar,predictor=llm)",
    ("docs/recipes.md", "--metric stmt-tv,predictor=llm,batch=true \\"):
        "needs an LLM server (the statement oracle)",
    ("docs/recipes.md", "probity compare --data my.jsonl --scores scores.jsonl"):
        "reads the LLM-scored file of the command above",
}

# (document, text the command contains) -> (the exit code it has today, why). Flip an entry to
# nothing once the cause is fixed: the test then requires exit 0.
EXPECTED_TO_FAIL_UNTIL_FIXED = {}

DOCUMENTS = ["README.md", "docs"]


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


def fixtures(source, work, probity):
    """The repository's data/ and examples/, and the docs' placeholder files."""
    for d in ("data", "examples"):
        (work / d).symlink_to(source / d)
    (work / "wmt22").symlink_to(source / "tests/golden/inputs/mtme")  # a four-segment WMT layout
    bin_dir = work / ".bin"
    bin_dir.mkdir()
    (bin_dir / "probity").symlink_to(probity)
    (bin_dir / "my-metric").write_text(MY_METRIC)
    (bin_dir / "my-metric").chmod(0o755)
    sample = (source / "data/summeval/summeval_sample20.jsonl").read_text(encoding="utf-8")
    tasks = [json.loads(line) for line in sample.splitlines() if line.strip()][:4]
    small = "".join(json.dumps(t) + "\n" for t in tasks)  # 4 tasks x 16 systems
    for name in ("data.jsonl", "my.jsonl", "d.jsonl"):
        (work / name).write_text(small)
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
    args = ap.parse_args()
    source = args.source.resolve()
    probity = args.probity.resolve()
    used = set()
    failures = []
    counts = {"ran": 0, "not run": 0, "expected to fail": 0}
    root = pathlib.Path(tempfile.mkdtemp(prefix="probity-docs-"))
    try:
        for path in documents(source):
            doc = path.relative_to(source).as_posix()
            if args.only and doc != args.only:
                continue
            cmds = list(commands(path))
            if not cmds:
                continue
            work = root / doc.replace("/", "_")
            work.mkdir()
            bin_dir = fixtures(source, work, probity)
            script = ["cd " + json.dumps(str(work))]
            plan = []
            for k, (line, text) in enumerate(cmds):
                key, cause = lookup(NOT_RUN, doc, text)
                if key:
                    used.add(key)
                    counts["not run"] += 1
                    print(f"not run  {doc}:{line}: {cause}")
                    continue
                key, expected = lookup(EXPECTED_TO_FAIL_UNTIL_FIXED, doc, text)
                code = 0
                if key:
                    used.add(key)
                    code = expected[0]
                plan.append((k, line, text, code, expected[1] if key else None))
                out = work / f".out{k}"
                script.append(f"{{\n{text}\n}} >{json.dumps(str(out))} 2>&1 </dev/null\n"
                              f"echo {k} $? >>.rcs")
            env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", I="0", N="1",
                       NO_COLOR="1")
            subprocess.run(["bash", "-c", "\n".join(script)], env=env, cwd=work)
            rcs = {}
            if (work / ".rcs").exists():
                for row in (work / ".rcs").read_text().split("\n"):
                    if row.strip():
                        k, rc = row.split()
                        rcs[int(k)] = int(rc)
            for k, line, text, code, why in plan:
                rc = rcs.get(k)
                first = text.split("\n")[0]
                if rc == code:
                    counts["expected to fail" if code else "ran"] += 1
                    note = f" (exit {rc} as expected until fixed: {why})" if code else ""
                    print(f"ok       {doc}:{line}: {first}{note}")
                else:
                    output = (work / f".out{k}").read_text(errors="replace") if (work / f".out{k}").exists() else ""
                    failures.append(f"{doc}:{line}: exit {rc}, expected {code}: {text}\n"
                                    + "\n".join("    " + s for s in output.strip().split("\n")[-15:]))
                    print(f"FAILED   {doc}:{line}: exit {rc} (expected {code}): {first}")
        if not args.only:
            for key in list(NOT_RUN) + list(EXPECTED_TO_FAIL_UNTIL_FIXED):
                if key not in used:
                    failures.append(f"{key[0]}: no command contains {key[1]!r} (a stale entry)")
    finally:
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

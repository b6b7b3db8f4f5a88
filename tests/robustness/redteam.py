#!/usr/bin/env python3
"""Red-team suite: hostile inputs, options, outputs and LLM servers against `probity`.

Every case is generated here into a fresh temporary directory (nothing hostile is committed): deep
nesting, NUL bytes, invalid UTF-8, duplicate CSV columns, overflowing and NaN options, colliding
dataset names, outputs that are inputs or symlinks, broken caches, and fake OpenAI-compatible
servers (quota, toggling, unusable answers, key echo) started on 127.0.0.1 in a thread.

Each case states the exit code the issue asks for and what stderr or the files must show. The
runner prints one line per case and `redteam: N passed, M failed`; it exits 1 on any failure.

Usage: redteam.py --probity BUILD/probity [--only NAME]... [--list] [--keep]
Standard library only (Debian's python3).
"""

import argparse
import http.server
import json
import os
import re
import resource
import shutil
import socketserver
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEPTH = 100_000  # the nesting depth
HUGE = "99999999999999999999"  # > 2^64 - 1

# ---------------------------------------------------------------------------------------------
# Generated inputs


def task(i, n_cands=3):
    """A small summarisation task with several sentences, so every rule strategy applies."""
    ref = (f"The council of town {i} approved a new park on Monday. "
           f"It will open in spring with {i + 3} playgrounds. Residents welcomed the plan.")
    cands = []
    for c in range(n_cands):
        text = (f"Town {i} will get a new park with {i + 3 + c} playgrounds. "
                f"The council approved it on Monday after a long debate. "
                f"Work starts soon and residents are pleased, said mayor number {c}.")
        cands.append({"id": f"c{c}", "system": f"s{c}", "text": text,
                      "human": {"overall": [1 + (i + c) % 5, 1 + (2 * i + c) % 5]}})
    return {"task_id": f"t{i}", "group": "g", "source": ref + " More context follows here.",
            "references": [{"id": "r1", "text": ref}], "candidates": cands}


def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, mode + ("b" if isinstance(data, bytes) else "")) as f:
        f.write(data)
    return path


def tiny_jsonl(path, n_tasks=6):
    return write(path, "".join(json.dumps(task(i)) + "\n" for i in range(n_tasks)))


def deep_array(depth, leaf="1"):
    return "[" * depth + leaf + "]" * depth


def docs_csv_example():
    """The CSV block of docs/dataset-format.md, so the case follows the documentation."""
    with open(os.path.join(REPO, "docs", "dataset-format.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"```csv\n(.*?)```", text, re.S)
    if not m:
        raise RuntimeError("docs/dataset-format.md has no ```csv block")
    return m.group(1)


# ---------------------------------------------------------------------------------------------
# Fake OpenAI-compatible server


def chat_body(content):
    return {"id": "chatcmpl-redteam", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}}


def prompt_text(request):
    parts = []
    for m in request.get("messages", []):
        c = m.get("content")
        parts.append(c if isinstance(c, str) else json.dumps(c))
    return "\n".join(parts) + str(request.get("prompt", ""))


def good_answer(prompt, extra=""):
    """A usable answer: a rating for the judge, the prompt's text (gaps filled) for a perturber."""
    if '"rating"' in prompt:
        return json.dumps({"rating": 3})
    m = re.search(r"<<<\n(.*?)\n>>>", prompt, re.S)
    text = m.group(1) if m else "A rewritten text."
    text = text.replace("[GAP]", "The plan was discussed.")
    return json.dumps({"text": text + extra})


def escape_variants(key):
    """The key as a JSON string body, spelled with each legal escape a server may choose."""
    def esc(ch, how):
        o = ord(ch)
        if ch == '"':
            return '\\"'
        if ch == "\\":
            return "\\\\"
        if ch == "/":
            return "\\/" if how != "plain" else "/"
        if o < 0x20 or how == "u":
            if o > 0xFFFF:
                hi, lo = divmod(o - 0x10000, 0x400)
                return "\\u%04x\\u%04x" % (0xD800 + hi, 0xDC00 + lo)
            return "\\u%04X" % o if how == "u" else json.dumps(ch)[1:-1]
        return ch
    return ["".join(esc(ch, how) for ch in key) for how in ("slash", "u", "plain")]


class FakeLlm:
    """One fake server; `mode` says how it answers and may change between runs."""

    def __init__(self, mode="ok", key=""):
        self.mode, self.key, self.requests, self.lock = mode, key, 0, threading.Lock()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def send(self, status, raw, headers=()):
                data = raw.encode("utf-8") if isinstance(raw, str) else raw
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.send(404, '{"error":{"message":"not found"}}')

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with fake.lock:
                    fake.requests += 1
                    n = fake.requests
                try:
                    request = json.loads(body or b"{}")
                except ValueError:
                    request = {}
                status, raw, headers = fake.answer(request, n)
                self.send(status, raw, headers)

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, request, n):
        prompt = prompt_text(request)
        if self.mode == "ok":
            return 200, json.dumps(chat_body(good_answer(prompt))), ()
        if self.mode == "500":
            return 500, '{"error":{"message":"internal server error","type":"server_error"}}', ()
        if self.mode == "quota":
            return 429, json.dumps({"error": {
                "type": "insufficient_quota", "code": "insufficient_quota",
                "message": "You exceeded your current quota"}}), (("Retry-After", "1"),)
        if self.mode == "ratelimit":
            return 429, json.dumps({"error": {
                "type": "requests", "code": "rate_limit_exceeded",
                "message": "Rate limit reached, slow down"}}), (("Retry-After", "1"),)
        if self.mode == "unusable":
            kind = n % 4
            if kind == 0:
                content = None
            elif kind == 1:
                content = "I think this is a rather good text, well done."
            elif kind == 2:
                content = '{"rating": 99}' if '"rating"' in prompt else '{"text": ""}'
            else:
                content = ('{"rating": 1} {"rating": 5}' if '"rating"' in prompt
                           else '{"text": "one"} {"text": "two"}')
            return 200, json.dumps(chat_body(content)), ()
        if self.mode == "echo-key":
            # The answer text carries the key, spelled with a different JSON escape per request.
            variant = escape_variants(self.key)[n % 3]
            placeholder = "@@KEY@@"
            content = good_answer(prompt, extra=" Key: " + placeholder + ".")
            content = content.replace(placeholder, variant)  # inside the answer's own JSON
            body = json.dumps(chat_body(content))
            # The transport escapes `/` as `\/` too, as PHP and some gateways do.
            return 200, body.replace("/", "\\/"), ()
        raise ValueError(self.mode)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------------------------------------
# Cases


class Case:
    def __init__(self, name, category, setup, exit, stderr=(), not_stderr=(), check=None,
                 timeout=60):
        self.name, self.category, self.setup = name, category, setup
        self.exit = exit if isinstance(exit, (set, frozenset, tuple)) else (exit,)
        self.stderr, self.not_stderr, self.check, self.timeout = stderr, not_stderr, check, timeout


MEMORY_LIMIT = 4 << 30  # bytes of address space a run may take (an overflowing count must not
#                        eat a shared machine's memory); not applied to sanitizer builds


def is_sanitized(probity):
    with open(probity, "rb") as f:
        return b"__asan_init" in f.read()


def memory_limit(probity):
    if is_sanitized(probity):
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


class Skip(Exception):
    """The machine cannot set the case up (e.g. no mount namespace); reported, not failed."""


class Ctx:
    """A case's temporary directory, the probity binary, and what its runs produced."""

    def __init__(self, probity, directory, limit=None):
        self.probity, self.dir, self.env, self.servers = probity, directory, None, []
        self.limit, self.wrap = limit, []
        self.env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
        # Nothing from the caller's environment may point probity elsewhere than the fakes.
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "http_proxy",
                     "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
            self.env.pop(name, None)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def run(self, args, timeout=60):
        """Runs probity; returns (exit code or 'timeout', stdout, stderr, seconds)."""
        t0 = time.monotonic()
        # Output to files and os.wait4 rather than communicate(): wait4 gives this run's own
        # peak memory (self.max_rss_kb), which the memory case compares between commands.
        with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
            p = subprocess.Popen([*self.wrap, self.probity, *args], cwd=self.dir, env=self.env,
                                 stdin=subprocess.DEVNULL, stdout=out_f, stderr=err_f,
                                 start_new_session=True, preexec_fn=self.limit)
            code = "timeout"
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    code = os.waitstatus_to_exitcode(status)
                    self.max_rss_kb = usage.ru_maxrss
                    break
                if time.monotonic() - t0 > timeout:
                    os.killpg(p.pid, 9)
                    os.wait4(p.pid, 0)
                    break
                time.sleep(0.02)
            p.returncode = code if code != "timeout" else -9  # reaped here, not by Popen
            out_f.seek(0)
            err_f.seek(0)
            out, err = out_f.read(), err_f.read()
        return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), \
            time.monotonic() - t0

    def server(self, mode="ok", key=""):
        s = FakeLlm(mode, key)
        self.servers.append(s)
        return s

    def llm_args(self, server, key_env="RT_KEY", key="sk-redteam"):
        self.env[key_env] = key
        return ["--llm-base-url", server.url, "--llm-model", "m", "--llm-api-key-env", key_env]

    def close(self):
        for s in self.servers:
            s.close()


def data(ctx):
    return tiny_jsonl(ctx.path("tiny.jsonl"))


AUDIT_FAST = ["--bootstrap", "50", "--min-applied", "1", "--threads", "2"]


def files_under(root):
    for d, _, names in os.walk(root):
        for n in names:
            yield os.path.join(d, n)


def fail_if(cond, message):
    return message if cond else None


# --- Parsing: deep nesting, NUL bytes, invalid UTF-8, CSV --------------------------------------


def deep_rating(ctx):
    t = task(0)
    t["candidates"][1]["human"]["overall"] = "@@DEEP@@"
    line = json.dumps(t).replace('"@@DEEP@@"', deep_array(DEPTH))
    write(ctx.path("deep_rating.jsonl"), line + "\n")
    return ["score", "--data", "deep_rating.jsonl", "--metric", "bleu", "--out", "s.jsonl"]


def deep_flat(ctx):
    row = '{"cand": "a text", "ref": "a text", "score": ' + deep_array(DEPTH) + "}\n"
    write(ctx.path("deep_flat.jsonl"), row)
    return ["score", "--data", "deep_flat.jsonl", "--map",
            "candidate=cand,reference=ref,human=score", "--metric", "bleu", "--out", "s.jsonl"]


def deep_object(ctx):
    line = json.dumps(task(0))[:-1] + ', "meta": ' + '{"a":' * DEPTH + "1" + "}" * DEPTH + "}\n"
    write(ctx.path("deep_object.jsonl"), line)
    return ["score", "--data", "deep_object.jsonl", "--metric", "bleu", "--out", "s.jsonl"]


def deep_json_array(ctx):
    write(ctx.path("deep.json"), "[" + json.dumps(task(0))[:-1] + ', "meta": '
          + deep_array(DEPTH) + "}]")
    return ["score", "--data", "deep.json", "--metric", "bleu", "--out", "s.jsonl"]


def short_stderr(limit=4000, named=None):
    """The message must not quote the nested value; an error must name the file."""
    def check(ctx, code, out, err):
        if named and code != 0 and named not in err:
            return f"stderr lacks {named!r}"
        return fail_if(len(err) > limit, f"stderr is {len(err)} characters (quotes the input?)")
    return check


def toml_case(name, text):
    def setup(ctx):
        write(ctx.path(name), text)
        data(ctx)
        return ["score", "--config", name, "--data", "tiny.jsonl", "--metric", "bleu",
                "--out", "s.jsonl"]
    return setup


def nul_after_jsonl(ctx):
    line = json.dumps(task(0)).encode() + b"\x00garbage{]\n"
    write(ctx.path("nul.jsonl"), line)
    return ["score", "--data", "nul.jsonl", "--metric", "bleu", "--out", "s.jsonl"]


def nul_inside_jsonl(ctx):
    t = json.dumps(task(0)).encode()
    write(ctx.path("nul2.jsonl"), t[:40] + b"\x00" + t[40:] + b"\n")
    return ["score", "--data", "nul2.jsonl", "--metric", "bleu", "--out", "s.jsonl"]


def csv_dup_candidate(ctx):
    write(ctx.path("dup.csv"), "task_id,candidate_id,candidate,reference,candidate\n"
                               "t1,c1,Hello world,Hi world,Goodbye moon\n")
    return ["score", "--data", "dup.csv", "--metric", "bleu", "--out", "s.jsonl"]


def csv_text_after_quote(ctx):
    write(ctx.path("quote.csv"), 'task_id,candidate_id,candidate,reference\n'
                                 't1,c1,"ab"c,Hi world\n')
    return ["score", "--data", "quote.csv", "--metric", "bleu", "--out", "s.jsonl"]


def csv_docs_example(ctx):
    write(ctx.path("ratings.csv"), docs_csv_example())
    return ["perturb", "--data", "ratings.csv", "--degrade", "none", "--manipulate", "none",
            "--out", "ratings.jsonl"]


def check_docs_example(ctx, code, out, err):
    try:
        with open(ctx.path("ratings.jsonl")) as f:
            tasks = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        return f"ratings.jsonl: {e}"
    cands = sum(len(t["candidates"]) for t in tasks)
    rows = len(docs_csv_example().strip().splitlines()) - 1
    return fail_if(cands != rows, f"{cands} candidates written for {rows} CSV rows")


# --- Options: overflow, NaN, infinities, limits --------------------------------------------------


def scores_file(ctx):
    """bleu and chrf scores of the tiny dataset (computed once per case)."""
    d = data(ctx)
    code, _, err, _ = ctx.run(["score", "--data", d, "--metric", "bleu", "--metric", "chrf",
                               "--out", ctx.path("scores.jsonl")])
    if code != 0:
        raise RuntimeError(f"setup: score exited {code}: {err[-400:]}")
    return ctx.path("scores.jsonl")


OPTION_CASES = []  # (name, value kind, argv builder(value), option name, valid value)


def option_family(option, build, valid, hostile):
    for label, value in hostile:
        OPTION_CASES.append((f"{option.lstrip('-')}-{label}", option, build, value))
    OPTION_CASES.append((f"{option.lstrip('-')}-control", option, build, valid))


option_family("--budget", lambda c, v: ["attack", "--data", data(c), "--metric", "bleu",
                                        "--out", "att", "--budget", v, "--bootstrap", "20",
                                        "--programs", "1", "--threads", "2"],
              "5", [("overflow", HUGE), ("u64max", "18446744073709551615")])
option_family("--attack-budget", lambda c, v: ["audit", "--data", data(c), "--metric", "bleu",
                                               "--out", "aud", "--degrade", "none",
                                               "--manipulate", "none", "--attack",
                                               "--attack-budget", v, "--attack-programs", "1",
                                               *AUDIT_FAST],
              "5", [("overflow", HUGE)])
option_family("--paired-bs-n", lambda c, v: ["significance", "--data", data(c), "--metric",
                                             "bleu", "--paired-bs", "--paired-bs-n", v],
              "20", [("overflow", HUGE), ("u64max", "18446744073709551615")])
option_family("--bootstrap-samples", lambda c, v: ["score", "--data", data(c), "--metric", "rougeL",
                                                   "--aggregate", "bootstrap",
                                                   "--bootstrap-samples", v, "--out", "s.jsonl"],
              "20", [("overflow", HUGE), ("u64max", "18446744073709551615")])
option_family("--bootstrap-confidence",
              lambda c, v: ["score", "--data", data(c), "--metric", "rougeL", "--aggregate",
                            "bootstrap", "--bootstrap-samples", "20", "--bootstrap-confidence", v,
                            "--out", "s.jsonl"],
              "0.9", [("nan", "nan"), ("NaN", "NaN"), ("inf", "inf")])
option_family("--max-failed", lambda c, v: ["score", "--data", data(c), "--metric", "bleu",
                                            "--max-failed", v, "--out", "s.jsonl"],
              "0.5", [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf")])
option_family("--max-unparsed", lambda c, v: ["score", "--data", data(c), "--metric", "bleu",
                                              "--max-unparsed", v, "--out", "s.jsonl"],
              "0.5", [("nan", "nan"), ("NAN", "NAN"), ("inf", "infinity")])
option_family("--pairs-margin", lambda c, v: ["correlate", "--data", data(c), "--scores",
                                              scores_file(c), "--statistic", "preference-acc",
                                              "--pairs-from", "overall", "--pairs-margin", v,
                                              "--bootstrap", "0"],
              "0.5", [("nan", "nan"), ("inf", "inf")])
option_family("--max-spread", lambda c, v: ["meta", "global", "--data", data(c), "--scores",
                                            scores_file(c), "--max-spread", v, "--bootstrap", "0",
                                            "--chance", "0"],
              "1", [("nan", "nan"), ("inf", "inf")])
option_family("--permutations", lambda c, v: ["compare", "--data", data(c), "--scores",
                                              scores_file(c), "--metric", "bleu", "--metric",
                                              "chrf", "--permutations", v],
              "20", [("zero", "0"), ("overflow", HUGE)])
option_family("--lang", lambda c, v: ["perturb", "--data", data(c), "--lang", v,
                                        "--out", "p.jsonl"],
              "de", [("klingon", "klingon")])


def option_case(name, option, build, value):
    control = name.endswith("-control")

    def check(ctx, code, out, err):
        if control:
            return None
        problems = []
        if option not in err and value not in err:
            problems.append(f"stderr names neither {option} nor {value!r}")
        if re.search(r"\d{40,}", err):
            problems.append("stderr prints a number of 40+ digits")
        return "; ".join(problems) or None
    return Case(name, "options", lambda c: build(c, value), 0 if control else 2, check=check,
                timeout=60)


def range_message(ctx):
    d = data(ctx)
    return ["score", "--data", d, "--metric", "rougeL", "--aggregate", "bootstrap",
            "--bootstrap-samples", "0", "--out", "s.jsonl"]


def compare_same_metric(ctx):
    return ["compare", "--data", data(ctx), "--scores", scores_file(ctx), "--metric", "bleu",
            "--metric", "bleu", "--permutations", "20"]


# --- Outputs: inputs as outputs, symlinks, unwritable paths -------------------------------------


def audit_over_input(ctx):
    os.makedirs(ctx.path("out"))
    tasks = [task(i) for i in range(6)]
    write(ctx.path("out", "report.json"), json.dumps(tasks))
    ctx.original = open(ctx.path("out", "report.json"), "rb").read()
    return ["audit", "--data", "out/report.json", "--metric", "bleu", "--out", "out",
            "--degrade", "none", "--manipulate", "none", *AUDIT_FAST]


def attack_over_input(ctx):
    os.makedirs(ctx.path("out"))
    write(ctx.path("out", "attack.json"), json.dumps([task(i) for i in range(6)]))
    ctx.original = open(ctx.path("out", "attack.json"), "rb").read()
    return ["attack", "--data", "out/attack.json", "--metric", "bleu", "--out", "out",
            "--budget", "5", "--bootstrap", "20", "--programs", "1", "--threads", "2"]


def audit_over_export(ctx):
    """An input that is one of the exported files, not the report: every written file counts."""
    code, _, err, _ = ctx.run(["audit", "--data", data(ctx), "--metric", "bleu", "--out", "o1",
                               "--degrade", "none", "--manipulate", "none", "--export", "latex",
                               *AUDIT_FAST])
    if code != 0:
        raise RuntimeError(f"setup audit exited {code}: {err[-300:]}")
    tex = sorted(n for n in os.listdir(ctx.path("o1")) if n.endswith(".tex"))
    if not tex:
        raise RuntimeError("setup audit wrote no .tex")
    os.makedirs(ctx.path("out"))
    victim = ctx.path("out", tex[0])
    write(victim, json.dumps([task(i) for i in range(6)]))
    ctx.original = open(victim, "rb").read()
    ctx.victim = victim
    return ["audit", "--data", victim, "--format", "json", "--metric", "bleu", "--out", "out",
            "--degrade", "none", "--manipulate", "none", "--export", "latex", *AUDIT_FAST]


def perturb_over_input(ctx):
    tiny_jsonl(ctx.path("d.jsonl"))
    ctx.original = open(ctx.path("d.jsonl"), "rb").read()
    return ["perturb", "--data", "d.jsonl", "--degrade", "R", "--manipulate", "none",
            "--out", "./d.jsonl"]


def score_explain_over_input(ctx):
    tiny_jsonl(ctx.path("d.jsonl"))
    ctx.original = open(ctx.path("d.jsonl"), "rb").read()
    return ["score", "--data", "d.jsonl", "--metric", "bleu", "--out", "s.jsonl",
            "--explain", ctx.path("d.jsonl")]


def input_intact(attr_path):
    def check(ctx, code, out, err):
        path = getattr(ctx, "victim", None) or ctx.path(*attr_path)
        try:
            now = open(path, "rb").read()
        except OSError as e:
            return f"the dataset is gone: {e}"
        return fail_if(now != ctx.original, f"{path} was overwritten")
    return check


def symlink_out(cmd):
    def setup(ctx):
        d = data(ctx)
        write(ctx.path("target.jsonl"), "OLD CONTENT\n")
        os.symlink("target.jsonl", ctx.path("link.jsonl"))
        if cmd == "score":
            return ["score", "--data", d, "--metric", "bleu", "--out", "link.jsonl"]
        return ["perturb", "--data", d, "--degrade", "R", "--manipulate", "none",
                "--out", "link.jsonl"]
    return setup


def check_symlink(ctx, code, out, err):
    link = ctx.path("link.jsonl")
    if not os.path.islink(link):
        return "the symlink was replaced by a regular file"
    target = open(ctx.path("target.jsonl")).read()
    if code == 0:
        return fail_if(target == "OLD CONTENT\n", "exit 0 but the link's target keeps its old "
                                                  "content (written elsewhere?)")
    return fail_if(target != "OLD CONTENT\n", f"refused (exit {code}) but the target changed")


def audit_report_symlink(ctx):
    os.makedirs(ctx.path("out"))
    write(ctx.path("target.md"), "OLD CONTENT\n")
    os.symlink("../target.md", ctx.path("out", "report.md"))
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "out", "--degrade", "none",
            "--manipulate", "none", *AUDIT_FAST]


def check_report_symlink(ctx, code, out, err):
    if not os.path.islink(ctx.path("out", "report.md")):
        return "out/report.md, a symlink, was replaced by a regular file"
    target = open(ctx.path("target.md")).read()
    if code == 0:
        return fail_if(target == "OLD CONTENT\n", "exit 0 but the link's target is unchanged")
    return fail_if(target != "OLD CONTENT\n", f"refused (exit {code}) but the target changed")


def audit_out_is_file(ctx):
    write(ctx.path("afile"), "not a directory\n")
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "afile", "--degrade", "none",
            "--manipulate", "none", *AUDIT_FAST]


def audit_out_unwritable(ctx):
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "/proc/probity-redteam",
            "--degrade", "none", "--manipulate", "none", *AUDIT_FAST]


def audit_out_under_file(ctx):
    write(ctx.path("afile"), "x\n")
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "afile/sub",
            "--degrade", "none", "--manipulate", "none", *AUDIT_FAST]


def score_out_full(ctx):
    return ["score", "--data", data(ctx), "--metric", "bleu", "--out", "/dev/full"]


def latex_bracket(ctx):
    # [evil] both first (after \midrule) and second (after a row's \\) in its tables.
    return ["audit", "--data", data(ctx), "--metric", "bleu,name=[evil]", "--metric", "chrf",
            "--metric", "rougeL,name=[evil2]",
            "--out", "out", "--degrade", "none", "--manipulate", "none", "--export", "latex",
            *AUDIT_FAST]


def check_latex(ctx, code, out, err):
    tex = [p for p in files_under(ctx.path("out")) if p.endswith(".tex")]
    if not tex:
        return "no .tex written"
    for p in tex:
        text = open(p, encoding="utf-8", errors="replace").read()
        if "[evil]" not in text.replace("{[}", "[").replace("{]}", "]"):
            continue
        # LaTeX reads a '[' after \\ or a booktabs rule (spaces and a line break between) as
        # the optional argument of that command.
        m = re.search(r"(\\\\|\\(?:top|mid|bottom)rule|\\cmidrule(?:\{[^}]*\})?)\s*\[", text)
        if m:
            return f"{os.path.basename(p)}: {m.group(1)!r} followed by '[' at offset {m.start()}"
    if not any("evil" in open(p, errors="replace").read() for p in tex):
        return "the metric name [evil] is in no table"
    return None


def colliding_names(*paths):
    """Datasets whose file names (or names made safe for file names) are the same."""
    def setup(ctx):
        args = []
        for k, path in enumerate(paths):
            rows = []
            for i in range(6):
                t = dict(task(10 * k + i), task_id=f"d{k}t{i}")
                for c in t["candidates"]:  # different ratings, so the correlations differ
                    c["human"]["overall"] = [1 + (i * (k + 2) + int(c["id"][1:])) % 5]
                rows.append(json.dumps(t))
            write(ctx.path(path), "\n".join(rows) + "\n")
            args += ["--data", path]
        ctx.n_datasets = len(paths)
        return ["audit", *args, "--metric", "bleu", "--out", "out", "--degrade", "none",
                "--manipulate", "none", "--export", "svg,latex", *AUDIT_FAST]
    return setup


def check_colliding(ctx, code, out, err):
    if code == 2:  # a refusal must say which names collide (or offer name=)
        return fail_if("summ" not in err and "name=" not in err,
                       f"refused without naming the collision: {err.strip()[-200:]!r}")
    try:
        report = json.load(open(ctx.path("out", "report.json")))
    except (OSError, ValueError) as e:
        return f"report.json: {e}"
    datasets = report.get("datasets")
    names = [d.get("name") if isinstance(d, dict) else d for d in (datasets or [])]
    n = ctx.n_datasets
    if len(names) != n or len(set(map(str, names))) != n:
        return f"report.json datasets {names}: not {n} distinct names"
    figs = [f for f in os.listdir(ctx.path("out")) if f.startswith("fig-correlation")]
    if len(figs) != n:
        return f"correlation figures {figs}: one per dataset expected (overwritten?)"
    tables = [f for f in os.listdir(ctx.path("out")) if f.startswith("table-correlation")]
    if len(tables) < n + 1:
        return f"correlation tables {tables}: a summary and one per dataset expected"
    return None


# --- Caches and files named on the command line -------------------------------------------------


def judge_args(ctx, server, cache=None):
    args = ["score", "--data", data(ctx), "--metric", "llm-judge", "--out", "s.jsonl",
            *ctx.llm_args(server)]
    return args + (["--cache", cache] if cache else [])


def cache_not_sqlite(ctx):
    write(ctx.path("junk.sqlite"), "this is not a database\n" * 100)
    return judge_args(ctx, ctx.server("ok"), "junk.sqlite")


def cache_wrong_schema(ctx):
    db = sqlite3.connect(ctx.path("other.sqlite"))
    db.execute("CREATE TABLE llm_responses (something INTEGER)")
    db.execute("INSERT INTO llm_responses VALUES (1)")
    db.commit()
    db.close()
    return judge_args(ctx, ctx.server("ok"), "other.sqlite")


def cache_truncated(ctx):
    db = sqlite3.connect(ctx.path("trunc.sqlite"))
    db.execute("CREATE TABLE filler (x TEXT)")
    db.executemany("INSERT INTO filler VALUES (?)", [("y" * 500,) for _ in range(400)])
    db.commit()
    db.close()
    size = os.path.getsize(ctx.path("trunc.sqlite"))
    with open(ctx.path("trunc.sqlite"), "r+b") as f:
        f.truncate(size // 3)
    return judge_args(ctx, ctx.server("ok"), "trunc.sqlite")


READ_ONLY = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"'
FULL = 'mount -t tmpfs -o size=16k tmpfs "$0" && exec "$@"'


def mount_namespace(ctx, script, directory, probe_error):
    """Runs probity in a private mount namespace (root or user namespaces) where `script` has
    mounted `directory`; Skip when the machine cannot (the probe must fail with probe_error)."""
    ctx.wrap = ["unshare", "-m", "sh", "-c", script, directory]
    probe = subprocess.run([*ctx.wrap, "sh", "-c", 'head -c 65536 /dev/zero > "$0"/probe',
                            directory], capture_output=True) if shutil.which("unshare") else None
    if probe is None or probe_error.encode() not in probe.stderr:
        raise Skip(f"no mount namespace here ({probe_error} expected)")


def audit_out_fs(script, error):
    def setup(ctx):
        os.makedirs(ctx.path("mnt"))
        d = data(ctx)
        mount_namespace(ctx, script, ctx.path("mnt"), error)
        return ["audit", "--data", d, "--metric", "bleu", "--out", ctx.path("mnt", "out"),
                "--degrade", "none", "--manipulate", "none", *AUDIT_FAST]
    return setup


def cache_on_read_only_fs(ctx):
    """--cache-mode read-only of a cache whose directory is mounted read-only."""
    s = ctx.server("ok")
    ctx.fake = s
    os.makedirs(ctx.path("ro"))
    args = judge_args(ctx, s, ctx.path("ro", "llm.sqlite"))
    code, _, err, _ = ctx.run(args)
    if code != 0:
        raise RuntimeError(f"setup: the run that fills the cache exited {code}: {err[-300:]}")
    ctx.first_requests = s.requests
    mount_namespace(ctx, READ_ONLY, ctx.path("ro"), "Read-only file system")
    return args + ["--cache-mode", "read-only"]


def check_read_only_cache(ctx, code, out, err):
    asked = ctx.fake.requests - ctx.first_requests
    return fail_if(asked != 0, f"{asked} requests: the cached answers were not read")


def one_big_candidate(ctx):
    """A dataset with one 10 MB candidate; `score` of it runs first for its peak memory."""
    if is_sanitized(ctx.probity):
        raise Skip("AddressSanitizer's shadow memory and quarantine make peak memory "
                   "incomparable; the ordinary build checks it")
    words = ["alpha", "beta", "gamma", "delta", "park", "council", "town", "plan", "residents"]
    big = " ".join(words[(i * 7919) % 9] + ("." if i % 13 == 0 else "")
                   for i in range(1_600_000))
    tasks = [task(i) for i in range(4)]
    tasks[0]["candidates"][0]["text"] = big
    write(ctx.path("big.jsonl"), "".join(json.dumps(t) + "\n" for t in tasks))
    code, _, err, _ = ctx.run(["score", "--data", "big.jsonl", "--metric", "bleu", "--out",
                               "s.jsonl"])
    if code != 0:
        raise RuntimeError(f"setup: score exited {code}: {err[-300:]}")
    ctx.score_kb = ctx.max_rss_kb
    return ["audit", "--data", "big.jsonl", "--metric", "bleu", "--out", "out", *AUDIT_FAST]


AUDIT_OVER_SCORE = 2.5  # an audit's peak memory stays a small multiple of score's


def check_memory(ctx, code, out, err):
    ratio = ctx.max_rss_kb / max(ctx.score_kb, 1)
    return fail_if(ratio > AUDIT_OVER_SCORE,
                   f"audit peak {ctx.max_rss_kb // 1024} MB = {ratio:.1f} x score's "
                   f"{ctx.score_kb // 1024} MB (at most {AUDIT_OVER_SCORE} x)")


def audit_cache_not_sqlite(ctx):
    os.makedirs(ctx.path("out"))
    write(ctx.path("out", "cache.sqlite"), "garbage " * 1000)
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "out", "--degrade", "none",
            "--manipulate", "none", *AUDIT_FAST]


def import_not_cache(ctx):
    write(ctx.path("notcache.txt"), "hello\n" * 50)
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "out", "--degrade", "none",
            "--manipulate", "none", "--import", "notcache.txt", *AUDIT_FAST]


def corpus_missing(ctx):
    return ["score", "--data", data(ctx), "--metric",
            "mi:tv/direct/token/ar,predictor=ngram,corpus=missing-corpus.txt", "--out", "s.jsonl"]


def empty_scores(ctx):
    write(ctx.path("empty.jsonl"), "")
    return ["correlate", "--data", data(ctx), "--scores", "empty.jsonl", "--bootstrap", "0"]


# --- LLM servers ---------------------------------------------------------------------------------


def quota_forever(ctx):
    s = ctx.server("quota")
    ctx.fake = s
    return judge_args(ctx, s)


def check_quota(ctx, code, out, err):
    return fail_if(ctx.fake.requests > 64, f"{ctx.fake.requests} requests for a quota error")


def ratelimit_forever(ctx):
    s = ctx.server("ratelimit")
    # The default rate-limit budget (600 s a request): repeated 429s with no success must trip
    # the breaker long before it is spent (docs/llm-servers.md).
    write(ctx.path("rl.toml"), "[llm.default]\ncircuit_breaker = 5\n")
    return judge_args(ctx, s) + ["--config", "rl.toml"]


def toggled_rerun(first_mode, make_args):
    """Run once against a broken server, fix it, run the same command: it must ask again."""
    def setup(ctx):
        s = ctx.server(first_mode)
        ctx.fake = s
        args = make_args(ctx, s)
        code, _, err, _ = ctx.run(args, timeout=120)
        ctx.first = (code, err)
        ctx.first_requests = s.requests
        s.mode = "ok"
        return args
    return setup


def check_toggled(ctx, code, out, err):
    first_code, first_err = ctx.first
    problems = []
    if first_code != 5:
        problems.append(f"the first run (broken server) exited {first_code}, not 5")
    if ctx.first_requests == 0:
        problems.append("the first run sent no request")
    asked = ctx.fake.requests - ctx.first_requests
    if asked == 0:
        problems.append("the rerun sent 0 requests (failures were served from a cache)")
    # An audit's tests: each must have run on what the fixed server answered (report.md's legend
    # says "not testable" in any report, so the JSON is read).
    for p in files_under(ctx.dir):
        if os.path.basename(p) != "report.json":
            continue
        with open(p, errors="replace") as f:
            report = json.load(f)
        tests = report.get("tests", [])
        rows = [r for c in report.get("correlations", []) for r in c.get("rows", [])]
        if not tests and not rows:
            problems.append("report.json has no tests and no correlations")
        for r in rows:
            if not r.get("n"):
                problems.append(f"the correlation with {r.get('dimension')} has n = 0")
        for t in tests:
            if not t.get("testable") or t.get("failed", 0) > 0 or t.get("undefined", 0) > 0:
                problems.append(f"{t.get('code')} still not testable: applied {t.get('applied')}, "
                                f"failed {t.get('failed')}, undefined {t.get('undefined')}")
    return "; ".join(problems) or None


def fast_config(ctx):
    write(ctx.path("fast.toml"), "[llm.default]\nmax_attempts = 1\n")
    return ["--config", "fast.toml"]


def audit_judge(ctx, s):
    return ["audit", "--data", data(ctx), "--metric", "llm-judge", "--out", "out", "--degrade",
            "none", "--manipulate", "none", *AUDIT_FAST, *ctx.llm_args(s), *fast_config(ctx)]


def audit_perturber(ctx, s):
    return ["audit", "--data", data(ctx), "--metric", "bleu", "--out", "out", "--degrade", "D",
            "--manipulate", "none", "--perturber", "llm", *AUDIT_FAST, *ctx.llm_args(s),
            *fast_config(ctx)]


def score_judge_cached(ctx, s):
    return judge_args(ctx, s, "llm.sqlite") + fast_config(ctx)


def no_cache_hint(ctx):
    """An endpoint that is down (nothing listens) trips the breaker; no cache is in use."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dead = type("Dead", (), {"url": f"http://127.0.0.1:{port}/v1"})()
    return judge_args(ctx, dead) + ["--cache-mode", "off"] + fast_config(ctx)


KEY = 'sk-RTq1/RTq2"RTq3\\RTq4/é€😀RTq5/'
KEY_PLAIN = "sk-RTp1RTp2RTp3"  # no `/`: still leaks when every character is \u-escaped
KEY_CTRL = "sk-RTw1\bRTw2\fRTw3\nRTw4\rRTw5\x01RTw6\x1fRTw7/"


def key_fragments(key):
    """Pieces of the key between its special characters: none may survive redaction."""
    frags = [f for f in re.split(r"[^A-Za-z0-9]+", key) if len(f) >= 4 and "RT" in f]
    return frags + re.findall(r"RT[a-z]\d", key)


def echo_key(cmd, key):
    def setup(ctx):
        s = ctx.server("echo-key", key)
        ctx.key, ctx.fake = key, s
        d = data(ctx)
        common = [*ctx.llm_args(s, key=key), "--cache", "llm.sqlite"]
        if cmd == "perturb":
            return ["perturb", "--data", d, "--degrade", "D", "--manipulate", "none",
                    "--perturber", "llm", "--out", "p.jsonl", *common]
        return ["audit", "--data", d, "--metric", "bleu", "--out", "out", "--degrade", "D",
                "--manipulate", "none", "--perturber", "llm", "--export", "latex,svg",
                *AUDIT_FAST, *common]
    return setup


def check_no_key(ctx, code, out, err):
    frags = key_fragments(ctx.key)
    # The key as the server spelled it, and that spelling escaped again inside a stored JSON.
    spelled = escape_variants(ctx.key)
    frags += spelled + [json.dumps(v)[1:-1] for v in spelled]
    leaks = []
    for p in list(files_under(ctx.dir)):
        if p.endswith(".jsonl") and os.path.basename(p) == "tiny.jsonl":
            continue
        blob = open(p, "rb").read()
        hits = sorted({f for f in frags if f.encode() in blob})
        if hits:
            leaks.append(f"{os.path.relpath(p, ctx.dir)} ({blob.count(hits[0].encode())}x)")
    for label, text in (("stdout", out), ("stderr", err)):
        if any(f in text for f in frags):
            leaks.append(label)
    if code == 0 and ctx.fake.requests == 0:
        return "exit 0 but the key-echoing server was never asked"
    return ("the key is in " + ", ".join(leaks[:8])) if leaks else None


# ---------------------------------------------------------------------------------------------


def build_cases():
    C = []
    add = C.append
    # parsing
    add(Case("jsonl-deep-rating", "nesting", deep_rating, 3, ["deep_rating.jsonl:1"],
             check=short_stderr()))
    add(Case("jsonl-deep-flat-map", "nesting", deep_flat, 3, ["deep_flat.jsonl:1"],
             check=short_stderr()))
    # A deep field probity ignores (meta) may be skipped or refused, but not crash.
    add(Case("jsonl-deep-ignored-field", "nesting", deep_object, (0, 3),
             check=short_stderr(named="deep_object.jsonl:1")))
    add(Case("json-array-deep-ignored-field", "nesting", deep_json_array, (0, 3),
             check=short_stderr(named="deep.json")))
    for name, text in (
            ("toml-deep-array", "[llm.default]\nmodel = " + deep_array(DEPTH) + "\n"),
            ("toml-deep-inline-table", "[llm.default]\nheaders = " + "{a = " * DEPTH + "1"
             + "}" * DEPTH + "\n"),
            ("toml-deep-extra-body", "[llm.default]\nmodel = \"m\"\nextra_body = " + "{x = "
             * DEPTH + "1" + "}" * DEPTH + "\n"),
            ("toml-deep-extra-body-array", "[llm.default]\nmodel = \"m\"\nextra_body = {x = "
             + deep_array(DEPTH) + "}\n")):
        add(Case(name, "nesting", toml_case(name + ".toml", text), (2, 3), [name + ".toml"],
                 check=short_stderr()))
    add(Case("jsonl-nul-after-valid-task", "nul", nul_after_jsonl, 3, ["nul.jsonl:1"]))
    add(Case("jsonl-nul-inside-task", "nul", nul_inside_jsonl, 3, ["nul2.jsonl:1"]))
    add(Case("toml-nul-byte", "nul", toml_case("nul.toml", "[llm.default]\nmodel = \"m\x00x\"\n"),
             (2, 3), ["nul.toml"]))
    add(Case("toml-nul-in-comment", "nul", toml_case("nulc.toml", "# a\x00b\n[llm.default]\n"
                                                     "model = \"m\"\n"), (2, 3), ["nulc.toml"]))
    add(Case("toml-invalid-utf8", "encoding",
             lambda c: (write(c.path("bad.toml"), b"[llm.default]\nmodel = \"m\xff\xfe\"\n"),
                        data(c), ["score", "--config", "bad.toml", "--data", "tiny.jsonl",
                                  "--metric", "bleu", "--out", "s.jsonl"])[-1],
             (2, 3), ["bad.toml"]))
    add(Case("csv-duplicate-candidate-column", "csv", csv_dup_candidate, 3,
             ["dup.csv", "candidate"]))
    add(Case("csv-text-after-closing-quote", "csv", csv_text_after_quote, 3, ["quote.csv:2"]))
    add(Case("csv-docs-example-accepted", "csv", csv_docs_example, 0, check=check_docs_example))
    # options
    for name, option, build, value in OPTION_CASES:
        add(option_case(name, option, build, value))
    add(Case("range-message-short", "messages", range_message, 2, ["--bootstrap-samples"],
             check=lambda c, code, o, e: fail_if(re.search(r"\d{40,}", e) is not None,
                                                 "a number of 40+ digits in the message")))
    add(Case("compare-same-metric-twice", "messages", compare_same_metric, 2, ["bleu"],
             not_stderr=["not in the scores file"],
             check=lambda c, code, o, e: fail_if(not re.search(r"twice|same|distinct|differ", e),
                                                 "the message does not say the metric is "
                                                 "given twice")))
    # outputs
    add(Case("audit-out-holds-its-input", "outputs", audit_over_input, 2, ["report.json"],
             check=input_intact(("out", "report.json"))))
    add(Case("attack-out-holds-its-input", "outputs", attack_over_input, 2, ["attack.json"],
             check=input_intact(("out", "attack.json"))))
    add(Case("perturb-out-is-its-input", "outputs", perturb_over_input, 2, ["d.jsonl"],
             check=input_intact(("d.jsonl",))))
    add(Case("score-explain-is-its-input", "outputs", score_explain_over_input, 2, ["d.jsonl"],
             check=input_intact(("d.jsonl",))))
    add(Case("audit-export-overwrites-input", "outputs", audit_over_export, 2, [],
             check=input_intact(())))
    add(Case("score-out-symlink", "outputs", symlink_out("score"), (0, 2, 4), check=check_symlink))
    add(Case("perturb-out-symlink", "outputs", symlink_out("perturb"), (0, 2, 4),
             check=check_symlink))
    add(Case("audit-out-is-a-file", "outputs", audit_out_is_file, 4, ["afile"]))
    add(Case("audit-out-unwritable", "outputs", audit_out_unwritable, 4, ["/proc/probity-redteam"]))
    add(Case("audit-out-under-a-file", "outputs", audit_out_under_file, 4, ["afile"]))
    add(Case("audit-out-read-only-fs", "outputs", audit_out_fs(READ_ONLY, "Read-only file system"),
             4, ["mnt/out"]))
    add(Case("audit-out-full-fs", "outputs", audit_out_fs(FULL, "No space left on device"), 4,
             ["mnt/out"]))
    add(Case("score-out-dev-full", "outputs", score_out_full, 4, ["/dev/full"]))
    add(Case("latex-cell-starting-with-bracket", "outputs", latex_bracket, 0, check=check_latex))
    add(Case("colliding-dataset-names", "names",
             colliding_names("a/summ.jsonl", "b/summ.jsonl"), (0, 2), check=check_colliding))
    add(Case("colliding-sanitised-names", "names",
             colliding_names("b/summ.jsonl", "c/summ.jsonl", "b_summ.jsonl"), (0, 2),
             check=check_colliding))
    add(Case("audit-report-symlink", "outputs", audit_report_symlink, (0, 2, 4),
             check=check_report_symlink))
    # resources
    add(Case("audit-memory-one-big-candidate", "memory", one_big_candidate, 0,
             check=check_memory, timeout=120))
    # caches and named files
    add(Case("cache-not-sqlite", "caches", cache_not_sqlite, 3, ["junk.sqlite"]))
    add(Case("cache-wrong-schema", "caches", cache_wrong_schema, 3, ["other.sqlite"]))
    add(Case("cache-truncated", "caches", cache_truncated, 3, ["trunc.sqlite"]))
    add(Case("cache-read-only-on-read-only-fs", "caches", cache_on_read_only_fs, 0,
             check=check_read_only_cache))
    add(Case("audit-cache-not-sqlite", "caches", audit_cache_not_sqlite, 3, ["cache.sqlite"]))
    add(Case("import-not-a-cache", "caches", import_not_cache, 3, ["notcache.txt"]))
    add(Case("corpus-file-missing", "inputs", corpus_missing, (2, 3), ["missing-corpus.txt"]))
    add(Case("empty-scores-file", "inputs", empty_scores, 3, ["empty.jsonl"]))
    # LLM servers
    add(Case("llm-quota-stops-at-once", "llm", quota_forever, 5,
             ["You exceeded your current quota"], check=check_quota, timeout=30))
    add(Case("llm-429-forever-trips-breaker", "llm", ratelimit_forever, 5, [], timeout=60))
    add(Case("llm-judge-500-then-ok-audit", "llm-cache", toggled_rerun("500", audit_judge), 0,
             check=check_toggled, timeout=120))
    add(Case("llm-perturber-500-then-ok-audit", "llm-cache",
             toggled_rerun("500", audit_perturber), 0, check=check_toggled, timeout=120))
    add(Case("llm-judge-500-then-ok-score-cache", "llm-cache",
             toggled_rerun("500", score_judge_cached), 0, check=check_toggled, timeout=120))
    add(Case("llm-judge-unusable-then-ok", "llm-cache",
             toggled_rerun("unusable", score_judge_cached), 0, check=check_toggled, timeout=120))
    add(Case("llm-perturber-unusable-then-ok", "llm-cache",
             toggled_rerun("unusable", audit_perturber), 0, check=check_toggled, timeout=120))
    add(Case("llm-no-cache-hint-without-cache", "messages", no_cache_hint, 5,
             not_stderr=["(--cache)"]))
    add(Case("llm-key-echo-perturb", "secrets", echo_key("perturb", KEY), 0, check=check_no_key,
             timeout=120))
    add(Case("llm-key-echo-audit", "secrets", echo_key("audit", KEY), 0, check=check_no_key,
             timeout=120))
    add(Case("llm-key-echo-without-slash", "secrets", echo_key("perturb", KEY_PLAIN), 0,
             check=check_no_key, timeout=120))
    add(Case("llm-key-control-chars", "secrets", echo_key("perturb", KEY_CTRL), (0, 2),
             check=check_no_key, timeout=120))
    return C


def run_case(probity, case, keep, limit):
    directory = tempfile.mkdtemp(prefix=f"redteam-{case.name}-")
    ctx = Ctx(probity, directory, limit)
    t0 = time.monotonic()
    try:
        try:
            args = case.setup(ctx)
        except Skip as e:
            return None, "skip", str(e), time.monotonic() - t0
        except Exception as e:  # a broken setup is a failure of the case, not of the runner
            return False, "setup", f"setup failed: {e}", time.monotonic() - t0
        code, out, err, _ = ctx.run(args, timeout=case.timeout)
        problems = []
        if code not in case.exit:
            problems.append(f"stderr: {err.strip()[-300:]!r}" if err.strip() else "no stderr")
        for s in case.stderr:
            if s not in err:
                problems.append(f"stderr lacks {s!r}")
        for s in case.not_stderr:
            if s in err:
                problems.append(f"stderr has {s!r}")
        if case.check and code != "timeout":
            msg = case.check(ctx, code, out, err)
            if msg:
                problems.append(msg)
        return not problems and code in case.exit, code, "; ".join(problems), \
            time.monotonic() - t0
    finally:
        ctx.close()
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            print(f"    kept {directory}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probity", required=True, help="the probity binary")
    ap.add_argument("--only", action="append", default=[], help="run only this case (repeatable)")
    ap.add_argument("--category", action="append", default=[], help="run only this category")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--keep", action="store_true", help="keep each case's directory")
    a = ap.parse_args()
    cases = build_cases()
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    if a.list:
        for c in cases:
            print(f"{c.name}\t{c.category}\texit {'/'.join(map(str, c.exit))}")
        return 0
    unknown = [n for n in a.only if n not in names]
    if unknown:
        print(f"redteam: unknown case(s) {unknown}", file=sys.stderr)
        return 2
    if a.only or a.category:  # the union of both selections
        cases = [c for c in cases if c.name in a.only or c.category in a.category]
    probity = os.path.abspath(a.probity)
    limit = memory_limit(probity)
    passed = failed = skipped = 0
    t_all = time.monotonic()
    for case in cases:
        ok, code, why, secs = run_case(probity, case, a.keep, limit)
        expected = "/".join(map(str, case.exit))
        if ok is None:
            print(f"SKIP {case.name} {case.category} -- {why}", flush=True)
            skipped += 1
            continue
        print(f"{'PASS' if ok else 'FAIL'} {case.name} {case.category} exit {expected}/{code} "
              f"{secs:.1f}s" + ("" if ok else f"  -- {why}"), flush=True)
        passed, failed = passed + ok, failed + (not ok)
    print(f"{len(cases)} cases in {len({c.category for c in cases})} categories, "
          f"{skipped} skipped, {time.monotonic() - t_all:.0f} s")
    print(f"redteam: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

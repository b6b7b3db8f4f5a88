#!/usr/bin/env python3
"""Records HTTP exchanges with an OpenAI-compatible server as a JSONL transcript.

The fakes in this folder replay such transcripts (FakeOptions::transcript) and check their
hand-written behaviour against them. Python standard library only.

  proxy   listen on a local port, forward every request to the upstream server and append one
          line per exchange (point probity's --llm-base-url at the proxy to record a whole run)
  probes  send the fixed list of protocol probes below to the upstream server and record them
  send    send requests read from a JSONL file (e.g. the unmatched requests a replaying fake
          appended to $PROBITY_TRANSCRIPT_RECORD) and append the exchanges
  diff    list the JSON paths whose values differ between two transcripts of the same requests
          (how the run-to-run volatile fields were found)

One line per exchange:
  {"method", "path", "request" | "request_text", "status", "headers", "response" | "response_text"}
`request` is the request body parsed as JSON (null for an empty body); a body that is not JSON
is kept as `request_text`, and likewise for the response. `headers` holds the response headers a
client acts on (content type, rate limits). Probes add "probe": <name>. A first line
{"meta": {...}} describes the recording; replay skips it.
"""

import argparse
import http.client
import http.server
import json
import sys
import threading
import time
import urllib.parse

# Response headers kept in a transcript: what probity's client reads.
KEPT_HEADERS = ("content-type", "retry-after", "retry-after-ms")
KEPT_HEADER_PREFIXES = ("x-ratelimit-",)
# Request headers not forwarded: hop-by-hop, or recomputed by http.client.
DROPPED_REQUEST_HEADERS = {"host", "content-length", "connection", "keep-alive",
                           "transfer-encoding", "proxy-connection", "accept-encoding"}


def parse_body(raw):
    """(value, is_json) of a body: None for an empty one, parsed JSON, or the text."""
    if not raw:
        return None, True
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text), True
    except ValueError:
        return text, False


def kept_headers(headers):
    out = {}
    for name, value in headers:
        lname = name.lower()
        if lname in KEPT_HEADERS or lname.startswith(KEPT_HEADER_PREFIXES):
            out[lname] = value
    return out


class Upstream:
    """Forwards one request at a time per connection to the upstream base URL."""

    def __init__(self, base_url, timeout):
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https"):
            raise SystemExit(f"upstream must be http(s)://host:port, got {base_url!r}")
        self.scheme = parsed.scheme
        self.netloc = parsed.netloc
        self.prefix = parsed.path.rstrip("/")
        self.timeout = timeout

    def forward(self, method, path, body, headers):
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        conn = cls(self.netloc, timeout=self.timeout)
        try:
            conn.request(method, self.prefix + path, body=body if body else None, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.getheaders(), resp.read()
        finally:
            conn.close()


class Transcript:
    """Appends exchanges to a JSONL file, one line each, safely from several threads."""

    def __init__(self, path, truncate=False):
        self.path = path
        self.lock = threading.Lock()
        if truncate:
            open(path, "w", encoding="utf-8").close()

    def write(self, record):
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        with self.lock, open(self.path, "a", encoding="utf-8") as out:
            out.write(line + "\n")

    def exchange(self, method, path, request_raw, status, headers, response_raw, extra=None):
        record = dict(extra or {})
        record["method"] = method
        record["path"] = path
        value, is_json = parse_body(request_raw)
        record["request" if is_json else "request_text"] = value
        record["status"] = status
        record["headers"] = kept_headers(headers)
        value, is_json = parse_body(response_raw)
        record["response" if is_json else "response_text"] = value
        self.write(record)
        return record


def send_and_record(upstream, transcript, method, path, request_raw, headers, extra=None):
    try:
        status, resp_headers, body = upstream.forward(method, path, request_raw, headers)
    except (OSError, http.client.HTTPException) as e:
        # Not a server answer: recorded as such so that a replay never mistakes it for one.
        status, resp_headers = 599, [("Content-Type", "text/plain")]
        body = f"record_transcript: upstream unreachable: {e}".encode()
    record = transcript.exchange(method, path, request_raw, status, resp_headers, body, extra)
    return status, resp_headers, body, record


# ---------------------------------------------------------------------------------------------
# proxy

def run_proxy(args):
    upstream = Upstream(args.upstream, args.timeout)
    transcript = Transcript(args.out, truncate=args.truncate)
    if args.meta:
        transcript.write({"meta": parse_meta(args.meta)})

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length > 0 else b""
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in DROPPED_REQUEST_HEADERS}
            status, resp_headers, resp_body, _ = send_and_record(
                upstream, transcript, self.command, self.path, body, headers)
            self.send_response(status)
            for name, value in resp_headers:
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(resp_body)))
            self.end_headers()
            self.wfile.write(resp_body)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

        def log_message(self, fmt, *a):
            if args.verbose:
                sys.stderr.write("record_transcript: " + (fmt % a) + "\n")

    host, _, port = args.listen.rpartition(":")
    server = http.server.ThreadingHTTPServer((host or "127.0.0.1", int(port)), Handler)
    server.daemon_threads = True
    print(f"record_transcript: http://{host or '127.0.0.1'}:{port} -> {args.upstream}, "
          f"appending to {args.out}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


# ---------------------------------------------------------------------------------------------
# probes

# Prompts of text completions come from the llama3 tokenizer fixture, so that the llama.cpp fake
# can answer the same requests (chat messages are not tokenized by the fakes).
ARTICLE = "Article: Rates rose on Wednesday.\n\n"
MOOD = "Mood: \U0001F999 llama time"
CENTRAL_BANK = "Text: The central bank raised interest rates.\nRestatement: "
RATING_SCHEMA = {
    "type": "object",
    "properties": {"rating": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
    "required": ["rating"],
    "additionalProperties": False,
}
SYSTEM = "You rate how well a summary restates its source. Answer with JSON only."
USER = "Source: The central bank raised interest rates on Wednesday.\nSummary: Rates rose.\nRate it."
# About 40k characters: some 10k tokens by any English tokenizer, over an 8192-token slot.
LONG = "The cat dreamed of a quiet garden full of light. " * 800


def probes(model, seed):
    """(name, method, path, body) of every probe; body is a dict, raw bytes, or None."""

    def gen(extra):
        return {"model": model, "seed": seed, "temperature": 0, **extra}

    def chat(extra, messages=None):
        return gen({"messages": messages or [{"role": "system", "content": SYSTEM},
                                             {"role": "user", "content": USER}], **extra})

    def cmpl(extra, prompt=ARTICLE):
        return gen({"prompt": prompt, **extra})

    schema_rf = {"type": "json_schema",
                 "json_schema": {"name": "answer", "strict": True, "schema": RATING_SCHEMA}}
    return [
        ("health", "GET", "/health", None),
        ("models", "GET", "/v1/models", None),
        ("models_root", "GET", "/models", None),
        ("tokenize", "POST", "/tokenize", {"content": ARTICLE}),
        ("tokenize_add_special", "POST", "/tokenize", {"content": ARTICLE, "add_special": True}),
        ("tokenize_with_pieces", "POST", "/tokenize", {"content": MOOD, "with_pieces": True}),
        ("tokenize_prompt_field_ignored", "POST", "/tokenize", {"prompt": ARTICLE}),
        ("completion", "POST", "/v1/completions", cmpl({"max_tokens": 4})),
        ("completion_other_model_name", "POST", "/v1/completions",
         cmpl({"max_tokens": 2, "model": "not-the-served-model"})),
        ("completion_logprobs", "POST", "/v1/completions", cmpl({"max_tokens": 3, "logprobs": 2})),
        ("completion_echo_logprobs", "POST", "/v1/completions",
         cmpl({"max_tokens": 3, "logprobs": 2, "echo": True})),
        ("completion_echo", "POST", "/v1/completions", cmpl({"max_tokens": 3, "echo": True})),
        ("completion_n2", "POST", "/v1/completions", cmpl({"max_tokens": 3, "n": 2})),
        ("completion_n_over_slots", "POST", "/v1/completions", cmpl({"max_tokens": 3, "n": 5})),
        ("completion_best_of", "POST", "/v1/completions", cmpl({"max_tokens": 3, "best_of": 2})),
        ("completion_suffix", "POST", "/v1/completions", cmpl({"max_tokens": 3, "suffix": "."})),
        ("completion_max_tokens_0", "POST", "/v1/completions", cmpl({"max_tokens": 0})),
        ("completion_max_tokens_negative", "POST", "/v1/completions", cmpl({"max_tokens": -2})),
        ("completion_two_prompts", "POST", "/v1/completions",
         cmpl({"max_tokens": 2}, prompt=[ARTICLE, CENTRAL_BANK])),
        ("completion_token_ids", "POST", "/v1/completions", cmpl({"max_tokens": 2},
                                                                  prompt=[300, 301, 302])),
        ("completion_missing_prompt", "POST", "/v1/completions", gen({"max_tokens": 2})),
        ("completion_empty_prompt", "POST", "/v1/completions", cmpl({"max_tokens": 2}, prompt="")),
        ("completion_prompt_object", "POST", "/v1/completions",
         cmpl({"max_tokens": 2}, prompt={"text": ARTICLE})),
        ("completion_over_context", "POST", "/v1/completions",
         cmpl({"max_tokens": 2}, prompt=[300] * 9000)),
        ("completion_json_schema", "POST", "/v1/completions",
         cmpl({"max_tokens": 200, "json_schema": RATING_SCHEMA})),
        ("completion_bad_json", "POST", "/v1/completions", b"{bad json"),
        ("chat", "POST", "/v1/chat/completions", chat({"max_tokens": 4})),
        ("chat_repeated_1", "POST", "/v1/chat/completions", chat({"max_tokens": 5})),
        ("chat_repeated_2", "POST", "/v1/chat/completions", chat({"max_tokens": 5})),
        ("chat_logprobs", "POST", "/v1/chat/completions",
         chat({"max_tokens": 3, "logprobs": True, "top_logprobs": 2})),
        ("chat_n2", "POST", "/v1/chat/completions", chat({"max_tokens": 3, "n": 2})),
        ("chat_max_tokens_0", "POST", "/v1/chat/completions", chat({"max_tokens": 0})),
        ("chat_top_logprobs_without_logprobs", "POST", "/v1/chat/completions",
         chat({"max_tokens": 3, "top_logprobs": 2})),
        ("chat_missing_messages", "POST", "/v1/chat/completions", gen({"max_tokens": 2})),
        ("chat_message_without_content", "POST", "/v1/chat/completions",
         gen({"max_tokens": 2, "messages": [{"role": "user"}]})),
        ("chat_messages_not_array", "POST", "/v1/chat/completions",
         gen({"max_tokens": 2, "messages": {"role": "user", "content": USER}})),
        ("chat_response_format_json_schema", "POST", "/v1/chat/completions",
         chat({"max_tokens": 200, "response_format": schema_rf})),
        ("chat_response_format_json_object", "POST", "/v1/chat/completions",
         chat({"max_tokens": 60, "response_format": {"type": "json_object"}})),
        ("chat_response_format_text", "POST", "/v1/chat/completions",
         chat({"max_tokens": 3, "response_format": {"type": "text"}})),
        ("chat_response_format_bad_type", "POST", "/v1/chat/completions",
         chat({"max_tokens": 3, "response_format": {"type": "xml"}})),
        ("chat_response_format_bad_schema", "POST", "/v1/chat/completions",
         chat({"max_tokens": 3, "response_format": {
             "type": "json_schema",
             "json_schema": {"name": "answer", "strict": True,
                             "schema": {"type": "object", "properties": {
                                 "rating": {"$ref": "#/definitions/missing"}}}}}})),
        ("chat_json_schema_field", "POST", "/v1/chat/completions",
         chat({"max_tokens": 200, "json_schema": RATING_SCHEMA})),
        ("chat_grammar", "POST", "/v1/chat/completions",
         chat({"max_tokens": 20, "grammar": 'root ::= "{\\"rating\\": " [1-5] "}"'})),
        ("chat_json_schema_and_grammar", "POST", "/v1/chat/completions",
         chat({"max_tokens": 20, "json_schema": RATING_SCHEMA,
               "grammar": 'root ::= "{\\"rating\\": " [1-5] "}"'})),
        ("chat_over_context", "POST", "/v1/chat/completions",
         chat({"max_tokens": 2}, messages=[{"role": "user", "content": LONG}])),
        ("native_completion", "POST", "/completion", cmpl({"n_predict": 2})),
        ("unknown_route", "POST", "/v1/nope", {}),
    ]


def run_probes(args):
    upstream = Upstream(args.upstream, args.timeout)
    transcript = Transcript(args.out, truncate=not args.append)
    if args.meta:
        transcript.write({"meta": parse_meta(args.meta)})
    wanted = set(args.only.split(",")) if args.only else None
    for name, method, path, body in probes(args.model, args.seed):
        if wanted is not None and name not in wanted:
            continue
        raw = body if isinstance(body, bytes) else (b"" if body is None else
                                                    json.dumps(body).encode())
        headers = {"Content-Type": "application/json"} if method != "GET" else {}
        started = time.monotonic()
        status, _, _, _ = send_and_record(upstream, transcript, method, path, raw, headers,
                                          {"probe": name})
        print(f"{name}: {status} ({time.monotonic() - started:.1f} s)", file=sys.stderr,
              flush=True)


# ---------------------------------------------------------------------------------------------
# send

def run_send(args):
    upstream = Upstream(args.upstream, args.timeout)
    transcript = Transcript(args.out)
    with open(args.requests, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if "meta" in r:
                continue
            if "request_text" in r:
                raw = r["request_text"].encode()
            elif r.get("request") is None:
                raw = b""
            else:
                raw = json.dumps(r["request"]).encode()
            method = r.get("method", "POST")
            headers = {"Content-Type": "application/json"} if raw else {}
            status, _, _, _ = send_and_record(upstream, transcript, method, r["path"], raw,
                                              headers)
            print(f"line {n}: {method} {r['path']}: {status}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# diff

def leaf_paths(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaf_paths(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaf_paths(v, f"{path}/{i}")
    else:
        yield path, value


def load(path):
    with open(path, encoding="utf-8") as f:
        return [r for r in (json.loads(line) for line in f if line.strip()) if "meta" not in r]


def run_diff(args):
    a, b = load(args.a), load(args.b)
    if all("probe" in r for r in a + b):
        # Probes pair by name, so that recordings of different probe lists compare.
        by_name = {r["probe"]: r for r in b}
        pairs = [(x, by_name[x["probe"]]) for x in a if x["probe"] in by_name]
    else:
        if len(a) != len(b):
            print(f"different numbers of exchanges: {len(a)} and {len(b)}", file=sys.stderr)
        pairs = list(zip(a, b))
    differing = {}
    for x, y in pairs:
        name = x.get("probe") or f"{x['method']} {x['path']}"
        if x["status"] != y["status"]:
            differing.setdefault("(status)", set()).add(name)
        xa = dict(leaf_paths(x.get("response", x.get("response_text"))))
        ya = dict(leaf_paths(y.get("response", y.get("response_text"))))
        for p in sorted(set(xa) | set(ya)):
            if xa.get(p, ...) != ya.get(p, ...):
                differing.setdefault(p, set()).add(name)
    for p, names in sorted(differing.items()):
        print(f"{p}\t{len(names)}\t{', '.join(sorted(names))}")


def parse_meta(items):
    meta = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--meta wants key=value, got {item!r}")
        meta[key] = value
    return meta


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)

    def common(sp, out=True):
        sp.add_argument("--upstream", required=True, help="e.g. http://127.0.0.1:18080")
        if out:
            sp.add_argument("--out", required=True, help="the transcript (JSONL)")
        sp.add_argument("--timeout", type=float, default=900.0, help="seconds per request")
        sp.add_argument("--meta", action="append", default=[],
                        help="key=value for the {\"meta\": ...} first line (repeatable)")

    sp = sub.add_parser("proxy", help="record everything sent through a local port")
    common(sp)
    sp.add_argument("--listen", default="127.0.0.1:18090", help="host:port (default %(default)s)")
    sp.add_argument("--truncate", action="store_true", help="start a new transcript")
    sp.add_argument("--verbose", action="store_true")
    sp.set_defaults(func=run_proxy)

    sp = sub.add_parser("probes", help="send and record the fixed protocol probes")
    common(sp)
    sp.add_argument("--model", default="tiny")
    sp.add_argument("--seed", type=int, default=42)
    sp.add_argument("--only", help="comma-separated probe names")
    sp.add_argument("--append", action="store_true", help="append instead of starting anew")
    sp.set_defaults(func=run_probes)

    sp = sub.add_parser("send", help="send requests read from a JSONL file and record them")
    common(sp)
    sp.add_argument("--requests", required=True,
                    help="JSONL of {method, path, request | request_text}")
    sp.set_defaults(func=run_send)

    sp = sub.add_parser("diff", help="JSON paths whose values differ between two transcripts")
    sp.add_argument("a")
    sp.add_argument("b")
    sp.set_defaults(func=run_diff)

    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Proves that a refactor changes no output byte: runs a fixed battery of probity commands on the
# bundled datasets and records every output (stdout, stderr, exit codes, written files, the audit
# and LLM caches as sorted SQL dumps), then compares two such records.
#
#   scripts/check-identical.sh record DIR [BINARY]        # BINARY defaults to build/probity
#   scripts/check-identical.sh compare DIR_A DIR_B        # exit 1 and the differences, or
#                                                         # "identical: N files"
#   scripts/check-identical.sh check BASELINE_DIR [BINARY] # record into a temp dir, compare
#
# Typical use: `record /tmp/identical-base` before the refactor, `check /tmp/identical-base`
# after each step. The battery takes about a minute on 2 cores.
#
# Every command runs from a scratch directory holding a `data` link to the repository's data/,
# so paths in the outputs are relative and the same wherever DIR is. Threads are set explicitly
# (--threads 2) and every random step has a fixed --seed. What still varies between two runs of
# the same binary was found by recording twice (also on a loaded machine): wall-clock times, which
# normalise() replaces, and the LLM cache's "created" timestamps, which dump_sqlite() leaves out.
# stderr is recorded: after that normalisation it is deterministic too.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=(--threads 2)
# The fake LLM server's port is part of every LLM cache key (the key hashes the URL), so it is
# fixed; pick another one with CHECK_IDENTICAL_LLM_PORT only for both record and check.
LLM_PORT=${CHECK_IDENTICAL_LLM_PORT:-18093}

usage() {
  sed -n '6,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---------------------------------------------------------------------------------------------
# Normalisation of what legitimately varies between two runs of the same binary.
# ---------------------------------------------------------------------------------------------

# Text outputs: wall-clock durations become "<T>": the audit's run time in the header/footer
# ("· 5.6 s ·", "**Run:** 5.6 s,", "0.8 s; cache ..."), report.html's <dd>5.6 s</dd> and
# report.json's "seconds", and the LLM usage's wall time ("wall_s" in JSON, the "wall s" column
# of the terminal table). JSONL files (score records, datasets) hold no times and are copied as
# they are, so a perturbed text such as "... 5 s, ..." is never touched.
normalise() {
  case $1 in
    *.jsonl) cat "$1" ;;
    *) sed -E \
      -e 's/\b[0-9]+(\.[0-9]+)? s( ·|,|;|\)|<\/dd>)/<T> s\2/g' \
      -e 's/"(seconds|wall_s)": *[-0-9.e+]+/"\1": <T>/g' \
      -e '/^LLM usage:/,/^$/ s/ +[0-9]+\.[0-9]+( +[0-9]+\.[0-9]+)$/ <T>\1/' \
      "$1" ;;
  esac
}

# SQLite files (audit resume cache, LLM response cache): every table as sorted rows of quoted
# values, one row a line (newlines and the key separator \x1f made visible). Insertion order and
# page layout depend on thread timing, the rows do not. The LLM cache's `created` column is the
# time an answer arrived, so it is left out.
dump_sqlite() {
  local db=$1 table cols
  for table in $(sqlite3 -batch "$db" \
    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"); do
    echo "## table $table"
    sqlite3 -batch "$db" "SELECT sql FROM sqlite_master WHERE name = '$table'"
    cols=$(sqlite3 -batch "$db" "SELECT group_concat(
        'replace(replace(quote(' || name || '), char(10), ''\n''), char(31), ''\x1f'')', ' || '' | '' || ')
        FROM pragma_table_info('$table') WHERE name <> 'created'")
    sqlite3 -batch "$db" "SELECT $cols FROM \"$table\" ORDER BY 1"
  done
}

# ---------------------------------------------------------------------------------------------
# The battery.
# ---------------------------------------------------------------------------------------------

# run NAME EXPECTED_RC CMD... : runs CMD in the scratch dir, stdout to w/NAME.out, stderr to
# w/NAME.err, and its exit code into w/exit-codes.txt (a changed exit code is a difference too);
# an exit code other than the expected one is also listed in ./unexpected, so that `record`
# fails loudly rather than keeping a broken baseline.
run() {
  local name=$1 want=$2 rc=0
  shift 2
  timeout 600 "$@" >"w/$name.out" 2>"w/$name.err" || rc=$?
  echo "$name $rc" >>w/exit-codes.txt
  if [ "$rc" != "$want" ]; then
    echo "check-identical: $name exited $rc (expected $want): $(head -c 300 "w/$name.err")" >&2
    echo "$name" >>unexpected
  fi
}

# The fake OpenAI-compatible server for the LLM-backed metrics. The repository's mock servers
# (tests/llm/mock_server.cpp, tests/llm/fakes/) live inside the test binaries and cannot be
# started from the command line, so this is a stdlib Python one (python/tests/test_llm.py has a
# judge-only one like it) with mock_server.cpp's transparent token model. Chat answers the judge
# with the share of candidate words found in the reference, mapped onto the prompt's scale;
# /tokenize gives whitespace words with ids hashed from the word (so independent of request
# order); legacy completions echo the prompt with per-word log-probabilities (-1 for a word seen
# earlier in the prompt, -5 otherwise, none for the first). Every answer is a function of the
# request alone, so the recorded cache bodies are deterministic.
start_fake_llm() {
  if curl -s "http://127.0.0.1:$LLM_PORT/" >/dev/null 2>&1; then
    echo "check-identical: port $LLM_PORT is taken; free it (the port is part of the" \
      "recorded LLM cache keys, so set CHECK_IDENTICAL_LLM_PORT only for record and check alike)" >&2
    return 1
  fi
  /usr/bin/env python3 - "$LLM_PORT" <<'PY' &
import hashlib, http.server, json, sys

WORDS = {}  # token id -> word; ids are a hash of the word, so independent of request order


def token_id(word):
    i = int(hashlib.sha1(word.encode()).hexdigest()[:12], 16)
    WORDS[i] = word
    return i


class Fake(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, obj, status=200):
        data = json.dumps(obj, sort_keys=True).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (the readiness probe)
        self.reply({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        usage = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
        if self.path == "/v1/chat/completions":  # the judge
            prompt = body["messages"][-1]["content"]
            cand = prompt.split("CANDIDATE:\n<<<\n", 1)[-1].split("\n>>>", 1)[0]
            ref = prompt.split("REFERENCE:\n<<<\n", 1)[-1].split("\n>>>", 1)[0]
            lo, hi = 1, 5
            if " (worst) to " in prompt:
                lo = int(prompt.split(" (worst) to ")[0].rsplit(" ", 1)[-1])
                hi = int(prompt.split(" (worst) to ", 1)[1].split(" ")[0])
            words, known = cand.lower().split(), set(ref.lower().split())
            share = sum(w in known for w in words) / max(1, len(words))
            rating = lo + round((hi - lo) * share)
            msg = {"role": "assistant", "content": json.dumps({"rating": rating})}
            self.reply({"id": "fake", "object": "chat.completion", "created": 0,
                        "model": body["model"], "usage": usage,
                        "choices": [{"index": 0, "finish_reason": "stop", "message": msg}]})
        elif self.path == "/tokenize":
            ids = [token_id(w) for w in body["prompt"].split()]
            self.reply({"count": len(ids), "max_model_len": 4096, "tokens": ids})
        elif self.path == "/v1/completions" and body.get("echo"):  # scores the prompt
            p = body["prompt"]
            toks = [WORDS[i] for i in p] if isinstance(p, list) else p.split()
            text = " ".join(toks)
            offs, lps, pos = [], [], 0
            for k, t in enumerate(toks):
                pos = text.index(t, pos)
                offs.append(pos)
                pos += len(t)
                lps.append(None if k == 0 else (-1.0 if t in toks[:k] else -5.0))
            lp = {"tokens": toks, "token_logprobs": lps, "text_offset": offs,
                  "top_logprobs": [None if v is None else {t: v} for t, v in zip(toks, lps)]}
            self.reply({"id": "fake", "object": "text_completion", "created": 0,
                        "model": body["model"], "usage": usage,
                        "choices": [{"index": 0, "finish_reason": "length", "text": text,
                                     "logprobs": lp}]})
        else:
            self.reply({"error": {"message": "not found: " + self.path,
                                  "type": "invalid_request_error"}}, 404)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 128  # no refused connection (and so no retry) under concurrency
    daemon_threads = True


Server(("127.0.0.1", int(sys.argv[1])), Fake).serve_forever()
PY
  FAKE_LLM_PID=$!
  trap 'kill "$FAKE_LLM_PID" 2>/dev/null' EXIT  # the battery's subshell: stop it on any exit
  local i
  for i in $(seq 50); do
    curl -sf "http://127.0.0.1:$LLM_PORT/v1/models" >/dev/null 2>&1 && return 0
    kill -0 "$FAKE_LLM_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "check-identical: the fake LLM server did not start on port $LLM_PORT" >&2
  return 1
}

stop_fake_llm() {
  kill "$FAKE_LLM_PID" 2>/dev/null || true
  wait "$FAKE_LLM_PID" 2>/dev/null || true
  trap - EXIT
}

battery() {
  local P=$1
  local S20=data/summeval/summeval_sample20.jsonl
  local SE=data/summeval/summeval.jsonl
  local TC=data/topical_chat_usr/topical_chat_usr.jsonl
  local DS=data/dialsummeval/dialsummeval.jsonl
  local NR=data/newsroom_human_eval/newsroom_human_eval.jsonl

  # --- registry and CLI definitions ----------------------------------------------------------
  run metrics 0 "$P" metrics
  run metrics-json 0 "$P" metrics --json
  run help 0 "$P" --help
  local sub
  for sub in score correlate compare audit perturb merge select bench-build metrics; do
    run "help-$sub" 0 "$P" "$sub" --help
  done
  run help-meta-global 0 "$P" meta global --help
  run help-meta-local 0 "$P" meta local --help

  # --- score: lexical metrics and their options (sentence records in the file, corpus on stdout)
  local lexical=(bleu 'bleu,tokenize=intl' 'bleu,tokenize=none,lowercase=true'
    'bleu,smooth=floor,smooth_value=0.2' 'bleu,smooth=add-k' 'bleu,refs=first,max_ngram_order=2'
    chrf chrf++ 'chrf,whitespace=true,beta=1' 'chrf,refs=first,lowercase=true'
    rouge1 rouge2 rougeL rougeLsum 'rougeL.f,stem=true' 'rougeLsum,multi=mean'
    'rouge1.p,tokenizer=unicode' 'rouge2.r,refs=first')
  local m args=()
  for m in "${lexical[@]}"; do args+=(--metric "$m"); done
  run score-lexical 0 "$P" score --data "$S20" "${args[@]}" "${THREADS[@]}" \
    --out w/score-lexical.jsonl
  # records on stdout instead of a file
  run score-stdout 0 "$P" score --data "$S20" --metric bleu --metric chrf++ --metric rougeL \
    "${THREADS[@]}"

  # --- score: the MI design space (presets, options, cells of every F, E, R and P) -------------
  local mi=(gem gppm-j tvd-mi stmt-tv 'gem,order=4' 'gem,cache=0' 'gem,stem=false,normalize=true'
    'gem,refs=all' 'stmt-tv,k=8,seed=3' 'tvd-mi,critic=binary' 'gppm-j,calib_seed=1'
    'mi:tv/fvar/statement/oracle,k=8' 'mi:kl/direct/token/ar' 'mi:chi2/fvar/token/ar'
    'mi:hellinger/direct/report/oracle' 'mi:rkl/fvar/statement/ar'
    'mi:kl/fvar/report/oracle,critic=ordinal' 'mi:hellinger/fvar/token/ar,k=2'
    'mi:rkl/direct/report/oracle' 'mi:tv/direct/token/ar' 'mi:chi2/direct/statement/oracle'
    'mi:kl/direct/statement/ar' 'mi:tv/fvar/report/oracle,refs=all')
  args=()
  for m in "${mi[@]}"; do args+=(--metric "$m"); done
  run score-mi 0 "$P" score --data "$S20" "${args[@]}" "${THREADS[@]}" --out w/score-mi.jsonl

  # --- score: ExPerT, the metric with --explain output ---------------------------------------
  run score-expert 0 "$P" score --data "$S20" --metric expert --metric 'expert.f,agg=content' \
    --metric 'expert.p,agg=style' --metric 'expert,agg=and,refs=all' --metric 'expert.r,agg=or' \
    "${THREADS[@]}" --out w/score-expert.jsonl --explain w/score-expert.explain.jsonl
  # --explain with metrics that have nothing to explain next to one that has
  run score-explain-mixed 0 "$P" score --data "$S20" --metric bleu --metric gem \
    --metric expert.f "${THREADS[@]}" --out w/score-explain-mixed.jsonl \
    --explain w/score-explain-mixed.explain.jsonl

  # --- score: one thread (must give the bytes of two threads), other datasets, CSV input -----
  run score-threads1 0 "$P" score --data "$S20" --metric bleu --metric rougeL.f --metric gem \
    --metric stmt-tv --metric tvd-mi --metric expert.f --threads 1 --out w/score-threads1.jsonl
  run score-summeval 0 "$P" score --data "$SE" --metric bleu --metric chrf --metric rougeL.f \
    --metric gem --metric stmt-tv "${THREADS[@]}" --out w/score-summeval.jsonl
  run score-topical 0 "$P" score --data "$TC" --metric bleu --metric chrf++ --metric rougeL \
    --metric gem --metric tvd-mi --metric gppm-j --metric expert.f "${THREADS[@]}" \
    --out w/score-topical.jsonl
  run score-dialsumm 0 "$P" score --data "$DS" --metric bleu --metric chrf --metric rouge2 \
    --metric gppm-j --metric stmt-tv "${THREADS[@]}" --out w/score-dialsumm.jsonl
  run score-newsroom 0 "$P" score --data "$NR" --metric 'bleu,tokenize=intl' \
    --metric 'rougeLsum,stem=true' --metric gem --metric 'mi:hellinger/fvar/report/oracle' \
    "${THREADS[@]}" --out w/score-newsroom.jsonl
  # two datasets in one run
  run score-two-datasets 0 "$P" score --data "$TC" --data "$NR" --metric chrf --metric gem \
    "${THREADS[@]}" --out w/score-two-datasets.jsonl
  # CSV (one row per candidate), made from the first 10 Topical-Chat tasks
  { echo 'task_id,candidate_id,candidate,reference,overall'
    head -10 "$TC" | jq -r '. as $t | .candidates[] | [$t.task_id, .id, .text,
      $t.references[0].text, (.human.overall | add / length)] | @csv'; } >w/input.csv
  run score-csv 0 "$P" score --data w/input.csv --metric bleu --metric rougeL.f --metric gem \
    "${THREADS[@]}" --out w/score-csv.jsonl
  run correlate-csv 0 "$P" correlate --data w/input.csv --scores w/score-csv.jsonl \
    --bootstrap 100 --seed 0 "${THREADS[@]}"

  # --- score --shard and merge ------------------------------------------------------------------
  run score-shard0 0 "$P" score --data "$S20" --metric bleu --metric stmt-tv --shard 0/2 \
    "${THREADS[@]}" --out w/score-shard0.jsonl
  run score-shard1 0 "$P" score --data "$S20" --metric bleu --metric stmt-tv --shard 1/2 \
    "${THREADS[@]}" --out w/score-shard1.jsonl
  run merge 0 "$P" merge --data "$S20" --out w/merged.jsonl w/score-shard0.jsonl \
    w/score-shard1.jsonl
  run merge-missing 3 "$P" merge --data "$S20" --out w/merged-missing.jsonl w/score-shard0.jsonl

  # --- errors: usage (2) and bad input (3), --skip-invalid -----------------------------------
  run error-unknown-metric 2 "$P" score --data "$S20" --metric nosuch "${THREADS[@]}"
  run error-bad-option 2 "$P" score --data "$S20" --metric 'bleu,tokenize=xx' "${THREADS[@]}"
  run error-unread-option 2 "$P" score --data "$S20" --metric 'mi:kl/direct/token/ar,batch=false'
  { head -3 "$TC"; echo '{"task_id": "broken", "references": [}'; sed -n 4,6p "$TC"
    echo '{"task_id": "t-no-cands", "references": [{"id": "r", "text": "x"}]}'; } >w/invalid.jsonl
  run error-invalid-data 3 "$P" score --data w/invalid.jsonl --metric bleu "${THREADS[@]}"
  run skip-invalid 0 "$P" score --data w/invalid.jsonl --metric bleu --metric gem \
    --skip-invalid "${THREADS[@]}" --out w/skip-invalid.jsonl

  # --- correlate, compare, select, meta -------------------------------------------------------
  run correlate 0 "$P" correlate --data "$SE" --scores w/score-summeval.jsonl --bootstrap 200 \
    --seed 0 "${THREADS[@]}"
  run correlate-json 0 "$P" correlate --data "$SE" --scores w/score-summeval.jsonl \
    --bootstrap 200 --seed 1 --confidence 0.9 --json "${THREADS[@]}"
  run correlate-filtered 0 "$P" correlate --data "$TC" --scores w/score-topical.jsonl \
    --metric gem --metric expert.f --dimension overall --dimension engaging --bootstrap 0 \
    "${THREADS[@]}"
  run compare 0 "$P" compare --data "$SE" --scores w/score-summeval.jsonl --metric bleu \
    --metric gem --permutations 300 --seed 0 "${THREADS[@]}"
  run compare-json 0 "$P" compare --data "$S20" --scores w/score-mi.jsonl --metric stmt-tv \
    --metric tvd-mi --correlation kendall --permutations 300 --seed 2 --json "${THREADS[@]}"
  run compare-pearson 0 "$P" compare --data "$DS" --scores w/score-dialsumm.jsonl \
    --metric chrf --metric gppm-j --correlation pearson --dimension relevance \
    --permutations 300 "${THREADS[@]}"
  run select 0 "$P" select --data "$S20" --metric bleu --metric chrf --metric rougeL.f \
    --metric gem --bootstrap 200 --permutations 200 --seed 0 "${THREADS[@]}"
  run select-scores-json 0 "$P" select --data "$SE" --scores w/score-summeval.jsonl \
    --metric bleu --metric chrf --metric stmt-tv --split 0.4 --correlation pearson \
    --bootstrap 200 --permutations 200 --seed 3 --json "${THREADS[@]}"
  run meta-global 0 "$P" meta global --data "$SE" --scores w/score-summeval.jsonl \
    --max-spread 1 --bootstrap 200 --chance 50 --seed 0 "${THREADS[@]}"
  run meta-global-json 0 "$P" meta global --data "$S20" --scores w/score-mi.jsonl \
    --metric gem --metric stmt-tv --bootstrap 100 --json "${THREADS[@]}"

  # --- bench-build and meta local --------------------------------------------------------------
  run bench-local 0 "$P" bench-build --data "$S20" --dimension consistency --sources 10 \
    --seed 0 --out w/bench-local.jsonl "${THREADS[@]}"
  run bench-local-fluency 0 "$P" bench-build --data "$SE" --dimension fluency --steps 5 \
    --sources 20 --seed 1 --out w/bench-local-fluency.jsonl "${THREADS[@]}"
  run bench-global 0 "$P" bench-build --data "$S20" --dimension relevance --kind global \
    --sources 10 --seed 0 --out w/bench-global.jsonl "${THREADS[@]}"
  run score-bench-local 0 "$P" score --data w/bench-local.jsonl --metric bleu --metric chrf \
    --metric gem --metric stmt-tv "${THREADS[@]}" --out w/score-bench-local.jsonl
  run meta-local 0 "$P" meta local --data w/bench-local.jsonl \
    --scores w/score-bench-local.jsonl --bootstrap 200 "${THREADS[@]}"
  run meta-local-json 0 "$P" meta local --data w/bench-local.jsonl \
    --scores w/score-bench-local.jsonl --bootstrap 100 --json "${THREADS[@]}"
  run score-bench-global 0 "$P" score --data w/bench-global.jsonl --metric chrf \
    --metric rougeL.f "${THREADS[@]}" --out w/score-bench-global.jsonl
  run meta-global-bench 0 "$P" meta global --data w/bench-global.jsonl \
    --scores w/score-bench-global.jsonl --bootstrap 100 "${THREADS[@]}"

  # --- perturb, and the audit of a metric given as a scores file ------------------------------
  run perturb 0 "$P" perturb --data "$S20" --seed 0 --out w/perturbed.jsonl "${THREADS[@]}"
  run perturb-some 0 "$P" perturb --data "$TC" --degrade R,S,U --manipulate M,N --seed 4 \
    --out w/perturbed-some.jsonl "${THREADS[@]}"
  run score-perturbed 0 "$P" score --data w/perturbed.jsonl --metric chrf "${THREADS[@]}" \
    --out w/score-perturbed.jsonl
  run audit-scores-file 0 "$P" audit --data "$S20" \
    --metric 'scores:w/score-perturbed.jsonl,data=w/perturbed.jsonl' --metric chrf \
    --seed 0 --bootstrap 100 "${THREADS[@]}" --out w/audit-scores-file

  # --- audit: the quick start's audit (report files and resume cache recorded) ---------------
  local qs=(--data "$S20" --metric bleu --metric chrf --metric rougeL.f --metric gem
    --metric gppm-j --metric tvd-mi --metric stmt-tv --seed 0 --bootstrap 200 "${THREADS[@]}")
  run audit-quickstart 0 "$P" audit "${qs[@]}" --out w/audit-quickstart
  # the same audit resumed from a copy of its cache: all hits, same report
  cp -r w/audit-quickstart w/audit-quickstart-rerun
  run audit-quickstart-rerun 0 "$P" audit "${qs[@]}" --out w/audit-quickstart-rerun
  # other datasets, strategy subsets, sampling, ASCII tables, ExPerT
  run audit-topical 0 "$P" audit --data "$TC" --metric bleu --metric expert.f --metric tvd-mi \
    --degrade R,S,U --manipulate M,P,N --sample 200 --seed 1 --bootstrap 100 --ascii \
    "${THREADS[@]}" --out w/audit-topical
  run audit-two-datasets 0 "$P" audit --data "$DS" --data "$NR" --metric chrf --metric gem \
    --metric 'rougeL.f,stem=true' --sample 150 --min-applied 20 --alpha 0.01 --seed 2 \
    --bootstrap 100 "${THREADS[@]}" --out w/audit-two-datasets
  run audit-correlation-only 0 "$P" audit --data "$SE" --metric bleu --metric chrf \
    --metric stmt-tv --degrade none --manipulate none --seed 0 --bootstrap 100 "${THREADS[@]}" \
    --out w/audit-correlation-only
  # sharded audit: two shards into their own caches, then the final run importing both
  local sh=(--data "$S20" --metric chrf --metric gem --seed 0 --bootstrap 100 "${THREADS[@]}")
  run audit-shard0 0 "$P" audit "${sh[@]}" --shard 0/2 --out w/audit-shard0
  run audit-shard1 0 "$P" audit "${sh[@]}" --shard 1/2 --out w/audit-shard1
  run audit-import 0 "$P" audit "${sh[@]}" --import w/audit-shard0 --import w/audit-shard1 \
    --out w/audit-import

  # --- LLM-backed metrics against the fake server, with the response cache recorded ----------
  start_fake_llm
  local llm=(--llm-base-url "http://127.0.0.1:$LLM_PORT/v1" --llm-model fake
    --llm-concurrency 8)
  mkdir -p w/llm
  run score-llm 0 "$P" score --data "$S20" --metric llm-judge \
    --metric 'llm-judge,scale=1-10' "${llm[@]}" --cache w/llm/llm-cache.sqlite \
    "${THREADS[@]}" --out w/llm/score-llm.jsonl
  # the same from the cache alone (read-only: must send nothing and give the same records)
  run score-llm-cached 0 "$P" score --data "$S20" --metric llm-judge \
    --metric 'llm-judge,scale=1-10' "${llm[@]}" \
    --cache w/llm/llm-cache.sqlite --cache-mode read-only "${THREADS[@]}" \
    --out w/llm/score-llm-cached.jsonl
  # an audit of the judge: the report's LLM usage section, llm_usage.json, its own LLM cache
  run audit-llm 0 "$P" audit --data "$S20" --metric llm-judge --metric chrf --sample 60 \
    --min-applied 10 --seed 0 --bootstrap 100 "${llm[@]}" --cache w/llm/audit-llm-cache.sqlite \
    "${THREADS[@]}" --out w/llm/audit-llm
  stop_fake_llm
}

# Copies the scratch dir's outputs into DIR: SQLite files as dumps, text normalised; SQLite's
# transient -wal/-shm files are left out (their contents are in the dump once the file is closed)
# and so are the two inputs the battery wrote. files.txt lists the name of every file the
# commands left behind, -wal/-shm included (none remain today).
collect() {
  local src=$1 dst=$2 f rel
  (cd "$src" && find . -type f | sort) >"$dst/files.txt"
  (cd "$src" && find . -type f ! -name '*-wal' ! -name '*-shm' ! -name 'input.csv' \
    ! -name 'invalid.jsonl' | sort) | while read -r f; do
    rel=${f#./}
    mkdir -p "$dst/$(dirname "$rel")"
    if [ "$(head -c 15 "$src/$rel")" = "SQLite format 3" ]; then
      dump_sqlite "$src/$rel" >"$dst/$rel.dump"
    else
      normalise "$src/$rel" >"$dst/$rel"
    fi
  done
}

SCRATCH=
record() {
  local dir=$1 bin=${2:-$ROOT/build/probity} start
  [ -x "$bin" ] || { echo "check-identical: no executable $bin" >&2; exit 2; }
  for tool in sqlite3 jq curl python3 timeout; do
    command -v "$tool" >/dev/null || { echo "check-identical: needs $tool" >&2; exit 2; }
  done
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ] && {
    echo "check-identical: $dir exists and is not empty" >&2
    exit 2
  }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  SCRATCH=$(mktemp -d)
  trap 'rm -rf "$SCRATCH"' EXIT
  ln -s "$ROOT/data" "$SCRATCH/data"
  mkdir "$SCRATCH/w"
  start=$SECONDS
  touch "$SCRATCH/unexpected"
  (cd "$SCRATCH"; battery "$bin")
  collect "$SCRATCH/w" "$dir"
  local bad
  bad=$(wc -l <"$SCRATCH/unexpected")
  echo "recorded $(find "$dir" -type f | wc -l) files in $dir ($((SECONDS - start)) s)"
  if [ "$bad" != 0 ]; then
    echo "check-identical: $bad command(s) exited with an unexpected code (see exit-codes.txt)" >&2
    return 1
  fi
}

# For two differing files: how many lines differ, and the first differing line of each, shown
# from a little before its first differing character (dump rows and JSONL lines are long).
first_difference() {
  local n msg l
  n=$({ diff "$1" "$2" || true; } | grep -c '^[<>]' || true)
  msg=$(cmp "$1" "$2" 2>&1 || true)
  l=$(sed -nE 's/.*line ([0-9]+).*/\1/p' <<<"$msg")
  echo "    $n line(s) differ; the first:"
  if [[ $msg == *"EOF on"* ]]; then  # one file is the other's beginning
    echo "    ${msg#cmp: }; the other goes on with:"
    sed -sn "$((l + 1))p" "$1" "$2" | cut -c1-240 | sed 's/^/    /'
    return 0
  fi
  awk -v L="${l:-1}" 'FNR == L { line[FILENAME == ARGV[1] ? 1 : 2] = $0 }
    END {
      a = line[1]; b = line[2]; i = 1
      while (i <= length(a) && substr(a, i, 1) == substr(b, i, 1)) i++
      from = i > 60 ? i - 60 : 1
      printf "    line %d, column %d\n    < %s\n    > %s\n", L, i, substr(a, from, 240),
        substr(b, from, 240)
    }' "$1" "$2"
}

compare() {
  local a=$1 b=$2 differ line
  [ -d "$a" ] && [ -d "$b" ] || { echo "check-identical: compare needs two directories" >&2; exit 2; }
  differ=$(diff -rq "$a" "$b" || true)
  if [ -z "$differ" ]; then
    echo "identical: $(find "$a" -type f | wc -l) files"
    return 0
  fi
  while read -r line; do
    echo "$line"
    if [[ $line =~ ^Files\ (.*)\ and\ (.*)\ differ$ ]]; then
      first_difference "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    fi
  done <<<"$differ"
  echo "different: $(wc -l <<<"$differ") file(s)"
  return 1
}

case "${1:-}" in
  record)
    [ $# -ge 2 ] && [ $# -le 3 ] || usage
    record "$2" "${3:-}"
    ;;
  compare)
    [ $# -eq 3 ] || usage
    compare "$2" "$3"
    ;;
  check)
    [ $# -ge 2 ] && [ $# -le 3 ] || usage
    [ -d "$2" ] || { echo "check-identical: no baseline $2" >&2; exit 2; }
    tmp=$(mktemp -d)
    rc=0
    # a separate process, so that set -e stays in force inside the record
    "$0" record "$tmp/run" ${3:+"$3"} || rc=$?
    if compare "$2" "$tmp/run" && [ "$rc" = 0 ]; then
      rm -rf "$tmp"
    else
      rc=1
      echo "check-identical: this run's record is kept in $tmp/run" >&2
    fi
    exit "$rc"
    ;;
  *) usage ;;
esac

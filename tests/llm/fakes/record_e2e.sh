#!/usr/bin/env bash
# Runs every LLM feature of probity against a real OpenAI-compatible server through the
# recording proxy (record_transcript.py) and writes the transcript and the manifest the replay
# test (LlamaCppReplay in tests/llm/real_server_replay_test.cpp) checks: each command, its exit
# code and its LLM usage. See docs/llm-servers.md, "Checking against a real llama.cpp".
#
#   record_e2e.sh PROBITY_BINARY UPSTREAM_URL OUT_PREFIX
#
# UPSTREAM_URL is the server's root (http://127.0.0.1:18080); OUT_PREFIX.jsonl and
# OUT_PREFIX.commands.json are written (e.g. tests/llm/fixtures/transcripts/llamacpp-e2e).
set -euo pipefail
if [[ $# -ne 3 ]]; then sed -n '2,10p' "$0"; exit 2; fi
probity=$(realpath "$1"); upstream=$2; prefix=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../fixtures/transcripts/llamacpp-e2e-data.jsonl
port=${RECORD_PORT:-18095}
work=$(mktemp -d)
trap 'kill $proxy 2>/dev/null || true; rm -rf "$work"' EXIT
python3 "$here/record_transcript.py" proxy --upstream "$upstream" --out "$prefix.jsonl" \
  --listen "127.0.0.1:$port" --truncate --meta "what=probity e2e run, commands in $(basename "$prefix").commands.json" \
  --meta "upstream=$upstream" &
proxy=$!
# Wait for the proxy's port without a request (it would be recorded).
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.2; done
# The commands: {data}, {url} and {out} are filled in by this script and by the replay test.
commands=$(cat <<'JSON'
[
 {"name": "judge", "args": "score --data {data} --metric llm-judge --out {out}/judge.jsonl"},
 {"name": "stmt-tv", "args": "score --data {data} --metric stmt-tv,predictor=llm,decompose=llm --out {out}/stmt-tv.jsonl"},
 {"name": "gppm-j", "args": "score --data {data} --metric gppm-j,predictor=llm,decompose_llm=decomposer --out {out}/gppm-j.jsonl"},
 {"name": "expert", "args": "score --data {data} --metric expert,llm=judge --out {out}/expert.jsonl"},
 {"name": "gem", "args": "score --data {data} --metric gem,predictor=llm --llm-concurrency 1 --out {out}/gem.jsonl"},
 {"name": "perturber", "args": "audit --data {data} --sample 2 --metric bleu --perturber llm --bootstrap 10 --out {out}/audit-llm"},
 {"name": "paper", "args": "audit --data {data} --sample 2 --metric bleu --suite paper --bootstrap 10 --out {out}/audit-paper"},
 {"name": "attack", "args": "attack --data {data} --metric bleu --strategy llm --sample 2 --budget 4 --steps 1 --out {out}/attack"},
 {"name": "bench", "args": "bench-build --data {data} --dimension consistency --sources 1 --steps 1 --injector llm --out {out}/bench.jsonl"}
]
JSON
)
llm="--llm-base-url http://127.0.0.1:$port/v1 --llm-model tiny --llm-max-tokens 4096"
echo "$commands" | python3 -c '
import json, subprocess, sys, shlex, os, glob
commands = json.load(sys.stdin)
probity, data, work, llm, manifest = sys.argv[1:6]
for c in commands:
    out = os.path.join(work, c["name"]); os.makedirs(out)
    args = c["args"].format(data=data, out=out)
    p = subprocess.run([probity] + shlex.split(args) + shlex.split(llm), capture_output=True, text=True)
    c["exit"] = p.returncode
    c["stderr_tail"] = p.stderr.strip().splitlines()[-3:]
    usage = None
    for f in glob.glob(os.path.join(out, "**", "*.json"), recursive=True):
        try:
            j = json.load(open(f))
        except Exception:
            continue
        u = j.get("llm_usage") if isinstance(j, dict) else None
        if isinstance(u, str): u = json.loads(u)
        if isinstance(u, dict) and "total" in u: usage = u; break
        if isinstance(j, dict) and "endpoints" in j and "total" in j: usage = j; break
    keys = ("requests", "questions", "reasks", "unparsed", "failed")
    if usage:
        c["usage"] = {k: usage["total"].get(k) for k in keys}
    else:  # the text usage table a command prints: sum its endpoint rows
        lines = (p.stdout + "\n" + p.stderr).splitlines()
        total = None
        for i, line in enumerate(lines):
            if line.startswith("endpoint") and "answers" in line:
                total = dict.fromkeys(keys, 0)
                for row in lines[i + 1:]:
                    f = row.split()
                    if len(f) < 14 or f[0] == "total": break
                    for k, col in zip(keys, (3, 7, 8, 9, 6)): total[k] += int(f[col])
                break
        c["usage"] = total
    print(c["name"], "exit", c["exit"], c["usage"], file=sys.stderr)
json.dump({"llm_flags": "--llm-model tiny --llm-max-tokens 4096", "commands": commands},
          open(manifest, "w"), indent=1)
' "$probity" "$data" "$work" "$llm" "$prefix.commands.json"

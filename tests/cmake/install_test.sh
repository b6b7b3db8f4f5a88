#!/usr/bin/env bash
# A copied install tree works: `cmake --install` into a prefix, the prefix moved elsewhere, and
# the moved binary finds the prompt templates of its own tree (share/probity/prompts), also with
# the source tree's prompts out of reach; $PROBITY_PROMPTS_DIR overrides.
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/first" --component cli >/dev/null
mv "$tmp/first" "$tmp/moved"
out=$("$tmp/moved/bin/probity" --version)
grep -qx "prompts: $tmp/moved/share/probity/prompts" <<<"$out" || {
  echo "the moved binary does not use its own prompts: $out"
  exit 1
}
test -f "$tmp/moved/share/probity/prompts/judge_rating.v1.txt"
out=$(PROBITY_PROMPTS_DIR=/elsewhere "$tmp/moved/bin/probity" --version)
grep -qx "prompts: /elsewhere" <<<"$out"
# The moved binary scores offline as the build tree's does.
data=$(dirname "$0")/../../data/summeval/summeval_sample20.jsonl
"$tmp/moved/bin/probity" score --data "$data" --metric bleu --out "$tmp/a.jsonl" >/dev/null
"$build/probity" score --data "$data" --metric bleu --out "$tmp/b.jsonl" >/dev/null
cmp "$tmp/a.jsonl" "$tmp/b.jsonl"
echo "install: ok"

#!/usr/bin/env bash
# Fails, naming the files, when a tracked C++ file (*.cpp, *.hpp) differs from what clang-format
# makes of it under .clang-format. Only C++: the formatter is never run on other files.
#   scripts/check-format.sh        # check (test.sh runs it first)
#   clang-format -i FILE...        # fix the files it names
set -uo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null ||
  { echo "check-format: clang-format not found (scripts/setup.sh installs it)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
# One clang-format process for all files (seconds; one per file takes a minute on 2 busy cores);
# each difference is reported as "FILE:LINE:COL: error: code should be clang-formatted".
out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1)
rc=$?
mapfile -t bad < <(printf '%s\n' "$out" | grep -oE '^[^:]+\.(cpp|hpp):[0-9]+:[0-9]+: error' |
  cut -d: -f1 | sort -u)
if [ "$rc" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  printf '%s\n' "$out" | head -20
  echo "check-format: clang-format failed"
  exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) differ from clang-format ($(clang-format --version)):"
  printf '  %s\n' "${bad[@]}"
  echo "check-format: fix with: clang-format -i ${bad[*]}"
  exit 1
fi
echo "check-format: ${#files[@]} C++ files formatted"

#!/usr/bin/env bash
# The layer check (cmake/check_layers.cmake) passes on the tree and fails, naming the file and
# both layers, on a copy with one upward include; the build runs the same check before it
# compiles any layer.
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DROOT="$root" -P "$root/cmake/check_layers.cmake"
cp -r "$root/src" "$root/include" "$tmp/"
echo '#include "metrics/rouge.hpp"' >> "$tmp/src/text/porter.cpp"
if out=$(cmake -DROOT="$tmp" -P "$root/cmake/check_layers.cmake" 2>&1); then
  echo "an upward include was not detected"
  exit 1
fi
grep -q 'src/text/porter.cpp (text) includes metrics/rouge.hpp (metrics)' <<<"$out" || {
  echo "unexpected message: $out"
  exit 1
}
echo "layer check: ok"

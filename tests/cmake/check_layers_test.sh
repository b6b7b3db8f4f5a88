#!/usr/bin/env bash
# The layer check (cmake/check_layers.cmake) passes on the tree and fails, naming the file and
# both layers, on a copy with one upward include; the build runs the same check before it
# compiles any layer. A subdirectory belongs to its layer: metrics/mi/ may not include the audit
# either, and what it declares is above the predictors.
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DROOT="$root" -P "$root/cmake/check_layers.cmake"
cp -r "$root/include" "$tmp/"
for case in "src/text/porter.cpp:metrics/rouge.hpp:text:metrics" \
            "src/metrics/mi/measures.cpp:audit/excerpt.hpp:metrics:audit" \
            "src/predict/pool.cpp:metrics/mi/mi_metric.hpp:predict:metrics"; do
  IFS=: read -r file inc own layer <<<"$case"
  rm -rf "$tmp/src" && cp -r "$root/src" "$tmp/"
  echo "#include \"$inc\"" >> "$tmp/$file"
  if out=$(cmake -DROOT="$tmp" -P "$root/cmake/check_layers.cmake" 2>&1); then
    echo "an upward include from $file was not detected"
    exit 1
  fi
  grep -q "$file ($own) includes $inc ($layer)" <<<"$out" || {
    echo "unexpected message: $out"
    exit 1
  }
done
echo "layer check: ok"

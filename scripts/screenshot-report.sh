#!/usr/bin/env bash
# Renders a report.html to a PNG with headless Chromium, to check the layout by eye.
# Usage: scripts/screenshot-report.sh REPORT.html OUT.png [WIDTHxHEIGHT]
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT]" >&2
  exit 2
fi
html=$1
png=$2
size=${3:-1400x2400}

if ! command -v chromium >/dev/null 2>&1; then
  echo "screenshot-report: chromium is not installed (apt-get install -y --no-install-recommends chromium)" >&2
  exit 1
fi
if [ ! -f "$html" ]; then
  echo "screenshot-report: no such file: $html" >&2
  exit 1
fi

abs_html=$(realpath "$html")
abs_png=$(realpath -m "$png")
mkdir -p "$(dirname "$abs_png")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

# Headless Chromium lays pages out at least 500 px wide whatever --window-size says; a narrower
# width (a phone) is rendered in an iframe of that width on a 500 px page (grey on the right).
url="file://$abs_html"
width=${size%x*}
height=${size#*x}
if [ "$width" -lt 500 ]; then
  wrapper="$profile/wrapper.html"
  printf '<!DOCTYPE html><body style="margin:0;background:#888"><iframe src="%s" style="width:%spx;height:%spx;border:0;display:block;background:#fff"></iframe></body>\n' \
    "$url" "$width" "$height" >"$wrapper"
  url="file://$wrapper"
  size="500x$height"
fi
# Everything that could reach the network is off: the report must render from the file alone.
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --user-data-dir="$profile" --window-size="${size/x/,}" \
  --screenshot="$abs_png" "$url" >/dev/null 2>&1 || {
  echo "screenshot-report: chromium failed to render $abs_html" >&2
  exit 1
}
if [ ! -s "$abs_png" ]; then
  echo "screenshot-report: chromium wrote no screenshot" >&2
  exit 1
fi
echo "$abs_png"

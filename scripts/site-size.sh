#!/usr/bin/env bash
# Weighs the built site (dist/ by default): the gzipped wasm, JS and CSS a reader downloads
# before the first page works, against the budget, plus the model (only the decoder page
# downloads it) and the blog entry point. Fails when the first page is over budget.
# Usage: bash scripts/site-size.sh [dist]
set -euo pipefail
dist="${1:-dist}"
# bytes, gzipped: wasm + JS + CSS of the first page, model excluded. 600 000 until 2026-11-24;
# raised to 650 000 when the compute layer v2, the widget kit's ports and three new widgets
# (logit lens, soft dictionary, gradient checker) took it to about 625 000 (BENCHMARKS.md).
budget=650000

gz() { gzip -9 -c "$1" | wc -c; }
total=0
printf '%-40s %12s %12s\n' "file" "bytes" "gzip -9"
for f in "$dist"/atencao_bg.wasm "$dist"/atencao.js "$dist"/main.css; do
  [ -f "$f" ] || { echo "missing $f (not a trunk build of this site?)" >&2; exit 2; }
  size=$(stat -c %s "$f"); packed=$(gz "$f"); total=$((total + packed))
  printf '%-40s %12d %12d\n' "$(basename "$f")" "$size" "$packed"
done
printf '%-40s %12s %12d   (budget %d)\n' "first page: wasm + JS + CSS" "" "$total" "$budget"
model=0
for f in "$dist"/static/model/*; do
  case "$f" in *.md|*.csv) continue ;; esac
  model=$((model + $(stat -c %s "$f")))
done
printf '%-40s %12d   (config, tokenizer, weights, bigram: downloaded by the decoder page only)\n' "model" "$model"
if [ -f "$dist/embed.js" ]; then
  printf '%-40s %12d %12d\n' "embed.js (blogs)" "$(stat -c %s "$dist/embed.js")" "$(gz "$dist/embed.js")"
fi
if [ "$total" -gt "$budget" ]; then
  echo "FAIL: the first page weighs $total bytes gzipped, over the budget of $budget" >&2
  exit 1
fi
echo "ok: first page within budget"

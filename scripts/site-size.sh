#!/usr/bin/env bash
# Weighs the built site (dist/ by default): for each kind of page, the gzipped wasm, JS and CSS a
# reader downloads before its widgets work, against that kind's budget; then the prerendered pages
# (a page of text only needs its HTML, the CSS and the page script: no wasm), the model (only the
# decoder downloads it) and the blog entry point. Fails when a kind of page is over its budget.
# Usage: bash scripts/site-size.sh [dist]
#
# Since issue 36 a page loads one of the builds of the page's module (static/site.js reads
# <main data-module>, which build.rs writes with site::widgets::module_for):
#   an article page    atencao-sequences: the article widgets of vectors, text and sequences
#                      (articles 1 to 3, the benchmark); atencao-attention: those of attention and
#                      the Transformer (articles 2 to 5) (two builds since 2026-11-29: no page
#                      mixes the groups);
#   a model page       atencao-models: BPE, the gradient check, the benchmark page;
#   decoder, training  atencao-resident (the two widgets' drawing) and the page worker's module
#                      (worker/), where the decoder's session (home, decodificador.html) and the
#                      training run compute (the decoder since 2026-11-28, a fourth build);
#   today's block      atencao-modern: RoPE, RMSNorm, SwiGLU, GQA (issue 41; the page
#                      do-transformer-de-2017-aos-modelos-de-hoje.html);
#   catalogue          atencao: every widget (the catalogue's live examples; a blog post that
#                      mixes both groups; embed.js loads a one-group post's build as pages do).
# Budgets only go down. History of the one budget there was before, "a page with widgets" (every
# page then loaded every widget): 600 000 until 2026-11-24; 650 000 with the compute layer v2
# and three widgets; 720 000 with training in the browser (issue 23); 700 000 on 2026-11-28 after
# each job compiled once (issue 36); with the split (2026-11-28) the full build's, 695 000 once the
# catalogue and benchmark pages each went to one build. The worker page's was 915 000 when the run
# moved into the worker (2026-11-28). When the decoder's session moved into the worker too, with a
# fourth build for the decoder and training pages (2026-11-28, night): the model page's 441 000 →
# 356 000, the decoder and training pages' 652 000 → 572 000 (the decoder page was a model page
# at 438 611 before: it now loads the worker too), the full build's 695 000 → 675 000. On
# 2026-11-29, with the widgets' texts, stylesheet, kernel texts (resident) and Unicode's case
# tables out of the builds that do not need them, and issue 39's views in: article 537 000 →
# 521 000, model 356 000 → 339 000, decoder and training 572 000 → 567 000, full 675 000 →
# 674 500. Later that day the resident pages stopped opening a wgpu device (−13 KB) and the
# catalogue was prerendered whole (its texts out of the full build), paying for issue 41's
# moderna and its race: article 521 000 → 520 000, full 674 500 → 673 500, the others held.
# Then the page ↔ worker messages went from JSON to postcard (core::wire: serde_json's readers,
# one per message type, left both sides): decoder and training 567 000 → 522 300; the full
# build's 30 KB paid for issue 41's four widgets, which it carries too (the next step). With
# them (the same landing: Rust's float parsing out of every build, core::decimal, −13 KB each;
# today's backward twins out of the page builds, −2,5 KB; the four widgets in a fifth build of
# their own, which only their page loads): article 520 000 → 503 500, model 339 000 → 323 700,
# decoder and training 522 300 → 509 900, full 673 500 → 651 600; today's block's new, 269 900.
# Then the article widgets split into two builds by topic (no page mixes them): the article
# page's 503 500 became 397 800 (vectors, text, sequences) and 357 400 (attention, Transformer);
# with one compiled sort for the whole wasm (core::order) 383 900 and 354 000, model 323 700 →
# 320 500, decoder and training 509 900 → 502 500, full 651 600 → 637 100 (today's block held).
# Then the decoder's lighter frames paid for themselves (no `{:e}` left in the page builds'
# attributes, so Rust's shortest exponential float formatting went): 383 900 → 383 600,
# 354 000 → 353 800, model 320 500 → 319 500, today's block 269 900 → 269 600 (decoder and
# training, full: held, 502 356 and 636 985 measured). Then the worker's awaited answers as
# plain Rust futures (no JS promise to await one's own callback) and one `power_of_ten` in core
# (the scientific notation's superscripts were written twice), and the transitions' `{:.3e}`
# gone: 383 600 → 383 300, 353 800 → 353 500, model 319 500 → 319 300, decoder and training
# 502 500 → 502 200, full 637 100 → 637 000, today's block 269 600 → 269 400.
# BENCHMARKS.md has each step's measurements. Issue 36's targets: an article page
# 450 000, the decoder and training pages 800 000 (BENCHMARKS.md).
set -euo pipefail
dist="${1:-dist}"
sequences_budget=383300
attention_budget=353500
model_budget=319300
worker_budget=502200
full_budget=637000
modern_budget=269400

gz() { gzip -9 -c "$1" | wc -c; }
# Every page with widgets loads the page script, the compatibility check and the stylesheet; the
# checkpoints' script and sheet (issue 38) load only on the pages that have one, and count here:
# a page with widgets and checkpoints stays within its budget. (What builds a new instance,
# static/checkpoint-examples.js, and the instances' JSON load on "outro exemplo" only, as the model
# loads on the decoder only.)
common=("$dist"/static/site.js "$dist"/static/compat.js "$dist"/main.css "$dist"/static/checkpoints.js "$dist"/static/checkpoints.css)
failed=0

# Prints the files a page that loads the build `$1` of the page's module downloads (the build's
# wasm and JS, the wasm-bindgen snippets that JS imports, the common files; the page worker's
# module too when `$2` is "worker"), then the total against the budget `$4`, labelled `$3`.
weigh() {
  local build=$1 worker=$2 label=$3 budget=$4 total=0 f packed
  local files=("$dist/${build}_bg.wasm" "$dist/$build.js")
  for f in $(grep -o "\./snippets/[^'\"]*\.js" "$dist/$build.js" 2>/dev/null | sort -u); do files+=("$dist/${f#./}"); done
  files+=("${common[@]}")
  [ "$worker" = worker ] && files+=("$dist"/atencao-worker_bg.wasm "$dist"/atencao-worker.js)
  printf '\n%-40s %12s %12s\n' "$label" "bytes" "gzip -9"
  for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "missing $f (not a trunk build of this site?)" >&2; exit 2; }
    packed=$(gz "$f"); total=$((total + packed))
    printf '  %-38s %12d %12d\n' "${f#"$dist"/}" "$(stat -c %s "$f")" "$packed"
  done
  printf '  %-38s %12s %12d   (budget %d)\n' "in all" "" "$total" "$budget"
  if [ "$total" -gt "$budget" ]; then
    echo "FAIL: $label weighs $total bytes gzipped, over the budget of $budget" >&2
    failed=1
  fi
}

weigh atencao-sequences no "an article page (vectors, text, sequences)" "$sequences_budget"
weigh atencao-attention no "an article page (attention, Transformer)" "$attention_budget"
weigh atencao-models no "a model page (BPE, gradients, bench)" "$model_budget"
weigh atencao-resident worker "decoder or training (and worker)" "$worker_budget"
weigh atencao-modern no "today's block (RoPE, RMSNorm, SwiGLU, GQA)" "$modern_budget"
weigh atencao no "the catalogue, a blog (every widget)" "$full_budget"

echo
pages=0 largest=0 count=0
for f in "$dist"/*.html; do
  packed=$(gz "$f"); pages=$((pages + packed)); count=$((count + 1))
  [ "$packed" -gt "$largest" ] && largest=$packed
done
printf '%-40s %12s %12d   (%d pages, the largest %d; a page of text only needs no wasm)\n' "prerendered pages" "" "$pages" "$count" "$largest"
model=0
for f in "$dist"/static/model/*; do
  case "$f" in *.md|*.csv) continue ;; esac
  model=$((model + $(stat -c %s "$f")))
done
printf '%-40s %12d   (config, tokenizer, weights, bigram: downloaded by the decoder page only)\n' "model" "$model"
if [ -f "$dist/embed.js" ]; then
  printf '%-40s %12d %12d\n' "embed.js (blogs)" "$(stat -c %s "$dist/embed.js")" "$(gz "$dist/embed.js")"
  printf '%-40s %12d %12d\n' "embed-css.js (blogs: the widgets' sheet)" "$(stat -c %s "$dist/embed-css.js")" "$(gz "$dist/embed-css.js")"
fi
[ "$failed" = 0 ] || exit 1
echo "ok: every kind of page is within its budget"

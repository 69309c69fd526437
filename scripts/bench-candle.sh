#!/usr/bin/env bash
# The decoder against candle in the browser (issue 42; results in BENCHMARKS.md): builds two
# wasm modules from bench/candle-wasm/ (its own workspace, lock file and target dir: not part
# of the site, of its size budget, or of scripts/test.sh) and times them in one page in headless
# Chromium, CPU mode, in turns, after checking that their logits agree within 1e-4:
#   ours    atencao-core's decoder, built with the site's `site` profile (copied in
#           bench/candle-wasm/Cargo.toml), simd128 like the site
#   candle  candle-core + candle-nn 0.11 (the training crate's model, atencao_train::model::Gpt),
#           release profile (opt-level 3, LTO), simd128
# Prints the medians and candle's time / ours (above 1,0× ours is faster) and writes
# tests/artifacts/bench-candle.json.
#
# From a fresh clone, on Debian with Rust (scripts/setup.sh installs what is missing: the
# wasm32 target, wasm-bindgen-cli 0.2.130, Chromium, Node; then npm ci in tests/e2e):
#   bash scripts/bench-candle.sh [--rounds 25] [--prefills 3] [--steps 20] [--warmup 2]
# The first run compiles candle for wasm32 (a few minutes). CHROMIUM=/path overrides
# /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! wasm-bindgen --version 2>/dev/null | grep -q '0.2.130' || ! command -v node >/dev/null 2>&1 \
   || ! { [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; }; then
  bash scripts/setup.sh
fi
[ -d tests/e2e/node_modules/playwright-core ] || (cd tests/e2e && npm ci --no-audit --no-fund)

bench=bench/candle-wasm
(
  cd "$bench"
  cargo build --release -p atencao-bench-candle --target wasm32-unknown-unknown
  cargo build --profile site -p atencao-bench-ours --target wasm32-unknown-unknown
)
target="$bench/target/wasm32-unknown-unknown"
# wasm-bindgen warns that ours has no target_features section: `strip = true`, as in the site's
# own build (see the main Cargo.toml's `site` profile); the output is the same.
wasm-bindgen --target web --no-typescript --out-dir "$bench/pkg/candle" "$target/release/atencao_bench_candle.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$bench/pkg/ours" "$target/site/atencao_bench_ours.wasm"
printf 'wasm sizes: ours %s bytes, candle %s bytes\n' \
  "$(stat -c %s "$bench/pkg/ours/atencao_bench_ours_bg.wasm")" "$(stat -c %s "$bench/pkg/candle/atencao_bench_candle_bg.wasm")"

node tests/e2e/bench-candle.mjs "$@"

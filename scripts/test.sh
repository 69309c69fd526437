#!/usr/bin/env bash
# Runs every test of atencao, installing what is missing first (scripts/setup.sh):
#   1. native: the compute core with the spec's golden values, benches in test mode, and every
#      WGSL kernel against its CPU twin on a software Vulkan device (llvmpipe);
#   2. browser: wasm-bindgen-test in headless Chromium, once with WebGPU, once without;
#   3. end to end: the site as readers get it (release build, `site` profile), first its weight
#      against the budget (scripts/site-size.sh), then headless Chromium in both modes
#      (screenshots in tests/artifacts/);
#   4. the other engines readers use: the smoke suite (tests/e2e/engines) in Gecko (Debian's
#      firefox-esr) and WebKit (WebKitGTK's MiniBrowser, under xvfb-run), on the same build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n\033[1;32m==> %s\033[0m (at %d s)\n' "$*" "$SECONDS"; }

bash scripts/setup.sh

# One build from scratch: incremental compilation's caches would only take disk (gigabytes for
# the test build; CI once ran out of it).
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi

# Mesa's Vulkan driver wants a runtime dir; CI shells may not have one.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/atencao-runtime}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

step "1/4 native tests (core, golden values, GPU kernels on llvmpipe)"
# A missing Vulkan adapter fails the GPU tests here instead of skipping them.
ATENCAO_REQUIRE_GPU=1 cargo test --all-targets
# The core against candle (its own crate, so the site never compiles candle): training, and
# the modern block's ops (RoPE, RMSNorm, SwiGLU, shared K/V heads) with their gradients.
cargo test -p atencao-train --profile train --test core_training_vs_candle --test modern_ops_vs_candle

step "2/4 browser tests (wasm-bindgen-test in headless Chromium)"
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=300
common='"--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"'
for mode in webgpu cpu; do
  if [ "$mode" = webgpu ]; then extra='"--enable-unsafe-webgpu", "--enable-features=Vulkan"'; else extra='"--disable-gpu"'; fi
  # wasm-bindgen-test-runner reads the browser's arguments from ./webdriver.json.
  printf '{"goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": [%s, %s]}}\n' "$common" "$extra" > webdriver.json
  echo "-- mode: $mode"
  ATENCAO_EXPECT_BACKEND=$mode cargo test --target wasm32-unknown-unknown --test web
done
rm -f webdriver.json

step "3/4 end to end (the release site in headless Chromium, WebGPU and CPU)"
trunk build --release --cargo-profile site
bash scripts/site-size.sh dist
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
node tests/e2e/run.mjs "$root/dist"

step "4/4 other engines (the smoke suite in Gecko and WebKit)"
xvfb-run -a node tests/e2e/engines/run.mjs "$root/dist"
echo "screenshots: $root/tests/artifacts/"
echo "test.sh: ${SECONDS} s in all, setup included"

#!/usr/bin/env bash
# Installs what building, serving and testing atencao needs, skipping what is present.
# Idempotent: safe to run before every `serve` and `test`.
set -euo pipefail

TRUNK_VERSION=0.21.14
# Must equal the wasm-bindgen version pinned in Cargo.toml / Cargo.lock.
WASM_BINDGEN_VERSION=0.2.130

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  log "cargo install trunk $TRUNK_VERSION (takes several minutes)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Not --locked: the CLI's own lockfile names a crate version the registry no longer has.
  cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION" --force
fi

# Pagefind, which indexes the built site for its search box (scripts/search-index.sh, a post-build
# hook of every build, served or tested): its npm package ships the binary. Node and npm first.
if ! command -v npm >/dev/null 2>&1; then
  log "apt-get install nodejs npm"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ ! -x "$(dirname "$0")/search/node_modules/.bin/pagefind" ]; then
  log "npm ci in scripts/search (pagefind)"
  (cd "$(dirname "$0")/search" && npm ci --no-audit --no-fund --loglevel=error)
fi

# Chromium, chromedriver, Node (end-to-end driver) and llvmpipe are only needed by the tests, and
# so are the other engines of the smoke suite (tests/e2e/engines): Gecko (firefox-esr) and WebKit
# (webkit2gtk-driver's WebKitWebDriver and MiniBrowser, under xvfb-run). All from Debian.
if [ "${ATENCAO_SETUP_BROWSER:-1}" = "1" ]; then
  missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
  command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
  command -v WebKitWebDriver >/dev/null 2>&1 || missing+=(webkit2gtk-driver)
  command -v xvfb-run >/dev/null 2>&1 || missing+=(xvfb)
  command -v xauth >/dev/null 2>&1 || missing+=(xauth)
  # Software Vulkan (llvmpipe) so native GPU tests run without a GPU.
  [ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || missing+=(mesa-vulkan-drivers)
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" libvulkan1 fonts-dejavu-core >/dev/null
  fi
fi
log "ready: $(trunk --version), $(wasm-bindgen --version)"

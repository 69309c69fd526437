#!/usr/bin/env bash
# Lighthouse (npm's lighthouse, mobile preset) against an already built site, with Debian's
# Chromium, behind a small server that gzips and revalidates like a real host. Builds nothing:
# run `trunk build --release --cargo-profile site` first. Prints each page's four scores and
# its metrics, then the bytes of a first visit to the home page, offline cache included.
# Not part of scripts/test.sh (timings vary from machine to machine); numbers in BENCHMARKS.md.
#
# Usage: bash scripts/lighthouse.sh [dist] [page ...]
#   pages are paths relative to the site ('' = home); default: home, queries-keys-values.html,
#   decodificador.html. LIGHTHOUSE_RUNS=n (default 3) runs per page, the median reported.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(realpath "${1:-dist}")"
shift || true
[ -f "$dist/index.html" ] || { echo "lighthouse: no built site in $dist (trunk build --release --cargo-profile site)" >&2; exit 2; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "lighthouse: needs Chromium at ${CHROMIUM:-/usr/bin/chromium} (bash scripts/setup.sh installs it)" >&2; exit 2; }
# Its own package.json, so the test command (and CI) never installs Lighthouse.
if [ ! -d scripts/lighthouse/node_modules/lighthouse ]; then
  (cd scripts/lighthouse && npm ci --no-audit --no-fund --loglevel=error)
fi
exec node scripts/lighthouse/run.mjs "$dist" "$@"

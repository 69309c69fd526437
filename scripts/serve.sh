#!/usr/bin/env bash
# Builds the site and serves it on http://127.0.0.1:8080 (rebuilding on changes).
# Installs what is missing first; the browser and test tools are not needed for this.
set -euo pipefail
cd "$(dirname "$0")/.."
ATENCAO_SETUP_BROWSER=0 bash scripts/setup.sh
exec trunk serve "$@"

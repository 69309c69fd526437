#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml, run before sw-precache.sh): copies the page prose that
# build.rs rendered from content/ (target/prose/<slug>.html) into the site as prose/, where
# the pages fetch it (site::prose_path). Needs only bash and coreutils.
set -euo pipefail
stage="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (TRUNK_STAGING_DIR unset)}"
src="$(dirname "$0")/../target/prose"
if ! ls "$src"/*.html >/dev/null 2>&1; then
  echo "prose: no rendered pages in $src (build.rs writes them when the crate builds)" >&2
  exit 1
fi
mkdir -p "$stage/prose"
cp "$src"/*.html "$stage/prose/"

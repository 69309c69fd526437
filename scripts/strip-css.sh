#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml, first, before pages.sh copies index.html into every page):
# serves the stylesheet as the page generator wrote it into target/site/main.css, without its
# comments and blank lines (atencao_site::generate::served_css; styles/main.css keeps its
# explanations, readers do not download them: about 1,5 KB gzipped), and computes index.html's
# integrity hash for it again, since trunk hashed the file with its comments. Needs only bash
# and coreutils.
set -euo pipefail
stage="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (TRUNK_STAGING_DIR unset)}"
css="$stage/main.css"
served="$(dirname "$0")/../target/site/main.css"
[ -f "$css" ] || { echo "strip-css: $css is missing" >&2; exit 1; }
[ -s "$served" ] || { echo "strip-css: $served is missing (the page generator writes it when the crate builds)" >&2; exit 1; }
cp "$served" "$css"
# The sheet embedded widgets get (embed.js imports it): written beside main.css by the generator.
cp "$(dirname "$served")/embed-css.js" "$stage/embed-css.js"
hex=$(sha384sum "$css" | cut -d' ' -f1)
hash=$(printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')" | base64 -w0)
grep -q 'href="./main.css" integrity="sha384-' "$stage/index.html" || { echo "strip-css: index.html names main.css without its integrity hash" >&2; exit 1; }
sed -i "s|href=\"./main.css\" integrity=\"sha384-[A-Za-z0-9+/=]*\"|href=\"./main.css\" integrity=\"sha384-$hash\"|" "$stage/index.html"

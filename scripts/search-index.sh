#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml, after pages.sh and strip-comments.sh, before sw-precache.sh,
# which then lists the index among the built files): indexes the built pages for the header's
# search box (issue 38) with Pagefind, whose npm package (scripts/search/, installed by
# scripts/setup.sh) ships the binary. Pagefind reads the prose of the pages whose <main> carries
# data-pagefind-body (the articles' pages and the pages of no article), not what is marked
# data-pagefind-ignore (breadcrumb, map, section list, pager), nor the widgets' placeholders nor
# the LaTeX source MathML keeps in <annotation> (excluded here: they are content's elements);
# the pages' lang="pt-BR" gives it Portuguese stemming. Writes pagefind/ into the site, without
# the UI bundles Pagefind also ships (static/search.js is the site's own) nor the search code of
# pages without a language.
set -euo pipefail
stage="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (TRUNK_STAGING_DIR unset)}"
pagefind="$(dirname "$0")/search/node_modules/.bin/pagefind"
if [ ! -x "$pagefind" ]; then
  echo "search-index: $pagefind is missing (scripts/setup.sh installs it: npm ci in scripts/search)" >&2
  exit 1
fi
"$pagefind" --site "$stage" --glob '*.html' --exclude-selectors '[data-widget], annotation' --silent
rm -f "$stage"/pagefind/pagefind-*ui.* "$stage"/pagefind/pagefind-highlight.js
# The search code for pages of no language (68 KB), which this site has none of (every page is pt-BR).
grep -q '"unknown"' "$stage/pagefind/pagefind-entry.json" || rm -f "$stage/pagefind/wasm.unknown.pagefind"
[ -s "$stage/pagefind/pagefind.js" ] || { echo "search-index: Pagefind wrote no index" >&2; exit 1; }
echo "search-index: $(find "$stage/pagefind" -type f | wc -l) files, $(du -sb "$stage/pagefind" | cut -f1) bytes"

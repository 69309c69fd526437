#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml, run before sw-precache.sh): writes every page of the site as a
# static file. trunk has built index.html (with its stylesheet and the page script, static/site.js);
# build.rs has rendered, from content/, the parts of each page into target/site/ (pages.txt lists
# them): NAME.head.html (title, meta description, Open Graph), NAME.toc.html (the table of
# contents, this page marked current) and NAME.main.html (the <main> element: heading, prose with
# MathML, previous and next page, a placeholder in each widget). Each page NAME.html (the home page
# is index.html) is the built index.html with its <title> line, its <nav id="toc"> line and its
# <main>…</main> lines replaced by those parts, and without the template's comment lines. Links
# are relative: the site works under a sub-path. It also writes into embed.js which build of the
# page's module each widget kind is in. Needs only bash and coreutils.
set -euo pipefail
stage="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (TRUNK_STAGING_DIR unset)}"
parts="$(dirname "$0")/../target/site"
if [ ! -s "$parts/pages.txt" ]; then
  echo "pages: no prerendered pages in $parts (build.rs writes them when the crate builds)" >&2
  exit 1
fi
template="$(mktemp)"
trap 'rm -f "$template"' EXIT
cp "$stage/index.html" "$template"
count=0
while IFS= read -r name; do
  case "$name" in
    '' | *[!a-z0-9-]*) echo "pages: bad page name «$name» in pages.txt" >&2; exit 1 ;;
  esac
  for part in head toc main; do
    [ -f "$parts/$name.$part.html" ] || { echo "pages: $parts/$name.$part.html is missing" >&2; exit 1; }
  done
  out="$stage/$name.html.tmp"
  titles=0 tocs=0 mains=0 in_main=0 in_comment=0
  {
    while IFS= read -r line || [ -n "$line" ]; do
      if [ "$in_main" = 1 ]; then
        case "$line" in *'</main>'*) in_main=0 ;; esac
        continue
      fi
      # The template's own comments (lines that are only a comment) stay out of the pages.
      if [ "$in_comment" = 1 ]; then
        case "$line" in *'-->'*) in_comment=0 ;; esac
        continue
      fi
      case "${line#"${line%%[![:space:]]*}"}" in
        '<!--'*'-->') continue ;;
        '<!--'*) in_comment=1; continue ;;
      esac
      case "$line" in
        *'<title>'*) cat "$parts/$name.head.html"; titles=$((titles + 1)) ;;
        *'<nav id="toc"'*) cat "$parts/$name.toc.html"; tocs=$((tocs + 1)) ;;
        *'<main id="app"'*)
          cat "$parts/$name.main.html"; mains=$((mains + 1))
          case "$line" in *'</main>'*) ;; *) in_main=1 ;; esac ;;
        *) printf '%s\n' "$line" ;;
      esac
    done < "$template"
  } > "$out"
  if [ "$titles$tocs$mains$in_main" != 1110 ]; then
    echo "pages: index.html must have one <title> line, one <nav id=\"toc\"…></nav> line and one <main id=\"app\">…</main> (found $titles, $tocs, $mains)" >&2
    exit 1
  fi
  mv "$out" "$stage/$name.html"
  count=$((count + 1))
done < "$parts/pages.txt"
# The checkpoints' instances (site/src/generate/checkpoints.rs), fetched by static/checkpoints.js.
rm -rf "$stage/static/checkpoints"
if [ -d "$parts/checkpoints" ]; then
  mkdir -p "$stage/static/checkpoints"
  cp "$parts/checkpoints/"*.json "$stage/static/checkpoints/"
fi
# embed.js's table of the build each widget kind is in (site::widgets::builds_for_embed): its
# line `const WIDGET_BUILDS = {};` becomes build.rs's.
builds="$parts/embed-builds.js"
[ -s "$builds" ] || { echo "pages: $builds is missing (build.rs writes it)" >&2; exit 1; }
if [ "$(grep -c '^const WIDGET_BUILDS = {};$' "$stage/embed.js")" != 1 ]; then
  echo "pages: embed.js must have one line 'const WIDGET_BUILDS = {};'" >&2
  exit 1
fi
while IFS= read -r line || [ -n "$line" ]; do
  if [ "$line" = 'const WIDGET_BUILDS = {};' ]; then cat "$builds"; else printf '%s\n' "$line"; fi
done < "$stage/embed.js" > "$stage/embed.js.tmp"
mv "$stage/embed.js.tmp" "$stage/embed.js"
echo "pages: $count pages written"

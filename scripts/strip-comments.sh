#!/usr/bin/env bash
# Drops the comment lines of the site's own page scripts and of wasm-bindgen's glue (atencao*.js,
# whose JSDoc repeats the Rust doc comments of the exported functions) in the built site (trunk's
# post_build hook, before sw-precache.sh hashes them): the sources keep their explanations,
# readers do not download them (static/site.js: 5 857 → 3 480 bytes gzipped), nor the lines' indentation
# (issue 38: site.js 155, atencao.js 554 bytes gzipped). Only whole comment lines go: a
# line whose first non-blank characters are `//`, and a `/* … */` block whose first line starts
# with `/*` and whose last line ends with `*/`. Any other shape is left as it is. So no line
# inside a string or template literal of these files may begin with `//` or `/*` (none does;
# the e2e suites run the stripped files). Leading indentation goes too (below). main.css is done
# by scripts/strip-css.sh, which also computes its integrity hash again.
set -euo pipefail
stage="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (TRUNK_STAGING_DIR unset)}"
for file in "$stage/static/site.js" "$stage/static/compat.js" "$stage/static/search.js" "$stage/static/checkpoints.js" "$stage/static/checkpoint-examples.js" "$stage/atencao.js" "$stage/atencao-sequences.js" "$stage/atencao-attention.js" "$stage/atencao-models.js" "$stage/atencao-resident.js" "$stage/atencao-modern.js" "$stage/atencao-worker.js"; do
  [ -f "$file" ] || continue
  # Leading blanks go too (0,7 KB gzipped over these files, which pays for the checkpoints'
  # script), which no template literal or string continued over lines may hold: a line with an
  # odd number of backticks, or ending in a backslash, fails the build instead.
  if ! awk '{ if (gsub(/`/, "`") % 2 || /\\$/) { print FILENAME ":" NR ": a template literal or string over several lines"; bad = 1 } } END { exit bad }' "$file" >&2; then
    exit 1
  fi
  awk '
    function flush() { for (i = 1; i <= held; i++) print block[i]; held = 0 }
    {
      line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
      if (held) {
        block[++held] = $0
        if (line ~ /\*\//) { if (line ~ /\*\/$/) held = 0; else flush() }
        next
      }
      if (line ~ /^\/\*/) {
        if (line ~ /\*\/$/) next
        if (line ~ /\*\//) { print; next }
        block[++held] = $0; next
      }
      if (line ~ /^\/\//) next
      sub(/^[ \t]+/, "")
      print
    }
    END { flush() }' "$file" > "$file.stripped"
  mv "$file.stripped" "$file"
done

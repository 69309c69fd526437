#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml): writes into the staged sw.js the list of every built file
# with the first 16 hex digits of its SHA-256, and a build version derived from all of them, so
# each build has its own service worker and cache (see sw.js). Needs only bash and coreutils.
set -euo pipefail
stage="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (TRUNK_STAGING_DIR unset)}"
sw="$stage/sw.js"
if [ ! -f "$sw" ]; then
  echo "sw-precache: $sw is missing (index.html copies sw.js with data-trunk rel=copy-file)" >&2
  exit 1
fi
cd "$stage"
files=""
listing=""
while IFS= read -r -d '' path; do
  path="${path#./}"
  [ "$path" = sw.js ] && continue
  case "$path" in
    *[\'\"\\]* | *$'\n'*) echo "sw-precache: unsupported file name: $path" >&2; exit 1 ;;
  esac
  hash=$(sha256sum -- "$path" | cut -c1-16)
  files+="['$path', '$hash'], "
  listing+="$hash  $path"$'\n'
  # The site's root URL serves index.html: precache it under './' too (navigations use it).
  if [ "$path" = index.html ]; then files+="['./', '$hash'], "; fi
done < <(find . -type f -print0 | LC_ALL=C sort -z)
version=$(printf '%s' "$listing" | sha256sum | cut -c1-16)
tmp="$sw.tmp"
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    "const VERSION = "*) printf "const VERSION = '%s';\n" "$version" ;;
    "const FILES = "*) printf 'const FILES = [%s];\n' "${files%, }" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$sw" > "$tmp"
mv "$tmp" "$sw"
echo "sw-precache: version $version, $(printf '%s' "$listing" | wc -l) files"

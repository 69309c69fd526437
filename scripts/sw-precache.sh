#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml, after pages.sh): writes into the staged sw.js the list of every
# built file with the first 16 hex digits of its SHA-256, its size in bytes and its group, and a
# build version derived from all of them, so each build has its own service worker and cache
# (see sw.js). The groups decide when the offline copy takes a file:
#   shell  the home page, the page script, the stylesheet, the icon: on the first visit;
#   code   the wasm and its JS that pages load (the page's module with the article widgets, atencao-sequences* and atencao-attention*,
#          with the models computed on the page, atencao-models*, with the decoder and training, whose
#          models run in the worker, atencao-resident*; its snippets/; the page worker's atencao-worker*:
#          issue 36): on the
#          first visit, except under Save-Data (then when a page loads them); the build with every widget
#          (atencao.js, atencao_bg.wasm: the catalogue and blogs) is in `extra`;
#   page   every prerendered page (NAME.html at the root) and the checkpoints' script and sheet: on the
#          first visit, except under Save-Data;
#   model  the decoder's files in static/model/ (config, tokenizer, weights, bigram table): when a
#          decoder widget loads them (src/web/model_store.rs), or on "salvar para ler offline";
#   search the search box's code and index (static/search.js, pagefind/: scripts/search-index.sh): when fetched; after the reader's
#          first search, all of it (static/search.js asks), so searching works offline; or on "salvar";
#   extra  the rest (embed.js and the build with every widget, the example blog post, the model card, the train widget's preset story in
#          static/train/): when fetched, or on "salvar".
# The sizes give "salvar para ler offline" its size. Needs only bash and coreutils.
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
declare -A sizes=()
while IFS= read -r -d '' path; do
  path="${path#./}"
  [ "$path" = sw.js ] && continue
  case "$path" in
    *[\'\"\\]* | *$'\n'*) echo "sw-precache: unsupported file name: $path" >&2; exit 1 ;;
  esac
  case "$path" in
    index.html | main.css | static/site.js | static/compat.js | static/favicon.svg | static/noscript.css) group=shell ;;
    atencao-sequences.js | atencao-sequences_bg.wasm | atencao-attention.js | atencao-attention_bg.wasm | atencao-models.js | atencao-models_bg.wasm | atencao-resident.js | atencao-resident_bg.wasm | atencao-modern.js | atencao-modern_bg.wasm | atencao-worker.js | atencao-worker_bg.wasm | snippets/*) group=code ;;
    */*.html) group=extra ;;
    *.html | static/checkpoints.js | static/checkpoint-examples.js | static/checkpoints.css) group=page ;;
    static/model/*.json | static/model/*.safetensors | static/model/*.bin) group=model ;;
    static/search.js | pagefind/*) group=search ;;
    *) group=extra ;;
  esac
  hash=$(sha256sum -- "$path" | cut -c1-16)
  bytes=$(stat -c %s -- "$path")
  files+="['$path', '$hash', $bytes, '$group'], "
  listing+="$hash  $path"$'\n'
  sizes[$group]=$(( ${sizes[$group]:-0} + bytes ))
done < <(find . -type f -print0 | LC_ALL=C sort -z)
for group in shell code page model; do
  [ "${sizes[$group]:-0}" -gt 0 ] || { echo "sw-precache: no file in the group '$group' (a file renamed? see the groups above)" >&2; exit 1; }
done
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
echo "sw-precache: version $version, $(printf '%s' "$listing" | wc -l) files; bytes: shell ${sizes[shell]}, code ${sizes[code]}, page ${sizes[page]}, model ${sizes[model]}, search ${sizes[search]:-0}, extra ${sizes[extra]:-0}"

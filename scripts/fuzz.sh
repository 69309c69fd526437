#!/usr/bin/env bash
# Fuzzes every parser of outside input (fuzz/fuzz_targets/), each for MINUTES minutes
# (default 10), one after the other; new inputs go to fuzz/corpus/<target>, crashes to
# fuzz/artifacts/<target>. Not part of the test command: it takes long and only reports.
#   bash scripts/fuzz.sh [target ...]     (default: every target)
# cargo-fuzz needs nightly compiler flags; RUSTC_BOOTSTRAP lets the installed stable
# toolchain accept them, and `-s none` skips the sanitizer runtime stable does not ship.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
minutes="${MINUTES:-10}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(ls fuzz_targets | sed 's/\.rs$//')
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  echo "== $t ($minutes min)"
  RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -O "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time=$((minutes * 60)) -rss_limit_mb=4096 -print_final_stats=1 2>&1 | grep -E "^stat::|Done|ERROR|panicked"
done

#!/usr/bin/env bash
# Runs fuzz targets one at a time, in rounds of SECONDS, until coverage
# plateaus (a round adds < 1% to `cov:`) or ROUNDS rounds ran; the corpus
# grows across rounds. One process per run (no -jobs/-workers), so that it
# shares a small machine. Prints one figure line per round; logs go to
# fuzz/logs/TARGET-ROUND.log, crashes to fuzz/artifacts/TARGET/.
#
#   fuzz/run.sh [SECONDS] [ROUNDS] [TARGET...]   (defaults: 120 3, all targets)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); the only toolchain is
# stable, so RUSTC_BOOTSTRAP=1 unlocks the nightly flags cargo-fuzz passes,
# and `-s none` skips AddressSanitizer (safe Rust; panics and overflow
# checks are what the targets look for; debug assertions stay on).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-120}; rounds=${2:-3}; shift 2 2>/dev/null || shift $#
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(detect lines sse har payload pipeline)
export RUSTC_BOOTSTRAP=1
[ -d fuzz/corpus ] || fuzz/seed.sh >/dev/null
mkdir -p fuzz/logs
for t in "${targets[@]}"; do
    prev=0
    for r in $(seq 1 "$rounds"); do
        log=fuzz/logs/$t-$r.log
        cargo fuzz run -s none "$t" -- -max_total_time="$secs" -print_final_stats=1 >"$log" 2>&1
        rc=$?
        runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1)
        last=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1)
        cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
        ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
        corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
        echo "$t round $r: rc=$rc ${runs:-no 'Done' line} cov=$cov ft=$ft corp=$corp"
        if [ $rc -ne 0 ]; then
            grep -E 'panicked|Test unit written|SUMMARY' "$log" | head -5
            break
        fi
        if [ -n "$cov" ] && [ "$prev" -gt 0 ] && [ $(( (cov - prev) * 100 )) -lt "$prev" ]; then
            echo "$t: plateau (cov $prev -> $cov)"
            break
        fi
        prev=${cov:-0}
    done
done

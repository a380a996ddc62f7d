#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's test captures
# (tests/data/cases, real, real2). Idempotent; the corpora are
# not committed (fuzz/.gitignore). Large samples are skipped: libFuzzer's
# default -max_len is 4096 bytes, so a seed beyond ~64 KiB only slows it.
set -euo pipefail
cd "$(dirname "$0")"
root=..
max=65536
dirs=("$root/tests/data/cases" "$root/tests/data/real" "$root/tests/data/real2")

seed() { # seed TARGET FILE...
    local t=$1; shift
    mkdir -p "corpus/$t"
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -le "$max" ] || continue
        cp -f "$f" "corpus/$t/$(basename "$f")"
    done
}

shopt -s nullglob
logs=(); hars=(); sses=()
for d in "${dirs[@]}"; do
    logs+=("$d"/*.log "$d"/*.ndjson "$d"/*.jsonl)
    hars+=("$d"/*.har)
    sses+=("$d"/*.sse)
done

seed lines "${logs[@]}"
seed har "${hars[@]}"
seed sse "${sses[@]}"
seed detect "${logs[@]}" "${hars[@]}" "${sses[@]}"
# pipeline: first byte picks the format (>= 13: auto-detect, as the CLI).
mkdir -p corpus/pipeline
for f in "${logs[@]}" "${hars[@]}" "${sses[@]}"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max" ] || continue
    { printf 'A'; cat "$f"; } > "corpus/pipeline/$(basename "$f")"
done
# payload: every JSON line of the line logs and SSE data, one file each
# (first 400 distinct ones).
mkdir -p corpus/payload
cat "${logs[@]}" | grep -o '[[{].*' | sort -u | awk 'NR <= 400' | split -l 1 - corpus/payload/line-
for t in detect lines sse har payload pipeline; do
    echo "$t: $(ls "corpus/$t" | wc -l) seeds"
done

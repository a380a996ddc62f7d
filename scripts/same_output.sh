#!/usr/bin/env bash
# scripts/same_output.sh DEST — runs the release binary over every sample input
# under tests/data and keeps stdout, stderr, the exit codes and every file
# written under DEST. Per input: --out with every file; --json --no-redact;
# --threads 1 --fail-on warning -q; the CI reports (--junit, --sarif, --otlp,
# --otlp-metrics) with the gates (--max-latency, --fail-on-kind, --allow);
# extract of finding 1, of the last finding, of a finding that is not there,
# of the first session and of a session that is not there; diff of its --out
# against the previous input's (text, --markdown, --json). Per sample folder:
# one run over the whole folder with --per-input and the CI reports, and the
# diff of consecutive folders. Then the usage errors of analyze's flags. Two
# DESTs made before and after a change compare with `diff -r` (the refactor
# and speed work keep outputs byte-identical). BIN overrides the binary.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/mcp-audit}
DEST=$1
rm -rf "$DEST" && mkdir -p "$DEST"
GATES=(--max-latency '*:p99=1ms' --max-latency 'tools/call:p50=5s' --max-latency 'no/such:max=1s'
  --fail-on-kind slow_tail --fail-on-kind duplicate_id --allow late_response)
# The CI reports of one run into folder $1; the rest of the arguments are analyze's.
ci() {
  local c=$1
  shift
  mkdir -p "$c"
  "$BIN" analyze "$@" --junit "$c/junit.xml" --sarif "$c/sarif.json" --otlp "$c/otlp.jsonl" \
    --otlp-metrics "$c/metrics.json" "${GATES[@]}" >"$c/stdout" 2>"$c/stderr"
  echo $? >"$c/rc"
}
# diff OLD NEW three ways into folder $3.
diffs() {
  mkdir -p "$3"
  "$BIN" diff "$1" "$2" >"$3/text" 2>&1; echo $? >"$3/rc"
  "$BIN" diff "$1" "$2" --markdown --min-latencies 1 >"$3/markdown" 2>&1; echo $? >>"$3/rc"
  "$BIN" diff "$1" "$2" --json --p99-regression 0 >"$3/json" 2>&1; echo $? >>"$3/rc"
}
n=0
prev=
for inp in tests/data/cases/* tests/data/real/* tests/data/real2/* tests/data/real3/* tests/data/real4/*/* tests/data/hostile/*; do
  [ -f "$inp" ] || continue
  case "$inp" in *.expected.json|*.md|*README*) continue ;; esac
  d="$DEST/$(echo "$inp" | tr '/' '_')"
  mkdir -p "$d"
  "$BIN" analyze "$inp" --out "$d/out" >"$d/stdout" 2>"$d/stderr"; echo $? >"$d/rc"
  "$BIN" analyze "$inp" --json --no-redact >"$d/json" 2>/dev/null
  "$BIN" analyze "$inp" --threads 1 --fail-on warning -q >"$d/q" 2>&1; echo $? >>"$d/rc"
  ci "$d/ci" "$inp"
  nf=$(jq '.findings | length' "$d/out/summary.json" 2>/dev/null || echo 0)
  s1=$(jq -r '.sessions[0].name // ""' "$d/out/summary.json" 2>/dev/null)
  mkdir -p "$d/extract"
  for t in "--finding 1" "--finding ${nf:-0}" "--finding 100000" "--session nosuch"; do
    k=$(echo "$t" | tr ' ' '_')
    # shellcheck disable=SC2086
    "$BIN" extract "$inp" $t --out "$d/extract/$k" >"$d/extract/$k.stdout" 2>"$d/extract/$k.stderr"
    echo $? >"$d/extract/$k.rc"
  done
  if [ -n "$s1" ]; then
    "$BIN" extract "$inp" --session "$s1" --out "$d/extract/session" >"$d/extract/session.stdout" 2>"$d/extract/session.stderr"
    echo $? >"$d/extract/session.rc"
  fi
  [ -n "$prev" ] && diffs "$prev/out" "$d/out" "$d/diff"
  prev=$d
  n=$((n + 1))
done
prev=
for dir in tests/data/cases tests/data/real tests/data/real2 tests/data/real3 tests/data/real4 tests/data/hostile; do
  g="$DEST/folder_$(basename "$dir")"
  mkdir -p "$g"
  ci "$g/ci" "$dir" --per-input --out "$g/out"
  [ -n "$prev" ] && diffs "$prev/out" "$g/out" "$g/diff"
  prev=$g
done
# The usage errors, one per flag check.
u="$DEST/usage"
mkdir -p "$u"
i=0
while IFS= read -r args; do
  # shellcheck disable=SC2086
  eval "\"$BIN\" analyze tests/data/cases $args" >"$u/$i.stdout" 2>"$u/$i.stderr"
  echo "$args => $?" >>"$u/rc"
  i=$((i + 1))
done <<'ARGS'
--threads 0
--threads 100000
--slow-factor 0
--slow-factor -1
--timeout 0
--shard a=b
--shard-dir d
--shard kind=x --shard-dir d
--junit x.xml --sarif x.xml
--otlp y.json --otlp-metrics y.json
--max-latency tools/call
--max-latency tools/call:p95=1s
--max-latency tools/call:p99=-1s
--max-latency :p99=1s
--fail-on-kind nosuch
--allow nosuch
--allow late_response --fail-on-kind late_response
--fail-on never --max-latency '*:max=1ms' --max-latency '*:max=1ms' -q
--fail-on-kind duplicate_id --fail-on-kind duplicate_id --allow slow_tail --allow slow_tail --json
ARGS
# The run's own paths, written above, are named in some outputs.
grep -rlF "$DEST" "$DEST" | xargs -r sed -i "s|$DEST|DEST|g"
echo "$n inputs"

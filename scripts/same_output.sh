#!/usr/bin/env bash
# scripts/same_output.sh DEST — runs the release binary over every sample input
# under tests/data three ways (--out with every file; --json --no-redact;
# --threads 1 --fail-on warning -q) and keeps stdout, stderr, the exit codes
# and the whole --out folder under DEST. Two DESTs made before and after a
# change compare with `diff -r` (the refactor and speed work keep outputs
# byte-identical). BIN overrides the binary.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/mcp-audit}
DEST=$1
rm -rf "$DEST" && mkdir -p "$DEST"
n=0
for inp in tests/data/cases/* tests/data/real/* tests/data/real2/* tests/data/real3/* tests/data/real4/*/* tests/data/hostile/*; do
  [ -f "$inp" ] || continue
  case "$inp" in *.expected.json|*.md|*README*) continue ;; esac
  d="$DEST/$(echo "$inp" | tr '/' '_')"
  mkdir -p "$d"
  "$BIN" analyze "$inp" --out "$d/out" >"$d/stdout" 2>"$d/stderr"; echo $? >"$d/rc"
  "$BIN" analyze "$inp" --json --no-redact >"$d/json" 2>/dev/null
  "$BIN" analyze "$inp" --threads 1 --fail-on warning -q >"$d/q" 2>&1; echo $? >>"$d/rc"
  sed -i "s|$DEST|DEST|g" "$d/stdout" "$d/stderr"
  n=$((n + 1))
done
echo "$n inputs"

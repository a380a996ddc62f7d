#!/bin/bash
# One capture per recorder: fresh server (+tap), page server, recorder. Usage: run_all.sh OUTDIR
set -e
OUT=${1:-out}; mkdir -p $OUT
node serve.mjs & SP=$!
trap 'kill $SP 2>/dev/null' EXIT
run() { # name port recorder args...
  local name=$1 port=$2; shift 2
  rm -f $OUT/$name.server_tap.jsonl
  node server.mjs $port $OUT/$name.server_tap.jsonl & local S=$!
  sleep 1
  node "$@" || echo "recorder $name failed"
  kill $S; wait $S 2>/dev/null || true
}
U="http://127.0.0.1:8800/?mcp=http://127.0.0.1"
run devtools 3411 rec_devtools.mjs "$U:3411/mcp" $OUT/devtools-sensitive.har $OUT/devtools-sanitized.har $OUT/devtools.page_log.json
run chromehar 3412 rec_chromehar.mjs "$U:3412/mcp" $OUT/chrome-har.har $OUT/chromehar.page_log.json
run playwright 3413 rec_playwright.mjs "$U:3413/mcp" $OUT/playwright-embed.har $OUT/playwright.page_log.json

#!/bin/bash
# rmcp 3.11.0 Streamable HTTP demo (rmcp-demo/src/bin/rmcp-http-demo.rs: StreamableHttpService,
# default config = stateful legacy session mode, SSE) through a mitmproxy 11.0.2 reverse proxy
# (SSE addon): (a) the 2025-03-26 raw batch sequence (raw_http_driver.py), (b) the raw
# 2026-07-28 sequence (raw_http_2026.py). One HAR per part; RUST_LOG=debug on stderr.
set -u
cd "$(dirname "$0")/.."
BIN=${CARGO_TARGET_DIR:-$PWD/target-rmcp}/release/rmcp-http-demo
PORT=18448; PPORT=18458
. scripts/waitport.sh
for part in legacy 2026; do
  T=truth/rmcp_http_$part; rm -f $T.*
  OUT=$PWD/har_rmcp-3.11.0-http__raw-$part.har; rm -f $OUT
  RUST_LOG=${RUST_LOG:-debug} $BIN $PORT 2> $T.server_stderr.txt & SP=$!
  ./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
    -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
  waitport $PORT; waitport $PPORT
  if [ $part = legacy ]; then D=scripts/raw_http_driver.py; A="--proto 2025-03-26"; else D=scripts/raw_http_2026.py; A=""; fi
  ./venv-py1/bin/python $D http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl $A | tee $T.driver_stdout.txt
  sleep 1
  kill -INT $MP; wait $MP
  kill $SP; wait $SP 2>/dev/null
  ls -la $OUT
done

#!/bin/bash
# The raw 2026-07-28 sequence (raw_http_2026.py) against a 2026-era server, through a
# mitmproxy 11.0.2 reverse proxy (SSE addon).
# usage: run_raw2026_har.sh fastmcp|mcp2|rmcp
set -u
cd "$(dirname "$0")/.."
which=$1
case $which in
  fastmcp) PORT=18444; PPORT=18454; OUT=har_fastmcp-4.2.3__raw-2026.har
           START="./venv-fmcp/bin/python scripts/fmcp_server.py --port $PORT" ;;
  mcp2)    PORT=18445; PPORT=18455; OUT=har_mcp-2.3.0-mcpserver__raw-2026.har
           START="./venv-fmcp/bin/python scripts/mcp2_server.py --port $PORT" ;;
  rmcp)    PORT=18446; PPORT=18456; OUT=har_rmcp-3.11.0-http__raw-2026.har
           START="${CARGO_TARGET_DIR:-$PWD/target-rmcp}/release/rmcp-http-demo $PORT" ;;
esac
T=truth/raw2026_$which; rm -f $T.*
OUT=$PWD/$OUT; rm -f $OUT
if [ $which = rmcp ]; then $START 2> $T.server_stderr.txt & SP=$!; else $START --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!; fi
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-py1/bin/python scripts/raw_http_2026.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl | tee $T.driver_stdout.txt
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

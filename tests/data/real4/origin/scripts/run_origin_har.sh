#!/bin/bash
# The Origin sequence (origin_driver.py) against a real server with default settings,
# through a mitmproxy 11.0.2 reverse proxy (SSE addon).
# usage: run_origin_har.sh ts|fastmcp|mcp2
set -u
cd "$(dirname "$0")/.."
which=$1
case $which in
  ts)      PORT=18520; PPORT=18530; OUT=har_ts-sdk-1.32.2__origin.har; MODE=legacy
           START="node scripts/ts_json_server.mjs $PORT" ;;
  mcp2)    PORT=18522; PPORT=18532; OUT=har_mcp-2.3.0-mcpserver__origin.har; MODE=2026
           START="./venv-fmcp/bin/python scripts/mcp2_server.py --port $PORT" ;;
  fastmcp) PORT=18521; PPORT=18531; OUT=har_fastmcp-4.2.3__origin.har; MODE=2026
           START="./venv-fmcp/bin/python scripts/fmcp_server.py --port $PORT" ;;
esac
T=truth/origin_$which; rm -f $T.*
OUT=$PWD/$OUT; rm -f $OUT
$START --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-mitm/bin/python scripts/origin_driver.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl --mode $MODE | tee $T.driver_stdout.txt
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

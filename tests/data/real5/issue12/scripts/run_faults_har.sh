#!/bin/bash
# raw_http_faults.py (--era 2026|2025) against one server through mitmdump 11.0.2 (reverse, SSE addon).
# usage: run_faults_har.sh ts1|ts2|mcp2 2026|2025|cancel
set -u
cd "$(dirname "$0")/.."
which=$1; era=$2
cp scripts/ts2h_server.mjs node2/; cp scripts/ts_json_server.mjs node/
case $which in
  ts1)     PORT=18581; OUT=har_ts-sdk-1.32.2-json__raw-faults-$era.har; START="node node/ts_json_server.mjs $PORT" ;;
  ts2)     PORT=18582; OUT=har_ts-v2-2.4.0-server__raw-faults-$era.har; START="node node2/ts2h_server.mjs $PORT" ;;
  mcp2)    PORT=18583; OUT=har_mcp-2.3.0-mcpserver__raw-faults-$era.har; START="./venv-fmcp/bin/python scripts/mcp2_server.py --port $PORT" ;;
esac
PPORT=$((PORT+10))
T=truth/faults_${which}_$era; rm -f $T.*
OUT=$PWD/$OUT; rm -f $OUT
$START --tap $PWD/$T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-fmcp/bin/python scripts/raw_http_faults.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl --era $era | tee $T.driver_stdout.txt
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

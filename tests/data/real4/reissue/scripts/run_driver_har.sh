#!/bin/bash
# fastmcp 4.2.3 server (break_server.py: breaks the first count_with_progress stream)
# driven by our httpx re-issue driver through a mitmproxy 11.0.2 reverse proxy with
# the SSE streaming addon.
set -u
cd "$(dirname "$0")/.."
PORT=18461; PPORT=18471
T=truth/driver; rm -f $T.*
OUT=$PWD/har_fastmcp-4.2.3-broken-stream__httpx-reissue-driver.har; rm -f $OUT
./venv-fmcp/bin/python scripts/break_server.py --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-fmcp/bin/python scripts/reissue_driver.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl 2> $T.client_stderr.txt | tee $T.client_stdout.txt
echo "driver rc=${PIPESTATUS[0]}"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

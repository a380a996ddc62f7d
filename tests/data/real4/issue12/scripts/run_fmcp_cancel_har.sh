#!/bin/bash
# fastmcp 4.2.3 (mcp 2.3.0) server; fastmcp Client gives up on a call after 0.5 s (timeout)
# (mode auto -> 2026-07-28) through a mitmproxy 11.0.2 reverse proxy with the SSE
# streaming addon.
set -u
cd "$(dirname "$0")/.."
PORT=18447; PPORT=18457
T=truth/fmcp_cancel; rm -f $T.*
OUT=$PWD/har_fastmcp-4.2.3__client-timeout.har; rm -f $OUT
./venv-fmcp/bin/python scripts/fmcp_server.py --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-fmcp/bin/python scripts/fmcp_cancel_client.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl 2> $T.client_stderr.txt | tee $T.client_stdout.txt
echo "client rc=$?"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

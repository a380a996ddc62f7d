#!/bin/bash
# fastmcp 4.1.4 + fastmcp-tasks 4.1.4 (mcp 2.3.0) server with background tasks, Streamable HTTP, driven by fastmcp's own Client
# (mode auto -> 2026-07-28) through a mitmproxy 11.0.2 reverse proxy with the SSE
# streaming addon. The client closes cleanly (no listen in this run).
set -u
cd "$(dirname "$0")/.."
PORT=18563; PPORT=18573
T=truth/fmcp_tasks2; rm -f $T.*
OUT=$PWD/har_fastmcp-4.1.4-tasks__fastmcp-client__healthy-tasks.har; rm -f $OUT
./venv-fmcp141/bin/python scripts/fmcp_tasks_server.py --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-fmcp141/bin/python scripts/fmcp_tasks2_client.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl 2> $T.client_stderr.txt | tee $T.client_stdout.txt
echo "client rc=$?"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

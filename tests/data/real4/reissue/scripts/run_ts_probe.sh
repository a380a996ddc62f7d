#!/bin/bash
# Evidence run (no HAR): TS SDK v2 @modelcontextprotocol/client 2.4.0, pinned to 2026-07-28,
# against break_server.py directly. Shows that the library does not re-issue: it reports
# the broken stream on transport.onerror and the call waits for its timeout (5 s here).
set -u
cd "$(dirname "$0")/.."
PORT=18463; T=truth/ts_probe; rm -f $T.*
./venv-fmcp/bin/python scripts/break_server.py --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
. scripts/waitport.sh; waitport $PORT
cp scripts/ts_client_probe.mjs node/   # run from node/ so the package resolves
(cd node && timeout 60 node ts_client_probe.mjs http://127.0.0.1:$PORT/mcp 5000) > $T.client_stdout.txt 2>&1
echo "probe rc=$?"
kill $SP; wait $SP 2>/dev/null
cut -c1-200 $T.client_stdout.txt

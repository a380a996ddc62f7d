#!/bin/bash
# fastmcp 4.2.3's Client (fmcp_client5.py: mode auto, httpx2 tap) against the TS SDK v2 2.4.0 server
# (ts2h_server.mjs) through mitmdump 11.0.2: cross-SDK 2026-07-28 (listen left open, MRTR 4 rounds,
# progress, Mcp-Param-City for a non-ASCII city). The client exits hard with the listen open.
set -u
cd "$(dirname "$0")/.."
cp scripts/ts2h_server.mjs node2/
PORT=18565; PPORT=18575
T=truth/fmcp_ts2; rm -f $T.*
OUT=$PWD/har_ts-v2-2.4.0-server__fastmcp-4.2.3-client__healthy.har; rm -f $OUT
node node2/ts2h_server.mjs $PORT --tap $PWD/$T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-fmcp/bin/python scripts/fmcp_client5.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl --hold-listen 1 --weather 2> $T.client_stderr.txt | tee $T.client_stdout.txt
echo "client rc=$?"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

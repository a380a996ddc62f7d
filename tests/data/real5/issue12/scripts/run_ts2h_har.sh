#!/bin/bash
# TS SDK v2 2.4.0 server (ts2h_server.mjs, createMcpHandler) driven by the TS SDK v2 2.4.0 Client
# (ts2h_client.mjs, versionNegotiation auto -> 2026-07-28, fetch tap) through mitmdump 11.0.2
# reverse proxy + SSE streaming addon. The client exits with its listen open; mitmdump is stopped 1 s later.
set -u
cd "$(dirname "$0")/.."
cp scripts/ts2h_server.mjs scripts/ts2h_client.mjs node2/
PORT=18561; PPORT=18571
T=truth/ts2h; rm -f $T.*
OUT=$PWD/har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.har; rm -f $OUT
node node2/ts2h_server.mjs $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
node node2/ts2h_client.mjs http http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl --hold 1500 2> $T.client_stderr.txt | tee $T.client_stdout.txt
echo "client rc=$?"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

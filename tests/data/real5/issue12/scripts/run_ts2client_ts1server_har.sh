#!/bin/bash
# The TS SDK v2 2.4.0 Client (ts2h_client.mjs, versionNegotiation auto) against the TS SDK 1.32.2 server
# (ts_json_server.mjs: stateful, enableJsonResponse), which knows no 2026-07-28: the client's
# server/discover probe is refused and it falls back to initialize (one session, two eras).
# Steps the old server lacks (listen, book_flight, weather, enable_extra) fail and are logged as FAIL.
set -u
cd "$(dirname "$0")/.."
cp scripts/ts2h_client.mjs node2/; cp scripts/ts_json_server.mjs node/
PORT=18591; PPORT=18601
T=truth/ts2client_ts1server; rm -f $T.*
OUT=$PWD/har_ts-sdk-1.32.2-json__ts-v2-2.4.0-client__fallback.har; rm -f $OUT
node node/ts_json_server.mjs $PORT --tap $PWD/$T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
node node2/ts2h_client.mjs http http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl --hold 300 2> $T.client_stderr.txt | tee $T.client_stdout.txt
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

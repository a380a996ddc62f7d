#!/bin/bash
# TS SDK 1.32.2 Streamable HTTP, enableJsonResponse: true, stateful; revision disagreements (raw_http_versions.py)
# through a mitmproxy 11.0.2 reverse proxy that writes the HAR.
set -u
cd "$(dirname "$0")/.."
PORT=18461; PPORT=18471
T=truth/ts_versions; rm -f $T.*
OUT=$PWD/har_ts-sdk-1.32.2-json__versions.har; rm -f $OUT
cp scripts/ts_json_server.mjs node/  # ESM resolves @modelcontextprotocol/sdk next to the file
(cd node && exec node ts_json_server.mjs $PORT --tap ../$T.server_tap.jsonl) 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
./venv-py1/bin/python scripts/raw_http_versions.py http://127.0.0.1:$PPORT/mcp --tap $T.client_tap.jsonl | tee $T.driver_stdout.txt
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

#!/bin/bash
# Capture 5: mitmproxy 11.0.2 HAR (reverse proxy + SSE streaming addon) of the mcp 1.30.0 feature-run client
# over Streamable HTTP to mcp 1.30.0 FastMCP streamable_http_app() behind the ASGI tap.
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
T=truth/mitm; rm -f $T.*
PORT=18307; PPORT=18317
OUT=$PWD/x_har_mitmproxy__py1-streamable-feature-run.har; rm -f $OUT
$P scripts/py1_server.py --transport streamable-http --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
sleep 3
$P scripts/py1_client.py --tap $T.client_tap.jsonl http http://127.0.0.1:$PPORT/mcp 2> $T.client_stderr.txt
echo "client rc=$?"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

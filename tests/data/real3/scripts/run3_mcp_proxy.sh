#!/bin/bash
# Capture 3: mcp-proxy 0.13.0 (sparfenyuk) `--transport streamablehttp --debug URL` as the stdio server
# of the mcp 1.30.0 feature-run client; remote end mcp 1.30.0 FastMCP streamable_http_app() behind the ASGI tap.
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
T=truth/mcp-proxy; rm -f $T.*
PORT=18304
$P scripts/py1_server.py --transport streamable-http --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
sleep 2
$P scripts/py1_client.py --tap $T.client_tap.jsonl stdio -- \
  python3 scripts/shim.py $T.proxy_shim -- $PWD/venv-py1/bin/mcp-proxy --transport streamablehttp --debug http://127.0.0.1:$PORT/mcp \
  2> $T.client_stderr.txt
echo "client rc=$?"
sleep 0.5; kill $SP; wait $SP 2>/dev/null

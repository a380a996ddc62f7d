#!/bin/bash
# Capture 2: mcp-remote 0.15.1 as the stdio server of the mcp 1.30.0 feature-run client,
# bridging to mcp 1.30.0 FastMCP streamable_http_app() behind the ASGI tap.
# $1 = "plain" (no --debug) or "debug" (--debug; also writes the debug file).
set -u
cd "$(dirname "$0")/.."
MODE=${1:-plain}
P=$PWD/venv-py1/bin/python
MR=$PWD/node/node_modules/.bin/mcp-remote
T=truth/mcp-remote.$MODE; rm -f $T.*
CFG=$PWD/tmp/mcp-remote-cfg.$MODE; rm -rf $CFG; mkdir -p $CFG
PORT=18302; [ "$MODE" = debug ] && PORT=18303
EXTRA=""; [ "$MODE" = debug ] && EXTRA="--debug"
$P scripts/py1_server.py --transport streamable-http --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
sleep 2
$P scripts/py1_client.py --tap $T.client_tap.jsonl stdio -- \
  python3 scripts/shim.py $T.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$CFG $MR http://127.0.0.1:$PORT/mcp $EXTRA \
  2> $T.client_stderr.txt
echo "client rc=$?"
sleep 0.5; kill $SP; wait $SP 2>/dev/null
find $CFG -type f | head

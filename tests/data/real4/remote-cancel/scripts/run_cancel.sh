#!/bin/bash
# Set 4 (helper `remote-cancel`): mcp-remote 0.15.1 --debug between the mcp 1.30.0 cancel-run
# client (scripts/cancel_client.py) and a FastMCP 1.30.0 server behind the ASGI tap.
# $1 = which run: http (Streamable HTTP remote, default transport) | sse (--transport sse-only)
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
MR=$PWD/node/node_modules/.bin/mcp-remote
RUN=$1
T=truth/$RUN; rm -f $T.*
CFG=$PWD/tmp/mcp-remote-cfg.$RUN; rm -rf $CFG; mkdir -p $CFG
case $RUN in
http) PORT=18411; ST=streamable-http; URL=http://127.0.0.1:$PORT/mcp; EXTRA="" ;;
sse)  PORT=18412; ST=sse; URL=http://127.0.0.1:$PORT/sse; EXTRA="--transport sse-only" ;;
esac
$P scripts/py1_server.py --transport $ST --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
sleep 2
$P scripts/cancel_client.py --tap $T.client_tap.jsonl stdio -- \
  python3 scripts/shim.py $T.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$CFG $MR $URL $EXTRA --debug \
  2> $T.client_stderr.txt
echo "client rc=$?"
sleep 0.5; kill $SP; wait $SP 2>/dev/null
cp $(find $CFG -name '*_debug.log' | head -1) $T.debug_file.raw.log
ls -la $T.*

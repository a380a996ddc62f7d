#!/bin/bash
# Capture 1: supergateway 4.0.0 --sse URL (SSE -> stdio) as the stdio server of the mcp 1.30.0 feature-run client.
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
SG=$PWD/node/node_modules/.bin/supergateway
T=truth/sg_sse2stdio; rm -f $T.*
PORT=18301
$P scripts/py1_server.py --transport sse --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
sleep 2
$P scripts/py1_client.py --tap $T.client_tap.jsonl stdio -- \
  python3 scripts/shim.py $T.gw_shim -- $SG --sse http://127.0.0.1:$PORT/sse --logLevel debug \
  2> $T.client_stderr.txt
echo "client rc=$?"
sleep 0.5; kill $SP; wait $SP 2>/dev/null

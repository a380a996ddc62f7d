#!/bin/bash
# supergateway 4.0.0 (npm) + server-everything 2026.8.31 (stdio), two mcp 1.30.0
# streamablehttp clients started 0.3 s apart.  usage: run_multi.sh stateless|stateful
set -u
cd "$(dirname "$0")/.."
P=${PY:-python3}
NM=${NM:-node/node_modules}
MODE=$1
T=truth/sgm_$MODE; rm -f $T.*
CHILD="node $NM/@modelcontextprotocol/server-everything/dist/index.js stdio"
case $MODE in
  stateless) PORT=28481; ARGS=(--outputTransport streamableHttp);;
  stateful)  PORT=28482; ARGS=(--outputTransport streamableHttp --stateful --sessionTimeout 60000);;
esac
URL=http://127.0.0.1:$PORT/mcp
node $NM/supergateway/dist/index.js --stdio "$CHILD" --port $PORT --logLevel debug "${ARGS[@]}" > $T.gateway.log 2>&1 & GP=$!
for i in $(seq 50); do grep -q "Listening on port" $T.gateway.log 2>/dev/null && break; sleep 0.2; done; sleep 0.3
$P scripts/ev_client.py --tap $T.clientA_tap.jsonl --name A $URL 2> $T.clientA_stderr.txt & A=$!
sleep 0.3
$P scripts/ev_client.py --tap $T.clientB_tap.jsonl --name B $URL 2> $T.clientB_stderr.txt & B=$!
wait $A; echo "client A rc=$?"; wait $B; echo "client B rc=$?"
sleep 1; kill -INT $GP; sleep 1; kill $GP 2>/dev/null; wait $GP 2>/dev/null

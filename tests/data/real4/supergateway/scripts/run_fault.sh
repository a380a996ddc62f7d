#!/bin/bash
# Stateful fault run: client A = ev_client.py (healthy), client B = curl_dup.sh
# (duplicate id 7 in its own session), started 0.3 s apart.
set -u
cd "$(dirname "$0")/.."
P=${PY:-python3}
NM=${NM:-node/node_modules}
T=truth/sgm_stateful-dup; rm -f $T.*
CHILD="node $NM/@modelcontextprotocol/server-everything/dist/index.js stdio"
PORT=28483; URL=http://127.0.0.1:$PORT/mcp
node $NM/supergateway/dist/index.js --stdio "$CHILD" --port $PORT --logLevel debug --outputTransport streamableHttp --stateful --sessionTimeout 60000 > $T.gateway.log 2>&1 & GP=$!
for i in $(seq 50); do grep -q "Listening on port" $T.gateway.log 2>/dev/null && break; sleep 0.2; done; sleep 0.3
$P scripts/ev_client.py --tap $T.clientA_tap.jsonl --name A $URL 2> $T.clientA_stderr.txt & A=$!
sleep 0.3
bash scripts/curl_dup.sh $URL $T.clientB & B=$!
wait $A; echo "client A rc=$?"; wait $B; echo "client B rc=$?"
sleep 1; kill -INT $GP; sleep 1; kill $GP 2>/dev/null; wait $GP 2>/dev/null

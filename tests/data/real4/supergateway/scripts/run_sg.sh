#!/bin/bash
# One supergateway 4.0.0 capture: stdio server py1_server.py (behind the recording shim)
# exposed by supergateway, driven by the mcp 1.30.0 feature-run client(s).
# usage: run_sg.sh http-stateful|http-stateless|ws|sse-two
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
SG=$PWD/node/node_modules/.bin/supergateway
MODE=$1
T=truth/sg_$MODE; rm -f $T.*
CHILD="python3 scripts/shim.py $T.child_shim -- $P scripts/py1_server.py --transport stdio"
case $MODE in
  http-stateful)  PORT=28471; ARGS=(--outputTransport streamableHttp --stateful); URL=http://127.0.0.1:$PORT/mcp; KIND=http;;
  http-stateless) PORT=28472; ARGS=(--outputTransport streamableHttp); URL=http://127.0.0.1:$PORT/mcp; KIND=http;;
  ws)             PORT=28473; ARGS=(--outputTransport ws); URL=ws://127.0.0.1:$PORT/message; KIND=ws;;
  sse-two)        PORT=28474; ARGS=(--outputTransport sse); URL=http://127.0.0.1:$PORT/sse; KIND=sse;;
esac
if ss -ltn | grep -q ":$PORT "; then echo "port $PORT busy"; exit 1; fi
# stdout+stderr of the gateway as written, in one file (its log; the protocol is HTTP/WS)
$SG --stdio "$CHILD" --port $PORT --logLevel debug "${ARGS[@]}" > $T.gateway.log 2>&1 & GP=$!
for i in $(seq 50); do grep -q "Listening on port" $T.gateway.log 2>/dev/null && break; sleep 0.2; done; sleep 0.3
if [ $MODE = sse-two ]; then
  $P scripts/py1_client.py --tap $T.clientA_tap.jsonl $KIND $URL 2> $T.clientA_stderr.txt & A=$!
  sleep 0.35
  $P scripts/py1_client.py --tap $T.clientB_tap.jsonl $KIND $URL 2> $T.clientB_stderr.txt & B=$!
  wait $A; echo "client A rc=$?"; wait $B; echo "client B rc=$?"
else
  $P scripts/py1_client.py --tap $T.client_tap.jsonl $KIND $URL 2> $T.client_stderr.txt
  echo "client rc=$?"
fi
sleep 1; kill -INT $GP; sleep 1; kill $GP 2>/dev/null; wait $GP 2>/dev/null

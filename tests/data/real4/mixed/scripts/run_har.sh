#!/bin/bash
# run_har.sh NAME SERVER PORT -- CLIENT...   (generic: start the server, a mitmdump reverse proxy that
# writes the HAR, then the client with URL http://127.0.0.1:PPORT/mcp; stop what it started)
# SERVER: ts-json | ts-sse | py1 | fmcp     CLIENT: modern | py1-old | ts2
set -u
cd "$(dirname "$0")/.."
NAME=$1; SERVER=$2; PORT=$3; PPORT=$((PORT+10)); CLIENT=$4
T=truth/$NAME; rm -f $T.*
OUT=$PWD/$NAME.har; rm -f $OUT
case $SERVER in
  ts-json) cp scripts/ts_http_server.mjs node/; (cd node && exec node ts_http_server.mjs $PORT --tap ../$T.server_tap.jsonl) 2> $T.server_stderr.txt & SP=$! ;;
  ts-sse)  cp scripts/ts_http_server.mjs node/; (cd node && exec node ts_http_server.mjs $PORT --sse --tap ../$T.server_tap.jsonl) 2> $T.server_stderr.txt & SP=$! ;;
  py1)     ./venv-py1/bin/python scripts/py1_server.py --transport streamable-http --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$! ;;
  fmcp)    ./venv/bin/python scripts/fmcp_server.py --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$! ;;
esac
./venv-mitm/bin/mitmdump -q --mode reverse:http://127.0.0.1:$PORT --listen-host 127.0.0.1 --listen-port $PPORT \
  -s scripts/sse_stream_addon.py --set hardump=$OUT > $T.mitmdump_stdout.txt 2>&1 & MP=$!
. scripts/waitport.sh; waitport $PORT; waitport $PPORT
URL=http://127.0.0.1:$PPORT/mcp
case $CLIENT in
  modern)  ./venv/bin/python scripts/modern_client.py http $URL --tap $T.client_tap.jsonl 2> $T.client_stderr.txt | tee $T.client_stdout.txt ;;
  py1-old) ./venv-py1/bin/python scripts/old_client.py http $URL --tap $T.client_tap.jsonl 2> $T.client_stderr.txt | tee $T.client_stdout.txt ;;
  ts2)     cp scripts/ts2_client.mjs node2/; (cd node2 && node ts2_client.mjs http $URL --tap ../$T.client_tap.jsonl) 2> $T.client_stderr.txt | tee $T.client_stdout.txt ;;
esac
echo "client rc=${PIPESTATUS[0]}"
sleep 1
kill -INT $MP; wait $MP
kill $SP; wait $SP 2>/dev/null
ls -la $OUT

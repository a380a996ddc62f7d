#!/bin/bash
# mcp-recorder 0.5.0 cassette of the mcp 1.30.0 feature-run client (client tap = truth).
# http:  client --streamable HTTP--> recorder proxy --HTTP--> py1_server (streamable-http, ASGI tap)
# stdio: client --streamable HTTP--> recorder proxy --stdio--> py1_server (stdio)
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv/bin/python
MODE=$1
T=truth/rec_$MODE; rm -f $T.*
OUT=$PWD/truth/rec_$MODE.cassette.json; rm -f $OUT
if [ "$MODE" = http ]; then
  PORT=38741; RPORT=38751
  $P scripts/py1_server.py --transport streamable-http --port $PORT --allow-host 127.0.0.1 --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
  sleep 2
  $PWD/venv-rec/bin/python scripts/rec_loopback.py record --target http://127.0.0.1:$PORT --port $RPORT --output $OUT 2> $T.recorder_stderr.txt & RP=$!
else
  RPORT=38752; SP=
  $PWD/venv-rec/bin/python scripts/rec_loopback.py record --target-stdio "$P scripts/py1_server.py --transport stdio" --port $RPORT --output $OUT 2> $T.recorder_stderr.txt & RP=$!
fi
sleep 3
$P scripts/py1_client.py --tap $T.client_tap.jsonl http http://127.0.0.1:$RPORT/mcp 2> $T.client_stderr.txt
echo "client rc=$?"
sleep 1
kill -INT $RP; wait $RP
[ -n "$SP" ] && { kill $SP; wait $SP 2>/dev/null; }
ls -la $OUT

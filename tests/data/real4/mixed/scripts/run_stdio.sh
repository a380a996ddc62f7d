#!/bin/bash
# run_stdio.sh NAME SERVER CLIENT : CLIENT spawns `shim.py truth/NAME.shim -- SERVER-COMMAND`; the capture is
# the shim's .txt (tagged [STDIN]/[STDOUT]/[STDERR], copied to NAME.logger.log) and its envelope
# (dir c2s/s2c, copied to NAME.envelope.jsonl).
# SERVER: ts | py1 | fmcp     CLIENT: modern | py1-old | ts2
set -u
cd "$(dirname "$0")/.."
NAME=$1; SERVER=$2; CLIENT=$3
T=truth/$NAME; rm -f $T.*
cp scripts/ts_stdio_server.mjs node/
case $SERVER in
  ts)   SCMD="node $PWD/node/ts_stdio_server.mjs" ;;
  py1)  SCMD="$PWD/venv-py1/bin/python $PWD/scripts/py1_server.py --transport stdio" ;;
  fmcp) SCMD="$PWD/venv/bin/python $PWD/scripts/fmcp_server.py --stdio" ;;
esac
SHIM="python3 $PWD/scripts/shim.py $PWD/$T.shim --"
case $CLIENT in
  modern)  ./venv/bin/python scripts/modern_client.py stdio -- $SHIM $SCMD 2> $T.client_stderr.txt | tee $T.client_stdout.txt ;;
  py1-old) ./venv-py1/bin/python scripts/old_client.py stdio -- $SHIM $SCMD 2> $T.client_stderr.txt | tee $T.client_stdout.txt ;;
  ts2)     cp scripts/ts2_client.mjs node2/; (cd node2 && node ts2_client.mjs stdio -- $SHIM $SCMD) 2> $T.client_stderr.txt | tee $T.client_stdout.txt ;;
esac
echo "client rc=${PIPESTATUS[0]}"
sleep 1
cp $T.shim.txt $NAME.logger.log; cp $T.shim.envelope.jsonl $NAME.envelope.jsonl
ls -la $NAME.logger.log $NAME.envelope.jsonl

#!/bin/bash
# stdio_faults_driver.py against a 2026-era stdio server behind the recording shim. usage: run_stdio_faults.sh ts2|mcp2
set -u
cd "$(dirname "$0")/.."
which=$1
cp scripts/ts2h_server.mjs node2/
case $which in
  ts2)  CMD="node $PWD/node2/ts2h_server.mjs 0 --stdio"; OUT=stdio_ts-v2-2.4.0-server__raw-faults.logger.log ;;
  mcp2) CMD="$PWD/venv-fmcp/bin/python $PWD/scripts/mcp2_server.py --stdio"; OUT=stdio_mcp-2.3.0-mcpserver__raw-faults.logger.log ;;
esac
T=truth/stdio_faults_$which; rm -f $T.*
python3 scripts/stdio_faults_driver.py $T.driver.jsonl -- python3 $PWD/scripts/shim.py $PWD/$T.shim -- $CMD | tee $T.driver_stdout.txt
cp $T.shim.txt $OUT; ls -la $OUT

#!/bin/bash
# TS SDK v2 2.4.0 server over stdio (ts2h_server.mjs --stdio, serveStdio) behind the recording shim,
# driven by the TS SDK v2 2.4.0 Client (StdioClientTransport, versionNegotiation auto). The client's
# auto mode probes server/discover on a short-lived sibling process spawned from the same command,
# so the shim runs twice and both processes append to one log. The capture is the shim's .txt.
set -u
cd "$(dirname "$0")/.."
cp scripts/ts2h_server.mjs scripts/ts2h_client.mjs node2/
T=truth/ts2h_stdio; rm -f $T.*
node node2/ts2h_client.mjs stdio --tap $T.client_tap.jsonl --hold 1000 -- \
  python3 $PWD/scripts/shim.py $PWD/$T.shim -- node $PWD/node2/ts2h_server.mjs 0 --stdio \
  2> $T.client_stderr.txt | tee $T.client_stdout.txt
sleep 1
cp $T.shim.txt stdio_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.logger.log
ls -la $T.shim.txt

#!/bin/bash
# Set 4 (helper `bridge`): five captures of mcp-remote 0.15.1, mcp-proxy 0.13.0 (PyPI) and
# mcp-proxy 6.7.19 (npm, punkpeye), each driven by the mcp 1.30.0 feature-run client.
# $1 = which run: rsse | pysse | pyserver | npmhttp | npmsse
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
MR=$PWD/node/node_modules/.bin/mcp-remote
NP=$PWD/node/node_modules/.bin/mcp-proxy
RUN=$1
T=truth/$RUN; rm -f $T.*
case $RUN in
rsse)  # mcp-remote --debug --transport sse-only to a legacy HTTP+SSE server
  PORT=18401; CFG=$PWD/tmp/mcp-remote-cfg.rsse; rm -rf $CFG; mkdir -p $CFG
  $P scripts/py1_server.py --transport sse --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
  sleep 2
  $P scripts/py1_client.py --tap $T.client_tap.jsonl stdio -- \
    python3 scripts/shim.py $T.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$CFG $MR http://127.0.0.1:$PORT/sse --transport sse-only --debug \
    2> $T.client_stderr.txt
  echo "client rc=$?"
  sleep 0.5; kill $SP; wait $SP 2>/dev/null
  cp $(find $CFG -name '*_debug.log' | head -1) $T.debug_file.raw.log ;;
pysse)  # mcp-proxy (PyPI) client mode, SSE transport (default), --debug
  PORT=18402
  $P scripts/py1_server.py --transport sse --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
  sleep 2
  $P scripts/py1_client.py --tap $T.client_tap.jsonl stdio -- \
    python3 scripts/shim.py $T.proxy_shim -- $PWD/venv-py1/bin/mcp-proxy --debug http://127.0.0.1:$PORT/sse \
    2> $T.client_stderr.txt
  echo "client rc=$?"
  sleep 0.5; kill $SP; wait $SP 2>/dev/null ;;
pyserver)  # mcp-proxy (PyPI) server mode: stdio server exposed over SSE, --debug
  PORT=18403
  $PWD/venv-py1/bin/mcp-proxy --debug --port $PORT --host 127.0.0.1 -- \
    scripts/child_py1.sh $PWD/$T.child_shim \
    > $T.proxy_stdout.txt 2> $T.proxy_stderr.raw & XP=$!
  sleep 3
  $P scripts/py1_client.py --tap $T.client_tap.jsonl sse http://127.0.0.1:$PORT/sse 2> $T.client_stderr.txt
  echo "client rc=$?"
  sleep 0.5; kill -INT $XP; sleep 1; kill $XP 2>/dev/null; wait $XP 2>/dev/null ;;
npmhttp|npmsse)  # mcp-proxy (npm) --debug: stdio server exposed over Streamable HTTP / SSE
  PORT=18404; [ $RUN = npmsse ] && PORT=18405
  node --require $PWD/scripts/bind_loopback.cjs $NP --debug --port $PORT --host 127.0.0.1 -- \
    scripts/child_py1.sh $PWD/$T.child_shim \
    > $T.proxy_stdout.raw 2> $T.proxy_stderr.raw & XP=$!
  sleep 4
  if [ $RUN = npmhttp ]; then
    $P scripts/py1_client.py --tap $T.client_tap.jsonl http http://127.0.0.1:$PORT/mcp 2> $T.client_stderr.txt
  else
    $P scripts/py1_client.py --tap $T.client_tap.jsonl sse http://127.0.0.1:$PORT/sse 2> $T.client_stderr.txt
  fi
  echo "client rc=$?"
  sleep 0.5; kill -INT $XP; sleep 1; kill $XP 2>/dev/null; wait $XP 2>/dev/null ;;
esac
ls -la $T.*

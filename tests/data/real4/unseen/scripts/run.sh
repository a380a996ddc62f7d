#!/bin/bash
# usage: bash scripts/run.sh CASE   (from /tmp/unseen; writes truth/CASE.* and captures/)
set -u
cd /tmp/unseen
U=/tmp/unseen; NM=$U/node/node_modules; BIN=$NM/.bin; PY=$U/venv/bin/python
EV="$NM/@modelcontextprotocol/server-everything/dist/index.js"
T=$U/truth; C=$U/captures
case_=$1; rm -f $T/$case_.* ; PIDS=()
waitport() { for i in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 never opened"; return 1; }
stopall() { for p in "${PIDS[@]}"; do kill -INT $p 2>/dev/null; done; sleep 1; for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done; }
ev_http() { PORT=$1 node --require $U/scripts/bind_loopback.cjs $EV streamableHttp > $T/$case_.server.log 2>&1 & PIDS+=($!); waitport $1; }
ev_sse() { PORT=$1 node --require $U/scripts/bind_loopback.cjs $EV sse > $T/$case_.server.log 2>&1 & PIDS+=($!); waitport $1; }
tsc() { (cd $U/node && node $U/node/tsclient.mjs "$@") ; }
case $case_ in
sg-http2stdio-everything)   # supergateway streamable-http -> stdio, remote server-everything
  ev_http 18601
  tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.gw_shim -- $BIN/supergateway --streamableHttp http://127.0.0.1:18601/mcp --logLevel debug 2> $T/$case_.client_stderr.txt
  cp $T/$case_.gw_shim.stderr.raw $C/$case_.stderr.log ;;
sg-http2stdio-py1)   # supergateway streamable-http -> stdio, remote Python mcp 1.30.0 FastMCP
  $PY $U/scripts/py1_server.py --transport streamable-http --port 18602 --tap $T/$case_.server_tap.jsonl > $T/$case_.server.log 2>&1 & PIDS+=($!); waitport 18602
  $PY $U/scripts/pyclient.py --tap $T/$case_.client_tap.jsonl stdio -- $PY $U/scripts/shim.py $T/$case_.gw_shim -- $BIN/supergateway --streamableHttp http://127.0.0.1:18602/mcp --logLevel debug 2> $T/$case_.client_stderr.txt
  cp $T/$case_.gw_shim.stderr.raw $C/$case_.stderr.log ;;
sg-sse2stdio-everything)
  ev_sse 18603
  tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.gw_shim -- $BIN/supergateway --sse http://127.0.0.1:18603/sse --logLevel debug 2> $T/$case_.client_stderr.txt
  cp $T/$case_.gw_shim.stderr.raw $C/$case_.stderr.log ;;
sg-stdio2sse-everything-info)   # default --logLevel (info), stdout+stderr
  $BIN/supergateway --stdio "node $EV stdio" --port 18604 > $T/$case_.gateway.log 2>&1 & PIDS+=($!); waitport 18604
  tsc sse $T/$case_.client_tap.jsonl http://127.0.0.1:18604/sse 2> $T/$case_.client_stderr.txt
  stopall; PIDS=(); cp $T/$case_.gateway.log $C/$case_.log ;;
sg-stdio2sse-everything-debug)
  $BIN/supergateway --stdio "$PY $U/scripts/shim.py $T/$case_.child_shim -- node $EV stdio" --port 18605 --logLevel debug > $T/$case_.gateway.log 2>&1 & PIDS+=($!); waitport 18605
  tsc sse $T/$case_.client_tap.jsonl http://127.0.0.1:18605/sse 2> $T/$case_.client_stderr.txt
  stopall; PIDS=(); cp $T/$case_.gateway.log $C/$case_.log ;;
sg-stdio2http-stateful-ts)
  $BIN/supergateway --stdio "$PY $U/scripts/shim.py $T/$case_.child_shim -- node $EV stdio" --port 18606 --logLevel debug --outputTransport streamableHttp --stateful > $T/$case_.gateway.log 2>&1 & PIDS+=($!); waitport 18606
  tsc http $T/$case_.client_tap.jsonl http://127.0.0.1:18606/mcp 2> $T/$case_.client_stderr.txt
  stopall; PIDS=(); cp $T/$case_.gateway.log $C/$case_.log ;;
sg-stdio2http-stateless-ts)
  $BIN/supergateway --stdio "$PY $U/scripts/shim.py $T/$case_.child_shim -- node $EV stdio" --port 18607 --logLevel debug --outputTransport streamableHttp > $T/$case_.gateway.log 2>&1 & PIDS+=($!); waitport 18607
  tsc http $T/$case_.client_tap.jsonl http://127.0.0.1:18607/mcp 2> $T/$case_.client_stderr.txt
  stopall; PIDS=(); cp $T/$case_.gateway.log $C/$case_.log ;;
mr-debug-everything)   # mcp-remote --debug, Streamable HTTP remote server-everything
  ev_http 18608; mkdir -p $T/$case_.cfg
  tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18608/mcp --debug 2> $T/$case_.client_stderr.txt
  cp $T/$case_.bridge_shim.stderr.raw $C/$case_.debug-stderr.log; cp $T/$case_.cfg/mcp-remote-v1/*_debug.log $C/$case_.debug-file.log ;;
mr-plain-sse-py1)   # mcp-remote without --debug, SSE remote Python FastMCP, long results
  $PY $U/scripts/py1_server.py --transport sse --port 18609 --tap $T/$case_.server_tap.jsonl > $T/$case_.server.log 2>&1 & PIDS+=($!); waitport 18609; mkdir -p $T/$case_.cfg
  $PY $U/scripts/pyclient.py --tap $T/$case_.client_tap.jsonl stdio -- $PY $U/scripts/shim.py $T/$case_.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18609/sse --transport sse-only 2> $T/$case_.client_stderr.txt
  cp $T/$case_.bridge_shim.stderr.raw $C/$case_.stderr.log ;;
mr-debug-restart)   # mcp-remote --debug; the remote server-everything restarts mid-session
  ev_http 18610; mkdir -p $T/$case_.cfg
  ( while [ ! -f $T/$case_.pause ]; do sleep 0.1; done; kill ${PIDS[0]}; sleep 1.5
    PORT=18610 node --require $U/scripts/bind_loopback.cjs $EV streamableHttp > $T/$case_.server2.log 2>&1 & echo $! > $T/$case_.server2.pid; waitport 18610; sleep 0.5; rm -f $T/$case_.pause ) &
  PAUSE=$T/$case_.pause tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18610/mcp --debug 2> $T/$case_.client_stderr.txt
  kill $(cat $T/$case_.server2.pid) 2>/dev/null
  cp $T/$case_.bridge_shim.stderr.raw $C/$case_.debug-stderr.log; cp $T/$case_.cfg/mcp-remote-v1/*_debug.log $C/$case_.debug-file.log ;;
mp-server-http-everything)   # mcp-proxy server mode, Streamable HTTP /mcp, child server-everything stdio
  $U/venv/bin/mcp-proxy --debug --port 18611 --host 127.0.0.1 -- $U/scripts/child_ev.sh $T/$case_.child_shim > $T/$case_.proxy.log 2>&1 & PIDS+=($!); waitport 18611
  tsc http $T/$case_.client_tap.jsonl http://127.0.0.1:18611/mcp 2> $T/$case_.client_stderr.txt
  stopall; PIDS=(); cp $T/$case_.proxy.log $C/$case_.debug.log ;;
mp-server-http-stateless)
  $U/venv/bin/mcp-proxy --debug --stateless --port 18612 --host 127.0.0.1 -- $U/scripts/child_ev.sh $T/$case_.child_shim > $T/$case_.proxy.log 2>&1 & PIDS+=($!); waitport 18612
  tsc http $T/$case_.client_tap.jsonl http://127.0.0.1:18612/mcp 2> $T/$case_.client_stderr.txt
  stopall; PIDS=(); cp $T/$case_.proxy.log $C/$case_.debug.log ;;
mp-client-http-everything)   # mcp-proxy client mode (stdio -> Streamable HTTP), remote server-everything
  ev_http 18613
  tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.proxy_shim -- $U/venv/bin/mcp-proxy --transport streamablehttp --debug http://127.0.0.1:18613/mcp 2> $T/$case_.client_stderr.txt
  cp $T/$case_.proxy_shim.stderr.raw $C/$case_.debug.log ;;
mr-debug-two-clients)   # two hosts, each with its own mcp-remote --debug to the same URL and config dir (one shared debug file)
  ev_http 18614; mkdir -p $T/$case_.cfg
  tsc stdio $T/$case_.clientA_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridgeA_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18614/mcp --debug 2> $T/$case_.clientA_stderr.txt &
  A=$!; sleep 0.4
  tsc stdio $T/$case_.clientB_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridgeB_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18614/mcp --debug 2> $T/$case_.clientB_stderr.txt
  wait $A
  cp $T/$case_.cfg/mcp-remote-v1/*_debug.log $C/$case_.debug-file.log ;;
mr-debug-two-runs)   # the same host runs mcp-remote --debug twice (server restarted in between): one debug file
  ev_http 18615; mkdir -p $T/$case_.cfg
  tsc stdio $T/$case_.client1_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridge1_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18615/mcp --debug 2> $T/$case_.client1_stderr.txt
  stopall; PIDS=(); sleep 1; ev_http 18615
  tsc stdio $T/$case_.client2_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridge2_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18615/mcp --debug 2> $T/$case_.client2_stderr.txt
  cp $T/$case_.cfg/mcp-remote-v1/*_debug.log $C/$case_.debug-file.log ;;
mr-sse-restart)   # mcp-remote --transport sse-only --debug; the Python SSE server restarts mid-session
  ev_sse 18616; mkdir -p $T/$case_.cfg
  ( while [ ! -f $T/$case_.pause ]; do sleep 0.1; done; kill ${PIDS[0]}; sleep 1.5
    PORT=18616 node --require $U/scripts/bind_loopback.cjs $EV sse > $T/$case_.server2.log 2>&1 & echo $! > $T/$case_.server2.pid; waitport 18616; sleep 0.5; rm -f $T/$case_.pause ) &
  PAUSE=$T/$case_.pause tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.bridge_shim -- env MCP_REMOTE_CONFIG_DIR=$T/$case_.cfg $BIN/mcp-remote http://127.0.0.1:18616/sse --transport sse-only --debug 2> $T/$case_.client_stderr.txt
  kill $(cat $T/$case_.server2.pid) 2>/dev/null
  cp $T/$case_.bridge_shim.stderr.raw $C/$case_.debug-stderr.log; cp $T/$case_.cfg/mcp-remote-v1/*_debug.log $C/$case_.debug-file.log ;;
sg-http2stdio-restart)   # supergateway --streamableHttp; the remote server-everything restarts mid-session
  ev_http 18617
  ( while [ ! -f $T/$case_.pause ]; do sleep 0.1; done; kill ${PIDS[0]}; sleep 1.5
    PORT=18617 node --require $U/scripts/bind_loopback.cjs $EV streamableHttp > $T/$case_.server2.log 2>&1 & echo $! > $T/$case_.server2.pid; waitport 18617; sleep 0.5; rm -f $T/$case_.pause ) &
  PAUSE=$T/$case_.pause tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.gw_shim -- $BIN/supergateway --streamableHttp http://127.0.0.1:18617/mcp --logLevel debug 2> $T/$case_.client_stderr.txt
  kill $(cat $T/$case_.server2.pid) 2>/dev/null
  cp $T/$case_.gw_shim.stderr.raw $C/$case_.stderr.log ;;
mp-client-sse-everything)   # mcp-proxy client mode (stdio -> SSE), remote server-everything sse
  ev_sse 18618
  tsc stdio $T/$case_.client_tap.jsonl -- $PY $U/scripts/shim.py $T/$case_.proxy_shim -- $U/venv/bin/mcp-proxy --debug http://127.0.0.1:18618/sse 2> $T/$case_.client_stderr.txt
  cp $T/$case_.proxy_shim.stderr.raw $C/$case_.debug.log ;;
mp-server-sse-two-clients)   # mcp-proxy server mode (SSE), one child server-everything, two clients at once
  $U/venv/bin/mcp-proxy --debug --port 18619 --host 127.0.0.1 -- $U/scripts/child_ev.sh $T/$case_.child_shim > $T/$case_.proxy.log 2>&1 & PIDS+=($!); waitport 18619
  tsc sse $T/$case_.clientA_tap.jsonl http://127.0.0.1:18619/sse 2> $T/$case_.clientA_stderr.txt & A=$!; sleep 0.4
  tsc sse $T/$case_.clientB_tap.jsonl http://127.0.0.1:18619/sse 2> $T/$case_.clientB_stderr.txt; wait $A
  stopall; PIDS=(); cp $T/$case_.proxy.log $C/$case_.debug.log ;;
mp-named-servers-sse)   # mcp-proxy --named-server: two stdio children (server-everything, py1) behind one proxy, one SSE client each
  $U/venv/bin/mcp-proxy --debug --port 18620 --host 127.0.0.1 --named-server ev "$U/scripts/child_ev.sh $T/$case_.ev_shim" --named-server py "$PY $U/scripts/shim.py $T/$case_.py_shim -- $PY $U/scripts/py1_server.py --transport stdio" > $T/$case_.proxy.log 2>&1 & PIDS+=($!); waitport 18620
  tsc sse $T/$case_.clientA_tap.jsonl http://127.0.0.1:18620/servers/ev/sse 2> $T/$case_.clientA_stderr.txt & A=$!; sleep 0.4
  $PY $U/scripts/pyclient.py --tap $T/$case_.clientB_tap.jsonl sse http://127.0.0.1:18620/servers/py/sse 2> $T/$case_.clientB_stderr.txt; wait $A
  stopall; PIDS=(); cp $T/$case_.proxy.log $C/$case_.debug.log ;;
*) echo "unknown case"; exit 2 ;;
esac
echo "client exit $?"
stopall

#!/bin/bash
# Capture 4: raw SSE with curl -N (-i and plain) on Streamable HTTP POSTs (tools/call count_with_progress
# with a progressToken) to mcp 1.30.0 FastMCP streamable_http_app() behind the ASGI tap.
# Handshake (initialize, notifications/initialized) is done by curl too, into truth/ only.
set -u
cd "$(dirname "$0")/.."
P=$PWD/venv-py1/bin/python
T=truth/curl_sse; rm -f $T.*
PORT=18305; U=http://127.0.0.1:$PORT/mcp
H=(-H 'content-type: application/json' -H 'accept: application/json, text/event-stream')
$P scripts/py1_server.py --transport streamable-http --port $PORT --tap $T.server_tap.jsonl 2> $T.server_stderr.txt & SP=$!
sleep 2
curl -sS -N -i "${H[@]}" --trace-time --trace-ascii $T.curl_trace.initialize.txt \
  --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"7.88.1"}}}' \
  $U > $T.initialize.curl-i.sse
SID=$(grep -i '^mcp-session-id:' $T.initialize.curl-i.sse | tr -d '\r' | awk '{print $2}')
echo "session $SID"
H+=(-H "mcp-session-id: $SID" -H 'mcp-protocol-version: 2025-11-25')
curl -sS -N -i "${H[@]}" --data '{"jsonrpc":"2.0","method":"notifications/initialized"}' $U > $T.initialized.curl-i.txt
# 1) with -i: headers + SSE body
curl -sS -N -i "${H[@]}" --trace-time --trace-ascii $T.curl_trace.call2.txt \
  --data '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_with_progress","arguments":{"steps":5},"_meta":{"progressToken":"tok-2"}}}' \
  $U > sse_streamable-post.curl-i.sse
# 2) without -i: SSE body only
curl -sS -N "${H[@]}" --trace-time --trace-ascii $T.curl_trace.call3.txt \
  --data '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count_with_progress","arguments":{"steps":3},"_meta":{"progressToken":3}}}' \
  $U > sse_streamable-post.curl.sse
curl -sS -i -X DELETE "${H[@]}" $U > $T.delete.curl-i.txt
sleep 0.3; kill $SP; wait $SP 2>/dev/null

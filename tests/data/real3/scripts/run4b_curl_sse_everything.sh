#!/bin/bash
# Capture 4b: raw SSE with curl -N -i on a Streamable HTTP POST to @modelcontextprotocol/server-everything
# 2026.8.31 (streamableHttp, InMemoryEventStore: event ids + priming event), tool trigger-long-running-operation
# with a progressToken. Truth: curl --trace-time --trace-ascii (the client's own record of bytes sent/received).
set -u
cd "$(dirname "$0")/.."
T=truth/curl_sse_everything; rm -f $T.*
PORT=18306; U=http://127.0.0.1:$PORT/mcp
H=(-H 'content-type: application/json' -H 'accept: application/json, text/event-stream')
(cd node && PORT=$PORT exec node --require ../scripts/bind_loopback.cjs node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp) > $T.server_stdout.txt 2> $T.server_stderr.txt & SP=$!
sleep 2.5
curl -sS -N -i "${H[@]}" --trace-time --trace-ascii $T.curl_trace.initialize.txt \
  --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"7.88.1"}}}' \
  $U > $T.initialize.curl-i.sse
SID=$(grep -i '^mcp-session-id:' $T.initialize.curl-i.sse | tr -d '\r' | awk '{print $2}')
echo "session $SID"
H+=(-H "mcp-session-id: $SID" -H 'mcp-protocol-version: 2025-11-25')
curl -sS -N -i "${H[@]}" --data '{"jsonrpc":"2.0","method":"notifications/initialized"}' $U > $T.initialized.curl-i.txt
curl -sS -N -i "${H[@]}" --trace-time --trace-ascii $T.curl_trace.call2.txt \
  --data '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":0.8,"steps":4},"_meta":{"progressToken":"tok-2"}}}' \
  $U > sse_server-everything-post.curl-i.sse
curl -sS -i -X DELETE "${H[@]}" $U > $T.delete.curl-i.txt
sleep 0.3; kill $SP; wait $SP 2>/dev/null

#!/usr/bin/env bash
# Records curl_py-mcp-1.30.0__refusals.curl-i.sse: `curl -sN -i` of seven
# Streamable HTTP POSTs to mcp 1.30.0 FastMCP (py1_server.py of
# ../../real3/scripts) on 127.0.0.1, appended to one file, with the ASGI
# server tap as ground truth. Usage: record.sh PYTHON OUTDIR (PYTHON has mcp==1.30.0).
set -euo pipefail
PY=$1; OUT=$2; PORT=18491; U=http://127.0.0.1:$PORT/mcp
HERE=$(cd "$(dirname "$0")" && pwd)
"$PY" "$HERE/../../../real3/scripts/py1_server.py" --transport streamable-http --port $PORT --tap "$OUT/server_tap.jsonl" >"$OUT/server.log" 2>&1 &
SRV=$!; trap 'kill $SRV' EXIT; sleep 4
C="$OUT/curl_py-mcp-1.30.0__refusals.curl-i.sse"; : >"$C"
post() { curl -sN -i "$U" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' "$@" >>"$C"; }
V=(-H 'mcp-protocol-version: 2025-06-18')
post -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"7.88.1"}}}'
SID=$(grep -i '^mcp-session-id' "$C" | head -1 | tr -d '\r' | awk '{print $2}')
post -H "mcp-session-id: $SID" "${V[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
post -H "mcp-session-id: $SID" "${V[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
post "${V[@]}" -d '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'                      # no session id: 400
post -H "mcp-session-id: 00000000000000000000000000000000" "${V[@]}" -d '{"jsonrpc":"2.0","id":4,"method":"ping"}'   # unknown session: 404
post -H "mcp-session-id: $SID" "${V[@]}" -d '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}'
post -H "mcp-session-id: $SID" "${V[@]}" -d '{"jsonrpc":"2.0","id":6,"method":"ping"}'

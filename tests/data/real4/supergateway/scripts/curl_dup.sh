#!/bin/bash
# Client B of the stateful fault run: raw HTTP with curl, sending two
# tools/call requests with the same id 7 at once in one session (a real
# duplicate_id), each POST (at most 6 s, curl -m 6)'s reply stream saved as ground truth.
# usage: curl_dup.sh URL OUTPREFIX
set -u
URL=$1; O=$2
H=(-m 6 -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
curl -s -D $O.h1.txt "${H[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl-dup","version":"1"}}}' $URL > $O.r1.txt
SID=$(grep -i '^mcp-session-id:' $O.h1.txt | tr -d '\r' | awk '{print $2}')
S=(-H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-06-18')
curl -s "${H[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' $URL > $O.r2.txt
curl -s "${H[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":2}}}' $URL > $O.r3.txt & C1=$!
sleep 0.2
curl -s "${H[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":1,"b":2}}}' $URL > $O.r4.txt & C2=$!
wait $C1 $C2
curl -s "${H[@]}" "${S[@]}" -d '{"jsonrpc":"2.0","id":8,"method":"ping"}' $URL > $O.r5.txt
echo "session $SID" > $O.sid.txt

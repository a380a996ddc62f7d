#!/bin/bash
# run_http.sh NAME NCLIENTS : server-everything streamableHttp on :3101, mcpsnoop
# http proxy on :7101 in front of it, NCLIENTS clients at once through the proxy.
# Needs: MCPSNOOP (the built binary), SE (server-everything's dist/index.js),
# CLIENT (client.mjs placed next to node_modules), OUT (output folder).
set -e
name=$1; n=${2:-1}
export MCPSNOOP_HOME=$OUT/home-$name
rm -rf "$MCPSNOOP_HOME"; mkdir -p "$MCPSNOOP_HOME"
PORT=3101 node "$SE" streamableHttp > "$OUT/$name.server.err" 2>&1 &
srv=$!
"$MCPSNOOP" http --target http://127.0.0.1:3101/mcp --listen 127.0.0.1:7101 --label everything-http > "$OUT/$name.snoop.err" 2>&1 &
snoop=$!
sleep 2
pids=()
for i in $(seq 1 "$n"); do
  node "$CLIENT" http "$OUT/truth_$name.client$i.jsonl" http://127.0.0.1:7101/mcp "c$i" 2>"$OUT/$name.client$i.err" &
  pids+=($!)
  sleep 0.3
done
for p in "${pids[@]}"; do wait "$p"; done
sleep 1
kill -INT "$snoop"; wait "$snoop" || true
kill -INT "$srv"; wait "$srv" || true
cp "$MCPSNOOP_HOME"/sessions/*.jsonl "$OUT/$name.jsonl"

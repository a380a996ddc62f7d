#!/bin/bash
# mcp 2.3.0 MCPServer over stdio (mcp2_server.py --stdio) behind the recording shim, driven by
# fastmcp 4.2.3's Client (StdioTransport, mode auto -> 2026-07-28): MRTR and a listen left open
# (the client exits hard). The capture is the shim's .txt.
set -u
cd "$(dirname "$0")/.."
T=truth/mcp2_stdio; rm -f $T.*
./venv-fmcp/bin/python scripts/fmcp_stdio_client.py --hold-listen ${HOLD:-1} -- \
  python3 $PWD/scripts/shim.py $PWD/$T.shim -- $PWD/venv-fmcp/bin/python $PWD/scripts/mcp2_server.py --stdio \
  2> $T.client_stderr.txt | tee $T.client_stdout.txt
sleep 1
ls -la $T.shim.txt

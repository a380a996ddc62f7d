#!/bin/bash
# child for mcp-proxy server mode (its argparse eats a second --): server-everything stdio inside the shim
exec /tmp/unseen/venv/bin/python /tmp/unseen/scripts/shim.py "$1" -- node /tmp/unseen/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio

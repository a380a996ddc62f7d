#!/bin/bash
# The stdio server behind a proxy: py1_server.py (stdio) inside the recording shim.
# $1 = shim prefix. (A wrapper because the proxies' argument parsers eat a second `--`.)
D="$(cd "$(dirname "$0")/.." && pwd)"
exec python3 "$D/scripts/shim.py" "$1" -- "$D/venv-py1/bin/python" "$D/scripts/py1_server.py" --transport stdio

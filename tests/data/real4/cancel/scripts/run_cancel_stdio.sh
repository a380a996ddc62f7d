#!/bin/bash
# fastmcp 4.2.3 stdio server (fmcp_stdio_cancel_server.py) behind the recording shim,
# driven by raw 2026-07-28 lines from cancel_stdio_driver.py. The capture is the shim's .txt.
set -u
cd "$(dirname "$0")/.."
T=truth/cancel_stdio; rm -f $T.*
./venv-fmcp/bin/python scripts/cancel_stdio_driver.py $T.driver.jsonl -- \
  python3 scripts/shim.py $T.shim -- ./venv-fmcp/bin/python scripts/fmcp_stdio_cancel_server.py | tee $T.driver_stdout.txt

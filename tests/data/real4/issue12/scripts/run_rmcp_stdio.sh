#!/bin/bash
# rmcp 3.11.0 stdio demo server (rmcp-demo/, release build) behind the recording shim,
# driven by raw lines from stdio_driver.py. The capture is the shim's .txt.
set -u
cd "$(dirname "$0")/.."
T=truth/rmcp_stdio; rm -f $T.*
BIN=${CARGO_TARGET_DIR:-$PWD/target-rmcp}/release/rmcp-capture-demo
RUST_LOG=${RUST_LOG:-debug} ./venv-py1/bin/python scripts/stdio_driver.py $T.driver.jsonl -- \
  python3 scripts/shim.py $T.shim -- $BIN | tee $T.driver_stdout.txt

"""Runs the mcp-recorder 0.5.0 CLI with its uvicorn listener on 127.0.0.1.

`mcp-recorder record` calls uvicorn.run(app, host="0.0.0.0", ...); this
wrapper only replaces that host by 127.0.0.1 (loopback only) and then runs
the real CLI entry point unchanged: python rec_loopback.py record ...
"""
import sys

import uvicorn

_run = uvicorn.run


def run_loopback(app, **kw):
    kw["host"] = "127.0.0.1"
    return _run(app, **kw)


uvicorn.run = run_loopback

from mcp_recorder.cli import main  # noqa: E402

sys.argv[0] = "mcp-recorder"
main()

"""Copy the remote-cancel logs out of truth/ with local absolute paths replaced by ./ (the only edit).

python3 scripts/build_captures_cancel.py  (from the scratch folder; writes out/)
"""
REPL = ["/work/cap-scratch/node/", "/work/cap-scratch/"]
FILES = {"http.debug_file.raw.log": "x_stdio_mcp-remote-stream-cancel.debug-file.log",
         "sse.debug_file.raw.log": "x_stdio_mcp-remote-sse-cancel.debug-file.log",
         "http.bridge_shim.stderr.raw": "x_stdio_mcp-remote-stream-cancel.debug-stderr.log",
         "sse.bridge_shim.stderr.raw": "x_stdio_mcp-remote-sse-cancel.debug-stderr.log"}
for src, dst in FILES.items():
    t = open("truth/" + src, encoding="utf-8").read()
    for r in REPL:
        t = t.replace(r, "./")
    assert "/work/" not in t and "/root/" not in t, dst
    open("out/" + dst, "w", encoding="utf-8").write(t)
    print(dst, len(t))

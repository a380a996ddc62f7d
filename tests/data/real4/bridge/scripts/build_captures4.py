"""Copy the set-4 logs out of truth/ with local absolute paths replaced by ./ (the only edit)."""
import shutil
REPL = ["/work/cap-bridge/venv-py1/lib/python3.11/site-packages/", "/root/.pyenv/versions/3.11.7/lib/python3.11/",
        "/work/cap-bridge/node/", "/work/cap-bridge/"]
FILES = {"rsse.debug_file.raw.log": "rsse.debug_file.log", "rsse.bridge_shim.stderr.raw": "rsse.bridge_stderr.log",
         "pysse.proxy_shim.stderr.raw": "pysse.proxy_stderr.log", "pyserver.proxy_stderr.raw": "pyserver.proxy_stderr.log",
         "npmhttp.proxy_stdout.raw": "npmhttp.proxy_stdout.log", "npmsse.proxy_stdout.raw": "npmsse.proxy_stdout.log"}
for src, dst in FILES.items():
    t = open("truth/" + src, encoding="utf-8").read()
    for r in REPL:
        t = t.replace(r, "./")
    open("out/" + dst, "w", encoding="utf-8").write(t)
    print(dst, len(t))

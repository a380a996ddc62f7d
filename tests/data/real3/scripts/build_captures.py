"""Copy the bridges' logs out of truth/ into the capture files, with the only edit
allowed: local absolute paths replaced by ./ ."""
import glob, re, shutil

NL = b"\n"
REPL = [
    "/work/captures/venv-py1/lib/python3.11/site-packages/",
    "/root/.pyenv/versions/3.11.7/lib/python3.11/",
    "/work/captures/tmp/mcp-remote-cfg.debug/",
    "/work/captures/tmp/mcp-remote-cfg.plain/",
    "/work/captures/node/",
    "/work/captures/",
]


def clean(b: bytes) -> bytes:
    s = b.decode("utf-8")
    for p in REPL:
        s = s.replace(p, "./")
    return s.encode("utf-8")


def build(src, dst):
    data = clean(open(src, "rb").read())
    open(dst, "wb").write(data)
    left = re.findall(rb"(/work/|/root/|/home/)\S*", data)
    print(f"{dst}: {len(data)} bytes, {data.count(NL)} lines, paths left: {left[:3]}")


build("truth/sg_sse2stdio.gw_shim.stderr.raw", "x_stdio_supergateway-sse-to-stdio.log")
build("truth/mcp-remote.plain.bridge_shim.stderr.raw", "x_stdio_mcp-remote.stderr.log")
build("truth/mcp-remote.debug.bridge_shim.stderr.raw", "truth/mcp-remote.debug.bridge_stderr.paths-replaced.log")
dbg = glob.glob("tmp/mcp-remote-cfg.debug/mcp-remote-v1/*_debug.log")[0]
shutil.copy(dbg, "truth/mcp-remote.debug.debug_file.raw.log")
build(dbg, "x_stdio_mcp-remote.debug-file.log")
build("truth/mcp-proxy.proxy_shim.stderr.raw", "x_stdio_mcp-proxy.debug.log")

"""Raw 2026-07-28 stdio driver for the answered_after_cancel capture (client side).

python cancel_stdio_driver.py LOG -- COMMAND ARGS...

Starts COMMAND (python3 shim.py PREFIX -- SERVER), writes the lines below to its stdin
and logs every line sent and read, as JSON lines in LOG: {"ts" (µs UTC), "dir":
"sent"|"got", "line"}. Every request carries the 2026-07-28 _meta
(protocolVersion, clientInfo, clientCapabilities). Sequence:
  1 server/discover id 1                      (wait for its answer)
  2 tools/call sleep_async {ms 600} id 2, 150 ms later notifications/cancelled{requestId 2}
  3 tools/call sleep_blocking {ms 600} id 3, 150 ms later notifications/cancelled{requestId 3}
  (each followed by a 1.2 s wait, so that a reply after the cancel shows)
  4 tools/call add {a 2, b 3} id 4            (wait for its answer)
then stdin is closed and the child waited for.
"""
import datetime, json, subprocess, sys, threading, time

log = open(sys.argv[1], "w", buffering=1)
cmd = sys.argv[sys.argv.index("--") + 1:]
# --mcp2 (before --): the mcp 2.3.0 MCPServer demo has no sleep tools; ids 2 and 3 call
# count_with_progress {steps 12} (50 ms a step, 600 ms) instead.
MCP2 = "--mcp2" in sys.argv[:sys.argv.index("--")]
lock = threading.Lock()
got = []
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "h12-cancel-driver", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def ts():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def rec(d, line):
    with lock:
        log.write(json.dumps({"ts": ts(), "dir": d, "line": line}) + "\n")


p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)


def reader():
    for raw in p.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        rec("got", line)
        with lock:
            got.append(line)
        print("got ", line[:150], flush=True)


threading.Thread(target=reader, daemon=True).start()


def send(o):
    line = json.dumps(o, separators=(",", ":"))
    rec("sent", line)
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    print("sent", line[:150], flush=True)


def req(i, method, params=None):
    q = dict(params or {})
    q["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": q}


def wait_for(n, limit=10.0):
    t = time.time() + limit
    while time.time() < t:
        with lock:
            if len(got) >= n:
                return
        time.sleep(0.01)


send(req(1, "server/discover"))
wait_for(1)
for i, tool in ((2, "sleep_async"), (3, "sleep_blocking")):
    args = {"ms": 600}
    if MCP2:
        tool, args = "count_with_progress", {"steps": 12}
    send(req(i, "tools/call", {"name": tool, "arguments": args}))
    time.sleep(0.15)
    send({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": i, "reason": "driver cancels after 150 ms"}})
    time.sleep(1.2)
n = len(got)
send(req(4, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}))
wait_for(n + 1)
time.sleep(0.3)
p.stdin.close()
p.wait(timeout=10)
print("exit", p.returncode)

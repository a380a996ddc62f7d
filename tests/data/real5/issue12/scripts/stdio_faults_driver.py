"""Raw stdio driver, 2026-07-28 faults (real5; client side). Structure of stdio_driver.py (real4).

python stdio_faults_driver.py LOG -- COMMAND ARGS...

Every request carries the 2026-07-28 _meta envelope (META below) unless a step says otherwise.
Sequence (ids as sent):
  1 server/discover id 1            2 [tools/call add id 2]       3 [tools/call add id 3, tools/call add id 4]
  4 []                              5 notifications/cancelled{requestId 99} (well-formed, with _meta)
  6 notifications/cancelled with params "bad" (malformed)
  7 notifications/cap12/custom without _meta   8 {"jsonrpc":"2.0","method":"ping"} (no id, no _meta)
  9 tools/call count_with_progress id 5, progressToken "tok-5", 3 steps
 10 notifications/progress (client->server) token "tok-zz" no request named
 11 tools/call count_with_progress id 6, progressToken "tok-6", 20 steps; 150 ms later
 12 notifications/cancelled{requestId 6}
 13 tools/call add id 7 whose _meta names revision 2099-01-01
 14 tools/call add id 8 without any _meta (a 2025-shaped request on a 2026 connection)
 15 tools/call add id 9 (plain)
then stdin is closed and the child waited for.
"""
import datetime, json, subprocess, sys, threading, time

log = open(sys.argv[1], "w", buffering=1)
cmd = sys.argv[sys.argv.index("--") + 1:]
lock = threading.Lock()
got = []


def ts():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def rec(d, line):
    with lock:
        log.write(json.dumps({"ts": ts(), "dir": d, "line": line}) + "\n")


def j(o):
    return json.dumps(o, separators=(",", ":"))


p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)


def reader():
    for raw in iter(p.stdout.readline, b""):
        line = raw.decode("utf-8", "replace").rstrip("\n")
        rec("got", line)
        with lock:
            got.append(line)


threading.Thread(target=reader, daemon=True).start()

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "cap12-stdio-faults", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def rq(i, method, params=None, meta=META):
    p = dict(params or {})
    if meta is not None:
        p["_meta"] = {**meta, **p.get("_meta", {})}
    o = {"jsonrpc": "2.0", "id": i, "method": method}
    if p:
        o["params"] = p
    return o


def add(i, a, b, meta=META):
    return rq(i, "tools/call", {"name": "add", "arguments": {"a": a, "b": b}}, meta)


def cwp(i, steps, tok):
    return rq(i, "tools/call", {"name": "count_with_progress", "arguments": {"steps": steps}, "_meta": {"progressToken": tok}})


SEQ = [  # (line, replies expected (None: just wait), wait seconds)
    (j(rq(1, "server/discover")), 1, 10),
    (j([add(2, 1, 2)]), None, 0.5),
    (j([add(3, 3, 4), add(4, 5, 6)]), None, 0.5),
    ("[]", None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99, "reason": "never sent", "_meta": META}}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "bad"}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/cap12/custom"}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "ping"}), None, 0.5),
    (j(cwp(5, 3, "tok-5")), None, 0.8),
    (j({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok-zz", "progress": 1, "_meta": META}}), None, 0.5),
    (j(cwp(6, 20, "tok-6")), None, 0.15),
    (j({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6, "reason": "user gave up", "_meta": META}}), None, 1.5),
    (j(add(7, 7, 8, {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"})), None, 0.5),
    (j(add(8, 8, 9, None)), None, 0.5),
    (j(add(9, 9, 10)), None, 0.5),
]
for line, want, wait in SEQ:
    with lock:
        base = len(got)
    rec("sent", line)
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    end = time.monotonic() + wait
    while time.monotonic() < end:
        with lock:
            if want is not None and len(got) - base >= want:
                break
        time.sleep(0.01)
time.sleep(0.3)
p.stdin.close()
rc = p.wait(timeout=10)
rec("exit", str(rc))
print("replies:", len(got), "rc", rc)
for g in got:
    print("  ", g[:200])

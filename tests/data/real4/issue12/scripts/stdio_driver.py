"""Raw stdio driver for the issue-12 captures (client side).

python stdio_driver.py LOG -- COMMAND ARGS...

Starts COMMAND (here: python3 shim.py PREFIX -- SERVER), writes the fixed lines
below to its stdin one at a time and, after each, waits WAIT seconds (or until
the expected number of replies came) while a reader thread collects stdout lines.
LOG gets one JSON line per event: {"ts" (µs UTC), "dir": "sent"|"got", "line"}.
The shim's own PREFIX.txt / PREFIX.jsonl are the capture; this log is the driver's
record of the same bytes. Sequence (ids as sent; protocol offered 2025-03-26):
  1 initialize id 0                       2 notifications/initialized
  3 [tools/call add id 1, tools/list id 2]           (well-formed 2-request batch)
  4 [notifications/roots/list_changed, notifications/cancelled{requestId 1}] (notifications only)
  5 []
  6 notifications/cancelled with no requestId (a single notification a server may answer)
  7 notifications/cap12/custom (unknown notification method)
  8 tools/call count_with_progress id 3, progressToken "tok-3", 3 steps
  9 ping id 4
 10 notifications/progress with progress "half" (a string: a malformed notification)
 11 notifications/initialized with params "bad"     12 {"jsonrpc":"2.0","method":"ping"} (no id)
 13 tools/call slow_echo id 5 (400 ms), then 100 ms later 14 notifications/cancelled{requestId 5}
 15 ping id 6
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

SEQ = [  # (line, replies expected (None: just wait), wait seconds)
    (j({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26",
        "capabilities": {"roots": {"listChanged": True}}, "clientInfo": {"name": "cap12-stdio-driver", "version": "0.1.0"}}}), 1, 10),
    (j({"jsonrpc": "2.0", "method": "notifications/initialized"}), None, 0.3),
    (j([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]), None, 0.5),
    (j([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "already done"}}]), None, 0.5),
    ("[]", None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"reason": "no requestId"}}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/cap12/custom", "params": {"x": 1}}), None, 0.5),
    (j({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "count_with_progress", "arguments": {"steps": 3},
        "_meta": {"progressToken": "tok-3"}}}), None, 0.8),
    (j({"jsonrpc": "2.0", "id": 4, "method": "ping"}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok-3", "progress": "half"}}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "notifications/initialized", "params": "bad"}), None, 0.5),
    (j({"jsonrpc": "2.0", "method": "ping"}), None, 0.5),
    (j({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "slow_echo", "arguments": {"text": "cancel me", "delay_ms": 400}}}), None, 0.1),
    (j({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "user gave up"}}), None, 0.8),
    (j({"jsonrpc": "2.0", "id": 6, "method": "ping"}), None, 0.5),
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

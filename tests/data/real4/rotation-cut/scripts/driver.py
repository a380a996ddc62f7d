#!/usr/bin/env python3
"""Drives a real MCP stdio session through proxy.py whose log goes through
a pipe (through GNU sed, whose stdio writes 4096-byte blocks) to Apache's
rotatelogs with a size limit: rotatelogs starts a new file when the
current one passes the limit, at whatever byte a block ends, so a file
begins inside a line.
Ground truth: what the client sent and received, in order, with its clock
(truth/driver_truth.jsonl); the log bytes as rotatelogs wrote them, echoed
by its -e (truth/unrotated.log); its -v messages (truth/rotatelogs.err)."""
import json, os, subprocess, sys, threading, time, datetime

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
TRUTH = os.path.join(OUT, "truth")
FIFO = os.path.join(OUT, "proxy.fifo")
SIZE = os.environ.get("ROTATE_SIZE", "24K")
SERVER = [os.environ.get("NODE", "node"), os.environ["EVERYTHING"]]
truth = open(os.path.join(TRUTH, "driver_truth.jsonl"), "w")
if not os.path.exists(FIFO):
    os.mkfifo(FIFO)
# The proxy's log lines go through a C program whose stdout is a pipe
# (GNU sed, glibc stdio fully buffered in 4096-byte blocks, stated with
# stdbuf): its writes end at block boundaries, not at line ends, as any
# stdio program's log on a pipe does. rotatelogs reads them and starts a
# new file, named with the UTC time it opens it, once the current one
# passes the size limit.
rot = subprocess.Popen(
    ["rotatelogs", "-v", "-e", os.path.join(OUT, "proxy.log-%Y%m%d%H%M%S"), SIZE],
    stdin=subprocess.PIPE,
    stdout=open(os.path.join(TRUTH, "unrotated.log"), "wb"),
    stderr=open(os.path.join(TRUTH, "rotatelogs.err"), "wb"))
sed = subprocess.Popen(["stdbuf", "-o4096", "sed", "", FIFO], stdout=rot.stdin)
rot.stdin.close()
p = subprocess.Popen([sys.executable, os.path.join(HERE, "proxy.py")] + SERVER,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ, MCP_LOG=FIFO), bufsize=0)
responses = {}
cv = threading.Condition()

def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")

def note(d, m):
    truth.write(json.dumps({"t": now(), "dir": d, "msg": m}) + "\n"); truth.flush()

def reader():
    for line in p.stdout:
        m = json.loads(line)
        note("received", m)
        if "id" in m and "method" not in m:
            with cv:
                responses[m["id"]] = m; cv.notify_all()

threading.Thread(target=reader, daemon=True).start()

def send(m):
    note("sent", m)
    p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()

def call(i, method, params=None, wait=True):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    send(m)
    if wait:
        with cv:
            cv.wait_for(lambda: i in responses, timeout=60)
        return responses.get(i)

init = call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "r16-cut-driver", "version": "1"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
call(2, "tools/list", {})
# A long call pending across the rotation: its request goes to the first
# file, its progress and response to the next.
call(3, "tools/call", {"name": "trigger-long-running-operation", "arguments": {"duration": 3, "steps": 3}, "_meta": {"progressToken": "lr"}}, wait=False)
i = 4
for k in range(120):
    call(i, "tools/call", {"name": "echo", "arguments": {"message": "message %d %s" % (k, "z" * 100)}}); i += 1
    if k % 20 == 19:
        # rotatelogs names files by the second: a pause lets the next
        # file get a name of its own (in one second it reopens the same).
        time.sleep(0.6)
with cv:
    cv.wait_for(lambda: 3 in responses, timeout=30)
call(i, "tools/call", {"name": "get-sum", "arguments": {"a": 2, "b": 3}}); i += 1
p.stdin.close()
p.wait(timeout=10)
sed.wait(timeout=10)
rot.wait(timeout=10)
os.unlink(FIFO)
print("sent", i - 1, "requests; long call answered:", 3 in responses, file=sys.stderr)

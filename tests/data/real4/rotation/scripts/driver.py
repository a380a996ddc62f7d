#!/usr/bin/env python3
"""Drives a real MCP stdio session through proxy.py and rotates the log
with logrotate (copytruncate) while a long tool call is pending. Ground
truth (what the client sent and received, in order, with its clock) goes
to driver_truth.jsonl."""
import json, os, subprocess, sys, threading, time, datetime

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "proxy.log")
SERVER = [os.environ.get("NODE", "node"), os.environ["EVERYTHING"]]
truth = open(os.path.join(HERE, "driver_truth.jsonl"), "w")
p = subprocess.Popen([sys.executable, os.path.join(HERE, "proxy.py")] + SERVER,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ, MCP_LOG=LOG), bufsize=0)
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

init = call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "r16-driver", "version": "1"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
tools = call(2, "tools/list", {})
names = [t["name"] for t in tools["result"]["tools"]]
print("server", init["result"]["serverInfo"], file=sys.stderr)
print("tools", names, file=sys.stderr)
if len(sys.argv) > 1 and sys.argv[1] == "--list":
    sys.exit(0)
# A long call pending across the rotation: its request goes to the old
# file, its response (and progress) to the new one.
call(3, "tools/call", {"name": "trigger-long-running-operation", "arguments": {"duration": 3, "steps": 3}, "_meta": {"progressToken": "lr"}}, wait=False)
i = 4
for k in range(60):
    call(i, "tools/call", {"name": "echo", "arguments": {"message": "before rotation %d %s" % (k, "x" * 100)}}); i += 1
time.sleep(0.5)
conf = os.path.join(HERE, "logrotate.conf")
open(conf, "w").write(LOG + " {\n  copytruncate\n  rotate 3\n  missingok\n  nocompress\n}\n")
r = subprocess.run(["logrotate", "-f", "-s", os.path.join(HERE, "logrotate.state"), conf], capture_output=True, text=True)
note("rotated", {"logrotate_rc": r.returncode})
for k in range(60):
    call(i, "tools/call", {"name": "echo", "arguments": {"message": "after rotation %d %s" % (k, "y" * 100)}}); i += 1
with cv:
    cv.wait_for(lambda: 3 in responses, timeout=30)
call(i, "tools/call", {"name": "get-sum", "arguments": {"a": 2, "b": 3}}); i += 1
p.stdin.close()
p.wait(timeout=10)
print("sent", i - 1, "requests; long call answered:", 3 in responses, file=sys.stderr)

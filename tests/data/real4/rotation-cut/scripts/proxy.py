#!/usr/bin/env python3
"""A logging stdio proxy: runs the server given as arguments, relays the
client's stdin to it and its stdout back, and appends every line to
$MCP_LOG as an NDJSON envelope {"ts","dir","msg"}. The log is written
through Python's default block buffer (8 KiB, no flush per line), as many
loggers do: a copytruncate rotation then cuts the file inside a line."""
import datetime, json, os, subprocess, sys, threading

log = open(os.environ["MCP_LOG"], "a")  # O_APPEND, block-buffered
lock = threading.Lock()

def record(direction, line):
    ts = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")
    try:
        msg = json.loads(line)
    except ValueError:
        return
    with lock:
        log.write(json.dumps({"ts": ts, "dir": direction, "msg": msg}, separators=(",", ":")) + "\n")

srv = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

def pump_in():
    for line in sys.stdin.buffer:
        record("c2s", line)
        srv.stdin.write(line)
        srv.stdin.flush()
    srv.stdin.close()

threading.Thread(target=pump_in, daemon=True).start()
for line in srv.stdout:
    record("s2c", line)
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
with lock:
    log.close()

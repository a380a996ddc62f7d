"""Recording stdio shim.

python3 shim.py PREFIX -- COMMAND ARGS...

Starts COMMAND, forwards stdin/stdout/stderr byte for byte (line by line),
stamps each line on arrival (UTC, ms) and writes
  PREFIX.jsonl : {"ts","dir","msg"} envelopes, msg = the wire line verbatim
  PREFIX.txt   : TS [STDIN]/[STDOUT]/[STDERR] line
  PREFIX.stdin.raw / .stdout.raw / .stderr.raw : each stream's bytes exactly as written
"""
import datetime, json, os, subprocess, sys, threading

i = sys.argv.index("--")
prefix = sys.argv[1]
cmd = sys.argv[i + 1:]
lock = threading.Lock()
fj = open(prefix + ".jsonl", "a", buffering=1)
ft = open(prefix + ".txt", "a", buffering=1)
raw = {d: open(f"{prefix}.{d.lower()}.raw", "ab", buffering=0) for d in ("STDIN", "STDOUT", "STDERR")}


def rec(d, line):
    ts = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    text = line.decode("utf-8", "replace").rstrip("\n")
    with lock:
        raw[d].write(line)
        fj.write(json.dumps({"ts": ts, "dir": d, "msg": text}) + "\n")
        ft.write(f"{ts} [{d}] {text}\n")


p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)


def pump(src, dst, d, close=False):
    try:
        for line in iter(src.readline, b""):
            rec(d, line)
            dst.write(line)
            dst.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass
    if close:
        try:
            dst.close()
        except Exception:
            pass


tin = threading.Thread(target=pump, args=(sys.stdin.buffer, p.stdin, "STDIN", True), daemon=True)
tout = threading.Thread(target=pump, args=(p.stdout, sys.stdout.buffer, "STDOUT"))
terr = threading.Thread(target=pump, args=(p.stderr, sys.stderr.buffer, "STDERR"))
for t in (tin, tout, terr):
    t.start()
rc = p.wait()
tout.join(); terr.join()
sys.exit(rc)

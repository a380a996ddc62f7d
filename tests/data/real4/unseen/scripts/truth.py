"""Count a sending-side tap: TS tap (send/recv), py tap (c2s/s2c) or shim jsonl (STDIN/STDOUT).
python truth.py FILE [--local-is-client]  -> counts, pairs, latencies (ms), unanswered ids."""
import json, sys, datetime
def ts(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
DIRS = {"send": "c2s", "recv": "s2c", "c2s": "c2s", "s2c": "s2c", "STDIN": "c2s", "STDOUT": "s2c"}
def main(path):
    msgs = []
    for l in open(path):
        e = json.loads(l)
        d = DIRS.get(e["dir"])
        if not d: continue
        m = e["msg"]
        if isinstance(m, str):
            try: m = json.loads(m)
            except Exception: continue
        for o in (m if isinstance(m, list) else [m]):
            msgs.append((ts(e["ts"]), d, o))
    c = {d: dict(req=0, notif=0, resp=0, err=0) for d in ("c2s", "s2c")}
    pend = {}; pairs = []; meth = {}
    for t, d, o in msgs:
        if "method" in o and "id" in o:
            c[d]["req"] += 1; pend[(d, json.dumps(o["id"]))] = (t, o["method"])
        elif "method" in o: c[d]["notif"] += 1
        else:
            c[d]["err" if "error" in o else "resp"] += 1
            other = "s2c" if d == "c2s" else "c2s"
            k = (other, json.dumps(o.get("id")))
            if k in pend:
                t0, mth = pend.pop(k); pairs.append((other, k[1], mth, (t - t0).total_seconds() * 1000, "error" in o))
    f = lambda d: "{req}/{notif}/{resp}/{err}".format(**c[d])
    print(f"counts c2s {f('c2s')} | s2c {f('s2c')}")
    print(f"messages {len(msgs)}; requests {c['c2s']['req']+c['s2c']['req']} notifications {c['c2s']['notif']+c['s2c']['notif']} responses {sum(c[d]['resp']+c[d]['err'] for d in c)}")
    print(f"pairs {len(pairs)}; unanswered {[(d, i, m) for (d, i), (t, m) in pend.items()]}")
    print("latency ms: " + " ".join(f"{'S' if d=='s2c' else ''}{i}:{lat:.1f}{'!' if err else ''}" for d, i, m, lat in [(p[0], p[1], p[2], p[3]) for p in pairs] for err in [False]))
    print("errors: " + " ".join(f"{p[1]}" for p in pairs if p[4]))
    if msgs: print(f"span {msgs[0][0].isoformat()} .. {msgs[-1][0].isoformat()} ({(msgs[-1][0]-msgs[0][0]).total_seconds():.3f} s)")
if __name__ == "__main__": main(sys.argv[1])

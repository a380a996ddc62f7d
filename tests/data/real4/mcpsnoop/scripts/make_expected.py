#!/usr/bin/env python3
"""Facts of one mcpsnoop capture from the client taps (truth/) and an
independent reading of the capture, written as CAPTURE.expected.json.

usage: make_expected.py CAPTURE TRUTH... (one truth file per client)
Each capture message is matched to the tap message it equals (same JSON);
a message equal in several taps goes to the client its connection (conn_id)
was matched to, else to the tap whose copy is nearest in time. Asserts every tap message is in the capture once. Latency:
the capture's ts of the reply minus that of the request, per client."""
import json, sys, statistics
from collections import Counter, defaultdict
from datetime import datetime

cap, truths = sys.argv[1], sys.argv[2:]
canon = lambda m: json.dumps(m, sort_keys=True, separators=(",", ":"))
def kind(m):
    if "method" in m: return "request" if "id" in m else "notification"
    return "response"
def us(ts):
    d, frac = ts.rstrip("Z").split(".")
    frac = frac.split("+")[0]
    return int(datetime.fromisoformat(d + "+00:00").timestamp()) * 1_000_000 + int((frac + "000000")[:6])

taps = []  # per client: Counter of (dir, canon)
when = defaultdict(list)  # (dir, canon) -> [(client, µs)]
for i, t in enumerate(truths):
    c = Counter()
    for l in open(t):
        r = json.loads(l)
        k = ("c2s" if r["dir"] == "send" else "s2c", canon(r["msg"]))
        c[k] += 1
        when[k].append((i, us(r["ts"])))
    taps.append(c)
lines = [json.loads(l) for l in open(cap)]
msgs = [(n, e) for n, e in enumerate(lines, 1) if e["direction"] in ("c2s", "s2c") and isinstance(e.get("raw"), dict)]
owner = {}
conn_of = {}
left = [Counter(c) for c in taps]
for n, e in msgs:
    k = (e["direction"], canon(e["raw"]))
    who = [i for i, c in enumerate(left) if c[k] > 0]
    if len(who) == 1:
        owner[n] = who[0]; left[who[0]][k] -= 1
        conn_of.setdefault(e.get("conn_id"), who[0])
for n, e in msgs:
    if n in owner: continue
    k = (e["direction"], canon(e["raw"]))
    i = conn_of.get(e.get("conn_id"))
    if i is None:
        i = min((abs(t - us(e["ts"])), j) for j, t in when[k] if left[j][k] > 0)[1]
        conn_of[e.get("conn_id")] = i
    assert left[i][k] > 0, (n, k)
    owner[n] = i; left[i][k] -= 1
assert all(sum(c.values()) == 0 for c in left), "tap messages missing from the capture"
counts = Counter(kind(e["raw"]) for _, e in msgs)
pend = defaultdict(dict)
pairs, lat, resp_pos = [], [], 0
for n, e in msgs:
    m, i, d = e["raw"], owner[n], e["direction"]
    if kind(m) == "request":
        pend[(i, d)][canon(m["id"])] = (m["id"], us(e["ts"]))
    elif kind(m) == "response":
        q = pend[(i, "s2c" if d == "c2s" else "c2s")].pop(canon(m["id"]))
        pairs.append([q[0], resp_pos])
        lat.append([q[0], resp_pos, round((us(e["ts"]) - q[1]) / 1000, 3)])
        resp_pos += 1
assert not any(pend.values())
med = statistics.median(x[2] for x in lat)
slow = [x for x in lat if x[2] >= 1000 and x[2] >= 10 * med]
print(f"{cap}: {dict(counts)} clients={len(truths)} median={med} slow={slow}", file=sys.stderr)
json.dump({"counts": {"requests": counts["request"], "notifications": counts["notification"],
                      "responses": counts["response"], "batches": 0, "sessions": len(truths)},
           "pairs": pairs, "latency_ms": lat, "slow": slow}, sys.stdout, indent=1)

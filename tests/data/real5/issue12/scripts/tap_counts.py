"""Counts from a raw driver's client tap (ground truth): requests, notifications, responses (JSON-RPC
objects in request and response bodies, SSE data lines included), JSON arrays, and the ids answered.
python tap_counts.py TAP.jsonl"""
import json, sys


def objs(text, ctype):
    out, arrays = [], 0
    if not text:
        return out, arrays
    chunks = []
    if "event-stream" in (ctype or ""):
        for ev in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(l[5:].lstrip(" ") for l in ev.split("\n") if l.startswith("data:"))
            if data.strip():
                chunks.append(data)
    else:
        chunks.append(text)
    for c in chunks:
        try:
            v = json.loads(c)
        except ValueError:
            continue
        if isinstance(v, list):
            arrays += 1
            out += [x for x in v if isinstance(x, dict)]
        elif isinstance(v, dict):
            out.append(v)
    return out, arrays


req = notif = resp = arrays = 0
answered = []
for l in open(sys.argv[1]):
    o = json.loads(l)
    a, n = objs(o.get("req_body") or "", "application/json")
    b, m = objs(o.get("resp_body") or "", o.get("resp_headers", {}).get("content-type"))
    arrays += n + m
    for x in a + b:
        if "method" in x and "id" in x:
            req += 1
        elif "method" in x:
            notif += 1
        else:
            resp += 1
            answered.append(x.get("id", "<absent>"))
print(json.dumps({"requests": req, "notifications": notif, "responses": resp, "batches": arrays, "answered_ids": answered}))

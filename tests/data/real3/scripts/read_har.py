"""Read a mitmproxy HAR the way DESIGN rule 4 orders it (request bodies at
startedDateTime, response bodies and their SSE events at startedDateTime+time,
ties by entry index, request before response) and list the messages, pairs,
HAR latencies and which entries closed at the headers (timings.receive 0)."""
import datetime, json, sys


def sse_events(text):
    out = []
    for ev in text.replace("\r\n", "\n").split("\n\n"):
        dl = [x[6:] if x.startswith("data: ") else x[5:] for x in ev.split("\n") if x.startswith("data:")]
        if dl and "".join(dl).strip():
            out.append("\n".join(dl))
    return out


h = json.load(open(sys.argv[1]))
items = []
for i, e in enumerate(h["log"]["entries"]):
    t0 = datetime.datetime.fromisoformat(e["startedDateTime"])
    t1 = t0 + datetime.timedelta(milliseconds=e["time"])
    sid = next((x["value"] for x in e["request"]["headers"] if x["name"].lower() == "mcp-session-id"), None) or \
        next((x["value"] for x in e["response"]["headers"] if x["name"].lower() == "mcp-session-id"), None)
    pd = (e["request"].get("postData") or {}).get("text")
    if pd:
        items.append((t0, i, 0, "c2s", json.loads(pd), e, sid))
    c = e["response"].get("content", {})
    txt = c.get("text") or ""
    if "event-stream" in c.get("mimeType", ""):
        for k, d in enumerate(sse_events(txt)):
            items.append((t1, i, 1 + k, "s2c", json.loads(d), e, sid))
    elif txt.strip():
        items.append((t1, i, 1, "s2c", json.loads(txt), e, sid))
items.sort(key=lambda x: (x[0], x[1], x[2]))
pending = {}; pos = 0; pairs = []; lat = []
cnt = {"requests": 0, "notifications": 0, "responses": 0}
sess = set()
for t, i, k, d, m, e, sid in items:
    sess.add(sid)
    if "method" in m and "id" in m:
        cnt["requests"] += 1; pending[(d, json.dumps(m["id"]))] = (t, i, m["method"], e)
    elif "method" in m:
        cnt["notifications"] += 1
    else:
        cnt["responses"] += 1
        other = "s2c" if d == "c2s" else "c2s"
        key = (other, json.dumps(m.get("id")))
        if key in pending:
            rt, ri, meth, re_ = pending.pop(key)
            if ri == i:
                l = round(e["time"], 3)
                lat_v = None if e["timings"]["receive"] == 0 else l
                note = "receive0" if e["timings"]["receive"] == 0 else ""
            else:
                lat_v = None; note = "separate-entries"
            pairs.append([m.get("id"), pos]); lat.append([m.get("id"), pos, lat_v, meth, note, i, ri])
        pos += 1
print(cnt, "sessions", sess)
for x in lat:
    print(x)
print("unpaired", list(pending))
print("receive0 entries", [(i, e["request"]["method"], round(e["time"], 1)) for i, e in enumerate(h["log"]["entries"]) if e["timings"]["receive"] == 0])

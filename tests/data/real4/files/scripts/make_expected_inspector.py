"""Writes <export>.expected.json for an MCP Inspector protocol-history export
from an independent reading of it, and asserts it agrees with the server's
ASGI tap (the capture's session: the one of the tap's last initialize).

python make_expected_inspector.py EXPORT SERVER_TAP OUT_JSON SUMMARY

Reading (docs/FORMATS.md §9.2): entries and their folded responses, each at
its time (a folded response at timestamp + duration); pairs are the folded
responses in time order; latency the entry's duration.
"""
import datetime, json, sys

src, tap_path, out, summary = sys.argv[1:5]
d = json.load(open(src))
counts = {"requests": 0, "notifications": 0, "responses": 0, "batches": 0, "sessions": 1}
for e in d:
    for m in [e["message"], e.get("response")]:
        if m is None:
            continue
        k = "requests" if "method" in m and "id" in m else "notifications" if "method" in m else "responses"
        counts[k] += 1
t = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() * 1000
resp = sorted((t(e["timestamp"]) + e["duration"], i, e) for i, e in enumerate(d) if e.get("response"))
pairs = [[e["message"]["id"], pos] for pos, (_, _, e) in enumerate(resp)]
lat = [[e["message"]["id"], pos, e["duration"]] for pos, (_, _, e) in enumerate(resp)]
tap = [json.loads(l) for l in open(tap_path)]
sid = {}
for x in tap:
    h = x.get("headers", {})
    if x["kind"] in ("resp_start", "req_start") and "mcp-session-id" in h:
        sid[x["rid"]] = h["mcp-session-id"]
sess = sid[[x for x in tap if x["kind"] == "req_body" and '"initialize"' in x["data"]][-1]["rid"]]
got = [json.loads(x["data"]) for x in tap if x["kind"] == "req_body" and x["data"] and sid.get(x["rid"]) == sess]
sent = []
for x in tap:
    if x["kind"] == "resp_body" and sid.get(x["rid"]) == sess:
        for line in x["data"].split("\r\n"):
            if line.startswith("data: "):
                sent.append(json.loads(line[6:]))
c2s = [(m.get("method"), m.get("id")) for m in got]
# The four list requests on connect go out at once on separate HTTP
# connections: the server may receive them in another order.
key = lambda x: json.dumps(x)
assert sorted(((e["message"].get("method"), e["message"].get("id")) for e in d if e.get("origin") == "client"), key=key) == sorted(c2s, key=key), c2s
s2c_notes = [m.get("method") for m in sent if "method" in m]
assert [e["message"]["method"] for e in d if e.get("origin") == "server"] == s2c_notes, s2c_notes
answered = {m["id"] for m in sent if "method" not in m}
assert {p[0] for p in pairs} == answered
exp = {"source_url": None, "capture": out.rsplit("/", 1)[-1].replace(".expected.json", ""), "summary": summary,
       "format": "MCP Inspector protocol-history export (docs/FORMATS.md §9.2)",
       "facts": {"counts": counts, "pairs": pairs, "latency_ms": lat, "expect_exact": True,
                 "findings": [], "optional_findings": []},
       "notes": f"The export's client messages are the bodies (the four list requests sent at once on connect reached the server in another order) the server's ASGI tap received in session {sess[:8]}…; its server messages are, in order, the notifications the server sent there; every request was answered once. Latencies are the export's duration (ms, the Inspector's own, measured in the browser)."}
json.dump(exp, open(out, "w"), indent=2)
open(out, "a").write("\n")
print(counts, lat)

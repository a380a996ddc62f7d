"""Writes <cassette>.expected.json for the mcp-recorder cassettes from an
independent reading of each cassette, and asserts it agrees with the client
tap (the sending side) of the same run.

python make_expected_cassette.py CASSETTE CLIENT_TAP OUT_JSON MODE

Reading (docs/FORMATS.md §9.1): interactions in file order; a jsonrpc_request
or notification interaction is the POST body (client->server) then the kept
answer (server->client): the JSON body, or for an SSE answer only the first
event. latency_ms is the stated latency of an answer that is the response to
the request. An SSE answer whose kept first event is not the response lost
the rest of its stream: missing_response for that request is a capture gap.
"""
import json, sys

cas_path, tap_path, out_path, mode = sys.argv[1:5]
cas = json.load(open(cas_path))
counts = {"requests": 0, "notifications": 0, "responses": 0}
pairs, lat, findings = [], [], []
pos = 0
for it in cas["interactions"]:
    if it["type"] == "lifecycle":
        continue
    q, r = it["request"], it["response"]
    for m in (q, r):
        if m is None:
            continue
        if "method" in m and "id" in m:
            counts["requests"] += 1
        elif "method" in m:
            counts["notifications"] += 1
        else:
            counts["responses"] += 1
    asked = q is not None and "method" in q and "id" in q
    answered = asked and r is not None and "method" not in r and r.get("id") == q["id"]
    if r is not None and "method" not in r:
        if answered:
            pairs.append([q["id"], pos])
            lat.append([q["id"], pos, it["latency_ms"]])
        pos += 1
    if asked and not answered:
        gap = it["response_is_sse"] and r is not None
        findings.append({"kind": "missing_response", "id": q["id"], "direction": "c2s",
                         "detail": ("capture gap (info): the cassette kept only the first SSE event "
                                    f"({r.get('method')}), not the response" if gap else
                                    "no event at all on its SSE answer: the client tap shows it never got a response (error)")})
        if not gap and it["response_is_sse"]:
            findings.append({"kind": "stream_closed_before_response", "id": q["id"], "direction": "c2s",
                             "detail": "its SSE answer ended without the response (error)"})

# Cross-check with the client tap: every pair in the cassette is a pair the
# client saw, with the same response kind; every request the cassette says
# got no response (error) got none at the client either.
tap = [json.loads(l) for l in open(tap_path)]
c2s_req = {t["msg"]["id"]: t["msg"]["method"] for t in tap if t["dir"] == "c2s" and "method" in t["msg"] and "id" in t["msg"]}
s2c_resp = {t["msg"]["id"]: t["msg"] for t in tap if t["dir"] == "s2c" and "method" not in t["msg"]}
for i, _ in pairs:
    assert i in c2s_req and i in s2c_resp, i
for f in findings:
    if f["kind"] == "missing_response" and "error" in f["detail"]:
        assert f["id"] in c2s_req and f["id"] not in s2c_resp, f
    if "gap" in f["detail"]:
        assert f["id"] in s2c_resp, f  # the client did get it: only the cassette lost it
never = sorted(set(c2s_req) - set(s2c_resp))
in_cas = {it["request"]["id"] for it in cas["interactions"] if it.get("request") and "id" in (it["request"] or {})}
missing_from_cassette = sorted(set(c2s_req) - in_cas)
counts["batches"] = 0
counts["sessions"] = 1
exp = {
    "source_url": None,
    "capture": out_path.rsplit("/", 1)[-1].replace(".expected.json", ""),
    "summary": f"mcp-recorder 0.5.0 `record` cassette ({mode} mode) of the mcp 1.30.0 feature run (client capture-client-py1 over Streamable HTTP to the recorder's proxy); server mcp 1.30.0 FastMCP capture-demo-py1.",
    "format": "mcp-recorder cassette (docs/FORMATS.md §9.1)",
    "facts": {"counts": counts, "pairs": pairs, "latency_ms": lat, "expect_exact": True,
              "findings": findings, "optional_findings": []},
    "notes": (f"Client tap: requests the client never got an answer to: {never}; requests the cassette does not hold: {missing_from_cassette}. "
              "Latencies are the cassette's latency_ms (whole ms, measured by the proxy). Gap findings are severity info."),
}
json.dump(exp, open(out_path, "w"), indent=2)
open(out_path, "a").write("\n")
print(out_path, counts, len(pairs), "pairs", [(f["kind"], f["id"]) for f in findings], "never answered:", never, "not in cassette:", missing_from_cassette)

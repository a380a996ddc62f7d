"""Build the capture files (paths replaced by ./) and their .expected.json from
the gateway logs in truth/, read by read_sg.py, and assert that what each log
shows agrees with the sending sides (child shim, client taps; count.py).

python3 scripts/make_expected.py OUTDIR
"""
import json, os, subprocess, sys
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
import read_sg

OUT = sys.argv[1]
SRC = ("Source: a real capture made by public MCP software on 127.0.0.1 (see README.md in this folder); "
       "facts measured on the sending sides (client taps, the recording stdio shim on the child) and derived under DESIGN.md.")


def counts(tapfmt, path):
    r = subprocess.run([sys.executable, "scripts/count.py", tapfmt, path], capture_output=True, text=True, check=True)
    return r.stdout.split("\n")[0].split(" paired")[0]


def build(mode, cap):
    src = open(f"truth/sg_{mode}.gateway.log", encoding="utf-8").read()
    open(os.path.join(OUT, cap), "w", encoding="utf-8").write(src.replace("/work/cap-sg/", "./"))
    msgs, stateless = read_sg.read(os.path.join(OUT, cap))
    res, unsure = read_sg.attribute(msgs)
    return res, unsure


def tally(res):
    c = Counter()
    for ln, d, s, kind, mid, meth in res:
        if kind == "request":
            c["requests"] += 1
        elif kind == "notification":
            c["notifications"] += 1
        elif kind in ("result", "error"):
            c["responses"] += 1
    return c


def pairing(res):
    """Per session, (requester dir, id) -> response; returns pairs [id, pos], unpaired requests, unknown responses."""
    pend, pairs, unknown, pos = {}, [], [], 0
    for ln, d, s, kind, mid, meth in res:
        if kind == "request":
            pend.setdefault((s, d, json.dumps(mid)), []).append((mid, meth))
        elif kind in ("result", "error"):
            k = (s, "s2c" if d == "c2s" else "c2s", json.dumps(mid))
            if pend.get(k):
                pend[k].pop(0)
                pairs.append([mid, pos])
            else:
                unknown.append((d, mid))
            pos += 1
    return pairs, [(k, v) for k, vs in pend.items() for v in vs], unknown


def write(cap, summary, fmt, res, sessions, findings, notes, optional=()):
    c = tally(res)
    pairs, pend, unknown = pairing(res)
    d = {"source_url": None, "capture": cap, "summary": summary, "format": fmt,
         "facts": {"counts": {"requests": c["requests"], "notifications": c["notifications"],
                              "responses": c["responses"], "batches": 0, "sessions": sessions},
                   "pairs": pairs, "latency_ms": [[i, p, None] for i, p in pairs],
                   "expect_exact": True, "findings": findings, "optional_findings": list(optional)},
         "notes": notes + " " + SRC}
    json.dump(d, open(os.path.join(OUT, cap + ".expected.json"), "w"), indent=2, ensure_ascii=False)
    print(cap, d["facts"]["counts"], "pairs", len(pairs), "unpaired", sorted(pend), "unknown", unknown)
    return pend, unknown


# 1. stdio -> Streamable HTTP, --stateful
cap = "x_stdio_supergateway-streamable-stateful.log"
res, u = build("http-stateful", cap)
assert counts("shim", "truth/sg_http-stateful.child_shim.jsonl") == "24/1/3/0 | 3/14/23/1"
assert counts("client", "truth/sg_http-stateful.client_tap.jsonl") == "24/1/3/0 | 3/14/23/1"
pend, unk = write(cap, "supergateway 4.0.0 `--outputTransport streamableHttp --stateful --logLevel debug` in front of the mcp 1.30.0 FastMCP stdio server (behind a recording shim), driven by the mcp 1.30.0 streamablehttp_client + ClientSession feature run. Its log (stdout+stderr as written): `[supergateway] StreamableHttp → Child: JSON` and `[supergateway] Child → StreamableHttp: JSON`, one line each, no session on either (one child per session; one session here), among SessionAccessCounter lines.",
      "supergateway log, stdio -> Streamable HTTP (stateful), no timestamps", res, 1, [],
      "Pass-through: the log shows every message the child shim recorded (24/1/3/0 | 3/14/23/1, the client tap agrees). No timestamps: latencies empty.")
assert not pend and not unk

# 2. stdio -> Streamable HTTP, stateless (the default)
cap = "x_stdio_supergateway-streamable-stateless.log"
res, u = build("http-stateless", cap)
assert counts("shim", "truth/sg_http-stateless.child_shim.jsonl") == "48/25/0/3 | 3/14/47/1"
assert counts("client", "truth/sg_http-stateless.client_tap.jsonl") == "24/1/0/0 | 0/14/23/1"
pend, unk = write(cap, "supergateway 4.0.0 `--outputTransport streamableHttp --logLevel debug` (stateless, the default) in front of the mcp 1.30.0 FastMCP stdio server (behind a recording shim), driven by the mcp 1.30.0 streamablehttp_client + ClientSession feature run. Every POST gets its own child: the gateway sends it an `initialize` of its own (`StreamableHttp → Child (auto-initialize): JSON`, id `init_…`) and `notifications/initialized` (`(initialized)`) before the client's message, which it logs twice (`StreamableHttp → Child: JSON` when it arrives, `(original): JSON` when it writes it). It answers the child's own requests (sampling, roots, elicitation) itself with -32601 and does not log those answers.",
      "supergateway log, stdio -> Streamable HTTP (stateless), no timestamps", res, 1,
      [{"kind": "missing_response", "id": 0, "direction": "s2c", "severity": "info",
        "detail": "the first child's sampling/createMessage request 0 (line 228): the stateless gateway answered it itself with -32601 (the child shim's stdin has the reply) and logged nothing; a capture gap (the log's lost reply at that line), so severity info"}]
      + [{"kind": "duplicate_id", "id": 0, "direction": "s2c", "severity": "info",
          "detail": f"the {m} request 0 of another child (line {l}; each POST's own child numbers its requests from 0) while the first is still unanswered in the log: the gateway's unlogged answers (lost replies) may have answered the earlier ones, so severity info. Its own missing answer is covered by this finding (DESIGN.md: a duplicate's missing_response is not reported again)"}
         for m, l in [("roots/list", 241), ("elicitation/create", 254)]],
      "The log holds the child-side traffic of all 24 children as one session (no session ids; the gateway initializes do not split it): what the child shim recorded, 48/25/0/3 | 3/14/47/1, except the gateway's 3 unlogged -32601 replies. The client tap (24/1/0/0 | 0/14/23/1) sees none of the child requests and none of the 24 gateway initializes. `(original)` repeats are not counted (the shim shows each message written once). No timestamps: latencies empty.")
assert [k[0][2] for k in pend] == ["0", "0", "0"] and not unk, (pend, unk)

# 3. stdio -> WebSocket
cap = "x_stdio_supergateway-ws.log"
res, u = build("ws", cap)
assert counts("shim", "truth/sg_ws.child_shim.jsonl") == "24/1/3/0 | 3/17/20/1"
assert counts("client", "truth/sg_ws.client_tap.jsonl") == "24/1/3/0 | 3/17/20/1"
cid = next(m[4] for m in res if m[3] == "request").split(":")[0]
pend, unk = write(cap, "supergateway 4.0.0 `--outputTransport ws --logLevel debug` in front of the mcp 1.30.0 FastMCP stdio server (behind a recording shim), driven by the mcp 1.30.0 websocket_client + ClientSession feature run. Its log: `[supergateway] WebSocket → Child: JSON` / `Child → WebSocket: JSON`, one line each, as the child sees them: the gateway rewrites every client message id to `CLIENTID:N` (and back on the way out).",
      "supergateway log, stdio -> WebSocket, no timestamps", res, 1,
      [{"kind": "unknown_id_response", "id": f"{cid}:{i}", "direction": "c2s",
        "detail": f"the client's answer to the child's request {i}: supergateway 4.0.0's WebSocket transport rewrites the id of every client message that has one, answers included, so the child got `{cid}:{i}` for its request {i} (child stderr: `Response ID ... cannot be normalized to match pending requests`). A real fault of the gateway."} for i in range(3)]
      + [{"kind": "missing_response", "id": i, "direction": "s2c", "detail": f"the child's request {i} ({m}) was never answered under its id (see the unknown_id_response)."} for i, m in [(0, "sampling/createMessage"), (1, "roots/list"), (2, "elicitation/create")]]
      + [{"kind": "missing_response", "id": f"{cid}:{i}", "direction": "c2s", "detail": f"tools/call {n} (client id {i}): the child's tool waited for its request's answer, failed (`Internal Server Error` log notification) and never replied; the client timed out after 20 s (client tap)."} for i, n in [(16, "ask_llm"), (17, "which_roots"), (18, "ask_user")]],
      "Not healthy traffic, and reported as it is: the child shim and the client tap both say 24/1/3/0 | 3/17/20/1, with tools/call 16, 17, 18 unanswered and the three client answers unmatched by the child (14 progress/log notifications + 3 `Internal Server Error` logs = 17). No timestamps: latencies empty.")
assert len(pend) == 6 and len(unk) == 3, (pend, unk)

# 4. stdio -> SSE, two concurrent sessions
cap = "x_stdio_supergateway-sse-two-sessions.log"
res, u = build("sse-two", cap)
assert counts("shim", "truth/sg_sse-two.child_shim.jsonl") == "48/2/12/0 | 6/34/46/2"
for x in "AB":
    assert counts("client", f"truth/sg_sse-two.client{x}_tap.jsonl").startswith("24/1/6/0 | 6/34/")
per = Counter((m[2], m[1], m[3]) for m in res)
for s in {m[2] for m in res}:
    assert (per[(s, "c2s", "request")], per[(s, "s2c", "notification")], per[(s, "s2c", "request")]) == (24, 34, 6), s
pend, unk = write(cap, "supergateway 4.0.0 stdio -> SSE (`--logLevel debug`) in front of ONE mcp 1.30.0 FastMCP stdio child (behind a recording shim), with two mcp 1.30.0 sse_client + ClientSession feature runs started 0.35 s apart and open at the same time. Client lines carry `(session SID)`; child lines (`Child → SSE: {` + util.inspect) carry none, and the gateway sends each to every open session. Both clients use ids 0..23, so at 9 replies both sessions waited for the same id.",
      "supergateway log, stdio -> SSE, two concurrent sessions, no timestamps", res, 2, [],
      f"Read by FORMATS.md §8.3.6: a session-less reply goes to the session waiting for its id (the first to ask when both wait: {u} such replies, reported once in the input's errors as a capture gap); a child request or notification went to both open sessions and is counted in each (each client tap has all 6 child requests and all 34 notifications, and both clients answered all 6 requests: the child shim has 12 answers to 6 requests). Per session: 24/1/6 c2s, 6 requests + 34 notifications + 24 replies s2c. The copies of the other session's 24 replies that each client also received (client taps: 48 replies each) answer nothing there and are not counted. No timestamps: latencies empty.")
assert not pend and not unk

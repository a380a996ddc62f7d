"""Writes x_stdio_supergateway-stateful-sampling-hang.log.expected.json from
the gateway log, read here with regexes (no mcp-audit), and asserts that it
agrees with what the client received: truth/ts-supergateway-sampling-hang.har,
recorded by mitmdump between the TS client and supergateway (FORMATS.md
§8.3.6: `StreamableHttp → Child: JSON` client→server, `Child →
StreamableHttp: JSON` server→client; `Failed to send to StreamableHttp …
request ID: N`: the child's reply N was not delivered).

python3 scripts/make_expected.py   (in this folder)
"""
import json, re

LOG = "x_stdio_supergateway-stateful-sampling-hang.log"
C2S = re.compile(r"^\[supergateway\] StreamableHttp → Child: (\{.*)$")
S2C = re.compile(r"^\[supergateway\] Child → StreamableHttp: (\{.*)$")
FAILED = re.compile(r"^\[supergateway\] Failed to send to StreamableHttp .*No connection established for request ID: (\S+)$")


def kind(m):
    if "method" in m:
        return "req" if "id" in m else "notif"
    return "resp"


c = {d: {"req": 0, "notif": 0, "resp": 0} for d in ("c2s", "s2c")}
replies, undelivered, cancels, requests = [], [], [], {}
for n, line in enumerate(open(LOG, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if m := C2S.match(line) or S2C.match(line):
        d = "c2s" if C2S.match(line) else "s2c"
        msg = json.loads(m.group(1))
        c[d][kind(msg)] += 1
        if kind(msg) == "resp":
            replies.append((msg["id"], n))
        elif kind(msg) == "req":
            requests[(d, msg["id"])] = msg["method"]
        elif msg["method"] == "notifications/cancelled":
            cancels.append((d, msg["params"]["requestId"], msg["params"].get("reason")))
    elif m := FAILED.match(line):
        gone = max(i for i, (rid, _) in enumerate(replies) if str(rid) == m.group(1))
        undelivered.append(replies.pop(gone) + (n,))
assert undelivered == [(13, 136, 137)], undelivered

# What the client received (the HAR of the same session).
har = json.load(open("truth/ts-supergateway-sampling-hang.har"))
sent, got = [], []
for e in har["log"]["entries"]:
    body = (e["request"].get("postData") or {}).get("text") or ""
    if body:
        m = json.loads(body)
        if "id" in m and "method" in m:
            sent.append(m["id"])
    for data in re.findall(r"^data: (.*)$", (e["response"].get("content") or {}).get("text") or "", re.M):
        m = json.loads(data)
        if kind(m) == "resp":
            got.append(m["id"])
        assert m.get("method") != "sampling/createMessage", "the client never got the sampling request"
client_sent = [i for (d, i) in requests if d == "c2s"]
assert sorted(sent) == sorted(client_sent) == list(range(14)), (sent, client_sent)
assert sorted(got) == sorted(i for i, _ in replies) == list(range(12)), (got, replies)
assert cancels == [("c2s", 12, "user cancelled"), ("s2c", 0, "McpError: MCP error -32001: Request timed out")], cancels

exp = {
    "source_url": None,
    "capture": LOG,
    "summary": "supergateway 4.0.0 `--stateful` (stdio → Streamable HTTP) in front of a TS SDK 1.32.2 stdio server, a TS SDK 1.32.2 client behind mitmdump (which buffered the SSE stream). The child's sampling/createMessage 0 (line 124) never reached the client; the server cancelled it after 60 s (line 135, reason `McpError: MCP error -32001: Request timed out`) and answered tools/call 13 with the timeout error (line 136), which the gateway could not send (line 137, `Failed to send to StreamableHttp Error: No connection established for request ID: 13`): the client never got a reply to 13 (truth/ts-supergateway-sampling-hang.har).",
    "format": "supergateway log, stdio -> Streamable HTTP (stateful), no timestamps",
    "facts": {
        "counts": {
            "requests": c["c2s"]["req"] + c["s2c"]["req"],
            "notifications": c["c2s"]["notif"] + c["s2c"]["notif"],
            "responses": c["c2s"]["resp"] + c["s2c"]["resp"],
            "batches": 0,
            "sessions": 1,
        },
        "pairs": [[i, p] for p, (i, _) in enumerate(replies)],
        "latency_ms": [[i, p, None] for p, (i, _) in enumerate(replies)],
        "expect_exact": True,
        "findings": [
            {"kind": "missing_response", "id": 13, "direction": "c2s", "severity": "error",
             "detail": "tools/call 13: its reply (line 136) was not delivered (line 137); the client never received one"},
            {"kind": "cancelled_request", "id": 12, "direction": "c2s", "severity": "info",
             "detail": "the client cancelled tools/call 12 (user cancelled); no reply followed"},
            {"kind": "cancelled_request", "id": 0, "direction": "s2c", "severity": "info",
             "detail": "the server cancelled sampling/createMessage 0 because it timed out (-32001); the client never received it"},
        ],
        "optional_findings": [],
    },
    "notes": "The undelivered reply counts as a response of the log (the child wrote it) but is no pair. Source: a real capture from a fresh user's run (see README.md in this folder); facts checked against the client side's HAR by scripts/make_expected.py.",
}
with open(LOG + ".expected.json", "w", encoding="utf-8") as f:
    f.write(json.dumps(exp, indent=2, ensure_ascii=False) + "\n")
print("ok")

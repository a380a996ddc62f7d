"""Raw Streamable HTTP driver for the issue-12 batch captures (client-side truth).

python raw_http_driver.py URL --tap FILE [--proto 2025-03-26]

Sends a fixed sequence of raw POST bodies (exact bytes below) with httpx, carrying
Mcp-Session-Id (from the initialize reply) and MCP-Protocol-Version after
initialize, and records for every exchange, as one JSON line in FILE:
  {"n", "label", "t_sent" (µs UTC, just before the request is written),
   "method", "req_headers", "req_body" (the exact bytes, utf-8),
   "t_headers" (response headers received), "t_done" (body fully read),
   "status", "resp_headers", "resp_body" (exact text)}.
Timestamps from time.time_ns() at µs. The sequence (ids as sent):
  1 initialize id 0 (offers PROTO)      2 notifications/initialized
  3 [tools/call add id 1]  (one-element batch)
  4 [tools/call slow_echo id 2 (150 ms), tools/call add id 3, tools/list id 4]
  5 []                                   6 [notifications/roots/list_changed, notifications/cancelled{requestId 1}]
  7 [notifications/roots/list_changed, ping id 5]   (one request among notifications)
  8 tools/call count_with_progress id 6, progressToken "tok-6", 3 steps (single)
  9 ping id 7 (single)                  10 DELETE
"""
import datetime, json, sys, time
import httpx

url = sys.argv[1]
tap = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
proto = sys.argv[sys.argv.index("--proto") + 1] if "--proto" in sys.argv else "2025-03-26"


def ts(ns=None):
    ns = time.time_ns() if ns is None else ns
    d = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % ((ns // 1000) % 1_000_000)


def j(o):
    return json.dumps(o, separators=(",", ":"))


def call(id_, name, args, meta=None):
    p = {"name": name, "arguments": args}
    if meta:
        p["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": p}


SEQ = [
    ("initialize", "POST", j({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": proto, "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "cap12-raw-driver", "version": "0.1.0"}}})),
    ("initialized", "POST", j({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    ("one-element batch", "POST", j([call(1, "add", {"a": 2, "b": 3})])),
    ("3-request batch", "POST", j([call(2, "slow_echo", {"text": "slow", "delay_ms": 150}),
                                    call(3, "add", {"a": 40, "b": 2}),
                                    {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}])),
    ("empty batch", "POST", "[]"),
    ("notification-only batch", "POST", j([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                                            {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                             "params": {"requestId": 1, "reason": "already done"}}])),
    ("notification + request batch", "POST", j([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                                                 {"jsonrpc": "2.0", "id": 5, "method": "ping"}])),
    ("single request with progress", "POST", j(call(6, "count_with_progress", {"steps": 3}, {"progressToken": "tok-6"}))),
    ("single ping", "POST", j({"jsonrpc": "2.0", "id": 7, "method": "ping"})),
    ("delete session", "DELETE", None),
]

sid = None
with httpx.Client(timeout=30.0) as c:
    for n, (label, method, body) in enumerate(SEQ, 1):
        h = {"accept": "application/json, text/event-stream"}
        if body is not None:
            h["content-type"] = "application/json"
        if sid:
            h["mcp-session-id"] = sid
        if n > 1:
            h["mcp-protocol-version"] = proto
        req = c.build_request(method, url, headers=h, content=body.encode() if body is not None else None)
        t_sent = time.time_ns()
        r = c.send(req, stream=True)
        t_headers = time.time_ns()
        text = r.read().decode("utf-8", "replace")
        t_done = time.time_ns()
        if n == 1:
            sid = r.headers.get("mcp-session-id")
        rec = {"n": n, "label": label, "t_sent": ts(t_sent), "method": method, "req_headers": dict(req.headers),
               "req_body": body, "t_headers": ts(t_headers), "t_done": ts(t_done), "status": r.status_code,
               "resp_headers": dict(r.headers), "resp_body": text}
        tap.write(j(rec) + "\n")
        print(f"{n:2} {label:30} {r.status_code} {r.headers.get('content-type','-'):20} {(t_done - t_sent)/1e6:8.1f} ms  {text[:160]}")
        time.sleep(0.1)

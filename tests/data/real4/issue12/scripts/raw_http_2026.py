"""Raw 2026-07-28 Streamable HTTP driver (client-side truth), for 2026-era servers.

python raw_http_2026.py URL --tap FILE

No initialize, no session: every request carries _meta
io.modelcontextprotocol/protocolVersion "2026-07-28" + clientInfo + clientCapabilities,
and headers MCP-Protocol-Version: 2026-07-28 and Mcp-Method (+ Mcp-Name for tools/call),
as fastmcp's Client sends them. Tap format as raw_http_driver.py. Sequence:
  1 server/discover id 1            2 tools/call add id 2 (single object)
  3 [tools/call add id 3]  (an array: batching is gone in 2026-07-28)
  4 [tools/call add id 4, ping id 5] 5 []
  6 notifications/cancelled {requestId 99} (a single notification)
  7 tools/call count_with_progress id 6, progressToken "tok-6", 3 steps
  8 no/such_method id 7 (unknown method)
  9 tools/call add id 8 with header Mcp-Method: tools/list (header disagrees with the body)
"""
import datetime, json, sys, time
import httpx

url = sys.argv[1]
tap = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
V = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": {"name": "cap12-raw-2026", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def ts(ns):
    d = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % ((ns // 1000) % 1_000_000)


def j(o):
    return json.dumps(o, separators=(",", ":"))


def req(i, method, params=None, extra_meta=None):
    p = dict(params or {})
    p["_meta"] = {**META, **(extra_meta or {})}
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": p}


def call(i, name, args, extra_meta=None):
    return req(i, "tools/call", {"name": name, "arguments": args}, extra_meta)


SEQ = [
    ("server/discover", j(req(1, "server/discover")), "server/discover", None),
    ("single tools/call add 2", j(call(2, "add", {"a": 2, "b": 3})), "tools/call", "add"),
    ("one-element array [add 3]", j([call(3, "add", {"a": 4, "b": 5})]), "tools/call", "add"),
    ("array [add 4, ping 5]", j([call(4, "add", {"a": 1, "b": 1}), req(5, "ping")]), "tools/call", "add"),
    ("empty array", "[]", None, None),
    ("single notification cancelled 99", j({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                            "params": {"requestId": 99, "reason": "never sent", "_meta": META}}), "notifications/cancelled", None),
    ("count_with_progress 6 tok-6", j(call(6, "count_with_progress", {"steps": 3}, {"progressToken": "tok-6"})), "tools/call", "count_with_progress"),
    ("unknown method 7", j(req(7, "no/such_method")), "no/such_method", None),
    ("add 8 with Mcp-Method tools/list", j(call(8, "add", {"a": 7, "b": 8})), "tools/list", None),
]
with httpx.Client(timeout=30.0) as c:
    for n, (label, body, mm, name) in enumerate(SEQ, 1):
        h = {"accept": "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": V}
        if mm:
            h["mcp-method"] = mm
        if name:
            h["mcp-name"] = name
        rq = c.build_request("POST", url, headers=h, content=body.encode())
        t0 = time.time_ns()
        r = c.send(rq, stream=True)
        t1 = time.time_ns()
        text = r.read().decode("utf-8", "replace")
        t2 = time.time_ns()
        tap.write(j({"n": n, "label": label, "t_sent": ts(t0), "method": "POST", "req_headers": dict(rq.headers),
                     "req_body": body, "t_headers": ts(t1), "t_done": ts(t2), "status": r.status_code,
                     "resp_headers": dict(r.headers), "resp_body": text}) + "\n")
        print(f"{n:2} {label:36} {r.status_code} {r.headers.get('content-type', '-'):18} {text[:170]!r}")
        time.sleep(0.1)

"""Raw Streamable HTTP fault driver for real5 (client-side truth).

python raw_http_faults.py URL --tap FILE --era 2026|2025

Exact bodies and headers are below; for every exchange one JSON line in FILE:
{"n","label","t_sent","method","req_headers","req_body","t_headers","t_done","status",
 "resp_headers","resp_body"} (µs UTC, time.time_ns()), as raw_http_driver.py of real4.

--era 2026: no initialize, no session; every request carries the 2026-07-28 _meta envelope
and the headers MCP-Protocol-Version (2026-07-28) and Mcp-Method (+ Mcp-Name on tools/call),
except where a step changes them:
  1 server/discover 1                 2 [tools/call add 2]        3 [add 3, ping 4]     4 []
  5 notifications/cancelled{requestId 99}   (well-formed single notification)
  6 notifications/cancelled{requestId 98} with Mcp-Method: tools/call  (header disagrees, notification)
  7 add 5 with Mcp-Method: tools/list   8 add 6 with Mcp-Name: subtract
  9 add 7 with Origin: http://evil.example (foreign origin)
 10 add 8 whose _meta and header name 2099-01-01 (a revision the server does not offer)
 11 add 9 with header MCP-Protocol-Version: 2025-06-18 while _meta says 2026-07-28
 12 no/such_method 10                  13 notifications/cap12/custom (no params)    14 ping 11
 15 tools/call weather 12 {city Oslo} with Mcp-Param-City: Bergen (header disagrees with the argument)
 16 tools/call weather 13 {city Zürich} with Mcp-Param-City: =?base64?WsO8cmljaA==?= (agrees, Base64)
--era 2025: initialize 0 offering 2025-03-26; then Mcp-Session-Id and MCP-Protocol-Version 2025-03-26:
  1 initialize 0   2 notifications/initialized   3 [add 1]   4 [add 2, ping 3]   5 []
  6 ping 4 with Origin: http://evil.example   7 ping 5 with MCP-Protocol-Version: 2025-06-18
  8 notifications/cancelled{requestId 77} with Mcp-Session-Id: bogus-session (unknown session)
  9 notifications/initialized with params "bad" (malformed notification)
 10 initialize 6 offering 2099-01-01, no session header (a second session)
 11 ping 7   12 DELETE
"""
import datetime, json, sys, time
import httpx2 as httpx

url = sys.argv[1]
tap = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
era = sys.argv[sys.argv.index("--era") + 1]
V = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": {"name": "cap12-raw-faults", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def ts(ns):
    d = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % ((ns // 1000) % 1_000_000)


def j(o):
    return json.dumps(o, separators=(",", ":"))


def req(i, method, params=None, meta=True, meta_over=None):
    p = dict(params or {})
    if meta:
        p["_meta"] = {**META, **(meta_over or {})}
    o = {"jsonrpc": "2.0", "id": i, "method": method}
    if p:
        o["params"] = p
    return o


def note(method, params=None, meta=True):
    p = dict(params or {})
    if meta:
        p["_meta"] = META
    o = {"jsonrpc": "2.0", "method": method}
    if p:
        o["params"] = p
    return o


def add(i, a, b, meta=True, meta_over=None):
    return req(i, "tools/call", {"name": "add", "arguments": {"a": a, "b": b}}, meta, meta_over)


def h26(method, name=None, **over):
    h = {"mcp-protocol-version": V, "mcp-method": method}
    if name:
        h["mcp-name"] = name
    h.update(over)
    return h


SEQ26 = [
    ("server/discover 1", req(1, "server/discover"), h26("server/discover")),
    ("one-element array [add 2]", [add(2, 1, 2)], h26("tools/call", "add")),
    ("array [add 3, ping 4]", [add(3, 3, 4), req(4, "ping")], h26("tools/call", "add")),
    ("empty array", [], h26("tools/call")),
    ("notification cancelled 99", note("notifications/cancelled", {"requestId": 99, "reason": "never sent"}), h26("notifications/cancelled")),
    ("notification cancelled 98, Mcp-Method tools/call", note("notifications/cancelled", {"requestId": 98}), h26("tools/call")),
    ("add 5, Mcp-Method tools/list", add(5, 5, 6), h26("tools/list")),
    ("add 6, Mcp-Name subtract", add(6, 6, 7), h26("tools/call", "subtract")),
    ("add 7, Origin evil.example", add(7, 7, 8), h26("tools/call", "add", origin="http://evil.example")),
    ("add 8, revision 2099-01-01", add(8, 8, 9, meta_over={"io.modelcontextprotocol/protocolVersion": "2099-01-01"}),
     h26("tools/call", "add", **{"mcp-protocol-version": "2099-01-01"})),
    ("add 9, header 2025-06-18 vs _meta 2026", add(9, 9, 10), h26("tools/call", "add", **{"mcp-protocol-version": "2025-06-18"})),
    ("unknown method 10", req(10, "no/such_method"), h26("no/such_method")),
    ("notification cap12/custom", note("notifications/cap12/custom", meta=False), h26("notifications/cap12/custom")),
    ("ping 11", req(11, "ping"), h26("ping")),
    ("weather 12 Oslo, Mcp-Param-City Bergen", req(12, "tools/call", {"name": "weather", "arguments": {"city": "Oslo"}}),
     h26("tools/call", "weather", **{"mcp-param-city": "Bergen"})),
    ("weather 13 Zürich, Mcp-Param-City base64 of Zürich", req(13, "tools/call", {"name": "weather", "arguments": {"city": "Zürich"}}),
     h26("tools/call", "weather", **{"mcp-param-city": "=?base64?WsO8cmljaA==?="})),
]

INIT = lambda i, v: {"jsonrpc": "2.0", "id": i, "method": "initialize", "params": {
    "protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "cap12-raw-faults", "version": "0.1.0"}}}
SEQ25 = [
    ("initialize 0 (2025-03-26)", INIT(0, "2025-03-26"), {"nosession": True}),
    ("initialized", note("notifications/initialized", meta=False), {}),
    ("one-element array [add 1]", [add(1, 1, 2, meta=False)], {}),
    ("array [add 2, ping 3]", [add(2, 3, 4, meta=False), req(3, "ping", meta=False)], {}),
    ("empty array", [], {}),
    ("ping 4, Origin evil.example", req(4, "ping", meta=False), {"origin": "http://evil.example"}),
    ("ping 5, MCP-Protocol-Version 2025-06-18", req(5, "ping", meta=False), {"mcp-protocol-version": "2025-06-18"}),
    ("notification cancelled 77, unknown session", note("notifications/cancelled", {"requestId": 77}, meta=False), {"mcp-session-id": "bogus-session"}),
    ("notifications/initialized params \"bad\"", {"jsonrpc": "2.0", "method": "notifications/initialized", "params": "bad"}, {}),
    ("initialize 6 (2099-01-01), new session", INIT(6, "2099-01-01"), {"nosession": True}),
    ("ping 7", req(7, "ping", meta=False), {}),
    ("DELETE", None, {}),
]


SEQC = [
    ("server/discover 1", req(1, "server/discover"), h26("server/discover")),
    ("count_with_progress 2 (10 steps)", req(2, "tools/call", {"name": "count_with_progress", "arguments": {"steps": 10}},
                                         meta_over={"progressToken": "tok-2"}), h26("tools/call", "count_with_progress")),
    ("notification cancelled 2", note("notifications/cancelled", {"requestId": 2, "reason": "user gave up"}), h26("notifications/cancelled")),
    ("add 3", add(3, 1, 2), h26("tools/call", "add")),
]


def one(c, n, label, body, hx, sid=None):
    h = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    h.update(hx)
    text_body = j(body)
    rq = c.build_request("POST", url, headers=h, content=text_body.encode())
    t0 = time.time_ns()
    r = c.send(rq, stream=True)
    t1 = time.time_ns()
    text = r.read().decode("utf-8", "replace")
    t2 = time.time_ns()
    tap.write(j({"n": n, "label": label, "t_sent": ts(t0), "method": "POST", "req_headers": dict(rq.headers),
                 "req_body": text_body, "t_headers": ts(t1), "t_done": ts(t2), "status": r.status_code,
                 "resp_headers": dict(r.headers), "resp_body": text}) + "\n")
    print(f"{n:2} {label:44} {r.status_code} {r.headers.get('content-type', '-')[:17]:17} {text[:150]!r}")


def run_cancel():
    import threading
    with httpx.Client(timeout=30.0) as c, httpx.Client(timeout=30.0) as c2:
        one(c, 1, *SEQC[0])
        th = threading.Thread(target=one, args=(c, 2, *SEQC[1]))
        th.start()
        time.sleep(0.15)
        one(c2, 3, *SEQC[2])
        th.join()
        one(c, 4, *SEQC[3])


def run():
    if era == "cancel":
        return run_cancel()
    sid = None
    with httpx.Client(timeout=30.0) as c:
        for n, (label, body, hx) in enumerate(SEQ26 if era == "2026" else SEQ25, 1):
            h = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
            hx = dict(hx)
            if era == "2025":
                if not hx.pop("nosession", False) and sid:
                    h["mcp-session-id"] = sid
                    h["mcp-protocol-version"] = "2025-03-26"
            h.update(hx)
            text_body = None if body is None else j(body)
            method = "DELETE" if body is None else "POST"
            rq = c.build_request(method, url, headers=h, content=None if body is None else text_body.encode())
            t0 = time.time_ns()
            r = c.send(rq, stream=True)
            t1 = time.time_ns()
            text = r.read().decode("utf-8", "replace")
            t2 = time.time_ns()
            if era == "2025" and n == 1:
                sid = r.headers.get("mcp-session-id")
            tap.write(j({"n": n, "label": label, "t_sent": ts(t0), "method": method, "req_headers": dict(rq.headers),
                         "req_body": text_body, "t_headers": ts(t1), "t_done": ts(t2), "status": r.status_code,
                         "resp_headers": dict(r.headers), "resp_body": text}) + "\n")
            print(f"{n:2} {label:44} {r.status_code} {r.headers.get('content-type', '-')[:17]:17} {text[:150]!r}")
            time.sleep(0.05)


run()

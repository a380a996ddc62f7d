"""Raw Origin driver (client-side truth) for origin_not_rejected.

python origin_driver.py URL --tap FILE --mode legacy|2026

Sends POSTs with chosen Origin headers over http.client (stdlib; one connection per
request) and logs, as JSON lines in FILE (µs UTC), exactly what it sent (method, url,
headers, body) and got (status, headers, body, times).
Origins: "evil" = http://evil.example (a foreign host), "same" = the URL's own
scheme://host:port, "alias" = http://localhost:<port> (a loopback alias), None = no
Origin header.
--mode legacy (2025-11-25, stateful servers: initialize first, then Mcp-Session-Id):
  1 initialize 0        Origin evil
  2 initialized          Origin evil
  3 tools/call add 1     Origin same
  4 tools/list 2         Origin evil
  5 ping 3               no Origin
  6 ping 4               Origin alias
  7 tools/call add 5     Origin evil
--mode 2026 (no initialize; _meta + MCP-Protocol-Version/Mcp-Method/Mcp-Name headers):
  1 server/discover 1    Origin evil
  2 tools/call add 2     Origin same
  3 tools/list 3         Origin evil
  4 tools/call add 4     no Origin
  5 tools/call add 5     Origin alias
  6 tools/call add 6     Origin evil
"""
import datetime, http.client, json, sys, time, urllib.parse

url = sys.argv[1]
tap = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
mode = sys.argv[sys.argv.index("--mode") + 1]
u = urllib.parse.urlsplit(url)
ORIGINS = {"evil": "http://evil.example", "same": f"{u.scheme}://{u.netloc}",
           "alias": f"http://localhost:{u.port}", None: None}
V26 = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V26,
        "io.modelcontextprotocol/clientInfo": {"name": "h12-origin-driver", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def ts(ns):
    d = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % ((ns // 1000) % 1_000_000)


def j(o):
    return json.dumps(o, separators=(",", ":"))


session = None


def post(n, label, body, origin, extra):
    global session
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **extra}
    if session:
        h["Mcp-Session-Id"] = session
    if ORIGINS[origin]:
        h["Origin"] = ORIGINS[origin]
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    t0 = time.time_ns()
    c.request("POST", u.path, body=body.encode(), headers=h)
    r = c.getresponse()
    t1 = time.time_ns()
    text = r.read().decode("utf-8", "replace")
    t2 = time.time_ns()
    rh = {k.lower(): v for k, v in r.getheaders()}
    if rh.get("mcp-session-id") and not session:
        session = rh["mcp-session-id"]
    c.close()
    tap.write(j({"n": n, "label": label, "origin": ORIGINS[origin], "t_sent": ts(t0), "method": "POST", "url": url,
                 "req_headers": h, "req_body": body, "t_headers": ts(t1), "t_done": ts(t2),
                 "status": r.status, "resp_headers": rh, "resp_body": text}) + "\n")
    print(f"{n:2} {label:28} origin={str(ORIGINS[origin]):28} {r.status} {text[:110]!r}")
    time.sleep(0.1)


if mode == "legacy":
    P = "2025-11-25"
    pv = {}
    seq = [
        ("initialize 0", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": P, "capabilities": {}, "clientInfo": {"name": "h12-origin-driver", "version": "0.1.0"}}}, "evil"),
        ("initialized", {"jsonrpc": "2.0", "method": "notifications/initialized"}, "evil"),
        ("tools/call add 1", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}, "same"),
        ("tools/list 2", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, "evil"),
        ("ping 3", {"jsonrpc": "2.0", "id": 3, "method": "ping"}, None),
        ("ping 4", {"jsonrpc": "2.0", "id": 4, "method": "ping"}, "alias"),
        ("tools/call add 5", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 4, "b": 5}}}, "evil"),
    ]
    for n, (label, msg, origin) in enumerate(seq, 1):
        extra = {"MCP-Protocol-Version": P} if n > 1 else {}
        post(n, label, j(msg), origin, extra)
else:
    def req(i, method, params=None):
        p = dict(params or {})
        p["_meta"] = META
        return {"jsonrpc": "2.0", "id": i, "method": method, "params": p}

    def add(i, a, b):
        return req(i, "tools/call", {"name": "add", "arguments": {"a": a, "b": b}})

    seq = [
        ("server/discover 1", req(1, "server/discover"), "evil"),
        ("tools/call add 2", add(2, 2, 3), "same"),
        ("tools/list 3", req(3, "tools/list"), "evil"),
        ("tools/call add 4", add(4, 4, 5), None),
        ("tools/call add 5", add(5, 6, 7), "alias"),
        ("tools/call add 6", add(6, 8, 9), "evil"),
    ]
    for n, (label, msg, origin) in enumerate(seq, 1):
        extra = {"MCP-Protocol-Version": V26, "Mcp-Method": msg["method"]}
        if msg["method"] == "tools/call":
            extra["Mcp-Name"] = msg["params"]["name"]
        post(n, label, j(msg), origin, extra)

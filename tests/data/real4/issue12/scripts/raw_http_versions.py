"""Raw Streamable HTTP driver: protocol-revision disagreements (client-side truth).

python raw_http_versions.py URL --tap FILE

Two sessions, tap format as raw_http_driver.py ({"n","label","t_sent","method",
"req_headers","req_body","t_headers","t_done","status","resp_headers","resp_body"}):
 session A: 1 initialize id 0 offering "2025-01-01" (a revision no SDK knows);
            2 notifications/initialized and 3 ping id 1 with MCP-Protocol-Version =
            the revision the server answered; 4 DELETE
 session B: 5 initialize id 0 offering "2025-03-26"; 6 notifications/initialized
            (header 2025-03-26); 7 ping id 1 with header MCP-Protocol-Version
            "2025-06-18" (supported, but not the negotiated one); 8 ping id 2 with
            header "2025-01-01" (unsupported); 9 ping id 3 with header 2025-03-26; 10 DELETE
"""
import datetime, json, sys, time
import httpx

url = sys.argv[1]
tap = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)


def ts(ns):
    d = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % ((ns // 1000) % 1_000_000)


def j(o):
    return json.dumps(o, separators=(",", ":"))


def init(v):
    return j({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": v, "capabilities": {},
             "clientInfo": {"name": "cap12-version-driver", "version": "0.1.0"}}})


n = 0


def send(c, label, method, body, sid, ver):
    global n
    n += 1
    h = {"accept": "application/json, text/event-stream"}
    if body is not None:
        h["content-type"] = "application/json"
    if sid:
        h["mcp-session-id"] = sid
    if ver:
        h["mcp-protocol-version"] = ver
    req = c.build_request(method, url, headers=h, content=body.encode() if body is not None else None)
    t0 = time.time_ns()
    r = c.send(req, stream=True)
    t1 = time.time_ns()
    text = r.read().decode("utf-8", "replace")
    t2 = time.time_ns()
    tap.write(j({"n": n, "label": label, "t_sent": ts(t0), "method": method, "req_headers": dict(req.headers),
                 "req_body": body, "t_headers": ts(t1), "t_done": ts(t2), "status": r.status_code,
                 "resp_headers": dict(r.headers), "resp_body": text}) + "\n")
    print(f"{n:2} {label:44} {r.status_code} {text[:150]}")
    time.sleep(0.1)
    return r, text


PING = lambda i: j({"jsonrpc": "2.0", "id": i, "method": "ping"})
INITD = j({"jsonrpc": "2.0", "method": "notifications/initialized"})
with httpx.Client(timeout=30.0) as c:
    r, text = send(c, "A initialize offering 2025-01-01", "POST", init("2025-01-01"), None, None)
    sid = r.headers.get("mcp-session-id")
    body = text
    if "data:" in body:
        body = [l[5:].strip() for l in body.splitlines() if l.startswith("data:")][0]
    got = json.loads(body)["result"]["protocolVersion"]
    send(c, f"A initialized (header {got})", "POST", INITD, sid, got)
    send(c, f"A ping 1 (header {got})", "POST", PING(1), sid, got)
    send(c, "A delete", "DELETE", None, sid, got)
    r, _ = send(c, "B initialize offering 2025-03-26", "POST", init("2025-03-26"), None, None)
    sid = r.headers.get("mcp-session-id")
    send(c, "B initialized (header 2025-03-26)", "POST", INITD, sid, "2025-03-26")
    send(c, "B ping 1 (header 2025-06-18)", "POST", PING(1), sid, "2025-06-18")
    send(c, "B ping 2 (header 2025-01-01)", "POST", PING(2), sid, "2025-01-01")
    send(c, "B ping 3 (header 2025-03-26)", "POST", PING(3), sid, "2025-03-26")
    send(c, "B delete", "DELETE", None, sid, "2025-03-26")

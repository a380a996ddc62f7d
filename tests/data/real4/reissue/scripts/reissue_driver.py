"""A 2026-07-28 Streamable HTTP client driver on httpx 0.28.1 that re-issues a request
whose response stream broke (client-side truth). THE RE-ISSUE LOGIC IS OURS: no
released client library does it (see ../README.md, section 1).

python reissue_driver.py URL --tap FILE

Wire shape as fastmcp 4.2.3's Client sends it (../issue12 truth/fmcp.client_tap.jsonl):
no initialize, no session; every request carries _meta protocolVersion, clientInfo,
clientCapabilities; headers MCP-Protocol-Version: 2026-07-28, Mcp-Method (+ Mcp-Name for
tools/call); a tools/call's _meta also carries progressToken = its JSON-RPC id.

The rule (2026-07-28 basic/transports/streamable-http): "a broken response stream loses
the in-flight request; clients MUST re-issue it as a new request with a new request ID".
When an SSE response body ends (cleanly or by a transport error) without a response
for the request's id, the driver sends the same method and the same params again,
once, under the next id; only _meta.progressToken changes (it follows the id). No GET,
no Last-Event-ID.

Sequence: server/discover 1; tools/list 2; tools/call count_with_progress {steps: 3}
id 3 (the server breaks its stream) -> re-issued as id 4; tools/call add {a: 2, b: 3} id 5.

Tap (JSON lines, µs UTC, one HTTP exchange = one `n`):
  request    {n, t, method, url, headers, body}      the exact bytes sent
  resp_start {n, t, status, headers}
  resp_chunk {n, t, data}                            each raw body chunk as received
  resp_end   {n, t}  | resp_error {n, t, error}      clean end | transport error
  verdict    {n, t, id, answered, reissue_as?}       the driver's decision
"""
import datetime, json, sys, time
import httpx

url = sys.argv[1]
tap = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
V = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": {"name": "reissue-driver", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def ts():
    ns = time.time_ns()
    d = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % ((ns // 1000) % 1_000_000)


def log(**kw):
    tap.write(json.dumps({"t": ts(), **kw}, separators=(",", ":")) + "\n")


def j(o):
    return json.dumps(o, separators=(",", ":"))


def say(*a):
    print(ts(), *a, flush=True)


_n = 0
_next_id = 1


def sse_messages(text):
    """JSON-RPC messages in the complete events of an SSE body (CRLF or LF)."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n")[:-1]:  # the last piece is incomplete
        data = [ln[5:].lstrip(" ") if ln.startswith("data:") else None for ln in block.split("\n")]
        data = [d for d in data if d is not None]
        if data:
            try:
                out.append(json.loads("\n".join(data)))
            except ValueError:
                pass
    return out


def post(c, msg, mcp_method, mcp_name=None):
    """One POST; returns (response message or None, list of other messages)."""
    global _n
    _n += 1
    n = _n
    body = j(msg).encode()
    h = {"accept": "application/json, text/event-stream", "content-type": "application/json",
         "mcp-protocol-version": V, "mcp-method": mcp_method}
    if mcp_name:
        h["mcp-name"] = mcp_name
    rq = c.build_request("POST", url, headers=h, content=body)
    log(ev="request", n=n, method="POST", url=str(rq.url), headers=dict(rq.headers), body=body.decode())
    r = c.send(rq, stream=True)
    log(ev="resp_start", n=n, status=r.status_code, headers=dict(r.headers))
    raw = bytearray()
    try:
        for chunk in r.iter_raw():
            raw.extend(chunk)
            log(ev="resp_chunk", n=n, data=chunk.decode("utf-8", "replace"))
        log(ev="resp_end", n=n)
    except httpx.TransportError as e:
        log(ev="resp_error", n=n, error=f"{type(e).__name__}: {e}")
        say(f"  stream of POST {n} broke: {type(e).__name__}: {e}")
    finally:
        r.close()
    text = raw.decode("utf-8", "replace")
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        msgs = sse_messages(text)
    else:
        try:
            msgs = [json.loads(text)] if text.strip() else []
        except ValueError:
            msgs = []
    resp = next((m for m in msgs if isinstance(m, dict) and "method" not in m and m.get("id") == msg["id"]), None)
    return n, resp, [m for m in msgs if m is not resp]


def request(c, method, params=None, name=None, progress=False, reissues=1):
    """Send one request; re-issue it under a new id when its stream ends unanswered."""
    global _next_id
    base = dict(params or {})
    for attempt in range(reissues + 1):
        rid = _next_id
        _next_id += 1
        meta = dict(META)
        if progress:
            meta["progressToken"] = rid
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**base, "_meta": meta}}
        n, resp, other = post(c, msg, method, name)
        for m in other:
            say(f"  id {rid} stream: {m.get('method')} {m.get('params', {}).get('progress', '')}")
        if resp is not None:
            log(ev="verdict", n=n, id=rid, answered=True)
            return resp
        nxt = _next_id if attempt < reissues else None
        log(ev="verdict", n=n, id=rid, answered=False, reissue_as=nxt)
        say(f"  id {rid}: stream ended without its response" + (f"; re-issuing as id {nxt}" if nxt else "; giving up"))
    raise RuntimeError(f"{method}: no response after {reissues} re-issue(s)")


with httpx.Client(timeout=httpx.Timeout(30.0, read=60.0)) as c:
    d = request(c, "server/discover")
    say("discover", d["result"].get("supportedVersions"))
    t = request(c, "tools/list")
    say("tools", [x["name"] for x in t["result"]["tools"]])
    r = request(c, "tools/call", {"name": "count_with_progress", "arguments": {"steps": 3}},
                name="count_with_progress", progress=True)
    say("count", r["result"]["content"][0]["text"], "(id", r["id"], ")")
    r = request(c, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, name="add", progress=True)
    say("add", r["result"]["content"][0]["text"], "(id", r["id"], ")")

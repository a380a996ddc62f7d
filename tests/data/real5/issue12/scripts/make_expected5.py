"""Write the real5 captures' <file>.expected.json (tests/data/real5/issue12) and check them
against the sending side's records.

python make_expected5.py DIR     (DIR holds the captures and truth/)

Counts, pairs and latencies come from read_capture5.py's independent reading of each
capture (and are checked against the sending side: the number of requests sent and the
ids answered, from the raw drivers' taps, the TS v2 client's fetch tap, fastmcp's httpx
tap, the stdio drivers' logs). Findings are written out by hand below from docs/DESIGN.md
(catalogue and rules 12-14 as committed), each from what was sent and what came back.
Before writing, every HAR request body, status and response body is checked against the
client-side tap, and every stdio line against the driver's log (or the shim's raw streams).
"""
import datetime, json, os, re, subprocess, sys

D = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))


def reading(f):
    out = subprocess.run([sys.executable, os.path.join(HERE, "read_capture5.py"), os.path.join(D, f)],
                         capture_output=True, text=True, check=True).stdout.strip().split("\n")[-1]
    return json.loads(out)


def jl(p):
    return [json.loads(x) for x in open(os.path.join(D, p)) if x.strip()]


def har(f):
    return json.load(open(os.path.join(D, f)))["log"]["entries"]


def iso(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def ebody(e):
    return ((e["request"].get("postData") or {}).get("text") or None, e["response"]["status"],
            e["response"]["content"].get("text") or "")


# ---------------------------------------------------------------- truth checks
def check_raw(f, tap):
    """raw_http_faults.py tap vs HAR: the same exchanges (request body, status, response body)."""
    ents, t = har(f), jl(tap)
    cap = sorted((str(b), s, r) for b, s, r in map(ebody, ents))
    sent = sorted((str(r["req_body"]), r["status"], r["resp_body"]) for r in t)
    assert cap == sent, (f, "HAR differs from the driver's tap")
    return {str(r["n"]): {"label": r["label"], "status": r["status"],
                          "client_ms": round((iso(r["t_done"]) - iso(r["t_sent"])) * 1000, 3)} for r in t}


def check_fetch_tap(f, tap):
    """ts2h_client.mjs fetch tap vs HAR: every request body; every response status and body as read.
    A fetch the client aborted before any response (fetch_error) is HAR status 0, no body."""
    t = jl(tap)
    req = {r["rid"]: r for r in t if r["ev"] == "req"}
    st = {r["rid"]: r["status"] for r in t if r["ev"] == "resp"}
    body = {}
    for r in t:
        if r["ev"] == "resp_chunk":
            body[r["rid"]] = body.get(r["rid"], "") + r["data"]
    sent = sorted((str(r["body"]), st.get(rid, 0), body.get(rid, "")) for rid, r in req.items())
    cap = sorted((str(b), s, r) for b, s, r in map(ebody, har(f)))
    # the listen's stream: the client read it to the end of the capture, so compare its prefix
    for (a, b) in zip(sent, cap):
        assert a[0] == b[0] and a[1] == b[1], (f, a[:2], b[:2])
        assert a[2] == b[2] or "subscriptions/listen" in a[0] and b[2].startswith(a[2][:len(b[2])]), (f, a[0][:80])
    ev = [r for r in t if r["ev"] in ("start", "end", "fail")]
    return {"http_requests": len(req), "steps": {r["name"]: r.get("ms", r.get("error")) for r in ev if r["ev"] != "start"}}


def check_httpx_tap(f, tap):
    """fmcp_tasks2_client.py httpx tap vs HAR: every POST body as sent, every status and body as read."""
    t = jl(tap)
    req = {r["rid"]: r for r in t if r["ev"] == "request"}
    st = {r["rid"]: r["status"] for r in t if r["ev"] == "resp_start"}
    body = {}
    for r in t:
        if r["ev"] == "resp_chunk":
            body[r["rid"]] = body.get(r["rid"], "") + r["data"]
    sent = sorted((r["body"] or None, st.get(rid, 0), body.get(rid, "")) for rid, r in req.items() if r["method"] == "POST")
    cap = sorted((b, s, r) for b, s, r in map(ebody, har(f)) if b)
    assert len(sent) == len(cap), (f, len(sent), len(cap))
    for a, b in zip(sent, cap):
        assert a[0] == b[0] and a[1] == b[1], (f, a[0][:80])
        assert a[2] == b[2] or b[2].startswith(a[2]) or a[2].startswith(b[2]), (f, a[0][:80])
    return {"http_requests": len(sent)}


def tagged(f):
    cap = {"STDIN": [], "STDOUT": []}
    for line in open(os.path.join(D, f), encoding="utf-8").read().split("\n"):
        m = re.match(r"^\S+ \[(STDIN|STDOUT)\] (.*)$", line)
        if m:
            cap[m.group(1)].append(m.group(2))
    return cap


def check_stdio(f, drv):
    """stdio_faults_driver.py log vs the shim's tagged log: the same lines each way, in order."""
    cap = tagged(f)
    sent = [r["line"] for r in jl(drv) if r["dir"] == "sent"]
    got = [r["line"] for r in jl(drv) if r["dir"] == "got"]
    assert sent == cap["STDIN"] and got == cap["STDOUT"], f
    return {"lines_sent": len(sent), "lines_received": len(got)}


def check_shim_raw(f, prefix):
    """The tagged log's payloads equal the shim's raw byte streams (both the probe child's and the
    session child's, appended in order)."""
    cap = tagged(f)
    for d in ("stdin", "stdout"):
        raw = [x for x in open(os.path.join(D, f"{prefix}.{d}.raw"), "rb").read().decode().split("\n") if x]
        assert raw == cap[d.upper()], (f, d)
    return {"stdin_lines": len(cap["STDIN"]), "stdout_lines": len(cap["STDOUT"])}


def F(kind, id_, direction, detail, **kw):
    d = {"kind": kind, "id": id_, "direction": direction, "detail": detail}
    d.update(kw)
    return d


def batch_refused(e, ids, code, text, rev=None):
    """A well-formed array of requests refused whole by one id-null error (rule 13)."""
    out = [F("missing_response", i, "c2s", f"{i} (entry {e}) never ran: the array was refused whole ({text}).") for i in ids]
    out.append(F("response_count_mismatch", ids, "c2s", f"entry {e}: {len(ids)} valid-id request(s), 0 responses linked."))
    if rev:
        out.append(F("batch_after_version_removed", ids, "c2s", f"entry {e}: an array under {rev}."))
    out.append(F("batch_rejected_whole", ids, "s2c",
                 f"entry {e}: one error {code} id null answered the array, nothing ran; every member well formed."))
    return out


NOTE_REFUSED = "an id-null error with HTTP {s} refusing the notification POST: the refusal Streamable HTTP allows (an HTTP error status, a JSON-RPC error without an id), so null_id_error and not notification_replied (rule 13)"
AWAITED = "the notification POST was answered {s} with a body, not an empty 202 (the kind's rule: anything but an empty 202)"
CAPS = {}

# ---------------------------------------------------------------- healthy sessions
CAPS["har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.har"] = dict(
    summary="A healthy 2026-07-28 session: @modelcontextprotocol/client 2.4.0 (versionNegotiation auto) against @modelcontextprotocol/server 2.4.0 (createMcpHandler): server/discover, tools/list, a subscriptions/listen left open at the end, three concurrent tools/call finishing out of order (add, slow_echo B 60 ms, slow_echo A 400 ms), progress (4 events), a 4-round MRTR book_flight (requestState from round 3 on), Mcp-Param-* headers (ASCII, Base64, integer, boolean), a call the client aborted (the fetch closed before any response), enable_extra and the listen's tools/list_changed.",
    format="har (mitmproxy 11.0.2 reverse proxy + SSE streaming addon), Streamable HTTP 2026-07-28, no Mcp-Session-Id (one session by origin)",
    findings=[F("cancelled_request", 12, "c2s", "tools/call slow_echo C 12 (entry 13): the client aborted the fetch after 300 ms (fetch tap: abort, AbortError); HAR status 0, no response; no re-issue: under 2026-07-28 a stream closed without its response and not sent again is a cancellation (info).")],
    operations={"mrtr": {"ids": [5, 6, 7, 8], "entries": [6, 7, 8, 9], "requestState": [None, None, "dest=Paris", "dest=Paris;date=2026-08-01"],
                         "issued": [None, "dest=Paris", "dest=Paris;date=2026-08-01", None], "elicitation_wait_ms_each": 800, "state": "complete"},
                "listen": {"id": "listen:0", "entry": 16, "notifications": ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"], "state": "open at the end (client exited, server tap: no response end)"}},
    notes="Nothing above info may be reported. The listen is the last HAR entry (mitmproxy writes entries in completion order; its time closed at the headers, receive 0). Concurrent calls: ids 1 (A, 400 ms), 2 (B, 60 ms), 3 (add) sent within 1 ms, answered 3, 2, 1. Progress token 4 = the call's own id. Mcp-Param-City of weather Zürich and forecast 東京 are =?base64?…?= (the client's SEP-2243 encoding), Mcp-Param-Days 3, Mcp-Param-Metric false: all agree with the arguments. Latencies are HAR entry times.",
    truth=lambda: check_fetch_tap("har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.har", "truth/ts2h.client_tap.jsonl"),
)
CAPS["stdio_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.logger.log"] = dict(
    summary="The same healthy 2026-07-28 session over stdio: @modelcontextprotocol/client 2.4.0 StdioClientTransport (auto) and @modelcontextprotocol/server 2.4.0 serveStdio behind the recording shim. The client probes server/discover on a sibling process spawned from the same command, so two shim processes appended to one log (the probe's discover, then the session child's traffic, which adopts the probe's result without a second discover). The aborted call is cancelled with notifications/cancelled, and the server never answers it.",
    format="tagged proxy log (recording shim, `TS [STDIN]|[STDOUT] line`, ms UTC)",
    findings=[F("cancelled_request", 12, "c2s", "tools/call slow_echo C 12: notifications/cancelled{requestId 12} 300 ms later; no reply follows (info).")],
    operations={"mrtr": {"ids": [5, 6, 7, 8], "state": "complete"}, "listen": {"id": "listen:0", "notifications": 2, "state": "open"}},
    notes="Nothing above info may be reported. server/discover took 255 ms (Node start-up of the probe child; below --slow). Latencies from the shim's ms stamps.",
    truth=lambda: check_shim_raw("stdio_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.logger.log", "truth/ts2h_stdio.shim"),
)
CAPS["har_fastmcp-4.1.4-tasks__fastmcp-client__healthy-tasks.har"] = dict(
    summary="A healthy 2026-07-28 session with tasks: fastmcp 4.1.4 + fastmcp-tasks 4.1.4 server, fastmcp 4.1.4 Client: two task-augmented slow_task calls (4 steps and 1 step) sent at once with add, both answered with a task handle and polled with tasks/get until completed (the short one first), count_with_progress (3 events), a 3-round MRTR book_flight, a call the client gave up on after 0.3 s (it closes the stream: 2026-07-28 cancellation, no notifications/cancelled), add.",
    format="har (mitmproxy 11.0.2 reverse proxy + SSE streaming addon), Streamable HTTP 2026-07-28, no Mcp-Session-Id",
    findings=[F("cancelled_request", 24, "c2s", "tools/call count_with_progress 24 (40 steps, timeout 0.3 s): the client closed the SSE stream after 6 progress events; no result; not sent again (info).")],
    operations={"task": [{"call": 3, "tool": "slow_task(4)", "polls": [6, 8, 10, 12, 14, 16, 17, 18, 19], "completed_by": 19},
                         {"call": 4, "tool": "slow_task(1)", "polls": [7, 9, 11, 13, 15], "completed_by": 15}],
                "mrtr": {"ids": [21, 22, 23], "requestState_issued_in": 22, "state": "complete"}},
    notes="Nothing above info may be reported. The task calls' own results are handles (resultType task, status working); each tasks/get result is resultType complete with the task's status. Entry 23's time closed at the headers (receive 0): its events have no time of their own.",
    truth=lambda: check_httpx_tap("har_fastmcp-4.1.4-tasks__fastmcp-client__healthy-tasks.har", "truth/fmcp_tasks2.client_tap.jsonl"),
)
CAPS["har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__listen-closed.har"] = dict(
    summary="A healthy 2026-07-28 session whose listen the server ends: TS v2 2.4.0 client (auto) and server; server/discover, subscriptions/listen (acknowledged), add, then close_listens, after whose answer the server calls handler.close(): the listen's stream carries its result {resultType complete, _meta subscriptionId} and ends (the graceful close of basic/patterns/subscriptions).",
    format="har (mitmproxy 11.0.2 reverse proxy + SSE streaming addon), Streamable HTTP 2026-07-28, no session",
    findings=[],
    operations={"listen": {"id": "listen:0", "entry": 3, "notifications": ["notifications/subscriptions/acknowledged"], "ended_by": "its result (graceful close)", "state": "complete"}},
    notes="Nothing may be reported. The listen is paired with its result but gives no latency (rule 14: a stream's life is no latency); latency_ms lists the other three requests only.",
    drop_latency=["listen:0"],
    truth=lambda: check_fetch_tap("har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__listen-closed.har", "truth/ts2h_close.client_tap.jsonl"),
)
CAPS["har_ts-v2-2.4.0-server__fastmcp-4.2.3-client__healthy.har"] = dict(
    summary="A healthy cross-SDK 2026-07-28 session: fastmcp 4.2.3's Client (mode auto; fmcp_client5.py) against the TS SDK v2 2.4.0 server: server/discover, tools/list, add, count_with_progress (3 progress events), subscriptions/listen \"listen-1\" (mcp 2.3.0's listen helper) left open at the end, the 4-round MRTR book_flight (the person waits 1.5 s per question), weather Zürich (Mcp-Param-City =?base64?WsO8cmljaA==?=), enable_extra and the listen's tools/list_changed, tools/list; the client exits hard with the listen open.",
    format="har (mitmproxy 11.0.2 reverse proxy + SSE streaming addon), Streamable HTTP 2026-07-28, no session",
    findings=[],
    operations={"mrtr": {"ids": [5, 6, 7, 8], "entries": [4, 5, 6, 7], "state": "complete"},
                "listen": {"id": "listen-1", "entry": 11, "notifications": 2, "state": "open"}},
    notes="Nothing may be reported. The listen is the last HAR entry (completion order) and its time closed at the headers.",
    truth=lambda: check_httpx_tap("har_ts-v2-2.4.0-server__fastmcp-4.2.3-client__healthy.har", "truth/fmcp_ts2.client_tap.jsonl"),
)
CAPS["har_ts-sdk-1.32.2-json__ts-v2-2.4.0-client__fallback.har"] = dict(
    summary="The TS v2 2.4.0 Client (auto) against the TS SDK 1.32.2 server (stateful, JSON responses), which knows no 2026-07-28: server/discover is refused 400 -32000 'No valid session ID provided' with id null, and the client falls back to initialize (2025-11-25) in a new Mcp-Session-Id session. The rest of the run (the steps the old server lacks answered isError, listen refused by the client itself, the aborted call with notifications/cancelled) is healthy 2025-era traffic.",
    format="har (mitmproxy 11.0.2), Streamable HTTP; two sessions by DESIGN rule 1 (the probe has no Mcp-Session-Id: the origin)",
    findings=[F("null_id_error", None, "s2c", "entry 0: the 400 answer to server/discover has id null although the request's id was readable; it answers that POST's one request (rule 13) and is paired with it."),
              F("cancelled_request", 10, "c2s", "tools/call slow_echo C 10 (entry 16, status 0: the fetch aborted): notifications/cancelled{requestId 10} (entry 13); 2025-11-25 (info).")],
    notes="The GET the client opens after initialize is answered 405 text/html (no JSON-RPC). No hint about malformed messages may be given for the null-id error (its peer read the request).",
    truth=lambda: check_fetch_tap("har_ts-sdk-1.32.2-json__ts-v2-2.4.0-client__fallback.har", "truth/ts2client_ts1server.client_tap.jsonl"),
)

# ---------------------------------------------------------------- raw 2026-07-28 faults
R26 = "steps (entry = step - 1): 1 server/discover 1; 2 [add 2]; 3 [add 3, ping 4]; 4 []; 5 notifications/cancelled{99}; 6 the same with Mcp-Method tools/call; 7 add 5 with Mcp-Method tools/list; 8 add 6 with Mcp-Name subtract; 9 add 7 with Origin http://evil.example; 10 add 8 whose _meta and header name 2099-01-01; 11 add 9 with header MCP-Protocol-Version 2025-06-18, _meta 2026-07-28; 12 no/such_method 10; 13 notifications/cap12/custom; 14 ping 11; 15 weather 12 {city Oslo} with Mcp-Param-City Bergen; 16 weather 13 {city Zürich} with Mcp-Param-City =?base64?WsO8cmljaA==?= (agrees)."
HM = "header_mismatch: {what} (a client fault the driver made on purpose); the server {did}."


def hm(e, id_, what, did):
    return F("header_mismatch", id_, "c2s", f"entry {e}: " + HM.format(what=what, did=did))


CAPS["har_ts-v2-2.4.0-server__raw-faults-2026.har"] = dict(
    summary="Raw 2026-07-28 POSTs (raw_http_faults.py --era 2026) to @modelcontextprotocol/server 2.4.0 (createMcpHandler): arrays refused 400 -32600 id null, [] refused correctly, a notification with a wrong Mcp-Method refused 400 -32020 id null, header mismatches refused 400 -32020, a foreign Origin served 200, an unoffered revision refused -32022, an unknown method and ping (gone in 2026-07-28) 404 -32601.",
    format="har (mitmproxy 11.0.2), Streamable HTTP 2026-07-28, no session (one session by origin)",
    findings=batch_refused(1, [2], -32600, "batches may not contain 2026-07-28 requests", "2026-07-28")
    + batch_refused(2, [3, 4], -32600, "batches may not contain 2026-07-28 requests", "2026-07-28")
    + [F("null_id_error", None, "s2c", "entry 3: [] refused 400 -32600 id null (the right answer; null_id_error by its catalogue row)."),
       F("empty_batch", [], "c2s", "entry 3: [] sent."),
       F("batch_after_version_removed", [], "c2s", "entry 3: an array under 2026-07-28."),
       F("null_id_error", None, "s2c", "entry 5: " + NOTE_REFUSED.format(s=400)),
       F("notification_batch_awaited", None, "c2s", "entry 5: " + AWAITED.format(s=400)),
       hm(5, None, "Mcp-Method tools/call on notifications/cancelled", "refused it 400 -32020"),
       hm(6, 5, "Mcp-Method tools/list on tools/call", "refused it 400 -32020"),
       hm(7, 6, "Mcp-Name subtract, params.name add", "refused it 400 -32020"),
       F("origin_not_rejected", 7, "c2s", "entry 8: Origin http://evil.example on a POST to 127.0.0.1, answered 200 with the result (no Access-Control-Allow-Origin)."),
       hm(10, 9, "MCP-Protocol-Version 2025-06-18, _meta 2026-07-28", "refused it 400 -32020"),
       hm(14, 12, "Mcp-Param-City Bergen, argument city Oslo", "refused it 400 -32020")],
    notes=R26 + " No finding for: entry 9 (2099-01-01 refused with -32022 and the request's id: right), entries 11 and 13 (404 -32601: right under 2026-07-28), entry 15 (Base64 header agrees), entries 4 and 12 (202). Since the fix of this folder's commit, entry 5's id-null error is null_id_error (a refusal), not notification_replied.",
    truth=lambda: check_raw("har_ts-v2-2.4.0-server__raw-faults-2026.har", "truth/faults_ts2_2026.client_tap.jsonl"),
)
CAPS["har_mcp-2.3.0-mcpserver__raw-faults-2026.har"] = dict(
    summary="The same raw 2026-07-28 POSTs to the mcp 2.3.0 MCPServer (Streamable HTTP app): arrays and [] refused 400 -32600 id null, a notification with a wrong Mcp-Method served 202, header mismatches refused 400 -32020 with the request's id, a foreign Origin refused 403 text/plain, an unoffered revision refused -32022, a header revision 2025-06-18 routed to the 2025 path and refused 400 -32600 id null 'Missing session ID', the unknown tool weather answered isError 200 (so the wrong Mcp-Param-City is served).",
    format="har (mitmproxy 11.0.2), Streamable HTTP 2026-07-28, no session",
    findings=batch_refused(1, [2], -32600, "body must be a single object", "2026-07-28")
    + batch_refused(2, [3, 4], -32600, "body must be a single object", "2026-07-28")
    + [F("null_id_error", None, "s2c", "entry 3: [] refused 400 -32600 id null (the right answer)."),
       F("empty_batch", [], "c2s", "entry 3: [] sent."),
       F("batch_after_version_removed", [], "c2s", "entry 3: an array under 2026-07-28."),
       hm(5, None, "Mcp-Method tools/call on notifications/cancelled", "served it 202"),
       hm(6, 5, "Mcp-Method tools/list on tools/call", "refused it 400 -32020"),
       hm(7, 6, "Mcp-Name subtract, params.name add", "refused it 400 -32020"),
       F("missing_response", 7, "c2s", "entry 8: the foreign Origin was refused 403 'Invalid Origin header' (text/plain) before JSON-RPC: no response was due (info, rule 12)", severity="info"),
       F("null_id_error", None, "s2c", "entry 10: 400 -32600 id null 'Missing session ID' answers add 9, the POST's one request (rule 13), paired with it."),
       hm(10, 9, "MCP-Protocol-Version 2025-06-18, _meta 2026-07-28", "refused it 400 (on its 2025 path)"),
       hm(14, 12, "Mcp-Param-City Bergen, argument city Oslo", "served it 200 (tool unknown: isError)")],
    sessions=[1, 2],
    notes=R26 + " Sessions: DESIGN rule 1 takes a response's Mcp-Session-Id for the initialize POST only, so every entry is in the origin session (1); mcp 2.3.0 answers entry 10 (a tools/call sent with MCP-Protocol-Version 2025-06-18 and no session, which its 2025 path refuses) with an mcp-session-id response header, and mcp-audit's HAR reader (src/ingest/har/session.rs: request header, then response header) keys that entry by it (2). Either is accepted here; the difference is reported to the lead.",
    truth=lambda: check_raw("har_mcp-2.3.0-mcpserver__raw-faults-2026.har", "truth/faults_mcp2_2026.client_tap.jsonl"),
)
ts1_26 = [F("null_id_error", None, "s2c", "entry 0: server/discover refused 400 -32000 id null (no session): answers its POST's request, paired.")]
ts1_26 += batch_refused(1, [2], -32000, "no valid session ID", "2026-07-28") + batch_refused(2, [3, 4], -32000, "no valid session ID", "2026-07-28")
ts1_26 += [F("null_id_error", None, "s2c", "entry 3: [] answered 400 -32000 id null."), F("empty_batch", [], "c2s", "entry 3: [] sent."),
           F("batch_after_version_removed", [], "c2s", "entry 3: an array under 2026-07-28."),
           F("empty_batch_not_rejected", [], "s2c", "entry 3: [] answered with code -32000, not -32600.")]
for e in (4, 5, 12):
    ts1_26 += [F("null_id_error", None, "s2c", f"entry {e}: " + NOTE_REFUSED.format(s=400)),
               F("notification_batch_awaited", None, "c2s", f"entry {e}: " + AWAITED.format(s=400))]
ts1_26 += [hm(5, None, "Mcp-Method tools/call on notifications/cancelled", "refused it 400 (no session)")]
for e, i in ((6, 5), (7, 6), (8, 7), (9, 8), (10, 9), (11, 10), (13, 11), (14, 12), (15, 13)):
    ts1_26.append(F("null_id_error", None, "s2c", f"entry {e}: 400 -32000 id null answers request {i} of its POST (rule 13), paired."))
ts1_26 += [hm(6, 5, "Mcp-Method tools/list on tools/call", "refused it 400 (no session)"), hm(7, 6, "Mcp-Name subtract", "refused it 400 (no session)"),
           hm(10, 9, "MCP-Protocol-Version 2025-06-18, _meta 2026-07-28", "refused it 400 (no session)"),
           hm(14, 12, "Mcp-Param-City Bergen, argument city Oslo", "refused it 400 (no session)")]
CAPS["har_ts-sdk-1.32.2-json__raw-faults-2026.har"] = dict(
    summary="The same raw 2026-07-28 POSTs to the TS SDK 1.32.2 server (stateful, JSON responses), which knows no 2026-07-28: every POST without an Mcp-Session-Id is refused 400 -32000 'Bad Request: No valid session ID provided' with id null, notifications included.",
    format="har (mitmproxy 11.0.2), Streamable HTTP, no session (one session by origin)",
    findings=ts1_26,
    notes=R26 + " The foreign Origin (entry 8) is refused 400 for the session, so no origin_not_rejected. Since the fix of this folder's commit the three refused notifications (entries 4, 5, 12) give null_id_error naming the refusal, not notification_replied.",
    truth=lambda: check_raw("har_ts-sdk-1.32.2-json__raw-faults-2026.har", "truth/faults_ts1_2026.client_tap.jsonl"),
)

# ---------------------------------------------------------------- raw 2025-03-26 faults
R25 = "steps (entry = step - 1): 1 initialize 0 (2025-03-26); 2 initialized; 3 [add 1]; 4 [add 2, ping 3]; 5 []; 6 ping 4 with Origin http://evil.example; 7 ping 5 with MCP-Protocol-Version 2025-06-18; 8 notifications/cancelled{77} with Mcp-Session-Id bogus-session; 9 notifications/initialized with params \"bad\"; 10 initialize 6 offering 2099-01-01 without a session header; 11 ping 7; 12 DELETE. Mcp-Session-Id and MCP-Protocol-Version 2025-03-26 on every POST after initialize where the server gave a session."
PVM = "entry 6: MCP-Protocol-Version 2025-06-18 on a POST of a session that negotiated 2025-03-26, served 200."
CAPS["har_ts-sdk-1.32.2-json__raw-faults-2025.har"] = dict(
    summary="Raw 2025-03-26 POSTs (raw_http_faults.py --era 2025) to the TS SDK 1.32.2 server (stateful, JSON responses): [add 1] answered by a bare object, [add 2, ping 3] by an array, [] by an empty 202, a foreign Origin served, a disagreeing MCP-Protocol-Version served, a notification to an unknown session refused 404 -32001 id null, a malformed notification refused 400 -32700 id null, initialize offering 2099-01-01 answered 2025-11-25.",
    format="har (mitmproxy 11.0.2), Streamable HTTP 2025-03-26, JSON responses; three sessions (the first, bogus-session, the second initialize's)",
    findings=[F("batch_reply_not_array", [1], "s2c", "entry 2: [add 1] answered 200 by a bare object."),
              F("empty_batch", [], "c2s", "entry 4: [] sent."),
              F("empty_batch_not_rejected", [], "s2c", "entry 4: [] answered 202 with no body."),
              F("origin_not_rejected", 4, "c2s", "entry 5: Origin http://evil.example answered 200."),
              F("protocol_version_mismatch", 5, "c2s", PVM),
              F("null_id_error", None, "s2c", "entry 7: " + NOTE_REFUSED.format(s=404), session="bogus-session"),
              F("notification_batch_awaited", None, "c2s", "entry 7: " + AWAITED.format(s=404), session="bogus-session"),
              F("null_id_error", None, "s2c", "entry 8: 400 -32700 id null answers the malformed notification (params \"bad\")."),
              F("invalid_request", None, "c2s", "entry 8: params is a string."),
              F("notification_batch_awaited", None, "c2s", "entry 8: " + AWAITED.format(s=400))],
    notes=R25 + " No finding for the initialize offering 2099-01-01 answered 2025-11-25 (the lifecycle allows a server to answer its own revision). Entry 7 was notification_replied before this folder's fix.",
    truth=lambda: check_raw("har_ts-sdk-1.32.2-json__raw-faults-2025.har", "truth/faults_ts1_2025.client_tap.jsonl"),
)
CAPS["har_ts-v2-2.4.0-server__raw-faults-2025.har"] = dict(
    summary="The same raw 2025-03-26 POSTs to @modelcontextprotocol/server 2.4.0, whose 2025-era serving is stateless SSE (no Mcp-Session-Id): [add 1] one SSE event, [add 2, ping 3] two events in completion order 3, 2, [] refused 400 -32600 id null, a foreign Origin served, the notification with a bogus session served 202 (stateless), the malformed notification refused 400 -32600 id null, DELETE 405 with a JSON error id null.",
    format="har (mitmproxy 11.0.2), Streamable HTTP 2025-03-26, stateless SSE; one session (origin)",
    findings=[F("out_of_order_batch", [2, 3], "s2c", "entry 3: responses in order 3, 2."),
              F("null_id_error", None, "s2c", "entry 4: [] refused 400 -32600 id null (the right answer)."),
              F("empty_batch", [], "c2s", "entry 4: [] sent."),
              F("origin_not_rejected", 4, "c2s", "entry 5: Origin http://evil.example answered 200."),
              F("protocol_version_mismatch", 5, "c2s", PVM),
              F("null_id_error", None, "s2c", "entry 8: 400 -32600 id null answers the malformed notification."),
              F("invalid_request", None, "c2s", "entry 8: params is a string."),
              F("notification_batch_awaited", None, "c2s", "entry 8: " + AWAITED.format(s=400)),
              F("null_id_error", None, "s2c", "entry 11: DELETE answered 405 {code -32000, 'Method not allowed.'} id null.")],
    notes=R25 + " The driver sends no session headers here (the server gave no session id).",
    truth=lambda: check_raw("har_ts-v2-2.4.0-server__raw-faults-2025.har", "truth/faults_ts2_2025.client_tap.jsonl"),
)
CAPS["har_mcp-2.3.0-mcpserver__raw-faults-2025.har"] = dict(
    summary="The same raw 2025-03-26 POSTs to the mcp 2.3.0 MCPServer: every array (and []) refused 400 -32602 'Validation error' id null, a foreign Origin refused 403, the disagreeing MCP-Protocol-Version served, the notification to an unknown session refused 404 -32600 'Session not found' id null, the malformed notification refused 400 -32602 id null.",
    format="har (mitmproxy 11.0.2), Streamable HTTP 2025-03-26 (SSE responses); three sessions",
    findings=batch_refused(2, [1], -32602, "validation error") + batch_refused(3, [2, 3], -32602, "validation error")
    + [F("null_id_error", None, "s2c", "entry 4: [] answered 400 -32602 id null."),
       F("empty_batch", [], "c2s", "entry 4: [] sent."),
       F("empty_batch_not_rejected", [], "s2c", "entry 4: code -32602, not -32600."),
       F("missing_response", 4, "c2s", "entry 5: refused 403 'Invalid Origin header' before JSON-RPC (info, rule 12).", severity="info"),
       F("protocol_version_mismatch", 5, "c2s", PVM),
       F("null_id_error", None, "s2c", "entry 7: " + NOTE_REFUSED.format(s=404), session="bogus-session"),
       F("notification_batch_awaited", None, "c2s", "entry 7: " + AWAITED.format(s=404), session="bogus-session"),
       F("null_id_error", None, "s2c", "entry 8: 400 -32602 id null answers the malformed notification."),
       F("invalid_request", None, "c2s", "entry 8: params is a string."),
       F("notification_batch_awaited", None, "c2s", "entry 8: " + AWAITED.format(s=400))],
    notes=R25 + " Entry 7 was notification_replied before this folder's fix.",
    truth=lambda: check_raw("har_mcp-2.3.0-mcpserver__raw-faults-2025.har", "truth/faults_mcp2_2025.client_tap.jsonl"),
)

# ---------------------------------------------------------------- answered after cancel
for sdk, name in (("ts2", "har_ts-v2-2.4.0-server__raw-faults-cancel.har"), ("mcp2", "har_mcp-2.3.0-mcpserver__raw-faults-cancel.har")):
    CAPS[name] = dict(
        summary=("@modelcontextprotocol/server 2.4.0" if sdk == "ts2" else "The mcp 2.3.0 MCPServer") + ", 2026-07-28: tools/call count_with_progress 2 (10 steps, progressToken tok-2) on one connection, and 150 ms later notifications/cancelled{requestId 2} in its own POST on another (202). The server ignores the cancel and streams every progress event and the result.",
        format="har (mitmproxy 11.0.2), Streamable HTTP 2026-07-28; entries in completion order (the cancel is entry 1, the call entry 2)",
        findings=[F("cancelled_request", 2, "c2s", "entry 2: cancelled by entry 1 while unanswered (info)."),
                  F("answered_after_cancel", 2, "s2c", "entry 2: the result came after the cancel (client tap: result read ~270 ms after the cancel was sent).")],
        notes="raw_http_faults.py --era cancel. No progress_after_response (progress stops before the result). The cancelled call has no latency (rule 10: only requests not cancelled).",
        drop_latency=[2],
        truth=(lambda n=name, s=sdk: check_raw(n, f"truth/faults_{s}_cancel.client_tap.jsonl")),
    )

# ---------------------------------------------------------------- stdio 2026-07-28 faults
def stdio_faults(extra):
    return ([F("missing_response", 2, "c2s", "line 3: [add 2] got no reply at all."),
             F("response_count_mismatch", [2], "c2s", "line 3: 1 request, 0 responses."),
             F("batch_after_version_removed", [2], "c2s", "line 3: an array under 2026-07-28."),
             F("missing_response", 3, "c2s", "line 4: no reply."), F("missing_response", 4, "c2s", "line 4: no reply."),
             F("response_count_mismatch", [3, 4], "c2s", "line 4: 2 requests, 0 responses."),
             F("batch_after_version_removed", [3, 4], "c2s", "line 4: an array under 2026-07-28."),
             F("empty_batch", [], "c2s", "line 5: [] sent; no reply (not judged on a line log)."),
             F("batch_after_version_removed", [], "c2s", "line 5: an array under 2026-07-28."),
             F("invalid_request", None, "c2s", "line 7: notifications/cancelled with params \"bad\" (no reply)."),
             F("unknown_progress_token", "tok-zz", "c2s", "the client's progress names tok-zz, which no server request named."),
             F("cancelled_request", 6, "c2s", "count_with_progress 6 cancelled 150 ms after it was sent; never answered" + extra + " (info).")])


CAPS["stdio_ts-v2-2.4.0-server__raw-faults.logger.log"] = dict(
    summary="Raw 2026-07-28 lines (stdio_faults_driver.py) to @modelcontextprotocol/server 2.4.0 serveStdio behind the recording shim: arrays and [] get no reply at all; a notification with params \"bad\" is dropped silently; progress for the cancelled call goes on to 20/20 after the cancel, with no result; add 7 claiming 2099-01-01 and add 8 without _meta are served with 2025-shaped results.",
    format="tagged proxy log (recording shim, `TS [STDIN]|[STDOUT] line`, ms UTC)",
    findings=stdio_faults(" (but its progress went on to 20/20: no catalogue kind)"),
    notes="Line numbers as in the log. No reply answers any notification, so no notification_replied.",
    truth=lambda: check_stdio("stdio_ts-v2-2.4.0-server__raw-faults.logger.log", "truth/stdio_faults_ts2.driver.jsonl"),
)
CAPS["stdio_mcp-2.3.0-mcpserver__raw-faults.logger.log"] = dict(
    summary="The same raw lines to the mcp 2.3.0 MCPServer over stdio: arrays and [] get no reply; the malformed notification is dropped; the cancelled call stops after 4 progress events, unanswered; add 7 claiming 2099-01-01 refused -32022 with its id, add 8 without _meta refused -32602 with its id.",
    format="tagged proxy log (recording shim, `TS [STDIN]|[STDOUT] line`, ms UTC)",
    findings=stdio_faults(""),
    notes="Line numbers as in the log.",
    truth=lambda: check_stdio("stdio_mcp-2.3.0-mcpserver__raw-faults.logger.log", "truth/stdio_faults_mcp2.driver.jsonl"),
)


for f, c in CAPS.items():
    r = reading(f)
    gt = c["truth"]()
    cnt = {k: r["counts"][k] for k in ("requests", "notifications", "responses", "batches")}
    cnt["sessions"] = c.get("sessions", r["counts"].get("sessions", 1))
    drop = set(c.get("drop_latency", []))
    r["latency_ms"] = [x for x in r["latency_ms"] if x[0] not in drop]
    facts = {"counts": cnt, "pairs": r["pairs"], "latency_ms": r["latency_ms"], "expect_exact": True,
             "findings": c["findings"], "optional_findings": []}
    if "operations" in c:
        facts["operations"] = c["operations"]
    exp = {"source_url": None, "capture": f, "summary": c["summary"], "format": c["format"], "facts": facts,
           "ground_truth": gt, "notes": c["notes"] + " Source: a real capture made here (see this folder's README.md); facts derived under docs/DESIGN.md and checked against the sending side's record (scripts/make_expected5.py)."}
    with open(os.path.join(D, f + ".expected.json"), "w") as o:
        json.dump(exp, o, indent=2, ensure_ascii=False)
        o.write("\n")
    print("wrote", f + ".expected.json", cnt, len(c["findings"]), "findings")

"""Write the issue-12 captures' <file>.expected.json and check them against the taps.

python make_expected.py DIR     (DIR holds the captures and truth/)

Counts, pairs and latencies come from read_capture.py's reading of each capture;
findings are written out by hand below from the DESIGN.md catalogue as it stands
(existing kinds), each with `new_kind`: the issue-12 kind that should report it
instead (null: the finding stays as it is). `new_kind_findings` lists every finding an
issue-12 kind should give on the capture, with its location (`new_kind_optional_findings`:
issue-12 readings that are defensible but not required) (check_case.py ignores
both fields). Before writing, every request body in a capture is checked
against the sending side's record (raw driver tap, stdio driver log, fastmcp
client tap) and every response body against the server tap / client tap.
"""
import json, os, subprocess, sys

D = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))


def reading(f):
    out = subprocess.run([sys.executable, os.path.join(HERE, "read_capture.py"), os.path.join(D, f)],
                         capture_output=True, text=True, check=True).stdout.strip().split("\n")[-1]
    return json.loads(out)


def jl(p):
    return [json.loads(x) for x in open(os.path.join(D, p)) if x.strip()]


def har(f):
    return json.load(open(os.path.join(D, f)))["log"]["entries"]


# ---------------------------------------------------------------- truth checks
def check_raw_http(f, tap):
    """raw_http_driver.py tap vs HAR: same bodies, statuses, in order."""
    ents, t = har(f), jl(tap)
    assert len(ents) == len(t), (f, len(ents), len(t))
    for e, r in zip(ents, t):
        assert e["request"]["method"] == r["method"]
        assert ((e["request"].get("postData") or {}).get("text") or None) == r["req_body"], (f, r["n"])
        assert e["response"]["status"] == r["status"], (f, r["n"])
        assert (e["response"]["content"].get("text") or "") == r["resp_body"], (f, r["n"])
    return {r["n"]: {"label": r["label"], "status": r["status"], "client_ms": round(
        (iso(r["t_done"]) - iso(r["t_sent"])) * 1000, 3)} for r in t}


def iso(s):
    import datetime
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def check_stdio(f, drv):
    """stdio_driver.py log vs the shim's tagged log: same lines each way, same order."""
    import re
    sent = [r["line"] for r in jl(drv) if r["dir"] == "sent"]
    got = [r["line"] for r in jl(drv) if r["dir"] == "got"]
    cap_in, cap_out = [], []
    for line in open(os.path.join(D, f), encoding="utf-8").read().split("\n"):
        m = re.match(r"^\S+ \[(STDIN|STDOUT)\] (.*)$", line)
        if m:
            (cap_in if m.group(1) == "STDIN" else cap_out).append(m.group(2))
    assert sent == cap_in, (f, "stdin differs")
    assert got == cap_out, (f, "stdout differs")
    return {"lines_sent": len(sent), "lines_received": len(got)}


def check_client_tap(f, tap):
    """fmcp_client.py httpx tap vs HAR: every POST body as sent; every response body as read."""
    t = jl(tap)
    reqs = {r["rid"]: r for r in t if r["ev"] == "request"}
    body = {}
    for r in t:
        if r["ev"] == "resp_chunk":
            body[r["rid"]] = body.get(r["rid"], "") + r["data"]
    sent = sorted((r["body"], body.get(rid, "")) for rid, r in reqs.items())
    cap = sorted(((e["request"].get("postData") or {}).get("text") or "", e["response"]["content"].get("text") or "")
                 for e in har(f))
    assert sent == cap, (f, "client tap differs from HAR")
    return {"http_requests": len(reqs)}


# ---------------------------------------------------------------- facts
def F(kind, id_, direction, detail, new_kind=None, session=None, **kw):
    d = {"kind": kind, "id": id_}
    if session:
        d["session"] = session
    d.update({"direction": direction, "detail": detail, "new_kind": new_kind})
    d.update(kw)
    return d


def N(kind, id_, direction, where, detail):
    return {"kind": kind, "id": id_, "direction": direction, "location": where, "detail": detail}


TS_SID = "6af716fb-cd8a-4f89-b5f0-f926c0b36183"
PY_SID = "e704a5ff811e4e40b302f4b1dbd6776f"

CAPS = {}

CAPS["stdio_rmcp-3.11.0__raw-lines.logger.log"] = dict(
    summary="rmcp 3.11.0 stdio server (protocol 2025-03-26 negotiated) fed raw lines: every JSON array - a well-formed 2-request batch, a notification-only batch and [] - is answered by one error {code -32600 'Invalid request'} with NO id member and none of its members is run; a notification with params \"bad\" is answered the same way; the other single notifications are not answered; a cancelled call's response is dropped.",
    format="tagged proxy log (recording shim scripts/shim.py, `TS [STDIN]|[STDOUT]|[STDERR] line`, ms UTC; stderr = rmcp tracing at RUST_LOG=debug)",
    sessions=1, drop_latency=[],
    findings=[
        F("missing_response", 2, "c2s", "tools/list 2 (batch of line 7) never answered: rmcp rejected the whole array with one id-less -32600 error (line 8) and ran neither member (its debug log: 'Failed to parse message ... unrecognized JSON-RPC message').", None),
        F("cancelled_request", 1, "c2s", "tools/call 1 (batch of line 7) was never answered and the notification-only batch of line 11 carries notifications/cancelled {requestId 1}; that batch was rejected too, but the capture shows the cancel sent while 1 was unanswered.", None),
        F("response_count_mismatch", [1, 2], "c2s", "batch of line 7: valid-id requests 1 and 2 (1 cancelled later), 0 responses linked; the only reply is the id-less error of line 8.", None),
        F("null_id_error", None, "s2c", "line 8: {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Invalid request\"}} - no id member at all - answering the well-formed batch of line 7.", "batch_rejected_whole"),
        F("null_id_error", None, "s2c", "line 14: the same id-less -32600 error answering the notification-only batch of line 11 (JSON-RPC: nothing is to be returned for a batch of notifications; not notification_batch_replied under rule 8 because the reply is not an array).", "batch_rejected_whole"),
        F("empty_batch", [], "c2s", "line 15: the client sends []; rmcp answers one Invalid Request error (line 16), which is what JSON-RPC 2.0 asks for (there with id null; rmcp omits the id member).", None),
        F("null_id_error", None, "s2c", "line 16: the id-less -32600 error answering [] (line 15): the right answer to an empty array, so no issue-12 kind; only the absent id member differs from JSON-RPC 2.0's id null.", None),
        F("invalid_request", None, "c2s", "line 36: notifications/initialized with params \"bad\" (a string: params neither object nor array).", None),
        F("null_id_error", None, "s2c", "line 37: the id-less -32600 error answering the single (malformed) notification of line 36. JSON-RPC 2.0 lets a server answer an invalid Request object with an Invalid Request error (id null); whether a malformed notification's answer is notification_replied is for the catalogue to settle. The sending side's record says what it answers: rmcp's own debug line right after it (line 38, 'Failed to parse message receive: {...notifications/initialized...\\\"bad\\\"}') and no request of the client was in flight at rmcp (tools/list 2 is still formally pending in the log because its batch was refused, see line 7).", "notification_replied"),
        F("cancelled_request", 5, "c2s", "tools/call slow_echo 5 (line 42, 400 ms) cancelled by notifications/cancelled at line 44 after 105 ms; rmcp finished the call and dropped its response (stderr line 48: 'dropping response for cancelled request id=5'): no response, not answered_after_cancel.", None),
    ],
    optional=[],
    new=[
        N("batch_rejected_whole", [1, 2], "s2c", {"line": 8}, "the well-formed batch [tools/call 1, tools/list 2] (line 7) answered by one error with no id member, neither member run."),
        N("batch_rejected_whole", [], "s2c", {"line": 14}, "the notification-only batch (line 11) answered by the same id-less error, its notifications not processed (JSON-RPC: no reply at all)."),
        N("notification_replied", None, "s2c", {"line": 37}, "the single notification notifications/initialized with params \"bad\" (line 36) answered by the id-less -32600 error. Tentative: the notification is malformed, and JSON-RPC 2.0 allows an Invalid Request error for an invalid Request object."),
    ],
    new_optional=[
        N("unknown_progress_token", "tok-3", "c2s", {"line": 34}, "driver-made: the client's own notifications/progress with token \"tok-3\" (named by the client's request 3, answered at line 29); no server->client request named it. A direction-aware rule reports it (the lead's working binary of 2026-12-02 does), a direction-blind one could call it progress_after_response instead; either reading is defensible, so it is optional."),
    ],
    notes="rmcp 3.11.0's stdio transport (src/transport/async_rw.rs) parses each line as ONE JSON-RPC message; an array is serde 'Data' error -> queued error `TxJsonRpcMessage::error(ErrorData::invalid_request(\"Invalid request\", None), None)` -> written with no `id` member. Every array gets it, the empty one included (a correct answer there). Single notifications whose method is unknown (notifications/cap12/custom), whose params do not fit (notifications/cancelled without requestId; notifications/progress with progress \"half\") or that use a request method without an id ({\"method\":\"ping\"}) parse as CustomNotification and are not answered; notifications/initialized with params \"bad\" fails to parse and IS answered (line 37). Progress for tok-3 (lines 25-27) arrives before the result (line 29): no progress_after_response, no unknown_progress_token from the server. Line 34 is DRIVER-MADE, not an SDK fault: the client sends notifications/progress with token \"tok-3\" (its own request 3's token, answered at line 29) and progress \"half\" to test a malformed notification; a direction-aware unknown_progress_token (no server request named tok-3) or a direction-blind progress_after_response could both be read into it, and rmcp ignores it - so it is in no required list (see new_kind_optional_findings). Batching is legal under the negotiated 2025-03-26, so no batch_after_version_removed. Latencies from the shim's ms stamps.",
    truth=lambda: check_stdio("stdio_rmcp-3.11.0__raw-lines.logger.log", "truth/rmcp_stdio.driver.jsonl"),
)

CAPS["har_ts-sdk-1.32.2-json__raw-batches.har"] = dict(
    summary="TS SDK @modelcontextprotocol/sdk 1.32.2 McpServer, Streamable HTTP, stateful, enableJsonResponse: true, protocol 2025-03-26; raw POSTs: a one-element batch is answered with a bare object, a batch [notification, ping 5] with a bare object, a 3-request batch with an array in request order, [] with an empty 202, a notification-only batch with 202; progress notifications of a single call are dropped (JSON mode has no stream for them).",
    format="har (mitmproxy 11.0.2 reverse proxy), Streamable HTTP, JSON responses, raw httpx POSTs (scripts/raw_http_driver.py)",
    sessions=1, drop_latency=[],
    findings=[
        F("empty_batch", [], "c2s", "entry 4 POSTs []; the server answers HTTP 202 with no body instead of one Invalid Request error.", None, session=TS_SID),
    ],
    optional=[],
    new=[
        N("batch_reply_not_array", [1], "s2c", {"entry": 2}, "the one-element batch [tools/call add 1] is answered 200 application/json with the bare object {\"result\":...,\"id\":1} (webStandardStreamableHttp.js: responses.length === 1 -> JSON.stringify(responses[0]))."),
        N("batch_reply_not_array", [5], "s2c", {"entry": 6}, "the batch [notifications/roots/list_changed, ping 5] holds one request and is answered with the bare object {\"result\":{},\"id\":5}."),
        N("empty_batch_not_rejected", [], "c2s", {"entry": 4}, "[] answered 202, empty body (the TS server counts no request in it and returns 202 as for notifications)."),
    ],
    notes="Batching is legal under the negotiated 2025-03-26: no batch_after_version_removed. The 3-request batch of entry 3 is answered with a JSON array in REQUEST order [2,3,4] although slow_echo 2 (150 ms) finished last (the JSON mode collects all responses, then writes them in request order): no out_of_order_batch. The notification-only batch (entry 5) gets 202 empty: healthy. count_with_progress 6 (entry 7) asked for progress (progressToken tok-6) and the tool sent 3 notifications/progress, but none reached the wire (JSON mode, no GET stream: the server tap has no progress either); the result arrives 184.9 ms after the POST. No finding names lost progress. Latencies are the entries' times (µs).",
    truth=lambda: check_raw_http("har_ts-sdk-1.32.2-json__raw-batches.har", "truth/ts_json.client_tap.jsonl"),
)

PYERR = "one HTTP 400 application/json error {\"jsonrpc\":\"2.0\",\"id\":\"server-error\",\"error\":{\"code\":-32602,\"message\":\"Validation error: 4 validation errors for JSONRPCMessage ...\"}}"
CAPS["har_py-mcp-1.30.0-json__raw-batches.har"] = dict(
    summary="Python SDK mcp 1.30.0 FastMCP, Streamable HTTP, stateful, json_response=True, protocol 2025-03-26; the same raw POSTs: every JSON array (one-element, 3-request, [], notification-only, [notification, ping]) is answered by one HTTP 400 error with the placeholder id \"server-error\" and code -32602, none of its members run; single requests are answered normally.",
    format="har (mitmproxy 11.0.2 reverse proxy), Streamable HTTP, JSON responses, raw httpx POSTs (scripts/raw_http_driver.py)",
    sessions=1, drop_latency=[],
    findings=[
        F("unknown_id_response", "server-error", "s2c", "entry 2: " + PYERR + " answering the one-element batch [tools/call add 1].", "placeholder_id_error", session=PY_SID),
        F("cancelled_request", 1, "c2s", "tools/call 1 (entry 2) never answered; the notification-only batch of entry 5 carries notifications/cancelled {requestId 1} (itself rejected by the server, but sent while 1 was unanswered).", None, session=PY_SID),
        F("response_count_mismatch", [1], "c2s", "batch of entry 2: its only request (1) is cancelled and unanswered, so 0 responses expected; the POST's own body holds the \"server-error\" error (id not null), so 1 is linked.", None, session=PY_SID),
        F("unknown_id_response", "server-error", "s2c", "entry 3: the same error answering the 3-request batch [tools/call 2, tools/call 3, tools/list 4].", "placeholder_id_error", session=PY_SID),
        F("missing_response", 2, "c2s", "tools/call slow_echo 2 (entry 3) never run: the whole batch was rejected (server tap: no CallToolRequest processed).", None, session=PY_SID),
        F("missing_response", 3, "c2s", "tools/call add 3 (entry 3), same rejected batch.", None, session=PY_SID),
        F("missing_response", 4, "c2s", "tools/list 4 (entry 3), same rejected batch.", None, session=PY_SID),
        F("response_count_mismatch", [2, 3, 4], "c2s", "batch of entry 3: 3 valid-id requests, 1 response linked (the POST's own \"server-error\" body).", None, session=PY_SID),
        F("unknown_id_response", "server-error", "s2c", "entry 4: the same error answering [].", "placeholder_id_error", session=PY_SID),
        F("empty_batch", [], "c2s", "entry 4 POSTs []; the answer is a -32602 (Invalid params) error with id \"server-error\", not one Invalid Request (-32600) error with id null.", None, session=PY_SID),
        F("unknown_id_response", "server-error", "s2c", "entry 5: the same error answering the notification-only batch.", "placeholder_id_error", session=PY_SID),
        F("notification_batch_replied", [], "s2c", "entry 5: the notification-only batch [notifications/roots/list_changed, notifications/cancelled] is answered with a JSON body (400).", None, session=PY_SID),
        F("notification_batch_awaited", [], "c2s", "entry 5: a notification-only POST answered 400 with a body (48.6 ms) instead of an empty 202.", None, session=PY_SID),
        F("unknown_id_response", "server-error", "s2c", "entry 6: the same error answering [notifications/roots/list_changed, ping 5].", "placeholder_id_error", session=PY_SID),
        F("missing_response", 5, "c2s", "ping 5 (entry 6) never answered: batch rejected whole.", None, session=PY_SID),
    ],
    optional=[],
    new=[
        N("placeholder_id_error", "server-error", "s2c", {"entry": 2}, "error with the constant id \"server-error\" that no request had (answering [tools/call 1])."),
        N("placeholder_id_error", "server-error", "s2c", {"entry": 3}, "the same, answering [2, 3, 4]."),
        N("placeholder_id_error", "server-error", "s2c", {"entry": 4}, "the same, answering []."),
        N("placeholder_id_error", "server-error", "s2c", {"entry": 5}, "the same, answering the notification-only batch."),
        N("placeholder_id_error", "server-error", "s2c", {"entry": 6}, "the same, answering [notification, ping 5]."),
        N("empty_batch_not_rejected", [], "c2s", {"entry": 4}, "[] answered by a -32602 error with id \"server-error\", not one Invalid Request (-32600) error."),
    ],
    notes="Every array is refused whole, but with the constant id \"server-error\", not an id-less or id-null error, so batch_rejected_whole (as the lead's draft rule 13 words it: no id member or id null) does not apply; placeholder_id_error replaces each unknown_id_response, and the members' missing_response and the batches' response_count_mismatch stay. mcp 1.30.0's StreamableHTTPServerTransport validates the whole POST body as ONE JSONRPCMessage (pydantic); an array fails all four union members and the transport answers HTTP 400 with id \"server-error\" (a constant it also uses for other transport errors) and code -32602 (INVALID_PARAMS), not -32600. No response_count_mismatch for the batch of entry 6: its one valid-id request (5) and the one linked \"server-error\" response balance under rule 9. count_with_progress 6 (entry 7): no progress on the wire in JSON mode (the server tap has none), result after 204.3 ms. Batching is legal under the negotiated 2025-03-26. Latencies are the entries' times (µs).",
    truth=lambda: check_raw_http("har_py-mcp-1.30.0-json__raw-batches.har", "truth/py_json.client_tap.jsonl"),
)

MRTR_NOTE = ("MRTR (SEP-2322) as fastmcp's Client drives it: the three tools/call book_flight POSTs are ids 5, 6, 7 (a new id per round). Round 1 (id 5) carries no inputResponses/requestState and is answered resultType \"input_required\" with inputRequests.destination (an elicitation/create form) and NO requestState; round 2 (id 6) carries inputResponses.destination and still no requestState (none was issued), and is answered input_required with inputRequests.date AND a sealed requestState \"v1....\" (fastmcp seals the tool's plaintext 'dest=Paris'); round 3 (id 7) carries inputResponses.date and that requestState byte for byte and gets resultType \"complete\". So requestState alone cannot link round 1 to round 2: only tools/call + params.name + arguments do. The person's wait (the client's elicitation handler sleeps 1.5 s per round) lies between the rounds, not inside any request: server time 20-40 ms per round, the operation ~3.1 s. Every request carries _meta io.modelcontextprotocol/protocolVersion \"2026-07-28\", clientInfo, clientCapabilities, logLevel, and tools/call also progressToken = its own id; every POST carries headers MCP-Protocol-Version: 2026-07-28 and Mcp-Method (tools/call also Mcp-Name: the tool name); results carry resultType and _meta io.modelcontextprotocol/serverInfo. No Mcp-Session-Id, no initialize, no DELETE: the session starts with server/discover (id 1).")

CAPS["har_fastmcp-4.2.3__mrtr.har"] = dict(
    summary="fastmcp 4.2.3 server (mcp 2.3.0) and fastmcp's own Client under 2026-07-28 (server/discover, no initialize, no session id): a 3-round MRTR tools/call (input_required twice, requestState issued in round 2 and echoed in round 3), progress on a POST SSE stream, and a subscriptions/listen the server refuses with HTTP 404 + -32601 (fastmcp 4.2.3 serves no listen and advertises listChanged false).",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE streaming addon), Streamable HTTP 2026-07-28, fastmcp Client",
    sessions=1, drop_latency=[4],
    findings=[],
    optional=[],
    new=[],
    operations={"mrtr": {"ids": [5, 6, 7], "entries": [5, 6, 7], "requestState_issued_in": 6, "requestState_echoed_in": 7,
                          "server_ms": [33.061, 20.847, 14.406]}},
    notes=MRTR_NOTE + " The listen (id \"listen-1\", entry 4) is answered 404 application/json {\"error\":{\"code\":-32601,\"message\":\"Method not found\",\"data\":\"subscriptions/listen\"}} - the 2026-07-28 rule for an unknown method (HTTP 404 + -32601), so nothing to flag; the client carries on without it. count_with_progress 4 (entry 3): 3 notifications/progress (progressToken 4, numbers) then the result on one SSE body; mitmproxy closed the entry's time at the headers (timings.receive 0, time 18.5 ms; client tap: ~190 ms), so its latency is left out of latency_ms. No finding.",
    truth=lambda: check_client_tap("har_fastmcp-4.2.3__mrtr.har", "truth/fmcp.client_tap.jsonl"),
)

CAPS["har_mcp-2.3.0-mcpserver__fastmcp-client__mrtr-listen.har"] = dict(
    summary="Python SDK mcp 2.3.0 MCPServer (serves subscriptions/listen) driven by fastmcp 4.2.3's Client under 2026-07-28: the same 3-round MRTR book_flight, progress on a POST stream, and a subscriptions/listen (toolsListChanged) acknowledged, then tagged with its subscription id on notifications/tools/list_changed, and still open when the client went away (no response).",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE streaming addon), Streamable HTTP 2026-07-28, fastmcp Client",
    sessions=1, drop_latency=[4],
    findings=[
        F("missing_response", "listen-1", "c2s", "subscriptions/listen \"listen-1\" (entry 9, the LAST entry although it started at 06:07:55.756, before entry 4) has no response: a listen's result comes only when the stream ends gracefully, and the client exited with it open.", None, issue12="must not be reported: a subscriptions/listen open at the end of the capture is a live stream"),
        F("stream_closed_before_response", "listen-1", "c2s", "entry 9's SSE body (ack + one tools/list_changed) ended without the listen's response: the client exited hard (os._exit) while the listen was open.", None, issue12="must not be reported either (the same live listen)"),
    ],
    optional=[],
    new=[],
    operations={"mrtr": {"ids": [5, 6, 7], "entries": [4, 5, 6], "requestState_issued_in": 5, "requestState_echoed_in": 6,
                          "server_ms": [37.556, 24.96, 30.417]},
                "listen": {"id": "listen-1", "entry": 9, "ack": "notifications/subscriptions/acknowledged", "tagged": ["notifications/tools/list_changed"],
                           "meta_key": "io.modelcontextprotocol/subscriptionId"}},
    notes=MRTR_NOTE.replace("server time 20-40 ms", "server time 25-38 ms") + " The listen POST (entry 9, id \"listen-1\", Mcp-Method: subscriptions/listen, params.notifications {toolsListChanged: true}) is answered 200 text/event-stream: first notifications/subscriptions/acknowledged {_meta {io.modelcontextprotocol/subscriptionId: \"listen-1\"}, notifications {toolsListChanged: true}}, then - after tools/call enable_extra (id 8, entry 7) added a tool - notifications/tools/list_changed with the same _meta subscriptionId. The entry's time closed at the headers (receive 0, 37.9 ms), so the list_changed event's nominal time (06:07:55.79) is 3.2 s before the call that caused it (server tap: sent 06:07:59.03). Its result never comes. Under issue 12 this capture should give no finding above info. count_with_progress 4 (entry 3): receive 0, latency left out as in the fastmcp capture.",
    truth=lambda: check_client_tap("har_mcp-2.3.0-mcpserver__fastmcp-client__mrtr-listen.har", "truth/mcp2.client_tap.jsonl"),
)

CAPS["har_fastmcp-4.1.4-tasks__tasks.har"] = dict(
    summary="fastmcp 4.1.4 + fastmcp-tasks 4.1.4 (mcp 2.3.0) server and the fastmcp 4.1.4 Client with task support under 2026-07-28: three tools/call answered with a task handle (resultType \"task\"), polled with tasks/get until completed; one task pauses with status input_required and is answered with tasks/update; one is cancelled with tasks/cancel; no notification at all.",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE streaming addon), Streamable HTTP 2026-07-28, fastmcp Client with fastmcp_tasks",
    sessions=1, drop_latency=[],
    findings=[],
    optional=[],
    new=[],
    operations={"tasks": [
        {"tool": "slow_task", "call_id": 3, "entries": [2, 9], "task_handle_entry": 2, "polls": [4, 5, 6, 7, 8, 9, 10], "final": {"id": 10, "entry": 9, "status": "completed"}, "operation_ms": 967.247, "sum_of_entry_times_ms": 129.915},
        {"tool": "plan_dinner", "call_id": 11, "entries": [10, 13], "polls": [12, 14], "input_required_in": {"id": 12, "entry": 11}, "answered_by": {"method": "tasks/update", "id": 13, "entry": 12}, "final": {"id": 14, "entry": 13, "status": "completed"}, "operation_ms": 1612.76},
        {"tool": "long_task", "call_id": 15, "entries": [14, 16], "cancel": {"method": "tasks/cancel", "id": 16, "entry": 15}, "final": {"id": 17, "entry": 16, "status": "cancelled"}, "operation_ms": 1532.92}]},
    notes="Tasks extension io.modelcontextprotocol/tasks (advertised under capabilities.extensions in the server/discover result; the client advertises it in every request's _meta io.modelcontextprotocol/clientCapabilities.extensions). A tasked tools/call is answered at once with {taskId, status \"working\", createdAt, lastUpdatedAt, ttlMs 900000, pollIntervalMs 200, resultType \"task\"}; tasks/get {taskId} answers with the status (resultType \"complete\" on the get itself) and, once completed, the tool's CallToolResult under result. The task's ctx.report_progress calls do not become notifications/progress: they show only as statusMessage \"step i/3\" in tasks/get results, so progressToken 3 of the slow_task call never sees a progress notification (no unknown_progress_token, no progress_after_response). plan_dinner's guard returns input_required inside the task: tasks/get (id 12) shows status \"input_required\" with inputRequests keyed \"<taskId>:<hash>\"; the client (elicitation handler waits 1.5 s) answers with tasks/update {taskId, inputResponses} (id 13, result {}), then tasks/get id 14 is completed. long_task: call_tool_task (no progressToken in its _meta), tasks/cancel id 16 after 0.5 s, tasks/get id 17 status \"cancelled\"; no final result, nothing answered after the cancel. clientInfo in every _meta is {name \"mcp\", version \"0.1.0\"} in 4.1.4 (4.2.3 sends fastmcp/4.2.3). All 18 requests paired; each operation's time spans several entries (operations above). No finding today, and none expected under issue 12: a call answered with a task handle is not done until its tasks/get says completed/cancelled.",
    truth=lambda: check_client_tap("har_fastmcp-4.1.4-tasks__tasks.har", "truth/fmcp_tasks.client_tap.jsonl"),
)


def versions(sdk, sa, sb, err_finding, err_text, offered_answer):
    return dict(
        summary=f"{sdk}, Streamable HTTP JSON mode, two raw sessions: (A) initialize offering \"2025-01-01\" (a revision no SDK knows) is answered with protocolVersion \"{offered_answer}\" and the session works on under it; (B) after negotiating 2025-03-26, a ping with header MCP-Protocol-Version 2025-06-18 (supported, not negotiated) is answered 200, a ping with header 2025-01-01 is refused 400 ({err_text}), a ping with the right header is answered.",
        format="har (mitmproxy 11.0.2 reverse proxy), Streamable HTTP, JSON responses, raw httpx POSTs (scripts/raw_http_versions.py)",
        sessions=2, drop_latency=[],
        findings=[
            F("missing_response", 2, "c2s", "ping 2 (entry 7, header MCP-Protocol-Version 2025-01-01) refused with HTTP 400 and an error that does not carry id 2.", None, session=sb),
            err_finding,
        ],
        optional=[],
        new=[
            N("protocol_version_mismatch", 0, "s2c", {"entry": 0}, f"initialize 0 offered 2025-01-01; the result names {offered_answer}, a revision the client did not offer (the spec lets a server answer its own revision; the client should then disconnect, this one carries on in session A)."),
            N("protocol_version_mismatch", 1, "c2s", {"entry": 6}, "ping 1 of session B carries MCP-Protocol-Version 2025-06-18, but the session negotiated 2025-03-26; the server answers 200 anyway (it only checks that the header names a supported revision)."),
            N("protocol_version_mismatch", 2, "c2s", {"entry": 7}, "ping 2 carries MCP-Protocol-Version 2025-01-01 (not negotiated, not supported); the server rightly refuses it with 400."),
        ],
        notes=f"Session A ({sa}) negotiated {offered_answer} after the client offered 2025-01-01; initialized and ping 1 carry the header {offered_answer} and are served. Session B ({sb}) negotiated 2025-03-26. DELETE ends each session (200). Latencies are the entries' times (µs). Today's catalogue has no kind for either disagreement.",
    )


CAPS["har_ts-sdk-1.32.2-json__versions.har"] = dict(versions(
    "TS SDK @modelcontextprotocol/sdk 1.32.2 (scripts/ts_json_server.mjs)", "07965950-28bf-434d-b70b-9789c8367329", "6c860a68-69f8-4ea7-ba8f-d5e5d7ffc7cc",
    F("null_id_error", None, "s2c", "entry 7: HTTP 400 {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: Unsupported protocol version: 2025-01-01 (supported versions: ...)\"},\"id\":null} answering ping 2.", None, session="6c860a68-69f8-4ea7-ba8f-d5e5d7ffc7cc"),
    "-32000, id null", "2025-11-25"),
    truth=lambda: check_raw_http("har_ts-sdk-1.32.2-json__versions.har", "truth/ts_versions.client_tap.jsonl"))

CAPS["har_py-mcp-1.30.0-json__versions.har"] = dict(versions(
    "Python SDK mcp 1.30.0 FastMCP (scripts/py1_server.py --json-response)", "b8d8805e2fcb4e95b497621594a59242", "d2907ce28dc94caeaf0ff313bb8e8054",
    F("unknown_id_response", "server-error", "s2c", "entry 7: HTTP 400 {\"jsonrpc\":\"2.0\",\"id\":\"server-error\",\"error\":{\"code\":-32600,\"message\":\"Bad Request: Unsupported protocol version: 2025-01-01. Supported versions: ...\"}} answering ping 2.", "placeholder_id_error", session="d2907ce28dc94caeaf0ff313bb8e8054"),
    "-32600, id \"server-error\"", "2025-11-25"),
    truth=lambda: check_raw_http("har_py-mcp-1.30.0-json__versions.har", "truth/py_versions.client_tap.jsonl"))
CAPS["har_py-mcp-1.30.0-json__versions.har"]["new"].append(
    N("placeholder_id_error", "server-error", "s2c", {"entry": 7}, "the 400's error carries the constant id \"server-error\" that no request had."))


def raw2026(sdk, rejection, extra_notes, hdr_reply):
    return dict(
        summary=f"{sdk}, raw 2026-07-28 POSTs (no initialize, no session; _meta protocolVersion on every request, MCP-Protocol-Version and Mcp-Method headers): every JSON array - [tools/call 3], [tools/call 4, ping 5] and [] - is refused with HTTP 400 {rejection}; a single notification gets 202; progress before the result on an SSE body; an unknown method gets HTTP 404 + -32601; a tools/call whose Mcp-Method header says tools/list is refused with 400 -32020 ({hdr_reply}).",
        format="har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2026-07-28, raw httpx POSTs (scripts/raw_http_2026.py)",
        sessions=1, drop_latency=[],
        findings=[
            F("null_id_error", None, "s2c", f"entry 2: HTTP 400 {rejection} answering [tools/call add 3] (an array in 2026-07-28, where batching is gone).", "batch_rejected_whole"),
            F("missing_response", 3, "c2s", "tools/call 3 (entry 2) never run: the array was refused whole.", None),
            F("response_count_mismatch", [3], "c2s", "array of entry 2: 1 valid-id request, 0 responses linked (the id-null error is counted apart).", None),
            F("null_id_error", None, "s2c", f"entry 3: the same HTTP 400 answering [tools/call add 4, ping 5].", "batch_rejected_whole"),
            F("missing_response", 4, "c2s", "tools/call 4 (entry 3), array refused whole.", None),
            F("missing_response", 5, "c2s", "ping 5 (entry 3), array refused whole.", None),
            F("response_count_mismatch", [4, 5], "c2s", "array of entry 3: 2 valid-id requests, 0 responses linked.", None),
            F("null_id_error", None, "s2c", "entry 4: HTTP 400, one -32600 error with id null answering [] - the answer JSON-RPC 2.0 asks for, so no issue-12 kind.", None),
            F("empty_batch", [], "c2s", "entry 4 POSTs [].", None),
        ] + extra_notes[0],
        optional=[
            {"kind": "stream_closed_before_response", "id": i, "direction": "c2s", "new_kind": None,
             "detail": f"entry {e}: the exchange completed with a JSON body, not an SSE stream, without a response for {i}; DESIGN names SSE streams only (as in ../../real/har_ts-streamable-sse__raw-batches.har)."}
            for i, e in ((3, 2), (4, 3), (5, 3))],
        new=[
            N("batch_after_version_removed", [3], "c2s", {"entry": 2}, "an existing kind, newly reachable: the array's members carry _meta protocolVersion 2026-07-28 (the revision is per request under issue 12; there is no initialize to read it from)."),
            N("batch_after_version_removed", [4, 5], "c2s", {"entry": 3}, "the same for [tools/call 4, ping 5]."),
            N("batch_after_version_removed", [], "c2s", {"entry": 4}, "the same for [] (headers say 2026-07-28)."),
            N("batch_rejected_whole", [3], "s2c", {"entry": 2}, "one id-null -32600 error, the member not run."),
            N("batch_rejected_whole", [4, 5], "s2c", {"entry": 3}, "one id-null -32600 error, neither member run."),
            N("header_mismatch", 8, "c2s", {"entry": 8}, "tools/call add 8 sent with header Mcp-Method: tools/list; the server rightly refuses it (400, -32020)."),
        ] + extra_notes[1],
        notes=extra_notes[2] + " The single notifications/cancelled {requestId 99} (entry 5) names no request and is answered 202 empty: healthy, no cancelled_request. The unknown method (entry 7) is answered HTTP 404 with -32601 and id 7, as 2026-07-28 requires. Under the committed catalogue no batch_after_version_removed (no initialize result names a revision); it is listed under new_kind_findings. Latencies are the entries' times (µs).",
    )


CAPS["har_ts-server-2.4.0__raw-2026.har"] = dict(raw2026(
    "TS SDK v2 @modelcontextprotocol/server 2.4.0 (createMcpHandler, defaults; scripts/ts2_server.mjs)",
    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later\"},\"id\":null} ([] gets 'Bad Request: empty JSON-RPC batch')",
    ([], [], "TS v2 names the rejection reasons in its onerror callback (truth/ts2_2026.server_stderr.txt: batch-with-modern-element, empty-batch, method-header-mismatch). The -32020 answer to the header mismatch carries id 8 and data.mismatch {header, body}, so it pairs with request 8."),
    "id 8, data.mismatch"),
    truth=lambda: check_raw_http("har_ts-server-2.4.0__raw-2026.har", "truth/ts2_2026.client_tap.jsonl"))

CAPS["har_fastmcp-4.2.3__raw-2026.har"] = dict(raw2026(
    "fastmcp 4.2.3 server (mcp 2.3.0 transport; scripts/fmcp_server.py)",
    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Body must be a single JSON-RPC request or notification object\"},\"id\":null} (the same text for [])",
    ([], [], "The mcp 2.3.0 MCPServer (scripts/mcp2_server.py) gave the same answers to the same POSTs (run once, not kept). The -32020 answer to the header mismatch carries id 8, so it pairs with request 8."),
    "id 8"),
    truth=lambda: check_raw_http("har_fastmcp-4.2.3__raw-2026.har", "truth/raw2026_fastmcp.client_tap.jsonl"))

CAPS["har_ts-server-2.4.0__raw-legacy.har"] = dict(
    summary="TS SDK v2 @modelcontextprotocol/server 2.4.0 (createMcpHandler defaults: 2025-era traffic served statelessly, SSE replies) given the 2025-03-26 raw batch sequence of the other batch captures: the 3-request batch comes back in completion order [4,3,2] as SSE events, [] is refused with 400 -32600 id null (correct), the one-element batch and [notification, ping 5] are answered on SSE, a notification-only batch gets 202, progress reaches the wire; no session id, DELETE 405.",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2025-03-26 stateless, raw httpx POSTs (scripts/raw_http_driver.py)",
    sessions=1, drop_latency=[],
    findings=[
        F("out_of_order_batch", [2, 3, 4], "s2c", "batch [slow_echo 2 (150 ms), add 3, tools/list 4] (entry 3) answered on its SSE body in completion order 4, 3, 2.", None),
        F("null_id_error", None, "s2c", "entry 4: HTTP 400 {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Bad Request: empty JSON-RPC batch\"},\"id\":null} answering [] - the right answer, no issue-12 kind.", None),
        F("empty_batch", [], "c2s", "entry 4 POSTs [].", None),
        F("null_id_error", None, "s2c", "entry 9: DELETE answered 405 with {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Method not allowed.\"},\"id\":null} (stateless serving has no session to delete).", None),
    ],
    optional=[],
    new=[],
    notes="No Mcp-Session-Id anywhere (createMcpHandler's legacy 'stateless' mode builds a fresh server per POST), so the session is the origin. The one-element batch (entry 2) and [notification, ping 5] (entry 6) are answered with one SSE event each: not batch_reply_not_array (SSE bodies carry responses one event each). count_with_progress 6 (entry 7): 3 notifications/progress (tok-6) then the result on the SSE body. Batching is legal under the negotiated 2025-03-26. Latencies are the entries' times (µs); the SSE events of one body share them.",
    truth=lambda: check_raw_http("har_ts-server-2.4.0__raw-legacy.har", "truth/ts2_legacy.client_tap.jsonl"),
)

CAPS["har_fastmcp-4.2.3__client-timeout.har"] = dict(
    summary="fastmcp 4.2.3 server and Client under 2026-07-28: tools/call count_with_progress 2 (40 steps, ~2 s) with a 0.5 s client timeout; the client gives up by closing the POST's SSE stream after 9 progress events and sends no notifications/cancelled (the mcp 2.3.0 client transport swallows it at 2026: closing the stream is the cancellation); the server stops, no result ever comes; then add 3 and tools/list 4 work normally.",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2026-07-28, fastmcp Client",
    sessions=1, drop_latency=[],
    findings=[
        F("missing_response", 2, "c2s", "tools/call 2 (entry 1) has no response: the client timed out after 0.5 s and closed the stream (client tap: resp_close at 06:23:00.848 after 9 chunks); the server's handler was cancelled (server tap: 9 progress events, no result, no end).", None,
          issue12="under 2026-07-28 closing a request's response stream over Streamable HTTP is its cancellation (mcp 2.3.0 src/mcp/client/streamable_http.py _consume_modern_cancellation); the HAR alone cannot tell this close from a cut (status 200, receive 0, no error field), so today's reading stands unless the catalogue reads a client-side close"),
        F("stream_closed_before_response", 2, "c2s", "entry 1's SSE body ends after 9 notifications/progress (progressToken 2) without the result.", None),
    ],
    optional=[],
    new=[],
    notes="No answered_after_cancel: nothing for id 2 reaches the wire after the close, and no progress after it either (the 9 progress events all precede the close). fastmcp's Client sends tools/list 4 after tools/call add 3 (it refreshes the tool list to check output schemas). mitmproxy closed entry 1's time at the headers (receive 0, time 17.4 ms). Latencies are the entries' times (µs).",
    truth=lambda: check_client_tap("har_fastmcp-4.2.3__client-timeout.har", "truth/fmcp_cancel.client_tap.jsonl"),
)

R415 = "HTTP 415 Unsupported Media Type, text/plain body 'fail to deserialize request body unrecognized JSON-RPC message' (no JSON-RPC reply at all)"
RMCP_SCBR = lambda pairs: [{"kind": "stream_closed_before_response", "id": i, "direction": "c2s", "new_kind": None,
                            "detail": f"entry {e}: the exchange completed with a 415 text/plain body, not an SSE stream, without a response for {i}; DESIGN names SSE streams only (as in ../../real/har_ts-streamable-sse__raw-batches.har)."}
                           for i, e in pairs]

CAPS["har_rmcp-3.11.0-http__raw-legacy.har"] = dict(
    summary="rmcp 3.11.0 Streamable HTTP server (StreamableHttpService defaults: stateful session, SSE) given the 2025-03-26 raw batch sequence: every JSON array - one-element, 3-request, [], notification-only, [notification, ping] - is refused with " + R415 + "; single requests are answered on SSE bodies that open with a priming event (empty data, id, retry 3000).",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2025-03-26, raw httpx POSTs (scripts/raw_http_driver.py)",
    sessions=1, drop_latency=[],
    findings=[
        F("cancelled_request", 1, "c2s", "tools/call 1 (entry 2, refused with 415) is named by notifications/cancelled in the notification-only batch of entry 5 (itself refused) while unanswered.", None),
        F("missing_response", 2, "c2s", "tools/call 2 (entry 3): the array was refused with 415, nothing run.", None),
        F("missing_response", 3, "c2s", "tools/call 3 (entry 3), same.", None),
        F("missing_response", 4, "c2s", "tools/list 4 (entry 3), same.", None),
        F("response_count_mismatch", [2, 3, 4], "c2s", "batch of entry 3: 3 valid-id requests, 0 responses.", None),
        F("empty_batch", [], "c2s", "entry 4 POSTs [].", None),
        F("notification_batch_awaited", [], "c2s", "entry 5: the notification-only batch is answered 415 with a text/plain body instead of an empty 202.", None),
        F("missing_response", 5, "c2s", "ping 5 (entry 6): the array [notification, ping 5] was refused with 415.", None),
        F("response_count_mismatch", [5], "c2s", "batch of entry 6: 1 valid-id request, 0 responses.", None),
    ],
    optional=RMCP_SCBR([(2, 3), (3, 3), (4, 3), (5, 6)]),
    new=[
        N("empty_batch_not_rejected", [], "c2s", {"entry": 4}, "[] answered 415 text/plain, not one Invalid Request error."),
    ],
    notes="rmcp refuses arrays before JSON-RPC: its tower service deserializes the POST body as one message and answers a failure with HTTP 415 and a plain-text reason, so no JSON-RPC error exists to call batch_rejected_whole (the draft rule needs one error object with no id or id null); only the members' missing_response and response_count_mismatch show it. Note 415 is the status for a wrong Content-Type; the request's Content-Type was application/json. SSE bodies: rmcp opens each with a priming event ('data: ' empty, 'id: 0', 'retry: 3000') even under 2025-03-26 (the TS SDK primes only from 2025-11-25); event ids 'N/M' (event/stream). count_with_progress 6 (entry 7): 3 progress events, then the result. DELETE answered 202. Batching is legal under the negotiated 2025-03-26. Latencies are the entries' times (µs).",
    truth=lambda: check_raw_http("har_rmcp-3.11.0-http__raw-legacy.har", "truth/rmcp_http_legacy.client_tap.jsonl"),
)

CAPS["har_rmcp-3.11.0-http__raw-2026.har"] = dict(
    summary="rmcp 3.11.0 Streamable HTTP server given the raw 2026-07-28 sequence: every array is refused with " + R415 + "; server/discover, single calls and progress on SSE bodies; the unknown method gets HTTP 404 + -32601 (message = the method name); the Mcp-Method header mismatch gets 400 -32020 with id 8.",
    format="har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2026-07-28, raw httpx POSTs (scripts/raw_http_2026.py)",
    sessions=1, drop_latency=[],
    findings=[
        F("missing_response", 3, "c2s", "tools/call 3 (entry 2): the array was refused with 415.", None),
        F("response_count_mismatch", [3], "c2s", "array of entry 2: 1 valid-id request, 0 responses.", None),
        F("missing_response", 4, "c2s", "tools/call 4 (entry 3), same.", None),
        F("missing_response", 5, "c2s", "ping 5 (entry 3), same.", None),
        F("response_count_mismatch", [4, 5], "c2s", "array of entry 3: 2 valid-id requests, 0 responses.", None),
        F("empty_batch", [], "c2s", "entry 4 POSTs [].", None),
    ],
    optional=RMCP_SCBR([(3, 2), (4, 3), (5, 3)]),
    new=[
        N("batch_after_version_removed", [3], "c2s", {"entry": 2}, "the array's member carries _meta protocolVersion 2026-07-28 (per-request revision)."),
        N("batch_after_version_removed", [4, 5], "c2s", {"entry": 3}, "the same for [tools/call 4, ping 5]."),
        N("batch_after_version_removed", [], "c2s", {"entry": 4}, "the same for [] (headers say 2026-07-28)."),
        N("empty_batch_not_rejected", [], "c2s", {"entry": 4}, "[] answered 415 text/plain, not one Invalid Request error."),
        N("header_mismatch", 8, "c2s", {"entry": 8}, "tools/call add 8 sent with header Mcp-Method: tools/list; rmcp refuses it (400, -32020, id 8)."),
    ],
    notes="server/discover (entry 0) lists supportedVersions 2024-11-05 … 2026-07-28 and is answered on an SSE body without a priming event (stateless 2026 serving). The single notifications/cancelled {requestId 99} gets 202. Under the committed catalogue no batch_after_version_removed (no initialize result); listed under new_kind_findings. Latencies are the entries' times (µs).",
    truth=lambda: check_raw_http("har_rmcp-3.11.0-http__raw-2026.har", "truth/rmcp_http_2026.client_tap.jsonl"),
)


def check_shim_raw(f, prefix):
    """The tagged log's STDIN/STDOUT payloads equal the shim's raw byte streams, line by line."""
    import re
    cap = {"STDIN": [], "STDOUT": []}
    for line in open(os.path.join(D, f), encoding="utf-8").read().split("\n"):
        m = re.match(r"^\S+ \[(STDIN|STDOUT)\] (.*)$", line)
        if m:
            cap[m.group(1)].append(m.group(2))
    for d in ("stdin", "stdout"):
        raw = open(os.path.join(D, f"{prefix}.{d}.raw"), "rb").read().decode().split("\n")
        raw = [x for x in raw if x != ""]
        assert raw == cap[d.upper()], (f, d)
    return {"stdin_lines": len(cap["STDIN"]), "stdout_lines": len(cap["STDOUT"])}


CAPS["stdio_mcp-2.3.0-mcpserver__fastmcp-client__mrtr-listen.logger.log"] = dict(
    summary="mcp 2.3.0 MCPServer over stdio behind the recording shim, driven by fastmcp 4.2.3's Client (StdioTransport, 2026-07-28): server/discover, progress, a subscriptions/listen acknowledged and tagged, the 3-round MRTR book_flight, and at the end - when the client exits with the listen open - the server writes the listen's response as an error {code -32000, message 'Connection closed'} to the closed pipe.",
    format="tagged proxy log (recording shim scripts/shim.py, `TS [STDIN]|[STDOUT] line`, ms UTC); the server wrote nothing to stderr",
    sessions=1, drop_latency=[],
    findings=[
        F("slow_tail", 1, "c2s", "server/discover 1 took 2537 ms (line 1 -> 2): the Python server's start-up; the capture median is 11 ms.", None),
        F("slow_tail", "listen-1", "c2s", "subscriptions/listen \"listen-1\" (line 12) 'took' 4202 ms: it is a stream that lived until the client left (its error response, line 25, came when stdin closed).", None,
          issue12="must not be reported: a listen's duration is a stream's life, not a latency"),
    ],
    optional=[],
    new=[],
    operations={"mrtr": {"ids": [5, 6, 7], "lines": [[14, 15], [16, 17], [18, 19]], "requestState_issued_in": 6, "requestState_echoed_in": 7, "server_ms": [20.0, 4.0, 3.0], "operation_ms": 3060.0},
                "listen": {"id": "listen-1", "request_line": 12, "ack_line": 13, "tagged_lines": [21], "response_line": 25,
                           "response": {"code": -32000, "message": "Connection closed"}}},
    notes="The stdio wire carries the same 2026-07-28 shapes as HTTP (_meta protocolVersion/clientInfo/clientCapabilities/logLevel, progressToken = own id on tools/call), without headers. The listen's ack (line 13) and notifications/tools/list_changed (line 21, written in the same ms as tools/call 8's result, line 22) carry _meta io.modelcontextprotocol/subscriptionId \"listen-1\". The client exited (os._exit) 1 s after its last call; on stdin EOF the server answered the listen with {\"id\":\"listen-1\",\"error\":{\"code\":-32000,\"message\":\"Connection closed\"}} (line 25) - nobody was reading. MRTR rounds 20, 4, 3 ms; the person's wait (2 x 1.5 s) lies between them: the operation is 3.06 s (lines 14 -> 19), which a per-operation slow_tail must not judge. Latencies from the shim's ms stamps.",
    truth=lambda: check_shim_raw("stdio_mcp-2.3.0-mcpserver__fastmcp-client__mrtr-listen.logger.log", "truth/mcp2_stdio.shim"),
)


for f, c in CAPS.items():
    r = reading(f)
    gt = c["truth"]()
    cnt = {k: r["counts"][k] for k in ("requests", "notifications", "responses", "batches")}
    cnt["sessions"] = c["sessions"]
    drop = set(c["drop_latency"])
    lat = [x for x in r["latency_ms"] if x[0] not in drop]
    facts = {"counts": cnt, "pairs": r["pairs"], "latency_ms": lat, "expect_exact": True,
             "findings": c["findings"], "optional_findings": c["optional"], "new_kind_findings": c["new"]}
    if c.get("new_optional"):
        facts["new_kind_optional_findings"] = c["new_optional"]
    # new_kind_findings: every finding an issue-12 kind should give on this capture (replacing
    # the existing finding whose `new_kind` names it, or added where today's catalogue has none)
    if "operations" in c:
        facts["operations"] = c["operations"]
    exp = {"source_url": None, "capture": f, "summary": c["summary"], "format": c["format"], "facts": facts,
           "ground_truth": gt, "notes": c["notes"] + " Source: a real capture made here (see this folder's README.md); facts derived under docs/DESIGN.md and checked against the sending side's record (scripts/make_expected.py)."}
    with open(os.path.join(D, f + ".expected.json"), "w") as o:
        json.dump(exp, o, indent=2, ensure_ascii=False)
        o.write("\n")
    print("wrote", f + ".expected.json", cnt, len(c["findings"]), "findings", len(c["new"]), "new-kind")

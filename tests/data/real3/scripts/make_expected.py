"""Write <capture>.expected.json for every capture: facts read from the capture
in the order an analyzer processes it (scripts/read_captures.py, read_har.py),
cross-checked against the taps in truth/ (scripts/count.py)."""
import datetime, json, re, subprocess, sys

sys.path.insert(0, "scripts")
import read_captures as rc

SRC = ("Source: a real capture made by public MCP software on 127.0.0.1 (see README.md in this folder); "
       "facts measured on the sending sides (client tap, recording stdio shim, ASGI server tap, curl trace) and derived under DESIGN.md.")


def tap(name):
    return json.load(open(f"truth/{name}.counts.json"))


def gt(name):
    t = tap(name)
    return {"counts": t["line"] + " (c2s req/notif/resp/err | s2c req/notif/resp/err)",
            "paired": len(t["pairs"]),
            "latency_ms_by_request": [[p["requester"], p["id"], p["method"], p["latency_ms"]] for p in t["pairs"]]}


def write(cap, d):
    d = {"source_url": None, "capture": cap, **d}
    json.dump(d, open(cap + ".expected.json", "w"), indent=2, ensure_ascii=False)
    f = d["facts"]
    print(cap, f["counts"], "pairs", len(f["pairs"]), "lat", len(f["latency_ms"]), "findings", len(f["findings"]), "opt", len(f["optional_findings"]))


def pairs_from_seq(seq, is_resp, key):
    """seq: list of (dir, id, what, ...); returns pairs [[id, pos]] and [(id,pos,req_item,resp_item)]"""
    pending, out, pos = {}, [], 0
    for it in seq:
        d, i = it[0], it[1]
        if is_resp(it):
            other = "s2c" if d == "c2s" else "c2s"
            k = (other, key(i))
            if k in pending:
                out.append((i, pos, pending.pop(k), it))
            pos += 1
        elif i is not None:
            pending[(d, key(i))] = it
    return out, pending


# ---------------------------------------------------------------- 1 supergateway --sse
cap = "x_stdio_supergateway-sse-to-stdio.log"
seq = [x for x in rc.sg_sse2stdio(cap) if x[0] != "note"]
pr, pend = pairs_from_seq(seq, lambda it: it[0] == "s2c", lambda i: int(i))
assert len(pr) == 23 and list(pend) == [("c2s", 1)], pend
write(cap, {
    "summary": "supergateway 4.0.0 `--sse URL --logLevel debug` (SSE -> stdio) as the stdio server of the mcp 1.30.0 ClientSession feature run; remote end mcp 1.30.0 FastMCP legacy sse_app(). The file is the gateway's stderr as written (its stdout is the JSON-RPC channel to the client): `[supergateway] Stdio → SSE: {` + multi-line util.inspect per local request, `[supergateway] Response: {` + util.inspect per relayed reply, and for the one error reply only `[supergateway] Request error: McpError: MCP error -32601: Method not found` + a stack, with no id.",
    "format": "supergateway log, SSE -> stdio mode (stderr of the gateway; no timestamps)",
    "facts": {
        "counts": {"requests": 24, "notifications": 0, "responses": 23, "batches": 0, "sessions": 1},
        "pairs": [[int(i), p] for i, p, _, _ in pr],
        "latency_ms": [[int(i), p, None] for i, p, _, _ in pr],
        "expect_exact": True,
        "findings": [{"kind": "missing_response", "id": 1, "direction": "c2s",
                      "detail": "logging/setLevel id 1 has no JSON reply in the log: the remote -32601 error was relayed to the client on stdout, but the gateway logged it only as `Request error: McpError: MCP error -32601: Method not found` + stack (no id). An artifact of the log, not of the traffic."}],
        "optional_findings": [{"kind": "null_id_error", "id": None, "direction": "s2c",
                               "detail": "only if an analyzer reads the id-less `Request error: McpError: MCP error -32601` line (and its `{ code: -32601, data: undefined }` tail) as an error response; DESIGN does not say it is a message."}]},
    "ground_truth": {"local_stdio_side_client_tap": gt("sg_sse2stdio.client_tap"),
                     "remote_sse_side_server_tap": gt("sg_sse2stdio.server_tap")},
    "notes": "Not a pass-through: the gateway's own TS SDK client talks to the server (it forwards the client's initialize with the same params and ids, sends its own notifications/initialized, answers the server's sampling/roots/elicitation requests ids 0,1,2 with -32601 itself) and the local client gets no notifications and no server requests. The log shows the 24 local requests (ids 0-23; the initialized notification is not logged, only `Client initialized; SSE handshake already sent one`) and 23 replies; the setLevel error reply is only a stack trace. Concurrent ids 19..23 were answered 20, 22, 21, 23, 19. No timestamps: latencies empty. Must not be reported: anything for the `{ code: -32601, data: undefined }` util.inspect tail or the stack lines (not JSON); no duplicate_response (the raw stdout lines are not in this file). " + SRC})

# ---------------------------------------------------------------- 2a mcp-remote plain stderr
cap = "x_stdio_mcp-remote.stderr.log"
ms = rc.mr_plain(cap)
c2s_req = sum(1 for d, i, m, n in ms if d == "c2s" and m and not m.startswith("notifications/"))
write(cap, {
    "summary": "mcp-remote 0.15.1 WITHOUT --debug, stdio server of the mcp 1.30.0 feature run, bridging to mcp 1.30.0 FastMCP streamable_http_app(). Its plain stderr: `[PID] [Local→Remote] METHOD` (requests and notifications, never an id), `[PID] [Local→Remote] ID` (client replies to server requests), `[PID] [Remote→Local] ID|METHOD`; the forwarded initialize pretty-printed over 22 lines with only the first (`[PID] {`) prefixed; a line that is only `[PID] ` before `Shutting down...`.",
    "format": "mcp-remote stderr (not a dialect of FORMATS.md §8)",
    "facts": {
        "counts": {"requests": [0, 1], "notifications": 0, "responses": 0, "batches": 0, "sessions": [0, 1]},
        "pairs": [], "latency_ms": [], "expect_exact": False, "findings": [],
        "optional_findings": [{"kind": "missing_response", "id": 0, "direction": "c2s",
                               "detail": "only a reader that joins the pretty-printed initialize (`[PID] {` + 21 unprefixed lines) sees a JSON request; its reply appears only as the summary `[PID] [Remote→Local] 0`."}]},
    "summary_line_reading": {"c2s_method_lines": sum(1 for d, i, m, n in ms if d == "c2s" and m), "c2s_requests_by_method_name": c2s_req,
                             "c2s_id_lines": sum(1 for d, i, m, n in ms if d == "c2s" and i), "s2c_method_lines": sum(1 for d, i, m, n in ms if d == "s2c" and m),
                             "s2c_id_lines": sum(1 for d, i, m, n in ms if d == "s2c" and i),
                             "s2c_id_order": [int(i) for d, i, m, n in ms if d == "s2c" and i],
                             "note": "request lines carry no id, so pairing by id is impossible from this file; ids appear only on reply lines"},
    "ground_truth": {"local_stdio_side_client_tap": gt("mcp-remote.plain.client_tap"),
                     "local_stdio_side_shim": gt("mcp-remote.plain.bridge_shim"),
                     "remote_http_side_server_tap": gt("mcp-remote.plain.server_tap")},
    "notes": "Pass-through bridge: ids unchanged on both sides (shim and server tap agree), clientInfo.name rewritten to `capture-client-py1 (via mcp-remote 0.15.1)`. The file holds no one-line JSON message at all. The line `[PID] ` (e.g. `[18003] `) is valid JSON, an array of one number: an analyzer that reads it as traffic would report a batch and an invalid_request; it is a log prefix with an empty message, not traffic. Nor is any summary line a non_json_line of a known dialect. Remote side extras (server tap): two GET /mcp probes answered 400 with id \"server-error\", six .well-known GETs (404), and a second session `mcp-remote-fallback-test` (initialize id 0, initialized, GET stream), never deleted; the main session is never DELETEd either. Concurrent ids 19..23 answered in the order given in summary_line_reading. " + SRC})

# ---------------------------------------------------------------- 2b mcp-remote debug file
cap = "x_stdio_mcp-remote.debug-file.log"
lines = open(cap, encoding="utf-8").read().split("\n")
seq = []
for n, l in enumerate(lines, 1):
    m = re.match(r"\[(\S+Z)\]\[\d+\] (Local → Remote|Remote → Local) message (\{.*\})$", l)
    if m:
        o = json.loads(m.group(3))
        d = "c2s" if m.group(2) == "Local → Remote" else "s2c"
        isresp = "method" not in o
        seq.append((d, o.get("id"), isresp, datetime.datetime.fromisoformat(m.group(1).replace("Z", "+00:00")), o))
pr, pend = pairs_from_seq(seq, lambda it: it[2], lambda i: json.dumps(i))
assert not pend and len(pr) == 27, pend
cnt = {"requests": sum(1 for s in seq if not s[2] and s[1] is not None), "notifications": sum(1 for s in seq if not s[2] and s[1] is None),
       "responses": sum(1 for s in seq if s[2]), "batches": 0, "sessions": 1}
write(cap, {
    "summary": "The --debug log FILE mcp-remote 0.15.1 wrote (<MCP_REMOTE_CONFIG_DIR>/mcp-remote-v1/<hash>_debug.log) in a second run of the same feature run: `[ISO][PID] Local → Remote message {\"method\":\"tools/list\",\"id\":2}` / `[ISO][PID] Remote → Local message {\"id\":2,\"result\":\"result-present\"}` one-line JSON summaries (no `jsonrpc` member, results replaced by the string \"result-present\", client replies as bare `{\"id\":0}`), plus `[ISO][PID] [Local→Remote] X` lines, OAuth discovery, `Token request stack trace` blocks and the multi-line initialize.",
    "format": "mcp-remote debug log file (not a dialect of FORMATS.md §8)",
    "facts": {"counts": cnt, "pairs": [[i, p] for i, p, _, _ in pr],
              "latency_ms": [[i, p, round((b[3] - a[3]).total_seconds() * 1000, 3)] for i, p, a, b in pr],
              "expect_exact": False, "findings": [], "optional_findings": []},
    "ground_truth": {"local_stdio_side_client_tap": gt("mcp-remote.debug.client_tap"),
                     "local_stdio_side_shim": gt("mcp-remote.debug.bridge_shim"),
                     "remote_http_side_server_tap": gt("mcp-remote.debug.server_tap")},
    "notes": "Counts and pairs from the one-line `… message {json}` summaries (each message also appears as a `[Local→Remote] X` line; count it once). latency_ms from the summary lines' ISO timestamps (ms). expect_exact false, as for the shared sample of this shape: the summaries have no `jsonrpc` member and the client's replies `{\"id\":N}` carry neither result nor error, so a strict reading would add bad_jsonrpc_version on every summary and neither_result_nor_error on the 3 client replies; those are artifacts of the summary, not of the traffic. Stack-trace paths replaced by ./ . " + SRC})

# ---------------------------------------------------------------- 3 mcp-proxy
cap = "x_stdio_mcp-proxy.debug.log"
ms = rc.mcp_proxy(cap)
seq = []
for d, i, what, n, ts in ms:
    t = datetime.datetime.strptime(ts, "%Y-%m-%d %H:%M:%S,%f")
    isresp = what in ("JSONRPCResponse", "JSONRPCError")
    seq.append((d, None if i is None else int(i), isresp, t, what))
remote = [s for s in seq if s[0] != "local-c2s"]
pr, pend = pairs_from_seq(remote, lambda it: it[2], lambda i: i)
assert not pend and len(pr) == 25, pend
write(cap, {
    "summary": "mcp-proxy 0.13.0 (sparfenyuk) `--transport streamablehttp --debug URL` as the stdio server of the mcp 1.30.0 feature run; remote end mcp 1.30.0 FastMCP streamable_http_app(). Its stderr: Python logging `[D 2026-12-01 23:03:42,682.682 logger] MESSAGE`; remote-side traffic as pydantic reprs `Sending client message: root=JSONRPCRequest(method='tools/call', params={...}, jsonrpc='2.0', id=9)` / `SSE message: root=JSONRPCResponse(jsonrpc='2.0', id=9, result={...})`; local-side traffic only as `Received message: <mcp.shared.session.RequestResponder object at 0x…>`.",
    "format": "mcp-proxy stderr (Python logging + pydantic reprs; not a dialect of FORMATS.md §8)",
    "facts": {"counts": {"requests": 25, "notifications": [15, 16], "responses": 25, "batches": 0, "sessions": 1},
              "pairs": [[i, p] for i, p, _, _ in pr],
              "latency_ms": [[i, p, round((b[3] - a[3]).total_seconds() * 1000, 3)] for i, p, a, b in pr],
              "expect_exact": False, "findings": [], "optional_findings": []},
    "ground_truth": {"local_stdio_side_client_tap": gt("mcp-proxy.client_tap"),
                     "local_stdio_side_shim": gt("mcp-proxy.proxy_shim"),
                     "remote_http_side_server_tap": gt("mcp-proxy.server_tap")},
    "notes": "Counts/pairs are the REMOTE session as the reprs show it (it agrees with the server tap: 22/1/0/3 | 3/14/22/0): mcp-proxy opens its own session (initialize id 0 as client `mcp` 0.1.0, capabilities {}), renumbers ids with its own counter (remote 0..21 vs local 0..23), answers initialize, logging/setLevel (-32601) and ping itself, and answers the server's sampling/roots/elicitation (remote ids 0,1,2) with -32600 `Sampling not supported` / `List roots not supported` / `Elicitation not supported`, which the local client sees as isError tool results. It forwards progress (4) but not log notifications. notifications [15, 16]: the local client's initialized appears once more as `Received message: root=InitializedNotification(...)`; a reader may count it (same session, no id). No line is JSON: a JSON-only reader sees no message at all. latency_ms from the log's local timestamps (box clock UTC; ms; the `,mmm.mmm` tail repeats the ms). Interpreter and site-packages paths in asyncio reprs replaced by ./ . " + SRC})

# ---------------------------------------------------------------- 4 curl SSE
for cap, rid, ntf, desc, tr in [
    ("sse_streamable-post.curl-i.sse", 2, 10, "`curl -N -i` of one Streamable HTTP POST (tools/call count_with_progress steps 5, progressToken \"tok-2\", id 2) to mcp 1.30.0 FastMCP streamable_http_app(): HTTP/1.1 200 header block with mcp-session-id, then CRLF SSE events (sse-starlette): 5 notifications/progress and 5 notifications/message interleaved, then the result for id 2. No priming event, no event ids.", "curl_sse"),
    ("sse_streamable-post.curl.sse", 3, 6, "`curl -N` (no -i) of a second POST in the same session (count_with_progress steps 3, progressToken 3 (an integer), id 3): CRLF SSE events only, 3 progress + 3 log notifications, then the result for id 3.", "curl_sse"),
    ("sse_server-everything-post.curl-i.sse", 2, 4, "`curl -N -i` of one Streamable HTTP POST (tools/call trigger-long-running-operation duration 0.8 s steps 4, progressToken \"tok-2\", id 2) to @modelcontextprotocol/server-everything 2026.8.31 streamableHttp (protocol 2025-11-25, InMemoryEventStore): CRLF header block, then LF-only SSE: a priming event (`id: <uuid>` + empty `data: `), 4 notifications/progress and the result, each with `event: message` and a uuid `id:`.", "curl_sse_everything")]:
    write(cap, {
        "summary": desc, "format": "sse (raw curl output" + (", with -i headers)" if "curl-i" in cap else ", body only)"),
        "facts": {"counts": {"requests": 0, "notifications": ntf, "responses": 1, "batches": 0, "sessions": 1},
                  "pairs": [], "latency_ms": [], "expect_exact": True, "findings": [],
                  "optional_findings": [{"kind": "unknown_id_response", "id": rid, "direction": "s2c",
                                         "detail": "the request is not part of a raw SSE capture (server->client only); an analyzer may or may not flag a response whose request it cannot see."}]},
        "notes": ("Ground truth: " + ("the ASGI server tap (truth/curl_sse.server_tap.jsonl: every SSE chunk the server sent, with µs timestamps) and curl's own --trace-time --trace-ascii log; " if tr == "curl_sse" else "curl's own --trace-time --trace-ascii log (truth/curl_sse_everything.curl_trace.call2.txt; no server tap on the Node server); ") +
                  "the file holds every event sent on that stream. No progress after the response (progress stops before the result). No timestamps in the file: no latency. " +
                  ("The priming event (id + empty data) is not a message and not a JSON error. " if "everything" in cap else "") + SRC)})

# ---------------------------------------------------------------- 5 mitmproxy HAR
cap = "x_har_mitmproxy__py1-streamable-feature-run.har"
out = subprocess.run([sys.executable, "scripts/read_har.py", cap], capture_output=True, text=True).stdout.split("\n")
rows = [json.loads(l.replace("None", "null").replace("'", '"')) for l in out if l.startswith("[") and not l.startswith("[(")]
pairs, lat = [], []
for idx, pos, l, meth, note, ei, ri in rows:
    pairs.append([idx, pos])
    if note == "receive0":
        continue            # HAR time closed at the headers: left out
    if note == "separate-entries":
        if ri == 29:        # GET stream entry with receive 0: its events' times are nominal
            continue
        lat.append([idx, pos, None]); continue
    lat.append([idx, pos, l])
# elicitation id 2: its request event (entry 22 body, nominal time after entry 21's answer) is placed
# before the answering POST by DESIGN rule 4; response position = that of entry 21's body.
pairs.append([2, 20]); lat.append([2, 20, None])
pairs.sort(key=lambda x: x[1]); lat.sort(key=lambda x: x[1])
assert len(pairs) == 27
write(cap, {
    "summary": "mitmproxy 11.0.2 (mitmdump reverse mode + SSE streaming addon, hardump) HAR of the mcp 1.30.0 streamablehttp_client + ClientSession feature run against mcp 1.30.0 FastMCP streamable_http_app() (SSE replies, no event store). 30 entries: 28 POST (24 answered with SSE, 4 with 202: initialized and the client's 3 answers to server requests), 1 GET stream (entry 29, last because it is written when it ends), 1 DELETE. Two entries closed their `time` at the response headers (`timings.receive` 0) while the SSE body streamed on: entry 12 (slow_echo id 11, time 4.2 ms; the client tap measured 144.6 ms) and GET entry 29 (time 27.7 ms, open ~1.4 s, carried sampling/createMessage id 0 and roots/list id 1 sent ~0.7 s after its start).",
    "format": "har (mitmproxy 11.0.2)",
    "facts": {"counts": {"requests": 27, "notifications": 15, "responses": 27, "batches": 0, "sessions": 1},
              "pairs": pairs, "latency_ms": lat, "expect_exact": True, "findings": [], "optional_findings": []},
    "ground_truth": {"client_tap": gt("mitm.client_tap"), "server_tap": gt("mitm.server_tap"),
                     "receive0_entries": {"12": {"request": "tools/call slow_echo id 11", "har_time_ms": 4.2, "client_tap_latency_ms": 144.6},
                                          "29": {"request": "GET stream", "har_time_ms": 27.7, "carried": ["sampling/createMessage id 0", "roots/list id 1"]}}},
    "notes": "Every message of the taps is in the HAR (bodies kept by the addon, also for the two receive-0 entries). latency_ms: the entry `time` for replies on their own POST stream; left out for id 11 (entry 12, timings.receive 0: the HAR says 4.2 ms, the client tap 144.6 ms) and for sampling id 0 / roots id 1 (carried on GET entry 29, receive 0: their nominal event times lie before the ask_llm/which_roots POSTs that caused them); null for elicitation id 2 (its request event sits in the ask_user POST body, whose nominal end is after the POST that answers it, so DESIGN rule 4 moves it and the latency is empty). Server requests: sampling and roots went on the GET stream, elicitation on the tools/call POST stream. initialized got 202 application/json with content-length 0 and text \"\" (not notification_batch_awaited). Concurrent ids 19..23 answered 20, 22, 21, 23, 19. No slow_tail (max 330 ms < --slow 1 s). " + SRC})

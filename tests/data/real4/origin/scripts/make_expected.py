"""Writes the expected files of tests/data/real4/origin and tests/data/real4/cancel
from the sending side's records, after checking each capture against them.

python make_expected.py ORIGIN_DIR CANCEL_DIR

HAR captures (origin): every entry's request body, Origin header, status and response
body must equal the driver tap's record n (entry n-1), in order. Counts, pairs and
latencies (the entries' `time`, ms) then follow from the driver's messages; findings
follow docs/DESIGN.md (origin_not_rejected: Origin host != URL host, loopback names
one host, answered 2xx; missing_response for a request refused by a non-JSON body).
Stdio captures (cancel): every [STDIN]/[STDOUT] line must equal what the driver wrote
and read, in order; latencies from the log's ms stamps.
"""
import datetime, json, os, sys, urllib.parse

origin_dir, cancel_dir = sys.argv[1], sys.argv[2]


def iso(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def host(u):
    return (urllib.parse.urlsplit(u).hostname or "").lower()


def loop(h):
    return h in ("localhost", "::1") or h.startswith("127.")


def har_case(name, tap, summary, fmt, notes):
    har = json.load(open(os.path.join(origin_dir, name)))
    ents = har["log"]["entries"]
    recs = [json.loads(l) for l in open(tap)]
    assert len(ents) == len(recs), (name, len(ents), len(recs))
    counts = {"requests": 0, "notifications": 0, "responses": 0, "batches": 0, "sessions": 1}
    pairs, lat, findings, truth = [], [], [], {}
    pos = 0
    for i, (e, r) in enumerate(zip(ents, recs)):
        rq, rs = e["request"], e["response"]
        body = rq["postData"]["text"]
        assert body == r["req_body"], (name, i)
        og = next((h["value"] for h in rq["headers"] if h["name"].lower() == "origin"), None)
        assert og == r["origin"], (name, i, og)
        assert rs["status"] == r["status"], (name, i)
        text = rs["content"].get("text") or ""
        assert text == r["resp_body"], (name, i)
        truth[str(r["n"])] = "ok"
        m = json.loads(body)
        is_req = "id" in m
        counts["requests" if is_req else "notifications"] += 1
        answered = rs["content"].get("mimeType", "").startswith("application/json") and text.strip().startswith("{")
        if answered:
            counts["responses"] += 1
            assert json.loads(text)["id"] == m["id"]
            pairs.append([m["id"], pos])
            lat.append([m["id"], pos, round(e["time"], 3)])
            pos += 1
        elif is_req:
            findings.append({"kind": "missing_response", "id": m["id"], "direction": "c2s",
                             "detail": f"entry {i}: {m['method']} {m['id']} refused with HTTP {rs['status']} {rs['content'].get('mimeType')} {text!r}, no JSON-RPC response (today's reading, as rmcp's 415 in ../issue12)"})
        oh = host(og) if og and "://" in og else None
        uh = host(rq["url"])
        if oh and oh != uh and not (loop(oh) and loop(uh)) and 200 <= rs["status"] < 300:
            findings.append({"kind": "origin_not_rejected", "id": m.get("id"), "direction": "c2s",
                             "location": {"entry": i},
                             "detail": f"entry {i}: {m['method']} with Origin {og} (URL host {uh}) answered {rs['status']}"})
    exp = {"source_url": None, "capture": name, "summary": summary, "format": fmt,
           "facts": {"counts": counts, "pairs": pairs, "latency_ms": lat, "expect_exact": True,
                     "findings": findings},
           "ground_truth": truth, "notes": notes}
    json.dump(exp, open(os.path.join(origin_dir, name + ".expected.json"), "w"), indent=1)
    print(name, counts, [(f["kind"], f["id"]) for f in findings])


def stdio_case(name, driver_log, summary, fmt, notes, cancelled):
    lines = [l.rstrip("\n") for l in open(os.path.join(cancel_dir, name))]
    traffic = [(l[:24], l[25:].split(" ", 1)) for l in lines]
    wire = [(ts, tag, msg) for ts, (tag, msg) in traffic if tag in ("[STDIN]", "[STDOUT]")]
    drv = [json.loads(l) for l in open(driver_log)]
    sent = [d["line"] for d in drv if d["dir"] == "sent"]
    got = [d["line"] for d in drv if d["dir"] == "got"]
    assert [m for _, t, m in wire if t == "[STDIN]"] == sent
    assert [m for _, t, m in wire if t == "[STDOUT]"] == got
    counts = {"requests": 0, "notifications": 0, "responses": 0, "batches": 0, "sessions": 1}
    sent_at, pairs, lat, pos = {}, [], [], 0
    for ts, tag, msg in wire:
        m = json.loads(msg)
        if "method" in m:
            counts["requests" if "id" in m else "notifications"] += 1
            if "id" in m:
                sent_at[m["id"]] = iso(ts)
        else:
            counts["responses"] += 1
            pairs.append([m["id"], pos])
            lat.append([m["id"], pos, round((iso(ts) - sent_at[m["id"]]).total_seconds() * 1000, 3)])
            pos += 1
    findings = [{"kind": "cancelled_request", "id": i, "direction": "c2s",
                 "detail": f"tools/call {i} cancelled 150 ms after it was sent; the server never answered it (no answered_after_cancel)"} for i in cancelled]
    exp = {"source_url": None, "capture": name, "summary": summary, "format": fmt,
           "facts": {"counts": counts, "pairs": pairs, "latency_ms": lat, "expect_exact": True,
                     "findings": findings},
           "ground_truth": {"stdin_lines": len(sent), "stdout_lines": len(got), "check": "ok"}, "notes": notes}
    json.dump(exp, open(os.path.join(cancel_dir, name + ".expected.json"), "w"), indent=1)
    print(name, counts, [(f["kind"], f["id"]) for f in findings], lat)


SRC = "Source: a real capture made here (see this folder's README.md); facts derived under docs/DESIGN.md and checked against the sending side's record (scripts/make_expected.py)."
har_case("har_ts-sdk-1.32.2__origin.har", "truth/origin_ts.client_tap.jsonl",
         "@modelcontextprotocol/sdk 1.32.2 StreamableHTTPServerTransport (stateful, enableJsonResponse, createMcpExpressApp defaults; scripts/ts_json_server.mjs) behind mitmproxy, raw 2025-11-25 POSTs with Origin http://evil.example (entries 0, 1, 3, 6), the URL's own origin (2), none (4) and http://localhost (5): every one is served (200/202).",
         "har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2025-11-25, raw http.client POSTs (scripts/origin_driver.py --mode legacy)",
         "The SDK's DNS-rebinding protection (allowedOrigins) is off unless configured; createMcpExpressApp only checks Host. " + SRC)
har_case("har_fastmcp-4.2.3__origin.har", "truth/origin_fastmcp.client_tap.jsonl",
         "fastmcp 4.2.3 (mcp 2.3.0 transport; scripts/fmcp_server.py, http_app defaults) behind mitmproxy, raw 2026-07-28 POSTs with Origin http://evil.example (entries 0, 2, 5), the URL's own origin (1), none (3) and http://localhost (4): every one is served 200.",
         "har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2026-07-28, raw http.client POSTs (scripts/origin_driver.py --mode 2026)",
         "Headers MCP-Protocol-Version, Mcp-Method and Mcp-Name agree with the bodies: no header_mismatch. " + SRC)
har_case("har_mcp-2.3.0-mcpserver__origin.har", "truth/origin_mcp2.client_tap.jsonl",
         "mcp 2.3.0 MCPServer (scripts/mcp2_server.py, http_app defaults) behind mitmproxy, the same 2026-07-28 POSTs: the foreign Origin is refused with HTTP 403 text/plain 'Invalid Origin header' (entries 0, 2, 5); the others are served 200, http://localhost included.",
         "har (mitmproxy 11.0.2 reverse proxy, SSE addon), Streamable HTTP 2026-07-28, raw http.client POSTs (scripts/origin_driver.py --mode 2026)",
         "The healthy counterpart: no origin_not_rejected. The 403 body is text, not a JSON-RPC error (the spec allows one with no id), so the three refused requests stay unanswered: missing_response, today's reading. " + SRC)
stdio_case("stdio_fastmcp-4.2.3__cancel-2026.logger.log", "truth/cancel_stdio.driver.jsonl",
           "fastmcp 4.2.3 stdio server (scripts/fmcp_stdio_cancel_server.py) behind the recording shim, raw 2026-07-28 lines (scripts/cancel_stdio_driver.py): tools/call sleep_async 600 ms (id 2) and sleep_blocking 600 ms (id 3) each cancelled 150 ms after sending; neither is answered; add 4 is.",
           "stdio, shim.py TS [STDIN]|[STDOUT]|[STDERR] log, ms; 2026-07-28 (_meta on every request)",
           "No answered_after_cancel: fastmcp honours notifications/cancelled for async and blocking tools alike. server/discover 1 waited for the Python start-up (1.6 s). " + SRC, [2, 3])
stdio_case("stdio_mcp-2.3.0-mcpserver__cancel-2026.logger.log", "truth/cancel_mcp2_stdio.driver.jsonl",
           "mcp 2.3.0 MCPServer stdio (scripts/mcp2_server.py --stdio) behind the recording shim, raw 2026-07-28 lines (scripts/cancel_stdio_driver.py --mcp2): tools/call count_with_progress 12 steps (600 ms; ids 2 and 3) each cancelled 150 ms after sending; neither is answered; add 4 is.",
           "stdio, shim.py TS [STDIN]|[STDOUT]|[STDERR] log, ms; 2026-07-28 (_meta on every request)",
           "No answered_after_cancel: the SDK drops the cancelled calls. " + SRC, [2, 3])

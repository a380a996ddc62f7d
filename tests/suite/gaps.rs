//! Capture gaps: a finding that what the capture lost can explain is
//! `info`, names the gap, and never fails `--fail-on error`
//! (`tests/data/gaps/README.md`, and chrome-har's request bodies kept only
//! as `postData.params` in `tests/data/real2`).

use crate::common;
use common::{mcp_audit, root};
use serde_json::json;

fn json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut a = args.to_vec();
    a.push("--json");
    let o = mcp_audit(&a);
    (
        o.status.code(),
        serde_json::from_slice(&o.stdout).expect("summary.json"),
    )
}

#[test]
fn lost_responses_are_info_and_name_their_entry() {
    let f = root().join("tests/data/gaps/lost_responses.har");
    let (code, s) = json(&[f.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    let found: Vec<(String, String, serde_json::Value, serde_json::Value)> = findings(&s)
        .into_iter()
        .map(|(kind, severity, id, location, _)| (kind, severity, id, location))
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "missing_response".into(),
                "info".into(),
                2.into(),
                serde_json::json!({"entry": 1})
            ),
            (
                "missing_response".into(),
                "info".into(),
                3.into(),
                serde_json::json!({"entry": 2})
            ),
        ]
    );
    let details: Vec<&str> = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["detail"].as_str().unwrap())
        .collect();
    assert!(
        details[0].contains("entry 1's response was not kept (a capture gap)"),
        "{details:?}"
    );
    assert!(
        details[1].contains("entry 2's response was not kept (a capture gap)"),
        "{details:?}"
    );
    assert_eq!(s["findings_by_kind"]["stream_closed_before_response"], 0);
    // --fail-on warning does not fail on info either.
    let o = mcp_audit(&[f.to_str().unwrap(), "--fail-on", "warning", "-q"]);
    assert_eq!(o.status.code(), Some(0));
}

/// chrome-har writes request bodies only as `postData.params`: they are
/// read back (FORMATS.md §4.1), so what is left is the raw session's own
/// faults (its batches), and the one body chrome-har cannot give back
/// (`params: []`, entry 33) is a gap named in the input's errors.
#[test]
fn chrome_har_params_only_bodies_are_read_back() {
    let f = root().join("tests/data/real2/har_browser-chrome-har__ts-streamable-sse.har");
    let (code, s) = json(&[f.to_str().unwrap()]);
    assert_eq!(
        code,
        Some(1),
        "duplicate_id 106 and the batch faults are errors"
    );
    let by = &s["findings_by_kind"];
    assert_eq!(
        (
            &by["unknown_id_response"],
            &by["missing_response"],
            &by["duplicate_id"],
            &by["out_of_order_batch"],
            &by["response_count_mismatch"],
            &by["stream_closed_before_response"]
        ),
        (
            &json!(0),
            &json!(0),
            &json!(1),
            &json!(2),
            &json!(1),
            &json!(1)
        )
    );
    let errors = s["inputs"][0]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .contains("entry 33: POST body not captured (postData has no text and its `params` is empty: a recorder that keeps no bodies writes this, and chrome-har does for a body `[]`, `{}` or a number)"),
        "{errors:?}"
    );
}

#[test]
fn faults_still_give_their_hints() {
    let f = root().join("tests/data/cases/b01_batch_reordered_by_balancer.har");
    let o = mcp_audit(&[f.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("hint: batch responses came back reordered"),
        "{out}"
    );
}

/// `(kind, severity, id, location, detail)` of every finding.
fn findings(
    s: &serde_json::Value,
) -> Vec<(String, String, serde_json::Value, serde_json::Value, String)> {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["id"].clone(),
                f["location"].clone(),
                f["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// supergateway `--sse URL` logs the one error reply as `Request error:
/// McpError …` without its id (line 64 of the real capture): the
/// setLevel request 1 (line 56) has no reply in the log, an `info` gap
/// naming line 64, and the run passes `--fail-on error`.
#[test]
fn supergateway_idless_error_reply_is_a_gap() {
    let f = root().join("tests/data/real3/x_stdio_supergateway-sse-to-stdio.log");
    let (code, s) = json(&[f.to_str().unwrap(), "--fail-on", "error"]);
    assert_eq!(code, Some(0));
    let found = findings(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    let (kind, sev, id, loc, detail) = &found[0];
    assert_eq!(
        (kind.as_str(), sev.as_str(), id, loc),
        (
            "missing_response",
            "info",
            &1.into(),
            &serde_json::json!({"line": 56})
        )
    );
    assert!(
        detail.contains("a reply at line 64 whose id the log lost")
            && detail.contains("capture gap"),
        "{detail}"
    );
}

/// Stateless supergateway answers each child's own request (sampling,
/// roots, elicitation; all id 0, one child per POST) itself and logs no
/// answer (a lost reply at each request's line). Each POST's child is its
/// own session (FORMATS.md §8.3.6), so the three id-0 requests are no
/// `duplicate_id`: each is a `missing_response` `info` gap naming its own
/// line (228, 241, 254), and the run passes `--fail-on error`.
#[test]
fn supergateway_stateless_unlogged_answers_are_gaps() {
    let f =
        root().join("tests/data/real4/supergateway/x_stdio_supergateway-streamable-stateless.log");
    let (code, s) = json(&[f.to_str().unwrap(), "--fail-on", "error"]);
    assert_eq!(code, Some(0));
    let found = findings(&s);
    let got: Vec<(&str, &str, &serde_json::Value, &serde_json::Value)> = found
        .iter()
        .map(|(k, s, i, l, _)| (k.as_str(), s.as_str(), i, l))
        .collect();
    let zero = serde_json::Value::from(0);
    let at = |n: u64| serde_json::json!({ "line": n });
    let (l228, l241, l254) = (at(228), at(241), at(254));
    assert_eq!(
        got,
        [
            ("missing_response", "info", &zero, &l228),
            ("missing_response", "info", &zero, &l241),
            ("missing_response", "info", &zero, &l254),
        ]
    );
    for ((_, _, _, _, detail), line) in found.iter().zip([228, 241, 254]) {
        assert!(
            detail.contains(&format!(
                "a reply at line {line} whose id the log lost (printed without it, sent and not logged, or cut off at the end of the file: a capture gap)"
            )),
            "{detail}"
        );
    }
}

/// `summary.json` `inputs[].gaps` (DESIGN.md rule 12) on real captures,
/// each place read off the file by hand:
/// - DevTools' export with a GET stream open at export: entries 7 and 37
///   are `GET 200 text/event-stream` with no `content.text`;
/// - chrome-har: entry 33's `postData.params` is `[]`, which rebuilds no
///   JSON (every other entry's params do);
/// - mitmproxy: entries 12 and 29 are event streams whose `time` (4.2 ms,
///   27.7 ms) closed at the headers (`timings.receive` 0);
/// - supergateway SSE→stdio: line 64 logs `Request error: … -32601`, a
///   reply whose id the log does not print;
/// - mcp-remote's plain stderr prints no reply bodies;
/// - raw SSE holds one direction only.
#[test]
fn inputs_list_their_gaps() {
    let cases: [(&str, serde_json::Value); 6] = [
        (
            "tests/data/real2/har_browser-devtools-sensitive__server-everything-streamable-open.har",
            json!({"response_body_lost": {"count": 2, "entries": [7, 37]}}),
        ),
        (
            "tests/data/real2/har_browser-chrome-har__ts-streamable-sse.har",
            json!({"request_body_lost": {"count": 1, "entries": [33]}}),
        ),
        (
            "tests/data/real3/x_har_mitmproxy__py1-streamable-feature-run.har",
            json!({"time_unbounded": {"count": 2, "entries": [12, 29]}}),
        ),
        (
            "tests/data/real3/x_stdio_supergateway-sse-to-stdio.log",
            json!({"reply_lost": {"count": 1, "lines": [64]}}),
        ),
        (
            "tests/data/real3/x_stdio_mcp-remote.stderr.log",
            json!({"no_reply_bodies": {"count": 1}}),
        ),
        (
            "tests/data/real3/sse_streamable-post.curl.sse",
            json!({"one_sided": {"count": 1}}),
        ),
    ];
    for (file, want) in cases {
        let f = root().join(file);
        let (_, s) = json(&[f.to_str().unwrap()]);
        assert_eq!(s["inputs"][0]["gaps"], want, "{file}");
    }
    // A capture that lost nothing says so.
    let f = root().join("tests/data/real4/issue12/har_fastmcp-4.1.4-tasks__tasks.har");
    let (_, s) = json(&[f.to_str().unwrap()]);
    assert_eq!(s["inputs"][0]["gaps"], json!({}));
}

/// An MCP OAuth flow as a HAR holds it (the shape a fresh user recorded
/// with fastmcp behind an authorization server): the first POST answered
/// 401 with an OAuth error body, the protected-resource metadata, a
/// form-encoded token request, then the retried initialize. Only the MCP
/// exchange is audited: the 401'd request is `info` (refused at the HTTP
/// layer, nothing was due), the other two entries are skipped with a line
/// each, and nothing fails the run.
#[test]
fn oauth_entries_are_not_mcp_traffic() {
    let entry = |started: &str,
                 method: &str,
                 url: &str,
                 body: Option<(&str, &str)>,
                 status: u16,
                 mime: &str,
                 text: &str| {
        let mut req = json!({"method": method, "url": url, "httpVersion": "HTTP/1.1",
            "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1});
        if let Some((m, t)) = body {
            req["postData"] = json!({"mimeType": m, "text": t});
        }
        json!({"startedDateTime": started, "time": 5, "request": req,
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": mime}], "cookies": [],
                "content": {"size": text.len(), "mimeType": mime, "text": text},
                "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}})
    };
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let ok = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let har = json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
        entry("2026-12-01T10:00:00.000Z", "POST", "http://127.0.0.1:8765/mcp", Some(("application/json", init)), 401,
            "application/json", r#"{"error":"invalid_token","error_description":"Authentication required"}"#),
        entry("2026-12-01T10:00:00.100Z", "GET", "http://127.0.0.1:8765/.well-known/oauth-protected-resource", None, 200,
            "application/json", r#"{"resource":"http://127.0.0.1:8765/mcp","authorization_servers":["http://127.0.0.1:9000"]}"#),
        entry("2026-12-01T10:00:00.200Z", "POST", "http://127.0.0.1:9000/token?x=1",
            Some(("application/x-www-form-urlencoded", "grant_type=authorization_code&code=C&code_verifier=V")), 200,
            "application/json", r#"{"access_token":"T","token_type":"Bearer"}"#),
        entry("2026-12-01T10:00:00.300Z", "POST", "http://127.0.0.1:8765/mcp", Some(("application/json", init)), 200,
            "application/json", ok),
    ]}});
    let dir = common::out_dir("oauth_in");
    let f = dir.join("oauth.har");
    std::fs::write(&f, har.to_string()).unwrap();
    let (code, s) = json(&[f.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    let found: Vec<(String, String, serde_json::Value)> = findings(&s)
        .into_iter()
        .map(|(kind, severity, _, location, _)| (kind, severity, location))
        .collect();
    assert_eq!(
        found,
        [(
            "missing_response".to_string(),
            "info".to_string(),
            json!({"entry": 0})
        )]
    );
    let name = f.display().to_string();
    assert_eq!(
        s["inputs"][0]["errors"],
        json!([format!(
            "{name}: entry 0: the response (status 401) is no JSON-RPC message: the request was refused at the HTTP layer; its body is not read as messages"
        )])
    );
    // Skipping what is no MCP traffic is a notice, not a problem.
    assert_eq!(
        s["inputs"][0]["notices"],
        json!([
            format!(
                "{name}: entry 1: GET http://127.0.0.1:8765/.well-known/oauth-protected-resource: neither body is a JSON-RPC message (no `jsonrpc`, `method` or `id`): not MCP traffic, skipped"
            ),
            format!(
                "{name}: entry 2: POST http://127.0.0.1:9000/token: neither body is a JSON-RPC message (no `jsonrpc`, `method` or `id`): not MCP traffic, skipped"
            ),
        ])
    );
    assert_eq!(
        s["totals"]["sessions"], 1,
        "no session for the token server"
    );
}

/// A stdio server launched for its session answers the first
/// `initialize` after its start-up: `initialize 1 took 1843 ms` in the
/// real Python SDK capture (the expected file's `slow_tail`) is `info`,
/// so `--fail-on warning` passes on this healthy capture.
#[test]
fn start_up_slow_tail_is_info() {
    let f = root().join("tests/data/real/stdio_py-client__py-server.logger.log");
    let (code, s) = json(&[f.to_str().unwrap(), "--fail-on", "warning"]);
    assert_eq!(code, Some(0));
    let tails: Vec<_> = findings(&s)
        .into_iter()
        .filter(|(kind, ..)| kind == "slow_tail")
        .collect();
    assert_eq!(tails.len(), 1);
    let (_, severity, id, _, detail) = &tails[0];
    assert_eq!((severity.as_str(), id), ("info", &json!(1)));
    assert!(detail.starts_with("took 1843.0 ms"), "{detail}");
    assert!(
        detail.ends_with("waits for the server's start-up (info)"),
        "{detail}"
    );
}

/// A legacy HTTP+SSE session recorded by Playwright in Chromium
/// (`tests/data/real4/legacy`, fresh-user capture against
/// server-everything's `sse` transport): the GET /sse stream (entry 1) was
/// still open at export, so its body, which held the `endpoint` event and
/// all six replies, is not in the HAR; the client's own record got every
/// reply. Each POSTed request (entries 2, 4–8) is a `missing_response`
/// *info* naming the unrecorded stream, no `stream_closed_before_response`
/// (the stream did not close), and the run passes. The lost GET, whose
/// `endpoint` event would have named the session, belongs to that session:
/// one session, not a second one of no messages keyed by the origin.
#[test]
fn legacy_session_without_its_stream_is_a_gap() {
    let f =
        root().join("tests/data/real4/legacy/har_playwright-chromium__everything-sse-legacy.har");
    let (code, s) = json(&[f.to_str().unwrap(), "--fail-on", "warning"]);
    assert_eq!(code, Some(0));
    let found: Vec<(String, String, serde_json::Value, serde_json::Value)> = findings(&s)
        .into_iter()
        .map(|(kind, severity, id, location, _)| (kind, severity, id, location))
        .collect();
    let want: Vec<(String, String, serde_json::Value, serde_json::Value)> =
        [(1, 2), (2, 4), (3, 5), (4, 6), (5, 7), (6, 8)]
            .into_iter()
            .map(|(id, entry)| {
                (
                    "missing_response".to_string(),
                    "info".to_string(),
                    id.into(),
                    json!({"entry": entry}),
                )
            })
            .collect();
    assert_eq!(found, want);
    assert!(
        findings(&s)[0]
            .4
            .contains("its session's SSE stream (the legacy HTTP+SSE transport's GET, which carries every reply) is not in the capture"),
        "{:?}",
        findings(&s)[0].4
    );
    assert_eq!(s["findings_by_kind"]["stream_closed_before_response"], 0);
    assert_eq!(s["totals"]["sessions"], 1);
    assert_eq!(
        s["sessions"][0]["name"],
        "ccf6347e-62c2-41f1-91f0-dd5a7eb98b9b"
    );
    assert_eq!(
        s["inputs"][0]["gaps"],
        json!({"response_body_lost": {"count": 1, "entries": [1]}})
    );
}

/// A gzip'd envelope log cut at byte 2000 (`tests/data/real4/legacy`):
/// five whole lines survive; `tools/list` id 1 (line 4) was answered on
/// the sixth, cut off. Its `missing_response` is *info* naming the broken
/// stream; the run still exits 2 (the input is incomplete).
#[test]
fn a_truncated_compressed_log_explains_its_missing_answers() {
    let f = root().join("tests/data/real4/legacy/trunc-env.jsonl.gz");
    let (code, s) = json(&[f.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    let found = findings(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    let (kind, severity, id, location, detail) = &found[0];
    assert_eq!(
        (kind.as_str(), severity.as_str(), id, location),
        ("missing_response", "info", &json!(1), &json!({"line": 4}))
    );
    assert_eq!(
        detail,
        "tools/list 1 has no response in the capture, but the file's compressed stream broke off before its end (a capture gap): its answer may have been in the part not read"
    );
}

/// Firefox's own HAR (tests/data/real4/browser, scripts/rec_firefox.sh):
/// the GET stream still open at export has `time` 0 and empty `timings`,
/// yet its text holds the two events that came (the server's
/// sampling/createMessage id 1 and a notification). No time bounds them:
/// before, the sampling request got 1038 ms, from the GET's start to the
/// page's answer (the server tap wrote it 129 ms before that answer). The
/// server request id 0 rode the ask_llm POST stream (entry 14), answered by
/// the POST of entry 15 at 05:39:23.334, before entry 14's end (23.343, the
/// only time the HAR gives it): it has no request time either.
#[test]
fn firefox_open_stream_bounds_no_latency() {
    let f = root().join("tests/data/real4/browser/har_browser-firefox__ts-streamable-open.har");
    let dir = common::out_dir("firefox_open_stream");
    let out = mcp_audit(&[f.to_str().unwrap(), "--out", dir.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(1), "id 900's documented fault");
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        s["inputs"][0]["gaps"],
        json!({"time_unbounded": {"count": 1, "entries": [7]}})
    );
    assert_eq!(s["latency_ms"]["count"], 10);
    assert_eq!(s["latency_ms"]["max"], 323.0);
    assert_eq!(s["latency_ms"]["unknown"], json!({"time_unbounded": 2}));
    let pairs = std::fs::read_to_string(dir.join("pairs.csv")).unwrap();
    let s2c: Vec<&str> = pairs.lines().filter(|l| l.contains(",s2c,")).collect();
    let sid = "44c7fd1c-d36f-4734-8267-f257c75ea918";
    assert_eq!(
        s2c,
        vec![
            format!(
                "{sid},s2c,1,sampling/createMessage,2026-12-03T05:39:22.548000Z,2026-12-03T05:39:23.586000Z,,paired,,,,"
            ),
            format!("{sid},s2c,0,sampling/createMessage,,2026-12-03T05:39:23.334000Z,,paired,,,,"),
        ]
    );
    let kinds: Vec<(String, String)> = findings(&s)
        .into_iter()
        .map(|(kind, severity, ..)| (kind, severity))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("missing_response".into(), "error".into()),
            ("stream_closed_before_response".into(), "error".into()),
        ]
    );
}

/// A healthy server-everything stdio session (tests/data/real4/legacy,
/// line 35): `trigger-long-running-operation` id 16, 2 s in 4 steps, sent 4
/// progress notifications (lines 36-39, 500 ms apart) and its result at
/// line 40, 2009.0 ms after the request. It is a slow tail of the capture
/// (the median of its 17 latencies, an odd count, is 3.0 ms, its p50), but
/// one its server reported progress on: `info`, so
/// `--fail-on warning` passes a healthy capture.
#[test]
fn slow_tail_with_progress_is_info() {
    let f = root().join("tests/data/real4/legacy/envelope_stdio__everything.jsonl");
    let (code, s) = json(&[f.to_str().unwrap(), "--fail-on", "warning"]);
    assert_eq!(code, Some(0));
    let found: Vec<(String, String, serde_json::Value, serde_json::Value, String)> = findings(&s);
    assert_eq!(
        found,
        vec![(
            "slow_tail".into(),
            "info".into(),
            16.into(),
            json!({"line": 35}),
            "took 2009.0 ms, 670× the median of the capture's 17 latencies (its own included), 3.0 ms, the capture's p50; the server reported progress on it (4 notifications): a long-running operation it kept the caller informed of (info)".into()
        )]
    );
}

/// Playwright's HAR of a TS SDK session (tests/data/real2): the events of a
/// POST stream have no time of their own, only the entry's end. With
/// `--timeout 300ms`, `slow_echo` id 3 (entry 7, no progress) answered after
/// 313.6 ms is late (a warning, `late` in pairs.csv); `count_with_progress`
/// id 8 (entry 12) answered after 301.7 ms sent 4 progress notifications
/// whose times the HAR does not give, so whether they kept its caller's
/// timeout alive is unknown: info, naming the gap, and `paired`.
#[test]
fn har_progress_without_times_is_no_late_response() {
    let f = root().join("tests/data/real2/har_browser-playwright-default__ts-streamable-sse.har");
    let dir = common::out_dir("har_progress_without_times");
    let out = mcp_audit(&[
        f.to_str().unwrap(),
        "--timeout",
        "300ms",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let late: Vec<(String, serde_json::Value, serde_json::Value, String)> = findings(&s)
        .into_iter()
        .filter(|(kind, ..)| kind == "late_response")
        .map(|(_, severity, id, location, detail)| (severity, id, location, detail))
        .collect();
    assert_eq!(
        late,
        vec![
            (
                "warning".into(),
                3.into(),
                json!({"entry": 7, "event": 2}),
                "answered after 313.6 ms, past the 300 ms timeout: its caller had likely given up".into()
            ),
            (
                "info".into(),
                8.into(),
                json!({"entry": 12, "event": 5}),
                "answered after 301.7 ms, past the 300 ms timeout: its caller had likely given up; but its 4 progress notifications have no time of their own in this capture (events of a HAR stream body, stamped with the entry's end), so whether they reset the caller's timeout is unknown (a capture gap)".into()
            ),
        ]
    );
    let pairs = std::fs::read_to_string(dir.join("pairs.csv")).unwrap();
    let status = |id: &str| {
        pairs
            .lines()
            .find(|l| l.contains(&format!(",c2s,{id},tools/call,")))
            .and_then(|l| l.split(',').nth(7))
            .map(str::to_string)
    };
    assert_eq!(
        (status("3"), status("8")),
        (Some("late".into()), Some("paired".into()))
    );
}

/// DevTools' sanitized export (tests/data/real4/browser): the GET stream
/// (entry 7, open for 1472 ms at export) kept records without data, so its
/// sampling request id 1 is lost; the page's answer to it (entry 15) came
/// before that entry's end. The lost body counts from the entry's start,
/// so the answer is an info gap naming entry 7, as the expected file says
/// (before: an error, the lost body placed at the stream's end).
#[test]
fn an_answer_before_the_end_of_a_lost_stream_is_a_gap() {
    let f = root()
        .join("tests/data/real4/browser/har_browser-devtools-sanitized__ts-streamable-open.har");
    let (code, s) = json(&[f.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    let found: Vec<(String, String, serde_json::Value, serde_json::Value, String)> = findings(&s);
    assert_eq!(
        found[0],
        (
            "unknown_id_response".into(),
            "info".into(),
            1.into(),
            json!({"entry": 15}),
            "a response with id 1 that matches no request sent in this session's s2c id space; but the capture did not keep the response body of entry 7 (a capture gap): the server request it answers may have been there".into()
        )
    );
    assert_eq!(found.len(), 2);
}

/// `tests/data/real4/rotation/proxy.log.1` read without `proxy.log`, the
/// newer file of its log (README there): the 3 s call id 3 (line 7, sent
/// 20:53:12.080991) was answered after the rotation, in the file not
/// given; the rotated file's last line is at 20:53:12.154276, 73 ms
/// later. Its `missing_response` is `info` naming the gap
/// (`end_missing`), the run exits 0. With `--timeout 50ms` the answer was
/// due 23 ms before the file's end: an error again.
#[test]
fn a_rotated_file_alone_has_lost_its_end() {
    let f = root().join("tests/data/real4/rotation/proxy.log.1");
    let name = f.to_str().unwrap();
    let (code, s) = json(&[name]);
    assert_eq!(code, Some(0));
    let found = findings(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    let (kind, severity, id, location, detail) = &found[0];
    assert_eq!(
        (kind.as_str(), severity.as_str(), id, location),
        ("missing_response", "info", &json!(3), &json!({"line": 7}))
    );
    assert_eq!(
        detail,
        &format!(
            "tools/call 3 has no response in the capture, but {name} is a rotated file and the newer file(s) of its log were not given: the log goes on there (a capture gap), and its answer may be in it"
        )
    );
    assert_eq!(s["inputs"][0]["gaps"], json!({"end_missing": {"count": 1}}));

    let (code, s) = json(&[name, "--timeout", "50ms"]);
    assert_eq!(code, Some(1));
    let found = findings(&s);
    assert_eq!(
        found
            .iter()
            .map(|f| (f.0.as_str(), f.1.as_str()))
            .collect::<Vec<_>>(),
        // initialize (line 2) was answered after 632.8 ms: late too.
        [("late_response", "warning"), ("missing_response", "error")]
    );
    assert_eq!(s["inputs"][0]["gaps"], json!({}));
}

/// An envelope log of three sessions (`session` s0, s1, s2; 35126 bytes,
/// tests/data/real4/fresh16/sess-first-cut.jsonl) whose last line (50),
/// s2's tools/list result, is cut off: `{"ts": …, "dir": "s2c", "session":
/// "s2", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{…`. The
/// cut line is s2's lost message, so s2's tools/list id 1 (line 48) is the
/// same `info` gap as without `session` (truncated.jsonl: line 4, naming
/// line 6), the gap `reply_lost` at line 50, and no fourth session.
/// Before: an `error` `missing_response` (exit 1) and an empty session
/// named after the file whose cut line was a `start_missing` gap. s0 and
/// s1 are whole: each has its long-running tools/call id 4 (lines 11 and
/// 33) as an `info` slow_tail with progress. Block by block the same.
#[test]
fn a_cut_last_line_stays_in_its_session() {
    let f = root().join("tests/data/real4/fresh16/sess-first-cut.jsonl");
    let f = f.to_str().unwrap();
    for extra in [&[][..], &["--block-bytes", "97", "--threads", "2"][..]] {
        let mut args = vec![f];
        args.extend(extra);
        let (code, s) = json(&args);
        assert_eq!(code, Some(0), "{extra:?}");
        let sessions: Vec<&str> = s["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect();
        assert_eq!(sessions, ["s0", "s1", "s2"]);
        let found: Vec<(String, String, String, serde_json::Value, serde_json::Value)> =
            s["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| {
                    (
                        x["kind"].as_str().unwrap().to_string(),
                        x["severity"].as_str().unwrap().to_string(),
                        x["session"].as_str().unwrap().to_string(),
                        x["id"].clone(),
                        x["location"].clone(),
                    )
                })
                .collect();
        let row = |k: &str, sev: &str, sess: &str, id: u64, line: u64| {
            (
                k.to_string(),
                sev.to_string(),
                sess.to_string(),
                json!(id),
                json!({ "line": line }),
            )
        };
        assert_eq!(
            found,
            vec![
                row("slow_tail", "info", "s0", 4, 11),
                row("slow_tail", "info", "s1", 4, 33),
                row("missing_response", "info", "s2", 1, 48),
            ]
        );
        assert!(
            s["findings"][2]["detail"]
                .as_str()
                .unwrap()
                .contains("the log shows a reply at line 50 whose id the log lost"),
            "{}",
            s["findings"][2]["detail"]
        );
        let i = &s["inputs"][0];
        assert_eq!(
            i["gaps"],
            json!({"reply_lost": {"count": 1, "lines": [50]}})
        );
        assert_eq!(i["sessions"], 3);
        let t = &s["totals"];
        assert_eq!(
            [
                &t["sessions"],
                &t["messages"],
                &t["requests"],
                &t["notifications"],
                &t["responses"],
                &t["pairs"],
                &t["other_lines"]
            ],
            [3, 49, 18, 14, 17, 17, 1].map(|n| json!(n)).each_ref()
        );
    }
}

//! Parsers never panic (STYLE.md §3 rules 4 and 10): arbitrary text,
//! byte soup decoded as the source decodes it (lossy UTF-8), line logs
//! built from every dialect's prefixes around JSON-looking fragments, raw
//! SSE streams, and HAR skeletons with random entries go through format
//! detection, every parser and the whole pipeline (sessions, analysis,
//! summary.json, the terminal summary).
//!
//! 256 cases per property keep the run to a few seconds in
//! `cargo test --release`; the long searches are the fuzz targets
//! (`fuzz/`, reports/FUZZ.md).

use mcp_audit::analyze::Config;
use mcp_audit::ingest::detect::{self, Dialect};
use mcp_audit::ingest::{Format, Input, detect_format, pair, parse, sse};
use mcp_audit::pipeline;
use mcp_audit::record::Parsed;
use mcp_audit::record::jsonrpc;
use mcp_audit::report::{file_id, json, terminal};
use proptest::prelude::*;
use serde_json::{Value, json};

const DIALECTS: [Dialect; 17] = Dialect::ALL;

/// Every parser on `text`, then the whole pipeline over all their results
/// at once (one input each, as the CLI numbers them).
fn everything(text: &str) {
    let _ = detect_format(text);
    for line in text.split('\n').take(32) {
        let _ = detect::claim(line);
    }
    let _ = sse::events(text);
    let _ = jsonrpc::parse_payload(text);
    let _ = jsonrpc::first_value_len(text);

    let mut formats: Vec<Format> = DIALECTS.iter().map(|&d| Format::Lines(d)).collect();
    formats.extend([
        Format::Har,
        Format::Sse,
        Format::Cassette,
        Format::InspectorHistory,
        Format::Unknown,
        detect_format(text),
    ]);
    let mut results: Vec<Parsed> = Vec::new();
    for (i, f) in formats.into_iter().enumerate() {
        let name = if i % 2 == 0 {
            "t.client-to-server.jsonl"
        } else {
            "t.server-to-client.jsonl"
        };
        results.push(parse(
            Input {
                file: file_id(i, 0),
                name,
                text,
            },
            f,
        ));
    }
    let n = results.len();
    let c = Input {
        file: file_id(n, 0),
        name: "p.client-to-server.jsonl",
        text,
    };
    let s = Input {
        file: file_id(n, 1),
        name: "p.server-to-client.jsonl",
        text,
    };
    results.push(pair::parse(Some(c), Some(s), "p"));

    let inputs = results
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("input-{i}"), text.len() as u64, p))
        .collect();
    let run = pipeline::analyze_parsed(&Config::default(), false, inputs);
    let rep = run.report();
    let _ = json::summary(&rep);
    let _ = terminal::text(&rep, false);
}

/// JSON-RPC-looking values: members from the protocol's vocabulary with
/// values of every JSON type, nested a little.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![
            Just("2.0".to_string()),
            Just("1.0".to_string()),
            Just("initialize".to_string()),
            "\\PC{0,12}"
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        let key = prop_oneof![
            Just("jsonrpc"),
            Just("id"),
            Just("method"),
            Just("params"),
            Just("result"),
            Just("error"),
            Just("code"),
            Just("message"),
            Just("requestId"),
            Just("protocolVersion"),
            Just("progressToken"),
            Just("_meta"),
            Just("x")
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..6).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

/// A JSON-RPC message (request, notification, response, error), sometimes
/// damaged.
fn message() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        any::<i32>().prop_map(|n| json!(n)),
        "[a-z0-9-]{0,8}".prop_map(Value::String),
        Just(Value::Null),
        Just(json!(1.5)),
        Just(json!(9007199254740993u64)),
    ];
    let method = prop_oneof![
        Just("initialize"),
        Just("notifications/initialized"),
        Just("notifications/cancelled"),
        Just("notifications/progress"),
        Just("tools/call"),
        Just("ping")
    ];
    prop_oneof![
        (id.clone(), method.clone(), json_value())
            .prop_map(|(id, m, p)| json!({"jsonrpc": "2.0", "id": id, "method": m, "params": p})),
        (method, json_value())
            .prop_map(|(m, p)| json!({"jsonrpc": "2.0", "method": m, "params": p})),
        (id.clone(), json_value())
            .prop_map(|(id, r)| json!({"jsonrpc": "2.0", "id": id, "result": r})),
        (id, any::<i32>()).prop_map(
            |(id, c)| json!({"jsonrpc": "2.0", "id": id, "error": {"code": c, "message": "m"}})
        ),
        json_value(),
    ]
}

/// One frame's JSON text: a message or a batch, serialised, then maybe cut
/// short or given trailing garbage.
fn frame_text() -> impl Strategy<Value = String> {
    let one = prop_oneof![
        3 => message(),
        1 => prop::collection::vec(message(), 0..4).prop_map(Value::Array),
    ];
    (one, 0usize..4, any::<prop::sample::Index>(), "\\PC{0,6}").prop_map(|(v, how, cut, junk)| {
        let s = v.to_string();
        match how {
            0 => {
                let mut at = cut.index(s.len() + 1);
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                s[..at].to_string()
            }
            1 => s + &junk,
            _ => s,
        }
    })
}

/// A line prefix of one of the dialects (FORMATS.md table 8.2), or none.
fn prefix() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "[STDIN] ",
        "[STDOUT] ",
        "[STDERR] ",
        "2026-11-30T21:08:51.361Z [STDIN] ",
        "2026-11-30T21:08:51.361Z [STDOUT] ",
        "--> ",
        "<-- ",
        "> ",
        "< ",
        "2025-04-23T16:02:00.000Z --> ",
        "2025-04-23T16:02:00.009Z <-- ",
        "data: ",
        "data:",
        "event: message",
        "id: 7",
        "retry: 10",
        ": comment",
        "HTTP/1.1 200 OK",
        "mcp-session-id: s1",
        "2025-09-11T23:28:52.275Z [mcp-server-web] [info] Message from client: ",
        "2025-09-11T23:28:52.275Z [mcp-server-web] [info] Message from server: ",
        "2025-05-05T18:24:18.865Z [info] [js] Message from client: ",
        "2025-03-23T18:30:58.409Z [desk-tools] [info] Initializing server...",
        "2026-07-24 02:03:14.058 [debug] [editor -> server] ",
        "2026-07-24 02:03:14.120 [debug] [server -> editor] ",
        "2026-07-24 02:03:14.000 [info] Starting server task-runner",
        "[2025-01-01 00:00:00.000][info] [s]",
        "[Trace - 1:24:27 PM] Sending request 'tools/call - (8)'.",
        "[Trace - 1:24:27 PM] Received response 'tools/call - (8)' in 12ms.",
        "Params: ",
        "Result: ",
        "// Send:",
        "// Receive (took 3ms):",
        "[supergateway] STDIN → SSE: ",
        "[supergateway] Child → SSE: ",
        "DEBUG --> ",
        "lsp DEBUG <-- ",
        "[17924] ",
        "[17924] [Local→Remote] ",
        "[17924] {",
        "[2026-12-01T23:03:37.021Z][18014] Local → Remote message ",
        "[2026-12-01T23:03:37.021Z][18014] Remote → Local message {",
        "[D 2026-12-01 23:03:42,682.682 mcp.client.streamable_http] Sending client message: root=",
        "[D 2026-12-01 23:03:42,682.682 mcp.client.sse] Received server message: SessionMessage(message=",
        "[I 2026-12-01 23:03:42,683.683 mcp_proxy.httpx_client] ",
        "transport event {",
        "transport event { message: ",
        "{\"ts\":\"2025-01-01T00:00:00Z\",\"dir\":\"c2s\",\"msg\":",
        "{\"session_id\":\"s\",\"seq\":1,\"ts\":\"2026-01-01T00:00:00Z\",\"direction\":\"s2c\",\"transport\":\"http\",\"raw\":",
        "{\"timestamp\":\"2025-11-29T21:54:51.5+02:00\",\"transport_type\":\"stdio\",\"stdio_transport\":{\"from_pid\":1,\"to_pid\":2},\"type\":\"request\",\"raw\":",
    ])
}

/// A line log (or SSE stream): lines of prefix + frame, with mixed line
/// endings, blank lines and a possibly missing final newline.
fn log_text() -> impl Strategy<Value = String> {
    let line = (
        prefix(),
        prop_oneof![3 => frame_text(), 1 => "\\PC{0,20}"],
        0usize..6,
    );
    prop::collection::vec(line, 0..12).prop_map(|lines| {
        let mut out = String::new();
        for (p, body, end) in lines {
            out.push_str(p);
            out.push_str(&body);
            out.push_str(["\n", "\n", "\r\n", "\r", "", "\n\n"][end]);
        }
        out
    })
}

/// A HAR skeleton with random entries: POST bodies, JSON / SSE / other
/// response bodies, base64, odd statuses, times and headers, members of
/// the wrong type; then maybe cut short.
fn har_text() -> impl Strategy<Value = String> {
    let body = prop_oneof![
        frame_text().prop_map(Value::String),
        log_text().prop_map(Value::String),
        Just(Value::Null),
        json_value(),
    ];
    let mime = prop::sample::select(vec![
        "application/json",
        "text/event-stream",
        "text/plain",
        "application/vnd.api+json; charset=utf-8",
        "",
    ]);
    let when = prop_oneof![
        Just(json!("2025-06-16T09:00:00.000Z")),
        Just(json!("2025-06-16T09:00:00.123456+02:00")),
        Just(json!("yesterday")),
        Just(Value::Null),
        any::<i64>().prop_map(|n| json!(n)),
    ];
    let time = prop_oneof![
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        Just(json!("12.5")),
        Just(Value::Null)
    ];
    let status = prop_oneof![
        Just(json!(200)),
        Just(json!(202)),
        Just(json!(0)),
        Just(json!(500)),
        Just(json!("200")),
        Just(Value::Null)
    ];
    let entry = (body.clone(), body, mime, when, time, status, any::<bool>(), "[a-z0-9]{0,6}", 0u8..6).prop_map(
        |(post, resp, mime, when, time, status, b64, sid, shape)| {
            let (resp, encoding) = match (&resp, b64) {
                (Value::String(s), true) => {
                    use base64::Engine as _;
                    (json!(base64::engine::general_purpose::STANDARD.encode(s)), json!("base64"))
                }
                _ => (resp, Value::Null),
            };
            let e = json!({
                "startedDateTime": when,
                "time": time,
                "request": {
                    "method": "POST",
                    "url": format!("http://127.0.0.1:8000/mcp?sessionId={sid}"),
                    "headers": [{"name": "Mcp-Session-Id", "value": sid}],
                    "postData": {"mimeType": "application/json", "text": post},
                },
                "response": {
                    "status": status,
                    "headers": [{"name": "Content-Type", "value": mime}, {"name": "mcp-session-id", "value": sid}],
                    "content": {"mimeType": mime, "text": resp, "encoding": encoding},
                },
            });
            match shape {
                0 => json!("not an entry"),
                1 => json!({"request": null, "response": e["response"].clone()}),
                2 => json!({"startedDateTime": e["startedDateTime"].clone(), "request": e["request"].clone()}),
                _ => e,
            }
        },
    );
    (prop::collection::vec(entry, 0..6), any::<prop::sample::Index>(), any::<bool>(), "[a-z]{0,8}").prop_map(|(entries, cut, whole, creator)| {
        let s = json!({"log": {"version": "1.2", "creator": {"name": creator, "version": "1"}, "entries": entries}}).to_string();
        if whole {
            s
        } else {
            let mut at = cut.index(s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            s[..at].to_string()
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(s in "\\PC{0,200}") {
        everything(&s);
    }

    #[test]
    fn arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..400)) {
        everything(&String::from_utf8_lossy(&b));
    }

    #[test]
    fn json_fragments(s in frame_text()) {
        everything(&s);
    }

    #[test]
    fn dialect_lines(s in log_text()) {
        everything(&s);
    }

    #[test]
    fn sse_streams(events in prop::collection::vec((prop::sample::select(vec!["data: ", "data:", "id: ", "event: ", "retry: ", ": ", "x"]), frame_text(), 0usize..4), 0..10), bom in any::<bool>()) {
        let mut s = String::from(if bom { "\u{feff}" } else { "" });
        for (field, value, end) in events {
            s.push_str(field);
            s.push_str(&value);
            s.push_str(["\n", "\n\n", "\r\n\r\n", "\r"][end]);
        }
        everything(&s);
    }

    #[test]
    fn cassette_and_history_skeletons(
        msgs in prop::collection::vec((message(), prop::option::of(message()), any::<bool>(), 0u8..3), 0..8)
    ) {
        let kinds = ["jsonrpc_request", "notification", "lifecycle"];
        let dirs = ["request", "response", "notification"];
        let interactions: Vec<Value> = msgs.iter().map(|(q, r, sse, k)| json!({
            "type": kinds[*k as usize], "request": q, "response": r,
            "response_is_sse": sse, "response_status": 200, "latency_ms": 3,
        })).collect();
        let cassette = json!({"version": "1.0", "metadata": {"recorded_at": "x"}, "interactions": interactions});
        everything(&serde_json::to_string_pretty(&cassette).unwrap());
        let entries: Vec<Value> = msgs.iter().enumerate().map(|(i, (q, r, o, k))| json!({
            "id": format!("e{i}"), "timestamp": if *o { "2026-12-02T06:00:00.000Z" } else { "x" },
            "direction": dirs[*k as usize], "origin": if *o { "client" } else { "server" },
            "message": q, "response": r, "duration": i,
        })).collect();
        everything(&serde_json::to_string_pretty(&entries).unwrap());
    }

    #[test]
    fn har_skeletons(s in har_text()) {
        everything(&s);
    }
}

/// Regressions found by the fuzz targets (reports/FUZZ.md); each was a
/// panic before its fix.
#[test]
fn fuzz_regressions() {
    for case in FUZZ_REGRESSIONS {
        everything(case);
    }
}

const FUZZ_REGRESSIONS: &[&str] = &[];

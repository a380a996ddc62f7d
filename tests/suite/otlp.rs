//! `--otlp` read back by the official OTLP protobuf definitions:
//! `tests/suite/otlp_read.py` checks the OTLP/JSON rules (hex ids, integer
//! enums, 64-bit integers as strings), parses every line into an
//! `ExportTraceServiceRequest` with `json_format.Parse` (unknown fields
//! fail) and prints what it parsed. The values below were checked by hand
//! against the capture and against `pairs.csv` of the same run.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{has_python, mcp_audit, out_dir, root};

const TS_HAR: &str = "tests/data/real/har_ts-streamable-sse__raw-batches.har";

/// Runs `mcp-audit INPUT --out DIR/out --otlp DIR/t.jsonl EXTRA…` and
/// reads the file back; `None` when python lacks opentelemetry-proto.
fn read_back(test: &str, input: &Path, extra: &[&str]) -> Option<(std::path::PathBuf, Value)> {
    if !has_python(
        test,
        &["google.protobuf", "opentelemetry.proto"],
        "opentelemetry-proto",
    ) {
        return None;
    }
    let dir = out_dir(test);
    let (out, file) = (dir.join("out"), dir.join("t.jsonl"));
    let (i, o, f) = (
        input.display().to_string(),
        out.display().to_string(),
        file.display().to_string(),
    );
    let mut args = vec![i.as_str(), "--out", &o, "--otlp", &f, "-q"];
    args.extend_from_slice(extra);
    let run = mcp_audit(&args);
    assert!(
        matches!(run.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r = Command::new("python3")
        .arg(root().join("tests/suite/otlp_read.py"))
        .arg(&file)
        .output()
        .expect("python3");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Some((dir, serde_json::from_slice(&r.stdout).expect("json")))
}

/// One CSV line split into fields (RFC 4180 quotes).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `pairs.csv` rows as header → value maps.
fn pairs(out: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(out.join("pairs.csv")).expect("pairs.csv");
    let mut lines = text.lines();
    let head = fields(lines.next().expect("header"));
    lines
        .map(|l| head.iter().cloned().zip(fields(l)).collect())
        .collect()
}

/// RFC 3339 UTC with µs → ns since the epoch.
fn ns(t: &str) -> i128 {
    let d = chrono::DateTime::parse_from_rfc3339(t).expect("time");
    i128::from(d.timestamp_micros()) * 1000
}

fn spans(v: &Value) -> &Vec<Value> {
    v["lines"][0][0]["spans"].as_array().expect("spans")
}

/// The TypeScript SDK's server, batches sent raw (the capture of
/// tests/suite/gates.rs): 16 pairs.csv rows, 13 with a latency (ids 7, 8
/// and the second id 9 were never answered); one session, one line.
#[test]
fn ts_raw_batches_as_traces() {
    let Some((dir, v)) = read_back("otlp_ts_raw_batches", &root().join(TS_HAR), &[]) else {
        return;
    };
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "one line per session");
    assert_eq!(lines[0].as_array().unwrap().len(), 1);
    assert_eq!(
        v["lines"][0][0]["resource"],
        json!({"service.name": "capture-demo-ts", "service.version": "0.1.0"})
    );
    let spans = spans(&v);
    assert_eq!(spans.len(), 14, "a session span and 13 measured requests");
    let root_span = &spans[0];
    assert_eq!(root_span["name"], "mcp session");
    assert_eq!(root_span["kind"], 1);
    assert_eq!(root_span["parent_span_id"], "");
    let trace = root_span["trace_id"].as_str().unwrap();
    assert_eq!(trace.len(), 32);
    // Every span is in the session's trace, under the session span, CLIENT.
    for s in &spans[1..] {
        assert_eq!(s["trace_id"], trace);
        assert_eq!(s["parent_span_id"], root_span["span_id"]);
        assert_eq!(s["kind"], 3);
        assert_eq!(s["scope"], "mcp-audit");
    }
    // Times against pairs.csv: each measured row is a span in request
    // order, start the request time, end start + latency (here also the
    // response time: the HAR states no durations).
    let rows = pairs(&dir.join("out"));
    assert_eq!(rows.len(), 16);
    let measured: Vec<&HashMap<String, String>> = rows
        .iter()
        .filter(|r| !r["latency_ms"].is_empty())
        .collect();
    assert_eq!(measured.len(), 13);
    for (s, r) in spans[1..].iter().zip(&measured) {
        let start = ns(&r["request_time"]);
        let lat_ns = (r["latency_ms"].parse::<f64>().unwrap() * 1e6).round() as i128;
        assert_eq!(s["start"].as_i64().map(i128::from), Some(start), "{r:?}");
        assert_eq!(
            s["end"].as_i64().map(i128::from),
            Some(start + lat_ns),
            "{r:?}"
        );
        assert_eq!(
            s["end"].as_i64().map(i128::from),
            Some(ns(&r["response_time"]))
        );
        assert_eq!(
            s["attributes"]["mcp.method.name"].as_str(),
            Some(r["method"].as_str())
        );
        assert_eq!(
            s["attributes"]["mcp_audit.batch"]
                .as_i64()
                .map(|b| b.to_string()),
            Some(r["batch"].clone()).filter(|b| !b.is_empty())
        );
    }
    // One span in full: tools/call id 6 (entry 3, the third member of
    // pairs.csv batch 2), sent 21:06:51.457877, answered 253.058 ms later.
    let add = spans
        .iter()
        .find(|s| s["attributes"]["jsonrpc.request.id"] == "6")
        .unwrap();
    assert_eq!(add["name"], "tools/call add");
    assert_eq!(add["start"], 1_796_072_811_457_877_000_i64);
    assert_eq!(add["end"], 1_796_072_811_710_935_000_i64);
    assert_eq!(add["status"], json!({"code": 0, "message": ""}));
    assert_eq!(add["events"], json!([]));
    assert_eq!(
        add["attributes"],
        json!({
            "mcp.method.name": "tools/call",
            "jsonrpc.request.id": "6",
            "gen_ai.tool.name": "add",
            "gen_ai.operation.name": "execute_tool",
            "network.transport": "tcp",
            "network.protocol.name": "http",
            "network.protocol.version": "1.1",
            "mcp.session.id": "fb0b5df5-3256-4083-a965-a3c9625f5b7c",
            "mcp.protocol.version": "2025-03-26",
            "mcp_audit.pair.status": "paired",
            "mcp_audit.batch": 2,
            "mcp_audit.batch.position": 2,
        })
    );
    // The server's -32601 for "b-12" (entry 9): an error span.
    let err = spans
        .iter()
        .find(|s| s["attributes"]["jsonrpc.request.id"] == "b-12")
        .unwrap();
    assert_eq!(err["name"], "no/such_method");
    assert_eq!(
        err["status"],
        json!({"code": 2, "message": "Method not found"})
    );
    assert_eq!(err["attributes"]["error.type"], "-32601");
    assert_eq!(err["attributes"]["rpc.response.status_code"], "-32601");
    let names: Vec<&str> = spans.iter().filter_map(|s| s["name"].as_str()).collect();
    assert!(names.contains(&"prompts/get greet"));
    let read = spans
        .iter()
        .find(|s| s["attributes"]["jsonrpc.request.id"] == "2")
        .unwrap();
    assert_eq!(
        read["attributes"]["mcp.resource.uri"],
        "users://bob/profile"
    );
    // Unmeasured requests are events on the session span, never spans.
    let unmeasured: Vec<(&str, &str)> = root_span["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "mcp_audit.request")
        .map(|e| {
            (
                e["attributes"]["jsonrpc.request.id"].as_str().unwrap(),
                e["attributes"]["mcp_audit.latency.unknown"]
                    .as_str()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        unmeasured,
        [
            ("7", "no_response"),
            ("8", "no_response"),
            ("9", "no_response")
        ]
    );
    // Every finding is one event; duplicate_id points at the second id 9
    // (tools/call add, unanswered), so it sits on the session span.
    let events: Vec<&Value> = spans
        .iter()
        .flat_map(|s| s["events"].as_array().unwrap())
        .filter(|e| e["name"] == "mcp_audit.finding")
        .collect();
    assert_eq!(events.len(), 16);
    let dup = events
        .iter()
        .find(|e| e["attributes"]["mcp_audit.finding.kind"] == "duplicate_id")
        .unwrap();
    assert_eq!(dup["time"], 1_796_072_811_784_763_000_i64);
    assert_eq!(dup["attributes"]["jsonrpc.request.id"], "9");
    assert_eq!(dup["attributes"]["mcp_audit.finding.severity"], "error");
    assert_eq!(dup["attributes"]["mcp_audit.finding.location"], "entry 6");
}

/// Two runs write the same bytes (ids are derived, not random).
#[test]
fn two_runs_write_the_same_file() {
    let dir = out_dir("otlp_twice");
    let cap = root().join(TS_HAR).display().to_string();
    let mut got = Vec::new();
    for n in ["a.jsonl", "b.jsonl"] {
        let f = dir.join(n).display().to_string();
        mcp_audit(&[&cap, "--otlp", &f, "-q"]);
        got.push(std::fs::read(dir.join(n)).unwrap());
    }
    assert!(!got[0].is_empty());
    assert_eq!(got[0], got[1]);
}

/// A hand-made HAR: a tool call whose id is a GitHub token, whose tool
/// name is an API key, answered by an error naming a bearer token, with a
/// W3C traceparent in `_meta`. Redacted by default, kept with
/// `--no-redact`; the span joins the sender's trace.
#[test]
fn redacted_and_in_the_senders_trace() {
    let dir = out_dir("otlp_redacted_input");
    let id = "ghp_abcdefghijklmnopqrstuvwx";
    let key = "sk-live-abcdefghijklmnop1234";
    let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": key, "_meta": {"traceparent": tp}}});
    let resp = json!({"jsonrpc": "2.0", "id": id,
        "error": {"code": -32000, "message": "denied for Bearer zyxwvutsrqponmlkjihg"}});
    let har = json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
        "entries": [{
            "startedDateTime": "2026-12-01T10:00:00.000000Z", "time": 12.5,
            "request": {"method": "POST", "url": "http://127.0.0.1:9/mcp", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Mcp-Session-Id", "value": "s1"},
                            {"name": "Content-Type", "value": "application/json"}],
                "postData": {"mimeType": "application/json", "text": req.to_string()}},
            "response": {"status": 200, "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"}],
                "content": {"mimeType": "application/json", "text": resp.to_string()}},
            "timings": {"send": 0, "wait": 12.5, "receive": 0}}]}});
    let input = dir.join("secret.har");
    std::fs::write(&input, har.to_string()).unwrap();
    let Some((d, v)) = read_back("otlp_redacted", &input, &[]) else {
        return;
    };
    let text = std::fs::read_to_string(d.join("t.jsonl")).unwrap();
    for secret in [id, key, "zyxwvutsrqponmlkjihg"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let spans = spans(&v);
    assert_eq!(spans.len(), 2);
    let s = &spans[1];
    assert_eq!(s["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(s["parent_span_id"], "00f067aa0ba902b7");
    assert_eq!(
        s["links"],
        json!([{"trace_id": spans[0]["trace_id"], "span_id": spans[0]["span_id"],
                "attributes": {"mcp_audit.link": "session"}}])
    );
    assert_eq!(s["name"], "tools/call [REDACTED]");
    assert_eq!(s["attributes"]["jsonrpc.request.id"], "[REDACTED]");
    assert_eq!(s["attributes"]["error.type"], "-32000");
    assert_eq!(s["attributes"]["mcp.session.id"], "s1");
    assert_eq!(s["status"]["code"], 2);
    assert_eq!(s["status"]["message"], "denied for Bearer [REDACTED]");
    assert_eq!(
        s["end"].as_i64().unwrap() - s["start"].as_i64().unwrap(),
        12_500_000
    );
    // Kept as captured when asked.
    let (_, v) = read_back("otlp_not_redacted", &input, &["--no-redact"]).unwrap();
    let s = &spans_of(&v)[1];
    assert_eq!(s["name"], format!("tools/call {key}"));
    assert_eq!(s["attributes"]["jsonrpc.request.id"], id);
}

fn spans_of(v: &Value) -> Vec<Value> {
    spans(v).clone()
}

/// `--otlp` never overwrites an input or an `--out` file, nor shares a
/// file with `--junit`/`--sarif` (exit 2, nothing written).
#[test]
fn refuses_to_overwrite() {
    let dir = out_dir("otlp_refuses");
    let cap = dir.join("c.har");
    std::fs::copy(root().join(TS_HAR), &cap).unwrap();
    let before = std::fs::read(&cap).unwrap();
    let c = cap.display().to_string();
    let o = mcp_audit(&[&c, "--otlp", &c, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--otlp"));
    assert_eq!(std::fs::read(&cap).unwrap(), before);
    let out = dir.join("out").display().to_string();
    let target = dir.join("out/summary.json").display().to_string();
    let o = mcp_audit(&[&c, "--out", &out, "--otlp", &target, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--out writes that file"));
    let x = dir.join("x").display().to_string();
    let o = mcp_audit(&[&c, "--sarif", &x, "--otlp", &x, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--sarif and --otlp name the same file"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!dir.join("x").exists());
    // --otlp-metrics the same way.
    let o = mcp_audit(&[&c, "--otlp-metrics", &c, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "mcp-audit: --otlp-metrics {c}: that file is an input of this run; refusing to overwrite it\n"
        )
    );
    assert_eq!(std::fs::read(&cap).unwrap(), before);
    let o = mcp_audit(&[&c, "--otlp", &x, "--otlp-metrics", &x, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--otlp and --otlp-metrics name the same file"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!dir.join("x").exists());
}

/// MRTR rounds (fastmcp 4.2.3, `book_flight` ids 5 → 6 → 7; see
/// tests/suite/operations.rs) carry their operation's key, so a trace
/// viewer can group them; a plain call carries none.
#[test]
fn mrtr_rounds_name_their_operation() {
    let cap = root().join("tests/data/real4/issue12/har_fastmcp-4.2.3__mrtr.har");
    let Some((_, v)) = read_back("otlp_mrtr", &cap, &[]) else {
        return;
    };
    let op = |id: &str| {
        spans(&v)
            .iter()
            .find(|s| s["attributes"]["jsonrpc.request.id"] == id)
            .map(|s| s["attributes"]["mcp_audit.operation"].clone())
    };
    let m = Some(json!("mrtr-1"));
    assert_eq!((op("5"), op("6"), op("7")), (m.clone(), m.clone(), m));
    assert_eq!(op("3"), Some(Value::Null));
}

/// A line log (read block by block) marks an error response as such: the
/// fresh user's two-line log, `tools/call` answered `-32602`.
#[test]
fn line_log_errors_are_marked() {
    let dir = out_dir("otlp_err_in");
    let log = dir.join("err.ndjson");
    std::fs::write(
        &log,
        concat!(
            r#"{"ts":"2026-12-01T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}}"#,
            "\n",
            r#"{"ts":"2026-12-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}}"#,
            "\n"
        ),
    )
    .unwrap();
    let Some((_, v)) = read_back("otlp_err", &log, &[]) else {
        return;
    };
    let call = spans(&v)
        .iter()
        .find(|s| s["attributes"]["jsonrpc.request.id"] == "1")
        .cloned()
        .expect("a span for id 1");
    assert_eq!(call["attributes"]["error.type"], "-32602");
    assert_eq!(call["status"]["code"], 2);
}

/// Runs `mcp-audit INPUT --out DIR/out --otlp-metrics DIR/m.json` and reads
/// the file back with `otlp_metrics_read.py` (an
/// `ExportMetricsServiceRequest` parsed by `json_format.Parse`, unknown
/// fields rejected); `None` when python lacks opentelemetry-proto.
fn metrics_back(test: &str, input: &str) -> Option<(std::path::PathBuf, Value)> {
    if !has_python(
        test,
        &["google.protobuf", "opentelemetry.proto"],
        "opentelemetry-proto",
    ) {
        return None;
    }
    let dir = out_dir(test);
    let (out, file) = (dir.join("out"), dir.join("m.json"));
    let input = root().join(input);
    let run = mcp_audit(&[
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--otlp-metrics",
        file.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        matches!(run.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r = Command::new("python3")
        .arg(root().join("tests/suite/otlp_metrics_read.py"))
        .arg(&file)
        .output()
        .expect("python3");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Some((out, serde_json::from_slice(&r.stdout).expect("json")))
}

/// The conventions' bucket boundaries (`docs/gen-ai/mcp.md`), in µs.
const BOUNDS_US: [i64; 14] = [
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    30_000_000,
    60_000_000,
    120_000_000,
    300_000_000,
];

/// Per method: count, sum in µs and bucket counts, from `pairs.csv`'s
/// measured rows (`latency_ms`, µs precision), bucketed as OTLP does
/// (upper bound inclusive).
fn from_pairs(out: &Path) -> HashMap<String, (u64, i64, Vec<u64>)> {
    let mut m: HashMap<String, (u64, i64, Vec<u64>)> = HashMap::new();
    for r in pairs(out).iter().filter(|r| !r["latency_ms"].is_empty()) {
        let us = (r["latency_ms"].parse::<f64>().unwrap() * 1000.0).round() as i64;
        let e = m
            .entry(r["method"].clone())
            .or_insert_with(|| (0, 0, vec![0; 15]));
        e.0 += 1;
        e.1 += us;
        let b = BOUNDS_US.iter().position(|&u| us <= u).unwrap_or(14);
        e.2[b] += 1;
    }
    m
}

/// The histogram's points summed per `mcp.method.name`.
fn per_method(v: &Value) -> HashMap<String, (u64, f64, Vec<u64>)> {
    let mut m: HashMap<String, (u64, f64, Vec<u64>)> = HashMap::new();
    for res in v["resources"].as_array().unwrap() {
        for metric in res["metrics"].as_array().unwrap() {
            assert_eq!(metric["name"], "mcp.client.operation.duration");
            assert_eq!(metric["unit"], "s");
            assert_eq!(metric["scope"], "mcp-audit");
            assert_eq!(metric["temporality"], 2, "CUMULATIVE");
            for p in metric["points"].as_array().unwrap() {
                assert_eq!(
                    p["explicit_bounds"],
                    json!([
                        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0,
                        300.0
                    ])
                );
                let attrs = p["attributes"].as_object().unwrap();
                for k in attrs.keys() {
                    assert!(
                        [
                            "mcp.method.name",
                            "gen_ai.tool.name",
                            "gen_ai.prompt.name",
                            "gen_ai.operation.name",
                            "error.type",
                            "rpc.response.status_code",
                            "mcp.protocol.version",
                            "network.transport",
                            "network.protocol.name",
                            "network.protocol.version",
                        ]
                        .contains(&k.as_str()),
                        "{k} on a metric point"
                    );
                }
                let buckets: Vec<u64> = p["bucket_counts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_u64().unwrap())
                    .collect();
                let count = p["count"].as_u64().unwrap();
                assert_eq!(buckets.iter().sum::<u64>(), count);
                assert!(p["min"].as_f64().unwrap() <= p["max"].as_f64().unwrap());
                assert!(p["start"].as_u64().unwrap() <= p["time"].as_u64().unwrap());
                let e = m
                    .entry(attrs["mcp.method.name"].as_str().unwrap().to_string())
                    .or_insert_with(|| (0, 0.0, vec![0; 15]));
                e.0 += count;
                e.1 += p["sum"].as_f64().unwrap();
                for (a, b) in e.2.iter_mut().zip(buckets) {
                    *a += b;
                }
            }
        }
    }
    m
}

/// Counts, sums and buckets per method equal `pairs.csv`'s measured rows.
fn assert_matches_pairs(out: &Path, v: &Value) -> usize {
    let want = from_pairs(out);
    let got = per_method(v);
    let mut methods: Vec<&String> = want.keys().collect();
    methods.sort();
    let mut got_methods: Vec<&String> = got.keys().collect();
    got_methods.sort();
    assert_eq!(got_methods, methods);
    for m in methods {
        let (wc, wsum_us, wb) = &want[m];
        let (gc, gsum, gb) = &got[m];
        assert_eq!(gc, wc, "{m} count");
        assert!(
            (gsum - *wsum_us as f64 / 1e6).abs() < 1e-9,
            "{m} sum {gsum} s, pairs.csv {wsum_us} µs"
        );
        assert_eq!(gb, wb, "{m} buckets");
    }
    want.values().map(|w| w.0 as usize).sum()
}

/// The TypeScript server's capture (the traces above): the 13 measured
/// requests of pairs.csv, by method, in the conventions' buckets; the
/// unknown method's point carries its JSON-RPC error code.
#[test]
fn client_operation_duration_from_a_har() {
    let Some((out, v)) = metrics_back("otlp_metrics_har", TS_HAR) else {
        return;
    };
    assert_eq!(assert_matches_pairs(&out, &v), 13);
    let res = &v["resources"][0];
    assert_eq!(
        res["resource"],
        json!({"service.name": "capture-demo-ts", "service.version": "0.1.0"})
    );
    let points = res["metrics"][0]["points"].as_array().unwrap();
    // initialize, no/such_method, ping, prompts/get, prompts/list,
    // resources/read, tools/call add, tools/call slow_echo, tools/list.
    assert_eq!(points.len(), 9);
    let unknown = points
        .iter()
        .find(|p| p["attributes"]["mcp.method.name"] == "no/such_method")
        .unwrap();
    assert_eq!(
        unknown["attributes"],
        json!({"mcp.method.name": "no/such_method", "error.type": "-32601",
               "rpc.response.status_code": "-32601", "mcp.protocol.version": "2025-03-26",
               "network.transport": "tcp", "network.protocol.name": "http",
               "network.protocol.version": "1.1"})
    );
    let slow = points
        .iter()
        .find(|p| p["attributes"]["gen_ai.tool.name"] == "slow_echo")
        .unwrap();
    assert_eq!(slow["count"], 3);
    assert_eq!(slow["attributes"]["gen_ai.operation.name"], "execute_tool");
    // initialize: 99.551 ms (pairs.csv), in (0.05, 0.1].
    let init = points
        .iter()
        .find(|p| p["attributes"]["mcp.method.name"] == "initialize")
        .unwrap();
    assert_eq!(init["sum"], 0.099551);
    assert_eq!(init["bucket_counts"][3], 1);
    assert_eq!(init["start"], 1_796_072_811_252_296_000u64);
    assert_eq!(init["time"], 1_796_072_811_351_847_000u64);
}

/// A Claude Desktop host log (stdio: `pipe`), requests both ways (the
/// server's sampling/createMessage and roots/list are measured on the
/// server, their sender).
#[test]
fn client_operation_duration_from_a_host_log() {
    let Some((out, v)) = metrics_back(
        "otlp_metrics_claude",
        "tests/data/real/stdio_py-client__py-server.claude.log",
    ) else {
        return;
    };
    let n = assert_matches_pairs(&out, &v);
    let rows = pairs(&out);
    assert_eq!(
        n,
        rows.iter().filter(|r| !r["latency_ms"].is_empty()).count()
    );
    assert_eq!(n, 27);
    let points = v["resources"][0]["metrics"][0]["points"]
        .as_array()
        .unwrap();
    assert!(
        points
            .iter()
            .all(|p| p["attributes"]["network.transport"] == "pipe")
    );
    let methods: Vec<&str> = points
        .iter()
        .map(|p| p["attributes"]["mcp.method.name"].as_str().unwrap())
        .collect();
    assert!(methods.contains(&"sampling/createMessage") && methods.contains(&"roots/list"));
}

/// A real stdio session with server-everything, logged as an envelope log
/// by the fresh user's SDK client (`tests/data/real4/legacy/client.mjs`):
/// three `tools/call` replies carry `isError: true` (ids 4, 6 and 15,
/// lines 12, 16 and 34). A line log is read block by block, its response
/// bodies not kept, yet exactly those three spans say `error.type`
/// `tool_error` with status ERROR, and stderr has no notice (no reply was
/// a JSON-RPC error).
#[test]
fn tool_errors_of_a_line_log() {
    let dir = out_dir("otlp_tool_errors");
    let file = dir.join("t.jsonl");
    let input = root().join("tests/data/real4/legacy/envelope_stdio__everything.jsonl");
    let run = mcp_audit(&[
        input.to_str().unwrap(),
        "--otlp",
        file.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stderr), "");
    let mut failed = Vec::new();
    for line in std::fs::read_to_string(&file).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        for rs in v["resourceSpans"].as_array().unwrap() {
            for ss in rs["scopeSpans"].as_array().unwrap() {
                for s in ss["spans"].as_array().unwrap() {
                    let attr = |k: &str| {
                        s["attributes"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .find(|a| a["key"] == k)
                            .map(|a| a["value"]["stringValue"].as_str().unwrap_or("").to_string())
                    };
                    if attr("error.type").as_deref() == Some("tool_error") {
                        assert_eq!(s["status"]["code"], 2);
                        failed.push(attr("jsonrpc.request.id").unwrap());
                    }
                }
            }
        }
    }
    assert_eq!(failed, ["4", "6", "15"]);
}

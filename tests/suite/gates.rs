//! Gates (`--fail-on-kind`, `--allow`, `--max-latency`) on a real capture:
//! `tests/data/real/har_ts-streamable-sse__raw-batches.har` (the TypeScript
//! SDK's server, batches sent raw). Its findings: out_of_order_batch 3,
//! duplicate_id 1, empty_batch 1, invalid_request 1, missing_response 2,
//! neither_result_nor_error 1, null_id_error 2, response_count_mismatch 2,
//! stream_closed_before_response 1, unknown_id_response 1,
//! empty_batch_not_rejected 1. Its tools/call latencies, read off
//! pairs.csv: 253.058 ms three times (ids 4, 5, 6 of one batch) and
//! 27.189 ms (id 9), so p50 (nearest rank 2 of 4) and max are 253.058 ms.

use serde_json::{Value, json};

use crate::common::{mcp_audit, root};

fn capture() -> String {
    root()
        .join("tests/data/real/har_ts-streamable-sse__raw-batches.har")
        .display()
        .to_string()
}

fn summary(args: &[&str]) -> (Option<i32>, Value) {
    let cap = capture();
    let mut all = vec![cap.as_str(), "--json"];
    all.extend_from_slice(args);
    let o = mcp_audit(&all);
    let v = serde_json::from_slice(&o.stdout).expect("summary.json on stdout");
    (o.status.code(), v)
}

#[test]
fn no_gate_no_gates_member() {
    let (code, v) = summary(&[]);
    assert_eq!(code, Some(1));
    assert!(v.get("gates").is_none());
}

#[test]
fn latency_budgets_fail_the_run_and_say_why() {
    let (code, v) = summary(&[
        "--fail-on",
        "never",
        "--max-latency",
        "tools/call:p50=1ms",
        "--max-latency",
        "*:max=1s",
        "--max-latency",
        "sampling/createMessage:p99=1s",
    ]);
    assert_eq!(code, Some(1), "the tools/call budget fails");
    assert_eq!(
        v["gates"],
        json!([
            {"gate": "max-latency tools/call p50 <= 1 ms", "passed": false,
             "detail": "tools/call p50 253.058 ms over 4 latencies",
             "value_ms": 253.058, "method": "tools/call"},
            {"gate": "max-latency * max <= 1000 ms", "passed": true,
             "detail": "tools/call max 253.058 ms over 4 latencies",
             "value_ms": 253.058, "method": "tools/call"},
            {"gate": "max-latency sampling/createMessage p99 <= 1000 ms", "passed": true,
             "detail": "no request of sampling/createMessage in the capture (is the method name right?): nothing to judge",
             "judged": false}
        ])
    );
    let (code, _) = summary(&["--fail-on", "never", "--max-latency", "*:p99=300ms"]);
    assert_eq!(code, Some(0), "every method within 300 ms");
}

#[test]
fn allow_and_fail_on_kind() {
    // Every error kind of the capture allowed: warnings do not fail under
    // the default --fail-on error, so the run is clean.
    let errors = [
        "duplicate_id",
        "empty_batch",
        "invalid_request",
        "missing_response",
        "neither_result_nor_error",
        "response_count_mismatch",
        "stream_closed_before_response",
        "unknown_id_response",
    ];
    let mut args = vec![];
    for k in errors {
        args.extend(["--allow", k]);
    }
    let (code, v) = summary(&args);
    assert_eq!(code, Some(0));
    assert_eq!(v["gates"].as_array().map(Vec::len), Some(8));
    assert_eq!(
        v["gates"][3],
        json!({"gate": "allow missing_response", "passed": true, "findings": 2,
               "detail": "2 missing_response finding(s), none fails the run"})
    );
    // A warning kind made to fail.
    args.extend(["--fail-on-kind", "null_id_error"]);
    let (code, v) = summary(&args);
    assert_eq!(code, Some(1));
    assert_eq!(
        v["gates"][0],
        json!({"gate": "fail-on-kind null_id_error", "passed": false, "findings": 2,
               "detail": "2 null_id_error finding(s)"})
    );
    // The terminal names the gate that failed.
    let cap = capture();
    let mut t = vec![cap.as_str()];
    t.extend_from_slice(&args);
    let o = mcp_audit(&t);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("gate FAILED: fail-on-kind null_id_error: 2 null_id_error finding(s)"),
        "{out}"
    );
}

#[test]
fn unknown_kinds_are_usage_errors() {
    let cap = capture();
    let o = mcp_audit(&[cap.as_str(), "--allow", "slow_tails"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--allow slow_tails: no such finding kind"),
        "{err}"
    );
}

/// A budget for a method the capture never saw (a misspelt name) passes,
/// as there is nothing to judge, and every output says it was not judged:
/// stderr, the terminal's gate line, a skipped JUnit case.
#[test]
fn a_budget_that_judged_nothing_warns() {
    let cap = capture();
    let o = mcp_audit(&[
        &cap,
        "-q",
        "--fail-on",
        "never",
        "--max-latency",
        "tool/call:p99=1s",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "mcp-audit: warning: max-latency tool/call p99 <= 1000 ms: no request of tool/call in the capture (is the method name right?): nothing to judge\n"
    );
    let junit = crate::common::out_dir("budget_judged_nothing").join("r.xml");
    let o = mcp_audit(&[
        &cap,
        "--fail-on",
        "never",
        "--max-latency",
        "tool/call:p99=1s",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "gate not judged: max-latency tool/call p99 <= 1000 ms: no request of tool/call"
        ),
        "{out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"<testsuite name="gates" tests="1" failures="0" errors="0" skipped="1">"#)
            && xml.contains(r#"<testcase classname="gates" name="max-latency tool/call p99 &lt;= 1000 ms"><skipped message="no request of tool/call in the capture (is the method name right?): nothing to judge"/></testcase>"#),
        "{xml}"
    );
}

/// `--fail-on-kind` names a kind the user wants to fail on whatever its
/// severity: a `slow_tail` the traffic explains (here the first request,
/// `server/discover`, waiting 1801 ms for the server's start-up, 10× the
/// median 174 ms — read off the capture's own timestamps) is `info`, but
/// it is no capture gap, so the gate counts it and fails the run. A
/// finding the capture lost (a gap) would not.
#[test]
fn fail_on_kind_counts_a_slow_tail_the_traffic_explains() {
    let cap = root()
        .join("tests/data/real4/mixed/stdio_py-mcp-1.30.0__ts-client-2.4.0.envelope.jsonl")
        .display()
        .to_string();
    let o = mcp_audit(&[&cap, "--json"]);
    assert_eq!(o.status.code(), Some(0), "an info alone fails nothing");
    let o = mcp_audit(&[&cap, "--json", "--fail-on-kind", "slow_tail"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).expect("summary.json on stdout");
    assert_eq!(
        v["gates"],
        json!([{"gate": "fail-on-kind slow_tail", "passed": false, "findings": 1,
                "detail": "1 slow_tail finding(s)"}])
    );
}

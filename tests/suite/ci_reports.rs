//! `--junit` and `--sarif` read back by real consumers: `tests/suite/ci_read.py`
//! parses the JUnit file with junitparser and validates the SARIF file
//! against the SARIF 2.1.0 schema (`tests/data/schemas/`) with jsonschema,
//! then prints what it read; the values below were checked by hand
//! against the captures.

use std::process::Command;

use serde_json::{Value, json};

use crate::common::{has_python, mcp_audit, out_dir, root};

fn read_back(test: &str, input: &str, extra: &[&str]) -> Option<(Option<i32>, Value, usize)> {
    if !has_python(
        test,
        &["junitparser", "jsonschema"],
        "junitparser jsonschema",
    ) {
        return None;
    }
    let dir = out_dir(test);
    let (junit, sarif) = (dir.join("r.xml"), dir.join("r.sarif"));
    let cap = root().join(input).display().to_string();
    let (j, s) = (junit.display().to_string(), sarif.display().to_string());
    let mut args = vec![cap.as_str(), "--json", "--junit", &j, "--sarif", &s];
    args.extend_from_slice(extra);
    let o = mcp_audit(&args);
    let summary: Value = serde_json::from_slice(&o.stdout).expect("summary.json");
    // One test case per kind of the catalogue, as summary.json lists them.
    let kinds = summary["findings_by_kind"]
        .as_object()
        .map_or(0, |m| m.len());
    let r = Command::new("python3")
        .arg(root().join("tests/suite/ci_read.py"))
        .args([
            &junit,
            &sarif,
            &root().join("tests/data/schemas/sarif-2.1.0-rtm.5.json"),
        ])
        .output()
        .expect("python3");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Some((
        o.status.code(),
        serde_json::from_slice(&r.stdout).expect("json"),
        kinds,
    ))
}

/// The names of a JUnit suite's failing cases, as ci_read.py read them.
pub(crate) fn failed_cases(suite: &Value) -> Vec<&str> {
    suite["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["result"] == json!(["Failure"]))
        .filter_map(|c| c["name"].as_str())
        .collect()
}

/// The TypeScript SDK's server sent raw batches: 16 findings (see
/// tests/suite/gates.rs for the list); out_of_order_batch allowed, a
/// latency budget that fails.
#[test]
fn har_findings_as_junit_and_sarif() {
    let Some((code, v, kinds)) = read_back(
        "har_findings_as_junit_and_sarif",
        "tests/data/real/har_ts-streamable-sse__raw-batches.har",
        &[
            "--allow",
            "out_of_order_batch",
            "--max-latency",
            "tools/call:p50=1ms",
        ],
    ) else {
        return;
    };
    assert_eq!(code, Some(1));
    let j = &v["junit"];
    assert_eq!(j["tests"], json!(kinds + 2));
    assert_eq!(j["failures"], json!(9));
    let session = &j["suites"][0];
    assert_eq!(
        session["name"],
        format!(
            "{}: fb0b5df5-3256-4083-a965-a3c9625f5b7c",
            root()
                .join("tests/data/real/har_ts-streamable-sse__raw-batches.har")
                .display()
        )
    );
    assert_eq!(session["tests"], json!(kinds));
    assert_eq!(
        failed_cases(session),
        [
            "duplicate_id",
            "unknown_id_response",
            "missing_response",
            "invalid_request",
            "neither_result_nor_error",
            "empty_batch",
            "response_count_mismatch",
            "stream_closed_before_response"
        ]
    );
    let case = |name: &str| {
        session["cases"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == name))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let cap = root().join("tests/data/real/har_ts-streamable-sse__raw-batches.har");
    assert_eq!(
        case("duplicate_id")["message"],
        format!(
            "1 finding(s); first at {} entry 6: id 9 is still pending in this session; responses cannot be told apart",
            cap.display()
        )
    );
    // Allowed, and a warning kind under --fail-on error: listed, not failed.
    let ooo = case("out_of_order_batch");
    assert_eq!(ooo["result"], json!([]));
    assert_eq!(ooo["out"].as_str().map(|s| s.lines().count()), Some(3));
    assert_eq!(case("null_id_error")["result"], json!([]));
    assert_eq!(case("slow_tail")["out"], Value::Null);
    let gates = &j["suites"][1];
    assert_eq!(
        (gates["name"].as_str(), gates["tests"].as_u64()),
        (Some("gates"), Some(2))
    );
    assert_eq!(
        (&gates["cases"][0]["result"], &gates["cases"][1]["message"]),
        (
            &json!([]),
            &json!("tools/call p50 253.058 ms over 4 latencies")
        )
    );

    let s = &v["sarif"];
    assert_eq!(s["rules"], json!(kinds));
    assert_eq!(s["rule_levels"]["sse_replay_duplicate"], "note");
    let results = s["results"].as_array().expect("results");
    assert_eq!(results.len(), 16);
    assert!(results.iter().all(|r| r["rule_matches_index"] == true));
    let mut dup = results
        .iter()
        .find(|r| r["rule"] == "duplicate_id")
        .cloned()
        .expect("dup");
    // The capture was named by its absolute path: a file:// URI.
    let uri = dup["uri"].take();
    assert!(
        uri.as_str().is_some_and(|u| u.starts_with("file:///")
            && u.ends_with("/tests/data/real/har_ts-streamable-sse__raw-batches.har")),
        "{uri}"
    );
    assert_eq!(
        dup,
        json!({"rule": "duplicate_id", "rule_matches_index": true, "level": "error",
                "uri": null, "line": null, "logical": ["log.entries[6]"], "suppressions": []})
    );
    // --allow out_of_order_batch: its three findings (entries 2, 3 and 9)
    // are suppressed (accepted), their level kept; nothing else is.
    let suppressed: Vec<(&Value, &Value, &Value)> = results
        .iter()
        .filter(|r| r["suppressions"] != json!([]))
        .map(|r| (&r["rule"], &r["level"], &r["suppressions"]))
        .collect();
    assert_eq!(
        suppressed,
        [(
            &json!("out_of_order_batch"),
            &json!("warning"),
            &json!(["accepted"])
        ); 3]
    );
}

/// A stdio log whose server answers every request with id 0 (lines 4–7):
/// tools/list (line 4) and ping "probe-7" (line 6) never answered, the
/// second id-0 answer (line 5) a duplicate, the id-null answer (line 7)
/// unknown.
#[test]
fn stdio_findings_have_lines() {
    let Some((code, v, kinds)) = read_back(
        "stdio_findings_have_lines",
        "tests/data/cases/b04_server_answers_every_request_with_id_zero.log",
        &["--fail-on-kind", "duplicate_response"],
    ) else {
        return;
    };
    assert_eq!(code, Some(1));
    let suite = &v["junit"]["suites"][0];
    assert_eq!(suite["tests"], json!(kinds));
    assert_eq!(
        failed_cases(suite),
        [
            "unknown_id_response",
            "duplicate_response",
            "missing_response"
        ]
    );
    assert_eq!(v["junit"]["suites"][1]["name"], "gates");
    let got: Vec<(String, u64)> = v["sarif"]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["rule"].as_str().unwrap_or("").to_string(),
                r["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want = [
        ("missing_response", 4),
        ("duplicate_response", 5),
        ("missing_response", 6),
        ("unknown_id_response", 7),
    ];
    assert_eq!(got, want.map(|(k, n)| (k.to_string(), n)).to_vec());
}

/// Fresh-user reports: a noncharacter in a method kept the JUnit file from
/// parsing; an unreadable input gave a green JUnit and a clean SARIF; a
/// `--junit` naming the capture overwrote it.
#[test]
fn hostile_and_broken_inputs() {
    if !has_python("hostile_and_broken_inputs", &["junitparser"], "junitparser") {
        return;
    }
    let dir = out_dir("ci_hostile");
    let cap = dir.join("ffff.ndjson");
    std::fs::write(
        &cap,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\uffff]]><&\"}\n",
    )
    .expect("write");
    let missing = dir.join("missing.log");
    let (j, s) = (dir.join("r.xml"), dir.join("r.sarif"));
    let o = mcp_audit(&[
        &cap.display().to_string(),
        &missing.display().to_string(),
        "--junit",
        &j.display().to_string(),
        "--sarif",
        &s.display().to_string(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2), "an input could not be read");
    let read = Command::new("python3")
        .args([
            "-c",
            "import sys, junitparser; x = junitparser.JUnitXml.fromfile(sys.argv[1]); \
             print(x.errors, [s.name for s in x][-1], [c.name for s in x for c in s if s.name == 'inputs'])",
        ])
        .arg(&j)
        .output()
        .expect("python3");
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        format!("1 inputs ['{}']", missing.display())
    );
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&s).expect("sarif")).expect("json");
    let inv = &sarif["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert_eq!(
        inv["toolExecutionNotifications"][0]["message"]["text"],
        format!("{}: no such file or directory", missing.display())
    );
    // The capture named as --junit is refused, and left as it was.
    let before = std::fs::read(&cap).expect("read");
    let c = cap.display().to_string();
    let o = mcp_audit(&[&c, "--junit", &c, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("that file is an input of this run; refusing to overwrite it")
    );
    assert_eq!(std::fs::read(&cap).expect("read"), before);
}

/// Fresh-user report: a credential inside an object id reached every
/// output. The id is redacted wherever it is shown.
#[test]
fn object_id_secrets_are_redacted_everywhere() {
    let dir = out_dir("ci_object_id");
    let cap = dir.join("leak.log");
    std::fs::write(
        &cap,
        "> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
         < {\"jsonrpc\":\"2.0\",\"id\":{\"password\":\"SECRETLEAK4\"},\"result\":{}}\n",
    )
    .expect("write");
    let out = dir.join("out");
    let (j, s) = (dir.join("r.xml"), dir.join("r.sarif"));
    let o = mcp_audit(&[
        &cap.display().to_string(),
        "--out",
        &out.display().to_string(),
        "--junit",
        &j.display().to_string(),
        "--sarif",
        &s.display().to_string(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["findings"][1]["kind"], "invalid_request");
    assert!(v["findings"][1]["id"].is_object());
    let mut files = vec![j, s];
    for e in std::fs::read_dir(&out).expect("out") {
        files.push(e.expect("entry").path());
    }
    assert!(!String::from_utf8_lossy(&o.stdout).contains("SECRETLEAK4"));
    for f in files {
        let bytes = std::fs::read(&f).expect("read");
        assert!(
            !bytes.windows(11).any(|w| w == b"SECRETLEAK4"),
            "{} holds the secret",
            f.display()
        );
    }
}

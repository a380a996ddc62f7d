//! Bad input: each gives one clear line naming the file (and the place),
//! the run exits 2, and the other inputs of the same run are still
//! analysed and reported.

use crate::common;

use std::path::Path;

use common::{mcp_audit, out_dir, root};

fn good() -> String {
    root()
        .join("tests/data/cases/b01_batch_reordered_by_balancer.har")
        .to_string_lossy()
        .into()
}

/// Runs the good sample plus `bad`; returns (exit code, stderr, summary.json).
fn with_bad(name: &str, bad: &Path) -> (Option<i32>, String, serde_json::Value) {
    let out = out_dir(name);
    let o = mcp_audit(&[
        &good(),
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json written");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into(),
        serde_json::from_str(&summary).unwrap(),
    )
}

fn assert_good_still_reported(s: &serde_json::Value) {
    // b01: one session, 3 requests, 3 responses, one out_of_order_batch.
    let sessions = s["sessions"].as_array().unwrap();
    let b01: Vec<_> = sessions
        .iter()
        .filter(|x| {
            x["file"]
                .as_str()
                .unwrap()
                .ends_with("b01_batch_reordered_by_balancer.har")
        })
        .collect();
    assert_eq!(b01.len(), 1);
    assert_eq!(b01[0]["totals"]["requests"], 3);
    assert_eq!(b01[0]["totals"]["responses"], 3);
    assert_eq!(b01[0]["findings_by_kind"]["out_of_order_batch"], 1);
    assert_eq!(s["inputs"][0]["errors"].as_array().unwrap().len(), 0);
}

#[test]
fn empty_file() {
    let dir = out_dir("bad_empty_in");
    let p = dir.join("empty.log");
    std::fs::write(&p, "").unwrap();
    let (code, err, s) = with_bad("bad_empty", &p);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("empty.log: empty file"), "{err}");
    assert_good_still_reported(&s);
    assert_eq!(
        s["inputs"][1]["errors"][0],
        format!("{}: empty file, nothing to analyse", p.display())
    );
}

#[test]
fn binary_file() {
    let dir = out_dir("bad_binary_in");
    let p = dir.join("blob.bin");
    std::fs::write(&p, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let (code, err, s) = with_bad("bad_binary", &p);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("blob.bin: binary file (NUL byte at byte offset 8)"),
        "{err}"
    );
    assert_good_still_reported(&s);
}

#[test]
fn missing_path() {
    let p = Path::new("/nonexistent/mcp-audit/capture.har");
    let (code, err, s) = with_bad("bad_missing", p);
    assert_eq!(code, Some(2));
    assert_eq!(
        err.trim(),
        "mcp-audit: /nonexistent/mcp-audit/capture.har: no such file or directory"
    );
    assert_good_still_reported(&s);
}

#[test]
fn truncated_har_keeps_entries_before_the_cut() {
    // b21 has 5 entries; cut inside entry 3 (the second initialize).
    let text = std::fs::read_to_string(
        root().join("tests/data/cases/b21_idle_post_stream_cut_by_edge.har"),
    )
    .unwrap();
    let cut = text.find("do-2e4a6c8e1f3b5d7a").unwrap();
    let dir = out_dir("bad_truncated_in");
    let p = dir.join("cut.har");
    std::fs::write(&p, &text[..cut]).unwrap();
    let (code, err, s) = with_bad("bad_truncated", &p);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cut.har: HAR ends early at byte"), "{err}");
    assert!(err.contains("3 entries read before it"), "{err}");
    assert_good_still_reported(&s);
    // Entries 0-2 of b21: initialize (paired), initialized, tools/call id 1
    // whose stream was cut: stream_closed_before_response + missing_response.
    assert_eq!(s["totals"]["requests"], 3 + 2);
    assert_eq!(s["findings_by_kind"]["stream_closed_before_response"], 1);
    assert_eq!(s["findings_by_kind"]["missing_response"], 1);
}

#[test]
fn unknown_format_names_first_lines() {
    let dir = out_dir("bad_unknown_in");
    let p = dir.join("notes.txt");
    std::fs::write(&p, "hello world\nthis is not a capture\n").unwrap();
    let (code, err, s) = with_bad("bad_unknown", &p);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("notes.txt: no known format (not HAR, not SSE, no line of a log dialect mcp-audit reads: `mcp-audit analyze --help` lists them); first lines: ")
            && err.contains("line 1 \"hello world\""),
        "{err}"
    );
    assert_good_still_reported(&s);
}

#[test]
fn clean_capture_exits_zero_and_findings_exit_one() {
    let clean = root().join("tests/data/cases/l03_vscode_editor_server_dialect.log");
    assert_eq!(
        mcp_audit(&[clean.to_str().unwrap(), "-q"]).status.code(),
        Some(0)
    );
    assert_eq!(
        mcp_audit(&[&good(), "-q"]).status.code(),
        Some(0),
        "out_of_order_batch is a warning"
    );
    assert_eq!(
        mcp_audit(&[&good(), "-q", "--fail-on", "warning"])
            .status
            .code(),
        Some(1)
    );
    let b04 = root().join("tests/data/cases/b04_server_answers_every_request_with_id_zero.log");
    assert_eq!(
        mcp_audit(&[b04.to_str().unwrap(), "-q"]).status.code(),
        Some(1)
    );
    assert_eq!(mcp_audit(&["--bogus"]).status.code(), Some(2));
}

#[test]
fn pair_findings_name_the_half_they_are_in() {
    let dir = out_dir("pair_halves_in");
    std::fs::write(
        dir.join("p2.client-to-server.jsonl"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("p2.server-to-client.jsonl"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{}}\n",
    )
    .unwrap();
    let out = dir.join("out");
    let s2c = dir.join("p2.server-to-client.jsonl");
    let o = mcp_audit(&[s2c.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(1));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["totals"]["pairs"], 1);
    let f = &s["findings"][0];
    assert_eq!(
        (
            f["kind"].as_str(),
            f["id"].as_i64(),
            f["location"]["line"].as_i64()
        ),
        (Some("unknown_id_response"), Some(42), Some(2))
    );
    assert_eq!(f["file"].as_str().unwrap(), s2c.to_str().unwrap());
    // One half alone is read alone, and the run says so (not an error
    // exit); it holds one side only, so its responses (ids 1 and 42) are not
    // judged: their requests are in the file that is not here.
    std::fs::remove_file(dir.join("p2.client-to-server.jsonl")).unwrap();
    let o = mcp_audit(&[s2c.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("p2.client-to-server.jsonl not found; read alone")
    );
}

/// `--timeout 0` would make every response late: a usage error.
#[test]
fn zero_timeout_is_refused() {
    let o = mcp_audit(&[&good(), "--timeout", "0", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "mcp-audit: --timeout must be longer than 0 (every response would be late)"
    );
}

/// A folder that is the run's own `--out` and holds only what `--out`
/// writes is not read, and the message says so instead of only "no input
/// files". (One that holds captures too is read without its outputs:
/// `inputs::out_among_the_inputs_is_said`.)
#[test]
fn own_output_folder_is_named_when_nothing_is_left() {
    let dir = out_dir("own_out_only");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("report.html"), "<!doctype html>").unwrap();
    std::fs::write(dir.join("pairs.csv"), "session,id\n").unwrap();
    let d = dir.to_str().unwrap();
    let o = mcp_audit(&[d, "--out", d, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        format!(
            "mcp-audit: {d}: skipped: this run's own output folder (--out or --shard-dir)\n\
             mcp-audit: no input files found in {d} (the run's own output folders are not read: {d})"
        )
    );
}

/// Inputs read to their end that yield no JSON-RPC traffic exit 2 under any
/// `--format`, alone or beside a good input, and the per-input index says
/// the same (a nightly job must not read "clean" when nothing was analysed).
#[test]
fn no_traffic_is_exit_2_under_every_format() {
    let d = out_dir("bad_no_traffic");
    let empty = d.join("empty.har");
    std::fs::write(
        &empty,
        r#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}"#,
    )
    .unwrap();
    let har = root().join("tests/data/cases/b01_batch_reordered_by_balancer.har");
    let sse401 = d.join("denied.sse");
    std::fs::write(&sse401, "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":\"invalid_token\"}\r\n").unwrap();
    for (input, format) in [
        (empty.as_path(), None),
        (har.as_path(), Some("sse")),
        (sse401.as_path(), None),
    ] {
        let mut args = vec![input.to_str().unwrap(), "-q"];
        if let Some(f) = format {
            args.extend(["--format", f]);
        }
        let o = mcp_audit(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no JSON-RPC traffic found"), "{args:?}: {err}");
    }
    // Beside a good input: the good one is reported, the run exits 2, and
    // the index gives the empty input exit 2 and the good one its own.
    let out = d.join("out");
    let o = mcp_audit(&[
        empty.to_str().unwrap(),
        good().as_str(),
        "--out",
        out.to_str().unwrap(),
        "--per-input",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("inputs/index.json")).unwrap())
            .unwrap();
    let exits: Vec<(String, i64)> = index["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let f = i["file"].as_str().unwrap();
            (
                f.rsplit('/').next().unwrap().to_string(),
                i["exit"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        exits,
        vec![
            ("empty.har".to_string(), 2),
            // b01 has one out_of_order_batch, a warning: exit 0 alone.
            ("b01_batch_reordered_by_balancer.har".to_string(), 0)
        ]
    );
}

/// `--format stdio` on a HAR says what the file is, and exits 2.
#[test]
fn forced_stdio_on_a_har_names_what_it_is() {
    let har = root().join("tests/data/cases/b01_batch_reordered_by_balancer.har");
    let o = mcp_audit(&[har.to_str().unwrap(), "--format", "stdio", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "mcp-audit: {}: --format stdio, but it holds no line of a stdio log dialect: it is a HAR document; --format har or auto (the default) reads it",
            har.display()
        )
    );
}

/// An empty folder given beside a good input is named on stderr and makes
/// the run exit 2 (as it does alone); the good input is still analysed.
#[test]
fn empty_folder_beside_an_input_is_named() {
    let dir = out_dir("empty_folder_beside");
    let empty = dir.join("emptydir");
    std::fs::create_dir_all(&empty).unwrap();
    let good = root().join("tests/data/real/stdio_py-client__py-server.ndjson");
    let out = dir.join("out");
    let o = mcp_audit(&[
        good.to_str().unwrap(),
        empty.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim_end(),
        format!(
            "mcp-audit: {}: a folder with no file in it, nothing to analyse",
            empty.display()
        )
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["inputs"].as_array().unwrap().len(), 2);
    // The good capture's own counts (its expected file: 27 / 14 / 27).
    assert_eq!(
        (
            s["totals"]["requests"].as_u64(),
            s["totals"]["notifications"].as_u64(),
            s["totals"]["responses"].as_u64()
        ),
        (Some(27), Some(14), Some(27))
    );
}

/// A message with a member twice is read last-wins (as `JSON.parse`) and
/// says so on stderr and in `summary.json`, naming the file and line; the
/// pairing follows the last `id` (2), which the response answers.
#[test]
fn repeated_member_is_named() {
    let dir = out_dir("repeated_member_in");
    let bad = dir.join("dup.ndjson");
    std::fs::write(
        &bad,
        concat!(
            r#"{"ts":"2026-12-01T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}}"#,
            "\n",
            r#"{"ts":"2026-12-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}"#,
            "\n"
        ),
    )
    .unwrap();
    let (code, stderr, s) = with_bad("repeated_member", &bad);
    let line = format!(
        "{}: line 1: a message has its `id` member twice; read as the last one (as JSON.parse does; a parser that keeps the first sees another message)",
        bad.display()
    );
    assert!(stderr.contains(&format!("mcp-audit: {line}")), "{stderr}");
    assert_eq!(s["inputs"][1]["errors"], serde_json::json!([line]));
    assert_eq!(s["inputs"][1]["sessions"], 1);
    assert_eq!(
        code,
        Some(0),
        "a warning (b01's out_of_order_batch) and a notice: no failure"
    );

    assert_good_still_reported(&s);
    let dup: Vec<_> = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == bad.display().to_string())
        .collect();
    assert_eq!(dup, Vec::<&serde_json::Value>::new(), "id 2 is paired");
}

/// A JSON document that is not traffic (a `package.json`, `{"a":1}`) is
/// said as such, and nothing is analysed (exit 2).
#[test]
fn a_json_document_without_json_rpc_is_no_traffic() {
    let d = out_dir("bad_json_doc_in");
    let p = d.join("package.json");
    std::fs::write(
        &p,
        "{\n  \"name\": \"my-app\",\n  \"version\": \"1.0.0\"\n}\n",
    )
    .unwrap();
    let o = mcp_audit(&[p.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "mcp-audit: {}: no JSON-RPC traffic found: a JSON document with no JSON-RPC message (no \"jsonrpc\" member) and not a HAR or a capture format mcp-audit reads; first lines: line 1 \"{{\", line 2 \"  \\\"name\\\": \\\"my-app\\\",\"",
            p.display()
        )
    );
}

//! Inputs through the real binary: gzip and zstd files (made here, at test
//! time), globs, a glob that matches nothing, a truncated stream, and
//! rotated files read oldest first.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{mcp_audit, out_dir, root};

const B04: &str = "tests/data/cases/b04_server_answers_every_request_with_id_zero.log";

/// Runs `analyze ARGS --out DIR -q`; returns (exit code, stderr, summary.json).
fn run(name: &str, args: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    let out = out_dir(name);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--out", out.to_str().unwrap(), "-q"]);
    let o = mcp_audit(&all);
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json written");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into(),
        serde_json::from_str(&summary).unwrap(),
    )
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zst(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

fn totals(s: &serde_json::Value) -> (u64, u64, u64) {
    let t = &s["totals"];
    (
        t["requests"].as_u64().unwrap(),
        t["notifications"].as_u64().unwrap(),
        t["responses"].as_u64().unwrap(),
    )
}

#[test]
fn gzip_and_zstd_copies_analyse_like_the_plain_file() {
    let plain = root().join(B04);
    let text = std::fs::read(&plain).unwrap();
    let (code, err, s) = run("inputs_plain", &[plain.to_str().unwrap()]);
    assert_eq!(totals(&s), (3, 1, 3), "{err}");
    assert!(matches!(code, Some(0) | Some(1)), "{code:?} {err}");

    let dir = out_dir("inputs_compressed_in");
    // `.log` named file holding gzip: detected by magic bytes, not the name.
    for (name, bytes) in [
        ("b04.log.gz", gz(&text)),
        ("b04.log.zst", zst(&text)),
        ("b04-gzip-inside.log", gz(&text)),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let (c, e, s) = run(&format!("inputs_{name}"), &[p.to_str().unwrap()]);
        assert_eq!(c, code, "{name}: {e}");
        assert!(e.is_empty(), "{name}: {e}");
        assert_eq!(totals(&s), (3, 1, 3), "{name}");
        assert_eq!(
            s["inputs"][0]["file"],
            p.display().to_string(),
            "the display name stays the user's path"
        );
        assert_eq!(s["inputs"][0]["dialect"], "arrow");
        assert_eq!(
            s["findings_by_kind"],
            run("inputs_plain2", &[plain.to_str().unwrap()]).2["findings_by_kind"],
            "{name}"
        );
    }
}

#[test]
fn glob_over_cases() {
    let cases = root().join("tests/data/cases");
    let mut want: Vec<String> = std::fs::read_dir(&cases)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("b0") && n.ends_with(".log"))
        .map(|n| cases.join(n).display().to_string())
        .collect();
    want.sort();
    assert!(want.len() >= 2);
    let pattern = cases.join("b0*.log");
    let (code, err, s) = run("inputs_glob", &[pattern.to_str().unwrap()]);
    let got: Vec<String> = s["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, want, "sorted matches, one input each");
    assert!(matches!(code, Some(0) | Some(1)), "{code:?} {err}");
    assert!(
        s["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["errors"].as_array().unwrap().is_empty()),
        "{err}"
    );
    // The same totals as the files named one by one.
    let named: Vec<&str> = want.iter().map(String::as_str).collect();
    assert_eq!(s["totals"], run("inputs_glob_named", &named).2["totals"]);
}

#[test]
fn glob_matching_nothing_is_one_line_and_exit_2() {
    let plain = root().join(B04);
    let pattern = root().join("tests/data/cases/zz_no_such_case_*.log");
    let (code, err, s) = run(
        "inputs_nomatch",
        &[pattern.to_str().unwrap(), plain.to_str().unwrap()],
    );
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "mcp-audit: {}: no file matches this pattern",
            pattern.display()
        )
    );
    assert_eq!(totals(&s), (3, 1, 3), "the other input is still analysed");
}

#[test]
fn truncated_gzip_keeps_whole_lines_and_exits_2() {
    let text = std::fs::read(root().join(B04)).unwrap();
    // Stored (level 0) so that the cut falls at a known place of the text.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    e.write_all(&text).unwrap();
    let full = e.finish().unwrap();
    let p = out_dir("inputs_trunc_in").join("cut.log.gz");
    // Header (10 bytes) + stored-block header (5 bytes) + the first 3 lines and a bit.
    let three: usize = text
        .split_inclusive(|&b| b == b'\n')
        .take(3)
        .map(<[u8]>::len)
        .sum();
    std::fs::write(&p, &full[..15 + three + 20]).unwrap();
    let (code, err, s) = run("inputs_trunc", &[p.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{}: truncated gzip stream: the file ends at byte offset {}",
            p.display(),
            15 + three + 20
        )),
        "{err}"
    );
    assert!(err.contains("the 3 whole line(s)"), "{err}");
    // Lines 1–3: initialize, its answer, notifications/initialized.
    assert_eq!(totals(&s), (1, 1, 1));
}

#[test]
fn rotated_files_are_read_oldest_first() {
    let text = std::fs::read_to_string(root().join(B04)).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let dir: PathBuf = out_dir("inputs_rot_in");
    std::fs::write(dir.join("s.log.1.gz"), gz(lines[..4].concat().as_bytes())).unwrap();
    std::fs::write(dir.join("s.log"), lines[4..].concat()).unwrap();
    let (_, err, s) = run(
        "inputs_rot",
        &[
            dir.join("s.log").to_str().unwrap(),
            dir.join("s.log.1.gz").to_str().unwrap(),
        ],
    );
    let files: Vec<String> = s["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            Path::new(i["file"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(files, ["s.log.1.gz", "s.log"], "{err}");
}

#[test]
fn a_session_spans_its_rotated_files() {
    // The older file holds the request, the newer one its response: one
    // session, one pair, nothing missing or unknown.
    let dir: PathBuf = out_dir("inputs_rot_join_in");
    std::fs::write(
        dir.join("app.log.1"),
        "--> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n\
         <-- {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\
         --> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("app.log"),
        "<-- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
    )
    .unwrap();
    let (code, err, s) = run("inputs_rot_join", &[dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(s["totals"]["sessions"], 1);
    assert_eq!(s["totals"]["pairs"], 2);
    assert_eq!(s["findings"].as_array().unwrap().len(), 0);
}

/// Found by a fresh-user break test: a FIFO in a folder is refused in one
/// line (it used to block the run forever); the run's own `--out` inside the
/// folder is not read back; one file named two ways is read once; a quoted
/// secret in "first lines" is redacted.
#[test]
fn fifo_own_outputs_twice_named_files_and_quoted_secrets() {
    let dir = out_dir("inputs_fifo_dir");
    let b04 = dir.join("b04.log");
    std::fs::copy(root().join(B04), &b04).unwrap();
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(
        dir.join("secret.txt"),
        "Authorization: Bearer sk-live-TOPSECRET999\nnot a capture\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let own = dir.join("out");
    let args = [d, "--out", own.to_str().unwrap(), "-q"];
    let first = mcp_audit(&args);
    assert_eq!(first.status.code(), Some(2));
    let err = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(err.contains("pipe: not a regular file (a FIFO: a pipe, as `<(cmd)` gives, may never end); give a capture file, or pipe the data to `-`"), "{err}");
    assert!(
        err.contains("Bearer [REDACTED]") && !err.contains("TOPSECRET"),
        "{err}"
    );
    // Again, with its outputs now inside the folder: none of them is read.
    let second = mcp_audit(&args);
    let err2 = String::from_utf8_lossy(&second.stderr).to_string();
    // One line more: the run's own output folder, named as skipped.
    assert_eq!(err2.lines().count(), err.lines().count() + 1, "{err2}");
    assert!(
        err2.lines().any(|l| l
            == format!(
                "mcp-audit: {}: skipped: this run's own output folder (--out or --shard-dir)",
                own.display()
            )),
        "{err2}"
    );
    assert!(!err2.contains("summary.json"), "{err2}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(own.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        s["inputs"].as_array().unwrap().len(),
        3,
        "b04.log, pipe, secret.txt"
    );
    assert!(!s.to_string().contains("TOPSECRET"));
    // The same file as `b04.log` and `./…/b04.log`: one input, b04's totals.
    let dotted = format!("{}/./b04.log", d);
    let (_, err3, s3) = run("inputs_twice_named", &[b04.to_str().unwrap(), &dotted]);
    assert_eq!(s3["inputs"].as_array().unwrap().len(), 1, "{err3}");
    assert_eq!(totals(&s3), (3, 1, 3));
}

/// A HAR `time` outside 0 ..= one year is named in one line and the
/// entry's `timings` give its duration (1 + 5 + 1 = 7 ms), not 1e308 ms.
#[test]
fn har_time_out_of_range_is_said_and_timings_used() {
    let dir = out_dir("inputs_har_time_in");
    let cap = dir.join("bigtime.har");
    let msg = |m: serde_json::Value| m.to_string();
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2025-01-01T00:00:00.000Z", "time": 1e308,
        "request": {"method": "POST", "url": "http://x/mcp",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "postData": {"mimeType": "application/json",
                "text": msg(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))}},
        "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
            "content": {"mimeType": "application/json",
                "text": msg(serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}}))}},
        "timings": {"send": 1, "wait": 5, "receive": 1}}]}});
    std::fs::write(&cap, har.to_string()).unwrap();
    let (code, err, s) = run("inputs_har_time", &[cap.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("entry 0: `time` 1e308 ms is out of range (0 to one year); its duration is taken from `timings`"),
        "{err}"
    );
    assert_eq!(s["latency_ms"]["max"].as_f64(), Some(7.0), "{s}");
}

/// Last night's outputs beside the logs are recognised by their
/// summary.json and skipped with one line, whatever they are called; so
/// are documents, each named on stderr and in summary.json `skipped`.
#[test]
fn earlier_runs_output_folders_are_skipped_and_named() {
    let dir = out_dir("inputs_earlier_runs");
    std::fs::copy(root().join(B04), dir.join("b04.log")).unwrap();
    std::fs::write(dir.join("NOTES.md"), "# notes\n").unwrap();
    let d = dir.to_str().unwrap();
    let night1 = dir.join("night1");
    let first = mcp_audit(&[d, "--out", night1.to_str().unwrap(), "-q"]);
    assert_eq!(first.status.code(), Some(1));
    std::fs::rename(&night1, dir.join("lastnight")).unwrap();
    let o = mcp_audit(&[d, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        vec![
            format!("mcp-audit: {d}/NOTES.md: skipped: a document (.md), not a capture"),
            format!(
                "mcp-audit: {d}/lastnight: skipped: an mcp-audit output folder (its summary.json says so), not captures"
            ),
        ]
    );
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["inputs"].as_array().unwrap().len(), 1);
    assert_eq!(s["skipped"].as_array().unwrap().len(), 2);
    assert_eq!(s["skipped"][1]["path"], format!("{d}/lastnight"));
}

/// The terminal names the file of a finding that is not in the session's
/// first file (the other half of a per-direction pair).
#[test]
fn terminal_names_the_half_a_finding_is_in() {
    let dir = out_dir("inputs_pair_terminal");
    let c2s = dir.join("x.client-to-server.jsonl");
    std::fs::write(&c2s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").unwrap();
    std::fs::write(
        dir.join("x.server-to-client.jsonl"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n",
    )
    .unwrap();
    let o = mcp_audit(&[c2s.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("unknown_id_response ×1 at x.server-to-client.jsonl line 2"),
        "{out}"
    );
}

/// A run over many sessions folds the terminal summary after a screenful
/// (sessions with findings first); `--json` keeps every session.
#[test]
fn big_runs_fold_the_terminal_summary() {
    let dir = out_dir("inputs_many_sessions");
    let corpus = dir.join("many.ndjson");
    let made = std::process::Command::new("python3")
        .arg(common::tool("gen_traffic.py"))
        .args([
            "--format",
            "envelope",
            "--sessions",
            "100",
            "--messages",
            "20",
        ])
        .args(["--seed", "3", "--faults", "0", "--out"])
        .arg(&corpus)
        .output()
        .expect("python3");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let o = mcp_audit(&[corpus.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    let shown = out.lines().filter(|l| l.starts_with("session ")).count();
    assert_eq!(shown, 30, "{out}");
    assert!(out.contains("… and 70 more sessions not shown ("), "{out}");
    let j = mcp_audit(&[corpus.to_str().unwrap(), "--json"]);
    let s: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(s["sessions"].as_array().unwrap().len(), 100);
}

/// A raw SSE capture holds one side only: its responses are not judged
/// against requests it cannot hold, but an id answered twice is still
/// `duplicate_response`, and a success with no id answers nothing.
#[test]
fn one_sided_sse_still_reports_what_it_can() {
    let dir = out_dir("inputs_one_sided_sse");
    let f = dir.join("server.sse");
    std::fs::write(
        &f,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n\
         event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n\
         event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"again\":true}}\n\n\
         event: message\ndata: {\"jsonrpc\":\"2.0\",\"result\":{}}\n\n\
         event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n",
    )
    .unwrap();
    let o = mcp_audit(&[f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let found: Vec<(String, serde_json::Value)> = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["kind"].as_str().unwrap().to_string(), f["id"].clone()))
        .collect();
    assert_eq!(
        found,
        vec![
            ("duplicate_response".to_string(), 7.into()),
            ("unknown_id_response".to_string(), serde_json::Value::Null),
        ]
    );
}

/// `mcp-audit analyze - [--json]` with `stdin`: the binary's exit code,
/// stderr and stdout.
fn piped(args: &[&str], stdin: &[u8]) -> (Option<i32>, String, String) {
    use std::process::{Command, Stdio};
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .arg("analyze")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mcp-audit");
    let mut input = c.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let o = c.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into(),
        String::from_utf8_lossy(&o.stdout).into(),
    )
}

/// `-` reads the standard input (plain or gzip), named `<stdin>`, and
/// gives the same analysis as the file. b04 (7 lines): initialize 0 is
/// answered; tools/list 1 is answered with id 0 again
/// (`duplicate_response`); ping `"probe-7"` with id null
/// (`unknown_id_response`); so 1 and `"probe-7"` are `missing_response`.
/// Named twice it is read once; empty, it is one line and exit 2.
#[test]
fn dash_reads_standard_input() {
    let text = std::fs::read(root().join(B04)).unwrap();
    let file = run("stdin_file", &[root().join(B04).to_str().unwrap()]).2;
    for data in [text.clone(), gz(&text)] {
        let (code, stderr, stdout) = piped(&["-", "-", "--json"], &data);
        assert_eq!(code, file_code(&file), "{stderr}");
        let s: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(s["inputs"].as_array().unwrap().len(), 1);
        assert_eq!(s["inputs"][0]["file"], "<stdin>");
        assert_eq!(s["totals"], file["totals"]);
        assert_eq!(s["findings_by_kind"], file["findings_by_kind"]);
        assert_eq!(s["findings_by_kind"]["duplicate_response"], 1);
        assert_eq!(s["findings_by_kind"]["unknown_id_response"], 1);
        assert_eq!(s["findings_by_kind"]["missing_response"], 2);
        assert_eq!(s["totals"]["messages"], 7);
        assert_eq!(s["findings"][0]["file"], "<stdin>");
    }
    let (code, stderr, _) = piped(&["-", "-q"], b"");
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "mcp-audit: <stdin>: empty file, nothing to analyse\n"
    );
}

fn file_code(s: &serde_json::Value) -> Option<i32> {
    // b04 has error findings: exit 1, as for the file.
    assert!(s["findings_by_kind"]["missing_response"].as_u64() > Some(0));
    Some(1)
}

/// A logger log captured from a terminal, its tags coloured (`ESC[32m[STDIN]ESC[0m`),
/// reads as the plain one: same totals and findings, same lines.
#[test]
fn ansi_coloured_log_reads_as_the_plain_one() {
    let plain = root().join("tests/data/real/stdio_py-client__py-server.logger.log");
    let text = std::fs::read_to_string(&plain).unwrap();
    let coloured = text
        .replace("[STDIN]", "\x1b[32m[STDIN]\x1b[0m")
        .replace("[STDOUT]", "\x1b[34m[STDOUT]\x1b[0m");
    let dir = out_dir("ansi_in");
    let p = dir.join("coloured.log");
    std::fs::write(&p, coloured).unwrap();
    let a = run("ansi_plain", &[plain.to_str().unwrap()]).2;
    let (_, stderr, b) = run("ansi_coloured", &[p.to_str().unwrap()]);
    assert_eq!(stderr, "");
    assert_eq!(b["totals"], a["totals"]);
    assert_eq!(b["totals"]["pairs"], 27);
    assert_eq!(b["findings_by_kind"], a["findings_by_kind"]);
    let lines = |s: &serde_json::Value| -> Vec<serde_json::Value> {
        s["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["location"].clone())
            .collect()
    };
    assert_eq!(lines(&b), lines(&a));
}

#[test]
fn batches_csv_has_a_row_per_json_array_and_the_terminal_says_so() {
    // Five JSON arrays: a request batch (line 3), its reply array (4), `[]`
    // (5), a one-request batch (7) and its reply array (8).
    let out = out_dir("batches-every-array");
    let cap = out.join("arrays.jsonl");
    let ts = |n: u32| format!("2025-01-01T00:00:0{n}.000Z");
    let lines = [
        (
            "c2s",
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#,
        ),
        (
            "s2c",
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"s","version":"1"}}}"#,
        ),
        (
            "c2s",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        ),
        (
            "s2c",
            r#"[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]"#,
        ),
        ("c2s", "[]"),
        (
            "s2c",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        ),
        ("c2s", r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#),
        ("s2c", r#"[{"jsonrpc":"2.0","id":3,"result":{}}]"#),
    ];
    let log: String = lines
        .iter()
        .enumerate()
        .map(|(i, (d, m))| {
            format!(
                "{{\"ts\":\"{}\",\"dir\":\"{d}\",\"msg\":{m}}}\n",
                ts(i as u32)
            )
        })
        .collect();
    std::fs::write(&cap, log).unwrap();
    let o = mcp_audit(&[cap.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["totals"]["batches"], 5);
    assert_eq!(
        summary["metrics"]["batch.size"]["count"], 2,
        "request batches"
    );
    // batches.csv: one row per array, `[]` included (size 0, at its line).
    let csv = std::fs::read_to_string(out.join("batches.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let brief: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} line {} size {} requests {} responses {}",
                r[0], r[2], r[4], r[6], r[7], r[9]
            )
        })
        .collect();
    assert_eq!(
        brief,
        [
            "1 c2s line 3 size 2 requests 2 responses 0",
            "2 s2c line 4 size 2 requests 0 responses 2",
            "3 c2s line 5 size 0 requests 0 responses 0",
            "4 c2s line 7 size 1 requests 1 responses 0",
            "5 s2c line 8 size 1 requests 0 responses 1",
        ]
    );
    // pairs.csv numbers ping 3's batch as batches.csv does (4, after `[]`).
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    let ping3 = pairs.lines().find(|l| l.contains(",c2s,3,ping,")).unwrap();
    assert_eq!(ping3.split(',').nth(8), Some("4"), "{ping3}");
    // The terminal names both counts: every array, and the request batches.
    assert!(stdout.contains("5 JSON arrays, 4 paired"), "{stdout}");
    assert!(
        stdout.contains("  2 request batches (size min 1 p50 1 max 2), count mismatches 0"),
        "{stdout}"
    );
    assert!(!stdout.contains("batches: "), "{stdout}");
    // report.html says what each number counts.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("Batches: 5 JSON arrays (3 sent by the client, 2 by the server; 1 empty, 2 of responses only), one row each in batches.csv. 2 of them hold a request or notification: the request batches, whose sizes the terminal and summary.json give. The waterfall draws the 2 of these with a request that has an id and a time."),
        "batch counts sentence"
    );
}

#[test]
fn a_log_rotated_mid_session_with_copytruncate_is_one_session() {
    // tests/data/real4/rotation: a real server-everything session whose
    // proxy log logrotate rotated (copytruncate) while call 3 (3 s) was
    // pending; its request is in proxy.log.1, its progress and response in
    // proxy.log. The client's record: 124 requests, 124 responses.
    let dir = root().join("tests/data/real4/rotation");
    let (code, err, s) = run(
        "rotation-copytruncate",
        &[
            dir.join("proxy.log.1").to_str().unwrap(),
            dir.join("proxy.log").to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "");
    assert_eq!(s["totals"]["sessions"], 1);
    assert_eq!(totals(&s), (124, 5, 124));
    assert_eq!(s["totals"]["pairs"], 124);
    let f = s["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{f:?}");
    // Call 3 sent 3 progress notifications: a long-running operation its
    // server reported, so its slow_tail is info.
    assert_eq!(
        (
            f[0]["kind"].as_str(),
            f[0]["id"].as_i64(),
            f[0]["severity"].as_str()
        ),
        (Some("slow_tail"), Some(3), Some("info"))
    );
}

/// tests/data/real4/sse: curl of supergateway's SSE stream (server to
/// client only). The initialize result (serverInfo mcp-servers/everything
/// 2.0.0, protocolVersion 2025-06-18) names the server and the revision
/// although its request is not in the capture; before, "server unknown;
/// revision unknown".
#[test]
fn a_one_sided_sse_capture_names_its_server() {
    let f = root().join("tests/data/real4/sse/curl_supergateway-sse__everything.sse");
    let o = mcp_audit(&[f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let session = &s["sessions"][0];
    assert_eq!(
        (&session["server"], &session["revision"]),
        (
            &serde_json::json!({"name": "mcp-servers/everything", "version": "2.0.0"}),
            &serde_json::json!("2025-06-18")
        )
    );
    assert_eq!(
        (
            &s["totals"]["requests"],
            &s["totals"]["notifications"],
            &s["totals"]["responses"]
        ),
        (
            &serde_json::json!(0),
            &serde_json::json!(1),
            &serde_json::json!(3)
        )
    );
    assert_eq!(s["findings"], serde_json::json!([]));
}

/// (kind, severity, id, line, file name) of every finding, in order.
fn found(s: &serde_json::Value) -> Vec<(String, String, serde_json::Value, u64, String)> {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["file"].as_str().unwrap_or("");
            let name = Path::new(file).file_name().unwrap().to_string_lossy();
            (
                f["kind"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["id"].clone(),
                f["location"]["line"].as_u64().unwrap(),
                name.into_owned(),
            )
        })
        .collect()
}

fn row(
    kind: &str,
    sev: &str,
    id: serde_json::Value,
    line: u64,
    file: &str,
) -> (String, String, serde_json::Value, u64, String) {
    (kind.into(), sev.into(), id, line, file.into())
}

#[test]
fn todays_file_of_a_rotated_log_alone_starts_mid_session_without_errors() {
    // tests/data/real4/rotation/proxy.log starts at request 50 (no
    // initialize); request 3, which named progress token "lr", is in
    // proxy.log.1: its 3 progress notifications (lines 149-151) and its
    // answer (line 152) are explained by the start gap at line 1.
    let p = root().join("tests/data/real4/rotation/proxy.log");
    for (name, extra) in [
        ("rotation-today", vec![]),
        ("rotation-today-blocks", vec!["--block-bytes", "4096"]),
    ] {
        let mut args = vec![p.to_str().unwrap()];
        args.extend(extra);
        let (code, err, s) = run(name, &args);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(err, "");
        assert_eq!(totals(&s), (75, 3, 76), "{name}");
        assert_eq!(s["totals"]["pairs"], 75);
        let f = "proxy.log";
        assert_eq!(
            found(&s),
            vec![
                row("unknown_progress_token", "info", "lr".into(), 149, f),
                row("unknown_progress_token", "info", "lr".into(), 150, f),
                row("unknown_progress_token", "info", "lr".into(), 151, f),
                row("unknown_id_response", "info", 3.into(), 152, f),
            ],
            "{name}"
        );
        for f in s["findings"].as_array().unwrap() {
            let d = f["detail"].as_str().unwrap();
            let gap = format!(
                "; but the log starts mid-session ({} line 1 is no session start (no initialize or server/discover)): the request may be in the part not held, e.g. a rotated-away file (a capture gap)",
                p.display()
            );
            assert!(d.ends_with(&gap), "{d}");
        }
        assert_eq!(
            s["inputs"][0]["gaps"],
            serde_json::json!({"start_missing": {"count": 1, "lines": [1]}})
        );
    }
}

#[test]
fn a_log_cut_by_size_based_rotation_starts_inside_a_message() {
    // tests/data/real4/rotation-cut: rotatelogs cut the log at 4096-byte
    // block ends. -20261203055320 starts with the tail of request 39 and
    // ends with the head of the answer to 94; -20261203055322 starts with
    // that answer's tail.
    let dir = root().join("tests/data/real4/rotation-cut");
    let (f18, f20, f22) = (
        "proxy.log-20261203055318",
        "proxy.log-20261203055320",
        "proxy.log-20261203055322",
    );
    let cut_first = |f: &str| {
        format!(
            "mcp-audit: {}: line 1: the file starts inside a message (this line is the tail of one, cut off by size-based rotation or splitting): read as lost, the log starts mid-session (a capture gap)\n",
            dir.join(f).display()
        )
    };
    let cut_last = |f: &str, l: u64| {
        format!(
            "mcp-audit: {}: line {l}: the file ends inside this line (no line end, the JSON cut off): a message cut as the log was written or copied, read as lost (a capture gap)\n",
            dir.join(f).display()
        )
    };
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    // The last file alone: 63 lines, line 1 lost; request 3 and its token
    // "lr" are in an earlier file.
    for (name, extra) in [
        ("cut-last", vec![]),
        ("cut-last-blocks", vec!["--block-bytes", "2048"]),
    ] {
        let p = path(f22);
        let mut args = vec![p.as_str()];
        args.extend(extra);
        let (code, err, s) = run(name, &args);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(err, cut_first(f22), "{name}");
        assert_eq!(totals(&s), (30, 1, 31), "{name}");
        assert_eq!(s["totals"]["pairs"], 30);
        let t = &s["totals"];
        assert_eq!(
            (
                t["frames"].as_u64(),
                t["other_lines"].as_u64(),
                t["non_json_lines"].as_u64()
            ),
            (Some(62), Some(1), Some(0))
        );
        assert_eq!(
            found(&s),
            vec![
                row("unknown_progress_token", "info", "lr".into(), 20, f22),
                row("unknown_id_response", "info", 3.into(), 21, f22),
            ],
            "{name}"
        );
        let d = s["findings"][1]["detail"].as_str().unwrap();
        assert!(d.contains(&format!("; but the log starts mid-session ({} line 1 is the tail of a message cut off by rotation)", dir.join(f22).display())), "{d}");
        assert_eq!(
            s["inputs"][0]["gaps"],
            serde_json::json!({"start_missing": {"count": 1, "lines": [1]}})
        );
    }
    // The middle file alone: cut at both ends; the lost head of its last
    // line explains the missing answer to 94; 39's answer (line 2) and two
    // progress notifications are the start gap's.
    let p = path(f20);
    let (code, err, s) = run("cut-middle", &[p.as_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, cut_first(f20) + &cut_last(f20, 114));
    assert_eq!(totals(&s), (55, 2, 55));
    assert_eq!(
        found(&s),
        vec![
            row("unknown_id_response", "info", 39.into(), 2, f20),
            row("unknown_progress_token", "info", "lr".into(), 11, f20),
            row("unknown_progress_token", "info", "lr".into(), 92, f20),
            row("missing_response", "info", 94.into(), 113, f20),
        ]
    );
    assert_eq!(
        s["inputs"][0]["gaps"],
        serde_json::json!({"reply_lost": {"count": 1, "lines": [114]}, "start_missing": {"count": 1, "lines": [1]}})
    );
    // All three, oldest first by their names: one session from initialize;
    // each cut message is one lost message (head at a file's end, tail at
    // the next file's line 1): request 39 explains 39's answer, 94's
    // answer explains its missing response. The client's record: 124
    // requests, 124 responses, 5 notifications.
    let (a, b, c) = (path(f22), path(f18), path(f20));
    let (code, err, s) = run("cut-all", &[a.as_str(), b.as_str(), c.as_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        err,
        cut_last(f18, 78) + &cut_first(f20) + &cut_last(f20, 114) + &cut_first(f22)
    );
    assert_eq!(totals(&s), (123, 5, 123));
    assert_eq!(s["totals"]["pairs"], 122);
    assert_eq!(
        found(&s),
        vec![
            row("slow_tail", "info", 1.into(), 1, f18),
            row("slow_tail", "info", 3.into(), 7, f18),
            row("unknown_id_response", "info", 39.into(), 2, f20),
            row("missing_response", "info", 94.into(), 113, f20),
        ]
    );
    let d = s["findings"][2]["detail"].as_str().unwrap();
    assert!(d.ends_with("; but the log lost a message at line 78 (a line cut as the log was written, rotated or copied: a capture gap): it may have been the request"), "{d}");
    assert_eq!(
        s["inputs"][0]["gaps"],
        serde_json::json!({"reply_lost": {"count": 2, "lines": [78, 114]}})
    );
}

#[test]
fn a_log_that_starts_with_initialize_keeps_its_unknown_id_error() {
    // The start gap is narrow: with initialize first, an answer to an id
    // no one sent is an error; without it, an id requested later, or an
    // integer id above the log's first one, is too.
    let d = out_dir("start-negative-in");
    let line = |ms: u32, dir: &str, m: &str| {
        format!("{{\"ts\":\"2026-12-01T10:00:00.{ms:03}Z\",\"dir\":\"{dir}\",\"msg\":{m}}}\n")
    };
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;
    let call = |id: u32| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo"}}}}"#)
    };
    let answer = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
    let cases = [
        // initialize first: 7 was never sent.
        (
            "with-init",
            vec![
                line(0, "c2s", init),
                line(1, "s2c", &answer(1)),
                line(2, "c2s", &call(2)),
                line(3, "s2c", &answer(7)),
                line(4, "s2c", &answer(2)),
            ],
            7,
            4,
        ),
        // no initialize, but 9 is requested later.
        (
            "later",
            vec![
                line(0, "c2s", &call(5)),
                line(1, "s2c", &answer(9)),
                line(2, "s2c", &answer(5)),
                line(3, "c2s", &call(9)),
                line(4, "s2c", &answer(9)),
            ],
            9,
            2,
        ),
        // no initialize, 8 is above the first request id 5.
        (
            "above",
            vec![
                line(0, "c2s", &call(5)),
                line(1, "s2c", &answer(5)),
                line(2, "s2c", &answer(8)),
            ],
            8,
            3,
        ),
    ];
    for (name, lines, id, at) in cases {
        let p = d.join(format!("{name}.ndjson"));
        std::fs::write(&p, lines.concat()).unwrap();
        let (code, err, s) = run(&format!("start-negative-{name}"), &[p.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{name}: {err}");
        let f = found(&s);
        assert_eq!(
            f,
            vec![row(
                "unknown_id_response",
                "error",
                id.into(),
                at,
                &format!("{name}.ndjson")
            )],
            "{name}"
        );
        assert_eq!(s["inputs"][0]["gaps"], serde_json::json!({}), "{name}");
    }
    // The same answer to 3 before request 5, with no initialize: info.
    let p = d.join("below.ndjson");
    std::fs::write(
        &p,
        [
            line(0, "c2s", &call(5)),
            line(1, "s2c", &answer(3)),
            line(2, "s2c", &answer(5)),
        ]
        .concat(),
    )
    .unwrap();
    let (code, err, s) = run("start-negative-below", &[p.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        found(&s),
        vec![row(
            "unknown_id_response",
            "info",
            3.into(),
            2,
            "below.ndjson"
        )]
    );
}

/// A DevTools HAR whose event-stream bodies Chromium decoded as
/// windows-1252 (tests/data/real4/browser: entries 9 and two more, the
/// server's U+2013 and U+2713 as mojibake) is repaired: one notice, no
/// problem. `summary.json` keeps notices apart (`inputs[].notices`), the
/// per-input index counts both, stderr says `notice:`.
#[test]
fn a_windows_1252_repair_is_a_notice_not_an_error() {
    let har = root()
        .join("tests/data/real4/browser/har_browser-devtools-sensitive__ts-streamable-open.har");
    let name = har.to_str().unwrap();
    let out = out_dir("notice_1252");
    let o = mcp_audit(&[name, "--out", out.to_str().unwrap(), "--per-input", "-q"]);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let line = format!(
        "{name}: entry 9: event-stream body was decoded as windows-1252 by the recorder (no charset; UTF-8 text shows as mojibake such as \u{e2}\u{20ac}\u{201c}); repaired to UTF-8 (this entry and 2 more)"
    );
    assert_eq!(s["inputs"][0]["errors"], serde_json::json!([]));
    assert_eq!(s["inputs"][0]["notices"], serde_json::json!([line]));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("mcp-audit: notice: {line}\n")
    );
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("inputs/index.json")).unwrap())
            .unwrap();
    assert_eq!(
        (
            &index["inputs"][0]["errors"],
            &index["inputs"][0]["notices"]
        ),
        (&serde_json::json!(0), &serde_json::json!(1))
    );
}

/// report.html's evidence is read back by byte range where the file's text
/// is its bytes (after a BOM) and by reading the file again otherwise: the
/// excerpt of a request after a BOM, after a line with invalid UTF-8
/// (decoded offsets two bytes past the file's) or inside a .gz is the
/// request itself in every case (issue 13).
#[test]
fn evidence_is_the_same_read_by_range_or_by_stream() {
    let first = "{\"ts\":\"2026-01-01T00:00:00Z\",\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}}\n";
    let last = "{\"ts\":\"2026-01-01T00:00:01Z\",\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"marker-xyz\"}}}\n";
    let want = r#"["{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"marker-xyz\"}}",false]"#;
    let plain = format!("{first}{last}").into_bytes();
    let bom = [b"\xEF\xBB\xBF".as_slice(), &plain].concat();
    let mut bad = b"\xEF\xBB\xBF".to_vec();
    bad.extend_from_slice(first.as_bytes());
    bad.extend_from_slice(b"not json \xff here\n");
    bad.extend_from_slice(last.as_bytes());
    let d = out_dir("evidence_by_range");
    for (name, bytes) in [
        ("plain.ndjson", plain.clone()),
        ("bom.ndjson", bom),
        ("bom_bad.ndjson", bad.clone()),
        ("bad.ndjson.gz", gz(&bad)),
    ] {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let out = d.join(format!("{name}.out"));
        mcp_audit(&[
            "analyze",
            p.to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]);
        let page = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert_eq!(
            page.matches(want).count(),
            1,
            "{name}: the request's excerpt"
        );
    }
}

/// A response stamped before its request gets no latency, and the terminal
/// says so and why (not only `summary.json` `latency_ms.unknown`).
#[test]
fn a_response_stamped_before_its_request_is_said() {
    let d = out_dir("before_request_in");
    let p = d.join("early.ndjson");
    std::fs::write(
        &p,
        concat!(
            r#"{"ts":"2026-01-01T00:00:01Z","direction":"c2s","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}"#,
            "\n",
            r#"{"ts":"2026-01-01T00:00:00Z","direction":"s2c","message":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = d.join("out");
    let o = mcp_audit(&[p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    // The summary wraps at 80 columns: words are compared.
    let stdout = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        stdout.contains("no latency for 1 paired request (response stamped before its request: 1; summary.json latency_ms.unknown)"),
        "{stdout}"
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["latency_ms"]["unknown"]["before_request"], 1);
}

/// `--out` pointed at the folder of the captures (`--out .` among the
/// logs) is written, and its captures stay visible: a later walk of that
/// folder reads them and leaves out only the output files, each named (a
/// fresh user's second walk found nothing: the folder was skipped whole).
/// The same folder given as this run's `--out` and walked: the same.
#[test]
fn out_among_the_inputs_is_said() {
    let d = out_dir("out_among_inputs");
    let p = d.join("one.ndjson");
    std::fs::write(
        &p,
        concat!(
            r#"{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
            "\n",
            r#"{"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}"#,
            "\n",
        ),
    )
    .unwrap();
    let o = mcp_audit(&[p.to_str().unwrap(), "--out", d.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(d.join("summary.json").exists());
    let skipped = |err: &str| {
        err.lines()
            .filter(|l| l.contains("skipped"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // A later walk: the capture read, the 13 output files named.
    let o = mcp_audit(&[d.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(totals(&s), (1, 0, 1));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(
        skipped(&err),
        [format!(
            "mcp-audit: {}: skipped 13 files, each an mcp-audit output file (its folder's summary.json is mcp-audit's), not a capture: batches.csv, batches.parquet, findings.csv, findings.parquet, latency.csv, latency.parquet, operations.csv, operations.parquet, pairs.csv, pairs.parquet, report.html, sessions.parquet, summary.json",
            d.display()
        )]
    );
    // Walked as this run's own --out: the capture read, the outputs not.
    let o = mcp_audit(&[d.to_str().unwrap(), "--out", d.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(totals(&s), (1, 0, 1));
    assert_eq!(s["skipped"].as_array().unwrap().len(), 13);
}

/// Bare NDJSON with the server's requests (tests/data/real4/fresh16,
/// rich-bare.ndjson: the 48 messages of an envelope log of
/// server-everything 2.0.0 without their `dir`). The server's
/// sampling/createMessage id 0, elicitation/create id 1 and roots/list id
/// 2 are s2c requests answered by the client; ids 0, 1, 2 of the client's
/// own requests were answered before them, so nothing is reused. Before:
/// 3 `id_reused` warnings (lines 11, 15, 19), and those three requests read
/// as the client's. Now the only finding is the cancelled tools/call id 14
/// (line 43, cancelled on line 44, never answered); 20 requests (17 c2s, 3
/// s2c), 9 notifications, 19 responses, 19 paired. Block by block (97
/// bytes: a block per line, the direction read across blocks) the same.
#[test]
fn bare_ndjson_reads_the_servers_requests() {
    let f = root().join("tests/data/real4/fresh16/rich-bare.ndjson");
    let f = f.to_str().unwrap();
    let (code, _, s) = run("bare_rich", &[f, "--fail-on", "warning"]);
    assert_eq!(code, Some(0));
    let found: Vec<(&str, &str, &str, &serde_json::Value, &serde_json::Value)> = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["direction"].as_str().unwrap(),
                &f["id"],
                &f["location"],
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "cancelled_request",
            "info",
            "c2s",
            &serde_json::json!(14),
            &serde_json::json!({"line": 43})
        )]
    );
    let t = &s["totals"];
    assert_eq!(
        (
            &t["messages"],
            &t["requests"],
            &t["notifications"],
            &t["responses"],
            &t["pairs"]
        ),
        (
            &serde_json::json!(48),
            &serde_json::json!(20),
            &serde_json::json!(9),
            &serde_json::json!(19),
            &serde_json::json!(19)
        )
    );
    let pairs = std::fs::read_to_string(out_dir_of("bare_rich").join("pairs.csv")).unwrap();
    let rows: Vec<String> = pairs
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            format!("{} {} {} {}", c[1], c[2], c[3], c[7])
        })
        .collect();
    let mut want: Vec<String> = [
        "c2s 0 initialize",
        "c2s 1 tools/list",
        "c2s 2 tools/call",
        "s2c 0 sampling/createMessage",
        "c2s 3 tools/call",
        "s2c 1 elicitation/create",
        "c2s 4 tools/call",
        "s2c 2 roots/list",
        "c2s 5 tools/call",
        "c2s 6 logging/setLevel",
        "c2s 7 tools/call",
        "c2s 8 tools/call",
        "c2s 9 no/such_method",
        "c2s 10 resources/read",
        "c2s 11 prompts/get",
        "c2s 12 completion/complete",
        "c2s 13 resources/subscribe",
        "c2s 14 tools/call",
        "c2s 15 ping",
        "c2s 16 tools/call",
    ]
    .iter()
    .map(|r| format!("{r} paired"))
    .collect();
    want[17] = "c2s 14 tools/call cancelled".into();
    assert_eq!(rows, want);
    let (code, _, blocks) = run(
        "bare_rich_blocks",
        &[f, "--block-bytes", "97", "--threads", "2"],
    );
    assert_eq!(code, Some(0));
    assert_eq!(blocks["findings"], s["findings"]);
    assert_eq!(blocks["totals"], s["totals"]);
    let again = std::fs::read_to_string(out_dir_of("bare_rich_blocks").join("pairs.csv")).unwrap();
    assert_eq!(again, pairs);
}

/// The `--out` folder [`run`] wrote for `name`.
fn out_dir_of(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("out")
        .join(name)
}

#[test]
fn rotated_bridge_logs_read_as_the_whole_log() {
    // tests/data/real4/rotation-bridges (README there): real mcp-remote and
    // supergateway logs split at a line boundary. Each pair, read oldest
    // first, gives the sessions, counts and findings of the whole log
    // (written here by concatenating the halves), with the findings' lines
    // in the half that holds them. Truth: every request answered but the
    // cancelled id 12 of each session.
    let dir = root().join("tests/data/real4/rotation-bridges");
    let tmp = out_dir("rotation-bridges-whole");
    std::fs::create_dir_all(&tmp).unwrap();
    for (stem, sessions, counts, cancels) in [
        (
            "sg.log",
            2,
            (36, 14, 34),
            vec![("sg.log", 14), ("sg.log", 143)],
        ),
        ("mr-debug.log", 1, (21, 7, 20), vec![("mr-debug.log", 108)]),
        ("mr.log", 1, (21, 7, 20), vec![("mr.log", 259)]),
    ] {
        let older = dir.join(format!("{stem}.1"));
        let newer = dir.join(stem);
        let (code, err, s) = run(
            &format!("rotation-bridges-{stem}"),
            &[older.to_str().unwrap(), newer.to_str().unwrap()],
        );
        assert_eq!(code, Some(0), "{stem}: {err}");
        assert_eq!(s["totals"]["sessions"], sessions, "{stem}");
        assert_eq!(totals(&s), counts, "{stem}");
        assert_eq!(s["totals"]["pairs"], counts.2, "{stem}");
        let want: Vec<_> = cancels
            .iter()
            .map(|&(f, l)| row("cancelled_request", "info", 12.into(), l, f))
            .collect();
        assert_eq!(found(&s), want, "{stem}");
        // The whole log: the same counts and findings.
        let mut whole = std::fs::read(&older).unwrap();
        whole.extend(std::fs::read(&newer).unwrap());
        let w = tmp.join(format!("whole-{stem}"));
        std::fs::write(&w, whole).unwrap();
        let (code, err, s) = run(
            &format!("rotation-bridges-whole-{stem}"),
            &[w.to_str().unwrap()],
        );
        assert_eq!(code, Some(0), "{stem} whole: {err}");
        assert_eq!(s["totals"]["sessions"], sessions, "{stem} whole");
        assert_eq!(totals(&s), counts, "{stem} whole");
        assert_eq!(found(&s).len(), cancels.len(), "{stem} whole");
    }
}

#[test]
fn a_log_cut_inside_a_line_has_lost_its_end() {
    // The first 30000 bytes of the real mcp-remote --debug file of
    // tests/data/real4/rotation-bridges (its two halves joined): the copy
    // ends inside line 294 (`[2026-12-04T`), right after request 11 (line
    // 293), whose answer the whole log holds 3 ms later (line 306). The log
    // went on past the copy: request 11 is `info`, naming the cut, and the
    // run exits 0. The same log cut at the line end after line 293 shows
    // no cut: request 11 stays an error there (a log that ends on a line
    // end may be whole).
    let dir = root().join("tests/data/real4/rotation-bridges");
    let mut whole = std::fs::read(dir.join("mr-debug.log.1")).unwrap();
    whole.extend(std::fs::read(dir.join("mr-debug.log")).unwrap());
    let tmp = out_dir("cut-end-inputs");
    std::fs::create_dir_all(&tmp).unwrap();
    let cut = tmp.join("mr-cut.log");
    std::fs::write(&cut, &whole[..30000]).unwrap();
    assert!(whole[..30000].ends_with(b"\n[2026-12-04T"));
    let (code, err, s) = run("cut-end", &[cut.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        found(&s),
        vec![row(
            "missing_response",
            "info",
            11.into(),
            293,
            "mr-cut.log"
        )]
    );
    assert_eq!(
        s["findings"][0]["detail"],
        format!(
            "tools/call 11 has no response in the capture, but {} was cut (it ends inside a line, or its compressed stream ends early: cut while it was written or copied): the log goes on past its end (a capture gap), and its answer may be there",
            cut.display()
        )
    );
    assert_eq!(s["inputs"][0]["gaps"]["end_missing"]["count"], 1);
    // Cut at a line end: no sign of a cut.
    let lines: Vec<&[u8]> = whole.split_inclusive(|&b| b == b'\n').take(293).collect();
    let snap = tmp.join("mr-snapshot.log");
    std::fs::write(&snap, lines.concat()).unwrap();
    let (code, _, s) = run("cut-end-snapshot", &[snap.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        found(&s),
        vec![row(
            "missing_response",
            "error",
            11.into(),
            293,
            "mr-snapshot.log"
        )]
    );
}

#[test]
fn a_cut_pair_half_and_a_cut_gzip_stream_have_lost_their_end() {
    // tests/data/real4/pair-progress: a healthy TS SDK stdio tee pair (21
    // requests, 20 answered, id 12 cancelled). Its server-to-client half
    // cut at byte 2000 (inside line 3), as a tee still being written: the
    // 16 requests whose answers were in the lost part and the client's 3
    // answers to server requests it lost are capture gaps (info), not 19
    // errors; exit 0.
    let dir = root().join("tests/data/real4/pair-progress");
    let tmp = out_dir("cut-pair-inputs");
    std::fs::create_dir_all(&tmp).unwrap();
    let c2s = tmp.join("ts-stdio.client-to-server.jsonl");
    std::fs::copy(dir.join("ts-stdio.client-to-server.jsonl"), &c2s).unwrap();
    let s2c = std::fs::read(dir.join("ts-stdio.server-to-client.jsonl")).unwrap();
    std::fs::write(tmp.join("ts-stdio.server-to-client.jsonl"), &s2c[..2000]).unwrap();
    let (code, err, s) = run("cut-pair", &[c2s.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let by = &s["findings_by_kind"];
    assert_eq!(
        (&by["missing_response"], &by["unknown_id_response"]),
        (&16.into(), &3.into())
    );
    assert!(
        s["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] == "info")
    );
    let unknown = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "unknown_id_response")
        .unwrap();
    assert!(
        unknown["detail"].as_str().unwrap().ends_with(&format!(
            "; but {} was cut (it ends inside a line, or its compressed stream ends early: cut while it was written or copied): the request it answers may be in the part lost (a capture gap)",
            tmp.join("ts-stdio.server-to-client.jsonl").display()
        )),
        "{unknown}"
    );
    // The real mcp-remote --debug log of rotation-bridges, gzipped and cut
    // at byte 3000 of the stream: its whole lines are read, the input is
    // incomplete (exit 2), and no request of it is an error.
    let rb = root().join("tests/data/real4/rotation-bridges");
    let mut whole = std::fs::read(rb.join("mr-debug.log.1")).unwrap();
    whole.extend(std::fs::read(rb.join("mr-debug.log")).unwrap());
    let gz_path = tmp.join("mr-debug.log.gz");
    std::fs::write(&gz_path, &gz(&whole)[..3000]).unwrap();
    let (code, err, s) = run("cut-gzip", &[gz_path.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(s["findings_by_kind"]["missing_response"].as_u64().unwrap() >= 1);
    assert!(
        s["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] == "info"),
        "{}",
        s["findings"]
    );
}

#[test]
fn a_tee_pair_appended_by_a_restarted_server_holds_one_session_per_run() {
    // The healthy TS SDK tee pair of tests/data/real4/pair-progress written
    // twice into the same two files (`tee -a`, the host restarting its
    // server): two sessions, each as the pair alone (21 requests, 20
    // answered, id 12 cancelled), no id_reused across them.
    let dir = root().join("tests/data/real4/pair-progress");
    let tmp = out_dir("tee-append-inputs");
    std::fs::create_dir_all(&tmp).unwrap();
    for half in ["client-to-server", "server-to-client"] {
        let one = std::fs::read(dir.join(format!("ts-stdio.{half}.jsonl"))).unwrap();
        std::fs::write(
            tmp.join(format!("ta.{half}.jsonl")),
            [one.clone(), one].concat(),
        )
        .unwrap();
    }
    let c2s = tmp.join("ta.client-to-server.jsonl");
    let (code, err, s) = run(
        "tee-append",
        &[c2s.to_str().unwrap(), "--fail-on", "warning"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(s["totals"]["sessions"], 2);
    assert_eq!(totals(&s), (42, 14, 40));
    assert_eq!(s["totals"]["pairs"], 40);
    assert_eq!(s["findings_by_kind"]["id_reused"], 0);
    assert_eq!(s["findings_by_kind"]["cancelled_request"], 2);
}

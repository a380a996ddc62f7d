//! `mcp-audit extract`: on real captures (a HAR, a Claude Desktop host
//! log, an NDJSON envelope log, a raw SSE capture), every finding is
//! extracted and the extract analysed again by the binary: it has the
//! finding (same kind, id and severity). The extracts' shapes (lines byte
//! for byte, a HAR 1.2 with the kept entries) and what they hold were
//! checked by hand against the captures; the hostile corpus shows that no
//! secret reaches an extract.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{out_dir, root};

const HAR: &str = "tests/data/real/har_ts-streamable-sse__raw-batches.har";
const CLAUDE: &str = "tests/data/real/stdio_py-client__py-server.claude.log";
const ENVELOPE: &str = "tests/data/real/stdio_raw-batches__server-everything.ndjson";
const SSE: &str = "tests/data/real/sse_ts_events.progress.headers.sse";

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .args(args)
        .output()
        .expect("run mcp-audit")
}

/// `extract ARGS`, which must succeed; its stdout line.
fn extract(args: &[&str]) -> String {
    let mut all = vec!["extract"];
    all.extend_from_slice(args);
    let o = bin(&all);
    assert_eq!(
        o.status.code(),
        Some(0),
        "extract {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

/// `analyze INPUT --json`.
fn summary(input: &Path) -> Value {
    let o = bin(&["analyze", input.to_str().unwrap(), "--json"]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("summary.json")
}

/// A finding as an extract must have it again.
fn key(f: &Value) -> (String, String, String) {
    (
        f["kind"].as_str().unwrap().to_string(),
        f["id"].to_string(),
        f["severity"].as_str().unwrap().to_string(),
    )
}

fn keys(v: &Value) -> Vec<(String, String, String)> {
    v["findings"].as_array().unwrap().iter().map(key).collect()
}

fn k(kind: &str, id: &str, sev: &str) -> (String, String, String) {
    (kind.into(), id.into(), sev.into())
}

/// Extracts every finding of `input` and reads each extract back; returns
/// the extracts' paths and summaries, in finding order.
fn every_finding(test: &str, input: &str, ext: &str) -> Vec<(PathBuf, Value)> {
    let input = root().join(input);
    let dir = out_dir(test);
    let whole = summary(&input);
    let findings = whole["findings"].as_array().unwrap();
    findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let out = dir.join(format!("f{}.{ext}", i + 1));
            let n = (i + 1).to_string();
            extract(&[
                input.to_str().unwrap(),
                "--finding",
                &n,
                "--out",
                out.to_str().unwrap(),
            ]);
            let back = summary(&out);
            assert!(
                keys(&back).contains(&key(f)),
                "{}: finding {n} {:?} not read back from the extract: {:?}",
                input.display(),
                key(f),
                keys(&back)
            );
            (out, back)
        })
        .collect()
}

/// The input's lines; each extract line must be one of them, in order.
fn assert_lines_of(input: &str, extract: &Path) -> usize {
    let text = std::fs::read_to_string(root().join(input)).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let got = std::fs::read_to_string(extract).unwrap();
    let mut at = 0;
    let mut n = 0;
    for l in got.split_inclusive('\n') {
        let pos = lines[at..].iter().position(|x| *x == l).unwrap_or_else(|| {
            panic!("{}: line not in {input} (in order): {l}", extract.display())
        });
        at += pos + 1;
        n += 1;
    }
    n
}

#[test]
fn har_findings_read_back_from_har_extracts() {
    let all = every_finding("extract_har", HAR, "har");
    assert_eq!(all.len(), 16);
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(HAR)).unwrap()).unwrap();
    let entries = input["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 13);
    for (path, _) in &all {
        let har: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let log = &har["log"];
        // HAR 1.2, the capture's creator, the entries as captured.
        assert_eq!(log["version"], "1.2");
        assert_eq!(log["creator"], input["log"]["creator"]);
        assert_eq!(log["pages"], serde_json::json!([]));
        for e in log["entries"].as_array().unwrap() {
            assert!(
                entries.contains(e),
                "{}: an entry not in the input",
                path.display()
            );
        }
    }
    // Finding 9, duplicate_id 9: the batch of two tools/call id 9 (entry
    // 6) and the session's initialize (entry 0); read back with the
    // other findings of that batch.
    let (p9, back9) = &all[8];
    let har: Value = serde_json::from_str(&std::fs::read_to_string(p9).unwrap()).unwrap();
    let kept: Vec<&Value> = har["log"]["entries"].as_array().unwrap().iter().collect();
    assert_eq!(kept, vec![&entries[0], &entries[6]]);
    assert_eq!(
        keys(back9),
        vec![
            k("duplicate_id", "9", "error"),
            k("response_count_mismatch", "[9,9]", "error"),
            k("stream_closed_before_response", "9", "error"),
        ]
    );
}

#[test]
fn envelope_findings_read_back_from_line_extracts() {
    let all = every_finding("extract_envelope", ENVELOPE, "ndjson");
    assert_eq!(all.len(), 8);
    for (p, _) in &all {
        assert_lines_of(ENVELOPE, p);
    }
    // Finding 4, response_count_mismatch [1,2,3]: the batch (line 5) and
    // the initialize exchange (lines 1, 2), nothing else.
    let (p4, back4) = &all[3];
    let text = std::fs::read_to_string(root().join(ENVELOPE)).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(
        std::fs::read_to_string(p4).unwrap(),
        [lines[0], lines[1], lines[4]].concat()
    );
    assert_eq!(
        keys(back4),
        vec![
            k("missing_response", "1", "error"),
            k("missing_response", "2", "error"),
            k("missing_response", "3", "error"),
            k("response_count_mismatch", "[1,2,3]", "error"),
        ]
    );
    assert_eq!(back4["totals"]["requests"], 4);
    assert_eq!(back4["totals"]["responses"], 1);
}

#[test]
fn claude_log_finding_needs_its_session() {
    // The one finding is the first initialize's slow_tail (a server's
    // start-up, info): judged against the session's median, so the frames
    // around it alone do not have it; the whole session does.
    let all = every_finding("extract_claude", CLAUDE, "log");
    assert_eq!(all.len(), 1);
    let (p, back) = &all[0];
    assert_eq!(keys(back), vec![k("slow_tail", "1", "info")]);
    // 70 of the 127 lines: the session's; the server's stderr lines
    // (warnings, a traceback) and the closing line are left out.
    assert_eq!(assert_lines_of(CLAUDE, p), 70);
    let whole = summary(&root().join(CLAUDE));
    assert_eq!(
        without_other_lines(&back["totals"]),
        without_other_lines(&whole["totals"])
    );
    // Of the 57 lines that carry no message, the two that start the
    // server (`Initializing server...`, `Server started and connected
    // successfully`) are the session's.
    assert_eq!(
        (
            &whole["totals"]["other_lines"],
            &back["totals"]["other_lines"]
        ),
        (&Value::from(57), &Value::from(2))
    );
}

/// Totals but `other_lines` (the lines an extract leaves out).
fn without_other_lines(t: &Value) -> Value {
    let mut t = t.clone();
    t.as_object_mut().unwrap().remove("other_lines");
    t
}

#[test]
fn sessions_read_back_with_exactly_their_findings() {
    let dir = out_dir("extract_sessions");
    for (input, ext) in [
        (HAR, "har"),
        (CLAUDE, "log"),
        (ENVELOPE, "ndjson"),
        (SSE, "sse"),
    ] {
        let path = root().join(input);
        let whole = summary(&path);
        let sessions = whole["sessions"].as_array().unwrap();
        assert_eq!(sessions.len(), 1, "{input}");
        let name = sessions[0]["name"].as_str().unwrap();
        let out = dir.join(format!("s.{ext}"));
        let line = extract(&[
            path.to_str().unwrap(),
            "--session",
            name,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(line.contains("(the whole session,"), "{line}");
        let back = summary(&out);
        assert_eq!(keys(&back), keys(&whole), "{input}");
        assert_eq!(
            without_other_lines(&back["totals"]),
            without_other_lines(&whole["totals"]),
            "{input}"
        );
    }
    // The SSE capture is one session of 6 blocks (the header block, 5
    // events): the extract is the capture.
    let sse = std::fs::read(root().join(SSE)).unwrap();
    assert_eq!(std::fs::read(dir.join("s.sse")).unwrap(), sse);
}

#[test]
fn no_secret_reaches_an_extract() {
    let dir = out_dir("extract_hostile");
    let hostile = root().join("tests/data/hostile");
    for name in [
        "hostile.har",
        "hostile.sse",
        "hostile.ndjson",
        "hostile.logger.log",
    ] {
        let input = hostile.join(name);
        let whole = summary(&input);
        let n = whole["findings"].as_array().unwrap().len();
        assert!(n > 0, "{name}");
        let mut outs = Vec::new();
        for (i, f) in whole["findings"].as_array().unwrap().iter().enumerate() {
            let out = dir.join(format!("{}.{name}", i + 1));
            let num = (i + 1).to_string();
            extract(&[
                input.to_str().unwrap(),
                "--finding",
                &num,
                "--out",
                out.to_str().unwrap(),
            ]);
            // Redacted, it still reads back with the finding.
            assert!(
                keys(&summary(&out)).contains(&key(f)),
                "{name} finding {num}"
            );
            outs.push(out);
        }
        let session = whole["sessions"][0]["name"].as_str().unwrap().to_string();
        let out = dir.join(format!("session.{name}"));
        extract(&[
            input.to_str().unwrap(),
            "--session",
            &session,
            "--out",
            out.to_str().unwrap(),
        ]);
        outs.push(out);
        for o in &outs {
            let text = std::fs::read_to_string(o).unwrap();
            assert!(!text.contains("LEAK"), "{}: a secret is left", o.display());
        }
        // Not vacuous: kept as captured, the secrets are there.
        let raw = dir.join(format!("raw.{name}"));
        extract(&[
            input.to_str().unwrap(),
            "--session",
            &session,
            "--out",
            raw.to_str().unwrap(),
            "--no-redact",
        ]);
        assert!(
            std::fs::read_to_string(&raw).unwrap().contains("LEAK"),
            "{name}"
        );
    }
    // A real capture with a credential put in: an Authorization header and
    // an API key in the finding's own request body.
    let har = std::fs::read_to_string(root().join(HAR)).unwrap();
    let mut doc: Value = serde_json::from_str(&har).unwrap();
    let e = &mut doc["log"]["entries"][6]["request"];
    e["headers"].as_array_mut().unwrap().push(
        serde_json::json!({"name": "Authorization", "value": "Bearer sk-live-4242424242SECRETX"}),
    );
    let body = e["postData"]["text"].as_str().unwrap().replacen(
        r#""arguments":{"text":"dup-a"}"#,
        r#""arguments":{"text":"dup-a","apiKey":"ak_SECRETY_0123456789"}"#,
        1,
    );
    assert!(body.contains("SECRETY"));
    e["postData"]["text"] = Value::String(body);
    let input = dir.join("with-secret.har");
    std::fs::write(&input, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let out = dir.join("with-secret.extract.har");
    extract(&[
        input.to_str().unwrap(),
        "--finding",
        "9",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        !text.contains("SECRETX") && !text.contains("SECRETY"),
        "{text}"
    );
    assert!(text.contains("[REDACTED]"));
    assert_eq!(keys(&summary(&out))[0], k("duplicate_id", "9", "error"));
}

#[test]
fn bad_arguments_get_one_line_and_exit_2() {
    let dir = out_dir("extract_bad");
    let har = root().join(HAR);
    let h = har.to_str().unwrap();
    let o = dir.join("o.har");
    let o = o.to_str().unwrap();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec![], "name the capture: mcp-audit extract INPUT (--session S | --finding N) --out FILE".into()),
        (vec![h, "--out", o], "give --session S or --finding N (which part of the capture to keep)".into()),
        (vec![h, "--finding", "1"], "give --out FILE (where the extract goes)".into()),
        (vec![h, "--finding", "1", "--session", "s", "--out", o], "give --session S or --finding N, not both".into()),
        (vec![h, "--finding", "0", "--out", o], "--finding `0`: not a finding number (1 for the first row after the header of findings.csv)".into()),
        (vec![h, "--finding", "17", "--out", o], format!("--finding 17: {h} has 16 findings (numbered 1 to 16, as the rows of findings.csv after its header)")),
        (vec![h, "--session", "nope", "--out", o], format!("--session nope: no such session in {h} (its sessions: fb0b5df5-3256-4083-a965-a3c9625f5b7c)")),
        (vec![h, "--finding", "1", "--out", h], format!("--out {h}: is the input; extract never overwrites its input")),
        (vec![h, "--finding", "1", "--bogus"], "unexpected argument '--bogus' found".into()),
        (vec!["-", "--finding", "1", "--out", o], "extract reads a file, not the standard input (-)".into()),
    ];
    for (args, want) in cases {
        let mut all = vec!["extract"];
        all.extend_from_slice(&args);
        let r = bin(&all);
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(r.stderr).unwrap();
        assert_eq!(err, format!("mcp-audit extract: {want}\n"), "{args:?}");
        assert!(r.stdout.is_empty());
    }
    assert!(!Path::new(o).exists());
    // The input by another name (a symlink) is refused too, and unchanged.
    let before = std::fs::read(&har).unwrap();
    let link = dir.join("link.har");
    std::os::unix::fs::symlink(&har, &link).unwrap();
    let r = bin(&[
        "extract",
        h,
        "--finding",
        "1",
        "--out",
        link.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(std::fs::read(&har).unwrap(), before);
}

/// A raw SSE capture's findings (the b20 case, reduced from a public bug
/// report: a resumed stream replays events s1-43 and s1-44): each extract
/// keeps the two events of its event id, nothing else (the capture's
/// comments and other events left out).
#[test]
fn sse_finding_reads_back_from_an_sse_extract() {
    let input = "tests/data/cases/b20_resume_with_stale_event_id_replays.sse";
    let all = every_finding("extract_sse", input, "sse");
    assert_eq!(all.len(), 2);
    let text = std::fs::read_to_string(root().join(input)).unwrap();
    for (p, back) in &all {
        let got = std::fs::read_to_string(p).unwrap();
        assert!(got.len() < text.len(), "{got}");
        let ids: Vec<&str> = got.lines().filter(|l| l.starts_with("id: ")).collect();
        assert_eq!(ids.len(), 2, "{got}");
        assert_eq!(ids[0], ids[1]);
        assert_eq!(
            keys(back)
                .iter()
                .filter(|k| k.0 == "sse_replay_duplicate")
                .count(),
            keys(back).len()
        );
    }
}

/// A session whose key holds a credential is shown redacted by every
/// output; `--session` takes that name (or the captured one), and the
/// extract holds the key redacted.
#[test]
fn session_named_as_the_outputs_show_it() {
    let dir = out_dir("extract_session_name");
    let input = dir.join("sec.ndjson");
    let line = |t: &str, d: &str, m: &str| {
        format!(
            r#"{{"ts":"2026-01-01T00:00:0{t}Z","dir":"{d}","session":"s?token=LEAKabc","msg":{m}}}"#
        )
    };
    let text = [
        line("0", "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        line("1", "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        line("2", "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
    ]
    .join("\n")
        + "\n";
    std::fs::write(&input, text).unwrap();
    let whole = summary(&input);
    assert_eq!(whole["sessions"][0]["name"], "s?token=[REDACTED]");
    for name in ["s?token=[REDACTED]", "s?token=LEAKabc"] {
        let out = dir.join("out.ndjson");
        let said = extract(&[
            input.to_str().unwrap(),
            "--session",
            name,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            said.contains("2 of the session's 2 findings read back"),
            "{said}"
        );
        assert!(!said.contains("LEAK"));
        let got = std::fs::read_to_string(&out).unwrap();
        assert_eq!(got.lines().count(), 3);
        assert!(!got.contains("LEAK"), "{got}");
        assert_eq!(
            keys(&summary(&out)),
            vec![
                k("id_reused", "1", "warning"),
                k("missing_response", "1", "error")
            ]
        );
    }
}

/// `--out NAME.gz` writes gzip (read back like the plain extract); a name
/// of another compression is refused, not written as plain text under it.
#[test]
fn an_extract_named_gz_is_gzip() {
    let d = out_dir("extract_gz");
    let plain = d.join("e.ndjson");
    let gz = d.join("e.ndjson.gz");
    extract(&[ENVELOPE, "--finding", "1", "--out", plain.to_str().unwrap()]);
    extract(&[ENVELOPE, "--finding", "1", "--out", gz.to_str().unwrap()]);
    let bytes = std::fs::read(&gz).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip magic");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
        .unwrap();
    assert_eq!(text, std::fs::read_to_string(&plain).unwrap());
    let zst = d.join("e.ndjson.zst");
    let o = bin(&[
        "extract",
        ENVELOPE,
        "--finding",
        "1",
        "--out",
        zst.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!(
            "--out {}: extract writes plain text or gzip (.gz), not .zst",
            zst.display()
        )),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!zst.exists());
}

//! Nothing lost (issue 6): for every line log in tests/data/, summary.json
//! accounts for every line of the input as a JSON frame, a non-JSON line,
//! another line (stderr, lifecycle) or a blank line:
//! `totals.frames + totals.non_json_lines + totals.other_lines + blank lines
//! == the file's line count` (a per-direction pair: both halves' lines).
//!
//! Also checked on each sample cut short every 997 bytes, where the last
//! line is partial.

use crate::common;

use std::path::{Path, PathBuf};

use common::{mcp_audit, out_dir, root};

/// Lines as the line splitter counts them (FORMATS.md §8.1: a line ends at
/// LF; a final line without LF counts), and how many are blank.
fn count_lines(text: &str) -> (u64, u64) {
    let mut n = 0;
    let mut blank = 0;
    for l in text.split_inclusive('\n') {
        n += 1;
        if l.trim().is_empty() {
            blank += 1;
        }
    }
    (n, blank)
}

/// The files the run reads for `path`: a pair half brings its partner.
fn read_together(path: &Path) -> Vec<PathBuf> {
    let s = path.to_string_lossy();
    let partner = [
        (".client-to-server.jsonl", ".server-to-client.jsonl"),
        (".server-to-client.jsonl", ".client-to-server.jsonl"),
    ]
    .iter()
    .find_map(|(a, b)| {
        s.strip_suffix(a)
            .map(|stem| PathBuf::from(format!("{stem}{b}")))
    });
    let mut v = vec![path.to_path_buf()];
    v.extend(partner.filter(|p| p.exists()));
    v
}

/// Runs `path` alone; returns (frames + non_json + other, dialect).
fn accounted(name: &str, path: &Path) -> (u64, String, String) {
    let out = out_dir(name);
    let o = mcp_audit(&[path.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let t = &s["totals"];
    let n = ["frames", "non_json_lines", "other_lines"]
        .iter()
        .map(|k| t[*k].as_u64().unwrap())
        .sum();
    (
        n,
        s["inputs"][0]["dialect"].as_str().unwrap_or("").to_string(),
        stderr,
    )
}

fn line_logs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["tests/data/cases", "tests/data/real"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(root().join(d))
                .unwrap()
                .flatten()
                .map(|e| e.path())
        })
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "log" || e == "ndjson" || e == "jsonl")
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_line_of_every_sample_log_is_accounted_for() {
    let logs = line_logs();
    assert!(logs.len() >= 15, "{logs:?}");
    let mut report = Vec::new();
    for p in &logs {
        let (mut lines, mut blank) = (0, 0);
        for f in read_together(p) {
            let (n, b) = count_lines(&std::fs::read_to_string(&f).unwrap());
            lines += n;
            blank += b;
        }
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let (counted, dialect, stderr) = accounted(&format!("lost_{name}"), p);
        if counted + blank != lines {
            report.push(format!(
                "{name} ({dialect}): {lines} lines, {counted} counted + {blank} blank {stderr}"
            ));
        }
    }
    assert!(
        report.is_empty(),
        "lines not accounted for:\n{}",
        report.join("\n")
    );
}

#[test]
fn every_line_of_a_cut_log_is_accounted_for() {
    let d = out_dir("lost_cut_in");
    for sample in [
        "tests/data/real/stdio_py-client__py-server.logger.log",
        "tests/data/real/stdio_py-client__py-server.claude.log",
        "tests/data/real/stdio_py-client__py-server.ndjson",
        "tests/data/cases/l01_claude_desktop_2025_09_metadata_dialect.log",
        "tests/data/cases/l03_vscode_editor_server_dialect.log",
        "tests/data/cases/l07_lsp_client_trace_dialect_slow_tail.log",
    ] {
        let text = std::fs::read_to_string(root().join(sample)).unwrap();
        for cut in (997..text.len()).step_by(997) {
            let mut at = cut;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let p = d.join(format!("cut{cut}.log"));
            std::fs::write(&p, &text[..at]).unwrap();
            let (lines, blank) = count_lines(&text[..at]);
            let (counted, dialect, stderr) = accounted(&format!("lost_cut{cut}"), &p);
            if stderr.contains("no known format") || stderr.contains("no JSON-RPC traffic found") {
                continue;
            }
            assert_eq!(
                counted + blank,
                lines,
                "{sample} cut at {at} ({dialect}): {stderr}"
            );
        }
    }
}

/// A log that starts inside a line (a size-based rotation began it there):
/// its first line, the tail of a message, is accounted for, and in an
/// NDJSON log it is the one problem line that says so.
#[test]
fn every_line_of_a_log_cut_at_its_start_is_accounted_for() {
    let d = out_dir("lost_front_in");
    for sample in [
        "tests/data/real/stdio_py-client__py-server.ndjson",
        "tests/data/real/stdio_py-client__py-server.logger.log",
        "tests/data/cases/l03_vscode_editor_server_dialect.log",
    ] {
        let text = std::fs::read_to_string(root().join(sample)).unwrap();
        for cut in (1009..text.len()).step_by(3001) {
            let mut at = cut;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            let rest = &text[at..];
            let p = d.join(format!("front{cut}.log"));
            std::fs::write(&p, rest).unwrap();
            let (lines, blank) = count_lines(rest);
            let (counted, dialect, stderr) = accounted(&format!("lost_front{cut}"), &p);
            if stderr.contains("no known format") || stderr.contains("no JSON-RPC traffic found") {
                continue;
            }
            assert_eq!(
                counted + blank,
                lines,
                "{sample} cut at {at} ({dialect}): {stderr}"
            );
            let first = rest.lines().next().unwrap_or("");
            if sample.ends_with(".ndjson") && !first.starts_with('{') && first.ends_with('}') {
                assert!(
                    stderr.contains("line 1: the file starts inside a message"),
                    "{sample} cut at {at}: {stderr}"
                );
            }
        }
    }
}

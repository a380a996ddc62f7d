//! `mcp-audit diff` over two real runs' `--out` folders: the TypeScript
//! SDK's raw-batches HAR (16 findings: tests/suite/gates.rs lists them)
//! and the b04 stdio case (missing_response 2, duplicate_response 1,
//! unknown_id_response 1; no timestamps, so no latency).

use std::process::Command;

use serde_json::{Value, json};

use crate::common::{mcp_audit_ok, out_dir, root};

fn run_into(name: &str, capture: &str) -> String {
    let dir = out_dir(name);
    let cap = root().join(capture).display().to_string();
    mcp_audit_ok(&[&cap, "--out", &dir.display().to_string(), "-q"]);
    dir.display().to_string()
}

fn diff(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .arg("diff")
        .args(args)
        .output()
        .expect("run mcp-audit diff");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn diff_of_two_runs() {
    let har = "tests/data/real/har_ts-streamable-sse__raw-batches.har";
    let log = "tests/data/cases/b04_server_answers_every_request_with_id_zero.log";
    let old = run_into("diff_old", har);
    let again = run_into("diff_again", har);
    let new = run_into("diff_new", log);

    // The same capture twice: nothing changed, exit 0.
    let (code, out) = diff(&[&old, &again]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out,
        "mcp-audit diff: no regression\nfindings: no kind changed\n"
    );

    let (code, out) = diff(&[&old, &new, "--json"]);
    assert_eq!(code, Some(1), "duplicate_response went from 0 to 1");
    let v: Value = serde_json::from_str(&out).expect("json");
    let changes: Vec<(&str, u64, u64, bool)> = v["kinds"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| {
            (
                k["kind"].as_str().unwrap_or(""),
                k["old"].as_u64().unwrap_or(99),
                k["new"].as_u64().unwrap_or(99),
                k["regression"] == true,
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("duplicate_id", 1, 0, false),
            ("duplicate_response", 0, 1, true),
            ("empty_batch", 1, 0, false),
            ("empty_batch_not_rejected", 1, 0, false),
            ("invalid_request", 1, 0, false),
            ("neither_result_nor_error", 1, 0, false),
            ("null_id_error", 2, 0, false),
            ("out_of_order_batch", 3, 0, false),
            ("response_count_mismatch", 2, 0, false),
            ("stream_closed_before_response", 1, 0, false),
        ]
    );
    let (h, l) = (root().join(har), root().join(log));
    assert_eq!(v["inputs_added"], json!([l.display().to_string()]));
    assert_eq!(v["inputs_gone"], json!([h.display().to_string()]));
    assert_eq!(
        v["sessions_gone"],
        json!([format!(
            "{}: fb0b5df5-3256-4083-a965-a3c9625f5b7c",
            h.display()
        )])
    );
    assert_eq!(v["latency"], json!([]), "b04 has no times");

    // summary.json files, and the Markdown table.
    let (code, md) = diff(&[
        &format!("{new}/summary.json"),
        &format!("{old}/summary.json"),
        "--markdown",
    ]);
    assert_eq!(code, Some(1), "the HAR's errors are new against b04");
    assert!(
        md.starts_with("## mcp-audit diff: REGRESSION\n\n| kind | severity | old | new | |\n"),
        "{md}"
    );
    assert!(
        md.contains("| `duplicate_id` | error | 0 | 1 | regression |"),
        "{md}"
    );
    assert!(
        md.contains("| `duplicate_response` | error | 1 | 0 |  |"),
        "{md}"
    );

    // A latency regression: OLD's tools/call p99 is 253.058 ms; a NEW whose
    // latency.csv says 400 ms is +58.1 %.
    let slow = out_dir("diff_slow");
    for f in ["summary.json", "latency.csv"] {
        std::fs::copy(format!("{old}/{f}"), slow.join(f)).expect("copy");
    }
    let csv = std::fs::read_to_string(slow.join("latency.csv")).expect("csv");
    let line = csv
        .lines()
        .find(|l| l.starts_with("method,tools/call,"))
        .expect("tools/call row")
        .to_string();
    let edited = line.replace("253.058", "400");
    std::fs::write(slow.join("latency.csv"), csv.replace(&line, &edited)).expect("write");
    // Over 4 latencies a side (the fresh user's noise: one call is the
    // p99), the change is shown and not judged by default.
    let (code, out) = diff(&[&old, &slow.display().to_string()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("p99 253.058 -> 400 ms (+58.1%)  (over 4 and 4 latencies: not judged)"),
        "{out}"
    );
    let (_, md) = diff(&[&old, &slow.display().to_string(), "--markdown"]);
    assert!(
        md.contains(
            "| `tools/call` | 253.058 → 400 | 253.058 → 400 | +58.1% | not judged (few latencies) |"
        ),
        "{md}"
    );
    let few = "--min-latencies=4";
    let (code, out) = diff(&[&old, &slow.display().to_string(), few]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("tools/call") && out.contains("p99 253.058 -> 400 ms (+58.1%)  REGRESSION"),
        "{out}"
    );
    let (code, _) = diff(&[
        &old,
        &slow.display().to_string(),
        few,
        "--p99-regression",
        "60%",
    ]);
    assert_eq!(code, Some(0), "within 60 %");

    let (code, _) = diff(&[&old, "/nonexistent/summary.json"]);
    assert_eq!(code, Some(2));
}

/// `diff` over Hive shard folders (`--shard-dir`): two days of two hosts
/// in one folder, compared day by day with `--old-partition` /
/// `--new-partition`, say what `diff` of the same days' `--out` runs
/// says (kinds, latency quantiles, regression), the sessions and inputs
/// named after their host. Day 1: host a the TypeScript server's
/// raw-batches HAR, host b the stdio raw-batches envelope log; day 2:
/// host a the Python server's raw-batches HAR, host b the same log.
#[test]
fn diff_of_shard_folders() {
    let dir = out_dir("diff_shards");
    let shards = dir.join("shards").display().to_string();
    let days = [
        (
            "2026-11-30",
            "tests/data/real/har_ts-streamable-sse__raw-batches.har",
        ),
        (
            "2026-12-01",
            "tests/data/real/har_py-streamable-sse__raw-batches.har",
        ),
    ];
    let log = root()
        .join("tests/data/real/stdio_raw-batches__server-everything.ndjson")
        .display()
        .to_string();
    let mut outs = Vec::new();
    for (day, har) in days {
        let har = root().join(har).display().to_string();
        for (host, cap) in [("a", &har), ("b", &log)] {
            let part = format!("date={day},host={host}");
            mcp_audit_ok(&[cap, "--shard", &part, "--shard-dir", &shards, "-q"]);
        }
        let out = dir.join(format!("out-{day}")).display().to_string();
        mcp_audit_ok(&[&har, &log, "--out", &out, "-q"]);
        outs.push(out);
    }
    let (code, by_out) = diff(&[&outs[0], &outs[1], "--json"]);
    assert_eq!(code, Some(1));
    let (code, by_shards) = diff(&[
        &shards,
        &shards,
        "--old-partition",
        "date=2026-11-30",
        "--new-partition",
        "date=2026-12-01",
        "--json",
    ]);
    assert_eq!(code, Some(1));
    let (a, b): (Value, Value) = (
        serde_json::from_str(&by_out).unwrap(),
        serde_json::from_str(&by_shards).unwrap(),
    );
    for k in ["kinds", "latency", "regression", "p99_regression_pct"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    // Checked by hand: host b's log is the same on both days; host a's
    // HAR changed (its session is a new one).
    let har_of = |day: usize| root().join(days[day].1).display().to_string();
    assert_eq!(b["inputs_gone"], json!([format!("host=a: {}", har_of(0))]));
    assert_eq!(b["inputs_added"], json!([format!("host=a: {}", har_of(1))]));
    assert_eq!(
        b["sessions_gone"],
        json!([format!(
            "host=a: {}: fb0b5df5-3256-4083-a965-a3c9625f5b7c",
            har_of(0)
        )])
    );
    let strip = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| {
                s.as_str()
                    .unwrap()
                    .trim_start_matches("host=a: ")
                    .to_string()
            })
            .collect()
    };
    for k in [
        "sessions_added",
        "sessions_gone",
        "inputs_added",
        "inputs_gone",
    ] {
        assert_eq!(strip(&b[k]), strip(&a[k]), "{k}");
    }
    let kinds: Vec<(&str, u64, u64)> = b["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["kind"].as_str().unwrap(),
                k["old"].as_u64().unwrap(),
                k["new"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(kinds.contains(&("missing_response", 6, 17)), "{kinds:?}");
    assert!(kinds.contains(&("out_of_order_batch", 3, 0)), "{kinds:?}");

    // One day against itself: no change. A partition that holds nothing,
    // and a partition asked of an --out folder, are refused (exit 2).
    let (code, out) = diff(&[
        &shards,
        &shards,
        "--old-partition",
        "date=2026-12-01",
        "--new-partition",
        "date=2026-12-01",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let (code, _) = diff(&[&shards, &shards, "--new-partition", "date=1999-01-01"]);
    assert_eq!(code, Some(2));
    let (code, _) = diff(&[&outs[0], &outs[1], "--old-partition", "date=2026-11-30"]);
    assert_eq!(code, Some(2));
}

/// Each finding is counted at the severity its run gave it. OLD: the
/// server-everything stdio session of tests/data/real4/legacy, whose one
/// finding is the `slow_tail` of `trigger-long-running-operation` id 16
/// (line 35, 2009.0 ms, 4 progress notifications): info. NEW: the same
/// session, a copy of it named `./other.log` (its slow_tail is info too)
/// and tests/data/real4/fresh16/truncated.jsonl, whose last line is cut:
/// its tools/list id 1 (line 4) is a `missing_response` that capture gap
/// explains, info. Before, diff read `findings_by_kind` at the catalogue
/// severity: `slow_tail warning 1 -> 2 REGRESSION`, `missing_response
/// error 0 -> 1 REGRESSION`, exit 1, for a run with no warning or error.
/// The latencies are the same (the copy doubles each; truncated.jsonl's
/// initialize, 491 ms, leaves every p50 and p99 where it was), so no
/// latency line. The Markdown shows the names as written: `./other.log`,
/// not `\.\/other\.log`.
#[test]
fn info_findings_are_no_regression() {
    let dir = out_dir("diff_info");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let session = root().join("tests/data/real4/legacy/envelope_stdio__everything.jsonl");
    std::fs::copy(&session, logs.join("other.log")).unwrap();
    let cut = root().join("tests/data/real4/fresh16/truncated.jsonl");
    let (session, cut) = (session.display().to_string(), cut.display().to_string());
    let old = dir.join("old").display().to_string();
    let new = dir.join("new").display().to_string();
    mcp_audit_ok(&[&session, "--out", &old, "-q"]);
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .current_dir(&logs)
        .args([
            "analyze",
            &session,
            "./other.log",
            &cut,
            "--out",
            &new,
            "-q",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "only info findings");

    let (code, out) = diff(&[&old, &new]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out,
        format!(
            "mcp-audit diff: no regression\n\
             findings:\n  \
             missing_response                     info    0 -> 1\n  \
             slow_tail                            info    1 -> 2\n\
             inputs added (2): ./other.log, {cut}\n\
             sessions added (2): ./other.log, {cut}\n"
        )
    );
    let (code, md) = diff(&[&old, &new, "--markdown"]);
    assert_eq!(code, Some(0), "{md}");
    assert_eq!(
        md,
        format!(
            "## mcp-audit diff: no regression\n\n\
             | kind | severity | old | new | |\n\
             |---|---|---:|---:|---|\n\
             | `missing_response` | info | 0 | 1 |  |\n\
             | `slow_tail` | info | 1 | 2 |  |\n\n\
             - inputs added (2): ./other.log, {cut}\n\
             - sessions added (2): ./other.log, {cut}\n"
        )
    );
    // The other way round, the info findings went down: no regression.
    let (code, out) = diff(&[&new, &old, "--json"]);
    assert_eq!(code, Some(0), "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["kinds"],
        json!([
            {"kind": "missing_response", "severity": "info", "old": 1, "new": 0, "regression": false},
            {"kind": "slow_tail", "severity": "info", "old": 2, "new": 1, "regression": false},
        ])
    );
}

//! DuckDB reads the Parquet outputs as they are, and its counts equal
//! summary.json's (issue 4): a few samples run through the real binary,
//! each into its own folder of one "runs" directory, then
//! `tests/duckdb_check.py` queries every table alone and all runs at once
//! through a glob, and compares the columns and types with
//! `reports/SCHEMA.md`. Also checks that latency.csv agrees with
//! latency.parquet and summary.json.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{has_duckdb, mcp_audit_ok, root};

fn runs_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("out/duckdb-runs");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

fn run(inputs: &[&str], out: &Path) {
    let mut args: Vec<String> = inputs
        .iter()
        .map(|i| root().join(i).to_string_lossy().into_owned())
        .collect();
    args.extend([
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "-q".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    mcp_audit_ok(&args);
    for f in ["findings", "pairs", "batches", "latency", "sessions"] {
        assert!(
            out.join(format!("{f}.parquet")).is_file(),
            "{f}.parquet missing in {}",
            out.display()
        );
    }
    for f in ["findings", "pairs", "batches", "latency"] {
        assert!(
            out.join(format!("{f}.csv")).is_file(),
            "{f}.csv missing in {}",
            out.display()
        );
    }
}

#[test]
fn duckdb_counts_equal_summary_json() {
    if !has_duckdb("duckdb_counts_equal_summary_json") {
        return;
    }
    let runs = runs_dir();
    // Reordered and rejected batches, a duplicate id (HAR).
    run(
        &["tests/data/real/har_ts-streamable-sse__raw-batches.har"],
        &runs.join("raw-batches"),
    );
    // A line log with a slow tail and a batch never fully answered, plus a
    // cancelled request: several inputs in one run.
    run(
        &[
            "tests/data/cases/l07_lsp_client_trace_dialect_slow_tail.log",
            "tests/data/cases/b09_batch_with_notification_never_answered.log",
            "tests/data/cases/b07_initialize_cancelled_after_slow_npx_install.log",
            "tests/data/cases/l05_cursor_2025_12_dialect_late_cancel_reply.log",
        ],
        &runs.join("line-logs"),
    );
    // Null-id errors and an id echoed with another type.
    run(
        &[
            "tests/data/cases/b12_tool_exception_answered_with_null_id.har",
            "tests/data/cases/b03_string_id_echoed_as_integer.har",
        ],
        &runs.join("null-ids"),
    );
    let o = Command::new("python3")
        .arg(root().join("tests/suite/duckdb_check.py"))
        .arg(root().join("reports/SCHEMA.md"))
        .arg(&runs)
        .output()
        .expect("run python3 tests/duckdb_check.py");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "duckdb_check.py:\n{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("all checks passed"), "{text}");
}

#[test]
fn latency_csv_overall_row_equals_summary() {
    let out = common::out_dir("latency-csv");
    run(
        &["tests/data/real/har_ts-streamable-sse__raw-batches.har"],
        &out,
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let csv = std::fs::read_to_string(out.join("latency.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header,
        [
            "dimension",
            "method",
            "server",
            "batch_size",
            "count",
            "p50_ms",
            "p90_ms",
            "p99_ms",
            "p999_ms",
            "max_ms"
        ]
    );
    let all: Vec<&str> = lines
        .find(|l| l.starts_with("all,"))
        .expect("an 'all' row")
        .split(',')
        .collect();
    let lat = &summary["latency_ms"];
    assert_eq!(all[4], lat["count"].to_string());
    for (i, k) in [(5, "p50"), (6, "p90"), (7, "p99"), (9, "max")] {
        assert_eq!(
            all[i].parse::<f64>().unwrap(),
            lat[k].as_f64().unwrap(),
            "{k}"
        );
    }
}

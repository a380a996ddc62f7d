//! Property test against the generator: traffic with injected faults from
//! `tools/gen_traffic.py` (every format issue 2 covers, several
//! seeds, 2026-07-28 HAR sessions among them), analysed by the real
//! binary, must match the generator's exact manifest per kind, totals,
//! operations (rule 14) and latency quantiles (`tools/check_manifest.py`).

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::{mcp_audit_ok, out_dir, tool};

/// The kinds of issue 12, each an injectable generator fault.
const ISSUE12: [&str; 10] = [
    "notification_replied",
    "batch_reply_not_array",
    "batch_rejected_whole",
    "empty_batch_not_rejected",
    "single_request_answered_with_batch",
    "placeholder_id_error",
    "progress_after_response",
    "unknown_progress_token",
    "protocol_version_mismatch",
    "mrtr_state_changed",
];

/// Generates `sessions` sessions of `format` with `seed` (`generator` extra
/// generator arguments, after the default `--faults 0.05`), analyses them
/// (`analyze` extra arguments), checks the manifest; returns the output
/// folder (`manifest.json`, `out/summary.json`).
fn run_with(
    name: &str,
    format: &str,
    seed: u32,
    sessions: u32,
    generator: &[&str],
    analyze: &[&str],
) -> PathBuf {
    let dir = out_dir(name);
    let ext = match format {
        "har" => "har",
        "envelope" => "ndjson",
        "sse" => "sse",
        _ => "log",
    };
    let corpus = dir.join(format!("corpus.{ext}"));
    let manifest = dir.join("manifest.json");
    let g = Command::new("python3")
        .arg(tool("gen_traffic.py"))
        .args([
            "--format",
            format,
            "--seed",
            &seed.to_string(),
            "--sessions",
            &sessions.to_string(),
        ])
        .args(["--messages", "200", "--faults", "0.05", "-q"])
        .args(generator)
        .arg("--out")
        .arg(&corpus)
        .arg("--manifest")
        .arg(&manifest)
        .output()
        .expect("gen_traffic.py");
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let out = dir.join("out");
    let mut args = vec![
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(analyze);
    mcp_audit_ok(&args);
    let c = Command::new("python3")
        .arg(tool("check_manifest.py"))
        .arg(&manifest)
        .arg(out.join("summary.json"))
        .output()
        .expect("check_manifest.py");
    assert!(
        c.status.success(),
        "{name}:\n{}{}",
        String::from_utf8_lossy(&c.stdout),
        String::from_utf8_lossy(&c.stderr)
    );
    dir
}

fn run(format: &str, seed: u32, sessions: u32) {
    run_with(
        &format!("gen_{format}_{seed}"),
        format,
        seed,
        sessions,
        &[],
        &[],
    );
}

fn json(path: PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json")
}

#[test]
fn envelope_seeds() {
    for seed in [1, 2, 3] {
        run("envelope", seed, 12);
    }
}

#[test]
fn claude_seeds() {
    for seed in [4, 5] {
        run("claude", seed, 8);
    }
}

#[test]
fn logger_seeds() {
    for seed in [6, 7] {
        run("logger", seed, 8);
    }
}

#[test]
fn har_seeds() {
    for seed in [8, 9] {
        run("har", seed, 6);
    }
}

#[test]
fn sse_seeds() {
    run("sse", 10, 6);
}

/// Every HAR session on 2026-07-28 (no initialize, `_meta` revision, MRTR,
/// tasks, open listens) with that revision's faults.
#[test]
fn har_2026_seeds() {
    for seed in [11, 12] {
        run_with(
            &format!("gen_har2026_{seed}"),
            "har",
            seed,
            5,
            &["--modern-rate", "1"],
            &[],
        );
    }
}

/// 2026-07-28 sessions among legacy ones in stdio logs (envelope and
/// Claude Desktop files): no initialize, MRTR, tasks, listens.
#[test]
fn stdio_2026_seeds() {
    for (format, seed) in [("envelope", 18), ("claude", 19)] {
        run_with(
            &format!("gen_{format}2026_{seed}"),
            format,
            seed,
            6,
            &["--modern-rate", "0.5"],
            &[],
        );
    }
}

/// Healthy 2026-07-28 operations give no finding at all (slow tails are
/// judged against a floor of an hour, so none arise by chance), and the
/// binary links them as the manifest says (checked by `run_with`).
#[test]
fn healthy_2026_has_no_finding() {
    for (format, seed) in [("har", 13), ("envelope", 20)] {
        let dir = run_with(
            &format!("gen_{format}2026_healthy"),
            format,
            seed,
            4,
            &["--modern-rate", "1", "--faults", "0", "--slow", "3600s"],
            &["--slow", "3600s"],
        );
        let s = json(dir.join("out").join("summary.json"));
        let found: u64 = s["findings_by_kind"]
            .as_object()
            .expect("findings_by_kind")
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(found, 0, "{format}: {}", s["findings_by_kind"]);
        for kind in ["mrtr", "task", "listen"] {
            assert!(
                s["operations"][kind]["count"].as_u64().unwrap_or(0) > 0,
                "{format} {kind}: {}",
                s["operations"]
            );
        }
    }
}

/// Each issue-12 kind comes out of its generator fault in every format
/// where it applies, with exact counts (`run_with` checks the manifest).
#[test]
fn issue12_faults() {
    let kinds = ISSUE12.join(",");
    for (format, seed) in [
        ("envelope", 14),
        ("claude", 15),
        ("logger", 16),
        ("har", 17),
    ] {
        let dir = run_with(
            &format!("gen_issue12_{format}"),
            format,
            seed,
            6,
            &["--fault-kinds", &kinds, "--faults", "0.25"],
            &[],
        );
        let m = json(dir.join("manifest.json"));
        for k in ISSUE12 {
            let http_only = matches!(k, "batch_reply_not_array" | "protocol_version_mismatch");
            if format != "har" && (http_only || k == "mrtr_state_changed") {
                continue;
            }
            assert!(
                m["findings_by_kind"][k].as_u64().unwrap() > 0,
                "{format}: no {k} in {}",
                m["findings_by_kind"]
            );
        }
    }
}

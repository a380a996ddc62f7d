//! Property test against the generator: traffic with injected faults from
//! `tools/gen_traffic.py` (every format issue 2 covers, several
//! seeds), analysed by the real binary, must match the generator's exact
//! manifest per kind, totals and latency quantiles
//! (`tools/check_manifest.py`).

use crate::common;

use std::process::Command;

use common::{mcp_audit_ok, out_dir, tool};

fn run(format: &str, seed: u32, sessions: u32, messages: u32) {
    let name = format!("gen_{format}_{seed}");
    let dir = out_dir(&name);
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
        .args([
            "--messages",
            &messages.to_string(),
            "--faults",
            "0.05",
            "-q",
        ])
        .arg("--out")
        .arg(&corpus)
        .arg("--manifest")
        .arg(&manifest)
        .output()
        .expect("gen_traffic.py");
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let out = dir.join("out");
    mcp_audit_ok(&[
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
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
}

#[test]
fn envelope_seeds() {
    for seed in [1, 2, 3] {
        run("envelope", seed, 12, 200);
    }
}

#[test]
fn claude_seeds() {
    for seed in [4, 5] {
        run("claude", seed, 8, 200);
    }
}

#[test]
fn logger_seeds() {
    for seed in [6, 7] {
        run("logger", seed, 8, 200);
    }
}

#[test]
fn har_seeds() {
    for seed in [8, 9] {
        run("har", seed, 6, 200);
    }
}

#[test]
fn sse_seeds() {
    run("sse", 10, 6, 200);
}

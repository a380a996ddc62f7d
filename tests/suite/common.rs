//! Helpers of the integration tests: find the checkout under test, run the
//! real binary, call the checkers in `tools/`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The root of the checkout under test, read at run time: `cargo test`
/// sets `CARGO_MANIFEST_DIR` (and runs the tests from that folder) for the
/// checkout it was started in. The path baked in at compile time is only
/// the fallback for a test binary started by hand: with a build folder
/// shared between clones, that path may name another clone.
pub fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// `tools/NAME` of the checkout: the case checker, the traffic generator
/// and its manifest checker (`tools/README.md`).
pub fn tool(name: &str) -> PathBuf {
    let p = root().join("tools").join(name);
    assert!(p.exists(), "{} is missing from the checkout", p.display());
    p
}

/// Runs `mcp-audit ARGS`.
pub fn mcp_audit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .arg("analyze")
        .args(args)
        .output()
        .expect("run mcp-audit")
}

/// Runs `mcp-audit analyze ARGS` and asserts that it analysed: exit 0
/// (clean) or 1 (findings), never 2; the exit code and stderr in the
/// message otherwise.
pub fn mcp_audit_ok(args: &[&str]) -> Output {
    let o = mcp_audit(args);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "mcp-audit {args:?}: exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A fresh output directory under the target dir.
pub fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("out")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

/// Analyses `input` into a fresh dir and checks it with check_case.py
/// against `expected`; panics with the script's table on a mismatch.
pub fn check_case(input: &Path, expected: &Path, name: &str) {
    let out = out_dir(name);
    mcp_audit_ok(&[
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    run_check_case(expected, &out, name);
}

/// [`check_case`] for a capture that holds no JSON-RPC traffic: the run
/// exits 2 (nothing was analysed) and still writes its outputs, which
/// must match `expected` (all counts zero).
pub fn check_empty_case(input: &Path, expected: &Path, name: &str) {
    let out = out_dir(name);
    let o = mcp_audit(&[
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{name}: {stderr}");
    assert!(
        stderr.contains("no JSON-RPC traffic found"),
        "{name}: {stderr}"
    );
    run_check_case(expected, &out, name);
}

fn run_check_case(expected: &Path, out: &Path, name: &str) {
    let c = Command::new("python3")
        .arg(tool("check_case.py"))
        .arg(expected)
        .arg(out.join("summary.json"))
        .arg(out.join("pairs.csv"))
        .output()
        .expect("run check_case.py");
    assert!(
        c.status.success(),
        "{name}:\n{}{}",
        String::from_utf8_lossy(&c.stdout),
        String::from_utf8_lossy(&c.stderr)
    );
}

/// Whether `python3` can import every one of `modules` (PyPI packages
/// `pip`), for tests that read an output with its real consumer; the same
/// rule as [`has_duckdb`]: skip with a message, fail under `CI`.
pub fn has_python(test: &str, modules: &[&str], pip: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {}", modules.join(", "))])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: python3 cannot import {modules:?}, but CI must run this test (.ci/run installs {pip})"
        );
        eprintln!(
            "{test}: skipped: python3 cannot import {modules:?} (install with `python3 -m pip install {pip}`)"
        );
    }
    ok
}

/// Whether `python3` can `import duckdb` (DuckDB's Python package), for
/// the tests that read the Parquet outputs with it. Tests install nothing:
/// without it the caller skips with a message saying how to get it, and
/// under `CI` (where `.ci/run` installs it) the test fails instead.
pub fn has_duckdb(test: &str) -> bool {
    has_python(test, &["duckdb"], "duckdb")
}

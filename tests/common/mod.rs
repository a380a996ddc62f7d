//! Shared helpers of the integration tests: run the real binary, find the
//! shared tools.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/tools/NAME` (CI lays `shared/` beside the clone).
pub fn tool(name: &str) -> PathBuf {
    let p = root().join("../shared/tools").join(name);
    assert!(
        p.exists(),
        "{} is missing: these tests need the project's shared/ folder beside the clone (../shared, see README.md)",
        p.display()
    );
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

/// Makes `import duckdb` work for `python3`: installs the `duckdb` package
/// with pip when it is missing (`.ci/run` installs it beforehand on CI).
pub fn ensure_duckdb() {
    let has = || {
        Command::new("python3")
            .args(["-c", "import duckdb"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if has() {
        return;
    }
    for extra in [&[][..], &["--break-system-packages"][..]] {
        let _ = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "duckdb"])
            .args(extra)
            .status();
        if has() {
            return;
        }
    }
    panic!("python3 cannot import duckdb and `python3 -m pip install duckdb` did not fix it");
}

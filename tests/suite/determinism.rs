//! The same inputs give byte-identical outputs whatever `--threads` is.

use crate::common;

use common::{mcp_audit, out_dir, root};

#[test]
fn one_and_four_threads_write_identical_files() {
    let cases = root().join("tests/data/cases");
    let real = root().join("tests/data/real");
    let mut outs = Vec::new();
    for threads in ["1", "4"] {
        let out = out_dir(&format!("determinism_{threads}"));
        let o = mcp_audit(&[
            cases.to_str().unwrap(),
            real.to_str().unwrap(),
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.code().is_some());
        outs.push((out, o.stdout));
    }
    assert_eq!(outs[0].1, outs[1].1, "terminal output differs");
    for name in ["summary.json", "findings.csv", "pairs.csv", "batches.csv"] {
        let a = std::fs::read(outs[0].0.join(name)).unwrap();
        let b = std::fs::read(outs[1].0.join(name)).unwrap();
        assert!(a.len() > 100, "{name} is suspiciously small");
        assert!(a == b, "{name} differs between --threads 1 and 4");
    }
}

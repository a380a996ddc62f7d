//! Reading a line log block by block (issue 5) changes nothing: tiny blocks
//! give byte-identical outputs to one block per file, with any thread count.

use crate::common;

use std::process::Command;

use common::{mcp_audit_ok, out_dir, root, tool};

fn outputs(inputs: &[&str], extra: &[&str], name: &str) -> Vec<(String, Vec<u8>)> {
    let out = out_dir(name);
    let mut args: Vec<&str> = inputs.to_vec();
    let o = out.to_str().unwrap().to_string();
    args.extend(["--out", &o, "-q"]);
    args.extend(extra);
    mcp_audit_ok(&args);
    ["summary.json", "findings.csv", "pairs.csv", "batches.csv"]
        .iter()
        .map(|n| (n.to_string(), std::fs::read(out.join(n)).unwrap()))
        .collect()
}

/// Writes a generated corpus (`gen_traffic.py`, 0.1 faults) to `out`.
fn generate(format: &str, seed: &str, sessions: &str, messages: &str, out: &std::path::Path) {
    let g = Command::new("python3")
        .arg(tool("gen_traffic.py"))
        .args(["--format", format, "--seed", seed, "--sessions", sessions])
        .args(["--messages", messages, "--faults", "0.1", "-q"])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
}

#[test]
fn tiny_blocks_change_nothing() {
    let dir = out_dir("blocks_corpus");
    let corpus = dir.join("c.log");
    generate("claude", "31", "6", "200", &corpus);
    let env = dir.join("e.ndjson");
    generate("envelope", "32", "6", "200", &env);
    let real = root().join("tests/data/real");
    let claude = real.join("stdio_py-client__py-server.claude.log");
    let logger = real.join("stdio_py-client__py-server.logger.log");
    let l01 = root().join("tests/data/cases/l01_claude_desktop_2025_09_metadata_dialect.log");
    let inputs = [
        corpus.to_str().unwrap(),
        env.to_str().unwrap(),
        claude.to_str().unwrap(),
        logger.to_str().unwrap(),
        l01.to_str().unwrap(),
    ];
    let whole = outputs(&inputs, &[], "blocks_whole");
    for (size, threads) in [("97", "1"), ("1000", "4"), ("1", "2")] {
        let cut = outputs(
            &inputs,
            &["--block-bytes", size, "--threads", threads],
            &format!("blocks_{size}_{threads}"),
        );
        for ((name, a), (_, b)) in whole.iter().zip(&cut) {
            assert!(
                a == b,
                "{name} differs with --block-bytes {size} --threads {threads}"
            );
        }
    }
}

/// A compressed line log is decompressed, then read block by block like a
/// plain one (its records never all held): the same findings, pairs and
/// batches as the plain file, for any block size.
#[test]
fn compressed_logs_read_by_blocks_like_plain_ones() {
    use std::io::Write;
    let dir = out_dir("blocks_gz_corpus");
    let env = dir.join("g.ndjson");
    generate("envelope", "33", "5", "150", &env);
    let gz = dir.join("g.ndjson.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&std::fs::read(&env).unwrap()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let plain = outputs(&[env.to_str().unwrap()], &[], "blocks_gz_plain");
    for (size, threads) in [("4194304", "2"), ("97", "1"), ("1", "2")] {
        let got = outputs(
            &[gz.to_str().unwrap()],
            &["--block-bytes", size, "--threads", threads],
            &format!("blocks_gz_{size}_{threads}"),
        );
        for ((name, a), (_, b)) in plain.iter().zip(&got).skip(1) {
            let b = String::from_utf8_lossy(b).replace("g.ndjson.gz", "g.ndjson");
            assert!(
                String::from_utf8_lossy(a) == b,
                "{name} differs for the gzip, --block-bytes {size} --threads {threads}"
            );
        }
        let totals =
            |s: &[u8]| serde_json::from_slice::<serde_json::Value>(s).unwrap()["totals"].clone();
        assert_eq!(totals(&plain[0].1), totals(&got[0].1));
    }
}

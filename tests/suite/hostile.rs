//! A hostile corpus (`tests/data/hostile/`, README there): secrets in every
//! place a capture puts them — headers (vendor keys too), cookies, query
//! strings, JSON members with escaped names, members named `pass`, free
//! text (`password=…`, `token: …`, `api_key: …`) inside JSON strings,
//! error messages, SSE data and non-JSON log lines — in HAR, raw SSE, an
//! NDJSON envelope log and a `[STDIN]`/`[STDOUT]` log. Every secret value
//! starts with `LEAK`; no output may hold one, and with `--no-redact` the
//! same run shows them (so the check is not vacuous).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::{has_duckdb, mcp_audit, out_dir, root};

const INPUTS: [&str; 11] = [
    "hostile.har",
    "hostile.sse",
    "hostile.ndjson",
    "hostile.logger.log",
    // A second corpus, written by a colleague who had not seen the rules
    // (README there): secrets at every string depth, of every JSON type,
    // in every free-text shape they could think of.
    "second/h2.har",
    "second/big.har",
    "second/h2.sse",
    "second/split.sse",
    "second/h2.ndjson",
    "second/ids.ndjson",
    "second/h2.logger.log",
];

/// Every text an output folder and the run's stdout/stderr hold; Parquet
/// files through DuckDB (their pages are compressed), when it is there.
fn outputs(dir: &Path, stdout: &[u8], stderr: &[u8]) -> Vec<(String, String)> {
    let mut all = vec![
        (
            "stdout".to_string(),
            String::from_utf8_lossy(stdout).into_owned(),
        ),
        (
            "stderr".to_string(),
            String::from_utf8_lossy(stderr).into_owned(),
        ),
    ];
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("out dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".parquet") {
            if has_duckdb("hostile_corpus_leaves_no_secret") {
                let o = Command::new("python3")
                    .args(["-c", "import sys, duckdb; print(duckdb.sql(f\"SELECT * FROM read_parquet('{sys.argv[1]}')\").fetchall())"])
                    .arg(&f)
                    .output()
                    .expect("python3");
                assert!(
                    o.status.success(),
                    "{name}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                all.push((name, String::from_utf8_lossy(&o.stdout).into_owned()));
            }
        } else {
            all.push((name, std::fs::read_to_string(&f).expect("text output")));
        }
    }
    all
}

fn run(input: &Path, tag: &str, extra: &[&str]) -> Vec<(String, String)> {
    let tag = tag.replace('/', "_");
    let out = out_dir(&format!("hostile-{tag}"));
    let mut args = vec![input.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = mcp_audit(&args);
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{tag}: exit {:?}",
        o.status.code()
    );
    let mut all = outputs(&out, &o.stdout, &o.stderr);
    let mut json = vec![input.to_str().unwrap(), "--json"];
    json.extend_from_slice(extra);
    let j = mcp_audit(&json);
    all.push((
        "--json stdout".into(),
        String::from_utf8_lossy(&j.stdout).into_owned(),
    ));
    // The extract of the first finding (a bug report's attachment).
    let x = out.join("extract.txt");
    let mut ex = vec![
        "extract",
        input.to_str().unwrap(),
        "--finding",
        "1",
        "--out",
        x.to_str().unwrap(),
    ];
    ex.extend_from_slice(extra);
    let e = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .args(&ex)
        .output()
        .expect("run extract");
    assert!(
        e.status.success(),
        "{tag}: extract: {}",
        String::from_utf8_lossy(&e.stderr)
    );
    all.push((
        "extract".into(),
        std::fs::read_to_string(&x).expect("extract written"),
    ));
    all
}

#[test]
fn hostile_corpus_leaves_no_secret() {
    let dir = root().join("tests/data/hostile");
    for name in INPUTS {
        let input = dir.join(name);
        let leaks: Vec<String> = run(&input, name, &[])
            .iter()
            .flat_map(|(out, text)| {
                text.match_indices("LEAK").map(move |(i, _)| {
                    let end = text[i..]
                        .find(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                        .map_or(text.len(), |e| i + e);
                    format!("{name} → {out}: {}", &text[i..end])
                })
            })
            .collect();
        assert!(
            leaks.is_empty(),
            "secrets left in outputs:\n{}",
            leaks.join("\n")
        );
        // The evidence is there, redacted: names kept, values gone.
        let html = run(&input, &format!("{name}-html"), &[]);
        let page = &html
            .iter()
            .find(|(n, _)| n == "report.html")
            .expect("report.html")
            .1;
        assert!(
            page.contains("[REDACTED]"),
            "{name}: report.html shows no redacted evidence"
        );
    }
}

#[test]
fn no_redact_shows_the_hostile_secrets() {
    let dir = root().join("tests/data/hostile");
    for name in INPUTS {
        let all = run(&dir.join(name), &format!("{name}-raw"), &["--no-redact"]);
        let page = &all
            .iter()
            .find(|(n, _)| n == "report.html")
            .expect("report.html")
            .1;
        assert!(
            page.contains("LEAK"),
            "{name}: --no-redact evidence should hold the captured secrets"
        );
    }
}

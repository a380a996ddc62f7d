//! A hostile corpus (`tests/data/hostile/`, README there): secrets in every
//! place a capture puts them — headers (vendor keys too), cookies, query
//! strings, JSON members with escaped names, members named `pass`, free
//! text (`password=…`, `token: …`, `api_key: …`) inside JSON strings,
//! error messages, SSE data and non-JSON log lines — in HAR, raw SSE, an
//! NDJSON envelope log and a `[STDIN]`/`[STDOUT]` log. Every secret value
//! starts with `LEAK`; no output may hold one, and with `--no-redact` the
//! same run shows them (so the check is not vacuous). A third corpus
//! (`third/`, README there) holds realistic secrets tagged `Hx3` and
//! listed in its `secrets.txt`, in HAR, raw SSE and five line dialects,
//! checked in every output the binary writes.

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

/// The third corpus (`tests/data/hostile/third/`, written by its `gen.py`
/// by someone who had not read the rules): realistic secrets, each
/// holding `Hx3` or `HX3` or listed whole in `secrets.txt`.
const THIRD: [&str; 9] = [
    "h3.har",
    "h3.bodies.har",
    "h3.sse",
    "h3.supergateway.log",
    "h3.mcp-proxy.log",
    "h3.ndjson",
    "h3.cp1252.ndjson.gz",
    "h3.remote.log",
    "h3.claude.log",
];

/// Every file under `dir` (recursively) as text; the Parquet files'
/// paths go to `parquet`.
fn texts_under(dir: &Path, all: &mut Vec<(String, String)>, parquet: &mut Vec<PathBuf>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("out dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for f in files {
        if f.is_dir() {
            texts_under(&f, all, parquet);
        } else if f.extension().is_some_and(|e| e == "parquet") {
            parquet.push(f);
        } else {
            let bytes = std::fs::read(&f).expect("output file");
            all.push((
                f.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
}

/// The rows of Parquet files through DuckDB (their pages are compressed),
/// one Python for all of them, when DuckDB is there.
fn parquet_rows(files: &[PathBuf], all: &mut Vec<(String, String)>) {
    if files.is_empty() || !has_duckdb("third_corpus_leaves_no_secret") {
        return;
    }
    let o = Command::new("python3")
        .args(["-c", "import sys, duckdb\nfor f in sys.argv[1:]: print(duckdb.sql(f\"SELECT * FROM read_parquet('{f}')\").fetchall())"])
        .args(files)
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    all.push((
        "parquet tables".into(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    ));
}

/// Every output of `input`: an `--out` folder with `--per-input`, SARIF,
/// JUnit, OTLP traces and metrics, the shard tables, stdout and stderr,
/// `--json`, and the extract of every finding.
fn third_outputs(input: &Path, tag: &str, extra: &[&str]) -> Vec<(String, String)> {
    let out = out_dir(&format!("hostile3-{tag}"));
    let s = |p: &str| out.join(p).display().to_string();
    let (sarif, junit, otlp, metrics, shards) = (
        s("x.sarif"),
        s("x.junit.xml"),
        s("x.otlp.jsonl"),
        s("x.metrics.json"),
        s("shards"),
    );
    let dir = s("out");
    let inp = input.to_str().unwrap();
    let mut args = vec![inp, "--out", &dir, "--per-input", "--sarif", &sarif];
    args.extend([
        "--junit",
        &junit,
        "--otlp",
        &otlp,
        "--otlp-metrics",
        &metrics,
    ]);
    args.extend(["--shard", "host=a", "--shard-dir", &shards]);
    args.extend_from_slice(extra);
    let o = mcp_audit(&args);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{tag}: {o:?}");
    let mut all = vec![
        (
            "stdout".into(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        ),
        (
            "stderr".into(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ),
    ];
    let mut json = vec![inp, "--json"];
    json.extend_from_slice(extra);
    let j = mcp_audit(&json);
    let summary: serde_json::Value = serde_json::from_slice(&j.stdout).expect("--json");
    all.push((
        "--json".into(),
        String::from_utf8_lossy(&j.stdout).into_owned(),
    ));
    let findings = summary["findings"].as_array().map_or(0, Vec::len);
    assert!(findings > 0, "{tag}: no finding shows the evidence");
    for n in 1..=findings {
        let x = s(&format!("extract-{n}.txt"));
        let number = n.to_string();
        let mut ex = vec!["extract", inp, "--finding", &number, "--out", &x];
        ex.extend_from_slice(extra);
        let e = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
            .args(&ex)
            .output()
            .expect("run extract");
        assert!(e.status.success(), "{tag}: extract {n}: {e:?}");
    }
    let mut parquet = Vec::new();
    texts_under(&out, &mut all, &mut parquet);
    if !extra.contains(&"--no-redact") {
        parquet_rows(&parquet, &mut all);
    }
    all
}

/// Where a secret of `secrets` (whole, or its first or last 12
/// characters), or the corpus's tag, appears in `text`.
fn third_leaks(secrets: &[&str], out: &str, text: &str) -> Vec<String> {
    let mut leaks = Vec::new();
    for s in secrets {
        let mut parts = vec![*s];
        if s.len() >= 24 {
            parts.extend([&s[..12], &s[s.len() - 12..]]);
        }
        if parts.iter().any(|p| text.contains(p)) {
            leaks.push(format!("{out}: {s}"));
        }
    }
    for tag in ["Hx3", "HX3"] {
        for (i, _) in text.match_indices(tag) {
            let from = text.floor_char_boundary(i.saturating_sub(40));
            let to = text.ceil_char_boundary((i + 30).min(text.len()));
            leaks.push(format!("{out}: …{}…", &text[from..to]));
        }
    }
    leaks
}

#[test]
fn third_corpus_leaves_no_secret() {
    let dir = root().join("tests/data/hostile/third");
    let list = std::fs::read_to_string(dir.join("secrets.txt")).expect("secrets.txt");
    let secrets: Vec<&str> = list.lines().filter(|l| !l.is_empty()).collect();
    assert!(secrets.len() > 100, "the corpus lists its secrets");
    let mut leaks = Vec::new();
    for name in THIRD {
        for (out, text) in third_outputs(&dir.join(name), name, &[]) {
            leaks.extend(third_leaks(&secrets, &format!("{name} → {out}"), &text));
            // Captured markup is text in report.html, never markup.
            if out.ends_with("report.html") {
                for tag in ["<script>alert", "<svg onload", "<img src=x", "<iframe"] {
                    assert!(!text.contains(tag), "{name}: {out} holds raw {tag}");
                }
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "secrets left in outputs:\n{}",
        leaks.join("\n")
    );
}

#[test]
fn no_redact_shows_the_third_corpus_secrets() {
    let dir = root().join("tests/data/hostile/third");
    for name in THIRD {
        let all = third_outputs(&dir.join(name), &format!("{name}-raw"), &["--no-redact"]);
        let page = &all
            .iter()
            .find(|(n, _)| n.ends_with("out/report.html"))
            .expect("report.html")
            .1;
        assert!(
            page.contains("Hx3") || page.contains("HX3"),
            "{name}: --no-redact evidence should hold the captured secrets"
        );
    }
}

//! The command line as a user meets it: README.md quotes `--help` (one
//! source: the binary's own help), `--json -q`, and the one line a wrong
//! `--format` gets.
//!
//! README.md holds blocks `<!-- help: ARGS -->` … `<!-- /help -->`, each
//! the output of `mcp-audit ARGS` in a code fence (lines' trailing blanks
//! left out). `UPDATE_README=1 cargo test --release --test suite cli::`
//! rewrites them from the binary.

use std::process::Command;

use crate::common::{mcp_audit, root};

/// The opening of a help block; its arguments follow, then ` -->`.
const OPEN: &str = "<!-- help: ";
/// The end of a help block.
const CLOSE: &str = "<!-- /help -->";

/// `mcp-audit ARGS` (space-separated) on stdout, each line's trailing
/// blanks left out (clap indents the blank lines between paragraphs).
fn help(args: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .args(args.split(' '))
        .env_remove("COLUMNS")
        .output()
        .expect("run mcp-audit");
    assert_eq!(o.status.code(), Some(0), "mcp-audit {args}");
    let text = String::from_utf8(o.stdout).expect("UTF-8 help");
    text.lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

/// `readme` with every help block made anew from the binary, and the
/// arguments of the blocks in order.
fn regenerate(readme: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut args = Vec::new();
    let mut rest = readme;
    while let Some(at) = rest.find(OPEN) {
        let (before, block) = rest.split_at(at);
        out.push_str(before);
        let head_end = block
            .find(" -->")
            .expect("a help block's opening ends in -->");
        let a = &block[OPEN.len()..head_end];
        let end = block.find(CLOSE).expect("every help block is closed");
        out.push_str(&block[..head_end + 4]);
        out.push_str("\n```\n");
        out.push_str(&help(a));
        out.push_str("```\n");
        out.push_str(CLOSE);
        args.push(a.to_string());
        rest = &block[end + CLOSE.len()..];
    }
    out.push_str(rest);
    (out, args)
}

/// README.md's usage and options are the binary's `--help`, byte for byte:
/// a flag added or reworded in `src/cli.rs` fails here until the README is
/// regenerated (`UPDATE_README=1`).
#[test]
fn readme_quotes_the_help() {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let (want, args) = regenerate(&readme);
    assert_eq!(
        args,
        ["--help", "analyze --help", "extract --help", "diff --help"]
    );
    if std::env::var_os("UPDATE_README").is_some() {
        if want != readme {
            std::fs::write(&path, &want).expect("write README.md");
        }
        return;
    }
    if let Some((n, (got, exp))) = readme
        .lines()
        .zip(want.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        panic!(
            "README.md line {} is not what `mcp-audit` prints:\n  README: {got}\n  binary: {exp}\n\
             regenerate: UPDATE_README=1 cargo test --release --test suite cli::",
            n + 1
        );
    }
    assert_eq!(
        readme.lines().count(),
        want.lines().count(),
        "README.md's help blocks are not the binary's (UPDATE_README=1 regenerates them)"
    );
}

/// Every line of `--help` fits 80 columns, and the help names what a new
/// user looked for: every `--out` file, SSE, globs, compressed inputs and
/// what a folder walk leaves out.
#[test]
fn help_fits_80_columns_and_says_it_all() {
    let text = help("analyze --help");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{} chars: {line}", line.len());
    }
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "summary.json",
        "findings.csv",
        "pairs.csv",
        "batches.csv",
        "latency.csv",
        "operations.csv",
        "findings, pairs, batches, latency, sessions and operations .parquet",
        "report.html",
        "inputs/index.json",
        "raw SSE captures",
        "globs ('logs/**/*.log')",
        ".gz or .zst",
        "documents (*.md), expected-result files (*.expected.json)",
        "earlier runs' output folders",
        "`skipped`",
        "notice: …",
    ] {
        assert!(flat.contains(want), "analyze --help lacks {want:?}");
    }
}

/// `--json -q` prints the JSON (and no progress line), exit as usual:
/// `-q` quiets the summary and the progress, not the JSON asked for.
#[test]
fn json_with_quiet_prints_the_json() {
    let har = root().join("tests/data/cases/b01_batch_reordered_by_balancer.har");
    let o = mcp_audit(&[har.to_str().unwrap(), "--json", "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(s["schema_version"], 1);
    assert_eq!(s["findings_by_kind"]["out_of_order_batch"], 1);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A format that does not exist is one line naming the formats, exit 2;
/// the same for `extract` and for any flag taking one of a few words.
#[test]
fn an_unknown_format_is_one_line() {
    let o = mcp_audit(&["x.log", "--format", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "mcp-audit: --format `nope`: no such format; --format takes auto, stdio, har or sse\n"
    );
    let o = mcp_audit(&["x.log", "--fail-on", "errors"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "mcp-audit: --fail-on `errors`: no such value; --fail-on takes warning, error or never\n"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .args(["extract", "x.log", "--finding", "1", "--out", "y.log"])
        .args(["--format", "nope"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "mcp-audit extract: --format `nope`: no such format; --format takes auto, stdio, har or sse\n"
    );
}

/// A `--format` the file is not: one line naming the file, what it is and
/// the `--format` that reads it, exit 2 (not the HAR parser's byte offset,
/// nor a bare "no JSON-RPC traffic found").
#[test]
fn a_format_the_file_is_not_is_one_line() {
    let data = root().join("tests/data/cases");
    let log = data.join("b04_server_answers_every_request_with_id_zero.log");
    let har = data.join("b01_batch_reordered_by_balancer.har");
    let sse = data.join("b23_sse_crlf_line_endings.sse");
    for (file, format, line) in [
        (
            &log,
            "har",
            "--format har, but it is not a HAR document: it is a stdio line log (arrow dialect); --format stdio or auto (the default) reads it",
        ),
        (
            &sse,
            "har",
            "--format har, but it is not a HAR document: it is a raw SSE capture; --format sse or auto (the default) reads it",
        ),
        (
            &har,
            "sse",
            "--format sse, but no JSON-RPC traffic found read as a raw SSE capture: it is a HAR document; --format har or auto (the default) reads it",
        ),
        (
            &sse,
            "stdio",
            "--format stdio, but it holds no line of a stdio log dialect: it is a raw SSE capture; --format sse or auto (the default) reads it",
        ),
    ] {
        let o = mcp_audit(&[file.to_str().unwrap(), "--format", format, "-q"]);
        assert_eq!(o.status.code(), Some(2), "{format} on {}", file.display());
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("mcp-audit: {}: {line}\n", file.display())
        );
    }
}

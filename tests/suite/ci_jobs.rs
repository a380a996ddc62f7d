//! The CI and nightly jobs the README shows are the files in the
//! repository (`docs/examples/mcp-audit.yml`, `scripts/nightly-example.sh`),
//! byte for byte, and they do what the README says: the workflow's audit
//! step, read from the YAML with PyYAML and run with bash, fails on a
//! cross-wired capture and passes a healthy one, writing JUnit and SARIF
//! that their real readers accept; the nightly script, run over three
//! nights and an empty one, exits 0, 1, 0 and 2 and writes the diff.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{has_python, out_dir, root};

/// A healthy capture: the Python SDK client against its Streamable HTTP
/// server (JSON responses), no finding in its expected file.
const HEALTHY: &str = "tests/data/real/har_py-streamable-json__py-client.har";
/// A client using id 1 for every request, two calls overlapping, the
/// server's reply cross-wired: errors, and a 6800 ms tools/call.
const CROSS_WIRED: &str = "tests/data/cases/b05_constant_request_id_cross_wired.har";

/// PATH with the folder of the binary under test first, so the jobs'
/// `mcp-audit` is this build's.
fn path_with_binary() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_mcp-audit"));
    let dir = bin.parent().expect("binary folder");
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Every `<!-- file: PATH -->` block of the README: its path and the text
/// of the fenced block under it.
fn file_blocks(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = readme;
    while let Some(at) = rest.find("<!-- file: ") {
        let after = &rest[at + "<!-- file: ".len()..];
        let (path, body) = after.split_once(" -->\n").expect("marker end");
        let body = body.split_once('\n').expect("fence line").1;
        let (block, tail) = body.split_once("```\n<!-- /file -->").expect("block end");
        out.push((path.to_string(), block.to_string()));
        rest = tail;
    }
    out
}

/// The README quotes both job files whole and unchanged.
#[test]
fn readme_quotes_the_job_files_byte_for_byte() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let blocks = file_blocks(&readme);
    assert_eq!(
        blocks.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["docs/examples/mcp-audit.yml", "scripts/nightly-example.sh"]
    );
    for (path, block) in &blocks {
        let file = fs::read_to_string(root().join(path)).unwrap();
        assert_eq!(
            block, &file,
            "README's copy of {path} differs from the file"
        );
    }
}

/// The workflow's "Audit MCP traffic" step, as bash will run it.
fn audit_step() -> Option<String> {
    if !has_python("the_workflow_audit_step", &["yaml"], "pyyaml") {
        return None;
    }
    let o = Command::new("python3")
        .args([
            "-c",
            "import sys, yaml\n\
             wf = yaml.safe_load(open(sys.argv[1]))\n\
             steps = [s for s in wf['jobs']['audit']['steps'] if s.get('name') == 'Audit MCP traffic']\n\
             print(steps[0]['run'], end='')",
        ])
        .arg(root().join("docs/examples/mcp-audit.yml"))
        .output()
        .expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8(o.stdout).unwrap())
}

/// Runs `script` with bash in `dir`, this build's mcp-audit on PATH.
fn bash(dir: &Path, script: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("job")
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_binary())
        .output()
        .expect("bash")
}

/// Copies the checkout's `files` into folder `to` (made if missing).
fn copy_into(to: &Path, files: &[&str]) {
    fs::create_dir_all(to).unwrap();
    for f in files {
        let p = root().join(f);
        fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
}

/// A work folder whose `captures/` holds copies of `files`.
fn captures(name: &str, files: &[&str]) -> PathBuf {
    let dir = out_dir(name);
    copy_into(&dir.join("captures"), files);
    dir
}

/// junit.xml and mcp-audit.sarif of an audit step, read by junitparser and
/// validated against the SARIF 2.1.0 schema (`tests/suite/ci_read.py`).
fn read_reports(dir: &Path) -> Value {
    let r = Command::new("python3")
        .arg(root().join("tests/suite/ci_read.py"))
        .arg(dir.join("audit/junit.xml"))
        .arg(dir.join("audit/mcp-audit.sarif"))
        .arg(root().join("tests/data/schemas/sarif-2.1.0-rtm.5.json"))
        .output()
        .expect("python3");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    serde_json::from_slice(&r.stdout).unwrap()
}

/// The audit step fails the job on the cross-wired capture (exit 1, the
/// failing JUnit cases are its error kinds) and passes the healthy one
/// (exit 0, no failure); both runs write every file the later steps
/// upload.
#[test]
fn the_workflow_audit_step_fails_a_fault_and_passes_health() {
    let Some(step) = audit_step() else { return };
    if !has_python(
        "the_workflow_audit_step",
        &["junitparser", "jsonschema"],
        "junitparser jsonschema",
    ) {
        return;
    }
    let bad = captures("ci_job_bad", &[CROSS_WIRED]);
    let o = bash(&bad, &step, &[]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for f in [
        "summary.json",
        "junit.xml",
        "mcp-audit.sarif",
        "traces.jsonl",
        "metrics.json",
    ] {
        assert!(bad.join("audit").join(f).is_file(), "audit/{f} missing");
    }
    let read = read_reports(&bad);
    let mut failed: Vec<&str> = read["junit"]["suites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(crate::ci_reports::failed_cases)
        .collect();
    failed.sort_unstable();
    failed.dedup();
    // tests/data/cases/b05…expected.json: the two overlapping tools/call
    // with id 1 (entries 3 and 4) give duplicate_id, and entry 3's, left
    // unanswered, missing_response and stream_closed_before_response
    // (errors; its id_reused findings are warnings, which pass
    // --fail-on error); the cross-wired reply came 6800 ms after entry 4's
    // request, over the 2 s tools/call budget.
    assert_eq!(
        failed,
        [
            "duplicate_id",
            "fail-on-kind duplicate_id",
            "max-latency tools/call p99 <= 2000 ms",
            "missing_response",
            "stream_closed_before_response"
        ]
    );
    assert_eq!(read["sarif"]["valid"], true);

    let good = captures("ci_job_good", &[HEALTHY]);
    let o = bash(&good, &step, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let read = read_reports(&good);
    assert_eq!(read["junit"]["failures"], 0);
    assert_eq!(read["sarif"]["results"], serde_json::json!([]));
}

/// Three nights and an empty one through `scripts/nightly-example.sh`:
/// the first has nothing to compare (exit 0, a line on stderr, no
/// diff.md); the second adds the cross-wired capture, so its error kinds
/// went up (exit 1, diff.md says REGRESSION and lists them); the third is
/// the second again (exit 0, "no regression"); a night whose folder holds
/// no traffic exits 2, and so does OUT given as LOGS, saying why.
#[test]
fn the_nightly_script_fails_on_a_regression_only() {
    let work = out_dir("nightly_job");
    let (logs, out) = (work.join("logs"), work.join("night"));
    let nights: [(&str, &[&str]); 3] = [
        ("2026-11-29", &[HEALTHY]),
        ("2026-11-30", &[HEALTHY, CROSS_WIRED]),
        ("2026-12-01", &[HEALTHY, CROSS_WIRED]),
    ];
    for (day, files) in nights {
        copy_into(&logs.join(day), files);
    }
    fs::create_dir_all(logs.join("2026-12-02")).unwrap();
    fs::write(logs.join("2026-12-02/app.log"), "server started\n").unwrap();
    let script = root().join("scripts/nightly-example.sh");
    let run = |day: &str| {
        let o = Command::new("bash")
            .arg(&script)
            .args([logs.to_str().unwrap(), out.to_str().unwrap(), day])
            .env("PATH", path_with_binary())
            .output()
            .expect("bash");
        let diff = fs::read_to_string(out.join(day).join("diff.md")).ok();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
            diff,
        )
    };

    let (code, stderr, diff) = run("2026-11-29");
    assert_eq!((code, diff), (Some(0), None), "{stderr}");
    assert!(
        stderr.contains("nightly: no run for 2026-11-28"),
        "{stderr}"
    );

    let (code, stderr, diff) = run("2026-11-30");
    assert_eq!(code, Some(1), "{stderr}");
    let diff = diff.expect("diff.md");
    assert!(
        diff.starts_with("## mcp-audit diff: REGRESSION\n\n"),
        "{diff}"
    );
    assert!(diff.contains("| `duplicate_id` | error | 0 | "), "{diff}");
    assert!(
        diff.contains("- inputs added (1): ./b05_constant_request_id_cross_wired.har\n"),
        "{diff}"
    );

    let (code, stderr, diff) = run("2026-12-01");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        diff.expect("diff.md")
            .starts_with("## mcp-audit diff: no regression\n")
    );

    let (code, stderr, _) = run("2026-12-02");
    assert_eq!(code, Some(2), "{stderr}");

    let o = Command::new("bash")
        .arg(&script)
        .args([logs.to_str().unwrap(), logs.to_str().unwrap(), "2026-12-01"])
        .env("PATH", path_with_binary())
        .output()
        .expect("bash");
    assert_eq!(
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned()
        ),
        (
            Some(2),
            format!(
                "nightly: OUT/2026-12-01 is LOGS/2026-12-01 ({}/2026-12-01): the outputs would be written among the captures; give an OUT outside LOGS/2026-12-01\n",
                logs.canonicalize().unwrap().display()
            )
        )
    );
}

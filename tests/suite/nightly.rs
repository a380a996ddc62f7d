//! Nightly batch mode and shards (issue 5, "scale") through the real
//! binary: `--per-input` summaries that add up exactly to the run, the
//! Hive-partitioned layout of `--shard`/`--shard-dir` read back by DuckDB
//! with its partition columns, one-line errors for bad `--shard` values,
//! and no progress output when stderr is not a terminal.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{has_duckdb, mcp_audit, mcp_audit_ok, out_dir, root};
use serde_json::Value;

/// stderr without the lines that name what a folder walk skipped
/// (tests/data/cases holds a README and expected files).
fn skip_free(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| !l.contains(": skipped: ") && !l.contains(": skipped 25 files, each "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

const COUNTS: [&str; 11] = [
    "messages",
    "requests",
    "notifications",
    "responses",
    "batches",
    "sessions",
    "pairs",
    "non_json_lines",
    "frames",
    "sse_replays",
    "other_lines",
];

fn totals(v: &Value) -> Vec<u64> {
    COUNTS
        .iter()
        .map(|k| v[*k].as_u64().unwrap_or_else(|| panic!("totals.{k}")))
        .collect()
}

#[test]
fn per_input_summaries_add_up_to_the_run() {
    let out = out_dir("nightly_per_input");
    let cases = root().join("tests/data/cases");
    let o = mcp_audit(&[
        cases.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--per-input",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        skip_free(&o.stderr),
        "",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty(), "-q prints nothing on stdout");
    let run = read_json(&out.join("summary.json"));
    // The folder's README and expected files are named as skipped.
    assert_eq!(run["skipped"].as_array().unwrap().len(), 26);
    let index = read_json(&out.join("inputs/index.json"));
    let inputs = index["inputs"].as_array().unwrap();
    let n = run["inputs"].as_array().unwrap().len();
    assert_eq!(inputs.len(), n, "one index row per input");
    assert_eq!(index["fail_on"], "error");

    let mut sum = vec![0u64; COUNTS.len()];
    let mut by_kind = std::collections::BTreeMap::<String, u64>::new();
    let (mut findings, mut latencies, mut failing) = (0u64, 0u64, 0usize);
    for (i, row) in inputs.iter().enumerate() {
        assert_eq!(row["input"], i);
        assert_eq!(row["file"], run["inputs"][i]["file"]);
        let rel = row["summary"].as_str().unwrap();
        let stem = Path::new(run["inputs"][i]["file"].as_str().unwrap())
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(rel, format!("inputs/{i:04}-{stem}/summary.json"));
        let s = read_json(&out.join(rel));
        assert_eq!(s["schema_version"], 1);
        assert_eq!(s["inputs"].as_array().unwrap().len(), 1);
        assert_eq!(s["inputs"][0], run["inputs"][i], "input {i}");
        assert_eq!(s["totals"], row["totals"], "index and summary agree");
        for (acc, x) in sum.iter_mut().zip(totals(&s["totals"])) {
            *acc += x;
        }
        for (k, v) in s["findings_by_kind"].as_object().unwrap() {
            *by_kind.entry(k.clone()).or_default() += v.as_u64().unwrap();
        }
        let fs = s["findings"].as_array().unwrap();
        assert_eq!(row["findings"], fs.len());
        findings += fs.len() as u64;
        for f in fs {
            assert_eq!(
                f["file"], run["inputs"][i]["file"],
                "findings name their input"
            );
        }
        // Every session of the input, none of another.
        assert_eq!(
            s["sessions"].as_array().unwrap().len() as u64,
            run["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| x["file"] == run["inputs"][i]["file"])
                .count() as u64
        );
        latencies += s["latency_ms"]["count"].as_u64().unwrap();
        let worst = row["worst_severity"].as_str();
        let exit = row["exit"].as_u64().unwrap();
        assert_eq!(exit, u64::from(worst == Some("error")), "{row}");
        failing += (exit == 1) as usize;
    }
    assert_eq!(sum, totals(&run["totals"]), "totals add up exactly");
    let run_kinds: std::collections::BTreeMap<String, u64> = run["findings_by_kind"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(by_kind, run_kinds, "findings per kind add up exactly");
    assert_eq!(findings, run["findings"].as_array().unwrap().len() as u64);
    assert_eq!(latencies, run["latency_ms"]["count"].as_u64().unwrap());
    // The exact figures of tests/data/cases (25 inputs), so a change that
    // moves them is seen here.
    assert_eq!(
        (
            n, sum[1], sum[3], sum[2], sum[6], findings, latencies, failing
        ),
        // 67 findings since issue 12: b09's unknown_progress_token, b11's
        // single_request_answered_with_batch.
        (25, 58, 58, 31, 43, 67, 38, 14),
        "inputs, requests, responses, notifications, pairs, findings, latencies, failing inputs"
    );
}

const TABLES: [&str; 5] = ["findings", "pairs", "batches", "latency", "sessions"];

/// Two shards into one folder, read back by DuckDB with hive partitioning:
/// the partition columns come from the paths (not the files), and each
/// partition's counts equal its run's summary.json.
#[test]
fn shards_are_hive_partitioned_and_read_by_duckdb() {
    let base = out_dir("nightly_shards");
    let shards = base.join("shards");
    let runs = [
        (
            "date=2026-11-30,host=web1",
            "tests/data/cases/b04_server_answers_every_request_with_id_zero.log",
        ),
        (
            "date=2026-11-30,host=web2",
            "tests/data/real/har_ts-streamable-sse__raw-batches.har",
        ),
        (
            "date=2026-12-01,host=web1",
            "tests/data/cases/b01_batch_reordered_by_balancer.har",
        ),
    ];
    let mut expected = Vec::new();
    for (spec, input) in runs {
        let out = base.join(spec.replace([',', '='], "_"));
        mcp_audit_ok(&[
            root().join(input).to_str().unwrap(),
            "--shard",
            spec,
            "--shard-dir",
            shards.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        let folders: Vec<String> = spec.split(',').map(str::to_string).collect();
        for t in TABLES {
            let mut p = shards.join(t);
            for f in &folders {
                p.push(f);
            }
            let part = p.join("part-00000.parquet");
            assert!(part.is_file(), "{} missing", part.display());
            // Nothing else is left there (the temporary file was renamed).
            assert_eq!(std::fs::read_dir(&p).unwrap().count(), 1, "{}", p.display());
            // Same bytes as the run's own table in --out.
            assert_eq!(
                std::fs::read(&part).unwrap(),
                std::fs::read(out.join(format!("{t}.parquet"))).unwrap(),
                "{spec} {t}"
            );
        }
        let s = read_json(&out.join("summary.json"));
        let (date, host) = (&folders[0][5..], &folders[1][5..]);
        expected.push(format!(
            "{date} {host} {} {} {}",
            s["totals"]["requests"],
            s["totals"]["pairs"],
            s["findings"].as_array().unwrap().len()
        ));
    }
    // A repeated shard run replaces its part instead of adding one.
    mcp_audit_ok(&[
        root().join(runs[0].1).to_str().unwrap(),
        "--shard",
        runs[0].0,
        "--shard-dir",
        shards.to_str().unwrap(),
        "-q",
    ]);
    if !has_duckdb("shards_are_hive_partitioned_and_read_by_duckdb") {
        return;
    }
    let script = r#"
import sys, duckdb
root = sys.argv[1]
con = duckdb.connect()
def t(name):
    return f"read_parquet('{root}/{name}/**/*.parquet', hive_partitioning = true)"
# Partition columns are not inside the files.
plain = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{root}/pairs/**/*.parquet', hive_partitioning = false)").fetchall()]
assert 'date' not in plain and 'host' not in plain, plain
cols = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {t('sessions')}").fetchall()}
print('types', cols['date'], cols['host'])
rows = con.execute(f"""
  SELECT CAST(s.date AS VARCHAR), s.host, s.requests, s.pairs, coalesce(f.n, 0)
  FROM (SELECT date, host, sum(requests) AS requests, sum(pairs) AS pairs FROM {t('sessions')} GROUP BY ALL) s
  LEFT JOIN (SELECT date, host, count(*) AS n FROM {t('findings')} GROUP BY ALL) f USING (date, host)
  ORDER BY 1, 2""").fetchall()
for r in rows:
    print(' '.join(str(x) for x in r))
files = con.execute(f"SELECT count(*) FROM glob('{root}/*/**/*.parquet')").fetchone()[0]
print('files', files)
"#;
    let o = Command::new("python3")
        .args(["-c", script, shards.to_str().unwrap()])
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("types DATE VARCHAR"));
    expected.sort();
    let mut got: Vec<String> = lines
        .by_ref()
        .take(expected.len())
        .map(String::from)
        .collect();
    got.sort();
    assert_eq!(got, expected);
    assert_eq!(lines.next(), Some("files 18"), "6 tables × 3 partitions");
}

/// The folder layout does not depend on the order the keys are given in:
/// levels are the keys in name order (reports/SCHEMA.md "Shards"); a
/// folder already laid out otherwise is refused before anything is read.
#[test]
fn shard_keys_in_any_order_write_one_layout() {
    let input = root().join("tests/data/cases/b04_server_answers_every_request_with_id_zero.log");
    let base = out_dir("nightly_shard_order");
    let shards = base.join("shards");
    for spec in [
        "host=web1,date=2026-11-30",
        "date=2026-11-30,host=web1",
        "host=web1, date=2026-11-30",
    ] {
        mcp_audit_ok(&[
            input.to_str().unwrap(),
            "--shard",
            spec,
            "--shard-dir",
            shards.to_str().unwrap(),
            "-q",
        ]);
    }
    let mut tables: Vec<String> = std::fs::read_dir(&shards)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    tables.sort();
    assert_eq!(
        tables,
        [
            "batches",
            "findings",
            "latency",
            "operations",
            "pairs",
            "sessions"
        ]
    );
    for t in &tables {
        // One folder per level, the part at date=…/host=….
        let level1: Vec<_> = std::fs::read_dir(shards.join(t))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(level1, ["date=2026-11-30"], "{t}");
        let leaf = shards.join(t).join("date=2026-11-30/host=web1");
        let files: Vec<_> = std::fs::read_dir(&leaf)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(files, ["part-00000.parquet"], "{t}");
    }
    // A folder an older run laid out host first: refused, one line, exit 2,
    // nothing written.
    let old = base.join("old");
    std::fs::create_dir_all(old.join("pairs/host=web1/date=2026-11-29")).unwrap();
    let o = mcp_audit(&[
        input.to_str().unwrap(),
        "--shard",
        "host=web1,date=2026-11-30",
        "--shard-dir",
        old.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [format!(
            "mcp-audit: --shard-dir {}: {} holds a partition folder host=web1 where --shard date=2026-11-30,host=web1 puts date=… folders (levels are the keys in name order: date, host); an engine cannot read two layouts as one table: move the other shards' folders or use another --shard-dir",
            old.display(),
            old.join("pairs").display()
        )]
    );
    assert!(!old.join("sessions").exists() && !old.join("pairs/date=2026-11-30").exists());
}

#[test]
fn bad_shard_values_are_one_line_and_exit_2() {
    let input = root().join("tests/data/cases/b04_server_answers_every_request_with_id_zero.log");
    let base = out_dir("nightly_bad_shards");
    let dir = base.join("shards");
    let dir_s = dir.to_str().unwrap();
    for (args, want) in [
        (
            vec!["--shard", "host=../etc", "--shard-dir", dir_s],
            "mcp-audit: --shard: value `../etc` of host must be ASCII letters, digits, '.', '_' or '-', not starting with '.' (at most 64)",
        ),
        (
            vec!["--shard", "host=a/b", "--shard-dir", dir_s],
            "mcp-audit: --shard: value `a/b` of host must be ASCII letters, digits, '.', '_' or '-', not starting with '.' (at most 64)",
        ),
        (
            vec!["--shard", "Host=web1", "--shard-dir", dir_s],
            "mcp-audit: --shard: key `Host` must be a lower-case letter then letters, digits or '_' (at most 64)",
        ),
        (
            vec!["--shard", "web1", "--shard-dir", dir_s],
            "mcp-audit: --shard: `web1` is not key=value",
        ),
        (
            vec!["--shard", "host=a,host=b", "--shard-dir", dir_s],
            "mcp-audit: --shard: key `host` given twice",
        ),
        (
            vec!["--shard", "session=a", "--shard-dir", dir_s],
            "mcp-audit: --shard: key `session` is a column of the findings table; choose another name",
        ),
        (
            vec!["--shard", "", "--shard-dir", dir_s],
            "mcp-audit: --shard is empty (give key=value pairs, e.g. date=2026-11-30,host=web1)",
        ),
        (
            vec!["--shard", "host=web1"],
            "mcp-audit: --shard needs --shard-dir (the shared folder of the shards)",
        ),
        (
            vec!["--shard-dir", dir_s],
            "mcp-audit: --shard-dir needs --shard (this run's partition, e.g. date=2026-11-30,host=web1)",
        ),
    ] {
        let mut all = vec![input.to_str().unwrap()];
        all.extend(args.iter().copied());
        all.push("-q");
        let o = mcp_audit(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().collect::<Vec<_>>(), vec![want], "{args:?}");
        assert!(!dir.exists(), "{args:?}: nothing written");
    }
}

/// Progress is drawn only on a terminal: with stderr a pipe, a run over
/// many inputs whose inputs are all readable prints nothing at all on
/// stderr, and stdout holds summary.json alone.
#[test]
fn no_progress_when_stderr_is_not_a_terminal() {
    let input = root().join("tests/data/cases");
    let o = mcp_audit(&[input.to_str().unwrap(), "--json", "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0));
    // Only the two lines naming what the walk left out (README.md and the
    // expected files), no progress.
    assert_eq!(
        skip_free(&o.stderr),
        "",
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 2);
    let v: Value = serde_json::from_slice(&o.stdout).expect("stdout is summary.json alone");
    assert!(v["totals"]["messages"].as_u64().unwrap() > 0);
}

//! `mcp-audit diff OLD NEW`: what changed between two runs, for a nightly
//! job that fails on a regression rather than on old noise. OLD and NEW
//! are `--out` folders (their `summary.json` and, when there,
//! `latency.csv`), `summary.json` files, or Hive shard folders
//! (`--shard-dir`; [`read_side_of`]). Compared: findings per kind
//! (new kinds, counts up or down), sessions and inputs added or gone, and
//! latency p50/p99 per method (the whole run as `*`; per method only where
//! both sides have a `latency.csv`). A regression, which makes the exit
//! code 1, is a kind whose warning or error findings went up in number,
//! each finding judged by the severity its run gave it (a capture gap's
//! `info` or the traffic's never counts), or a p99 that grew by more than
//! `--p99-regression` (default 20 %).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

use crate::analyze::{FindingKind, Severity};

/// What one side of a diff holds.
#[derive(Debug, Default, Clone)]
pub struct Side {
    /// Findings per kind and severity, as the run rated each finding
    /// (`summary.json` `findings[].severity`, the `severity` column of a
    /// shard's findings): a kind's `info` findings (a capture gap, a
    /// long-running operation with progress) apart from its warnings.
    pub kinds: BTreeMap<(String, String), u64>,
    /// Session names (with their file, `file: name`).
    pub sessions: BTreeSet<String>,
    /// Input files.
    pub inputs: BTreeSet<String>,
    /// Latency (p50, p99) in ms per method, `*` for the whole run.
    pub latency: BTreeMap<String, (f64, f64)>,
    /// How many latencies each of those quantiles is over.
    pub counts: BTreeMap<String, u64>,
}

/// Reads a side: a folder with `summary.json` (and `latency.csv`), or a
/// `summary.json` file.
///
/// # Errors
/// The file cannot be read or is not a summary.json of schema version 1.
pub fn read_side(path: &Path) -> Result<Side> {
    read_side_of(path, &[])
}

/// [`read_side`], or a Hive shard folder (`--shard-dir`: `findings/`,
/// `pairs/` and `sessions/` holding `KEY=VALUE/…/part-00000.parquet`, no
/// `summary.json`) restricted to the partitions `only` names
/// (`KEY=VALUE`; none: every part). Of a shard folder, findings per kind
/// are the `findings` rows, latency p50/p99 per method (and `*`) the exact
/// nearest rank over the `pairs` rows whose latency is known and status
/// not `cancelled` (the latencies rule 10 counts), sessions the `sessions`
/// rows and inputs their files, each named after its partition without
/// the keys of `only` (`host=web1: logs/a.log: s1`), so that two days
/// of one fleet compare host by host.
///
/// # Errors
/// A side that cannot be read, a shard folder with no part, or a
/// partition filter given for a folder that is no shard folder.
pub fn read_side_of(path: &Path, only: &[(String, String)]) -> Result<Side> {
    if path.is_dir() && !path.join("summary.json").exists() && path.join("findings").is_dir() {
        return read_shards(path, only);
    }
    if !only.is_empty() {
        bail!(
            "{}: a partition is chosen only in a shard folder (--shard-dir: findings/, pairs/, sessions/)",
            path.display()
        );
    }
    let (summary, csv): (PathBuf, Option<PathBuf>) = if path.is_dir() {
        (path.join("summary.json"), Some(path.join("latency.csv")))
    } else {
        (path.to_path_buf(), None)
    };
    let text = std::fs::read_to_string(&summary)
        .with_context(|| format!("reading {}", summary.display()))?;
    let v: Value = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a summary.json (diff compares two `analyze --out` folders, their summary.json files, or two --shard-dir folders; a capture is analysed first)",
            summary.display()
        )
    })?;
    if v["schema_version"] != 1 {
        bail!(
            "{}: not an mcp-audit summary.json (schema_version 1)",
            summary.display()
        );
    }
    let mut side = Side {
        kinds: kinds_of_summary(&v),
        ..Side::default()
    };
    for s in v["sessions"].as_array().into_iter().flatten() {
        let name = s["name"].as_str().unwrap_or("");
        let file = s["file"].as_str().unwrap_or("");
        side.sessions.insert(if name == file {
            name.to_string()
        } else {
            format!("{file}: {name}")
        });
    }
    for i in v["inputs"].as_array().into_iter().flatten() {
        if let Some(f) = i["file"].as_str() {
            side.inputs.insert(f.to_string());
        }
    }
    let l = &v["latency_ms"];
    if let (Some(p50), Some(p99)) = (l["p50"].as_f64(), l["p99"].as_f64()) {
        side.latency.insert("*".into(), (p50, p99));
        side.counts
            .insert("*".into(), l["count"].as_u64().unwrap_or(0));
    }
    if let Some(csv) = csv.filter(|c| c.exists()) {
        let text =
            std::fs::read_to_string(&csv).with_context(|| format!("reading {}", csv.display()))?;
        read_latency_csv(&text, &mut side.latency, &mut side.counts)
            .with_context(|| format!("{}: not an mcp-audit latency.csv", csv.display()))?;
    }
    Ok(side)
}

/// Findings per kind and severity of a `summary.json`: each of
/// `findings` by its own `severity`; what `findings_by_kind` counts
/// beyond them (a summary that lists fewer) at the kind's catalogue
/// severity (`unknown` for a kind this build does not know).
fn kinds_of_summary(v: &Value) -> BTreeMap<(String, String), u64> {
    let mut kinds: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut listed: BTreeMap<&str, u64> = BTreeMap::new();
    for f in v["findings"].as_array().into_iter().flatten() {
        let (Some(k), Some(sev)) = (f["kind"].as_str(), f["severity"].as_str()) else {
            continue;
        };
        *kinds.entry((k.to_string(), sev.to_string())).or_insert(0) += 1;
        *listed.entry(k).or_insert(0) += 1;
    }
    for (k, n) in v["findings_by_kind"].as_object().into_iter().flatten() {
        let rest = n
            .as_u64()
            .unwrap_or(0)
            .saturating_sub(listed.get(k.as_str()).copied().unwrap_or(0));
        if rest > 0 {
            let sev = FindingKind::from_name(k).map_or("unknown", |f| f.severity().as_str());
            *kinds.entry((k.clone(), sev.to_string())).or_insert(0) += rest;
        }
    }
    kinds
}

/// Parses `KEY=VALUE,KEY=VALUE` (`--old-partition`, `--new-partition`).
///
/// # Errors
/// A pair without `=` or with an empty key or value.
pub fn parse_partition(text: &str) -> std::result::Result<Partition, String> {
    text.split(',')
        .map(|kv| match kv.trim().split_once('=') {
            Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(format!(
                "`{text}`: a partition is KEY=VALUE pairs, comma-separated (e.g. date=2026-11-30)"
            )),
        })
        .collect()
}

/// A part's partition: its `KEY=VALUE` folders, outermost first.
pub type Partition = Vec<(String, String)>;

/// The `part-*.parquet` files under `dir` (hidden temporary files left
/// out), each with its partition (`KEY=VALUE` folders), sorted.
fn parts(dir: &Path) -> Result<Vec<(Partition, PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), Vec::new())];
    while let Some((d, part)) = stack.pop() {
        let entries = std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?;
        for e in entries {
            let e = e.with_context(|| format!("reading {}", d.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let p = e.path();
            let ft = e
                .file_type()
                .with_context(|| format!("reading {}", p.display()))?;
            if ft.is_dir() {
                if let Some((k, v)) = name.split_once('=') {
                    let mut next: Partition = part.clone();
                    next.push((k.to_string(), v.to_string()));
                    stack.push((p, next));
                }
            } else if name.ends_with(".parquet") {
                out.push((part.clone(), p));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

/// One table of a shard folder: per part in `only`, its partition name
/// (the keys of `only` left out) and its frame.
fn shard_table(
    root: &Path,
    table: &str,
    only: &[(String, String)],
) -> Result<Vec<(String, polars::prelude::DataFrame)>> {
    use polars::prelude::{ParquetReader, SerReader};
    let dir = root.join(table);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (part, file) in parts(&dir)? {
        if !only.iter().all(|o| part.contains(o)) {
            continue;
        }
        let f =
            std::fs::File::open(&file).with_context(|| format!("reading {}", file.display()))?;
        let df = ParquetReader::new(f)
            .finish()
            .with_context(|| format!("{}: not a readable Parquet file", file.display()))?;
        let name = part
            .iter()
            .filter(|kv| !only.contains(kv))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("/");
        out.push((name, df));
    }
    Ok(out)
}

/// A string column's values (nulls as `None`).
fn strings(df: &polars::prelude::DataFrame, col: &str) -> Result<Vec<Option<String>>> {
    Ok(df
        .column(col)
        .with_context(|| format!("no `{col}` column"))?
        .str()
        .with_context(|| format!("`{col}` is not a string column"))?
        .iter()
        .map(|v| v.map(str::to_string))
        .collect())
}

/// A side read from a shard folder (see [`read_side_of`]).
fn read_shards(root: &Path, only: &[(String, String)]) -> Result<Side> {
    let mut side = Side::default();
    let named = |part: &str, s: &str| {
        if part.is_empty() {
            s.to_string()
        } else {
            format!("{part}: {s}")
        }
    };
    let findings = shard_table(root, "findings", only)?;
    let sessions = shard_table(root, "sessions", only)?;
    let pairs = shard_table(root, "pairs", only)?;
    if findings.is_empty() && sessions.is_empty() && pairs.is_empty() {
        bail!(
            "{}: no shard part{} (findings/, pairs/, sessions/ hold none)",
            root.display(),
            if only.is_empty() {
                String::new()
            } else {
                format!(
                    " in partition {}",
                    only.iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            }
        );
    }
    for (_, df) in &findings {
        let severities = strings(df, "severity")?;
        for (k, sev) in strings(df, "kind")?.into_iter().zip(severities) {
            let (Some(k), Some(sev)) = (k, sev) else {
                continue;
            };
            *side.kinds.entry((k, sev)).or_insert(0) += 1;
        }
    }
    for (part, df) in &sessions {
        let names = strings(df, "session")?;
        let files = strings(df, "file")?;
        for (n, f) in names.into_iter().zip(files) {
            let (n, f) = (n.unwrap_or_default(), f.unwrap_or_default());
            side.sessions.insert(named(
                part,
                &if n == f {
                    n.clone()
                } else {
                    format!("{f}: {n}")
                },
            ));
            side.inputs.insert(named(part, &f));
        }
    }
    let mut by_method: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (_, df) in &pairs {
        let methods = strings(df, "method")?;
        let status = strings(df, "status")?;
        let lat = df
            .column("latency_ms")
            .context("no `latency_ms` column")?
            .f64()
            .context("`latency_ms` is not a float column")?;
        for ((m, st), l) in methods.into_iter().zip(status).zip(lat.iter()) {
            if let (Some(l), false) = (l, st.as_deref() == Some("cancelled")) {
                by_method.entry(m.unwrap_or_default()).or_default().push(l);
                by_method.entry("*".into()).or_default().push(l);
            }
        }
    }
    for (m, mut v) in by_method {
        v.sort_by(f64::total_cmp);
        let rank = |permille: usize| v[(permille * v.len()).div_ceil(1000).max(1) - 1];
        side.latency.insert(m.clone(), (rank(500), rank(990)));
        side.counts.insert(m, v.len() as u64);
    }
    Ok(side)
}

/// The `dimension=method` rows of `latency.csv` (methods never hold a
/// comma or quote there: the table escapes nothing else it needs).
fn read_latency_csv(
    text: &str,
    out: &mut BTreeMap<String, (f64, f64)>,
    counts: &mut BTreeMap<String, u64>,
) -> Result<()> {
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name);
    let (Some(dim), Some(method), Some(p50), Some(p99), Some(count)) = (
        col("dimension"),
        col("method"),
        col("p50_ms"),
        col("p99_ms"),
        col("count"),
    ) else {
        bail!("no dimension, method, count, p50_ms, p99_ms columns");
    };
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.get(dim) != Some(&"method") || cells.len() != head.len() {
            continue;
        }
        if let (Ok(a), Ok(b)) = (cells[p50].parse(), cells[p99].parse()) {
            let m = cells[method].trim_matches('"').to_string();
            counts.insert(m.clone(), cells[count].parse().unwrap_or(0));
            out.insert(m, (a, b));
        }
    }
    Ok(())
}

/// One kind and severity whose count changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindChange {
    /// The kind.
    pub kind: String,
    /// The severity these findings of the kind have, as the runs rated
    /// each (`info` where a capture gap or the traffic explains it; the
    /// catalogue's, or `unknown` for a kind this build does not know,
    /// where a summary counts findings it does not list).
    pub severity: String,
    /// Count in OLD.
    pub old: u64,
    /// Count in NEW.
    pub new: u64,
    /// Warning or error findings (or of an unknown severity) that went up.
    pub regression: bool,
}

/// One method whose latency changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyChange {
    /// The method (`*` the whole run).
    pub method: String,
    /// OLD p50, p99 (ms).
    pub old: (f64, f64),
    /// NEW p50, p99 (ms).
    pub new: (f64, f64),
    /// p99 change, percent of OLD's.
    pub p99_change_pct: f64,
    /// Latencies OLD's and NEW's quantiles are over.
    pub counts: (u64, u64),
    /// Beyond the threshold.
    pub regression: bool,
}

/// The diff (`--json` output).
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    /// Kinds whose count changed, catalogue order by name.
    pub kinds: Vec<KindChange>,
    /// Sessions in NEW only.
    pub sessions_added: Vec<String>,
    /// Sessions in OLD only.
    pub sessions_gone: Vec<String>,
    /// Inputs in NEW only.
    pub inputs_added: Vec<String>,
    /// Inputs in OLD only.
    pub inputs_gone: Vec<String>,
    /// The two sides' input folders (OLD's, NEW's) when some inputs or
    /// sessions were matched by their names under them: the same names
    /// under `/logs/2026-12-01/` and `/logs/2026-12-02/` are the same
    /// inputs, not all added and all gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_under: Option<(String, String)>,
    /// Methods on both sides whose p50 or p99 changed.
    pub latency: Vec<LatencyChange>,
    /// The p99 threshold (percent).
    pub p99_regression_pct: f64,
    /// Latencies each side needs for its p99 change to be judged.
    pub min_latencies: u64,
    /// Whether anything above is a regression (exit 1).
    pub regression: bool,
}

/// Compares two sides; `p99_pct` is the p99 growth (percent) that counts
/// as a regression.
pub fn compare(old: &Side, new: &Side, p99_pct: f64, min_latencies: u64) -> Diff {
    let names: BTreeSet<&(String, String)> = old.kinds.keys().chain(new.kinds.keys()).collect();
    let mut kinds: Vec<KindChange> = names
        .into_iter()
        .filter_map(|key| {
            let (o, n) = (
                old.kinds.get(key).copied().unwrap_or(0),
                new.kinds.get(key).copied().unwrap_or(0),
            );
            let (kind, severity) = key.clone();
            // Each finding counts at its own severity: info never
            // regresses; a severity this build cannot read does.
            let counts = severity != Severity::Info.as_str();
            (o != n).then_some(KindChange {
                kind,
                severity,
                old: o,
                new: n,
                regression: n > o && counts,
            })
        })
        .collect();
    kinds.sort_by_key(|k| (k.kind.clone(), severity_rank(&k.severity)));
    let latency: Vec<LatencyChange> = old
        .latency
        .iter()
        .filter_map(|(m, &o)| {
            let &n = new.latency.get(m)?;
            if o == n {
                return None;
            }
            let pct = if o.1 > 0.0 {
                (n.1 - o.1) / o.1 * 100.0
            } else if n.1 > 0.0 {
                f64::INFINITY
            } else {
                0.0
            };
            let counts = (
                old.counts.get(m).copied().unwrap_or(0),
                new.counts.get(m).copied().unwrap_or(0),
            );
            // A p99 over a few latencies is one call: shown, not judged.
            let judged = counts.0.min(counts.1) >= min_latencies;
            Some(LatencyChange {
                method: m.clone(),
                old: o,
                new: n,
                p99_change_pct: (pct * 10.0).round() / 10.0,
                counts,
                regression: judged && pct > p99_pct,
            })
        })
        .collect();
    let folders = (common_folder(&old.inputs), common_folder(&new.inputs));
    let (o, n) = (folders.0.as_str(), folders.1.as_str());
    let (inputs_added, in_rel) = only(&new.inputs, n, &old.inputs, o);
    let (inputs_gone, _) = only(&old.inputs, o, &new.inputs, n);
    let (sessions_added, s_rel) = only(&new.sessions, n, &old.sessions, o);
    let (sessions_gone, _) = only(&old.sessions, o, &new.sessions, n);
    let regression = kinds.iter().any(|k| k.regression) || latency.iter().any(|l| l.regression);
    Diff {
        kinds,
        sessions_added,
        sessions_gone,
        inputs_added,
        inputs_gone,
        matched_under: (in_rel || s_rel).then_some(folders),
        latency,
        p99_regression_pct: p99_pct,
        min_latencies,
        regression,
    }
}

/// Rows of one kind in order error, warning, info (then any other word).
fn severity_rank(severity: &str) -> u8 {
    [Severity::Error, Severity::Warning, Severity::Info]
        .iter()
        .position(|s| s.as_str() == severity)
        .map_or(3, |i| i as u8)
}

/// The folder (ending in `/`) that holds every one of `inputs`, or `""`.
fn common_folder(inputs: &BTreeSet<String>) -> String {
    let (Some(first), Some(last)) = (inputs.first(), inputs.last()) else {
        return String::new();
    };
    // In sorted order, the prefix of the first and last is everyone's.
    let common = first
        .bytes()
        .zip(last.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    first[..common]
        .rfind('/')
        .map_or_else(String::new, |i| first[..=i].to_string())
}

/// The names of `a` that `b` lacks, and whether any name was matched only
/// under the sides' folders. A name is matched exactly first; of the rest,
/// one whose part under `a_dir` is some unmatched `b` name's part under
/// `b_dir` is the same input (or session) moved with its folder.
fn only(
    a: &BTreeSet<String>,
    a_dir: &str,
    b: &BTreeSet<String>,
    b_dir: &str,
) -> (Vec<String>, bool) {
    let under = |s: &'_ str, dir: &str| -> String { s.strip_prefix(dir).unwrap_or(s).to_string() };
    let b_left: BTreeSet<String> = b.difference(a).map(|s| under(s, b_dir)).collect();
    let mut moved = false;
    let gone = a
        .difference(b)
        .filter(|s| {
            let found = a_dir != b_dir && b_left.contains(&under(s, a_dir));
            moved |= found;
            !found
        })
        .cloned()
        .collect();
    (gone, moved)
}

/// The diff as text (`markdown`: a Markdown section to paste into a pull
/// request). Captured strings are shown with control characters escaped.
pub fn text(d: &Diff, markdown: bool) -> String {
    let mut o = String::new();
    let verdict = if d.regression {
        "REGRESSION"
    } else {
        "no regression"
    };
    if markdown {
        let _ = writeln!(o, "## mcp-audit diff: {verdict}\n");
    } else {
        let _ = writeln!(o, "mcp-audit diff: {verdict}");
    }
    kinds_text(&mut o, d, markdown);
    latency_text(&mut o, d, markdown);
    if let Some((old_dir, new_dir)) = &d.matched_under {
        let (a, b) = if markdown {
            (md_esc(old_dir), md_esc(new_dir))
        } else {
            (esc(old_dir), esc(new_dir))
        };
        let bullet = if markdown { "- " } else { "" };
        let _ = writeln!(o, "{bullet}inputs matched by their names under {a} and {b}");
    }
    for (label, list) in [
        ("inputs added", &d.inputs_added),
        ("inputs gone", &d.inputs_gone),
        ("sessions added", &d.sessions_added),
        ("sessions gone", &d.sessions_gone),
    ] {
        if list.is_empty() {
            continue;
        }
        let shown: Vec<String> = list
            .iter()
            .take(10)
            .map(|s| if markdown { md_esc(s) } else { esc(s) })
            .collect();
        let more = if list.len() > 10 {
            format!(" … and {} more", list.len() - 10)
        } else {
            String::new()
        };
        let bullet = if markdown { "- " } else { "" };
        let _ = writeln!(
            o,
            "{bullet}{label} ({}): {}{more}",
            list.len(),
            shown.join(", ")
        );
    }
    o
}

/// A method name for a Markdown cell: a code span when it holds only
/// name characters (`tools/call`, `*`), else [`md_esc`]'s plain text.
fn md_name(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_.-*:$".contains(c))
    {
        format!("`{s}`")
    } else {
        md_esc(s)
    }
}

/// A captured string for Markdown text or a table cell: control
/// characters escaped, then backslash-escaped (CommonMark §2.4) only what
/// Markdown could read as markup there: `|` (a cell's end), `` ` `` (code),
/// `\`, `*` and `~` (emphasis, strike-through), `_` where it could open or
/// close emphasis (not inside a word: `a_b` stays), `<` (HTML, autolinks),
/// `[` and `]` (links), `&` (entities), and a first character that could
/// start a block (`#`, `>`, `+`, `-`, `=`; the `.` or `)` after leading
/// digits). Dots, slashes and the rest are shown as written
/// (`./logs/a.log`), and nothing is injected.
fn md_esc(s: &str) -> String {
    let plain = esc(s);
    let chars: Vec<char> = plain.chars().collect();
    let digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    let word = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    let mut out = String::with_capacity(plain.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let markup = match c {
            '|' | '`' | '\\' | '*' | '~' | '<' | '[' | ']' | '&' => true,
            '_' => !(word(i.checked_sub(1)) && word(Some(i + 1))),
            '#' | '>' | '+' | '-' | '=' => i == 0,
            '.' | ')' => digits > 0 && i == digits,
            _ => false,
        };
        if markup {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A captured string with control characters escaped.
fn esc(s: &str) -> String {
    crate::report::sanitize::escape_controls(s).into_owned()
}

/// [`text`]'s findings part: a line per kind that changed (a Markdown
/// table).
fn kinds_text(o: &mut String, d: &Diff, markdown: bool) {
    if d.kinds.is_empty() {
        // Markdown: a paragraph of its own, apart from the table after it.
        let _ = writeln!(o, "findings: no kind changed");
        if markdown {
            o.push('\n');
        }
    } else if markdown {
        let _ = writeln!(
            o,
            "| kind | severity | old | new | |\n|---|---|---:|---:|---|"
        );
        for k in &d.kinds {
            let mark = if k.regression { "regression" } else { "" };
            let _ = writeln!(
                o,
                "| `{}` | {} | {} | {} | {mark} |",
                k.kind, k.severity, k.old, k.new
            );
        }
        o.push('\n');
    } else {
        let _ = writeln!(o, "findings:");
        for k in &d.kinds {
            let mark = if k.regression { "  REGRESSION" } else { "" };
            let _ = writeln!(
                o,
                "  {:<36} {:<7} {} -> {}{mark}",
                k.kind, k.severity, k.old, k.new
            );
        }
    }
}

/// [`text`]'s latency part: p50 and p99 per method, old and new, and
/// whether the change is a regression or was not judged (too few
/// latencies); nothing when no method was compared.
fn latency_text(o: &mut String, d: &Diff, markdown: bool) {
    if d.latency.is_empty() {
        return;
    }
    if markdown {
        let _ = writeln!(
            o,
            "| method | p50 ms old → new | p99 ms old → new | p99 change | |\n|---|---:|---:|---:|---|"
        );
    } else {
        let _ = writeln!(
            o,
            "latency (p99 regression beyond {}%):",
            d.p99_regression_pct
        );
    }
    for l in &d.latency {
        let few = l.counts.0.min(l.counts.1) < d.min_latencies;
        if markdown {
            let mark = if l.regression {
                "regression"
            } else if few {
                "not judged (few latencies)"
            } else {
                ""
            };
            let _ = writeln!(
                o,
                "| {} | {} → {} | {} → {} | {:+}% | {mark} |",
                md_name(&l.method),
                l.old.0,
                l.new.0,
                l.old.1,
                l.new.1,
                l.p99_change_pct
            );
        } else {
            let _ = writeln!(
                o,
                "  {:<28} p50 {} -> {} ms, p99 {} -> {} ms ({:+}%){}",
                esc(&l.method),
                l.old.0,
                l.new.0,
                l.old.1,
                l.new.1,
                l.p99_change_pct,
                if l.regression {
                    "  REGRESSION".to_string()
                } else if few {
                    format!(
                        "  (over {} and {} latencies: not judged)",
                        l.counts.0, l.counts.1
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    if markdown {
        o.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(kinds: &[(&str, u64)], lat: &[(&str, f64, f64)], sessions: &[&str]) -> Side {
        Side {
            kinds: kinds
                .iter()
                .map(|(k, n)| {
                    // `kind:severity`, or the kind at its catalogue severity.
                    let (k, sev) = k.split_once(':').unwrap_or((
                        k,
                        FindingKind::from_name(k).map_or("unknown", |f| f.severity().as_str()),
                    ));
                    ((k.to_string(), sev.to_string()), *n)
                })
                .collect(),
            sessions: sessions.iter().map(|s| s.to_string()).collect(),
            inputs: BTreeSet::new(),
            latency: lat
                .iter()
                .map(|(m, a, b)| (m.to_string(), (*a, *b)))
                .collect(),
            counts: lat.iter().map(|(m, ..)| (m.to_string(), 100)).collect(),
        }
    }

    /// Markdown keeps its tables and the added/gone list apart (a blank
    /// line before each table, the lists as bullets) and escapes captured
    /// names, so a session called `a|b*<x>` is shown as written.
    #[test]
    fn markdown_lists_and_tables_stay_apart() {
        let old = side(&[], &[("tools/call", 10.0, 100.0)], &["a"]);
        let new = side(&[], &[("tools/call", 10.0, 150.0)], &["a", "s|b*<x>"]);
        let d = compare(&old, &new, 20.0, 20);
        assert_eq!(
            text(&d, true),
            "## mcp-audit diff: REGRESSION\n\n\
             findings: no kind changed\n\n\
             | method | p50 ms old → new | p99 ms old → new | p99 change | |\n\
             |---|---:|---:|---:|---|\n\
             | `tools/call` | 10 → 10 | 100 → 150 | +50% | regression |\n\n\
             - sessions added (1): s\\|b\\*\\<x>\n"
        );
    }

    #[test]
    fn regressions_are_warning_kinds_up_and_p99_growth() {
        let old = side(
            &[
                ("duplicate_id", 1),
                ("cancelled_request", 0),
                ("slow_tail", 2),
            ],
            &[("tools/call", 10.0, 100.0), ("ping", 1.0, 2.0)],
            &["a", "b"],
        );
        let new = side(
            &[
                ("duplicate_id", 0),
                ("cancelled_request", 5),
                ("slow_tail", 3),
            ],
            &[("tools/call", 10.0, 119.0), ("ping", 1.0, 3.0)],
            &["b", "c"],
        );
        let d = compare(&old, &new, 20.0, 20);
        assert_eq!(
            d.kinds
                .iter()
                .map(|k| (k.kind.as_str(), k.old, k.new, k.regression))
                .collect::<Vec<_>>(),
            [
                ("cancelled_request", 0, 5, false),
                ("duplicate_id", 1, 0, false),
                ("slow_tail", 2, 3, true)
            ]
        );
        assert_eq!(
            d.latency
                .iter()
                .map(|l| (l.method.as_str(), l.p99_change_pct, l.regression))
                .collect::<Vec<_>>(),
            [("ping", 50.0, true), ("tools/call", 19.0, false)]
        );
        assert_eq!(
            (d.sessions_added, d.sessions_gone),
            (vec!["c".to_string()], vec!["a".to_string()])
        );
        assert!(d.regression);
        let calm = compare(&old, &old, 20.0, 20);
        assert!(!calm.regression && calm.kinds.is_empty() && calm.latency.is_empty());
    }

    /// A kind's info findings are counted apart from its warnings and
    /// errors, and never regress: slow_tail info 1 -> 4 (long-running
    /// operations with progress) and missing_response info 0 -> 1 (a
    /// capture gap) are shown, not judged; slow_tail warning 0 -> 1 and a
    /// severity this build cannot read (unknown, 0 -> 2) are regressions.
    #[test]
    fn info_findings_never_regress() {
        let old = side(&[("slow_tail:info", 1)], &[], &[]);
        let new = side(
            &[
                ("slow_tail:info", 4),
                ("missing_response:info", 1),
                ("missing_response:error", 0),
            ],
            &[],
            &[],
        );
        let d = compare(&old, &new, 20.0, 20);
        assert_eq!(
            text(&d, false),
            "mcp-audit diff: no regression\n\
             findings:\n  \
             missing_response                     info    0 -> 1\n  \
             slow_tail                            info    1 -> 4\n"
        );
        assert!(!d.regression);
        let worse = side(
            &[
                ("slow_tail:info", 4),
                ("slow_tail:warning", 1),
                ("future_kind:unknown", 2),
            ],
            &[],
            &[],
        );
        let d = compare(&old, &worse, 20.0, 20);
        assert_eq!(
            d.kinds
                .iter()
                .map(|k| (
                    k.kind.as_str(),
                    k.severity.as_str(),
                    k.old,
                    k.new,
                    k.regression
                ))
                .collect::<Vec<_>>(),
            [
                ("future_kind", "unknown", 0, 2, true),
                ("slow_tail", "warning", 0, 1, true),
                ("slow_tail", "info", 1, 4, false),
            ]
        );
        assert!(d.regression);
    }

    /// summary.json: each listed finding at its own severity; what
    /// `findings_by_kind` counts beyond the list at the catalogue's.
    #[test]
    fn summary_findings_are_counted_by_their_severity() {
        let v: Value = serde_json::from_str(
            r#"{"findings": [
                {"kind": "slow_tail", "severity": "info"},
                {"kind": "slow_tail", "severity": "warning"},
                {"kind": "missing_response", "severity": "info"}],
              "findings_by_kind": {"slow_tail": 3, "missing_response": 1, "duplicate_id": 0}}"#,
        )
        .unwrap();
        let got: Vec<((String, String), u64)> = kinds_of_summary(&v).into_iter().collect();
        let row = |k: &str, s: &str, n| ((k.to_string(), s.to_string()), n);
        assert_eq!(
            got,
            [
                row("missing_response", "info", 1),
                row("slow_tail", "info", 1),
                row("slow_tail", "warning", 2),
            ]
        );
    }

    /// Markdown escapes only what it would read as markup: a file name
    /// shows as written (`./other.log`, `a_b-c.log`), `|`, backticks,
    /// `*`, `<`, `[`/`]`, `&`, an `_` at a word's edge and a leading `#`,
    /// `-` or `1.` are escaped.
    #[test]
    fn markdown_escapes_only_markup() {
        let cases = [
            ("./other.log", "./other.log"),
            ("/var/log/mcp/a_b-c.log: s1", "/var/log/mcp/a_b-c.log: s1"),
            ("a|b`c`", "a\\|b\\`c\\`"),
            ("*x* _y_ <b>&amp;", "\\*x\\* \\_y\\_ \\<b>\\&amp;"),
            ("[x](y)", "\\[x\\](y)"),
            ("# h", "\\# h"),
            ("-a-b", "\\-a-b"),
            ("12. x.y", "12\\. x.y"),
            ("back\\slash", "back\\\\slash"),
        ];
        for (s, want) in cases {
            assert_eq!(md_esc(s), want, "{s}");
        }
    }

    /// Two nights analysed as `/logs/DAY/`: the same file names are the
    /// same inputs and sessions; only b.log is gone and c.log added. A
    /// shard side whose inputs keep their names matches exactly.
    #[test]
    fn inputs_under_dated_folders_match_by_name() {
        let night = |day: &str, files: &[&str]| {
            let mut s = side(&[], &[], &[]);
            for f in files {
                s.inputs.insert(format!("/logs/{day}/{f}"));
                s.sessions.insert(format!("/logs/{day}/{f}: s1"));
            }
            s
        };
        let old = night("2026-12-01", &["a.log", "b.log"]);
        let new = night("2026-12-02", &["a.log", "c.log"]);
        let d = compare(&old, &new, 20.0, 20);
        assert_eq!(
            (
                d.inputs_added.clone(),
                d.inputs_gone.clone(),
                d.sessions_added.clone(),
                d.sessions_gone.clone()
            ),
            (
                vec!["/logs/2026-12-02/c.log".to_string()],
                vec!["/logs/2026-12-01/b.log".to_string()],
                vec!["/logs/2026-12-02/c.log: s1".to_string()],
                vec!["/logs/2026-12-01/b.log: s1".to_string()]
            )
        );
        assert_eq!(
            d.matched_under,
            Some((
                "/logs/2026-12-01/".to_string(),
                "/logs/2026-12-02/".to_string()
            ))
        );
        assert!(text(&d, false).contains(
            "inputs matched by their names under /logs/2026-12-01/ and /logs/2026-12-02/\n"
        ));
        let mut web1 = side(&[], &[], &[]);
        web1.inputs.insert("host=web1: logs/a.log".into());
        let mut both = web1.clone();
        both.inputs.insert("host=web2: logs/a.log".into());
        let d = compare(&web1, &both, 20.0, 20);
        assert_eq!(
            (d.inputs_added, d.inputs_gone, d.matched_under),
            (vec!["host=web2: logs/a.log".to_string()], vec![], None)
        );
    }
}

//! The run's outputs: the `--out` folder (summary.json, the CSV and
//! Parquet tables, report.html with its re-read evidence), a shard's
//! Parquet tables, the `--per-input` summaries and what stdout carries.
//! Files are opened here; the renderers (`report`) only write.

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::Run;
use crate::analyze::{self, tables};
use crate::config::{FailOn, Stdout};
use crate::report::csv::CsvTable;
use crate::report::html::{self, EvidenceKey, Html, Shown};
use crate::report::json::{self, Json};
use crate::report::junit::Junit;
use crate::report::parquet::{Parquet, ParquetTable};
use crate::report::sarif::Sarif;
use crate::report::shard::{self, Shard};
use crate::report::terminal::{self, Terminal};
use crate::report::{InputInfo, Render, RenderOptions, Report};
use crate::report::{otlp, otlp_metrics};
use crate::source;

/// A buffered new file `dir/name`, the error naming it.
fn create(dir: &Path, name: &str) -> Result<std::io::BufWriter<std::fs::File>> {
    let p = dir.join(name);
    Ok(std::io::BufWriter::new(
        std::fs::File::create(&p).with_context(|| format!("writing {}", p.display()))?,
    ))
}

/// Refuses, before anything is read or written, a `--junit`, `--sarif` or
/// `--otlp` file that is one of the run's inputs or one of the files `--out` writes
/// (the capture or the summary would be overwritten).
pub(super) fn check_ci_targets(
    config: &crate::config::RunConfig,
    specs: &[source::InputSpec],
) -> Result<()> {
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let inputs: Vec<PathBuf> = specs
        .iter()
        .flat_map(|s| match &s.kind {
            source::InputKind::File(p) => vec![p.clone()],
            source::InputKind::Pair { c2s, s2c, .. } => vec![c2s.clone(), s2c.clone()],
            _ => vec![],
        })
        .filter_map(|p| canon(&p))
        .collect();
    let out = config.out.as_deref().and_then(canon);
    for (flag, target) in [
        ("--junit", &config.junit),
        ("--sarif", &config.sarif),
        ("--otlp", &config.otlp),
        ("--otlp-metrics", &config.otlp_metrics),
    ] {
        let Some(t) = target else { continue };
        if let Some(c) = canon(t)
            && inputs.contains(&c)
        {
            bail!(
                "{flag} {}: that file is an input of this run; refusing to overwrite it",
                t.display()
            );
        }
        let parent = t.parent().filter(|p| !p.as_os_str().is_empty());
        let in_out = match &out {
            Some(o) => parent.and_then(canon).as_ref() == Some(o),
            None => parent.is_some() && parent == config.out.as_deref(),
        };
        let name = t.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if in_out && crate::report::OUT_FILES.contains(&name) {
            bail!(
                "{flag} {}: --out writes that file; name another",
                t.display()
            );
        }
    }
    Ok(())
}

/// Writes `--junit`, `--sarif`, `--otlp` and `--otlp-metrics` files (parent folders made as
/// needed).
pub(super) fn write_ci(
    config: &crate::config::RunConfig,
    rep: &Report<'_>,
    replies: &otlp::Replies,
) -> Result<()> {
    let write = |path: &Path, r: &dyn Render| -> Result<()> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let mut w = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?,
        );
        r.render(rep, &mut w, &RenderOptions::default())
            .and_then(|()| w.flush())
            .with_context(|| format!("writing {}", path.display()))
    };
    if let Some(p) = &config.junit {
        let j = Junit {
            policy: &config.policy,
            per_input: config.per_input,
        };
        write(p, &j)?;
    }
    if let Some(p) = &config.sarif {
        write(
            p,
            &Sarif {
                policy: &config.policy,
            },
        )?;
    }
    if config.otlp.is_none() && config.otlp_metrics.is_none() {
        return Ok(());
    }
    let excerpts = read_otlp_evidence(rep, replies);
    let o = otlp::Otlp {
        replies,
        excerpts: &excerpts,
        redact: config.redact,
    };
    let (lines, left) = o.lines(rep);
    if let Some(p) = &config.otlp_metrics {
        // Its attributes (error.type: the code, or tool_error) are all
        // known for logs read block by block too (`Req::tool_error`).
        let request = otlp_metrics::request(&lines);
        write(p, &otlp::Lines(std::slice::from_ref(&request)))?;
    }
    if let Some(p) = &config.otlp {
        write(p, &otlp::Lines(&lines))?;
        otlp_notes(&p.display().to_string(), &left);
    }
    Ok(())
}

/// The `--otlp` notes on stderr: what has no span (no time in the
/// capture) and which errors carry their code only.
fn otlp_notes(name: &str, left: &otlp::Left) {
    let n = |k: u64, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    let untimed: Vec<String> = [
        (left.untimed_requests > 0)
            .then(|| n(left.untimed_requests, "request", "requests") + " with no time"),
        (left.untimed_sessions > 0)
            .then(|| n(left.untimed_sessions, "session", "sessions") + " with no time at all"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !untimed.is_empty() {
        eprintln!(
            "mcp-audit: --otlp {name}: no span for {} in the capture (a span needs a start time)",
            untimed.join(" and ")
        );
    }
    if left.replies_unread > 0 {
        eprintln!(
            "mcp-audit: --otlp {name}: {} answered with an error {} its code but not its \
             message (a line log's responses are not kept after its blocks are read)",
            n(left.replies_unread, "request", "requests"),
            if left.replies_unread == 1 {
                "carries"
            } else {
                "carry"
            }
        );
    }
}

/// The largest evidence range `--otlp` reads again (a HAR entry with its
/// response body): a longer one is cut, and gives no detail.
const OTLP_WINDOW: usize = 4 << 20;

/// Re-reads the evidence ranges the spans need ([`otlp::wanted`]), one
/// pass per file, files in parallel, each range reduced to its messages
/// at once ([`otlp::read_excerpt`]). A range that was cut or cannot be
/// read again gives no detail.
fn read_otlp_evidence(rep: &Report<'_>, replies: &otlp::Replies) -> otlp::Excerpts {
    otlp::wanted(rep, replies)
        .into_par_iter()
        .flat_map_iter(|(file, ranges)| {
            let path = PathBuf::from(rep.file_name(file));
            let exact = rep
                .inputs
                .get((file / 2) as usize)
                .is_some_and(|i| i.exact_offsets && file % 2 == 0);
            let got = source::evidence(&path, &ranges, OTLP_WINDOW, exact).unwrap_or_default();
            ranges
                .into_iter()
                .zip(got)
                .filter_map(move |((off, len), e)| {
                    let e = e.filter(|e| !e.cut)?;
                    Some(((file, off, len), otlp::read_excerpt(&e.text)))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Writes the `--out` folder: `summary.json` and the tables on one side,
/// the evidence re-read and `report.html` on the other, at once (issue
/// 13: on two threads the outputs cost about what the larger side does).
/// What a side freed goes back to the system as it ends (issue 5: the
/// peak stays the analysis plus what the outputs hold at once).
pub(super) fn write_outputs(dir: &Path, rep: &Report<'_>, redact: bool) -> Result<()> {
    crate::mem::give_back();
    if dir.exists() && !dir.is_dir() {
        bail!("--out {}: not a directory", dir.display());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating output directory {}", dir.display()))?;
    let (files, page) = crate::timings::join(
        || -> Result<()> {
            let (summary, tables) = crate::timings::join(
                || {
                    crate::timings::stage("summary.json", || -> Result<()> {
                        let mut w = create(dir, "summary.json")?;
                        Json.render(rep, &mut w, &RenderOptions::default())?;
                        Ok(w.flush()?)
                    })
                },
                || write_tables(dir, rep),
            );
            summary.and(tables)
        },
        || -> Result<()> {
            let evidence = crate::timings::stage("report.html: evidence re-read", || {
                read_evidence(rep, redact)
            });
            let latency = analyze::histogram::by_method(rep.analysis);
            let page = html::Extras {
                evidence: &evidence,
                latency: &latency,
                redact,
            };
            let opts = RenderOptions {
                page: Some(&page),
                ..Default::default()
            };
            crate::timings::stage("report.html: page", || {
                Html.render(rep, &mut create(dir, "report.html")?, &opts)
                    .context("writing report.html")
            })
        },
    );
    crate::mem::give_back();
    files.and(page)
}

/// The tables, each as `TABLE.parquet` and (all but `sessions`) as
/// `TABLE.csv`, tables in parallel. Each frame is built once and written
/// to both files at once.
fn write_tables(dir: &Path, rep: &Report<'_>) -> Result<()> {
    let tables =
        crate::timings::stage("tables: rows", || rep.tables()).context("building the tables")?;
    if crate::timings::enabled() {
        return tables::TABLES
            .iter()
            .try_for_each(|&stem| write_table(dir, &tables, stem));
    }
    tables::TABLES
        .par_iter()
        .try_for_each(|&stem| write_table(dir, &tables, stem))
}

/// Table `stem`'s frames into its CSV (when it has one) and Parquet files.
fn write_table(dir: &Path, tables: &tables::Tables<'_>, stem: &str) -> Result<()> {
    let (csv_name, pq_name) = (format!("{stem}.csv"), format!("{stem}.parquet"));
    let mut csv = (stem != "sessions")
        .then(|| {
            create(dir, &csv_name).map(|w| CsvTable::new(w, CsvTable::<Vec<u8>>::columns_of(stem)))
        })
        .transpose()?;
    let mut pq = ParquetTable::new(create(dir, &pq_name)?);
    let mut frames = tables
        .frames(stem)
        .with_context(|| format!("building table {stem}"))?;
    let frame_stage = format!("tables: {stem} frames");
    while let Some(df) = crate::timings::stage(&frame_stage, || frames.next()) {
        let df = df.with_context(|| format!("building table {stem}"))?;
        let (c, p) = crate::timings::join(
            || match csv.as_mut() {
                Some(c) => crate::timings::stage(&csv_name, || c.write(&df)),
                None => Ok(()),
            },
            || crate::timings::stage(&pq_name, || pq.write(&df)),
        );
        c.with_context(|| format!("writing {csv_name}"))?;
        p.with_context(|| format!("writing {pq_name}"))?;
    }
    if let Some(c) = csv {
        crate::timings::stage(&csv_name, || c.finish())
            .with_context(|| format!("writing {csv_name}"))?;
    }
    crate::timings::stage(&pq_name, || pq.finish()).with_context(|| format!("writing {pq_name}"))
}

/// Re-reads the evidence `report.html` shows (DESIGN.md "records": the raw
/// JSON is not kept in memory), one pass per file, files and excerpts in
/// parallel, and keeps each excerpt as the page shows it (`html::show_excerpt`: the
/// read window is dropped). A file that cannot be read again (moved,
/// changed) only loses its evidence.
fn read_evidence(rep: &Report<'_>, redact: bool) -> HashMap<EvidenceKey, Shown> {
    let mut by_file: BTreeMap<u32, Vec<(u64, u32)>> = BTreeMap::new();
    for (file, off, len) in html::evidence_wanted(rep) {
        by_file.entry(file).or_default().push((off, len));
    }
    by_file
        .into_par_iter()
        .flat_map_iter(|(file, ranges)| {
            let path = PathBuf::from(rep.file_name(file));
            let info = rep.inputs.get((file / 2) as usize);
            let har = info.is_some_and(|i| i.format == "har");
            // A pair's second file is not the one `exact_offsets` speaks of.
            let exact = info.is_some_and(|i| i.exact_offsets && file % 2 == 0);
            let mut got =
                source::evidence(&path, &ranges, html::READ_WINDOW, exact).unwrap_or_default();
            got.resize_with(ranges.len(), || None);
            // Excerpts redacted in parallel (one input is one file).
            ranges
                .into_par_iter()
                .zip(got)
                .filter_map(move |((off, len), e)| {
                    e.map(|e| ((file, off, len), html::show_excerpt(&e, har, redact)))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Refuses a `--shard-dir` that holds another layout along this shard's
/// path (`Shard::layout_conflict`), before any input is read.
pub(super) fn check_shard_layout(config: &crate::config::RunConfig) -> Result<()> {
    if let Some(target) = &config.shard {
        for stem in tables::TABLES {
            if let Some(msg) = target.shard.layout_conflict(&target.dir, stem) {
                bail!("{msg}");
            }
        }
    }
    Ok(())
}

/// Writes the run's Parquet tables as one shard: `ROOT/TABLE/K=V/…/`
/// [`shard::PART_FILE`], each through a hidden temporary file renamed
/// into place, so an engine reading the folder meanwhile never sees half
/// a file.
pub(super) fn write_shard(root: &Path, shard: &Shard, rep: &Report<'_>) -> Result<()> {
    if root.exists() && !root.is_dir() {
        bail!("--shard-dir {}: not a directory", root.display());
    }
    let tables = rep.tables().context("building the tables")?;
    let opts = RenderOptions {
        tables: Some(&tables),
        ..Default::default()
    };
    for stem in tables::TABLES {
        let dir = root.join(shard.folder(stem));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let part = dir.join(shard::PART_FILE);
        let tmp = dir.join(format!(".{}.{}.tmp", shard::PART_FILE, std::process::id()));
        let write = || -> Result<()> {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            Parquet(stem).render(rep, &mut w, &opts)?;
            w.flush()?;
            std::fs::rename(&tmp, &part)?;
            Ok(())
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(e).with_context(|| format!("writing {}", part.display()));
        }
    }
    Ok(())
}

/// What stdout carries: the human summary (coloured on a terminal unless
/// `NO_COLOR` or `TERM=dumb`), `summary.json`, or nothing. A closed pipe
/// is not an error.
pub(super) fn print_stdout(rep: &Report<'_>, mode: Stdout) -> Result<()> {
    let mut text = Vec::new();
    match mode {
        Stdout::Quiet => return Ok(()),
        Stdout::Json => Json.render(rep, &mut text, &RenderOptions::default())?,
        Stdout::Summary => {
            let color = terminal::use_color(
                std::io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
                std::env::var_os("TERM").as_deref(),
            );
            let opts = RenderOptions {
                color,
                ..Default::default()
            };
            Terminal.render(rep, &mut text, &opts)?;
        }
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&text)
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(e).context("writing to stdout");
    }
    Ok(())
}

/// A file name as a folder-name part: its stem, ASCII letters, digits,
/// `.`, `_`, `-` kept, anything else `_`, at most 60 bytes, never hidden.
fn folder_stem(file: &str) -> String {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    while out.starts_with('.') {
        out.remove(0);
    }
    if out.is_empty() {
        out.push_str("input");
    }
    out
}

/// One input's share of the run: its place, folder name, exit code alone
/// and analysis.
type Share = (usize, String, u8, analyze::Analysis);

/// `--per-input`: one `summary.json` per input, from its share of the run
/// (`Analysis::split_by_input`), in `OUT/inputs/NNNN-STEM/`, and
/// `OUT/inputs/index.json` listing them.
pub(super) fn write_per_input(
    dir: &Path,
    run: Run,
    fail_on: FailOn,
    policy: &analyze::gates::Policy,
) -> Result<()> {
    let root = dir.join("inputs");
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let shares = shares(&run.infos, &run.fatal, run.analysis, policy);
    let mut rows = Vec::with_capacity(run.infos.len());
    for (i, name, exit, part) in &shares {
        let sub = root.join(name);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        let rep = Report::new(std::slice::from_ref(&run.infos[*i]), part);
        let p = sub.join("summary.json");
        let write = || -> Result<()> {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&p)?);
            Json.render(&rep, &mut w, &RenderOptions::default())?;
            w.flush()?;
            Ok(())
        };
        write().with_context(|| format!("writing {}", p.display()))?;
        rows.push((*i, format!("inputs/{name}/summary.json"), *exit, rep));
    }
    let index: Vec<json::IndexRow<'_>> = rows
        .iter()
        .map(|(i, summary, exit, rep)| json::IndexRow {
            input: *i,
            report: rep,
            summary: summary.clone(),
            exit: *exit,
        })
        .collect();
    let p = root.join("index.json");
    let write = || -> Result<()> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&p)?);
        serde_json::to_writer_pretty(&mut w, &json::index(&index, fail_on.as_str()))?;
        w.write_all(b"\n")?;
        w.flush()?;
        Ok(())
    };
    write().with_context(|| format!("writing {}", p.display()))
}

/// Every input's share, in input order (an input without sessions or
/// findings gets an empty one), named `NNNN-STEM`, with its exit code:
/// 2 unreadable or incomplete, 1 a finding that fails the run (`--fail-on`,
/// `--fail-on-kind`, `--allow`), else 0.
fn shares(
    infos: &[InputInfo],
    fatal: &[bool],
    analysis: analyze::Analysis,
    policy: &analyze::gates::Policy,
) -> Vec<Share> {
    let width = infos.len().saturating_sub(1).to_string().len().max(4);
    let mut parts = analysis.split_by_input().into_iter().peekable();
    let mut shares = Vec::with_capacity(infos.len());
    for (i, info) in infos.iter().enumerate() {
        let part = parts
            .next_if(|(n, _)| *n == i)
            .map(|(_, a)| a)
            .unwrap_or_default();
        let name = format!("{i:0width$}-{}", folder_stem(&info.file));
        let exit = if fatal.get(i).copied().unwrap_or(false) {
            2
        } else if part.findings.iter().any(|f| policy.fails(f)) {
            1
        } else {
            0
        };
        shares.push((i, name, exit, part));
    }
    shares
}

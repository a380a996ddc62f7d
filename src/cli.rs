//! The command line (clap derive) and the run: the edge of the program,
//! where inputs are read, stages are wired, outputs are written, and errors
//! get their context. stdout carries results; stderr carries diagnostics.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use crate::analyze::{self, Config, Severity};
use crate::ingest::{self, Format, Input};
use crate::reconstruct;
use crate::record::{Parsed, Record};
use crate::report::progress::Progress;
use crate::report::shard::Shard;
use crate::report::{self, InputInfo, Report};
use crate::source::{self, InputSpec};

/// Offline auditor of JSON-RPC 2.0 traffic between MCP clients and servers.
#[derive(Debug, Parser)]
#[command(name = "mcp-audit", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyse captures: pair every response to its request by id and report
    /// what went wrong.
    #[command(
        after_help = "Exit codes: 0 clean; 1 a finding at or above --fail-on (default: error); \
2 a usage error, or an input that could not be read (the other inputs are still analysed and reported)."
    )]
    Analyze(AnalyzeArgs),
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Detect from content.
    Auto,
    /// A stdio line log (dialect still detected).
    Stdio,
    /// A HAR file.
    Har,
    /// A raw SSE capture.
    Sse,
}

/// `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Exit 1 on any warning or error finding.
    Warning,
    /// Exit 1 on error findings only.
    Error,
    /// Never exit 1 for findings.
    Never,
}

/// Arguments of `analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Capture files or directories (HAR, stdio line logs, per-direction
    /// `.client-to-server.jsonl` / `.server-to-client.jsonl` pairs).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Input format; `auto` detects it from the content.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// Write summary.json, findings.csv, pairs.csv, batches.csv and
    /// report.html here.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Redact secrets (Authorization, cookies, tokens, keys, passwords) in
    /// every output; the default.
    #[arg(long, overrides_with = "no_redact")]
    pub redact: bool,
    /// Keep secrets as captured in every output.
    #[arg(long, overrides_with = "redact")]
    pub no_redact: bool,
    /// A response later than this is `late_response` (e.g. 60s, 1500ms, 2m;
    /// a bare number is milliseconds).
    #[arg(long, default_value = "60s", value_parser = parse_duration_us)]
    pub timeout: i64,
    /// Floor of `slow_tail`, and how long a notification POST may be held
    /// (a bare number is milliseconds).
    #[arg(long, default_value = "1s", value_parser = parse_duration_us)]
    pub slow: i64,
    /// `slow_tail` needs at least this many times the median latency.
    #[arg(long, default_value_t = 10.0)]
    pub slow_factor: f64,
    /// Exit 1 when a finding of this severity or above exists.
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print summary.json on stdout instead of the human summary.
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,
    /// Print nothing on stdout (files and exit code only).
    #[arg(short, long)]
    pub quiet: bool,
    /// Block size in bytes for reading large line logs (tests use tiny
    /// blocks to prove that block cuts change nothing).
    #[arg(long, hide = true, default_value_t = BLOCK_BYTES)]
    pub block_bytes: usize,
    /// Nightly batch mode: besides the run's outputs in --out, write one
    /// summary.json per input to OUT/inputs/NNNN-STEM/ (NNNN its 0-based
    /// place in `inputs`) and an index, OUT/inputs/index.json. Each shows
    /// that input's share of the run (slow tails stay judged against the
    /// run's median).
    #[arg(long, requires = "out")]
    pub per_input: bool,
    /// This run is one shard of a fleet: its partition as key=value pairs
    /// (e.g. date=2026-11-30,host=web1). With --shard-dir, each Parquet
    /// table goes to SHARD_DIR/TABLE/KEY=VALUE/.../part-00000.parquet.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub shard: Option<String>,
    /// The shared folder of the shards (see --shard; reports/SCHEMA.md).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
}

/// Parses `60s`, `1500ms`, `2m`, `1h`, or a bare number of milliseconds,
/// into microseconds.
pub fn parse_duration_us(text: &str) -> std::result::Result<i64, String> {
    let t = text.trim().to_ascii_lowercase();
    let (num, mul) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1_000.0)
    } else if let Some(n) = t.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1_000_000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000_000.0)
    } else {
        (t.as_str(), 1_000.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok((v * mul).round() as i64),
        _ => Err(format!(
            "`{text}` is not a duration (use e.g. 60s, 1500ms, 2m)"
        )),
    }
}

/// Upper bound of `--threads` (a thread per core is the useful maximum;
/// thousands only cost start-up time).
pub const MAX_THREADS: usize = 256;

/// One input after reading and parsing.
struct Loaded {
    info: InputInfo,
    records: Vec<Record>,
    fatal: bool,
    one_direction: bool,
    /// Sessions already walked (a large line log read block by block).
    results: Vec<analyze::SessionResult>,
}

/// Bytes of a block of a large line log (see [`stream_lines`]).
const BLOCK_BYTES: usize = 4 << 20;

/// How much of a file decides whether it is read block by block.
const PEEK_BYTES: usize = 64 << 10;

/// The dialect of a plain line log that can be read block by block, from
/// its first [`PEEK_BYTES`].
fn streamable(path: &Path) -> Option<ingest::detect::Dialect> {
    let head = source::head(path, PEEK_BYTES).ok()?;
    let n = head.len();
    let cut = if n < PEEK_BYTES {
        n
    } else {
        memchr::memrchr(b'\n', &head)? + 1
    };
    let text = String::from_utf8_lossy(&head[..cut]);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match ingest::detect_format(text) {
        Format::Lines(d) if ingest::chunk::safe_start(d).is_some() => Some(d),
        _ => None,
    }
}

/// Reads a plain line log block by block (issue 5): blocks are parsed in
/// parallel, then their records go, in file order, through session
/// splitting, line order and the session walkers. Memory holds a few
/// blocks, the pending requests and one row per request — never the whole
/// file. Output is the same as reading the file whole, for any thread count.
fn stream_lines(
    path: &Path,
    file_index: u32,
    input: usize,
    dialect: ingest::detect::Dialect,
    cfg: &Config,
    block_bytes: usize,
    progress: &Progress,
) -> Option<Loaded> {
    let safe = ingest::chunk::safe_start(dialect)?;
    let reader = match source::BlockReader::open(path) {
        Ok(Some(r)) => r,
        _ => return None,
    };
    let display = path.display().to_string();
    let blocks = Blocks {
        file_index,
        input,
        dialect,
        block_bytes,
        safe,
    };
    Some(stream_blocks(
        reader,
        display,
        &blocks,
        cfg,
        progress,
        Vec::new(),
        false,
    ))
}

/// Where a block-read line log goes: its input, dialect, block size and
/// where a block may start (`ingest::chunk::safe_start`).
struct Blocks {
    file_index: u32,
    input: usize,
    dialect: ingest::detect::Dialect,
    block_bytes: usize,
    safe: fn(&[u8]) -> bool,
}

/// [`stream_lines`] on a reader: `before` are the error lines of problems
/// found while decoding the file, `damaged` whether those make the input
/// incomplete (a damaged compressed stream: the run exits 2).
fn stream_blocks(
    mut reader: source::BlockReader,
    display: String,
    b: &Blocks,
    cfg: &Config,
    progress: &Progress,
    before: Vec<String>,
    damaged: bool,
) -> Loaded {
    let (file_index, input, dialect, block_bytes, safe) =
        (b.file_index, b.input, b.dialect, b.block_bytes, b.safe);
    let mut splitter = reconstruct::session::Splitter::default();
    let mut states: Vec<Option<(reconstruct::order::LineOrder, analyze::engine::Walker<'_>)>> =
        Vec::new();
    let mut errors = before;
    let mut other_lines = 0u64;
    let mut any_frame = false;
    let mut fatal = false;
    let mut ready = Vec::new();
    let mut read_bytes = 0u64;
    let per_round = rayon::current_num_threads().max(1) * 2;
    // Records of a round go, in file order, through session splitting, line
    // order and the walkers; that sequential part runs while the next
    // round's blocks are parsed (a two-stage pipeline: the walk of round k
    // overlaps the parse of round k + 1; order, hence output, unchanged).
    let mut walk = |parsed: Vec<Parsed>| {
        for p in parsed {
            errors.extend(p.errors);
            other_lines += p.other_lines;
            for rec in p.records {
                let Some((i, f)) = splitter.push(rec) else {
                    continue;
                };
                any_frame = true;
                if states.len() <= i {
                    states.resize_with(i + 1, || None);
                }
                let st = states[i].get_or_insert_with(|| {
                    (
                        Default::default(),
                        analyze::engine::Walker::new(cfg, splitter.names[i].clone(), input, false),
                    )
                });
                st.0.push(f, &mut ready);
                for f in ready.drain(..) {
                    st.1.frame(&f, false);
                }
            }
        }
    };
    let mut read_errors = Vec::new();
    let mut walked: Option<Vec<Parsed>> = None;
    // One round of blocks; a read error ends the file after the blocks
    // read before it.
    let read_round = |reader: &mut source::BlockReader| {
        let mut blocks = Vec::with_capacity(per_round);
        while blocks.len() < per_round {
            match reader.next_block(block_bytes.max(1), safe) {
                Ok(Some(b)) => blocks.push(b),
                Ok(None) => break,
                Err(e) => return (blocks, Some(e.to_string())),
            }
        }
        (blocks, None)
    };
    let (mut blocks, mut read_error) = read_round(&mut reader);
    // Three stages overlap: while round k + 1 is parsed in parallel, round
    // k is walked and then round k + 2 is read.
    loop {
        if let Some(e) = read_error.take() {
            read_errors.push(e);
            fatal = true;
        }
        if blocks.is_empty() {
            break;
        }
        let round_bytes: u64 = blocks.iter().map(|b| b.text.len() as u64).sum();
        let previous = walked.take();
        let stop = fatal;
        let reader = &mut reader;
        let (parsed, (next, next_error)) = rayon::join(
            || {
                blocks
                    .par_iter()
                    .map(|b| {
                        ingest::chunk::parse_block(
                            file_index,
                            &display,
                            &b.text,
                            b.first_line,
                            b.offset,
                            dialect,
                        )
                    })
                    .collect::<Vec<Parsed>>()
            },
            || {
                if let Some(p) = previous {
                    walk(p);
                }
                if stop {
                    (Vec::new(), None)
                } else {
                    read_round(reader)
                }
            },
        );
        for b in std::mem::replace(&mut blocks, next) {
            reader.recycle(b);
        }
        read_error = next_error;
        let round_messages = parsed.iter().map(|p| messages_in(&p.records)).sum();
        read_bytes += round_bytes;
        progress.read(round_bytes, round_messages);
        walked = Some(parsed);
    }
    if let Some(p) = walked.take() {
        walk(p);
    }
    drop(walk);
    errors.extend(read_errors);
    let mut results = Vec::new();
    for (mut order, mut walker) in states.into_iter().flatten() {
        order.finish(&mut ready);
        for f in ready.drain(..) {
            walker.frame(&f, false);
        }
        results.push(walker.finish());
    }
    let parsed = Parsed {
        format: "stdio",
        dialect: dialect.name(),
        other_lines,
        ..Default::default()
    };
    progress.read(reader.bytes.saturating_sub(read_bytes), 0);
    let warnings: Vec<String> = reader
        .warnings
        .iter()
        .map(|w| format!("{display}: {w}"))
        .collect();
    let mut l = finish(display, reader.bytes, parsed, warnings, fatal || damaged);
    let prefix = format!("{}: ", l.info.file);
    l.info.errors.extend(errors.into_iter().map(|e| {
        if e.starts_with(&prefix) {
            e
        } else {
            format!("{prefix}{e}")
        }
    }));
    if any_frame {
        l.info.errors.retain(|e| {
            !e.ends_with(&format!(
                "no JSON-RPC traffic found (read as stdio {})",
                dialect.name()
            ))
        });
    }
    l.info.sessions = results.iter().filter(|r| r.counts.sessions > 0).count();
    l.results = results;
    l
}

fn load(
    spec: &InputSpec,
    input: usize,
    format: FormatArg,
    cfg: &Config,
    block_bytes: usize,
    progress: &Progress,
) -> Loaded {
    let file_index = report::file_id(input, 0);
    match &spec.kind {
        source::InputKind::File(path) => {
            if spec.rotation.is_none() && matches!(format, FormatArg::Auto | FormatArg::Stdio) {
                if let Some(l) = streamable(path).and_then(|d| {
                    stream_lines(path, file_index, input, d, cfg, block_bytes, progress)
                }) {
                    return l;
                }
            }
            if matches!(format, FormatArg::Auto | FormatArg::Har) {
                if let Some(l) = stream_har(path, file_index, format) {
                    return counted(l, progress);
                }
            }
            let file = match source::read(path) {
                Ok(f) => f,
                Err(e) => {
                    return counted(unreadable(path.display().to_string(), path, e), progress);
                }
            };
            // A compressed line log is decompressed whole, then read block
            // by block like a plain one: its records are never all held.
            if spec.rotation.is_none()
                && file.compression.is_some()
                && matches!(format, FormatArg::Auto | FormatArg::Stdio)
            {
                if let Format::Lines(d) = ingest::detect_format(&file.text) {
                    if let Some(safe) = ingest::chunk::safe_start(d) {
                        let display = path.display().to_string();
                        let (before, damaged) =
                            decode_problems(&display, &file.warnings, file.damage.as_ref());
                        let reader =
                            source::BlockReader::from_text(&display, file.text, file.bytes);
                        let blocks = Blocks {
                            file_index,
                            input,
                            dialect: d,
                            block_bytes,
                            safe,
                        };
                        return stream_blocks(
                            reader, display, &blocks, cfg, progress, before, damaged,
                        );
                    }
                }
            }
            counted(load_read(path, file, file_index, format), progress)
        }
        source::InputKind::Pair { name, c2s, s2c } => {
            let display = c2s.display().to_string();
            let a = source::read(c2s);
            let b = source::read(s2c);
            let mut errors = Vec::new();
            let mut fatal = false;
            let mut halves = Vec::new();
            for r in [a, b] {
                match r {
                    Ok(f) => {
                        errors.extend(f.warnings.iter().map(|w| format!("{}: {w}", f.display)));
                        if let Some(d) = &f.damage {
                            errors.push(d.to_string());
                            fatal = true;
                        }
                        halves.push(Some(f));
                    }
                    Err(source::SourceError::NotFound(_)) => halves.push(None),
                    Err(e) => {
                        errors.push(e.to_string());
                        fatal = true;
                        halves.push(None);
                    }
                }
            }
            if halves.iter().all(Option::is_none) && !fatal {
                errors.push(format!(
                    "{display}: no such file or directory (nor its partner {})",
                    s2c.display()
                ));
                fatal = true;
            }
            let bytes = halves.iter().flatten().map(|f| f.bytes).sum();
            // One half alone is read alone, every line in its file's direction
            // (FORMATS.md §8.3.8); say so, since its partner's findings are absent.
            match (&halves[0], &halves[1]) {
                (Some(_), None) if !fatal => errors.push(format!(
                    "{display}: partner {} not found; read alone",
                    s2c.display()
                )),
                (None, Some(_)) if !fatal => errors.push(format!(
                    "{}: partner {display} not found; read alone",
                    s2c.display()
                )),
                _ => {}
            }
            let c = halves[0].as_ref().map(|f| Input {
                file: file_index,
                name: &f.display,
                text: &f.text,
            });
            let s = halves[1].as_ref().map(|f| Input {
                file: file_index + 1,
                name: &f.display,
                text: &f.text,
            });
            let parsed = if c.is_some() || s.is_some() {
                ingest::pair::parse(c, s, name)
            } else {
                Parsed::default()
            };
            let display = match (&halves[0], &halves[1]) {
                (None, Some(f)) => f.display.clone(),
                _ => display,
            };
            let mut l = finish(display, bytes, parsed, errors, fatal);
            if halves[0].is_some() {
                l.info.partner = halves[1].as_ref().map(|f| f.display.clone());
            } else if let Some(f) = &halves[1] {
                // Only the server-to-client half: its lines carry file id + 1.
                l.info.partner = Some(f.display.clone());
            }
            counted(l, progress)
        }
        // A glob that matched nothing or is malformed: one line, fatal.
        source::InputKind::NoMatch(_) | source::InputKind::BadPattern { .. } => Loaded {
            info: InputInfo {
                file: spec.display(),
                format: "unknown".into(),
                dialect: "unknown".into(),
                errors: spec.error().into_iter().map(|e| e.to_string()).collect(),
                ..Default::default()
            },
            records: Vec::new(),
            fatal: true,
            one_direction: false,
            results: Vec::new(),
        },
    }
}

/// Reads a HAR as a stream (issue 5): `source` hands out the decoded text
/// chunk by chunk, the HAR splitter finds the entries and reads them in
/// parallel; the file is never held whole. `None` when the file is not
/// (surely) a HAR or cannot be opened: it is then read whole by
/// [`load_file`], which gives the same result or the error.
fn stream_har(path: &Path, file_index: u32, format: FormatArg) -> Option<Loaded> {
    let display = path.display().to_string();
    if format == FormatArg::Auto {
        // A compressed file is decompressed whole either way: let
        // `load_file` do it once and detect on the whole text.
        let magic = source::head(path, 4).ok()?;
        if source::Compression::sniff(&magic).is_some() {
            return None;
        }
    }
    let mut src = source::TextChunks::open(path).ok()?;
    let first = src.next_chunk().ok()??.to_vec();
    if format == FormatArg::Auto {
        let head = std::str::from_utf8(&first).ok()?;
        if ingest::detect_format(head) != Format::Har {
            return None;
        }
        // Detection reads the first 64 KiB and the first line: decided by
        // this chunk unless the first line goes on past it.
        let whole = first.len() + 4 < source::TEXT_CHUNK;
        let body = head.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
        let log_first = body[1..]
            .trim_start()
            .strip_prefix("\"log\"")
            .and_then(|r| r.trim_start().strip_prefix(':'))
            .is_some_and(|r| r.trim_start().starts_with('{'));
        if !whole && !log_first && (!body.contains('\n') || body.len() < 64 << 10) {
            return None;
        }
    }
    let mut har = ingest::har::HarStream::new(file_index, &display);
    // The next chunk is read while the entries of this one are parsed.
    let mut chunk = first;
    let mut spare = Vec::new();
    loop {
        match har.push_then(&chunk, || src.next_chunk_into(&mut spare)) {
            Ok(true) => std::mem::swap(&mut chunk, &mut spare),
            Ok(false) => break,
            Err(e) => return Some(unreadable(display, path, e)),
        }
    }
    drop((chunk, spare));
    let parsed = har.finish();
    let (errors, damaged) = decode_problems(&display, &src.warnings, src.damage.as_ref());
    Some(finish(display, src.bytes, parsed, errors, damaged))
}

/// The error lines of what decoding a file found (invalid UTF-8, each
/// named after the file, then a damaged compressed stream's line) and
/// whether the input is incomplete (the run then exits 2).
fn decode_problems(
    display: &str,
    warnings: &[String],
    damage: Option<&source::StreamError>,
) -> (Vec<String>, bool) {
    let mut lines: Vec<String> = warnings.iter().map(|w| format!("{display}: {w}")).collect();
    lines.extend(damage.map(|d| d.to_string()));
    (lines, damage.is_some())
}

/// An input that cannot be read: one fatal error line.
fn unreadable(display: String, path: &Path, e: source::SourceError) -> Loaded {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Loaded {
        info: InputInfo {
            file: display,
            format: "unknown".into(),
            dialect: "unknown".into(),
            bytes,
            errors: vec![e.to_string()],
            ..Default::default()
        },
        records: Vec::new(),
        fatal: true,
        one_direction: false,
        results: Vec::new(),
    }
}

/// Parses a file read whole (HAR and SSE captures, rotated logs and
/// anything not read block by block).
fn load_read(path: &Path, file: source::SourceFile, file_index: u32, format: FormatArg) -> Loaded {
    let display = path.display().to_string();
    let input = Input {
        file: file_index,
        name: &file.display,
        text: &file.text,
    };
    let detected = ingest::detect_format(&file.text);
    let fmt = match (format, detected) {
        (FormatArg::Auto, d) => d,
        (FormatArg::Har, _) => Format::Har,
        (FormatArg::Sse, _) => Format::Sse,
        (FormatArg::Stdio, d @ Format::Lines(_)) => d,
        (FormatArg::Stdio, _) => Format::Unknown,
    };
    let parsed = ingest::parse(input, fmt);
    // A damaged compressed stream: its whole lines are analysed, the run
    // still exits 2 (the input is incomplete).
    let (errors, damaged) = decode_problems(&display, &file.warnings, file.damage.as_ref());
    let mut l = finish(display, file.bytes, parsed, errors, damaged);
    if fmt == Format::Unknown {
        l.fatal = true;
    }
    l
}

fn finish(
    display: String,
    bytes: u64,
    parsed: Parsed,
    mut errors: Vec<String>,
    fatal: bool,
) -> Loaded {
    let prefix = format!("{display}: ");
    errors.extend(parsed.errors.iter().map(|e| {
        if e.starts_with(&prefix) {
            e.clone()
        } else {
            format!("{prefix}{e}")
        }
    }));
    // Read to the end, yet no traffic: say so, so that a gate does not
    // mistake an input it could not use for a clean capture.
    if parsed.records.is_empty()
        && !parsed.incomplete
        && !parsed.format.is_empty()
        && parsed.format != "unknown"
    {
        errors.push(format!(
            "{prefix}no JSON-RPC traffic found (read as {})",
            report::read_as(parsed.format, parsed.dialect)
        ));
    }
    Loaded {
        info: InputInfo {
            file: display,
            format: if parsed.format.is_empty() {
                "unknown".into()
            } else {
                parsed.format.into()
            },
            dialect: if parsed.dialect.is_empty() {
                "unknown".into()
            } else {
                parsed.dialect.into()
            },
            sessions: 0,
            bytes,
            errors,
            other_lines: parsed.other_lines,
            partner: None,
        },
        fatal: fatal || parsed.incomplete,
        one_direction: parsed.one_direction,
        records: parsed.records,
        results: Vec::new(),
    }
}

/// Runs the program; returns the exit code (0 clean, 1 findings at or above
/// `--fail-on`, 2 usage error or an unreadable input).
pub fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Analyze(args) => analyze_cmd(args),
    }
}

fn analyze_cmd(args: AnalyzeArgs) -> Result<u8> {
    if let Some(n) = args.threads {
        if n == 0 || n > MAX_THREADS {
            bail!("--threads must be between 1 and {MAX_THREADS}");
        }
    }
    // One malloc arena per worker, set before any thread starts: each
    // arena keeps its own freed memory, and glibc's default (8 per core)
    // let the parse's leftovers pile up (reports/BENCH.md, 2 threads: HAR
    // 500 MB analysis 331 MB peak by default, 248 MB with 2 arenas; one
    // arena for all gives 217 MB but its lock costs ~20 % of the
    // two-thread speed).
    let workers = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    crate::mem::limit_arenas(workers);
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .ok();
    }
    if !(args.slow_factor.is_finite() && args.slow_factor > 0.0) {
        bail!("--slow-factor must be a positive number");
    }
    if args.timeout <= 0 {
        bail!("--timeout must be longer than 0 (every response would be late)");
    }
    let cfg = Config {
        timeout_us: args.timeout,
        slow_us: args.slow,
        slow_factor: args.slow_factor,
    };
    let shard = shard_arg(&args)?;
    // The run's own output folders are not inputs (a nightly job often
    // writes them beside, or inside, the logs it reads).
    let own: Vec<PathBuf> = args.out.iter().chain(&args.shard_dir).cloned().collect();
    let specs = source::expand_excluding(&args.inputs, &own);
    if specs.is_empty() {
        let skipped = if own.is_empty() {
            String::new()
        } else {
            format!(
                " (the run's own output folders are not read: {})",
                own.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        bail!(
            "no input files found in {}{skipped}",
            args.inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let progress = progress_for(&args, &specs);
    let loaded: Vec<Loaded> = specs
        .par_iter()
        .enumerate()
        .map(|(i, s)| load(s, i, args.format, &cfg, args.block_bytes, &progress))
        .collect();
    progress.stage("analysing");
    let mut fatal_inputs = vec![false; loaded.len()];
    let mut infos = Vec::with_capacity(loaded.len());
    let mut records: Vec<(usize, Vec<Record>, bool)> = Vec::with_capacity(loaded.len());
    let mut streamed: Vec<(usize, Vec<analyze::SessionResult>)> = Vec::new();
    let mut any_fatal = false;
    let mut group: Option<(String, Box<str>)> = None;
    for (i, mut l) in loaded.into_iter().enumerate() {
        // Input errors quote captured lines ("first lines: …"): redacted
        // like every other output unless --no-redact.
        if !args.no_redact {
            for msg in &mut l.info.errors {
                if let std::borrow::Cow::Owned(r) = report::redact::redact(msg) {
                    *msg = r;
                }
            }
        }
        let stderr = std::io::stderr();
        let mut e = stderr.lock();
        progress.suspend(|| {
            for msg in &l.info.errors {
                let _ = writeln!(
                    e,
                    "mcp-audit: {}",
                    crate::report::terminal::sanitize(msg, 400)
                );
            }
        });
        any_fatal |= l.fatal;
        fatal_inputs[i] = l.fatal;
        if !l.results.is_empty() {
            streamed.push((i, std::mem::take(&mut l.results)));
        }
        // Rotated files of one log (DESIGN.md "Scale"), oldest first: their
        // records continue one another, so a session spans the rotation.
        // File-keyed sessions take the group's name.
        match &specs[i].rotation {
            Some(rot) => {
                let same = group.as_ref().is_some_and(|(g, _)| *g == rot.group);
                if !same {
                    group = Some((rot.group.clone(), rot.group.as_str().into()));
                }
                let (_, key) = group.as_ref().expect("set above");
                rename_file_key(&mut l.records, &l.info.file, key);
                match records.last_mut() {
                    Some(last) if same => last.1.append(&mut l.records),
                    _ => records.push((i, std::mem::take(&mut l.records), l.one_direction)),
                }
            }
            None => {
                group = None;
                records.push((i, std::mem::take(&mut l.records), l.one_direction));
            }
        }
        infos.push(l.info);
    }
    let sessions = reconstruct::build_sessions(records);
    for s in sessions.iter().filter(|s| s.counted) {
        if let Some(info) = infos.get_mut(s.input) {
            info.sessions += 1;
        }
    }
    // Walk the sessions read whole, then merge with the streamed ones in
    // input order (deterministic for any thread count).
    let walked: Vec<analyze::SessionResult> = sessions
        .par_iter()
        .map(|s| analyze::engine::walk(&cfg, s))
        .collect();
    drop(sessions);
    let mut all: Vec<(usize, usize, analyze::SessionResult)> = walked
        .into_iter()
        .enumerate()
        .map(|(n, r)| (r.input, n, r))
        .collect();
    for (input, results) in streamed {
        all.extend(results.into_iter().enumerate().map(|(n, r)| (input, n, r)));
    }
    all.sort_by_key(|(input, n, _)| (*input, *n));
    let mut analysis = analyze::finalize(&cfg, all.into_iter().map(|(_, _, r)| r).collect());
    let redact = !args.no_redact;
    if redact {
        report::redact::analysis(&mut analysis);
    }
    let rep = Report::new(&infos, &analysis);
    progress.stage("writing");
    if let Some(dir) = &args.out {
        write_outputs(dir, &rep, redact)?;
    }
    if let (Some(root), Some(shard)) = (&args.shard_dir, &shard) {
        write_shard(root, shard, &rep)?;
    }
    progress.finish();
    if !args.quiet {
        let mut out = std::io::stdout().lock();
        let text = if args.json {
            serde_json::to_string_pretty(&report::json::Summary(&rep))? + "\n"
        } else {
            let color = report::terminal::use_color(
                std::io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
                std::env::var_os("TERM").as_deref(),
            );
            report::terminal::render(&rep, color)
        };
        if let Err(e) = out.write_all(text.as_bytes()) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                return Err(e).context("writing to stdout");
            }
        }
    }
    let floor = match args.fail_on {
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Error => Some(Severity::Error),
        FailOn::Never => None,
    };
    let failing = floor.is_some_and(|fl| analysis.findings.iter().any(|f| f.kind.severity() >= fl));
    if let (true, Some(dir)) = (args.per_input, &args.out) {
        drop(rep);
        write_per_input(dir, &infos, &fatal_inputs, analysis, args.fail_on)?;
    }
    if any_fatal {
        return Ok(2);
    }
    Ok(if failing { 1 } else { 0 })
}

/// Gives the records keyed by a rotated file's own name the group's name.
fn rename_file_key(records: &mut [Record], file: &str, group: &str) {
    for r in records {
        let key = match r {
            Record::Frame(f) => &mut f.key,
            Record::ProcessStart { key, .. } => key,
        };
        if &**key == file {
            *key = group.into();
        }
    }
}

// ---- Progress, nightly batch mode and shards (issue 5, "scale") ----------

/// The run's progress bar: drawn only when stderr is a terminal and `-q`
/// is not given (`report::progress`); its total is the inputs' size on
/// disk.
fn progress_for(args: &AnalyzeArgs, specs: &[InputSpec]) -> Progress {
    let show = !args.quiet && std::io::stderr().is_terminal();
    if !show {
        return Progress::hidden();
    }
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let total = specs
        .iter()
        .map(|s| match &s.kind {
            source::InputKind::File(p) => size(p),
            source::InputKind::Pair { c2s, s2c, .. } => size(c2s) + size(s2c),
            _ => 0,
        })
        .sum();
    Progress::new(total, true)
}

/// JSON-RPC messages in parsed records (rule 2: objects in frames and
/// batches), for the progress bar.
fn messages_in(records: &[Record]) -> u64 {
    use crate::record::{Member, Payload};
    records
        .iter()
        .map(|r| match r {
            Record::Frame(f) => match &f.payload {
                Payload::Single(_) => 1,
                Payload::Batch(m) => {
                    m.iter().filter(|m| matches!(m, Member::Message(_))).count() as u64
                }
                _ => 0,
            },
            Record::ProcessStart { .. } => 0,
        })
        .sum()
}

/// Counts an input read whole in the progress.
fn counted(l: Loaded, progress: &Progress) -> Loaded {
    progress.read(l.info.bytes, messages_in(&l.records));
    l
}

/// `--shard` and `--shard-dir`, checked before any input is read: both or
/// neither, and a partition whose keys are no table's column.
fn shard_arg(args: &AnalyzeArgs) -> Result<Option<Shard>> {
    let text = match (&args.shard, &args.shard_dir) {
        (None, None) => return Ok(None),
        (Some(t), Some(_)) => t,
        (Some(_), None) => bail!("--shard needs --shard-dir (the shared folder of the shards)"),
        (None, Some(_)) => bail!(
            "--shard-dir needs --shard (this run's partition, e.g. date=2026-11-30,host=web1)"
        ),
    };
    let empty = analyze::Analysis::default();
    let report = Report::new(&[], &empty);
    let tables = report.tables().context("building the tables")?;
    let mut columns: Vec<(&'static str, String)> = Vec::new();
    for stem in analyze::tables::TABLES {
        let df = tables.whole(stem).context("building the tables")?;
        columns.extend(
            df.get_column_names()
                .into_iter()
                .map(|c| (stem, c.to_string())),
        );
    }
    Ok(Some(Shard::parse(text, &columns)?))
}

/// Writes the run's Parquet tables as one shard: `ROOT/TABLE/K=V/…/`
/// [`report::shard::PART_FILE`], each through a hidden temporary file
/// renamed into place, so an engine reading the folder meanwhile never
/// sees half a file.
fn write_shard(root: &Path, shard: &Shard, rep: &Report<'_>) -> Result<()> {
    if root.exists() && !root.is_dir() {
        bail!("--shard-dir {}: not a directory", root.display());
    }
    let tables = rep.tables().context("building the tables")?;
    for stem in analyze::tables::TABLES {
        let dir = root.join(shard.folder(stem));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let part = dir.join(report::shard::PART_FILE);
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            report::shard::PART_FILE,
            std::process::id()
        ));
        let write = || -> Result<()> {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            report::parquet::write(tables.frames(stem)?, &mut w)?;
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

/// `--per-input`: one `summary.json` per input, from its share of the run
/// (`Analysis::split_by_input`), in `OUT/inputs/NNNN-STEM/`, and
/// `OUT/inputs/index.json` listing them.
fn write_per_input(
    dir: &Path,
    infos: &[InputInfo],
    fatal: &[bool],
    analysis: analyze::Analysis,
    fail_on: FailOn,
) -> Result<()> {
    let floor = match fail_on {
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Error => Some(Severity::Error),
        FailOn::Never => None,
    };
    let root = dir.join("inputs");
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let width = infos.len().saturating_sub(1).to_string().len().max(4);
    let mut parts = analysis.split_by_input().into_iter().peekable();
    let mut rows = Vec::with_capacity(infos.len());
    let mut shares = Vec::with_capacity(infos.len());
    for (i, info) in infos.iter().enumerate() {
        let part = parts
            .next_if(|(n, _)| *n == i)
            .map(|(_, a)| a)
            .unwrap_or_default();
        let name = format!("{i:0width$}-{}", folder_stem(&info.file));
        let worst = part.worst_severity();
        let exit = if fatal.get(i).copied().unwrap_or(false) {
            2
        } else if floor.is_some_and(|f| worst.is_some_and(|w| w >= f)) {
            1
        } else {
            0
        };
        shares.push((i, name, exit, part));
    }
    for (i, name, exit, part) in &shares {
        let sub = root.join(name);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        let rep = Report::new(std::slice::from_ref(&infos[*i]), part);
        let p = sub.join("summary.json");
        let write = || -> Result<()> {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&p)?);
            serde_json::to_writer_pretty(&mut w, &report::json::Summary(&rep))?;
            w.write_all(b"\n")?;
            w.flush()?;
            Ok(())
        };
        write().with_context(|| format!("writing {}", p.display()))?;
        rows.push((*i, format!("inputs/{name}/summary.json"), *exit, rep));
    }
    let index: Vec<report::json::IndexRow<'_>> = rows
        .iter()
        .map(|(i, summary, exit, rep)| report::json::IndexRow {
            input: *i,
            report: rep,
            summary: summary.clone(),
            exit: *exit,
        })
        .collect();
    let fail_on = match fail_on {
        FailOn::Warning => "warning",
        FailOn::Error => "error",
        FailOn::Never => "never",
    };
    let p = root.join("index.json");
    let write = || -> Result<()> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&p)?);
        serde_json::to_writer_pretty(&mut w, &report::json::index(&index, fail_on))?;
        w.write_all(b"\n")?;
        w.flush()?;
        Ok(())
    };
    write().with_context(|| format!("writing {}", p.display()))
}

fn write_outputs(dir: &Path, rep: &Report<'_>, redact: bool) -> Result<()> {
    // Between stages, what the last one freed goes back to the system, so
    // the peak is the analysis plus the largest stage (issue 5), not the
    // analysis plus every stage's leftovers.
    crate::mem::give_back();
    if dir.exists() && !dir.is_dir() {
        bail!("--out {}: not a directory", dir.display());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating output directory {}", dir.display()))?;
    let create = |name: &str| -> Result<std::io::BufWriter<std::fs::File>> {
        let p = dir.join(name);
        Ok(std::io::BufWriter::new(
            std::fs::File::create(&p).with_context(|| format!("writing {}", p.display()))?,
        ))
    };
    let mut w = create("summary.json")?;
    serde_json::to_writer_pretty(&mut w, &report::json::Summary(rep))?;
    w.write_all(b"\n")?;
    w.flush()?;
    let tables = rep.tables().context("building the tables")?;
    crate::mem::give_back();
    report::csv::findings(&tables, create("findings.csv")?).context("writing findings.csv")?;
    report::csv::pairs(&tables, create("pairs.csv")?).context("writing pairs.csv")?;
    report::csv::batches(&tables, create("batches.csv")?).context("writing batches.csv")?;
    report::csv::latency(&tables, create("latency.csv")?).context("writing latency.csv")?;
    crate::mem::give_back();
    for stem in analyze::tables::TABLES {
        let name = format!("{stem}.parquet");
        let mut w = create(&name)?;
        tables
            .frames(stem)
            .and_then(|frames| report::parquet::write(frames, &mut w))
            .with_context(|| format!("writing {name}"))?;
        w.flush().with_context(|| format!("writing {name}"))?;
    }
    // The tables are written: free them before the page is built (issue 5:
    // peak memory is the larger of the two, not their sum).
    drop(tables);
    crate::mem::give_back();
    let evidence = read_evidence(rep, redact);
    crate::mem::give_back();
    let latency = analyze::histogram::by_method(rep.analysis);
    let extras = report::html::Extras {
        evidence: &evidence,
        latency: &latency,
        redact,
    };
    report::html::render(rep, &extras, create("report.html")?).context("writing report.html")?;
    Ok(())
}

/// Re-reads the evidence `report.html` shows (DESIGN.md "records": the raw
/// JSON is not kept in memory), one pass per file, files in parallel, and
/// keeps each excerpt as the page shows it (`html::show_excerpt`: the
/// read window is dropped). A file that cannot be read again (moved,
/// changed) only loses its evidence.
fn read_evidence(
    rep: &Report<'_>,
    redact: bool,
) -> std::collections::HashMap<report::html::EvidenceKey, report::html::Shown> {
    let mut by_file: std::collections::BTreeMap<u32, Vec<(u64, u32)>> =
        std::collections::BTreeMap::new();
    for (file, off, len) in report::html::evidence_wanted(rep) {
        by_file.entry(file).or_default().push((off, len));
    }
    by_file
        .into_par_iter()
        .flat_map_iter(|(file, ranges)| {
            let path = PathBuf::from(rep.file_name(file));
            let har = rep
                .inputs
                .get((file / 2) as usize)
                .is_some_and(|i| i.format == "har");
            let got =
                source::evidence(&path, &ranges, report::html::READ_WINDOW).unwrap_or_default();
            ranges
                .into_iter()
                .zip(got)
                .filter_map(move |((off, len), e)| {
                    e.map(|e| {
                        (
                            (file, off, len),
                            report::html::show_excerpt(&e, har, redact),
                        )
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_us("60s"), Ok(60_000_000));
        assert_eq!(parse_duration_us("1500ms"), Ok(1_500_000));
        assert_eq!(parse_duration_us("2m"), Ok(120_000_000));
        assert_eq!(parse_duration_us("250"), Ok(250_000));
        assert!(parse_duration_us("soon").is_err());
    }
}

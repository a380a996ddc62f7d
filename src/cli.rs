//! The command line (clap derive) and the run: the edge of the program,
//! where inputs are read, stages are wired, outputs are written, and errors
//! get their context. stdout carries results; stderr carries diagnostics.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use crate::analyze::{self, Config, Severity};
use crate::ingest::{self, Format, Input};
use crate::reconstruct;
use crate::record::{Parsed, Record};
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
    /// Write summary.json, findings.csv, pairs.csv and batches.csv here.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A response later than this is `late_response` (e.g. 60s, 1500ms, 2m).
    #[arg(long, default_value = "60s", value_parser = parse_duration_us)]
    pub timeout: i64,
    /// Floor of `slow_tail`, and how long a notification POST may be held.
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
    #[arg(long)]
    pub json: bool,
    /// Print nothing on stdout (files and exit code only).
    #[arg(short, long)]
    pub quiet: bool,
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
        _ => Err(format!("`{text}` is not a duration (use e.g. 60s, 1500ms, 2m)")),
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
}

fn load(spec: &InputSpec, file_index: u32, format: FormatArg) -> Loaded {
    match &spec.kind {
        source::InputKind::File(path) => load_file(path, file_index, format),
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
                errors.push(format!("{display}: no such file or directory (nor its partner {})", s2c.display()));
                fatal = true;
            }
            let bytes = halves.iter().flatten().map(|f| f.bytes).sum();
            // One half alone is read alone, every line in its file's direction
            // (FORMATS.md §8.3.8); say so, since its partner's findings are absent.
            match (&halves[0], &halves[1]) {
                (Some(_), None) if !fatal => errors.push(format!("{display}: partner {} not found; read alone", s2c.display())),
                (None, Some(_)) if !fatal => errors.push(format!("{}: partner {display} not found; read alone", s2c.display())),
                _ => {}
            }
            let c = halves[0].as_ref().map(|f| Input { file: file_index, name: &f.display, text: &f.text });
            let s = halves[1].as_ref().map(|f| Input { file: file_index + 1, name: &f.display, text: &f.text });
            let parsed = if c.is_some() || s.is_some() { ingest::pair::parse(c, s, name) } else { Parsed::default() };
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
            l
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
        },
    }
}

fn load_file(path: &Path, file_index: u32, format: FormatArg) -> Loaded {
    let display = path.display().to_string();
    let file = match source::read(path) {
        Ok(f) => f,
        Err(e) => {
            let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            return Loaded {
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
            };
        }
    };
    let input = Input { file: file_index, name: &file.display, text: &file.text };
    let detected = ingest::detect_format(&file.text);
    let fmt = match (format, detected) {
        (FormatArg::Auto, d) => d,
        (FormatArg::Har, _) => Format::Har,
        (FormatArg::Sse, _) => Format::Sse,
        (FormatArg::Stdio, d @ Format::Lines(_)) => d,
        (FormatArg::Stdio, _) => Format::Unknown,
    };
    let parsed = ingest::parse(input, fmt);
    let mut warnings: Vec<String> = file.warnings.iter().map(|w| format!("{display}: {w}")).collect();
    // A damaged compressed stream: its whole lines are analysed, the run
    // still exits 2 (the input is incomplete).
    let damaged = file.damage.is_some();
    warnings.extend(file.damage.iter().map(|d| d.to_string()));
    let mut l = finish(display, file.bytes, parsed, warnings, damaged);
    if fmt == Format::Unknown {
        l.fatal = true;
    }
    l
}

fn finish(display: String, bytes: u64, parsed: Parsed, mut errors: Vec<String>, fatal: bool) -> Loaded {
    let prefix = format!("{display}: ");
    errors.extend(parsed.errors.iter().map(|e| if e.starts_with(&prefix) { e.clone() } else { format!("{prefix}{e}") }));
    // Read to the end, yet no traffic: say so, so that a gate does not
    // mistake an input it could not use for a clean capture.
    if parsed.records.is_empty() && !parsed.incomplete && !parsed.format.is_empty() && parsed.format != "unknown" {
        errors.push(format!("{prefix}no JSON-RPC traffic found (read as {} {})", parsed.format, parsed.dialect));
    }
    Loaded {
        info: InputInfo {
            file: display,
            format: if parsed.format.is_empty() { "unknown".into() } else { parsed.format.into() },
            dialect: if parsed.dialect.is_empty() { "unknown".into() } else { parsed.dialect.into() },
            sessions: 0,
            bytes,
            errors,
            other_lines: parsed.other_lines,
            partner: None,
        },
        fatal: fatal || parsed.incomplete,
        one_direction: parsed.one_direction,
        records: parsed.records,
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
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().ok();
    }
    if !(args.slow_factor.is_finite() && args.slow_factor > 0.0) {
        bail!("--slow-factor must be a positive number");
    }
    let cfg = Config { timeout_us: args.timeout, slow_us: args.slow, slow_factor: args.slow_factor };
    let specs = source::expand(&args.inputs);
    if specs.is_empty() {
        bail!("no input files found in {}", args.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    }
    let loaded: Vec<Loaded> =
        specs.par_iter().enumerate().map(|(i, s)| load(s, report::file_id(i, 0), args.format)).collect();
    let mut infos = Vec::with_capacity(loaded.len());
    let mut records: Vec<(usize, Vec<Record>, bool)> = Vec::with_capacity(loaded.len());
    let mut any_fatal = false;
    let mut group: Option<(String, Box<str>)> = None;
    for (i, mut l) in loaded.into_iter().enumerate() {
        let stderr = std::io::stderr();
        let mut e = stderr.lock();
        for msg in &l.info.errors {
            let _ = writeln!(e, "mcp-audit: {}", crate::report::terminal::sanitize(msg, 400));
        }
        any_fatal |= l.fatal;
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
    let analysis = analyze::analyze(&cfg, &sessions);
    let rep = Report::new(&infos, &analysis);
    if let Some(dir) = &args.out {
        write_outputs(dir, &rep)?;
    }
    if !args.quiet {
        let mut out = std::io::stdout().lock();
        let text = if args.json {
            serde_json::to_string_pretty(&report::json::summary(&rep))? + "\n"
        } else {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            report::terminal::render(&rep, color)
        };
        if let Err(e) = out.write_all(text.as_bytes()) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                return Err(e).context("writing to stdout");
            }
        }
    }
    if any_fatal {
        return Ok(2);
    }
    let floor = match args.fail_on {
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Error => Some(Severity::Error),
        FailOn::Never => None,
    };
    let failing = floor.is_some_and(|fl| analysis.findings.iter().any(|f| f.kind.severity() >= fl));
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

fn write_outputs(dir: &Path, rep: &Report<'_>) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("--out {}: not a directory", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating output directory {}", dir.display()))?;
    let create = |name: &str| -> Result<std::io::BufWriter<std::fs::File>> {
        let p = dir.join(name);
        Ok(std::io::BufWriter::new(std::fs::File::create(&p).with_context(|| format!("writing {}", p.display()))?))
    };
    let mut w = create("summary.json")?;
    serde_json::to_writer_pretty(&mut w, &report::json::summary(rep))?;
    w.write_all(b"\n")?;
    w.flush()?;
    report::csv::findings(rep, create("findings.csv")?).context("writing findings.csv")?;
    report::csv::pairs(rep, create("pairs.csv")?).context("writing pairs.csv")?;
    report::csv::batches(rep, create("batches.csv")?).context("writing batches.csv")?;
    Ok(())
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

//! The command line (clap derive): arguments are parsed here and turned
//! into a validated [`RunConfig`] by [`config()`]; every flag is checked
//! before anything happens. The run itself is [`crate::pipeline::run`].

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::analyze::gates::{LatencyBudget, Policy};
use crate::analyze::{self, FindingKind, tables};
use crate::config::{self, InputFormat, RunConfig, ShardTarget, Stdout, UsageError};
use crate::report::Report;
use crate::report::shard::Shard;

pub use crate::config::{BLOCK_BYTES, MAX_THREADS};

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
    #[command(after_help = ANALYZE_HELP)]
    Analyze(Box<AnalyzeArgs>),
    /// Compare two runs (`--out` folders, summary.json files or Hive shard
    /// folders): kinds up or down, sessions and inputs added or gone,
    /// p50/p99 per method.
    #[command(
        after_help = "Findings are counted per kind and severity, each at the severity its run gave it: a \
kind's info findings (a capture gap, a long-running operation with progress) apart from its warnings and \
errors.\n\
Exit codes: 0 no regression; 1 a regression (warning or error findings of a kind that went up in number, \
or a p99 that grew beyond --p99-regression); 2 a side that could not be read."
    )]
    Diff(DiffArgs),
    /// Write a smaller capture, in the input's own format and redacted,
    /// that holds what one finding (or one session) needs and reads back
    /// with that finding: for a bug report.
    #[command(after_help = EXTRACT_HELP)]
    Extract(ExtractArgs),
}

/// `analyze --help`'s closing text.
const ANALYZE_HELP: &str = "stdout: a summary per session (server, revision, counts, batch metrics, findings by kind with file and line or HAR entry, diagnosis hints), or summary.json with --json. \
stderr: one line per input problem (`FILE: line N: …`), one per notice (`notice: …`: a body repaired from windows-1252 mojibake, a HAR entry that is no MCP traffic), one per folder and reason left out of a walk (`PATH: skipped: why`), and a progress line on a terminal.
Secrets (Authorization, cookies, API-key headers, tokens and keys in URLs, JSON members and free text named like secrets, Bearer strings, JWTs) are redacted in every output unless --no-redact.
Exit codes: 0 clean; 1 a finding at or above --fail-on (default: error), or a failed gate (--fail-on-kind, --max-latency); \
2 a usage error, or an input that could not be read or held no JSON-RPC traffic (the other inputs are still analysed and reported).";

/// `extract --help`'s closing text.
const EXTRACT_HELP: &str = "Findings are numbered as `mcp-audit analyze INPUT` alone lists them \
(same --format, --timeout, --slow, --slow-factor): N is the N-th row after the header of findings.csv, findings[N-1] of summary.json (analyze --json).
The extract keeps the frames around the finding (its request, its response(s), the batch it names, the session's initialize); \
if that does not read back with the same finding (kind, id, severity), the whole session, then the whole input. \
A line log keeps its lines byte for byte apart from redaction; a HAR is a HAR 1.2 with only the entries kept; a raw SSE capture keeps its header blocks and events.
Exit codes: 0 written; 2 a bad argument, an unreadable input, or an output that is the input (one line on stderr).";

/// Width `--help` fits in (columns), like the terminal summary.
pub const HELP_WIDTH: usize = 80;

/// How far clap indents an option's help under its name.
const HELP_INDENT: usize = 10;

/// The command line as `--help` shows it: [`Cli`]'s, with every help text
/// on the line below its option and wrapped to fit [`HELP_WIDTH`] columns
/// whatever the terminal (README.md quotes it: `tests/suite/readme.rs`).
pub fn command() -> clap::Command {
    fit(Cli::command().next_line_help(true))
}

/// [`command`]'s wrapping, for one command and its subcommands.
fn fit(cmd: clap::Command) -> clap::Command {
    let inner = HELP_WIDTH - HELP_INDENT;
    let w = |t: Option<&clap::builder::StyledStr>, width: usize| {
        t.map(|t| wrap_text(&t.to_string(), width))
    };
    let (about, long_about) = (
        w(cmd.get_about(), inner),
        w(cmd.get_long_about(), HELP_WIDTH),
    );
    let after = w(cmd.get_after_help(), HELP_WIDTH);
    let mut cmd = cmd.mut_args(|a| {
        let (help, long) = (w(a.get_help(), inner), w(a.get_long_help(), inner));
        let a = match help {
            Some(h) => a.help(h),
            None => a,
        };
        match long {
            Some(h) => a.long_help(h),
            None => a,
        }
    });
    if let Some(t) = about {
        cmd = cmd.about(t);
    }
    if let Some(t) = long_about {
        cmd = cmd.long_about(t);
    }
    if let Some(t) = after {
        cmd = cmd.after_help(t);
    }
    cmd.mut_subcommands(fit)
}

/// `text` with each of its lines wrapped at spaces to at most `width`
/// characters (a word longer than that keeps its own line).
pub fn wrap_text(text: &str, width: usize) -> String {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut cur = String::new();
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let len = |s: &str| s.chars().count();
            if !cur.is_empty() && len(&cur) + 1 + len(word) > width {
                out.push(std::mem::take(&mut cur));
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out.join("\n")
}

/// A value a flag does not take (`--format nope`), as one line naming
/// the flag, the value and the values it takes; `None` for every other
/// command-line error (clap's own text then).
pub fn bad_value_line(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidValue {
        return None;
    }
    let flag = match e.get(ContextKind::InvalidArg)? {
        ContextValue::String(s) => s.split(' ').next()?.to_string(),
        _ => return None,
    };
    let value = match e.get(ContextKind::InvalidValue)? {
        ContextValue::String(s) => s.clone(),
        _ => return None,
    };
    let ContextValue::Strings(valid) = e.get(ContextKind::ValidValue)? else {
        return None;
    };
    let (last, rest) = valid.split_last()?;
    let takes = if rest.is_empty() {
        last.clone()
    } else {
        format!("{} or {last}", rest.join(", "))
    };
    let what = if flag == "--format" {
        "format"
    } else {
        "value"
    };
    Some(format!(
        "{flag} `{value}`: no such {what}; {flag} takes {takes}"
    ))
}

/// Arguments of `extract` (each checked by [`extract_request`], so that a
/// missing one is one line, exit 2).
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// The capture (a HAR, a raw SSE capture or a line log).
    pub input: Option<PathBuf>,
    /// Keep this session (its name as summary.json `sessions[].name` and
    /// findings.csv `session` show it).
    #[arg(long, value_name = "S")]
    pub session: Option<String>,
    /// Keep what finding N needs: N is its row in findings.csv (1 for the first row after the header).
    #[arg(long, value_name = "N")]
    pub finding: Option<String>,
    /// Where the extract goes (never the input); a name ending `.gz` gets
    /// gzip.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// How to read the input, as for analyze.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// As for analyze (findings are numbered as analyze with it finds them).
    #[arg(long, default_value = "60s", value_parser = parse_duration_us, allow_hyphen_values = true)]
    pub timeout: i64,
    /// As for analyze.
    #[arg(long, default_value = "1s", value_parser = parse_duration_us, allow_hyphen_values = true)]
    pub slow: i64,
    /// As for analyze.
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub slow_factor: f64,
    /// Keep secrets as captured (the extract is redacted by default).
    #[arg(long)]
    pub no_redact: bool,
}

/// Checks `extract`'s arguments: the one line a bad one gets.
///
/// # Errors
/// What is missing or wrong, as one line.
pub fn extract_request(a: &ExtractArgs) -> Result<crate::extract::Request, String> {
    let Some(input) = a.input.clone() else {
        return Err(
            "name the capture: mcp-audit extract INPUT (--session S | --finding N) --out FILE"
                .into(),
        );
    };
    let target = match (&a.session, &a.finding) {
        (Some(_), Some(_)) => return Err("give --session S or --finding N, not both".into()),
        (None, None) => {
            return Err(
                "give --session S or --finding N (which part of the capture to keep)".into(),
            );
        }
        (Some(s), None) => crate::extract::Target::Session(s.clone()),
        (None, Some(n)) => match n.trim().parse::<usize>() {
            Ok(v) if v >= 1 => crate::extract::Target::Finding(v),
            _ => {
                return Err(format!(
                    "--finding `{n}`: not a finding number (1 for the first row after the header of findings.csv)"
                ));
            }
        },
    };
    let Some(out) = a.out.clone() else {
        return Err("give --out FILE (where the extract goes)".into());
    };
    if input.as_os_str() == "-" {
        return Err("extract reads a file, not the standard input (-)".into());
    }
    if !(a.slow_factor.is_finite() && a.slow_factor > 0.0) {
        return Err(UsageError::SlowFactor.to_string());
    }
    if a.timeout <= 0 {
        return Err(UsageError::Timeout.to_string());
    }
    Ok(crate::extract::Request {
        input,
        target,
        out,
        format: input_format(a.format),
        rules: analyze::Config {
            timeout_us: a.timeout,
            slow_us: a.slow,
            slow_factor: a.slow_factor,
        },
        redact: !a.no_redact,
    })
}

/// Runs `extract`: writes the extract, prints one line on stdout saying
/// what it holds; a bad argument or input is one line on stderr, exit 2.
pub fn extract(args: &ExtractArgs) -> u8 {
    let req = match extract_request(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcp-audit extract: {e}");
            return 2;
        }
    };
    match crate::extract::run(&req) {
        Ok(o) => {
            println!("{}", crate::extract::summary_line(&req, &o));
            for (kind, id, sev) in &o.lost {
                eprintln!(
                    "mcp-audit extract: warning: {kind} id {id} ({}) of the session is only in the whole input (judged against the whole capture)",
                    sev.as_str()
                );
            }
            0
        }
        Err(e) => {
            eprintln!("mcp-audit extract: {e}");
            2
        }
    }
}

/// Arguments of `diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The earlier run: an `--out` folder, its summary.json, or a shard
    /// folder (`--shard-dir`).
    pub old: PathBuf,
    /// The later run: an `--out` folder, its summary.json, or a shard folder.
    pub new: PathBuf,
    /// A p99 that grew by more than this is a regression (percent, e.g. 20%).
    #[arg(long, default_value = "20%", value_parser = parse_percent)]
    pub p99_regression: f64,
    /// A method's p99 change is judged only when both runs measured at
    /// least this many of its latencies (fewer: one call is the p99).
    #[arg(long, default_value_t = 20)]
    pub min_latencies: u64,
    /// Print the diff as JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the diff as Markdown (to paste into a pull request).
    #[arg(long)]
    pub markdown: bool,
    /// OLD is a shard folder (--shard-dir): read only these partitions
    /// (KEY=VALUE,...), named without these keys.
    #[arg(long, value_name = "KEY=VALUE,...", value_parser = partition_arg)]
    pub old_partition: Option<String>,
    /// NEW is a shard folder (--shard-dir): read only these partitions.
    #[arg(long, value_name = "KEY=VALUE,...", value_parser = partition_arg)]
    pub new_partition: Option<String>,
}

/// Checks a `--old-partition` / `--new-partition` value.
fn partition_arg(text: &str) -> std::result::Result<String, String> {
    crate::diff::parse_partition(text).map(|_| text.to_string())
}

/// Parses `20%` or `20` (percent, 0 or more).
pub fn parse_percent(text: &str) -> std::result::Result<f64, String> {
    match text.trim().trim_end_matches('%').trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a percentage (use e.g. 20%)")),
    }
}

/// Runs `diff`: prints the comparison on stdout; exit 1 on a regression.
///
/// # Errors
/// A side that cannot be read (the caller exits 2).
pub fn diff(args: &DiffArgs) -> anyhow::Result<u8> {
    let part = |p: &Option<String>| {
        p.as_deref()
            .map(crate::diff::parse_partition)
            .transpose()
            .map_err(anyhow::Error::msg)
            .map(Option::unwrap_or_default)
    };
    let old = crate::diff::read_side_of(&args.old, &part(&args.old_partition)?)?;
    let new = crate::diff::read_side_of(&args.new, &part(&args.new_partition)?)?;
    let d = crate::diff::compare(&old, &new, args.p99_regression, args.min_latencies);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&d)?);
    } else {
        print!("{}", crate::diff::text(&d, args.markdown));
    }
    Ok(u8::from(d.regression))
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
    /// Capture files, folders (walked recursively) or globs
    /// ('logs/**/*.log'); `-` reads the standard input (named `<stdin>`).
    ///
    /// Read: HAR files (browsers, proxies, DevTools, Playwright, Firefox,
    /// mitmproxy), raw SSE captures (`curl -N`, with or without `-i`),
    /// stdio line logs of hosts, proxies and bridges (NDJSON envelopes,
    /// bare NDJSON, Claude Desktop, VS Code, Cursor, `[STDIN]`/`[STDOUT]`,
    /// arrow logs, LSP traces, supergateway, mcp-remote, mcp-proxy, …),
    /// mcp-recorder cassettes, MCP Inspector history exports, mcpsnoop and
    /// MCPSpy JSONL, and per-direction `NAME.client-to-server.jsonl` /
    /// `NAME.server-to-client.jsonl` pairs (name either one). Each plain,
    /// .gz or .zst (known by its magic bytes). Rotated files of one log
    /// given together (app.log, app.log.1, app.log.2.gz) are read oldest
    /// first, as one stream.
    ///
    /// A folder walk leaves out, each named on stderr and in summary.json
    /// `skipped`: this run's --out and --shard-dir, earlier runs' output
    /// folders (their summary.json is mcp-audit's), documents (*.md),
    /// expected-result files (*.expected.json), source and build files
    /// (*.py, *.js, *.ts, *.rs, *.toml, …), package, version-control and
    /// tool folders (node_modules, .git, __pycache__, Python virtual
    /// environments, …) and empty files. A file reached by two names is
    /// read once.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// How to read every input; `auto` detects the format and the log
    /// dialect from the content.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// Write the outputs into this folder: summary.json (the contract for
    /// scripts), findings.csv, pairs.csv (a row per request), batches.csv,
    /// latency.csv (p50, p90, p99, p99.9, max overall, per method, server
    /// and batch size), operations.csv, the same tables and the sessions as
    /// Parquet (findings, pairs, batches, latency, sessions and operations
    /// .parquet) and report.html (one self-contained page). With
    /// --per-input also inputs/index.json and a summary.json per input.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Redact secrets (Authorization, cookies, tokens, keys, passwords) in
    /// every output; the default.
    #[arg(long, conflicts_with = "no_redact")]
    pub redact: bool,
    /// Keep secrets as captured in every output.
    #[arg(long)]
    pub no_redact: bool,
    /// A response later than this is `late_response` (e.g. 60s, 1500ms, 2m;
    /// a bare number is milliseconds); not when the request's progress
    /// notifications never left a longer silence (a sender may reset its
    /// timer on progress).
    #[arg(long, default_value = "60s", value_parser = parse_duration_us, allow_hyphen_values = true)]
    pub timeout: i64,
    /// Floor of `slow_tail`, and how long a notification POST may be held
    /// (a bare number is milliseconds).
    #[arg(long, default_value = "1s", value_parser = parse_duration_us, allow_hyphen_values = true)]
    pub slow: i64,
    /// `slow_tail` needs at least this many times the median latency.
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub slow_factor: f64,
    /// Exit 1 when a finding of this severity or above exists.
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Worker threads, 1 to 256 (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print summary.json on stdout instead of the human summary (with -q:
    /// the JSON, and no progress line).
    #[arg(long)]
    pub json: bool,
    /// No summary on stdout and no progress line on stderr: the files, the
    /// exit code, and on stderr only the inputs' problems and notices and
    /// what --max-latency and --otlp could not do; with --json, the JSON
    /// alone.
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
    /// table goes to SHARD_DIR/TABLE/KEY=VALUE/.../part-00000.parquet, the
    /// keys in name order whatever order they are given in.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub shard: Option<String>,
    /// The shared folder of the shards (see --shard; reports/SCHEMA.md).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// Exit 1 on any finding of this kind, whatever its severity
    /// (repeatable; findings a capture gap explains never fail a run).
    #[arg(long, value_name = "KIND")]
    pub fail_on_kind: Vec<String>,
    /// Findings of this kind never fail the run (repeatable); they are
    /// still reported.
    #[arg(long, value_name = "KIND")]
    pub allow: Vec<String>,
    /// A latency budget: exit 1 when the method's quantile (p50, p90, p99,
    /// p99.9, max) is above the duration, e.g. tools/call:p99=2s; `*` holds
    /// every method to it, each on its own latencies (repeatable). A budget
    /// with no latency to measure passes as "not judged".
    #[arg(long, value_name = "METHOD:QUANTILE=DURATION")]
    pub max_latency: Vec<String>,
    /// Write the findings as JUnit XML: a test suite per session (per input
    /// with --per-input), a test case per finding kind, failing where the
    /// run would fail.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the findings as SARIF 2.1.0 (a rule per finding kind, a result
    /// per finding with its file and line, or HAR entry).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write the request/response pairs as OpenTelemetry traces, OTLP/JSON
    /// Lines (one ExportTraceServiceRequest per session and line, as the
    /// Collector's otlpjsonfile receiver reads them), named and attributed
    /// per OpenTelemetry's MCP semantic conventions, findings as span events.
    #[arg(long, value_name = "FILE")]
    pub otlp: Option<PathBuf>,
    /// Write the `mcp.client.operation.duration` histogram (OpenTelemetry's
    /// MCP semantic conventions; seconds, the conventions' bucket
    /// boundaries) as OTLP/JSON metrics, one ExportMetricsServiceRequest on
    /// one line: every request whose latency the capture bounds.
    #[arg(long, value_name = "FILE")]
    pub otlp_metrics: Option<PathBuf>,
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
    // A million hours (114 years): longer is a typo, not a wait.
    const LONGEST_US: f64 = 1e6 * 3_600_000_000.0;
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * mul <= LONGEST_US => Ok((v * mul).round() as i64),
        Ok(v) if v >= 0.0 => Err(format!(
            "`{text}` is longer than 1000000h, the longest duration mcp-audit takes"
        )),
        Ok(v) if v < 0.0 => Err(format!(
            "`{text}` is negative; a duration is 0 or more (e.g. 60s, 1500ms, 2m)"
        )),
        _ => Err(format!(
            "`{text}` is not a duration: a number and a unit, us, ms, s, m or h (e.g. 60s, 1500ms, 2m; no unit is ms)"
        )),
    }
}

/// Turns the parsed command line into a run's configuration, checking
/// every flag first (in this order: `--threads`, `--slow-factor`,
/// `--timeout`, `--shard`/`--shard-dir`, `--fail-on-kind`/`--allow`, the
/// report files, `--max-latency`). Nothing else happens here.
pub fn config(cli: Cli) -> Result<RunConfig, UsageError> {
    let args = match cli.command {
        Command::Analyze(args) => *args,
        Command::Diff(_) | Command::Extract(_) => return Err(UsageError::NotAnalyze),
    };
    check_numbers(&args)?;
    let shard = shard_arg(&args)?;
    let policy = policy_arg(&args)?;
    check_report_files(&args)?;
    let budgets = budgets_arg(&args)?;
    // `--json -q`: the JSON, without the progress line.
    let stdout = if args.json {
        Stdout::Json
    } else if args.quiet {
        Stdout::Quiet
    } else {
        Stdout::Summary
    };
    Ok(RunConfig {
        format: input_format(args.format),
        per_input: args.per_input && args.out.is_some(),
        out: args.out,
        redact: !args.no_redact,
        rules: analyze::Config {
            timeout_us: args.timeout,
            slow_us: args.slow,
            slow_factor: args.slow_factor,
        },
        fail_on: match args.fail_on {
            FailOn::Warning => config::FailOn::Warning,
            FailOn::Error => config::FailOn::Error,
            FailOn::Never => config::FailOn::Never,
        },
        threads: args.threads,
        stdout,
        progress: !args.quiet,
        block_bytes: args.block_bytes,
        shard,
        policy,
        budgets,
        junit: args.junit,
        sarif: args.sarif,
        otlp: args.otlp,
        otlp_metrics: args.otlp_metrics,
        inputs: args.inputs,
    })
}

/// `--format` as the readers take it.
fn input_format(f: FormatArg) -> InputFormat {
    match f {
        FormatArg::Auto => InputFormat::Auto,
        FormatArg::Stdio => InputFormat::Stdio,
        FormatArg::Har => InputFormat::Har,
        FormatArg::Sse => InputFormat::Sse,
    }
}

/// `--threads` (1 to [`MAX_THREADS`]), `--slow-factor` (positive) and
/// `--timeout` (longer than 0).
fn check_numbers(args: &AnalyzeArgs) -> Result<(), UsageError> {
    if let Some(n) = args.threads
        && (n == 0 || n > MAX_THREADS)
    {
        return Err(UsageError::Threads);
    }
    if !(args.slow_factor.is_finite() && args.slow_factor > 0.0) {
        return Err(UsageError::SlowFactor);
    }
    if args.timeout <= 0 {
        return Err(UsageError::Timeout);
    }
    Ok(())
}

/// `--junit`, `--sarif`, `--otlp` and `--otlp-metrics`: no two name the
/// same file.
fn check_report_files(args: &AnalyzeArgs) -> Result<(), UsageError> {
    let targets = [
        ("--junit", &args.junit),
        ("--sarif", &args.sarif),
        ("--otlp", &args.otlp),
        ("--otlp-metrics", &args.otlp_metrics),
    ];
    for (i, (a, pa)) in targets.iter().enumerate() {
        for (b, pb) in &targets[i + 1..] {
            if let (Some(x), Some(y)) = (pa, pb)
                && x == y
            {
                return Err(UsageError::SameReportFile {
                    a,
                    b,
                    path: x.display().to_string(),
                });
            }
        }
    }
    Ok(())
}

/// `--max-latency`: each budget parsed, a budget given twice kept once
/// (in the order first given).
fn budgets_arg(args: &AnalyzeArgs) -> Result<Vec<LatencyBudget>, UsageError> {
    let budgets = args
        .max_latency
        .iter()
        .map(|t| LatencyBudget::parse(t, parse_duration_us))
        .collect::<Result<Vec<_>, _>>()
        .map_err(UsageError::Budget)?;
    let mut budgets_seen = Vec::new();
    Ok(budgets
        .into_iter()
        .filter(|b| {
            let new = !budgets_seen.contains(b);
            budgets_seen.push(b.clone());
            new
        })
        .collect())
}

/// `--fail-on` with `--fail-on-kind` and `--allow`: known kind names, none
/// both allowed and failing.
fn policy_arg(args: &AnalyzeArgs) -> Result<Policy, UsageError> {
    let kinds = |flag: &'static str, names: &[String]| {
        names
            .iter()
            .map(|n| {
                FindingKind::from_name(n.trim()).ok_or_else(|| UsageError::UnknownKind {
                    flag,
                    name: n.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let mut fail_on_kind = kinds("--fail-on-kind", &args.fail_on_kind)?;
    let mut allow = kinds("--allow", &args.allow)?;
    // A kind named twice is one gate.
    for list in [&mut fail_on_kind, &mut allow] {
        let mut seen = std::collections::HashSet::new();
        list.retain(|k| seen.insert(*k));
    }
    if let Some(k) = allow.iter().find(|k| fail_on_kind.contains(k)) {
        return Err(UsageError::AllowedAndFailing(k.name().to_string()));
    }
    let floor = match args.fail_on {
        FailOn::Warning => Some(analyze::Severity::Warning),
        FailOn::Error => Some(analyze::Severity::Error),
        FailOn::Never => None,
    };
    Ok(Policy {
        floor,
        fail_on_kind,
        allow,
    })
}

/// `--shard` and `--shard-dir`: both or neither, and a partition whose
/// keys are no table's column.
fn shard_arg(args: &AnalyzeArgs) -> Result<Option<ShardTarget>, UsageError> {
    let (text, dir) = match (&args.shard, &args.shard_dir) {
        (None, None) => return Ok(None),
        (Some(t), Some(d)) => (t, d),
        (Some(_), None) => return Err(UsageError::ShardWithoutDir),
        (None, Some(_)) => return Err(UsageError::DirWithoutShard),
    };
    let empty = analyze::Analysis::default();
    let report = Report::new(&[], &empty);
    let tables = report.tables().map_err(UsageError::Tables)?;
    let mut columns: Vec<(&'static str, String)> = Vec::new();
    for stem in tables::TABLES {
        let df = tables.whole(stem).map_err(UsageError::Tables)?;
        columns.extend(
            df.get_column_names()
                .into_iter()
                .map(|c| (stem, c.to_string())),
        );
    }
    Ok(Some(ShardTarget {
        shard: Shard::parse(text, &columns)?,
        dir: dir.clone(),
    }))
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
        // Days are no unit: the message lists those there are.
        assert_eq!(
            parse_duration_us("99999999999999999999d"),
            Err("`99999999999999999999d` is not a duration: a number and a unit, us, ms, s, m or h (e.g. 60s, 1500ms, 2m; no unit is ms)".into())
        );
        assert_eq!(parse_duration_us("1000000h"), Ok(3_600_000_000_000_000));
        assert_eq!(
            parse_duration_us("99999999999999999999h"),
            Err("`99999999999999999999h` is longer than 1000000h, the longest duration mcp-audit takes".into())
        );
    }

    #[test]
    fn negative_durations_and_conflicting_flags_get_our_words() {
        let refused = |args: &[&str]| {
            let argv = ["mcp-audit", "analyze", "in.log"].iter().chain(args);
            Cli::try_parse_from(argv).expect_err("refused").to_string()
        };
        let e = refused(&["--timeout", "-5s"]);
        assert!(
            e.contains("`-5s` is negative; a duration is 0 or more (e.g. 60s, 1500ms, 2m)"),
            "{e}"
        );
        let e = refused(&["--slow", "-1"]);
        assert!(e.contains("`-1` is negative"), "{e}");
        let e = refused(&["--redact", "--no-redact"]);
        assert!(
            e.contains("the argument '--redact' cannot be used with '--no-redact'"),
            "{e}"
        );
        assert!(matches!(
            checked(&["--slow-factor", "-2"]),
            Err(UsageError::SlowFactor)
        ));
    }

    fn checked(args: &[&str]) -> Result<RunConfig, UsageError> {
        let argv = ["mcp-audit", "analyze", "in.log"].iter().chain(args);
        config(Cli::try_parse_from(argv).expect("clap accepts it"))
    }

    #[test]
    fn json_with_quiet_is_the_json_without_progress() {
        let c = checked(&["--json", "-q"]).expect("accepted");
        assert_eq!((c.stdout, c.progress), (Stdout::Json, false));
        let c = checked(&["-q"]).expect("accepted");
        assert_eq!((c.stdout, c.progress), (Stdout::Quiet, false));
        let c = checked(&["--json"]).expect("accepted");
        assert_eq!((c.stdout, c.progress), (Stdout::Json, true));
    }

    #[test]
    fn help_text_wraps_at_spaces() {
        assert_eq!(wrap_text("aa bb cc\ndd", 5), "aa bb\ncc\ndd");
        assert_eq!(wrap_text("abcdefgh ij", 4), "abcdefgh\nij");
        assert_eq!(wrap_text("a\n\nb", 80), "a\n\nb");
        command().debug_assert();
    }

    #[test]
    fn flags_are_checked_in_order() {
        let err = |args: &[&str]| checked(args).expect_err("refused");
        assert!(matches!(
            err(&["--threads", "0", "--timeout", "0"]),
            UsageError::Threads
        ));
        assert!(matches!(
            err(&["--slow-factor", "0", "--timeout", "0"]),
            UsageError::SlowFactor
        ));
        assert!(matches!(
            err(&["--timeout", "0", "--shard", "a=b"]),
            UsageError::Timeout
        ));
        assert!(matches!(
            err(&["--shard", "a=b"]),
            UsageError::ShardWithoutDir
        ));
        assert!(matches!(
            err(&["--shard-dir", "d"]),
            UsageError::DirWithoutShard
        ));
        assert!(matches!(
            err(&["--shard", "kind=x", "--shard-dir", "d"]),
            UsageError::Shard(_)
        ));
    }

    #[test]
    fn gate_flags_are_checked() {
        let err = |args: &[&str]| checked(args).expect_err("refused").to_string();
        assert_eq!(
            err(&["--allow", "slow_tails"]),
            "--allow slow_tails: no such finding kind (the kinds are listed in docs/DESIGN.md, \"Findings catalogue\")"
        );
        assert_eq!(
            err(&[
                "--fail-on-kind",
                "late_response",
                "--allow",
                "late_response"
            ]),
            "--allow late_response and --fail-on-kind late_response contradict each other"
        );
        assert!(
            err(&["--max-latency", "tools/call:p95=1s"])
                .starts_with("--max-latency `tools/call:p95=1s`: quantile")
        );
        let c = checked(&[
            "--fail-on-kind",
            "late_response",
            "--allow",
            "slow_tail",
            "--allow",
            "slow_tail",
            "--max-latency",
            "*:p99=2s",
            "--max-latency",
            "*:p99=2000ms",
            "--fail-on",
            "warning",
        ])
        .expect("valid");
        assert_eq!(
            c.policy,
            Policy {
                floor: Some(analyze::Severity::Warning),
                fail_on_kind: vec![FindingKind::LateResponse],
                allow: vec![FindingKind::SlowTail],
            }
        );
        assert_eq!(c.budgets.len(), 1);
        assert_eq!(c.budgets[0].limit_us, 2_000_000);
    }

    #[test]
    fn flags_become_the_configuration() {
        let c = checked(&[]).expect("defaults");
        assert!(c.redact && !c.per_input && c.shard.is_none() && c.threads.is_none());
        assert_eq!(
            (c.stdout, c.fail_on),
            (Stdout::Summary, config::FailOn::Error)
        );
        assert_eq!(
            (c.rules.timeout_us, c.rules.slow_us),
            (60_000_000, 1_000_000)
        );
        assert_eq!(c.block_bytes, BLOCK_BYTES);
        let c = checked(&[
            "--no-redact",
            "-q",
            "--out",
            "o",
            "--per-input",
            "--threads",
            "2",
            "--shard",
            "date=1",
            "--shard-dir",
            "s",
            "--fail-on",
            "never",
        ])
        .expect("valid");
        assert!(!c.redact && c.per_input);
        assert_eq!(
            (c.stdout, c.fail_on, c.threads),
            (Stdout::Quiet, config::FailOn::Never, Some(2))
        );
        assert_eq!(
            c.own_folders(),
            vec![PathBuf::from("o"), PathBuf::from("s")]
        );
    }
}

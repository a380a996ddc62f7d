//! Report: an [`Analysis`] rendered as bytes. Renderers only render: they
//! compute nothing and open no files (the pipeline hands them a writer).
//! Each is a [`Render`]: `render(report, out, opts)`.
//!
//! * [`json`] — `summary.json`, the versioned contract for scripts.
//! * [`csv`] — `findings.csv`, `pairs.csv`, `batches.csv`, `latency.csv`,
//!   `operations.csv`.
//! * [`parquet`] — the same tables and `sessions` as Parquet
//!   (`reports/SCHEMA.md`).
//! * [`junit`], [`sarif`] — the findings for CI pages (`--junit`, `--sarif`),
//!   with help text from [`catalogue`].
//! * [`otlp`] — the requests as OpenTelemetry traces, OTLP/JSON Lines
//!   (`--otlp`), per the MCP semantic conventions.
//! * [`terminal`] — the human summary on stdout.
//! * [`html`] — `report.html`, one self-contained page.
//! * [`redact`] — secrets out of every output (on unless `--no-redact`).
//! * [`progress`] — the progress bar on stderr (a terminal only).
//! * [`shard`] — where a shard run's Parquet tables go (Hive partitions).

pub mod catalogue;
pub mod csv;
pub mod html;
pub mod json;
pub mod junit;
pub mod otlp;
pub mod otlp_metrics;
pub mod parquet;
pub mod progress;
pub mod redact;
pub mod sanitize;
pub mod sarif;
pub mod shard;
pub mod terminal;

use std::io::{self, Write};

use crate::analyze::tables::{self, Tables};
use crate::analyze::{Analysis, SessionSummary};

/// The files `--out` writes (a `--junit`, `--sarif` or `--otlp` among them
/// would be overwritten by the other; a folder walk leaves them out of a
/// folder whose `summary.json` is mcp-audit's).
pub const OUT_FILES: &[&str] = &[
    "summary.json",
    "findings.csv",
    "pairs.csv",
    "batches.csv",
    "latency.csv",
    "operations.csv",
    "findings.parquet",
    "pairs.parquet",
    "batches.parquet",
    "latency.parquet",
    "sessions.parquet",
    "operations.parquet",
    "report.html",
];

/// What the run knows about one input (`summary.json` `inputs[]`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct InputInfo {
    /// The file as named on the command line.
    pub file: String,
    /// `stdio`, `har`, `sse`, or `unknown`.
    pub format: String,
    /// The dialect read (`envelope`, `claude`, …).
    pub dialect: String,
    /// Sessions that carried traffic.
    pub sessions: usize,
    /// Size in bytes.
    pub bytes: u64,
    /// The problems met reading it, in order (each written as one line
    /// naming input and place).
    pub errors: Vec<crate::diag::Diagnostic>,
    /// The notices, in order, written like the problems: what was read as
    /// it should be yet is worth a word (a body repaired from windows-1252
    /// mojibake, a HAR entry that is no MCP traffic, skipped); never
    /// counted as problems.
    pub notices: Vec<crate::diag::Diagnostic>,
    /// Lines that were neither traffic nor findings (stderr, lifecycle).
    #[serde(skip)]
    pub other_lines: u64,
    /// The server-to-client half of a per-direction pair, when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner: Option<String>,
    /// Offsets into its decoded text are offsets into the file after a
    /// UTF-8 byte-order mark: one plain file, not compressed, that decoding
    /// changed nowhere (no invalid UTF-8). Then evidence is read back by
    /// byte range (`source::evidence`) instead of by reading the file again.
    #[serde(skip)]
    pub exact_offsets: bool,
    /// The file of it (itself, or a pair's half) whose end was lost: its
    /// text ends inside a line (no line end after the last one: cut while
    /// written or copied) or its compressed stream is cut. The log goes on
    /// past its end (`end_missing`, DESIGN.md rule 12). Not written to
    /// summary.json.
    #[serde(skip)]
    pub cut_file: Option<String>,
}

/// Everything a renderer needs.
pub struct Report<'a> {
    /// Inputs in command-line order.
    pub inputs: &'a [InputInfo],
    /// The analysis.
    pub analysis: &'a Analysis,
    /// Per-session summaries.
    pub sessions: Vec<SessionSummary>,
    /// What the folder walks left out, and why (`summary.json` `skipped`).
    pub skipped: &'a [crate::source::Skipped],
    /// The verdicts of the run's gates (`--fail-on-kind`, `--allow`,
    /// `--max-latency`; `summary.json` `gates`, only when any was given).
    pub gates: &'a [crate::analyze::gates::GateResult],
}

impl<'a> Report<'a> {
    /// Bundles an analysis for rendering.
    pub fn new(inputs: &'a [InputInfo], analysis: &'a Analysis) -> Self {
        Report {
            inputs,
            analysis,
            sessions: analysis.session_summaries(),
            skipped: &[],
            gates: &[],
        }
    }

    /// The same report, with the verdicts of the run's gates.
    pub fn with_gates(mut self, gates: &'a [crate::analyze::gates::GateResult]) -> Self {
        self.gates = gates;
        self
    }

    /// The same report, naming what the run's folder walks left out.
    pub fn with_skipped(mut self, skipped: &'a [crate::source::Skipped]) -> Self {
        self.skipped = skipped;
        self
    }

    /// The display name of input `i`.
    pub fn file(&self, i: usize) -> &str {
        self.inputs.get(i).map_or("", |x| x.file.as_str())
    }

    /// The display name of file id `id` (see [`file_id`]).
    pub fn file_name(&self, id: u32) -> &str {
        let input = (id / 2) as usize;
        match self.inputs.get(input) {
            Some(x) if id % 2 == 1 => x.partner.as_deref().unwrap_or(x.file.as_str()),
            Some(x) => x.file.as_str(),
            None => "",
        }
    }
}

impl tables::Names for Report<'_> {
    fn input(&self, input: usize) -> &str {
        self.file(input)
    }
    fn file(&self, file: u32) -> &str {
        self.file_name(file)
    }
    fn text<'s>(&self, s: &'s str) -> std::borrow::Cow<'s, str> {
        sanitize::escape_controls(s)
    }
}

impl Report<'_> {
    /// The run's tables (findings, pairs, batches, latency, sessions) for
    /// the CSV and Parquet writers.
    pub fn tables(&self) -> polars::prelude::PolarsResult<Tables<'_>> {
        tables::build(self.analysis, &self.sessions, self)
    }
}

/// What a renderer may need besides the [`Report`]; each reads its part.
#[derive(Clone, Copy, Default)]
pub struct RenderOptions<'a> {
    /// ANSI colours ([`terminal`]; see [`terminal::use_color`]).
    pub color: bool,
    /// The run's tables, built once for the [`csv`] and [`parquet`] writers.
    pub tables: Option<&'a Tables<'a>>,
    /// The page's evidence and latency charts ([`html`]).
    pub page: Option<&'a html::Extras<'a>>,
}

impl<'a> RenderOptions<'a> {
    /// The tables, or an error naming what is missing.
    pub fn tables(&self) -> io::Result<&'a Tables<'a>> {
        self.tables
            .ok_or_else(|| io::Error::other("the tables were not built"))
    }
}

/// A renderer: writes a [`Report`] in its format to `out`.
pub trait Render {
    /// Writes `report` to `out`; only I/O (or a table that cannot be
    /// built) fails.
    fn render(
        &self,
        report: &Report<'_>,
        out: &mut (dyn Write + Send),
        opts: &RenderOptions<'_>,
    ) -> io::Result<()>;
}

/// How an input was read, for people: `har`, `stdio claude` — the dialect
/// only when it says more than the format.
pub fn read_as(format: &str, dialect: &str) -> String {
    if dialect.is_empty() || dialect == format {
        format.to_string()
    } else {
        format!("{format} {dialect}")
    }
}

/// The file id of input `input`'s file, or of the server-to-client half of
/// a per-direction pair (`half` 1), as parsers put it in `Provenance::file`.
pub fn file_id(input: usize, half: u32) -> u32 {
    u32::try_from(input)
        .unwrap_or(u32::MAX / 2)
        .saturating_mul(2)
        .saturating_add(half)
}

//! The validated configuration of a run: what [`crate::cli`] makes of the
//! command line once every flag has been checked, and all that
//! [`crate::pipeline::run`] reads. Building one has no side effect (no
//! thread pool, allocator setting, progress bar or folder yet), so a bad
//! flag is reported before anything happens.

use std::path::PathBuf;

use crate::analyze::gates::{LatencyBudget, Policy};
use crate::analyze::{self, Severity};
use crate::report::shard::{Shard, ShardError};

/// Upper bound of `--threads` (a thread per core is the useful maximum;
/// thousands only cost start-up time).
pub const MAX_THREADS: usize = 256;

/// Bytes of a block of a large line log read block by block (`--block-bytes`
/// default).
pub const BLOCK_BYTES: usize = 4 << 20;

/// How the inputs are read (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// Detect from content.
    Auto,
    /// A stdio line log (dialect still detected).
    Stdio,
    /// A HAR file.
    Har,
    /// A raw SSE capture.
    Sse,
}

/// Which findings make the run exit 1 (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// Any warning or error finding.
    Warning,
    /// Error findings only.
    Error,
    /// Never exit 1 for findings.
    Never,
}

impl FailOn {
    /// The lowest severity that fails the run, `None` for [`FailOn::Never`].
    pub fn floor(self) -> Option<Severity> {
        match self {
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Error => Some(Severity::Error),
            FailOn::Never => None,
        }
    }

    /// The flag's word (`inputs/index.json` `fail_on`).
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Warning => "warning",
            FailOn::Error => "error",
            FailOn::Never => "never",
        }
    }
}

/// What stdout carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdout {
    /// The human summary (the default).
    Summary,
    /// `summary.json` (`--json`).
    Json,
    /// Nothing (`-q` without `--json`).
    Quiet,
}

/// `--shard` with its `--shard-dir`: this run's partition and the fleet's
/// shared folder.
#[derive(Debug, Clone)]
pub struct ShardTarget {
    /// The partition, its keys checked against the tables' columns.
    pub shard: Shard,
    /// The shared folder of the shards.
    pub dir: PathBuf,
}

/// Everything a run needs, validated.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Capture files, directories or glob patterns, as given.
    pub inputs: Vec<PathBuf>,
    /// How the inputs are read.
    pub format: InputFormat,
    /// The output folder (`--out`), if any.
    pub out: Option<PathBuf>,
    /// Whether a `summary.json` per input goes to `OUT/inputs/` (only with
    /// `out`).
    pub per_input: bool,
    /// Where this shard's Parquet tables go (`--shard`, `--shard-dir`).
    pub shard: Option<ShardTarget>,
    /// Whether secrets are redacted in every output (the default).
    pub redact: bool,
    /// The rules' thresholds (µs; `--timeout`, `--slow`, `--slow-factor`).
    pub rules: analyze::Config,
    /// Which findings make the run exit 1.
    pub fail_on: FailOn,
    /// Worker threads, 1 to [`MAX_THREADS`] (`None`: one per core).
    pub threads: Option<usize>,
    /// What stdout carries.
    pub stdout: Stdout,
    /// Whether the progress line may be drawn (on a terminal stderr; not
    /// with `-q`, which also quiets it beside `--json`).
    pub progress: bool,
    /// Bytes per block of a line log read block by block (≥ 1 in effect).
    pub block_bytes: usize,
    /// Which findings fail the run: `--fail-on` with `--fail-on-kind` and
    /// `--allow`.
    pub policy: Policy,
    /// Latency budgets (`--max-latency`), in command-line order.
    pub budgets: Vec<LatencyBudget>,
    /// Where the findings go as JUnit XML (`--junit`).
    pub junit: Option<PathBuf>,
    /// Where the findings go as SARIF 2.1.0 (`--sarif`).
    pub sarif: Option<PathBuf>,
    /// Where the pairs go as OTLP/JSON Lines traces (`--otlp`).
    pub otlp: Option<PathBuf>,
    /// Where the `mcp.client.operation.duration` histogram goes, OTLP/JSON
    /// metrics (`--otlp-metrics`).
    pub otlp_metrics: Option<PathBuf>,
}

impl RunConfig {
    /// The run's own output folders and files (`--out`, `--shard-dir`,
    /// `--junit`, `--sarif`, `--otlp`, `--otlp-metrics`): never read as
    /// inputs by a folder walk.
    pub fn own_folders(&self) -> Vec<PathBuf> {
        self.out
            .iter()
            .chain(self.shard.as_ref().map(|s| &s.dir))
            .chain(self.junit.iter())
            .chain(self.sarif.iter())
            .chain(self.otlp.iter())
            .chain(self.otlp_metrics.iter())
            .cloned()
            .collect()
    }
}

/// A flag that cannot be used as given; the run stops before it starts
/// (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// `--threads` out of range.
    #[error("--threads must be between 1 and {MAX_THREADS}")]
    Threads,
    /// `--slow-factor` not a positive number.
    #[error("--slow-factor must be a positive number")]
    SlowFactor,
    /// `--timeout 0`.
    #[error("--timeout must be longer than 0 (every response would be late)")]
    Timeout,
    /// `--shard` without `--shard-dir`.
    #[error("--shard needs --shard-dir (the shared folder of the shards)")]
    ShardWithoutDir,
    /// `--shard-dir` without `--shard`.
    #[error("--shard-dir needs --shard (this run's partition, e.g. date=2026-11-30,host=web1)")]
    DirWithoutShard,
    /// A malformed partition.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// A kind name no finding has (`--fail-on-kind`, `--allow`).
    #[error(
        "{flag} {name}: no such finding kind (the kinds are listed in docs/DESIGN.md, \"Findings catalogue\")"
    )]
    UnknownKind {
        /// The flag.
        flag: &'static str,
        /// The name given.
        name: String,
    },
    /// One kind both allowed and failing.
    #[error("--allow {0} and --fail-on-kind {0} contradict each other")]
    AllowedAndFailing(String),
    /// A subcommand other than `analyze` given where a run is configured.
    #[error("not an analyze command")]
    NotAnalyze,
    /// Two of `--junit`, `--sarif`, `--otlp` and `--otlp-metrics` name one
    /// file.
    #[error("{a} and {b} name the same file, {path}")]
    SameReportFile {
        /// The first flag.
        a: &'static str,
        /// The second flag.
        b: &'static str,
        /// The file both name.
        path: String,
    },
    /// A malformed `--max-latency`.
    #[error("--max-latency {0}")]
    Budget(String),
    /// The tables (whose columns a partition key must avoid) could not be
    /// built.
    #[error("building the tables")]
    Tables(#[source] polars::prelude::PolarsError),
}

//! `findings.csv`, `pairs.csv`, `batches.csv` and `latency.csv`: the run's
//! tables (`analyze::frame`) as text, written by polars' `CsvWriter`
//! (RFC 4180 quoting where needed). `pairs.csv` follows DESIGN.md's header
//! exactly: `id` is the id's JSON text, times are RFC 3339 UTC with µs,
//! milliseconds are written as Rust prints an `f64`, unknown values are
//! empty. Captured strings were escaped for terminals when the tables were
//! built (`report::sanitize::escape_controls`).
//!
//! `batch` is the 1-based number of the batch in `batches.csv`;
//! `position_in_batch` is the request's 0-based position among the batch's
//! valid-id requests; `response_position` the 0-based arrival rank of its
//! response among the batch's paired responses.

use std::io::Write;

use polars::prelude::{CsvWriter, DataFrame, PolarsResult, QuoteStyle, SerWriter};

use crate::analyze::frame::{self, PAIRS_COLUMNS, Tables};

/// `findings.csv`'s columns.
pub const FINDINGS_COLUMNS: [&str; 11] = [
    "kind",
    "severity",
    "session",
    "direction",
    "id",
    "method",
    "file",
    "line",
    "entry",
    "event",
    "detail",
];

fn write<W: Write>(df: &DataFrame, columns: &[&str], w: W) -> PolarsResult<()> {
    let mut text = frame::csv_text(df, columns)?;
    CsvWriter::new(w)
        .include_header(true)
        .with_quote_style(QuoteStyle::Necessary)
        .finish(&mut text)
}

fn all_columns(df: &DataFrame) -> Vec<&str> {
    df.get_column_names()
        .into_iter()
        .map(|c| c.as_str())
        .collect()
}

/// `findings.csv`: one row per finding.
pub fn findings<W: Write>(t: &Tables, w: W) -> PolarsResult<()> {
    write(&t.findings, &FINDINGS_COLUMNS, w)
}

/// `pairs.csv`: one row per request, both directions (DESIGN.md header).
pub fn pairs<W: Write>(t: &Tables, w: W) -> PolarsResult<()> {
    write(&t.pairs, &PAIRS_COLUMNS, w)
}

/// `batches.csv`: one row per JSON array with members, with its completion
/// time against its member latencies.
pub fn batches<W: Write>(t: &Tables, w: W) -> PolarsResult<()> {
    write(&t.batches, &all_columns(&t.batches), w)
}

/// `latency.csv`: quantiles overall, per method, per server, per batch size.
pub fn latency<W: Write>(t: &Tables, w: W) -> PolarsResult<()> {
    write(&t.latency, &all_columns(&t.latency), w)
}

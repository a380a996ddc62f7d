//! `findings.csv`, `pairs.csv`, `batches.csv`, `latency.csv` and
//! `operations.csv`: the run's
//! tables (`analyze::tables`) as text, written by polars' `CsvWriter`
//! (RFC 4180 quoting where needed). `pairs.csv` follows DESIGN.md's header
//! exactly: `id` is the id's JSON text, times are RFC 3339 UTC with µs,
//! milliseconds are written as Rust prints an `f64`, unknown values are
//! empty. Captured strings were escaped for terminals when the tables were
//! built (`report::sanitize::escape_controls`).
//!
//! `batch` is the 1-based number of the batch in `batches.csv`;
//! `position_in_batch` is the request's 0-based position among the batch's
//! valid-id requests; `response_position` the 0-based arrival rank of its
//! response among the batch's paired responses; `operation` the key of the
//! operation it belongs to (DESIGN.md rule 14), a row of `operations.csv`.

use std::io::{self, Write};

use polars::prelude::{CsvWriter, PolarsResult, QuoteStyle, SerWriter};

use super::{Render, RenderOptions, Report};
use crate::analyze::tables::{self, Frames, PAIRS_COLUMNS};

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

/// Writes a table's frames as one CSV file (header once, then each
/// frame's rows): `columns` in that order, or all when `None`.
fn write<W: Write>(frames: Frames<'_>, columns: Option<&[&str]>, w: W) -> PolarsResult<()> {
    let mut writer = Some(
        CsvWriter::new(w)
            .include_header(true)
            .with_quote_style(QuoteStyle::Necessary),
    );
    let mut batched = None;
    for df in frames {
        let df = df?;
        let all: Vec<&str>;
        let columns = match columns {
            Some(c) => c,
            None => {
                all = df
                    .get_column_names()
                    .into_iter()
                    .map(|c| c.as_str())
                    .collect();
                &all
            }
        };
        let text = tables::csv_text(&df, columns)?;
        drop(df);
        if let Some(wr) = writer.take() {
            batched = Some(wr.batched(text.schema())?);
        }
        if let Some(b) = &mut batched {
            b.write_batch(&text)?;
        }
    }
    match &mut batched {
        Some(b) => b.finish(),
        None => Ok(()),
    }
}

/// One table as CSV (`Csv("findings")` writes `findings.csv`):
/// `findings` one row per finding; `pairs` one row per request, both
/// directions (DESIGN.md header); `batches` one row per JSON array (`[]`
/// included), with its completion time against its member latencies;
/// `latency` quantiles overall, per method, per server, per batch size.
#[derive(Debug, Clone, Copy)]
pub struct Csv(pub &'static str);

impl Render for Csv {
    fn render(
        &self,
        _: &Report<'_>,
        out: &mut (dyn Write + Send),
        opts: &RenderOptions<'_>,
    ) -> io::Result<()> {
        let columns: Option<&[&str]> = match self.0 {
            "findings" => Some(&FINDINGS_COLUMNS),
            "pairs" => Some(&PAIRS_COLUMNS),
            _ => None,
        };
        opts.tables()?
            .frames(self.0)
            .and_then(|frames| write(frames, columns, out))
            .map_err(io::Error::other)
    }
}

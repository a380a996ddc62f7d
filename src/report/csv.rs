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

use polars::prelude::{DataFrame, DataType, PolarsResult, TimeUnit, polars_bail};

use super::{Render, RenderOptions, Report};
use crate::analyze::tables::{Frames, PAIRS_COLUMNS};
use crate::record::time::write_rfc3339;

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

/// Whether a spreadsheet would read text cell `s` as a formula (CSV
/// injection): it starts with `=`, `+`, `@`, a tab or a carriage return, or
/// with `-` followed by anything but a digit (so `-1`, an id, stays a
/// number). Such a cell is written with a leading `'`, which spreadsheets
/// show as text; Parquet keeps the value as captured.
fn spreadsheet_formula(s: &str) -> bool {
    let mut c = s.chars();
    match c.next() {
        Some('=' | '+' | '@' | '\t' | '\r') => true,
        Some('-') => c.next().is_some_and(|d| !d.is_ascii_digit()),
        _ => false,
    }
}

/// Appends one text cell, RFC 4180 style: in double quotes (inner ones
/// doubled) when it holds a comma, a quote or a line end, as it is
/// otherwise.
fn put_text(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    if memchr::memchr3(b',', b'\n', b'\r', b).is_none() && memchr::memchr(b'"', b).is_none() {
        out.extend_from_slice(b);
        return;
    }
    out.push(b'"');
    for part in s.split('"').enumerate() {
        if part.0 > 0 {
            out.extend_from_slice(b"\"\"");
        }
        out.extend_from_slice(part.1.as_bytes());
    }
    out.push(b'"');
}

/// One column of a frame as the CSV writer reads it, cell by cell.
enum Cells<'a> {
    Str(&'a polars::prelude::StringChunked),
    Int(&'a polars::prelude::Int64Chunked),
    Float(&'a polars::prelude::Float64Chunked),
    Bool(&'a polars::prelude::BooleanChunked),
    /// µs since the epoch (a `Datetime(µs)` column cast to integers).
    Time(polars::prelude::Int64Chunked),
}

impl Cells<'_> {
    /// Appends row `i`'s cell: nothing for a null or an empty string;
    /// integers, floats and booleans as `to_string` writes them, times
    /// by [`write_rfc3339`], text as captured (escaped for terminals
    /// when the tables were built) behind a `'` when it would be a
    /// formula.
    fn put(&self, i: usize, out: &mut Vec<u8>) {
        match self {
            Cells::Str(c) => {
                if let Some(s) = c.get(i).filter(|s| !s.is_empty()) {
                    if spreadsheet_formula(s) {
                        // The `'` is part of the cell: inside its quotes
                        // when it has them (`"'=HYPERLINK(""x"")"`).
                        put_text(out, &format!("'{s}"));
                    } else {
                        put_text(out, s);
                    }
                }
            }
            Cells::Int(c) => {
                if let Some(x) = c.get(i) {
                    let _ = write!(out, "{x}");
                }
            }
            Cells::Float(c) => {
                if let Some(x) = c.get(i) {
                    let _ = write!(out, "{x}");
                }
            }
            Cells::Bool(c) => {
                if let Some(x) = c.get(i) {
                    let _ = write!(out, "{x}");
                }
            }
            Cells::Time(c) => {
                if let Some(t) = c.get(i) {
                    write_rfc3339(t, out);
                }
            }
        }
    }
}

/// Appends frame `df`'s rows as CSV to `out` (`columns` in that order,
/// `\n` after each row), after a header line when `header`. Written by
/// hand from the typed columns rather than by polars' `CsvWriter`: that
/// needs every column as text first, a second copy of the table (issue
/// 13), and formats floats and times otherwise than `pairs.csv` states.
pub fn write_frame(
    df: &DataFrame,
    columns: &[&str],
    header: bool,
    out: &mut Vec<u8>,
) -> PolarsResult<()> {
    if header {
        for (k, name) in columns.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            put_text(out, name);
        }
        out.push(b'\n');
    }
    let mut cells = Vec::with_capacity(columns.len());
    for &name in columns {
        let c = df.column(name)?;
        cells.push(match c.dtype() {
            DataType::String => Cells::Str(c.str()?),
            DataType::Int64 => Cells::Int(c.i64()?),
            DataType::Float64 => Cells::Float(c.f64()?),
            DataType::Boolean => Cells::Bool(c.bool()?),
            DataType::Datetime(TimeUnit::Microseconds, _) => {
                Cells::Time(c.cast(&DataType::Int64)?.i64()?.clone())
            }
            other => polars_bail!(ComputeError: "column {name}: no CSV text for {other}"),
        });
    }
    for i in 0..df.height() {
        for (k, c) in cells.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            c.put(i, out);
        }
        out.push(b'\n');
    }
    Ok(())
}

/// A CSV file written a frame at a time: the header with the first frame
/// (or at [`CsvTable::finish`] for a table without rows), then each
/// frame's rows. `columns` in that order, or a frame's own when `None`.
pub struct CsvTable<W: Write> {
    w: W,
    columns: Option<&'static [&'static str]>,
    header_done: bool,
    buf: Vec<u8>,
}

impl<W: Write> CsvTable<W> {
    /// A table written to `w`.
    pub fn new(w: W, columns: Option<&'static [&'static str]>) -> Self {
        CsvTable {
            w,
            columns,
            header_done: false,
            buf: Vec::new(),
        }
    }

    /// The columns of table `stem` in `findings.csv` and `pairs.csv`'s
    /// stated order; `None` (a frame's own) for the other tables.
    pub fn columns_of(stem: &str) -> Option<&'static [&'static str]> {
        match stem {
            "findings" => Some(&FINDINGS_COLUMNS),
            "pairs" => Some(&PAIRS_COLUMNS),
            _ => None,
        }
    }

    /// Writes `df`'s rows (and the header, before the first frame).
    pub fn write(&mut self, df: &DataFrame) -> io::Result<()> {
        let own: Vec<&str>;
        let columns = match self.columns {
            Some(c) => c,
            None => {
                own = df
                    .get_column_names()
                    .into_iter()
                    .map(|c| c.as_str())
                    .collect();
                &own
            }
        };
        self.buf.clear();
        write_frame(df, columns, !self.header_done, &mut self.buf).map_err(io::Error::other)?;
        self.header_done = true;
        self.w.write_all(&self.buf)
    }

    /// Flushes the file.
    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Writes a table's frames as one CSV file (header once, then each
/// frame's rows).
fn write<W: Write>(
    frames: Frames<'_>,
    columns: Option<&'static [&'static str]>,
    w: W,
) -> io::Result<()> {
    let mut t = CsvTable::new(w, columns);
    for df in frames {
        t.write(&df.map_err(io::Error::other)?)?;
    }
    t.finish()
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
        let frames = opts.tables()?.frames(self.0).map_err(io::Error::other)?;
        write(frames, CsvTable::<Vec<u8>>::columns_of(self.0), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::Column;

    #[test]
    fn formulas_are_written_as_text() {
        for f in [
            "=HYPERLINK(\"x\")",
            "+1+1",
            "@SUM(A1)",
            "-cmd|' /C calc'!A0",
            "\tx",
        ] {
            assert!(spreadsheet_formula(f), "{f}");
        }
        for t in ["-1", "-32601", "tools/call", "", "a=b", "\"=x\"", "-"] {
            assert!(!spreadsheet_formula(t), "{t}");
        }
        let df = DataFrame::new(
            3,
            vec![Column::new(
                "m".into(),
                &["=cmd()", "-7", "=HYPERLINK(\"x\")"],
            )],
        )
        .unwrap();
        let mut out = Vec::new();
        write_frame(&df, &["m"], true, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "m\n'=cmd()\n-7\n\"'=HYPERLINK(\"\"x\"\")\"\n"
        );
    }

    #[test]
    fn cells_are_quoted_where_rfc_4180_needs_it() {
        let df = DataFrame::new(
            6,
            vec![
                Column::new(
                    "t".into(),
                    &[
                        Some("a,b"),
                        Some("say \"hi\""),
                        Some("l1\nl2"),
                        Some(""),
                        None,
                        Some("x\r"),
                    ],
                ),
                Column::new(
                    "n".into(),
                    &[Some(1i64), None, Some(-3), Some(0), Some(7), None],
                ),
                Column::new(
                    "f".into(),
                    &[
                        Some(0.5f64),
                        Some(1e21),
                        None,
                        Some(2.0),
                        Some(-0.0),
                        Some(1e-7),
                    ],
                ),
            ],
        )
        .unwrap();
        let mut out = Vec::new();
        write_frame(&df, &["t", "n", "f"], true, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "t,n,f\n\"a,b\",1,0.5\n\"say \"\"hi\"\"\",,1000000000000000000000\n\"l1\nl2\",-3,\n,0,2\n,7,-0\n\"x\r\",,0.0000001\n"
        );
    }
}

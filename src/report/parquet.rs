//! The run's tables (`analyze::tables`) as Parquet files, one per table:
//! `findings`, `pairs`, `batches`, `latency`, `sessions`. Their schema
//! (column, type, unit, meaning) is documented in `reports/SCHEMA.md`:
//! strings, Int64, Float64, Boolean and `Datetime(µs, UTC)`, which Spark,
//! Trino and DuckDB read as they are. Zstd-compressed, with column
//! statistics; the key-value metadata names the writer and the schema
//! version.

use std::io::{self, Write};

use polars::prelude::{
    DataFrame, KeyValueMetadata, ParquetCompression, ParquetWriter, PolarsResult,
    StatisticsOptions, polars_err,
};

use super::{Render, RenderOptions, Report};
use crate::analyze::tables::Frames;

/// Version of the Parquet tables' schema (`reports/SCHEMA.md`); bumped when
/// a column is renamed, retyped or removed, not when one is added.
pub const SCHEMA_VERSION: u32 = 1;

/// One table as a Parquet file (`Parquet("pairs")` writes `pairs.parquet`).
#[derive(Debug, Clone, Copy)]
pub struct Parquet(pub &'static str);

impl Render for Parquet {
    fn render(
        &self,
        _: &Report<'_>,
        out: &mut (dyn Write + Send),
        opts: &RenderOptions<'_>,
    ) -> io::Result<()> {
        opts.tables()?
            .frames(self.0)
            .and_then(|frames| write(frames, out))
            .map_err(io::Error::other)
    }
}

/// A Parquet file written a frame at a time, each frame a row group; a
/// table of one frame is written as polars writes a whole frame (held
/// until the second frame or [`ParquetTable::finish`] tells which).
pub struct ParquetTable<W: Write + Send> {
    /// The writer until the first row group is written.
    writer: Option<ParquetWriter<W>>,
    batched: Option<polars::io::parquet::write::BatchedWriter<W>>,
    /// The first frame, until it is known not to be the only one.
    first: Option<DataFrame>,
}

impl<W: Write + Send> ParquetTable<W> {
    /// A table written to `w` (zstd, full column statistics, the schema
    /// version and writer in the key-value metadata).
    pub fn new(w: W) -> Self {
        let meta = KeyValueMetadata::from_static(vec![
            (
                "mcp_audit.schema_version".into(),
                SCHEMA_VERSION.to_string(),
            ),
            (
                "mcp_audit.writer".into(),
                concat!("mcp-audit ", env!("CARGO_PKG_VERSION")).into(),
            ),
        ]);
        let writer = ParquetWriter::new(w)
            .with_compression(ParquetCompression::Zstd(None))
            .with_statistics(StatisticsOptions::full())
            .with_key_value_metadata(Some(meta));
        ParquetTable {
            writer: Some(writer),
            batched: None,
            first: None,
        }
    }

    /// Adds `df` as the next row group.
    pub fn write(&mut self, df: &DataFrame) -> PolarsResult<()> {
        if self.batched.is_none() && self.first.is_none() {
            self.first = Some(df.clone());
            return Ok(());
        }
        if self.batched.is_none() {
            let mut first = self.first.take().expect("first frame held");
            let writer = self.writer.take().expect("writer unused");
            let mut batched = writer.batched(first.schema())?;
            first.rechunk_mut();
            batched.write_batch(&first)?;
            self.batched = Some(batched);
        }
        let mut df = df.clone();
        df.rechunk_mut();
        self.batched.as_mut().expect("batched").write_batch(&df)?;
        Ok(())
    }

    /// Ends the file (a table without frames is an error: every table has
    /// at least one, empty with its columns).
    pub fn finish(mut self) -> PolarsResult<()> {
        if let Some(b) = self.batched.take() {
            b.finish()?;
            return Ok(());
        }
        let mut first = self
            .first
            .take()
            .ok_or_else(|| polars_err!(ComputeError: "a table without frames"))?;
        self.writer
            .take()
            .expect("writer unused")
            .finish(&mut first)?;
        Ok(())
    }
}

/// Writes a table's frames as one Parquet file, each frame a row group.
fn write<W: Write + Send>(frames: Frames<'_>, w: W) -> PolarsResult<()> {
    let mut t = ParquetTable::new(w);
    for df in frames {
        t.write(&df?)?;
    }
    t.finish()
}

//! The run's tables (`analyze::tables`) as Parquet files, one per table:
//! `findings`, `pairs`, `batches`, `latency`, `sessions`. Their schema
//! (column, type, unit, meaning) is documented in `reports/SCHEMA.md`:
//! strings, Int64, Float64, Boolean and `Datetime(µs, UTC)`, which Spark,
//! Trino and DuckDB read as they are. Zstd-compressed, with column
//! statistics; the key-value metadata names the writer and the schema
//! version.

use std::io::{self, Write};

use polars::prelude::{
    KeyValueMetadata, ParquetCompression, ParquetWriter, PolarsResult, StatisticsOptions,
    polars_err,
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

/// Writes a table's frames as one Parquet file, each frame a row group
/// (a table of one frame is written as polars writes a whole frame).
fn write<W: Write + Send>(frames: Frames<'_>, w: W) -> PolarsResult<()> {
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
    let mut frames = frames.peekable();
    let mut first = frames
        .next()
        .ok_or_else(|| polars_err!(ComputeError: "a table without frames"))??;
    if frames.peek().is_none() {
        writer.finish(&mut first)?;
        return Ok(());
    }
    let mut batched = writer.batched(first.schema())?;
    first.rechunk_mut();
    batched.write_batch(&first)?;
    drop(first);
    for df in frames {
        let mut df = df?;
        df.rechunk_mut();
        batched.write_batch(&df)?;
    }
    batched.finish()?;
    Ok(())
}

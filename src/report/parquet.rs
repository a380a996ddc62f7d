//! The run's tables (`analyze::frame`) as Parquet files, one per table:
//! `findings`, `pairs`, `batches`, `latency`, `sessions`. Their schema
//! (column, type, unit, meaning) is documented in `reports/SCHEMA.md`:
//! strings, Int64, Float64, Boolean and `Datetime(µs, UTC)`, which Spark,
//! Trino and DuckDB read as they are. Zstd-compressed, with column
//! statistics; the key-value metadata names the writer and the schema
//! version.

use std::io::Write;

use polars::prelude::{
    DataFrame, KeyValueMetadata, ParquetCompression, ParquetWriter, PolarsResult, StatisticsOptions,
};

/// Version of the Parquet tables' schema (`reports/SCHEMA.md`); bumped when
/// a column is renamed, retyped or removed, not when one is added.
pub const SCHEMA_VERSION: u32 = 1;

/// Writes `df` as one Parquet file.
pub fn write<W: Write + Send>(df: &DataFrame, w: W) -> PolarsResult<()> {
    let mut df = df.clone();
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
    ParquetWriter::new(w)
        .with_compression(ParquetCompression::Zstd(None))
        .with_statistics(StatisticsOptions::full())
        .with_key_value_metadata(Some(meta))
        .finish(&mut df)?;
    Ok(())
}

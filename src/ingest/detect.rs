//! Dialect detection for line logs (FORMATS.md §8.1, table 8.2 row order)
//! and dispatch to the dialect parsers.

use super::Input;
use crate::record::Parsed;

/// A line-log dialect (FORMATS.md §8.2 rows covered so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Row 1: `TS [STDIN] JSON` / `[STDOUT]` / `[STDERR]`.
    Tagged,
    /// Rows 2 and 3: Claude Desktop `mcp-server-NAME.log` and `mcp.log`.
    Claude,
    /// Row 4: VS Code output channel (`[editor -> server]`).
    VsCode,
    /// Row 10: arrow logs (`-->`, `<--`, `>`, `<`).
    Arrow,
    /// Row 11: NDJSON envelopes.
    Envelope,
    /// Row 12: bare NDJSON.
    Bare,
}

/// Decides the format of a whole input (HAR, SSE, a line dialect, unknown).
pub fn detect(_text: &str) -> super::Format {
    super::Format::Unknown
}

/// Parses a line log in a known dialect.
pub fn parse_lines(_input: Input<'_>, _dialect: Dialect) -> Parsed {
    Parsed::default()
}

/// The one-line message for an input no dialect recognises, naming the first
/// lines that could not be read.
pub fn unknown_message(input: Input<'_>) -> String {
    format!("{}: no known format", input.name)
}

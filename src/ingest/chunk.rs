//! Parsing one block of a large line log (issue 5: a single large log is
//! split at line boundaries and its blocks parsed in parallel, with line
//! numbers and byte offsets kept exact).
//!
//! Only dialects whose records never span a block cut are split: those
//! where every line stands alone (envelopes, bare NDJSON, tagged proxy
//! logs, arrow logs), and Claude Desktop logs cut before a timestamped line
//! (their multi-line entries continue on lines without a timestamp,
//! FORMATS.md §8.3.1). Other dialects are read whole. Each dialect's row of
//! the format table says which (`block_start`).

use super::formats::{Dialect, parse_lines};
use super::input::Input;
use crate::record::{Parsed, Record};

/// Whether a line (its bytes, without the line end) may start a block of a
/// log in `dialect`; `None` when the dialect is never split.
pub fn safe_start(dialect: Dialect) -> Option<fn(&[u8]) -> bool> {
    dialect.spec().block_start
}

/// Parses one block whose first line is line `first_line` of the file and
/// whose first byte is at `offset`: provenance and the `line N:` of error
/// messages are given in the file's numbering.
pub fn parse_block(
    file: u32,
    name: &str,
    text: &str,
    first_line: u64,
    offset: u64,
    dialect: Dialect,
) -> Parsed {
    let mut p = parse_lines(Input { file, name, text }, dialect);
    let shift_line = first_line.saturating_sub(1);
    for r in &mut p.records {
        let prov = match r {
            Record::Frame(f) => &mut f.prov,
            Record::ProcessStart { prov, .. } => prov,
        };
        if let Some(l) = prov.location.line.as_mut() {
            *l += shift_line;
        }
        prov.offset += offset;
    }
    for e in &mut p.errors {
        e.shift_lines(shift_line);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Place;

    #[test]
    fn blocks_keep_file_numbering() {
        let text = "{\"ts\":\"2025-01-01T00:00:00Z\",\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}}\nnot json\n";
        let p = parse_block(4, "f.ndjson", text, 101, 5000, Dialect::Envelope);
        let locs: Vec<(u32, Option<u64>, u64)> = p
            .records
            .iter()
            .map(|r| match r {
                Record::Frame(f) => (f.prov.file, f.prov.location.line, f.prov.offset),
                Record::ProcessStart { prov, .. } => (prov.file, prov.location.line, prov.offset),
            })
            .collect();
        // The message starts at byte 47 of line 1; line 2 at byte 86.
        assert_eq!(locs, vec![(4, Some(101), 5047), (4, Some(102), 5086)]);
        // A problem keeps its line in the file's numbering too.
        let bad = "{\"ts\":\"2025-13-45T00:00:00Z\",\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}}\n";
        let p = parse_block(
            4,
            "f.ndjson",
            &format!("{text}{bad}"),
            101,
            5000,
            Dialect::Envelope,
        );
        let lines: Vec<_> = p.errors.iter().map(|e| e.location.clone()).collect();
        assert_eq!(lines, vec![Some(Place::Line(103))], "{:?}", p.errors);
        let claude = safe_start(Dialect::Claude).unwrap();
        assert!(claude(b"2025-01-01T00:00:00.000Z [x] [info] hi"));
        assert!(!claude(b"  metadata: {"));
        assert!(safe_start(Dialect::Lsp).is_none());
    }
}

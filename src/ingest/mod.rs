//! Ingest: bytes of one input → [`Record`](crate::record::Record)s with
//! provenance.
//!
//! One file per format or dialect, each exporting the functions of its row
//! of the format table ([`formats`]): how it claims an input, how it parses
//! one and where a block of a large log may start. Parsers are pure: they
//! take text and a file index and do no file or terminal I/O (that is
//! `source`'s job). Detection ([`detect`]) is by content, never by
//! extension, except the per-direction pair, which is known by its file
//! names (FORMATS.md §8.1 "One dialect per file"). The line dialects share
//! the line splitter (`lines`), the line grammar (`grammar`) and the line
//! sink with its one line loop (`sink`); none of them imports detection.

pub mod arrow;
pub mod bare;
pub mod bracketed;
pub mod cassette;
pub mod chunk;
pub mod claude;
pub mod detect;
pub mod envelope;
pub mod formats;
mod grammar;
pub mod har;
mod har_claim;
mod input;
pub mod inspect;
pub mod inspector_history;
pub mod lines;
pub mod lsp;
pub mod mcpproxy;
pub mod mcpremote;
pub mod mcpsnoop;
pub mod mcpspy;
pub mod npmproxy;
pub mod objdump;
pub mod pair;
pub mod pyrepr;
mod sink;
pub mod sse;
pub mod supergateway;
pub mod tagged;
pub mod twoline;
pub mod vscode;

use crate::record::Parsed;

pub use formats::Format;
pub use input::Input;

/// Decides the format of one input from its content (FORMATS.md §8.1).
pub fn detect_format(text: &str) -> Format {
    detect::detect(text)
}

/// Parses one input in the given format.
pub fn parse(input: Input<'_>, format: Format) -> Parsed {
    match formats::spec(format) {
        Some(spec) => (spec.parse)(input),
        None => {
            let mut p = Parsed {
                format: "unknown",
                dialect: "unknown",
                ..Default::default()
            };
            p.errors.push(detect::unknown_message(input));
            p
        }
    }
}

/// Test data shared by the readers' unit tests.
#[cfg(test)]
pub(crate) mod testdata {
    use std::path::Path;

    use crate::record::{Direction, Parsed, Payload, Record};

    /// Each frame of a line log as (line, direction, non-JSON, time).
    pub(crate) fn lines_read(p: &Parsed) -> Vec<(u64, Option<Direction>, bool, Option<i64>)> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.direction,
                    matches!(f.payload, Payload::NonJson),
                    f.ts,
                )),
                _ => None,
            })
            .collect()
    }

    /// The `<capture>.expected.json` of a capture in `tests/data/`: named
    /// after the whole file name in the real-capture folders, after the
    /// stem in `cases/`.
    pub(crate) fn expected(path: &Path) -> serde_json::Value {
        let real = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d.to_string_lossy().starts_with("real"));
        let exp = if real {
            format!("{}.expected.json", path.display())
        } else {
            path.with_extension("expected.json").display().to_string()
        };
        let text = std::fs::read_to_string(&exp).unwrap_or_else(|e| panic!("{exp}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{exp}: {e}"))
    }
}

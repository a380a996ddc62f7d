//! Ingest: bytes of one input → [`Record`]s with provenance.
//!
//! One file per format. Parsers are pure: they take text and a file index
//! and do no file or terminal I/O (that is `source`'s job). Detection is by
//! content, never by extension, except the per-direction pair, which is
//! known by its file names (FORMATS.md §8.1 "One dialect per file").

pub mod arrow;
pub mod bare;
pub mod chunk;
pub mod claude;
pub mod detect;
pub mod envelope;
pub mod har;
pub mod inspect;
pub mod lines;
pub mod lsp;
pub mod pair;
pub mod sse;
pub mod supergateway;
pub mod tagged;
pub mod twoline;
pub mod vscode;

use crate::record::Parsed;

/// The format an input was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// HAR 1.2 JSON document (FORMATS.md §4).
    Har,
    /// A line log, one of the dialects of FORMATS.md §8.2.
    Lines(detect::Dialect),
    /// A raw SSE capture (FORMATS.md §5); read in a later issue.
    Sse,
    /// Nothing recognisable: the message names the first lines read.
    Unknown,
}

/// One input handed to a parser.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// Index of the file in the run (goes into every `Provenance`).
    pub file: u32,
    /// The file's display name (for messages only; parsers never open it).
    pub name: &'a str,
    /// The whole decoded text (UTF-8, BOM removed).
    pub text: &'a str,
}

/// Decides the format of one input from its content (FORMATS.md §8.1).
pub fn detect_format(text: &str) -> Format {
    detect::detect(text)
}

/// Parses one input in the given format.
pub fn parse(input: Input<'_>, format: Format) -> Parsed {
    match format {
        Format::Har => har::parse(input),
        Format::Lines(d) => detect::parse_lines(input, d),
        Format::Sse => sse::parse_raw(input),
        Format::Unknown => {
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

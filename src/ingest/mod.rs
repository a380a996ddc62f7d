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
pub mod lines;
pub mod lsp;
pub mod objdump;
pub mod pair;
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

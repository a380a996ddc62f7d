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
pub mod methods;
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
        Some(spec) => {
            let mut p = (spec.parse)(input);
            if matches!(format, Format::Lines(_)) {
                mark_cut_first_line(input.text, 1, &mut p);
                mark_cut_last_line(input.text, 1, &mut p);
            }
            p
        }
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

/// A line log whose text ends inside a message (no line end after it, and
/// its last line, which holds `{` or `[`, read as no JSON): the log was
/// cut while it was written or copied. That last frame becomes a lost
/// message ([`crate::record::Payload::Lost`], a capture gap that can explain one
/// `missing_response`, DESIGN.md rule 12) instead of a `non_json_line`,
/// with one problem line naming it. `first_line`: the number of the
/// text's first line (a block of a larger file starts further on).
pub fn mark_cut_last_line(text: &str, first_line: u64, p: &mut Parsed) {
    use crate::record::{Payload, Record};
    if text.is_empty() || text.ends_with(['\n', '\r']) {
        return;
    }
    let start = text.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    if !text[start..].contains(['{', '[']) {
        return;
    }
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
    let breaks = if breaks == 0 {
        memchr::memchr_iter(b'\r', text.as_bytes()).count() as u64
    } else {
        breaks
    };
    let last = first_line + breaks;
    let Some(Record::Frame(f)) = p.records.last_mut() else {
        return;
    };
    if !matches!(f.payload, Payload::NonJson) || f.prov.location.line != Some(last) {
        return;
    }
    f.payload = Payload::Lost;
    // The line is accounted for as a problem line, not as traffic.
    p.other_lines += 1;
    p.errors.push(crate::diag::Diagnostic::line(
        last,
        "the file ends inside this line (no line end, the JSON cut off): a message cut as the log was written or copied, read as lost (a capture gap)",
    ));
}

/// A line log whose first line is the tail of a message: it holds no JSON
/// (read as a `non_json_line` frame), does not start like one (`{`, `[`),
/// ends like one (`}` or `]`) and holds a `"` (or only closing brackets):
/// a rotation that cuts by size
/// (rotatelogs on a pipe, `split -b`, copytruncate racing a write) began
/// the file inside a line. That frame becomes a lost message
/// ([`crate::record::Payload::Lost`]): the analysis reads it as the start
/// of a log that starts mid-session (the `start_missing` gap, DESIGN.md
/// rule 12), with one problem line naming it. `first_line`: the number of
/// the text's first line (only a text that starts the file, line 1, is
/// judged).
pub fn mark_cut_first_line(text: &str, first_line: u64, p: &mut Parsed) {
    use crate::record::{Payload, Record};
    if first_line != 1 {
        return;
    }
    let end = text.find(['\n', '\r']).unwrap_or(text.len());
    if end == text.len() {
        // One line without a line end: the last-line rule judges it.
        return;
    }
    let line = text[..end].trim();
    let closers = |c: char| c == '}' || c == ']';
    let tail = line.ends_with(closers)
        && !line.starts_with(['{', '['])
        && (line.contains('"') || line.chars().all(closers));
    if !tail {
        return;
    }
    let Some(f) = p.records.iter_mut().find_map(|r| match r {
        Record::Frame(f) => Some(f),
        _ => None,
    }) else {
        return;
    };
    if !matches!(f.payload, Payload::NonJson) || f.prov.location.line != Some(1) {
        return;
    }
    f.payload = Payload::Lost;
    // The line is accounted for as a problem line, not as traffic.
    p.other_lines += 1;
    p.errors.push(crate::diag::Diagnostic::line(
        1,
        "the file starts inside a message (this line is the tail of one, cut off by size-based rotation or splitting): read as lost, the log starts mid-session (a capture gap)",
    ));
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

#[cfg(test)]
mod cut_tests {
    use super::*;
    use crate::record::{Payload, Record};

    /// The payloads of `text`'s frames in order, its error lines, and its
    /// count of other lines.
    fn parsed(text: &str) -> (Vec<Payload>, Vec<String>, u64) {
        let input = Input {
            file: 0,
            name: "t.ndjson",
            text,
        };
        let p = parse(input, detect_format(text));
        let payloads = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some(f.payload.clone()),
                _ => None,
            })
            .collect();
        let errors = p.errors.iter().map(|e| e.to_string()).collect();
        (payloads, errors, p.other_lines)
    }

    fn last_payload(text: &str) -> (Payload, Vec<String>) {
        let (mut payloads, errors, _) = parsed(text);
        (payloads.pop().unwrap(), errors)
    }

    fn first_payload(text: &str) -> (Payload, Vec<String>, u64) {
        let (payloads, errors, other) = parsed(text);
        (payloads.into_iter().next().unwrap(), errors, other)
    }

    /// Cut inside the last message: lost, named; the same line with its
    /// line end is ordinary stdout pollution (`non_json_line`).
    #[test]
    fn a_cut_last_line_is_a_lost_message() {
        let first = r#"{"ts":"2026-12-01T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#;
        let cut = r#"{"ts":"2026-12-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"res"#;
        let (p, e) = last_payload(&format!("{first}\n{cut}"));
        assert_eq!(p, Payload::Lost);
        assert_eq!(
            e,
            [
                "line 2: the file ends inside this line (no line end, the JSON cut off): a message cut as the log was written or copied, read as lost (a capture gap)"
            ]
        );
        let (p, e) = last_payload(&format!("{first}\n{cut}\n"));
        assert_eq!((p, e.len()), (Payload::NonJson, 0));
        let (p, _) = last_payload(&format!("{first}\nplain text at the end"));
        assert_eq!(p, Payload::NonJson);
    }

    /// A first line that is the tail of a message is lost, named once;
    /// plain text at the start (no closing bracket) stays non-JSON.
    #[test]
    fn a_first_line_cut_by_rotation_is_a_lost_message() {
        let next = r#"{"ts":"2026-12-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}"#;
        let tail = r#"ethod":"ping","params":{}}}"#;
        let (p, e, other) = first_payload(&format!("{tail}\n{next}\n{next}\n"));
        assert_eq!(p, Payload::Lost);
        assert_eq!(
            e,
            [
                "line 1: the file starts inside a message (this line is the tail of one, cut off by size-based rotation or splitting): read as lost, the log starts mid-session (a capture gap)"
            ]
        );
        assert_eq!(other, 1);
        let (p, _, _) = first_payload(&format!("}}}}\n{next}\n{next}\n"));
        assert_eq!(p, Payload::Lost);
        let (p, e, _) = first_payload(&format!("server listening\n{next}\n{next}\n"));
        assert_eq!((p, e.len()), (Payload::NonJson, 0));
    }
}

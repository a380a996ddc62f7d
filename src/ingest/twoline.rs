//! Two-line logs (FORMATS.md table 8.2 row 7, §8.3.5; Zed's LSP RPC log): a
//! marker line `// Send:` (client→server), `// Receive:` or
//! `// Receive (took Nms):` (server→client), then the JSON record.
//!
//! The record starts at the next non-blank line and continues over the
//! following lines until it parses; a blank line or the next `// ` marker
//! ends it. A record that never parses, or parses to neither object nor
//! array, is a `non_json_line` in its marker's direction. `took` is the
//! stated latency of a response record (§8.1 "Stated durations win") and is
//! ignored for requests and notifications. No timestamps; the file is the
//! session key, sessions start at each `initialize`.

use super::grammar::{Balance, is_blank, span};
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::{PayloadError, parse_payload};
use crate::record::{Direction, Kind, Member, Micros, Parsed, Payload};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "twoline";

/// Reads a marker line (FORMATS.md table 8.2 row 7 "recognised by"): its
/// direction and the stated duration in µs. Besides `Nms` (N may be
/// fractional), the other units of Rust's `Duration` debug form (`ns`,
/// `µs`/`us`, `s`) are read too.
pub fn marker(line: &str) -> Option<(Direction, Option<Micros>)> {
    match line.trim_end() {
        "// Send:" => Some((Direction::C2s, None)),
        "// Receive:" => Some((Direction::S2c, None)),
        t => {
            let d = t.strip_prefix("// Receive (took ")?.strip_suffix("):")?;
            Some((Direction::S2c, Some(duration(d)?)))
        }
    }
}

/// `2.819125ms`, `3ms`, `1.5s`, `120µs`, `80ns` → µs.
fn duration(d: &str) -> Option<Micros> {
    let n = d
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(d.len());
    let (num, unit) = (d.get(..n)?, d.get(n..)?.trim_start());
    if num.is_empty() || num.bytes().filter(|b| *b == b'.').count() > 1 {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    let scale = match unit {
        "ms" => 1e3,
        "s" => 1e6,
        "µs" | "us" => 1.0,
        "ns" => 1e-3,
        _ => return None,
    };
    let us = v * scale;
    (us.is_finite() && us < 1e15).then(|| us.round() as Micros)
}

/// Row 7 claims the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    marker(line).is_some()
}

/// A line that ends a record: blank, or a `// ` marker (§8.3.5).
fn ends_record(l: &Line<'_>) -> bool {
    is_blank(l.text) || l.text.trim_start().starts_with("// ") || l.text.trim() == "//"
}

/// A response record (or a batch of responses): `took` applies to it.
fn is_response(p: &Payload) -> bool {
    match p {
        Payload::Single(m) => m.kind == Kind::Response,
        Payload::Batch(ms) => {
            !ms.is_empty()
                && ms
                    .iter()
                    .all(|m| matches!(m, Member::Message(m) if m.kind == Kind::Response))
        }
        _ => false,
    }
}

/// Parses a two-line log (FORMATS.md §8.2 row 7, §8.3.5).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), TwoLine)
}

/// Reads a marker line and the record after it; the file is the key.
struct TwoLine;

impl LineReader for TwoLine {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>) {
        let Some((dir, took)) = marker(line.text) else {
            return sink.other();
        };
        let mut at = At::by_start(sink.input().name, Some(dir), None, line.number);
        // The record starts at the next non-blank line, unless that ends it.
        while rest.peek().is_some_and(|l| is_blank(l.text)) {
            rest.next();
        }
        let Some(first) = rest.peek().filter(|l| !ends_record(l)) else {
            // A marker with no record: an empty payload.
            return sink.non_json(at, line.text);
        };
        rest.next();
        at.line = first.number;
        let text = sink.input().text;
        let record = read_record(text, first, rest);
        match record.found {
            Some((payload, body)) => {
                let latency = if is_response(&payload) { took } else { None };
                sink.frame_timed(at, body.trim_end(), payload, latency);
            }
            None => sink.non_json(at, span(text, first.text, record.last).trim_end()),
        }
        // Accounting (nothing lost): the marker line and the record's lines
        // after its first are not traffic lines of their own.
        sink.other();
        for _ in 1..record.lines {
            sink.other();
        }
    }
}

/// What the lines of one record held.
struct RecordText<'t> {
    /// The payload and its text, when the record parsed.
    found: Option<(Payload, &'t str)>,
    /// The text of the record's last line.
    last: &'t str,
    /// How many lines the record took (all non-blank).
    lines: usize,
}

/// Reads the record that opens at `first` (already taken), taking its
/// further lines from `rest` until it parses, can no longer parse, or a
/// line ends it (FORMATS.md §8.3.5).
fn read_record<'t>(text: &'t str, first: Line<'t>, rest: &mut Lines<'t>) -> RecordText<'t> {
    let opens = first.text.trim_start().starts_with(['{', '[']);
    let mut bal = Balance::default();
    let mut failed = false;
    let mut record = RecordText {
        found: None,
        last: first.text,
        lines: 1,
    };
    let mut l = first;
    loop {
        if !failed {
            let body = span(text, first.text, l.text);
            if !opens {
                // Not an object or array: a scalar parses on its line or
                // never; either way the record is not a message.
                failed = true;
                if matches!(parse_payload(body), Err(PayloadError::NotContainer(_))) {
                    break;
                }
            } else {
                bal.feed(l.text);
                if bal.balanced() {
                    match parse_payload(body) {
                        Ok(p) => {
                            record.found = Some((p, body));
                            break;
                        }
                        Err(_) => failed = true,
                    }
                } else if !bal.open() {
                    failed = true;
                }
            }
        }
        match rest.peek() {
            Some(next) if !ends_record(&next) => {
                rest.next();
                (l, record.last) = (next, next.text);
                record.lines += 1;
            }
            _ => break,
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Id, Record};

    #[test]
    fn markers() {
        assert_eq!(marker("// Send:"), Some((Direction::C2s, None)));
        assert_eq!(marker("// Receive:"), Some((Direction::S2c, None)));
        assert_eq!(
            marker("// Receive (took 2.819125ms):"),
            Some((Direction::S2c, Some(2_819)))
        );
        assert_eq!(
            marker("// Receive (took 12ms):  "),
            Some((Direction::S2c, Some(12_000)))
        );
        assert_eq!(
            marker("// Receive (took 1.5s):"),
            Some((Direction::S2c, Some(1_500_000)))
        );
        assert_eq!(
            marker("// Receive (took 830µs):"),
            Some((Direction::S2c, Some(830)))
        );
        assert_eq!(marker("// Receive (took ms):"), None);
        assert_eq!(marker("// Receive (took 1.2.3ms):"), None);
        assert_eq!(marker("// Receive (took 1e400ms):"), None);
        assert_eq!(marker("// Sent:"), None);
        assert_eq!(marker("x // Send:"), None);
    }

    type Got = (
        u64,
        Option<Direction>,
        Option<(Kind, Id)>,
        Option<Micros>,
        String,
    );

    fn got(text: &str) -> (Vec<Got>, Parsed) {
        let p = parse(Input {
            file: 0,
            name: "zed.log",
            text,
        });
        let v = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.direction,
                    match &f.payload {
                        Payload::Single(m) => Some((m.kind, m.id.clone())),
                        _ => None,
                    },
                    f.stated_latency,
                    text.get(f.prov.offset as usize..(f.prov.offset + f.prov.len as u64) as usize)
                        .unwrap_or("?")
                        .to_string(),
                )),
                _ => None,
            })
            .collect();
        (v, p)
    }

    #[test]
    fn took_applies_to_responses_only() {
        let text = "// Send:\n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n\n\
            // Receive (took 2.819125ms):\n{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\n\
            // Receive (took 5ms):\n{\"jsonrpc\":\"2.0\",\"method\":\"window/logMessage\",\"params\":{}}\n";
        let (g, p) = got(text);
        assert_eq!(
            g.iter()
                .map(|x| (x.0, x.1, x.2.clone(), x.3))
                .collect::<Vec<_>>(),
            vec![
                (
                    2,
                    Some(Direction::C2s),
                    Some((Kind::Request, Id::Int(0))),
                    None
                ),
                (
                    5,
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(0))),
                    Some(2_819)
                ),
                (
                    8,
                    Some(Direction::S2c),
                    Some((Kind::Notification, Id::Absent)),
                    None
                ),
            ]
        );
        // 8 lines: 3 frames, 2 blank, 3 markers (not traffic of their own).
        assert_eq!(
            (p.other_lines, p.dialect, p.errors.len()),
            (3, "twoline", 0)
        );
    }

    #[test]
    fn multi_line_and_broken_records() {
        let text = "Zed LSP log\n\
            // Send:\n{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"a\",\n  \"params\": {\"s\": \"}{]\"}\n}\n\
            // Receive:\n{\"jsonrpc\":\"2.0\",\"id\":1,\n\n\
            // Receive:\nnull\nstray\n\
            // Receive:\n\n// Send:\n[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}]\n\
            // Receive (took 3ms):\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}} x\nmore\n\
            // Send:\n";
        let (g, p) = got(text);
        let short: Vec<_> = g.iter().map(|x| (x.0, x.1, x.2.clone())).collect();
        assert_eq!(
            short,
            vec![
                (3, Some(Direction::C2s), Some((Kind::Request, Id::Int(1)))),
                (10, Some(Direction::S2c), None),
                (13, Some(Direction::S2c), None),
                (15, Some(Direction::S2c), None),
                (18, Some(Direction::C2s), None),
                (20, Some(Direction::S2c), None),
                (22, Some(Direction::C2s), None),
            ]
        );
        assert!(
            g[0].4.starts_with("{\n  \"jsonrpc\"") && g[0].4.ends_with("\"}{]\"}\n}"),
            "{:?}",
            g[0].4
        );
        assert_eq!(g[1].4, "{\"jsonrpc\":\"2.0\",\"id\":1,");
        assert_eq!(g[2].4, "null");
        assert_eq!(g[3].4, "// Receive:");
        assert!(
            matches!(&p.records[4], Record::Frame(f) if matches!(&f.payload, Payload::Batch(b) if b.len() == 1))
        );
        // Text after the value: never parses; the record runs to `more`.
        assert_eq!(
            (g[5].3, g[5].4.as_str()),
            (None, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}} x\nmore")
        );
        assert_eq!(g[6].4, "// Send:");
        // Every line is accounted for: 22 = 7 frames + 2 blank + 13 others
        // (the banner, `stray`, markers and record continuation lines).
        assert_eq!(p.other_lines, 13);
    }
}

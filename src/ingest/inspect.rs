//! util.inspect tracers (FORMATS.md table 8.2 row 9, §8.3.6).
//!
//! A tracer line is `[WORD ]DEBUG --> BODY` (client→server) or
//! `[WORD ]DEBUG <-- BODY` (server→client); the word before `DEBUG`, if any,
//! is ignored. A BODY that opens `{` or `[` continues over the following lines
//! until its brackets balance. BODY is read as JSON first, else as Node
//! `util.inspect` text ([`super::objdump`]); a body readable neither way is
//! a `non_json_line`; other lines are not traffic. No timestamps; the file
//! is the session key, sessions start at each `initialize`.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1};
use nom::character::complete::space1;
use nom::combinator::eof;
use nom::{IResult, Parser};

use super::grammar::continue_body;
use super::input::Input;
use super::lines::{Line, Lines};
use super::objdump::emit_body;
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "inspect";

/// A tracer line (FORMATS.md table 8.2 row 9 "recognised by": `DEBUG -->` or
/// `DEBUG <--` after at most one word): the direction and the BODY text on
/// this line.
pub fn split(line: &str) -> Option<(Direction, &str)> {
    fn after_debug(s: &str) -> IResult<&str, &str> {
        let (s, _) = tag("DEBUG").parse(s)?;
        let (s, _) = space1(s)?;
        let (s, arrow) = alt((tag("-->"), tag("<--"))).parse(s)?;
        let (s, _) = alt((space1, eof)).parse(s)?;
        Ok((s, arrow))
    }
    fn with_word(s: &str) -> IResult<&str, &str> {
        let (s, _) = take_till1(|c: char| c == ' ' || c == '\t').parse(s)?;
        let (s, _) = space1(s)?;
        after_debug(s)
    }
    let (body, arrow) = alt((after_debug, with_word)).parse(line).ok()?;
    let dir = if arrow == "-->" {
        Direction::C2s
    } else {
        Direction::S2c
    };
    Some((dir, body))
}

/// Row 9 claims the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

/// Parses a util.inspect tracer log (FORMATS.md §8.2 row 9, §8.3.6).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Tracer)
}

/// Reads a tracer line and the lines its BODY continues over.
struct Tracer;

impl LineReader for Tracer {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>) {
        let Some((dir, body)) = split(line.text) else {
            return sink.other();
        };
        let (body, taken) = continue_body(sink.input().text, rest, body, claims);
        // Accounting: the body's continuation lines are not traffic
        // lines of their own (nothing lost: every line is counted once).
        for _ in 0..taken {
            sink.other();
        }
        let at = At::by_start(sink.input().name, Some(dir), None, line.number);
        emit_body(sink, at, body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Id, Kind, Payload, Record};

    #[test]
    fn tracer_lines() {
        assert_eq!(split("DEBUG --> {}"), Some((Direction::C2s, "{}")));
        assert_eq!(
            split("[client] DEBUG <-- { id: 1 }"),
            Some((Direction::S2c, "{ id: 1 }"))
        );
        assert_eq!(split("lsp DEBUG -->"), Some((Direction::C2s, "")));
        assert_eq!(split("two words DEBUG --> {}"), None);
        assert_eq!(split("DEBUG -> {}"), None);
        assert_eq!(split("DEBUG -->{}"), None);
        assert_eq!(split("INFO --> {}"), None);
    }

    #[test]
    fn multi_line_tracer_bodies() {
        let text = "starting\n\
            client DEBUG --> { jsonrpc: '2.0', id: 13, method: 'initialize', params: [Object] }\n\
            DEBUG <-- {\n  jsonrpc: '2.0',\n  id: 13,\n  result: {\n    capabilities: [Object]\n  }\n}\n\
            DEBUG --> { jsonrpc: '2.0', method: 'initialized' }\n\
            DEBUG <-- what\n\
            DEBUG <-- { jsonrpc: '2.0', id: 14, result: { a: [\n\
            DEBUG --> {\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"ping\"}\n";
        let p = parse(Input {
            file: 0,
            name: "t.log",
            text,
        });
        let got: Vec<_> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line,
                    f.direction,
                    match &f.payload {
                        Payload::Single(m) => Some((m.kind, m.id.clone())),
                        _ => None,
                    },
                    f.prov.len as usize,
                )),
                _ => None,
            })
            .collect();
        assert_eq!(got.len(), 6, "{got:?}");
        assert_eq!(got[0].2, Some((Kind::Request, Id::Int(13))));
        assert_eq!(
            (got[1].0, got[1].2.clone()),
            (Some(3), Some((Kind::Response, Id::Int(13))))
        );
        assert_eq!(
            got[1].3,
            "{\n  jsonrpc: '2.0',\n  id: 13,\n  result: {\n    capabilities: [Object]\n  }\n}"
                .len()
        );
        assert_eq!(got[2].2, Some((Kind::Notification, Id::Absent)));
        assert_eq!((got[3].0, got[3].2.clone()), (Some(11), None));
        assert_eq!(
            (got[4].0, got[4].2.clone()),
            (Some(12), Some((Kind::Response, Id::Int(14))))
        );
        assert_eq!(
            (got[5].0, got[5].2.clone()),
            (Some(13), Some((Kind::Request, Id::Int(15))))
        );
        // One other line, and the 6 continuation lines of the body at line 3.
        assert_eq!(p.other_lines, 7);
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("line 12: util.inspect body read only in part"),
            "{:?}",
            p.errors
        );
        assert_eq!(p.dialect, "inspect");
    }
}

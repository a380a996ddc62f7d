//! supergateway logs (FORMATS.md table 8.2 row 8, §8.3.6, §6.6):
//! `[supergateway] SRC → DST (session SID): BODY`.
//!
//! Client→server when DST is `Child` (`SSE → Child`, `StreamableHttp →
//! Child`, `WebSocket → Child`) or SRC is `Stdio` (`Stdio → SSE`);
//! server→client when SRC is `Child` or DST is `Stdio`. BODY is read as JSON
//! first, else as util.inspect text (see [`super::objdump`]); a BODY that
//! opens `{` or `[` continues over the following lines until its brackets
//! balance. `Child non-JSON (session SID): LINE` is a server→client
//! `non_json_line`; every other `[supergateway]` line (`Child stderr …`,
//! `Starting...`, option lines) and any untagged line is not traffic. The
//! session key is SID, else the file; sessions start at each `initialize`.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1};
use nom::character::complete::alphanumeric1;
use nom::combinator::opt;
use nom::sequence::delimited;
use nom::{IResult, Parser};

use super::grammar::continue_body;
use super::input::Input;
use super::lines::{Line, Lines};
use super::objdump::emit_body;
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "supergateway";

const PREFIX: &str = "[supergateway] ";

/// What one `[supergateway]` line holds (FORMATS.md table 8.2 row 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgLine<'a> {
    /// `SRC → DST[ (session SID)]: BODY` with a known direction.
    Traffic {
        /// Direction of the message.
        direction: Direction,
        /// The `(session SID)` value, if printed.
        session: Option<&'a str>,
        /// BODY on this line (it may continue on the next lines).
        body: &'a str,
    },
    /// `Child non-JSON[ (session SID)]: LINE`.
    NonJson {
        /// The `(session SID)` value, if printed.
        session: Option<&'a str>,
        /// The text the child wrote.
        text: &'a str,
    },
    /// Any other `[supergateway]` line: not traffic.
    Other,
}

fn session(s: &str) -> IResult<&str, &str> {
    delimited(tag(" (session "), take_till1(|c| c == ')'), tag(")")).parse(s)
}

fn route(s: &str) -> IResult<&str, (&str, &str, Option<&str>)> {
    let (s, (src, _, dst, sid, _)) = (
        alphanumeric1,
        alt((tag(" → "), tag(" -> "))),
        alphanumeric1,
        opt(session),
        tag(":"),
    )
        .parse(s)?;
    Ok((s, (src, dst, sid)))
}

fn non_json(s: &str) -> IResult<&str, Option<&str>> {
    let (s, (_, sid, _)) = (tag("Child non-JSON"), opt(session), tag(":")).parse(s)?;
    Ok((s, sid))
}

/// Reads one line (FORMATS.md table 8.2 row 8); `None` when it does not
/// start `[supergateway] `.
pub fn split(line: &str) -> Option<SgLine<'_>> {
    let rest = line.strip_prefix(PREFIX)?;
    if let Ok((text, session)) = non_json(rest) {
        return Some(SgLine::NonJson {
            session,
            text: text.strip_prefix(' ').unwrap_or(text),
        });
    }
    let Ok((body, (src, dst, session))) = route(rest) else {
        return Some(SgLine::Other);
    };
    let direction = if dst == "Child" || (src == "Stdio" && src != dst) {
        Direction::C2s
    } else if src == "Child" || dst == "Stdio" {
        Direction::S2c
    } else {
        return Some(SgLine::Other);
    };
    Some(SgLine::Traffic {
        direction,
        session,
        body: body.strip_prefix(' ').unwrap_or(body),
    })
}

/// Row 8 claims the line (FORMATS.md §8.2: `[supergateway] `).
pub fn claims(line: &str) -> bool {
    line.starts_with(PREFIX)
}

/// Parses a supergateway log (FORMATS.md §8.2 row 8, §8.3.6).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Supergateway)
}

/// Reads a `[supergateway]` line and the lines its BODY continues over.
struct Supergateway;

impl LineReader for Supergateway {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>) {
        fn at<'k>(key: &'k str, direction: Direction, line: u64) -> At<'k> {
            At::by_start(key, Some(direction), None, line)
        }
        let file = sink.input().name;
        match split(line.text) {
            Some(SgLine::Traffic {
                direction,
                session,
                body,
            }) => {
                let (body, taken) = continue_body(sink.input().text, rest, body, claims);
                // Accounting: the body's continuation lines are not traffic
                // lines of their own (nothing lost: every line is counted once).
                for _ in 0..taken {
                    sink.other();
                }
                let at = at(session.unwrap_or(file), direction, line.number);
                emit_body(sink, at, body);
            }
            Some(SgLine::NonJson { session, text }) => sink.non_json(
                at(session.unwrap_or(file), Direction::S2c, line.number),
                text,
            ),
            Some(SgLine::Other) | None => sink.other(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Id, Kind, Payload, Record};

    #[test]
    fn routes() {
        let t = |l| match split(l) {
            Some(SgLine::Traffic {
                direction,
                session,
                body,
            }) => Some((direction, session, body)),
            _ => None,
        };
        assert_eq!(
            t("[supergateway] SSE → Child (session abc-1): {}"),
            Some((Direction::C2s, Some("abc-1"), "{}"))
        );
        assert_eq!(
            t("[supergateway] StreamableHttp → Child: {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            t("[supergateway] WebSocket → Child: {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            t("[supergateway] Stdio → SSE: {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            t("[supergateway] Child → SSE: { id: 1 }"),
            Some((Direction::S2c, None, "{ id: 1 }"))
        );
        assert_eq!(
            t("[supergateway] Child → StreamableHttp (session s): {"),
            Some((Direction::S2c, Some("s"), "{"))
        );
        assert_eq!(
            t("[supergateway] SSE → Stdio: {}"),
            Some((Direction::S2c, None, "{}"))
        );
        assert_eq!(
            split("[supergateway] Child non-JSON (session s): oops"),
            Some(SgLine::NonJson {
                session: Some("s"),
                text: "oops"
            })
        );
        assert_eq!(
            split("[supergateway] Child non-JSON: oops"),
            Some(SgLine::NonJson {
                session: None,
                text: "oops"
            })
        );
        assert_eq!(
            split("[supergateway] Child stderr (session s): hi"),
            Some(SgLine::Other)
        );
        assert_eq!(split("[supergateway] Starting..."), Some(SgLine::Other));
        assert_eq!(
            split("[supergateway] SSE → WebSocket: {}"),
            Some(SgLine::Other)
        );
        assert_eq!(split("supergateway x"), None);
    }

    type Got = (
        u64,
        std::sync::Arc<str>,
        Option<Direction>,
        Option<(Kind, Id, bool)>,
    );

    fn got(p: &Parsed) -> Vec<Got> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.key.clone(),
                    f.direction,
                    match &f.payload {
                        Payload::Single(m) => Some((m.kind, m.id.clone(), m.has_result)),
                        _ => None,
                    },
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn json_and_inspect_bodies_by_session() {
        let text = "[supergateway] Starting...\n\
            [supergateway]   - port: 8000\n\
            [supergateway] New SSE connection from ::1\n\
            [supergateway] SSE → Child (session s1): {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n\
            [supergateway] Child → SSE (session s1): {\n  jsonrpc: '2.0',\n  id: 0,\n  result: {\n    protocolVersion: '2024-11-05',\n    capabilities: { tools: [Object] },\n    serverInfo: [Object]\n  }\n}\n\
            [supergateway] Child stderr (session s1): Server running on stdio\n\
            [supergateway] SSE → Child (session s2): {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
            [supergateway] Child → SSE (session s2): { jsonrpc: '2.0', id: 1, result: { tools: [ [Object], [Object] ] } }\n\
            [supergateway] Child non-JSON (session s2): Debugger attached.\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 2, error: [Object] }\n\
            [supergateway] Child → SSE: <<not inspect>>\n\
            plain stderr\n\
            [supergateway] Child → SSE (session s2): { jsonrpc: '2.0', id: 3, result: { a: [ 1,\n\
            [supergateway] POST to SSE transport (session s2)\n";
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let g = got(&p);
        assert_eq!(
            g,
            vec![
                (
                    4,
                    "s1".into(),
                    Some(Direction::C2s),
                    Some((Kind::Request, Id::Int(0), false))
                ),
                (
                    5,
                    "s1".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(0), true))
                ),
                (
                    15,
                    "s2".into(),
                    Some(Direction::C2s),
                    Some((Kind::Request, Id::Int(1), false))
                ),
                (
                    16,
                    "s2".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(1), true))
                ),
                (17, "s2".into(), Some(Direction::S2c), None),
                (
                    18,
                    "sg.log".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(2), false))
                ),
                (19, "sg.log".into(), Some(Direction::S2c), None),
                (
                    21,
                    "s2".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(3), true))
                ),
            ]
        );
        // Starting, port, New SSE connection, stderr, plain stderr, POST, and
        // the 8 continuation lines of the body at line 5.
        assert_eq!((p.other_lines, p.dialect), (14, "supergateway"));
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("line 21: util.inspect body read only in part: "),
            "{:?}",
            p.errors
        );
        let Record::Frame(f) = &p.records[1] else {
            panic!()
        };
        let Payload::Single(m) = &f.payload else {
            panic!()
        };
        assert!(m.problems.is_empty() && !m.rebuilt, "{m:?}");
        let Record::Frame(f) = &p.records[5] else {
            panic!()
        };
        let Payload::Single(m) = &f.payload else {
            panic!()
        };
        assert!(m.has_error && m.problems.is_empty(), "{m:?}");
    }
}

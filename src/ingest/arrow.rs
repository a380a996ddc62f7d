//! Arrow logs (FORMATS.md table 8.2 row 10, §8.3.3): `[TS ]--> JSON`,
//! `[TS ]<-- JSON`, `> JSON`, `< JSON` (JSON-RPC spec notation, IDE log
//! panels).
//!
//! Recorder output: exactly one JSON object or array after the arrow, else a
//! `non_json_line` (`null`, truncated JSON, nothing). Lines without an arrow
//! are not traffic. The file is the session key; sessions start at each
//! `initialize` (decided later).

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::combinator::opt;
use nom::{IResult, Parser};

use super::grammar::iso_ts_then_space;
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "arrow";

/// One line split into its optional timestamp, the arrow's direction and the
/// payload text (FORMATS.md table 8.2 row 10 "recognised by": an optional
/// ISO timestamp, then `-->`, `<--`, `>` or `<`, then a space or the line
/// end).
pub fn split(line: &str) -> Option<(Option<&str>, Direction, &str)> {
    let (rest, ts) = opt(iso_ts_then_space).parse(line).ok()?;
    let (rest, arrow) = arrow(rest).ok()?;
    let payload = if rest.is_empty() {
        rest
    } else {
        rest.strip_prefix(' ')?
    };
    let dir = if arrow.contains('>') {
        Direction::C2s
    } else {
        Direction::S2c
    };
    Some((ts, dir, payload))
}

fn arrow(s: &str) -> IResult<&str, &str> {
    alt((tag("-->"), tag("<--"), tag(">"), tag("<"))).parse(s)
}

/// Row 10 claims the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

/// Parses an arrow log (FORMATS.md §8.2 row 10).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Arrow)
}

/// Reads each line alone; the file is the key.
struct Arrow;

impl LineReader for Arrow {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        match split(line.text) {
            Some((ts, dir, payload)) => {
                let ts = ts.and_then(|s| sink.ts(line.number, s));
                let at = At::by_start(sink.input().name, Some(dir), ts, line.number);
                sink.exact(at, payload);
            }
            None => sink.other(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Payload, Record};

    #[test]
    fn arrows_with_and_without_timestamps() {
        assert_eq!(split("--> {}"), Some((None, Direction::C2s, "{}")));
        assert_eq!(split("<-- {}"), Some((None, Direction::S2c, "{}")));
        assert_eq!(split("> [1]"), Some((None, Direction::C2s, "[1]")));
        assert_eq!(split("<"), Some((None, Direction::S2c, "")));
        assert_eq!(
            split("2026-09-13T08:30:00.000Z --> {}"),
            Some((Some("2026-09-13T08:30:00.000Z"), Direction::C2s, "{}"))
        );
        assert_eq!(split("<--{}"), None);
        assert_eq!(split(">>> POST"), None);
        assert_eq!(split("-> x"), None);
        assert_eq!(split("2026-09-13T08:30:00.000Z hello"), None);
    }

    #[test]
    fn payload_must_be_exactly_one_value() {
        let text = "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n\
                    <-- null\r\n\
                    just text\n\
                    <-- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} {\"x\":1}\n\
                    \n\
                    2025-01-01T12:00:00.000+02:00 --> {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"\n\
                    2025-01-01T10:00:00.001Z <--";
        let p = parse(Input {
            file: 0,
            name: "a.log",
            text,
        });
        let got: Vec<_> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.direction,
                    f.ts,
                    f.prov.location.line,
                    !matches!(f.payload, Payload::NonJson),
                )),
                _ => None,
            })
            .collect();
        let t = Some(1_735_725_600_000_000);
        assert_eq!(
            got,
            vec![
                (Some(Direction::C2s), None, Some(1), true),
                (Some(Direction::S2c), None, Some(2), false),
                (Some(Direction::S2c), None, Some(4), false),
                (Some(Direction::C2s), t, Some(6), false),
                (Some(Direction::S2c), t.map(|v| v + 1000), Some(7), false),
            ]
        );
        assert_eq!((p.other_lines, p.dialect), (1, "arrow"));
    }
}

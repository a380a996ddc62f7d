//! Bare NDJSON (FORMATS.md table 8.2 row 12, §8.3.7): one JSON-RPC message
//! or batch per line, no timestamps, no direction.
//!
//! A message with `method` (for a batch, its first element) is read as
//! client→server, any other as server→client. Every non-blank line is
//! traffic; a line that is not a JSON object or array is a `non_json_line`
//! with no direction. The file is the session key.

use serde::de::IgnoredAny;

use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::parse_payload;
use crate::record::{Direction, Kind, Member, Parsed, Payload};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "bare";

/// Row 12 claims the line: a JSON object or array (FORMATS.md §8.2; row 11
/// is tried first).
pub fn claims(line: &str) -> bool {
    let t = line.trim();
    (t.starts_with('{') || t.starts_with('[')) && serde_json::from_str::<IgnoredAny>(t).is_ok()
}

/// The direction bare NDJSON gives a payload (FORMATS.md §8.3.7): c2s when
/// the message, or a batch's first element, has `method`; else s2c.
pub fn guess_direction(payload: &Payload) -> Direction {
    let has_method = match payload {
        Payload::Single(m) => m.kind != Kind::Response,
        Payload::Batch(ms) => {
            matches!(ms.first(), Some(Member::Message(m)) if m.kind != Kind::Response)
        }
        _ => false,
    };
    if has_method {
        Direction::C2s
    } else {
        Direction::S2c
    }
}

/// Parses a bare NDJSON file (FORMATS.md §8.2 row 12).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Bare)
}

/// Reads each line alone; the file is the key.
struct Bare;

impl LineReader for Bare {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let part = line.text.trim();
        let mut at = At::by_start(sink.input().name, None, None, line.number);
        match parse_payload(part) {
            Ok(payload) => {
                at.direction = Some(guess_direction(&payload));
                sink.frame(at, part, payload);
            }
            Err(_) => sink.non_json(at, part),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    #[test]
    fn directions_by_method() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\r\n\
                    \n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
                    [{\"jsonrpc\":\"2.0\",\"method\":\"n\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":1}]\n\
                    [{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":1},{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\n\
                    []\n\
                    null\n\
                    {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\"";
        let p = parse(Input {
            file: 0,
            name: "b.jsonl",
            text,
        });
        let got: Vec<_> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line,
                    f.direction,
                    matches!(f.payload, Payload::NonJson),
                )),
                _ => None,
            })
            .collect();
        let (c, s) = (Some(Direction::C2s), Some(Direction::S2c));
        assert_eq!(
            got,
            vec![
                (Some(1), c, false),
                (Some(3), s, false),
                (Some(4), c, false),
                (Some(5), s, false),
                (Some(6), s, false),
                (Some(7), None, true),
                (Some(8), None, true),
            ]
        );
        assert_eq!((p.dialect, p.other_lines), ("bare", 0));
        assert!(
            claims(" [1] ") && claims("{}") && !claims("null") && !claims("{") && !claims("{} x")
        );
    }
}

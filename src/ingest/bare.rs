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

/// Row 12 claims the line: a JSON-RPC message or batch (FORMATS.md §8.2;
/// row 11 is tried first). A line that merely parses as JSON does not:
/// an object must have `jsonrpc` or `method`, or `id` with `result` or
/// `error`; an array must be empty or start with such an object. So a
/// `package.json`, a JSON log line or mcp-remote's `[30601]` (a PID in
/// brackets) never makes a file bare NDJSON.
pub fn claims(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('{') {
        serde_json::from_str::<Shape>(t).is_ok_and(|s| s.is_jsonrpc())
    } else if t.starts_with('[') {
        serde_json::from_str::<FirstMember>(t).is_ok_and(|f| f.0.is_none_or(|s| s.is_jsonrpc()))
    } else {
        false
    }
}

/// Which JSON-RPC members an object has (values skipped, `null` counts as
/// present).
#[derive(serde::Deserialize)]
struct Shape {
    #[serde(default)]
    jsonrpc: Present,
    #[serde(default)]
    method: Present,
    #[serde(default)]
    id: Present,
    #[serde(default)]
    result: Present,
    #[serde(default)]
    error: Present,
}

impl Shape {
    fn is_jsonrpc(&self) -> bool {
        self.jsonrpc.0 || self.method.0 || (self.id.0 && (self.result.0 || self.error.0))
    }
}

/// A member that is there, whatever its value.
#[derive(Default)]
struct Present(bool);

impl<'de> serde::Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Present(true))
    }
}

/// An array's first member as a [`Shape`] (`None` for `[]`), the rest
/// skipped; an array whose first member is no object is no batch.
struct FirstMember(Option<Shape>);

impl<'de> serde::Deserialize<'de> for FirstMember {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = FirstMember;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON-RPC batch")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<FirstMember, A::Error> {
                let first: Option<Shape> = seq.next_element()?;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstMember(first))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The direction bare NDJSON gives a payload (FORMATS.md §8.3.7): s2c for
/// a notification only a server sends (the same table as MCPSpy's,
/// `mcpspy::sent_by_client`) and for `notifications/progress`, which a
/// server sends on the client's requests (a client only on the server's,
/// far rarer); else c2s when the message, or a batch's first element, has
/// `method`; else s2c.
pub fn guess_direction(payload: &Payload) -> Direction {
    let sent_by_client = |m: &crate::record::Message| {
        m.kind != Kind::Response
            && !(m.kind == Kind::Notification
                && m.method.as_deref().is_some_and(|x| {
                    x == "notifications/progress"
                        || super::mcpspy::sent_by_client("notification", Some(x)) == Some(false)
                }))
    };
    let has_method = match payload {
        Payload::Single(m) => sent_by_client(m),
        Payload::Batch(ms) => {
            matches!(ms.first(), Some(Member::Message(m)) if sent_by_client(m))
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
    fn only_json_rpc_lines_are_claimed() {
        for yes in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"method":"notifications/initialized"}"#,
            r#"{"id":1,"result":null}"#,
            r#"{"id":null,"error":{"code":-32700,"message":"x"}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            "[]",
        ] {
            assert!(claims(yes), "{yes}");
        }
        for no in [
            r#"{"a":1}"#,
            r#"{"name":"pkg","version":"1.0.0","scripts":{"test":"x"}}"#,
            r#"{"level":"info","msg":"started","id":3}"#,
            "[30601]",
            r#"["a",{"jsonrpc":"2.0"}]"#,
            r#"{"jsonrpc":"2.0""#,
        ] {
            assert!(!claims(no), "{no}");
        }
    }

    #[test]
    fn directions_by_method() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\r\n\
                    \n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
                    [{\"jsonrpc\":\"2.0\",\"method\":\"n\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":1}]\n\
                    [{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":1},{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\n\
                    []\n\
                    null\n\
                    {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\"\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}";
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
                (Some(9), s, false),
                (Some(10), c, false),
            ]
        );
        assert_eq!((p.dialect, p.other_lines), ("bare", 0));
        // JSON that is no JSON-RPC message is not claimed (see
        // only_json_rpc_lines_are_claimed).
        assert!(
            claims(" [] ")
                && !claims(" [1] ")
                && !claims("{}")
                && !claims("null")
                && !claims("{")
                && !claims("{} x")
        );
    }
}

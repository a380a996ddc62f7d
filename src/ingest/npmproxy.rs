//! npm `mcp-proxy` (punkpeye) `--debug` output (FORMATS.md §8.3.11): its
//! stdout holds `transport event {` + a multi-line util.inspect dump of each
//! event of the stdio transport to its child server, until the brackets
//! balance:
//! - `{ message: {…}, type: 'message' }`: one message the child server
//!   wrote (server→client), read by [`super::objdump`];
//! - `{ chunk: '…', type: 'data' }`: the raw stdout bytes of the same
//!   messages (a copy, not traffic); `{ type: 'close' }`, `{ error: …,
//!   type: 'error' }`: not traffic.
//!
//! Nothing the proxy sends to the child is logged, so the log holds one
//! side of the conversation (`Parsed::one_direction`, DESIGN.md rule 12:
//! only message-local rules apply, nothing is paired). Every other line
//! (`starting server on port N`, `[mcp-proxy] …`, the child's stderr) is
//! not traffic. No timestamps; the file is the session key.

use super::grammar::continue_body;
use super::input::Input;
use super::lines::{Line, Lines};
use super::objdump::{Body, read_member};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "mcp-proxy-npm";

const PREFIX: &str = "transport event ";

/// The row claims the line: `transport event {`.
pub fn claims(line: &str) -> bool {
    line.strip_prefix(PREFIX)
        .is_some_and(|r| r.starts_with('{'))
}

fn is_start(line: &str) -> bool {
    line.starts_with(PREFIX)
}

/// Parses an npm mcp-proxy `--debug` log (FORMATS.md §8.3.11).
pub fn parse(input: Input<'_>) -> Parsed {
    let mut sink = LineSink::new(input, NAME);
    sink.one_direction();
    read_lines(sink, NpmProxy)
}

struct NpmProxy;

impl LineReader for NpmProxy {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>) {
        let Some(body) = line
            .text
            .strip_prefix(PREFIX)
            .filter(|b| b.starts_with('{'))
        else {
            sink.other();
            return;
        };
        let (body, taken) = continue_body(sink.input().text, rest, body, is_start);
        for _ in 0..taken {
            sink.other();
        }
        let part = body.trim_matches([' ', '\t', '\r', '\n']);
        let at = At::by_start(sink.input().name, Some(Direction::S2c), None, line.number);
        match read_member(part, "message") {
            None => sink.other(),
            Some(Body::Read(p)) => sink.frame(at, part, p),
            Some(Body::Partly(p, what)) => {
                sink.error(
                    line.number,
                    &format!("util.inspect body read only in part: {what}"),
                );
                sink.frame(at, part, p);
            }
            Some(Body::Unreadable) => sink.non_json(at, part),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::testdata::lines_read;
    use crate::record::{Id, Kind, Payload, Record};

    #[test]
    fn reads_message_events_only() {
        let text = "transport event {\n  chunk: '{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\\n',\n  type: 'data'\n}\ntransport event {\n  message: {\n    jsonrpc: '2.0',\n    id: 0,\n    result: { serverInfo: { name: 'capture-demo-py1', version: '1.30.0' } }\n  },\n  type: 'message'\n}\nstarting server on port 18404\n[mcp-proxy] received delete request\ntransport event {\n  message: { method: 'notifications/progress', params: { progressToken: 12, progress: 1 }, jsonrpc: '2.0' },\n  type: 'message'\n}\ntransport event { message: { jsonrpc: '2.0', id: 3, method: 'roots/list' }, type: 'message' }\ntransport event { type: 'close' }\n";
        let p = parse(Input {
            file: 0,
            name: "n.log",
            text,
        });
        assert!(p.one_direction);
        assert_eq!(
            lines_read(&p),
            vec![
                (5, Some(Direction::S2c), false, None),
                (15, Some(Direction::S2c), false, None),
                (19, Some(Direction::S2c), false, None),
            ]
        );
        let got: Vec<(Kind, Id)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => match &f.payload {
                    Payload::Single(m) => Some((m.kind, m.id.clone())),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (Kind::Response, Id::Int(0)),
                (Kind::Notification, Id::Absent),
                (Kind::Request, Id::Int(3)),
            ]
        );
        // Lines 1-4, 6-12, 13, 14, 16-18, 20.
        assert_eq!((p.other_lines, p.errors.len()), (17, 0));
        assert!(claims("transport event {") && !claims("transport event"));
    }

    #[test]
    fn never_panics_on_odd_input() {
        for t in [
            "transport event {",
            "transport event {\n  message: {\n",
            "transport event { message: [[[[ ",
            "transport event { message: 'x', type: 'message' }",
            "transport event {}}}}\n{",
            "transport event { message: { é: [Obj",
        ] {
            let _ = parse(Input {
                file: 0,
                name: "x",
                text: t,
            });
        }
    }
}

//! Bare NDJSON (FORMATS.md table 8.2 row 12, §8.3.7): one JSON-RPC message
//! or batch per line, no timestamps, no direction.
//!
//! The direction of a message (for a batch, its first element) is read
//! from what it is ([`Directions`], FORMATS.md §8.3.7): a method only a
//! server sends is server→client, any other message with `method`
//! client→server; a response answers the side whose request with its id
//! is open (the client answers the server's `sampling/createMessage`),
//! else it is server→client. Every non-blank line is traffic; a line that
//! is not a JSON object or array is a `non_json_line` with no direction.
//! The file is the session key.

use std::collections::HashMap;

use serde::de::IgnoredAny;

use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::id::LooseKey;
use crate::record::jsonrpc::parse_payload;
use crate::record::{Direction, Frame, Kind, Member, Message, Parsed, Payload, Record};

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

/// The direction bare NDJSON gives a payload by what it is alone
/// (FORMATS.md §8.3.7): s2c for a request or notification only a server
/// sends (`sampling/createMessage`, `roots/list`, `elicitation/create`,
/// `notifications/message`, `…/resources/updated`, `…/list_changed`,
/// `…/elicitation/complete`: the table of MCPSpy's
/// `methods::sent_by_client`) and for `notifications/progress`, which a
/// server sends on the client's requests (a client only on the server's,
/// far rarer); else c2s when the message, or a batch's first element, has
/// `method`; else s2c. [`Directions`] then reads responses (and
/// cancellations) against the requests open each way.
pub fn guess_direction(payload: &Payload) -> Direction {
    let sent_by_client = |m: &Message| {
        m.kind != Kind::Response
            && !(m.method.as_deref().is_some_and(|x| {
                let kind = if m.kind == Kind::Request {
                    "request"
                } else {
                    "notification"
                };
                (m.kind == Kind::Notification && x == "notifications/progress")
                    || super::methods::sent_by_client(kind, Some(x)) == Some(false)
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

/// The directions of a bare NDJSON log's frames, read in file order
/// (FORMATS.md §8.3.7): the requests still open each way decide where a
/// response goes. A response (a batch: its first element) whose id is
/// that of an open server request and of no open client request is the
/// client's answer, client→server; any other response server→client. A
/// `notifications/cancelled` naming an open server request and no open
/// client request is the server's; a `notifications/progress` whose token
/// is that of an open server request and of no open client request is the
/// client's (FORMATS.md §3.5). Everything else keeps
/// [`guess_direction`]. A frame's direction is worked out from its
/// payload and the frames before it only, so reading the same frames again
/// (a large file's blocks, parsed apart, then walked in order) gives the
/// same directions.
#[derive(Debug, Default)]
pub struct Directions {
    /// Open requests by id (loose key, DESIGN.md rule 5) and how many:
    /// `[client's, server's]`.
    open: [HashMap<LooseKey, u32>; 2],
    /// The progress tokens of the open requests that named one, and how
    /// many: `[client's, server's]`.
    tokens: [HashMap<LooseKey, u32>; 2],
    /// The token each open request named, by its id: `[client's, server's]`.
    token_of: [HashMap<LooseKey, LooseKey>; 2],
}

impl Directions {
    /// Sets the direction of frame `f` (a message or batch; other frames
    /// keep theirs) and notes the requests it opens or answers.
    pub fn frame(&mut self, f: &mut Frame) {
        let first = match &f.payload {
            Payload::Single(m) => Some(m),
            Payload::Batch(ms) => match ms.first() {
                Some(Member::Message(m)) => Some(m),
                _ => None,
            },
            _ => return,
        };
        let guessed = guess_direction(&f.payload);
        let d = match first {
            Some(m) if m.kind == Kind::Response => self.answered_by_client(&m.id.loose()),
            Some(m)
                if m.kind == Kind::Notification
                    && m.method.as_deref() == Some("notifications/cancelled") =>
            {
                let named = m.extra.as_ref().and_then(|e| e.cancel_id.as_ref());
                if self.answered_by_client(&named.and_then(|i| i.loose())) == Direction::C2s {
                    Direction::S2c
                } else {
                    guessed
                }
            }
            // Progress on a server request (a client's, FORMATS.md §3.5)
            // when its token is only an open server request's.
            Some(m)
                if m.kind == Kind::Notification
                    && m.method.as_deref() == Some("notifications/progress") =>
            {
                let token = m.progress_token().and_then(|t| t.loose());
                let named = |side: usize| {
                    token
                        .as_ref()
                        .is_some_and(|t| self.tokens[side].contains_key(t))
                };
                if named(1) && !named(0) {
                    Direction::C2s
                } else {
                    guessed
                }
            }
            _ => guessed,
        };
        f.direction = Some(d);
        match &f.payload {
            Payload::Single(m) => self.note(m, d),
            Payload::Batch(ms) => {
                for m in ms.iter().filter_map(|x| match x {
                    Member::Message(m) => Some(m),
                    Member::NotObject => None,
                }) {
                    self.note(m, d);
                }
            }
            _ => {}
        }
    }

    /// C2s when `id` is that of an open server request and of no open
    /// client request, else S2c.
    fn answered_by_client(&self, id: &Option<LooseKey>) -> Direction {
        let open = |side: usize| id.as_ref().is_some_and(|k| self.open[side].contains_key(k));
        if open(1) && !open(0) {
            Direction::C2s
        } else {
            Direction::S2c
        }
    }

    /// Message `m`, sent `d`: a request opens its id on its sender's side;
    /// a response closes one of the other side's; a cancellation closes
    /// the request it names on its sender's side.
    fn note(&mut self, m: &Message, d: Direction) {
        let side = |d: Direction| usize::from(d == Direction::S2c);
        let (key, side) = match m.kind {
            Kind::Request => {
                if let Some(k) = m.id.loose() {
                    let token = m.progress_token().and_then(|t| t.loose());
                    if let Some(t) = token {
                        *self.tokens[side(d)].entry(t.clone()).or_insert(0) += 1;
                        self.token_of[side(d)].insert(k.clone(), t);
                    }
                    *self.open[side(d)].entry(k).or_insert(0) += 1;
                }
                return;
            }
            Kind::Response => (m.id.loose(), side(d.other())),
            Kind::Notification => (
                m.extra
                    .as_ref()
                    .and_then(|e| e.cancel_id.as_ref())
                    .and_then(|i| i.loose()),
                side(d),
            ),
        };
        if let Some(k) = key
            && let Some(n) = self.open[side].get_mut(&k)
        {
            *n -= 1;
            if *n == 0 {
                self.open[side].remove(&k);
                self.close_token(side, &k);
            }
        }
    }

    /// Request `id` of `side` is no longer open: so is its token.
    fn close_token(&mut self, side: usize, id: &LooseKey) {
        let Some(t) = self.token_of[side].remove(id) else {
            return;
        };
        if let Some(n) = self.tokens[side].get_mut(&t) {
            *n -= 1;
            if *n == 0 {
                self.tokens[side].remove(&t);
            }
        }
    }

    /// Sets the directions of `records`, in order (see [`Directions`]).
    pub fn settle(records: &mut [Record]) {
        let mut d = Directions::default();
        for r in records {
            if let Record::Frame(f) = r {
                d.frame(f);
            }
        }
    }
}

/// Parses a bare NDJSON file (FORMATS.md §8.2 row 12).
pub fn parse(input: Input<'_>) -> Parsed {
    let mut p = read_lines(LineSink::new(input, NAME), Bare);
    Directions::settle(&mut p.records);
    p
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

    fn directions(p: &Parsed) -> Vec<(u64, &'static str)> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.direction.map_or("none", |d| d.as_str()),
                )),
                _ => None,
            })
            .collect()
    }

    /// The server's requests and the client's answers: a session of
    /// server-everything 2.0.0 (tests/data/real4/fresh16/rich-bare.ndjson,
    /// the messages of an envelope log without its `dir`), whose directions
    /// the envelope log gave (`rich-bare.directions`, one per line).
    /// sampling/createMessage id 0 (line 11), elicitation/create id 1 (15)
    /// and roots/list id 2 (19) are the server's, each answered by the
    /// client on the next line (12, 16, 20) while client ids 0, 1 and 2 are
    /// answered; notifications/tools/list_changed (5–8) and
    /// notifications/message (21, 24, 41) are the server's too. Before,
    /// the server's requests were c2s and the client's answers s2c: 6
    /// lines the wrong way, and 3 false `id_reused`.
    #[test]
    fn server_requests_and_their_answers() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real4/fresh16");
        let text = std::fs::read_to_string(dir.join("rich-bare.ndjson")).unwrap();
        let truth = std::fs::read_to_string(dir.join("rich-bare.directions")).unwrap();
        let want: Vec<(u64, &str)> = truth
            .lines()
            .enumerate()
            .map(|(i, d)| (i as u64 + 1, d))
            .collect();
        assert_eq!(want.len(), 48);
        let p = parse(Input {
            file: 0,
            name: "rich-bare.ndjson",
            text: &text,
        });
        assert_eq!(directions(&p), want);
        let c2s_answers: Vec<u64> = want
            .iter()
            .filter(|&&(n, d)| {
                d == "c2s"
                    && text
                        .lines()
                        .nth(n as usize - 1)
                        .unwrap()
                        .contains("\"result\"")
            })
            .map(|&(n, _)| n)
            .collect();
        assert_eq!(c2s_answers, [12, 16, 20]);
    }

    /// Progress whose token is that of an open server request only is the
    /// client's (it reports on the server's `sampling/createMessage`);
    /// progress on a client request's token, on a token open both ways or
    /// on no open token keeps the server's reading; once the server request
    /// is answered its token is closed.
    #[test]
    fn progress_on_a_server_request_is_the_clients() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":\"a\"}}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"sampling/createMessage\",\"params\":{\"_meta\":{\"progressToken\":\"s\"}}}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"s\",\"progress\":1}}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"a\",\"progress\":1}}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"zz\",\"progress\":1}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"s\",\"progress\":2}}\n";
        let p = parse(Input {
            file: 0,
            name: "p.jsonl",
            text,
        });
        let want = vec![
            (1, "c2s"),
            (2, "s2c"),
            (3, "c2s"), // token "s": the server's request 5, open
            (4, "s2c"), // token "a": the client's request 1
            (5, "s2c"), // a token no open request named
            (6, "c2s"), // the client answers 5
            (7, "s2c"), // 5 answered: its token is closed
        ];
        assert_eq!(directions(&p), want);
    }

    /// Open requests decide: a response whose id is open on both sides
    /// keeps the old reading (s2c); one open on the server's side only is
    /// the client's; a cancellation naming an open server request only is
    /// the server's; ids are compared loosely (`"7"` answers 7). Read
    /// again in order after being read in two parts (blocks), the same.
    #[test]
    fn open_requests_decide_a_response() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\"}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\
                    {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"elicitation/create\"}\n\
                    {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":8}}\n\
                    [{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"roots/list\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}]\n\
                    [{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}]\n";
        let p = parse(Input {
            file: 0,
            name: "b.jsonl",
            text,
        });
        let want = vec![
            (1, "c2s"),
            (2, "s2c"),
            (3, "s2c"), // 1 open both ways: the old reading, the client's 1 answered
            (4, "c2s"), // only the server's 1 is open now: the client's answer
            (5, "s2c"),
            (6, "c2s"),
            (7, "s2c"),
            (8, "s2c"),
            (9, "s2c"),
            (10, "c2s"),
        ];
        assert_eq!(directions(&p), want);
        // Lines 1..=4 and 5..=10 parsed apart, then read again in order.
        let cut = text.match_indices('\n').nth(3).unwrap().0 + 1;
        let mut records = parse(Input {
            file: 0,
            name: "b.jsonl",
            text: &text[..cut],
        })
        .records;
        records.extend(
            parse(Input {
                file: 0,
                name: "b.jsonl",
                text: &text[cut..],
            })
            .records,
        );
        Directions::settle(&mut records);
        let again = Parsed {
            records,
            ..Default::default()
        };
        let lines: Vec<&str> = directions(&again).into_iter().map(|x| x.1).collect();
        assert_eq!(lines, want.iter().map(|x| x.1).collect::<Vec<_>>());
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

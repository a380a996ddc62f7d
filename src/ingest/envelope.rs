//! NDJSON envelopes (FORMATS.md table 8.2 row 11, §8.3.7):
//! `{"ts":"TS","dir":"c2s","session":"SID","msg":JSON}` per line.
//!
//! Members: message `msg` (or `message`, `payload`; a JSON string holding
//! the wire line is read as that line), direction `dir` (or
//! `direction`), time `ts` (or `timestamp`, `time`; an ISO string, no zone →
//! UTC; a number is not read) and an optional `session`. Direction values
//! are read by [`direction`]: a known name either way (`s2c`, `recv`,
//! `server_to_client`, `stdout`, `<-`; `c2s`, `send`, `out`, `stdin`,
//! `->`, …), else client→server with one line per unknown value. Every non-blank line is traffic: a line that is no
//! envelope is a `non_json_line` with no direction, in the session a
//! `session` member written whole before the JSON breaks off names (a cut
//! last line stays in its session); an envelope whose message
//! is not an object or array is one with its direction. The key is a
//! non-empty string `session` (never split), else the file.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::grammar::escape;
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::{MessageMembers, parse_payload, str_value};
use crate::record::scan;
use crate::record::{Direction, Micros, Parsed, Payload, Split};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "envelope";

/// The envelope members of one line, borrowed as raw JSON text (first
/// present name of each group wins: `msg` over `message` over `payload`,
/// `dir` over `direction`, `ts` over `timestamp` over `time`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Envelope<'a> {
    /// The message member.
    pub msg: Option<&'a str>,
    /// The direction member.
    pub dir: Option<&'a str>,
    /// The time member.
    pub ts: Option<&'a str>,
    /// The `session` member.
    pub session: Option<&'a str>,
    /// The members of the message when it is an object, read in the same
    /// pass as the envelope (`None`: classify `msg` with `parse_payload`).
    pub members: Option<MessageMembers<'a>>,
}

/// Slots: msg, message, payload, dir, direction, ts, timestamp, time, session
/// (a repeated member: the last).
struct Slots<'a>([Option<&'a str>; 9]);

const NAMES: [&str; 9] = [
    "msg",
    "message",
    "payload",
    "dir",
    "direction",
    "ts",
    "timestamp",
    "time",
    "session",
];

struct EnvVisitor;

impl<'de> Visitor<'de> for EnvVisitor {
    type Value = Slots<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut s = Slots([None; 9]);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match NAMES.iter().position(|n| *n == key.as_ref()) {
                Some(i) => s.0[i] = Some(map.next_value::<&'de RawValue>()?.get()),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(s)
    }
}

/// Reads one line as a JSON object and picks its envelope members; `None`
/// when the line is not exactly one JSON object. The fast skim
/// ([`crate::record::scan`]) reads it, serde_json when the skim is not sure.
pub fn read(line: &str) -> Option<Envelope<'_>> {
    let t = line.trim();
    if !t.starts_with('{') {
        return None;
    }
    let mut s = Slots([None; 9]);
    // The message members of `msg`, `message`, `payload` (when objects).
    let mut members: [Option<MessageMembers<'_>>; 3] = [None; 3];
    let skimmed = scan::object_with(t, |k, skim| {
        match NAMES.iter().position(|n| *n == k) {
            Some(i @ 0..=2) if skim.peek() == Some(b'{') => {
                let (raw, m) = MessageMembers::read(skim)?;
                s.0[i] = Some(raw);
                members[i] = Some(m);
            }
            Some(i) => {
                s.0[i] = Some(skim.value_raw()?);
                if let Some(slot) = members.get_mut(i) {
                    *slot = None;
                }
            }
            None => {
                skim.value_raw()?;
            }
        }
        Some(())
    });
    if skimmed.is_none() {
        members = [None; 3];
        let mut de = serde_json::Deserializer::from_str(t);
        s = de::Deserializer::deserialize_map(&mut de, EnvVisitor).ok()?;
        de.end().ok()?;
    }
    let [
        msg,
        message,
        payload,
        dir,
        direction,
        ts,
        timestamp,
        time,
        session,
    ] = s.0;
    let [m_msg, m_message, m_payload] = members;
    let members = if msg.is_some() {
        m_msg
    } else if message.is_some() {
        m_message
    } else {
        m_payload
    };
    Some(Envelope {
        members,
        msg: msg.or(message).or(payload),
        dir: dir.or(direction),
        ts: ts.or(timestamp).or(time),
        session,
    })
}

/// The non-empty string `session` of a line that starts as a JSON object,
/// read from the members written whole before the JSON breaks off or the
/// skim gives up (a line cut as the log was written: `{"ts":…,"session":
/// "s2","msg":{"jsonrpc":"2.0","id":1,"result":…`); `None` when no such
/// member comes first.
fn leading_session(line: &str) -> Option<String> {
    let t = line.trim();
    if !t.starts_with('{') {
        return None;
    }
    let mut session = None;
    let _ = scan::object_with(t, |k, skim| {
        let raw = skim.value_raw()?;
        if k == "session" {
            session = Some(raw);
        }
        Some(())
    });
    session
        .and_then(str_value)
        .filter(|s| !s.is_empty())
        .map(|s| s.into_owned())
}

/// A line that is no whole envelope: a `non_json_line` with no direction,
/// in the session its readable `session` member names (a last line the
/// file ends inside of), else the file's.
fn not_an_envelope(sink: &mut LineSink<'_>, n: u64, whole: &str) {
    match leading_session(whole) {
        Some(s) => sink.non_json(
            At {
                key: &s,
                split: Split::Never,
                direction: None,
                ts: None,
                line: n,
            },
            whole,
        ),
        None => {
            let file = sink.input().name;
            sink.non_json(At::by_start(file, None, None, n), whole)
        }
    }
}

/// Row 11 claims the line: a JSON object with a message member and a
/// direction member (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    read(line).is_some_and(|e| e.msg.is_some() && e.dir.is_some())
}

/// What a `dir` value says: a direction mcp-audit knows, or a string it
/// does not know (read as client→server, and said once per value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirValue {
    /// A known name of a direction.
    Known(Direction),
    /// Any other string, lower-cased.
    Unknown(String),
}

/// The direction a `dir` value names (FORMATS.md table 8.2 row 11); `None`
/// when it is not a string. Compared case-insensitively, with `_`, `-`,
/// spaces and `>` arrows folded, so `server_to_client`, `Server-To-Client`
/// and `server->client` are one name. Known server→client names: `s2c`,
/// `sc`, `recv`, `receive`, `received`, `in`, `incoming`, `inbound`,
/// `server to client`, `from server`, `out of server`, `stdout`, `<-`,
/// `<`, `<<`; client→server: `c2s`, `cs`, `send`, `sent`, `out`,
/// `outgoing`, `outbound`, `client to server`, `from client`, `stdin`,
/// `->`, `>`, `>>`.
pub fn direction(raw: &str) -> Option<DirValue> {
    let s = str_value(raw)?;
    let t = s.trim().to_ascii_lowercase();
    match t.as_str() {
        "<-" | "<" | "<<" | "<--" => return Some(DirValue::Known(Direction::S2c)),
        "->" | ">" | ">>" | "-->" => return Some(DirValue::Known(Direction::C2s)),
        _ => {}
    }
    let folded: String = t.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    const S2C: [&str; 14] = [
        "s2c",
        "sc",
        "recv",
        "receive",
        "received",
        "in",
        "incoming",
        "inbound",
        "servertoclient",
        "serverclient",
        "fromserver",
        "outofserver",
        "stdout",
        "server2client",
    ];
    const C2S: [&str; 13] = [
        "c2s",
        "cs",
        "send",
        "sent",
        "out",
        "outgoing",
        "outbound",
        "clienttoserver",
        "clientserver",
        "fromclient",
        "intoserver",
        "stdin",
        "client2server",
    ];
    Some(if S2C.contains(&folded.as_str()) {
        DirValue::Known(Direction::S2c)
    } else if C2S.contains(&folded.as_str()) {
        DirValue::Known(Direction::C2s)
    } else {
        DirValue::Unknown(t)
    })
}

/// Parses an NDJSON envelope file (FORMATS.md §8.2 row 11, §8.3.7).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Envelopes::default())
}

/// Reads each line alone.
#[derive(Default)]
struct Envelopes {
    /// A time member that is not a string was reported (once per file).
    number_ts_reported: bool,
    /// Direction values not known: which side each stands for is read
    /// from the messages under it, and said once per file at the end.
    unknown_dirs: Vec<UnknownDir>,
    /// Known direction values seen: client→server, server→client.
    known: [bool; 2],
}

/// The lines under one direction value mcp-audit does not know (`rx`,
/// `response`): read as client→server until the file's end shows the side
/// their messages come from.
struct UnknownDir {
    /// The value, lower-cased (the key).
    folded: String,
    /// The value as written, escaped for a message.
    shown: String,
    /// 1-based line of its first use.
    line: u64,
    /// Indices of its frames among the sink's records.
    records: Vec<usize>,
    /// Messages only a client sends (`initialize`, `tools/call`, …) and
    /// only a server sends (an initialize result, `sampling/createMessage`,
    /// `notifications/message`, …).
    client: u64,
    server: u64,
}

/// The side that sends `m`, when only one side sends such a message (MCP
/// lifecycle and the methods of each side's features); `None` for what
/// both send (responses but an initialize result, `ping`, progress,
/// cancellation).
fn sender(m: &crate::record::jsonrpc::Message) -> Option<Direction> {
    use crate::record::jsonrpc::Kind;
    if m.kind == Kind::Response {
        return (m.negotiated().is_some() || m.server_info().is_some()).then_some(Direction::S2c);
    }
    let method = m.method.as_deref()?;
    if super::methods::SERVER_ONLY.contains(&method) {
        return Some(Direction::S2c);
    }
    let client = matches!(
        method,
        "initialize"
            | "notifications/initialized"
            | "notifications/roots/list_changed"
            | "completion/complete"
            | "logging/setLevel"
    ) || ["tools/", "resources/", "prompts/"]
        .iter()
        .any(|p| method.starts_with(p));
    client.then_some(Direction::C2s)
}

/// Counts the messages of `payload` only one side sends, into `u`.
fn vote(u: &mut UnknownDir, payload: &Payload) {
    let mut one = |m: &crate::record::jsonrpc::Message| match sender(m) {
        Some(Direction::C2s) => u.client += 1,
        Some(Direction::S2c) => u.server += 1,
        None => {}
    };
    match payload {
        Payload::Single(m) => one(m),
        Payload::Batch(ms) => ms.iter().for_each(|x| {
            if let crate::record::jsonrpc::Member::Message(m) = x {
                one(m)
            }
        }),
        _ => {}
    }
}

impl LineReader for Envelopes {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let (file, n) = (sink.input().name, line.number);
        let whole = line.text.trim();
        let env = read(whole).filter(|e| e.msg.is_some() && e.dir.is_some());
        let (Some(env), Some(msg), Some(dir_raw)) =
            (env, env.and_then(|e| e.msg), env.and_then(|e| e.dir))
        else {
            return not_an_envelope(sink, n, whole);
        };
        let session = env.session.and_then(str_value).filter(|s| !s.is_empty());
        let (key, split) = match &session {
            Some(s) => (s.as_ref(), Split::Never),
            None => (file, Split::ByStart),
        };
        let ts = self.time(sink, env.ts, n);
        let mut at = At {
            key,
            split,
            direction: None,
            ts,
            line: n,
        };
        let mut unknown = None;
        let dir = match direction(dir_raw) {
            Some(DirValue::Known(d)) => {
                self.known[usize::from(d == Direction::S2c)] = true;
                d
            }
            Some(DirValue::Unknown(v)) => {
                let i = match self.unknown_dirs.iter().position(|u| u.folded == v) {
                    Some(i) => i,
                    None => {
                        self.unknown_dirs.push(UnknownDir {
                            folded: v,
                            shown: escape(&str_value(dir_raw).unwrap_or_default(), 40),
                            line: n,
                            records: Vec::new(),
                            client: 0,
                            server: 0,
                        });
                        self.unknown_dirs.len() - 1
                    }
                };
                unknown = Some(i);
                Direction::C2s
            }
            None => {
                sink.error(
                    n,
                    &format!(
                        "direction {} is not a string; the line is read as non-JSON",
                        escape(dir_raw, 40)
                    ),
                );
                return sink.non_json(at, whole);
            }
        };
        at.direction = Some(dir);
        let payload = match env.members {
            // Read with the envelope: the same members `parse_payload`
            // would find, without a second pass over the message.
            Some(m) => Payload::Single(m.into_message()),
            // Some recorders keep the wire line as a JSON string:
            // `"msg": "{\"jsonrpc\":…}"` is that message.
            None if msg.starts_with('"') => str_value(msg)
                .and_then(|wire| parse_payload(&wire).ok())
                .unwrap_or(Payload::NonJson),
            None => parse_payload(msg).unwrap_or(Payload::NonJson),
        };
        if let Some(u) = unknown.map(|i| &mut self.unknown_dirs[i]) {
            vote(u, &payload);
            u.records.push(sink.records_len());
        }
        sink.frame(at, msg, payload);
    }

    /// Gives each unknown direction value the side its messages show, and
    /// says so once per value.
    fn end(&mut self, sink: &mut LineSink<'_>) {
        let shown: Vec<Option<Direction>> = self
            .unknown_dirs
            .iter()
            .map(|u| match u.client.cmp(&u.server) {
                std::cmp::Ordering::Greater => Some(Direction::C2s),
                std::cmp::Ordering::Less => Some(Direction::S2c),
                std::cmp::Ordering::Equal => None,
            })
            .collect();
        for (i, u) in self.unknown_dirs.iter().enumerate() {
            // A value whose messages show no side is the other side of the
            // file's one known or shown direction, when there is one.
            let mut others = shown
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .filter_map(|(_, d)| *d)
                .collect::<Vec<_>>();
            others.extend(
                [Direction::C2s, Direction::S2c]
                    .into_iter()
                    .filter(|&d| self.known[usize::from(d == Direction::S2c)]),
            );
            others.dedup();
            let opposite = match others.as_slice() {
                [Direction::C2s] => Some(Direction::S2c),
                [Direction::S2c] => Some(Direction::C2s),
                _ => None,
            };
            let (d, why) = match (shown[i], opposite) {
                (Some(d), _) => (d, "the side their messages come from"),
                (None, Some(d)) => (d, "the other side of the file's other direction"),
                (None, None) => (Direction::C2s, "their messages do not show a side"),
            };
            if d == Direction::S2c {
                for &r in &u.records {
                    if let Some(f) = sink.frame_mut(r) {
                        f.direction = Some(Direction::S2c);
                    }
                }
            }
            let side = match d {
                Direction::C2s => "client→server",
                Direction::S2c => "server→client",
            };
            sink.error(
                u.line,
                &format!(
                    "direction `{}` is not one mcp-audit knows (c2s, s2c, send, recv, in, out, …); its {} read as {side} ({why})",
                    u.shown,
                    if u.records.len() == 1 { "line is".to_string() } else { format!("{} lines are", u.records.len()) },
                ),
            );
        }
    }
}

impl Envelopes {
    /// The time of line `n` from its time member: an ISO string is read; any
    /// other value but `null` is reported (the first in the file) and unread.
    fn time(&mut self, sink: &mut LineSink<'_>, ts: Option<&str>, n: u64) -> Option<Micros> {
        match ts {
            Some(t) if t.starts_with('"') => match str_value(t) {
                Some(s) => sink.ts(n, &s),
                None => None,
            },
            Some(t) if t != "null" && !self.number_ts_reported => {
                self.number_ts_reported = true;
                sink.error(
                    n,
                    "the time member is not a string and is not read (an ISO 8601 string is); latencies stay empty",
                );
                None
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Kind, Record};

    type Row = (u64, String, Option<Direction>, Option<i64>, String);

    fn got(p: &Parsed) -> Vec<Row> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    format!(
                        "{}{}",
                        f.key,
                        if f.split == Split::Never { "" } else { "*" }
                    ),
                    f.direction,
                    f.ts,
                    match &f.payload {
                        Payload::Single(m) => format!("{:?}", m.kind),
                        Payload::Batch(b) => format!("batch{}", b.len()),
                        _ => "nonjson".into(),
                    },
                )),
                _ => None,
            })
            .collect()
    }

    /// A line that is no whole envelope is in the session its `session`
    /// member names when that member is written whole before the JSON
    /// breaks off: a cut last line (line 2, the file ends inside it), a
    /// broken line inside the file (line 3). A session cut inside its value
    /// (line 4), one after the break (line 5), an empty one (line 6) and a
    /// line that is no object (line 7) are the file's.
    #[test]
    fn a_cut_line_stays_in_its_session() {
        let text = concat!(
            "{\"ts\":\"2025-01-01T12:00:00Z\",\"dir\":\"c2s\",\"session\":\"s1\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}}\n",
            "{\"ts\": \"2025-01-01T12:00:01Z\", \"dir\": \"s2c\", \"session\": \"s2\", \"msg\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"tools\": [\n",
            "{\"session\":\"s\\u0033\",\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",,}}\n",
            "{\"dir\":\"c2s\",\"session\":\"s4\n",
            "{\"dir\":\"c2s\",\"msg\":{\"id\":},\"session\":\"s5\"}\n",
            "{\"dir\":\"c2s\",\"session\":\"\",\"msg\":{\n",
            "[\"session\",\"s7\"\n",
        );
        let p = parse(Input {
            file: 0,
            name: "f.jsonl",
            text,
        });
        let keys: Vec<(u64, String, Option<Direction>, String)> = got(&p)
            .into_iter()
            .map(|(line, key, dir, _, kind)| (line, key, dir, kind))
            .collect();
        let row = |l: u64, k: &str, d: Option<Direction>, kind: &str| {
            (l, k.to_string(), d, kind.to_string())
        };
        assert_eq!(
            keys,
            vec![
                row(1, "s1", Some(Direction::C2s), "Request"),
                row(2, "s2", None, "nonjson"),
                row(3, "s3", None, "nonjson"),
                row(4, "f.jsonl*", None, "nonjson"),
                row(5, "f.jsonl*", None, "nonjson"),
                row(6, "f.jsonl*", None, "nonjson"),
                row(7, "f.jsonl*", None, "nonjson"),
            ]
        );
    }

    #[test]
    fn members_directions_and_sessions() {
        let text = concat!(
            "{\"ts\":\"2025-01-01T12:00:00.000Z\",\"dir\":\"c2s\",\"session\":\"A\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}}\r\n",
            "{\"timestamp\":\"2025-01-01T12:00:00.001\",\"direction\":\"RECV\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}}\n",
            "  \n",
            "{\"time\":\"2025-01-01T14:00:00.002+02:00\",\"dir\":\"Server->Client\",\"payload\":[],\"session\":\"\"}\n",
            "{\"dir\":\"out\",\"msg\":{\"jsonrpc\":\"2.0\",\"method\":\"n\"}}\n",
            "{\"ts\":\"x\",\"dir\":\"s2c\",\"msg\":null}\n",
            "not json\n",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no envelope\"}\n",
            "{\"ts\":1,\"dir\":7,\"msg\":{}}",
        );
        let p = parse(Input {
            file: 0,
            name: "e.ndjson",
            text,
        });
        let t = 1_735_732_800_000_000;
        assert_eq!(
            got(&p),
            vec![
                (
                    1,
                    "A".into(),
                    Some(Direction::C2s),
                    Some(t),
                    "Request".into()
                ),
                (
                    2,
                    "e.ndjson*".into(),
                    Some(Direction::S2c),
                    Some(t + 1000),
                    "Response".into()
                ),
                (
                    4,
                    "e.ndjson*".into(),
                    Some(Direction::S2c),
                    Some(t + 2000),
                    "batch0".into()
                ),
                (
                    5,
                    "e.ndjson*".into(),
                    Some(Direction::C2s),
                    None,
                    "Notification".into()
                ),
                (
                    6,
                    "e.ndjson*".into(),
                    Some(Direction::S2c),
                    None,
                    "nonjson".into()
                ),
                (7, "e.ndjson*".into(), None, None, "nonjson".into()),
                (8, "e.ndjson*".into(), None, None, "nonjson".into()),
                (9, "e.ndjson*".into(), None, None, "nonjson".into()),
            ]
        );
        // Errors: the unreadable "x" timestamp, the number ts, the number dir.
        assert_eq!(p.errors.len(), 3, "{:?}", p.errors);
        assert!(p.errors[0].to_string().starts_with("line 6: "));
        assert_eq!(p.other_lines, 0);
        // Provenance points at the message member.
        let Some(Record::Frame(f)) = p.records.first() else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(
            &text[o..o + l],
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}"
        );
        assert!(matches!(&f.payload, Payload::Single(m) if m.kind == Kind::Request));
    }

    #[test]
    fn message_kept_as_the_wire_line_string() {
        let text = concat!(
            "{\"dir\":\"c2s\",\"msg\":\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,\\\"method\\\":\\\"ping\\\"}\"}\n",
            "{\"dir\":\"s2c\",\"msg\":\"not json\"}\n",
        );
        let p = parse(Input {
            file: 0,
            name: "w.ndjson",
            text,
        });
        let kinds: Vec<String> = got(&p).into_iter().map(|r| r.4).collect();
        assert_eq!(kinds, vec!["Request".to_string(), "nonjson".to_string()]);
    }

    #[test]
    fn direction_names() {
        let d = |v: &str| direction(&format!("\"{v}\""));
        for v in [
            "s2c",
            "server_to_client",
            "Server-To-Client",
            "from_server",
            "stdout",
            "<-",
            "inbound",
        ] {
            assert_eq!(d(v), Some(DirValue::Known(Direction::S2c)), "{v}");
        }
        for v in [
            "c2s",
            "client-to-server",
            "send",
            "out",
            "stdin",
            "->",
            "outgoing",
        ] {
            assert_eq!(d(v), Some(DirValue::Known(Direction::C2s)), "{v}");
        }
        assert_eq!(d("sideways"), Some(DirValue::Unknown("sideways".into())));
        assert_eq!(direction("7"), None);
        // An unknown value is read as client→server and said once.
        let text = concat!(
            "{\"dir\":\"sideways\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}}\n",
            "{\"dir\":\"sideways\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\"}}\n",
        );
        let p = parse(Input {
            file: 0,
            name: "e.ndjson",
            text,
        });
        assert_eq!(
            p.errors,
            vec![crate::diag::Diagnostic::line(
                1,
                "direction `sideways` is not one mcp-audit knows (c2s, s2c, send, recv, in, out, …); its 2 lines are read as client→server (their messages do not show a side)"
            )]
        );
        assert_eq!(
            got(&p)
                .iter()
                .filter(|r| r.2 == Some(Direction::C2s))
                .count(),
            2
        );
    }

    /// `tx`/`rx` (and `request`/`response`) name no side by themselves:
    /// the messages under each show it, so a healthy log pairs.
    #[test]
    fn unknown_direction_values_take_the_side_their_messages_show() {
        let text = concat!(
            "{\"dir\":\"tx\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}}\n",
            "{\"dir\":\"rx\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}\n",
            "{\"dir\":\"tx\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n",
            "{\"dir\":\"rx\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}}\n",
        );
        let p = parse(Input {
            file: 0,
            name: "e.ndjson",
            text,
        });
        let dirs: Vec<_> = got(&p).iter().map(|r| r.2).collect();
        assert_eq!(
            dirs,
            vec![
                Some(Direction::C2s),
                Some(Direction::S2c),
                Some(Direction::C2s),
                Some(Direction::S2c)
            ]
        );
        let lines: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            vec![
                "line 1: direction `tx` is not one mcp-audit knows (c2s, s2c, send, recv, in, out, …); its 2 lines are read as client→server (the side their messages come from)".to_string(),
                "line 2: direction `rx` is not one mcp-audit knows (c2s, s2c, send, recv, in, out, …); its 2 lines are read as server→client (the side their messages come from)".to_string(),
            ]
        );
        // A value whose messages show no side, beside a known one.
        let text = concat!(
            "{\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n",
            "{\"dir\":\"response\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}}\n",
        );
        let p = parse(Input {
            file: 0,
            name: "e.ndjson",
            text,
        });
        assert_eq!(got(&p)[1].2, Some(Direction::S2c));
        assert!(
            p.errors[0].to_string().ends_with(
                "its line is read as server→client (the other side of the file's other direction)"
            ),
            "{:?}",
            p.errors
        );
    }

    #[test]
    fn claims() {
        assert!(super::claims("{\"dir\":\"c2s\",\"msg\":{}}"));
        assert!(super::claims(" {\"direction\":1,\"payload\":null} "));
        assert!(!super::claims("{\"dir\":\"c2s\"}"));
        assert!(!super::claims("{\"dir\":\"c2s\",\"msg\":{}} x"));
        assert!(!super::claims("[{\"dir\":\"c2s\",\"msg\":{}}]"));
    }
}

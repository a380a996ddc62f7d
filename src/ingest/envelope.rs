//! NDJSON envelopes (FORMATS.md table 8.2 row 11, §8.3.7):
//! `{"ts":"TS","dir":"c2s","session":"SID","msg":JSON}` per line.
//!
//! Members: message `msg` (or `message`, `payload`), direction `dir` (or
//! `direction`), time `ts` (or `timestamp`, `time`; an ISO string, no zone →
//! UTC; a number is not read) and an optional `session`. Direction values
//! compare case-insensitively: `s2c`, `recv`, `receive`, `in`, `incoming`,
//! `server->client`, `out_of_server` are server→client, any other string is
//! client→server. Every non-blank line is traffic: a line that is no
//! envelope is a `non_json_line` with no direction; an envelope whose message
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

/// Row 11 claims the line: a JSON object with a message member and a
/// direction member (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    read(line).is_some_and(|e| e.msg.is_some() && e.dir.is_some())
}

/// The direction a `dir` value names (FORMATS.md table 8.2 row 11); `None`
/// when it is not a string.
pub fn direction(raw: &str) -> Option<Direction> {
    let s = str_value(raw)?;
    const S2C: [&str; 7] = [
        "s2c",
        "recv",
        "receive",
        "in",
        "incoming",
        "server->client",
        "out_of_server",
    ];
    if S2C.iter().any(|v| s.eq_ignore_ascii_case(v)) {
        Some(Direction::S2c)
    } else {
        Some(Direction::C2s)
    }
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
}

impl LineReader for Envelopes {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let (file, n) = (sink.input().name, line.number);
        let whole = line.text.trim();
        let env = read(whole).filter(|e| e.msg.is_some() && e.dir.is_some());
        let (Some(env), Some(msg), Some(dir_raw)) =
            (env, env.and_then(|e| e.msg), env.and_then(|e| e.dir))
        else {
            return sink.non_json(At::by_start(file, None, None, n), whole);
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
        let Some(dir) = direction(dir_raw) else {
            sink.error(
                n,
                &format!(
                    "direction {} is not a string; the line is read as non-JSON",
                    escape(dir_raw, 40)
                ),
            );
            return sink.non_json(at, whole);
        };
        at.direction = Some(dir);
        let payload = match env.members {
            // Read with the envelope: the same members `parse_payload`
            // would find, without a second pass over the message.
            Some(m) => Payload::Single(m.into_message()),
            None => parse_payload(msg).unwrap_or(Payload::NonJson),
        };
        sink.frame(at, msg, payload);
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
                    "the time member is not a string and is not read (FORMATS.md §8.2 row 11); latencies stay empty",
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
    fn claims() {
        assert!(super::claims("{\"dir\":\"c2s\",\"msg\":{}}"));
        assert!(super::claims(" {\"direction\":1,\"payload\":null} "));
        assert!(!super::claims("{\"dir\":\"c2s\"}"));
        assert!(!super::claims("{\"dir\":\"c2s\",\"msg\":{}} x"));
        assert!(!super::claims("[{\"dir\":\"c2s\",\"msg\":{}}]"));
    }
}

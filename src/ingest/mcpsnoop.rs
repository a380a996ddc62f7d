//! mcpsnoop session logs (FORMATS.md §8.3.12): one JSON envelope per line,
//! `{"session_id":S,"server_label":L,"seq":N,"ts":RFC3339,"direction":
//! "c2s"|"s2c"|"stderr"|"meta","transport":"stdio"|"http","raw":JSON,…}`.
//!
//! The shape is mcpsnoop's own `proxy.Envelope` (its `internal/proxy/
//! frame.go`). `raw` holds the JSON-RPC message bytes verbatim; `text` a
//! line that was not JSON (the stdout-corruption case) or a `stderr` line;
//! `meta` lines hold the wrapped command. On HTTP a batch body is split into
//! one envelope per element (`batch: true`), and a response without a body
//! (a `202`, a `401`, a synthesised `502`) is an envelope with only its
//! `status`. Directions are the tool's; the time is its `ts`; the key is
//! `session_id` (a new session at each client `initialize`).
//!
//! One `mcpsnoop http` process writes every client that connects to it under
//! its one `session_id`, and logs no `Mcp-Session-Id`: two clients at once
//! both count ids from 0 and interleave. What it does log is `conn_id`, the
//! client's TCP address: a connection belongs to one client, and a POST is
//! answered on its own connection. So on HTTP a client is the set of
//! connections it used (`Clients`): an `initialize` request starts one and
//! claims its connection; a connection seen before goes to its client; a new
//! one goes to the only client, else to the one the ids make certain (the
//! client without that request id pending, the one waiting for that reply),
//! else to the client that sent last (said once per file). Each client is a
//! session: `SID`, `SID#2`, … in order of their `initialize`.
//!
//! What the log cannot hold, said once per file and never a finding: a
//! frame cut at mcpsnoop's frame-size cap (`truncated: true`, only a
//! fragment kept), and frames its sink dropped (a forward jump of `seq`).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::parse_payload;
use crate::record::{Direction, Parsed, Payload, Split};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "mcpsnoop";

/// The members of one envelope mcp-audit reads (others are skipped).
#[derive(Deserialize)]
struct Env<'a> {
    #[serde(borrow)]
    session_id: Cow<'a, str>,
    seq: u64,
    #[serde(borrow)]
    ts: Cow<'a, str>,
    #[serde(borrow)]
    direction: Cow<'a, str>,
    #[serde(rename = "transport")]
    _transport: serde::de::IgnoredAny,
    #[serde(borrow, default)]
    raw: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    truncated: bool,
    #[serde(borrow, default)]
    conn_id: Option<Cow<'a, str>>,
}

/// Reads one line as an mcpsnoop envelope: a JSON object with string
/// `session_id`, `ts`, `direction` (one of mcpsnoop's four) and
/// `transport`, and a number `seq`.
fn read(line: &str) -> Option<Env<'_>> {
    let t = line.trim();
    if !t.starts_with('{') || !t.contains("\"session_id\"") {
        return None;
    }
    let e: Env<'_> = serde_json::from_str(t).ok()?;
    matches!(e.direction.as_ref(), "c2s" | "s2c" | "stderr" | "meta").then_some(e)
}

/// The row claims the line: an mcpsnoop envelope (see `read`). An ordinary
/// NDJSON envelope (`dir`/`msg`) or a bare JSON-RPC line never is one.
pub fn claims(line: &str) -> bool {
    read(line).is_some()
}

/// Parses an mcpsnoop session log (FORMATS.md §8.3.12).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Snoop::default())
}

#[derive(Default)]
struct Snoop {
    /// The last `seq` seen, per session id.
    last_seq: Vec<(String, u64)>,
    /// Frames the sink dropped (`seq` jumps): count and first line.
    dropped: (u64, u64),
    /// Frames cut at the frame cap: count and first line.
    truncated: (u64, u64),
    /// The clients of each HTTP proxy session (see the module comment).
    http: Vec<(String, Clients)>,
    /// Messages on a new connection put with the client that sent last
    /// (no id made the client certain): count and first line.
    guessed: (u64, u64),
}

/// The clients of one `mcpsnoop http` session, each a set of connections.
#[derive(Default)]
struct Clients {
    /// Per client: its session key, the ids of its requests waiting for a
    /// reply (with their progress tokens), and of the server's requests to
    /// it waiting for its reply.
    clients: Vec<Client>,
    /// Connection → client.
    conns: Vec<(String, usize)>,
    /// The client that sent the last client→server message.
    last: Option<usize>,
}

struct Client {
    key: String,
    pending: Vec<(String, Option<String>)>,
    asked: Vec<String>,
}

/// What attribution needs of one message: its id, method and progress token
/// (ids and tokens as their JSON text).
struct Peek {
    id: Option<String>,
    method: Option<String>,
    token: Option<String>,
}

fn peek(raw: &str) -> Peek {
    let v: serde_json::Value = serde_json::from_str(raw).unwrap_or_default();
    let text = |v: Option<&serde_json::Value>| v.map(|v| v.to_string());
    Peek {
        id: text(v.get("id")),
        method: v.get("method").and_then(|m| m.as_str()).map(str::to_string),
        token: text(v.pointer("/params/_meta/progressToken"))
            .or_else(|| text(v.pointer("/params/progressToken"))),
    }
}

impl Clients {
    /// The session key of a message on connection `conn`, and whether the
    /// client was a guess.
    fn key(&mut self, sid: &str, conn: &str, d: Direction, m: &Peek) -> (String, bool) {
        let request = m.method.is_some() && m.id.is_some();
        let known = self.conns.iter().find(|(c, _)| c == conn).map(|&(_, i)| i);
        let mut guessed = false;
        let i = if d == Direction::C2s && request && m.method.as_deref() == Some("initialize") {
            self.new_client(sid)
        } else if let Some(i) = known {
            i
        } else if self.clients.len() <= 1 {
            if self.clients.is_empty() {
                self.new_client(sid);
            }
            0
        } else {
            let id = m.id.as_deref();
            let fits = |c: &Client| match (d, request, m.method.is_some()) {
                (Direction::C2s, true, _) => !c.pending.iter().any(|(p, _)| Some(p.as_str()) == id),
                (Direction::C2s, false, false) => c.asked.iter().any(|p| Some(p.as_str()) == id),
                (Direction::S2c, false, false) => {
                    c.pending.iter().any(|(p, _)| Some(p.as_str()) == id)
                }
                (Direction::S2c, false, true) if m.token.is_some() => {
                    c.pending.iter().any(|(_, t)| t.is_some() && *t == m.token)
                }
                _ => true,
            };
            let fit: Vec<usize> = (0..self.clients.len())
                .filter(|&i| fits(&self.clients[i]))
                .collect();
            match fit.as_slice() {
                [one] => *one,
                _ => {
                    guessed = true;
                    match self.last {
                        Some(l) if fit.is_empty() || fit.contains(&l) => l,
                        _ => fit.last().copied().unwrap_or(self.clients.len() - 1),
                    }
                }
            }
        };
        match self.conns.iter_mut().find(|(c, _)| c == conn) {
            Some(e) => e.1 = i,
            None => self.conns.push((conn.to_string(), i)),
        }
        let c = &mut self.clients[i];
        let id = m.id.clone();
        match (d, request, m.method.is_some(), id) {
            (Direction::C2s, true, _, Some(id)) => c.pending.push((id, m.token.clone())),
            (Direction::C2s, false, false, Some(id)) => c.asked.retain(|p| *p != id),
            (Direction::S2c, true, _, Some(id)) => c.asked.push(id),
            (Direction::S2c, false, false, Some(id)) => c.pending.retain(|(p, _)| *p != id),
            _ => {}
        }
        if d == Direction::C2s {
            self.last = Some(i);
        }
        (c.key.clone(), guessed)
    }

    fn new_client(&mut self, sid: &str) -> usize {
        let n = self.clients.len();
        let key = match n {
            0 => sid.to_string(),
            _ => format!("{sid}#{}", n + 1),
        };
        self.clients.push(Client {
            key,
            pending: Vec::new(),
            asked: Vec::new(),
        });
        n
    }
}

impl LineReader for Snoop {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let n = line.number;
        let whole = line.text.trim();
        let Some(e) = read(whole) else {
            let file = sink.input().name;
            return sink.non_json(At::by_start(file, None, None, n), whole);
        };
        self.seq(&e.session_id, e.seq, n);
        let direction = match e.direction.as_ref() {
            "c2s" => Direction::C2s,
            "s2c" => Direction::S2c,
            // `stderr` and `meta` lines are no traffic.
            _ => return sink.other(),
        };
        if e.truncated {
            // Only a fragment of the message was kept (FORMATS.md §8.3.12).
            if self.truncated.0 == 0 {
                self.truncated.1 = n;
            }
            self.truncated.0 += 1;
            return sink.other();
        }
        let ts = sink.ts(n, &e.ts);
        // On HTTP each client is its own session (see the module comment).
        let http = match (&e.conn_id, e.raw) {
            (Some(conn), Some(raw)) if !conn.is_empty() => {
                let (key, guessed) = self.client(&e.session_id, conn, direction, raw.get());
                if guessed {
                    if self.guessed.0 == 0 {
                        self.guessed.1 = n;
                    }
                    self.guessed.0 += 1;
                }
                Some(key)
            }
            _ => None,
        };
        let at = At {
            key: http.as_deref().unwrap_or(&e.session_id),
            split: if http.is_some() {
                Split::Never
            } else {
                Split::ByStart
            },
            direction: Some(direction),
            ts,
            line: n,
        };
        match (e.raw, &e.text) {
            (Some(raw), _) => {
                let payload = parse_payload(raw.get()).unwrap_or(Payload::NonJson);
                sink.frame(at, raw.get(), payload);
            }
            // A line on the protocol channel that was not JSON.
            (None, Some(_)) => {
                let part = text_member(whole);
                sink.non_json(at, part);
            }
            // A body-less HTTP response: only its status was logged.
            (None, None) => sink.other(),
        }
    }

    fn end(&mut self, sink: &mut LineSink<'_>) {
        if self.guessed.0 > 0 {
            sink.error(
                self.guessed.1,
                &format!(
                    "{} message(s) came on a connection first seen while several clients shared mcpsnoop's HTTP proxy, and no id said whose it was: each was put with the client that sent last",
                    self.guessed.0
                ),
            );
        }
        if self.truncated.0 > 0 {
            sink.error(
                self.truncated.1,
                &format!(
                    "{} frame(s) were cut at mcpsnoop's frame-size cap (`truncated`, a capture gap): their messages are not read",
                    self.truncated.0
                ),
            );
        }
        if self.dropped.0 > 0 {
            sink.error(
                self.dropped.1,
                &format!(
                    "{} frame(s) are missing from the log (its `seq` jumps forward: mcpsnoop's sink dropped them, a capture gap)",
                    self.dropped.0
                ),
            );
        }
    }
}

impl Snoop {
    /// The session key of an HTTP message on connection `conn`.
    fn client(&mut self, sid: &str, conn: &str, d: Direction, raw: &str) -> (String, bool) {
        let m = peek(raw);
        if !self.http.iter().any(|(s, _)| s == sid) {
            self.http.push((sid.to_string(), Clients::default()));
        }
        let Some((_, c)) = self.http.iter_mut().find(|(s, _)| s == sid) else {
            return (sid.to_string(), false);
        };
        c.key(sid, conn, d, &m)
    }

    /// Notes a forward jump of `seq` in session `sid`.
    fn seq(&mut self, sid: &str, seq: u64, n: u64) {
        match self.last_seq.iter_mut().find(|(s, _)| s == sid) {
            Some((_, last)) => {
                if seq > last.saturating_add(1) {
                    if self.dropped.0 == 0 {
                        self.dropped.1 = n;
                    }
                    self.dropped.0 += seq - *last - 1;
                }
                *last = (*last).max(seq);
            }
            None => self.last_seq.push((sid.to_string(), seq)),
        }
    }
}

/// The `text` member's raw JSON string in the line (evidence), else the
/// whole line.
fn text_member(whole: &str) -> &str {
    whole
        .find("\"text\":")
        .and_then(|i| {
            let v = &whole[i + 7..];
            let v = v.trim_start();
            let len = crate::record::jsonrpc::first_value_len(v)?;
            v.get(..len)
        })
        .unwrap_or(whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::testdata::lines_read;
    use crate::record::{Kind, Record};

    const LOG: &str = concat!(
        "{\"session_id\":\"py1_server.py-77-ab\",\"server_label\":\"py1_server.py\",\"seq\":1,\"ts\":\"2026-12-02T06:00:00.000001+01:00\",\"direction\":\"meta\",\"transport\":\"stdio\",\"raw\":{\"command\":[\"python\",\"py1_server.py\"]}}\n",
        "{\"session_id\":\"py1_server.py-77-ab\",\"server_label\":\"py1_server.py\",\"seq\":2,\"ts\":\"2026-12-02T06:00:00.5+01:00\",\"direction\":\"c2s\",\"transport\":\"stdio\",\"raw\":{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}}\n",
        "{\"session_id\":\"py1_server.py-77-ab\",\"server_label\":\"py1_server.py\",\"seq\":3,\"ts\":\"2026-12-02T06:00:00.5+01:00\",\"direction\":\"stderr\",\"transport\":\"stdio\",\"text\":\"INFO started\"}\n",
        "{\"session_id\":\"py1_server.py-77-ab\",\"server_label\":\"py1_server.py\",\"seq\":4,\"ts\":\"2026-12-02T05:00:00.512345678Z\",\"direction\":\"s2c\",\"transport\":\"stdio\",\"raw\":{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}}\n",
        "{\"session_id\":\"py1_server.py-77-ab\",\"server_label\":\"py1_server.py\",\"seq\":5,\"ts\":\"2026-12-02T05:00:01Z\",\"direction\":\"s2c\",\"transport\":\"stdio\",\"text\":\"oops not json\"}\n",
        "{\"session_id\":\"py1_server.py-77-ab\",\"server_label\":\"py1_server.py\",\"seq\":8,\"ts\":\"2026-12-02T05:00:02Z\",\"direction\":\"s2c\",\"transport\":\"stdio\",\"text\":\"{\\\"jsonrpc\\\":\",\"truncated\":true}\n",
        "{\"session_id\":\"h-1\",\"server_label\":\"web\",\"seq\":1,\"ts\":\"2026-12-02T05:00:03Z\",\"direction\":\"s2c\",\"transport\":\"http\",\"status\":202,\"conn_id\":\"127.0.0.1:5\"}\n",
        "{\"session_id\":\"h-1\",\"server_label\":\"web\",\"seq\":2,\"ts\":\"2026-12-02T05:00:04Z\",\"direction\":\"c2s\",\"transport\":\"http\",\"raw\":[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}],\"batch\":true}\n",
        "not an envelope\n",
    );

    #[test]
    fn directions_times_sessions_and_gaps() {
        let p = parse(Input {
            file: 0,
            name: "s.jsonl",
            text: LOG,
        });
        let t = 1_796_187_600_000_000; // 2026-12-02T05:00:00Z
        let (c, s) = (Some(Direction::C2s), Some(Direction::S2c));
        assert_eq!(
            lines_read(&p),
            vec![
                (2, c, false, Some(t + 500_000)),
                (4, s, false, Some(t + 512_345)),
                (5, s, true, Some(t + 1_000_000)),
                (8, c, false, Some(t + 4_000_000)),
                (9, None, true, None),
            ]
        );
        let keys: Vec<(String, bool)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((f.key.to_string(), f.split == Split::ByStart)),
                _ => None,
            })
            .collect();
        assert_eq!(keys[0], ("py1_server.py-77-ab".into(), true));
        assert_eq!(keys[3], ("h-1".into(), true));
        assert_eq!(keys[4], ("s.jsonl".into(), true));
        // meta, stderr, the truncated frame and the status-only 202.
        assert_eq!(p.other_lines, 4);
        let errors: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            vec![
                "line 6: 1 frame(s) were cut at mcpsnoop's frame-size cap (`truncated`, a capture gap): their messages are not read".to_string(),
                "line 6: 2 frame(s) are missing from the log (its `seq` jumps forward: mcpsnoop's sink dropped them, a capture gap)".to_string(),
            ]
        );
        // The evidence is the raw member; the batch stays an array.
        let Some(Record::Frame(f)) = p.records.first() else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(
            &LOG[o..o + l],
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}"
        );
        assert!(matches!(&f.payload, Payload::Single(m) if m.kind == Kind::Request));
        let Some(Record::Frame(f)) = p.records.get(3) else {
            panic!()
        };
        assert!(matches!(&f.payload, Payload::Batch(b) if b.len() == 1));
        let Some(Record::Frame(f)) = p.records.get(2) else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(&LOG[o..o + l], "\"oops not json\"");
    }

    #[test]
    fn claims_only_mcpsnoop_envelopes() {
        let line = LOG.lines().nth(1).unwrap();
        assert!(claims(line));
        for no in [
            "{\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}",
            "{\"session_id\":\"a\",\"seq\":1,\"ts\":\"x\",\"direction\":\"up\",\"transport\":\"stdio\"}",
            "{\"session_id\":\"a\",\"seq\":\"1\",\"ts\":\"x\",\"direction\":\"c2s\",\"transport\":\"stdio\"}",
            "{\"session_id\":\"a\",\"seq\":1,\"ts\":\"x\",\"direction\":\"c2s\"}",
            "{\"session_id\":",
            "",
        ] {
            assert!(!claims(no), "{no}");
        }
    }

    /// One `mcpsnoop http` process, two clients (the shape of
    /// `tests/data/real4/mcpsnoop/mcpsnoop-0.18.0_http__everything-two-clients.jsonl`,
    /// cut down): one `session_id`, ids from 0 in both, told apart by
    /// `conn_id` only.
    #[test]
    fn http_clients_are_told_apart_by_connection() {
        let rows: [(&str, &str, &str); 13] = [
            (
                "c2s",
                "A",
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#,
            ),
            ("s2c", "A", r#"{"jsonrpc":"2.0","id":0,"result":{}}"#),
            (
                "c2s",
                "B",
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":7}}}"#,
            ),
            (
                "c2s",
                "C",
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#,
            ),
            ("s2c", "C", r#"{"jsonrpc":"2.0","id":0,"result":{}}"#),
            (
                "c2s",
                "D",
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":7}}}"#,
            ),
            (
                "s2c",
                "B",
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#,
            ),
            ("s2c", "D", r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            ("s2c", "B", r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            ("c2s", "E", r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#),
            ("s2c", "E", r#"{"jsonrpc":"2.0","id":8,"result":{}}"#),
            (
                "s2c",
                "A",
                r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#,
            ),
            (
                "c2s",
                "F",
                r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#,
            ),
        ];
        let log: String = rows
            .iter()
            .enumerate()
            .map(|(i, (d, c, raw))| {
                format!(
                    "{{\"session_id\":\"h\",\"server_label\":\"w\",\"seq\":{},\"ts\":\"2026-12-03T17:09:05Z\",\"direction\":\"{d}\",\"transport\":\"http\",\"raw\":{raw},\"conn_id\":\"127.0.0.1:{c}\"}}\n",
                    i + 1
                )
            })
            .collect();
        let p = parse(Input {
            file: 0,
            name: "h.jsonl",
            text: &log,
        });
        let keys: Vec<(String, bool)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((f.key.to_string(), f.split == Split::Never)),
                _ => None,
            })
            .collect();
        // Line 3: a new connection while one client exists; line 6: the
        // first client has id 7 pending; line 7: a known connection; line
        // 10: neither has 8 pending, the client that sent last (line 6);
        // line 13: only the first was asked id 0.
        let want = [
            "h", "h", "h", "h#2", "h#2", "h#2", "h", "h#2", "h", "h#2", "h#2", "h", "h",
        ];
        assert_eq!(
            keys,
            want.iter()
                .map(|k| (k.to_string(), true))
                .collect::<Vec<_>>()
        );
        let errors: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            vec!["line 10: 1 message(s) came on a connection first seen while several clients shared mcpsnoop's HTTP proxy, and no id said whose it was: each was put with the client that sent last".to_string()]
        );
    }
}

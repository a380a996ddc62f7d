//! MCPSpy JSONL output (FORMATS.md §8.3.13): `mcpspy --output FILE` writes
//! one JSON event per line; an MCP message is `{"timestamp":RFC3339,
//! "transport_type":"stdio"|"http","stdio_transport":{"from_pid",
//! "from_comm","to_pid","to_comm"}|"http_transport":{"pid","comm","host",
//! "is_request"},"type":"request"|"response"|"notification","id",
//! "method","params","result","error":{…},"request":{…},"raw":"WIRE"}`.
//!
//! The shape is MCPSpy's `event.MCPEvent` marshalled by its JSONL display
//! (`pkg/event/mcp.go`, `pkg/output/jsonl.go`). The top-level JSON-RPC
//! members are MCPSpy's own re-encoding (`error` is `{}` on every line, a
//! response carries a copy of its request); the message is the `raw` string,
//! the bytes MCPSpy decoded. Other events the same output carries (LLM
//! messages, tool usage, security alerts) are no MCP traffic.
//!
//! Direction: on HTTP `is_request` (present and true on a request body,
//! absent on a response body or SSE event); on stdio the `from_pid` →
//! `to_pid` of the pipe write, the client being the pid that sent the
//! pair's first message whose method only a client sends (`initialize`,
//! `tools/call`, …) or only a server sends (`sampling/createMessage`, …;
//! then its peer). Key: `stdio COMM[PID] -> COMM[PID]` (client first) or
//! `http COMM[PID] -> HOST`, a new session at each client `initialize`.
//! Time: `timestamp` (when MCPSpy's user space parsed the event, ns, with
//! the box's zone offset).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::input::Input;
use super::lines::{Line, Lines, lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::{parse_payload, str_value};
use crate::record::{Direction, Parsed, Payload, Split};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "mcpspy";

#[derive(Deserialize)]
struct Stdio<'a> {
    from_pid: u32,
    #[serde(borrow, default)]
    from_comm: Cow<'a, str>,
    to_pid: u32,
    #[serde(borrow, default)]
    to_comm: Cow<'a, str>,
}

#[derive(Deserialize)]
struct Http<'a> {
    #[serde(default)]
    pid: u32,
    #[serde(borrow, default)]
    comm: Cow<'a, str>,
    #[serde(borrow, default)]
    host: Cow<'a, str>,
    #[serde(default)]
    is_request: bool,
}

/// The members of one MCP event mcp-audit reads.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    timestamp: Cow<'a, str>,
    #[serde(borrow)]
    transport_type: Cow<'a, str>,
    #[serde(borrow, default)]
    stdio_transport: Option<Stdio<'a>>,
    #[serde(borrow, default)]
    http_transport: Option<Http<'a>>,
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    raw: &'a RawValue,
}

/// Reads one line as an MCPSpy MCP event: a JSON object with string
/// `timestamp`, `transport_type`, `type` (`request`, `response` or
/// `notification`) and `raw`, and the transport object its
/// `transport_type` names.
fn read(line: &str) -> Option<Event<'_>> {
    let t = line.trim();
    if !t.starts_with('{') || !t.contains("\"transport_type\"") {
        return None;
    }
    let e: Event<'_> = serde_json::from_str(t).ok()?;
    let shaped = matches!(e.kind.as_ref(), "request" | "response" | "notification")
        && e.raw.get().starts_with('"')
        && match e.transport_type.as_ref() {
            "stdio" => e.stdio_transport.is_some(),
            "http" => e.http_transport.is_some(),
            _ => false,
        };
    shaped.then_some(e)
}

/// The row claims the line: an MCPSpy MCP event (see `read`). A bare
/// JSON-RPC line or an NDJSON envelope never is one.
pub fn claims(line: &str) -> bool {
    read(line).is_some()
}

/// Parses an MCPSpy JSONL file (FORMATS.md §8.3.13).
pub fn parse(input: Input<'_>) -> Parsed {
    let clients = clients(input.text);
    read_lines(LineSink::new(input, NAME), Spy { clients })
}

/// The client pid of each stdio pid pair (smaller pid first), from the
/// first message of the pair whose method tells its sender's side.
fn clients(text: &str) -> Vec<((u32, u32), u32)> {
    let mut out: Vec<((u32, u32), u32)> = Vec::new();
    for l in lines(text) {
        let Some(e) = read(l.text) else { continue };
        let Some(s) = &e.stdio_transport else {
            continue;
        };
        let pair = (s.from_pid.min(s.to_pid), s.from_pid.max(s.to_pid));
        if out.iter().any(|(p, _)| *p == pair) {
            continue;
        }
        match super::methods::sent_by_client(&e.kind, e.method.as_deref()) {
            Some(true) => out.push((pair, s.from_pid)),
            Some(false) => out.push((pair, s.to_pid)),
            None => {}
        }
    }
    out
}

struct Spy {
    clients: Vec<((u32, u32), u32)>,
}

impl LineReader for Spy {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let n = line.number;
        let Some(e) = read(line.text) else {
            // LLM, tool-usage and security events, and anything else MCPSpy
            // wrote: no MCP traffic.
            return sink.other();
        };
        let (key, direction) = match (&e.stdio_transport, &e.http_transport) {
            (Some(s), _) if e.transport_type == "stdio" => {
                let pair = (s.from_pid.min(s.to_pid), s.from_pid.max(s.to_pid));
                // A pair no message of which tells the sides: its first
                // writer is taken as the client.
                let client = match self.clients.iter().find(|(p, _)| *p == pair) {
                    Some((_, c)) => *c,
                    None => {
                        self.clients.push((pair, s.from_pid));
                        s.from_pid
                    }
                };
                let (d, key) = if s.from_pid == client {
                    (
                        Direction::C2s,
                        stdio_key(&s.from_comm, s.from_pid, &s.to_comm, s.to_pid),
                    )
                } else {
                    (
                        Direction::S2c,
                        stdio_key(&s.to_comm, s.to_pid, &s.from_comm, s.from_pid),
                    )
                };
                (key, d)
            }
            (_, Some(h)) => (
                format!("http {}[{}] -> {}", h.comm, h.pid, h.host),
                if h.is_request {
                    Direction::C2s
                } else {
                    Direction::S2c
                },
            ),
            _ => return sink.other(),
        };
        let ts = sink.ts(n, &e.timestamp);
        let at = At {
            key: &key,
            split: Split::ByStart,
            direction: Some(direction),
            ts,
            line: n,
        };
        let raw = e.raw.get();
        let payload = str_value(raw)
            .and_then(|wire| parse_payload(&wire).ok())
            .unwrap_or(Payload::NonJson);
        sink.frame(at, raw, payload);
    }
}

fn stdio_key(client: &str, cpid: u32, server: &str, spid: u32) -> String {
    format!("stdio {client}[{cpid}] -> {server}[{spid}]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::testdata::lines_read;
    use crate::record::{Kind, Record};

    /// Lines in the shape of MCPSpy's `tests/expected_output_stdio.jsonl`
    /// and `expected_output_http.jsonl` (values shortened).
    const LOG: &str = concat!(
        "{\"timestamp\": \"2025-11-29T21:54:51.585900784+02:00\", \"transport_type\": \"stdio\", \"stdio_transport\": {\"from_pid\": 54777, \"from_comm\": \"python\", \"to_pid\": 54778, \"to_comm\": \"python\"}, \"type\": \"request\", \"id\": 0, \"method\": \"initialize\", \"params\": {}, \"error\": {}, \"raw\": \"{\\\"method\\\":\\\"initialize\\\",\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":0}\"}\n",
        "{\"timestamp\": \"2025-11-29T21:54:51.590102914+02:00\", \"transport_type\": \"stdio\", \"stdio_transport\": {\"from_pid\": 54778, \"from_comm\": \"python\", \"to_pid\": 54777, \"to_comm\": \"python\"}, \"type\": \"response\", \"id\": 0, \"result\": {}, \"error\": {}, \"request\": {\"type\": \"request\", \"id\": 0, \"method\": \"initialize\", \"error\": {}}, \"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":0,\\\"result\\\":{}}\"}\n",
        "{\"session_id\": 7, \"timestamp\": \"2025-11-29T21:54:52Z\", \"message_type\": \"request\", \"pid\": 1, \"comm\": \"curl\", \"host\": \"api.anthropic.com\", \"path\": \"/v1/messages\"}\n",
        "{\"timestamp\": \"2025-11-29T19:55:10.886131907Z\", \"transport_type\": \"http\", \"http_transport\": {\"pid\": 55087, \"comm\": \"python\", \"host\": \"127.0.0.1:12345\", \"is_request\": true}, \"type\": \"request\", \"id\": 0, \"method\": \"initialize\", \"error\": {}, \"raw\": \"{\\\"method\\\":\\\"initialize\\\",\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":0}\"}\n",
        "{\"timestamp\": \"2025-11-29T19:55:10.897645109Z\", \"transport_type\": \"http\", \"http_transport\": {\"pid\": 55087, \"comm\": \"python\", \"host\": \"127.0.0.1:12345\"}, \"type\": \"notification\", \"method\": \"notifications/message\", \"error\": {}, \"raw\": \"{\\\"method\\\":\\\"notifications/message\\\",\\\"jsonrpc\\\":\\\"2.0\\\"}\"}\n",
        // A pair first seen through a server request: its sender is the server.
        "{\"timestamp\": \"2025-11-29T19:55:11Z\", \"transport_type\": \"stdio\", \"stdio_transport\": {\"from_pid\": 9, \"from_comm\": \"srv\", \"to_pid\": 8, \"to_comm\": \"cli\"}, \"type\": \"request\", \"id\": 0, \"method\": \"roots/list\", \"error\": {}, \"raw\": \"{\\\"method\\\":\\\"roots/list\\\",\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":0}\"}\n",
        "{\"timestamp\": \"2025-11-29T19:55:11Z\", \"transport_type\": \"stdio\", \"stdio_transport\": {\"from_pid\": 9, \"from_comm\": \"srv\", \"to_pid\": 8, \"to_comm\": \"cli\"}, \"type\": \"request\", \"id\": 1, \"method\": \"ping\", \"error\": {}, \"raw\": \"not json\"}\n",
        "not json at all\n",
    );

    #[test]
    fn directions_times_and_keys() {
        let p = parse(Input {
            file: 0,
            name: "spy.jsonl",
            text: LOG,
        });
        let t = 1_764_446_091_585_900; // 2025-11-29T19:54:51.585900Z
        let (c, s) = (Some(Direction::C2s), Some(Direction::S2c));
        assert_eq!(
            lines_read(&p),
            vec![
                (1, c, false, Some(t)),
                (2, s, false, Some(t + 4_202)),
                (4, c, false, Some(t + 19_300_231)),
                (5, s, false, Some(t + 19_311_745)),
                (6, s, false, Some(t + 19_414_100)),
                (7, s, true, Some(t + 19_414_100)),
            ]
        );
        let keys: Vec<String> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some(f.key.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            keys,
            [
                "stdio python[54777] -> python[54778]",
                "stdio python[54777] -> python[54778]",
                "http python[55087] -> 127.0.0.1:12345",
                "http python[55087] -> 127.0.0.1:12345",
                "stdio cli[8] -> srv[9]",
                "stdio cli[8] -> srv[9]",
            ]
        );
        // The LLM event and the stray line are no traffic.
        assert_eq!(p.other_lines, 2);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        // The message is the raw wire text, not MCPSpy's re-encoding (whose
        // `error: {}` would make every response invalid).
        let Some(Record::Frame(f)) = p.records.get(1) else {
            panic!()
        };
        assert!(
            matches!(&f.payload, Payload::Single(m) if m.kind == Kind::Response && m.problems.is_empty()),
            "{:?}",
            f.payload
        );
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(
            &LOG[o..o + l],
            "\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":0,\\\"result\\\":{}}\""
        );
    }

    #[test]
    fn claims_only_mcpspy_events() {
        assert!(claims(LOG.lines().next().unwrap()));
        assert!(claims(LOG.lines().nth(3).unwrap()));
        for no in [
            LOG.lines().nth(2).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}",
            "{\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}}",
            "{\"timestamp\":\"x\",\"transport_type\":\"stdio\",\"type\":\"request\",\"raw\":\"{}\"}",
            "{\"timestamp\":\"x\",\"transport_type\":\"http\",\"http_transport\":{},\"type\":\"batch\",\"raw\":\"{}\"}",
            "{\"timestamp\":\"x\",\"transport_type\":\"http\",\"http_transport\":{},\"type\":\"request\",\"raw\":{}}",
            "{\"transport_type\":",
        ] {
            assert!(!claims(no), "{no}");
        }
    }
}

//! WebSocket messages in a HAR entry (FORMATS.md §4.1): the
//! `_webSocketMessages` member some exporters write. Text frames only
//! (opcode 1), `send` = c2s, `receive` = s2c, `time` in epoch seconds; the
//! location's event is the 1-based index in `_webSocketMessages`. No
//! `HttpContext`: a WebSocket message is a frame like a stdio line.

use std::sync::Arc;

use super::frames::read_payload;
use super::model::{Loose, Num, WsMessage};
use crate::record::{Direction, Frame, Location, Micros, Provenance, Record, Split};

/// Appends to `out` the frames of entry `entry`'s WebSocket `messages`,
/// keyed `key`, placed at `at` (the entry's provenance).
///
/// Returns one notice per message it could not read as it is: not an
/// object, a `type` other than `send`/`receive` (direction unknown: not
/// read), a binary frame (opcode 2: not read), no usable `time` (read
/// without one, so its latency is unknown). Control frames (close, ping,
/// pong) and empty text frames carry no JSON-RPC and are skipped quietly.
pub(super) fn push_frames(
    out: &mut Vec<Record>,
    entry: u64,
    messages: Loose<Vec<Loose<WsMessage<'_>>>>,
    key: &Arc<str>,
    at: Provenance,
) -> Vec<String> {
    let mut notices = Vec::new();
    for (n, m) in messages.0.unwrap_or_default().into_iter().enumerate() {
        let k = n + 1;
        let Some(m) = m.0 else {
            notices.push(format!(
                "WebSocket message {k} is not an object with a string `type`, a number `time`, `opcode` and a string `data`; not read"
            ));
            continue;
        };
        let opcode = m.opcode.0.as_ref().and_then(Num::finite).unwrap_or(1.0);
        let direction = match m.kind.0.as_deref() {
            Some("send") => Direction::C2s,
            Some("receive") => Direction::S2c,
            other => {
                notices.push(match other {
                    Some(t) => format!(
                        "WebSocket message {k} has type {:?}, not \"send\" or \"receive\": its direction is unknown, so it is not read",
                        t.chars().take(40).collect::<String>()
                    ),
                    None => format!(
                        "WebSocket message {k} has no string `type`: its direction is unknown, so it is not read"
                    ),
                });
                continue;
            }
        };
        if opcode == 2.0 {
            notices.push(format!(
                "WebSocket message {k} is a binary frame (opcode 2): MCP sends text, so it is not read"
            ));
            continue;
        }
        let Some(data) = m.data.0.filter(|d| opcode == 1.0 && !d.trim().is_empty()) else {
            continue;
        };
        let ts = m
            .time
            .0
            .as_ref()
            .and_then(Num::finite)
            .map(|s| (s * 1e6).round() as Micros);
        if ts.is_none() {
            notices.push(format!(
                "WebSocket message {k} has no usable `time` (a number of seconds): read without a time, so its latency is unknown"
            ));
        }
        let (payload, _) = read_payload(&data);
        out.push(Record::Frame(Frame {
            key: key.clone(),
            split: Split::Never,
            direction: Some(direction),
            ts,
            stated_latency: None,
            event_id: None,
            prov: Provenance {
                location: Location::entry(entry, Some(n as u64 + 1)),
                ..at
            },
            payload,
            http: None,
        }));
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{frames, run};
    use crate::record::{Direction, Location};

    /// Messages that cannot be read as they are each get a line naming
    /// the entry and the message; one without a usable time is still read.
    #[test]
    fn unreadable_websocket_messages_are_named() {
        let t = r#"{"log":{"entries":[{"startedDateTime":"2025-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"ws://h/mcp","headers":[]},"response":{"status":101,"content":{"size":0,"mimeType":"x-unknown"}},"_webSocketMessages":[{"type":"send","time":1735689600.5,"opcode":1,"data":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"},{"type":"bogus","time":1735689600.6,"opcode":1,"data":"{}"},{"type":"receive","time":"soon","opcode":1,"data":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"},{"type":"receive","time":1735689601,"opcode":2,"data":"AAEC"},7,{"type":"receive","time":1735689601,"opcode":9,"data":""}]}]}}"#;
        let p = run(t);
        let f = frames(&p);
        assert_eq!(
            f.iter().map(|f| (f.direction, f.ts)).collect::<Vec<_>>(),
            vec![
                (Some(Direction::C2s), Some(1_735_689_600_500_000)),
                (Some(Direction::S2c), None)
            ]
        );
        let lines: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            vec![
                "entry 0: WebSocket message 2 has type \"bogus\", not \"send\" or \"receive\": its direction is unknown, so it is not read",
                "entry 0: WebSocket message 3 has no usable `time` (a number of seconds): read without a time, so its latency is unknown",
                "entry 0: WebSocket message 4 is a binary frame (opcode 2): MCP sends text, so it is not read",
                "entry 0: WebSocket message 5 is not an object with a string `type`, a number `time`, `opcode` and a string `data`; not read",
            ]
        );
    }

    #[test]
    fn websocket_messages() {
        let t = r#"{"log":{"entries":[{"startedDateTime":"2025-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"ws://h/mcp","headers":[]},"response":{"status":101,"content":{"size":0,"mimeType":"x-unknown"}},"_webSocketMessages":[{"type":"send","time":1735689600.5,"opcode":1,"data":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"},{"type":"receive","time":1735689600.75,"opcode":2,"data":"AAEC"},{"type":"receive","time":1735689601,"opcode":1,"data":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"}]}]}}"#;
        let p = run(t);
        let f = frames(&p);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].direction, f[0].ts, f[0].prov.location),
            (
                Some(Direction::C2s),
                Some(1_735_689_600_500_000),
                Location::entry(0, Some(1))
            )
        );
        assert_eq!(
            (f[1].direction, f[1].prov.location, &*f[1].key),
            (
                Some(Direction::S2c),
                Location::entry(0, Some(3)),
                "ws://h:80"
            )
        );
        // Status 101 (the upgrade) has no body by HTTP's rules: no text
        // is no loss, so no error line; the binary frame is named.
        let lines: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "entry 0: WebSocket message 2 is a binary frame (opcode 2): MCP sends text, so it is not read"
            ]
        );
    }
}

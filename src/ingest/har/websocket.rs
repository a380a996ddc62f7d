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
pub(super) fn push_frames(
    out: &mut Vec<Record>,
    entry: u64,
    messages: Loose<Vec<Loose<WsMessage<'_>>>>,
    key: &Arc<str>,
    at: Provenance,
) {
    for (n, m) in messages.0.unwrap_or_default().into_iter().enumerate() {
        let Some(m) = m.0 else { continue };
        let opcode = m.opcode.0.as_ref().and_then(Num::finite).unwrap_or(1.0);
        let direction = match m.kind.0.as_deref() {
            Some("send") => Direction::C2s,
            Some("receive") => Direction::S2c,
            _ => continue,
        };
        let Some(data) = m.data.0.filter(|d| opcode == 1.0 && !d.trim().is_empty()) else {
            continue;
        };
        let ts = m
            .time
            .0
            .as_ref()
            .and_then(Num::finite)
            .map(|s| (s * 1e6).round() as Micros);
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
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{frames, run};
    use crate::record::{Direction, Location};

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
        // is no loss, so no error line.
        assert!(p.errors.is_empty(), "{:?}", p.errors);
    }
}

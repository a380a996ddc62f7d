//! MCP Inspector's exported protocol history (FORMATS.md §9.2): the JSON
//! array the web UI's history export downloads as
//! `inspector-protocol-SERVERID-ISO.json`, `[{"id","timestamp","direction":
//! "request"|"response"|"notification","origin"?:"client"|"server",
//! "message","response"?,"duration"?,"clientError"?},…]`.
//!
//! The shape is the Inspector's `MessageEntry` (`core/mcp/types.ts`) as
//! `JSON.stringify(messages, null, 2)` writes it (`clients/web/src/App.tsx`
//! `onExportProtocol`); its `MessageLogState` (`core/mcp/state/
//! messageLogState.ts`) folds a response into the pending request entry of
//! the same id (`response`, and `duration` = response time − request time
//! in whole ms); a response with no pending request stands alone.
//! `timestamp` is a JavaScript `Date` (ISO, ms, UTC).
//!
//! Directions: `origin` `client` is client→server, `server` the reverse; a
//! folded response goes the other way from its request. Entries without
//! `origin` (older exports) take the side their method names (only a server
//! sends `sampling/createMessage`, `roots/list`, `elicitation/create`, log
//! and list-changed notifications), else client→server; a lone response
//! without `origin` is server→client. Times: the entry's `timestamp`; a
//! folded response's is `timestamp + duration`, and frames are read in time
//! order (ties: the entries first, in array order, then folded responses),
//! so a progress notification logged before its call's response is read
//! before it. The file is one session (the Inspector clears the history on
//! disconnect; a new session at each `initialize`).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::input::Input;
use super::methods::sent_by_client;
use crate::diag::Diagnostic;
use crate::record::jsonrpc::parse_payload;
use crate::record::time::parse_iso;
use crate::record::{
    Direction, Frame, Kind, Location, Micros, Parsed, Payload, Provenance, Record, Split,
};

/// The format's name (`Parsed.format`, `Parsed.dialect`).
pub(crate) const NAME: &str = "inspector-history";

#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow, rename = "id")]
    _id: Cow<'a, str>,
    #[serde(borrow)]
    timestamp: Cow<'a, str>,
    #[serde(borrow)]
    direction: Cow<'a, str>,
    #[serde(borrow, default)]
    origin: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: &'a RawValue,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
    #[serde(default)]
    duration: Option<f64>,
}

/// The entries, when the text is an Inspector history export: a non-empty
/// JSON array of objects each with a string `id`, `timestamp` and
/// `direction` (`request`, `response` or `notification`) and an object
/// `message`.
fn read(text: &str) -> Option<Vec<Entry<'_>>> {
    let body = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if !body.starts_with('[') || !body.contains("\"direction\"") {
        return None;
    }
    let entries: Vec<Entry<'_>> = serde_json::from_str(body).ok()?;
    let shaped = !entries.is_empty()
        && entries.iter().all(|e| {
            matches!(
                e.direction.as_ref(),
                "request" | "response" | "notification"
            ) && e.message.get().starts_with('{')
        });
    shaped.then_some(entries)
}

/// The row claims the whole text: an Inspector history export (see `read`).
/// A JSON-RPC batch never is one (its members have no `direction`).
pub fn claims(text: &str) -> bool {
    read(text).is_some()
}

/// One frame before ordering: its time, rank (0: an entry, 1: a folded
/// response) and array index, then the frame.
type Timed = (Option<Micros>, u8, usize, Frame);

/// Parses an Inspector history export (FORMATS.md §9.2).
pub fn parse(input: Input<'_>) -> Parsed {
    let mut p = Parsed {
        format: NAME,
        dialect: NAME,
        ..Default::default()
    };
    let Some(entries) = read(input.text) else {
        p.errors.push(Diagnostic::whole(
            "not an MCP Inspector history export (a JSON array of {id, timestamp, direction, message} entries)",
        ));
        p.incomplete = true;
        return p;
    };
    let key: std::sync::Arc<str> = input.name.into();
    let base = input.text.as_ptr() as usize;
    let mut bad_ts = None;
    let mut frames: Vec<Timed> = Vec::with_capacity(entries.len() + entries.len() / 2);
    for (i, e) in entries.iter().enumerate() {
        let ts = parse_iso(&e.timestamp);
        if ts.is_none() && bad_ts.is_none() {
            bad_ts = Some(i);
        }
        let payload = parse_payload(e.message.get()).unwrap_or(Payload::Unparseable);
        let direction = match e.origin.as_deref() {
            Some("server") => Direction::S2c,
            Some("client") => Direction::C2s,
            _ => side_of(e.direction.as_ref(), &payload),
        };
        let frame = |raw: &RawValue, direction, ts, payload| Frame {
            key: key.clone(),
            split: Split::ByStart,
            direction: Some(direction),
            ts,
            stated_latency: None,
            prov: Provenance {
                file: input.file,
                location: Location::entry(i as u64, None),
                offset: (raw.get().as_ptr() as usize).saturating_sub(base) as u64,
                len: u32::try_from(raw.get().len()).unwrap_or(u32::MAX),
            },
            payload,
            http: None,
            event_id: None,
        };
        frames.push((ts, 0, i, frame(e.message, direction, ts, payload)));
        if let Some(r) = e.response {
            let at = match (ts, e.duration) {
                (Some(t), Some(d)) if d.is_finite() && d >= 0.0 => {
                    Some(t + (d * 1000.0).round() as i64)
                }
                _ => None,
            };
            let payload = parse_payload(r.get()).unwrap_or(Payload::Unparseable);
            frames.push((at, 1, i, frame(r, direction.other(), at, payload)));
        }
    }
    if let Some(i) = bad_ts {
        p.errors.push(Diagnostic::entry(
            i as u64,
            "timestamp is not an ISO 8601 time; the entry has none (latencies that need it stay empty)",
        ));
    }
    // Time order; an entry without a time keeps its array place among the
    // timed ones before it.
    let mut last = i64::MIN;
    for f in frames.iter_mut() {
        match f.0 {
            Some(t) => last = last.max(t),
            None => f.0 = Some(last),
        }
    }
    frames.sort_by_key(|f| (f.0, f.1, f.2));
    p.records = frames.into_iter().map(|f| Record::Frame(f.3)).collect();
    p
}

/// The direction of an entry without `origin`: a lone response is
/// server→client; a request or notification goes the way its method says
/// (client→server when either side may send it).
fn side_of(direction: &str, payload: &Payload) -> Direction {
    let Payload::Single(m) = payload else {
        return Direction::C2s;
    };
    if direction == "response" || m.kind == Kind::Response {
        return Direction::S2c;
    }
    let kind = if m.kind == Kind::Request {
        "request"
    } else {
        "notification"
    };
    match sent_by_client(kind, m.method.as_deref()) {
        Some(false) => Direction::S2c,
        _ => Direction::C2s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In the shape of `JSON.stringify(messages, null, 2)` of MessageEntry
    /// values (Inspector v2 `core/mcp/types.ts`).
    const DOC: &str = r#"[
  {
    "id": "a1",
    "timestamp": "2026-12-02T06:00:00.000Z",
    "direction": "request",
    "origin": "client",
    "message": {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "count_with_progress", "_meta": {"progressToken": 12}}},
    "response": {"jsonrpc": "2.0", "id": 12, "result": {"content": []}},
    "duration": 218
  },
  {
    "id": "a2",
    "timestamp": "2026-12-02T06:00:00.218Z",
    "direction": "notification",
    "origin": "server",
    "message": {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 12, "progress": 4}}
  },
  {
    "id": "a3",
    "timestamp": "2026-12-02T06:00:00.300Z",
    "direction": "request",
    "origin": "server",
    "message": {"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage"},
    "response": {"jsonrpc": "2.0", "id": 0, "result": {}},
    "duration": 5
  },
  {
    "id": "a4",
    "timestamp": "2026-12-02T06:00:01.000Z",
    "direction": "request",
    "message": {"jsonrpc": "2.0", "id": 1, "method": "roots/list"}
  },
  {
    "id": "a5",
    "timestamp": "yesterday",
    "direction": "response",
    "message": {"jsonrpc": "2.0", "id": 99, "result": {}}
  }
]"#;

    #[test]
    fn folded_responses_in_time_order() {
        let p = parse(Input {
            file: 0,
            name: "inspector-protocol-x.json",
            text: DOC,
        });
        let t = 1_796_191_200_000_000; // 2026-12-02T06:00:00Z
        let got: Vec<(u64, Direction, String, Option<i64>)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.entry.unwrap_or(u64::MAX),
                    f.direction?,
                    match &f.payload {
                        Payload::Single(m) => format!("{:?} {}", m.kind, m.id.json_text()),
                        other => format!("{other:?}"),
                    },
                    f.ts,
                )),
                _ => None,
            })
            .collect();
        let (c, s) = (Direction::C2s, Direction::S2c);
        assert_eq!(
            got,
            vec![
                (0, c, "Request 12".into(), Some(t)),
                // The progress notification at the response's ms is read first.
                (1, s, "Notification ".into(), Some(t + 218_000)),
                (0, s, "Response 12".into(), Some(t + 218_000)),
                (2, s, "Request 0".into(), Some(t + 300_000)),
                (2, c, "Response 0".into(), Some(t + 305_000)),
                // No origin: roots/list is a server request.
                (3, s, "Request 1".into(), Some(t + 1_000_000)),
                // An unreadable time keeps the entry's place.
                (4, s, "Response 99".into(), None),
            ]
        );
        assert_eq!(
            p.errors,
            vec![Diagnostic::entry(
                4,
                "timestamp is not an ISO 8601 time; the entry has none (latencies that need it stay empty)"
            )]
        );
        let Some(Record::Frame(f)) = p.records.get(2) else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(
            &DOC[o..o + l],
            r#"{"jsonrpc": "2.0", "id": 12, "result": {"content": []}}"#
        );
    }

    #[test]
    fn claims_only_history_exports() {
        assert!(claims(DOC));
        for no in [
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            "[]",
            "[{\"id\":\"a\",\"timestamp\":\"x\",\"direction\":\"sideways\",\"message\":{}}]",
            "[{\"id\":\"a\",\"timestamp\":\"x\",\"direction\":\"request\",\"message\":[]}]",
            "[{\"id\":\"a\",\"timestamp\":\"x\",\"direction\":\"request\"}]",
            "{\"direction\":\"request\"}",
            "[{\"id\":\"a\",\"direction\":",
        ] {
            assert!(!claims(no), "{no}");
        }
    }
}

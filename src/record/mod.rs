//! Records: the compact, format-independent form of captured traffic.
//!
//! Every ingest parser turns its input into a stream of [`Record`]s; the
//! later stages (reconstruct, analyze, report) never look at input bytes
//! again except to quote evidence by byte offset.
//!
//! Shapes follow DESIGN.md "Pipeline → records": one [`Message`] per JSON-RPC
//! object, grouped in [`Frame`]s (one stdio line, one POST body, one JSON
//! response body, one SSE event). A frame whose payload is a JSON array is a
//! batch.

pub mod id;
pub mod jsonrpc;
pub mod scan;
pub mod time;

pub use id::{Id, LooseKey, ValidId};
pub use jsonrpc::{Kind, Member, Message, Payload, Problem};

use serde::Serialize;

/// Which way a message travelled (DESIGN.md rule 3: id spaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Direction {
    /// Client to server (stdin of a stdio server, an HTTP request body).
    #[serde(rename = "c2s")]
    C2s,
    /// Server to client (stdout of a stdio server, an HTTP response body).
    #[serde(rename = "s2c")]
    S2c,
}

impl Direction {
    /// The other direction.
    pub fn other(self) -> Direction {
        match self {
            Direction::C2s => Direction::S2c,
            Direction::S2c => Direction::C2s,
        }
    }
    /// `"c2s"` or `"s2c"`, as every output writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::C2s => "c2s",
            Direction::S2c => "s2c",
        }
    }
}

/// Where in its input a record sits (DESIGN.md rule 11).
///
/// Line logs: 1-based physical `line`. HAR: 0-based `entry` into
/// `log.entries`, plus a 1-based `event` for an SSE event inside a body.
/// Raw SSE: `line` and `event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
pub struct Location {
    /// 1-based line number (line logs, raw SSE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 0-based HAR entry index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<u64>,
    /// 1-based SSE event number inside a HAR body or a raw SSE capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
}

impl Location {
    /// A line-log location.
    pub fn line(n: u64) -> Self {
        Location {
            line: Some(n),
            ..Default::default()
        }
    }
    /// A HAR entry location, optionally with an SSE event inside its body.
    pub fn entry(n: u64, event: Option<u64>) -> Self {
        Location {
            entry: Some(n),
            event,
            ..Default::default()
        }
    }
    /// Human form: `line 12`, `entry 3 event 2`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        if let Some(e) = self.entry {
            parts.push(format!("entry {e}"));
        }
        if let Some(e) = self.event {
            parts.push(format!("event {e}"));
        }
        parts.join(" ")
    }
}

/// Provenance of a record: which input, where, and which bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Provenance {
    /// Index of the input file in the run (see `source`).
    pub file: u32,
    /// Line / HAR entry / SSE event.
    pub location: Location,
    /// Byte offset of the payload in the (decoded) input, for evidence.
    pub offset: u64,
    /// Length of the payload in bytes.
    pub len: u32,
}

/// A timestamp in microseconds since the Unix epoch (UTC, or the log's local
/// wall clock read as UTC where the zone is unknown; FORMATS.md §8.1).
pub type Micros = i64;

/// How a session key may be split into several sessions (DESIGN.md rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Never split (an envelope `session` value, an HTTP session).
    Never,
    /// A new session at a process-start line, or at a client→server
    /// `initialize` request (FORMATS.md §8.1 "Sessions").
    ByStart,
}

/// The HTTP exchange a frame belongs to (HAR input only).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpContext {
    /// 0-based index of the HAR entry.
    pub entry: u64,
    /// `true` for the request body, `false` for a frame of the response body.
    pub is_request_body: bool,
    /// HTTP method of the entry (`POST`, `GET`, …).
    pub method: Box<str>,
    /// Response status; 0 when no response arrived (DESIGN.md rule 12).
    pub status: i64,
    /// The response body is `text/event-stream`.
    pub stream: bool,
    /// The response body held no bytes (a `202` with nothing in it).
    pub body_empty: bool,
    /// The response body holds at least one JSON value.
    pub body_has_json: bool,
    /// `startedDateTime` in µs.
    pub start: Micros,
    /// `startedDateTime + time` in µs.
    pub end: Micros,
    /// 0-based position of this frame among its body's frames.
    pub position: u32,
    /// `MCP-Protocol-Version` request header, if any.
    pub protocol_header: Option<Box<str>>,
    /// A legacy HTTP+SSE (2024-11-05) exchange: a POST to the endpoint the
    /// GET stream named (its session from the `sessionId` query parameter),
    /// or that GET stream. Such POSTs are always answered `202 Accepted`
    /// (FORMATS.md §2.2), so `notification_batch_awaited` does not apply.
    pub legacy: bool,
    /// The capture kept no response for this entry although one may have
    /// come (no `response` object, or a status with a body that HTTP has
    /// but no text): a capture gap, not a disconnect.
    pub response_lost: bool,
    /// This response-body frame's time is no bound on when it arrived: the
    /// entry's `time` closed at the response headers while the event
    /// stream went on (`timings.receive` 0, FORMATS.md §4.2), so a latency
    /// that depends on it is unknown (DESIGN.md rule 10).
    pub time_unbounded: bool,
    /// The session key is the URL's origin (no `Mcp-Session-Id`, no legacy
    /// session): stateless clients sharing one server cannot be told apart,
    /// so ids of other exchanges are no duplicates or reuses (DESIGN.md
    /// rule 6).
    pub origin_keyed: bool,
    /// The request headers the HTTP rules compare with the body or the URL
    /// (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, a foreign `Origin`);
    /// `None` when the entry has none of them (shared by the entry's frames).
    pub headers: Option<std::sync::Arc<RequestHeaders>>,
}

impl HttpContext {
    /// Whether a frame of this response body at `ts` has only the entry's
    /// end as its time (an event of a stream body without a time of its
    /// own, or one clamped to the end): an upper bound on when it came, no
    /// more (FORMATS.md §4.2).
    pub fn stamped_at_end(&self, ts: Option<Micros>) -> bool {
        self.stream && !self.is_request_body && ts == Some(self.end)
    }
}

/// What a HAR request says in headers that its body or URL also says
/// (2026-07-28 basic/transports/streamable-http, Standard Headers and
/// Custom Headers from Tool Parameters, SEP-2243; the `Origin` check of
/// the transports' Security Warning). Values are the header texts as sent
/// (trimmed), not yet Base64-decoded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestHeaders {
    /// `Mcp-Method`.
    pub mcp_method: Option<Box<str>>,
    /// `Mcp-Name`.
    pub mcp_name: Option<Box<str>>,
    /// `Mcp-Param-{Name}` headers, in header order.
    pub mcp_params: Vec<ParamHeader>,
    /// The body's `params.name` when it is a string (single-object body).
    pub body_name: Option<Box<str>>,
    /// The body's `params.uri` when it is a string (single-object body).
    pub body_uri: Option<Box<str>>,
    /// `(Origin, URL host)` when the `Origin` header names another host
    /// than the request URL's (loopback names count as one host; `null`
    /// and unreadable origins are not foreign).
    pub foreign_origin: Option<(Box<str>, Box<str>)>,
}

/// One `Mcp-Param-{Name}` header and the body argument it mirrors.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamHeader {
    /// `{Name}`, as written after `Mcp-Param-`.
    pub name: Box<str>,
    /// The header value as sent.
    pub value: Box<str>,
    /// Raw JSON of `params.arguments[key]` for the top-level key equal to
    /// `{Name}` ignoring ASCII case; `None` when no key matches (without
    /// the tool's `inputSchema` the argument it mirrors is unknown).
    pub body: Option<Box<str>>,
}

/// One frame: a JSON object, a JSON array (a batch), or a traffic line that
/// holds neither (`non_json_line`).
#[derive(Debug, Clone)]
pub struct Frame {
    /// Session key (server name, envelope session, `Mcp-Session-Id`, or the
    /// file); reconstruct turns keys into sessions. Shared between the
    /// frames of one key where a parser can.
    pub key: std::sync::Arc<str>,
    /// How the key splits into sessions.
    pub split: Split,
    /// Direction; `None` only for a non-JSON NDJSON line whose direction
    /// cannot be read.
    pub direction: Option<Direction>,
    /// Time of the frame, µs; `None` where the log has none.
    pub ts: Option<Micros>,
    /// Latency the log states for this response frame (µs), which wins over
    /// timestamps (FORMATS.md §8.1 "Stated durations win").
    pub stated_latency: Option<Micros>,
    /// Where it came from.
    pub prov: Provenance,
    /// What it holds.
    pub payload: Payload,
    /// The HTTP exchange (HAR only).
    pub http: Option<HttpContext>,
    /// The SSE event id and data of a frame carried by an SSE event with a
    /// non-empty last event id; used to recognise replays after a reconnect
    /// (`sse_replay_duplicate`: same event id, same data).
    pub event_id: Option<SseEventId>,
}

/// Identity of an SSE event: its last event id (WHATWG: the `id` field in
/// force when it was dispatched) and a hash of its data.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SseEventId {
    /// The event id.
    pub id: Box<str>,
    /// Hash of the event's data (same within a run).
    pub data_hash: u64,
}

impl SseEventId {
    /// The identity of an event, `None` when it has no event id.
    pub fn new(id: &str, data: &str) -> Option<SseEventId> {
        use std::hash::{Hash, Hasher};
        if id.is_empty() {
            return None;
        }
        let mut h = std::hash::DefaultHasher::new();
        data.hash(&mut h);
        Some(SseEventId {
            id: id.into(),
            data_hash: h.finish(),
        })
    }
}

/// One item of an ingested input, in input order.
// Nearly every record is a frame: boxing it would add one allocation per
// frame to the hot path for the rare process-start line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Record {
    /// A traffic frame.
    Frame(Frame),
    /// A process-start line (`Initializing server...`): a new session for
    /// `key` if its current session already carried traffic (FORMATS.md §8.1).
    ProcessStart {
        /// Session key the line belongs to.
        key: std::sync::Arc<str>,
        /// Where.
        prov: Provenance,
    },
}

/// What an ingest parser returns for one input.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Format name for `summary.json` `inputs[].format` (`stdio`, `har`).
    pub format: &'static str,
    /// Dialect name (`envelope`, `claude`, `tagged`, `arrow`, `vscode`,
    /// `bare`, `pair`, `har`).
    pub dialect: &'static str,
    /// Records in input order.
    pub records: Vec<Record>,
    /// Problems met while reading, each at its place (not yet named after
    /// the input: the run does that).
    pub errors: Vec<crate::diag::Diagnostic>,
    /// Lines that are neither traffic nor findings (stderr, lifecycle).
    pub other_lines: u64,
    /// The input could not be read to its end (a truncated or malformed
    /// document): what came before is still analysed, and the run exits 2.
    pub incomplete: bool,
    /// The input holds one side of the conversation only (a raw SSE
    /// capture): nothing can be paired, so only message-local rules apply.
    pub one_direction: bool,
    /// HAR: the legacy HTTP+SSE sessions whose GET stream is in the capture
    /// with its body read (its `endpoint` event named the session). A
    /// legacy session without one has its replies outside the capture.
    pub linked_streams: Vec<std::sync::Arc<str>>,
    /// HAR: each legacy HTTP+SSE session key with the origin its POSTs
    /// went to (one pair per POST), so that a GET stream whose body the
    /// capture lost (and with it the `endpoint` event naming its session)
    /// can be given to its session instead of standing alone.
    pub legacy_origins: Vec<(std::sync::Arc<str>, Box<str>)>,
}

//! `--otlp FILE`: the run's requests as OpenTelemetry traces in OTLP/JSON
//! Lines, as the OpenTelemetry Collector's `otlpjsonfile` receiver and the
//! file exporter read them: one `ExportTraceServiceRequest` per line, one
//! line per session (a session is one trace; a line per session keeps a
//! session's spans in one request, and lines short enough for a reader
//! that buffers a line at a time).
//!
//! OTLP/JSON as the OTLP specification defines it (`otlp.md`, "JSON
//! Protobuf Encoding"), which differs from protobuf's JSON mapping: trace
//! and span ids are lowercase hex strings (16 and 8 bytes), enums are
//! integers (`kind` 1 internal, 3 client; `status.code` 2 error), 64-bit
//! integers (the `…UnixNano` times, `intValue`) are decimal strings, field
//! names lowerCamelCase.
//!
//! Names and attributes follow OpenTelemetry's MCP semantic conventions
//! (`docs/gen-ai/mcp.md` of open-telemetry/semantic-conventions, commit
//! `c9e48b1d1^`, status Development; since moved to
//! semantic-conventions-genai): span name `{mcp.method.name} {target}`
//! with target `gen_ai.tool.name` (`tools/call`) or `gen_ai.prompt.name`
//! (`prompts/get`), else `{mcp.method.name}`; `mcp.method.name`,
//! `jsonrpc.request.id` (not for a null or absent id), `mcp.session.id`,
//! `mcp.protocol.version`, `gen_ai.operation.name` `execute_tool`,
//! `mcp.resource.uri`, `rpc.response.status_code` and `error.type` (the
//! JSON-RPC error code as a string; `tool_error` for a `CallToolResult`
//! with `isError` true) with status ERROR and the error's message,
//! `network.transport` (`pipe` for stdio, `tcp` for HTTP) and
//! `network.protocol.name`/`.version`.
//!
//! Per session: a root span (kind INTERNAL, name `mcp session`) over the
//! window in which the capture saw the session's requests and responses,
//! and one child span per request (either direction) whose latency the
//! capture bounds (DESIGN.md rule 10), kind CLIENT: the span covers the
//! requester's wait from its request to the response, which is what a
//! capture beside the requester (a HAR, a host's log) measures; the
//! conventions give the requester's span kind CLIENT in both directions
//! (a server's `sampling/createMessage` too). No SERVER span is written:
//! no capture here measures a server's processing apart from the wire.
//! Times are the request's time and the request's time plus the latency
//! (`pairs.csv` `request_time`, `latency_ms`), in ns since the epoch. A
//! request whose latency the capture does not bound (no response, a
//! cancelled request, a moved or unbounded time) gets no span of its own
//! (no invented end): it is an event `mcp_audit.request` on the session
//! span at its request time, saying why (`mcp_audit.latency.unknown`).
//! A request with no time at all is not written; nor is a session with
//! no time (the caller counts them). Findings are span events named
//! `mcp_audit.finding` (`mcp_audit.finding.kind`, `.severity`, `.detail`,
//! `.capture_gap`, `.location`) on the span of the request they point at
//! (found by its id and place; of a frame that repeats an id, the repeat),
//! else on the session span at the time of the request or batch at their
//! place, else of the last one before it.
//!
//! Ids are deterministic: the trace id is FNV-1a 128 of the input's name
//! and the session's, a span id FNV-1a 64 of the trace id and the
//! request's index in its session, so two runs write the same file. A
//! request that carries `params._meta.traceparent` (W3C, the conventions'
//! context propagation) is written into that trace, its parent the span
//! that sent it, with a link to its session span.
//!
//! What the spans name beyond the analysis (tool, prompt, resource, error
//! message, trace context) is read again from the capture's evidence
//! ranges (`source::evidence`) by the pipeline, and the responses' places
//! and error codes are kept beside the analysis while sessions are whole
//! ([`Replies`]); everything captured goes through [`super::redact`] when
//! redaction is on, as in every other output.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use serde_json::{Value, json};

use super::{Render, RenderOptions, Report, redact};
use crate::analyze::{Finding, FindingId, PairStatus, Req, SessionResult};
use crate::record::{Direction, Id, Kind, Member, Micros, Payload};

/// Where a response was, kept per session while its frames are whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    /// Its frame's time (µs).
    pub ts: Option<Micros>,
    /// File id of its frame.
    pub file: u32,
    /// Its frame's evidence range.
    pub evidence: (u64, u32),
    /// `error.code` when an integer.
    pub code: Option<i64>,
}

/// The responses of one session, by requester direction and id, in
/// arrival order.
pub type SessionReplies = HashMap<(Direction, Id), Vec<Reply>>;

/// The responses of every session held whole, by (input, session name).
/// Sessions of inputs read block by block are absent: their spans carry
/// no response detail.
#[derive(Debug, Default)]
pub struct Replies {
    /// Per (input, session name).
    pub sessions: HashMap<(usize, String), SessionReplies>,
}

impl Replies {
    /// The responses of a reconstructed session.
    pub fn collect(s: &crate::reconstruct::Session) -> ((usize, String), SessionReplies) {
        let mut m: SessionReplies = HashMap::new();
        for f in &s.frames {
            let Some(dir) = f.direction else { continue };
            let mut add = |msg: &crate::record::Message| {
                if msg.kind == Kind::Response {
                    m.entry((dir.other(), msg.id.clone()))
                        .or_default()
                        .push(Reply {
                            ts: f.ts,
                            file: f.prov.file,
                            evidence: (f.prov.offset, f.prov.len),
                            code: msg.error_code,
                        });
                }
            };
            match &f.payload {
                Payload::Single(msg) => add(msg),
                Payload::Batch(members) => {
                    for mem in members {
                        if let Member::Message(msg) = mem {
                            add(msg);
                        }
                    }
                }
                _ => {}
            }
        }
        ((s.input, s.name.clone()), m)
    }

    /// The keys redacted as the analysis is ([`redact::analysis`]: session
    /// names and ids), so that they still find its sessions and requests.
    pub fn redact(&mut self) {
        let old = std::mem::take(&mut self.sessions);
        for ((input, name), m) in old {
            let name = redact::redact(&name).into_owned();
            let mut out: SessionReplies = HashMap::new();
            for ((d, mut id), v) in m {
                redact::redact_id(&mut id);
                out.entry((d, id)).or_default().extend(v);
            }
            self.sessions.entry((input, name)).or_default().extend(out);
        }
    }
}

/// One JSON-RPC message found again in an evidence range.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    /// Its id as written (`Absent` when none).
    pub id: Id,
    /// `method`, when a string.
    pub method: Option<String>,
    /// A response (no method; `result` or `error`).
    pub response: bool,
    /// `params.name` (a tool's or a prompt's).
    pub name: Option<String>,
    /// `params.uri`.
    pub uri: Option<String>,
    /// `params._meta.traceparent`.
    pub traceparent: Option<String>,
    /// `error.code` when an integer.
    pub error_code: Option<i64>,
    /// `error.message` when a string.
    pub error_message: Option<String>,
    /// `result.isError` is `true` (a failed tool call).
    pub is_error: bool,
}

/// What one evidence range holds: its messages, and the HTTP exchange's
/// protocol where it is a HAR entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Excerpt {
    /// The messages, in order.
    pub msgs: Vec<Msg>,
    /// `request.httpVersion` of a HAR entry, as `network.protocol.version`
    /// writes it (`1.1`, `2`).
    pub http_version: Option<String>,
    /// The HAR entry is a WebSocket (`_webSocketMessages`).
    pub websocket: bool,
}

/// Re-read evidence by (file id, offset, length).
pub type Excerpts = HashMap<(u32, u64, u32), Excerpt>;

fn msg_of(o: &serde_json::Map<String, Value>) -> Msg {
    let st = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let params = o.get("params");
    let error = o.get("error");
    let method = st(o.get("method"));
    Msg {
        id: o
            .get("id")
            .map_or(Id::Absent, |v| Id::from_raw(&v.to_string())),
        response: method.is_none() && (o.contains_key("result") || o.contains_key("error")),
        method,
        name: st(params.and_then(|p| p.get("name"))),
        uri: st(params.and_then(|p| p.get("uri"))),
        traceparent: st(params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("traceparent"))),
        error_code: error.and_then(|e| e.get("code")).and_then(Value::as_i64),
        error_message: st(error.and_then(|e| e.get("message"))),
        is_error: o
            .get("result")
            .and_then(|r| r.get("isError"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

/// Whether an object is a JSON-RPC message.
fn is_message(o: &serde_json::Map<String, Value>) -> bool {
    o.contains_key("jsonrpc")
        || o.get("method").is_some_and(Value::is_string)
        || (o.contains_key("id") && (o.contains_key("result") || o.contains_key("error")))
}

/// The messages inside a JSON value: a message, a batch of them, or an
/// envelope holding one (a few levels down).
fn collect(v: &Value, depth: u8, out: &mut Vec<Msg>) {
    match v {
        Value::Object(o) if is_message(o) => out.push(msg_of(o)),
        Value::Object(o) if depth < 4 => o.values().for_each(|x| collect(x, depth + 1, out)),
        Value::Array(a) if depth < 4 => a.iter().for_each(|x| collect(x, depth + 1, out)),
        Value::String(s) if depth > 0 && depth < 4 && s.trim_start().starts_with(['{', '[']) => {
            if let Ok(x) = serde_json::from_str::<Value>(s) {
                collect(&x, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The messages of an HTTP body: one JSON value, or SSE events' `data`.
fn body(text: &str, out: &mut Vec<Msg>) {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        collect(&v, 0, out);
        return;
    }
    let mut data = String::new();
    let flush = |data: &mut String, out: &mut Vec<Msg>| {
        if let Ok(v) = serde_json::from_str::<Value>(data) {
            collect(&v, 0, out);
        }
        data.clear();
    };
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            flush(&mut data, out);
        } else if let Some(d) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    flush(&mut data, out);
}

/// What an evidence range holds ([`Excerpt`]): a HAR entry's request and
/// response bodies (base64 decoded, SSE events read), WebSocket and
/// DevTools event messages; or a log line's JSON (an envelope's message
/// found inside it, text before the first `{` or `[` that starts a JSON
/// value skipped). A range
/// that holds no JSON gives no message.
pub fn read_excerpt(text: &str) -> Excerpt {
    use base64::Engine as _;
    let mut e = Excerpt::default();
    // A log line: the first `{` or `[` (of the first 64) where a JSON
    // value holding a message starts (`[info]` or `[1]` before the
    // message is none).
    let parsed = serde_json::from_str::<Value>(text).ok().or_else(|| {
        text.match_indices(['{', '[']).take(64).find_map(|(i, _)| {
            serde_json::Deserializer::from_str(&text[i..])
                .into_iter::<Value>()
                .next()?
                .ok()
                .filter(|v| {
                    let mut m = Vec::new();
                    collect(v, 0, &mut m);
                    !m.is_empty()
                })
        })
    });
    let Some(v) = parsed else { return e };
    let (Some(req), true) = (v.get("request"), v.get("startedDateTime").is_some()) else {
        collect(&v, 0, &mut e.msgs);
        return e;
    };
    e.http_version = req
        .get("httpVersion")
        .and_then(Value::as_str)
        .and_then(http_version);
    if let Some(t) = req
        .get("postData")
        .and_then(|p| p.get("text"))
        .and_then(Value::as_str)
    {
        body(t, &mut e.msgs);
    }
    if let Some(c) = v.get("response").and_then(|r| r.get("content")) {
        let text = c.get("text").and_then(Value::as_str).unwrap_or("");
        let decoded = (c.get("encoding").and_then(Value::as_str) == Some("base64"))
            .then(|| {
                base64::engine::general_purpose::STANDARD
                    .decode(text.trim())
                    .ok()
            })
            .flatten()
            .and_then(|b| String::from_utf8(b).ok());
        body(decoded.as_deref().unwrap_or(text), &mut e.msgs);
    }
    for key in ["_webSocketMessages", "_eventSourceMessages"] {
        if let Some(a) = v.get(key).and_then(Value::as_array) {
            e.websocket |= key == "_webSocketMessages";
            for m in a {
                if let Some(d) = m.get("data").and_then(Value::as_str) {
                    body(d, &mut e.msgs);
                }
            }
        }
    }
    e
}

/// `HTTP/1.1` → `1.1`, `HTTP/2`/`h2` → `2`, `HTTP/3`/`h3` → `3`.
fn http_version(v: &str) -> Option<String> {
    let l = v.trim().to_ascii_lowercase();
    let r = match l.as_str() {
        "h2" | "http/2" | "http/2.0" => "2",
        "h3" | "http/3" | "http/3.0" => "3",
        _ => l.strip_prefix("http/")?,
    };
    (!r.is_empty()).then(|| r.to_string())
}

/// The evidence ranges the spans need: every timed request's, and its
/// response's where [`Replies`] knows it, per file id.
pub fn wanted(rep: &Report<'_>, replies: &Replies) -> BTreeMap<u32, Vec<(u64, u32)>> {
    let mut by_file: BTreeMap<u32, Vec<(u64, u32)>> = BTreeMap::new();
    for s in &rep.analysis.sessions {
        let rs = replies.sessions.get(&(s.input, s.name.clone()));
        for q in s.requests.iter().filter(|q| q.ts.is_some()) {
            by_file.entry(q.file).or_default().push(q.evidence);
            if let Some(v) = rs.and_then(|m| m.get(&(q.direction, q.id.clone()))) {
                for r in v {
                    by_file.entry(r.file).or_default().push(r.evidence);
                }
            }
        }
    }
    for v in by_file.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    by_file
}

/// FNV-1a, 128 bits.
fn fnv128(parts: &[&[u8]]) -> u128 {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for p in parts {
        for &b in p.iter().chain(&[0u8]) {
            h ^= u128::from(b);
            h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
    }
    h.max(1)
}

/// FNV-1a, 64 bits.
fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&[0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h.max(1)
}

/// A session's trace id (32 hex digits) from its input's and its name.
pub fn trace_id(file: &str, session: &str) -> String {
    format!("{:032x}", fnv128(&[file.as_bytes(), session.as_bytes()]))
}

/// A span id (16 hex digits) in trace `trace`: `index` the request's
/// place in its session, `None` the session span.
pub fn span_id(trace: &str, index: Option<usize>) -> String {
    let i = index.map_or_else(|| "session".to_string(), |i| i.to_string());
    format!("{:016x}", fnv64(&[trace.as_bytes(), i.as_bytes()]))
}

/// A W3C `traceparent` (`00-TRACE-PARENT-FLAGS`): its trace id and parent
/// span id, lowercase hex, neither all zeros; `None` when malformed.
pub fn traceparent(tp: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = tp.trim().split('-').collect();
    let hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let ok = parts.len() >= 4
        && hex(parts[0], 2)
        && parts[0] != "ff"
        && (parts[0] != "00" || parts.len() == 4)
        && hex(parts[1], 32)
        && hex(parts[2], 16)
        && hex(parts[3], 2)
        && parts[1].bytes().any(|b| b != b'0')
        && parts[2].bytes().any(|b| b != b'0');
    ok.then(|| (parts[1].to_string(), parts[2].to_string()))
}

fn attr_s(k: &str, v: &str) -> Value {
    json!({"key": k, "value": {"stringValue": v}})
}

fn attr_i(k: &str, v: i64) -> Value {
    json!({"key": k, "value": {"intValue": v.to_string()}})
}

fn attr_b(k: &str, v: bool) -> Value {
    json!({"key": k, "value": {"boolValue": v}})
}

/// µs → ns as OTLP/JSON writes a fixed64: a decimal string.
fn nanos(us: Micros) -> String {
    (i128::from(us) * 1000).max(0).to_string()
}

/// `jsonrpc.request.id`: a string id as it is, a number as its text;
/// `None` for a null or absent id (the conventions say not to capture it).
fn request_id(id: &Id) -> Option<String> {
    match id {
        Id::Absent | Id::Null => None,
        Id::Str(s) => Some(s.to_string()),
        other => Some(other.json_text()),
    }
}

/// The transport attributes of an input: `network.transport` `pipe` for
/// the stdio line logs, `tcp` with `network.protocol.name` `http` (or
/// `websocket`) for HAR and raw SSE; none for the bridges' and tracers'
/// logs, whose side of the bridge is not one transport.
fn transport(format: &str, dialect: &str, ex: Option<&Excerpt>) -> Vec<Value> {
    const BRIDGES: [&str; 6] = [
        "supergateway",
        "mcp-remote",
        "mcp-proxy",
        "mcp-proxy-npm",
        "mcpsnoop",
        "mcpspy",
    ];
    match format {
        "stdio" if !BRIDGES.contains(&dialect) => vec![attr_s("network.transport", "pipe")],
        "har" | "sse" => {
            let ws = ex.is_some_and(|e| e.websocket);
            let mut v = vec![
                attr_s("network.transport", "tcp"),
                attr_s(
                    "network.protocol.name",
                    if ws { "websocket" } else { "http" },
                ),
            ];
            if let (false, Some(ver)) = (ws, ex.and_then(|e| e.http_version.as_deref())) {
                v.push(attr_s("network.protocol.version", ver));
            }
            v
        }
        _ => vec![],
    }
}

/// `mcp.session.id`: the `Mcp-Session-Id` (or legacy `sessionId`) that
/// keys a HAR session; an origin-keyed HAR session and stdio have none.
fn mcp_session_id<'s>(format: &str, name: &'s str) -> Option<&'s str> {
    (format == "har" && !name.contains("://") && !name.is_empty()).then_some(name)
}

/// The OTLP renderer: one line per session with a time. `excerpts` are
/// the evidence ranges of [`wanted`] read again ([`read_excerpt`]),
/// `replies` the responses' places, `redact` whether captured text is
/// redacted.
pub struct Otlp<'a> {
    /// The responses' places and codes.
    pub replies: &'a Replies,
    /// The re-read evidence.
    pub excerpts: &'a Excerpts,
    /// Redact what is read again from the capture.
    pub redact: bool,
}

/// What a render left out: requests with no time, sessions with no time.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Left {
    /// Requests with no time (not on any timeline).
    pub untimed_requests: u64,
    /// Sessions none of whose requests has a time.
    pub untimed_sessions: u64,
    /// Requests answered with a JSON-RPC error in sessions whose responses
    /// were not kept (an input read block by block): their spans carry the
    /// error code (`Req::error_code`) but not the error's message.
    pub replies_unread: u64,
}

impl Otlp<'_> {
    fn text(&self, s: &str) -> String {
        if self.redact {
            redact::redact(s).into_owned()
        } else {
            s.to_string()
        }
    }

    fn excerpt(&self, file: u32, ev: (u64, u32)) -> Option<&Excerpt> {
        self.excerpts.get(&(file, ev.0, ev.1))
    }

    /// The candidate `id`, redacted as the analysis's ids are.
    fn same_id(&self, candidate: &Id, id: &Id) -> bool {
        if self.redact {
            let mut c = candidate.clone();
            redact::redact_id(&mut c);
            c.strict_eq(id)
        } else {
            candidate.strict_eq(id)
        }
    }

    /// Every session's line, and what was left out.
    pub fn lines(&self, rep: &Report<'_>) -> (Vec<Value>, Left) {
        let mut left = Left::default();
        let mut by_session: HashMap<(usize, &str), Vec<&Finding>> = HashMap::new();
        for f in &rep.analysis.findings {
            by_session
                .entry((f.input, f.session.as_str()))
                .or_default()
                .push(f);
        }
        let mut batch_base = 0usize;
        let lines = rep
            .analysis
            .sessions
            .iter()
            .filter_map(|s| {
                let findings = by_session
                    .get(&(s.input, s.name.as_str()))
                    .map_or(&[][..], Vec::as_slice);
                let line = self.session(rep, s, findings, batch_base, &mut left);
                batch_base += s.batches.len();
                line
            })
            .collect();
        (lines, left)
    }

    fn session(
        &self,
        rep: &Report<'_>,
        s: &SessionResult,
        findings: &[&Finding],
        batch_base: usize,
        left: &mut Left,
    ) -> Option<Value> {
        let info = rep.inputs.get(s.input);
        let (format, dialect) = info.map_or(("", ""), |i| (i.format.as_str(), i.dialect.as_str()));
        let file = rep.file(s.input);
        let trace = trace_id(file, &s.name);
        let root = span_id(&trace, None);
        let Some((start, end)) = window(s) else {
            left.untimed_sessions += 1;
            return None;
        };
        let w = SessionSpans {
            otlp: self,
            s,
            format,
            root,
            trace,
            start,
            replies: self.replies.sessions.get(&(s.input, s.name.clone())),
            common: self.common_attrs(s, format, dialect),
            batch_base,
        };
        let (mut on_request, mut on_session) = place_findings(s, findings, start);
        let mut root_events: Vec<(Micros, Value)> = Vec::new();
        let mut spans = w.request_spans(&mut on_request, &mut on_session, &mut root_events, left);
        root_events.extend(
            on_session
                .into_iter()
                .map(|(t, f)| (t, finding_event(t, f))),
        );
        root_events.sort_by_key(|(t, _)| *t);
        spans.insert(0, w.root_span(file, end, root_events));
        Some(json!({"resourceSpans": [{
            "resource": {"attributes": self.resource(s)},
            "scopeSpans": [{
                "scope": {"name": "mcp-audit", "version": env!("CARGO_PKG_VERSION")},
                "spans": spans,
            }],
        }]}))
    }

    /// The attributes every span of a session carries: its transport (as
    /// its first request's excerpt shows it), `mcp.session.id` and
    /// `mcp.protocol.version`.
    fn common_attrs(&self, s: &SessionResult, format: &str, dialect: &str) -> Vec<Value> {
        let first_ex = s
            .requests
            .first()
            .and_then(|q| self.excerpt(q.file, q.evidence));
        let mut common = transport(format, dialect, first_ex);
        if let Some(id) = mcp_session_id(format, &s.name) {
            common.push(attr_s("mcp.session.id", id));
        }
        if let Some(v) = &s.revision {
            common.push(attr_s("mcp.protocol.version", &self.text(v)));
        }
        common
    }

    /// The resource of a session's line: the server's name and version
    /// as `initialize` gave them, else `unknown_service`.
    fn resource(&self, s: &SessionResult) -> Vec<Value> {
        let mut resource = vec![];
        match &s.server {
            Some((n, v)) => {
                resource.push(attr_s("service.name", &self.text(n)));
                if !v.is_empty() {
                    resource.push(attr_s("service.version", &self.text(v)));
                }
            }
            None => resource.push(attr_s("service.name", "unknown_service")),
        }
        resource
    }
}

/// The window in which the capture saw a session's requests and
/// responses (µs); `None` when none of them has a time.
fn window(s: &SessionResult) -> Option<(Micros, Micros)> {
    let times = s
        .requests
        .iter()
        .flat_map(|q| [q.ts, q.response_ts, q.ts.zip(q.latency).map(|(t, l)| t + l)]);
    times
        .flatten()
        .fold(None, |acc: Option<(Micros, Micros)>, t| {
            Some(acc.map_or((t, t), |(a, b)| (a.min(t), b.max(t))))
        })
}

/// Findings by the request they point at (its index in the session).
type OnRequest<'f> = HashMap<usize, Vec<&'f Finding>>;

/// Findings of the session span, each with its time.
type OnSession<'f> = Vec<(Micros, &'f Finding)>;

/// A timed place of a request or batch: file id, location, evidence, time.
type Place = (u32, crate::record::Location, (u64, u32), Micros);

/// Which finding points at which request, and the others with the time
/// of what they point at (else of the last request or batch before their
/// place, else `start`).
fn place_findings<'f>(
    s: &SessionResult,
    findings: &[&'f Finding],
    start: Micros,
) -> (OnRequest<'f>, OnSession<'f>) {
    let mut on_request: OnRequest<'f> = HashMap::new();
    let mut on_session: OnSession<'f> = Vec::new();
    let places = places(s);
    for &f in findings {
        match finding_request(s, f) {
            Some(i) => on_request.entry(i).or_default().push(f),
            None => {
                let exact = places
                    .iter()
                    .find(|p| p.0 == f.file && p.2 == f.evidence)
                    .or_else(|| places.iter().find(|p| p.0 == f.file && p.1 == f.location))
                    .or_else(|| {
                        places
                            .iter()
                            .rev()
                            .find(|p| p.0 == f.file && p.1 <= f.location)
                    });
                on_session.push((exact.map_or(start, |p| p.3), f));
            }
        }
    }
    (on_request, on_session)
}

/// Timed places of the session's requests and batches, in file and
/// location order, for the findings that point at neither.
fn places(s: &SessionResult) -> Vec<Place> {
    let mut places: Vec<Place> = s
        .requests
        .iter()
        .filter_map(|q| Some((q.file, q.loc, q.evidence, q.ts?)))
        .chain(
            s.batches
                .iter()
                .filter(|b| b.size > 0)
                .filter_map(|b| Some((b.file, b.loc, b.evidence, b.ts?))),
        )
        .collect();
    places.sort_by_key(|p| (p.0, p.1));
    places
}

/// The request a finding points at: same direction and id, and the
/// request's place (the last of several: one frame that repeats an id is
/// reported at the repeat); else the only request with that id.
fn finding_request(s: &SessionResult, f: &Finding) -> Option<usize> {
    let (FindingId::One(id), Some(d)) = (&f.id, f.direction) else {
        return None;
    };
    let same: Vec<usize> = s
        .requests
        .iter()
        .enumerate()
        .filter(|(_, q)| q.direction == d && q.id.strict_eq(id))
        .map(|(i, _)| i)
        .collect();
    same.iter()
        .copied()
        .rfind(|&i| {
            let q = &s.requests[i];
            q.file == f.file && q.evidence == f.evidence
        })
        .or_else(|| (same.len() == 1).then(|| same[0]))
}

/// One session's spans in the making: what they all share.
struct SessionSpans<'a> {
    otlp: &'a Otlp<'a>,
    s: &'a SessionResult,
    /// The input's format (`har`, `sse`, `stdio`).
    format: &'a str,
    trace: String,
    /// The session span's id.
    root: String,
    /// The start of the session's window.
    start: Micros,
    /// The session's responses, where they were kept.
    replies: Option<&'a SessionReplies>,
    /// The attributes of [`Otlp::common_attrs`].
    common: Vec<Value>,
    /// Batches of the run's sessions before this one.
    batch_base: usize,
}

/// Which of a session's responses are already some request's, and how
/// many requests with an id each evidence range has given.
#[derive(Default)]
struct Matched {
    taken: HashMap<(Direction, Id), Vec<bool>>,
    seen_in: HashMap<(u32, u64, u32, String), usize>,
}

impl SessionSpans<'_> {
    /// The span of every request whose latency the capture bounds; the
    /// others, and their findings, go to `root_events` (the session
    /// span's); the findings of a request with no time to `on_session`.
    fn request_spans<'f>(
        &self,
        on_request: &mut OnRequest<'f>,
        on_session: &mut OnSession<'f>,
        root_events: &mut Vec<(Micros, Value)>,
        left: &mut Left,
    ) -> Vec<Value> {
        let mut spans = Vec::new();
        let mut matched = Matched::default();
        for (i, q) in self.s.requests.iter().enumerate() {
            let Some(ts) = q.ts else {
                left.untimed_requests += 1;
                for f in on_request.remove(&i).unwrap_or_default() {
                    on_session.push((self.start, f));
                }
                continue;
            };
            let ex = self.otlp.excerpt(q.file, q.evidence);
            let msg = self.request_msg(q, ex, &mut matched);
            let reply = self.reply(q, &mut matched, left);
            let reply_msg = reply.and_then(|r| {
                self.otlp
                    .excerpt(r.file, r.evidence)?
                    .msgs
                    .iter()
                    .find(|m| m.response && self.otlp.same_id(&m.id, &q.id))
            });
            let (name, mut attrs) = self.request_attrs(q, msg, ex);
            let status = self.status(q, reply, reply_msg, &mut attrs);
            self.audit_attrs(q, &mut attrs);
            let events: Vec<Value> = on_request
                .remove(&i)
                .unwrap_or_default()
                .into_iter()
                .map(|f| finding_event(ts, f))
                .collect();
            let Some(lat) = q.latency else {
                root_events.extend(unbounded(q, ts, attrs, events));
                continue;
            };
            let mut span = json!({
                "traceId": self.trace,
                "spanId": span_id(&self.trace, Some(i)),
                "parentSpanId": self.root,
                "name": name,
                "kind": 3,
                "startTimeUnixNano": nanos(ts),
                "endTimeUnixNano": nanos(ts + lat),
                "attributes": attrs,
                "events": events,
                "status": status,
            });
            self.propagate(&mut span, msg);
            spans.push(span);
        }
        spans
    }

    /// The request itself, found again in its evidence: the k-th request
    /// with its id there (a batch may repeat an id).
    fn request_msg<'e>(
        &self,
        q: &Req,
        ex: Option<&'e Excerpt>,
        matched: &mut Matched,
    ) -> Option<&'e Msg> {
        let k = matched
            .seen_in
            .entry((q.file, q.evidence.0, q.evidence.1, q.id.json_text()))
            .or_insert(0);
        let msg = ex.and_then(|e| {
            e.msgs
                .iter()
                .filter(|m| !m.response && self.otlp.same_id(&m.id, &q.id))
                .nth(*k)
        });
        *k += 1;
        msg
    }

    /// The request's response, where the capture kept one: the first not
    /// yet taken at the response's time, else the first not yet taken.
    fn reply(&self, q: &Req, matched: &mut Matched, left: &mut Left) -> Option<Reply> {
        if !q.answered {
            return None;
        }
        let Some(m) = self.replies else {
            // Only an error's message is then unknown.
            if q.error_code.is_some() {
                left.replies_unread += 1;
            }
            return None;
        };
        let v = m.get(&(q.direction, q.id.clone()))?;
        let used = matched
            .taken
            .entry((q.direction, q.id.clone()))
            .or_insert_with(|| vec![false; v.len()]);
        let j = (0..v.len())
            .find(|&j| !used[j] && q.response_ts.is_some() && v[j].ts == q.response_ts)
            .or_else(|| (0..v.len()).find(|&j| !used[j]))?;
        used[j] = true;
        Some(v[j])
    }

    /// A request span's name and its conventions' attributes: method, id,
    /// tool or prompt, resource, the session's common ones (a HAR entry's
    /// own HTTP version).
    fn request_attrs(
        &self,
        q: &Req,
        msg: Option<&Msg>,
        ex: Option<&Excerpt>,
    ) -> (String, Vec<Value>) {
        let method = q.method.as_deref();
        let mut attrs = Vec::new();
        let mut name = method.unwrap_or("(no method)").to_string();
        if let Some(m) = method {
            attrs.push(attr_s("mcp.method.name", m));
        }
        if let Some(id) = request_id(&q.id) {
            attrs.push(attr_s("jsonrpc.request.id", &id));
        }
        let target = msg
            .and_then(|m| m.name.as_deref())
            .map(|n| self.otlp.text(n));
        match (method, &target) {
            (Some("tools/call"), Some(t)) => {
                attrs.push(attr_s("gen_ai.tool.name", t));
                attrs.push(attr_s("gen_ai.operation.name", "execute_tool"));
                name = format!("tools/call {t}");
            }
            (Some("prompts/get"), Some(t)) => {
                attrs.push(attr_s("gen_ai.prompt.name", t));
                name = format!("prompts/get {t}");
            }
            _ => {}
        }
        if let (Some("resources/read" | "resources/subscribe" | "resources/unsubscribe"), Some(u)) =
            (method, msg.and_then(|m| m.uri.as_deref()))
        {
            attrs.push(attr_s("mcp.resource.uri", &self.otlp.text(u)));
        }
        attrs.extend(self.common.iter().cloned());
        if ex.is_some() && self.format == "har" {
            // The entry's own HTTP version, not the first one's.
            attrs.retain(|a| a["key"] != "network.protocol.version");
            if let Some(v) = ex.and_then(|e| e.http_version.as_deref())
                && !ex.is_some_and(|e| e.websocket)
            {
                attrs.push(attr_s("network.protocol.version", v));
            }
        }
        (name, attrs)
    }

    /// The span's status, and its error attributes pushed to `attrs`: a
    /// JSON-RPC error code (with the error's message where read again), or
    /// a tool's `isError`.
    fn status(
        &self,
        q: &Req,
        reply: Option<Reply>,
        reply_msg: Option<&Msg>,
        attrs: &mut Vec<Value>,
    ) -> Value {
        let code = reply
            .and_then(|r| r.code)
            .or(reply_msg.and_then(|m| m.error_code))
            .or(q.error_code.map(i64::from));
        let mut status = json!({});
        if let Some(c) = code {
            attrs.push(attr_s("rpc.response.status_code", &c.to_string()));
            attrs.push(attr_s("error.type", &c.to_string()));
            status = json!({"code": 2});
            if let Some(m) = reply_msg.and_then(|m| m.error_message.as_deref()) {
                status["message"] = json!(self.otlp.text(m));
            }
        } else if reply_msg.is_some_and(|m| m.is_error) || q.tool_error {
            attrs.push(attr_s("error.type", "tool_error"));
            status = json!({"code": 2});
        }
        status
    }

    /// mcp-audit's own attributes of a request: its pair status, batch
    /// (numbered over the run) and operation.
    fn audit_attrs(&self, q: &Req, attrs: &mut Vec<Value>) {
        attrs.push(attr_s("mcp_audit.pair.status", q.status().as_str()));
        if let Some((b, p)) = q.batch {
            let n = self.batch_base + b as usize + 1;
            attrs.push(attr_i(
                "mcp_audit.batch",
                i64::try_from(n).unwrap_or(i64::MAX),
            ));
            attrs.push(attr_i("mcp_audit.batch.position", i64::from(p)));
        }
        if let Some(o) = q.op.and_then(|o| self.s.operations.get(o as usize)) {
            // MRTR rounds, a task's polls, a listen (DESIGN.md rule 14).
            attrs.push(attr_s("mcp_audit.operation", &o.key()));
        }
    }

    /// A request that carries a W3C `traceparent` goes into that trace,
    /// its parent the span that sent it, linked to its session span.
    fn propagate(&self, span: &mut Value, msg: Option<&Msg>) {
        if let Some((t, p)) = msg
            .and_then(|m| m.traceparent.as_deref())
            .and_then(traceparent)
        {
            span["traceId"] = json!(t);
            span["parentSpanId"] = json!(p);
            span["links"] = json!([{"traceId": self.trace, "spanId": self.root,
                "attributes": [attr_s("mcp_audit.link", "session")]}]);
        }
    }

    /// The session span over the window `[start, end]`, with its events.
    fn root_span(&self, file: &str, end: Micros, root_events: Vec<(Micros, Value)>) -> Value {
        let mut root_attrs = vec![
            attr_s("mcp_audit.session", &self.s.name),
            attr_s("mcp_audit.input", file),
        ];
        root_attrs.extend(self.common.iter().cloned());
        json!({
            "traceId": self.trace,
            "spanId": self.root,
            "name": "mcp session",
            "kind": 1,
            "startTimeUnixNano": nanos(self.start),
            "endTimeUnixNano": nanos(end),
            "attributes": root_attrs,
            "events": root_events.into_iter().map(|(_, e)| e).collect::<Vec<_>>(),
            "status": {},
        })
    }
}

/// A request whose end the capture does not bound: an event of the
/// session span at its time saying why, then its findings' events.
fn unbounded(
    q: &Req,
    ts: Micros,
    mut attrs: Vec<Value>,
    events: Vec<Value>,
) -> Vec<(Micros, Value)> {
    let why = q.latency_unknown.unwrap_or(match q.status() {
        PairStatus::Missing => "no_response",
        PairStatus::Cancelled => "cancelled",
        PairStatus::Invalid => "invalid_id",
        _ => "unknown",
    });
    attrs.push(attr_s("mcp_audit.latency.unknown", why));
    let mut out = vec![(
        ts,
        json!({"timeUnixNano": nanos(ts), "name": "mcp_audit.request",
               "attributes": attrs}),
    )];
    out.extend(events.into_iter().map(|e| (ts, e)));
    out
}

/// A finding as a span event at `ts`.
fn finding_event(ts: Micros, f: &Finding) -> Value {
    let mut attrs = vec![
        attr_s("mcp_audit.finding.kind", f.kind.name()),
        attr_s("mcp_audit.finding.severity", f.severity().as_str()),
        attr_s("mcp_audit.finding.detail", &f.detail),
        attr_s("mcp_audit.finding.location", &f.location.describe()),
        attr_b("mcp_audit.finding.capture_gap", f.capture_gap()),
    ];
    if let FindingId::One(id) = &f.id
        && let Some(t) = request_id(id)
    {
        attrs.push(attr_s("jsonrpc.request.id", &t));
    }
    json!({"timeUnixNano": nanos(ts), "name": "mcp_audit.finding", "attributes": attrs})
}

/// Lines made by [`Otlp::lines`], rendered one JSON object a line.
pub struct Lines<'a>(pub &'a [Value]);

impl Render for Lines<'_> {
    fn render(
        &self,
        _report: &Report<'_>,
        out: &mut (dyn Write + Send),
        _opts: &RenderOptions<'_>,
    ) -> io::Result<()> {
        for line in self.0 {
            serde_json::to_writer(&mut *out, line)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl Render for Otlp<'_> {
    /// One `ExportTraceServiceRequest` per line.
    fn render(
        &self,
        report: &Report<'_>,
        out: &mut (dyn Write + Send),
        opts: &RenderOptions<'_>,
    ) -> io::Result<()> {
        Lines(&self.lines(report).0).render(report, out, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_hex_of_their_width_and_stable() {
        let t = trace_id("a.har", "s1");
        assert_eq!(t.len(), 32);
        assert_eq!(t, trace_id("a.har", "s1"));
        assert_ne!(t, trace_id("a.har", "s2"));
        // Parts are separated: ("ab", "c") is not ("a", "bc").
        assert_ne!(trace_id("ab", "c"), trace_id("a", "bc"));
        let s = span_id(&t, Some(0));
        assert_eq!(s.len(), 16);
        assert_ne!(s, span_id(&t, Some(1)));
        assert_ne!(s, span_id(&t, None));
        assert!(
            t.bytes()
                .chain(s.bytes())
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }

    #[test]
    fn traceparent_per_w3c() {
        let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(
            traceparent(tp),
            Some((
                "4bf92f3577b34da6a3ce929d0e0e4736".into(),
                "00f067aa0ba902b7".into()
            ))
        );
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "garbage",
        ] {
            assert_eq!(traceparent(bad), None, "{bad}");
        }
        // A later version may add fields.
        assert!(traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x").is_some());
    }

    #[test]
    fn excerpts_of_a_har_entry_and_a_log_line() {
        let entry = json!({
            "startedDateTime": "2026-01-01T00:00:00Z",
            "request": {"method": "POST", "httpVersion": "HTTP/1.1", "postData": {"text":
                r#"[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow_echo","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}},{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"users://a"}}]"#}},
            "response": {"content": {"mimeType": "text/event-stream", "text":
                "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r\",\"error\":{\"code\":-32602,\"message\":\"bad\"}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"isError\":true}}\n\n"}}
        })
        .to_string();
        let e = read_excerpt(&entry);
        assert_eq!(e.http_version.as_deref(), Some("1.1"));
        assert!(!e.websocket);
        assert_eq!(e.msgs.len(), 4);
        assert_eq!(e.msgs[0].id, Id::Int(4));
        assert_eq!(e.msgs[0].name.as_deref(), Some("slow_echo"));
        assert!(e.msgs[0].traceparent.is_some());
        assert_eq!(e.msgs[1].uri.as_deref(), Some("users://a"));
        assert!(e.msgs[2].response);
        assert_eq!(
            (e.msgs[2].error_code, e.msgs[2].error_message.as_deref()),
            (Some(-32602), Some("bad"))
        );
        assert!(e.msgs[3].is_error && e.msgs[3].response);
        let line = r#"2026-01-01 [info] Message from client: {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"greet"}} trailing"#;
        let e = read_excerpt(line);
        assert_eq!(e.msgs.len(), 1);
        let e = read_excerpt(&format!("[1] {line}"));
        assert_eq!(e.msgs.len(), 1, "[1] holds no message");
        assert_eq!(e.msgs[0].name.as_deref(), Some("greet"));
        let env = r#"{"ts":"x","dir":"send","message":{"jsonrpc":"2.0","id":"a","method":"ping"}}"#;
        assert_eq!(read_excerpt(env).msgs[0].id, Id::Str("a".into()));
        assert!(read_excerpt("no json here").msgs.is_empty());
        assert!(read_excerpt("{ cut off").msgs.is_empty());
    }

    #[test]
    fn nanos_are_decimal_strings() {
        assert_eq!(nanos(1_764_536_811_252_296), "1764536811252296000");
        assert_eq!(request_id(&Id::Null), None);
        assert_eq!(request_id(&Id::Str("a-11".into())).as_deref(), Some("a-11"));
        assert_eq!(request_id(&Id::Int(9)).as_deref(), Some("9"));
        assert_eq!(http_version("h2").as_deref(), Some("2"));
    }
}

//! One HAR entry → frames and error lines (the per-entry rules in the
//! module docs of [`super`]): the request body, the response body (a JSON
//! body, or the `message` events of an event stream), and WebSocket
//! messages ([`super::websocket`]), each carrying the exchange's
//! [`HttpContext`] and the entry's session ([`super::session`]).

use std::borrow::Cow;
use std::sync::Arc;

use base64::Engine as _;
use serde::de::IgnoredAny;

use super::model::{
    Content, Entry, EsMessage, Headers, Loose, Num, Param, PostData, Request, Response, Timings,
    header,
};
use super::session::Session;
use super::websocket;
use crate::diag::Diagnostic;
use crate::ingest::sse;
use crate::record::jsonrpc::{PayloadError, parse_payload};
use crate::record::time::parse_iso;
use crate::record::{
    Direction, Frame, HttpContext, Id, Kind, Location, Micros, Parsed, Payload, Problem,
    Provenance, Record, RequestHeaders, Split, SseEventId,
};

/// Longest entry duration taken as real (ms): one year. HAR 1.2 gives
/// `time` in ms (FORMATS.md §4); beyond this it is a broken export.
const MAX_ENTRY_MS: f64 = 365.0 * 24.0 * 3600.0 * 1000.0;

/// The line for an event-stream body repaired from windows-1252 mojibake
/// (FORMATS.md §4.1 "Browser mojibake"); [`super::collapse_mojibake`]
/// keeps one per input.
pub(super) const MOJIBAKE: &str = "event-stream body was decoded as windows-1252 by the recorder (no charset; UTF-8 text shows as mojibake such as \u{e2}\u{20ac}\u{201c}); repaired to UTF-8";

/// Reads entries, given as their exact JSON texts, into frames and error
/// lines.
pub(super) struct EntrySink<'t> {
    file: u32,
    name: &'t str,
    /// The frames and error lines read so far, in entry order.
    pub(super) parsed: Parsed,
    /// Index of the next entry of `log.entries`.
    next_entry: u64,
}

/// When an entry's exchange happened (DESIGN.md rule 4, FORMATS.md §4:
/// `time` = ms, sum of timings).
struct Times {
    /// `startedDateTime` and that plus the duration (0 when unknown).
    start: Micros,
    end: Micros,
    /// Timestamps of the request frame and of the response frames.
    request: Option<Micros>,
    response: Option<Micros>,
    /// When the response headers came: `start + time - receive` (`start`
    /// without a `receive` ≥ 0). DevTools stamps the records of events
    /// that came before it began following the stream at about the
    /// request's start, before the response headers (measured:
    /// tests/data/real4/browser README): such a time is no arrival time.
    headers: Micros,
    /// `receive` 0 (mitmproxy: no end of the response recorded) or
    /// negative: `time` closed at the response headers (FORMATS.md §4.2).
    closed_at_headers: bool,
    /// No `receive` and a `time` of 0 or none (Firefox: a stream still
    /// open at export, `timings` empty): the entry records no end at all
    /// (FORMATS.md §4.2).
    open_at_export: bool,
}

/// What an entry's request says beside its body (FORMATS.md §4): method,
/// URL, the body when kept as text, and the MCP headers.
struct RequestRead<'a> {
    /// Upper-cased, trimmed; empty when missing.
    method: String,
    url: &'a str,
    /// `postData.text` when it has no `encoding`.
    body_text: Option<&'a str>,
    protocol_header: Option<Box<str>>,
    headers: Option<Arc<RequestHeaders>>,
}

impl<'a> RequestRead<'a> {
    /// Reads `req`; `response` is the response's headers (an
    /// `Access-Control-Allow-Origin` answers the request's `Origin`).
    fn of(req: &'a Request<'a>, response: &Headers<'_>) -> Self {
        let method = req
            .method
            .0
            .as_deref()
            .unwrap_or("")
            .trim()
            .to_ascii_uppercase();
        let url = req.url.0.as_deref().unwrap_or("");
        let protocol_header = header(&req.headers, "mcp-protocol-version").map(Box::from);
        let body_text = req
            .post_data
            .0
            .as_ref()
            .filter(|pd| pd.encoding.0.is_none())
            .and_then(|pd| pd.text.0.as_deref());
        let headers = super::mcp_headers::read(&req.headers, response, url, body_text);
        RequestRead {
            method,
            url,
            body_text,
            protocol_header,
            headers,
        }
    }
}

/// The exchange's context shared by the frames of entry `i` (its
/// `position` 0, for the request body).
fn http_context(
    i: u64,
    rq: RequestRead<'_>,
    read: &ResponseRead,
    times: &Times,
    has_response: bool,
    session: &Session,
) -> HttpContext {
    HttpContext {
        entry: i,
        is_request_body: false,
        method: rq.method.as_str().into(),
        status: read.status,
        stream: read.stream,
        body_empty: read.body_empty,
        body_has_json: read.body_has_json,
        start: times.start,
        end: times.end,
        position: 0,
        protocol_header: rq.protocol_header,
        legacy: session.legacy,
        response_lost: read.lost || !has_response,
        time_unbounded: false,
        origin_keyed: session.origin_keyed,
        headers: rq.headers,
    }
}

/// What an entry's response says (FORMATS.md §4, §4.2; DESIGN.md rule 12).
struct ResponseRead {
    status: i64,
    /// A `text/event-stream` body.
    stream: bool,
    body_empty: bool,
    body_has_json: bool,
    /// The capture kept no response that may have come (see
    /// [`HttpContext::response_lost`]).
    lost: bool,
    frames: Vec<BodyFrame>,
}

/// What the frames of one entry share: its index, session key, place in
/// the document and HTTP exchange.
struct Shared<'s> {
    entry: u64,
    key: &'s Arc<str>,
    /// The entry's provenance (its location names no event).
    at: Provenance,
    /// The exchange's context, for the request body (`position` 0).
    http: HttpContext,
    /// The entry's `time` is no bound on its body's events
    /// ([`HttpContext::time_unbounded`]).
    unbounded: bool,
}

impl Shared<'_> {
    /// Provenance of a frame from event `event` of the entry (`None`: the
    /// entry itself).
    fn prov(&self, event: Option<u64>) -> Provenance {
        Provenance {
            location: Location::entry(self.entry, event),
            ..self.at
        }
    }

    /// The exchange's context for the request body, or for the response
    /// body's message at `position`.
    fn http(&self, is_request_body: bool, position: u32) -> HttpContext {
        HttpContext {
            is_request_body,
            position,
            ..self.http.clone()
        }
    }
}

/// One message of a response body.
struct BodyFrame {
    /// 1-based SSE event number; `None` for a JSON body.
    event: Option<u64>,
    payload: Payload,
    event_id: Option<SseEventId>,
    /// The event's own arrival time (DevTools' `_eventSourceMessages`),
    /// which wins over the entry's end (FORMATS.md §4.1 "DevTools").
    ts: Option<Micros>,
}

impl<'t> EntrySink<'t> {
    /// A sink for input `file` named `name` (the session key of last
    /// resort) whose next entry is `next_entry` of `log.entries`.
    pub(super) fn new(file: u32, name: &'t str, next_entry: u64) -> Self {
        EntrySink {
            file,
            name,
            parsed: Parsed::default(),
            next_entry,
        }
    }

    /// A problem at entry `i`.
    fn error(&mut self, i: u64, msg: impl Into<String>) {
        self.parsed.errors.push(Diagnostic::entry(i, msg));
    }

    /// A notice line for entry `i` (read as it should be; not a problem).
    fn notice(&mut self, i: u64, msg: impl Into<String>) {
        self.parsed.errors.push(Diagnostic::entry(i, msg).notice());
    }

    /// Reads one entry given as its exact JSON text, found at byte `offset`
    /// of the document. `Err` when the text is not valid JSON (serde_json's
    /// error inside `raw`): the document is broken there. An entry that is
    /// valid JSON but no entry object is an error line, and skipped.
    pub(super) fn entry(&mut self, raw: &str, offset: u64) -> Result<(), serde_json::Error> {
        let i = self.next_entry;
        self.next_entry += 1;
        let Some(e) = self.read(i, raw)? else {
            return Ok(());
        };
        let Entry {
            started,
            time,
            timings,
            request,
            response,
            ws,
            es,
        } = e;
        let Some(req) = self.request(i, request.0) else {
            return Ok(());
        };
        let times = self.times(i, started.0.as_deref(), time.0.as_ref(), timings.0.as_ref());
        let has_response = response.0.is_some();
        let resp = self.response(i, response.0);
        let rq = RequestRead::of(&req, &resp.headers);
        let mut session = Session::of(&req.headers, &resp.headers, rq.url, self.name);
        let es: Vec<EsMessage<'_>> = es.0.into_iter().flatten().filter_map(|m| m.0).collect();
        let mut read = self.read_response(i, &rq.method, resp, &es, times.headers, &mut session);
        if rq.method == "GET" && read.stream && session.legacy && !read.lost {
            self.parsed.linked_streams.push(session.key.clone());
        }
        if rq.method == "POST"
            && session.legacy
            && let Some(o) = super::session::origin(rq.url)
        {
            self.parsed
                .legacy_origins
                .push((session.key.clone(), o.into()));
        }
        // The request body once parsed here is handed to `request_frame`,
        // not parsed again (every 202 notification POST comes this way).
        let mut parsed_body = None;
        if !read.frames.iter().any(|f| carries_jsonrpc(&f.payload)) {
            match self.screen(i, &rq, has_response, &mut read) {
                Some(request) => parsed_body = request,
                None => return Ok(()),
            }
        }
        // Such a `time` still bounds a stream of one message event (priming
        // events aside): it came with the headers (mitmproxy keeps such a
        // body itself and records no end). A longer stream went on after.
        // An entry open at export bounds none of its events, not even one.
        let unbounded = read.stream
            && (times.open_at_export || times.closed_at_headers && read.frames.len() != 1);
        let shared = Shared {
            unbounded,
            entry: i,
            key: &session.key,
            at: Provenance {
                file: self.file,
                location: Location::entry(i, None),
                offset,
                len: u32::try_from(raw.len()).unwrap_or(u32::MAX),
            },
            http: http_context(i, rq, &read, &times, has_response, &session),
        };
        if &*shared.http.method == "POST" {
            match req.post_data.0 {
                Some(pd) => self.request_frame(pd, parsed_body, times.request, &shared),
                None => self.no_post_data(times.request, &shared),
            }
        }
        self.response_frames(read.frames, times.response, has_response, &shared);
        for notice in websocket::push_frames(&mut self.parsed.records, i, ws, shared.key, shared.at)
        {
            self.error(i, notice);
        }
        Ok(())
    }

    /// The entry's request object; `None` with an error line when there
    /// is none, or it has neither method nor URL.
    fn request<'a>(&mut self, i: u64, request: Option<Request<'a>>) -> Option<Request<'a>> {
        let Some(req) = request else {
            self.error(i, "no `request` object; skipped");
            return None;
        };
        if req.method.0.is_none() && req.url.0.is_none() {
            // serde reads a struct from an array too: `"request": [1, 2]`.
            self.error(
                i,
                "`request` has no method and no URL (not a request object); skipped",
            );
            return None;
        }
        Some(req)
    }

    /// When no response frame is JSON-RPC: is the entry MCP traffic at
    /// all? `None` (with an error line) when neither side is JSON-RPC;
    /// else the request body when it was read here. A JSON-RPC request
    /// refused before JSON-RPC loses its response frames (an error line).
    fn screen(
        &mut self,
        i: u64,
        rq: &RequestRead<'_>,
        has_response: bool,
        read: &mut ResponseRead,
    ) -> Option<Option<Payload>> {
        // Neither side JSON-RPC (OAuth metadata and token endpoints,
        // health checks, other APIs beside the MCP endpoint): not MCP
        // traffic. Only asked when no response frame is JSON-RPC.
        let method = rq.method.as_str();
        let request = match (method, rq.body_text) {
            ("POST", Some(t)) if !t.trim().is_empty() => Some(read_payload(t).0),
            _ => None,
        };
        let request_rpc = request.as_ref().is_some_and(carries_jsonrpc);
        // A lost response may have been JSON-RPC (a parse error
        // answering a broken body): then the body is judged as usual.
        let kept = has_response && !read.lost;
        let posted_other = kept && request.is_some() && !request_rpc;
        let got_other = !read.frames.is_empty();
        let fetched_other = got_other && request.is_none() && method != "POST" && !read.stream;
        if posted_other || fetched_other {
            self.notice(
                i,
                format!(
                    "{method} {}: neither body is a JSON-RPC message (no `jsonrpc`, `method` or `id`): not MCP traffic, skipped",
                    crate::report::sanitize::escape_controls(&short_url(rq.url))
                ),
            );
            return None;
        }
        if got_other && request_rpc {
            // A JSON-RPC request refused before JSON-RPC (an OAuth
            // challenge, a 403): the body is no answer to it.
            self.error(
                i,
                format!(
                    "the response (status {}) is no JSON-RPC message: the request was refused at the HTTP layer; its body is not read as messages",
                    read.status
                ),
            );
            read.frames.clear();
            read.body_has_json = false;
        }
        Some(request)
    }

    /// The entry `raw` read leniently (the skim, else serde_json); `None`
    /// with an error line when it is valid JSON but no entry object, `Err`
    /// when it is not valid JSON at all.
    fn read<'a>(&mut self, i: u64, raw: &'a str) -> Result<Option<Entry<'a>>, serde_json::Error> {
        match Entry::skim(raw).map_or_else(|| serde_json::from_str(raw), Ok) {
            Ok(e) => Ok(Some(e)),
            Err(err) => {
                // Not valid JSON at all, or only not an entry (the same
                // check a whole-document parse makes first).
                serde_json::from_str::<IgnoredAny>(raw)?;
                self.error(i, format!("not a HAR entry object ({err}); skipped"));
                Ok(None)
            }
        }
    }

    /// The entry's times: `startedDateTime`, the end after the duration
    /// ([`EntrySink::duration_ms`]), and when the response headers came.
    fn times(
        &mut self,
        i: u64,
        started: Option<&str>,
        time: Option<&Num>,
        timings: Option<&Timings>,
    ) -> Times {
        let start = started.and_then(parse_iso);
        if start.is_none() {
            self.error(
                i,
                "`startedDateTime` missing or not a timestamp; its frames have no time",
            );
        }
        let dur_ms = self.duration_ms(i, time, timings);
        let dur_us = dur_ms.map_or(0, |ms| (ms * 1000.0).round() as Micros);
        let (start_us, end_us) = match start {
            Some(s) => (s, s.saturating_add(dur_us)),
            None => (0, 0),
        };
        let receive = timings
            .and_then(|t| t.receive.0.as_ref())
            .and_then(Num::finite);
        let headers = match receive.filter(|r| *r >= 0.0) {
            Some(r) => end_us - (r * 1000.0).round() as Micros,
            None => start_us,
        };
        Times {
            start: start_us,
            end: end_us,
            request: start,
            response: start.map(|_| end_us),
            headers,
            closed_at_headers: receive.is_some_and(|r| r <= 0.0),
            open_at_export: receive.is_none()
                && time.and_then(Num::finite).is_none_or(|t| t <= 0.0),
        }
    }

    /// The entry's duration in ms: `time`, or the sum of `timings` when it
    /// is missing or out of range. A duration outside 0 ..= one year is a
    /// broken export, not a latency: said in one line.
    fn duration_ms(
        &mut self,
        i: u64,
        time: Option<&Num>,
        timings: Option<&Timings>,
    ) -> Option<f64> {
        let in_range = |t: &f64| (0.0..=MAX_ENTRY_MS).contains(t);
        let stated = time.and_then(Num::finite);
        if let Some(t) = stated.filter(|t| !in_range(t) && *t != -1.0) {
            let shown = if t.abs() < 1e12 {
                format!("{t}")
            } else {
                format!("{t:e}")
            };
            self.error(
                i,
                format!("`time` {shown} ms is out of range (0 to one year); its duration is taken from `timings`"),
            );
        }
        stated.filter(in_range).or_else(|| {
            let t = timings?;
            let parts = [&t.blocked, &t.dns, &t.connect, &t.send, &t.wait, &t.receive];
            let sum: f64 = parts
                .iter()
                .filter_map(|p| p.0.as_ref()?.finite())
                .filter(in_range)
                .sum();
            Some(sum).filter(in_range)
        })
    }

    /// The entry's response, an empty one (status 0) when there is none;
    /// a missing response or status is an error line.
    fn response<'a>(&mut self, i: u64, response: Option<Response<'a>>) -> Response<'a> {
        let has_response = response.is_some();
        if !has_response {
            self.error(
                i,
                "no response object (the capture did not keep it); the answers to its requests are unknown",
            );
        }
        let resp = response.unwrap_or_default();
        if has_response && resp.status.0.as_ref().and_then(Num::finite).is_none() {
            self.error(
                i,
                "response status missing or not a number; read as 0 (no response)",
            );
        }
        resp
    }

    /// Reads the response: status, media type (`mimeType`, else the
    /// `Content-Type` header), body and the frames in it; a legacy
    /// `endpoint` event moves `session`.
    fn read_response(
        &mut self,
        i: u64,
        method: &str,
        resp: Response<'_>,
        es: &[EsMessage<'_>],
        floor: Micros,
        session: &mut Session,
    ) -> ResponseRead {
        let status = resp
            .status
            .0
            .as_ref()
            .and_then(Num::finite)
            .map_or(0, |s| s as i64);
        let aborted = resp
            .error
            .0
            .as_deref()
            .is_some_and(|e| !e.trim().is_empty());
        let content = resp.content.0.unwrap_or_default();
        let mut mt = content
            .mime_type
            .0
            .as_deref()
            .map(media_type)
            .unwrap_or_default();
        if (mt.is_empty() || mt == "x-unknown")
            && let Some(ct) = header(&resp.headers, "content-type")
        {
            mt = media_type(ct);
        }
        let stream = mt == "text/event-stream";
        // Chromium decodes an event stream without a charset as
        // windows-1252 (FORMATS.md §4.1 "Browser recorders").
        let no_charset = !content
            .mime_type
            .0
            .as_deref()
            .is_some_and(|m| m.to_ascii_lowercase().contains("charset"));
        let es = if stream { es } else { &[] };
        let (body, body_empty, lost) = self.response_body(i, status, method, content, es);
        // Records without text and without a network error: the stream was
        // still open at export, so what came after is not in the capture.
        let lost = lost || (body.is_none() && !es.is_empty() && !aborted);
        let mut body = body;
        let mut repaired = false;
        if stream
            && no_charset
            && let Some(b) = body.as_deref()
            && let Some(fixed) = undo_windows_1252(b)
        {
            body = Some(Cow::Owned(fixed));
            repaired = true;
        }
        let (frames, body_has_json) = body_frames(body.as_deref(), stream, &mt, es, floor, session);
        if repaired {
            self.notice(i, MOJIBAKE);
        }
        ResponseRead {
            status,
            stream,
            body_empty,
            body_has_json,
            lost,
            frames,
        }
    }

    /// The response body's text (base64 decoded) and whether it is empty.
    /// Status 0: nothing arrived, the POST's requests stay unanswered. A
    /// body not captured or not valid base64 is an error line, unless it
    /// is one HTTP never has ([`bodiless`]).
    fn response_body<'a>(
        &mut self,
        i: u64,
        status: i64,
        method: &str,
        content: Content<'a>,
        es: &[EsMessage<'_>],
    ) -> (Option<Cow<'a, str>>, bool, bool) {
        if status == 0 {
            return (None, true, false);
        }
        let Content { text, encoding, .. } = content;
        match text.0 {
            // DevTools keeps the events of a stream still open at export
            // only in `_eventSourceMessages` (FORMATS.md §4.1).
            None if !es.is_empty() && es.iter().all(|m| m.data.0.is_some()) => (None, false, false),
            None if !es.is_empty() => {
                let n = es.iter().filter(|m| m.data.0.is_none()).count();
                self.error(
                    i,
                    format!("response body not captured (status {status}): {n} of its {} `_eventSourceMessages` events have no data (a sanitized DevTools export)", es.len()),
                );
                (None, true, true)
            }
            None if bodiless(status, method) => (None, true, false),
            None => {
                self.error(i, format!("response body not captured (status {status})"));
                (None, true, true)
            }
            Some(t) if is_base64(encoding.0.as_deref()) => match decode_base64(&t) {
                Ok(s) => {
                    let empty = s.is_empty();
                    (Some(Cow::Owned(s)), empty, false)
                }
                Err(err) => {
                    self.error(
                        i,
                        format!("response body is not valid base64 ({err}); not read"),
                    );
                    (None, t.is_empty(), !t.is_empty())
                }
            },
            Some(t) => {
                let empty = t.is_empty();
                (Some(t.0), empty, false)
            }
        }
    }

    /// The request body's frame (FORMATS.md §2.3: one message or an array
    /// per POST), when the body was captured, decodes and is not blank.
    /// `parsed` is the body already read from `postData.text` (no
    /// `encoding`, not blank), when the caller had to read it.
    fn request_frame(
        &mut self,
        pd: PostData<'_>,
        parsed: Option<Payload>,
        ts: Option<Micros>,
        shared: &Shared<'_>,
    ) {
        let i = shared.entry;
        if let Some(payload) = parsed {
            self.request_body(payload, ts, shared);
            return;
        }
        if pd.text.0.is_none()
            && let Some(params) = pd.params.0.as_deref()
        {
            match rebuild_params(params) {
                Ok(text) => {
                    let (payload, _) = read_payload(&text);
                    self.request_body(payload, ts, shared);
                }
                Err(_) if params.is_empty() => {
                    // No text and no params: a recorder that kept no body
                    // (mitmproxy with `stream_large_bodies`), or chrome-har's
                    // `[]`, `{}` or number.
                    self.error(
                        i,
                        "POST body not captured (postData has no text and its `params` is empty: a recorder that keeps no bodies writes this, and chrome-har does for a body `[]`, `{}` or a number); its messages are unknown (a capture gap)",
                    );
                    self.lost_request(ts, shared);
                }
                Err(why) => {
                    self.error(
                        i,
                        format!("POST body kept only as `postData.params` (chrome-har), which does not give its JSON back exactly: {why}; its messages are unknown (a capture gap)"),
                    );
                    self.lost_request(ts, shared);
                }
            }
            return;
        }
        if pd.text.0.is_none() {
            self.error(
                i,
                "POST body not captured (postData has no text); its messages are unknown",
            );
            self.lost_request(ts, shared);
            return;
        }
        let text = match (pd.text.0, pd.encoding.0.as_deref()) {
            (Some(t), Some(enc)) if enc.eq_ignore_ascii_case("base64") => match decode_base64(&t) {
                Ok(s) => Some(Cow::Owned(s)),
                Err(err) => {
                    self.error(
                        i,
                        format!("request body is not valid base64 ({err}); not read"),
                    );
                    None
                }
            },
            (t, _) => t.map(|t| t.0),
        };
        let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
            return;
        };
        let (payload, _) = read_payload(&text);
        self.request_body(payload, ts, shared);
    }

    /// The request body's one frame, client→server, at the entry's start.
    fn request_body(&mut self, payload: Payload, ts: Option<Micros>, shared: &Shared<'_>) {
        self.parsed.records.push(Record::Frame(Frame {
            key: shared.key.clone(),
            split: Split::Never,
            direction: Some(Direction::C2s),
            ts,
            stated_latency: None,
            event_id: None,
            prov: shared.prov(None),
            payload,
            http: Some(shared.http(true, 0)),
        }));
    }

    /// A POST entry without `postData`: its body was not captured.
    fn no_post_data(&mut self, ts: Option<Micros>, shared: &Shared<'_>) {
        self.error(
            shared.entry,
            "POST without `postData` (its body was not captured); its messages are unknown",
        );
        self.lost_request(ts, shared);
    }

    /// A request body the capture did not keep: a frame with no messages
    /// ([`Payload::Lost`]), so the analysis knows an answer may have no
    /// request in the capture.
    fn lost_request(&mut self, ts: Option<Micros>, shared: &Shared<'_>) {
        self.request_body(Payload::Lost, ts, shared);
    }

    /// The response body's frames, in body order (`position`), then the
    /// marker of a response the capture did not keep (`has_response`: the
    /// entry has a response object).
    fn response_frames(
        &mut self,
        frames: Vec<BodyFrame>,
        ts: Option<Micros>,
        has_response: bool,
        shared: &Shared<'_>,
    ) {
        let n = frames.len();
        for (pos, f) in frames.into_iter().enumerate() {
            self.parsed.records.push(Record::Frame(Frame {
                key: shared.key.clone(),
                split: Split::Never,
                direction: Some(Direction::S2c),
                // A record time is at most the entry's end (DevTools' `time`
                // bounds the body; records run up to 2 ms past it).
                ts: match (f.ts, ts) {
                    (Some(a), Some(end)) => Some(a.min(end)),
                    (a, end) => a.or(end),
                },
                stated_latency: None,
                event_id: f.event_id,
                prov: shared.prov(f.event),
                payload: f.payload,
                http: Some(HttpContext {
                    time_unbounded: shared.unbounded && f.ts.is_none(),
                    ..shared.http(false, u32::try_from(pos).unwrap_or(u32::MAX))
                }),
            }));
        }
        if shared.http.response_lost && has_response {
            // What the body held is unknown: a marker, so that the analysis
            // knows a server request may have been in it (DESIGN.md rule 12).
            // Placed at the entry's start: a lost message may have come at
            // any time after it (an open GET stream spans the whole session,
            // and answers to its server requests come before its end).
            self.parsed.records.push(Record::Frame(Frame {
                key: shared.key.clone(),
                split: Split::Never,
                direction: Some(Direction::S2c),
                ts: ts.map(|_| shared.http.start),
                stated_latency: None,
                event_id: None,
                prov: shared.prov(None),
                payload: Payload::Lost,
                http: Some(shared.http(false, u32::try_from(n).unwrap_or(u32::MAX))),
            }));
        }
    }
}

/// The messages of a response body and whether any of it was JSON: each `message` event
/// with data of an event stream (FORMATS.md §5), or a JSON body whole;
/// other bodies (`text/plain` `Accepted`) are not traffic.
///
/// `es` is DevTools' per-event record of the stream (FORMATS.md §4.1
/// "DevTools"): when the body has text, each event is matched (in order, by
/// event id and data) to its record and takes its arrival time, so the
/// events are counted once; when it has none (a stream still open at
/// export), the records are the events. A record time before `floor` (the
/// response headers' arrival) is no arrival time: that event keeps the
/// entry's end.
fn body_frames(
    body: Option<&str>,
    stream: bool,
    mt: &str,
    es: &[EsMessage<'_>],
    floor: Micros,
    session: &mut Session,
) -> (Vec<BodyFrame>, bool) {
    if let Some(body) = body
        && !stream
    {
        return json_body_frame(body, mt);
    }
    let records = es_records(es, floor);
    let mut out = StreamFrames::default();
    match body {
        Some(body) => {
            let mut next = 0;
            for (n, ev) in sse::events(body).into_iter().enumerate() {
                let found = records[next.min(records.len())..]
                    .iter()
                    .position(|r| r.id == ev.last_event_id && (!r.has_data || r.data == ev.data));
                let ts = found.and_then(|k| {
                    next += k + 1;
                    records[next - 1].ts
                });
                out.push(n, &ev.event_type, &ev.last_event_id, &ev.data, ts, session);
            }
        }
        None => {
            for (n, r) in records.iter().enumerate() {
                out.push(n, r.name, r.id, r.data, r.ts, session);
            }
        }
    }
    out.fill_times();
    (out.frames, out.body_has_json)
}

/// A body that is no event stream: one frame when it is JSON by its media
/// type and not blank, else none (and no JSON).
fn json_body_frame(body: &str, mt: &str) -> (Vec<BodyFrame>, bool) {
    let mut frames = Vec::new();
    if is_json_type(mt) && !body.trim().is_empty() {
        let (payload, json) = read_payload(body);
        frames.push(BodyFrame {
            event: None,
            payload,
            event_id: None,
            ts: None,
        });
        return (frames, json);
    }
    (frames, false)
}

/// DevTools' records of a stream's events, each with its arrival time
/// when that is at or after `floor`. The records' data is decoded as
/// UTF-8 by DevTools (measured: tests/data/real4/browser), so it is never
/// mojibake.
fn es_records<'a>(es: &'a [EsMessage<'_>], floor: Micros) -> Vec<EsRecord<'a>> {
    es.iter()
        .map(|m| EsRecord {
            has_data: m.data.0.is_some(),
            name: m.event_name.0.as_deref().unwrap_or("message"),
            id: m.event_id.0.as_deref().unwrap_or(""),
            data: m.data.0.as_deref().unwrap_or(""),
            ts: m
                .time
                .0
                .as_ref()
                .and_then(Num::finite)
                .and_then(epoch_s_to_us)
                .filter(|t| *t >= floor),
        })
        .collect()
}

/// The frames of an event stream, in event order, and whether any event's
/// data was JSON.
#[derive(Default)]
struct StreamFrames {
    frames: Vec<BodyFrame>,
    body_has_json: bool,
}

impl StreamFrames {
    /// Event `n` (0-based) named `name`: a `message` with data is a frame;
    /// a legacy `endpoint` event moves `session` (FORMATS.md §2.2;
    /// DESIGN.md rule 1); others are no traffic.
    #[inline]
    fn push(
        &mut self,
        n: usize,
        name: &str,
        id: &str,
        data: &str,
        ts: Option<Micros>,
        session: &mut Session,
    ) {
        if name == "endpoint" {
            session.endpoint(data);
            return;
        }
        if name != "message" || data.is_empty() {
            return;
        }
        let (payload, json) = read_payload(data);
        self.body_has_json |= json;
        self.frames.push(BodyFrame {
            event: Some(n as u64 + 1),
            payload,
            event_id: SseEventId::new(id, data),
            ts,
        });
    }

    /// An event without a time of its own came before the next one that
    /// has one: it takes that time (an upper bound that keeps body order).
    fn fill_times(&mut self) {
        let mut next = None;
        for f in self.frames.iter_mut().rev() {
            match f.ts {
                Some(t) => next = Some(t),
                None => f.ts = next,
            }
        }
    }
}

/// The JSON body chrome-har turned into `postData.params` (FORMATS.md §4.1
/// "chrome-har"), rebuilt as text. chrome-har 1.3.1 `JSON.parse`s an
/// `application/json` body and writes one `{name, value}` pair per
/// top-level key of an object or index of an array (`Object.keys` order),
/// with the value as JSON, except that a member whose value is an array
/// gives one pair per element, under the same name.
///
/// So: names `"0"`, `"1"`, … in order, each an object → that array (a
/// batch); otherwise an object, where a name repeated in a row is an
/// array of its values and a lone array value is an array holding it. A
/// lone non-array value is read as itself (MCP's members are never
/// one-element arrays). `Err` (why, in words) where the body is not given
/// back: no pairs at all (what chrome-har writes for `[]`, `{}` and a
/// number), a pair without a name or value, an array member that is no
/// object, a name repeated apart.
pub(super) fn rebuild_params(params: &[Loose<Param<'_>>]) -> Result<String, &'static str> {
    let mut pairs: Vec<(&str, &str)> = Vec::with_capacity(params.len());
    for p in params {
        let (Some(name), Some(value)) = (
            p.0.as_ref().and_then(|p| p.name.0.as_deref()),
            p.0.as_ref().and_then(|p| p.value.0).map(|v| v.get()),
        ) else {
            return Err("a pair without a name or a JSON value");
        };
        pairs.push((name, value));
    }
    if pairs.is_empty() {
        return Err(
            "`params` is empty, which chrome-har writes for `[]`, for `{}` and for a body that is a number",
        );
    }
    let is_index = |(k, (name, _)): (usize, &(&str, &str))| *name == k.to_string();
    if pairs.iter().enumerate().all(is_index) {
        if pairs.iter().any(|(_, v)| !v.trim_start().starts_with('{')) {
            return Err("an array whose members are not all objects");
        }
        let members: Vec<&str> = pairs.iter().map(|(_, v)| *v).collect();
        return Ok(format!("[{}]", members.join(",")));
    }
    // Runs of one name, in order.
    let mut runs: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, value) in pairs {
        match runs.last_mut() {
            Some((n, vs)) if *n == name => vs.push(value),
            _ => {
                if runs.iter().any(|(n, _)| *n == name) {
                    return Err("a name repeated apart (no JSON object gives that)");
                }
                runs.push((name, vec![value]));
            }
        }
    }
    let mut out = String::from("{");
    for (k, (name, values)) in runs.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(name).unwrap_or_default());
        out.push(':');
        let lone_array = values.len() == 1 && values[0].trim_start().starts_with('[');
        if values.len() > 1 || lone_array {
            out.push('[');
            out.push_str(&values.join(","));
            out.push(']');
        } else {
            out.push_str(values[0]);
        }
    }
    out.push('}');
    Ok(out)
}

/// One `_eventSourceMessages` record, read.
struct EsRecord<'a> {
    /// The sanitized export drops `data`: such a record is matched to its
    /// event by event id and order only.
    has_data: bool,
    name: &'a str,
    id: &'a str,
    data: &'a str,
    ts: Option<Micros>,
}

/// Epoch seconds (DevTools' `_eventSourceMessages[].time`) as µs.
fn epoch_s_to_us(s: f64) -> Option<Micros> {
    let us = (s * 1e6).round();
    (0.0..9.0e18).contains(&us).then_some(us as Micros)
}

/// Undoes windows-1252 mojibake (FORMATS.md §4.1 "Browser recorders"):
/// UTF-8 bytes a recorder decoded as WHATWG windows-1252 (or Latin-1, as
/// mitmproxy does) are turned back into those bytes and decoded as UTF-8.
/// `None` unless the repair is exact: the text holds non-ASCII, every
/// character is one byte of that table, and the bytes are valid UTF-8.
pub(super) fn undo_windows_1252(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len());
    for c in text.chars() {
        let b = match u32::from(c) {
            u @ 0..=0xFF => u as u8,
            _ => WINDOWS_1252_HIGH
                .iter()
                .position(|&h| h == c)
                .map(|k| 0x80 + k as u8)?,
        };
        bytes.push(b);
    }
    String::from_utf8(bytes).ok()
}

/// WHATWG windows-1252 bytes 0x80..=0x9F (the five unassigned ones decode
/// to the C1 control of the same number, covered by the Latin-1 range).
const WINDOWS_1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// Whether a body's `encoding` is base64.
/// A response that carries no body by HTTP's rules or MCP's: `101`
/// (a WebSocket upgrade), `202 Accepted` (MCP's answer to notifications
/// and responses), `204`, `304`, and the answers to `DELETE`, `OPTIONS`
/// (a CORS preflight) and `HEAD`. A recorder that kept no text for one of
/// these lost nothing.
fn bodiless(status: i64, method: &str) -> bool {
    matches!(status, 101 | 202 | 204 | 304) || matches!(method, "DELETE" | "OPTIONS" | "HEAD")
}

fn is_base64(encoding: Option<&str>) -> bool {
    encoding.is_some_and(|x| x.eq_ignore_ascii_case("base64"))
}

/// Media type without parameters, lower-cased (FORMATS.md §4.2: `mimeType`
/// may carry `; charset=…`).
fn media_type(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Decodes base64 content (FORMATS.md §4: `encoding: "base64"` → decode
/// first); bytes that are not UTF-8 become U+FFFD (FORMATS.md §5 step 1).
fn decode_base64(text: &str) -> Result<String, base64::DecodeError> {
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT
        .decode(&compact)
        .or_else(|e| {
            base64::engine::general_purpose::URL_SAFE_PAD_INDIFFERENT
                .decode(&compact)
                .map_err(|_| e)
        })?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Whether a body's payload is JSON-RPC at all: an object with a
/// `method` or an `id` member or `"jsonrpc": "2.0"`, or an array (a batch,
/// possibly malformed). An OAuth error (`{"error": "invalid_token"}`),
/// `{"status": "ok"}` or a form body is not.
fn carries_jsonrpc(p: &Payload) -> bool {
    match p {
        Payload::Single(m) => {
            m.kind != Kind::Response
                || !matches!(m.id, Id::Absent)
                || !m
                    .problems
                    .iter()
                    .any(|x| matches!(x, Problem::BadJsonrpcVersion))
        }
        Payload::Batch(_) | Payload::Lost => true,
        Payload::NonJson | Payload::Unparseable => false,
    }
}

/// A URL for a problem line: scheme, host and path, no query (it may hold
/// tokens), at most 120 characters.
fn short_url(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    url[..cut].chars().take(120).collect()
}

/// A payload and whether the text was JSON at all (a JSON scalar is JSON
/// but no message: [`Payload::Unparseable`]).
pub(super) fn read_payload(text: &str) -> (Payload, bool) {
    match parse_payload(text) {
        Ok(p) => (p, true),
        Err(PayloadError::NotContainer(_)) => (Payload::Unparseable, true),
        Err(PayloadError::Syntax(_)) => (Payload::Unparseable, false),
    }
}

/// Whether a media type is JSON (`application/json`, `…+json`).
fn is_json_type(mt: &str) -> bool {
    mt == "application/json" || mt.ends_with("+json")
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;

    use super::super::testutil::{entry, frames, har, run};
    use crate::diag::Diagnostic;
    use crate::record::time::parse_iso;
    use crate::record::{
        Direction, Frame, HttpContext, Kind, Location, Payload, Provenance, Record, Split,
    };

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#;

    #[test]
    fn post_json_and_sse_bodies() {
        let sse_body = "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r\n\r\nid: 2\r\ndata: \r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{}}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"res";
        let t = har(&[
            entry(
                "2025-01-01T12:00:00.000Z",
                "12.5",
                "",
                Some(INIT),
                200,
                r#"{"name":"mcp-session-id","value":"S-1"},{"name":"Content-Type","value":"application/json"}"#,
                &format!("{{\"mimeType\":\"application/json; charset=utf-8\",\"text\":{}}}", serde_json::to_string(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"s","version":"1"}}}"#).unwrap()),
            ),
            entry(
                "2025-01-01T14:00:01.000+02:00",
                "\"3\"",
                r#"{"name":"Mcp-Session-Id","value":"S-1"},{"name":"mcp-protocol-version","value":"2025-03-26"}"#,
                Some(r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"n"}]"#),
                200,
                "",
                &format!("{{\"mimeType\":\"Text/Event-Stream\",\"text\":{}}}", serde_json::to_string(sse_body).unwrap()),
            ),
        ]);
        let p = run(&t);
        assert_eq!((p.format, p.dialect), ("har", "webinspector"));
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let f = frames(&p);
        assert_eq!(f.len(), 5);
        // Entry 0: initialize POST keyed by the response's session id.
        assert!(
            f.iter()
                .all(|f| &*f.key == "S-1" && f.split == Split::Never)
        );
        let z = parse_iso("2025-01-01T12:00:00.000Z").unwrap();
        assert_eq!(
            (f[0].direction, f[0].ts, f[0].prov.location),
            (Some(Direction::C2s), Some(z), Location::entry(0, None))
        );
        assert_eq!(
            (f[1].direction, f[1].ts),
            (Some(Direction::S2c), Some(z + 12_500))
        );
        assert!(
            matches!(&f[1].payload, Payload::Single(m) if m.negotiated() == Some("2025-03-26"))
        );
        let h = f[0].http.as_ref().unwrap();
        assert_eq!(
            (
                h.entry,
                h.is_request_body,
                &*h.method,
                h.status,
                h.stream,
                h.body_empty,
                h.body_has_json
            ),
            (0, true, "POST", 200, false, false, true)
        );
        assert_eq!(
            (h.start, h.end, h.position, h.protocol_header.as_deref()),
            (z, z + 12_500, 0, None)
        );
        // Entry 1: batch POST, SSE body with CRLF, a priming event (event 2)
        // and a cut last event.
        assert!(matches!(&f[2].payload, Payload::Batch(m) if m.len() == 2));
        assert_eq!(
            f[2].http.as_ref().unwrap().protocol_header.as_deref(),
            Some("2025-03-26")
        );
        assert_eq!(f[3].prov.location, Location::entry(1, Some(1)));
        assert!(matches!(&f[3].payload, Payload::Single(m) if m.kind == Kind::Notification));
        assert_eq!(f[4].prov.location, Location::entry(1, Some(3)));
        assert!(
            matches!(&f[4].payload, Payload::Single(m) if m.kind == Kind::Response && m.problems.is_empty())
        );
        let h4 = f[4].http.as_ref().unwrap();
        assert_eq!(
            (
                h4.stream,
                h4.position,
                h4.is_request_body,
                h4.end - h4.start
            ),
            (true, 1, false, 3_000)
        );
        assert_eq!(f[4].ts, Some(z + 1_003_000));
        // Offsets point at the entry.
        assert!(t[f[2].prov.offset as usize..].starts_with("{\"startedDateTime\":\"2025-01-01T14"));
        assert_eq!(
            f[2].prov.len as usize,
            t[f[2].prov.offset as usize..].find("\n]}}").unwrap()
        );
    }

    #[test]
    fn base64_bodies() {
        let b64 = base64::engine::general_purpose::STANDARD
            .encode("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"t\":\"\u{2013}\"}}\n\n");
        let t = har(&[
            entry(
                "2025-01-01T12:00:00Z",
                "1",
                "",
                Some(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
                200,
                "",
                &format!(
                    r#"{{"mimeType":"text/event-stream","encoding":"base64","text":"{b64}"}}"#
                ),
            ),
            entry(
                "2025-01-01T12:00:01Z",
                "1",
                "",
                Some(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#),
                200,
                "",
                r#"{"mimeType":"application/json","encoding":"base64","text":"!!not base64!!"}"#,
            ),
        ]);
        let p = run(&t);
        let f = frames(&p);
        // Entry 1's body is not read: a marker for it follows its request.
        assert_eq!(f.len(), 4);
        assert_eq!(
            (&f[3].payload, f[3].direction),
            (&Payload::Lost, Some(Direction::S2c))
        );
        assert!(matches!(&f[1].payload, Payload::Single(m) if m.kind == Kind::Response));
        assert_eq!(f[1].prov.location, Location::entry(0, Some(1)));
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("entry 1: response body is not valid base64"),
            "{:?}",
            p.errors
        );
        let h = f[2].http.as_ref().unwrap();
        assert_eq!((h.entry, h.body_has_json), (1, false));
    }

    #[test]
    fn empty_202_status_0_and_uncaptured_body() {
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
        let t = har(&[
            entry(
                "2025-01-01T12:00:00Z",
                "2",
                "",
                Some(note),
                202,
                "",
                r#"{"size":0,"mimeType":"x-unknown","text":""}"#,
            ),
            entry("2025-01-01T12:00:01Z", "2", "", Some(ping), 0, "", "{}"),
            entry(
                "2025-01-01T12:00:02Z",
                "2",
                "",
                Some(ping),
                200,
                "",
                r#"{"size":10,"mimeType":"text/event-stream"}"#,
            ),
            entry(
                "2025-01-01T12:00:03Z",
                "2",
                "",
                Some(ping),
                202,
                "",
                r#"{"mimeType":"text/plain","text":"Accepted"}"#,
            ),
        ]);
        let p = run(&t);
        let all = frames(&p);
        // The request bodies, and a marker for the body not captured.
        assert_eq!(all.len(), 5);
        assert_eq!(
            (
                all[3].direction,
                &all[3].payload,
                all[3].http.as_ref().map(|h| (h.entry, h.response_lost))
            ),
            (Some(Direction::S2c), &Payload::Lost, Some((2, true)))
        );
        let f: Vec<_> = all
            .into_iter()
            .filter(|f| f.direction == Some(Direction::C2s))
            .collect();
        let facts: Vec<_> = f
            .iter()
            .map(|f| {
                let h = f.http.as_ref().unwrap();
                (
                    h.entry,
                    h.status,
                    h.stream,
                    h.body_empty,
                    h.body_has_json,
                    h.is_request_body,
                )
            })
            .collect();
        assert_eq!(
            facts,
            vec![
                (0, 202, false, true, false, true),
                (1, 0, false, true, false, true),
                (2, 200, true, true, false, true),
                (3, 202, false, false, false, true)
            ]
        );
        assert_eq!(
            p.errors,
            vec![Diagnostic::entry(
                2,
                "response body not captured (status 200)"
            )]
        );
        // No session header: keyed by origin.
        assert!(f.iter().all(|f| &*f.key == "http://127.0.0.1:3000"));
    }

    #[test]
    fn garbage_and_broken_entries() {
        for text in [
            "",
            "garbage",
            "[1,2]",
            "{}",
            "{\"log\":5}",
            "{\"log\":{}}",
            "{\"log\":{\"entries\":null}}",
            "\u{0}\u{ffff}{",
            "{\"log\":{\"entries\":[{\"request\":",
        ] {
            let p = run(text);
            assert!(p.records.is_empty());
            assert_eq!(p.errors.len(), 1, "{text:?}: {:?}", p.errors);
        }
        let p = run(
            r#"{"log":{"creator":null,"entries":[null, 5, {"request":null}, {"request":{"method":"POST","postData":{"text":"not json"}},"response":null,"time":null}, {"startedDateTime":"2025-01-01T00:00:00Z","request":{"method":"post","url":"https://h.example/mcp?sessionId=abc","postData":{"text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}"}}}]}}"#,
        );
        assert_eq!(p.dialect, "har");
        assert_eq!(p.errors.len(), 6, "{:?}", p.errors);
        assert_eq!(
            p.errors[4].to_string(),
            "entry 3: no response object (the capture did not keep it); the answers to its requests are unknown"
        );
        assert_eq!(
            p.errors[5].to_string(),
            "entry 4: no response object (the capture did not keep it); the answers to its requests are unknown"
        );
        assert!(
            p.errors[0].to_string().starts_with("entry 0:")
                && p.errors[1].to_string().starts_with("entry 1:")
                && p.errors[2].to_string().starts_with("entry 2:")
        );
        assert!(
            p.errors[3]
                .to_string()
                .starts_with("entry 3: `startedDateTime`")
        );
        let f = frames(&p);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].payload.clone(), f[0].ts, &*f[0].key),
            (Payload::Unparseable, None, "t.har")
        );
        assert_eq!(f[0].http.as_ref().unwrap().status, 0);
        assert_eq!(&*f[1].key, "abc");
    }

    /// An entry with `_eventSourceMessages` (and `timings.receive`), as
    /// DevTools writes it: `content` as given, `es` the records.
    fn es_entry(
        started: &str,
        time: &str,
        receive: &str,
        post: Option<&str>,
        content: &str,
        es: &str,
    ) -> String {
        let e = entry(started, time, "", post, 200, "", content);
        let e = e.replace("\"receive\":0}", &format!("\"receive\":{receive}}}"));
        format!("{},\"_eventSourceMessages\":{es}}}", &e[..e.len() - 1])
    }

    /// A stream still open at export: DevTools kept no `content.text`,
    /// only `_eventSourceMessages`; each record with data is one frame at
    /// its own time (epoch s → µs), with its event id and its 1-based
    /// record number; the priming record (empty data) is none.
    #[test]
    fn event_source_messages_of_an_open_stream() {
        let es = r#"[{"time":1796158779.476429,"eventName":"message","eventId":"p1","data":""},{"time":1796158779.494879,"eventName":"message","eventId":"e2","data":"{\"method\":\"roots/list\",\"jsonrpc\":\"2.0\",\"id\":0}"}]"#;
        let t = har(&[es_entry(
            "2026-12-01T20:59:39.142Z",
            "352.36",
            "316.65",
            None,
            r#"{"size":334,"mimeType":"text/event-stream"}"#,
            es,
        )]);
        let p = run(&t);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let f = frames(&p);
        // The event, and a marker: what came after the export is not kept.
        assert_eq!(f.len(), 2);
        assert_eq!(f[1].payload, Payload::Lost);
        // Record 1796158779.494879 s, clamped to the entry's end
        // (startedDateTime + 352.36 ms).
        assert_eq!(f[0].ts, Some(1_796_158_779_494_360));
        assert_eq!(f[0].prov.location, Location::entry(0, Some(2)));
        assert_eq!(f[0].event_id.as_ref().map(|e| &*e.id), Some("e2"));
        assert!(matches!(&f[0].payload, Payload::Single(m) if m.kind == Kind::Request));
        let h = f[0].http.as_ref().unwrap();
        assert_eq!(
            (h.response_lost, h.body_empty, h.time_unbounded, h.stream),
            (true, false, false, true),
            "open at export (no `_error`): what came after is not kept"
        );
        // The sanitized export drops `data`: the body is lost, said once.
        let t = har(&[es_entry(
            "2026-12-01T20:59:39.142Z",
            "352.36",
            "316.65",
            None,
            r#"{"size":334,"mimeType":"text/event-stream"}"#,
            r#"[{"time":1796158779.476429,"eventName":"message","eventId":"p1"},{"time":1796158779.494879,"eventName":"message","eventId":"e2"}]"#,
        )]);
        let p = run(&t);
        assert_eq!(
            frames(&p).iter().map(|f| &f.payload).collect::<Vec<_>>(),
            vec![&Payload::Lost]
        );
        assert_eq!(
            p.errors,
            vec![Diagnostic::entry(
                0,
                "response body not captured (status 200): 2 of its 2 `_eventSourceMessages` events have no data (a sanitized DevTools export)"
            )]
        );
    }

    /// Text and records of the same events: counted once (the text's),
    /// each at its record's time; an event without a record keeps the
    /// entry's end.
    #[test]
    fn event_source_messages_beside_text_count_once() {
        let body = "id: p\ndata: \n\nevent: message\nid: a\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\nid: b\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\n";
        let es = r#"[{"time":1796158779.263733,"eventName":"message","eventId":"p","data":""},{"time":1796158779.5815837,"eventName":"message","eventId":"a","data":"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"}]"#;
        let t = har(&[es_entry(
            "2026-12-01T20:59:39.263Z",
            "318.92",
            "290.47",
            Some(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#),
            &format!(
                r#"{{"mimeType":"text/event-stream","text":{}}}"#,
                serde_json::to_string(body).unwrap()
            ),
            es,
        )]);
        let p = run(&t);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let f = frames(&p);
        assert_eq!(f.len(), 3);
        let start = parse_iso("2026-12-01T20:59:39.263Z").unwrap();
        assert_eq!(f[1].ts, Some(1_796_158_779_581_584));
        assert_eq!(f[1].prov.location, Location::entry(0, Some(2)));
        assert_eq!(f[2].ts, Some(start + 318_920));
        assert_eq!(f[2].prov.location, Location::entry(0, Some(3)));
    }

    /// Windows-1252 mojibake (FORMATS.md §4.1): undone exactly, or not at
    /// all.
    #[test]
    fn windows_1252_mojibake() {
        use super::undo_windows_1252 as undo;
        assert_eq!(
            undo("a \u{e2}\u{20ac}\u{201c} b \u{f0}\u{178}\u{17d}\u{2030}").as_deref(),
            Some("a \u{2013} b \u{1f389}")
        );
        // mitmproxy's Latin-1 form of U+2013 (bytes E2 80 93).
        assert_eq!(undo("\u{e2}\u{80}\u{93}").as_deref(), Some("\u{2013}"));
        assert_eq!(undo("plain ascii"), None);
        assert_eq!(undo("caf\u{e9}"), None, "not UTF-8 bytes");
        assert_eq!(undo("ok \u{2713}"), None, "U+2713 is no windows-1252 byte");
        // In a body without a charset: repaired, and said.
        let body = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\u{e2}\u{20ac}\u{201c}\"}}\n\n";
        let t = har(&[entry(
            "2025-01-01T12:00:00Z",
            "5",
            "",
            Some(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            200,
            "",
            &format!(
                r#"{{"mimeType":"text/event-stream","text":{}}}"#,
                serde_json::to_string(body).unwrap()
            ),
        )]);
        let p = run(&t);
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("entry 0: event-stream body was decoded as windows-1252"),
            "{:?}",
            p.errors
        );
        assert_eq!(frames(&p).len(), 2);
        // With a charset the recorder decoded it right: left alone.
        let t = t.replace(
            "\"text/event-stream\"",
            "\"text/event-stream; charset=utf-8\"",
        );
        assert!(run(&t).errors.is_empty());
    }

    /// chrome-har's `postData.params` (FORMATS.md §4.1) read back.
    #[test]
    fn chrome_har_params_rebuilt() {
        use super::super::model::PostData;
        let rebuild = |params: &str| {
            let doc = format!(r#"{{"mimeType":"application/json","params":{params}}}"#);
            let pd: PostData = serde_json::from_str(&doc).unwrap();
            super::rebuild_params(pd.params.0.as_deref().unwrap())
        };
        assert_eq!(
            rebuild(r#"[{"name":"method","value":"tools/list"},{"name":"jsonrpc","value":"2.0"},{"name":"id","value":1}]"#).as_deref(),
            Ok(r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#)
        );
        assert_eq!(
            rebuild(r#"[{"name":"0","value":{"id":101}},{"name":"1","value":{"method":"n"}}]"#)
                .as_deref(),
            Ok(r#"[{"id":101},{"method":"n"}]"#)
        );
        // An array member flattened to one pair per element; a lone array
        // value was an array holding it.
        assert_eq!(
            rebuild(r#"[{"name":"id","value":2},{"name":"params","value":1},{"name":"params","value":"x"},{"name":"result","value":[3]}]"#).as_deref(),
            Ok(r#"{"id":2,"params":[1,"x"],"result":[[3]]}"#)
        );
        assert!(rebuild("[]").unwrap_err().starts_with("`params` is empty"));
        assert_eq!(
            rebuild(r#"[{"name":"0","value":5}]"#),
            Err("an array whose members are not all objects")
        );
        assert_eq!(
            rebuild(r#"[{"name":"a","value":1},{"name":"b","value":2},{"name":"a","value":3}]"#),
            Err("a name repeated apart (no JSON object gives that)")
        );
        assert_eq!(
            rebuild(r#"[{"name":"a"}]"#),
            Err("a pair without a name or a JSON value")
        );
        // In an entry: a rebuilt body is a frame; `params: []` a gap.
        let e = |params: &str| {
            entry(
                "2025-01-01T12:00:00Z",
                "5",
                "",
                Some("X"),
                202,
                "",
                r#"{"size":0,"mimeType":"x-unknown"}"#,
            )
            .replace(r#""text":"X""#, &format!(r#""params":{params}"#))
        };
        let p = run(&har(&[
            e(
                r#"[{"name":"jsonrpc","value":"2.0"},{"name":"id","value":7},{"name":"method","value":"ping"}]"#,
            ),
            e("[]"),
        ]));
        let f = frames(&p);
        assert_eq!(f.len(), 2);
        assert!(
            matches!(&f[0].payload, Payload::Single(m) if m.kind == Kind::Request && m.method.as_deref() == Some("ping"))
        );
        assert_eq!(f[1].payload, Payload::Lost);
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("entry 1: POST body not captured (postData has no text and its `params` is empty: a recorder that keeps no bodies writes this, and chrome-har does for a body `[]`, `{}` or a number)"),
            "{:?}",
            p.errors
        );
    }

    /// `timings.receive` 0: `time` closed at the headers. It still bounds
    /// a stream of one message event, not a longer one.
    #[test]
    fn time_closed_at_headers() {
        let one = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let two = "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let content = |b: &str| {
            format!(
                r#"{{"mimeType":"text/event-stream","text":{}}}"#,
                serde_json::to_string(b).unwrap()
            )
        };
        let ping = Some(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        let unbounded = |e: String| -> Vec<bool> {
            let p = run(&har(&[e]));
            frames(&p)
                .iter()
                .filter(|f| f.direction == Some(Direction::S2c))
                .map(|f| f.http.as_ref().unwrap().time_unbounded)
                .collect()
        };
        let post = |body: &str| {
            entry(
                "2025-01-01T12:00:00Z",
                "4.2",
                "",
                ping,
                200,
                "",
                &content(body),
            )
        };
        assert_eq!(unbounded(post(one)), vec![false]);
        assert_eq!(unbounded(post(two)), vec![true, true]);
        assert_eq!(
            unbounded(post(two).replace("\"receive\":0}", "\"receive\":-1}")),
            vec![true, true]
        );
        assert_eq!(
            unbounded(post(two).replace("\"receive\":0}", "\"receive\":140.5}")),
            vec![false, false]
        );
        let get = |b: &str| {
            entry(
                "2025-01-01T12:00:00Z",
                "27.7",
                "",
                None,
                200,
                "",
                &content(b),
            )
        };
        assert_eq!(unbounded(get(two)), vec![true, true]);
        // A priming event (empty data) and one message: still one event.
        assert_eq!(
            unbounded(get(&format!("id: p\ndata: \n\n{one}"))),
            vec![false]
        );
    }

    /// What one HAR frame costs inline (reports/BENCH-har.md).
    #[test]
    #[ignore = "prints sizes"]
    fn record_sizes() {
        use std::mem::size_of;
        eprintln!(
            "Record {} Frame {} Payload {} Message {} HttpContext {} Provenance {} Location {}",
            size_of::<Record>(),
            size_of::<Frame>(),
            size_of::<Payload>(),
            size_of::<crate::record::Message>(),
            size_of::<HttpContext>(),
            size_of::<Provenance>(),
            size_of::<Location>()
        );
    }
}

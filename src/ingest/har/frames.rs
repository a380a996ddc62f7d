//! One HAR entry → frames and error lines (the per-entry rules in the
//! module docs of [`super`]): the request body, the response body (a JSON
//! body, or the `message` events of an event stream), and WebSocket
//! messages ([`super::websocket`]), each carrying the exchange's
//! [`HttpContext`] and the entry's session ([`super::session`]).

use std::borrow::Cow;
use std::sync::Arc;

use base64::Engine as _;
use serde::de::IgnoredAny;

use super::model::{Content, Entry, Num, PostData, Response, Timings, header};
use super::session::Session;
use super::websocket;
use crate::diag::Diagnostic;
use crate::ingest::sse;
use crate::record::jsonrpc::{PayloadError, parse_payload};
use crate::record::time::parse_iso;
use crate::record::{
    Direction, Frame, HttpContext, Location, Micros, Parsed, Payload, Provenance, Record, Split,
    SseEventId,
};

/// Longest entry duration taken as real (ms): one year. HAR 1.2 gives
/// `time` in ms (FORMATS.md §4); beyond this it is a broken export.
const MAX_ENTRY_MS: f64 = 365.0 * 24.0 * 3600.0 * 1000.0;

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
        } = e;
        let Some(req) = request.0 else {
            self.error(i, "no `request` object; skipped");
            return Ok(());
        };
        if req.method.0.is_none() && req.url.0.is_none() {
            // serde reads a struct from an array too: `"request": [1, 2]`.
            self.error(
                i,
                "`request` has no method and no URL (not a request object); skipped",
            );
            return Ok(());
        }
        let method = req
            .method
            .0
            .as_deref()
            .unwrap_or("")
            .trim()
            .to_ascii_uppercase();
        let url = req.url.0.as_deref().unwrap_or("");
        let times = self.times(i, started.0.as_deref(), time.0.as_ref(), timings.0.as_ref());
        let has_response = response.0.is_some();
        let resp = self.response(i, response.0);
        let mut session = Session::of(&req.headers, &resp.headers, url, self.name);
        let protocol_header = header(&req.headers, "mcp-protocol-version").map(Box::from);
        let read = self.read_response(i, &method, resp, &mut session);
        let http = HttpContext {
            entry: i,
            is_request_body: false,
            method: method.as_str().into(),
            status: read.status,
            stream: read.stream,
            body_empty: read.body_empty,
            body_has_json: read.body_has_json,
            start: times.start,
            end: times.end,
            position: 0,
            protocol_header,
            legacy: session.legacy,
            response_lost: read.lost || !has_response,
        };
        let shared = Shared {
            entry: i,
            key: &session.key,
            at: Provenance {
                file: self.file,
                location: Location::entry(i, None),
                offset,
                len: u32::try_from(raw.len()).unwrap_or(u32::MAX),
            },
            http,
        };
        if method == "POST" {
            match req.post_data.0 {
                Some(pd) => self.request_frame(pd, times.request, &shared),
                None => self.no_post_data(times.request, &shared),
            }
        }
        self.response_frames(read.frames, times.response, &shared);
        websocket::push_frames(&mut self.parsed.records, i, ws, shared.key, shared.at);
        Ok(())
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

    /// The entry's times: `startedDateTime`, and the end after the
    /// duration ([`EntrySink::duration_ms`]).
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
        Times {
            start: start_us,
            end: end_us,
            request: start,
            response: start.map(|_| end_us),
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
        session: &mut Session,
    ) -> ResponseRead {
        let status = resp
            .status
            .0
            .as_ref()
            .and_then(Num::finite)
            .map_or(0, |s| s as i64);
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
        let (body, body_empty, lost) = self.response_body(i, status, method, content);
        let (frames, body_has_json) = body_frames(body.as_deref(), stream, &mt, session);
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
    ) -> (Option<Cow<'a, str>>, bool, bool) {
        if status == 0 {
            return (None, true, false);
        }
        let Content { text, encoding, .. } = content;
        match text.0 {
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
    fn request_frame(&mut self, pd: PostData<'_>, ts: Option<Micros>, shared: &Shared<'_>) {
        let i = shared.entry;
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

    /// The response body's frames, in body order (`position`).
    fn response_frames(&mut self, frames: Vec<BodyFrame>, ts: Option<Micros>, shared: &Shared<'_>) {
        for (pos, f) in frames.into_iter().enumerate() {
            self.parsed.records.push(Record::Frame(Frame {
                key: shared.key.clone(),
                split: Split::Never,
                direction: Some(Direction::S2c),
                ts,
                stated_latency: None,
                event_id: f.event_id,
                prov: shared.prov(f.event),
                payload: f.payload,
                http: Some(shared.http(false, u32::try_from(pos).unwrap_or(u32::MAX))),
            }));
        }
    }
}

/// The messages of a response body and whether any of it was JSON: each
/// `message` event with data of an event stream (FORMATS.md §5), or a JSON
/// body whole; other bodies (`text/plain` `Accepted`) are not traffic.
fn body_frames(
    body: Option<&str>,
    stream: bool,
    mt: &str,
    session: &mut Session,
) -> (Vec<BodyFrame>, bool) {
    let mut frames = Vec::new();
    let mut body_has_json = false;
    let Some(body) = body else {
        return (frames, body_has_json);
    };
    if stream {
        for (n, ev) in sse::events(body).into_iter().enumerate() {
            // Legacy HTTP+SSE (FORMATS.md §2.2; DESIGN.md rule 1).
            if ev.event_type == "endpoint" {
                session.endpoint(&ev.data);
                continue;
            }
            if ev.event_type != "message" || ev.data.is_empty() {
                continue;
            }
            let (payload, json) = read_payload(&ev.data);
            body_has_json |= json;
            frames.push(BodyFrame {
                event: Some(n as u64 + 1),
                payload,
                event_id: SseEventId::new(&ev.last_event_id, &ev.data),
            });
        }
    } else if is_json_type(mt) && !body.trim().is_empty() {
        let (payload, json) = read_payload(body);
        body_has_json |= json;
        frames.push(BodyFrame {
            event: None,
            payload,
            event_id: None,
        });
    }
    (frames, body_has_json)
}

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
        assert_eq!(f.len(), 3);
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
        let f = frames(&p);
        assert_eq!(f.len(), 4, "only the request bodies");
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

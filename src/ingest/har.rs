//! HAR 1.2 captures of MCP Streamable HTTP traffic (FORMATS.md §2.3–2.6, §4,
//! §4.2).
//!
//! The document is streamed: a serde visitor walks `log.entries` one entry
//! at a time, each entry is borrowed from the input as raw JSON text and read
//! into small structs with every member optional and type-tolerant (`null`,
//! a missing `timings`, `time` as a string, unknown `_custom` members). No
//! `serde_json::Value` of the file is ever built, and a truncated file still
//! yields every complete entry before the cut plus one error naming the byte
//! offset.
//!
//! Per entry `i` (0-based, DESIGN.md rule 11):
//! - a non-empty POST body is one client→server frame at `startedDateTime`;
//! - a `text/event-stream` response body is read by the WHATWG rules
//!   (FORMATS.md §5, [`super::sse::events`]) and each `message` event with
//!   non-empty data is one server→client frame; a JSON (`application/json`,
//!   `…+json`) body is one frame; both at `startedDateTime + time`
//!   (DESIGN.md rule 4); other bodies (`text/plain` `Accepted`) are not
//!   traffic;
//! - every frame carries the exchange's [`HttpContext`], the request-body
//!   frame included, so that 202 / empty / status-0 answers stay visible;
//! - the session key is chosen by DESIGN.md rule 1, never split.
//!
//! Later issues: the legacy HTTP+SSE transport's cross-entry pairing and
//! SSE replay de-duplication are not done here.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Input, sse};
use crate::record::jsonrpc::{PayloadError, parse_payload};
use crate::record::time::parse_iso;
use crate::record::{
    Direction, Frame, HttpContext, Location, Micros, Parsed, Payload, Provenance, Record, Split,
};

/// Parses one HAR document (FORMATS.md §4) into frames, in entry order.
///
/// `format` is `har`; `dialect` is the known exporter named by
/// `log.creator.name` (lower-cased: `webinspector`, `mitmproxy`, `firefox`,
/// `charles`, `fiddler`, `playwright`, `proxyman`), else `har`. Recoverable
/// problems go to `errors`, one line each naming the entry: an entry that is
/// not an object or has no `request` (skipped), a body not captured
/// (DESIGN.md rule 12), invalid base64, an unreadable `startedDateTime`, and
/// at most one line for JSON that breaks off or is malformed, naming its
/// byte offset. Never panics.
pub fn parse(input: Input<'_>) -> Parsed {
    let mut sink = Sink {
        input,
        parsed: Parsed {
            format: "har",
            dialect: "har",
            ..Default::default()
        },
        next_entry: 0,
        saw_log: false,
        saw_entries: false,
    };
    let mut de = serde_json::Deserializer::from_str(input.text);
    let result = RootSeed(&mut sink)
        .deserialize(&mut de)
        .and_then(|()| de.end());
    match result {
        Err(e) => {
            let offset = error_offset(input.text, e.line(), e.column());
            let what = if e.is_eof() {
                "HAR ends early"
            } else {
                "HAR is not valid JSON"
            };
            let n = sink.next_entry;
            sink.parsed.incomplete = true;
            sink.parsed.errors.push(format!(
                "{what} at byte {offset} (line {}, column {}): {e}; {n} entries read before it",
                e.line(),
                e.column()
            ));
        }
        Ok(()) if !sink.saw_log => {
            sink.parsed.incomplete = true;
            sink.parsed
                .errors
                .push("not a HAR document: no `log` object".to_string())
        }
        Ok(()) if !sink.saw_entries => {
            sink.parsed.incomplete = true;
            sink.parsed
                .errors
                .push("HAR `log` has no `entries` array".to_string())
        }
        Ok(()) => {}
    }
    sink.parsed
}

/// Byte offset of a serde_json error position (1-based line, column = bytes
/// consumed on that line), clamped to the text.
fn error_offset(text: &str, line: usize, column: usize) -> usize {
    let bytes = text.as_bytes();
    let mut start = 0usize;
    for _ in 1..line {
        match memchr::memchr(b'\n', &bytes[start.min(bytes.len())..]) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    start.saturating_add(column).min(bytes.len())
}

// ---------------------------------------------------------------------------
// Streaming over the document: {"log": {"creator": …, "entries": [ … ]}}.

/// What the visitors feed: the input and the output being built.
struct Sink<'t> {
    input: Input<'t>,
    parsed: Parsed,
    /// Index of the next entry of `log.entries`.
    next_entry: u64,
    saw_log: bool,
    saw_entries: bool,
}

struct RootSeed<'s, 't>(&'s mut Sink<'t>);

impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a HAR document {\"log\": {…}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "log" && !self.0.saw_log {
                self.0.saw_log = true;
                map.next_value_seed(LogSeed(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct LogSeed<'s, 't>(&'s mut Sink<'t>);

impl<'de> DeserializeSeed<'de> for LogSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LogSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the HAR `log` object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "creator" => {
                    let c = map.next_value::<Loose<Creator<'de>>>()?;
                    if let Some(name) = c.0.and_then(|c| c.name.0) {
                        self.0.parsed.dialect = dialect(&name);
                    }
                }
                "entries" if !self.0.saw_entries => {
                    self.0.saw_entries = true;
                    map.next_value_seed(EntriesSeed(&mut *self.0))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct EntriesSeed<'s, 't>(&'s mut Sink<'t>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the `log.entries` array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Entries are found one at a time (each a borrowed slice of the
        // input, no copy) and read in parallel, a batch at a time; records
        // and errors are appended in entry order (issue 5).
        let mut batch: Vec<&'de str> = Vec::with_capacity(ENTRY_BATCH);
        loop {
            let next = seq.next_element::<&'de RawValue>();
            let more = matches!(next, Ok(Some(_)));
            if let Ok(Some(raw)) = &next {
                batch.push(raw.get());
            }
            if batch.len() >= ENTRY_BATCH || !more {
                self.0.entries(&batch);
                batch.clear();
            }
            match next {
                Ok(Some(_)) => {}
                Ok(None) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
}

/// The `dialect` name for a `log.creator.name` (FORMATS.md §4.1).
fn dialect(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    const KNOWN: [&str; 7] = [
        "webinspector",
        "mitmproxy",
        "firefox",
        "charles",
        "fiddler",
        "playwright",
        "proxyman",
    ];
    KNOWN.into_iter().find(|k| n.contains(k)).unwrap_or("har")
}

// ---------------------------------------------------------------------------
// One entry, read leniently.

/// A member read without failing its parent: wrong type or `null` → `None`
/// (FORMATS.md §4.1 "tolerate missing optional keys, `null`").
struct Loose<T>(Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        Ok(Loose(serde_json::from_str::<T>(raw.get()).ok()))
    }
}

/// A number written as a JSON number or a numeric string.
struct Num(f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Read from the raw text, so that the crate-wide
        // `arbitrary_precision` number form does not matter here.
        let raw = <&'de RawValue>::deserialize(d)?;
        let t = raw.get().trim();
        let text: Cow<'_, str> = if t.starts_with('"') {
            serde_json::from_str::<Cow<'_, str>>(t).map_err(serde::de::Error::custom)?
        } else {
            Cow::Borrowed(t)
        };
        text.trim()
            .parse::<f64>()
            .map(Num)
            .map_err(serde::de::Error::custom)
    }
}

impl Num {
    /// The value when finite.
    fn finite(&self) -> Option<f64> {
        self.0.is_finite().then_some(self.0)
    }
}

/// A JSON string, borrowed from the input when it holds no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Creator<'a> {
    #[serde(borrow)]
    name: Loose<Text<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry<'a> {
    #[serde(rename = "startedDateTime", borrow)]
    started: Loose<Text<'a>>,
    time: Loose<Num>,
    timings: Loose<Timings>,
    #[serde(borrow)]
    request: Loose<Request<'a>>,
    #[serde(borrow)]
    response: Loose<Response<'a>>,
    #[serde(rename = "_webSocketMessages", borrow)]
    ws: Loose<Vec<Loose<WsMessage<'a>>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Timings {
    blocked: Loose<Num>,
    dns: Loose<Num>,
    connect: Loose<Num>,
    send: Loose<Num>,
    wait: Loose<Num>,
    receive: Loose<Num>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Header<'a> {
    #[serde(borrow)]
    name: Loose<Text<'a>>,
    #[serde(borrow)]
    value: Loose<Text<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Request<'a> {
    #[serde(borrow)]
    method: Loose<Text<'a>>,
    #[serde(borrow)]
    url: Loose<Text<'a>>,
    #[serde(borrow)]
    headers: Loose<Vec<Loose<Header<'a>>>>,
    #[serde(rename = "postData", borrow)]
    post_data: Loose<PostData<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PostData<'a> {
    #[serde(borrow)]
    text: Loose<Text<'a>>,
    /// Not in HAR 1.2; some exporters mark base64 request bodies this way.
    #[serde(borrow)]
    encoding: Loose<Text<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Response<'a> {
    status: Loose<Num>,
    #[serde(borrow)]
    headers: Loose<Vec<Loose<Header<'a>>>>,
    #[serde(borrow)]
    content: Loose<Content<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Content<'a> {
    #[serde(rename = "mimeType", borrow)]
    mime_type: Loose<Text<'a>>,
    #[serde(borrow)]
    text: Loose<Text<'a>>,
    #[serde(borrow)]
    encoding: Loose<Text<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WsMessage<'a> {
    #[serde(rename = "type", borrow)]
    kind: Loose<Text<'a>>,
    time: Loose<Num>,
    opcode: Loose<Num>,
    #[serde(borrow)]
    data: Loose<Text<'a>>,
}

/// First non-empty value of a header, name compared case-insensitively
/// (FORMATS.md §4 "header names case-insensitive, duplicates kept").
fn header<'h>(headers: &'h Loose<Vec<Loose<Header<'_>>>>, name: &str) -> Option<&'h str> {
    headers
        .0
        .as_deref()?
        .iter()
        .filter_map(|h| h.0.as_ref())
        .find_map(|h| {
            let n = h.name.0.as_deref()?;
            let v = h.value.0.as_deref()?.trim();
            (n.trim().eq_ignore_ascii_case(name) && !v.is_empty()).then_some(v)
        })
}

/// Value of the first non-empty query parameter among `names` (the legacy
/// `sessionId` / `session_id`, FORMATS.md §2.2).
fn query_param<'u>(url: &'u str, names: &[&str]) -> Option<&'u str> {
    let q = url.split_once('?')?.1;
    let q = q.split('#').next().unwrap_or("");
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (names.contains(&k) && !v.is_empty()).then_some(v)
    })
}

/// `scheme://host:port` of a URL (default port for http/https/ws/wss when
/// none is written), lower-cased; `None` when the URL has no `scheme://`.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if authority.is_empty() {
        return None;
    }
    let (host, port) = if authority.starts_with('[') {
        match authority.split_once(']') {
            Some((h, p)) => (
                format!("{h}]"),
                p.strip_prefix(':').filter(|p| !p.is_empty()),
            ),
            None => (authority.to_string(), None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                (h.to_string(), Some(p))
            }
            Some((h, "")) => (h.to_string(), None),
            _ => (authority.to_string(), None),
        }
    };
    let port = port.map(str::to_string).or_else(|| {
        match scheme.as_str() {
            "http" | "ws" => Some("80"),
            "https" | "wss" => Some("443"),
            _ => None,
        }
        .map(str::to_string)
    });
    let host = host.to_ascii_lowercase();
    Some(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
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
fn read_payload(text: &str) -> (Payload, bool) {
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

/// Entries read in parallel at a time.
const ENTRY_BATCH: usize = 256;

impl Sink<'_> {
    fn error(&mut self, msg: String) {
        self.parsed.errors.push(msg);
    }

    /// Reads a batch of consecutive entries in parallel; their records and
    /// errors go in entry order, as if read one by one.
    fn entries(&mut self, raws: &[&str]) {
        use rayon::prelude::*;
        let first = self.next_entry;
        let input = self.input;
        let parts: Vec<Parsed> = raws
            .par_iter()
            .enumerate()
            .map(|(k, raw)| {
                let mut one = Sink {
                    input,
                    parsed: Parsed::default(),
                    next_entry: first + k as u64,
                    saw_log: true,
                    saw_entries: true,
                };
                one.entry(raw);
                one.parsed
            })
            .collect();
        for p in parts {
            self.parsed.records.extend(p.records);
            self.parsed.errors.extend(p.errors);
        }
        self.next_entry = first + raws.len() as u64;
    }

    /// Reads one entry given as its raw JSON text inside the input.
    fn entry(&mut self, raw: &str) {
        let i = self.next_entry;
        self.next_entry += 1;
        let base = self.input.text.as_ptr() as usize;
        let offset = (raw.as_ptr() as usize)
            .checked_sub(base)
            .filter(|o| o.saturating_add(raw.len()) <= self.input.text.len())
            .unwrap_or(0) as u64;
        let len = u32::try_from(raw.len()).unwrap_or(u32::MAX);
        let file = self.input.file;
        let prov = |location: Location| Provenance {
            file,
            location,
            offset,
            len,
        };

        let e: Entry<'_> = match serde_json::from_str(raw) {
            Ok(e) => e,
            Err(err) => {
                self.error(format!(
                    "entry {i}: not a HAR entry object ({err}); skipped"
                ));
                return;
            }
        };
        let Some(req) = e.request.0 else {
            self.error(format!("entry {i}: no `request` object; skipped"));
            return;
        };
        let method = req
            .method
            .0
            .as_deref()
            .unwrap_or("")
            .trim()
            .to_ascii_uppercase();
        let url = req.url.0.as_deref().unwrap_or("");

        // Times (DESIGN.md rule 4, FORMATS.md §4: `time` = ms, sum of timings).
        let start = e.started.0.as_deref().and_then(parse_iso);
        if start.is_none() {
            self.error(format!(
                "entry {i}: `startedDateTime` missing or not a timestamp; its frames have no time"
            ));
        }
        let dur_ms = e
            .time
            .0
            .as_ref()
            .and_then(Num::finite)
            .filter(|t| *t >= 0.0)
            .or_else(|| {
                let t = e.timings.0.as_ref()?;
                let parts = [&t.blocked, &t.dns, &t.connect, &t.send, &t.wait, &t.receive];
                let sum: f64 = parts
                    .iter()
                    .filter_map(|p| p.0.as_ref()?.finite())
                    .filter(|v| *v >= 0.0)
                    .sum();
                Some(sum)
            });
        let dur_us = dur_ms.map_or(0, |ms| (ms * 1000.0).round() as Micros);
        let (start_us, end_us) = match start {
            Some(s) => (s, s.saturating_add(dur_us)),
            None => (0, 0),
        };
        let (req_ts, resp_ts) = (start, start.map(|_| end_us));

        // Session key (DESIGN.md rule 1).
        let has_response = e.response.0.is_some();
        if !has_response {
            self.error(format!(
                "entry {i}: no response object; read as no response (status 0)"
            ));
        }
        let resp = e.response.0.unwrap_or_default();
        if has_response && resp.status.0.as_ref().and_then(Num::finite).is_none() {
            self.error(format!(
                "entry {i}: response status missing or not a number; read as 0 (no response)"
            ));
        }
        let header_key = header(&req.headers, "mcp-session-id")
            .or_else(|| header(&resp.headers, "mcp-session-id"));
        let mut legacy =
            header_key.is_none() && query_param(url, &["sessionId", "session_id"]).is_some();
        let mut key: Box<str> = header_key
            .or_else(|| query_param(url, &["sessionId", "session_id"]))
            .map(Box::from)
            .or_else(|| origin(url).map(Box::from))
            .unwrap_or_else(|| self.input.name.into());
        let protocol_header = header(&req.headers, "mcp-protocol-version").map(Box::from);

        // Response (FORMATS.md §4, §4.2; DESIGN.md rule 12).
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
        let (body, body_empty): (Option<Cow<'_, str>>, bool) = if status == 0 {
            // Nothing arrived: the POST's requests stay unanswered.
            (None, true)
        } else {
            match content.text.0 {
                None => {
                    self.error(format!(
                        "entry {i}: response body not captured (status {status})"
                    ));
                    (None, true)
                }
                Some(t)
                    if content
                        .encoding
                        .0
                        .as_deref()
                        .is_some_and(|x| x.eq_ignore_ascii_case("base64")) =>
                {
                    match decode_base64(&t) {
                        Ok(s) => {
                            let empty = s.is_empty();
                            (Some(Cow::Owned(s)), empty)
                        }
                        Err(err) => {
                            self.error(format!(
                                "entry {i}: response body is not valid base64 ({err}); not read"
                            ));
                            (None, t.is_empty())
                        }
                    }
                }
                Some(t) => {
                    let empty = t.is_empty();
                    (Some(t.0), empty)
                }
            }
        };

        // Response frames: (event number, payload).
        let mut resp_frames: Vec<(Option<u64>, Payload, Option<crate::record::SseEventId>)> =
            Vec::new();
        let mut body_has_json = false;
        if let Some(body) = body.as_deref() {
            if stream {
                for (n, ev) in sse::events(body).into_iter().enumerate() {
                    // Legacy HTTP+SSE (FORMATS.md §2.2; DESIGN.md rule 1): the
                    // GET stream's `endpoint` event names the POST URI and
                    // its session; the stream belongs to that session.
                    if ev.event_type == "endpoint" {
                        if let Some(sid) = query_param(ev.data.trim(), &["sessionId", "session_id"])
                        {
                            key = sid.into();
                            legacy = true;
                        }
                        continue;
                    }
                    if ev.event_type != "message" || ev.data.is_empty() {
                        continue;
                    }
                    let (p, json) = read_payload(&ev.data);
                    body_has_json |= json;
                    let id = crate::record::SseEventId::new(&ev.last_event_id, &ev.data);
                    resp_frames.push((Some(n as u64 + 1), p, id));
                }
            } else if is_json_type(&mt) && !body.trim().is_empty() {
                let (p, json) = read_payload(body);
                body_has_json |= json;
                resp_frames.push((None, p, None));
            }
        }

        let ctx = |is_request_body: bool, position: u32| HttpContext {
            entry: i,
            is_request_body,
            method: method.as_str().into(),
            status,
            stream,
            body_empty,
            body_has_json,
            start: start_us,
            end: end_us,
            position,
            protocol_header: protocol_header.clone(),
            legacy,
        };

        // Request body (FORMATS.md §2.3: one message or an array per POST).
        if method == "POST"
            && let Some(pd) = req.post_data.0
        {
            if pd.text.0.is_none() {
                self.error(format!("entry {i}: POST body not captured (postData has no text); its messages are unknown"));
            }
            let text = match (pd.text.0, pd.encoding.0.as_deref()) {
                (Some(t), Some(enc)) if enc.eq_ignore_ascii_case("base64") => {
                    match decode_base64(&t) {
                        Ok(s) => Some(Cow::Owned(s)),
                        Err(err) => {
                            self.error(format!(
                                "entry {i}: request body is not valid base64 ({err}); not read"
                            ));
                            None
                        }
                    }
                }
                (t, _) => t.map(|t| t.0),
            };
            if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                let (payload, _) = read_payload(&text);
                self.parsed.records.push(Record::Frame(Frame {
                    key: key.clone(),
                    split: Split::Never,
                    direction: Some(Direction::C2s),
                    ts: req_ts,
                    stated_latency: None,
                    event_id: None,
                    prov: prov(Location::entry(i, None)),
                    payload,
                    http: Some(ctx(true, 0)),
                }));
            }
        }

        for (pos, (event, payload, event_id)) in resp_frames.into_iter().enumerate() {
            self.parsed.records.push(Record::Frame(Frame {
                key: key.clone(),
                split: Split::Never,
                direction: Some(Direction::S2c),
                ts: resp_ts,
                stated_latency: None,
                event_id,
                prov: prov(Location::entry(i, event)),
                payload,
                http: Some(ctx(false, u32::try_from(pos).unwrap_or(u32::MAX))),
            }));
        }

        // WebSocket messages (FORMATS.md §4.1): text frames only (opcode 1),
        // `send` = c2s, `receive` = s2c, `time` in epoch seconds; location
        // event = 1-based index in `_webSocketMessages`. No HttpContext: a
        // WebSocket message is a frame like a stdio line.
        for (n, m) in e.ws.0.unwrap_or_default().into_iter().enumerate() {
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
            self.parsed.records.push(Record::Frame(Frame {
                key: key.clone(),
                split: Split::Never,
                direction: Some(direction),
                ts,
                stated_latency: None,
                event_id: None,
                prov: prov(Location::entry(i, Some(n as u64 + 1))),
                payload,
                http: None,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Kind, Member};

    fn run(text: &str) -> Parsed {
        parse(Input {
            file: 7,
            name: "t.har",
            text,
        })
    }

    fn frames(p: &Parsed) -> Vec<&Frame> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some(f),
                _ => None,
            })
            .collect()
    }

    /// A HAR with the given entries (JSON texts).
    fn har(entries: &[String]) -> String {
        format!(
            "{{\"log\":{{\"version\":\"1.2\",\"creator\":{{\"name\":\"WebInspector\",\"version\":\"537.36\"}},\"entries\":[\n{}\n]}}}}",
            entries.join(",\n")
        )
    }

    fn entry(
        started: &str,
        time: &str,
        req_headers: &str,
        post: Option<&str>,
        status: i64,
        resp_headers: &str,
        content: &str,
    ) -> String {
        let post = post.map_or(String::new(), |t| {
            format!(
                ",\"postData\":{{\"mimeType\":\"application/json\",\"text\":{}}}",
                serde_json::to_string(t).unwrap()
            )
        });
        format!(
            "{{\"startedDateTime\":\"{started}\",\"time\":{time},\"request\":{{\"method\":\"{}\",\"url\":\"http://127.0.0.1:3000/mcp\",\"headers\":[{req_headers}]{post}}},\"response\":{{\"status\":{status},\"headers\":[{resp_headers}],\"content\":{content}}},\"timings\":{{\"send\":0,\"wait\":1,\"receive\":0}}}}",
            if post.is_empty() { "GET" } else { "POST" }
        )
    }

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
            matches!(&f[1].payload, Payload::Single(m) if m.negotiated.as_deref() == Some("2025-03-26"))
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
            p.errors[0].starts_with("entry 1: response body is not valid base64"),
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
            vec!["entry 2: response body not captured (status 200)".to_string()]
        );
        // No session header: keyed by origin.
        assert!(f.iter().all(|f| &*f.key == "http://127.0.0.1:3000"));
    }

    #[test]
    fn truncated_har_keeps_earlier_entries() {
        let ping = |n: u32| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#);
        let t = har(&[
            entry(
                "2025-01-01T12:00:00Z",
                "2",
                "",
                Some(&ping(1)),
                200,
                "",
                r#"{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"}"#,
            ),
            entry(
                "2025-01-01T12:00:01Z",
                "2",
                "",
                Some(&ping(2)),
                200,
                "",
                r#"{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"}"#,
            ),
            entry(
                "2025-01-01T12:00:02Z",
                "2",
                "",
                Some(&ping(3)),
                200,
                "",
                r#"{"mimeType":"application/json","text":"{}"}"#,
            ),
        ]);
        let cut = t.find("12:00:02Z").unwrap() + 3;
        let p = run(&t[..cut]);
        assert_eq!(frames(&p).len(), 4);
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0].starts_with(&format!("HAR ends early at byte {cut} ")),
            "{:?}",
            p.errors
        );
        assert!(
            p.errors[0].ends_with("2 entries read before it"),
            "{:?}",
            p.errors
        );
        // A syntax error in the middle names its place too.
        let bad = t.replacen("\"time\":2", "\"time\":2x", 3);
        let p = run(&bad);
        assert_eq!(frames(&p).len(), 0);
        assert!(
            p.errors[0].starts_with("HAR is not valid JSON at byte"),
            "{:?}",
            p.errors
        );
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
            p.errors[4],
            "entry 3: no response object; read as no response (status 0)"
        );
        assert_eq!(
            p.errors[5],
            "entry 4: no response object; read as no response (status 0)"
        );
        assert!(
            p.errors[0].starts_with("entry 0:")
                && p.errors[1].starts_with("entry 1:")
                && p.errors[2].starts_with("entry 2:")
        );
        assert!(p.errors[3].starts_with("entry 3: `startedDateTime`"));
        let f = frames(&p);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].payload.clone(), f[0].ts, &*f[0].key),
            (Payload::Unparseable, None, "t.har")
        );
        assert_eq!(f[0].http.as_ref().unwrap().status, 0);
        assert_eq!(&*f[1].key, "abc");
    }

    /// Every prefix of a case HAR parses without panicking; the complete
    /// entries before the cut are kept.
    #[test]
    fn every_prefix_of_a_case_is_safe() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/cases/b21_idle_post_stream_cut_by_edge.har"
        );
        let text = std::fs::read_to_string(path).expect("case b21");
        let full = frames(&run(&text)).len();
        let mut last = 0;
        for cut in (0..=text.len()).filter(|c| text.is_char_boundary(*c)) {
            let p = run(&text[..cut]);
            let n = frames(&p).len();
            assert!(n >= last && n <= full, "cut {cut}");
            assert!(
                text[cut..].trim().is_empty() || p.errors.len() == 1,
                "cut {cut}: {:?}",
                p.errors
            );
            last = n;
        }
        assert_eq!(last, full);
    }

    #[test]
    fn origins_and_query_params() {
        assert_eq!(
            origin("HTTPS://User@Example.COM/mcp?x=1").as_deref(),
            Some("https://example.com:443")
        );
        assert_eq!(
            origin("http://[::1]:8080/mcp").as_deref(),
            Some("http://[::1]:8080")
        );
        assert_eq!(origin("http://h:9/").as_deref(), Some("http://h:9"));
        assert_eq!(origin("/relative"), None);
        assert_eq!(
            query_param("/messages/?session_id=ab12#x", &["sessionId", "session_id"]),
            Some("ab12")
        );
        assert_eq!(
            query_param("/m?a=1&sessionId=&sessionId=z", &["sessionId"]),
            Some("z")
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
        // Status 101 without `text`: an error line (rule 12), no panic.
        assert_eq!(p.errors.len(), 1);
    }

    /// Messages and arrays of one parse, both directions (DESIGN.md rule 2).
    #[derive(Debug, Default, PartialEq)]
    struct Counts {
        requests: u64,
        notifications: u64,
        responses: u64,
        batches: u64,
    }

    fn count(p: &Parsed) -> Counts {
        let mut c = Counts::default();
        let add = |m: &crate::record::Message, c: &mut Counts| match m.kind {
            Kind::Request => c.requests += 1,
            Kind::Notification => c.notifications += 1,
            Kind::Response => c.responses += 1,
        };
        for f in frames(p) {
            match &f.payload {
                Payload::Single(m) => add(m, &mut c),
                Payload::Batch(ms) => {
                    c.batches += 1;
                    for m in ms {
                        if let Member::Message(m) = m {
                            add(m, &mut c);
                        }
                    }
                }
                _ => {}
            }
        }
        c
    }

    /// Every HAR of samples/cases and samples/real against its
    /// `.expected.json` `facts.counts` (legacy HTTP+SSE ones and b18 are only
    /// parsed: they are the next issue).
    #[test]
    fn sample_hars_match_expected_counts() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut checked = 0;
        let mut mismatches = Vec::new();
        for dir in ["samples/cases", "samples/real"] {
            let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .expect("samples folder")
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("har"))
                .collect();
            paths.sort();
            for path in paths {
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("")
                    .to_string();
                let text = std::fs::read_to_string(&path).expect("readable HAR");
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
                let p = parse(Input {
                    file: 0,
                    name: &name,
                    text,
                });
                if name.contains("legacy") || name.starts_with("b18") {
                    continue;
                }
                let exp_path = if dir.ends_with("real") {
                    format!("{}.expected.json", path.display())
                } else {
                    path.with_extension("expected.json").display().to_string()
                };
                let exp: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(&exp_path).expect("expected file"),
                )
                .expect("expected JSON");
                let c = &exp["facts"]["counts"];
                let want = Counts {
                    requests: c["requests"].as_u64().unwrap(),
                    notifications: c["notifications"].as_u64().unwrap(),
                    responses: c["responses"].as_u64().unwrap(),
                    batches: c["batches"].as_u64().unwrap(),
                };
                let got = count(&p);
                // Sessions: distinct keys carrying traffic (HAR keys never split).
                let keys: std::collections::BTreeSet<&str> =
                    frames(&p).iter().map(|f| &*f.key).collect();
                let sessions_ok = match &c["sessions"] {
                    serde_json::Value::Number(n) => n.as_u64() == Some(keys.len() as u64),
                    serde_json::Value::Array(a) => {
                        a.iter().any(|n| n.as_u64() == Some(keys.len() as u64))
                    }
                    _ => true,
                };
                if got != want || !sessions_ok || !p.errors.is_empty() {
                    mismatches.push(format!(
                        "{name}: got {got:?} sessions {} errors {:?}, want {want:?} sessions {}",
                        keys.len(),
                        p.errors,
                        c["sessions"]
                    ));
                }
                checked += 1;
            }
        }
        assert!(checked >= 20, "{checked}");
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }
}

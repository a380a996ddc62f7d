//! Server-sent events: the WHATWG event-stream parser (FORMATS.md §5) used
//! for `text/event-stream` bodies inside HAR entries (FORMATS.md §4.2), and
//! the reader of raw SSE captures (`curl -N` output, with or without `-i`
//! header blocks; DESIGN.md rule 1 "Raw SSE", rule 11).
//!
//! Rules (FORMATS.md §5, from WHATWG HTML "Interpreting an event stream"):
//! lines end at CRLF, lone LF or lone CR, mixed freely (never at U+0085,
//! U+2028 or U+2029: mitmproxy's Latin-1 mojibake of UTF-8 bodies holds
//! U+0085); one leading BOM is dropped; `:` starts a comment; a field's value
//! is what follows the first colon minus one leading space; a blank line
//! dispatches; an event whose data buffer is empty is not dispatched; an
//! unterminated last event is discarded at EOF.

use super::input::Input;
use crate::diag::Diagnostic;
use crate::record::jsonrpc::parse_payload;
use crate::record::{
    Direction, Frame, Location, Parsed, Payload, Provenance, Record, Split, SseEventId,
};

/// A raw SSE capture opens with an SSE field, a comment or an HTTP status
/// line (FORMATS.md §8.1, §5): the first non-blank line claims the input.
pub fn claims_start(line: &str) -> bool {
    line.starts_with(':')
        || ["data:", "event:", "id:", "retry:"]
            .iter()
            .any(|f| line.starts_with(f))
        || line
            .strip_prefix("HTTP/")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// One dispatched event (FORMATS.md §5 step 6).
///
/// Events whose `data` is empty (a `data` field with an empty value, such as
/// the MCP priming event `id: X` / `data:` of FORMATS.md §2.5) are
/// dispatched and returned; they are never JSON and callers skip them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event` field, or `message` when none was given (§5 step 6).
    pub event_type: String,
    /// The `data` lines joined with `\n`, without the final `\n` (§5 steps 5–6).
    pub data: String,
    /// The stream's last event ID at dispatch: set by `id` fields, kept across
    /// events, reset by an empty `id`, untouched by one holding NUL (§5 step 5).
    pub last_event_id: String,
    /// The stream's reconnection time in ms at dispatch, from the last `retry`
    /// field made of ASCII digits only (§5 step 5); `None` if none yet.
    pub retry: Option<u64>,
    /// 1-based line number of the event's first field line in the body.
    pub line: u64,
    /// Byte offset of that line in the body.
    pub offset: u64,
    /// Bytes from `offset` to the start of the blank line that dispatched it.
    pub len: u64,
}

/// One line of an event stream: text without its line end.
#[derive(Debug, Clone, Copy)]
struct SseLine<'a> {
    text: &'a str,
    /// 1-based line number.
    number: u64,
    /// Byte offset of the line's first byte.
    offset: usize,
    /// A line end (CR, LF or CRLF) follows; `false` only for a final
    /// unterminated line.
    terminated: bool,
}

/// Splits at CRLF, lone LF and lone CR (FORMATS.md §5 step 2).
fn sse_lines(text: &str) -> impl Iterator<Item = SseLine<'_>> {
    let bytes = text.as_bytes();
    let mut pos = 0usize;
    let mut number = 0u64;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        number += 1;
        match memchr::memchr2(b'\r', b'\n', &bytes[start..]) {
            Some(i) => {
                let end = start + i;
                pos = end + 1;
                if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
                    pos += 1;
                }
                // CR and LF are ASCII, so `end` is a char boundary.
                Some(SseLine {
                    text: text.get(start..end).unwrap_or(""),
                    number,
                    offset: start,
                    terminated: true,
                })
            }
            None => {
                pos = bytes.len();
                Some(SseLine {
                    text: text.get(start..).unwrap_or(""),
                    number,
                    offset: start,
                    terminated: false,
                })
            }
        }
    })
}

/// The parser's buffers (FORMATS.md §5 step 3).
#[derive(Debug, Default)]
struct SseParser {
    data: String,
    event_type: String,
    last_event_id: String,
    retry: Option<u64>,
    /// Line number and offset of the pending event's first field line.
    first: Option<(u64, usize)>,
}

impl SseParser {
    /// Processes one complete line (FORMATS.md §5 step 4); returns an event
    /// when the line is blank and the data buffer is not empty.
    fn line(&mut self, line: &SseLine<'_>) -> Option<SseEvent> {
        let text = line.text;
        if text.is_empty() {
            return self.dispatch(line.offset);
        }
        if text.starts_with(':') {
            return None;
        }
        let (field, value) = match text.find(':') {
            Some(c) => {
                let v = &text[c + 1..];
                (&text[..c], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (text, ""),
        };
        if self.first.is_none() {
            self.first = Some((line.number, line.offset));
        }
        match field {
            "event" => {
                self.event_type.clear();
                self.event_type.push_str(value);
            }
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => {
                self.last_event_id.clear();
                self.last_event_id.push_str(value);
            }
            // Digits beyond u64 are still digits; the old value is kept.
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
        None
    }

    /// Dispatch at a blank line starting at `blank_offset` (FORMATS.md §5
    /// step 6).
    fn dispatch(&mut self, blank_offset: usize) -> Option<SseEvent> {
        let first = self.first.take();
        if self.data.is_empty() {
            self.event_type.clear();
            return None;
        }
        if self.data.ends_with('\n') {
            self.data.pop();
        }
        let (line, offset) = first.unwrap_or((0, blank_offset));
        let event_type = if self.event_type.is_empty() {
            "message".to_string()
        } else {
            std::mem::take(&mut self.event_type)
        };
        self.event_type.clear();
        Some(SseEvent {
            event_type,
            data: std::mem::take(&mut self.data),
            last_event_id: self.last_event_id.clone(),
            retry: self.retry,
            line,
            offset: offset as u64,
            len: blank_offset.saturating_sub(offset) as u64,
        })
    }
}

/// Parses one whole event stream (a HAR `text/event-stream` body) into its
/// dispatched events, in order (FORMATS.md §5 steps 1–7).
///
/// One leading U+FEFF is dropped (§5 step 1; line numbers and offsets still
/// count from the start of `body`). Lines end at CR, LF or CRLF only (§5
/// step 2). The unterminated last event is discarded (§5 step 7). Events
/// with empty data (priming events) are returned; skip them before JSON
/// parsing (§5 "MCP use").
pub fn events(body: &str) -> Vec<SseEvent> {
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    for mut line in sse_lines(body) {
        if line.number == 1
            && let Some(rest) = line.text.strip_prefix('\u{feff}')
        {
            line.text = rest;
            line.offset += '\u{feff}'.len_utf8();
        }
        if !line.terminated {
            break;
        }
        if let Some(ev) = parser.line(&line) {
            out.push(ev);
        }
    }
    out
}

/// `true` for an HTTP status line as `curl -i` writes it (`HTTP/1.1 200 OK`,
/// `HTTP/2 200`).
fn is_status_line(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("HTTP/") else {
        return false;
    };
    let mut parts = rest.splitn(3, ' ');
    let version_ok = parts
        .next()
        .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
    let status_ok = parts
        .next()
        .is_some_and(|s| s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()));
    version_ok && status_ok
}

/// Where in `text` (a line of a JSON body) the next answer's status line
/// starts when curl wrote it after the body without a line end; `None`
/// when none does.
fn glued_status(text: &str) -> Option<usize> {
    text.match_indices("HTTP/")
        .map(|(p, _)| p)
        .find(|&p| p > 0 && is_status_line(&text[p..]))
}

/// Reads a raw SSE capture (FORMATS.md §5; DESIGN.md rules 1 and 11).
///
/// The file is `curl -N` output: an event stream, or with `-i` one or more
/// blocks of an HTTP status line, header lines and a blank line, each
/// followed by its stream. A status line starts a new stream: the pending
/// event of the previous one is discarded as at EOF (§5 step 7). Each
/// `message` event with non-empty data is one server→client frame: session
/// key = the block's `mcp-session-id` header (DESIGN.md rule 1), else the
/// file name; [`Split::Never`]; no timestamp; location `{line, event}` with
/// the 1-based line of the event's first field and its 1-based number among
/// the file's dispatched events (DESIGN.md rule 11). Data that is not a JSON
/// object or array is [`Payload::Unparseable`]. Other event types (the
/// legacy `endpoint` event, FORMATS.md §2.2) are not traffic.
pub fn parse_raw(input: Input<'_>) -> Parsed {
    let mut parsed = Parsed {
        format: "sse",
        dialect: "sse",
        one_direction: true,
        ..Default::default()
    };
    let mut parser = SseParser::default();
    let mut key: std::sync::Arc<str> = input.name.into();
    let mut in_headers = false;
    // The block's body is one JSON document (`Content-Type:
    // application/json`, a POST's answer), not an event stream.
    let mut json_block = false;
    let mut body = JsonBody::default();
    let mut event_no = 0u64;
    for mut line in sse_lines(input.text) {
        if line.number == 1
            && let Some(rest) = line.text.strip_prefix('\u{feff}')
        {
            line.text = rest;
            line.offset += '\u{feff}'.len_utf8();
        }
        if json_block
            && !in_headers
            && let Some(p) = glued_status(line.text)
        {
            // curl writes the next answer's status line right after a body
            // with no line end (`…}HTTP/1.1 200 OK`): the body ends there.
            body.line(&SseLine {
                text: &line.text[..p],
                ..line
            });
            line.text = &line.text[p..];
            line.offset += p;
        }
        if is_status_line(line.text) {
            unfinished(&parser, None, &mut parsed.errors);
            body.flush(&input, &key, &mut parsed);
            body.status = line.text.split_once(' ').map_or("", |(_, s)| s).to_string();
            parser = SseParser::default();
            key = input.name.into();
            in_headers = true;
            json_block = false;
            continue;
        }
        if in_headers {
            if line.text.is_empty() {
                in_headers = false;
            } else {
                header_line(line.text, &mut key, &mut json_block);
            }
            continue;
        }
        if json_block {
            body.line(&line);
            continue;
        }
        if !line.terminated {
            unfinished(&parser, Some(&line), &mut parsed.errors);
            return parsed;
        }
        let Some(ev) = parser.line(&line) else {
            continue;
        };
        event_no += 1;
        if ev.event_type != "message" || ev.data.is_empty() {
            continue;
        }
        parsed
            .records
            .push(event_frame(&input, &key, &ev, event_no));
    }
    unfinished(&parser, None, &mut parsed.errors);
    body.flush(&input, &key, &mut parsed);
    parsed
}

/// Reads one header line of a `curl -i` block: `Mcp-Session-Id` sets the
/// session `key`, `Content-Type` says whether the body is one JSON document
/// (`json_block`) rather than an event stream.
fn header_line(text: &str, key: &mut std::sync::Arc<str>, json_block: &mut bool) {
    let Some((name, value)) = text.split_once(':') else {
        return;
    };
    let (name, value) = (name.trim(), value.trim());
    if name.eq_ignore_ascii_case("mcp-session-id") && !value.is_empty() {
        *key = value.into();
    }
    if name.eq_ignore_ascii_case("content-type") {
        let v = value.to_ascii_lowercase();
        *json_block = v.contains("json") && !v.contains("event-stream");
    }
}

/// The server→client frame of one dispatched `message` event, `event_no`
/// (1-based) among the file's events, in session `key`.
fn event_frame(
    input: &Input<'_>,
    key: &std::sync::Arc<str>,
    ev: &SseEvent,
    event_no: u64,
) -> Record {
    Record::Frame(Frame {
        key: key.clone(),
        split: Split::Never,
        direction: Some(Direction::S2c),
        ts: None,
        stated_latency: None,
        event_id: SseEventId::new(&ev.last_event_id, &ev.data),
        prov: Provenance {
            file: input.file,
            location: Location {
                line: Some(ev.line),
                event: Some(event_no),
                entry: None,
            },
            offset: ev.offset,
            len: u32::try_from(ev.len).unwrap_or(u32::MAX),
        },
        payload: parse_payload(&ev.data).unwrap_or(Payload::Unparseable),
        http: None,
    })
}

/// The body of a `curl -i` block whose `Content-Type` is JSON (an HTTP
/// answer that is one JSON-RPC message or array, such as a 400 with an
/// error, FORMATS.md §2.1): its non-blank lines, read as one frame at the
/// next status line or the end.
#[derive(Default)]
struct JsonBody {
    /// 1-based line and byte offset of its first non-blank line.
    first: Option<(u64, usize)>,
    /// Byte offset just past its last non-blank line.
    end: usize,
    /// The block's status code and reason (`401 Unauthorized`).
    status: String,
}

impl JsonBody {
    fn line(&mut self, line: &SseLine<'_>) {
        if line.text.trim().is_empty() {
            return;
        }
        self.first.get_or_insert((line.number, line.offset));
        self.end = line.offset + line.text.len();
    }

    /// The body as one server→client frame (none when it was empty).
    fn flush(&mut self, input: &Input<'_>, key: &std::sync::Arc<str>, parsed: &mut Parsed) {
        let Some((line, offset)) = self.first.take() else {
            return;
        };
        let text = &input.text[offset..self.end];
        if !text.contains("\"jsonrpc\"") {
            // An OAuth refusal (`{"error":"invalid_token"}`), a proxy's
            // error page: an answer, but no JSON-RPC message.
            parsed.errors.push(
                Diagnostic::line(
                    line,
                    format!(
                        "the body of an HTTP {} answer is JSON but no JSON-RPC message (no \"jsonrpc\" member): not traffic, not read",
                        self.status
                    ),
                )
                .notice(),
            );
            return;
        }
        parsed.records.push(Record::Frame(Frame {
            key: key.clone(),
            split: Split::Never,
            direction: Some(Direction::S2c),
            ts: None,
            stated_latency: None,
            event_id: None,
            prov: Provenance {
                file: input.file,
                location: Location {
                    line: Some(line),
                    event: None,
                    entry: None,
                },
                offset: offset as u64,
                len: u32::try_from(text.len()).unwrap_or(u32::MAX),
            },
            payload: parse_payload(text).unwrap_or(Payload::Unparseable),
            http: None,
        }));
    }
}

/// An event the stream ends inside (no blank line after it, or a new
/// `curl -i` block starts) is discarded (FORMATS.md §5 step 7); say so,
/// naming its first line, so that it is not lost silently. `last` is a
/// final line without a line end.
fn unfinished(parser: &SseParser, last: Option<&SseLine<'_>>, errors: &mut Vec<Diagnostic>) {
    let pending = parser
        .first
        .filter(|_| !parser.data.is_empty() || last.is_some_and(|l| l.text.starts_with("data")));
    let at = pending.map(|(n, _)| n).or(last
        .filter(|l| l.text.starts_with("data"))
        .map(|l| l.number));
    if let Some(n) = at {
        errors.push(Diagnostic::whole(format!("the stream ends inside an event at line {n} (no blank line after it); that event is not read")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Kind;

    /// (type, data, last_event_id) of each event.
    fn ev(body: &str) -> Vec<(String, String, String)> {
        events(body)
            .into_iter()
            .map(|e| (e.event_type, e.data, e.last_event_id))
            .collect()
    }

    fn one(t: &str, d: &str, id: &str) -> Vec<(String, String, String)> {
        vec![(t.to_string(), d.to_string(), id.to_string())]
    }

    /// Every row of the FORMATS.md §5 table, with LF, CRLF and CR line ends.
    #[test]
    fn formats_section_5_table() {
        for eol in ["\n", "\r\n", "\r"] {
            let t = |s: &str| s.replace('\n', eol);
            assert_eq!(
                ev(&t("data: YHOO\ndata: +2\ndata: 10\n\n")),
                one("message", "YHOO\n+2\n10", ""),
                "{eol:?}"
            );
            assert_eq!(ev(&t(": test stream\n\n")), vec![], "{eol:?}");
            assert_eq!(
                ev(&t("data: first event\nid: 1\n\n")),
                one("message", "first event", "1")
            );
            assert_eq!(
                ev(&t("data: first event\nid: 1\n\ndata:second event\nid\n\n")),
                vec![
                    ("message".into(), "first event".into(), "1".into()),
                    ("message".into(), "second event".into(), "".into())
                ]
            );
            assert_eq!(ev(&t("data:  third event")), vec![]);
            assert_eq!(ev(&t("data:  third event\n")), vec![]);
            assert_eq!(
                ev(&t("data:  third event\n\n")),
                one("message", " third event", "")
            );
            assert_eq!(ev(&t("data\n\n")), one("message", "", ""));
            assert_eq!(ev(&t("data\ndata\n\n")), one("message", "\n", ""));
            assert_eq!(ev(&t("data:test\n\n")), ev(&t("data: test\n\n")));
            assert_eq!(ev(&t("id: 5\n\n")), vec![]);
            // lastEventId `5` persists to a later event.
            assert_eq!(ev(&t("id: 5\n\ndata: y\n\n")), one("message", "y", "5"));
            assert_eq!(
                ev(&t("id: 7\n\nid: a\0b\ndata: x\n\n")),
                one("message", "x", "7")
            );
            assert_eq!(ev(&t("id: a\0b\ndata: x\n\n")), one("message", "x", ""));
            assert_eq!(ev(&t("Data: x\n\n")), vec![]);
            assert_eq!(ev(&t("id: P1\ndata: \n\n")), one("message", "", "P1"));
            let j = ev(&t("data: {\"a\":\ndata: 1}\n\n"));
            assert_eq!(j, one("message", "{\"a\":\n1}", ""));
            assert!(serde_json::from_str::<serde_json::Value>(&j[0].1).is_ok());
        }
    }

    #[test]
    fn mixed_line_ends_types_retry_and_positions() {
        let body = "\u{feff}: ping\r\nevent: endpoint\rdata: /m?sessionId=1\n\r\nretry: 500\nretry: 5x\nid: 9\ndata: {}\r\n\r\n";
        let e = events(body);
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].event_type.as_str(), e[0].data.as_str(), e[0].line),
            ("endpoint", "/m?sessionId=1", 2)
        );
        assert_eq!(&body[e[0].offset as usize..][..6], "event:");
        assert_eq!(
            (
                e[1].event_type.as_str(),
                e[1].retry,
                e[1].last_event_id.as_str(),
                e[1].line
            ),
            ("message", Some(500), "9", 5)
        );
        assert_eq!(
            &body[e[1].offset as usize..][..e[1].len as usize],
            "retry: 500\nretry: 5x\nid: 9\ndata: {}\r\n"
        );
        // CRLF split across nothing: a CR at the very end still ends the line.
        assert_eq!(ev("data: a\r\r"), one("message", "a", ""));
    }

    #[test]
    fn an_event_the_stream_ends_inside_is_named() {
        fn input(text: &str) -> Input<'_> {
            Input {
                file: 0,
                name: "s.sse",
                text,
            }
        }
        // As the run shows them, named after the input.
        fn ends(text: &str) -> Vec<String> {
            parse_raw(input(text))
                .errors
                .into_iter()
                .map(|e| e.named("s.sse").to_string())
                .collect()
        }
        let msg = |n: u64| {
            vec![format!(
                "s.sse: the stream ends inside an event at line {n} (no blank line after it); that event is not read"
            )]
        };
        let a = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        assert_eq!(ends(&format!("{a}data: {{}}\n")), msg(3));
        assert_eq!(ends(&format!("{a}id: 2\ndata: {{}}")), msg(3));
        assert_eq!(ends(&format!("{a}data: {{}}")), msg(3));
        assert_eq!(ends(&format!("{a}data: {{}}\nHTTP/1.1 200 OK\n\n")), msg(3));
        // Complete streams, comments and field-less leftovers say nothing.
        assert!(ends(a).is_empty());
        assert!(ends(&format!("{a}: ping")).is_empty());
        assert!(ends(&format!("{a}id: 3\n")).is_empty());
        assert!(ends(&format!("{a}event: x\nretry: 1")).is_empty());
        assert_eq!(
            parse_raw(input(&format!("{a}data: {{}}\n"))).records.len(),
            1
        );
    }

    #[test]
    fn nel_is_not_a_line_end() {
        // mitmproxy's Latin-1 reading of "✅" is "â\u{9c}\u{85}" (samples README).
        let e = ev("data: {\"t\":\"\u{e2}\u{9c}\u{85}\"}\n\n");
        assert_eq!(e, one("message", "{\"t\":\"\u{e2}\u{9c}\u{85}\"}", ""));
    }

    #[test]
    fn raw_capture_with_header_blocks() {
        let text = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nMcp-Session-Id: S1\r\n\r\n\
                    id: 1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n\r\n\
                    data: {\"jsonrpc\":\"2.0\",\"id\":2,\"res\r\n\
                    HTTP/1.1 200 OK\n\nid: P\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\ndata: nope\n\n";
        let p = parse_raw(Input {
            file: 3,
            name: "x.sse",
            text,
        });
        let frames: Vec<&Frame> = p
            .records
            .iter()
            .map(|r| match r {
                Record::Frame(f) => f,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(frames.len(), 3);
        assert_eq!(&*frames[0].key, "S1");
        assert!(matches!(&frames[0].payload, Payload::Single(m) if m.kind == Kind::Notification));
        assert_eq!(
            frames[0].prov.location,
            Location {
                line: Some(5),
                event: Some(1),
                entry: None
            }
        );
        assert_eq!(&*frames[1].key, "x.sse");
        assert!(matches!(&frames[1].payload, Payload::Single(m) if m.kind == Kind::Response));
        // The priming event is event 2 and no frame; the cut event was discarded.
        assert_eq!(frames[1].prov.location.event, Some(3));
        assert_eq!(frames[2].payload, Payload::Unparseable);
        assert!(frames.iter().all(|f| f.direction == Some(Direction::S2c)
            && f.ts.is_none()
            && f.split == Split::Never));
        assert_eq!(&text[frames[0].prov.offset as usize..][..5], "id: 1");
    }

    /// A `curl -i` block answered with `Content-Type: application/json`
    /// (a Streamable HTTP server refusing a POST with a JSON-RPC error,
    /// or answering it in one body) is one frame of its whole body, at its
    /// first line, between event-stream blocks; curl writes the next status
    /// line right after a body with no line end (tests/data/real4/curl).
    #[test]
    fn a_json_answer_block_is_one_frame() {
        let text = "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\r\n\
                    {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\r\n\"message\":\"Bad Request: No valid session ID provided\"},\"id\":null}\
                    HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nmcp-session-id: S9\r\n\r\n\
                    event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n\
                    HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\r\n\
                    [{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]\r\n\
                    HTTP/1.1 202 Accepted\r\ncontent-type: application/json\r\n\r\n\
                    HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{\"error\":\"invalid_token\"}\r\n";
        let p = parse_raw(Input {
            file: 0,
            name: "c.txt",
            text,
        });
        let notes: Vec<String> = p
            .errors
            .iter()
            .map(|e| e.clone().named("c.txt").to_string())
            .collect();
        assert_eq!(
            notes,
            [
                "c.txt: line 22: the body of an HTTP 401 Unauthorized answer is JSON but no JSON-RPC message (no \"jsonrpc\" member): not traffic, not read"
            ]
        );
        assert!(p.errors[0].notice);
        let frames: Vec<&Frame> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some(f),
                _ => None,
            })
            .collect();
        assert_eq!(frames.len(), 3);
        let at = |f: &Frame| &text[f.prov.offset as usize..][..f.prov.len as usize];
        assert_eq!(
            at(frames[0]),
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\r\n\"message\":\"Bad Request: No valid session ID provided\"},\"id\":null}"
        );
        assert_eq!(frames[0].prov.location.line, Some(4));
        assert_eq!(&*frames[0].key, "c.txt");
        assert!(matches!(&frames[0].payload,
            Payload::Single(m) if m.kind == Kind::Response && m.error_code == Some(-32000)));
        assert_eq!(&*frames[1].key, "S9");
        assert_eq!(frames[1].prov.location.event, Some(1));
        assert_eq!(
            at(frames[2]),
            "[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]"
        );
        assert_eq!(frames[2].prov.location.line, Some(15));
        assert!(matches!(&frames[2].payload, Payload::Batch(b) if b.len() == 1));
    }

    /// Every raw `.sse` sample against its `.expected.json` counts. b20's
    /// expected counts are after SSE replay de-duplication (DESIGN.md
    /// `sse_replay_duplicate`), which is not ingest's job: its two replayed
    /// events are still here.
    #[test]
    fn raw_samples_match_expected_counts() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut checked = 0;
        let mut mismatches = Vec::new();
        for dir in ["tests/data/cases", "tests/data/real"] {
            let Ok(rd) = std::fs::read_dir(format!("{root}/{dir}")) else {
                continue;
            };
            for e in rd.flatten() {
                let path = e.path();
                if path.extension().and_then(|x| x.to_str()) != Some("sse") {
                    continue;
                }
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("")
                    .to_string();
                let text = std::fs::read_to_string(&path).expect("readable");
                let p = parse_raw(Input {
                    file: 0,
                    name: &name,
                    text: &text,
                });
                assert!(p.errors.is_empty());
                let exp = crate::ingest::testdata::expected(&path);
                let c = &exp["facts"]["counts"];
                let mut got = [0u64; 3];
                let mut keys = std::collections::BTreeSet::new();
                for r in &p.records {
                    if let Record::Frame(f) = r {
                        keys.insert(f.key.clone());
                        if let Payload::Single(m) = &f.payload {
                            got[match m.kind {
                                Kind::Request => 0,
                                Kind::Notification => 1,
                                Kind::Response => 2,
                            }] += 1;
                        }
                    }
                }
                let mut want = [
                    c["requests"].as_u64(),
                    c["notifications"].as_u64(),
                    c["responses"].as_u64(),
                ]
                .map(|v| v.unwrap_or(0));
                if name.starts_with("b20") {
                    want[1] += 2; // s1-43 and s1-44 replayed once each
                }
                if got != want || c["sessions"].as_u64() != Some(keys.len() as u64) {
                    mismatches.push(format!(
                        "{name}: got {got:?} in {} sessions, want {want:?} / {}",
                        keys.len(),
                        c["sessions"]
                    ));
                }
                checked += 1;
            }
        }
        assert!(checked >= 9, "{checked}");
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }
}

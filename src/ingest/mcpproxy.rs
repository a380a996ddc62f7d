//! mcp-proxy (PyPI, sparfenyuk) `--debug` logs (FORMATS.md §8.3.10):
//! Python logging lines `[L YYYY-MM-DD HH:MM:SS,mmm.mmm LOGGER] MESSAGE`
//! whose traffic lines are pydantic reprs, read by [`super::pyrepr`].
//!
//! The `mcp` SDK's debug lines carry the traffic of one leg:
//! - `Sending client message: root=JSONRPCRequest(…)` (Streamable HTTP
//!   client) or `Sending client message: SessionMessage(message=…)` /
//!   `message=JSONRPCMessage(root=…) metadata=…` (SSE client):
//!   client→server;
//! - `SSE message: root=…` (Streamable HTTP client) and `Received server
//!   message: root=…` (SSE client): server→client;
//! - `Validated client message: root=…` (SSE server, mcp-proxy's server
//!   mode): client→server; `Sending message via SSE: …` (SSE server):
//!   server→client.
//!
//! `Received message: …` of `mcp.server.lowlevel.server` (the other leg,
//! without ids or as `<RequestResponder object at 0x…>`) and `Sending
//! session message to writer` (a copy of the validated message) are not
//! traffic, nor is any other line (httpx, httpcore, headers, untagged
//! lines). The time is the line's local wall clock read as UTC, to the ms
//! (the `.mmm` after the comma repeats the ms). A traffic line whose repr
//! cannot be read is a `non_json_line`, reported once with its place.
//!
//! Sessions: the file, split at each `initialize`; in server mode over SSE
//! (several clients at once), each client message names its session (the
//! `Parsed session ID: SID` line of its POST), the key is SID, and each
//! server message goes to the session the `sessions` module finds.

use super::grammar::{Span, escape, span_of};
use super::input::Input;
use super::lines::{Line, Lines};
use super::pyrepr::{self, ReprError};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::parse_payload;
use crate::record::{Direction, Parsed, Payload, Split};

mod sessions;

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "mcp-proxy";

/// The traffic markers of the `mcp` SDK's debug lines and their direction.
const MARKERS: [(&str, Direction); 5] = [
    ("Sending client message: ", Direction::C2s),
    ("SSE message: ", Direction::S2c),
    ("Received server message: ", Direction::S2c),
    ("Validated client message: ", Direction::C2s),
    ("Sending message via SSE: ", Direction::S2c),
];

/// One Python logging line: level letter, `YYYY-MM-DD HH:MM:SS.mmm` (the
/// comma made a dot), logger, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine<'a> {
    /// `D`, `I`, `W`, `E`, `C`.
    pub level: char,
    /// The time as `parse_iso` reads it.
    pub time: String,
    /// The logger name.
    pub logger: &'a str,
    /// The text after `] `.
    pub message: &'a str,
}

/// Reads the logging prefix; `None` when the line has none.
pub fn log_line(line: &str) -> Option<LogLine<'_>> {
    let r = line.strip_prefix('[')?;
    let mut chars = r.chars();
    let level = chars.next().filter(char::is_ascii_uppercase)?;
    let r = r.get(1..)?.strip_prefix(' ')?;
    // `2026-12-01 23:03:42,682.682 `
    let date = r.get(..10)?;
    let clock = r.get(11..19)?;
    let b = r.as_bytes();
    let ok = date.bytes().enumerate().all(|(i, c)| {
        if i == 4 || i == 7 {
            c == b'-'
        } else {
            c.is_ascii_digit()
        }
    }) && b.get(10) == Some(&b' ')
        && clock.bytes().enumerate().all(|(i, c)| {
            if i == 2 || i == 5 {
                c == b':'
            } else {
                c.is_ascii_digit()
            }
        })
        && b.get(19) == Some(&b',');
    if !ok {
        return None;
    }
    let ms = r
        .get(20..23)
        .filter(|m| m.bytes().all(|c| c.is_ascii_digit()))?;
    let mut r = r.get(23..)?;
    if let Some(t) = r.strip_prefix('.') {
        r = t.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let r = r.strip_prefix(' ')?;
    let (logger, message) = r
        .split_once("] ")
        .or_else(|| r.strip_suffix(']').map(|l| (l, "")))?;
    if logger.is_empty() || logger.contains(' ') {
        return None;
    }
    Some(LogLine {
        level,
        time: format!("{date} {clock}.{ms}"),
        logger,
        message,
    })
}

/// The direction and the repr of a traffic message; `None` for any other
/// message.
pub fn traffic(message: &str) -> Option<(Direction, &str)> {
    MARKERS
        .iter()
        .find_map(|(m, d)| message.strip_prefix(m).map(|r| (*d, r)))
}

/// The row claims the line: a Python logging prefix, with a traffic marker
/// or an `mcp_proxy` logger (its start-up lines).
pub fn claims(line: &str) -> bool {
    log_line(line)
        .is_some_and(|l| traffic(l.message).is_some() || l.logger.starts_with("mcp_proxy"))
}

/// The JSON-RPC message of a repr (FORMATS.md §8.3.10) as JSON text:
/// `root=X(…)`, `message=JSONRPCMessage(root=X(…)) metadata=…`,
/// `SessionMessage(message=…, metadata=…)` or `X(…)`; an object whose only
/// member is `root` (a `JSONRPCMessage`) is its root.
pub fn repr_json(repr: &str) -> Result<String, ReprError> {
    repr_value(repr).map(|v| v.to_string())
}

/// [`repr_json`] as a JSON value.
fn repr_value(repr: &str) -> Result<serde_json::Value, ReprError> {
    let t = repr.trim();
    let (skip, whole) = if let Some(r) = t.strip_prefix("root=") {
        (t.len() - r.len(), false)
    } else if let Some(r) = t.strip_prefix("message=") {
        (t.len() - r.len(), false)
    } else {
        (0, true)
    };
    let body = &t[skip..];
    let v = if whole {
        pyrepr::read_whole(body)
    } else {
        // `message=…` is followed by ` metadata=…`.
        pyrepr::read_value(body).map(|x| x.0)
    }
    .map_err(|e| ReprError {
        at: e.at + skip,
        what: e.what,
    })?;
    let mut v = v;
    if let Some(m) = v.as_object_mut().and_then(|o| o.remove("message")) {
        v = m;
    }
    while let Some(inner) = v
        .as_object_mut()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.remove("root"))
    {
        v = inner;
    }
    Ok(v)
}

/// Parses an mcp-proxy log (FORMATS.md §8.3.10).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), McpProxy::default())
}

/// The `Parsed session ID: SID` line of a server-mode POST (the session of
/// the client message logged right after it).
const PARSED_SESSION: &str = "Parsed session ID: ";

/// One traffic line, kept until the end of the log, when the sessions of
/// server messages are known.
struct Item {
    line: u64,
    direction: Direction,
    ts: Option<crate::record::Micros>,
    part: Span,
    payload: Payload,
    /// A client message: the session its POST named.
    session: Option<Span>,
    /// A progress's value; a response's result shape (see [`sessions`]).
    progress: Option<f64>,
    family: Option<&'static str>,
}

/// Counts unreadable reprs (the first is reported); keeps the traffic.
#[derive(Default)]
struct McpProxy {
    unreadable: u64,
    /// The line of the last unreadable repr.
    last_bad: u64,
    /// The session of the last `Parsed session ID` line.
    session: Option<Span>,
    items: Vec<Item>,
    /// `Created new transport with session ID: SID` lines (Streamable
    /// HTTP sessions, whose messages mcp-proxy does not log): how many, and
    /// the first's line.
    http_sessions: u64,
    first_http: u64,
}

/// mcp-proxy's (the `mcp` SDK's) line for a new Streamable HTTP session.
const HTTP_SESSION: &str = "Created new transport with session ID: ";

/// A progress's value and the method a result's shape answers.
fn hints(v: &serde_json::Value) -> (Option<f64>, Option<&'static str>) {
    let progress = v
        .get("params")
        .and_then(|p| p.get("progress"))
        .and_then(serde_json::Value::as_f64);
    let family = v
        .get("result")
        .and_then(serde_json::Value::as_object)
        .and_then(sessions::result_method);
    (progress, family)
}

impl LineReader for McpProxy {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let Some(l) = log_line(line.text) else {
            sink.other();
            return;
        };
        let text = sink.input().text;
        if l.message.starts_with(HTTP_SESSION) {
            self.http_sessions += 1;
            if self.http_sessions == 1 {
                self.first_http = line.number;
            }
            sink.other();
            return;
        }
        if let Some(sid) = l.message.strip_prefix(PARSED_SESSION) {
            let sid = sid.trim();
            self.session = (!sid.is_empty()).then(|| span_of(text, sid));
            sink.other();
            return;
        }
        let Some((direction, repr)) = traffic(l.message) else {
            sink.other();
            return;
        };
        let ts = sink.ts(line.number, &l.time);
        let value = repr_value(repr).map_err(|e| (e.at, e.what));
        let (progress, family) = value.as_ref().map(hints).unwrap_or_default();
        let payload =
            value.and_then(|v| parse_payload(&v.to_string()).map_err(|_| (0, "a JSON-RPC object")));
        let payload = match payload {
            Ok(p) => p,
            Err((off, what)) => {
                self.unreadable += 1;
                self.last_bad = line.number;
                if self.unreadable == 1 {
                    sink.error(
                        line.number,
                        &format!(
                            "Python repr not read: expected {what} at byte {off} of \"{}\"",
                            escape(repr, 60)
                        ),
                    );
                }
                Payload::NonJson
            }
        };
        self.items.push(Item {
            line: line.number,
            direction,
            ts,
            part: span_of(text, repr),
            payload,
            session: (direction == Direction::C2s)
                .then(|| self.session.clone())
                .flatten(),
            progress,
            family,
        });
    }

    fn end(&mut self, sink: &mut LineSink<'_>) {
        if self.unreadable > 1 {
            sink.error(
                self.last_bad,
                &format!(
                    "{} more unreadable Python reprs (the last at this line)",
                    self.unreadable - 1
                ),
            );
        }
        if self.http_sessions > 0 {
            let n = self.http_sessions;
            sink.notice(
                self.first_http,
                &format!(
                    "{n} Streamable HTTP session{} (`Created new transport with session ID: …`, the first at this line): mcp-proxy logs no message bodies for that transport (`RequestResponder object at 0x…`), so {} traffic is not in this log and is not audited; its SSE sessions' messages are",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "its" } else { "their" }
                ),
            );
        }
        emit(sink, std::mem::take(&mut self.items));
    }
}

/// What attribution needs of one kept line.
fn ev<'t>(text: &'t str, item: &Item) -> sessions::Ev<'t> {
    let m = match &item.payload {
        Payload::Single(m) => Some(m),
        _ => None,
    };
    let client = item.direction == Direction::C2s;
    sessions::Ev {
        line: item.line,
        client,
        session: item.session.clone().and_then(|r| text.get(r)),
        kind: m.map(|m| m.kind),
        id: m.and_then(|m| m.id.loose()),
        token: m.and_then(|m| m.progress_token()).and_then(|t| t.loose()),
        progress: item.progress,
        family: if client {
            m.and_then(|m| m.method.as_deref())
                .and_then(sessions::method_family)
        } else {
            item.family
        },
    }
}

/// Emits the kept lines: in a log whose POSTs name their sessions (server
/// mode over SSE), each in its session ([`sessions::attribute`]; the key
/// is the SID, never split); else all with the file as key.
fn emit(sink: &mut LineSink<'_>, items: Vec<Item>) {
    let input = sink.input();
    let evs: Vec<sessions::Ev<'_>> = items.iter().map(|i| ev(input.text, i)).collect();
    let att = if evs.iter().any(|e| e.session.is_some()) {
        sessions::attribute(&evs)
    } else {
        sessions::Attributed::default()
    };
    let mut gaps = att.gaps.iter().peekable();
    for (i, mut item) in items.into_iter().enumerate() {
        let owner = att.owners.get(i).copied().flatten();
        if let Some(&&(_, reply)) = gaps.peek().filter(|g| g.0 == i) {
            gaps.next();
            if let Payload::Single(m) = &mut item.payload {
                m.extra.get_or_insert_default().capture_gap = Some(
                    format!(
                        "mcp-proxy names no session on server messages: the reply at line \
                         {reply} had this id while several sessions waited for it, and was \
                         counted in the one that asked first"
                    )
                    .into(),
                );
            }
        }
        let at = At {
            key: owner.unwrap_or(input.name),
            split: if owner.is_some() {
                Split::Never
            } else {
                Split::ByStart
            },
            direction: Some(item.direction),
            ts: item.ts,
            line: item.line,
        };
        let part = input.text.get(item.part).unwrap_or("");
        match item.payload {
            Payload::NonJson => sink.non_json(at, part),
            p => sink.frame(at, part, p),
        }
    }
    if let Some((line, n)) = att.unsure {
        sink.notice(
            line,
            &format!(
                "{n} server message(s) could not be given to one session with certainty: \
                 several SSE sessions waited for the same id or progress token, and mcp-proxy \
                 names no session on `Sending message via SSE` nor on the lines around it \
                 (FORMATS.md §8.3.10); each is counted in the session that asked first (a \
                 capture gap; first at this line)"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::testdata::lines_read;
    use crate::record::{Id, Kind, Payload, Record};

    #[test]
    fn logging_prefix() {
        let l = log_line(
            "[D 2026-12-01 23:03:42,682.682 mcp.client.streamable_http] SSE message: root=X()",
        )
        .unwrap();
        assert_eq!(
            (l.level, l.time.as_str(), l.logger, l.message),
            (
                'D',
                "2026-12-01 23:03:42.682",
                "mcp.client.streamable_http",
                "SSE message: root=X()"
            )
        );
        let l = log_line("[I 2026-12-01 23:03:42,683 httpx] HTTP Request: POST").unwrap();
        assert_eq!((l.level, l.logger), ('I', "httpx"));
        assert!(log_line("[D 2026-12-01 23:03:42.682 x] y").is_none());
        assert!(log_line("[d 2026-12-01 23:03:42,682.682 x] y").is_none());
        assert!(log_line("[D 2026-12-01 23:03:42,682.682 a b] y").is_none());
        assert!(log_line("[D 2026-12-01").is_none());
        assert!(claims(
            "[D 2026-12-01 23:03:42,589.589 mcp_proxy.__main__] Starting SSE/StreamableHTTP client and stdio server"
        ));
        assert!(claims(
            "[D 2026-12-01 23:03:42,682.682 mcp.client.sse] Received server message: root=X()"
        ));
        assert!(!claims(
            "[D 2026-12-01 23:03:42,682.682 httpcore.http11] send_request_headers.complete"
        ));
    }

    #[test]
    fn reprs_to_json() {
        assert_eq!(
            repr_json("root=JSONRPCRequest(method='ping', params=None, jsonrpc='2.0', id=15)")
                .unwrap(),
            r#"{"id":15,"jsonrpc":"2.0","method":"ping"}"#
        );
        assert_eq!(
            repr_json("message=JSONRPCMessage(root=JSONRPCResponse(jsonrpc='2.0', id=1, result={'tools': []})) metadata=None").unwrap(),
            r#"{"id":1,"jsonrpc":"2.0","result":{"tools":[]}}"#
        );
        assert_eq!(
            repr_json("SessionMessage(message=JSONRPCMessage(root=JSONRPCNotification(method='notifications/progress', params={'progressToken': 12, 'progress': 1.0}, jsonrpc='2.0')), metadata=ServerMessageMetadata(related_request_id=12))").unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":12}}"#
        );
        let e = repr_json("root=JSONRPCRequest(method='x', id=").unwrap_err();
        assert_eq!((e.at, e.what), (35, "a value"));
    }

    /// Server mode with a Streamable HTTP client: its session shows, its
    /// messages do not; one notice says so.
    #[test]
    fn streamable_http_sessions_are_said() {
        let text = "[I 2026-12-04 19:49:20,540.540 mcp.server.streamable_http_manager] Created new transport with session ID: 75208ff2\n\
INFO:     127.0.0.1:49452 - \"POST /mcp HTTP/1.1\" 200 OK\n\
[I 2026-12-04 19:49:21,540.540 mcp.server.streamable_http_manager] Created new transport with session ID: 9911aa00\n";
        let p = parse(Input {
            file: 0,
            name: "p.log",
            text,
        });
        let notes: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            notes,
            [
                "line 1: 2 Streamable HTTP sessions (`Created new transport with session ID: …`, the first at this line): mcp-proxy logs no message bodies for that transport (`RequestResponder object at 0x…`), so their traffic is not in this log and is not audited; its SSE sessions' messages are"
            ]
        );
        assert!(p.errors.iter().all(|e| e.notice));
        assert!(p.records.is_empty());
    }

    #[test]
    fn reads_both_directions_with_times() {
        let text = "[D 2026-12-01 23:03:42,589.589 mcp_proxy.__main__] Starting\n\
[D 2026-12-01 23:03:42,682.682 mcp.client.streamable_http] Sending client message: root=JSONRPCRequest(method='initialize', params={'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 'mcp', 'version': '0.1.0'}}, jsonrpc='2.0', id=0)\n\
[I 2026-12-01 23:03:42,683.683 mcp_proxy.httpx_client] Request Headers: {'host': '127.0.0.1:18304'}\n\
[D 2026-12-01 23:03:42,706.706 mcp.client.streamable_http] SSE message: root=JSONRPCResponse(jsonrpc='2.0', id=0, result={'protocolVersion': '2025-11-25', 'serverInfo': {'name': 'capture-demo-py1', 'version': '1.30.0'}})\n\
[D 2026-12-01 23:03:42,738.738 mcp.server.lowlevel.server] Received message: root=InitializedNotification(method='notifications/initialized', params=None, jsonrpc='2.0')\n\
[D 2026-12-01 23:03:43,000.000 mcp.client.streamable_http] Sending client message: root=JSONRPCError(jsonrpc='2.0', id=0, error=ErrorData(code=-32600, message='Sampling not supported', data=None))\n\
[D 2026-12-01 23:03:43,001.001 mcp.client.streamable_http] SSE message: root=JSONRPCRequest(method='x', id=\n\
untagged traceback line\n";
        let p = parse(Input {
            file: 0,
            name: "p.log",
            text,
        });
        assert_eq!(
            lines_read(&p),
            vec![
                (2, Some(Direction::C2s), false, Some(1_796_166_222_682_000)),
                (4, Some(Direction::S2c), false, Some(1_796_166_222_706_000)),
                (6, Some(Direction::C2s), false, Some(1_796_166_223_000_000)),
                (7, Some(Direction::S2c), true, Some(1_796_166_223_001_000)),
            ]
        );
        assert_eq!(p.other_lines, 4);
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0].message.contains("expected a value at byte 35"),
            "{:?}",
            p.errors
        );
        let msgs: Vec<(Kind, Id, bool, bool, Option<i64>)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => match &f.payload {
                    Payload::Single(m) => Some((
                        m.kind,
                        m.id.clone(),
                        m.has_result,
                        m.problems.is_empty(),
                        m.error_code,
                    )),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            msgs,
            vec![
                (Kind::Request, Id::Int(0), false, true, None),
                (Kind::Response, Id::Int(0), true, true, None),
                (Kind::Response, Id::Int(0), false, true, Some(-32600)),
            ]
        );
    }

    #[test]
    fn server_mode_sessions_from_parsed_session_lines() {
        // Two SSE clients both ask id 1; each POST names its session, the
        // replies name none and go to the session waiting for their id.
        let l = |t: &str, logger: &str, m: &str| {
            format!("[D 2026-12-04 18:39:40,{t}.{t} {logger}] {m}\n")
        };
        let sse = "mcp.server.sse";
        let text = [
            l("100", sse, "Parsed session ID: aaaa-1"),
            l("101", sse, "Validated client message: root=JSONRPCRequest(method='tools/list', params=None, jsonrpc='2.0', id=1)"),
            l("102", sse, "Parsed session ID: bbbb-2"),
            l("103", sse, "Validated client message: root=JSONRPCRequest(method='prompts/list', params=None, jsonrpc='2.0', id=2)"),
            l("104", sse, "Sending message via SSE: SessionMessage(message=JSONRPCMessage(root=JSONRPCResponse(jsonrpc='2.0', id=2, result={'prompts': []})), metadata=None)"),
            l("105", "sse_starlette.sse", "chunk: b'event: message'"),
            l("106", sse, "Sending message via SSE: SessionMessage(message=JSONRPCMessage(root=JSONRPCResponse(jsonrpc='2.0', id=1, result={'tools': []})), metadata=None)"),
        ]
        .concat();
        let p = parse(Input {
            file: 0,
            name: "p.log",
            text: &text,
        });
        let keys: Vec<(&str, Split)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((&*f.key, f.split)),
                _ => None,
            })
            .collect();
        assert_eq!(
            keys,
            vec![
                ("aaaa-1", Split::Never),
                ("bbbb-2", Split::Never),
                ("bbbb-2", Split::Never),
                ("aaaa-1", Split::Never)
            ]
        );
        assert_eq!((p.errors.len(), p.other_lines), (0, 3));
        // Without `Parsed session ID` lines (client mode) the file is the key.
        let p = parse(Input {
            file: 0,
            name: "p.log",
            text: &text.replace("Parsed session ID", "Parsed nothing"),
        });
        assert!(p.records.iter().all(
            |r| matches!(r, Record::Frame(f) if &*f.key == "p.log" && f.split == Split::ByStart)
        ));
    }

    #[test]
    fn never_panics_on_odd_input() {
        for t in [
            "[D 2026-12-01 23:03:42,682.682 x] SSE message: ",
            "[D 2026-12-01 23:03:42,682.682 x] SSE message: root=",
            "[D 2026-12-01 23:03:42,682.682 x] SSE message: root=X(((((",
            "[D 2026-12-01 23:03:42,682.682 x] SSE message: root={'a': [}",
            "[D 2026-12-01 23:03:42,682.682 x] SSE message: message=é",
            "[D 2026-13-45 99:99:99,682.682 x] SSE message: root=X(id=1)",
            "[D 2026-12-01 23:03:42,68",
            "[é",
            "[D é",
        ] {
            let _ = parse(Input {
                file: 0,
                name: "x",
                text: t,
            });
        }
    }
}

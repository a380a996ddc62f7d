//! mcp-remote logs (FORMATS.md table 8.2, the row after row 8; §8.3.9): its plain stderr
//! (`[PID] TEXT`) and its `--debug` file (`[ISO][PID] TEXT`).
//!
//! - `[ISO][PID] Local → Remote message {SUMMARY}` / `Remote → Local
//!   message {SUMMARY}` (debug file only): a one-line JSON summary of one
//!   bridged message, client→server or server→client. Summaries have no
//!   `jsonrpc`, `params` is a JSON *string*, a result is the string
//!   `"result-present"`, a client's reply to a server request is a bare
//!   `{"id":N}`: each is read as a message rebuilt from its summary
//!   (FORMATS.md §8.1 "Rebuilt messages"; an id-only reply is a response).
//! - `[PID] {` (plain stderr): the forwarded `initialize`, pretty-printed
//!   over the following unprefixed lines until its brackets balance; read
//!   as JSON in the direction of the summary line before it. The plain
//!   stderr shows every other message only as `[Local→Remote] METHOD` /
//!   `[Remote→Local] METHOD-or-ID`, with no body and no request id: the
//!   log cannot show the initialize's answer, so a `missing_response` of it
//!   is a capture gap (DESIGN.md rule 12), not a fault.
//! - The stderr of a `--debug` run has the summaries too, as multi-line
//!   util.inspect (`[ISO][PID] Local → Remote message {` + `  method:
//!   'tools/list',` … `}`), read by [`super::objdump`] with the same rules.
//! - Once a summary has come, the pretty body is skipped (the summary
//!   before it holds the message), as are the `[Local→Remote] X` lines.
//!
//! Every other line (start-up, OAuth discovery, `Token request stack trace`
//! blocks, `[PID] ` with nothing after it, `Shutting down...`) is not
//! traffic: a line that merely parses as JSON (`[30601]`) never is.
//! `Failing requests the dropped session can no longer answer {"ids":[…]}`
//! is mcp-remote answering those requests itself (error -32001): each id is
//! a rebuilt error reply, server→client.
//!
//! Sessions: the key is the file and the line's pid (`FILE[PID]`): one
//! debug file is shared by every mcp-remote process of its server URL, and
//! concurrent ones interleave. `Starting mcp-remote …` is a process start
//! of its pid; without one, sessions start at each `initialize`.

use super::grammar::{continue_body, iso_ts};
use super::input::Input;
use super::lines::{Line, Lines};
use super::objdump::{Body, inspect_json, read_body};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::jsonrpc::parse_message;
use crate::record::{Direction, Kind, Message, Parsed, Payload};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "mcp-remote";

/// Why the plain stderr can show no answer to its one body (the gap named
/// in a `missing_response` detail).
pub const PLAIN_GAP: &str = "mcp-remote's plain stderr prints no reply bodies and no request ids (replies only as `[Remote→Local] ID` summary lines)";

/// One line of an mcp-remote log, after its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpRemoteLine<'a> {
    /// `Local → Remote message {…}` / `Remote → Local message {…}`.
    Summary {
        /// Local→Remote is client→server.
        direction: Direction,
        /// The one-line JSON summary.
        json: &'a str,
    },
    /// `[Local→Remote] X` / `[Remote→Local] X`: a method or a reply id.
    Named {
        /// Local→Remote is client→server.
        direction: Direction,
        /// The method, or the id of a reply.
        what: &'a str,
    },
    /// `{`: the first line of a pretty-printed message.
    BodyStart(&'a str),
    /// `Starting mcp-remote …`: a process start (debug file).
    Start,
    /// `Failing requests the dropped session can no longer answer {"ids":[…]}`:
    /// mcp-remote answers those requests itself with error -32001.
    Failing(&'a str),
    /// `Error from remote server … Error POSTing to endpoint: …`: a message's
    /// POST failed (a server that restarted and lost the session answers
    /// 400), and mcp-remote answers a request it carried itself with an
    /// error it does not log: a reply whose id the log lost.
    PostFailed,
    /// Anything else after the prefix (start-up, OAuth, `Shutting down`).
    Other,
}

/// The prefix of one line: `[ISO][PID] ` (debug file) or `[PID] ` (plain
/// stderr, where the pid may be doubled); the ISO time and the rest.
/// `None` when the line has no pid prefix.
pub fn prefix(line: &str) -> Option<(Option<&str>, &str)> {
    parts(line).map(|(ts, _, rest)| (ts, rest))
}

/// [`prefix`] with the pid: the ISO time, the pid's digits and the rest.
pub fn parts(line: &str) -> Option<(Option<&str>, &str, &str)> {
    let (ts, rest) = match line.strip_prefix('[').and_then(|r| iso_ts(r).ok()) {
        Some((r, ts)) => (Some(ts), r.strip_prefix(']')?),
        None => (None, line),
    };
    let (pid_text, mut rest) = pid(rest)?;
    if ts.is_none() {
        // `[PID] [PID] Connecting to remote server: …`
        if let Some((_, r)) = pid(rest) {
            rest = r;
        }
    }
    Some((ts, pid_text, rest))
}

/// `[DIGITS]` and then one space (the debug file writes `][PID] `, the
/// plain stderr `[PID] `); the rest. A `[PID]` with nothing after it is a
/// prefix with an empty message. Returns the digits and the rest.
fn pid(s: &str) -> Option<(&str, &str)> {
    let r = s.strip_prefix('[')?;
    let n = r.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > 10 {
        return None;
    }
    let digits = r.get(..n)?;
    let r = r.get(n..)?.strip_prefix(']')?;
    Some((digits, r.strip_prefix(' ').unwrap_or(r)))
}

/// Reads the text after the prefix.
pub fn split(rest: &str) -> McpRemoteLine<'_> {
    for (marker, direction) in [
        ("Local → Remote message ", Direction::C2s),
        ("Remote → Local message ", Direction::S2c),
    ] {
        if let Some(json) = rest.strip_prefix(marker) {
            return McpRemoteLine::Summary {
                direction,
                json: json.trim_end(),
            };
        }
    }
    for (marker, direction) in [
        ("[Local→Remote] ", Direction::C2s),
        ("[Remote→Local] ", Direction::S2c),
    ] {
        if let Some(what) = rest.strip_prefix(marker) {
            return McpRemoteLine::Named {
                direction,
                what: what.trim_end(),
            };
        }
    }
    if rest.trim_end() == "{" {
        return McpRemoteLine::BodyStart(rest);
    }
    if rest.starts_with("Starting mcp-remote") {
        return McpRemoteLine::Start;
    }
    if let Some(ids) = rest.strip_prefix(FAILING) {
        return McpRemoteLine::Failing(ids.trim_end());
    }
    // The debug file's `{"stack":"SdkHttpError: Error POSTing …"}` and
    // stderr's `: SdkHttpError: Error POSTing …` (each failure is logged
    // more than once: one lost reply claims one request).
    if let Some(err) = rest.strip_prefix("Error from remote server")
        && (err.starts_with(" {\"stack\":\"SdkHttpError: Error POSTing to endpoint")
            || err.starts_with(": SdkHttpError: Error POSTing to endpoint"))
    {
        return McpRemoteLine::PostFailed;
    }
    McpRemoteLine::Other
}

/// mcp-remote's `failPendingRequests`: the requests named after it are
/// answered by mcp-remote itself (FORMATS.md §8.3.9).
const FAILING: &str = "Failing requests the dropped session can no longer answer ";

/// The error mcp-remote sends for each request `failPendingRequests`
/// names (its code; the log does not print the reply).
const FAILED_LOCALLY: &str =
    "mcp-remote failed it itself: the dropped session can no longer answer it";

/// The row claims the line: a pid prefix followed by a traffic summary
/// (`[Local→Remote] `, `[Remote→Local] `, `Local → Remote message `,
/// `Remote → Local message `). A bare `[PID] ` never claims.
pub fn claims(line: &str) -> bool {
    prefix(line).is_some_and(|(_, rest)| {
        matches!(
            split(rest),
            McpRemoteLine::Summary { .. } | McpRemoteLine::Named { .. }
        ) || STARTUP.iter().any(|s| rest.starts_with(s))
    })
}

/// What mcp-remote 0.15 writes as it connects, before any message (and
/// all a log of a server it could not reach holds): claimed, so such a log
/// is "an mcp-remote log with no traffic", not an unknown format.
const STARTUP: [&str; 2] = [
    "Connecting to remote server: ",
    "Using transport strategy: ",
];

/// A line that starts a new log line (so ends a pretty body).
fn is_start(line: &str) -> bool {
    prefix(line).is_some()
}

/// The message rebuilt from a debug-file summary (FORMATS.md §8.3.9): the
/// summary's members; an object with an id and no `method`, `result` or
/// `error` is a reply whose content the bridge did not log. `None` when the
/// summary is no JSON object.
pub fn summary_message(json: &str) -> Option<Message> {
    let m = parse_message(json).ok()?;
    // `params` logged as a JSON string: read its text as the params (a
    // cancellation's `requestId`, a call's `_meta.progressToken`).
    let unwrapped = json
        .contains("\"params\":\"")
        .then(|| params_unwrapped(json))
        .flatten()
        .and_then(|text| parse_message(&text).ok());
    Some(summarised(unwrapped.unwrap_or(m)))
}

/// The summary `json` with its string `params` replaced by the object or
/// array that string holds; `None` when it holds none.
fn params_unwrapped(json: &str) -> Option<String> {
    let mut v: serde_json::Value = serde_json::from_str(json).ok()?;
    let inner = v.get("params")?.as_str()?;
    let params: serde_json::Value = serde_json::from_str(inner).ok()?;
    if !(params.is_object() || params.is_array()) {
        return None;
    }
    v["params"] = params;
    Some(v.to_string())
}

/// A message read from a summary, rebuilt (FORMATS.md §8.3.9).
fn summarised(mut m: Message) -> Message {
    if m.kind == Kind::Response && !m.has_result && !m.has_error {
        m.has_result = true;
    }
    m.problems.clear();
    m.rebuilt = true;
    m
}

/// Parses an mcp-remote log (FORMATS.md §8.2, §8.3.9).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), McpRemote::default())
}

/// What the reader has seen so far.
#[derive(Default)]
struct McpRemote {
    /// The direction of the last `[Local→Remote]`/`[Remote→Local]` line
    /// (a pretty body follows it).
    last: Option<Direction>,
    /// A `… message {…}` summary came: the log is a `--debug` one, whose
    /// summaries hold every message (the pretty initialize is a copy).
    summaries: bool,
    /// Plain stderr: the ids of the pretty-printed requests (the
    /// initialize), whose `[Remote→Local] ID` line is their reply.
    pretty_ids: Vec<String>,
    /// Plain stderr: `[Local→Remote] METHOD` lines of requests (not
    /// notifications), `[Remote→Local] ID` lines, and the first of either.
    named_requests: u64,
    named_replies: u64,
    first_named: Option<u64>,
}

impl LineReader for McpRemote {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>) {
        let Some((ts_text, pid, after)) = parts(line.text) else {
            sink.other();
            return;
        };
        // Several mcp-remote processes may write one debug file (it is per
        // server URL): each pid is its own session (FORMATS.md §8.3.9).
        let key = format!("{}[{pid}]", sink.input().name);
        match split(after) {
            McpRemoteLine::Summary { direction, json } => {
                self.summaries = true;
                let ts = ts_text.and_then(|t| sink.ts(line.number, t));
                let at = At::by_start(&key, Some(direction), ts, line.number);
                summary(sink, at, json, rest);
            }
            McpRemoteLine::Named { direction, what } => {
                self.last = Some(direction);
                self.first_named.get_or_insert(line.number);
                // A reply is named by its id (a number, or a quoted string),
                // a request or notification by its method.
                let is_id = what.parse::<i64>().is_ok() || what.starts_with('"');
                match direction {
                    Direction::C2s if !is_id && !what.starts_with("notifications/") => {
                        self.named_requests += 1;
                    }
                    Direction::S2c if is_id => self.named_replies += 1,
                    _ => {}
                }
                // The reply to a request the log printed whole (plain
                // stderr's initialize): a rebuilt response with that id.
                if direction == Direction::S2c
                    && !self.summaries
                    && let Some(i) = self.pretty_ids.iter().position(|id| id == what)
                {
                    self.pretty_ids.remove(i);
                    if let Some(m) = summary_message(&format!("{{\"id\":{what}}}")) {
                        let at = At::by_start(&key, Some(direction), None, line.number);
                        sink.frame(at, line.text, Payload::Single(m));
                        return;
                    }
                }
                sink.other();
            }
            McpRemoteLine::BodyStart(body) => {
                let (body, taken) = continue_body(sink.input().text, rest, body, is_start);
                for _ in 0..taken {
                    sink.other();
                }
                if self.summaries {
                    // `--debug`: the summary line before it holds this message.
                    sink.other();
                    return;
                }
                let direction = self.last.unwrap_or(Direction::C2s);
                let at = At::by_start(&key, Some(direction), None, line.number);
                if let Some(id) = pretty_body(sink, at, body) {
                    self.pretty_ids.push(id);
                }
            }
            McpRemoteLine::Start => sink.process_start(&key, &line),
            McpRemoteLine::Failing(ids) => {
                let ts = ts_text.and_then(|t| sink.ts(line.number, t));
                let at = At::by_start(&key, Some(Direction::S2c), ts, line.number);
                failing(sink, at, ids, rest);
            }
            McpRemoteLine::PostFailed => {
                let ts = ts_text.and_then(|t| sink.ts(line.number, t));
                let at = At::by_start(&key, Some(Direction::S2c), ts, line.number);
                sink.lost(at, line.text);
            }
            McpRemoteLine::Other => sink.other(),
        }
    }
    fn end(&mut self, sink: &mut LineSink<'_>) {
        let (requests, replies) = (self.named_requests, self.named_replies);
        let Some(line) = self.first_named.filter(|_| !self.summaries) else {
            return;
        };
        let unanswered = requests.saturating_sub(replies);
        let tail = if unanswered > 0 {
            format!(
                "; {unanswered} of those requests {} no reply line (a hang, or a reply the log lost: it cannot tell)",
                if unanswered == 1 { "has" } else { "have" }
            )
        } else {
            String::new()
        };
        sink.notice(
            line,
            &format!(
                "mcp-remote's plain stderr names {requests} client request(s) by method (`[Local→Remote] METHOD`, no id) and {replies} repl{} by id (`[Remote→Local] ID`), without the messages: mcp-audit cannot pair them (run mcp-remote with --debug for a log it audits){tail}",
                if replies == 1 { "y" } else { "ies" }
            ),
        );
    }
}

/// A `… message SUMMARY` line at `at`: one-line JSON (debug file), else
/// util.inspect over the lines until its brackets balance (the `--debug`
/// run's stderr).
fn summary<'a>(sink: &mut LineSink<'a>, at: At<'_>, json: &'a str, rest: &mut Lines<'a>) {
    if let Some(m) = summary_message(json) {
        sink.frame(at, json, Payload::Single(m));
        return;
    }
    let (body, taken) = continue_body(sink.input().text, rest, json, is_start);
    for _ in 0..taken {
        sink.other();
    }
    let part = body.trim_matches([' ', '\t', '\r', '\n']);
    match read_body(part) {
        Body::Read(Payload::Single(m)) | Body::Partly(Payload::Single(m), _) => {
            // `params: '{"requestId":3,…}'`: a string, as in the debug
            // file's summaries.
            let unwrapped = part
                .contains("params: '")
                .then(|| inspect_json(part))
                .flatten()
                .and_then(|json| params_unwrapped(&json))
                .and_then(|text| parse_message(&text).ok());
            sink.frame(
                at,
                part,
                Payload::Single(summarised(unwrapped.unwrap_or(m))),
            )
        }
        _ => sink.non_json(at, part),
    }
}

/// The plain stderr's pretty-printed initialize, read as JSON; a
/// request's id (as JSON text).
fn pretty_body(sink: &mut LineSink<'_>, at: At<'_>, body: &str) -> Option<String> {
    let part = body.trim_matches([' ', '\t', '\r', '\n']);
    match crate::record::jsonrpc::parse_payload(part) {
        Ok(Payload::Single(mut m)) => {
            let id = (m.kind == Kind::Request).then(|| m.id.json_text());
            if m.kind == Kind::Request {
                m.extra.get_or_insert_default().capture_gap = Some(PLAIN_GAP.into());
            }
            sink.frame(at, part, Payload::Single(m));
            id
        }
        Ok(p) => {
            sink.frame(at, part, p);
            None
        }
        Err(_) => {
            sink.non_json(at, part);
            None
        }
    }
}

/// `Failing requests … {"ids":[10]}` (debug file; `{ ids: [ 10 ] }` in
/// the `--debug` run's stderr): mcp-remote answers each named request
/// itself with error -32001 and logs no `Remote → Local` summary of it.
/// Each id is read as that error reply, server→client, at this line; a
/// list that cannot be read is not traffic.
fn failing<'a>(sink: &mut LineSink<'a>, at: At<'_>, ids: &'a str, rest: &mut Lines<'a>) {
    let (body, taken) = continue_body(sink.input().text, rest, ids, is_start);
    for _ in 0..taken {
        sink.other();
    }
    let part = body.trim_matches([' ', '\t', '\r', '\n']);
    let value = serde_json::from_str::<serde_json::Value>(part)
        .ok()
        .or_else(|| inspect_json(part).and_then(|j| serde_json::from_str(&j).ok()));
    let ids: Vec<serde_json::Value> = value
        .as_ref()
        .and_then(|v| v.get("ids"))
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter(|i| i.is_string() || i.is_i64() || i.is_u64())
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if ids.is_empty() {
        sink.other();
        return;
    }
    for id in ids {
        let reply = serde_json::json!({
            "id": id,
            "error": {"code": -32001, "message": FAILED_LOCALLY},
        })
        .to_string();
        match parse_message(&reply) {
            Ok(m) => sink.frame(at, part, Payload::Single(summarised(m))),
            Err(_) => sink.other(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::testdata::lines_read;
    use crate::record::{Id, Record};

    #[test]
    fn prefixes() {
        assert_eq!(prefix("[17924] Press Ctrl+C"), Some((None, "Press Ctrl+C")));
        assert_eq!(
            prefix("[17924] [17924] Connecting to remote server: http://x/mcp"),
            Some((None, "Connecting to remote server: http://x/mcp"))
        );
        assert_eq!(prefix("[17924] "), Some((None, "")));
        assert_eq!(prefix("[17924]"), Some((None, "")));
        assert_eq!(
            prefix("[2026-12-01T23:03:37.055Z][18014] [Remote→Local] 0"),
            Some((Some("2026-12-01T23:03:37.055Z"), "[Remote→Local] 0"))
        );
        assert_eq!(prefix("Shutting down..."), None);
        assert_eq!(prefix("[] x"), None);
        assert_eq!(prefix("[12345678901] x"), None);
        assert_eq!(prefix("[2026-12-01T23:03:37Z] x"), None);
    }

    /// A refused POST's error line (debug file and stderr forms) is a
    /// reply whose id the log lost; other `Error from remote server` lines
    /// are not.
    #[test]
    fn refused_posts_are_replies_without_an_id() {
        for rest in [
            "Error from remote server {\"stack\":\"SdkHttpError: Error POSTing to endpoint: {\\\"jsonrpc\\\":\\\"2.0\\\"}\"}",
            "Error from remote server: SdkHttpError: Error POSTing to endpoint: {\"jsonrpc\":\"2.0\"}",
        ] {
            assert!(matches!(split(rest), McpRemoteLine::PostFailed), "{rest}");
        }
        for rest in [
            "Error from remote server: {}",
            "Error from remote server {\"stack\":\"TypeError: fetch failed\"}",
        ] {
            assert!(matches!(split(rest), McpRemoteLine::Other), "{rest}");
        }
    }

    #[test]
    fn lines_and_claims() {
        assert_eq!(
            split("[Local→Remote] tools/call"),
            McpRemoteLine::Named {
                direction: Direction::C2s,
                what: "tools/call"
            }
        );
        assert_eq!(
            split("[Remote→Local] 20"),
            McpRemoteLine::Named {
                direction: Direction::S2c,
                what: "20"
            }
        );
        assert_eq!(
            split("Remote → Local message {\"id\":2,\"result\":\"result-present\"}"),
            McpRemoteLine::Summary {
                direction: Direction::S2c,
                json: "{\"id\":2,\"result\":\"result-present\"}"
            }
        );
        assert_eq!(split("{"), McpRemoteLine::BodyStart("{"));
        assert_eq!(split("Press Ctrl+C to exit"), McpRemoteLine::Other);
        assert!(claims("[17924] [Local→Remote] initialize"));
        assert!(claims(
            "[2026-12-01T23:03:37.063Z][18014] Local → Remote message {\"method\":\"notifications/initialized\"}"
        ));
        // A bare `[PID] ` (JSON `[17924]`) and start-up lines never claim.
        assert!(!claims("[17924] "));
        assert!(!claims("[17924] Local STDIO server running"));
        assert!(claims(
            "[16176] [16176] Connecting to remote server: http://127.0.0.1:18999/mcp"
        ));
        assert!(claims("[16176] Using transport strategy: http-first"));
        assert!(!claims("[17924] {"));
    }

    #[test]
    fn summaries_are_rebuilt() {
        let m = summary_message("{\"id\":0}").unwrap();
        assert_eq!(
            (m.kind, m.id, m.has_result, m.rebuilt, m.problems.len()),
            (Kind::Response, Id::Int(0), true, true, 0)
        );
        let m = summary_message(
            "{\"method\":\"resources/read\",\"id\":5,\"params\":\"{\\\"uri\\\":\\\"config://app\\\"}\"}",
        )
        .unwrap();
        assert_eq!(
            (m.kind, m.id, m.method.as_deref(), m.problems.len()),
            (Kind::Request, Id::Int(5), Some("resources/read"), 0)
        );
        let m = summary_message(
            "{\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}",
        )
        .unwrap();
        assert_eq!(
            (m.kind, m.has_result, m.has_error, m.error_code),
            (Kind::Response, false, true, Some(-32601))
        );
        // A cancellation's params, logged as a JSON string, name the request.
        let m = summary_message(
            "{\"method\":\"notifications/cancelled\",\"params\":\"{\\\"requestId\\\":12,\\\"reason\\\":\\\"user cancelled\\\"}\"}",
        )
        .unwrap();
        assert_eq!(
            (m.kind, m.extra.as_ref().and_then(|e| e.cancel_id.clone())),
            (Kind::Notification, Some(Id::Int(12)))
        );
        let m = summary_message("{\"method\":\"notifications/progress\"}").unwrap();
        assert_eq!((m.kind, m.id), (Kind::Notification, Id::Absent));
        assert!(summary_message("[1]").is_none() && summary_message("{").is_none());
    }

    #[test]
    fn plain_stderr_reads_the_pretty_initialize() {
        let text = "[9] Local STDIO server running\n[9] [Local→Remote] initialize\n[9] {\n  \"jsonrpc\": \"2.0\",\n  \"id\": 0,\n  \"method\": \"initialize\",\n  \"params\": {\n    \"clientInfo\": {\"name\": \"c (via mcp-remote 0.15.1)\"}\n  }\n}\n[9] [Remote→Local] 0\n[9] \nShutting down...\n";
        let p = parse(Input {
            file: 0,
            name: "r.log",
            text,
        });
        // The initialize, and its reply named by id (a rebuilt response).
        assert_eq!(
            lines_read(&p),
            vec![
                (3, Some(Direction::C2s), false, None),
                (11, Some(Direction::S2c), false, None)
            ]
        );
        let notices: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(p.other_lines, 11);
        assert_eq!(
            notices,
            [
                "line 2: mcp-remote's plain stderr names 1 client request(s) by method (`[Local→Remote] METHOD`, no id) and 1 reply by id (`[Remote→Local] ID`), without the messages: mcp-audit cannot pair them (run mcp-remote with --debug for a log it audits)"
            ]
        );
        let Record::Frame(f) = &p.records[0] else {
            panic!()
        };
        let Payload::Single(m) = &f.payload else {
            panic!()
        };
        assert_eq!(
            (m.kind, &m.id, m.method.as_deref(), m.rebuilt),
            (Kind::Request, &Id::Int(0), Some("initialize"), false)
        );
        assert_eq!(
            m.extra.as_ref().and_then(|e| e.capture_gap.as_deref()),
            Some(PLAIN_GAP)
        );
        assert_eq!(&text[f.prov.offset as usize..][..3], "{\n ");
    }

    #[test]
    fn debug_file_reads_summaries_with_times() {
        let text = "[2026-12-01T23:03:37.021Z][18014] [Local→Remote] initialize\n[2026-12-01T23:03:37.021Z][18014] Local → Remote message {\"method\":\"initialize\",\"id\":0}\n[2026-12-01T23:03:37.021Z][18014] {\n  \"id\": 0\n}\n[2026-12-01T23:03:37.029Z][18014] Token request stack trace: Error\n    at x (file://./y.js:1:2)\n[2026-12-01T23:03:37.055Z][18014] Remote → Local message {\"id\":0,\"result\":\"result-present\"}\n[2026-12-01T23:03:37.584Z][18014] Local → Remote message {\"id\":0}\n[2026-12-01T23:03:37.585Z][18014] Remote → Local message oops\n";
        let p = parse(Input {
            file: 0,
            name: "d.log",
            text,
        });
        assert_eq!(
            lines_read(&p),
            vec![
                (2, Some(Direction::C2s), false, Some(1_796_166_217_021_000)),
                (8, Some(Direction::S2c), false, Some(1_796_166_217_055_000)),
                (9, Some(Direction::C2s), false, Some(1_796_166_217_584_000)),
                (10, Some(Direction::S2c), true, Some(1_796_166_217_585_000)),
            ]
        );
        // Lines 1, 3, 4, 5, 6, 7.
        assert_eq!((p.other_lines, p.errors.len()), (6, 0));
    }

    #[test]
    fn debug_stderr_reads_inspect_summaries_once() {
        let text = "[8688] [8688] Connecting to remote server: http://127.0.0.1:18401/sse\n[2026-12-02T06:14:38.061Z][8688] [Local→Remote] initialize\n[2026-12-02T06:14:38.061Z][8688] Local → Remote message {\n  method: 'initialize',\n  id: 0,\n  params: '{\"protocolVersion\":\"2025-11-25\"}'\n}\n[8688] {\n  \"jsonrpc\": \"2.0\",\n  \"id\": 0,\n  \"method\": \"initialize\"\n}\n[2026-12-02T06:14:38.168Z][8688] Local → Remote message {\n  method: 'notifications/initialized',\n  id: undefined,\n  params: undefined\n}\n[2026-12-02T06:14:38.139Z][8688] Remote → Local message { id: 0, result: 'result-present', error: undefined }\n";
        let p = parse(Input {
            file: 0,
            name: "e.log",
            text,
        });
        assert_eq!(
            lines_read(&p),
            vec![
                (3, Some(Direction::C2s), false, Some(1_796_192_078_061_000)),
                (13, Some(Direction::C2s), false, Some(1_796_192_078_168_000)),
                (18, Some(Direction::S2c), false, Some(1_796_192_078_139_000)),
            ]
        );
        let kinds: Vec<(Kind, Id, bool)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => match &f.payload {
                    Payload::Single(m) => Some((m.kind, m.id.clone(), m.rebuilt)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                (Kind::Request, Id::Int(0), true),
                (Kind::Notification, Id::Absent, true),
                (Kind::Response, Id::Int(0), true),
            ]
        );
        // 1, 2, 4-7, 8-12 (the pretty copy), 14-17.
        assert_eq!((p.other_lines, p.errors.len()), (15, 0));
    }

    /// The frames' session keys and the process-start markers, in order.
    fn keys(p: &Parsed) -> Vec<String> {
        p.records
            .iter()
            .map(|r| match r {
                Record::Frame(f) => f.key.to_string(),
                Record::ProcessStart { key, .. } => format!("start {key}"),
            })
            .collect()
    }

    #[test]
    fn debug_file_sessions_are_keyed_by_pid() {
        // Two processes share one debug file (it is per server URL); a
        // `Starting mcp-remote` line of a pid is a process start.
        let text = "[2026-12-04T18:38:24.355Z][3624] Starting mcp-remote with server URL: http://x/mcp \n[2026-12-04T18:38:24.577Z][3624] Local → Remote message {\"method\":\"initialize\",\"id\":0}\n[2026-12-04T18:38:24.747Z][3650] Starting mcp-remote with server URL: http://x/mcp \n[2026-12-04T18:38:24.760Z][3624] Remote → Local message {\"id\":0,\"result\":\"result-present\"}\n[2026-12-04T18:38:24.800Z][3650] Local → Remote message {\"method\":\"initialize\",\"id\":0}\n";
        let p = parse(Input {
            file: 0,
            name: "d.log",
            text,
        });
        assert_eq!(
            keys(&p),
            vec![
                "start d.log[3624]",
                "d.log[3624]",
                "start d.log[3650]",
                "d.log[3624]",
                "d.log[3650]"
            ]
        );
        assert_eq!(p.other_lines, 2);
        assert_eq!(
            parts("[2026-12-04T18:38:24.355Z][3624] x"),
            Some((Some("2026-12-04T18:38:24.355Z"), "3624", "x"))
        );
        assert_eq!(parts("[17924] [17924] y"), Some((None, "17924", "y")));
    }

    #[test]
    fn failing_requests_are_error_replies() {
        // mcp-remote's failPendingRequests answers the ids itself (-32001);
        // the debug file writes JSON, the `--debug` stderr util.inspect.
        for (line, ids) in [
            ("{\"ids\":[10]}", vec![Id::Int(10)]),
            (
                "{ ids: [ 10, 'a' ] }",
                vec![Id::Int(10), Id::Str("a".into())],
            ),
            (
                "{\n  ids: [\n    10, 11\n  ]\n}",
                vec![Id::Int(10), Id::Int(11)],
            ),
        ] {
            let text = format!(
                "[2026-12-04T18:38:41.580Z][4172] Failing requests the dropped session can no longer answer {line}\n[2026-12-04T18:38:41.583Z][4172] [Local→Remote] tools/call\n"
            );
            let p = parse(Input {
                file: 0,
                name: "r.log",
                text: &text,
            });
            let got: Vec<(Id, Option<i64>, Direction, u64)> = p
                .records
                .iter()
                .filter_map(|r| match r {
                    Record::Frame(f) => match &f.payload {
                        Payload::Single(m) => Some((
                            m.id.clone(),
                            m.error_code,
                            f.direction.unwrap(),
                            f.prov.location.line.unwrap(),
                        )),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let want: Vec<_> = ids
                .into_iter()
                .map(|i| (i, Some(-32001), Direction::S2c, 1))
                .collect();
            assert_eq!(got, want, "{line}");
        }
        // A list that cannot be read is no traffic.
        let p = parse(Input {
            file: 0,
            name: "r.log",
            text: "[2026-12-04T18:38:41.580Z][4172] Failing requests the dropped session can no longer answer {\"ids\":[]}\n",
        });
        assert_eq!((p.records.len(), p.other_lines), (0, 1));
    }

    #[test]
    fn never_panics_on_odd_input() {
        for t in [
            "[1] {",
            "[1] {\n[",
            "[1] {\n}}}}\n[1] {",
            "[2026-12-01T23:03:37.021Z][1] Local → Remote message ",
            "[2026-12-01T23:03:37.021Z][1] Local → Remote message [[[[",
            "[2026-12-01T23:03:37.021Z]",
            "[2026-13-45T23:03:37.021Z][1] Local → Remote message {\"id\":1}",
            "[é] [Local→Remote] é",
            "[1]é",
            "[1] Failing requests the dropped session can no longer answer {",
            "[1] Failing requests the dropped session can no longer answer { ids: [ [] ] }",
            "[1] Starting mcp-remote",
        ] {
            let _ = parse(Input {
                file: 0,
                name: "x",
                text: t,
            });
        }
    }
}

//! What a reply says about the message it answers: the reply-shape rules of
//! DESIGN.md rule 13 (`notification_replied`, `batch_reply_not_array`,
//! `batch_rejected_whole`, `empty_batch_not_rejected`,
//! `single_request_answered_with_batch`, `placeholder_id_error`).
//!
//! The per-session walker ([`super::engine::Walker`]) asks [`Replies`]
//! which message a frame replies to before it reads the frame's responses:
//! over HTTP the request body of the same HAR entry (certain), over a line
//! log the other side's next frame after a single sent frame (one frame
//! sent, one frame back; a second frame sent before the reply makes the
//! reply ambiguous and no rule applies). JSON-RPC 2.0 §4.1 (notifications
//! get no response), §5.1 (an unaddressable error has id null) and §6
//! (batches: an array answer, `[]` answered by one Invalid Request error).

use foldhash::HashMap;

use crate::record::{Direction, HttpContext, Id, Location, Message};

/// Error ids servers put on every error they cannot address, seen on the
/// wire: the Python SDK 1.x transport's `"server-error"` (its Streamable
/// HTTP path, `mcp/server/streamable_http.py`). An unknown error id that
/// repeats in a session is a placeholder too, whatever its value.
pub(super) const KNOWN_PLACEHOLDER_IDS: &[&str] = &["\"server-error\""];

/// The JSON-RPC Invalid Request code (§5.1), the one answer `[]` may get.
pub(super) const INVALID_REQUEST: i64 = -32600;

/// What a frame was sent as, for the reply that may follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sent {
    /// One notification on its own.
    Notification,
    /// One request on its own.
    Request,
    /// A non-empty array: the session's batch index.
    Batch(usize),
    /// A non-empty array of notifications only: the session's batch index.
    Notifications(usize),
    /// A response or an array of responses: it asks for no reply.
    Answer,
    /// `[]`: index into [`Replies::empty`].
    Empty(usize),
    /// Anything else, or more than one frame sent before a reply came (a
    /// line log cannot tell which one it answers).
    Other,
}

/// How an empty batch was answered.
#[derive(Debug, Clone)]
pub(super) struct EmptyBatch {
    /// Direction `[]` was sent in.
    pub direction: Direction,
    /// Its place, evidence and file id.
    pub at: (Location, (u64, u32), u32),
    /// HTTP status and whether the response body was empty, or `None` for a
    /// line log; `Some` only when the capture kept the response.
    pub http: Option<(i64, bool)>,
    /// Whether the capture could hold its answer at all (a lost HAR
    /// response cannot be judged).
    pub judged: bool,
    /// What came back: for each reply frame, `None` when it is the one
    /// right answer (a single Invalid Request error without an id), else a
    /// description.
    pub replies: Vec<Option<String>>,
}

/// Per-session reply-shape state.
#[derive(Debug, Default)]
pub(super) struct Replies {
    /// HAR entry → what its request body was.
    entry_sent: HashMap<u64, Sent>,
    /// Line logs: what the other side sent last and no frame answered yet,
    /// indexed by the replier's direction (0 = c2s, 1 = s2c).
    line_sent: [Option<Sent>; 2],
    /// Every `[]` of the session.
    pub empty: Vec<EmptyBatch>,
    /// Unknown-id error responses by id text → their finding indexes
    /// (`placeholder_id_error` when an id repeats or is a known one).
    pub unknown_errors: HashMap<String, Vec<usize>>,
}

fn di(d: Direction) -> usize {
    match d {
        Direction::C2s => 0,
        Direction::S2c => 1,
    }
}

impl Replies {
    /// What the frame coming from `d` replies to: the request body of its
    /// HAR entry, or on a line log the other side's one frame sent since
    /// `d` last wrote (taken: the next frame from `d` replies to nothing).
    pub(super) fn reply_to(&mut self, http: Option<&HttpContext>, d: Direction) -> Option<Sent> {
        match http {
            Some(h) if !h.is_request_body && d == Direction::S2c => {
                self.entry_sent.get(&h.entry).copied()
            }
            Some(_) => None,
            None => self.line_sent[di(d)].take(),
        }
    }

    /// Records a frame sent in `d` as `sent`, for the reply to come.
    pub(super) fn sent(&mut self, http: Option<&HttpContext>, d: Direction, sent: Sent) {
        match http {
            Some(h) if h.is_request_body => {
                self.entry_sent.insert(h.entry, sent);
            }
            Some(_) => {}
            None => {
                // What asks for no reply (notifications, answers) leaves no doubt
                // about what a later reply answers; anything else does.
                let slot = &mut self.line_sent[di(d.other())];
                *slot = Some(match slot {
                    None | Some(Sent::Notification | Sent::Notifications(_) | Sent::Answer) => sent,
                    Some(_) => Sent::Other,
                });
            }
        }
    }

    /// Records the unknown-id error response reported as finding `index`.
    pub(super) fn unknown_error(&mut self, id: &Id, index: usize) {
        self.unknown_errors
            .entry(id.json_text())
            .or_default()
            .push(index);
    }
}

/// How one reply frame to `[]` reads: `None` for the right answer (one
/// error, code -32600, no id member or id null), else what it was.
pub(super) fn empty_batch_answer(single: Option<&Message>, members: usize) -> Option<String> {
    match single {
        Some(m) if m.has_error && matches!(m.id, Id::Null | Id::Absent) => match m.error_code {
            Some(INVALID_REQUEST) => None,
            Some(c) => Some(format!(
                "an error with code {c}, not -32600 Invalid Request"
            )),
            None => Some("an error without an integer code".into()),
        },
        Some(m) if m.has_error => Some(format!(
            "an error with id {} (the right answer has id null)",
            m.id.json_text()
        )),
        Some(_) => Some("a message that is not an error".into()),
        None => Some(format!("an array of {members}")),
    }
}

/// The detail of `empty_batch_not_rejected` for `e`, or `None` when it was
/// answered right or cannot be judged.
pub(super) fn empty_batch_verdict(e: &EmptyBatch) -> Option<String> {
    if !e.judged {
        return None;
    }
    let wrong: Vec<&String> = e.replies.iter().flatten().collect();
    match (e.replies.len(), wrong.first(), e.http) {
        (1, None, _) => None,
        (0, _, Some((status, empty))) => Some(format!(
            "[] was answered with HTTP status {status}{}; JSON-RPC 2.0 §6 answers an empty array with one Invalid Request error (-32600, id null)",
            if empty {
                " and no body"
            } else {
                " and a body without JSON"
            }
        )),
        // A line log: no reply seen is not judged (the reply may come later
        // or the other side may not be in the log).
        (0, _, None) => None,
        (n, first, _) => Some(format!(
            "[] was answered with {}{}; JSON-RPC 2.0 §6 answers an empty array with one Invalid Request error (-32600, id null)",
            first.map_or("the right error".to_string(), |s| (*s).clone()),
            if n > 1 {
                format!(" among {n} replies")
            } else {
                String::new()
            }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Kind;
    use crate::record::jsonrpc::parse_message;

    fn msg(s: &str) -> Message {
        parse_message(s).unwrap()
    }

    #[test]
    fn empty_batch_answers() {
        let right = msg(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#);
        assert_eq!(empty_batch_answer(Some(&right), 0), None);
        let no_id = msg(r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"#);
        assert_eq!(empty_batch_answer(Some(&no_id), 0), None);
        let py =
            msg(r#"{"jsonrpc":"2.0","id":"server-error","error":{"code":-32602,"message":"x"}}"#);
        assert_eq!(
            empty_batch_answer(Some(&py), 0).as_deref(),
            Some("an error with id \"server-error\" (the right answer has id null)")
        );
        let code = msg(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#);
        assert_eq!(
            empty_batch_answer(Some(&code), 0).as_deref(),
            Some("an error with code -32700, not -32600 Invalid Request")
        );
        assert_eq!(
            empty_batch_answer(None, 0).as_deref(),
            Some("an array of 0")
        );
        assert_eq!(right.kind, Kind::Response);
    }

    #[test]
    fn empty_batch_verdicts() {
        let mut e = EmptyBatch {
            direction: Direction::C2s,
            at: (Location::entry(8, None), (0, 2), 0),
            http: Some((202, true)),
            judged: true,
            replies: vec![],
        };
        assert_eq!(
            empty_batch_verdict(&e).as_deref(),
            Some(
                "[] was answered with HTTP status 202 and no body; JSON-RPC 2.0 §6 answers an empty array with one Invalid Request error (-32600, id null)"
            )
        );
        e.replies.push(None);
        assert_eq!(empty_batch_verdict(&e), None);
        e.http = None;
        e.replies.clear();
        assert_eq!(
            empty_batch_verdict(&e),
            None,
            "a line log without a reply is not judged"
        );
        e.judged = false;
        e.http = Some((202, true));
        assert_eq!(
            empty_batch_verdict(&e),
            None,
            "a lost response is not judged"
        );
    }

    #[test]
    fn line_log_reply_is_the_next_frame_only() {
        let mut r = Replies::default();
        r.sent(None, Direction::C2s, Sent::Notification);
        assert_eq!(r.reply_to(None, Direction::S2c), Some(Sent::Notification));
        assert_eq!(r.reply_to(None, Direction::S2c), None);
        r.sent(None, Direction::C2s, Sent::Batch(0));
        r.sent(None, Direction::C2s, Sent::Notification);
        assert_eq!(
            r.reply_to(None, Direction::S2c),
            Some(Sent::Other),
            "two frames sent: ambiguous"
        );
        r.sent(None, Direction::C2s, Sent::Notification);
        r.sent(None, Direction::C2s, Sent::Batch(1));
        assert_eq!(
            r.reply_to(None, Direction::S2c),
            Some(Sent::Batch(1)),
            "a notification asks for no reply: the batch after it is what is answered"
        );
    }
}

/// The reply-shape rules over whole sessions (envelope logs and a HAR),
/// each expected list checked by hand against the lines.
#[cfg(test)]
mod rule13 {
    use super::super::engine::tests::{run, run_text};

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#;
    const INIT_R: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"s","version":"1"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    fn s(kind: &'static str, id: &str) -> (&'static str, String) {
        (kind, id.to_string())
    }

    #[test]
    fn notification_answered_on_a_line_log() {
        let (f, _) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (2, "c2s", INITIALIZED),
            (
                3,
                "s2c",
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}"#,
            ),
        ]);
        assert_eq!(f, vec![s("notification_replied", "null")]);
    }

    #[test]
    fn null_id_error_while_a_request_is_pending_is_not_a_notification_reply() {
        let (f, _) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (2, "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (3, "c2s", INITIALIZED),
            (
                4,
                "s2c",
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            ),
            (5, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        ]);
        assert_eq!(f, vec![s("null_id_error", "null")]);
    }

    #[test]
    fn well_formed_batch_refused_whole() {
        let (f, _) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (
                2,
                "c2s",
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#,
            ),
            (
                3,
                "s2c",
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"batches not supported"}}"#,
            ),
        ]);
        assert_eq!(
            f,
            vec![
                s("missing_response", "1"),
                s("missing_response", "2"),
                s("response_count_mismatch", "[1,2]"),
                s("batch_rejected_whole", "[1,2]"),
            ]
        );
    }

    #[test]
    fn batch_error_then_answers_stays_null_id_error() {
        let (f, _) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (
                2,
                "c2s",
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            ),
            (
                3,
                "s2c",
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"x"}}"#,
            ),
            (
                4,
                "s2c",
                r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]"#,
            ),
        ]);
        assert_eq!(f, vec![s("null_id_error", "null")]);
    }

    #[test]
    fn empty_batch_answers_on_a_line_log() {
        let right = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (2, "c2s", "[]"),
            (
                3,
                "s2c",
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
            ),
        ]);
        assert_eq!(
            right.0,
            vec![s("empty_batch", "[]"), s("null_id_error", "null")]
        );
        let wrong = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (2, "c2s", "[]"),
            (
                3,
                "s2c",
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            ),
        ]);
        assert_eq!(
            wrong.0,
            vec![
                s("empty_batch", "[]"),
                s("empty_batch_not_rejected", "[]"),
                s("null_id_error", "null")
            ]
        );
        // No reply in the log: not judged.
        let none = run(&[(0, "c2s", INIT), (1, "s2c", INIT_R), (2, "c2s", "[]")]);
        assert_eq!(none.0, vec![s("empty_batch", "[]")]);
    }

    #[test]
    fn single_request_answered_by_an_array() {
        let (f, _) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (
                2,
                "c2s",
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            ),
            (
                3,
                "s2c",
                r#"[{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}]"#,
            ),
        ]);
        assert_eq!(f, vec![s("single_request_answered_with_batch", "[1]")]);
    }

    #[test]
    fn placeholder_ids() {
        let (f, _) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (
                2,
                "s2c",
                r#"{"jsonrpc":"2.0","id":"oops","error":{"code":-32603,"message":"x"}}"#,
            ),
            (
                3,
                "s2c",
                r#"{"jsonrpc":"2.0","id":"oops","error":{"code":-32603,"message":"x"}}"#,
            ),
            (
                4,
                "s2c",
                r#"{"jsonrpc":"2.0","id":"once","error":{"code":-32603,"message":"x"}}"#,
            ),
            (
                5,
                "s2c",
                r#"{"jsonrpc":"2.0","id":"server-error","error":{"code":-32602,"message":"x"}}"#,
            ),
            (6, "s2c", r#"{"jsonrpc":"2.0","id":"ok-once","result":{}}"#),
        ]);
        assert_eq!(
            f,
            vec![
                s("placeholder_id_error", "\"oops\""),
                s("placeholder_id_error", "\"oops\""),
                s("unknown_id_response", "\"once\""),
                s("placeholder_id_error", "\"server-error\""),
                s("unknown_id_response", "\"ok-once\""),
            ]
        );
    }

    #[test]
    fn progress_after_the_response_and_unknown_tokens() {
        let call = |id: u32, tok: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","_meta":{{"progressToken":"{tok}"}}}}}}"#
            )
        };
        let progress = |tok: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{tok}","progress":1}}}}"#
            )
        };
        let (c1, c2) = (call(1, "a"), call(2, "b"));
        let (pa, pb, pz) = (progress("a"), progress("b"), progress("z"));
        let (f, a) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", INIT_R),
            (2, "c2s", &c1),
            (3, "s2c", &pa),
            (4, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            (5, "s2c", &pa),
            (6, "c2s", &c2),
            (
                7,
                "s2c",
                r#"{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working"}}}"#,
            ),
            (8, "s2c", &pb),
            (9, "s2c", &pz),
        ]);
        assert_eq!(
            f,
            vec![
                s("progress_after_response", "1"),
                s("unknown_progress_token", "\"z\"")
            ]
        );
        let p = &a.session_summaries()[0].progress;
        assert_eq!((p.linked, p.after_response, p.unlinked), (3, 2, 1));
    }

    fn har_entry(i: u32, post: &str, status: u32, mime: &str, body: &str) -> String {
        format!(
            r#"{{"startedDateTime":"2026-12-02T07:00:0{i}.000Z","time":5,"request":{{"method":"POST","url":"http://127.0.0.1:3000/mcp","headers":[{{"name":"mcp-session-id","value":"s1"}}],"postData":{{"mimeType":"application/json","text":{}}}}},"response":{{"status":{status},"headers":[{{"name":"mcp-session-id","value":"s1"}}],"content":{{"mimeType":"{mime}","text":{}}}}}}}"#,
            serde_json::to_string(post).unwrap(),
            serde_json::to_string(body).unwrap()
        )
    }

    /// A notification POST refused with an HTTP error status and an
    /// id-null error (the TypeScript SDK 1.32.2's 404 "Session not found"
    /// for an unknown Mcp-Session-Id, real5) is the refusal Streamable
    /// HTTP allows: `null_id_error` naming the refusal, no
    /// `notification_replied`. The same error with HTTP 200 replies to
    /// the notification.
    #[test]
    fn har_notification_refused_with_an_http_error_is_not_a_reply() {
        let err =
            r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}"#;
        let cancelled =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#;
        let har = format!(
            r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{},{},{},{}]}}}}"#,
            har_entry(0, INIT, 200, "application/json", INIT_R),
            har_entry(1, INITIALIZED, 202, "", ""),
            har_entry(2, cancelled, 404, "application/json", err),
            har_entry(3, cancelled, 200, "application/json", err),
        );
        let (f, a) = run_text("t.har", &har);
        assert_eq!(
            f,
            vec![
                s("null_id_error", "null"),
                s("notification_batch_awaited", "null"),
                s("notification_batch_awaited", "null"),
                s("notification_replied", "null"),
            ]
        );
        assert_eq!(
            a.findings[0].detail,
            "an error response with id null (code -32001) refusing this POST's notification with HTTP 404: Streamable HTTP lets a server that cannot accept a notification answer an HTTP error status with a JSON-RPC error without an id, so it is a refusal, not a reply to the notification"
        );
    }

    /// The hint that blames malformed messages for null-id errors leaves
    /// out the ones whose peer read what it was sent: a 2026-07-28
    /// client's `server/discover` refused by the TypeScript SDK 1.32.2
    /// with 400 and id null (paired with its POST's request, real5) and
    /// a notification refused with 404. A `[]` rejected with id null
    /// still gets it.
    #[test]
    fn hint_leaves_out_null_ids_that_answer_their_post() {
        let discover = r#"{"jsonrpc":"2.0","id":"p-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let err = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;
        let cancelled =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#;
        let log = |entries: &[String]| {
            format!(
                r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{}]}}}}"#,
                entries.join(",")
            )
        };
        let refused = log(&[
            har_entry(0, discover, 400, "application/json", err),
            har_entry(1, cancelled, 404, "application/json", err),
        ]);
        let (f, a) = run_text("t.har", &refused);
        assert_eq!(
            f,
            vec![
                s("null_id_error", "null"),
                s("null_id_error", "null"),
                s("notification_batch_awaited", "null"),
            ]
        );
        assert_eq!(a.session_summaries()[0].hints, Vec::<String>::new());
        let empty = log(&[har_entry(0, "[]", 400, "application/json", err)]);
        let (_, a) = run_text("t.har", &empty);
        assert_eq!(
            a.session_summaries()[0].hints,
            vec!["1 null-id error(s) alone: some message or batch element was malformed and could not be read".to_string()]
        );
    }

    /// A one-request batch POSTed to a server that answers a JSON body
    /// with a bare object (the TypeScript SDK in JSON-response mode).
    #[test]
    fn har_batch_answered_by_a_bare_object() {
        let entry = har_entry;
        let har = format!(
            r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{},{},{},{}]}}}}"#,
            entry(0, INIT, 200, "application/json", INIT_R),
            entry(1, INITIALIZED, 202, "", ""),
            entry(
                2,
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                200,
                "application/json",
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
            ),
            entry(3, "[]", 202, "", ""),
        );
        let (f, _) = run_text("t.har", &har);
        assert_eq!(
            f,
            vec![
                s("batch_reply_not_array", "[1]"),
                s("empty_batch", "[]"),
                s("empty_batch_not_rejected", "[]"),
            ]
        );
    }
}

//! Classifying JSON-RPC 2.0 payloads without building `serde_json::Value`.
//!
//! [`parse_payload`] reads one JSON text (a stdio line's payload, a POST
//! body, an SSE event's data) and extracts only the members the rules need:
//! `jsonrpc`, `id`, `method`, whether `result` / `error` are present,
//! `error.code`, `params.requestId` of `notifications/cancelled`,
//! `params._meta.progressToken`, and the `protocolVersion` / `serverInfo`
//! of an initialize result. Everything else is skipped as raw JSON text.
//!
//! Rules: JSON-RPC 2.0 §4–§6 (FORMATS.md §1.1), DESIGN.md rule 2 (counting)
//! and the catalogue entries `invalid_request`, `bad_jsonrpc_version`,
//! `result_and_error`, `neither_result_nor_error`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::id::Id;
use super::scan;

/// Request, notification or response (DESIGN.md rule 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Has `method` and an `id` member (any value).
    Request,
    /// Has `method` and no `id` member.
    Notification,
    /// Any other object.
    Response,
}

/// An envelope problem found in one message (catalogue kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Problem {
    /// `jsonrpc` missing or not exactly `"2.0"`.
    BadJsonrpcVersion,
    /// Not a valid request, notification or response; the text says why.
    InvalidRequest(&'static str),
    /// A response with both `result` and `error`.
    ResultAndError,
    /// A response with neither.
    NeitherResultNorError,
}

/// One JSON-RPC message, reduced to what the rules use.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Request, notification or response.
    pub kind: Kind,
    /// The `id` member exactly as written.
    pub id: Id,
    /// `method` when it is a string.
    pub method: Option<Box<str>>,
    /// `result` member present.
    pub has_result: bool,
    /// `error` member present (`"error": null` included).
    pub has_error: bool,
    /// `error.code` when it is an integer.
    pub error_code: Option<i64>,
    /// Envelope problems, in catalogue order.
    pub problems: Vec<Problem>,
    /// Members few messages have, boxed so that a message stays small
    /// (`None` when none is present).
    pub extra: Option<Box<Extra>>,
    /// Rebuilt from a log line that holds no body (LSP traces): envelope
    /// checks do not apply (FORMATS.md §8.1 "Rebuilt messages").
    pub rebuilt: bool,
}

/// Members few messages have (cancellations, progress tokens, the
/// initialize handshake, a stated revision).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extra {
    /// `params.requestId` of a `notifications/cancelled`.
    pub cancel_id: Option<Id>,
    /// `params.reason` of a `notifications/cancelled` when it is a string
    /// (the TS SDK's `McpError: MCP error -32001: Request timed out`).
    pub cancel_reason: Option<Box<str>>,
    /// `params._meta.progressToken` of a request, or `params.progressToken`
    /// of a `notifications/progress` (FORMATS.md §3.5).
    pub progress_token: Option<Id>,
    /// `result.protocolVersion` of a result that also has `serverInfo`
    /// (an initialize result).
    pub negotiated: Option<Box<str>>,
    /// `result.serverInfo` `(name, version)` of an initialize result, or
    /// `result._meta["io.modelcontextprotocol/serverInfo"]` of a
    /// 2026-07-28 result (`server/discover` and others).
    pub server_info: Option<(Box<str>, Box<str>)>,
    /// The revision the requester states: `params.protocolVersion` of an
    /// `initialize` request (the answered value wins), or
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` of any
    /// other message (2026-07-28, FORMATS.md §2.6).
    pub offered: Option<Box<str>>,
    /// The result is a task handle (`result.task` an object, MCP
    /// 2025-11-25 tasks): the request is not done, its progress goes on.
    pub task_handle: bool,
    /// `result.isError` is `true` (a tool call that failed: MCP
    /// `server/tools` "Error Handling"), the OpenTelemetry export's
    /// `error.type` `tool_error`.
    pub tool_error: bool,
    /// What the capture cannot show of this request's answer (a log that
    /// prints no reply bodies, FORMATS.md §8.3.9): a `missing_response` of
    /// it is a capture gap naming this (DESIGN.md rule 12). Set by readers,
    /// never from the message text.
    pub capture_gap: Option<Box<str>>,
    /// A reply its sender wrote but that a gateway logged it could not
    /// deliver (supergateway's `Failed to send to StreamableHttp …
    /// request ID: N`, FORMATS.md §8.3.6): it pairs with nothing, and its
    /// request's `missing_response` (an error, no capture gap) names this
    /// (DESIGN.md rule 7). Set by readers, never from the message text.
    pub undelivered: Option<Box<str>>,
    /// The members that link requests into one operation (MRTR rounds,
    /// tasks, listens; FORMATS.md §3.6), when the message has any.
    pub op: Option<OpFields>,
    /// A member the rules read (`jsonrpc`, `id`, `method`, `params`,
    /// `result`, `error`) that the object has twice: read last-wins, as
    /// `JSON.parse` does (RFC 8259 §4 leaves it to the parser), which a
    /// reader is told.
    pub repeated: Option<&'static str>,
}

/// What links a message to an operation of several requests (FORMATS.md
/// §3.6): MRTR rounds (2026-07-28 `basic/patterns/mrtr`), tasks (2025-11-25
/// `basic/utilities/tasks`, the 2026-07-28 tasks extension) and
/// `subscriptions/listen`. Strings that only need comparing are kept as
/// hashes ([`text_hash`]): a `requestState` is opaque, often large, and may
/// carry secrets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OpFields {
    /// Request: hash of `params.name` (`tools/call`, `prompts/get`) or
    /// `params.uri` (`resources/read`), what a retry must name again.
    pub target: Option<u64>,
    /// Request: hash of the `params.requestState` it echoes. Response:
    /// hash of the `result.requestState` it issues.
    pub request_state: Option<u64>,
    /// Request: `params.inputResponses` is present (an MRTR retry).
    pub input_responses: bool,
    /// Response: `result.resultType` other than `complete` (absent and
    /// `complete` are `None`: most results, which then keep no members).
    pub result_type: Option<ResultType>,
    /// Request: hash of `params.taskId` (`tasks/get`, `tasks/result`,
    /// `tasks/cancel`, `tasks/update`). Response: hash of `result.taskId`
    /// (2026-07-28 extension) or `result.task.taskId` (2025-11-25).
    pub task: Option<u64>,
    /// Response: the task's status when terminal (`completed`, `failed`,
    /// `cancelled`: it never changes again); `None` while it works.
    pub task_end: Option<TaskEnd>,
    /// Notification: `params._meta["io.modelcontextprotocol/subscriptionId"]`,
    /// the id of the listen it belongs to.
    pub subscription: Option<Id>,
    /// Request under 2026-07-28 (its `_meta` says so): hash of its
    /// `params` text with the value of `_meta` left out (a progress token
    /// there may change), what a re-issue after a broken stream sends
    /// again (2026-07-28 basic/transports/streamable-http).
    pub params_hash: Option<u64>,
}

/// A task's terminal status (2025-11-25 `basic/utilities/tasks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskEnd {
    /// `completed`.
    Completed,
    /// `failed`.
    Failed,
    /// `cancelled`.
    Cancelled,
}

/// `result.resultType` other than `complete` (2026-07-28: every result
/// has one, absent means `complete`, the request is done).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    /// `input_required`: the client must retry with `inputResponses`
    /// under a new id (MRTR).
    InputRequired,
    /// `task`: a task handle; the work goes on (tasks extension).
    Task,
    /// Another string.
    Other,
}

/// A stable 64-bit hash of a JSON value's text (the same within a build),
/// for comparing strings without keeping them.
pub fn text_hash(raw: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match str_value(raw) {
        Some(s) => s.as_ref().hash(&mut h),
        None => raw.hash(&mut h),
    }
    h.finish()
}

impl Message {
    /// `params.requestId` of a `notifications/cancelled`.
    pub fn cancel_id(&self) -> Option<&Id> {
        self.extra.as_ref()?.cancel_id.as_ref()
    }

    /// `params.reason` of a `notifications/cancelled`, when a string.
    pub fn cancel_reason(&self) -> Option<&str> {
        self.extra.as_ref()?.cancel_reason.as_deref()
    }

    /// `params._meta.progressToken` of a request, or `params.progressToken`
    /// of a `notifications/progress` (FORMATS.md §3.5).
    pub fn progress_token(&self) -> Option<&Id> {
        self.extra.as_ref()?.progress_token.as_ref()
    }

    /// `result.protocolVersion` of an initialize result.
    pub fn negotiated(&self) -> Option<&str> {
        self.extra.as_ref()?.negotiated.as_deref()
    }

    /// `result.serverInfo` `(name, version)` of an initialize result.
    pub fn server_info(&self) -> Option<&(Box<str>, Box<str>)> {
        self.extra.as_ref()?.server_info.as_ref()
    }

    /// The revision the requester states (see [`Extra::offered`]).
    pub fn offered(&self) -> Option<&str> {
        self.extra.as_ref()?.offered.as_deref()
    }

    /// Whether the result is a task handle (see [`Extra::task_handle`]).
    pub fn task_handle(&self) -> bool {
        self.extra.as_ref().is_some_and(|e| e.task_handle)
    }

    /// A member it has twice (see [`Extra::repeated`]).
    pub fn repeated_member(&self) -> Option<&'static str> {
        self.extra.as_ref()?.repeated
    }

    /// Its operation members (see [`OpFields`]).
    pub fn op(&self) -> Option<&OpFields> {
        self.extra.as_ref()?.op.as_ref()
    }
}

/// A batch member: a message, or something that is not an object.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    /// A JSON object.
    Message(Message),
    /// Not an object (`1`, `"x"`, `null`): an `invalid_request`, no message.
    NotObject,
}

/// What a frame holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// One JSON object.
    Single(Message),
    /// A JSON array (a batch, possibly empty).
    Batch(Vec<Member>),
    /// A traffic line without a JSON object or array (`non_json_line`).
    NonJson,
    /// A body that should hold JSON and does not (HTTP bodies).
    Unparseable,
    /// A body the capture did not keep (a HAR POST without `postData` or
    /// without its text): its messages are unknown. It carries none; the
    /// analysis knows a request may have been in it (a capture gap).
    Lost,
}

/// Why a text is not a JSON object or array.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// Not valid JSON; the parser's message (with its column).
    #[error("not valid JSON: {0}")]
    Syntax(String),
    /// Valid JSON that is neither object nor array (`null`, `42`).
    #[error("JSON {0}, not an object or array")]
    NotContainer(&'static str),
}

/// Parses one payload text (exactly one JSON value, surrounding whitespace
/// allowed) into a [`Payload::Single`] or [`Payload::Batch`].
///
/// Errors: [`PayloadError::Syntax`] for invalid JSON or trailing text,
/// [`PayloadError::NotContainer`] for a scalar.
pub fn parse_payload(text: &str) -> Result<Payload, PayloadError> {
    let t = text.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n' || c == '\r');
    match t.as_bytes().first() {
        Some(b'{') => parse_message(t).map(Payload::Single),
        Some(b'[') => {
            // Each member is classified in the same pass that reads the
            // array; serde_json reads the batch when the skim is not sure.
            let mut members = Vec::new();
            let skimmed = scan::whole(t, |s| {
                s.items(|sk| {
                    let member = if sk.peek() == Some(b'{') {
                        Member::Message(MessageMembers::read(sk)?.1.into_message())
                    } else {
                        sk.value_raw()?;
                        Member::NotObject
                    };
                    members.push(member);
                    Some(())
                })
            });
            if skimmed.is_none() {
                let items = serde_json::from_str::<Vec<&RawValue>>(t)
                    .map_err(|e| PayloadError::Syntax(e.to_string()))?;
                members = Vec::with_capacity(items.len());
                for raw in items {
                    let r = raw.get();
                    members.push(if r.starts_with('{') {
                        Member::Message(parse_message(r)?)
                    } else {
                        Member::NotObject
                    });
                }
            }
            Ok(Payload::Batch(members))
        }
        _ => match serde_json::from_str::<IgnoredAny>(t) {
            Ok(_) => Err(PayloadError::NotContainer(scalar_name(t))),
            Err(e) => Err(PayloadError::Syntax(e.to_string())),
        },
    }
}

/// Length in bytes of the first JSON value at the start of `text` (after
/// leading whitespace), for host logs that write text after the JSON
/// (FORMATS.md §8.1 "Payload"). `None` when no value parses there.
pub fn first_value_len(text: &str) -> Option<usize> {
    // An object or array ends by itself: the skim finds its end, or
    // serde_json decides when the skim is not sure.
    let lead = text.len() - text.trim_start_matches([' ', '\t', '\n', '\r']).len();
    if matches!(text.as_bytes().get(lead), Some(b'{' | b'[')) {
        let mut sk = scan::Skim::new(&text[lead..]);
        if sk.value_raw().is_some() {
            return Some(lead + sk.mark());
        }
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
    match stream.next() {
        Some(Ok(_)) => Some(stream.byte_offset()),
        _ => None,
    }
}

fn scalar_name(t: &str) -> &'static str {
    match t.as_bytes().first() {
        Some(b'n') => "null",
        Some(b't') | Some(b'f') => "boolean",
        Some(b'"') => "string",
        _ => "number",
    }
}

/// Parses one JSON object text into a [`Message`]: the members by the fast
/// skim ([`scan`]), or by serde_json when the skim is not sure (its error
/// text is the one reported).
pub fn parse_message(text: &str) -> Result<Message, PayloadError> {
    if let Some((_, m)) = scan::whole(text, MessageMembers::read) {
        return Ok(m.into_message());
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let raw = MessageMembers::deserialize_from(&mut de)
        .map_err(|e| PayloadError::Syntax(e.to_string()))?;
    de.end().map_err(|e| PayloadError::Syntax(e.to_string()))?;
    Ok(raw.into_message())
}

/// The members of one message object the rules read, borrowed as raw JSON
/// text; [`MessageMembers::into_message`] classifies them.
#[derive(Default, Debug, Clone, Copy)]
pub struct MessageMembers<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a str>,
    method: Option<&'a str>,
    params: Option<&'a str>,
    result: Option<&'a str>,
    error: Option<&'a str>,
    /// The first of the members above that the object has twice.
    repeated: Option<&'static str>,
    /// The [`PARAMS`] members of `params`, when read in the same pass.
    params_members: Option<[Option<&'a str>; 9]>,
}

/// The `params` members the rules read (see [`params_fields`]).
const PARAMS: [&str; 9] = [
    "requestId",
    "_meta",
    "protocolVersion",
    "progressToken",
    "name",
    "uri",
    "requestState",
    "inputResponses",
    "taskId",
];

impl<'a> MessageMembers<'a> {
    /// Reads the message object at `sk` in one pass (the members of
    /// `params` too); its raw text and members. `None` as
    /// [`scan::object_members`] (the caller then asks serde_json).
    pub fn read(sk: &mut scan::Skim<'a>) -> Option<(&'a str, Self)> {
        let mut m = MessageMembers::default();
        let start = sk.mark();
        sk.members(|k, sk| {
            if k == "params" && sk.peek() == Some(b'{') {
                let mut f = [None; 9];
                let raw = sk.object_raw(|k, v| {
                    if let Some(i) = PARAMS.iter().position(|n| *n == k) {
                        f[i] = Some(v);
                    }
                })?;
                if m.params.is_some() {
                    m.repeated.get_or_insert("params");
                }
                m.params = Some(raw);
                m.params_members = Some(f);
            } else {
                let raw = sk.value_raw()?;
                m.take(k, raw);
            }
            Some(())
        })?;
        Some((sk.since(start), m))
    }

    /// Keeps member `key` if the rules use it; a repeated member: the last
    /// one wins, as in `JSON.parse`.
    pub fn take(&mut self, key: &str, raw: &'a str) {
        if key == "params" {
            self.params_members = None;
        }
        let (slot, name) = match key {
            "jsonrpc" => (&mut self.jsonrpc, "jsonrpc"),
            "id" => (&mut self.id, "id"),
            "method" => (&mut self.method, "method"),
            "params" => (&mut self.params, "params"),
            "result" => (&mut self.result, "result"),
            "error" => (&mut self.error, "error"),
            _ => return,
        };
        if slot.replace(raw).is_some() {
            self.repeated.get_or_insert(name);
        }
    }

    fn deserialize_from(
        de: &mut serde_json::Deserializer<serde_json::de::StrRead<'a>>,
    ) -> serde_json::Result<Self> {
        de::Deserializer::deserialize_map(de, RawVisitor)
    }

    /// The message these members make (JSON-RPC 2.0 §4–§5, DESIGN.md
    /// rule 2; see [`Message`]).
    pub fn into_message(self) -> Message {
        let mut problems = Vec::new();
        let jsonrpc_ok = matches!(self.jsonrpc.map(str_value), Some(Some(ref s)) if s == "2.0");
        if !jsonrpc_ok {
            problems.push(Problem::BadJsonrpcVersion);
        }
        let id = self.id.map(Id::from_raw).unwrap_or(Id::Absent);
        let method = self
            .method
            .and_then(str_value)
            .map(|s| Box::<str>::from(s.as_ref()));
        let params_ok = self
            .params
            .is_none_or(|p| matches!(p.as_bytes().first(), Some(b'{') | Some(b'[')));
        let mut msg = Message {
            kind: Kind::Response,
            id,
            method: None,
            has_result: self.result.is_some(),
            has_error: self.error.is_some(),
            error_code: None,
            problems: Vec::new(),
            extra: None,
            rebuilt: false,
        };
        let mut extra = Extra {
            repeated: self.repeated,
            ..Extra::default()
        };
        if self.method.is_some() {
            msg.kind = if self.id.is_some() {
                Kind::Request
            } else {
                Kind::Notification
            };
            self.read_request(&mut msg, method, params_ok, &mut problems, &mut extra);
        } else {
            self.read_response(&mut msg, &mut problems, &mut extra);
        }
        msg.problems = problems;
        if extra != Extra::default() {
            msg.extra = Some(Box::new(extra));
        }
        msg
    }

    /// A request's or notification's checks (method a string, params an
    /// object or array, id not an object) and the `params` members few
    /// messages have (cancel id, offered revision, progress token).
    fn read_request(
        self,
        msg: &mut Message,
        method: Option<Box<str>>,
        params_ok: bool,
        problems: &mut Vec<Problem>,
        extra: &mut Extra,
    ) {
        if method.is_none() {
            problems.push(Problem::InvalidRequest("method is not a string"));
        } else if !params_ok {
            problems.push(Problem::InvalidRequest(
                "params is neither an object nor an array",
            ));
        } else if let Id::Other(raw) = &msg.id {
            problems.push(Problem::InvalidRequest(other_id_problem(raw)));
        }
        msg.method = method;
        if let Some(p) = self.params.filter(|p| p.starts_with('{')) {
            let fields = params_fields(
                self.params_members
                    .unwrap_or_else(|| members_of(p, &PARAMS)),
            );
            let modern_hash = (msg.kind == Kind::Request
                && fields.meta_protocol_version.as_deref() == Some(MODERN))
            .then(|| params_hash(p, fields.meta));
            match msg.method.as_deref() {
                Some("notifications/cancelled") => {
                    extra.cancel_id = fields.request_id;
                    extra.cancel_reason = members_of(p, &["reason"])[0]
                        .and_then(str_value)
                        .map(|r| r.as_ref().into());
                }
                Some("initialize") => extra.offered = fields.protocol_version,
                _ => extra.offered = fields.meta_protocol_version,
            }
            extra.progress_token = match msg.method.as_deref() {
                Some("notifications/progress") => fields.notified_token,
                _ => fields.progress_token,
            };
            let op = OpFields {
                target: match msg.method.as_deref() {
                    Some("tools/call" | "prompts/get") => fields.name,
                    Some("resources/read") => fields.uri,
                    _ => None,
                },
                request_state: fields.request_state,
                input_responses: fields.input_responses,
                task: fields.task.filter(|_| {
                    msg.method
                        .as_deref()
                        .is_some_and(|m| m.starts_with("tasks/"))
                }),
                subscription: fields.subscription,
                params_hash: modern_hash,
                ..OpFields::default()
            };
            if op != OpFields::default() {
                extra.op = Some(op);
            }
        }
    }

    /// A response's checks (id, error shape, result and error) and the
    /// revision and server an `initialize` result names.
    fn read_response(self, msg: &mut Message, problems: &mut Vec<Problem>, extra: &mut Extra) {
        if let Id::Other(raw) = &msg.id {
            problems.push(Problem::InvalidRequest(other_id_problem(raw)));
        }
        if let Some(e) = self.error {
            let (valid, code) = error_shape(e);
            msg.error_code = code;
            if !valid {
                problems.push(Problem::InvalidRequest(
                    "error is not {code: integer, message: string}",
                ));
            }
        }
        match (msg.has_result, msg.has_error) {
            (true, true) => problems.push(Problem::ResultAndError),
            (false, false) => problems.push(Problem::NeitherResultNorError),
            _ => {}
        }
        if let Some(r) = self.result
            && r.starts_with('{')
        {
            if RESULT_KEYS[0].find(r.as_bytes()).is_some() {
                let f = result_fields(r);
                if f.server_info.is_some() {
                    extra.negotiated = f.protocol_version;
                    extra.server_info = f.server_info;
                }
            }
            if extra.server_info.is_none() && RESULT_KEYS[1].find(r.as_bytes()).is_some() {
                // 2026-07-28: `server/discover` and other results name the
                // server in `_meta` (no initialize result names it).
                let [meta] = members_of(r, &["_meta"]);
                if let Some(m) = meta.filter(|m| m.starts_with('{')) {
                    let [info] = members_of(m, &[META_SERVER_INFO]);
                    extra.server_info = info.filter(|i| i.starts_with('{')).map(name_version);
                }
            }
            if RESULT_KEYS[5].find(r.as_bytes()).is_some() {
                let [e] = members_of(r, &["isError"]);
                if e == Some("true") {
                    extra.tool_error = true;
                }
            }
            let has = |k: usize| RESULT_KEYS[k].find(r.as_bytes()).is_some();
            if has(2) || has(3) || has(4) {
                let op = result_op(r, &mut extra.task_handle);
                if op != OpFields::default() {
                    extra.op = Some(op);
                }
            }
        }
    }
}

/// The texts a result is searched for before its members are read:
/// `protocolVersion` (an initialize result), the `_meta` server name, and
/// `"task"`, `"resultType"`, `"taskId"` (an operation's state), `"isError"`
/// (a failed tool call). Built once:
/// `memmem::find` builds its searcher on every call (issue 13: 7 % of a
/// run's instructions).
static RESULT_KEYS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 6]> =
    std::sync::LazyLock::new(|| {
        [
            "protocolVersion",
            META_SERVER_INFO,
            "\"task\"",
            "\"resultType\"",
            "\"taskId\"",
            "\"isError\"",
        ]
        .map(|k| memchr::memmem::Finder::new(k).into_owned())
    });

/// Why an id is no string, integer or null: its JSON type, or a string
/// that does not decode (a lone surrogate escape such as `"\ud800"`, which
/// no UTF-8 text can hold).
fn other_id_problem(raw: &str) -> &'static str {
    if raw.starts_with('"') {
        "id is a string that does not decode to Unicode text (a lone surrogate escape)"
    } else {
        "id is an object, array or boolean"
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = MessageMembers<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut m = MessageMembers::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "jsonrpc" | "id" | "method" | "params" | "result" | "error" => {
                    let raw = map.next_value::<&'de RawValue>()?;
                    m.take(key.as_ref(), raw.get());
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(m)
    }
}

/// The string value of a raw JSON text (valid JSON), `None` if it is not a
/// string (or not a valid one: a lone surrogate escape).
pub fn str_value(raw: &str) -> Option<Cow<'_, str>> {
    if let Some(s) = scan::plain_str(raw) {
        Some(Cow::Borrowed(s))
    } else if raw.starts_with('"') {
        serde_json::from_str::<Cow<str>>(raw).ok()
    } else {
        None
    }
}

/// `(valid, code)` of an `error` member: valid when it is
/// `{code: integer, message: string}` or `null` (null is judged by
/// `result_and_error` / the null-id rules instead).
fn error_shape(raw: &str) -> (bool, Option<i64>) {
    if raw == "null" {
        return (true, None);
    }
    if !raw.starts_with('{') {
        return (false, None);
    }
    let f = members_of(raw, &["code", "message"]);
    let code = f[0].and_then(|c| {
        if c.bytes().all(|b| b == b'-' || b.is_ascii_digit()) {
            c.parse::<i64>().ok()
        } else {
            None
        }
    });
    let message_ok = f[1].is_some_and(|m| m.starts_with('"'));
    (code.is_some() && message_ok, code)
}

/// Raw values of the named members of one object text (missing → `None`;
/// a repeated member: the last), by the skim, or by serde_json when the
/// skim is not sure.
fn members_of<'a, const N: usize>(raw: &'a str, names: &[&str; N]) -> [Option<&'a str>; N] {
    let mut out = [None; N];
    let skimmed = scan::object_members(raw, |k, v| {
        if let Some(i) = names.iter().position(|n| *n == k) {
            out[i] = Some(v);
        }
    });
    if skimmed.is_none() {
        out = [None; N];
        for (o, x) in out.iter_mut().zip(object_members_serde(raw, names)) {
            *o = x;
        }
    }
    out
}

fn object_members_serde<'a>(raw: &'a str, names: &[&str]) -> Vec<Option<&'a str>> {
    struct V<'n>(&'n [&'n str]);
    impl<'de, 'n> Visitor<'de> for V<'n> {
        type Value = Vec<Option<&'de str>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = vec![None; self.0.len()];
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match self.0.iter().position(|n| *n == key.as_ref()) {
                    Some(i) => out[i] = Some(map.next_value::<&'de RawValue>()?.get()),
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    de.deserialize_map(V(names))
        .unwrap_or_else(|_| vec![None; names.len()])
}

#[derive(Default)]
struct ParamsFields<'a> {
    request_id: Option<Id>,
    progress_token: Option<Id>,
    notified_token: Option<Id>,
    protocol_version: Option<Box<str>>,
    meta_protocol_version: Option<Box<str>>,
    name: Option<u64>,
    uri: Option<u64>,
    request_state: Option<u64>,
    input_responses: bool,
    task: Option<u64>,
    subscription: Option<Id>,
    /// The raw `_meta` member (a slice of `params`).
    meta: Option<&'a str>,
}

/// `_meta` key naming the listen a notification belongs to (2026-07-28
/// `basic/patterns/subscriptions`).
const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

/// A string member's hash; `None` for anything but a JSON string.
fn str_hash(raw: Option<&str>) -> Option<u64> {
    raw.filter(|r| r.starts_with('"')).map(text_hash)
}

/// The operation members of a result object `r` (see [`OpFields`]);
/// sets `task_handle` when `result.task` is an object (2025-11-25).
fn result_op(r: &str, task_handle: &mut bool) -> OpFields {
    let [result_type, state, task_id, status, task] = members_of(
        r,
        &["resultType", "requestState", "taskId", "status", "task"],
    );
    let mut op = OpFields {
        result_type: result_type
            .and_then(str_value)
            .and_then(|t| match t.as_ref() {
                "complete" => None,
                "input_required" => Some(ResultType::InputRequired),
                "task" => Some(ResultType::Task),
                _ => Some(ResultType::Other),
            }),
        request_state: str_hash(state),
        ..OpFields::default()
    };
    if op.result_type == Some(ResultType::Task) {
        *task_handle = true;
    }
    let terminal = |s: Option<&str>| {
        s.and_then(str_value).and_then(|s| match s.as_ref() {
            "completed" => Some(TaskEnd::Completed),
            "failed" => Some(TaskEnd::Failed),
            "cancelled" => Some(TaskEnd::Cancelled),
            _ => None,
        })
    };
    if let Some(t) = task.filter(|v| v.starts_with('{')) {
        *task_handle = true;
        let [id, st] = members_of(t, &["taskId", "status"]);
        op.task = str_hash(id);
        op.task_end = terminal(st);
    } else if task_id.is_some() {
        op.task = str_hash(task_id);
        op.task_end = terminal(status);
    }
    op
}

/// `_meta` key of the revision a 2026-07-28 request states (FORMATS.md §2.6).
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The revision without `initialize` (FORMATS.md §2.6).
const MODERN: &str = "2026-07-28";

/// Hash of a `params` object's text `p` without the value of its `_meta`
/// member (`meta`, a slice of `p`); of all of `p` when `meta` is not one.
fn params_hash(p: &str, meta: Option<&str>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let start = meta.map(|m| (m.as_ptr() as usize).wrapping_sub(p.as_ptr() as usize));
    match (start, meta) {
        (Some(a), Some(m)) if a <= p.len() && m.len() <= p.len() - a => {
            p[..a].hash(&mut h);
            p[a + m.len()..].hash(&mut h);
        }
        _ => p.hash(&mut h),
    }
    h.finish()
}

/// The fields the rules read from the [`PARAMS`] members of `params`.
fn params_fields(f: [Option<&str>; 9]) -> ParamsFields<'_> {
    let mut out = ParamsFields {
        request_id: f[0].map(Id::from_raw),
        name: str_hash(f[4]),
        uri: str_hash(f[5]),
        request_state: str_hash(f[6]),
        input_responses: f[7].is_some_and(|v| v.starts_with('{')),
        task: str_hash(f[8]),
        meta: f[1],
        ..Default::default()
    };
    if let Some(meta) = f[1].filter(|m| m.starts_with('{')) {
        let m = members_of(
            meta,
            &["progressToken", META_PROTOCOL_VERSION, META_SUBSCRIPTION],
        );
        out.progress_token = m[0].map(Id::from_raw);
        out.meta_protocol_version = m[1].and_then(str_value).map(|s| s.as_ref().into());
        out.subscription = m[2].map(Id::from_raw);
    }
    out.protocol_version = f[2].and_then(str_value).map(|s| s.as_ref().into());
    out.notified_token = f[3].map(Id::from_raw);
    out
}

/// `_meta` key of the server's name and version in a 2026-07-28 result.
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// `(name, version)` of an `Implementation` object (empty when absent).
fn name_version(r: &str) -> (Box<str>, Box<str>) {
    let g = members_of(r, &["name", "version"]);
    let s = |x: Option<&str>| -> Box<str> {
        x.and_then(str_value)
            .map(|s| s.as_ref().into())
            .unwrap_or_default()
    };
    (s(g[0]), s(g[1]))
}

struct ResultFields {
    protocol_version: Option<Box<str>>,
    server_info: Option<(Box<str>, Box<str>)>,
}

fn result_fields(raw: &str) -> ResultFields {
    let f = members_of(raw, &["protocolVersion", "serverInfo"]);
    let protocol_version = f[0].and_then(str_value).map(|s| s.as_ref().into());
    let server_info = f[1].filter(|r| r.starts_with('{')).map(name_version);
    ResultFields {
        protocol_version,
        server_info,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(t: &str) -> Message {
        match parse_payload(t).unwrap() {
            Payload::Single(m) => m,
            other => panic!("{other:?}"),
        }
    }

    /// The operation members (FORMATS.md §3.6), as fastmcp 4.2.3 and
    /// fastmcp-tasks 4.1.4 write them (tests/data/real4/issue12).
    #[test]
    fn operation_members_of_requests_and_results() {
        let retry = single(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"inputResponses":{"date":{"action":"accept"}},"requestState":"v1.abc","name":"book_flight","arguments":{}}}"#,
        );
        let op = retry.op().unwrap();
        assert_eq!(
            (op.target, op.request_state, op.input_responses),
            (
                Some(text_hash(r#""book_flight""#)),
                Some(text_hash(r#""v1.abc""#)),
                true
            )
        );
        let asked = single(
            r#"{"jsonrpc":"2.0","id":6,"result":{"inputRequests":{},"requestState":"v1.abc","resultType":"input_required"}}"#,
        );
        let op = asked.op().unwrap();
        assert_eq!(
            (op.result_type, op.request_state),
            (
                Some(ResultType::InputRequired),
                Some(text_hash(r#""v1.abc""#))
            )
        );
        let handle = single(
            r#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"T","status":"working","resultType":"task","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"4.1.4"}}}}"#,
        );
        assert!(handle.task_handle());
        assert_eq!(handle.op().unwrap().task, Some(text_hash(r#""T""#)));
        assert_eq!(handle.server_info(), Some(&("demo".into(), "4.1.4".into())));
        assert_eq!(handle.negotiated(), None);
        let done = single(
            r#"{"jsonrpc":"2.0","id":10,"result":{"taskId":"T","status":"completed","resultType":"complete"}}"#,
        );
        assert!(!done.task_handle());
        assert_eq!(done.op().unwrap().task_end, Some(TaskEnd::Completed));
        let old = single(
            r#"{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"U","status":"working"}}}"#,
        );
        assert!(old.task_handle());
        assert_eq!(old.op().unwrap().task, Some(text_hash(r#""U""#)));
        let tagged = single(
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}"#,
        );
        assert_eq!(
            tagged.op().unwrap().subscription,
            Some(Id::Str("listen-1".into()))
        );
        let plain = single(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#);
        assert_eq!(plain.op(), None);
    }

    /// A lone-surrogate string id is named as such, not as an object.
    #[test]
    fn undecodable_string_id_is_named() {
        let m = single(r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#);
        assert_eq!(
            m.problems,
            vec![Problem::InvalidRequest(
                "id is a string that does not decode to Unicode text (a lone surrogate escape)"
            )]
        );
        let m = single(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#);
        assert_eq!(
            m.problems,
            vec![Problem::InvalidRequest("id is an object, array or boolean")]
        );
    }

    /// A member twice: last wins (as JSON.parse), and the message says
    /// which member, in the fast path and the serde path (an escaped key
    /// sends a message there).
    #[test]
    fn repeated_members_are_marked() {
        let m = single(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
        assert_eq!(
            (m.id.clone(), m.repeated_member()),
            (Id::Int(2), Some("id"))
        );
        let m = single(
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":{"x":1},"m\u0065thod":"b"}"#,
        );
        assert_eq!(
            (m.method.as_deref(), m.repeated_member()),
            (Some("b"), Some("params"))
        );
        let m = single(r#"{"jsonrpc":"2.0","id":1,"result":{"id":1,"id":2}}"#);
        assert_eq!(
            m.repeated_member(),
            None,
            "members inside result are not judged"
        );
    }

    #[test]
    fn counts_requests_notifications_responses() {
        let m = single(r#"{"method":"ping","params":{},"jsonrpc":"2.0","id":0}"#);
        assert_eq!(
            (m.kind, m.id.clone(), m.problems.len()),
            (Kind::Request, Id::Int(0), 0)
        );
        let n = single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(n.kind, Kind::Notification);
        let r = single(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#);
        assert_eq!((r.kind, r.id), (Kind::Request, Id::Null));
        let e = single(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        );
        assert_eq!(
            (e.kind, e.has_error, e.error_code),
            (Kind::Response, true, Some(-32700))
        );
        assert!(e.problems.is_empty());
    }

    #[test]
    fn envelope_problems() {
        assert_eq!(
            single(r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#).problems,
            vec![Problem::BadJsonrpcVersion]
        );
        assert_eq!(
            single(r#"{"jsonrpc":2.0,"id":1,"result":1}"#).problems,
            vec![Problem::BadJsonrpcVersion]
        );
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":{},"method":"a"}"#).problems[..],
            [Problem::InvalidRequest(_)]
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#).problems[..],
            [Problem::InvalidRequest(_)]
        ));
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":null}"#).problems,
            vec![Problem::ResultAndError]
        );
        assert_eq!(
            single(r#"{"jsonrpc":"2.0","id":1}"#).problems,
            vec![Problem::NeitherResultNorError]
        );
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#).problems[..],
            [Problem::InvalidRequest(_)]
        ));
    }

    #[test]
    fn batches_and_scalars() {
        match parse_payload(r#"[1, {"jsonrpc":"2.0","method":"a"}]"#).unwrap() {
            Payload::Batch(m) => {
                assert_eq!((m.len(), matches!(m[0], Member::NotObject)), (2, true))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parse_payload("[]").unwrap(), Payload::Batch(vec![]));
        assert_eq!(
            parse_payload("null"),
            Err(PayloadError::NotContainer("null"))
        );
        assert!(matches!(
            parse_payload(r#"{"a":"#),
            Err(PayloadError::Syntax(_))
        ));
        assert!(matches!(
            parse_payload(r#"{"a":1} x"#),
            Err(PayloadError::Syntax(_))
        ));
    }

    #[test]
    fn extracts_members_the_rules_need() {
        let c = single(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a-1","reason":"t"}}"#,
        );
        assert_eq!(c.cancel_id(), Some(&Id::Str("a-1".into())));
        assert_eq!(c.cancel_reason(), Some("t"));
        let t = single(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":"McpError: MCP error -32001: Request timed out"}}"#,
        );
        assert_eq!(
            t.cancel_reason(),
            Some("McpError: MCP error -32001: Request timed out")
        );
        let n = single(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":7}}"#,
        );
        assert_eq!(
            (n.cancel_id(), n.cancel_reason()),
            (Some(&Id::Int(0)), None)
        );
        let i = single(
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        );
        assert_eq!(i.negotiated(), Some("2025-03-26"));
        assert_eq!(i.server_info(), Some(&("s".into(), "1".into())));
        let p = single(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"tok"}}}"#,
        );
        assert_eq!(p.progress_token(), Some(&Id::Str("tok".into())));
        let n = single(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#,
        );
        assert_eq!(n.progress_token(), Some(&Id::Int(7)));
        let m = single(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        assert_eq!(m.offered(), Some("2026-07-28"));
        assert_eq!(
            first_value_len(r#"{"a":1} { metadata: undefined }"#),
            Some(7)
        );
    }
}

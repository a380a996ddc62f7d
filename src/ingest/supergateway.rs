//! supergateway logs (FORMATS.md table 8.2 row 8, §8.3.6, §6.6):
//! `[supergateway] SRC → DST[ (TAG)]: BODY`, and in the `--sse URL` /
//! `--streamableHttp URL` modes `[supergateway] Response: BODY`.
//!
//! Client→server when DST is `Child` (`SSE → Child`, `StreamableHttp →
//! Child`, `WebSocket → Child`) or SRC is `Stdio` (`Stdio → SSE`, `Stdio →
//! Streamable HTTP`); server→client when SRC is `Child`, DST is `Stdio`, or
//! the line is `Response:`. TAG is `session SID`, or (stateless Streamable
//! HTTP) `auto-initialize` / `initialized` for the messages the gateway
//! makes itself, or `original` for the repeat of a message already logged
//! (not traffic). BODY is read as JSON first, else as util.inspect text (see
//! [`super::objdump`]); a BODY that opens `{` or `[` continues over the
//! following lines until its brackets balance. `Child non-JSON[ (session
//! SID)]: LINE` is a server→client `non_json_line`; every other
//! `[supergateway]` line (`Child stderr …`, `Starting...`, option lines)
//! and any untagged line is not traffic.
//!
//! Capture gaps (FORMATS.md §8.3.6, DESIGN.md rule 12): `Request error:`
//! is an error reply the gateway wrote to its stdio client without logging
//! its id; in stateless Streamable HTTP mode the gateway answers a child's
//! request itself without logging the answer. Both are lost replies.
//!
//! Sessions: the key is SID where printed. Child output carries no session
//! (stdio→SSE sends it to every open session): a session-less message goes
//! to the session the log makes certain or likeliest (`Owners`); the
//! file is the key when the log names no session at all. In the
//! Streamable HTTP modes each child is its own session (one per stateless
//! POST, one per stateful `SessionAccessCounter` session) (the `children` module).

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1};
use nom::character::complete::alphanumeric1;
use nom::combinator::opt;
use nom::sequence::delimited;
use nom::{IResult, Parser};

mod children;

use children::{Ev, Mode};

use super::grammar::{Span, continue_body, span_of};
use super::input::Input;
use super::lines::{Line, Lines};
use super::objdump::{Body, emit_read, read_body};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Kind, LooseKey, Parsed, Payload, Split};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "supergateway";

const PREFIX: &str = "[supergateway] ";

/// What one `[supergateway]` line holds (FORMATS.md table 8.2 row 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgLine<'a> {
    /// `SRC → DST[ (session SID)]: BODY`, `Response: BODY` with a known
    /// direction.
    Traffic {
        /// Direction of the message.
        direction: Direction,
        /// The `(session SID)` value, if printed.
        session: Option<&'a str>,
        /// BODY on this line (it may continue on the next lines).
        body: &'a str,
        /// `(auto-initialize)` / `(initialized)`: made by the gateway.
        made: bool,
    },
    /// `Request error: TEXT` (`--sse` / `--streamableHttp` → stdio): an
    /// error reply sent to the stdio client, logged without its id.
    IdlessError {
        /// The error text (`McpError: MCP error -32601: Method not found`).
        text: &'a str,
    },
    /// `Failed to send to StreamableHttp Error: No connection established
    /// for request ID: N` (Streamable HTTP modes): the gateway could not
    /// deliver the child's reply N to its client (FORMATS.md §8.3.6).
    Undelivered {
        /// N as the gateway prints it (`String(id)`: a string id unquoted).
        id: &'a str,
        /// The line after the prefix.
        text: &'a str,
    },
    /// `Child non-JSON[ (session SID)]: LINE`.
    NonJson {
        /// The `(session SID)` value, if printed.
        session: Option<&'a str>,
        /// The text the child wrote.
        text: &'a str,
    },
    /// A session ended: `SSE connection closed (session SID)`, `Client
    /// disconnected (session SID)`, `SSE error (session SID): …`.
    Closed(&'a str),
    /// `Running stateless server`: the stateless Streamable HTTP mode.
    Stateless,
    /// `Running stateful server`: the stateful Streamable HTTP mode.
    Stateful,
    /// `SessionAccessCounter.inc() SID, caused by session initialization`
    /// or `… caused by POST request for existing session`: a POST of
    /// session SID, whose message(s) the next `StreamableHttp → Child`
    /// line(s) show.
    Post(&'a str),
    /// `Response finished SID` / `Response closed SID`: a POST of session
    /// SID was answered.
    Finished(&'a str),
    /// Any other `[supergateway]` line (including `(original)` repeats):
    /// not traffic.
    Other,
}

/// A route's `(…)` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag<'a> {
    Session(&'a str),
    /// `(original)`: a message already logged when it arrived.
    Repeat,
    /// `(auto-initialize)`, `(initialized)`: made by the gateway.
    Made,
}

fn session(s: &str) -> IResult<&str, &str> {
    delimited(tag(" (session "), take_till1(|c| c == ')'), tag(")")).parse(s)
}

fn route_tag(s: &str) -> IResult<&str, Tag<'_>> {
    alt((
        session.map(Tag::Session),
        tag(" (original)").map(|_| Tag::Repeat),
        alt((tag(" (auto-initialize)"), tag(" (initialized)"))).map(|_| Tag::Made),
    ))
    .parse(s)
}

fn route(s: &str) -> IResult<&str, (&str, &str, Option<Tag<'_>>)> {
    let (s, (src, _, dst, t, _)) = (
        alphanumeric1,
        alt((tag(" → "), tag(" -> "))),
        alt((tag("Streamable HTTP"), alphanumeric1)),
        opt(route_tag),
        tag(":"),
    )
        .parse(s)?;
    Ok((s, (src, dst, t)))
}

fn non_json(s: &str) -> IResult<&str, Option<&str>> {
    let (s, (_, sid, _)) = (tag("Child non-JSON"), opt(session), tag(":")).parse(s)?;
    Ok((s, sid))
}

fn closed(s: &str) -> IResult<&str, &str> {
    let (s, _) = alt((
        tag("SSE connection closed"),
        tag("Client disconnected"),
        tag("SSE error"),
    ))
    .parse(s)?;
    session(s)
}

fn body_of(text: &str) -> &str {
    text.strip_prefix(' ').unwrap_or(text)
}

/// Reads one line (FORMATS.md table 8.2 row 8); `None` when it does not
/// start `[supergateway] `.
pub fn split(line: &str) -> Option<SgLine<'_>> {
    let rest = line.strip_prefix(PREFIX)?;
    if let Ok((text, session)) = non_json(rest) {
        return Some(SgLine::NonJson {
            session,
            text: body_of(text),
        });
    }
    if let Some(body) = rest.strip_prefix("Response:") {
        return Some(SgLine::Traffic {
            direction: Direction::S2c,
            session: None,
            body: body_of(body),
            made: false,
        });
    }
    if let Some(text) = rest.strip_prefix("Request error:") {
        return Some(SgLine::IdlessError {
            text: body_of(text),
        });
    }
    if let Ok((_, sid)) = closed(rest) {
        return Some(SgLine::Closed(sid));
    }
    if let Some(line) = undelivered(rest) {
        return Some(line);
    }
    if rest == "Running stateless server" {
        return Some(SgLine::Stateless);
    }
    if rest == "Running stateful server" {
        return Some(SgLine::Stateful);
    }
    if let Some(line) = counter_post(rest) {
        return Some(line);
    }
    let Ok((body, (src, dst, t))) = route(rest) else {
        return Some(SgLine::Other);
    };
    let session = match t {
        Some(Tag::Repeat) => return Some(SgLine::Other),
        Some(Tag::Session(s)) => Some(s),
        Some(Tag::Made) | None => None,
    };
    let made = t == Some(Tag::Made);
    let direction = if dst == "Child" || (src == "Stdio" && src != dst) {
        Direction::C2s
    } else if src == "Child" || dst == "Stdio" {
        Direction::S2c
    } else {
        return Some(SgLine::Other);
    };
    Some(SgLine::Traffic {
        direction,
        session,
        body: body_of(body),
        made,
    })
}

/// The stateful mode's session lines: `SessionAccessCounter.inc() SID,
/// caused by session initialization` / `… POST request for existing
/// session` (a POST; GET and DELETE carry no message) and `Response
/// finished SID` / `Response closed SID`.
fn counter_post(rest: &str) -> Option<SgLine<'_>> {
    if let Some(r) = rest.strip_prefix("SessionAccessCounter.inc() ") {
        let (sid, cause) = r.split_once(", caused by ")?;
        return matches!(
            cause,
            "session initialization" | "POST request for existing session"
        )
        .then_some(SgLine::Post(sid));
    }
    let sid = rest
        .strip_prefix("Response finished ")
        .or_else(|| rest.strip_prefix("Response closed "))?;
    (!sid.is_empty() && !sid.contains(' ')).then_some(SgLine::Finished(sid))
}

/// `Failed to send to StreamableHttp Error: No connection established for
/// request ID: N`: the SDK transport's `send` rejected a reply whose
/// request has no open connection (`Error: …` is the error's first line, at
/// info and debug level alike; its stack follows unprefixed).
fn undelivered(rest: &str) -> Option<SgLine<'_>> {
    const WHY: &str = "No connection established for request ID: ";
    let after = rest.strip_prefix("Failed to send to StreamableHttp")?;
    let (_, id) = after.split_once(WHY)?;
    let id = id.trim_end();
    (!id.is_empty()).then_some(SgLine::Undelivered { id, text: rest })
}

/// Row 8 claims the line (FORMATS.md §8.2: `[supergateway] `).
pub fn claims(line: &str) -> bool {
    line.starts_with(PREFIX)
}

/// Parses a supergateway log (FORMATS.md §8.2 row 8, §8.3.6).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Supergateway::default())
}

/// What attribution needs of one message: kind, id, progress token.
#[derive(Debug, Clone, PartialEq)]
struct Shape {
    kind: Kind,
    id: Option<LooseKey>,
    /// `params._meta.progressToken` of a request, `params.progressToken`
    /// of a `notifications/progress`.
    token: Option<LooseKey>,
    /// A `notifications/progress`.
    progress: bool,
}

fn shape(body: &Body) -> Option<Shape> {
    let (Body::Read(Payload::Single(m)) | Body::Partly(Payload::Single(m), _)) = body else {
        return None;
    };
    Some(Shape {
        kind: m.kind,
        id: m.id.loose(),
        token: m.progress_token().and_then(|t| t.loose()),
        progress: m.method.as_deref() == Some("notifications/progress"),
    })
}

/// One line kept until the end of the log, when sessions are known; `S`
/// is a text (a range of the input while reading, a slice at the end).
enum Item<S> {
    /// A message (or non-JSON line) of `session`, or of none.
    Msg {
        line: u64,
        direction: Direction,
        session: Option<S>,
        part: S,
        body: Body,
        /// A child request the stateless gateway answered without logging.
        answered_unlogged: bool,
        /// Made by the gateway (`(auto-initialize)`, `(initialized)`).
        made: bool,
    },
    /// A reply the log shows without its id (`Request error:`).
    Lost { line: u64, part: S },
    /// The gateway could not deliver reply `id` (`Failed to send to
    /// StreamableHttp …`); `text` is the line after the prefix.
    Undelivered { line: u64, id: S, text: S },
    /// A session ended.
    Closed(S),
    /// A POST of session S (stateful `SessionAccessCounter.inc()`).
    Post(S),
    /// A POST of session S was answered (`Response finished S`).
    Finished(S),
}

impl Item<Span> {
    /// The item with its texts read from `text`.
    fn resolve(self, text: &str) -> Item<&str> {
        let get = |r: Span| text.get(r).unwrap_or("");
        match self {
            Item::Msg {
                line,
                direction,
                session,
                part,
                body,
                answered_unlogged,
                made,
            } => Item::Msg {
                line,
                direction,
                session: session.map(get),
                part: get(part),
                body,
                answered_unlogged,
                made,
            },
            Item::Lost { line, part } => Item::Lost {
                line,
                part: get(part),
            },
            Item::Undelivered { line, id, text } => Item::Undelivered {
                line,
                id: get(id),
                text: get(text),
            },
            Item::Closed(s) => Item::Closed(get(s)),
            Item::Post(s) => Item::Post(get(s)),
            Item::Finished(s) => Item::Finished(get(s)),
        }
    }
}

/// Reads a `[supergateway]` line and the lines its BODY continues over;
/// emits everything at the end, when every session of the log is known.
#[derive(Default)]
struct Supergateway {
    items: Vec<Item<Span>>,
    stateless: bool,
    stateful: bool,
}

impl Supergateway {
    fn msg(
        &mut self,
        text: &str,
        line: u64,
        direction: Direction,
        session: Option<&str>,
        part: &str,
        made: bool,
    ) {
        // A gateway-made message is only in the stateless mode.
        self.stateless |= made;
        let body = read_body(part);
        let answered_unlogged = self.stateless
            && direction == Direction::S2c
            && shape(&body).is_some_and(|s| s.kind == Kind::Request);
        self.items.push(Item::Msg {
            line,
            direction,
            session: session.map(|s| span_of(text, s)),
            part: span_of(text, part),
            body,
            answered_unlogged,
            made,
        });
    }
}

impl LineReader for Supergateway {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>) {
        let text = sink.input().text;
        match split(line.text) {
            Some(SgLine::Traffic {
                direction,
                session,
                body,
                made,
            }) => {
                let (body, taken) = continue_body(sink.input().text, rest, body, claims);
                // Accounting: the body's continuation lines are not traffic
                // lines of their own (nothing lost: every line is counted once).
                for _ in 0..taken {
                    sink.other();
                }
                let part = body.trim_matches([' ', '\t', '\r', '\n']);
                self.msg(text, line.number, direction, session, part, made);
            }
            Some(SgLine::NonJson { session, text: t }) => {
                self.items.push(Item::Msg {
                    line: line.number,
                    direction: Direction::S2c,
                    session: session.map(|s| span_of(text, s)),
                    part: span_of(text, t),
                    body: Body::Unreadable,
                    answered_unlogged: false,
                    made: false,
                });
            }
            Some(SgLine::IdlessError { text: t }) => {
                // The line holds no message (a lost reply carries none):
                // accounted as a line that is not traffic.
                sink.other();
                self.items.push(Item::Lost {
                    line: line.number,
                    part: span_of(text, t),
                });
            }
            Some(SgLine::Closed(sid)) => {
                sink.other();
                self.items.push(Item::Closed(span_of(text, sid)));
            }
            Some(SgLine::Undelivered { id, text: t }) => {
                sink.other();
                self.items.push(Item::Undelivered {
                    line: line.number,
                    id: span_of(text, id),
                    text: span_of(text, t),
                });
            }
            Some(SgLine::Stateless) => {
                sink.other();
                self.stateless = true;
            }
            Some(SgLine::Stateful) => {
                sink.other();
                self.stateful = true;
            }
            Some(SgLine::Post(sid)) => {
                sink.other();
                self.items.push(Item::Post(span_of(text, sid)));
            }
            Some(SgLine::Finished(sid)) => {
                sink.other();
                self.items.push(Item::Finished(span_of(text, sid)));
            }
            Some(SgLine::Other) | None => sink.other(),
        }
    }

    fn end(&mut self, sink: &mut LineSink<'_>) {
        let input = sink.input();
        let mut items: Vec<Item<&str>> = std::mem::take(&mut self.items)
            .into_iter()
            .map(|i| i.resolve(input.text))
            .collect();
        mark_undelivered(&mut items);
        if self.stateless {
            end_children(sink, Mode::Stateless, items);
        } else if items.iter().any(|i| matches!(i, Item::Post(_))) {
            end_children(sink, Mode::Stateful, items);
        } else {
            end_broadcast(sink, items);
        }
    }
}

/// The input note for `n` child messages no session could be certain of,
/// the first at `line` (a capture gap: FORMATS.md §8.3.6).
fn unsure_note(sink: &mut LineSink<'_>, unsure: Option<(u64, usize)>) {
    if let Some((line, n)) = unsure {
        sink.notice(
            line,
            &format!(
                "{n} child message(s) could not be given to one session with certainty: several \
                 sessions were open or waited for the same id or progress token, and \
                 supergateway names no session on child output (FORMATS.md §8.3.6); each is \
                 counted in the session that asked first, else in the last active one (a \
                 capture gap; first at this line)"
            ),
        );
    }
}

fn count_unsure(unsure: &mut Option<(u64, usize)>, line: u64) {
    let u = unsure.get_or_insert((line, 0));
    u.1 += 1;
}

/// Emits a log without a child per session (stdio→SSE, WebSocket, `--sse
/// URL`, stateful logs without `SessionAccessCounter` lines): sessions by
/// [`Owners`].
fn end_broadcast(sink: &mut LineSink<'_>, items: Vec<Item<&str>>) {
    let file = sink.input().name;
    let mut owners = Owners::new(&items);
    let mut unsure: Option<(u64, usize)> = None;
    let mut crossed: Option<(u64, usize)> = None;
    for item in items {
        match item {
            Item::Msg {
                line,
                direction,
                session,
                part,
                body,
                answered_unlogged,
                ..
            } => {
                let owned = owners.owner(direction, session, shape(&body).as_ref());
                if !owned.sure {
                    count_unsure(&mut unsure, line);
                }
                if owned.crossed {
                    count_unsure(&mut crossed, line);
                }
                let keys = if owned.keys.is_empty() {
                    vec![file]
                } else {
                    owned.keys
                };
                let at = At::by_start(file, Some(direction), None, line);
                emit_copies(sink, keys, at, part, body, answered_unlogged);
            }
            Item::Lost { line, part } => {
                let key = owners.last.unwrap_or(file);
                sink.lost(At::by_start(key, Some(Direction::S2c), None, line), part);
            }
            Item::Closed(sid) => owners.close(sid),
            Item::Post(_) | Item::Finished(_) | Item::Undelivered { .. } => {}
        }
    }
    unsure_note(sink, unsure);
    if let Some((line, n)) = crossed {
        sink.notice(
            line,
            &format!(
                "{n} child repl{} reached several sessions that had sent the same id: \
                 supergateway's stdio→SSE mode sends the one child's output to every \
                 client, so clients sharing a child receive each other's replies (each \
                 takes the first with its id); counted in each such session, where the \
                 later ones are duplicate responses (first at this line)",
                if n == 1 { "y" } else { "ies" }
            ),
        );
    }
}

/// Emits a Streamable HTTP log with one child per session (stateless: per
/// POST; stateful: per `SessionAccessCounter` session), sessions by
/// [`children::attribute`].
fn end_children(sink: &mut LineSink<'_>, mode: Mode, items: Vec<Item<&str>>) {
    let file = sink.input().name;
    let shapes: Vec<Option<Shape>> = items
        .iter()
        .map(|i| match i {
            Item::Msg { body, .. } => shape(body),
            _ => None,
        })
        .collect();
    let evs: Vec<Ev<'_>> = items
        .iter()
        .zip(&shapes)
        .map(|(i, s)| match i {
            Item::Msg {
                direction: Direction::C2s,
                made,
                line,
                ..
            } => Ev::Client {
                made: *made,
                line: *line,
                shape: s.as_ref(),
            },
            Item::Msg { line, .. } => Ev::Child {
                line: *line,
                shape: s.as_ref(),
            },
            Item::Post(sid) => Ev::Post(sid),
            Item::Finished(sid) => Ev::Finished(sid),
            _ => Ev::Other,
        })
        .collect();
    let att = children::attribute(mode, file, &evs);
    let mut unsure: Option<(u64, usize)> = None;
    let mut last = file;
    for (i, item) in items.into_iter().enumerate() {
        let pick = att.picks.get(i).copied().unwrap_or_default();
        let key = pick.owner.map_or(file, |o| att.names[o].as_str());
        match item {
            Item::Msg {
                line,
                direction,
                part,
                mut body,
                answered_unlogged,
                ..
            } => {
                if !pick.sure {
                    count_unsure(&mut unsure, line);
                }
                if let Some(&(_, at_line)) = att.gaps.iter().find(|g| g.0 == i) {
                    mark_gap(&mut body, at_line);
                }
                let at = At {
                    key,
                    split: Split::Never,
                    direction: Some(direction),
                    ts: None,
                    line,
                };
                emit_copies(sink, vec![key], at, part, body, answered_unlogged);
                last = key;
            }
            Item::Lost { line, part } => {
                let at = At {
                    key: last,
                    split: Split::Never,
                    direction: Some(Direction::S2c),
                    ts: None,
                    line,
                };
                sink.lost(at, part);
            }
            Item::Closed(_) | Item::Post(_) | Item::Finished(_) | Item::Undelivered { .. } => {}
        }
    }
    unsure_note(sink, unsure);
}

/// Each `Failed to send to StreamableHttp … request ID: N` marks the
/// latest child reply with id N before it that no such line took yet (the
/// gateway logs each child line, then `send` rejects a moment later): that
/// reply never reached the client (FORMATS.md §8.3.6), so it pairs with
/// nothing and its request's `missing_response` names both lines.
fn mark_undelivered(items: &mut [Item<&str>]) {
    for i in 0..items.len() {
        let Item::Undelivered { line, id, text } = items[i] else {
            continue;
        };
        let hit = items[..i].iter_mut().rev().find_map(|it| match it {
            Item::Msg {
                direction: Direction::S2c,
                line: at,
                body: Body::Read(Payload::Single(m)) | Body::Partly(Payload::Single(m), _),
                ..
            } if m.kind == Kind::Response
                && printed_id(&m.id).as_deref() == Some(id)
                && m.extra.as_ref().is_none_or(|e| e.undelivered.is_none()) =>
            {
                Some((*at, m))
            }
            _ => None,
        });
        if let Some((at, m)) = hit {
            m.extra.get_or_insert_default().undelivered = Some(
                format!(
                    "the server's reply at line {at} was not delivered: supergateway logged at \
                     line {line} \"{text}\""
                )
                .into(),
            );
        }
    }
}

/// An id as supergateway prints it in `request ID: N` (JavaScript's
/// `String(id)`: a string unquoted, a number as written).
fn printed_id(id: &crate::record::Id) -> Option<String> {
    use crate::record::Id;
    match id {
        Id::Str(s) => Some(s.to_string()),
        Id::Int(_) | Id::BigInt(_) | Id::Number(_) => Some(id.json_text()),
        Id::Absent | Id::Null | Id::Other(_) => None,
    }
}

/// A request whose reply may be the one at `line`, counted in another
/// session that waited for the same id: a `missing_response` of it is a
/// capture gap (DESIGN.md rule 12).
fn mark_gap(body: &mut Body, line: u64) {
    if let Body::Read(Payload::Single(m)) | Body::Partly(Payload::Single(m), _) = body {
        m.extra.get_or_insert_default().capture_gap = Some(
            format!(
                "supergateway names no session on child output: the reply at line {line} had \
                 this id while several sessions waited for it, and was counted in the one that \
                 asked first"
            )
            .into(),
        );
    }
}

/// Message `part` (read as `body`) at `at`, once in each session of
/// `keys` (`at.key` is replaced); the last copy takes the body (no clone
/// for one). `answered_unlogged`: a child request the stateless gateway
/// answered without logging, so each copy has a lost reply client→server.
fn emit_copies(
    sink: &mut LineSink<'_>,
    keys: Vec<&str>,
    at: At<'_>,
    part: &str,
    mut body: Body,
    answered_unlogged: bool,
) {
    let n = keys.len();
    for (k, key) in keys.into_iter().enumerate() {
        let at = At { key, ..at };
        let copy = if k + 1 == n {
            std::mem::replace(&mut body, Body::Unreadable)
        } else {
            body.clone()
        };
        emit_read(sink, at, part, copy);
        if answered_unlogged {
            sink.lost(
                At {
                    direction: Some(Direction::C2s),
                    ..at
                },
                part,
            );
        }
    }
}

/// Which sessions a message belongs to (FORMATS.md §8.3.6 "Sessions"),
/// decided in log order. A message that names its session belongs to it.
/// Child output names none; stdio→SSE sends it to every open session. A
/// session-less reply belongs to the session waiting for its id (the one
/// that asked first when several wait: not sure, reported); its copies to
/// the other sessions answer nothing there and are not counted. A
/// session-less child request or notification reached every open session
/// and is counted in each (each client may answer it). Without a waiting
/// session, the only open session, else the last active one (not sure).
struct Owners<'a> {
    /// Sessions not yet closed, in order of first appearance.
    open: Vec<&'a str>,
    /// Requests waiting for a reply: (session, id, progress token), in
    /// log order.
    pending: Vec<(&'a str, LooseKey, Option<LooseKey>)>,
    /// (session, token) of every request that named a progress token.
    had: Vec<(&'a str, LooseKey)>,
    /// The sessions that sent a request with each id, in log order (a
    /// map: a long log has many ids, and every reply asks).
    used: std::collections::HashMap<LooseKey, Vec<&'a str>>,
    /// The session of the last message that named one.
    last: Option<&'a str>,
    /// The first session the log names (for messages before any).
    first: Option<&'a str>,
}

/// Where a message goes: its sessions (none: the file) and whether the log
/// makes that certain.
struct Owned<'a> {
    keys: Vec<&'a str>,
    sure: bool,
    /// A reply that reached several sessions (the gateway's broadcast).
    crossed: bool,
}

impl<'a> Owned<'a> {
    fn one(key: Option<&'a str>, sure: bool) -> Owned<'a> {
        Owned {
            keys: key.into_iter().collect(),
            sure,
            crossed: false,
        }
    }
}

impl<'a> Owners<'a> {
    fn new(items: &[Item<&'a str>]) -> Owners<'a> {
        let first = items.iter().find_map(|i| match i {
            Item::Msg { session, .. } => *session,
            _ => None,
        });
        Owners {
            open: Vec::new(),
            pending: Vec::new(),
            had: Vec::new(),
            used: std::collections::HashMap::new(),
            last: None,
            first,
        }
    }

    fn close(&mut self, sid: &str) {
        self.open.retain(|s| *s != sid);
    }

    /// A session-less `notifications/progress` with token `t`: the sessions
    /// whose pending request named it (each got the copy it waits for), else
    /// those whose earlier request did (a progress after its response shows
    /// there); `None` when no request named it.
    fn progress_sessions(&self, t: &LooseKey) -> Option<Vec<&'a str>> {
        let mut keys: Vec<&'a str> = Vec::new();
        for (sid, _, tok) in &self.pending {
            if tok.as_ref() == Some(t) && !keys.contains(sid) {
                keys.push(sid);
            }
        }
        if keys.is_empty() {
            for (sid, tok) in &self.had {
                if tok == t && !keys.contains(sid) {
                    keys.push(sid);
                }
            }
        }
        (!keys.is_empty()).then_some(keys)
    }

    /// The sessions a session-less reply with `id` reaches and is counted
    /// in. The gateway sends child output to every open session (FORMATS.md
    /// §8.3.6): each open session that sent a request with that id takes
    /// its copy, the one still waiting as its answer, one already answered
    /// as a second response (several clients on one child number from 0:
    /// their replies cross, a real fault the clients see). A session that
    /// never sent the id is not counted: it may have gone without a line
    /// saying so. `None`: no session sent it.
    fn reply(&mut self, id: &LooseKey) -> Option<Owned<'a>> {
        let mut keys: Vec<&'a str> = Vec::new();
        self.pending.retain(|(sid, pid, _)| {
            if pid == id && !keys.contains(sid) {
                keys.push(sid);
                false
            } else {
                true
            }
        });
        for sid in self.used.get(id).into_iter().flatten() {
            if self.open.contains(sid) && !keys.contains(sid) {
                keys.push(sid);
            }
        }
        (!keys.is_empty()).then_some(Owned {
            crossed: keys.len() > 1,
            keys,
            sure: true,
        })
    }

    /// The sessions of a message.
    fn owner(
        &mut self,
        direction: Direction,
        session: Option<&'a str>,
        shape: Option<&Shape>,
    ) -> Owned<'a> {
        if let Some(sid) = session {
            if !self.open.contains(&sid) {
                self.open.push(sid);
            }
            self.last = Some(sid);
            if let Some(s) = shape
                && direction == Direction::C2s
                && s.kind == Kind::Request
            {
                if let Some(t) = &s.token {
                    self.had.push((sid, t.clone()));
                }
                if let Some(id) = &s.id {
                    self.pending.push((sid, id.clone(), s.token.clone()));
                    let senders = self.used.entry(id.clone()).or_default();
                    if !senders.contains(&sid) {
                        senders.push(sid);
                    }
                }
            }
            return Owned::one(Some(sid), true);
        }
        if self.first.is_none() || direction == Direction::C2s {
            // A log without sessions (stdio, WebSocket, Streamable HTTP
            // modes): the file is the session.
            return Owned::one(None, true);
        }
        if let Some(Shape {
            kind: Kind::Notification,
            progress: true,
            token: Some(t),
            ..
        }) = shape
            && let Some(keys) = self.progress_sessions(t)
        {
            return Owned {
                keys,
                sure: true,
                crossed: false,
            };
        }
        match shape {
            Some(Shape {
                kind: Kind::Response,
                id: Some(id),
                ..
            }) => {
                if let Some(owned) = self.reply(id) {
                    return owned;
                }
            }
            Some(Shape {
                kind: Kind::Request | Kind::Notification,
                ..
            }) if self.open.len() > 1 => {
                return Owned {
                    keys: self.open.clone(),
                    sure: true,
                    crossed: false,
                };
            }
            _ => {}
        }
        match self.open.as_slice() {
            [only] => Owned::one(Some(*only), true),
            [] => Owned::one(self.last.or(self.first), true),
            _ => Owned::one(self.last, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Id, Kind, Payload, Record};

    /// A traffic line's (direction, session, body), or `None`.
    fn t(l: &str) -> Option<(Direction, Option<&str>, &str)> {
        match split(l) {
            Some(SgLine::Traffic {
                direction,
                session,
                body,
                ..
            }) => Some((direction, session, body)),
            _ => None,
        }
    }

    #[test]
    fn routes() {
        assert_eq!(
            t("[supergateway] SSE → Child (session abc-1): {}"),
            Some((Direction::C2s, Some("abc-1"), "{}"))
        );
        assert_eq!(
            t("[supergateway] StreamableHttp → Child: {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            t("[supergateway] WebSocket → Child: {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            t("[supergateway] Stdio → SSE: {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            t("[supergateway] Child → SSE: { id: 1 }"),
            Some((Direction::S2c, None, "{ id: 1 }"))
        );
        assert_eq!(
            t("[supergateway] Child → StreamableHttp (session s): {"),
            Some((Direction::S2c, Some("s"), "{"))
        );
        assert_eq!(
            t("[supergateway] SSE → Stdio: {}"),
            Some((Direction::S2c, None, "{}"))
        );
        assert_eq!(
            split("[supergateway] Child non-JSON (session s): oops"),
            Some(SgLine::NonJson {
                session: Some("s"),
                text: "oops"
            })
        );
        assert_eq!(
            split("[supergateway] Child non-JSON: oops"),
            Some(SgLine::NonJson {
                session: None,
                text: "oops"
            })
        );
        assert_eq!(
            split("[supergateway] Child stderr (session s): hi"),
            Some(SgLine::Other)
        );
        assert_eq!(split("[supergateway] Starting..."), Some(SgLine::Other));
        assert_eq!(
            split("[supergateway] SSE → WebSocket: {}"),
            Some(SgLine::Other)
        );
        assert_eq!(split("supergateway x"), None);
    }

    /// The line shapes of supergateway 4.0.0's other modes, as its real
    /// logs print them (tests/data/real3, tests/data/real4/supergateway).
    #[test]
    fn routes_of_every_mode() {
        // --sse URL / --streamableHttp URL (→ stdio).
        assert_eq!(
            t("[supergateway] Response: {"),
            Some((Direction::S2c, None, "{"))
        );
        assert_eq!(
            t("[supergateway] Stdio → Streamable HTTP: {"),
            Some((Direction::C2s, None, "{"))
        );
        assert_eq!(
            split("[supergateway] Request error: McpError: MCP error -32601: Method not found"),
            Some(SgLine::IdlessError {
                text: "McpError: MCP error -32601: Method not found"
            })
        );
        // Stateful and stateless Streamable HTTP.
        assert_eq!(
            t(
                "[supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"
            ),
            Some((
                Direction::S2c,
                None,
                "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"
            ))
        );
        assert_eq!(
            t("[supergateway] StreamableHttp → Child (auto-initialize): {\"id\":\"init_1\"}"),
            Some((Direction::C2s, None, "{\"id\":\"init_1\"}"))
        );
        assert_eq!(
            t("[supergateway] StreamableHttp → Child (initialized): {}"),
            Some((Direction::C2s, None, "{}"))
        );
        assert_eq!(
            split("[supergateway] StreamableHttp → Child (original): {\"id\":2}"),
            Some(SgLine::Other)
        );
        assert_eq!(
            split("[supergateway] Running stateless server"),
            Some(SgLine::Stateless)
        );
        assert_eq!(
            split("[supergateway] Running stateful server"),
            Some(SgLine::Stateful)
        );
        assert_eq!(
            split("[supergateway] Response finished f61ef891-55ba-4dd1-b622-8a3d8dee1ef4"),
            Some(SgLine::Finished("f61ef891-55ba-4dd1-b622-8a3d8dee1ef4"))
        );
        assert_eq!(
            split(
                "[supergateway] SessionAccessCounter.inc() 8f79-4481, caused by POST request for existing session"
            ),
            Some(SgLine::Post("8f79-4481"))
        );
        assert_eq!(
            split(
                "[supergateway] SessionAccessCounter.inc() 8f79-4481, caused by session initialization"
            ),
            Some(SgLine::Post("8f79-4481"))
        );
        assert_eq!(
            split(
                "[supergateway] SessionAccessCounter.inc() 8f79-4481, caused by GET request for existing session"
            ),
            Some(SgLine::Other)
        );
        // WebSocket.
        assert_eq!(
            t("[supergateway] Child → WebSocket: {\"id\":3}"),
            Some((Direction::S2c, None, "{\"id\":3}"))
        );
        // stdio→SSE session ends.
        assert_eq!(
            split("[supergateway] Client disconnected (session 446f-2a)"),
            Some(SgLine::Closed("446f-2a"))
        );
        assert_eq!(
            split("[supergateway] SSE connection closed (session x)"),
            Some(SgLine::Closed("x"))
        );
        assert_eq!(
            split("[supergateway] SSE error (session y): Error: boom"),
            Some(SgLine::Closed("y"))
        );
    }

    type Got = (
        u64,
        std::sync::Arc<str>,
        Option<Direction>,
        Option<(Kind, Id, bool)>,
    );

    fn got(p: &Parsed) -> Vec<Got> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.key.clone(),
                    f.direction,
                    match &f.payload {
                        Payload::Single(m) => Some((m.kind, m.id.clone(), m.has_result)),
                        _ => None,
                    },
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn json_and_inspect_bodies_by_session() {
        let text = "[supergateway] Starting...\n\
            [supergateway]   - port: 8000\n\
            [supergateway] New SSE connection from ::1\n\
            [supergateway] SSE → Child (session s1): {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n\
            [supergateway] Child → SSE (session s1): {\n  jsonrpc: '2.0',\n  id: 0,\n  result: {\n    protocolVersion: '2024-11-05',\n    capabilities: { tools: [Object] },\n    serverInfo: [Object]\n  }\n}\n\
            [supergateway] Child stderr (session s1): Server running on stdio\n\
            [supergateway] SSE → Child (session s2): {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
            [supergateway] Child → SSE (session s2): { jsonrpc: '2.0', id: 1, result: { tools: [ [Object], [Object] ] } }\n\
            [supergateway] Child non-JSON (session s2): Debugger attached.\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 2, error: [Object] }\n\
            [supergateway] Child → SSE: <<not inspect>>\n\
            plain stderr\n\
            [supergateway] Child → SSE (session s2): { jsonrpc: '2.0', id: 3, result: { a: [ 1,\n\
            [supergateway] POST to SSE transport (session s2)\n";
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let g = got(&p);
        assert_eq!(
            g,
            vec![
                (
                    4,
                    "s1".into(),
                    Some(Direction::C2s),
                    Some((Kind::Request, Id::Int(0), false))
                ),
                (
                    5,
                    "s1".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(0), true))
                ),
                (
                    15,
                    "s2".into(),
                    Some(Direction::C2s),
                    Some((Kind::Request, Id::Int(1), false))
                ),
                (
                    16,
                    "s2".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(1), true))
                ),
                (17, "s2".into(), Some(Direction::S2c), None),
                // Session-less, nobody waits for id 2, s1 and s2 both open:
                // the last active session, reported below.
                (
                    18,
                    "s2".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(2), false))
                ),
                (19, "s2".into(), Some(Direction::S2c), None),
                (
                    21,
                    "s2".into(),
                    Some(Direction::S2c),
                    Some((Kind::Response, Id::Int(3), true))
                ),
            ]
        );
        // Starting, port, New SSE connection, stderr, plain stderr, POST, and
        // the 8 continuation lines of the body at line 5.
        assert_eq!((p.other_lines, p.dialect), (14, "supergateway"));
        assert_eq!(p.errors.len(), 2, "{:?}", p.errors);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("line 21: util.inspect body read only in part: "),
            "{:?}",
            p.errors
        );
        assert!(
            p.errors[1].to_string().starts_with(
                "line 18: 2 child message(s) could not be given to one session with certainty"
            ),
            "{:?}",
            p.errors
        );
        let Record::Frame(f) = &p.records[1] else {
            panic!()
        };
        let Payload::Single(m) = &f.payload else {
            panic!()
        };
        assert!(m.problems.is_empty() && !m.rebuilt, "{m:?}");
        let Record::Frame(f) = &p.records[5] else {
            panic!()
        };
        let Payload::Single(m) = &f.payload else {
            panic!()
        };
        assert!(m.has_error && m.problems.is_empty(), "{m:?}");
    }

    /// stdio→SSE: child output names no session; with two sessions open,
    /// a reply goes to the session waiting for its id (to each, when
    /// several wait for it), a child request or notification to every
    /// open session (the gateway sends it to each).
    #[test]
    fn session_less_child_output_is_attributed() {
        let text = "[supergateway] SSE → Child (session A): {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":5}}}\n\
            [supergateway] SSE → Child (session B): {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}\n\
            [supergateway] Child → SSE: {\n  jsonrpc: '2.0',\n  method: 'notifications/progress',\n  params: { progressToken: 5, progress: 1 }\n}\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage' }\n\
            [supergateway] SSE → Child (session B): {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 7, result: {} }\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', method: 'notifications/message' }\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 5, result: {} }\n\
            [supergateway] Client disconnected (session B)\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 9, result: {} }\n\
            [supergateway] SSE → Child (session B2): {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
            [supergateway] SSE → Child (session A): {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 1, result: {} }\n\
            [supergateway] Child → SSE: { jsonrpc: '2.0', id: 1, result: {} }\n";
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let keys: Vec<(u64, String)> = got(&p)
            .into_iter()
            .map(|(l, k, _, _)| (l, k.to_string()))
            .collect();
        assert_eq!(
            keys,
            [
                (1, "A"),
                (2, "B"),
                // Progress for token 5: only A's pending request named it.
                (3, "A"),
                (8, "A"),
                (8, "B"),
                (9, "B"),
                (10, "B"),
                (11, "A"),
                (11, "B"),
                (12, "A"),
                (14, "A"),
                (15, "B2"),
                (16, "A"),
                // Both wait for id 1: the gateway sends each reply to every
                // session, and each client takes the first as its answer
                // (a crossed reply); the second reaches both again.
                // (Line 14's id 9 no session used: A, the last active.)
                (17, "B2"),
                (17, "A"),
                (18, "B2"),
                (18, "A"),
            ]
            .map(|(l, k)| (l, k.to_string()))
        );
        // Every message's sessions are certain; the crossed replies are said.
        let lines: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "line 17: 2 child replies reached several sessions that had sent the same id: supergateway's stdio→SSE mode sends the one child's output to every client, so clients sharing a child receive each other's replies (each takes the first with its id); counted in each such session, where the later ones are duplicate responses (first at this line)"
            ]
        );
    }

    fn keys_of(text: &str) -> (Vec<(u64, String)>, Vec<String>) {
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let keys = got(&p)
            .into_iter()
            .map(|(l, k, _, _)| (l, k.to_string()))
            .collect();
        (keys, p.errors.iter().map(|e| e.to_string()).collect())
    }

    /// Stateless Streamable HTTP: each client message starts a child of
    /// its own (`FILE#LINE`); two clients' `tools/list` id 2 are no
    /// duplicate. Replies by pending id (`init_…` ids are unique); the
    /// second id-2 reply while both wait goes to the child that asked
    /// first (noted), the last to the other.
    #[test]
    fn stateless_children_are_sessions() {
        let text = "[supergateway] Running stateless server\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n\
            [supergateway] StreamableHttp → Child (auto-initialize): {\"jsonrpc\":\"2.0\",\"id\":\"init_a\",\"method\":\"initialize\"}\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n\
            [supergateway] StreamableHttp → Child (auto-initialize): {\"jsonrpc\":\"2.0\",\"id\":\"init_b\",\"method\":\"initialize\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":\"init_b\",\"result\":{}}\n\
            [supergateway] StreamableHttp → Child (initialized): {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":\"init_a\",\"result\":{}}\n\
            [supergateway] StreamableHttp → Child (initialized): {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n\
            [supergateway] StreamableHttp → Child (original): {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n";
        let (keys, errors) = keys_of(text);
        let (a, b) = ("sg.log#2", "sg.log#4");
        assert_eq!(
            keys,
            [
                (2, a),
                (3, a),
                (4, b),
                (5, b),
                (6, b),
                (7, b),
                (8, a),
                (9, a),
                (11, a),
                (12, b)
            ]
            .map(|(l, k)| (l, k.to_string()))
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("line 11: 1 child message(s) could not be given to one session"),
            "{errors:?}"
        );
    }

    /// Stateful Streamable HTTP: a client message belongs to the session of
    /// the `SessionAccessCounter.inc()` line before it; a reply both
    /// sessions wait for goes to the one the next `Response finished` names
    /// (noted: not sure), a child request to the session whose client
    /// answers its id, a progress to the session whose pending request
    /// named its token.
    #[test]
    fn stateful_sessions_from_counter_lines() {
        let text = "[supergateway] SessionAccessCounter.inc() A, caused by session initialization\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n\
            [supergateway] SessionAccessCounter.inc() B, caused by session initialization\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
            [supergateway] Response finished B\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
            [supergateway] Response finished A\n\
            [supergateway] SessionAccessCounter.inc() A, caused by POST request for existing session\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":2}}}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"sampling/createMessage\"}\n\
            [supergateway] SessionAccessCounter.inc() B, caused by POST request for existing session\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":2,\"progress\":1}}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n";
        let (keys, errors) = keys_of(text);
        assert_eq!(
            keys,
            [
                (2, "A"),
                (4, "B"),
                (5, "B"),
                (7, "A"),
                (10, "A"),
                (11, "B"),
                (13, "B"),
                (14, "A"),
                (15, "A")
            ]
            .map(|(l, k)| (l, k.to_string()))
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("line 5: 1 child message(s) could not be given to one session"),
            "{errors:?}"
        );
    }

    /// `--sse URL`: `Response:` dumps are replies; `Request error:` is a
    /// reply without its id (a lost frame, a capture gap); stateless
    /// Streamable HTTP: a child request is answered unlogged (a lost
    /// client→server frame at its line) and one session holds it all.
    #[test]
    fn lost_replies_and_stateless() {
        let text = "[supergateway] Stdio → SSE: {\n  jsonrpc: '2.0',\n  id: 1,\n  method: 'logging/setLevel'\n}\n\
            [supergateway] Request error: McpError: MCP error -32601: Method not found\n    at McpError.fromError (file://./x.js:1:2) {\n  code: -32601,\n  data: undefined\n}\n\
            [supergateway] Response: {\n  jsonrpc: '2.0',\n  id: 2,\n  result: {}\n}\n";
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let kinds: Vec<(u64, Option<Direction>, &str)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.direction,
                    match &f.payload {
                        Payload::Single(_) => "msg",
                        Payload::Lost => "lost",
                        _ => "other",
                    },
                )),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [
                (1, Some(Direction::C2s), "msg"),
                (6, Some(Direction::S2c), "lost"),
                (11, Some(Direction::S2c), "msg")
            ]
        );
        // 4 + 4 continuation lines, the `Request error` line, the stack line
        // and the 3 tail lines.
        assert_eq!(p.other_lines, 13);

        let text = "[supergateway] Running stateless server\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\"}\n\
            [supergateway] StreamableHttp → Child (auto-initialize): {\"jsonrpc\":\"2.0\",\"id\":\"init_1\",\"method\":\"initialize\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":\"init_1\",\"result\":{}}\n\
            [supergateway] StreamableHttp → Child (initialized): {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n\
            [supergateway] StreamableHttp → Child (original): {\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"sampling/createMessage\"}\n";
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let frames: Vec<(u64, Option<Direction>, Split, bool)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.prov.location.line.unwrap_or(0),
                    f.direction,
                    f.split,
                    matches!(f.payload, Payload::Lost),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(
            frames,
            [
                (2, Some(Direction::C2s), Split::Never, false),
                (3, Some(Direction::C2s), Split::Never, false),
                (4, Some(Direction::S2c), Split::Never, false),
                (5, Some(Direction::C2s), Split::Never, false),
                (7, Some(Direction::S2c), Split::Never, false),
                (7, Some(Direction::C2s), Split::Never, true)
            ]
        );
        assert_eq!(p.other_lines, 2);
    }

    /// `Failed to send to StreamableHttp Error: No connection established
    /// for request ID: N` marks the latest child reply with id N before it
    /// (never an earlier one, never a request or notification, never one
    /// another such line took) as not delivered; `Failed to send child
    /// failure …` (the gateway's own unlogged reply) marks nothing.
    #[test]
    fn undelivered_replies() {
        assert_eq!(
            split(
                "[supergateway] Failed to send to StreamableHttp Error: No connection established for request ID: 13"
            ),
            Some(SgLine::Undelivered {
                id: "13",
                text: "Failed to send to StreamableHttp Error: No connection established for request ID: 13"
            })
        );
        assert_eq!(
            split(
                "[supergateway] Failed to send child failure Error: No connection established for request ID: 12"
            ),
            Some(SgLine::Other)
        );
        assert_eq!(
            split("[supergateway] Failed to send to StreamableHttp Error: something else"),
            Some(SgLine::Other)
        );
        let text = "[supergateway] Running stateful server\n\
            [supergateway] SessionAccessCounter.inc() A, caused by session initialization\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":\"k\",\"method\":\"ping\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":\"k\",\"result\":{}}\n\
            [supergateway] SessionAccessCounter.inc() A, caused by POST request for existing session\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":\"k\",\"method\":\"ping\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":\"k\",\"method\":\"roots/list\"}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"id\":\"k\",\"result\":{}}\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\
            [supergateway] Failed to send to StreamableHttp Error: No connection established for request ID: k\n    at send (file:///x.js:917:27)\n\
            [supergateway] Failed to send child failure Error: No connection established for request ID: k\n";
        let p = parse(Input {
            file: 0,
            name: "sg.log",
            text,
        });
        let marks: Vec<(u64, Option<&str>)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => match &f.payload {
                    Payload::Single(m) => Some((
                        f.prov.location.line.unwrap_or(0),
                        m.extra.as_ref().and_then(|e| e.undelivered.as_deref()),
                    )),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        assert_eq!(
            marks,
            [
                (3, None),
                (4, None),
                (6, None),
                (7, None),
                (
                    8,
                    Some(
                        "the server's reply at line 8 was not delivered: supergateway logged at \
                         line 10 \"Failed to send to StreamableHttp Error: No connection \
                         established for request ID: k\""
                    )
                ),
                (9, None)
            ]
        );
    }
}

//! The per-session pass: pairing by id per id space and every finding rule
//! of DESIGN.md "Precise rules" (2, 3, 5–9; rule 10's batch part). Capture-
//! wide rules (slow tails outside batches) run in [`super::finalize`].

use std::collections::VecDeque;

#[path = "http_rules.rs"]
mod http_rules;
#[path = "start_cut.rs"]
pub mod start_cut;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::findings::{Finding, FindingId, FindingKind as K};
use super::gaps::GapKind;
use super::operations::{LISTEN, Operation, Tracker};
use super::replies::{self, EmptyBatch, Replies, Sent};
use super::{Config, PairStatus, Quantity};
use crate::reconstruct::Session;
use crate::record::{
    Direction, Frame, Id, Kind, LooseKey, Member, Message, Micros, Payload, Problem, ValidId,
};

/// One request (either direction): a `pairs.csv` row in the making.
#[derive(Debug, Clone)]
pub struct Req {
    /// The id as written (valid when [`Id::is_valid`]; rows are kept for
    /// every request of a run, so the strict key is not stored beside it).
    pub id: Id,
    /// Method, shared by every request of the session with that method.
    pub method: Option<std::sync::Arc<str>>,
    /// Requester direction.
    pub direction: Direction,
    /// Request time, µs.
    pub ts: Option<Micros>,
    /// Response time, µs.
    pub response_ts: Option<Micros>,
    /// Latency, µs, when known (rule 10).
    pub latency: Option<Micros>,
    /// Why a paired request's latency is unknown (`summary.json`
    /// `latency_ms.unknown`, DESIGN.md rule 10): `no_time` (the request
    /// or its response has no time), `moved` (causal placement moved one of
    /// them, DESIGN.md rule 4), `time_unbounded` (its time is no bound,
    /// FORMATS.md §4.2), `before_request` (the response's time comes first).
    pub latency_unknown: Option<&'static str>,
    /// Batch index in the session and 0-based position among its requests.
    pub batch: Option<(u32, u32)>,
    /// Position of its response among the batch's paired responses.
    pub response_position: Option<u32>,
    /// Cancelled by its requester.
    pub cancelled: bool,
    /// Answered.
    pub answered: bool,
    /// Reported `duplicate_id`.
    pub duplicate: bool,
    /// Answered after `--timeout`.
    pub late: bool,
    /// Rides a response stream (SSE body or status 0): `stream_closed_before_response` applies.
    pub on_stream: bool,
    /// Its HAR entry's response was not kept by the capture
    /// (`HttpContext::response_lost`): a `missing_response` is a gap.
    pub response_lost: bool,
    /// What the capture cannot show of its answer (`Extra::capture_gap`,
    /// a log without reply bodies): a `missing_response` is a gap.
    pub reply_gap: Option<Box<str>>,
    /// Its frame's time is no bound on when it was sent
    /// (`HttpContext::time_unbounded`: a server request on a stream whose
    /// entry `time` closed at the headers): its latency is unknown.
    pub time_unbounded: bool,
    /// Its time is the end of the HAR stream entry whose body carried it,
    /// with no time of its own (no per-event record): an upper bound on
    /// when it was sent, no more.
    pub at_stream_end: bool,
    /// HAR entry of its POST.
    pub entry: Option<u64>,
    /// Where.
    pub loc: crate::record::Location,
    /// Evidence.
    pub evidence: (u64, u32),
    /// File id of the request's frame (`Provenance::file`).
    pub file: u32,
    /// The operation it belongs to (`SessionResult::operations`), if any.
    pub op: Option<u32>,
    /// `error.code` of its response, when an integer in `i32` range (the
    /// OpenTelemetry export's `error.type` for inputs read block by block).
    pub error_code: Option<i32>,
    /// Its response's `result.isError` is `true` (a failed tool call; the
    /// OpenTelemetry export's `error.type` `tool_error`).
    pub tool_error: bool,
    /// Its POST was refused at the HTTP layer (401, 403, 407 with no
    /// JSON-RPC body: an authentication challenge, an Origin check): no
    /// JSON-RPC answer was due, so a `missing_response` is `info`.
    pub refused: Option<u16>,
    /// The revision its own message states (`_meta`
    /// `io.modelcontextprotocol/protocolVersion`, or an `initialize`'s
    /// `protocolVersion`): `Some(true)` for 2026-07-28, `Some(false)` for
    /// another; `None` when it states none and its session's applies. One
    /// capture may mix eras: a 2026-07-28 client's first requests to a
    /// server that knows only older revisions, then its `initialize`.
    pub modern: Option<bool>,
}

/// Progress of one request that named a `_meta.progressToken`
/// (FORMATS.md §3.5), kept beside the rows: few requests ask for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestProgress {
    /// `notifications/progress` linked to it by its `progressToken`.
    pub notifications: u32,
    /// Of those, how many came after its response (FORMATS.md §3.5:
    /// progress must stop at completion, tasks excepted).
    pub after_response: u32,
    /// Longest silence between its request, its progress notifications and
    /// its response (µs), where times are known.
    pub longest_silence: Option<Micros>,
    /// Time of the last progress notification (or the request).
    last: Option<Micros>,
    /// HAR entry whose body carried its response (`None` on a line log).
    response_entry: Option<u64>,
    /// Its response is a task handle: progress goes on after it.
    task: bool,
    /// One of its notifications has no time of its own (an event of a HAR
    /// stream body without per-event times, stamped with the entry's end):
    /// its silences are unknown, so `longest_silence` stays `None`.
    pub untimed: bool,
}

impl Req {
    /// Whether the 2026-07-28 rules apply to it: the revision it states,
    /// else its session's (`session`, [`SessionResult::revision`]).
    pub fn is_modern(&self, session: Option<&str>) -> bool {
        self.modern.unwrap_or(session == Some(MODERN))
    }

    /// A finding pointing at this request (its place, id and method).
    pub fn finding(&self, kind: K, session: &str, input: usize, detail: String) -> Finding {
        Finding {
            kind,
            session: session.to_string(),
            direction: Some(self.direction),
            id: FindingId::One(self.id.clone()),
            alt_ids: vec![],
            method: self.method.as_deref().map(str::to_string),
            input,
            file: self.file,
            location: self.loc,
            evidence: self.evidence,
            detail,
            gap: false,
            by_traffic: false,
        }
    }

    /// Its `pairs.csv` status.
    pub fn status(&self) -> PairStatus {
        if !self.id.is_valid() {
            PairStatus::Invalid
        } else if self.cancelled {
            PairStatus::Cancelled
        } else if self.late {
            PairStatus::Late
        } else if self.answered {
            PairStatus::Paired
        } else {
            PairStatus::Missing
        }
    }

    /// A request with id `id` sent in `direction`, nothing else known yet.
    pub fn new(id: Id, direction: Direction) -> Req {
        Req {
            id,
            method: None,
            direction,
            ts: None,
            response_ts: None,
            latency: None,
            latency_unknown: None,
            batch: None,
            response_position: None,
            cancelled: false,
            answered: false,
            duplicate: false,
            late: false,
            on_stream: false,
            response_lost: false,
            reply_gap: None,
            time_unbounded: false,
            at_stream_end: false,
            entry: None,
            loc: crate::record::Location::default(),
            evidence: (0, 0),
            file: 0,
            op: None,
            modern: None,
            error_code: None,
            tool_error: false,
            refused: None,
        }
    }
}

/// A batch: a JSON array frame (rule 8).
#[derive(Debug, Clone)]
pub struct Batch {
    /// Direction of the array.
    pub direction: Direction,
    /// Member ids in order (members without an id add nothing).
    pub ids: Vec<Id>,
    /// Number of members (objects or not).
    pub size: usize,
    /// Indexes (into the session's requests) of its requests with valid ids.
    pub reqs: Vec<usize>,
    /// Requests with any id.
    pub all_requests: usize,
    /// Notifications in it.
    pub notifications: usize,
    /// Responses in it (a reply array).
    pub responses: usize,
    /// Request positions (into `reqs`) in response arrival order.
    pub arrivals: Vec<usize>,
    /// Responses (id not null) in frames linked to it (rule 9).
    pub linked: usize,
    /// Null-id error responses in frames linked to it.
    pub null_id: usize,
    /// Unknown-id responses in frames linked to it.
    pub unknown: usize,
    /// Only notifications.
    pub notification_only: bool,
    /// Where.
    pub loc: crate::record::Location,
    /// Evidence.
    pub evidence: (u64, u32),
    /// File id of the array's frame.
    pub file: u32,
    /// First reply frame's location, evidence and file id.
    pub reply: Option<(crate::record::Location, (u64, u32), u32)>,
    /// Request time.
    pub ts: Option<Micros>,
    /// Time of the last linked response.
    pub completed: Option<Micros>,
    /// Every member is a well-formed request or notification (rule 13).
    pub well_formed: bool,
    /// The finding index of the one id-less error that answered it, while
    /// it may be `batch_rejected_whole` (rule 13), with the error's code
    /// and whether the id member was absent.
    pub rejection: Option<(usize, Option<i64>, bool)>,
    /// Its first member answered by a bare object in a JSON (not SSE)
    /// HTTP body: place, evidence and file id of that reply.
    pub bare_reply: Option<(crate::record::Location, (u64, u32), u32)>,
}

#[derive(Default)]
struct Space {
    /// Loose key → unanswered requests (cancelled included), oldest first.
    pending: HashMap<LooseKey, VecDeque<usize>>,
    /// Strict id → pending requests with it that are not cancelled (keeps
    /// the `duplicate_id` test O(1) when a client repeats one id); an id
    /// leaves when its count falls to 0.
    live: HashMap<ValidId, usize>,
    /// Loose key → last answered request.
    answered: HashMap<LooseKey, usize>,
    /// Ids requested so far that neither `live` nor `answered` shows:
    /// cancelled requests' ids, and answered ids whose loose key a later
    /// answer with another strict id took over (`1`, then `"1"`). With
    /// `live` and `answered` they tell every id requested so far (the
    /// `id_reused` test) without a set of all ids: rows are what grows.
    other_ids: HashSet<ValidId>,
}

impl Space {
    /// Whether a request with this valid id was sent before in this space.
    fn ever(&self, valid: &ValidId, id: &Id, lk: &LooseKey, requests: &[Req]) -> bool {
        self.live.contains_key(valid)
            || self
                .answered
                .get(lk)
                .is_some_and(|&r| requests[r].id.strict_eq(id))
            || self.other_ids.contains(valid)
    }

    /// One pending, not cancelled request with this id fewer.
    fn release(&mut self, valid: &ValidId) {
        if let Some(n) = self.live.get_mut(valid) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.live.remove(valid);
            }
        }
    }

    /// Records `ri` as the last answered request of its loose key.
    fn answer(&mut self, lk: LooseKey, ri: usize, requests: &[Req]) {
        if let Some(old) = self.answered.insert(lk, ri)
            && !requests[old].id.strict_eq(&requests[ri].id)
            && let Some(v) = requests[old].id.valid()
        {
            self.other_ids.insert(v);
        }
    }
}

/// What one session produced.
#[derive(Debug, Default)]
pub struct SessionResult {
    /// Session name.
    pub name: String,
    /// Input index.
    pub input: usize,
    /// Findings (slow tails outside batches are added later); empty after
    /// [`super::finalize`], which moves them to `Analysis::findings`.
    pub findings: Vec<Finding>,
    /// Findings per kind, set by [`super::finalize`].
    pub kind_counts: std::collections::BTreeMap<K, u64>,
    /// Requests in order of arrival.
    pub requests: Vec<Req>,
    /// Batches: every JSON array of the session, either direction, in
    /// order (`[]` included, size 0): the rows of `batches.csv`.
    pub batches: Vec<Batch>,
    /// Message counts.
    pub counts: Quantity,
    /// Negotiated revision (initialize result), or the `MCP-Protocol-Version` header.
    pub revision: Option<String>,
    /// Server (name, version) from the initialize result.
    pub server: Option<(String, String)>,
    /// Progress notifications linked to no request by their token.
    pub unlinked_progress: u64,
    /// `null_id_error`s whose peer read what it was sent (rule 13): one
    /// that answers its POST's one request, or refuses its notification,
    /// with an HTTP error status. The hint about malformed messages leaves
    /// them out.
    pub addressed_null_ids: u64,
    /// Request index → its progress, for requests that named a
    /// `_meta.progressToken`.
    pub progress: HashMap<usize, RequestProgress>,
    /// Requests linked into operations (MRTR rounds, tasks, listens).
    pub operations: Vec<Operation>,
    /// What the capture lost, each place once (DESIGN.md rule 12).
    pub gaps: Vec<super::gaps::Gap>,
    /// Messages with a member twice (read last-wins): file id, place and
    /// the member, for the input's problem lines.
    pub repeated_members: Vec<(u32, crate::record::Location, &'static str)>,
    /// The log starts mid-session ([`start_cut`]): where, and the findings
    /// it explains, whose details the pipeline completes with the file name.
    pub start_gap: Option<start_cut::StartGap>,
}

impl SessionResult {
    /// The latencies rule 10 counts (µs), in request order: paired, not
    /// cancelled, both times known.
    pub fn latencies(&self) -> impl Iterator<Item = Micros> + '_ {
        self.requests
            .iter()
            .filter(|q| !q.cancelled)
            .filter_map(|q| q.latency)
    }
}

/// The per-session state machine: frames go in in causal order
/// ([`Walker::frame`]); [`Walker::finish`] applies the end-of-capture
/// rules and returns the session's result. Memory: the session's pending
/// requests and open batches, plus one compact row per request.
pub struct Walker<'c> {
    cfg: &'c Config,
    /// Raw SSE: one side only, so no pairing rules (nothing can pair).
    one_direction: bool,
    /// The input's end was lost (a compressed stream that broke off): an
    /// answer may have been in the part not read ([`Walker::mark_tail_lost`]).
    tail_lost: bool,
    out: SessionResult,
    spaces: [Space; 2],
    await_reply: [Option<usize>; 2],
    entry_batch: HashMap<u64, usize>,
    /// (requester direction, progress token) → request index (FORMATS.md §3.5).
    progress_tokens: HashMap<(Direction, Id), usize>,
    /// Requests that named a progress token, by direction, request index
    /// and token, until answered (pruned as [`Walker::only_token`] reads
    /// them): the senders a progress without params may be for.
    token_requests: Vec<(Direction, usize, Id)>,
    /// The length at which [`Walker::token_requests`] is next pruned.
    token_requests_cap: usize,
    /// SSE events seen, to drop replays after a reconnect (FORMATS.md §2.3).
    seen_events: HashSet<crate::record::SseEventId>,
    /// Method names seen, shared by the rows that carry them.
    methods: HashSet<std::sync::Arc<str>>,
    /// HAR entries whose request body the capture did not keep
    /// ([`Payload::Lost`]): an answer that pairs with nothing may answer a
    /// request in one of them.
    lost_requests: Vec<u64>,
    /// Replies a line log shows were sent without their id, or not logged
    /// at all ([`Payload::Lost`] without HTTP, FORMATS.md §8.3.6): (the
    /// direction they went, line, still unclaimed). Each may be the answer
    /// of one request that has none (a capture gap, DESIGN.md rule 12).
    lost_replies: Vec<LostReply>,
    /// Requests whose reply a gateway logged it could not deliver
    /// ([`crate::record::Extra::undelivered`]): (request row, what the
    /// log says). Few, kept beside the rows.
    undelivered: Vec<(usize, Box<str>)>,
    /// HAR entries whose response body the capture did not keep (a stream
    /// open or aborted at export): a client answer that pairs with nothing
    /// may answer a server request that was in one of them.
    lost_responses: Vec<u64>,
    /// Response ids seen in a capture of one side (raw SSE), per direction.
    one_sided_seen: HashSet<(usize, LooseKey)>,
    /// The revision the session's `initialize` result negotiated.
    negotiated: Option<Box<str>>,
    /// Numeric ids of requests that can never pair (fractional), as
    /// written, per requester direction: their echo is no unknown id (the
    /// request's `fractional_id` says it).
    invalid_sent: [HashSet<String>; 2],
    /// Reply-shape state (rule 13).
    replies: Replies,
    /// What the frame being read replies to, and what it is sent as.
    cur: Option<Sent>,
    sending: Sent,
    /// Valid ids sent again while pending (`duplicate_id`), per requester
    /// direction: which of the two a response answered is unknown, so
    /// `progress_after_response` is not judged for them.
    dup_ids: [HashSet<ValidId>; 2],
    /// Progress whose token named no request when it came: judged at the
    /// end, when every request of the session has been read (a HAR places
    /// events only inside their body's window); with when it came
    /// ([`start_cut::StartCut::now`]).
    odd_progress: Vec<(Direction, Id, Finding, u64)>,
    /// Whether the log starts mid-session ([`start_cut`]).
    start: start_cut::StartCut,
    /// Links requests into operations (MRTR, tasks, listens).
    ops: Tracker,
    /// Capture gaps met.
    gaps: super::gaps::Recorder,
    /// State of the HTTP and cancellation rules ([`http_rules`]).
    http_rules: http_rules::HttpRules,
}

/// The only revision without sessions or initialize (FORMATS.md §2.6).
const MODERN: &str = "2026-07-28";

/// HAR entry numbers for a detail: the first three, then how many more.
fn entry_list(entries: &[u64]) -> String {
    let shown: Vec<String> = entries.iter().take(3).map(u64::to_string).collect();
    match entries.len().saturating_sub(3) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// A reply a line log shows without its id: the direction it went (when
/// known), its line, and whether it is still unclaimed by a request.
type LostReply = (Option<Direction>, u64, bool);

/// The `null_id_error` detail of an id-null error that refuses a
/// notification POST with an HTTP error status (rule 13).
fn refusal_detail(code: Option<i64>, status: i64) -> String {
    let code = code.map(|c| format!(" (code {c})")).unwrap_or_default();
    format!(
        "an error response with id null{code} refusing this POST's notification with HTTP {status}: Streamable HTTP lets a server that cannot accept a notification answer an HTTP error status with a JSON-RPC error without an id, so it is a refusal, not a reply to the notification"
    )
}

fn dir_index(d: Direction) -> usize {
    match d {
        Direction::C2s => 0,
        Direction::S2c => 1,
    }
}

fn evidence(f: &Frame) -> (u64, u32) {
    (f.prov.offset, f.prov.len)
}

/// Why the capture may not show request `q`'s answer (`what` names the
/// request): the detail of its `missing_response` as a capture gap, or
/// `None` when nothing explains it. `lost_requests`: the entries whose
/// request bodies the capture lost; `lost_replies`: the replies logged
/// without an id (the first unclaimed one that fits is claimed here);
/// `tail_lost`: the input's end was lost.
fn unanswered_gap(
    q: &Req,
    what: &str,
    lost_requests: &[u64],
    lost_replies: &mut [LostReply],
    tail_lost: bool,
) -> Option<String> {
    if q.direction == Direction::S2c && !lost_requests.is_empty() {
        // A server request is answered in a client POST body.
        return Some(format!(
            "{what} {} has no response in the capture, but the capture did not keep the request body of entry {} (a capture gap): its answer may have been there",
            q.id.json_text(),
            entry_list(lost_requests)
        ));
    }
    if let Some(lost) = lost_replies.iter_mut().find(|(d, line, free)| {
        *free
            && d.is_none_or(|d| d == q.direction.other())
            && q.loc.line.is_some_and(|l| l <= *line)
    }) {
        // The first unclaimed reply logged without its id after the
        // request (FORMATS.md §8.3.6): one reply, one request.
        lost.2 = false;
        return Some(format!(
            "{what} {} has no response in the capture, but the log shows a reply at line {} whose id the log lost (printed without it, sent and not logged, or cut off at the end of the file: a capture gap): it may be the answer",
            q.id.json_text(),
            lost.1
        ));
    }
    if q.response_lost {
        return Some(format!(
            "{what} {} has no response in the capture, but entry {}'s response was not kept (a capture gap): its answer may have been there",
            q.id.json_text(),
            q.entry.unwrap_or(0)
        ));
    }
    if let Some(status) = q.refused {
        return Some(format!(
            "{what} {} has no JSON-RPC response: its POST was refused with HTTP {status} before JSON-RPC (an authentication challenge or an Origin check), so none was due",
            q.id.json_text()
        ));
    }
    if let Some(gap) = &q.reply_gap {
        return Some(format!(
            "{what} {} has no response in the capture, but {gap} (a capture gap): its answer may have been there",
            q.id.json_text()
        ));
    }
    tail_lost.then(|| format!(
        "{what} {} has no response in the capture, but the file's compressed stream broke off before its end (a capture gap): its answer may have been in the part not read",
        q.id.json_text()
    ))
}

/// Whether a cancellation's `reason` says its request timed out (the TS
/// SDK's `McpError: MCP error -32001: Request timed out`; -32001 is its
/// `RequestTimeout` code).
fn timed_out(reason: &str) -> bool {
    let r = reason.to_ascii_lowercase();
    r.contains("timed out") || r.contains("timeout") || r.contains("-32001")
}

/// The `cancelled_request` detail of a cancellation of `method` (rule 7);
/// `modern`: under 2026-07-28. A reason that says the request timed out is
/// named: its requester gave up waiting, no answer had reached it in time.
fn cancel_detail(method: &str, modern: bool, reason: Option<&str>) -> String {
    let tail = if modern {
        "under 2026-07-28 no reply may follow (one would be answered_after_cancel)"
    } else {
        "a reply may still come or never come, neither is a fault"
    };
    match reason.filter(|r| timed_out(r)) {
        Some(r) => {
            let shown: String = r.chars().take(120).collect();
            let cut = if shown.len() < r.len() { "…" } else { "" };
            format!(
                "the requester cancelled {method} because it timed out (reason \"{shown}{cut}\"): no answer reached it in time; {tail}"
            )
        }
        None => format!("the requester cancelled {method} while it was unanswered; {tail}"),
    }
}

/// What a frame is sent as, for the reply that may follow it (a batch's
/// own kind is set when the batch is read).
#[inline]
fn sent_as(p: &Payload) -> Sent {
    match p {
        Payload::Single(m) if m.kind == Kind::Notification && m.problems.is_empty() => {
            Sent::Notification
        }
        Payload::Single(m) if m.kind == Kind::Request => Sent::Request,
        Payload::Single(m) if m.kind == Kind::Response => Sent::Answer,
        _ => Sent::Other,
    }
}

/// What one frame's responses did to the batches they answer.
#[derive(Default)]
struct Tally {
    /// Batches linked to the frame.
    linked: Vec<usize>,
    /// Responses with an id (or a success without one).
    non_null: usize,
    /// Null-id error responses.
    null_ids: usize,
    /// Responses that answer no request.
    unknown: usize,
    /// Paired requests that were sent alone / in a batch.
    paired_alone: usize,
    paired_batched: usize,
}

/// Runs every per-session rule over one session's ordered frames.
pub fn walk(cfg: &Config, s: &Session) -> SessionResult {
    let mut w = Walker::new(cfg, s.name.clone(), s.input, s.one_direction);
    if s.started {
        w.start_held();
    }
    for (f, &moved) in s.frames.iter().zip(&s.moved) {
        w.frame(f, moved);
    }
    w.finish()
}

impl<'c> Walker<'c> {
    /// A walker for session `name` of input `input`.
    pub fn new(cfg: &'c Config, name: String, input: usize, one_direction: bool) -> Self {
        Walker {
            cfg,
            one_direction,
            tail_lost: false,
            out: SessionResult {
                name,
                input,
                ..Default::default()
            },
            spaces: [Space::default(), Space::default()],
            await_reply: [None, None],
            entry_batch: HashMap::new(),
            progress_tokens: HashMap::new(),
            token_requests: Vec::new(),
            token_requests_cap: 64,
            seen_events: HashSet::new(),
            methods: HashSet::new(),
            lost_requests: Vec::new(),
            lost_replies: Vec::new(),
            undelivered: Vec::new(),
            lost_responses: Vec::new(),
            one_sided_seen: HashSet::new(),
            negotiated: None,
            invalid_sent: [HashSet::new(), HashSet::new()],
            replies: Replies::default(),
            cur: None,
            sending: Sent::Other,
            odd_progress: Vec::new(),
            start: start_cut::StartCut::default(),
            dup_ids: [HashSet::new(), HashSet::new()],
            ops: Tracker::default(),
            gaps: super::gaps::Recorder::default(),
            http_rules: http_rules::HttpRules::default(),
        }
    }

    /// Takes the next frame in causal order; `moved` marks a frame whose
    /// time causal placement moved (its latencies are unknown).
    pub fn frame(&mut self, f: &Frame, moved: bool) {
        if f.direction.is_some() {
            // Counts as a session once it carries a readable line (rule 1).
            self.out.counts.sessions = 1;
        }
        self.frame_inner(f, moved);
    }

    /// Marks the input's end as lost (its compressed stream broke off
    /// before the end, the rest not read): a request left without an
    /// answer is then a capture gap, not a `missing_response` error (its
    /// answer may have been in what was lost).
    pub fn mark_tail_lost(&mut self) {
        self.tail_lost = true;
    }

    /// The log shows the session's start (a process-start line before its
    /// first frame): it does not start mid-session ([`start_cut`]).
    pub fn start_held(&mut self) {
        self.start.held();
    }

    /// Applies the end-of-capture rules and returns the result.
    pub fn finish(mut self) -> SessionResult {
        self.finish_rules();
        // The result is held until the run's outputs are written: no
        // spare capacity (a session's ~90 requests sat in room for 128).
        self.out.requests.shrink_to_fit();
        self.out.batches.shrink_to_fit();
        self.out.findings.shrink_to_fit();
        self.out.progress.shrink_to_fit();
        self.out.operations = std::mem::take(&mut self.ops).finish();
        if self.one_direction && self.out.counts.sessions > 0 {
            self.gaps.add(GapKind::OneSided, None, 0);
        }
        if let Some(g) = self.start.gap() {
            self.gaps
                .add(GapKind::StartMissing, Some(g.location), g.file);
            self.out.start_gap = Some(g);
        }
        self.out.gaps = std::mem::take(&mut self.gaps).finish();
        self.out
    }
}

impl Walker<'_> {
    fn find(
        &mut self,
        kind: K,
        f: &Frame,
        dir: Option<Direction>,
        id: FindingId,
        method: Option<String>,
        detail: String,
    ) {
        let found = self.finding_at(kind, f, dir, id, method, detail);
        self.out.findings.push(found);
    }

    /// A finding pointing at frame `f`.
    fn finding_at(
        &self,
        kind: K,
        f: &Frame,
        dir: Option<Direction>,
        id: FindingId,
        method: Option<String>,
        detail: String,
    ) -> Finding {
        Finding {
            kind,
            session: self.out.name.clone(),
            direction: dir,
            id,
            alt_ids: Vec::new(),
            method,
            input: self.out.input,
            file: f.prov.file,
            location: f.prov.location,
            evidence: evidence(f),
            detail,
            gap: false,
            by_traffic: false,
        }
    }

    /// Whether `f` is an SSE event delivered again after a reconnect (same
    /// event id, same data): then it is counted once, before pairing
    /// (DESIGN.md catalogue), and reported.
    fn replayed(&mut self, f: &Frame) -> bool {
        let Some(ev) = &f.event_id else {
            return false;
        };
        if self.seen_events.insert(ev.clone()) {
            return false;
        }
        let alt = match &f.payload {
            Payload::Single(m) => vec![m.id.clone()],
            Payload::Batch(ms) => ms
                .iter()
                .filter_map(|m| match m {
                    Member::Message(m) => Some(m.id.clone()),
                    Member::NotObject => None,
                })
                .collect(),
            _ => vec![],
        };
        self.out.counts.replays += 1;
        self.find(K::SseReplayDuplicate, f, f.direction, FindingId::One(Id::Str(ev.id.clone())), None,
            format!("SSE event {} was delivered again after a reconnect with the same data; counted once", ev.id));
        if let Some(last) = self.out.findings.last_mut() {
            last.alt_ids = alt;
        }
        true
    }

    /// The notification-only batch this frame replies to, if any (rule 8).
    fn reply_to(&mut self, f: &Frame, d: Direction) -> Option<usize> {
        let mut reply_to = None;
        match &f.http {
            None => {
                if let Some(b) = self.await_reply[dir_index(d)].take()
                    && let Payload::Batch(members) = &f.payload
                    && !self.answers_earlier_request(d, members)
                {
                    reply_to = Some(b);
                }
            }
            Some(h) if d == Direction::S2c && !h.is_request_body => {
                if let Some(&b) = self.entry_batch.get(&h.entry)
                    && self.out.batches[b].notification_only
                {
                    reply_to = Some(b);
                    self.entry_batch.remove(&h.entry);
                }
            }
            _ => {}
        }
        reply_to
    }

    /// Records what frame `f` shows the capture lost (DESIGN.md rule 12).
    fn note_gaps(&mut self, f: &Frame) {
        let (loc, file) = (Some(f.prov.location), f.prov.file);
        if let Some(h) = &f.http {
            if matches!(f.payload, Payload::Lost) {
                let kind = if h.is_request_body {
                    GapKind::RequestBodyLost
                } else {
                    GapKind::ResponseBodyLost
                };
                self.gaps.add(kind, loc, file);
            } else if h.is_request_body && h.response_lost {
                self.gaps.add(GapKind::ResponseBodyLost, loc, file);
            }
            if h.time_unbounded {
                self.gaps.add(GapKind::TimeUnbounded, loc, file);
            }
        } else if matches!(f.payload, Payload::Lost) {
            self.gaps.add(GapKind::ReplyLost, loc, file);
        } else if let Payload::Single(m) = &f.payload
            && m.extra.as_ref().is_some_and(|e| e.capture_gap.is_some())
        {
            self.gaps.add(GapKind::NoReplyBodies, None, file);
        }
    }

    /// Whether `f` is a file's lost first line (the tail of a message cut
    /// by rotation) after the session began in an earlier file of its
    /// rotation group: the head of that message ended the earlier file and
    /// is already one lost message (DESIGN.md rule 12), not a second.
    fn cut_tail(&self, f: &Frame) -> bool {
        f.http.is_none()
            && matches!(f.payload, Payload::Lost)
            && f.direction.is_none()
            && f.prov.location.line == Some(1)
            && self
                .lost_replies
                .last()
                .is_some_and(|&(d, _, _)| d.is_none())
    }

    /// [`Walker::frame`]'s work: the rules for frame `f`, in order.
    fn frame_inner(&mut self, f: &Frame, moved: bool) {
        if self.replayed(f) {
            return;
        }
        // A first line cut by rotation is the start gap, not a lost reply.
        let cut_first = !self.one_direction && self.start.frame(f);
        if cut_first || self.cut_tail(f) {
            return;
        }
        self.note_gaps(f);
        if matches!(f.payload, Payload::Lost) {
            self.note_lost(f);
            return;
        }
        if matches!(f.payload, Payload::Single(_) | Payload::Batch(_)) {
            self.out.counts.frames += 1;
        }
        let Some(d) = f.direction else {
            self.non_json(f);
            return;
        };
        self.cur = self.replies.reply_to(f.http.as_ref(), d);
        self.sending = sent_as(&f.payload);
        self.empty_batch_reply(f);
        if matches!(f.payload, Payload::NonJson) {
            self.replies.sent(f.http.as_ref(), d, Sent::Other);
            self.non_json(f);
            return;
        }
        if let Some(h) = &f.http
            && self.out.revision.is_none()
            && h.is_request_body
            && let Some(v) = &h.protocol_header
        {
            self.out.revision = Some(v.to_string());
        }
        self.header_check(f, d);
        self.request_rules(f, d);
        let replied = self.notification_batch_replied(f, d);
        match &f.payload {
            Payload::Batch(members) => self.batch(f, d, members, replied, moved),
            Payload::Single(m) if m.kind == Kind::Response => {
                self.responses(f, d, &[m], moved);
            }
            Payload::Single(m) => {
                self.one(f, d, m, None);
                if m.kind == Kind::Notification
                    && let Some(h) = &f.http
                    && d == Direction::C2s
                    && h.is_request_body
                    && &*h.method != "GET"
                {
                    self.awaited(f, FindingId::One(Id::Absent));
                }
            }
            Payload::Unparseable => {
                self.find(
                    K::InvalidRequest,
                    f,
                    Some(d),
                    FindingId::One(Id::Absent),
                    None,
                    "body is not valid JSON".into(),
                );
            }
            Payload::NonJson | Payload::Lost => {}
        }
        self.replies.sent(f.http.as_ref(), d, self.sending);
    }

    /// A frame whose messages the capture lost ([`Payload::Lost`]): kept
    /// for the end-of-session rules, which may owe a finding to it.
    fn note_lost(&mut self, f: &Frame) {
        if let Some(h) = f.http.as_ref() {
            if h.is_request_body {
                self.lost_requests.push(h.entry);
            } else {
                self.lost_responses.push(h.entry);
            }
        } else if let Some(line) = f.prov.location.line {
            // A message cut at the end of the file may have gone
            // either way (its direction is unknown).
            self.lost_replies.push((f.direction, line, true));
        }
    }

    /// Is frame `f` the reply to a notification-only batch? Then
    /// `notification_batch_replied` (rule 8), and `true`.
    fn notification_batch_replied(&mut self, f: &Frame, d: Direction) -> bool {
        let Some(b) = self.reply_to(f, d) else {
            return false;
        };
        let ids = self.out.batches[b].ids.clone();
        self.find(
            K::NotificationBatchReplied,
            f,
            Some(d),
            FindingId::Batch(ids),
            None,
            "a batch of only notifications got a reply; JSON-RPC says send nothing".into(),
        );
        true
    }

    /// `protocol_version_mismatch`: a POST whose `MCP-Protocol-Version`
    /// header names another revision than the one its session's
    /// `initialize` negotiated (2025-06-18 basic/transports, Protocol Version
    /// Header: the revision the client sends SHOULD be the negotiated one).
    fn header_check(&mut self, f: &Frame, d: Direction) {
        let (Some(h), Some(n)) = (&f.http, &self.negotiated) else {
            return;
        };
        let Some(v) = h.protocol_header.as_deref().filter(|v| *v != &**n) else {
            return;
        };
        if !h.is_request_body {
            return;
        }
        let (id, method) = match &f.payload {
            Payload::Single(m) => (m.id.clone(), m.method.as_deref().map(str::to_string)),
            _ => (Id::Absent, None),
        };
        let detail = format!(
            "MCP-Protocol-Version {v} on a POST of a session that negotiated {n}; the client should send the negotiated revision{}",
            if h.status == 400 {
                " (the server refused it with 400)"
            } else {
                ", and the server served it anyway"
            }
        );
        self.find(
            K::ProtocolVersionMismatch,
            f,
            Some(d),
            FindingId::One(id),
            method,
            detail,
        );
    }

    /// A frame answering `[]` (rule 13): over HTTP every frame of that
    /// entry's response; over a line log the other side's next frame when
    /// it is an id-less response or an array (anything else may answer
    /// something else, and is not judged).
    fn empty_batch_reply(&mut self, f: &Frame) {
        let Some(Sent::Empty(k)) = self.cur else {
            return;
        };
        let over_http = f.http.is_some();
        let answer = match &f.payload {
            Payload::Single(m) if m.kind == Kind::Response => {
                if !over_http && !matches!(m.id, Id::Null | Id::Absent) {
                    return;
                }
                replies::empty_batch_answer(Some(m), 0)
            }
            Payload::Batch(ms) => replies::empty_batch_answer(None, ms.len()),
            _ if !over_http => return,
            Payload::Single(_) => Some("a request or notification".into()),
            _ => Some("a body that is not JSON-RPC".into()),
        };
        self.replies.empty[k].replies.push(answer);
    }

    /// Whether an array holds a response that pairs with (or duplicates) a
    /// request sent before it: then it answers that request's batch, not a
    /// notification-only batch sent in between (rule 8, line logs).
    fn answers_earlier_request(&self, d: Direction, members: &[Member]) -> bool {
        let sp = &self.spaces[dir_index(d.other())];
        members.iter().any(|m| match m {
            Member::Message(m) if m.kind == Kind::Response => {
                m.id.loose()
                    .is_some_and(|k| sp.pending.contains_key(&k) || sp.answered.contains_key(&k))
            }
            _ => false,
        })
    }

    fn non_json(&mut self, f: &Frame) {
        self.out.counts.non_json_lines += 1;
        self.find(K::NonJsonLine, f, f.direction, FindingId::One(Id::Absent), None,
            "a traffic line that holds no JSON object or array (stdout pollution or a truncated message)".into());
    }

    fn awaited(&mut self, f: &Frame, ids: FindingId) {
        let Some(h) = &f.http else { return };
        if h.legacy {
            return;
        }
        let time = h.end - h.start;
        let clean = h.status == 202 && h.body_empty;
        if !clean || time > self.cfg.slow_us {
            let what = if h.status == 0 {
                "no response at all".to_string()
            } else {
                format!(
                    "status {}{}",
                    h.status,
                    if h.body_empty { "" } else { " with a body" }
                )
            };
            self.find(K::NotificationBatchAwaited, f, Some(Direction::C2s), ids, None,
                format!("notification POST answered with {what} after {:.1} ms; expected an empty 202 at once", time as f64 / 1000.0));
        }
    }

    fn version_check(&mut self, f: &Frame, d: Direction, ids: &[Id]) {
        if let Some(v) = self.out.revision.clone()
            && v != "2025-03-26"
        {
            self.find(
                K::BatchAfterVersionRemoved,
                f,
                Some(d),
                FindingId::Batch(ids.to_vec()),
                None,
                format!(
                    "a JSON-RPC batch in a session on revision {v}; only 2025-03-26 allows batches"
                ),
            );
        }
    }

    fn batch(&mut self, f: &Frame, d: Direction, members: &[Member], is_reply: bool, moved: bool) {
        self.out.counts.batches += 1;
        let ids: Vec<Id> = members
            .iter()
            .filter_map(|m| match m {
                Member::Message(m) if m.id != Id::Absent => Some(m.id.clone()),
                _ => None,
            })
            .collect();
        self.version_check(f, d, &ids);
        if members.is_empty() {
            // A row of its own (batches.csv: one per JSON array), judged
            // by the empty-array rules only.
            self.new_batch(f, d, &ids, 0);
            if !is_reply {
                self.find(
                    K::EmptyBatch,
                    f,
                    Some(d),
                    FindingId::Batch(vec![]),
                    None,
                    "an empty array sent as a batch; the answer must be one Invalid Request error"
                        .into(),
                );
                self.empty_sent(f, d);
            }
            return;
        }
        let bi = self.new_batch(f, d, &ids, members.len());
        self.sending = Sent::Batch(bi);
        let (responses, all_notifications) = self.batch_members(f, d, members, bi);
        self.out.batches[bi].responses = responses.len();
        if all_notifications {
            self.out.batches[bi].notification_only = true;
            self.sending = Sent::Notifications(bi);
            match &f.http {
                None => self.await_reply[dir_index(d.other())] = Some(bi),
                Some(_) => self.awaited(f, FindingId::Batch(ids.clone())),
            }
        }
        if let Some(h) = &f.http
            && d == Direction::C2s
            && h.is_request_body
        {
            self.entry_batch.insert(h.entry, bi);
        }
        if !responses.is_empty() {
            if responses.len() == members.len() {
                self.sending = Sent::Answer;
            }
            let t = self.responses(f, d, &responses, moved);
            if responses.len() == members.len() && t.paired_alone > 0 && t.paired_batched == 0 {
                self.find(K::SingleRequestAnsweredWithBatch, f, Some(d), FindingId::Batch(ids),
                    None, format!("a reply array answering {} request(s) that were each sent alone, not in a batch: JSON-RPC 2.0 §6 answers a single request with one object", t.paired_alone));
            }
        }
    }

    /// `[]` sent in direction `d`: kept to judge its answer (rule 13).
    fn empty_sent(&mut self, f: &Frame, d: Direction) {
        let http = f.http.as_ref();
        let judged = http.is_none_or(|h| h.is_request_body && !h.response_lost && h.status != 0);
        self.sending = Sent::Empty(self.replies.empty.len());
        self.replies.empty.push(EmptyBatch {
            direction: d,
            at: (f.prov.location, evidence(f), f.prov.file),
            http: http.map(|h| (h.status, h.body_empty)),
            judged,
            replies: Vec::new(),
        });
    }

    /// Opens the row of a batch of `size` members (`ids`: its members'
    /// ids); returns its index.
    fn new_batch(&mut self, f: &Frame, d: Direction, ids: &[Id], size: usize) -> usize {
        let bi = self.out.batches.len();
        self.out.batches.push(Batch {
            direction: d,
            ids: ids.to_vec(),
            size,
            reqs: Vec::new(),
            all_requests: 0,
            notifications: 0,
            responses: 0,
            arrivals: Vec::new(),
            linked: 0,
            null_id: 0,
            unknown: 0,
            notification_only: false,
            loc: f.prov.location,
            evidence: evidence(f),
            file: f.prov.file,
            reply: None,
            ts: f.ts,
            completed: None,
            well_formed: true,
            rejection: None,
            bare_reply: None,
        });
        bi
    }

    /// Walks batch `bi`'s members: requests and notifications now, the
    /// responses returned (with whether every member is a notification).
    fn batch_members<'m>(
        &mut self,
        f: &Frame,
        d: Direction,
        members: &'m [Member],
        bi: usize,
    ) -> (Vec<&'m Message>, bool) {
        let mut responses: Vec<&Message> = Vec::new();
        let mut all_notifications = true;
        for m in members {
            let sound = |m: &Message| {
                m.kind != Kind::Response
                    && m.problems.is_empty()
                    && (m.id == Id::Absent || m.id.is_valid())
            };
            if !matches!(m, Member::Message(m) if sound(m)) {
                self.out.batches[bi].well_formed = false;
            }
            match m {
                Member::NotObject => {
                    all_notifications = false;
                    self.find(
                        K::InvalidRequest,
                        f,
                        Some(d),
                        FindingId::One(Id::Absent),
                        None,
                        "a batch member that is not an object".into(),
                    );
                }
                Member::Message(m) if m.kind == Kind::Response => {
                    all_notifications = false;
                    responses.push(m);
                }
                Member::Message(m) => {
                    if m.kind == Kind::Request {
                        all_notifications = false;
                        self.out.batches[bi].all_requests += 1;
                    } else {
                        self.out.batches[bi].notifications += 1;
                    }
                    self.one(f, d, m, Some(bi));
                }
            }
        }
        (responses, all_notifications)
    }

    /// A request or notification (rules 3, 6, 7).
    fn one(&mut self, f: &Frame, d: Direction, m: &Message, batch: Option<usize>) {
        self.out.counts.messages += 1;
        if let Some(name) = m.repeated_member() {
            self.out
                .repeated_members
                .push((f.prov.file, f.prov.location, name));
        }
        self.problems(f, d, m);
        if d == Direction::C2s
            && self.out.revision.is_none()
            && m.method.as_deref() != Some("initialize")
            && let Some(v) = m.offered()
        {
            // 2026-07-28 states its revision in every request's `_meta`.
            self.out.revision = Some(v.to_string());
        }
        if d == Direction::C2s
            && self.out.revision.is_none()
            && m.kind == Kind::Request
            && m.method.as_deref() == Some("initialize")
            && let Some(v) = m.offered()
        {
            // Until its result is in the log, a session's revision is the
            // one its `initialize` offered (the result's wins, rule 13).
            self.out.revision = Some(v.to_string());
        }
        if m.kind == Kind::Notification {
            self.out.counts.notifications += 1;
            if m.method.as_deref() == Some("notifications/progress") {
                self.progress(f, d, m);
            }
            self.ops.notification(m);
            if m.method.as_deref() == Some("notifications/cancelled") && !self.one_direction {
                self.cancel(f, d, m);
            }
            return;
        }
        self.out.counts.requests += 1;
        self.start.request(d, m);
        let method = m.method.as_deref().map(str::to_string);
        self.id_problems(f, d, m, &method);
        let valid = m.id.valid();
        let ri = self.push_request(f, d, m);
        if let Some(b) = batch
            && valid.is_some()
        {
            let pos = self.out.batches[b].reqs.len();
            self.out.batches[b].reqs.push(ri);
            self.out.requests[ri].batch = Some((b as u32, pos as u32));
        }
        let Some(valid) = valid else {
            if matches!(m.id, Id::Number(_)) {
                self.invalid_sent[dir_index(d)].insert(m.id.json_text());
            }
            return;
        };
        if self.one_direction {
            return;
        }
        self.track_pending(f, d, m, ri, valid, method);
    }

    /// `notifications/cancelled` sent in direction `d`: the pending request
    /// it names (sent the same way) is cancelled, and that is reported.
    fn cancel(&mut self, f: &Frame, d: Direction, m: &Message) {
        let Some(valid) = m.cancel_id().and_then(Id::valid) else {
            return;
        };
        let valid_id = m.cancel_id().expect("valid above");
        let lk = valid.loose();
        let sp = &self.spaces[dir_index(d)];
        let hit = sp.pending.get(&lk).and_then(|l| {
            l.iter().copied().find(|&r| {
                let q = &self.out.requests[r];
                q.id.strict_eq(valid_id) && !q.cancelled
            })
        });
        if let Some(r) = hit {
            self.out.requests[r].cancelled = true;
            self.http_rules.cancelled(r, f.ts, f.prov.location);
            let sp = &mut self.spaces[dir_index(d)];
            sp.release(&valid);
            sp.other_ids.insert(valid);
            let q = &self.out.requests[r];
            let detail = cancel_detail(
                q.method.as_deref().unwrap_or("the request"),
                q.is_modern(self.out.revision.as_deref()),
                m.cancel_reason(),
            );
            let f = q.finding(K::CancelledRequest, &self.out.name, self.out.input, detail);
            self.out.findings.push(f);
        }
    }

    /// Ids a request should not carry: null, fractional, beyond ±2^53.
    fn id_problems(&mut self, f: &Frame, d: Direction, m: &Message, method: &Option<String>) {
        match &m.id {
            Id::Null => self.find(
                K::NullRequestId,
                f,
                Some(d),
                FindingId::One(Id::Null),
                method.clone(),
                "a request with id null: it can never be paired (a notification has no id member)"
                    .into(),
            ),
            id if id.is_fractional() => self.find(
                K::FractionalId,
                f,
                Some(d),
                FindingId::One(id.clone()),
                method.clone(),
                "a numeric id with a fractional part; MCP ids are strings or integers".into(),
            ),
            id if id.precision_risk() => self.find(
                K::IdPrecisionRisk,
                f,
                Some(d),
                FindingId::One(id.clone()),
                method.clone(),
                "an integer id beyond ±2^53, which JavaScript clients cannot hold exactly".into(),
            ),
            _ => {}
        }
    }

    /// Adds the request's row (and its progress token); returns its index.
    fn push_request(&mut self, f: &Frame, d: Direction, m: &Message) -> usize {
        let ri = self.out.requests.len();
        let shared = m
            .method
            .as_deref()
            .map(|name| match self.methods.get(name) {
                Some(a) => a.clone(),
                None => {
                    let a: std::sync::Arc<str> = name.into();
                    self.methods.insert(a.clone());
                    a
                }
            });
        // Rows live until the run ends: grow by a quarter, not by doubling.
        let rows = &mut self.out.requests;
        if rows.len() == rows.capacity() {
            rows.reserve_exact((rows.len() / 4).max(8));
        }
        // The stream that should carry its response: the POST's own SSE body,
        // a POST that got nothing (status 0), or the legacy GET stream.
        let on_stream = f.http.as_ref().is_some_and(|h| {
            h.is_request_body && !h.response_lost && (h.stream || h.status == 0 || h.legacy)
        });
        let response_lost = f
            .http
            .as_ref()
            .is_some_and(|h| h.is_request_body && h.response_lost);
        self.out.requests.push(Req {
            method: shared,
            ts: f.ts,
            on_stream,
            response_lost,
            reply_gap: m.extra.as_ref().and_then(|e| e.capture_gap.clone()),
            time_unbounded: f.http.as_ref().is_some_and(|h| h.time_unbounded),
            at_stream_end: f.http.as_ref().is_some_and(|h| h.stamped_at_end(f.ts)),
            refused: f
                .http
                .as_ref()
                .filter(|h| {
                    h.is_request_body && !h.body_has_json && matches!(h.status, 401 | 403 | 407)
                })
                .map(|h| h.status as u16),
            entry: f.http.as_ref().map(|h| h.entry),
            loc: f.prov.location,
            evidence: evidence(f),
            file: f.prov.file,
            modern: m.offered().map(|v| v == MODERN),
            ..Req::new(m.id.clone(), d)
        });
        if let Some(c) = self.ops.request(ri, &mut self.out.requests[ri], m) {
            let method = m.method.as_deref().map(str::to_string);
            self.find(K::MrtrStateChanged, f, Some(d), FindingId::One(m.id.clone()), method, format!(
                "retry {} of operation {} {} the response to {} (the client must echo the server's requestState unchanged, and send none where none was issued)",
                m.id.json_text(), c.op, c.what, c.issued_by.json_text()));
        }
        if let Some(tok) = m.progress_token() {
            self.progress_tokens.insert((d, tok.clone()), ri);
            if self.token_requests.len() >= self.token_requests_cap {
                // Kept to the unanswered ones (amortised: the bound doubles).
                let reqs = &self.out.requests;
                self.token_requests.retain(|(_, ri, _)| !reqs[*ri].answered);
                self.token_requests_cap = (2 * self.token_requests.len()).max(64);
            }
            self.token_requests.push((d, ri, tok.clone()));
            self.out.progress.insert(
                ri,
                RequestProgress {
                    last: f.ts,
                    ..Default::default()
                },
            );
        }
        ri
    }

    /// A request with a valid id enters its id space: a duplicate of a
    /// pending id, or a reused one, is reported (rules 6, 7).
    fn track_pending(
        &mut self,
        f: &Frame,
        d: Direction,
        m: &Message,
        ri: usize,
        valid: ValidId,
        method: Option<String>,
    ) {
        let lk = valid.loose();
        let sp = &self.spaces[dir_index(d)];
        let pending_same = sp.live.get(&valid).is_some_and(|&n| n > 0);
        // Stateless HTTP without a session id: each exchange may be another
        // client's, so only an id pending in the same POST is a duplicate,
        // and no id is a reuse (DESIGN.md rule 6).
        let entry = f.http.as_ref().filter(|h| h.origin_keyed).map(|h| h.entry);
        let pending_same = pending_same
            && entry.is_none_or(|e| {
                sp.pending.get(&lk).is_some_and(|l| {
                    l.iter().any(|&r| {
                        let q = &self.out.requests[r];
                        q.entry == Some(e) && q.id.strict_eq(&m.id) && !q.cancelled
                    })
                })
            });
        if pending_same {
            self.out.requests[ri].duplicate = true;
            self.dup_ids[dir_index(d)].insert(valid.clone());
            self.find(
                K::DuplicateId,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                method,
                format!(
                    "id {} is still pending in this session; responses cannot be told apart",
                    m.id.json_text()
                ),
            );
            // A reply the log kept without its id (or did not log) since
            // the earlier request may have answered it (FORMATS.md §8.3.6).
            let first = self.spaces[dir_index(d)]
                .pending
                .get(&lk)
                .and_then(|q| q.front())
                .and_then(|&r| self.out.requests[r].loc.line);
            if let Some(&(_, line, _)) = self.lost_replies.iter().find(|(ld, line, free)| {
                *free && ld.is_none_or(|ld| ld == d.other()) && first.is_some_and(|l| l <= *line)
            }) && let Some(f) = self.out.findings.last_mut()
            {
                f.gap = true;
                f.detail.push_str(&format!(
                    "; but the log shows a reply at line {line} whose id the log lost (printed without it, sent and not logged, or cut off at the end of the file: a capture gap): it may have answered the earlier request"
                ));
            }
        } else if self.reuse_forbidden(m)
            && entry.is_none()
            && sp.ever(&valid, &m.id, &lk, &self.out.requests)
        {
            self.find(
                K::IdReused,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                method,
                format!(
                    "id {} was already used in this session; MCP forbids reusing request ids",
                    m.id.json_text()
                ),
            );
        }
        let sp = &mut self.spaces[dir_index(d)];
        *sp.live.entry(valid).or_default() += 1;
        sp.pending.entry(lk).or_default().push_back(ri);
    }

    /// The token of a progress a bridge logged without its params (a
    /// rebuilt summary: mcp-remote's server→client summaries keep only
    /// method, id, result and error): the token of the one request sent
    /// the other way that named one and is not yet answered. `None` when
    /// the message is not rebuilt, or no request or more than one could be
    /// its sender's.
    fn only_token(&mut self, d: Direction, m: &Message) -> Option<Id> {
        if !m.rebuilt {
            return None;
        }
        // Answered ones leave for good: each is looked at once after.
        let reqs = &self.out.requests;
        self.token_requests.retain(|(_, ri, _)| !reqs[*ri].answered);
        let mut open = self
            .token_requests
            .iter()
            .filter(|(dir, ..)| *dir == d.other());
        let (_, _, tok) = open.next()?;
        if open.next().is_some() {
            return None;
        }
        Some(tok.clone())
    }

    /// Links a `notifications/progress` to the request whose
    /// `_meta.progressToken` it names (sent the other way).
    fn progress(&mut self, f: &Frame, d: Direction, m: &Message) {
        let Some(tok) = m
            .progress_token()
            .cloned()
            .or_else(|| self.only_token(d, m))
        else {
            self.out.unlinked_progress += 1;
            return;
        };
        let Some(&ri) = self.progress_tokens.get(&(d.other(), tok.clone())) else {
            self.out.unlinked_progress += 1;
            if !self.one_direction {
                let found = self.finding_at(K::UnknownProgressToken, f, Some(d), FindingId::One(tok.clone()),
                    m.method.as_deref().map(str::to_string),
                    format!("progress with token {}, which no request of this session named in its _meta.progressToken (MCP progress: the token must come from an active request)", tok.json_text()));
                let when = self.start.now();
                self.odd_progress.push((d, tok.clone(), found, when));
            }
            return;
        };
        let answered = self.out.requests[ri].answered;
        let p = self.out.progress.entry(ri).or_default();
        p.notifications += 1;
        if answered {
            p.after_response += 1;
            // Judged where the order is certain: a line log, or the same
            // HAR body as the response; a task handle is not the end.
            let same_stream = match &f.http {
                None => true,
                Some(h) => p.response_entry == Some(h.entry),
            };
            let q = &self.out.requests[ri];
            let doubled =
                q.id.valid()
                    .is_some_and(|v| self.dup_ids[dir_index(d.other())].contains(&v));
            if same_stream && !p.task && !doubled {
                let (id, method) = (q.id.clone(), q.method.as_deref().map(str::to_string));
                self.find(K::ProgressAfterResponse, f, Some(d), FindingId::One(id.clone()), method,
                    format!("progress for request {} after its response; MCP progress: notifications stop when the request completes", id.json_text()));
            }
        }
        let untimed = f.http.as_ref().is_some_and(|h| h.stamped_at_end(f.ts));
        let p = self.out.progress.entry(ri).or_default();
        p.untimed |= untimed;
        if p.untimed {
            p.longest_silence = None;
            return;
        }
        if let (Some(a), Some(b)) = (p.last, f.ts)
            && b >= a
        {
            p.longest_silence = p.longest_silence.max(Some(b - a));
        }
        if f.ts.is_some() {
            p.last = f.ts;
        }
    }

    /// Up to 2025-11-25 any reuse is a fault; 2026-07-28 only forbids
    /// pending ids (FORMATS.md §3.1). The revision is the one request `m`
    /// states, else its session's.
    fn reuse_forbidden(&self, m: &Message) -> bool {
        match m.offered() {
            Some(v) => v != MODERN,
            None => self.out.revision.as_deref() != Some(MODERN),
        }
    }

    fn problems(&mut self, f: &Frame, d: Direction, m: &Message) {
        if m.rebuilt {
            return;
        }
        for p in &m.problems {
            let (kind, detail) = match p {
                Problem::BadJsonrpcVersion => (
                    K::BadJsonrpcVersion,
                    "jsonrpc is missing or not exactly \"2.0\"".to_string(),
                ),
                Problem::InvalidRequest(why) => (
                    K::InvalidRequest,
                    format!("not a valid JSON-RPC message: {why}"),
                ),
                Problem::ResultAndError => (
                    K::ResultAndError,
                    "a response carrying both result and error".to_string(),
                ),
                Problem::NeitherResultNorError => (
                    K::NeitherResultNorError,
                    "a response carrying neither result nor error".to_string(),
                ),
            };
            self.find(
                kind,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                m.method.as_deref().map(str::to_string),
                detail,
            );
        }
    }

    /// Responses of one frame (rules 5, 6, 7, 9).
    fn responses(&mut self, f: &Frame, d: Direction, items: &[&Message], moved: bool) -> Tally {
        let mut t = Tally::default();
        let entry = f.http.as_ref().map(|h| h.entry);
        for m in items {
            self.out.counts.messages += 1;
            self.out.counts.responses += 1;
            self.problems(f, d, m);
            if matches!(m.id, Id::Other(_)) {
                continue;
            }
            if matches!(m.id, Id::Null | Id::Absent) {
                if self.notification_reply(f, d, m) {
                    continue;
                }
                self.null_id_response(f, d, m, &mut t);
                if let Some(status) = self.notification_refusal(f, m) {
                    if let Some(found) = self.out.findings.last_mut() {
                        found.detail = refusal_detail(m.error_code, status);
                    }
                    self.out.addressed_null_ids += 1;
                    continue;
                }
                if m.has_error && self.answer_by_entry(f, d, m, moved) {
                    self.out.addressed_null_ids += 1;
                }
                continue;
            }
            t.non_null += 1;
            if self.one_direction {
                // Its initialize result names the server and the revision.
                if d == Direction::S2c {
                    self.server_named(m);
                }
                self.one_sided_response(f, d, m);
                continue;
            }
            let Some(lk) = m.id.loose() else {
                if self.invalid_sent[dir_index(d.other())].contains(&m.id.json_text()) {
                    // The echo of a request that carried this very id (`1e400`):
                    // that request's finding says it (rule 3).
                    continue;
                }
                // An id no request can have (a number out of every range).
                t.unknown += 1;
                self.find(
                    K::UnknownIdResponse,
                    f,
                    Some(d),
                    FindingId::One(m.id.clone()),
                    None,
                    format!(
                        "a response with id {} that no request can carry",
                        m.id.json_text()
                    ),
                );
                continue;
            };
            self.response(f, d, m, (lk, entry), moved, &mut t);
        }
        if let (Some(h), Direction::S2c) = (&f.http, d)
            && let Some(&b) = self.entry_batch.get(&h.entry)
            && !self.out.batches[b].reqs.is_empty()
            && !t.linked.contains(&b)
        {
            t.linked.push(b);
        }
        for &b in &t.linked {
            let bt = &mut self.out.batches[b];
            bt.linked += t.non_null;
            bt.null_id += t.null_ids;
            bt.unknown += t.unknown;
            if bt.reply.is_none() {
                bt.reply = Some((f.prov.location, evidence(f), f.prov.file));
            }
            if f.ts.is_some() && !moved {
                bt.completed = bt.completed.max(f.ts);
            }
        }
        t
    }

    /// A response that answers a single notification (rule 13): over HTTP
    /// one in that POST's response that pairs with nothing; over a line log
    /// an id-less one that is the other side's next frame while nothing
    /// else is pending. Reported as `notification_replied` instead of the
    /// unknown-id or null-id reading; answers whether it was.
    fn notification_reply(&mut self, f: &Frame, d: Direction, m: &Message) -> bool {
        if self.cur != Some(Sent::Notification) || self.notification_refusal(f, m).is_some() {
            return false;
        }
        if f.http.is_none() && !self.spaces[dir_index(d.other())].pending.is_empty() {
            return false;
        }
        let what = match m.id {
            Id::Absent => "no id member".to_string(),
            Id::Null => "id null".to_string(),
            _ => format!("id {}", m.id.json_text()),
        };
        let kind = if m.has_error { "an error" } else { "a result" };
        self.find(K::NotificationReplied, f, Some(d), FindingId::One(m.id.clone()), None,
            format!("{kind} ({what}) answered a notification; JSON-RPC 2.0 §4.1: a notification gets no response, and a client may take this one for another request's answer"));
        true
    }

    /// Over HTTP, the HTTP status of a POST that carried one notification
    /// and was refused with an HTTP error status (4xx, 5xx) whose body is
    /// an error with id null or no id member: Streamable HTTP (2025-03-26
    /// on) tells a server that cannot accept a notification to answer an
    /// HTTP error status, and lets its body be a JSON-RPC error without an
    /// id. A refusal, not a reply (rule 13): no `notification_replied`.
    fn notification_refusal(&self, f: &Frame, m: &Message) -> Option<i64> {
        let h = f.http.as_ref()?;
        let refused = self.cur == Some(Sent::Notification)
            && !h.is_request_body
            && h.status >= 400
            && m.has_error
            && matches!(m.id, Id::Null | Id::Absent);
        refused.then_some(h.status)
    }

    /// Over HTTP, an error response that pairs by id with nothing (id
    /// null, no id member, an id no request had) in a 4xx or 5xx response
    /// to a POST that carried one request answers that request: HTTP ties
    /// the response to its POST, and clients fail the request on it (a
    /// 2026-07-28 client's `server/discover` refused by a server that
    /// knows only older revisions, before it falls back to `initialize`).
    /// The request is paired with it (rule 13), so it is no
    /// `missing_response`; the finding on the id stays, naming the
    /// request. Returns whether it paired.
    fn answer_by_entry(&mut self, f: &Frame, d: Direction, m: &Message, moved: bool) -> bool {
        let Some(h) = f.http.as_ref() else {
            return false;
        };
        if self.cur != Some(Sent::Request) || !m.has_error || h.is_request_body || h.status < 400 {
            return false;
        }
        let space = dir_index(d.other());
        let requests = &self.out.requests;
        let Some((lk, pos)) = self.spaces[space].pending.iter().find_map(|(lk, lst)| {
            lst.iter()
                .position(|&r| requests[r].entry == Some(h.entry))
                .map(|p| (lk.clone(), p))
        }) else {
            return false;
        };
        let sp = &mut self.spaces[space];
        let Some(ri) = sp.pending.get_mut(&lk).and_then(|l| l.remove(pos)) else {
            return false;
        };
        if sp.pending.get(&lk).is_some_and(|l| l.is_empty()) {
            sp.pending.remove(&lk);
        }
        let q = &self.out.requests[ri];
        if !q.cancelled
            && let Some(v) = q.id.valid()
        {
            sp.release(&v);
        }
        sp.answer(lk, ri, &self.out.requests);
        let mut t = Tally::default();
        self.pair_steps(f, d, m, ri, moved, &mut t);
        let q = &self.out.requests[ri];
        let what = format!(
            "; it answers {} {} of this POST (HTTP {}), which is paired with it",
            q.method.as_deref().unwrap_or("request"),
            q.id.json_text(),
            h.status
        );
        if let Some(found) = self.out.findings.last_mut() {
            found.detail.push_str(&what);
        }
        true
    }

    /// A response with id null or none: an error the peer could not
    /// address, or a success that answers nothing.
    fn null_id_response(&mut self, f: &Frame, d: Direction, m: &Message, t: &mut Tally) {
        if m.has_error {
            t.null_ids += 1;
            let code = m
                .error_code
                .map(|c| format!(" (code {c})"))
                .unwrap_or_default();
            self.find(K::NullIdError, f, Some(d), FindingId::One(Id::Null), None,
                format!("an error response with id null{code}: the peer could not read the id of something it was sent"));
            if let Some(Sent::Batch(bi) | Sent::Notifications(bi)) = self.cur
                && matches!(f.payload, Payload::Single(_))
                && d == self.out.batches[bi].direction.other()
                && self.out.batches[bi].well_formed
                && self.out.batches[bi].rejection.is_none()
            {
                let at = self.out.findings.len() - 1;
                self.out.batches[bi].rejection = Some((at, m.error_code, m.id == Id::Absent));
            }
        } else {
            // A success with no id answers nothing, whatever the capture
            // holds of the other side.
            t.non_null += 1;
            t.unknown += 1;
            self.find(
                K::UnknownIdResponse,
                f,
                Some(d),
                FindingId::One(Id::Null),
                None,
                "a success response without an id: it answers no request".into(),
            );
        }
    }

    /// A response in a capture of one side only (raw SSE): its request is
    /// not in the capture, so it is not judged, but a second response for
    /// the same id is `duplicate_response` (SSE replays were dropped
    /// before, by event id and data).
    fn one_sided_response(&mut self, f: &Frame, d: Direction, m: &Message) {
        let Some(lk) = m.id.loose() else { return };
        if !self.one_sided_seen.insert((dir_index(d), lk)) {
            self.find(
                K::DuplicateResponse,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                None,
                format!(
                    "a second response for id {} in this capture of one side; an id is answered once",
                    m.id.json_text()
                ),
            );
        }
    }

    /// The pending request (in id space `space`) a response with id `m.id`
    /// (loose key `lk`) answers: the same id sent in the same HTTP entry,
    /// else the same id, else any in the same entry, else the oldest.
    fn pick_pending(
        &self,
        space: usize,
        lk: &LooseKey,
        m: &Message,
        entry: Option<u64>,
    ) -> Option<usize> {
        self.spaces[space].pending.get(lk).and_then(|lst| {
            let reqs = &self.out.requests;
            let same = |r: usize| reqs[r].id.strict_eq(&m.id);
            let here = |r: usize| entry.is_some() && reqs[r].entry == entry;
            let in_post = if entry.is_some() {
                lst.iter().position(|&r| same(r) && here(r))
            } else {
                None
            };
            in_post
                .or_else(|| lst.iter().position(|&r| same(r)))
                .or_else(|| {
                    if entry.is_some() {
                        lst.iter().position(|&r| here(r))
                    } else {
                        None
                    }
                })
                .or(if lst.is_empty() { None } else { Some(0) })
        })
    }

    /// A response with a usable id: paired with its pending request, or a
    /// duplicate of an answered one, or unknown.
    fn response(
        &mut self,
        f: &Frame,
        d: Direction,
        m: &Message,
        (lk, entry): (LooseKey, Option<u64>),
        moved: bool,
        t: &mut Tally,
    ) {
        let space = dir_index(d.other());
        if self.undelivered_reply(space, &lk, m, entry) {
            return;
        }
        if let Some(pos) = self.pick_pending(space, &lk, m, entry) {
            let Some(lst) = self.spaces[space].pending.get_mut(&lk) else {
                return;
            };
            let Some(ri) = lst.remove(pos) else { return };
            if lst.is_empty() {
                self.spaces[space].pending.remove(&lk);
            }
            let q = &self.out.requests[ri];
            if !q.cancelled
                && let Some(v) = q.id.valid()
            {
                self.spaces[space].release(&v);
            }
            self.spaces[space].answer(lk, ri, &self.out.requests);
            self.pair(f, d, m, ri, moved, t);
        } else if let Some(&ri) = self.spaces[space].answered.get(&lk) {
            let method = self.out.requests[ri].method.as_deref().map(str::to_string);
            self.find(
                K::DuplicateResponse,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                method,
                format!(
                    "a second response for id {}, which was already answered",
                    m.id.json_text()
                ),
            );
            if let Some((b, _)) = self.out.requests[ri].batch {
                let b = b as usize;
                if !t.linked.contains(&b) {
                    t.linked.push(b);
                }
            }
        } else if self.invalid_sent[space].contains(&m.id.json_text()) {
            // The echo of a request whose id can never pair (rule 3).
        } else {
            t.unknown += 1;
            // An initialize result whose request the capture lacks (a
            // one-sided SSE capture, a log that starts mid-session) still
            // names the server and its revision.
            if d == Direction::S2c {
                self.server_named(m);
            }
            if f.http.is_some() && self.notification_reply(f, d, m) {
                return;
            }
            self.find(K::UnknownIdResponse, f, Some(d), FindingId::One(m.id.clone()), None,
                format!("a response with id {} that matches no request sent in this session's {} id space", m.id.json_text(), d.other().as_str()));
            let at = self.out.findings.len() - 1;
            self.start.unknown_answer(at, d, &m.id);
            self.explain_by_lost_requests(d);
            self.explain_by_lost_message(at);
            if m.has_error {
                let at = self.out.findings.len() - 1;
                self.replies.unknown_error(&m.id, at);
                self.answer_by_entry(f, d, m, moved);
            }
        }
    }

    /// A reply a gateway logged it could not deliver
    /// ([`crate::record::Extra::undelivered`]) that would pair with a
    /// pending request: the requester never received it, so it does not
    /// pair; the request stays pending and its `missing_response` names
    /// the log's words (rule 7). `false` when `m` is no such reply or
    /// nothing waits for it (then it is read as any other reply).
    fn undelivered_reply(
        &mut self,
        space: usize,
        lk: &LooseKey,
        m: &Message,
        entry: Option<u64>,
    ) -> bool {
        let Some(note) = m.extra.as_ref().and_then(|e| e.undelivered.as_ref()) else {
            return false;
        };
        let Some(pos) = self.pick_pending(space, lk, m, entry) else {
            return false;
        };
        let ri = self.spaces[space].pending[lk][pos];
        if !self.undelivered.iter().any(|(r, _)| *r == ri) {
            self.undelivered.push((ri, note.clone()));
        }
        true
    }

    /// Finding `at` (an answer that pairs with nothing) may answer a
    /// message the log lost before it whose direction is unknown (a line
    /// cut as the log was written, rotated or copied): the first such
    /// unclaimed one is claimed for it (one lost message, one finding) and
    /// named in the detail.
    fn explain_by_lost_message(&mut self, at: usize) {
        if self.out.findings[at].gap {
            return;
        }
        let Some(lost) = self
            .lost_replies
            .iter_mut()
            .find(|(ld, _, free)| *free && ld.is_none())
        else {
            return;
        };
        lost.2 = false;
        let f = &mut self.out.findings[at];
        f.gap = true;
        f.detail.push_str(&format!(
            "; but the log lost a message at line {} (a line cut as the log was written, rotated or copied: a capture gap): it may have been the request",
            lost.1
        ));
    }

    /// When the capture lost request bodies in this session, the last
    /// finding (an answer that pairs with nothing) may answer one of them:
    /// a capture gap, said in the detail with the entries.
    fn explain_by_lost_requests(&mut self, d: Direction) {
        if d == Direction::C2s && !self.lost_responses.is_empty() {
            // A client's answer to a server request that rode a lost body.
            let entries = entry_list(&self.lost_responses);
            if let Some(f) = self.out.findings.last_mut() {
                f.gap = true;
                f.detail.push_str(&format!(
                    "; but the capture did not keep the response body of entry {entries} (a capture gap): the server request it answers may have been there"
                ));
            }
            return;
        }
        if d != Direction::S2c || self.lost_requests.is_empty() {
            return;
        }
        let entries = entry_list(&self.lost_requests);
        if let Some(f) = self.out.findings.last_mut() {
            f.gap = true;
            f.detail.push_str(&format!(
                "; but the capture did not keep the request body of entry {entries} (a capture gap): its request may have been there"
            ));
        }
    }

    /// Response `m` of frame `f` answers request `ri`: the pair's
    /// bookkeeping, then the rules that judge the answer.
    fn pair(
        &mut self,
        f: &Frame,
        d: Direction,
        m: &Message,
        ri: usize,
        moved: bool,
        t: &mut Tally,
    ) {
        self.id_echo(f, d, m, ri);
        self.pair_steps(f, d, m, ri, moved, t);
    }

    /// What pairing request `ri` with response `m` does, but for the id
    /// echo check ([`Walker::pair`]; [`Walker::answer_by_entry`] pairs
    /// by HTTP entry, not by id).
    fn pair_steps(
        &mut self,
        f: &Frame,
        d: Direction,
        m: &Message,
        ri: usize,
        moved: bool,
        t: &mut Tally,
    ) {
        self.out.counts.pairs += 1;
        self.mark_answered(f, m, ri, t);
        self.progress_answered(f, m, ri, moved);
        self.answer_time(f, d, m, ri, moved);
        self.batch_arrival(ri, t);
        self.ops.response(ri, &mut self.out.requests, m);
        if d == Direction::S2c {
            self.server_named(m);
        }
        self.answer_rules(f, d, m, ri);
    }

    /// `id_type_changed`: the response echoed request `ri`'s id as a
    /// loosely equal one (`"1"` for `1`).
    fn id_echo(&mut self, f: &Frame, d: Direction, m: &Message, ri: usize) {
        if self.out.requests[ri].id.strict_eq(&m.id) {
            return;
        }
        let req_id = self.out.requests[ri].id.clone();
        let method = self.out.requests[ri].method.as_deref().map(str::to_string);
        self.out.findings.push(Finding {
            kind: K::IdTypeChanged,
            session: self.out.name.clone(),
            direction: Some(d),
            id: FindingId::One(req_id.clone()),
            alt_ids: vec![m.id.clone()],
            method,
            input: self.out.input,
            file: f.prov.file,
            location: f.prov.location,
            evidence: evidence(f),
            detail: format!(
                "request id {} was echoed as {}: paired, but a strict client would not match it",
                req_id.json_text(),
                m.id.json_text()
            ),
            gap: false,
            by_traffic: false,
        });
    }

    /// Request `ri` is answered by `m` in frame `f`: its answer's time and
    /// outcome, the tally, and the bare object answering its batch.
    fn mark_answered(&mut self, f: &Frame, m: &Message, ri: usize, t: &mut Tally) {
        let q = &mut self.out.requests[ri];
        q.answered = true;
        q.response_ts = f.ts;
        q.error_code = m.error_code.and_then(|c| i32::try_from(c).ok());
        q.tool_error = m.extra.as_ref().is_some_and(|e| e.tool_error);
        if q.batch.is_some() {
            t.paired_batched += 1;
        } else {
            t.paired_alone += 1;
        }
        if let (Some(Sent::Batch(bi)), Some(h), Payload::Single(_)) =
            (self.cur, &f.http, &f.payload)
            && !h.stream
            && q.batch.is_some_and(|(b, _)| b as usize == bi)
            && self.out.batches[bi].bare_reply.is_none()
        {
            self.out.batches[bi].bare_reply = Some((f.prov.location, evidence(f), f.prov.file));
        }
    }

    /// Request `ri`'s progress, when it had some: where the answer came,
    /// its task, and the longest silence up to the answer.
    fn progress_answered(&mut self, f: &Frame, m: &Message, ri: usize, moved: bool) {
        if let Some(p) = self.out.progress.get_mut(&ri) {
            p.response_entry = f.http.as_ref().map(|h| h.entry);
            p.task = m.task_handle();
        }
        if let Some(p) = self.out.progress.get_mut(&ri)
            && p.notifications > 0
            && !p.untimed
            && let (Some(a), Some(b)) = (p.last, f.ts)
            && b >= a
            && !moved
        {
            p.longest_silence = p.longest_silence.max(Some(b - a));
        }
    }

    /// Request `ri`'s latency (or why it is unknown), and
    /// `late_response` when the answer came past the timeout.
    fn answer_time(&mut self, f: &Frame, d: Direction, m: &Message, ri: usize, moved: bool) {
        let q = &self.out.requests[ri];
        // A server request stamped with the end of the stream that carried
        // it, answered before that end: the capture bounds neither when it
        // was sent nor its latency (FORMATS.md §4.2); it gets no time.
        let untimed = q.at_stream_end && matches!((q.ts, f.ts), (Some(a), Some(b)) if b < a);
        // A time that is no bound (FORMATS.md §4.2) gives no latency.
        let unbounded =
            untimed || q.time_unbounded || f.http.as_ref().is_some_and(|h| h.time_unbounded);
        let latency = match f.stated_latency {
            Some(l) => Some(l),
            None if unbounded => None,
            None => match (q.ts, f.ts) {
                (Some(a), Some(b)) if !moved && b >= a => Some(b - a),
                _ => None,
            },
        };
        let why = match (q.ts, f.ts) {
            _ if latency.is_some() => None,
            _ if unbounded => Some("time_unbounded"),
            (Some(_), Some(_)) if moved => Some("moved"),
            (Some(_), Some(_)) => Some("before_request"),
            _ => Some("no_time"),
        };
        // A listen's response ends its stream (no latency), unless the server
        // refused the listen outright (method not found, bad params).
        let stream_end =
            q.method.as_deref() == Some(LISTEN) && !matches!(m.error_code, Some(-32602..=-32600));
        // A sender may reset its timeout on progress (MCP progress, FORMATS.md
        // §3.5): a call whose progress never went silent past the timeout is
        // not late.
        let kept_alive = self.out.progress.get(&ri).is_some_and(|p| {
            p.notifications > 0 && p.longest_silence.is_some_and(|g| g <= self.cfg.timeout_us)
        });
        // Progress whose times the capture did not keep: whether it kept
        // the caller's timeout alive is unknown (a capture gap).
        let untimed_progress = self
            .out
            .progress
            .get(&ri)
            .filter(|p| p.notifications > 0 && p.untimed)
            .map(|p| p.notifications);
        let q = &mut self.out.requests[ri];
        if untimed {
            q.ts = None;
        }
        if !q.cancelled && !stream_end {
            q.latency = latency;
            q.latency_unknown = why;
            if let Some(l) = latency
                && l > self.cfg.timeout_us
                && !kept_alive
            {
                // Not `late` in pairs.csv when untimed progress may have
                // kept it alive: the capture cannot tell.
                q.late = untimed_progress.is_none();
                let method = q.method.as_deref().map(str::to_string);
                self.find(K::LateResponse, f, Some(d), FindingId::One(m.id.clone()), method,
                        format!("answered after {:.1} ms, past the {:.0} ms timeout: its caller had likely given up", l as f64 / 1000.0, self.cfg.timeout_us as f64 / 1000.0));
                if let Some(n) = untimed_progress
                    && let Some(found) = self.out.findings.last_mut()
                {
                    found.gap = true;
                    found.detail.push_str(&format!(
                        "; but its {n} progress notification{} have no time of their own in this capture (events of a HAR stream body, stamped with the entry's end), so whether they reset the caller's timeout is unknown (a capture gap)",
                        if n == 1 { "" } else { "s" }
                    ));
                }
            }
        }
    }

    /// A batched request `ri` answered: the answer's place in its batch's
    /// arrivals, and the batch linked to the frame.
    fn batch_arrival(&mut self, ri: usize, t: &mut Tally) {
        if let Some((b, pos)) = self.out.requests[ri].batch {
            let b = b as usize;
            let bt = &mut self.out.batches[b];
            self.out.requests[ri].response_position = Some(bt.arrivals.len() as u32);
            bt.arrivals.push(pos as usize);
            if !t.linked.contains(&b) {
                t.linked.push(b);
            }
        }
    }

    /// A server's answer `m` that names the server: the revision the
    /// `initialize` result negotiated, else (2026-07-28) its `_meta`.
    fn server_named(&mut self, m: &Message) {
        if self.negotiated.is_none()
            && let (Some(v), Some((n, ver))) = (m.negotiated(), m.server_info())
        {
            self.out.revision = Some(v.to_string());
            self.out.server = Some((n.to_string(), ver.to_string()));
            self.negotiated = Some(v.into());
        }
        if self.out.server.is_none()
            && m.negotiated().is_none()
            && let Some((n, ver)) = m.server_info()
        {
            // 2026-07-28: the server names itself in `_meta`.
            self.out.server = Some((n.to_string(), ver.to_string()));
        }
    }

    fn finish_rules(&mut self) {
        if self.one_direction {
            return;
        }
        self.missing_responses();
        self.reply_shapes();
        for bi in 0..self.out.batches.len() {
            if self.out.batches[bi].reqs.is_empty() {
                continue;
            }
            self.batch_shape(bi);
            self.batch_slow_tails(bi);
        }
    }

    /// The end-of-session reply-shape rules (rule 13): whole-batch
    /// rejections, bare replies to batches, answers to `[]`, placeholder
    /// error ids, and progress tokens that no request gave.
    fn reply_shapes(&mut self) {
        self.batch_reply_shapes();
        let empty: Vec<Finding> = self
            .replies
            .empty
            .iter()
            .filter_map(|e| {
                let detail = replies::empty_batch_verdict(e)?;
                let kind = K::EmptyBatchNotRejected;
                Some(self.batch_finding(kind, e.direction.other(), vec![], e.at, detail))
            })
            .collect();
        self.out.findings.extend(empty);
        let lost = (!self.lost_requests.is_empty()).then(|| entry_list(&self.lost_requests));
        self.placeholder_errors(lost.as_deref());
        self.unknown_tokens(lost.as_deref());
    }

    /// The answers a missing log start explains ([`start_cut`]), then the
    /// progress whose token no request of the session named: a gap when
    /// the capture lost request bodies (`lost`: their entries) or the log
    /// starts mid-session.
    fn unknown_tokens(&mut self, lost: Option<&str>) {
        let spaces = &self.spaces;
        self.start.explain(&mut self.out.findings, |d, id| {
            let sp = &spaces[dir_index(d)];
            id.loose()
                .is_some_and(|k| sp.pending.contains_key(&k) || sp.answered.contains_key(&k))
                || id.valid().is_some_and(|v| sp.other_ids.contains(&v))
        });
        for (d, tok, mut found, when) in std::mem::take(&mut self.odd_progress) {
            if self.progress_tokens.contains_key(&(d.other(), tok)) {
                continue;
            }
            if let Some(entries) = lost {
                found.gap = true;
                found.detail.push_str(&format!("; but the capture did not keep the request body of entry {entries} (a capture gap): its request may have been there"));
            }
            self.start
                .progress(&mut found, d, when, self.out.findings.len());
            self.out.findings.push(found);
        }
    }

    /// Per batch: one error that rejected the whole batch of well-formed
    /// members (`batch_rejected_whole`), and a bare object answering it
    /// (`batch_reply_not_array`).
    fn batch_reply_shapes(&mut self) {
        for bi in 0..self.out.batches.len() {
            let b = &self.out.batches[bi];
            let ran = b.reqs.iter().any(|&r| self.out.requests[r].answered);
            if let Some((at, code, absent)) = b.rejection
                && !ran
            {
                let what = match b.reqs.len() {
                    0 => format!(
                        "the whole batch of {} notification(s), which asks for no reply",
                        b.notifications
                    ),
                    n => format!("the whole batch of {n} request(s), and none of them ran"),
                };
                let code = code.map(|c| format!(" (code {c})")).unwrap_or_default();
                let id = if absent { "no id member" } else { "id null" };
                let found = &mut self.out.findings[at];
                found.kind = K::BatchRejectedWhole;
                found.id = FindingId::Batch(b.ids.clone());
                found.detail = format!(
                    "one error{code} with {id} answered {what}; every member was a well-formed message, so the error points at nothing the client can fix (JSON-RPC 2.0 §6 runs each member)"
                );
            }
            if let Some((loc, ev, file)) = b.bare_reply {
                let detail = format!(
                    "a batch of {} member(s) was answered by a bare object, not an array: JSON-RPC 2.0 §6 answers a batch with an array, and a client reading one fails",
                    b.size
                );
                let found = self.batch_finding(
                    K::BatchReplyNotArray,
                    b.direction.other(),
                    b.ids.clone(),
                    (loc, ev, file),
                    detail,
                );
                self.out.findings.push(found);
            }
        }
    }

    /// `placeholder_id_error`: the errors whose id no request had, when
    /// several carry it or it is a known placeholder; `lost` lists the
    /// entries whose request bodies the capture lost.
    fn placeholder_errors(&mut self, lost: Option<&str>) {
        let mut placeholders: Vec<(&String, &Vec<usize>)> = self
            .replies
            .unknown_errors
            .iter()
            .filter(|(id, at)| {
                at.len() >= 2 || replies::KNOWN_PLACEHOLDER_IDS.contains(&id.as_str())
            })
            .collect();
        placeholders.sort();
        for (id, at) in placeholders {
            for &i in at {
                let found = &mut self.out.findings[i];
                found.kind = K::PlaceholderIdError;
                found.detail = format!(
                    "an error with id {id}, which no request had: {} error(s) of this session carry it, a constant the server puts on errors it cannot address, so the client cannot match it to its request",
                    at.len()
                );
                if let (true, Some(entries)) = (found.gap, lost) {
                    found.detail.push_str(&format!("; but the capture did not keep the request body of entry {entries} (a capture gap): its request may have been there"));
                }
            }
        }
    }

    /// A batch-level finding (rule 8: its id is the batch's member ids) of
    /// this session at `at` (place, evidence, file id).
    fn batch_finding(
        &self,
        kind: K,
        direction: Direction,
        ids: Vec<Id>,
        at: (crate::record::Location, (u64, u32), u32),
        detail: String,
    ) -> Finding {
        Finding {
            kind,
            session: self.out.name.clone(),
            direction: Some(direction),
            id: FindingId::Batch(ids),
            alt_ids: vec![],
            method: None,
            input: self.out.input,
            file: at.2,
            location: at.0,
            evidence: at.1,
            detail,
            gap: false,
            by_traffic: false,
        }
    }

    /// `missing_response` (rule 7) and `stream_closed_before_response`.
    /// Under 2026-07-28 (the request's revision, else its session's) a
    /// response stream that closed without the response is a
    /// cancellation, or a broken stream whose request the client sent
    /// again: then the two are linked ([`Tracker::reissue`]).
    fn missing_responses(&mut self) {
        let mut extra = Vec::new();
        let session = self.out.revision.clone();
        for ri in 0..self.out.requests.len() {
            let q = &self.out.requests[ri];
            if !q.id.is_valid() || q.answered || q.cancelled {
                continue;
            }
            let what = q.method.as_deref().unwrap_or("request").to_string();
            if what == LISTEN {
                // A live stream at the end of the capture (FORMATS.md §3.6).
                continue;
            }
            if q.on_stream && q.is_modern(session.as_deref()) {
                extra.push(self.stream_lost_modern(ri, &what));
                continue;
            }
            let q = &self.out.requests[ri];
            let mut base = q.finding(
                K::MissingResponse,
                &self.out.name,
                self.out.input,
                format!(
                    "{what} {} never got a response before the end of the capture",
                    q.id.json_text()
                ),
            );
            let (requests, replies) = (&self.lost_requests, &mut self.lost_replies);
            if let Some((_, note)) = self.undelivered.iter().find(|(r, _)| *r == ri) {
                // The capture shows its reply was not delivered: no gap
                // can have carried another answer that it would name.
                base.detail = format!(
                    "{what} {} never got a response its requester received: {note}",
                    q.id.json_text()
                );
            } else if let Some(detail) = unanswered_gap(q, &what, requests, replies, self.tail_lost)
            {
                base.gap = true;
                base.detail = detail;
            }
            // A stream the capture does not hold cannot be said to have
            // closed (`reply_gap`: e.g. a legacy session's GET stream
            // without its body).
            if q.on_stream && q.reply_gap.is_none() {
                let mut s = base.clone();
                s.kind = K::StreamClosedBeforeResponse;
                s.detail = "its response stream ended (or never opened) without carrying the response; a disconnect is not a cancellation".into();
                extra.push(s);
            }
            if !q.duplicate {
                extra.push(base);
            }
        }
        self.out.findings.extend(extra);
    }

    /// The finding for 2026-07-28 request `ri` (method `what`) whose
    /// response stream closed without the response (FORMATS.md §2.6): an
    /// `info` `stream_closed_before_response` naming the re-issue when the
    /// client sent it again, else a `cancelled_request` (closing the
    /// stream is how a client cancels).
    fn stream_lost_modern(&mut self, ri: usize, what: &str) -> Finding {
        let (name, input) = (&self.out.name, self.out.input);
        if let Some((r, key)) = self.ops.reissue(ri, &mut self.out.requests) {
            let (q, again) = (&self.out.requests[ri], &self.out.requests[r]);
            let mut f = q.finding(K::StreamClosedBeforeResponse, name, input, format!(
                "{what} {}: its response stream closed without the response, and the client sent it again as {} at {}: under 2026-07-28 a broken stream loses the request and the client re-issues it under a new id, so the two are one call (operation {key})",
                q.id.json_text(), again.id.json_text(), again.loc.describe()));
            f.gap = true;
            return f;
        }
        let q = &mut self.out.requests[ri];
        q.cancelled = true;
        q.finding(K::CancelledRequest, name, input, format!(
            "{what} {}: its response stream closed without the response; under 2026-07-28 closing the stream is how a client cancels (or the stream broke, which a capture cannot tell apart; the client then re-issues it under a new id)",
            q.id.json_text()
        ))
    }

    /// Batch `bi`'s responses against its requests: how many were linked
    /// (`response_count_mismatch`) and in which order they came.
    fn batch_shape(&mut self, bi: usize) {
        let b = &self.out.batches[bi];
        let reqs: Vec<&Req> = b.reqs.iter().map(|&r| &self.out.requests[r]).collect();
        let expected = reqs.iter().filter(|q| q.answered || !q.cancelled).count();
        let mut found = Vec::new();
        if b.linked != expected {
            found.push((
                K::ResponseCountMismatch,
                b.loc,
                b.evidence,
                b.file,
                b.direction,
                format!(
                    "{} request(s) with valid ids but {} response(s) linked to the batch",
                    expected, b.linked
                ),
            ));
        }
        let mut sorted = b.arrivals.clone();
        sorted.sort_unstable();
        let mis: Vec<String> = (0..b.arrivals.len())
            .filter(|&i| b.arrivals[i] != sorted[i])
            .map(|i| reqs[sorted[i]].id.json_text())
            .collect();
        if !mis.is_empty() {
            let (loc, ev, file) = b.reply.unwrap_or((b.loc, b.evidence, b.file));
            let order: Vec<String> = b.arrivals.iter().map(|&i| reqs[i].id.json_text()).collect();
            found.push((K::OutOfOrderBatch, loc, ev, file, b.direction.other(),
                format!("responses came back in order [{}]; a client pairing by position mis-assigns {} of them (ids {})", order.join(","), mis.len(), mis.join(","))));
        }
        let ids = b.ids.clone();
        for (kind, loc, ev, file, dir, detail) in found {
            let f = self.batch_finding(kind, dir, ids.clone(), (loc, ev, file), detail);
            self.out.findings.push(f);
        }
    }

    /// `slow_tail` inside batch `bi` (rule 10): a member at least
    /// `--slow` and `--slow-factor` × the median of the rest.
    fn batch_slow_tails(&mut self, bi: usize) {
        let slow = self.cfg.slow_us;
        let factor = self.cfg.slow_factor;
        let b = &self.out.batches[bi];
        let timed: Vec<(usize, Micros)> = b
            .reqs
            .iter()
            .filter_map(|&r| {
                let q = &self.out.requests[r];
                if q.cancelled {
                    None
                } else {
                    q.latency.map(|l| (r, l))
                }
            })
            .collect();
        if timed.len() >= 2 {
            let mut sorted: Vec<Micros> = timed.iter().map(|&(_, l)| l).collect();
            sorted.sort_unstable();
            for &(r, l) in &timed {
                if l < slow {
                    continue;
                }
                // The median of the rest: this member's value left out.
                let at = sorted.partition_point(|&x| x < l);
                let med = super::latency::median_without(&sorted, at);
                if (l as f64) >= factor * med {
                    let rest = sorted.len() - 1;
                    let ms = |x: Micros| x as f64 / 1000.0;
                    // Exactly what it is compared with: the other
                    // members' latencies, the middle two of an even count.
                    let basis = match super::latency::middle_two(&sorted, at) {
                        _ if rest == 1 => {
                            format!("its batch's one other latency, {:.1} ms", med / 1000.0)
                        }
                        Some((a, b)) => format!(
                            "the median of its batch's other {rest} latencies, {:.1} ms (the mean of the middle two, {:.1} and {:.1} ms)",
                            med / 1000.0,
                            ms(a),
                            ms(b)
                        ),
                        None => format!(
                            "the median of its batch's other {rest} latencies, {:.1} ms",
                            med / 1000.0
                        ),
                    };
                    let detail = format!(
                        "took {:.1} ms, {:.0}× {basis}: it held the batch back",
                        l as f64 / 1000.0,
                        l as f64 / med.max(1.0),
                    );
                    let f = self.out.requests[r].finding(
                        K::SlowTail,
                        &self.out.name,
                        self.out.input,
                        detail,
                    );
                    self.out.findings.push(f);
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Config, FindingKind};
    use crate::ingest::{self, Input};

    /// The rows kept per request and per batch are most of a run's peak
    /// memory (reports/BENCH.md, "where the peak memory goes"): a field added to them costs
    /// about 1 MB per 4,000 requests, so growth is a decision, not drift.
    #[test]
    fn rows_kept_per_request_stay_within_their_measured_size() {
        assert!(std::mem::size_of::<super::Req>() <= 272);
        assert!(std::mem::size_of::<super::Batch>() <= 408);
        assert!(std::mem::size_of::<crate::record::Location>() <= 48);
    }

    /// Analyses an envelope log given as (ms, dir, message) lines and
    /// returns (kind, id JSON) of every finding in order.
    pub(in crate::analyze) fn run(
        lines: &[(i64, &str, &str)],
    ) -> (Vec<(&'static str, String)>, super::super::Analysis) {
        let text: String = lines
            .iter()
            .map(|(ms, d, m)| {
                let ts = crate::record::time::format_rfc3339(1_700_000_000_000_000 + ms * 1000);
                format!("{{\"ts\":\"{ts}\",\"dir\":\"{d}\",\"msg\":{m}}}\n")
            })
            .collect();
        run_text("t.ndjson", &text)
    }

    /// Analyses one input text of any format (detected), as [`run`].
    pub(in crate::analyze) fn run_text(
        name: &str,
        text: &str,
    ) -> (Vec<(&'static str, String)>, super::super::Analysis) {
        let input = Input {
            file: 0,
            name,
            text,
        };
        let parsed = ingest::parse(input, ingest::detect_format(text));
        let input = (name.to_string(), text.len() as u64, parsed);
        let a = crate::pipeline::analyze_parsed(&Config::default(), false, vec![input]).analysis;
        let f = a
            .findings
            .iter()
            .map(|f| (f.kind.name(), f.id.to_json().to_string()))
            .collect();
        (f, a)
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;

    /// A reply the gateway logged it could not deliver pairs with nothing:
    /// its request is `missing_response` (an error, no capture gap) whose
    /// detail names both lines; a cancellation that says the request timed
    /// out stays `cancelled_request` (info) and says so (the shape of
    /// fresh-user-captures' supergateway-sampling-hang.log, #11).
    #[test]
    fn undelivered_reply_is_missing_and_timeout_is_named() {
        let log = "[supergateway] Running stateful server\n\
            [supergateway] SessionAccessCounter.inc() S, caused by session initialization\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n\
            [supergateway] Child → StreamableHttp: {\"result\":{\"protocolVersion\":\"2025-11-25\",\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"jsonrpc\":\"2.0\",\"id\":0}\n\
            [supergateway] SessionAccessCounter.inc() S, caused by POST request for existing session\n\
            [supergateway] StreamableHttp → Child: {\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_llm\"}}\n\
            [supergateway] Child → StreamableHttp: {\"method\":\"sampling/createMessage\",\"params\":{},\"jsonrpc\":\"2.0\",\"id\":0}\n\
            [supergateway] Response closed S\n\
            [supergateway] Child → StreamableHttp: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":0,\"reason\":\"McpError: MCP error -32001: Request timed out\"}}\n\
            [supergateway] Child → StreamableHttp: {\"result\":{\"content\":[],\"isError\":true},\"jsonrpc\":\"2.0\",\"id\":13}\n\
            [supergateway] Failed to send to StreamableHttp Error: No connection established for request ID: 13\n    at send (file:///x.js:917:27)\n";
        let (kinds, a) = run_text("sg.log", log);
        assert_eq!(
            kinds,
            [
                ("missing_response", "13".into()),
                ("cancelled_request", "0".into())
            ]
        );
        let got: Vec<(&str, &str, bool)> = a
            .findings
            .iter()
            .map(|f| (f.kind.name(), f.detail.as_str(), f.gap))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "missing_response",
                    "tools/call 13 never got a response its requester received: the server's reply at line 10 was not delivered: supergateway logged at line 11 \"Failed to send to StreamableHttp Error: No connection established for request ID: 13\"",
                    false
                ),
                (
                    "cancelled_request",
                    "the requester cancelled sampling/createMessage because it timed out (reason \"McpError: MCP error -32001: Request timed out\"): no answer reached it in time; a reply may still come or never come, neither is a fault",
                    false
                )
            ]
        );
        assert_eq!(a.findings[0].severity(), super::super::Severity::Error);
        // Without the gateway's line the same reply pairs.
        let delivered = log.replace("request ID: 13", "request ID: 14");
        let (kinds, _) = run_text("sg.log", &delivered);
        assert_eq!(kinds, [("cancelled_request", "0".into())]);
    }

    /// Which cancellation reasons say the request timed out.
    #[test]
    fn cancel_detail_names_a_timeout() {
        assert!(super::timed_out(
            "McpError: MCP error -32001: Request timed out"
        ));
        assert!(super::timed_out("Timeout after 30s"));
        assert!(!super::timed_out("user cancelled"));
        assert_eq!(
            super::cancel_detail("tools/call", false, Some("user cancelled")),
            "the requester cancelled tools/call while it was unanswered; a reply may still come or never come, neither is a fault"
        );
        assert_eq!(
            super::cancel_detail("ping", true, Some("Request timed out")),
            "the requester cancelled ping because it timed out (reason \"Request timed out\"): no answer reached it in time; under 2026-07-28 no reply may follow (one would be answered_after_cancel)"
        );
        let long = format!("timed out {}", "x".repeat(200));
        assert_eq!(
            super::cancel_detail("ping", false, Some(&long)),
            format!(
                "the requester cancelled ping because it timed out (reason \"timed out {}…\"): no answer reached it in time; a reply may still come or never come, neither is a fault",
                "x".repeat(110)
            )
        );
    }

    fn init_result(rev: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{rev}","serverInfo":{{"name":"s","version":"1"}}}}}}"#
        )
    }

    /// A batch member's `slow_tail` says what it is compared with: the
    /// other members' latencies. Batch 1 (ids 1–5 at 0 ms, answered at
    /// 10, 20, 30, 40 and 2000 ms): id 5 against 10, 20, 30, 40, whose
    /// median is 25 ms, the mean of 20 and 30 (2000 / 25 = 80×). Batch 2
    /// (ids 6, 7 at 3000 ms, answered after 10 and 2000 ms): id 7 against
    /// the one other, 10 ms (200×). Batch 3 (ids 8–11 at 6000 ms, after 10,
    /// 20, 30 and 2000 ms): id 11 against 10, 20, 30, median 20 ms (100×).
    #[test]
    fn batch_slow_tail_names_what_it_is_compared_with() {
        let req = |ids: std::ops::RangeInclusive<u32>| {
            let m: Vec<String> = ids
                .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call"}}"#))
                .collect();
            format!("[{}]", m.join(","))
        };
        let res = |i: u32| format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#);
        let (b1, b2, b3) = (req(1..=5), req(6..=7), req(8..=11));
        let r: Vec<(i64, u32)> = vec![
            (10, 1),
            (20, 2),
            (30, 3),
            (40, 4),
            (2000, 5),
            (3010, 6),
            (5000, 7),
            (6010, 8),
            (6020, 9),
            (6030, 10),
            (8000, 11),
        ];
        let answers: Vec<String> = r.iter().map(|&(_, i)| res(i)).collect();
        let mut lines: Vec<(i64, &str, &str)> = vec![(0, "c2s", &b1)];
        lines.extend(
            r[..5]
                .iter()
                .zip(&answers[..5])
                .map(|(&(t, _), a)| (t, "s2c", a.as_str())),
        );
        lines.push((3000, "c2s", &b2));
        lines.extend(
            r[5..7]
                .iter()
                .zip(&answers[5..7])
                .map(|(&(t, _), a)| (t, "s2c", a.as_str())),
        );
        lines.push((6000, "c2s", &b3));
        lines.extend(
            r[7..]
                .iter()
                .zip(&answers[7..])
                .map(|(&(t, _), a)| (t, "s2c", a.as_str())),
        );
        let (_, a) = run(&lines);
        let tails: Vec<(String, &str)> = a
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::SlowTail)
            .map(|f| (f.id.to_json().to_string(), f.detail.as_str()))
            .collect();
        assert_eq!(
            tails,
            [
                (
                    "5".to_string(),
                    "took 2000.0 ms, 80× the median of its batch's other 4 latencies, 25.0 ms (the mean of the middle two, 20.0 and 30.0 ms): it held the batch back"
                ),
                (
                    "7".to_string(),
                    "took 2000.0 ms, 200× its batch's one other latency, 10.0 ms: it held the batch back"
                ),
                (
                    "11".to_string(),
                    "took 2000.0 ms, 100× the median of its batch's other 3 latencies, 20.0 ms: it held the batch back"
                ),
            ]
        );
    }

    /// A `slow_tail` outside batches says what it is compared with, so
    /// that it never reads against the summary's p50: the latencies of a
    /// fresh user's capture (tools/call id 4 took 2013 ms; the others 491,
    /// 12, 4, 4, 3, 11 and 1 ms) sorted are 1, 3, 4, 4, 11, 12, 491, 2013:
    /// the median is 7.5 ms, the mean of the 4th and 5th (4 and 11), and
    /// p50 the 4th, 4.0 ms; 2013 / 7.5 = 268.4.
    #[test]
    fn capture_slow_tail_names_what_it_is_compared_with() {
        let took = [491, 12, 4, 4, 2013, 3, 11, 1];
        let (mut t, mut lines) = (0, Vec::new());
        let msgs: Vec<(String, String)> = took
            .iter()
            .enumerate()
            .map(|(i, _)| {
                (
                    format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call"}}"#),
                    format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#),
                )
            })
            .collect();
        for (l, (q, r)) in took.iter().zip(&msgs) {
            lines.push((t, "c2s", q.as_str()));
            lines.push((t + l, "s2c", r.as_str()));
            t += l + 1;
        }
        let (f, a) = run(&lines);
        assert_eq!(f, [("slow_tail", "4".to_string())]);
        assert_eq!(
            a.findings[0].detail,
            "took 2013.0 ms, 268× the median of the capture's 8 latencies (its own included), 7.5 ms: the mean of the middle two, 4.0 and 11.0 ms (the capture's p50 is the lower)"
        );
        assert_eq!(a.latency.map(|q| q.p50), Some(4.0));
    }

    /// `1e400` is an integer no double holds: the request's
    /// `id_precision_risk` says it, and its echo pairs with it (an
    /// integer is a valid id, DESIGN.md rule 3), 5 ms later.
    #[test]
    fn an_exponent_form_integer_id_pairs() {
        let (f, a) = run(&[
            (0, "c2s", r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#),
            (5, "s2c", r#"{"jsonrpc":"2.0","id":1e400,"result":{}}"#),
        ]);
        let kinds: Vec<&str> = f.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, ["id_precision_risk"]);
        let q = &a.sessions[0].requests[0];
        assert_eq!(q.status().as_str(), "paired");
        assert_eq!(q.latency, Some(5_000));
        assert_eq!(q.id.json_text(), "1e400");
        // `1e0` is the integer 1: it pairs, echoed as written, no finding.
        let (f, a) = run(&[
            (0, "c2s", r#"{"jsonrpc":"2.0","id":1e0,"method":"ping"}"#),
            (7, "s2c", r#"{"jsonrpc":"2.0","id":1e0,"result":{}}"#),
        ]);
        assert!(f.is_empty(), "{f:?}");
        let q = &a.sessions[0].requests[0];
        assert_eq!((q.status().as_str(), q.latency), ("paired", Some(7_000)));
        assert_eq!(q.id.json_text(), "1e0");
    }

    #[test]
    fn late_response_and_latency() {
        let r = init_result("2025-06-18");
        let (f, a) = run(&[
            (0, "c2s", INIT),
            (5, "s2c", &r),
            (
                10,
                "c2s",
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            ),
            (70_011, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        ]);
        assert_eq!(f, vec![("late_response", "1".to_string())]);
        let lat: Vec<_> = a.sessions[0].requests.iter().map(|q| q.latency).collect();
        assert_eq!(lat, vec![Some(5_000), Some(70_001_000)]);
        assert_eq!(a.sessions[0].revision.as_deref(), Some("2025-06-18"));
    }

    #[test]
    fn cancelled_request_may_still_be_answered_without_fault() {
        let r = init_result("2025-06-18");
        let (f, a) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", &r),
            (
                2,
                "c2s",
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#,
            ),
            (
                3,
                "c2s",
                r#"{"jsonrpc":"2.0","id":"b","method":"tools/call"}"#,
            ),
            (
                90_000,
                "c2s",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
            ),
            (
                90_000,
                "c2s",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}"#,
            ),
            (95_000, "s2c", r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
        ]);
        // Both cancelled; "a" answered after the cancel: no late_response,
        // no missing_response for "b", no latency for either.
        assert_eq!(
            f,
            vec![
                ("cancelled_request", "\"a\"".to_string()),
                ("cancelled_request", "\"b\"".to_string())
            ]
        );
        assert_eq!(a.latency.map(|q| q.count), Some(1));
        let st: Vec<_> = a.sessions[0]
            .requests
            .iter()
            .map(|q| q.status().as_str())
            .collect();
        assert_eq!(st, vec!["paired", "cancelled", "cancelled"]);
    }

    #[test]
    fn id_reuse_depends_on_revision() {
        for (rev, expect_reuse) in [("2025-06-18", true), ("2026-07-28", false)] {
            let r = init_result(rev);
            let (f, _) = run(&[
                (0, "c2s", INIT),
                (1, "s2c", &r),
                (2, "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
                (3, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
                (4, "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
                (5, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            ]);
            let reused = f.iter().filter(|(k, _)| *k == "id_reused").count();
            assert_eq!(reused, usize::from(expect_reuse), "{rev}");
        }
    }

    /// `id_reused` without a set of every id: an id is known as used while
    /// pending, once answered, after its loose key was taken over by another
    /// strict id (`1` then `"1"`), and after a cancel; never across `1`/`"1"`.
    #[test]
    fn id_reuse_is_found_without_a_set_of_all_ids() {
        let r = init_result("2025-06-18");
        let (f, a) = run(&[
            (0, "c2s", INIT),
            (1, "s2c", &r),
            (2, "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (3, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            // "1" is another id: not a reuse; its answer takes over key 1.
            (4, "c2s", r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#),
            (5, "s2c", r#"{"jsonrpc":"2.0","id":"1","result":{}}"#),
            // 1 again: reused (known through the taken-over key).
            (6, "c2s", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (7, "s2c", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            // "c" cancelled and never answered, then sent again: reused.
            (
                8,
                "c2s",
                r#"{"jsonrpc":"2.0","id":"c","method":"tools/call"}"#,
            ),
            (
                9,
                "c2s",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}"#,
            ),
            (
                10,
                "c2s",
                r#"{"jsonrpc":"2.0","id":"c","method":"tools/call"}"#,
            ),
            (11, "s2c", r#"{"jsonrpc":"2.0","id":"c","result":{}}"#),
            // "d" answered: a later "d" is reused.
            (12, "c2s", r#"{"jsonrpc":"2.0","id":"d","method":"ping"}"#),
            (13, "s2c", r#"{"jsonrpc":"2.0","id":"d","result":{}}"#),
            (14, "c2s", r#"{"jsonrpc":"2.0","id":"d","method":"ping"}"#),
            (15, "s2c", r#"{"jsonrpc":"2.0","id":"d","result":{}}"#),
        ]);
        assert_eq!(
            f,
            vec![
                ("id_reused", "1".to_string()),
                ("cancelled_request", "\"c\"".to_string()),
                ("id_reused", "\"c\"".to_string()),
                // The answer pairs with the oldest pending "c" (cancelled).
                ("missing_response", "\"c\"".to_string()),
                ("id_reused", "\"d\"".to_string()),
            ]
        );
        // Every request is one row; the method text is shared, not copied.
        let rows = &a.sessions[0].requests;
        assert_eq!(rows.len(), 8);
        let pings: Vec<_> = rows
            .iter()
            .filter(|q| q.method.as_deref() == Some("ping"))
            .collect();
        assert_eq!(pings.len(), 5);
        assert!(pings.windows(2).all(|w| std::sync::Arc::ptr_eq(
            w[0].method.as_ref().unwrap(),
            w[1].method.as_ref().unwrap()
        )));
    }

    #[test]
    fn id_kinds_at_requests_only() {
        let (f, _) = run(&[
            (
                0,
                "c2s",
                r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}"#,
            ),
            (
                1,
                "s2c",
                r#"{"jsonrpc":"2.0","id":9007199254740993,"result":{}}"#,
            ),
            (2, "c2s", r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (3, "s2c", r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#),
            (4, "c2s", r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            (5, "s2c", r#"{"jsonrpc":"2.0","id":"7","result":{}}"#),
        ]);
        assert_eq!(
            f,
            vec![
                ("id_precision_risk", "9007199254740993".to_string()),
                ("fractional_id", "1.5".to_string()),
                ("id_type_changed", "7".to_string()),
            ]
        );
        let _ = FindingKind::ALL;
    }

    /// 2026-07-28 (FORMATS.md §3.6): a listen open at the end is a live
    /// stream; one ended by an error after seconds has no latency; one
    /// refused at once keeps its latency.
    #[test]
    fn listens_are_streams_not_calls() {
        let listen = |id: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"{id}","method":"subscriptions/listen","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
            )
        };
        let (l1, l2, l3) = (listen("l1"), listen("l2"), listen("l3"));
        let (f, a) = run(&[
            (0, "c2s", &l1),
            (10, "c2s", &l2),
            (
                4_000,
                "s2c",
                r#"{"jsonrpc":"2.0","id":"l2","error":{"code":-32000,"message":"Connection closed"}}"#,
            ),
            (4_010, "c2s", &l3),
            (
                4_030,
                "s2c",
                r#"{"jsonrpc":"2.0","id":"l3","error":{"code":-32601,"message":"Method not found"}}"#,
            ),
        ]);
        assert_eq!(f, Vec::<(&str, String)>::new());
        let lat: Vec<_> = a.sessions[0].requests.iter().map(|q| q.latency).collect();
        assert_eq!(lat, vec![None, None, Some(20_000)]);
    }

    /// A sender may reset its timeout on progress (FORMATS.md §3.5): 94 s
    /// with progress every 10 s is not late; 94 s with a 70 s silence is.
    #[test]
    fn progress_keeps_a_call_from_being_late() {
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#;
        let prog = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#;
        let done = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let mut lines = vec![(0, "c2s", call)];
        for k in 1..=9 {
            lines.push((k * 10_000, "s2c", prog));
        }
        lines.push((94_000, "s2c", done));
        let (f, a) = run(&lines);
        assert_eq!(f, Vec::<(&str, String)>::new());
        assert_eq!(a.sessions[0].requests[0].latency, Some(94_000_000));
        let (f, _) = run(&[
            (0, "c2s", call),
            (10_000, "s2c", prog),
            (80_000, "s2c", prog),
            (94_000, "s2c", done),
        ]);
        assert_eq!(f, vec![("late_response", "1".to_string())]);
    }
}

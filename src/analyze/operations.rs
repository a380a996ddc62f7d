//! Operations: requests of one session that do one piece of work together
//! (FORMATS.md §3.6), linked instead of judged one by one.
//!
//! - **MRTR** (2026-07-28 `basic/patterns/mrtr`): a `tools/call`,
//!   `prompts/get` or `resources/read` answered `resultType:
//!   "input_required"`, and the retries (new ids, `inputResponses`, the
//!   `requestState` echoed) until a round is answered otherwise. Each
//!   round's latency is the server's time; the gaps between a round's
//!   response and the next round's request are the client's (or a
//!   person's) wait.
//! - **Tasks** (2025-11-25 `basic/utilities/tasks`, the 2026-07-28 tasks
//!   extension): a request answered with a task handle (`result.task`, or
//!   `resultType: "task"` with `taskId`), then the `tasks/*` requests
//!   naming its `taskId`, until one reports a terminal status.
//! - **Listens** (2026-07-28 `basic/patterns/subscriptions`): a
//!   `subscriptions/listen`, with its acknowledgement and the
//!   notifications tagged with its id
//!   (`_meta["io.modelcontextprotocol/subscriptionId"]`).
//! - **Re-issues** (2026-07-28 `basic/transports/streamable-http`): a
//!   request whose response stream closed without its response, and the
//!   request the client sent again under a new id (same method, same
//!   `params` but for `_meta`): a broken stream loses the request, and the
//!   client MUST re-issue it, so the two are one call.
//!
//! Memory: one small row per operation, plus the MRTR requests in flight
//! and a hash per 2026-07-28 request.

use std::sync::Arc;

use foldhash::HashMap;
use serde::Serialize;

use super::engine::Req;
use crate::record::jsonrpc::{ResultType, TaskEnd};
use crate::record::{Id, Message, Micros};

/// Methods that may answer `input_required` (2026-07-28 MRTR).
const MRTR_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// The long-lived request of 2026-07-28 (FORMATS.md §3.6).
pub const LISTEN: &str = "subscriptions/listen";

/// What kind of operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// Multi round-trip request rounds.
    Mrtr,
    /// A task and its `tasks/*` requests.
    Task,
    /// A `subscriptions/listen` stream.
    Listen,
    /// A request lost with its broken stream and its re-issues.
    Reissue,
}

impl OpKind {
    /// Name in the tables and `summary.json` (`mrtr`, `task`, `listen`,
    /// `reissue`).
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Mrtr => "mrtr",
            OpKind::Task => "task",
            OpKind::Listen => "listen",
            OpKind::Reissue => "reissue",
        }
    }
}

/// How an operation stands at the end of the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpState {
    /// Still going: an MRTR round answered `input_required` and not
    /// retried, a task not terminal, a listen stream open.
    Open,
    /// Done: a round answered `complete`, a task `completed`, a listen
    /// ended by its response.
    Complete,
    /// Ended by an error response, or a task `failed`.
    Failed,
    /// A task `cancelled`.
    Cancelled,
}

impl OpState {
    /// How a response ends an operation: `failed` for an error.
    fn answered(failed: bool) -> OpState {
        if failed {
            OpState::Failed
        } else {
            OpState::Complete
        }
    }

    /// Name in the tables (`open`, `complete`, `failed`, `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            OpState::Open => "open",
            OpState::Complete => "complete",
            OpState::Failed => "failed",
            OpState::Cancelled => "cancelled",
        }
    }
}

/// One operation of a session.
#[derive(Debug, Clone)]
pub struct Operation {
    /// Its kind.
    pub kind: OpKind,
    /// 1-based number among the session's operations of its kind: the
    /// key is `mrtr-1`, `task-2`, … ([`Operation::key`]).
    pub ordinal: u32,
    /// Indices of its requests in the session (`SessionResult::requests`),
    /// in order: MRTR rounds; the task's request and its `tasks/*`
    /// requests; the listen.
    pub requests: Vec<u32>,
    /// The request whose response ended it.
    pub end: Option<u32>,
    /// How it stands.
    pub state: OpState,
    /// Its first request is a retry whose earlier rounds are not in the
    /// capture (MRTR): its wait before that round is unknown.
    pub partial: bool,
    /// Notifications linked to it (listen: its acknowledgement and the
    /// notifications tagged with its id).
    pub notifications: u32,
    /// A listen got `notifications/subscriptions/acknowledged`.
    pub acknowledged: bool,
}

/// An operation's times (µs): each known only where the capture bounds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpTimes {
    /// Its first request's time.
    pub start: Option<Micros>,
    /// The time of the response that ended it.
    pub end: Option<Micros>,
    /// `end - start`: what the user waited for the whole operation.
    pub total: Option<Micros>,
    /// MRTR: the sum of its rounds' latencies (the server's time), when
    /// every round's latency is known.
    pub server: Option<Micros>,
    /// MRTR: `total - server`, the time the client (or a person) took to
    /// answer the server's input requests.
    pub wait: Option<Micros>,
}

impl Operation {
    /// Its key in `pairs.csv` and `operations.csv`: kind and ordinal
    /// (`mrtr-1`); unique within a session, and no captured text in it.
    pub fn key(&self) -> String {
        format!("{}-{}", self.kind.as_str(), self.ordinal)
    }

    /// Its times, from its requests' rows (see [`OpTimes`]).
    pub fn times(&self, reqs: &[Req]) -> OpTimes {
        let first = self.requests.first().map(|&r| &reqs[r as usize]);
        let start = first.and_then(|q| q.ts);
        let end = self
            .end
            .and_then(|e| reqs[e as usize].response_ts)
            .filter(|_| first.is_some_and(|q| q.latency_unknown != Some("moved")));
        let total = match (start, end) {
            (Some(a), Some(b)) if b >= a => Some(b - a),
            _ => None,
        };
        let mut t = OpTimes {
            start,
            end,
            total,
            ..OpTimes::default()
        };
        if self.kind == OpKind::Mrtr && self.end.is_some() {
            t.server = self
                .requests
                .iter()
                .map(|&r| reqs[r as usize].latency)
                .sum::<Option<Micros>>();
            if !self.partial
                && let (Some(total), Some(server)) = (t.total, t.server)
            {
                t.wait = Some(total.saturating_sub(server));
            }
        }
        t
    }
}

/// A retry whose `requestState` is not the one the server issued
/// (`mrtr_state_changed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    /// The operation's key.
    pub op: String,
    /// Id of the round whose response issued the state (or issued none).
    pub issued_by: Id,
    /// What happened to the state.
    pub what: &'static str,
}

/// An MRTR operation waiting for its retry.
#[derive(Debug)]
struct Awaiting {
    op: usize,
    method: Arc<str>,
    target: Option<u64>,
    issued: Option<u64>,
    /// Id of the round that asked for input.
    round: Id,
}

/// Links a session's requests into operations as its frames are walked.
#[derive(Debug, Default)]
pub struct Tracker {
    /// The operations, in the order they were opened (an MRTR operation
    /// when its first round is answered, the others at their first
    /// request).
    pub ops: Vec<Operation>,
    ordinals: [u32; 4],
    /// MRTR-method requests not answered yet: request index → its target.
    pending: HashMap<usize, Option<u64>>,
    /// MRTR operations whose last round asked for input.
    awaiting: Vec<Awaiting>,
    /// Task id hash → operation.
    tasks: HashMap<u64, usize>,
    /// Listen request id → operation.
    listens: HashMap<Id, usize>,
    /// 2026-07-28 requests by what they send (method and `params` but for
    /// `_meta`, [`crate::record::jsonrpc::OpFields::params_hash`]):
    /// request indices in order, the candidates for a re-issue.
    sent: HashMap<u64, Vec<u32>>,
    /// Request index → its key in `sent`.
    sent_key: HashMap<u32, u64>,
    /// Requests already linked as the re-issue of another.
    reissued: foldhash::HashSet<u32>,
}

impl Tracker {
    fn open(&mut self, kind: OpKind, ri: usize, q: &mut Req) -> usize {
        let k = kind as usize;
        self.ordinals[k] += 1;
        self.ops.push(Operation {
            kind,
            ordinal: self.ordinals[k],
            requests: vec![ri as u32],
            end: None,
            state: OpState::Open,
            partial: false,
            notifications: 0,
            acknowledged: false,
        });
        let op = self.ops.len() - 1;
        q.op = Some(op as u32);
        op
    }

    fn join(&mut self, op: usize, ri: usize, q: &mut Req) {
        self.ops[op].requests.push(ri as u32);
        q.op = Some(op as u32);
    }

    /// Request `ri` (its row `q`, its message `m`) was sent. Returns the
    /// state change when it is an MRTR retry that does not echo the
    /// `requestState` its operation's last round issued (the client MUST
    /// echo it unchanged, and MUST NOT send one where none was issued:
    /// 2026-07-28 `basic/patterns/mrtr`). Judged only where one operation
    /// of that method and target awaits a retry: with several in flight,
    /// which one a retry continues is not certain.
    pub fn request(&mut self, ri: usize, q: &mut Req, m: &Message) -> Option<StateChange> {
        let method = q.method.clone()?;
        if let Some(h) = m.op().and_then(|f| f.params_hash) {
            use std::hash::{Hash, Hasher};
            let mut k = std::collections::hash_map::DefaultHasher::new();
            (&*method, q.direction, h).hash(&mut k);
            let k = k.finish();
            self.sent.entry(k).or_default().push(ri as u32);
            self.sent_key.insert(ri as u32, k);
        }
        if &*method == LISTEN {
            let op = self.open(OpKind::Listen, ri, q);
            self.listens.insert(q.id.clone(), op);
            return None;
        }
        let f = m.op();
        if method.starts_with("tasks/") {
            if let Some(&op) = f.and_then(|f| f.task).and_then(|t| self.tasks.get(&t)) {
                self.join(op, ri, q);
            }
            return None;
        }
        if !MRTR_METHODS.contains(&&*method) {
            return None;
        }
        let target = f.and_then(|f| f.target);
        self.pending.insert(ri, target);
        let state = f.and_then(|f| f.request_state);
        if !f.is_some_and(|f| f.input_responses || f.request_state.is_some()) {
            return None;
        }
        let by_state = state.and_then(|s| self.awaiting.iter().rposition(|a| a.issued == Some(s)));
        let same: Vec<usize> = (0..self.awaiting.len())
            .filter(|&i| self.awaiting[i].method == method && self.awaiting[i].target == target)
            .collect();
        let (pick, judged) = match (by_state, same.as_slice()) {
            (Some(i), _) => (Some(i), false),
            (None, [i]) => (Some(*i), true),
            (None, []) => (None, false),
            (None, many) => (
                many.iter()
                    .rev()
                    .find(|&&i| self.awaiting[i].issued == state)
                    .or(many.last())
                    .copied(),
                false,
            ),
        };
        let Some(i) = pick else {
            // Its earlier rounds are not in the capture.
            let op = self.open(OpKind::Mrtr, ri, q);
            self.ops[op].partial = true;
            return None;
        };
        let a = self.awaiting.remove(i);
        self.join(a.op, ri, q);
        let what = match (judged, a.issued, state) {
            (false, _, _) => return None,
            (true, Some(x), Some(y)) if x == y => return None,
            (true, None, None) => return None,
            (true, Some(_), Some(_)) => "carries another requestState than",
            (true, Some(_), None) => "carries no requestState although one was issued by",
            (true, None, Some(_)) => "carries a requestState although none was issued by",
        };
        Some(StateChange {
            op: self.ops[a.op].key(),
            issued_by: a.round,
            what,
        })
    }

    /// Request `ri` (`reqs[ri]`) was answered by `m`.
    pub fn response(&mut self, ri: usize, reqs: &mut [Req], m: &Message) {
        let f = m.op();
        let rt = f.and_then(|f| f.result_type);
        let failed = m.has_error && !m.has_result;
        let q_op = reqs[ri].op.map(|o| o as usize);
        if let Some(target) = self.pending.remove(&ri) {
            if rt == Some(ResultType::InputRequired) && !failed {
                let op = match q_op {
                    Some(op) => op,
                    None => self.open(OpKind::Mrtr, ri, &mut reqs[ri]),
                };
                self.ops[op].state = OpState::Open;
                self.awaiting.push(Awaiting {
                    op,
                    method: reqs[ri].method.clone().unwrap_or_else(|| "".into()),
                    target,
                    issued: f.and_then(|f| f.request_state),
                    round: reqs[ri].id.clone(),
                });
                return;
            }
            if let Some(op) = q_op.filter(|&op| self.ops[op].kind == OpKind::Mrtr) {
                self.end(op, ri, OpState::answered(failed));
                return;
            }
        }
        if q_op.is_none()
            && !failed
            && m.task_handle()
            && let Some(t) = f.and_then(|f| f.task)
        {
            let op = self.open(OpKind::Task, ri, &mut reqs[ri]);
            self.tasks.insert(t, op);
            return;
        }
        let Some(op) = q_op else { return };
        match self.ops[op].kind {
            OpKind::Task if !failed => {
                let end = match f.and_then(|f| f.task_end) {
                    Some(TaskEnd::Completed) => Some(OpState::Complete),
                    Some(TaskEnd::Failed) => Some(OpState::Failed),
                    Some(TaskEnd::Cancelled) => Some(OpState::Cancelled),
                    // `tasks/result` answers with the task's own result.
                    None if reqs[ri].method.as_deref() == Some("tasks/result") => {
                        Some(OpState::Complete)
                    }
                    None => None,
                };
                if let Some(s) = end
                    && self.ops[op].end.is_none()
                {
                    self.end(op, ri, s);
                }
            }
            OpKind::Listen => {
                self.end(op, ri, OpState::answered(failed));
            }
            _ => {}
        }
    }

    /// Request `ri` lost its response stream without its response (under
    /// 2026-07-28): the first later request that sends the same thing
    /// (same requester, method and `params` but for `_meta`) under another
    /// id, not already a re-issue and in no other operation, is its
    /// re-issue. Links the two into one operation (joining the one `ri`
    /// is in already, when it was itself a re-issue) and returns the
    /// re-issue's index and the operation's key; `None` when no request
    /// was sent again.
    pub fn reissue(&mut self, ri: usize, reqs: &mut [Req]) -> Option<(usize, String)> {
        let k = *self.sent_key.get(&(ri as u32))?;
        let own = reqs[ri].op.map(|o| o as usize);
        if own.is_some_and(|o| self.ops[o].kind != OpKind::Reissue) {
            return None;
        }
        let next = self.sent.get(&k)?.iter().map(|&r| r as usize).find(|&r| {
            r > ri
                && !self.reissued.contains(&(r as u32))
                && reqs[r].op.is_none()
                && !reqs[r].id.strict_eq(&reqs[ri].id)
        })?;
        self.reissued.insert(next as u32);
        let op = match own {
            Some(op) => op,
            None => self.open(OpKind::Reissue, ri, &mut reqs[ri]),
        };
        self.join(op, next, &mut reqs[next]);
        let q = &reqs[next];
        if q.answered {
            self.end(op, next, OpState::answered(q.error_code.is_some()));
        }
        Some((next, self.ops[op].key()))
    }

    fn end(&mut self, op: usize, ri: usize, state: OpState) {
        self.ops[op].end = Some(ri as u32);
        self.ops[op].state = state;
    }

    /// A notification: linked to the listen its `_meta` subscription id
    /// names, if any.
    pub fn notification(&mut self, m: &Message) {
        let Some(&op) = m
            .op()
            .and_then(|f| f.subscription.as_ref())
            .and_then(|s| self.listens.get(s))
        else {
            return;
        };
        let o = &mut self.ops[op];
        o.notifications += 1;
        if m.method.as_deref() == Some("notifications/subscriptions/acknowledged") {
            o.acknowledged = true;
        }
    }

    /// The operations, once the session is walked.
    pub fn finish(self) -> Vec<Operation> {
        self.ops
    }
}

/// `summary.json` `operations.<kind>`: how many operations of a kind the
/// run linked, how they stand, and their times (ms, nearest rank as rule
/// 10) where the capture bounds them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct KindSummary {
    /// Operations of this kind.
    pub count: u64,
    /// Of those, still open at the end of the capture.
    pub open: u64,
    /// Ended by an error response (or a task `failed`).
    pub failed: u64,
    /// Tasks `cancelled`.
    pub cancelled: u64,
    /// Requests linked into them (MRTR rounds; task polls included).
    pub requests: u64,
    /// Notifications linked to them (listens).
    pub notifications: u64,
    /// First request to the response that ended it.
    pub total_ms: Option<super::latency::Quantiles>,
    /// MRTR: the server's time (the rounds' latencies summed).
    pub server_ms: Option<super::latency::Quantiles>,
    /// MRTR: the client's or a person's time between rounds.
    pub wait_ms: Option<super::latency::Quantiles>,
}

/// Per kind (`mrtr`, `task`, `listen`, `reissue`), the operations of `sessions`;
/// empty when none was linked (then `summary.json` has no `operations`).
pub fn summarize<'s>(
    sessions: impl IntoIterator<Item = &'s super::engine::SessionResult>,
) -> std::collections::BTreeMap<&'static str, KindSummary> {
    let mut out = std::collections::BTreeMap::new();
    let mut times: std::collections::BTreeMap<&'static str, [Vec<Micros>; 3]> =
        std::collections::BTreeMap::new();
    for s in sessions {
        for o in &s.operations {
            let k: &mut KindSummary = out.entry(o.kind.as_str()).or_default();
            k.count += 1;
            match o.state {
                OpState::Open => k.open += 1,
                OpState::Failed => k.failed += 1,
                OpState::Cancelled => k.cancelled += 1,
                OpState::Complete => {}
            }
            k.requests += o.requests.len() as u64;
            k.notifications += u64::from(o.notifications);
            let t = o.times(&s.requests);
            let v = times.entry(o.kind.as_str()).or_default();
            for (i, x) in [t.total, t.server, t.wait].into_iter().enumerate() {
                v[i].extend(x);
            }
        }
    }
    for (kind, [total, server, wait]) in times {
        if let Some(k) = out.get_mut(kind) {
            k.total_ms = super::latency::quantiles(&total);
            k.server_ms = super::latency::quantiles(&server);
            k.wait_ms = super::latency::quantiles(&wait);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::engine::tests::run;
    use super::*;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;

    fn call(id: u32, tool: &str, more: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}{more},{META}}}}}"#
        )
    }

    fn input_required(id: u32, state: Option<&str>) -> String {
        let state = state
            .map(|s| format!(r#","requestState":"{s}""#))
            .unwrap_or_default();
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","inputRequests":{{"q":{{"method":"elicitation/create","params":{{}}}}}}{state}}}}}"#
        )
    }

    fn done(id: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[]}}}}"#
        )
    }

    const ANSWER: &str = r#","inputResponses":{"q":{"action":"accept","content":{}}}"#;

    /// Three rounds as fastmcp's `book_flight` runs them (the capture in
    /// tests/data/real4/issue12: the first answer issues no state, the
    /// second does, the third round echoes it), with an unrelated call in
    /// between: one operation; server 30 + 20 + 10 ms, the rest (2940 ms)
    /// the person's.
    #[test]
    fn mrtr_rounds_are_one_operation_with_server_time_and_wait() {
        let (f, a) = run(&[
            (0, "c2s", &call(5, "book", "")),
            (30, "s2c", &input_required(5, None)),
            (1_000, "c2s", &call(6, "book", ANSWER)),
            (1_020, "s2c", &input_required(6, Some("S1"))),
            (1_500, "c2s", &call(9, "add", "")),
            (1_505, "s2c", &done(9)),
            (
                2_990,
                "c2s",
                &call(7, "book", &format!(r#"{ANSWER},"requestState":"S1""#)),
            ),
            (3_000, "s2c", &done(7)),
        ]);
        assert_eq!(f, Vec::<(&str, String)>::new());
        let s = &a.sessions[0];
        let keys: Vec<_> = s
            .requests
            .iter()
            .map(|q| q.op.map(|o| s.operations[o as usize].key()))
            .collect();
        let m = Some("mrtr-1".to_string());
        assert_eq!(keys, vec![m.clone(), m.clone(), None, m]);
        assert_eq!(s.operations.len(), 1);
        let o = &s.operations[0];
        assert_eq!(
            (o.state, o.requests.clone(), o.end),
            (OpState::Complete, vec![0, 1, 3], Some(3))
        );
        let t = o.times(&s.requests);
        assert_eq!(
            (t.total, t.server, t.wait),
            (Some(3_000_000), Some(60_000), Some(2_940_000))
        );
    }

    /// A retry that drops, changes or invents the state is
    /// `mrtr_state_changed`; with two operations of one tool awaiting,
    /// which one a retry continues is not certain, and nothing is judged.
    #[test]
    fn changed_request_state_is_judged_only_when_unambiguous() {
        let with = |s: &str| format!(r#"{ANSWER},"requestState":"{s}""#);
        let (f, _) = run(&[
            (0, "c2s", &call(1, "book", "")),
            (10, "s2c", &input_required(1, Some("A"))),
            (20, "c2s", &call(2, "book", &with("B"))),
            (30, "s2c", &input_required(2, Some("C"))),
            (40, "c2s", &call(3, "book", ANSWER)),
            (50, "s2c", &input_required(3, None)),
            (60, "c2s", &call(4, "book", &with("D"))),
            (70, "s2c", &done(4)),
        ]);
        assert_eq!(
            f,
            vec![
                ("mrtr_state_changed", "2".to_string()),
                ("mrtr_state_changed", "3".to_string()),
                ("mrtr_state_changed", "4".to_string()),
            ]
        );
        let (f, a) = run(&[
            (0, "c2s", &call(1, "book", "")),
            (1, "c2s", &call(2, "book", "")),
            (10, "s2c", &input_required(1, Some("A"))),
            (11, "s2c", &input_required(2, Some("B"))),
            (20, "c2s", &call(3, "book", &with("X"))),
            (30, "s2c", &done(3)),
        ]);
        assert_eq!(f, Vec::<(&str, String)>::new());
        // Linked to the latest of the two; the other stays open.
        let states: Vec<_> = a.sessions[0].operations.iter().map(|o| o.state).collect();
        assert_eq!(states, vec![OpState::Open, OpState::Complete]);
    }

    /// A task (2026-07-28 extension shape, as fastmcp-tasks 4.1.4 answers):
    /// the call's handle, two polls, the terminal one ends it.
    #[test]
    fn task_polls_join_the_call_until_terminal() {
        let get = |id: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{"taskId":"T",{META}}}}}"#
            )
        };
        let status = |id: u32, st: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"taskId":"T","status":"{st}","resultType":"complete"}}}}"#
            )
        };
        let (f, a) = run(&[
            (0, "c2s", &call(3, "slow", "")),
            (
                20,
                "s2c",
                r#"{"jsonrpc":"2.0","id":3,"result":{"taskId":"T","status":"working","resultType":"task"}}"#,
            ),
            (200, "c2s", &get(4)),
            (210, "s2c", &status(4, "working")),
            (400, "c2s", &get(5)),
            (415, "s2c", &status(5, "completed")),
            (500, "c2s", &get(6)),
            (505, "s2c", &status(6, "completed")),
        ]);
        assert_eq!(f, Vec::<(&str, String)>::new());
        let s = &a.sessions[0];
        let o = &s.operations[0];
        assert_eq!(
            (o.key(), o.state, o.requests.clone(), o.end),
            (
                "task-1".to_string(),
                OpState::Complete,
                vec![0, 1, 2, 3],
                Some(2)
            )
        );
        assert_eq!(o.times(&s.requests).total, Some(415_000));
    }

    /// A listen's acknowledgement and tagged notifications are counted on
    /// it; one open at the end is `open`, not missing.
    #[test]
    fn listen_counts_its_notifications() {
        let tagged = |m: &str, sub: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"{m}","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":"{sub}"}}}}}}"#
            )
        };
        let (f, a) = run(&[
            (
                0,
                "c2s",
                &format!(
                    r#"{{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{{{META}}}}}"#
                ),
            ),
            (
                5,
                "s2c",
                &tagged("notifications/subscriptions/acknowledged", "listen-1"),
            ),
            (
                900,
                "s2c",
                &tagged("notifications/tools/list_changed", "listen-1"),
            ),
            (
                950,
                "s2c",
                &tagged("notifications/tools/list_changed", "other"),
            ),
        ]);
        assert_eq!(f, Vec::<(&str, String)>::new());
        let o = &a.sessions[0].operations[0];
        assert_eq!(
            (o.key(), o.state, o.notifications, o.acknowledged),
            ("listen-1".to_string(), OpState::Open, 2, true)
        );
    }
    /// A HAR of POSTs to one origin, 100 ms apart, each answered in 20 ms
    /// with `text/event-stream` text `sse` (its events' `data:` lines).
    fn stream_har(posts: &[(&str, &str)]) -> String {
        let list: Vec<String> = posts
            .iter()
            .enumerate()
            .map(|(i, (body, sse))| {
                format!(
                    r#"{{"startedDateTime":"2026-08-01T00:00:0{i}.000Z","time":20,"request":{{"method":"POST","url":"http://127.0.0.1:3000/mcp","headers":[],"postData":{{"mimeType":"application/json","text":{}}}}},"response":{{"status":200,"headers":[{{"name":"Content-Type","value":"text/event-stream"}}],"content":{{"size":1,"mimeType":"text/event-stream","text":{}}}}},"timings":{{"send":0,"wait":5,"receive":15}}}}"#,
                    serde_json::to_string(body).unwrap(),
                    serde_json::to_string(sse).unwrap()
                )
            })
            .collect();
        format!(
            r#"{{"log":{{"version":"1.2","entries":[{}]}}}}"#,
            list.join(",")
        )
    }

    /// 2026-07-28: `tools/call` 2's stream closed after one progress event
    /// (entry 1); the client sent the same call (other progress token in
    /// `_meta`) as id 3, answered. One operation `reissue-1` of both, its
    /// time from the first POST (1 s) to the answer (2.02 s); the lost
    /// attempt is an info `stream_closed_before_response` naming id 3, not
    /// a cancellation or a missing response. A call with other arguments
    /// (id 5 after 4 broke) is no re-issue: 4 stays a cancellation.
    #[test]
    fn a_request_sent_again_after_its_stream_broke_is_one_call() {
        let call = |id: u32, arg: u32, tok: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"n":{arg}}},"_meta":{{"progressToken":"{tok}","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
            )
        };
        let list =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
        let ok = |id: u32| {
            format!("data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[]}}}}\n\n")
        };
        let progress = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"a\",\"progress\":1}}\n\n";
        let t = stream_har(&[
            (&list, &ok(1)),
            (&call(2, 7, "a"), progress),
            (&call(3, 7, "b"), &ok(3)),
            (&call(4, 8, "c"), ""),
            (&call(5, 9, "d"), &ok(5)),
        ]);
        let (f, a) = super::super::engine::tests::run_text("t.har", &t);
        assert_eq!(
            f,
            vec![
                ("stream_closed_before_response", "2".to_string()),
                ("cancelled_request", "4".to_string()),
            ]
        );
        let closed = &a.findings[0];
        assert_eq!(closed.severity(), crate::analyze::Severity::Info);
        assert_eq!(
            closed.detail,
            "tools/call 2: its response stream closed without the response, and the client sent it again as 3 at entry 2: under 2026-07-28 a broken stream loses the request and the client re-issues it under a new id, so the two are one call (operation reissue-1)"
        );
        let s = &a.sessions[0];
        assert_eq!(s.operations.len(), 1);
        let o = &s.operations[0];
        assert_eq!(
            (o.key(), o.state, o.requests.clone(), o.end),
            (
                "reissue-1".to_string(),
                OpState::Complete,
                vec![1, 2],
                Some(2)
            )
        );
        assert_eq!(o.times(&s.requests).total, Some(1_020_000));
        assert!(
            a.findings
                .iter()
                .all(|f| f.kind.name() != "missing_response")
        );
    }

    /// One session that mixes eras: a 2026-07-28 client's `server/discover`
    /// whose stream closed unanswered, then `initialize` 2025-06-18 and a
    /// call whose stream closed too. The first is judged by the revision
    /// it states (a cancellation, info); the call, which states none, by
    /// the session's negotiated 2025-06-18 (a fault: `missing_response`
    /// and `stream_closed_before_response`).
    #[test]
    fn each_request_is_judged_by_the_revision_it_states() {
        let discover =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#);
        let init = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let init_ok = "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\n";
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
        let t = stream_har(&[(&discover, ""), (init, init_ok), (call, "")]);
        let (f, _) = super::super::engine::tests::run_text("t.har", &t);
        assert_eq!(
            f,
            vec![
                ("cancelled_request", "1".to_string()),
                ("missing_response", "3".to_string()),
                ("stream_closed_before_response", "3".to_string()),
            ]
        );
    }
}

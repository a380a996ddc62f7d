//! Deterministic synthetic MCP (JSON-RPC 2.0) traffic with injected faults,
//! and a manifest of exactly what a correct analyzer must report.
//!
//! The Rust twin of `tools/gen_traffic.py` for the property tests, the
//! benches and `scripts/bench.py`: it streams hundreds of MB to disk in
//! seconds and needs no Python. The manifest is computed from the plan of
//! what was written (every message, pair, latency and injected fault is
//! counted as it is emitted; `slow_tail` and the latency quantiles are
//! computed at the end from the recorded latencies), not by parsing the
//! text again. `tools/mcp_reference.py` reading the same text must agree
//! with it (the cross-check test in `tests/suite/rust_gen.rs`).
//!
//! Formats: `envelope` (NDJSON `{ts,dir,session,msg}`), `claude` (Claude
//! Desktop host log, one server name per session), `har` (HAR 1.2,
//! Streamable HTTP POSTs with JSON or 202 responses, a listen's event
//! stream) and `logger` (tagged stdio proxy log
//! `[STDIN]`/`[STDOUT]`/`[STDERR]`). Sessions are written one after
//! another, each chronological, so the line order is the processing order
//! of DESIGN.md's rules and HAR times give the same order. Sessions
//! negotiate 2025-03-26 (batches) or 2025-06-18, or run on 2026-07-28
//! ([`Options::modern_sessions`]: no initialize, MRTR rounds, tasks and
//! listens, counted in [`Manifest::operations`]).
//!
//! Every fault is a self-contained step whose findings do not depend on
//! what surrounds it (see [`Fault`]; the line-log reply shapes of rule 13
//! are drawn only where no request frame is left hanging); natural
//! latencies stay at or under 300 ms, so `slow_tail` and `late_response`
//! come only from the `slow_tail` and `late_response` faults.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Version string written into the manifest.
pub const VERSION: &str = "mcp-audit-gen 0.1";

/// The revision without initialize or sessions (FORMATS.md §2.6).
const MODERN: &str = "2026-07-28";

/// The `_meta` member by which a 2026-07-28 request states its revision.
const META_PV: &str = "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"";

/// The `_meta` member tying a notification to its listen.
const META_SUB: &str = "io.modelcontextprotocol/subscriptionId";

/// 2025-05-14T09:00:00Z in ms since the epoch: the first session's start.
const BASE_MS: u64 = 1_747_213_200_000;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NDJSON envelopes `{"ts","dir","session","msg"}`.
    Envelope,
    /// Claude Desktop `mcp-server-*.log` lines.
    Claude,
    /// HAR 1.2 of Streamable HTTP POSTs.
    Har,
    /// Tagged stdio proxy log `TS [STDIN]|[STDOUT]|[STDERR] ...`, sessions
    /// one after another (each starts at its initialize request).
    Logger,
}

impl Format {
    /// Every format, in the order of the command line's help.
    pub const ALL: [Format; 4] = [
        Format::Envelope,
        Format::Claude,
        Format::Har,
        Format::Logger,
    ];

    /// The name on the command line and in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Format::Envelope => "envelope",
            Format::Claude => "claude",
            Format::Har => "har",
            Format::Logger => "logger",
        }
    }

    /// The format named `s`, if any.
    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The usual file extension (`ndjson`, `log`, `har`).
    pub fn ext(self) -> &'static str {
        match self {
            Format::Envelope => "ndjson",
            Format::Claude | Format::Logger => "log",
            Format::Har => "har",
        }
    }

    fn lines(self) -> bool {
        self != Format::Har
    }

    /// Whether it can hold a 2026-07-28 session (no initialize): not
    /// `logger`, whose sessions start at initialize.
    pub fn modern(self) -> bool {
        self != Format::Logger
    }
}

/// An injectable fault, named as the finding kind it causes (DESIGN.md's
/// catalogue). Each is one step of a session; the findings it adds are
/// listed per variant (besides the step's own counts in the totals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A request, then the same id again before the first is answered;
    /// both answered in order: `duplicate_id`, two pairs.
    DuplicateId,
    /// A request reusing the id of an answered request: `id_reused`.
    IdReused,
    /// (line formats) A server result whose id was never requested.
    UnknownIdResponse,
    /// (line formats) A second copy of a response already paired.
    DuplicateResponse,
    /// (line formats) A request never answered.
    MissingResponse,
    /// A response after 61 to 90 s: `late_response` (and `slow_tail`).
    LateResponse,
    /// (line formats) A request the client cancels with
    /// `notifications/cancelled`; never answered.
    CancelledRequest,
    /// (line formats) A server error with id null, right after one of its
    /// responses (so it answers nothing): `null_id_error`.
    NullIdError,
    /// A request whose params is a string, answered by an error:
    /// `invalid_request`, one pair.
    InvalidRequest,
    /// A request with `"jsonrpc":"1.0"`, answered: one pair.
    BadJsonrpcVersion,
    /// A response with both result and error: one pair.
    ResultAndError,
    /// A response with neither result nor error: one pair.
    NeitherResultNorError,
    /// (line formats) A truncated traffic line after a server response.
    NonJsonLine,
    /// A response after 4 to 9 s (natural ones take at most 300 ms).
    SlowTail,
    /// (line formats) A request with id `N.5`, never answered.
    FractionalId,
    /// (line formats) A request with id null, never answered.
    NullRequestId,
    /// A request id above 2^53, answered with the same id: one pair.
    IdPrecisionRisk,
    /// A request with integer id N answered with the string "N": one pair.
    IdTypeChanged,
    /// A client notification answered by a result with id null, while no
    /// client request is unanswered: `notification_replied` (not
    /// `unknown_id_response`); in HAR also `notification_batch_awaited`
    /// (that POST's answer is no empty 202). Without such a moment, an
    /// ordinary pair.
    NotificationReplied,
    /// (batch sessions) `[]` answered by one error -32600 with id null:
    /// `empty_batch` and `null_id_error`.
    EmptyBatch,
    /// (batch sessions) A batch answered by one array in reverse order.
    OutOfOrderBatch,
    /// (batch sessions) A batch whose reply array leaves one request out:
    /// `response_count_mismatch` and that request's `missing_response`.
    ResponseCountMismatch,
    /// (HAR, batch sessions) A one-request batch answered by a bare
    /// object in the JSON body: one pair.
    BatchReplyNotArray,
    /// (batch sessions) A batch of 2 to 4 requests answered by one error
    /// -32600 with id null (or no id): `batch_rejected_whole` (not
    /// `null_id_error`), `response_count_mismatch` and each request's
    /// `missing_response`.
    BatchRejectedWhole,
    /// (batch sessions) `[]` answered by an error -32602 with id null
    /// (`empty_batch`, `null_id_error` too) or, in HAR, half the time by
    /// an empty 202 (`empty_batch` too).
    EmptyBatchNotRejected,
    /// (batch sessions) A request sent alone answered by a one-element
    /// array: one pair.
    SingleRequestAnsweredWithBatch,
    /// A tools/call answered by an error whose id is `"server-error"`
    /// (the Python SDK 1.x transport's placeholder): `placeholder_id_error`
    /// (not `unknown_id_response`) and the call's `missing_response`.
    PlaceholderIdError,
    /// (line formats) A tools/call asking for progress, 1 to 3 progress
    /// notifications before its result and one after: one pair.
    ProgressAfterResponse,
    /// (line formats) A normal pair, then a progress notification whose
    /// token no request named.
    UnknownProgressToken,
    /// (HAR, not 2026-07-28) A normal pair whose POST's
    /// `MCP-Protocol-Version` header names the other 2025 revision.
    ProtocolVersionMismatch,
    /// (HAR) A normal pair whose POST has a foreign `Origin`, answered 200.
    OriginNotRejected,
    /// (HAR, 2026-07-28) A tools/call whose `Mcp-Name` header names
    /// another tool than its body: one pair.
    HeaderMismatch,
    /// (2026-07-28) A resources/read answered -32002, a tools/call
    /// answered -32042 or (HAR) a prompts/get answered -32601 with status
    /// 200: one pair.
    RetiredErrorCode,
    /// (2026-07-28) A tools/call the client cancels while it runs, then
    /// answered: `cancelled_request` too; one pair, no latency.
    AnsweredAfterCancel,
    /// (2026-07-28) An MRTR operation of 1 to 3 input rounds whose one
    /// retry sends another `requestState` or none: one operation.
    MrtrStateChanged,
    /// (batch sessions) 2 or 3 notifications in one array answered by
    /// `[]` (not `empty_batch`); in HAR also `notification_batch_awaited`.
    NotificationBatchReplied,
    /// (HAR, batch sessions) 2 or 3 notifications in one array, answered
    /// by an empty 202 only after 1.2 to 4 s (past `--slow`).
    NotificationBatchAwaited,
    /// (2025-06-18 sessions) A batch of 2 to 4 requests answered in order
    /// by one array: two findings, the batch and its reply.
    BatchAfterVersionRemoved,
}

impl Fault {
    /// Every fault, most common in real traffic first.
    pub const ALL: [Fault; 38] = [
        Fault::MissingResponse,
        Fault::DuplicateId,
        Fault::SlowTail,
        Fault::LateResponse,
        Fault::CancelledRequest,
        Fault::UnknownIdResponse,
        Fault::DuplicateResponse,
        Fault::NullIdError,
        Fault::NonJsonLine,
        Fault::IdReused,
        Fault::InvalidRequest,
        Fault::BadJsonrpcVersion,
        Fault::ResultAndError,
        Fault::NeitherResultNorError,
        Fault::FractionalId,
        Fault::NullRequestId,
        Fault::IdPrecisionRisk,
        Fault::IdTypeChanged,
        Fault::NotificationReplied,
        Fault::EmptyBatch,
        Fault::OutOfOrderBatch,
        Fault::ResponseCountMismatch,
        Fault::BatchReplyNotArray,
        Fault::BatchRejectedWhole,
        Fault::EmptyBatchNotRejected,
        Fault::SingleRequestAnsweredWithBatch,
        Fault::PlaceholderIdError,
        Fault::ProgressAfterResponse,
        Fault::UnknownProgressToken,
        Fault::ProtocolVersionMismatch,
        Fault::OriginNotRejected,
        Fault::HeaderMismatch,
        Fault::RetiredErrorCode,
        Fault::AnsweredAfterCancel,
        Fault::MrtrStateChanged,
        Fault::NotificationBatchReplied,
        Fault::NotificationBatchAwaited,
        Fault::BatchAfterVersionRemoved,
    ];

    /// The finding kind's name.
    pub fn name(self) -> &'static str {
        match self {
            Fault::DuplicateId => "duplicate_id",
            Fault::IdReused => "id_reused",
            Fault::UnknownIdResponse => "unknown_id_response",
            Fault::DuplicateResponse => "duplicate_response",
            Fault::MissingResponse => "missing_response",
            Fault::LateResponse => "late_response",
            Fault::CancelledRequest => "cancelled_request",
            Fault::NullIdError => "null_id_error",
            Fault::InvalidRequest => "invalid_request",
            Fault::BadJsonrpcVersion => "bad_jsonrpc_version",
            Fault::ResultAndError => "result_and_error",
            Fault::NeitherResultNorError => "neither_result_nor_error",
            Fault::NonJsonLine => "non_json_line",
            Fault::SlowTail => "slow_tail",
            Fault::FractionalId => "fractional_id",
            Fault::NullRequestId => "null_request_id",
            Fault::IdPrecisionRisk => "id_precision_risk",
            Fault::IdTypeChanged => "id_type_changed",
            Fault::NotificationReplied => "notification_replied",
            Fault::EmptyBatch => "empty_batch",
            Fault::OutOfOrderBatch => "out_of_order_batch",
            Fault::ResponseCountMismatch => "response_count_mismatch",
            Fault::BatchReplyNotArray => "batch_reply_not_array",
            Fault::BatchRejectedWhole => "batch_rejected_whole",
            Fault::EmptyBatchNotRejected => "empty_batch_not_rejected",
            Fault::SingleRequestAnsweredWithBatch => "single_request_answered_with_batch",
            Fault::PlaceholderIdError => "placeholder_id_error",
            Fault::ProgressAfterResponse => "progress_after_response",
            Fault::UnknownProgressToken => "unknown_progress_token",
            Fault::ProtocolVersionMismatch => "protocol_version_mismatch",
            Fault::OriginNotRejected => "origin_not_rejected",
            Fault::HeaderMismatch => "header_mismatch",
            Fault::RetiredErrorCode => "retired_error_code",
            Fault::AnsweredAfterCancel => "answered_after_cancel",
            Fault::MrtrStateChanged => "mrtr_state_changed",
            Fault::NotificationBatchReplied => "notification_batch_replied",
            Fault::NotificationBatchAwaited => "notification_batch_awaited",
            Fault::BatchAfterVersionRemoved => "batch_after_version_removed",
        }
    }

    /// The fault named `s`, if any.
    pub fn parse(s: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Whether the fault can be written in `format` (the 2026-07-28 ones
    /// not in `logger`, which holds no 2026-07-28 session).
    pub fn fits(self, format: Format) -> bool {
        let line_only = matches!(
            self,
            Fault::UnknownIdResponse
                | Fault::DuplicateResponse
                | Fault::MissingResponse
                | Fault::CancelledRequest
                | Fault::NullIdError
                | Fault::NonJsonLine
                | Fault::FractionalId
                | Fault::NullRequestId
                | Fault::ProgressAfterResponse
                | Fault::UnknownProgressToken
        );
        let har_only = matches!(
            self,
            Fault::BatchReplyNotArray
                | Fault::NotificationBatchAwaited
                | Fault::ProtocolVersionMismatch
                | Fault::OriginNotRejected
                | Fault::HeaderMismatch
        );
        if format.lines() {
            !har_only && (!self.needs_modern() || format.modern())
        } else {
            !line_only
        }
    }

    /// Only in sessions on 2025-03-26, the one revision with batches.
    pub fn needs_batch(self) -> bool {
        matches!(
            self,
            Fault::EmptyBatch
                | Fault::OutOfOrderBatch
                | Fault::ResponseCountMismatch
                | Fault::BatchReplyNotArray
                | Fault::BatchRejectedWhole
                | Fault::EmptyBatchNotRejected
                | Fault::SingleRequestAnsweredWithBatch
                | Fault::NotificationBatchReplied
                | Fault::NotificationBatchAwaited
        )
    }

    /// Only in sessions on 2026-07-28 (its rules or its shapes).
    pub fn needs_modern(self) -> bool {
        matches!(
            self,
            Fault::HeaderMismatch
                | Fault::RetiredErrorCode
                | Fault::AnsweredAfterCancel
                | Fault::MrtrStateChanged
        )
    }

    /// Whether the fault may be injected in a 2026-07-28 session: its own
    /// faults and those whose shape that revision keeps (no initialize,
    /// batches or id reuse; no notification replies while a listen is
    /// open).
    pub fn in_modern(self) -> bool {
        self.needs_modern()
            || matches!(
                self,
                Fault::UnknownIdResponse
                    | Fault::DuplicateResponse
                    | Fault::LateResponse
                    | Fault::SlowTail
                    | Fault::ResultAndError
                    | Fault::NeitherResultNorError
                    | Fault::PlaceholderIdError
                    | Fault::ProgressAfterResponse
                    | Fault::UnknownProgressToken
                    | Fault::OriginNotRejected
            )
    }
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Options {
    /// Output format.
    pub format: Format,
    /// Seed: the same options give byte-identical output and manifest.
    pub seed: u64,
    /// Sessions to write (ignored when `size_bytes` is set).
    pub sessions: u32,
    /// About this many JSON-RPC messages per session, the initialize
    /// exchange included: steps are added while the session has fewer.
    pub messages: u32,
    /// Chance that a step is a fault.
    pub faults: f64,
    /// Share of steps that are batches, in sessions on 2025-03-26.
    pub batch_rate: f64,
    /// Share of sessions that negotiate 2025-03-26 and may batch (the
    /// others negotiate 2025-06-18, which has no batches).
    pub batch_sessions: f64,
    /// Share of sessions on 2026-07-28 (no initialize, `_meta` revision
    /// on every request, MRTR rounds, tasks, listens; not in `logger`).
    /// Drawn only when above 0, so 0 keeps the older streams.
    pub modern_sessions: f64,
    /// Keep adding sessions until the output has at least this many bytes.
    pub size_bytes: Option<u64>,
    /// Inject only these faults (default: every one the format can hold).
    pub fault_kinds: Option<Vec<Fault>>,
}

impl Options {
    /// The faults to inject: `fault_kinds` (default every one) that fit
    /// the format.
    fn kinds(&self) -> Vec<Fault> {
        self.fault_kinds
            .clone()
            .unwrap_or_else(|| Fault::ALL.to_vec())
            .into_iter()
            .filter(|f| f.fits(self.format))
            .collect()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: Format::Envelope,
            seed: 1,
            sessions: 10,
            messages: 200,
            faults: 0.02,
            batch_rate: 0.15,
            batch_sessions: 0.5,
            modern_sessions: 0.0,
            size_bytes: None,
            fault_kinds: None,
        }
    }
}

/// The `--slow` floor (ms) and `--slow-factor` of `slow_tail`, and the
/// `--timeout` (ms) of `late_response`: mcp-audit's defaults.
pub const SLOW_MS: f64 = 1000.0;
/// See [`SLOW_MS`].
pub const SLOW_FACTOR: f64 = 10.0;
/// See [`SLOW_MS`].
pub const TIMEOUT_MS: u64 = 60_000;

/// Counts in the shape of mcp-audit's `summary.json` `totals`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// JSON objects in frames and batches.
    pub messages: u64,
    /// Objects with method and an id member.
    pub requests: u64,
    /// Objects with method and no id.
    pub notifications: u64,
    /// Every other object.
    pub responses: u64,
    /// JSON arrays, either direction.
    pub batches: u64,
    /// Sessions.
    pub sessions: u64,
    /// Paired requests.
    pub pairs: u64,
    /// `non_json_line` findings.
    pub non_json_lines: u64,
}

/// The exact ground truth of one generated file.
#[derive(Clone, Debug, Default)]
pub struct Manifest {
    /// Totals as summary.json has them.
    pub totals: Totals,
    /// Findings per kind; every kind the generator can cause is present.
    pub findings_by_kind: BTreeMap<&'static str, u64>,
    /// Faults injected per kind (the plan).
    pub injected_by_kind: BTreeMap<&'static str, u64>,
    /// Latency of every pair whose request was not cancelled, in ms, in
    /// pairing order.
    pub latencies_ms: Vec<u64>,
    /// Operations (DESIGN rule 14) per kind (`mrtr`, `task`, `listen`),
    /// as summary.json `operations` counts them.
    pub operations: BTreeMap<&'static str, OpCounts>,
    /// Bytes written.
    pub bytes: u64,
}

/// One kind's operations, in the fields of summary.json `operations`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Operations.
    pub count: u64,
    /// Still open at the end.
    pub open: u64,
    /// Ended by an error or a task `failed`.
    pub failed: u64,
    /// Tasks `cancelled`.
    pub cancelled: u64,
    /// Requests linked into them.
    pub requests: u64,
    /// Notifications linked to them (listens).
    pub notifications: u64,
}

impl Manifest {
    /// Nearest-rank quantile `q` (0 < q <= 1) of the latencies, ms.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let mut v = self.latencies_ms.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        Some(v[rank - 1])
    }

    /// The manifest as JSON, in the shape `tools/check_manifest.py` reads.
    pub fn to_json(&self, opts: &Options) -> String {
        let t = &self.totals;
        let mut s = String::new();
        let _ = write!(
            s,
            "{{\n \"generator\": \"{VERSION}\",\n \"seed\": {},\n \"format\": \"{}\",\n",
            opts.seed,
            opts.format.name()
        );
        let _ = writeln!(
            s,
            " \"args\": {{\"sessions\": {}, \"messages\": {}, \"faults\": {}, \"batch_rate\": {}, \"batch_sessions\": {}, \"modern_sessions\": {}, \"size_bytes\": {}, \"fault_kinds\": {}, \"timeout_ms\": {TIMEOUT_MS}, \"slow_ms\": {SLOW_MS}, \"slow_factor\": {SLOW_FACTOR}}},",
            opts.sessions,
            opts.messages,
            opts.faults,
            opts.batch_rate,
            opts.batch_sessions,
            opts.modern_sessions,
            opts.size_bytes
                .map_or("null".to_string(), |b| b.to_string()),
            opts.fault_kinds.as_ref().map_or("null".to_string(), |k| {
                let names: Vec<String> = k.iter().map(|f| format!("\"{}\"", f.name())).collect();
                format!("[{}]", names.join(", "))
            })
        );
        let _ = writeln!(
            s,
            " \"totals\": {{\"messages\": {}, \"requests\": {}, \"notifications\": {}, \"responses\": {}, \"batches\": {}, \"sessions\": {}, \"pairs\": {}, \"non_json_lines\": {}, \"bytes\": {}}},",
            t.messages,
            t.requests,
            t.notifications,
            t.responses,
            t.batches,
            t.sessions,
            t.pairs,
            t.non_json_lines,
            self.bytes
        );
        let map = |m: &BTreeMap<&str, u64>| {
            let v: Vec<String> = m.iter().map(|(k, n)| format!("\"{k}\": {n}")).collect();
            format!("{{{}}}", v.join(", "))
        };
        let _ = writeln!(s, " \"findings_by_kind\": {},", map(&self.findings_by_kind));
        let _ = writeln!(s, " \"injected_by_kind\": {},", map(&self.injected_by_kind));
        let ops: Vec<String> = self
            .operations
            .iter()
            .map(|(k, o)| {
                format!(
                    "\"{k}\": {{\"count\": {}, \"open\": {}, \"failed\": {}, \"cancelled\": {}, \"requests\": {}, \"notifications\": {}}}",
                    o.count, o.open, o.failed, o.cancelled, o.requests, o.notifications
                )
            })
            .collect();
        let _ = writeln!(s, " \"operations\": {{{}}},", ops.join(", "));
        match self.quantile(1.0) {
            None => s.push_str(" \"latency_ms\": {\"count\": 0}\n"),
            Some(max) => {
                let _ = writeln!(
                    s,
                    " \"latency_ms\": {{\"p50\": {}.0, \"p90\": {}.0, \"p99\": {}.0, \"max\": {max}.0, \"count\": {}}}",
                    self.quantile(0.5).unwrap_or(0),
                    self.quantile(0.9).unwrap_or(0),
                    self.quantile(0.99).unwrap_or(0),
                    self.latencies_ms.len()
                );
            }
        }
        s.push_str("}\n");
        s
    }
}

/// xoshiro256** seeded by SplitMix64: small, fast and the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng([u64; 4]);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut s = [0u64; 4];
        for v in &mut s {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            *v = z ^ (z >> 31);
        }
        Rng(s)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let r = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of `v`.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn fmt_ts(ms: u64, out: &mut String) {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let sod = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        ms % 1000
    );
}

/// Appends `s` as the inside of a JSON string (runs without a byte to
/// escape are copied at once).
fn json_escape(s: &str, out: &mut String) {
    let b = s.as_bytes();
    let mut from = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            c if c < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{c:04x}");
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
}

/// Words of the generated texts, already escaped for a JSON string.
const WORDS: [&str; 48] = [
    "the",
    "server",
    "client",
    "request",
    "response",
    "tool",
    "resource",
    "prompt",
    "session",
    "batch",
    "token",
    "latency",
    "cache",
    "index",
    "file",
    "query",
    "result",
    "error",
    "stream",
    "config",
    "build",
    "deploy",
    "commit",
    "branch",
    "review",
    "table",
    "column",
    "row",
    "schema",
    "naïve",
    "café",
    "Zürich",
    "東京",
    "résumé",
    "—",
    "✓",
    "→",
    "日本語",
    "😀",
    "and",
    "of",
    "to",
    "in",
    "with",
    "\\\"quoted\\\"",
    "back\\\\slash",
    "tab\\there",
    "line\\nbreak",
];

const METHODS: [(&str, u64); 6] = [
    ("tools/call", 120),
    ("tools/call", 200),
    ("resources/read", 25),
    ("prompts/get", 12),
    ("tools/list", 8),
    ("ping", 2),
];

const SERVERS: [&str; 6] = [
    "github",
    "filesystem",
    "slack",
    "postgres",
    "memory",
    "fetch",
];

/// Appends a JSON string of about `n` chars of words.
fn text_value(rng: &mut Rng, n: usize, out: &mut String) {
    out.push('"');
    let start = out.len();
    while out.len() - start < n {
        let w = *rng.pick(&WORDS);
        out.push_str(w);
        out.push(' ');
    }
    out.push('"');
}

/// `Mcp-Method` (and for tools/call, whose tool is always `search`,
/// `Mcp-Name`) request headers mirroring the body `q` of a 2026-07-28 POST
/// (streamable-http Standard Headers).
fn mirror_headers(q: &str) -> String {
    let Some(i) = q.find("\"method\":\"") else {
        return String::new();
    };
    let rest = &q[i + 10..];
    let method = &rest[..rest.find('"').unwrap_or(0)];
    let mut h = format!(",{{\"name\":\"Mcp-Method\",\"value\":\"{method}\"}}");
    if method == "tools/call" {
        h.push_str(",{\"name\":\"Mcp-Name\",\"value\":\"search\"}");
    }
    h
}

/// One HAR entry / pair of lines: a client frame at `start` and, when
/// `resp` is set, a server frame at `start + dur`.
#[derive(Debug)]
struct Entry {
    start: u64,
    dur: u64,
    req: Option<String>,
    resp: Option<String>,
    /// A line that is not JSON (line formats; `req` side is c2s).
    broken: bool,
    /// HAR: more request headers, each `,{"name":…,"value":…}`.
    hdr: String,
    /// HAR: the `MCP-Protocol-Version` header, when not the session's.
    pv: Option<&'static str>,
    /// HAR: `resp` is an event stream, one message a line.
    stream: bool,
}

/// Builds the plan of one session.
struct Session<'a> {
    rng: &'a mut Rng,
    m: &'a mut Manifest,
    faults: f64,
    batch_rate: f64,
    kinds: &'a [Fault],
    batching: bool,
    string_ids: bool,
    next_id: u64,
    answered: Vec<u64>,
    /// Client requests never answered so far (any id).
    unanswered: u64,
    /// Writing HAR (a POST body answered by more than a 202 differs).
    har: bool,
    t: u64,
    entries: Vec<Entry>,
    /// (latency, is a lone request) of the session's pairs.
    lat: &'a mut Vec<(u64, bool)>,
    /// On 2026-07-28: no initialize, every request states the revision.
    modern: bool,
    /// The open `subscriptions/listen`: its entry and id.
    listen: Option<(usize, String)>,
    /// Time of the last client frame that asks for a reply (not a
    /// notification), and of the last server frame.
    asked: u64,
    replied: u64,
    /// The query (JSON string) an MRTR retry repeats.
    retry_query: Option<String>,
}

impl Session<'_> {
    fn id(&self, n: u64) -> String {
        if self.string_ids {
            format!("\"c-{n}\"")
        } else {
            n.to_string()
        }
    }

    fn fresh(&mut self) -> u64 {
        let n = self.next_id;
        self.next_id += 1;
        n
    }

    fn find(&mut self, kind: &'static str) {
        *self.m.findings_by_kind.entry(kind).or_insert(0) += 1;
    }

    fn latency(&mut self) -> u64 {
        let (_, median) = *self.rng.pick(&METHODS);
        // A skewed latency around the median, at most 300 ms.
        let x = self.rng.unit();
        (1 + (median as f64 * (0.3 + 2.5 * x * x * x)) as u64).min(300)
    }

    fn request(&mut self, id: &str, method: &str, version: &str) -> String {
        self.request_with(id, method, version, "", "")
    }

    /// A request of `method`; `extra` adds params members (`"a":1`),
    /// `meta` members of params `_meta`, where 2026-07-28 requests also
    /// state their revision.
    fn request_with(
        &mut self,
        id: &str,
        method: &str,
        version: &str,
        extra: &str,
        meta: &str,
    ) -> String {
        let mut p = String::new();
        match method {
            "tools/call" => {
                p.push_str("\"name\":\"search\",\"arguments\":{\"query\":");
                if let Some(q) = &self.retry_query {
                    p.push_str(q);
                } else {
                    let n = self.rng.range(5, 60) as usize;
                    text_value(self.rng, n, &mut p);
                }
                p.push('}');
            }
            "resources/read" => {
                let _ = write!(
                    p,
                    "\"uri\":\"file:///srv/app/src/f{}.rs\"",
                    self.rng.below(100)
                );
            }
            "prompts/get" => p.push_str("\"name\":\"review\",\"arguments\":{}"),
            _ => {}
        }
        let meta = match (self.modern, meta.is_empty()) {
            (false, true) => String::new(),
            (false, false) => format!("\"_meta\":{{{meta}}}"),
            (true, true) => format!("\"_meta\":{{{META_PV}}}"),
            (true, false) => format!("\"_meta\":{{{meta},{META_PV}}}"),
        };
        for member in [extra, &meta] {
            if !member.is_empty() {
                if !p.is_empty() {
                    p.push(',');
                }
                p.push_str(member);
            }
        }
        let mut s = format!("{{\"jsonrpc\":\"{version}\",\"id\":{id},\"method\":\"{method}\"");
        if !p.is_empty() {
            let _ = write!(s, ",\"params\":{{{p}}}");
        }
        s.push('}');
        self.m.totals.messages += 1;
        self.m.totals.requests += 1;
        s
    }

    fn result(&mut self, id: &str, method: &str) -> String {
        let mut s = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":");
        match method {
            "tools/call" | "resources/read" | "prompts/get" => {
                // Mostly short, sometimes a few kB (file contents, search hits).
                let n = if self.rng.chance(0.15) {
                    self.rng.range(1000, 6000)
                } else {
                    self.rng.range(20, 600)
                } as usize;
                s.push_str("{\"content\":[{\"type\":\"text\",\"text\":");
                text_value(self.rng, n, &mut s);
                s.push_str("}],\"isError\":false}}");
            }
            "tools/list" => s.push_str(
                "{\"tools\":[{\"name\":\"search\",\"description\":\"Search the index\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}}}}]}}",
            ),
            _ => s.push_str("{}}"),
        }
        self.m.totals.messages += 1;
        self.m.totals.responses += 1;
        s
    }

    fn notification(&mut self, method: &str, params: &str) -> String {
        self.m.totals.messages += 1;
        self.m.totals.notifications += 1;
        if params.is_empty() {
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\"}}")
        } else {
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\",\"params\":{params}}}")
        }
    }

    fn push(&mut self, start: u64, dur: u64, req: Option<String>, resp: Option<String>) {
        let hdr = match &req {
            Some(q) if self.modern && self.har => mirror_headers(q),
            _ => String::new(),
        };
        if req
            .as_ref()
            .is_some_and(|q| !q.starts_with("{\"jsonrpc\":\"2.0\",\"method\""))
        {
            self.asked = self.asked.max(start);
        }
        if resp.is_some() {
            self.replied = self.replied.max(start + dur);
        }
        self.entries.push(Entry {
            start,
            dur,
            req,
            resp,
            broken: false,
            hdr,
            pv: None,
            stream: false,
        });
    }

    /// The last entry pushed.
    fn last(&mut self) -> &mut Entry {
        self.entries.last_mut().expect("an entry")
    }

    /// Counts one more operation of `kind` with `requests` requests.
    fn op(&mut self, kind: &'static str, requests: u64) -> &mut OpCounts {
        let o = self.m.operations.entry(kind).or_default();
        o.count += 1;
        o.requests += requests;
        o
    }

    /// A pair of `lat` ms: counted and its latency recorded.
    fn pair(&mut self, lat: u64, lone: bool) {
        self.m.totals.pairs += 1;
        self.lat.push((lat, lone));
    }

    /// An ordinary request and its result, `lat` ms later; returns the id.
    fn normal(&mut self, lat: u64) -> u64 {
        let n = self.fresh();
        let id = self.id(n);
        let (method, _) = *self.rng.pick(&METHODS);
        let q = self.request(&id, method, "2.0");
        let r = self.result(&id, method);
        self.push(self.t, lat, Some(q), Some(r));
        self.pair(lat, true);
        self.answered.push(n);
        self.t += lat;
        n
    }

    fn initialize(&mut self, version: &str) {
        let q = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{version}\",\"capabilities\":{{\"roots\":{{\"listChanged\":true}}}},\"clientInfo\":{{\"name\":\"claude-ai\",\"version\":\"0.1.0\"}}}}}}",
            self.id(self.next_id)
        );
        let r = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"protocolVersion\":\"{version}\",\"capabilities\":{{\"tools\":{{\"listChanged\":true}}}},\"serverInfo\":{{\"name\":\"demo\",\"version\":\"1.0.0\"}}}}}}",
            self.id(self.next_id)
        );
        self.m.totals.messages += 2;
        self.m.totals.requests += 1;
        self.m.totals.responses += 1;
        let n = self.fresh();
        let lat = self.rng.range(20, 200);
        self.push(self.t, lat, Some(q), Some(r));
        self.pair(lat, true);
        self.answered.push(n);
        self.t += lat + self.rng.range(1, 5);
        let note = self.notification("notifications/initialized", "");
        let dur = self.rng.range(1, 3);
        self.push(self.t, dur, Some(note), None);
    }

    /// A batch of 2 to 4 requests answered by one array; `order` maps
    /// reply positions to request positions (None: in order).
    fn batch(&mut self, fault: Option<Fault>) {
        let k = self.rng.range(2, 4) as usize;
        let lat = self.latency();
        let mut ids = Vec::new();
        let mut q = String::from("[");
        let mut methods = Vec::new();
        for i in 0..k {
            let n = self.fresh();
            let id = self.id(n);
            let (method, _) = *self.rng.pick(&METHODS);
            if i > 0 {
                q.push(',');
            }
            q.push_str(&self.request(&id, method, "2.0"));
            ids.push(n);
            methods.push(method);
        }
        q.push(']');
        let mut order: Vec<usize> = (0..k).collect();
        match fault {
            Some(Fault::OutOfOrderBatch) => order.reverse(),
            Some(Fault::ResponseCountMismatch) => {
                let drop = self.rng.below(k as u64) as usize;
                order.remove(drop);
                self.unanswered += 1;
                self.find("missing_response");
                self.find("response_count_mismatch");
            }
            _ => {}
        }
        if fault == Some(Fault::OutOfOrderBatch) {
            self.find("out_of_order_batch");
        }
        let mut r = String::from("[");
        for (j, &i) in order.iter().enumerate() {
            if j > 0 {
                r.push(',');
            }
            let id = self.id(ids[i]);
            r.push_str(&self.result(&id, methods[i]));
            self.pair(lat, false);
            self.answered.push(ids[i]);
        }
        r.push(']');
        self.m.totals.batches += 2;
        self.push(self.t, lat, Some(q), Some(r));
        self.t += lat;
    }

    /// A line written by the server right after its last response.
    fn server_line(&mut self, text: String) {
        let at = self.t + 1;
        self.push(at, 0, None, Some(text));
        self.t = at;
    }

    /// Injects fault `f` as the session's next step.
    fn fault(&mut self, f: Fault) {
        *self.m.injected_by_kind.entry(f.name()).or_insert(0) += 1;
        match f {
            Fault::DuplicateId | Fault::IdReused => self.id_fault(f),
            Fault::FractionalId | Fault::NullRequestId => self.invalid_id_fault(f),
            Fault::UnknownIdResponse
            | Fault::DuplicateResponse
            | Fault::NullIdError
            | Fault::NonJsonLine => self.extra_line_fault(f),
            Fault::MissingResponse | Fault::CancelledRequest => self.unanswered_fault(f),
            Fault::NotificationReplied => self.notification_replied(),
            Fault::InvalidRequest | Fault::BadJsonrpcVersion => self.envelope_fault(f),
            Fault::ResultAndError
            | Fault::NeitherResultNorError
            | Fault::IdPrecisionRisk
            | Fault::IdTypeChanged => self.response_shape_fault(f),
            Fault::SlowTail => {
                let lat = self.rng.range(4000, 9000);
                self.normal(lat);
            }
            Fault::LateResponse => {
                let lat = self.rng.range(61_000, 90_000);
                self.normal(lat);
                self.find("late_response");
            }
            Fault::EmptyBatch => self.empty_batch(),
            Fault::OutOfOrderBatch | Fault::ResponseCountMismatch => self.batch(Some(f)),
            Fault::BatchReplyNotArray
            | Fault::BatchRejectedWhole
            | Fault::EmptyBatchNotRejected
            | Fault::SingleRequestAnsweredWithBatch => self.batch_shape_fault(f),
            Fault::PlaceholderIdError | Fault::RetiredErrorCode => self.error_fault(f),
            Fault::ProgressAfterResponse | Fault::UnknownProgressToken => self.progress_fault(f),
            Fault::ProtocolVersionMismatch | Fault::OriginNotRejected | Fault::HeaderMismatch => {
                self.header_fault(f)
            }
            Fault::AnsweredAfterCancel => self.answered_after_cancel(),
            Fault::MrtrStateChanged => self.mrtr(true),
            Fault::NotificationBatchReplied | Fault::NotificationBatchAwaited => {
                self.notification_batch(f)
            }
            Fault::BatchAfterVersionRemoved => {
                // The request array and the reply array.
                self.batch(None);
                self.find(f.name());
                self.find(f.name());
            }
        }
    }

    /// `duplicate_id` (two requests with one id, both answered in order)
    /// and `id_reused` (a ping with an answered request's id).
    fn id_fault(&mut self, f: Fault) {
        let t = self.t;
        if f == Fault::DuplicateId {
            let n = self.fresh();
            let id = self.id(n);
            let d1 = self.rng.range(5, 100);
            let d2 = d1 + self.rng.range(1, 50);
            for d in [d1, d2] {
                let q = self.request(&id, "tools/call", "2.0");
                let r = self.result(&id, "tools/call");
                let start = if d == d1 { t } else { t + 1 };
                self.push(start, d, Some(q), Some(r));
                self.pair(d, true);
            }
            self.find("duplicate_id");
            self.answered.push(n);
            self.t = t + 1 + d2;
        } else {
            let n = *self.rng.pick(&self.answered.clone());
            let id = self.id(n);
            let lat = self.latency();
            let q = self.request(&id, "ping", "2.0");
            let r = self.result(&id, "ping");
            self.push(t, lat, Some(q), Some(r));
            self.pair(lat, true);
            self.find("id_reused");
            self.t += lat;
        }
    }

    /// A ping whose id is `N.5` or null, never answered.
    fn invalid_id_fault(&mut self, f: Fault) {
        self.unanswered += 1;
        let id = if f == Fault::FractionalId {
            format!("{}.5", self.fresh())
        } else {
            "null".to_string()
        };
        let q = self.request(&id, "ping", "2.0");
        self.push(self.t, 0, Some(q), None);
        self.t += 1;
        self.find(f.name());
    }

    /// A normal pair, then one more server line: a result for an id never
    /// sent, the response again, an error with id null, or a line cut off.
    fn extra_line_fault(&mut self, f: Fault) {
        let lat = self.latency();
        let n = self.normal(lat);
        match f {
            Fault::UnknownIdResponse => {
                let id = self.id(1_000_000_000 + self.next_id);
                let r = self.result(&id, "ping");
                self.server_line(r);
            }
            Fault::DuplicateResponse => {
                let id = self.id(n);
                let r = self.result(&id, "ping");
                self.server_line(r);
            }
            Fault::NullIdError => {
                self.m.totals.messages += 1;
                self.m.totals.responses += 1;
                self.server_line(
                    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}"
                        .to_string(),
                );
            }
            _ => {
                self.t += 1;
                self.push(self.t, 0, None, Some("{\"jsonrpc\":\"2.0\",\"id\":".into()));
                self.last().broken = true;
                self.m.totals.non_json_lines += 1;
            }
        }
        self.find(f.name());
    }

    /// A tools/call never answered; for `cancelled_request` the client
    /// cancels it.
    fn unanswered_fault(&mut self, f: Fault) {
        self.unanswered += 1;
        let n = self.fresh();
        let id = self.id(n);
        let q = self.request(&id, "tools/call", "2.0");
        self.push(self.t, 0, Some(q), None);
        self.t += 1;
        if f == Fault::CancelledRequest {
            let note = self.notification(
                "notifications/cancelled",
                &format!("{{\"requestId\":{id},\"reason\":\"user cancelled\"}}"),
            );
            self.t += self.rng.range(5, 500);
            self.push(self.t, 0, Some(note), None);
            self.t += 1;
        }
        self.find(f.name());
    }

    /// A notification answered by a result with id null, while no client
    /// request is unanswered; else an ordinary pair.
    fn notification_replied(&mut self) {
        if self.unanswered != 0 {
            let lat = self.latency();
            self.normal(lat);
            return;
        }
        let note = self.notification("notifications/roots/list_changed", "");
        let lat = self.rng.range(1, 20);
        self.m.totals.messages += 1;
        self.m.totals.responses += 1;
        self.push(
            self.t,
            lat,
            Some(note),
            Some("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}".to_string()),
        );
        self.find("notification_replied");
        if self.har {
            // A POST of one notification not answered 202 + empty.
            self.find("notification_batch_awaited");
        }
        self.t += lat;
    }

    /// A request with params a string (answered -32602) or with
    /// `"jsonrpc":"1.0"` (answered): one pair.
    fn envelope_fault(&mut self, f: Fault) {
        let n = self.fresh();
        let id = self.id(n);
        let lat = self.latency();
        let (q, r) = if f == Fault::InvalidRequest {
            self.m.totals.messages += 2;
            self.m.totals.requests += 1;
            self.m.totals.responses += 1;
            (
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":\"search\"}}"
                ),
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32602,\"message\":\"Invalid params\"}}}}"
                ),
            )
        } else {
            let q = self.request(&id, "ping", "1.0");
            (q, self.result(&id, "ping"))
        };
        self.push(self.t, lat, Some(q), Some(r));
        self.pair(lat, true);
        self.answered.push(n);
        self.find(f.name());
        self.t += lat;
    }

    /// A ping answered by a response of a faulty shape or id: one pair.
    fn response_shape_fault(&mut self, f: Fault) {
        let n = self.fresh();
        let id = match f {
            Fault::IdPrecisionRisk => (9_007_199_254_740_993 + 2 * n).to_string(),
            Fault::IdTypeChanged => n.to_string(),
            _ => self.id(n),
        };
        let lat = self.latency();
        let q = self.request(&id, "ping", "2.0");
        let r = match f {
            Fault::ResultAndError => format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}},\"error\":{{\"code\":-32603,\"message\":\"Internal error\"}}}}"
            ),
            Fault::NeitherResultNorError => format!("{{\"jsonrpc\":\"2.0\",\"id\":{id}}}"),
            Fault::IdTypeChanged => {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"result\":{{}}}}")
            }
            _ => format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"),
        };
        self.m.totals.messages += 1;
        self.m.totals.responses += 1;
        self.push(self.t, lat, Some(q), Some(r));
        self.pair(lat, true);
        if !matches!(f, Fault::IdPrecisionRisk | Fault::IdTypeChanged) {
            self.answered.push(n);
        }
        self.find(f.name());
        self.t += lat;
    }

    /// `[]` answered by one error -32600 with id null.
    fn empty_batch(&mut self) {
        let lat = self.rng.range(1, 5);
        self.m.totals.batches += 1;
        self.m.totals.messages += 1;
        self.m.totals.responses += 1;
        self.push(
            self.t,
            lat,
            Some("[]".to_string()),
            Some(
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request\"}}"
                    .to_string(),
            ),
        );
        self.find("empty_batch");
        self.find("null_id_error");
        self.t += lat;
    }

    /// A frame `q` answered `lat` ms later by `r` (an error or another
    /// shape, counted here as one response); `paired`: `r` pairs with
    /// request `n` and gives its latency.
    fn odd_reply(&mut self, n: u64, q: String, r: String, lat: u64, paired: bool) {
        self.m.totals.messages += 1;
        self.m.totals.responses += 1;
        self.push(self.t, lat, Some(q), Some(r));
        if paired {
            self.pair(lat, true);
            self.answered.push(n);
        }
        self.t += lat;
    }

    /// The batch-reply shapes of rule 13 (batch sessions).
    fn batch_shape_fault(&mut self, f: Fault) {
        let lat = self.rng.range(1, 5);
        match f {
            Fault::BatchReplyNotArray | Fault::SingleRequestAnsweredWithBatch => {
                let n = self.fresh();
                let id = self.id(n);
                let (method, _) = *self.rng.pick(&METHODS);
                let lat = self.latency();
                let q = self.request(&id, method, "2.0");
                let r = self.result(&id, method);
                self.m.totals.batches += 1;
                let lone = f == Fault::SingleRequestAnsweredWithBatch;
                let (q, r) = if lone {
                    (q, format!("[{r}]"))
                } else {
                    (format!("[{q}]"), r)
                };
                self.push(self.t, lat, Some(q), Some(r));
                self.pair(lat, lone);
                self.answered.push(n);
                self.t += lat;
            }
            Fault::BatchRejectedWhole => {
                let k = self.rng.range(2, 4);
                let mut q = String::from("[");
                for i in 0..k {
                    let n = self.fresh();
                    let id = self.id(n);
                    let (method, _) = *self.rng.pick(&METHODS);
                    if i > 0 {
                        q.push(',');
                    }
                    q.push_str(&self.request(&id, method, "2.0"));
                    self.find("missing_response");
                }
                q.push(']');
                let id = if self.rng.chance(0.5) {
                    "\"id\":null,"
                } else {
                    ""
                };
                let r = format!(
                    "{{\"jsonrpc\":\"2.0\",{id}\"error\":{{\"code\":-32600,\"message\":\"Invalid Request\",\"data\":\"batching is not supported\"}}}}"
                );
                self.m.totals.batches += 1;
                self.odd_reply(0, q, r, lat, false);
                self.unanswered += k;
                self.find("response_count_mismatch");
            }
            _ => {
                // EmptyBatchNotRejected: -32602, or (HAR) an empty 202.
                self.m.totals.batches += 1;
                self.find("empty_batch");
                if self.har && self.rng.chance(0.5) {
                    self.push(self.t, lat, Some("[]".into()), None);
                    self.t += lat;
                } else {
                    let r = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32602,\"message\":\"Invalid params\",\"data\":\"empty batch\"}}";
                    self.odd_reply(0, "[]".into(), r.into(), lat, false);
                    self.find("null_id_error");
                }
            }
        }
        self.find(f.name());
    }

    /// Faults of the progress notifications (line formats): one after the
    /// response of the request it names, or naming a token no request gave.
    fn progress_fault(&mut self, f: Fault) {
        let note = |s: &mut Self, tok: &str, k: u64, of: u64| {
            s.notification(
                "notifications/progress",
                &format!("{{\"progressToken\":\"{tok}\",\"progress\":{k},\"total\":{of}}}"),
            )
        };
        if f == Fault::UnknownProgressToken {
            let lat = self.latency();
            self.normal(lat);
            let tok = format!("orphan-{}", self.next_id);
            let p = note(self, &tok, 1, 2);
            self.server_line(p);
        } else {
            let n = self.fresh();
            let id = self.id(n);
            let tok = format!("p-{n}");
            let q = self.request_with(
                &id,
                "tools/call",
                "2.0",
                "",
                &format!("\"progressToken\":\"{tok}\""),
            );
            let lat = self.rng.range(10, 300);
            let r = self.result(&id, "tools/call");
            let (t, k) = (self.t, self.rng.range(1, 3));
            self.push(t, lat, Some(q), Some(r));
            self.pair(lat, true);
            self.answered.push(n);
            for j in 1..=k {
                let p = note(self, &tok, j, k + 1);
                self.push(t + lat * j / (k + 1), 0, None, Some(p));
            }
            self.t = t + lat + self.rng.range(1, 30);
            let p = note(self, &tok, k + 1, k + 1);
            self.push(self.t, 0, None, Some(p));
        }
        self.find(f.name());
    }

    /// An error response the request cannot be matched by (`"server-error"`)
    /// or, under 2026-07-28, a retired code (-32002 for resources/read,
    /// -32042 for tools/call, in HAR -32601 with status 200).
    fn error_fault(&mut self, f: Fault) {
        let n = self.fresh();
        let id = self.id(n);
        if f == Fault::PlaceholderIdError {
            let q = self.request(&id, "tools/call", "2.0");
            let lat = self.rng.range(1, 20);
            let r = "{\"jsonrpc\":\"2.0\",\"id\":\"server-error\",\"error\":{\"code\":-32602,\"message\":\"Invalid request parameters\"}}";
            self.odd_reply(n, q, r.into(), lat, false);
            self.unanswered += 1;
            self.find("missing_response");
        } else {
            // Over HTTP also -32601 answered 200, not 404.
            let (method, code, msg) = match self.rng.below(if self.har { 3 } else { 2 }) {
                0 => ("resources/read", -32002, "Resource not found"),
                1 => ("tools/call", -32042, "URL elicitation required"),
                _ => ("prompts/get", -32601, "Method not found"),
            };
            let q = self.request(&id, method, "2.0");
            let lat = self.latency();
            let r = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{code},\"message\":\"{msg}\"}}}}"
            );
            self.odd_reply(n, q, r, lat, true);
        }
        self.find(f.name());
    }

    /// HAR header faults on a normal pair: a `MCP-Protocol-Version` other
    /// than negotiated, a foreign `Origin`, a `Mcp-Name` not the body's.
    fn header_fault(&mut self, f: Fault) {
        let lat = self.latency();
        if f == Fault::HeaderMismatch {
            let n = self.fresh();
            let id = self.id(n);
            let q = self.request(&id, "tools/call", "2.0");
            let r = self.result(&id, "tools/call");
            self.push(self.t, lat, Some(q), Some(r));
            self.pair(lat, true);
            self.answered.push(n);
            self.t += lat;
            self.last().hdr = ",{\"name\":\"Mcp-Method\",\"value\":\"tools/call\"},{\"name\":\"Mcp-Name\",\"value\":\"delete_all\"}".into();
        } else {
            self.normal(lat);
            if f == Fault::ProtocolVersionMismatch {
                let other = if self.batching {
                    "2025-06-18"
                } else {
                    "2025-03-26"
                };
                self.last().pv = Some(other);
            } else {
                self.last()
                    .hdr
                    .push_str(",{\"name\":\"Origin\",\"value\":\"https://attacker.example.net\"}");
            }
        }
        self.find(f.name());
    }

    /// 2 or 3 notifications in one array: answered by `[]`, or (HAR) by
    /// an empty 202 after 1.2 to 4 s.
    fn notification_batch(&mut self, f: Fault) {
        let k = self.rng.range(2, 3);
        let notes: Vec<String> = (0..k)
            .map(|_| self.notification("notifications/roots/list_changed", ""))
            .collect();
        let q = format!("[{}]", notes.join(","));
        self.m.totals.batches += 1;
        if f == Fault::NotificationBatchReplied {
            let lat = self.rng.range(1, 5);
            self.m.totals.batches += 1;
            self.push(self.t, lat, Some(q), Some("[]".into()));
            if self.har {
                self.find("notification_batch_awaited");
            }
            self.t += lat;
        } else {
            let lat = self.rng.range(1200, 4000);
            self.push(self.t, lat, Some(q), None);
            // The client waits on it.
            self.t += lat;
        }
        self.find(f.name());
    }

    /// (2026-07-28) A tools/call cancelled while it runs, answered anyway.
    fn answered_after_cancel(&mut self) {
        let n = self.fresh();
        let id = self.id(n);
        let q = self.request(&id, "tools/call", "2.0");
        let r = self.result(&id, "tools/call");
        let lat = self.rng.range(40, 300);
        let at = self.rng.range(5, lat - 10);
        self.push(self.t, lat, Some(q), Some(r));
        let note = self.notification(
            "notifications/cancelled",
            &format!("{{\"requestId\":{id},\"reason\":\"user cancelled\"}}"),
        );
        self.push(self.t + at, 1, Some(note), None);
        // Paired, but a cancelled request has no latency (rule 10).
        self.m.totals.pairs += 1;
        self.answered.push(n);
        self.t += lat;
        self.find("cancelled_request");
        self.find("answered_after_cancel");
    }

    /// The start of a 2026-07-28 session: `server/discover` (no
    /// initialize), then mostly a `subscriptions/listen` left open.
    fn discover(&mut self) {
        let n = self.fresh();
        let id = self.id(n);
        let q = self.request(&id, "server/discover", "2.0");
        let r = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"supportedVersions\":[\"{MODERN}\"],\"capabilities\":{{\"tools\":{{\"listChanged\":true}}}},\"serverInfo\":{{\"name\":\"demo\",\"version\":\"1.0.0\"}}}}}}"
        );
        let lat = self.rng.range(20, 200);
        self.odd_reply(n, q, r, lat, true);
        self.t += self.rng.range(1, 5);
        if self.rng.chance(0.8) {
            self.open_listen();
        }
    }

    /// A `subscriptions/listen` left open to the end (a live stream, no
    /// missing response): its acknowledgement now, tagged notifications
    /// later ([`Session::listen_event`]); in HAR all on its event stream.
    fn open_listen(&mut self) {
        let n = self.fresh();
        let id = self.id(n);
        let q = self.request_with(
            &id,
            "subscriptions/listen",
            "2.0",
            "\"notifications\":{\"toolsListChanged\":true}",
            "",
        );
        let ack = self.notification(
            "notifications/subscriptions/acknowledged",
            &format!("{{\"_meta\":{{\"{META_SUB}\":{id}}}}}"),
        );
        let d = self.rng.range(2, 20);
        if self.har {
            self.push(self.t, d, Some(q), Some(ack));
            self.last().stream = true;
        } else {
            self.push(self.t, 0, Some(q), None);
            self.push(self.t + d, 0, None, Some(ack));
        }
        self.listen = Some((self.entries.len() - 1, id));
        let o = self.op("listen", 1);
        o.open += 1;
        o.notifications += 1;
        self.t += d + 1;
    }

    /// A notification on the open listen.
    fn listen_event(&mut self) {
        let Some((e, id)) = self.listen.clone() else {
            return;
        };
        let note = self.notification(
            "notifications/tools/list_changed",
            &format!("{{\"_meta\":{{\"{META_SUB}\":{id}}}}}"),
        );
        if self.har {
            let t = self.t;
            let e = &mut self.entries[e];
            e.dur = t - e.start;
            let r = e.resp.get_or_insert_with(String::new);
            r.push('\n');
            r.push_str(&note);
        } else {
            self.push(self.t, 0, None, Some(note));
        }
        self.m.operations.entry("listen").or_default().notifications += 1;
        self.t += 1;
    }

    /// An MRTR operation (2026-07-28 basic/patterns/mrtr): a tools/call
    /// answered `input_required` 1 to 3 times, each retry under a new id
    /// echoing the `requestState`, then complete. `fault`: one retry
    /// sends another state or none (`mrtr_state_changed`).
    fn mrtr(&mut self, fault: bool) {
        let rounds = self.rng.range(1, 3);
        let bad = if fault { self.rng.below(rounds) + 1 } else { 0 };
        // Each retry is the same call: the same arguments again.
        let mut query = String::new();
        let n = self.rng.range(5, 60) as usize;
        text_value(self.rng, n, &mut query);
        self.retry_query = Some(query);
        let mut state = String::new();
        for k in 0..=rounds {
            let n = self.fresh();
            let id = self.id(n);
            let mut extra = String::new();
            if k > 0 {
                extra.push_str("\"inputResponses\":{\"confirm\":{\"action\":\"accept\",\"content\":{\"ok\":true}}}");
                if k != bad {
                    let _ = write!(extra, ",\"requestState\":\"{state}\"");
                } else if self.rng.chance(0.5) {
                    let _ = write!(extra, ",\"requestState\":\"{state}-edited\"");
                }
            }
            let q = self.request_with(&id, "tools/call", "2.0", &extra, "");
            let lat = self.latency();
            let r = if k < rounds {
                state = format!("v1.{:012x}.{k}", self.rng.below(1 << 48));
                self.m.totals.messages += 1;
                self.m.totals.responses += 1;
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"resultType\":\"input_required\",\"requestState\":\"{state}\",\"inputRequests\":{{\"confirm\":{{\"method\":\"elicitation/create\",\"params\":{{\"message\":\"Confirm step {k}\",\"requestedSchema\":{{\"type\":\"object\",\"properties\":{{\"ok\":{{\"type\":\"boolean\"}}}}}}}}}}}}}}}}"
                )
            } else {
                let mut r = self.result(&id, "tools/call");
                r.insert_str(r.len() - 2, ",\"resultType\":\"complete\"");
                r
            };
            self.push(self.t, lat, Some(q), Some(r));
            self.pair(lat, true);
            self.answered.push(n);
            // A person answers between rounds.
            self.t += lat + self.rng.range(200, 3000);
        }
        self.retry_query = None;
        self.op("mrtr", rounds + 1);
        if fault {
            self.find("mrtr_state_changed");
        }
    }

    /// A tools/call run as a task (the 2026-07-28 tasks extension): its
    /// handle, then `tasks/get` polls until `completed` (or `failed`).
    fn task(&mut self) {
        let tid = format!("task-{:016x}", self.rng.next_u64());
        let polls = self.rng.range(1, 4);
        let failed = self.rng.chance(0.1);
        for k in 0..=polls {
            let n = self.fresh();
            let id = self.id(n);
            let (method, extra) = if k == 0 {
                ("tools/call", "\"task\":{\"ttl\":60000}".to_string())
            } else {
                ("tasks/get", format!("\"taskId\":\"{tid}\""))
            };
            let q = self.request_with(&id, method, "2.0", &extra, "");
            let status = match (k, failed) {
                (0, _) => "\"resultType\":\"task\",\"status\":\"working\"",
                (k, _) if k < polls => "\"resultType\":\"complete\",\"status\":\"working\"",
                (_, false) => "\"resultType\":\"complete\",\"status\":\"completed\"",
                (_, true) => "\"resultType\":\"complete\",\"status\":\"failed\"",
            };
            let r = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"taskId\":\"{tid}\",{status},\"pollInterval\":250}}}}"
            );
            let lat = self.rng.range(2, 30);
            self.odd_reply(n, q, r, lat, true);
            self.t += 250;
        }
        let o = self.op("task", polls + 1);
        o.failed += u64::from(failed);
    }

    /// Plans the whole session.
    fn run(&mut self, messages: u64) {
        let version = if self.batching {
            "2025-03-26"
        } else {
            "2025-06-18"
        };
        let end = self.m.totals.messages + messages;
        if self.modern {
            self.discover();
        } else {
            self.initialize(version);
        }
        while self.m.totals.messages < end {
            self.t += self.rng.range(1, 40);
            let usable: Vec<Fault> = self
                .kinds
                .iter()
                .copied()
                .filter(|&f| self.usable(f))
                .collect();
            if !usable.is_empty() && self.rng.chance(self.faults) {
                let f = *self.rng.pick(&usable);
                self.fault(f);
            } else if self.modern {
                self.modern_step();
            } else if self.batching && self.rng.chance(self.batch_rate) {
                self.batch(None);
            } else {
                let lat = self.latency();
                self.normal(lat);
            }
        }
    }

    /// Whether fault `f` can be the next step: its revision, and for the
    /// reply shapes of a line log (rule 13: the other side's next frame
    /// after exactly one frame sent) no request frame left hanging.
    fn usable(&self, f: Fault) -> bool {
        let revision = if self.modern {
            f.in_modern()
        } else {
            !f.needs_modern()
        };
        let shape = matches!(f, Fault::BatchRejectedWhole | Fault::EmptyBatchNotRejected);
        revision
            && (self.batching || !f.needs_batch())
            && !(f == Fault::BatchAfterVersionRemoved && (self.batching || self.modern))
            && !(shape && !self.har && self.asked >= self.replied)
    }

    /// A healthy step of a 2026-07-28 session: an MRTR operation, a task,
    /// a notification on the open listen, or an ordinary pair.
    fn modern_step(&mut self) {
        let r = self.rng.unit();
        if r < 0.07 {
            self.mrtr(false);
        } else if r < 0.11 {
            self.task();
        } else if r < 0.18 && self.listen.is_some() {
            self.listen_event();
        } else {
            let lat = self.latency();
            self.normal(lat);
        }
    }
}

/// Writes one session's entries in `format`.
fn write_session(
    format: Format,
    entries: &mut [Entry],
    sid: &str,
    server: &str,
    version: &str,
    first_entry: &mut bool,
    out: &mut String,
) {
    if format == Format::Har {
        entries.sort_by_key(|e| e.start);
        let host = format!("{server}.example.test");
        for (i, e) in entries.iter().enumerate() {
            if !*first_entry {
                out.push_str(",\n");
            }
            *first_entry = false;
            write_har_entry(e, i == 0, &host, sid, version, out);
        }
    } else {
        write_lines(format, entries, sid, server, out);
    }
}

/// Writes one session's frames as lines of a line format, in processing
/// order, with the dialect's lifecycle or stderr lines around them.
fn write_lines(format: Format, entries: &[Entry], sid: &str, server: &str, out: &mut String) {
    // (time, entry index, 0 request / 1 response): the processing order.
    let mut frames: Vec<(u64, usize, u8)> = Vec::with_capacity(entries.len() * 2);
    for (i, e) in entries.iter().enumerate() {
        if e.req.is_some() {
            frames.push((e.start, i, 0));
        }
        if e.resp.is_some() {
            frames.push((e.start + e.dur, i, 1));
        }
    }
    frames.sort_unstable();
    let life = |out: &mut String, t: u64, what: &str| {
        fmt_ts(t, out);
        let _ = writeln!(out, " [{server}] [info] {what}");
    };
    let t0 = entries.first().map_or(0, |e| e.start);
    let t1 = frames.last().map_or(t0, |f| f.0);
    if format == Format::Claude {
        life(out, t0.saturating_sub(300), "Initializing server...");
        life(
            out,
            t0.saturating_sub(20),
            "Server started and connected successfully",
        );
    }
    if format == Format::Logger {
        // Server stderr: not traffic, never a finding.
        fmt_ts(t0.saturating_sub(20), out);
        let _ = writeln!(out, " [STDERR] {server} running on stdio");
    }
    for (t, i, side) in frames {
        write_line(format, t, side == 0, &entries[i], sid, server, out);
    }
    if format == Format::Claude {
        life(out, t1 + 5, "Client transport closed");
        life(out, t1 + 8, "Server transport closed");
    }
}

/// One traffic line at `t`: `e`'s request (`c2s`) or response.
fn write_line(
    format: Format,
    t: u64,
    c2s: bool,
    e: &Entry,
    sid: &str,
    server: &str,
    out: &mut String,
) {
    let text = if c2s { &e.req } else { &e.resp };
    let text = text.as_deref().unwrap_or_default();
    fmt_ts_prefix(format, t, out);
    match format {
        Format::Envelope => {
            let dir = if c2s { "c2s" } else { "s2c" };
            let _ = write!(out, "\",\"dir\":\"{dir}\",\"session\":\"{sid}\",\"msg\":");
            out.push_str(text);
            if !e.broken {
                out.push('}');
            }
            out.push('\n');
        }
        Format::Logger => {
            let tag = if c2s { "STDIN" } else { "STDOUT" };
            let _ = writeln!(out, " [{tag}] {text}");
        }
        _ => {
            let who = if c2s { "client" } else { "server" };
            let _ = writeln!(out, " [{server}] [info] Message from {who}: {text}");
        }
    }
}

/// The line's start up to and including its timestamp.
fn fmt_ts_prefix(format: Format, t: u64, out: &mut String) {
    if format == Format::Envelope {
        out.push_str("{\"ts\":\"");
    }
    fmt_ts(t, out);
}

/// One HAR entry: a POST of `e.req` answered by `e.resp` (JSON) or by an
/// empty 202. The initialize POST (`init`) gets the session id in its
/// response; the others send it and the negotiated revision.
fn write_har_entry(e: &Entry, init: bool, host: &str, sid: &str, version: &str, out: &mut String) {
    let body = e.req.as_deref().unwrap_or_default();
    out.push_str("{\"startedDateTime\":\"");
    fmt_ts(e.start, out);
    let _ = write!(
        out,
        "\",\"time\":{},\"request\":{{\"method\":\"POST\",\"url\":\"https://{host}/mcp\",\"httpVersion\":\"HTTP/1.1\",\"cookies\":[],\"headers\":[{{\"name\":\"Host\",\"value\":\"{host}\"}},{{\"name\":\"Content-Type\",\"value\":\"application/json\"}},{{\"name\":\"Accept\",\"value\":\"application/json, text/event-stream\"}}",
        e.dur
    );
    // 2026-07-28 has no session id, and no initialize to precede the header.
    let modern = version == MODERN;
    let pv = e.pv.unwrap_or(version);
    if !init && !modern {
        let _ = write!(out, ",{{\"name\":\"Mcp-Session-Id\",\"value\":\"{sid}\"}}");
    }
    if !init || modern {
        let _ = write!(
            out,
            ",{{\"name\":\"MCP-Protocol-Version\",\"value\":\"{pv}\"}}"
        );
    }
    out.push_str(&e.hdr);
    out.push_str("],\"queryString\":[],\"headersSize\":-1,\"postData\":{\"mimeType\":\"application/json\",\"text\":\"");
    json_escape(body, out);
    let _ = write!(out, "\"}},\"bodySize\":{}}},\"response\":", body.len());
    match &e.resp {
        Some(r) => {
            let sse;
            let (mime, r) = if e.stream {
                sse = r.lines().fold(String::new(), |mut s, l| {
                    let _ = write!(s, "event: message\ndata: {l}\n\n");
                    s
                });
                ("text/event-stream", sse.as_str())
            } else {
                ("application/json", r.as_str())
            };
            let _ = write!(
                out,
                "{{\"status\":200,\"statusText\":\"OK\",\"httpVersion\":\"HTTP/1.1\",\"cookies\":[],\"headers\":[{{\"name\":\"Content-Type\",\"value\":\"{mime}\"}}"
            );
            if init && !modern {
                let _ = write!(out, ",{{\"name\":\"Mcp-Session-Id\",\"value\":\"{sid}\"}}");
            }
            let _ = write!(
                out,
                "],\"content\":{{\"size\":{},\"mimeType\":\"{mime}\",\"text\":\"",
                r.len()
            );
            json_escape(r, out);
            let _ = write!(
                out,
                "\"}},\"redirectURL\":\"\",\"headersSize\":-1,\"bodySize\":{}}}",
                r.len()
            );
        }
        None => out.push_str("{\"status\":202,\"statusText\":\"Accepted\",\"httpVersion\":\"HTTP/1.1\",\"cookies\":[],\"headers\":[],\"content\":{\"size\":0,\"mimeType\":\"\",\"text\":\"\"},\"redirectURL\":\"\",\"headersSize\":-1,\"bodySize\":0}"),
    }
    out.push_str(",\"cache\":{},\"timings\":{\"send\":0,\"wait\":0,\"receive\":0}}");
}

/// Every finding kind the generator can cause: the manifest lists each,
/// 0 where none was caused.
const KINDS: [&str; 38] = [
    "duplicate_id",
    "id_reused",
    "unknown_id_response",
    "duplicate_response",
    "missing_response",
    "late_response",
    "cancelled_request",
    "null_id_error",
    "invalid_request",
    "bad_jsonrpc_version",
    "result_and_error",
    "neither_result_nor_error",
    "non_json_line",
    "slow_tail",
    "fractional_id",
    "null_request_id",
    "id_precision_risk",
    "id_type_changed",
    "notification_replied",
    "notification_batch_awaited",
    "empty_batch",
    "out_of_order_batch",
    "response_count_mismatch",
    "batch_reply_not_array",
    "batch_rejected_whole",
    "empty_batch_not_rejected",
    "single_request_answered_with_batch",
    "placeholder_id_error",
    "progress_after_response",
    "unknown_progress_token",
    "protocol_version_mismatch",
    "origin_not_rejected",
    "header_mismatch",
    "retired_error_code",
    "answered_after_cancel",
    "mrtr_state_changed",
    "notification_batch_replied",
    "batch_after_version_removed",
];

/// A random session id in the shape of a UUID v4.
fn session_id(rng: &mut Rng) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        rng.next_u64() as u32,
        rng.below(1 << 16),
        rng.below(1 << 12),
        rng.below(1 << 12),
        rng.below(1 << 48)
    )
}

/// Plans one session starting at `t`: (its entries, its revision, the
/// time of its last step).
fn plan_session(
    opts: &Options,
    kinds: &[Fault],
    t: u64,
    rng: &mut Rng,
    m: &mut Manifest,
    lat: &mut Vec<(u64, bool)>,
) -> (Vec<Entry>, &'static str, u64) {
    let batching = rng.chance(opts.batch_sessions);
    let string_ids = rng.chance(0.2);
    let modern =
        opts.modern_sessions > 0.0 && opts.format.modern() && rng.chance(opts.modern_sessions);
    let batching = batching && !modern;
    let mut s = Session {
        rng,
        m,
        faults: opts.faults,
        batch_rate: opts.batch_rate,
        kinds,
        batching,
        string_ids,
        next_id: 1,
        answered: Vec::new(),
        unanswered: 0,
        har: opts.format == Format::Har,
        t,
        entries: Vec::new(),
        lat,
        modern,
        listen: None,
        asked: 0,
        replied: 0,
        retry_query: None,
    };
    s.run(u64::from(opts.messages.max(4)));
    let version = match (modern, batching) {
        (true, _) => MODERN,
        (_, true) => "2025-03-26",
        _ => "2025-06-18",
    };
    (s.entries, version, s.t)
}

/// Writes traffic for `opts` to `out` and returns its manifest.
///
/// Sessions are planned and written one at a time (memory stays at one
/// session's text), until `opts.sessions` are written or, with
/// `opts.size_bytes`, the output reaches that size.
pub fn generate<W: Write>(opts: &Options, out: W) -> io::Result<Manifest> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let mut rng = Rng::new(opts.seed);
    let mut m = Manifest::default();
    for k in KINDS {
        m.findings_by_kind.insert(k, 0);
    }
    let kinds = opts.kinds();
    let mut lat: Vec<(u64, bool)> = Vec::new();
    let mut text = String::new();
    let mut first_entry = true;
    if opts.format == Format::Har {
        text.push_str("{\"log\":{\"version\":\"1.2\",\"creator\":{\"name\":\"mcp-audit-gen\",\"version\":\"0.1\"},\"pages\":[],\"entries\":[\n");
    }
    let mut t = BASE_MS;
    let mut index = 0u64;
    loop {
        let done = match opts.size_bytes {
            Some(b) => m.bytes + text.len() as u64 >= b,
            None => index >= u64::from(opts.sessions),
        };
        if done {
            break;
        }
        let sid = session_id(&mut rng);
        let server = format!("{}-{index}", rng.pick(&SERVERS));
        let (mut entries, version, end) = plan_session(opts, &kinds, t, &mut rng, &mut m, &mut lat);
        m.totals.sessions += 1;
        write_session(
            opts.format,
            &mut entries,
            &sid,
            &server,
            version,
            &mut first_entry,
            &mut text,
        );
        out.write_all(text.as_bytes())?;
        m.bytes += text.len() as u64;
        text.clear();
        t = end + rng.range(400, 5000);
        index += 1;
    }
    if opts.format == Format::Har {
        text.push_str("\n]}}\n");
    }
    out.write_all(text.as_bytes())?;
    m.bytes += text.len() as u64;
    out.flush()?;
    *m.findings_by_kind.entry("slow_tail").or_insert(0) += slow_tails(&lat);
    m.latencies_ms = lat.into_iter().map(|l| l.0).collect();
    Ok(m)
}

/// `slow_tail` (DESIGN rule 10) over the capture: a lone request against
/// the median of every latency, at least 5 (batch members share their
/// batch's one latency, so never reach 10x their batch's median).
fn slow_tails(lat: &[(u64, bool)]) -> u64 {
    if lat.len() < 5 {
        return 0;
    }
    let mut v: Vec<u64> = lat.iter().map(|l| l.0).collect();
    v.sort_unstable();
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    };
    lat.iter()
        .filter(|(l, lone)| *lone && *l as f64 >= SLOW_MS && *l as f64 >= SLOW_FACTOR * median)
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        let mut s = String::new();
        fmt_ts(BASE_MS, &mut s);
        s.push(' ');
        // 2024-02-29T23:59:59.999Z (a leap day) and the epoch.
        fmt_ts(1_709_251_199_999, &mut s);
        s.push(' ');
        fmt_ts(0, &mut s);
        assert_eq!(
            s,
            "2025-05-14T09:00:00.000Z 2024-02-29T23:59:59.999Z 1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn escapes() {
        let mut s = String::new();
        json_escape("a\"b\\c\nd\te\u{1}f — 😀", &mut s);
        assert_eq!(s, "a\\\"b\\\\c\\nd\\te\\u0001f — 😀");
    }

    #[test]
    fn nearest_rank_quantiles() {
        let m = Manifest {
            latencies_ms: vec![50, 10, 40, 20, 30],
            ..Manifest::default()
        };
        // ceil(0.5*5)=3rd, ceil(0.9*5)=5th of 10 20 30 40 50.
        assert_eq!(
            [m.quantile(0.5), m.quantile(0.9), m.quantile(1.0)],
            [Some(30), Some(50), Some(50)]
        );
        assert_eq!(Manifest::default().quantile(0.5), None);
    }

    #[test]
    fn names_round_trip() {
        for f in Fault::ALL {
            assert_eq!(Fault::parse(f.name()), Some(f));
        }
        for f in Format::ALL {
            assert_eq!(Format::parse(f.name()), Some(f));
        }
        assert_eq!(Fault::parse("bogus"), None);
        assert!(!Fault::MissingResponse.fits(Format::Har));
        assert!(Fault::DuplicateId.fits(Format::Har));
    }

    #[test]
    fn rng_is_fixed() {
        // The stream is part of the output contract: same seed, same bytes.
        let mut r = Rng::new(1);
        let a: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
        let mut r = Rng::new(1);
        let b: Vec<u64> = (0..3).map(|_| r.below(1000)).collect();
        assert_eq!(a, b);
        assert_ne!(a, {
            let mut r = Rng::new(2);
            (0..3).map(|_| r.below(1000)).collect::<Vec<u64>>()
        });
    }
}

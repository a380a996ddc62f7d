//! Analyze: sessions in causal order → findings, pairs, batches, metrics
//! and latency (DESIGN.md "Findings catalogue", "Precise rules",
//! "Metrics").
//!
//! Sessions are independent, so the pipeline walks them in parallel; the
//! capture-wide slow-tail rule (rule 10, requests outside batches) runs
//! after, on the merged latencies. Results are sorted by input and location
//! so output is the same for any thread count.

pub mod engine;
pub mod findings;
pub mod gaps;
pub mod gates;
pub mod histogram;
pub mod latency;
pub mod operations;
mod replies;
pub mod tables;

use std::collections::HashMap;

use serde::Serialize;

use crate::record::Micros;
pub use engine::{Batch, Req, SessionResult};
pub use findings::{Finding, FindingId, FindingKind, Severity};
pub use latency::Quantiles;

/// Thresholds of the rules (DESIGN.md command line).
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// `--timeout`: a later response is `late_response` (µs; default 60 s).
    pub timeout_us: Micros,
    /// `--slow`: the floor of `slow_tail` and of awaited notifications (µs; default 1 s).
    pub slow_us: Micros,
    /// `--slow-factor`: × the median for `slow_tail` (default 10).
    pub slow_factor: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout_us: 60_000_000,
            slow_us: 1_000_000,
            slow_factor: 10.0,
        }
    }
}

/// Message and frame counts (DESIGN.md rule 2; `summary.json` totals).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Quantity {
    /// JSON objects in frames and batches.
    pub messages: u64,
    /// Requests (`method` and an `id` member).
    pub requests: u64,
    /// Notifications.
    pub notifications: u64,
    /// Responses.
    pub responses: u64,
    /// JSON arrays, either direction.
    pub batches: u64,
    /// Sessions that carry traffic (rule 1).
    pub sessions: u64,
    /// Paired requests.
    pub pairs: u64,
    /// `non_json_line` findings.
    pub non_json_lines: u64,
    /// JSON frames read (one object or one array each).
    pub frames: u64,
    /// SSE events dropped as replays (`sse_replay_duplicate`).
    pub replays: u64,
}

impl std::ops::AddAssign for Quantity {
    fn add_assign(&mut self, o: Quantity) {
        self.messages += o.messages;
        self.requests += o.requests;
        self.notifications += o.notifications;
        self.responses += o.responses;
        self.batches += o.batches;
        self.sessions += o.sessions;
        self.pairs += o.pairs;
        self.non_json_lines += o.non_json_lines;
        self.frames += o.frames;
        self.replays += o.replays;
    }
}

/// `pairs.csv` status of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PairStatus {
    /// Answered in time.
    Paired,
    /// Answered after `--timeout`.
    Late,
    /// Never answered.
    Missing,
    /// Cancelled by its requester.
    Cancelled,
    /// Its id is not a string or integer: it can never pair.
    Invalid,
}

impl PairStatus {
    /// The status word.
    pub fn as_str(self) -> &'static str {
        match self {
            PairStatus::Paired => "paired",
            PairStatus::Late => "late",
            PairStatus::Missing => "missing",
            PairStatus::Cancelled => "cancelled",
            PairStatus::Invalid => "invalid",
        }
    }
}

/// The batch metrics of DESIGN.md "Metrics", for one session or overall.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BatchMetrics {
    /// Request batches: count, min, p50, max of their sizes.
    #[serde(rename = "batch.size")]
    pub size: SizeStats,
    /// Batches whose linked responses differ in number from their requests.
    #[serde(rename = "batch.response_count_mismatch")]
    pub response_count_mismatch: u64,
    /// Unknown-id responses in frames linked to a batch.
    #[serde(rename = "batch.unknown_id_response")]
    pub unknown_id_response: u64,
    /// Batch members that never got a response (`missing_response`).
    #[serde(rename = "batch.missing_response")]
    pub missing_response: u64,
    /// Latency of batch members' pairs (ms).
    #[serde(rename = "batch.pair_latency")]
    pub pair_latency: Option<Quantiles>,
    /// Null-id error responses in frames linked to a batch.
    #[serde(rename = "batch.null_id_response")]
    pub null_id_response: u64,
}

/// Size statistics of request batches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SizeStats {
    /// Number of request batches (arrays holding a request or notification).
    pub count: u64,
    /// Smallest size.
    pub min: Option<u64>,
    /// Nearest-rank median size.
    pub p50: Option<u64>,
    /// Largest size.
    pub max: Option<u64>,
}

/// Everything the reports show.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Per session, in input then name order.
    pub sessions: Vec<SessionResult>,
    /// All findings, sorted by input, location, kind.
    pub findings: Vec<Finding>,
    /// Totals over every session.
    pub totals: Quantity,
    /// Latency quantiles over every counted latency.
    pub latency: Option<Quantiles>,
    /// Batch metrics overall.
    pub metrics: BatchMetrics,
}

/// Batch metrics of one session's result.
pub fn batch_metrics(results: &[&SessionResult]) -> BatchMetrics {
    let mut m = BatchMetrics::default();
    let mut sizes = Vec::new();
    let mut lat = Vec::new();
    for r in results {
        for b in &r.batches {
            if b.all_requests + b.notifications > 0 {
                sizes.push(b.size as i64);
            }
            m.unknown_id_response += b.unknown as u64;
            m.null_id_response += b.null_id as u64;
        }
        m.response_count_mismatch += r
            .kind_counts
            .get(&FindingKind::ResponseCountMismatch)
            .copied()
            .unwrap_or(0);
        for q in &r.requests {
            if q.batch.is_some() {
                if q.id.is_valid() && !q.answered && !q.cancelled && !q.duplicate {
                    m.missing_response += 1;
                }
                if let (Some(l), false) = (q.latency, q.cancelled) {
                    lat.push(l);
                }
            }
        }
    }
    sizes.sort_unstable();
    m.size = SizeStats {
        count: sizes.len() as u64,
        min: sizes.first().map(|&x| x as u64),
        p50: if sizes.is_empty() {
            None
        } else {
            Some(latency::nearest_rank(&sizes, 500) as u64)
        },
        max: sizes.last().map(|&x| x as u64),
    };
    m.pair_latency = latency::quantiles(&lat);
    m
}

/// `slow_tail` outside batches (rule 10): a request at least `--slow` and
/// `--slow-factor` × the capture's (or, over several inputs, the run's)
/// median latency.
fn slow_tails(cfg: &Config, results: &mut [SessionResult], all: &[Micros]) {
    if all.len() >= 5 {
        let mut sorted = all.to_vec();
        sorted.sort_unstable();
        let med = latency::median_of_sorted(&sorted);
        let inputs: std::collections::HashSet<usize> = results.iter().map(|r| r.input).collect();
        let scope = if inputs.len() > 1 { "run" } else { "capture" };
        // What the latency is compared with, exactly: the median of every
        // latency `latency_ms` counts. An even count's median is no
        // latency of the capture, and not the summary's nearest-rank p50
        // (the lower of the middle two): the detail names both.
        let ms = |x: Micros| x as f64 / 1000.0;
        let basis = match latency::middle_two(&sorted, usize::MAX) {
            Some((a, b)) => format!(
                "the median of the {scope}'s {} latencies (its own included), {:.1} ms: the mean of the middle two, {:.1} and {:.1} ms (the {scope}'s p50 is the lower)",
                all.len(),
                med / 1000.0,
                ms(a),
                ms(b)
            ),
            None => format!(
                "the median of the {scope}'s {} latencies (its own included), {:.1} ms, the {scope}'s p50",
                all.len(),
                med / 1000.0
            ),
        };
        for r in results.iter_mut() {
            let mut tails = Vec::new();
            for (qi, q) in r.requests.iter().enumerate() {
                let Some(l) = q.latency else { continue };
                if q.batch.is_some()
                    || q.cancelled
                    || l < cfg.slow_us
                    || (l as f64) < cfg.slow_factor * med
                {
                    continue;
                }
                let mut f = q.finding(
                    FindingKind::SlowTail,
                    &r.name,
                    r.input,
                    format!(
                        "took {:.1} ms, {:.0}× {basis}",
                        l as f64 / 1000.0,
                        l as f64 / med.max(1.0),
                    ),
                );
                // A session's first request, when it opens the session,
                // waits for the server to start (a stdio server process
                // launched for it): `info`, never failing a run.
                if qi == 0 && matches!(q.method.as_deref(), Some("initialize" | "server/discover"))
                {
                    (f.gap, f.by_traffic) = (true, true);
                    f.detail.push_str(
                        "; it is the session's first request, which waits for the server's start-up (info)",
                    );
                } else if let Some(n) = r
                    .progress
                    .get(&qi)
                    .map(|p| p.notifications)
                    .filter(|&n| n > 0)
                {
                    // The server said it was working on it (MCP progress,
                    // FORMATS.md §3.5): a long-running operation, as its
                    // server reported, not a stalled one.
                    (f.gap, f.by_traffic) = (true, true);
                    f.detail.push_str(&format!(
                        "; the server reported progress on it ({n} notification{}): a long-running operation it kept the caller informed of (info)",
                        if n == 1 { "" } else { "s" }
                    ));
                }
                tails.push(f);
            }
            r.findings.extend(tails);
        }
    }
}

/// The capture-wide rules over walked sessions (in input order): slow tails
/// outside batches against the capture's median (rule 10), totals, sorted
/// findings, metrics and quantiles.
pub fn finalize(cfg: &Config, mut results: Vec<SessionResult>) -> Analysis {
    // Capture-wide latencies (rule 10): one per paired, not cancelled request.
    let all: Vec<Micros> = results.iter().flat_map(SessionResult::latencies).collect();
    slow_tails(cfg, &mut results, &all);
    let mut totals = Quantity::default();
    let mut findings = Vec::new();
    for r in &mut results {
        totals += r.counts;
        // Findings move to the run's list (kept once); the session keeps
        // its counts per kind.
        for f in &r.findings {
            *r.kind_counts.entry(f.kind).or_insert(0) += 1;
        }
        findings.append(&mut r.findings);
    }
    findings.sort_by(finding_order);
    let refs: Vec<&SessionResult> = results.iter().collect();
    let metrics = batch_metrics(&refs);
    Analysis {
        latency: latency::quantiles(&all),
        sessions: results,
        findings,
        totals,
        metrics,
    }
}

fn finding_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    (a.input, a.file, a.location, a.kind, &a.session)
        .cmp(&(b.input, b.file, b.location, b.kind, &b.session))
}

/// What a person needs per session: who, which revision, counts, metrics,
/// findings by kind and the diagnosis hints.
#[derive(Debug, Clone, Serialize)]
pub struct SessionSummary {
    /// Session name.
    pub name: String,
    /// Input index.
    #[serde(skip)]
    pub input: usize,
    /// Server name and version from the initialize result.
    pub server: Option<ServerInfo>,
    /// Negotiated revision (initialize result, else `MCP-Protocol-Version`).
    pub revision: Option<String>,
    /// Counts.
    pub totals: Quantity,
    /// Batch metrics.
    pub metrics: BatchMetrics,
    /// Latency quantiles of the session's pairs (ms).
    pub latency_ms: Option<Quantiles>,
    /// Findings per kind (kinds with none left out).
    pub findings_by_kind: std::collections::BTreeMap<&'static str, u64>,
    /// Progress notifications and the requests they report on.
    pub progress: ProgressSummary,
    /// Diagnosis hints that follow from the metrics.
    pub hints: Vec<String>,
    /// Its operations per kind (DESIGN.md rule 14); left out when none.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub operations: std::collections::BTreeMap<&'static str, operations::KindSummary>,
}

/// Progress notifications of a session (FORMATS.md §3.5), linked to their
/// request by `progressToken`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ProgressSummary {
    /// Requests that asked for progress and got at least one notification.
    pub requests_with_progress: u64,
    /// Progress notifications linked to a request.
    pub linked: u64,
    /// Linked ones that came after the request's response.
    pub after_response: u64,
    /// Progress notifications whose token names no request.
    pub unlinked: u64,
    /// Longest silence (ms) between a request, its progress and its response.
    pub longest_silence_ms: Option<f64>,
}

/// A server's self-description from `initialize`.
#[derive(Debug, Clone, Serialize)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
}

/// Diagnosis hints (DESIGN.md "Metrics"): unknown-id and missing responses
/// together point at client id reuse; null-id responses alone point at
/// malformed batch elements.
pub fn hints(count: impl Fn(FindingKind) -> u64, m: &BatchMetrics) -> Vec<String> {
    let mut out = Vec::new();
    let unknown = count(FindingKind::UnknownIdResponse);
    let missing = count(FindingKind::MissingResponse);
    let null_ids = count(FindingKind::NullIdError);
    if unknown > 0 && missing > 0 {
        out.push(format!(
            "{unknown} unknown-id and {missing} missing responses together: the server may be echoing wrong ids, or the client reusing ids"
        ));
    }
    if null_ids > 0 && unknown == 0 && missing == 0 {
        out.push(format!("{null_ids} null-id error(s) alone: some message or batch element was malformed and could not be read"));
    }
    if m.response_count_mismatch > 0 {
        out.push(format!(
            "{} batch(es) got a different number of responses than they had requests",
            m.response_count_mismatch
        ));
    }
    if count(FindingKind::OutOfOrderBatch) > 0 {
        out.push("batch responses came back reordered: any client that pairs by position mis-assigns results".into());
    }
    out
}

impl Analysis {
    /// Per-session summaries, in session order.
    pub fn session_summaries(&self) -> Vec<SessionSummary> {
        // Findings a capture gap explains, per (input, session) and kind:
        // hints never blame a peer for what the capture lost.
        let mut gaps: HashMap<(usize, &str, FindingKind), u64> = HashMap::new();
        for f in self.findings.iter().filter(|f| f.gap) {
            *gaps
                .entry((f.input, f.session.as_str(), f.kind))
                .or_default() += 1;
        }
        self.sessions
            .iter()
            .map(|r| {
                let by_kind: std::collections::BTreeMap<&'static str, u64> =
                    r.kind_counts.iter().map(|(k, &n)| (k.name(), n)).collect();
                let metrics = batch_metrics(&[r]);
                let faults = |k: FindingKind| {
                    let all = by_kind.get(k.name()).copied().unwrap_or(0);
                    let lost = gaps.get(&(r.input, r.name.as_str(), k)).copied();
                    let read = if k == FindingKind::NullIdError {
                        r.addressed_null_ids
                    } else {
                        0
                    };
                    all.saturating_sub(lost.unwrap_or(0)).saturating_sub(read)
                };
                let hints = hints(faults, &metrics);
                let mut progress = ProgressSummary {
                    unlinked: r.unlinked_progress,
                    ..Default::default()
                };
                for p in r.progress.values().filter(|p| p.notifications > 0) {
                    progress.requests_with_progress += 1;
                    progress.linked += u64::from(p.notifications);
                    progress.after_response += u64::from(p.after_response);
                    if let Some(g) = p.longest_silence {
                        let g = g as f64 / 1000.0;
                        progress.longest_silence_ms =
                            Some(progress.longest_silence_ms.map_or(g, |x: f64| x.max(g)));
                    }
                }
                let lat: Vec<Micros> = r.latencies().collect();
                SessionSummary {
                    name: r.name.clone(),
                    input: r.input,
                    server: r.server.as_ref().map(|(n, v)| ServerInfo {
                        name: n.clone(),
                        version: v.clone(),
                    }),
                    revision: r.revision.clone(),
                    totals: r.counts,
                    metrics,
                    latency_ms: latency::quantiles(&lat),
                    findings_by_kind: by_kind,
                    progress,
                    hints,
                    operations: operations::summarize([r]),
                }
            })
            .collect()
    }

    /// Findings per kind over the run (every kind, zeros included).
    pub fn findings_by_kind(&self) -> Vec<(FindingKind, u64)> {
        FindingKind::ALL
            .iter()
            .map(|&k| {
                (
                    k,
                    self.findings.iter().filter(|f| f.kind == k).count() as u64,
                )
            })
            .collect()
    }
}

/// One input's share of a run (issue 5, nightly batch mode: a summary per
/// input beside the aggregate).
impl Analysis {
    /// Splits the run into one analysis per input, in input order, moving
    /// each input's sessions and findings out (no per-request row is
    /// copied). Totals, batch metrics and latency quantiles are recomputed
    /// over that input's sessions; every finding is kept as the run
    /// reported it, so `slow_tail` outside batches stays judged against the
    /// run's capture-wide median (rule 10), not the input's own.
    ///
    /// Inputs without a session or finding are absent. A part's input and
    /// file ids are rebased to input 0 (file ids 0 and 1), so it renders
    /// with a one-element inputs list. Rotated files read as one log are
    /// one input: the first (oldest) file's.
    pub fn split_by_input(mut self) -> Vec<(usize, Analysis)> {
        // Both are in input order already; a stable sort keeps it certain.
        self.sessions.sort_by_key(|s| s.input);
        self.findings.sort_by_key(|f| f.input);
        let mut parts: Vec<(usize, Analysis)> = Vec::new();
        let mut findings = self.findings.into_iter().peekable();
        let mut sessions = self.sessions.into_iter().peekable();
        loop {
            let next = match (sessions.peek(), findings.peek()) {
                (Some(s), Some(f)) => s.input.min(f.input),
                (Some(s), None) => s.input,
                (None, Some(f)) => f.input,
                (None, None) => break,
            };
            let mut part = Analysis::default();
            while let Some(s) = sessions.next_if(|s| s.input == next) {
                part.sessions.push(s);
            }
            while let Some(f) = findings.next_if(|f| f.input == next) {
                part.findings.push(f);
            }
            let base = report_file_base(next);
            for r in &mut part.sessions {
                r.input = 0;
                for f in &mut r.findings {
                    f.input = 0;
                    f.file = f.file.saturating_sub(base);
                }
                for q in &mut r.requests {
                    q.file = q.file.saturating_sub(base);
                }
            }
            for f in &mut part.findings {
                f.input = 0;
                f.file = f.file.saturating_sub(base);
            }
            let mut lat = Vec::new();
            for r in &part.sessions {
                part.totals += r.counts;
                lat.extend(r.latencies());
            }
            part.latency = latency::quantiles(&lat);
            let refs: Vec<&SessionResult> = part.sessions.iter().collect();
            part.metrics = batch_metrics(&refs);
            parts.push((next, part));
        }
        parts
    }

    /// Paired, not cancelled requests whose latency is unknown, by reason
    /// ([`engine::Req::latency_unknown`]; `summary.json`
    /// `latency_ms.unknown`, DESIGN.md rule 10).
    pub fn latency_unknown(&self) -> std::collections::BTreeMap<&'static str, u64> {
        let mut by = std::collections::BTreeMap::new();
        for q in self.sessions.iter().flat_map(|s| &s.requests) {
            if q.answered && !q.cancelled && q.latency.is_none() {
                *by.entry(q.latency_unknown.unwrap_or("no_time"))
                    .or_insert(0) += 1;
            }
        }
        by
    }

    /// The most severe finding's severity, `None` without findings.
    pub fn worst_severity(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity()).max()
    }
}

/// The first file id of input `input` (two per input: a per-direction
/// pair's halves; `report::file_id`).
fn report_file_base(input: usize) -> u32 {
    u32::try_from(input)
        .unwrap_or(u32::MAX / 2)
        .saturating_mul(2)
}

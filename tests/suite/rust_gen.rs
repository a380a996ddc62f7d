//! The Rust traffic generator (`gen/`, crate `mcp-audit-gen`) as an oracle:
//! its manifest, computed from the plan of what it wrote, must equal what
//! mcp-audit finds (totals, findings per kind, latency quantiles) exactly,
//! on hand-checked one-fault sessions and on random sessions (proptest);
//! and `tools/mcp_reference.py`, the Python ground-truth pass, must agree
//! with the same manifest on the same text, so the two oracles check each
//! other.

use std::collections::BTreeMap;
use std::process::Command;

use mcp_audit::analyze::{Config, FindingKind, operations};
use mcp_audit::ingest::{self, Input};
use mcp_audit::pipeline;
use mcp_audit_gen::{Fault, Format, Manifest, OpCounts, Options, generate};
use proptest::prelude::*;

use crate::common::{out_dir, tool};

/// Generates `opts` into memory: (text, manifest).
fn gen_text(opts: &Options) -> (String, Manifest) {
    let mut buf = Vec::new();
    let m = generate(opts, &mut buf).expect("generate");
    let text = String::from_utf8(buf).expect("UTF-8");
    assert_eq!(m.bytes, text.len() as u64);
    (text, m)
}

/// What mcp-audit reads: totals in the manifest's field order, findings
/// per kind (every kind), (count, p50, p90, p99, max), operations per kind.
type Audit = (
    [u64; 8],
    BTreeMap<&'static str, u64>,
    Option<[f64; 5]>,
    BTreeMap<&'static str, OpCounts>,
);

/// mcp-audit's reading of `text`.
fn audit(text: &str) -> Audit {
    let fmt = ingest::detect_format(text);
    let p = ingest::parse(
        Input {
            file: 0,
            name: "gen",
            text,
        },
        fmt,
    );
    let run = pipeline::analyze_parsed(
        &Config::default(),
        false,
        vec![("gen".to_string(), text.len() as u64, p)],
    );
    let a = &run.analysis;
    let t = &a.totals;
    let totals = [
        t.messages,
        t.requests,
        t.notifications,
        t.responses,
        t.batches,
        t.sessions,
        t.pairs,
        t.non_json_lines,
    ];
    let kinds = a
        .findings_by_kind()
        .into_iter()
        .map(|(k, n): (FindingKind, u64)| (k.name(), n))
        .collect();
    let lat = a
        .latency
        .as_ref()
        .map(|q| [q.count as f64, q.p50, q.p90, q.p99, q.max]);
    let ops = operations::summarize(&a.sessions)
        .into_iter()
        .map(|(k, o)| {
            let c = OpCounts {
                count: o.count,
                open: o.open,
                failed: o.failed,
                cancelled: o.cancelled,
                requests: o.requests,
                notifications: o.notifications,
            };
            (k, c)
        })
        .collect();
    (totals, kinds, lat, ops)
}

fn manifest_totals(m: &Manifest) -> [u64; 8] {
    let t = &m.totals;
    [
        t.messages,
        t.requests,
        t.notifications,
        t.responses,
        t.batches,
        t.sessions,
        t.pairs,
        t.non_json_lines,
    ]
}

fn manifest_latency(m: &Manifest) -> Option<[f64; 5]> {
    let q = |x: f64| m.quantile(x).map(|v| v as f64);
    Some([
        m.latencies_ms.len() as f64,
        q(0.5)?,
        q(0.9)?,
        q(0.99)?,
        q(1.0)?,
    ])
}

/// mcp-audit's reading of `text` equals manifest `m`: every total, every
/// kind (one the manifest does not name must be 0), the latency quantiles,
/// the operations' counts.
fn assert_agrees(text: &str, m: &Manifest, what: &str) {
    let (totals, kinds, lat, ops) = audit(text);
    assert_eq!(ops, m.operations, "{what}: operations");
    assert_eq!(
        totals,
        manifest_totals(m),
        "{what}: totals (messages, requests, notifications, responses, batches, sessions, pairs, non_json_lines)"
    );
    for (k, n) in &kinds {
        assert_eq!(
            *n,
            m.findings_by_kind.get(k).copied().unwrap_or(0),
            "{what}: {k}"
        );
    }
    for k in m.findings_by_kind.keys() {
        assert!(kinds.contains_key(k), "{what}: {k} is no mcp-audit kind");
    }
    assert_eq!(
        lat,
        manifest_latency(m),
        "{what}: latency count, p50, p90, p99, max"
    );
}

/// A fault, the totals it gives (see below) and the findings.
type OneFault = (Fault, [u64; 7], &'static [(&'static str, u64)]);

/// One session of one fault step: initialize, notifications/initialized,
/// then exactly one fault (`messages` 4: the three messages of the start
/// are fewer, any step adds at least one). Expected values by hand from
/// the step's shape (gen/src/lib.rs `Session::fault`): (messages,
/// requests, notifications, responses, batches, pairs, non_json_lines),
/// the findings. The start is 1 request, 1 response, 1 notification, 1
/// pair.
#[test]
fn one_fault_sessions_match_by_hand() {
    #[rustfmt::skip]
    let table: [OneFault; 20] = [
        // two requests id k before either answer, both answered in order
        (Fault::DuplicateId, [7, 3, 1, 3, 0, 3, 0], &[("duplicate_id", 1)]),
        // a ping reusing id 1 (initialize's, answered)
        (Fault::IdReused, [5, 2, 1, 2, 0, 2, 0], &[("id_reused", 1)]),
        // a normal pair, then a result for an id never sent
        (Fault::UnknownIdResponse, [6, 2, 1, 3, 0, 2, 0], &[("unknown_id_response", 1)]),
        // a normal pair, then its response again
        (Fault::DuplicateResponse, [6, 2, 1, 3, 0, 2, 0], &[("duplicate_response", 1)]),
        (Fault::MissingResponse, [4, 2, 1, 1, 0, 1, 0], &[("missing_response", 1)]),
        // 61-90 s; only 2 latencies, fewer than the 5 slow_tail needs
        (Fault::LateResponse, [5, 2, 1, 2, 0, 2, 0], &[("late_response", 1), ("slow_tail", 0)]),
        // request + notifications/cancelled naming it, never answered
        (Fault::CancelledRequest, [5, 2, 2, 1, 0, 1, 0], &[("cancelled_request", 1), ("missing_response", 0)]),
        (Fault::NullIdError, [6, 2, 1, 3, 0, 2, 0], &[("null_id_error", 1)]),
        // params a string, answered by -32602: still pairs
        (Fault::InvalidRequest, [5, 2, 1, 2, 0, 2, 0], &[("invalid_request", 1)]),
        (Fault::BadJsonrpcVersion, [5, 2, 1, 2, 0, 2, 0], &[("bad_jsonrpc_version", 1)]),
        (Fault::ResultAndError, [5, 2, 1, 2, 0, 2, 0], &[("result_and_error", 1)]),
        (Fault::NeitherResultNorError, [5, 2, 1, 2, 0, 2, 0], &[("neither_result_nor_error", 1)]),
        // a normal pair, then a truncated server line (not a message)
        (Fault::NonJsonLine, [5, 2, 1, 2, 0, 2, 1], &[("non_json_line", 1)]),
        // 4-9 s, but 2 latencies are too few to judge
        (Fault::SlowTail, [5, 2, 1, 2, 0, 2, 0], &[("slow_tail", 0)]),
        // ids N.5 and null are not valid: never missing_response
        (Fault::FractionalId, [4, 2, 1, 1, 0, 1, 0], &[("fractional_id", 1), ("missing_response", 0)]),
        (Fault::NullRequestId, [4, 2, 1, 1, 0, 1, 0], &[("null_request_id", 1), ("missing_response", 0)]),
        // 9007199254740995, echoed exactly: pairs
        (Fault::IdPrecisionRisk, [5, 2, 1, 2, 0, 2, 0], &[("id_precision_risk", 1)]),
        // integer id N answered as "N": pairs
        (Fault::IdTypeChanged, [5, 2, 1, 2, 0, 2, 0], &[("id_type_changed", 1)]),
        // a notification answered by a result with id null (no request
        // unanswered); HAR adds notification_batch_awaited below
        (Fault::NotificationReplied, [5, 1, 2, 2, 0, 1, 0], &[("notification_replied", 1), ("unknown_id_response", 0)]),
        // [] (an array, no message) drawing one -32600 with id null
        (Fault::EmptyBatch, [4, 1, 1, 2, 1, 1, 0], &[("empty_batch", 1), ("null_id_error", 1)]),
    ];
    for (fault, t, kinds) in table {
        for format in Format::ALL.into_iter().filter(|&f| fault.fits(f)) {
            for seed in [1, 2] {
                let opts = Options {
                    format,
                    seed,
                    sessions: 1,
                    messages: 4,
                    faults: 1.0,
                    batch_sessions: if fault == Fault::EmptyBatch { 1.0 } else { 0.0 },
                    fault_kinds: Some(vec![fault]),
                    ..Options::default()
                };
                let (text, m) = gen_text(&opts);
                let what = format!("{} in {} seed {seed}", fault.name(), format.name());
                let mt = manifest_totals(&m);
                assert_eq!(
                    [mt[0], mt[1], mt[2], mt[3], mt[4], mt[6], mt[7]],
                    t,
                    "{what}: manifest totals"
                );
                assert_eq!(mt[5], 1, "{what}: one session");
                // The POST of one notification is answered by more than an
                // empty 202.
                let har: &[(&str, u64)] =
                    if fault == Fault::NotificationReplied && format == Format::Har {
                        &[("notification_batch_awaited", 1)]
                    } else {
                        &[]
                    };
                let found: u64 = m.findings_by_kind.values().sum();
                let want: u64 = kinds.iter().chain(har).map(|k| k.1).sum();
                assert_eq!(found, want, "{what}: no other finding");
                for (k, n) in kinds.iter().chain(har) {
                    assert_eq!(m.findings_by_kind[k], *n, "{what}: {k}");
                }
                assert_eq!(m.injected_by_kind[fault.name()], 1, "{what}: injected");
                assert_agrees(&text, &m, &what);
            }
        }
    }
}

/// A batch answered in reverse order (2 to 4 requests, so the counts are
/// checked through the batch size `k` the text shows).
#[test]
fn batch_faults_match_by_hand() {
    for format in Format::ALL {
        for (fault, kinds) in [
            (Fault::OutOfOrderBatch, &[("out_of_order_batch", 1)][..]),
            (
                Fault::ResponseCountMismatch,
                &[("response_count_mismatch", 1), ("missing_response", 1)][..],
            ),
        ] {
            let opts = Options {
                format,
                seed: 3,
                sessions: 1,
                messages: 4,
                faults: 1.0,
                batch_sessions: 1.0,
                fault_kinds: Some(vec![fault]),
                ..Options::default()
            };
            let (text, m) = gen_text(&opts);
            let what = format!("{} in {}", fault.name(), format.name());
            let k = m.totals.requests - 1;
            assert!((2..=4).contains(&k), "{what}: batch of {k}");
            let answered = if fault == Fault::OutOfOrderBatch {
                k
            } else {
                k - 1
            };
            assert_eq!(
                manifest_totals(&m),
                [
                    3 + k + answered,
                    1 + k,
                    1,
                    1 + answered,
                    2,
                    1,
                    1 + answered,
                    0
                ],
                "{what}"
            );
            for (kind, n) in kinds {
                assert_eq!(m.findings_by_kind[kind], *n, "{what}: {kind}");
            }
            assert_agrees(&text, &m, &what);
        }
    }
}

/// Totals a fault step adds, by hand: (messages, requests, notifications,
/// responses, batches, pairs).
type Step = [u64; 6];

/// A fault, the totals of its step (`None`: a shape of random size,
/// checked in [`check_issue_12_step`]) and its findings.
type NewFault = (Fault, Option<Step>, &'static [(&'static str, u64)]);

/// The issue-12 kinds (and the three reply and batch kinds ported from
/// gen_traffic.py with them) as generator faults: sessions of one kind only
/// (`faults` 1.0, `messages` 4: one step, or two in a 2026-07-28 session
/// that opened no listen), in every format the kind fits. Per injected
/// step, by hand from its shape (gen/src/lib.rs): the totals it adds to
/// the start (initialize, its result, notifications/initialized; or
/// server/discover, its result and, when opened, a listen with its
/// acknowledgement) and its findings, nothing else.
#[test]
fn issue_12_faults_match_by_hand() {
    let pair: Step = [2, 1, 0, 1, 0, 1];
    #[rustfmt::skip]
    let table: [NewFault; 16] = [
        // an error with id "server-error": answers nothing
        (Fault::PlaceholderIdError, Some([2, 1, 0, 1, 0, 0]), &[("placeholder_id_error", 1), ("missing_response", 1)]),
        // a normal pair, then progress for token orphan-N
        (Fault::UnknownProgressToken, Some([3, 1, 1, 1, 0, 1]), &[("unknown_progress_token", 1)]),
        (Fault::ProtocolVersionMismatch, Some(pair), &[("protocol_version_mismatch", 1)]),
        (Fault::OriginNotRejected, Some(pair), &[("origin_not_rejected", 1)]),
        // [request] answered by a bare object: one array
        (Fault::BatchReplyNotArray, Some([2, 1, 0, 1, 1, 1]), &[("batch_reply_not_array", 1)]),
        // a request answered by [result]: one array
        (Fault::SingleRequestAnsweredWithBatch, Some([2, 1, 0, 1, 1, 1]), &[("single_request_answered_with_batch", 1)]),
        (Fault::RetiredErrorCode, Some(pair), &[("retired_error_code", 1)]),
        // request, notifications/cancelled, then the result: paired
        (Fault::AnsweredAfterCancel, Some([3, 1, 1, 1, 0, 1]), &[("cancelled_request", 1), ("answered_after_cancel", 1)]),
        (Fault::HeaderMismatch, Some(pair), &[("header_mismatch", 1)]),
        // variable shapes: checked below
        (Fault::ProgressAfterResponse, None, &[("progress_after_response", 1)]),
        (Fault::BatchRejectedWhole, None, &[("batch_rejected_whole", 1), ("response_count_mismatch", 1)]),
        (Fault::EmptyBatchNotRejected, None, &[("empty_batch", 1), ("empty_batch_not_rejected", 1)]),
        (Fault::MrtrStateChanged, None, &[("mrtr_state_changed", 1)]),
        // 2 or 3 notifications in one array: checked below
        (Fault::NotificationBatchReplied, None, &[("notification_batch_replied", 1)]),
        (Fault::NotificationBatchAwaited, None, &[("notification_batch_awaited", 1)]),
        // (2025-06-18) a batch and its reply array, each a finding
        (Fault::BatchAfterVersionRemoved, None, &[("batch_after_version_removed", 2)]),
    ];
    for (fault, step, kinds) in table {
        for format in Format::ALL.into_iter().filter(|&f| fault.fits(f)) {
            for seed in 1..=4 {
                let opts = Options {
                    format,
                    seed,
                    sessions: 1,
                    // a 2026-07-28 start with a listen has 4 messages
                    messages: if fault.needs_modern() { 5 } else { 4 },
                    faults: 1.0,
                    batch_sessions: if fault.needs_batch() { 1.0 } else { 0.0 },
                    modern_sessions: if fault.needs_modern() { 1.0 } else { 0.0 },
                    fault_kinds: Some(vec![fault]),
                    ..Options::default()
                };
                let (text, m) = gen_text(&opts);
                let what = format!("{} in {} seed {seed}", fault.name(), format.name());
                check_issue_12_step((fault, step, kinds), format, &m, &what);
                assert_agrees(&text, &m, &what);
            }
        }
    }
}

/// The manifest of a one-kind session against the hand-made shape.
fn check_issue_12_step(case: NewFault, format: Format, m: &Manifest, what: &str) {
    let (fault, step, kinds) = case;
    let listens = m.operations.get("listen").map_or(0, |o| o.count);
    let start: Step = if fault.needs_modern() {
        [2 + 2 * listens, 1 + listens, listens, 1, 0, 1]
    } else {
        [3, 1, 1, 1, 0, 1]
    };
    let t = manifest_totals(m);
    let got: Vec<u64> = [t[0], t[1], t[2], t[3], t[4], t[6]]
        .iter()
        .zip(start)
        .map(|(a, b)| a - b)
        .collect();
    // One step, except where it can add fewer messages than `messages`
    // asks for: a 2026-07-28 one after a start without a listen, an
    // empty 202 (then the next step is the same fault).
    let n = m.injected_by_kind.get(fault.name()).copied().unwrap_or(0);
    assert!(n >= 1, "{what}: {n} steps");
    let mut want: BTreeMap<&str, u64> = kinds.iter().map(|(k, c)| (*k, c * n)).collect();
    match step {
        Some(s) => assert_eq!(got, s.map(|x| x * n), "{what}: totals"),
        None => variable_steps(fault, format, n, &got, m, &mut want, what),
    }
    let found: BTreeMap<&str, u64> = m
        .findings_by_kind
        .iter()
        .filter(|(_, c)| **c > 0)
        .map(|(k, c)| (*k, *c))
        .collect();
    want.retain(|_, c| *c > 0);
    assert_eq!(found, want, "{what}: findings");
}

/// `n` steps of a fault of random size added `got` (see [`Step`]): the
/// relations between the counts, by hand, and the findings they imply.
fn variable_steps(
    fault: Fault,
    format: Format,
    n: u64,
    got: &[u64],
    m: &Manifest,
    want: &mut BTreeMap<&str, u64>,
    what: &str,
) {
    let [msgs, reqs, notes, resps, batches, pairs] = [0, 1, 2, 3, 4, 5].map(|i| got[i]);
    match fault {
        Fault::ProgressAfterResponse => {
            // 1 to 3 progress notifications before the result, one after
            assert!((2 * n..=4 * n).contains(&notes), "{what}: {notes}");
            assert_eq!(
                [msgs, reqs, resps, batches, pairs],
                [2 * n + notes, n, n, 0, n]
            );
        }
        Fault::BatchRejectedWhole => {
            // 2 to 4 requests in one array, one id-less error
            assert!((2 * n..=4 * n).contains(&reqs), "{what}: {reqs}");
            assert_eq!([msgs, notes, resps, batches, pairs], [reqs + n, 0, n, n, 0]);
            want.insert("missing_response", reqs);
        }
        Fault::NotificationBatchReplied | Fault::NotificationBatchAwaited => {
            // [n, n(, n)] answered by [] or, past --slow, by an empty 202
            assert!((2 * n..=3 * n).contains(&notes), "{what}: {notes}");
            let arrays = if fault == Fault::NotificationBatchReplied {
                2 * n
            } else {
                n
            };
            assert_eq!(
                [msgs, reqs, resps, batches, pairs],
                [notes, 0, 0, arrays, 0]
            );
            if fault == Fault::NotificationBatchReplied && format == Format::Har {
                want.insert("notification_batch_awaited", n);
            }
        }
        Fault::BatchAfterVersionRemoved => {
            // 2 to 4 requests answered in order by one array
            assert!((2 * n..=4 * n).contains(&reqs), "{what}: {reqs}");
            assert_eq!(
                [msgs, notes, resps, batches, pairs],
                [2 * reqs, 0, reqs, 2 * n, reqs]
            );
        }
        Fault::EmptyBatchNotRejected => {
            // [] answered by an id-null -32602 (the resps of them) or 202
            assert_eq!([msgs, reqs, notes, batches, pairs], [resps, 0, 0, n, 0]);
            want.insert("null_id_error", resps);
        }
        _ => {
            // MRTR: 2 to 4 rounds, each a pair
            assert!((2 * n..=4 * n).contains(&reqs), "{what}: {reqs}");
            assert_eq!(
                [msgs, notes, resps, batches, pairs],
                [2 * reqs, 0, reqs, 0, reqs]
            );
            let o = m.operations["mrtr"];
            assert_eq!([o.count, o.requests, o.open, o.failed], [n, reqs, 0, 0]);
        }
    }
}

/// Healthy 2026-07-28 sessions (no fault): MRTR rounds, tasks, listens
/// and ordinary calls give no finding at all, and the operations the
/// manifest counts are mcp-audit's.
#[test]
fn healthy_2026_sessions_have_no_finding() {
    for format in Format::ALL.into_iter().filter(|f| f.modern()) {
        let opts = Options {
            format,
            seed: 7,
            sessions: 6,
            messages: 300,
            faults: 0.0,
            modern_sessions: 1.0,
            ..Options::default()
        };
        let (text, m) = gen_text(&opts);
        let what = format!("healthy 2026-07-28 {}", format.name());
        assert_eq!(m.findings_by_kind.values().sum::<u64>(), 0, "{what}");
        for k in ["mrtr", "task", "listen"] {
            assert!(
                m.operations.get(k).is_some_and(|o| o.count > 0),
                "{what}: {k}"
            );
        }
        assert_agrees(&text, &m, &what);
    }
}

/// Same options, same bytes; another seed, other bytes.
#[test]
fn deterministic_per_seed() {
    for format in Format::ALL {
        let opts = Options {
            format,
            seed: 9,
            sessions: 3,
            faults: 0.1,
            ..Options::default()
        };
        let (a, ma) = gen_text(&opts);
        let (b, mb) = gen_text(&opts);
        assert_eq!(a, b, "{}", format.name());
        assert_eq!(ma.to_json(&opts), mb.to_json(&opts));
        let (c, _) = gen_text(&Options { seed: 10, ..opts });
        assert_ne!(a, c, "{}", format.name());
    }
}

/// A corpus of about 2 MB (`size_bytes`) stops at the first session that
/// reaches it and agrees as a whole (slow_tail judged over the capture).
#[test]
fn size_bounded_corpus_agrees() {
    for format in Format::ALL {
        let opts = Options {
            format,
            seed: 200,
            faults: 0.03,
            size_bytes: Some(2_000_000),
            ..Options::default()
        };
        let (text, m) = gen_text(&opts);
        assert!(
            text.len() >= 2_000_000 && text.len() < 2_300_000,
            "{}",
            text.len()
        );
        assert!(m.totals.sessions > 5);
        assert_agrees(&text, &m, format.name());
    }
}

fn fault_kinds() -> impl Strategy<Value = Option<Vec<Fault>>> {
    prop::option::of(prop::sample::subsequence(Fault::ALL.to_vec(), 1..6))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random sessions of every format, on 2025-03-26, 2025-06-18 and
    /// 2026-07-28 (healthy MRTR rounds, tasks and listens between the
    /// faults): mcp-audit equals the manifest.
    #[test]
    fn random_sessions_agree(
        format in prop::sample::select(Format::ALL.to_vec()),
        seed in any::<u64>(),
        sessions in 1u32..5,
        messages in 4u32..160,
        faults in 0.0f64..0.6,
        batch_rate in 0.0f64..0.6,
        batch_sessions in 0.0f64..=1.0,
        modern_sessions in prop_oneof![Just(0.0), 0.0f64..=1.0],
        fault_kinds in fault_kinds(),
    ) {
        let opts = Options { format, seed, sessions, messages, faults, batch_rate, batch_sessions, modern_sessions, size_bytes: None, fault_kinds };
        let (text, m) = gen_text(&opts);
        assert_agrees(&text, &m, &format!("{opts:?}"));
    }
}

/// Kinds `tools/mcp_reference.py` does not implement (issue 12's HTTP and
/// cancellation rules): left out of the cross-check.
const NOT_IN_REFERENCE: [Fault; 4] = [
    Fault::OriginNotRejected,
    Fault::HeaderMismatch,
    Fault::RetiredErrorCode,
    Fault::AnsweredAfterCancel,
];

/// The Python reference pass (`tools/mcp_reference.py`) reads the Rust
/// generator's text and reports the Rust manifest's totals, findings per
/// kind, latency quantiles and operations, for every format and a few
/// seeds with every fault kind it implements on, a third of the sessions
/// on 2026-07-28.
#[test]
fn python_reference_agrees_with_rust_manifest() {
    let dir = out_dir("rust_gen_reference");
    let inject: Vec<Fault> = Fault::ALL
        .into_iter()
        .filter(|f| !NOT_IN_REFERENCE.contains(f))
        .collect();
    for format in Format::ALL {
        let mut injected: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for seed in [1u64, 2, 3, 4] {
            let opts = Options {
                format,
                seed,
                sessions: 6,
                // enough faults that over 4 seeds each of ~30 kinds comes up
                messages: 200,
                faults: 0.35,
                batch_rate: 0.3,
                modern_sessions: 0.35,
                fault_kinds: Some(inject.clone()),
                ..Options::default()
            };
            let path = dir.join(format!("{}-{seed}.{}", format.name(), format.ext()));
            let m = generate(&opts, std::fs::File::create(&path).expect("create")).expect("gen");
            let o = Command::new("python3")
                .arg(tool("mcp_reference.py"))
                .arg(&path)
                .args(["--format", format.name(), "--summary-only"])
                .output()
                .expect("python3 tools/mcp_reference.py");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("reference JSON");
            let what = format!("{} seed {seed}", format.name());
            let t = &r["totals"];
            let mt = manifest_totals(&m);
            for (i, k) in [
                "messages",
                "requests",
                "notifications",
                "responses",
                "batches",
                "sessions",
                "pairs",
                "non_json_lines",
            ]
            .into_iter()
            .enumerate()
            {
                assert_eq!(t[k].as_u64(), Some(mt[i]), "{what}: totals.{k}");
            }
            let size = std::fs::metadata(&path).expect("stat").len();
            assert_eq!(size, m.bytes, "{what}: bytes");
            let kinds = r["findings_by_kind"].as_object().expect("findings_by_kind");
            for (k, n) in kinds {
                assert_eq!(
                    n.as_u64(),
                    Some(m.findings_by_kind.get(k.as_str()).copied().unwrap_or(0)),
                    "{what}: {k}"
                );
            }
            for (k, n) in &m.findings_by_kind {
                let got = kinds.get(*k).and_then(|v| v.as_u64());
                if NOT_IN_REFERENCE.iter().any(|f| f.name() == *k) {
                    // Not injected, and a kind the reference does not know.
                    assert_eq!((*n, got), (0, None), "{what}: {k}");
                } else {
                    assert_eq!(got, Some(*n), "{what}: {k}");
                }
            }
            let ops = &r["operations"];
            for (k, o) in &m.operations {
                let got: Vec<Option<u64>> = [
                    "count",
                    "open",
                    "failed",
                    "cancelled",
                    "requests",
                    "notifications",
                ]
                .iter()
                .map(|f| ops[*k][*f].as_u64())
                .collect();
                let want = [
                    o.count,
                    o.open,
                    o.failed,
                    o.cancelled,
                    o.requests,
                    o.notifications,
                ];
                assert_eq!(got, want.map(Some), "{what}: operations {k}");
            }
            let l = &r["latency_ms"];
            let got: Option<[f64; 5]> = (|| {
                Some([
                    l["count"].as_f64()?,
                    l["p50"].as_f64()?,
                    l["p90"].as_f64()?,
                    l["p99"].as_f64()?,
                    l["max"].as_f64()?,
                ])
            })();
            assert_eq!(got, manifest_latency(&m), "{what}: latency");
            injected.extend(m.injected_by_kind.keys().copied());
        }
        // Over the seeds, every fault kind the format can hold was injected.
        let fits: Vec<&str> = inject
            .iter()
            .filter(|f| f.fits(format))
            .map(|f| f.name())
            .collect();
        assert_eq!(
            injected.len(),
            fits.len(),
            "{}: {injected:?}",
            format.name()
        );
    }
}

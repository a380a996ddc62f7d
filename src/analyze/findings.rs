//! The findings catalogue of DESIGN.md: kind names are fixed and used by
//! every output.

use serde::Serialize;

use crate::record::{Direction, Id, Location};

/// Severity of a finding (DESIGN.md catalogue), ordered info < warning < error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational.
    Info,
    /// Likely a fault.
    Warning,
    /// A fault.
    Error,
}

impl Severity {
    /// `"info"`, `"warning"`, `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! kinds {
    ($($variant:ident => $name:literal, $sev:ident, $batch:literal;)*) => {
        /// A finding kind, in the catalogue's order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum FindingKind {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }
        impl FindingKind {
            /// Every kind in catalogue order.
            pub const ALL: &'static [FindingKind] = &[$(FindingKind::$variant),*];
            /// The fixed kind name.
            pub fn name(self) -> &'static str {
                match self { $(FindingKind::$variant => $name),* }
            }
            /// The kind of a fixed kind name, `None` for any other text.
            pub fn from_name(name: &str) -> Option<FindingKind> {
                match name { $($name => Some(FindingKind::$variant),)* _ => None }
            }
            /// The catalogue severity.
            pub fn severity(self) -> Severity {
                match self { $(FindingKind::$variant => Severity::$sev),* }
            }
            /// Batch-level kinds carry the list of the batch's member ids
            /// (DESIGN.md rule 8).
            pub fn is_batch_level(self) -> bool {
                match self { $(FindingKind::$variant => $batch),* }
            }
        }
    };
}

kinds! {
    OutOfOrderBatch => "out_of_order_batch", Warning, true;
    DuplicateId => "duplicate_id", Error, false;
    IdReused => "id_reused", Warning, false;
    UnknownIdResponse => "unknown_id_response", Error, false;
    DuplicateResponse => "duplicate_response", Error, false;
    MissingResponse => "missing_response", Error, false;
    LateResponse => "late_response", Warning, false;
    CancelledRequest => "cancelled_request", Info, false;
    NullIdError => "null_id_error", Warning, false;
    InvalidRequest => "invalid_request", Error, false;
    BadJsonrpcVersion => "bad_jsonrpc_version", Error, false;
    ResultAndError => "result_and_error", Error, false;
    NeitherResultNorError => "neither_result_nor_error", Error, false;
    EmptyBatch => "empty_batch", Error, true;
    NotificationBatchReplied => "notification_batch_replied", Error, true;
    NotificationBatchAwaited => "notification_batch_awaited", Warning, true;
    ResponseCountMismatch => "response_count_mismatch", Error, true;
    FractionalId => "fractional_id", Warning, false;
    NullRequestId => "null_request_id", Warning, false;
    IdTypeChanged => "id_type_changed", Error, false;
    IdPrecisionRisk => "id_precision_risk", Warning, false;
    BatchAfterVersionRemoved => "batch_after_version_removed", Warning, true;
    SseReplayDuplicate => "sse_replay_duplicate", Info, false;
    StreamClosedBeforeResponse => "stream_closed_before_response", Error, false;
    NonJsonLine => "non_json_line", Info, false;
    SlowTail => "slow_tail", Warning, false;
    NotificationReplied => "notification_replied", Error, false;
    BatchReplyNotArray => "batch_reply_not_array", Warning, true;
    BatchRejectedWhole => "batch_rejected_whole", Error, true;
    EmptyBatchNotRejected => "empty_batch_not_rejected", Warning, true;
    SingleRequestAnsweredWithBatch => "single_request_answered_with_batch", Warning, true;
    PlaceholderIdError => "placeholder_id_error", Warning, false;
    ProgressAfterResponse => "progress_after_response", Warning, false;
    UnknownProgressToken => "unknown_progress_token", Warning, false;
    ProtocolVersionMismatch => "protocol_version_mismatch", Warning, false;
    MrtrStateChanged => "mrtr_state_changed", Error, false;
    HeaderMismatch => "header_mismatch", Error, false;
    RetiredErrorCode => "retired_error_code", Warning, false;
    OriginNotRejected => "origin_not_rejected", Warning, false;
    AnsweredAfterCancel => "answered_after_cancel", Warning, false;
}

/// The id a finding names: one id, or a batch's member ids (rule 8).
#[derive(Debug, Clone, PartialEq)]
pub enum FindingId {
    /// The id of the message the finding points at (`Absent` → `null`).
    One(Id),
    /// A batch's member ids in order.
    Batch(Vec<Id>),
}

impl FindingId {
    /// As JSON for `summary.json`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            FindingId::One(id) => id.to_json(),
            FindingId::Batch(ids) => {
                serde_json::Value::Array(ids.iter().map(Id::to_json).collect())
            }
        }
    }
}

/// One finding (DESIGN.md "Findings catalogue").
#[derive(Debug, Clone)]
pub struct Finding {
    /// Kind.
    pub kind: FindingKind,
    /// Session name.
    pub session: String,
    /// Direction of the message the finding points at (`None` only for a
    /// non-JSON NDJSON line whose direction cannot be read).
    pub direction: Option<Direction>,
    /// The id (or batch ids).
    pub id: FindingId,
    /// Other forms of the id (`id_type_changed`: the echoed id).
    pub alt_ids: Vec<Id>,
    /// Method of the request involved, where known.
    pub method: Option<String>,
    /// Input index.
    pub input: usize,
    /// File id of the evidence (`Provenance::file`: `2 × input` for an
    /// input's file or the client-to-server half of a pair, `2 × input + 1`
    /// for the server-to-client half).
    pub file: u32,
    /// Where (rule 11).
    pub location: Location,
    /// Byte offset and length of the evidence in the input.
    pub evidence: (u64, u32),
    /// One line a person understands without the spec.
    pub detail: String,
    /// Something other than a fault explains this finding: what the
    /// capture lost (a request whose answer may sit in a body the capture
    /// did not keep, an answer whose request may), a POST refused at the
    /// HTTP layer (401/403/407), a server's start-up (`slow_tail` of a
    /// session's first `initialize` / `server/discover`). Reported as
    /// `info`, never failing `--fail-on`; the detail says why.
    pub gap: bool,
    /// Of those, the ones the traffic itself explains, not the capture (a
    /// server's start-up, progress it reported on a long call): `info`,
    /// but no capture gap, so `--fail-on-kind` still counts them and
    /// SARIF's and OTLP's `capture_gap` is false.
    pub by_traffic: bool,
}

impl Finding {
    /// Whether what the capture lost explains it (DESIGN.md rule 12).
    pub fn capture_gap(&self) -> bool {
        self.gap && !self.by_traffic
    }

    /// Its severity: the kind's, or `info` when a capture gap explains it.
    pub fn severity(&self) -> Severity {
        if self.gap {
            Severity::Info
        } else {
            self.kind.severity()
        }
    }
}

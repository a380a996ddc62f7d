//! `summary.json` (DESIGN.md "summary.json (the contract for scripts)"),
//! schema version 1. Keys beyond the contract (`sessions`, finding
//! `severity`, `alt_ids`) are additions; none of the contract's is renamed.

use serde_json::{Map, Value, json};

use super::Report;

/// Schema version written as `schema_version`.
pub const SCHEMA_VERSION: u64 = 1;

/// The summary document.
pub fn summary(r: &Report<'_>) -> Value {
    let a = r.analysis;
    let t = a.totals;
    let mut by_kind = Map::new();
    for (k, n) in a.findings_by_kind() {
        by_kind.insert(k.name().to_string(), json!(n));
    }
    let findings: Vec<Value> = a
        .findings
        .iter()
        .map(|f| {
            let mut o = json!({
                "kind": f.kind.name(),
                "severity": f.kind.severity().as_str(),
                "session": f.session,
                "direction": f.direction.map(|d| d.as_str()),
                "id": f.id.to_json(),
                "method": f.method,
                "file": r.file_name(f.file),
                "location": f.location,
                "detail": f.detail,
            });
            if !f.alt_ids.is_empty() {
                o["alt_ids"] = Value::Array(f.alt_ids.iter().map(|i| i.to_json()).collect());
            }
            o
        })
        .collect();
    let latency = match &a.latency {
        Some(q) => {
            json!({"p50": q.p50, "p90": q.p90, "p99": q.p99, "max": q.max, "count": q.count})
        }
        None => json!({"p50": null, "p90": null, "p99": null, "max": null, "count": 0}),
    };
    let sessions: Vec<Value> = r
        .sessions
        .iter()
        .map(|s| {
            let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
            v["file"] = json!(r.file(s.input));
            v
        })
        .collect();
    json!({
        "schema_version": SCHEMA_VERSION,
        "inputs": r.inputs,
        "totals": {
            "messages": t.messages,
            "requests": t.requests,
            "notifications": t.notifications,
            "responses": t.responses,
            "batches": t.batches,
            "sessions": t.sessions,
            "pairs": t.pairs,
            "non_json_lines": t.non_json_lines,
            "frames": t.frames,
            "sse_replays": t.replays,
            "other_lines": r.inputs.iter().map(|i| i.other_lines).sum::<u64>(),
        },
        "findings_by_kind": by_kind,
        "findings": findings,
        "metrics": a.metrics,
        "latency_ms": latency,
        "sessions": sessions,
    })
}

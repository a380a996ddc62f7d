//! `summary.json` (DESIGN.md "summary.json (the contract for scripts)"),
//! schema version 1. Keys beyond the contract (`sessions`, finding
//! `severity`, `alt_ids`) are additions; none of the contract's is renamed.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::{Render, RenderOptions, Report};
use crate::analyze::{Quantity, Severity};

/// Schema version written as `schema_version`.
pub const SCHEMA_VERSION: u64 = 1;

/// The summary document as a [`Value`] (small runs, tests). Large runs
/// write [`Summary`] straight to a writer instead.
pub fn summary(r: &Report<'_>) -> Value {
    serde_json::to_value(Summary(r)).unwrap_or(Value::Null)
}

/// `summary.json` as the run writes it (pretty-printed, then a newline),
/// to a file or stdout.
#[derive(Debug, Clone, Copy)]
pub struct Json;

impl Render for Json {
    fn render(
        &self,
        report: &Report<'_>,
        out: &mut (dyn Write + Send),
        _: &RenderOptions<'_>,
    ) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &Summary(report))?;
        out.write_all(b"\n")
    }
}

/// `summary.json`, serialized as it is written: the findings and sessions
/// arrays are built one element at a time (issue 5: a run with a million
/// findings does not hold a JSON tree of them). Keys come out in the same
/// (sorted) order, and the bytes are the same, as a [`Value`] of the
/// document would give.
pub struct Summary<'r>(pub &'r Report<'r>);

impl serde::Serialize for Summary<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let r = self.0;
        let a = r.analysis;
        let t = a.totals;
        let mut by_kind = Map::new();
        for (k, n) in a.findings_by_kind() {
            by_kind.insert(k.name().to_string(), json!(n));
        }
        let latency = match &a.latency {
            Some(q) => {
                json!({"p50": q.p50, "p90": q.p90, "p99": q.p99, "max": q.max, "count": q.count})
            }
            None => json!({"p50": null, "p90": null, "p99": null, "max": null, "count": 0}),
        };
        let mut latency = latency;
        let unknown = a.latency_unknown();
        if !unknown.is_empty() {
            latency["unknown"] = json!(unknown);
        }
        let mut m = ser.serialize_map(Some(9))?;
        // serde_json's map order (sorted keys), as `json!` would give.
        m.serialize_entry(
            "findings",
            &Each(|| a.findings.iter().map(|f| finding(r, f))),
        )?;
        m.serialize_entry("findings_by_kind", &by_kind)?;
        if !r.gates.is_empty() {
            m.serialize_entry("gates", r.gates)?;
        }
        m.serialize_entry("inputs", &inputs(r))?;
        m.serialize_entry("latency_ms", &latency)?;
        m.serialize_entry(
            "metrics",
            &serde_json::to_value(&a.metrics).unwrap_or(Value::Null),
        )?;
        let ops = crate::analyze::operations::summarize(&a.sessions);
        if !ops.is_empty() {
            m.serialize_entry("operations", &ops)?;
        }
        m.serialize_entry("schema_version", &SCHEMA_VERSION)?;
        m.serialize_entry(
            "sessions",
            &Each(|| {
                r.sessions.iter().map(|s| {
                    let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                    v["file"] = json!(r.file(s.input));
                    v
                })
            }),
        )?;
        let skipped: Vec<Value> = r
            .skipped
            .iter()
            .map(|s| json!({"path": s.path.display().to_string(), "reason": s.reason}))
            .collect();
        m.serialize_entry("skipped", &skipped)?;
        m.serialize_entry(
            "totals",
            &totals(&t, r.inputs.iter().map(|i| i.other_lines).sum::<u64>()),
        )?;
        m.end()
    }
}

/// `summary.json` `inputs`: each input as read, with `gaps`, what its
/// capture lost per kind (DESIGN.md rule 12; `{}` when nothing).
fn inputs(r: &Report<'_>) -> Value {
    Value::Array(
        r.inputs
            .iter()
            .enumerate()
            .map(|(i, info)| {
                let mut v = serde_json::to_value(info).unwrap_or(Value::Null);
                let mine = r
                    .analysis
                    .sessions
                    .iter()
                    .filter(move |s| s.input == i)
                    .flat_map(|s| s.gaps.iter());
                v["gaps"] = serde_json::to_value(crate::analyze::gaps::summarize(mine))
                    .unwrap_or(Value::Null);
                v
            })
            .collect(),
    )
}

/// A JSON array whose elements are made while it is written.
struct Each<F>(F);

impl<F, I> serde::Serialize for Each<F>
where
    F: Fn() -> I,
    I: Iterator<Item = Value>,
{
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq((self.0)())
    }
}

/// One finding of `summary.json`.
fn finding(r: &Report<'_>, f: &crate::analyze::Finding) -> Value {
    let mut o = json!({
        "kind": f.kind.name(),
        "severity": f.severity().as_str(),
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
}

/// `summary.json`'s `totals` object.
fn totals(t: &Quantity, other_lines: u64) -> Value {
    json!({
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
        "other_lines": other_lines,
    })
}

/// One input of a `--per-input` run, as `inputs/index.json` lists it.
pub struct IndexRow<'a> {
    /// Position in the run's `inputs` (0-based), as in the folder name.
    pub input: usize,
    /// The input's summary, rendered from its share of the run.
    pub report: &'a Report<'a>,
    /// Path of its `summary.json`, relative to the `--out` folder.
    pub summary: String,
    /// Its exit code alone: 2 unreadable or incomplete, 1 findings at or
    /// above `--fail-on`, else 0.
    pub exit: u8,
}

/// `inputs/index.json`: per input its file, format, summary path, totals,
/// findings count, worst severity and exit code, in input order.
/// `fail_on` is the run's `--fail-on` word.
pub fn index(rows: &[IndexRow<'_>], fail_on: &str) -> Value {
    let inputs: Vec<Value> = rows
        .iter()
        .map(|row| {
            let r = row.report;
            let a = r.analysis;
            let info = r.inputs.first();
            json!({
                "input": row.input,
                "file": info.map(|i| i.file.as_str()),
                "format": info.map(|i| i.format.as_str()),
                "dialect": info.map(|i| i.dialect.as_str()),
                "bytes": info.map_or(0, |i| i.bytes),
                "errors": info.map_or(0, |i| i.errors.len()),
                "notices": info.map_or(0, |i| i.notices.len()),
                "summary": row.summary,
                "totals": totals(&a.totals, info.map_or(0, |i| i.other_lines)),
                "findings": a.findings.len(),
                "worst_severity": a.worst_severity().map(Severity::as_str),
                "exit": row.exit,
            })
        })
        .collect();
    json!({
        "schema_version": SCHEMA_VERSION,
        "fail_on": fail_on,
        "inputs": inputs,
    })
}

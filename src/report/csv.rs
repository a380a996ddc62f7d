//! `findings.csv`, `pairs.csv` and `batches.csv`, written with the `csv`
//! crate (quoting by RFC 4180). `pairs.csv` follows DESIGN.md's header
//! exactly.

use std::io::Write;

use super::sanitize::escape_controls as esc;
use super::Report;
use crate::record::time::format_rfc3339;

fn ms(us: Option<i64>) -> String {
    us.map(|v| format!("{}", v as f64 / 1000.0)).unwrap_or_default()
}

/// `findings.csv`: one row per finding.
pub fn findings<W: Write>(r: &Report<'_>, w: W) -> csv::Result<()> {
    let mut c = csv::Writer::from_writer(w);
    c.write_record(["kind", "severity", "session", "direction", "id", "method", "file", "line", "entry", "event", "detail"])?;
    for f in &r.analysis.findings {
        let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
        c.write_record([
            f.kind.name(),
            f.kind.severity().as_str(),
            &esc(&f.session),
            f.direction.map_or("", |d| d.as_str()),
            &esc(&f.id.to_json().to_string()),
            &esc(f.method.as_deref().unwrap_or("")),
            &esc(r.file_name(f.file)),
            &opt(f.location.line),
            &opt(f.location.entry),
            &opt(f.location.event),
            &esc(&f.detail),
        ])?;
    }
    c.flush()?;
    Ok(())
}

/// `pairs.csv`: one row per request, both directions (DESIGN.md header).
/// `batch` is the 1-based number of the batch in `batches.csv`;
/// `position_in_batch` is the request's 0-based position among the batch's
/// valid-id requests; `response_position` the 0-based arrival rank of its
/// response among the batch's paired responses.
pub fn pairs<W: Write>(r: &Report<'_>, w: W) -> csv::Result<()> {
    let mut c = csv::Writer::from_writer(w);
    c.write_record(["session", "direction", "id", "method", "request_time", "response_time", "latency_ms", "status", "batch", "position_in_batch", "response_position"])?;
    let mut batch_base = 0usize;
    for s in &r.analysis.sessions {
        for q in &s.requests {
            let (b, p) = match q.batch {
                Some((b, p)) => ((batch_base + b + 1).to_string(), p.to_string()),
                None => (String::new(), String::new()),
            };
            c.write_record([
                &esc(&s.name),
                q.direction.as_str(),
                &esc(&q.id.json_text()),
                &esc(q.method.as_deref().unwrap_or("")),
                &q.ts.map(format_rfc3339).unwrap_or_default(),
                &q.response_ts.map(format_rfc3339).unwrap_or_default(),
                &ms(q.latency),
                q.status().as_str(),
                &b,
                &p,
                &q.response_position.map(|x| x.to_string()).unwrap_or_default(),
            ])?;
        }
        batch_base += s.batches.len();
    }
    c.flush()?;
    Ok(())
}

/// `batches.csv`: one row per JSON array with members.
pub fn batches<W: Write>(r: &Report<'_>, w: W) -> csv::Result<()> {
    let mut c = csv::Writer::from_writer(w);
    c.write_record([
        "batch", "session", "direction", "file", "line", "entry", "size", "requests", "notifications", "responses",
        "valid_id_requests", "linked_responses", "null_id_responses", "unknown_id_responses", "arrival_order", "request_time", "completion_ms",
    ])?;
    let mut n = 0usize;
    for s in &r.analysis.sessions {
        for b in &s.batches {
            n += 1;
            let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
            let order: Vec<String> = b.arrivals.iter().map(|&i| s.requests[b.reqs[i]].id.json_text()).collect();
            let completion = match (b.ts, b.completed) {
                (Some(a), Some(z)) if z >= a => ms(Some(z - a)),
                _ => String::new(),
            };
            c.write_record([
                n.to_string(),
                esc(&s.name).into_owned(),
                b.direction.as_str().to_string(),
                esc(r.file(s.input)).into_owned(),
                opt(b.loc.line),
                opt(b.loc.entry),
                b.size.to_string(),
                b.all_requests.to_string(),
                b.notifications.to_string(),
                b.responses.to_string(),
                b.reqs.len().to_string(),
                b.linked.to_string(),
                b.null_id.to_string(),
                b.unknown.to_string(),
                esc(&order.join(" ")).into_owned(),
                b.ts.map(format_rfc3339).unwrap_or_default(),
                completion,
            ])?;
        }
    }
    c.flush()?;
    Ok(())
}

//! The terminal summary: per session its server, revision, counts, metrics
//! and findings grouped by kind with file and place, readable in ten
//! seconds. Every captured string is sanitised (control characters shown
//! escaped) so a hostile capture cannot drive the terminal.

use std::fmt::Write as _;

use super::Report;
use crate::analyze::{Finding, FindingKind, Quantiles, Severity};

pub use super::sanitize::sanitize;

fn paint(s: &str, code: &str, color: bool) -> String {
    if color { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_string() }
}

fn sev(s: Severity, color: bool) -> String {
    let (txt, code) = match s {
        Severity::Error => ("error  ", "31;1"),
        Severity::Warning => ("warning", "33"),
        Severity::Info => ("info   ", "36"),
    };
    paint(txt, code, color)
}

fn lat(q: &Option<Quantiles>) -> String {
    match q {
        Some(q) => format!("latency p50 {:.1} ms, p90 {:.1}, p99 {:.1}, max {:.1} ({} pairs)", q.p50, q.p90, q.p99, q.max, q.count),
        None => "latency unknown (no timed pairs)".into(),
    }
}

/// Renders the summary; `color` adds ANSI colours (the CLI decides: TTY
/// and no `NO_COLOR`).
pub fn render(r: &Report<'_>, color: bool) -> String {
    let a = r.analysis;
    let t = a.totals;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} {} input(s), {} session(s): {} messages ({} requests, {} notifications, {} responses), {} batches, {} paired, {} non-JSON lines",
        paint("mcp-audit", "1", color),
        r.inputs.len(),
        t.sessions,
        t.messages,
        t.requests,
        t.notifications,
        t.responses,
        t.batches,
        t.pairs,
        t.non_json_lines
    );
    let _ = writeln!(o, "  {}", lat(&a.latency));
    for (i, input) in r.inputs.iter().enumerate() {
        let _ = writeln!(o, "  input {}: {} ({} {}, {} session(s), {} bytes)", i + 1, sanitize(&input.file, 200), input.format, input.dialect, input.sessions, input.bytes);
        for e in &input.errors {
            let _ = writeln!(o, "    {} {}", paint("problem:", "31", color), sanitize(e, 300));
        }
    }
    for s in &r.sessions {
        let _ = writeln!(o);
        let server = s.server.as_ref().map(|x| format!("server {} {}", sanitize(&x.name, 60), sanitize(&x.version, 30))).unwrap_or_else(|| "server unknown".into());
        let rev = s.revision.as_deref().map(|v| format!("revision {}", sanitize(v, 30))).unwrap_or_else(|| "revision unknown".into());
        let _ = writeln!(o, "{} {}  ({}; {}; {})", paint("session", "1", color), sanitize(&s.name, 80), sanitize(r.file(s.input), 120), server, rev);
        let st = s.totals;
        let _ = writeln!(o, "  {} requests, {} notifications, {} responses, {} batches, {} paired; {}", st.requests, st.notifications, st.responses, st.batches, st.pairs, lat(&s.latency_ms));
        let m = &s.metrics;
        if m.size.count > 0 {
            let _ = writeln!(
                o,
                "  batches: {} (size min {} p50 {} max {}), count mismatches {}, unknown-id {}, missing {}, null-id {}",
                m.size.count,
                m.size.min.unwrap_or(0),
                m.size.p50.unwrap_or(0),
                m.size.max.unwrap_or(0),
                m.response_count_mismatch,
                m.unknown_id_response,
                m.missing_response,
                m.null_id_response
            );
        }
        let p = &s.progress;
        if p.linked + p.unlinked > 0 {
            let silence = p.longest_silence_ms.map(|g| format!(", longest silence {g:.1} ms")).unwrap_or_default();
            let _ = writeln!(
                o,
                "  progress: {} notification(s) on {} request(s), {} after the response{}; {} unlinked",
                p.linked, p.requests_with_progress, p.after_response, silence, p.unlinked
            );
        }
        let mine: Vec<&Finding> = a.findings.iter().filter(|f| f.session == s.name && f.input == s.input).collect();
        if mine.is_empty() {
            let _ = writeln!(o, "  no findings");
        }
        let mut kinds: Vec<FindingKind> = mine.iter().map(|f| f.kind).collect();
        kinds.sort_by_key(|k| (std::cmp::Reverse(k.severity()), *k));
        kinds.dedup();
        for k in kinds {
            let of: Vec<&&Finding> = mine.iter().filter(|f| f.kind == k).collect();
            let places: Vec<String> = of.iter().take(4).map(|f| f.location.describe()).collect();
            let more = if of.len() > 4 { format!(", +{} more", of.len() - 4) } else { String::new() };
            let _ = writeln!(o, "  {} {} ×{}  at {}{}", sev(k.severity(), color), k.name(), of.len(), places.join(", "), more);
            let first = of[0];
            let _ = writeln!(o, "          id {}: {}", sanitize(&first.id.to_json().to_string(), 80), sanitize(&first.detail, 200));
        }
        for h in &s.hints {
            let _ = writeln!(o, "  {} {}", paint("hint:", "35", color), h);
        }
    }
    let count = |s: Severity| a.findings.iter().filter(|f| f.kind.severity() == s).count();
    let _ = writeln!(o);
    let _ = writeln!(o, "{} error(s), {} warning(s), {} info", count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\x1b[31mb", 100), "a\\u{1b}[31mb");
    }
}

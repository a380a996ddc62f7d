//! The terminal summary: per session its server, revision, counts, metrics
//! and findings grouped by kind with file and place, readable in ten
//! seconds. Every captured string is sanitised (control characters shown
//! escaped) so a hostile capture cannot drive the terminal.

use std::fmt::Write as _;
use std::io;

use super::{Render, RenderOptions, Report};
use crate::analyze::{Finding, FindingKind, Quantiles, SessionSummary, Severity};

pub use super::sanitize::sanitize;

fn paint(s: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
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
        Some(q) => format!(
            "latency p50 {:.1} ms, p90 {:.1}, p99 {:.1}, max {:.1} ({})",
            q.p50,
            q.p90,
            q.p99,
            q.max,
            counted(q.count as u64, "pair")
        ),
        None => "latency unknown (no timed pairs)".into(),
    }
}

/// Why paired requests have no latency (`summary.json`
/// `latency_ms.unknown`), when a reason is more than the capture having no
/// times: a response stamped before its request, a message moved by
/// causal placement, a time that is no bound. `None` otherwise.
fn unknown_latencies(by: &std::collections::BTreeMap<&'static str, u64>) -> Option<String> {
    if by.keys().all(|&k| k == "no_time") {
        return None;
    }
    let total: u64 = by.values().sum();
    let why: Vec<String> = by
        .iter()
        .map(|(&k, &n)| {
            let what = match k {
                "before_request" => "response stamped before its request",
                "moved" => "moved by causal order, times not comparable",
                "time_unbounded" => "a time the capture does not bound",
                _ => "no time",
            };
            format!("{what}: {n}")
        })
        .collect();
    Some(format!(
        "no latency for {} ({}; summary.json latency_ms.unknown)",
        counted(total, "paired request"),
        why.join(", ")
    ))
}

/// Width the summary fits in (columns).
pub const WIDTH: usize = 80;

/// How many characters of an input's problem or notice line the summary
/// shows (four lines of it); the rest is counted, and is in summary.json.
const PROBLEM_CHARS: usize = 300;

/// `line` sanitised, cut after `max` characters with a note saying how
/// many more there are and where the whole line is (`summary.json`
/// `inputs[].MEMBER`, `errors` or `notices`): a problem quoting a long
/// captured line is never silently shortened.
pub fn cut_line(line: &str, max: usize, member: &str) -> String {
    let whole = sanitize(line, usize::MAX);
    let n = whole.chars().count();
    if n <= max {
        return whole;
    }
    let kept: String = whole.chars().take(max).collect();
    format!(
        "{kept}… ({} more characters; the whole line is in summary.json inputs[].{member})",
        n - max
    )
}

/// Whether to colour stdout: on a TTY only, not when `NO_COLOR` is set to
/// a non-empty value (no-color.org), not on `TERM=dumb`.
pub fn use_color(
    is_tty: bool,
    no_color: Option<&std::ffi::OsStr>,
    term: Option<&std::ffi::OsStr>,
) -> bool {
    is_tty && no_color.is_none_or(|v| v.is_empty()) && term.is_none_or(|t| t != "dumb")
}

/// Visible length: characters outside ANSI colour sequences (captured
/// text never holds ESC: it is sanitised first).
fn vlen(s: &str) -> usize {
    let mut n = 0;
    let mut esc = false;
    for c in s.chars() {
        match (esc, c) {
            (false, '\x1b') => esc = true,
            (true, 'm') => esc = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

/// A long single value (a path) cut in the middle to `max` characters,
/// keeping its end, which names the file.
fn cut_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max < 5 {
        return s.to_string();
    }
    let head = (max - 1) / 3;
    let tail = max - 1 - head;
    let a: String = s.chars().take(head).collect();
    let b: String = s.chars().skip(n - tail).collect();
    format!("{a}…{b}")
}

/// Writes `body` after `first`, wrapped at word boundaries to [`WIDTH`]
/// columns; continuation lines start with `rest`. A word longer than a
/// line is split.
fn wrap(o: &mut String, first: &str, rest: &str, body: &str) {
    let mut line = first.to_string();
    let mut len = vlen(first);
    let mut fresh = true;
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let wl = vlen(word);
        if !fresh && len + 1 + wl > WIDTH {
            o.push_str(&line);
            o.push('\n');
            line = rest.to_string();
            len = vlen(rest);
            fresh = true;
        }
        if !fresh {
            line.push(' ');
            len += 1;
        }
        if len + wl <= WIDTH {
            line.push_str(word);
            len += wl;
        } else {
            // Longer than any line: split it.
            for c in word.chars() {
                if len >= WIDTH {
                    o.push_str(&line);
                    o.push('\n');
                    line = rest.to_string();
                    len = vlen(rest);
                }
                line.push(c);
                len += 1;
            }
        }
        fresh = false;
    }
    o.push_str(line.trim_end());
    o.push('\n');
}

/// The human summary on stdout ([`text`]; colours from
/// [`RenderOptions::color`]).
#[derive(Debug, Clone, Copy)]
pub struct Terminal;

impl Render for Terminal {
    fn render(
        &self,
        report: &Report<'_>,
        out: &mut (dyn io::Write + Send),
        opts: &RenderOptions<'_>,
    ) -> io::Result<()> {
        out.write_all(text(report, opts.color).as_bytes())
    }
}

/// The summary as text, every line at most [`WIDTH`] columns; `color`
/// adds ANSI colours (see [`use_color`]).
pub fn text(r: &Report<'_>, color: bool) -> String {
    let mut o = String::new();
    overview(&mut o, r, color);
    // A big run folds: every session with findings up to a screenful, then
    // one line for the rest (all of them are in --json and the files).
    let shown = shown(r.sessions.len(), |i| {
        r.sessions[i].findings_by_kind.values().any(|&n| n > 0)
    });
    for &i in &shown {
        session(&mut o, r, &r.sessions[i], color);
        session_findings(&mut o, r, &r.sessions[i], color);
    }
    if shown.len() < r.sessions.len() {
        let rest = r.sessions.len() - shown.len();
        let with = (0..r.sessions.len())
            .filter(|i| !shown.contains(i))
            .filter(|&i| r.sessions[i].findings_by_kind.values().any(|&n| n > 0))
            .count();
        o.push('\n');
        wrap(
            &mut o,
            "",
            "  ",
            &format!(
                "… and {} not shown ({with} of them with findings): every session is in --json and in --out's summary.json",
                counted(rest as u64, "more session")
            ),
        );
    }
    footer(&mut o, r);
    o
}

/// At most this many sessions (and inputs without problems) are printed
/// one by one; the rest are counted.
pub const SCREENFUL: usize = 30;

/// Which of `n` items to print, in order: all when they fit in a
/// [`SCREENFUL`]; else the notable ones (`notable(i)`: findings, problems)
/// first, then others, up to a screenful.
fn shown(n: usize, notable: impl Fn(usize) -> bool) -> Vec<usize> {
    if n <= SCREENFUL {
        return (0..n).collect();
    }
    let mut pick: Vec<usize> = (0..n).filter(|&i| notable(i)).take(SCREENFUL).collect();
    let room = SCREENFUL.saturating_sub(pick.len());
    pick.extend((0..n).filter(|&i| !notable(i)).take(room));
    pick.sort_unstable();
    pick
}

/// The run's totals, latency and inputs (with their problems).
fn overview(o: &mut String, r: &Report<'_>, color: bool) {
    let a = r.analysis;
    let t = a.totals;
    let head = format!("{} ", paint("mcp-audit", "1", color));
    wrap(
        o,
        &head,
        "  ",
        &format!(
            "{}, {}: {} ({}, {}, {}), {}, {} paired, {}",
            counted(r.inputs.len() as u64, "input"),
            counted(t.sessions, "session"),
            counted(t.messages, "message"),
            counted(t.requests, "request"),
            counted(t.notifications, "notification"),
            counted(t.responses, "response"),
            counted(t.batches, "JSON array"),
            t.pairs,
            counted(t.non_json_lines, "non-JSON line")
        ),
    );
    wrap(o, "  ", "    ", &lat(&a.latency));
    if let Some(line) = unknown_latencies(&a.latency_unknown()) {
        wrap(o, "  ", "    ", &line);
    }
    // Inputs with problems are always listed; others up to a screenful.
    let quiet: Vec<usize> = (0..r.inputs.len())
        .filter(|&i| r.inputs[i].errors.is_empty())
        .collect();
    let keep: std::collections::HashSet<usize> = quiet.iter().take(SCREENFUL).copied().collect();
    for (i, input) in r.inputs.iter().enumerate() {
        if input.errors.is_empty() && !keep.contains(&i) {
            continue;
        }
        input_lines(o, r, i, color);
    }
    if quiet.len() > SCREENFUL {
        wrap(
            o,
            "  ",
            "    ",
            &format!(
                "… and {} without problems not listed (all are in --json)",
                counted((quiet.len() - SCREENFUL) as u64, "more input")
            ),
        );
    }
}

/// Input `i`'s lines in the overview: its name, what it was read as, its
/// problems, its notices and what its capture lost.
fn input_lines(o: &mut String, r: &Report<'_>, i: usize, color: bool) {
    let input = &r.inputs[i];
    let first = format!("  input {}: ", i + 1);
    wrap(
        o,
        &first,
        "    ",
        &cut_middle(&sanitize(&input.file, 400), WIDTH - first.len()),
    );
    wrap(
        o,
        "    ",
        "    ",
        &format!(
            "{}, {}, {}",
            super::read_as(&input.format, &input.dialect),
            counted(input.sessions as u64, "session"),
            counted(input.bytes, "byte")
        ),
    );
    for e in crate::diag::folded_lines(&input.errors, "errors") {
        wrap(
            o,
            &format!("    {} ", paint("problem:", "31", color)),
            "      ",
            &cut_line(&e, PROBLEM_CHARS, "errors"),
        );
    }
    for e in crate::diag::folded_lines(&input.notices, "notices") {
        wrap(
            o,
            "    notice: ",
            "      ",
            &cut_line(&e, PROBLEM_CHARS, "notices"),
        );
    }
    let gaps = r
        .analysis
        .sessions
        .iter()
        .filter(|s| s.input == i)
        .flat_map(|s| s.gaps.iter());
    for line in gap_lines(gaps) {
        wrap(o, "    capture gap: ", "      ", &line);
    }
}

/// `server NAME VERSION; revision R` (each `unknown` when the capture
/// does not say; an empty version left out).
fn server_and_revision(s: &SessionSummary) -> String {
    let server = s
        .server
        .as_ref()
        .map(|x| {
            if x.version.trim().is_empty() {
                format!("server {}", sanitize(&x.name, 60))
            } else {
                format!(
                    "server {} {}",
                    sanitize(&x.name, 60),
                    sanitize(&x.version, 30)
                )
            }
        })
        .unwrap_or_else(|| "server unknown".into());
    let rev = s
        .revision
        .as_deref()
        .map(|v| format!("revision {}", sanitize(v, 30)))
        .unwrap_or_else(|| "revision unknown".into());
    format!("{server}; {rev}")
}

/// A session's header: name, file, server, revision, counts, latency,
/// batch and progress metrics.
fn session(o: &mut String, r: &Report<'_>, s: &SessionSummary, color: bool) {
    let _ = writeln!(o);
    let first = format!("{} ", paint("session", "1", color));
    wrap(
        o,
        &first,
        "  ",
        &cut_middle(&sanitize(&s.name, 200), WIDTH - 8),
    );
    wrap(
        o,
        "  file ",
        "    ",
        &cut_middle(&sanitize(r.file(s.input), 400), WIDTH - 7),
    );
    wrap(o, "  ", "    ", &server_and_revision(s));
    let st = s.totals;
    wrap(
        o,
        "  ",
        "    ",
        &format!(
            "{}, {}, {}, {}, {} paired",
            counted(st.requests, "request"),
            counted(st.notifications, "notification"),
            counted(st.responses, "response"),
            counted(st.batches, "JSON array"),
            st.pairs
        ),
    );
    wrap(o, "  ", "    ", &lat(&s.latency_ms));
    let m = &s.metrics;
    if m.size.count > 0 {
        wrap(
            o,
            "  ",
            "    ",
            &format!(
                "{} (size min {} p50 {} max {}), count mismatches {}, unknown-id {}, missing {}, null-id {}",
                counted(m.size.count, "request batch"),
                m.size.min.unwrap_or(0),
                m.size.p50.unwrap_or(0),
                m.size.max.unwrap_or(0),
                m.response_count_mismatch,
                m.unknown_id_response,
                m.missing_response,
                m.null_id_response
            ),
        );
    }
    let p = &s.progress;
    if p.linked + p.unlinked > 0 {
        let silence = p
            .longest_silence_ms
            .map(|g| format!(", longest silence {g:.1} ms"))
            .unwrap_or_default();
        wrap(
            o,
            "  ",
            "    ",
            &format!(
                "progress: {} notification(s) on {} request(s), {} after the response{}; {} unlinked",
                p.linked, p.requests_with_progress, p.after_response, silence, p.unlinked
            ),
        );
    }
    if !s.operations.is_empty() {
        wrap(o, "  ", "    ", &operations_line(&s.operations));
    }
}

/// `operations: mrtr 1 (3 requests; server p50 68.3 ms, wait p50 3034.1
/// ms), listen 1 (1 open, 2 notifications)`: a session's operations
/// (DESIGN.md rule 14), the MRTR server time apart from the wait.
fn operations_line(
    ops: &std::collections::BTreeMap<&'static str, crate::analyze::operations::KindSummary>,
) -> String {
    let parts: Vec<String> = ops
        .iter()
        .map(|(kind, k)| {
            let mut bits = vec![counted(k.requests, "request")];
            for (n, what) in [
                (k.open, "open"),
                (k.failed, "failed"),
                (k.cancelled, "cancelled"),
            ] {
                if n > 0 {
                    bits.push(format!("{n} {what}"));
                }
            }
            if k.notifications > 0 {
                bits.push(counted(k.notifications, "notification"));
            }
            let q = |name: &str, v: &Option<crate::analyze::latency::Quantiles>| {
                v.map(|q| format!("{name} p50 {:.1} ms", q.p50))
            };
            let times: Vec<String> = match (q("server", &k.server_ms), q("wait", &k.wait_ms)) {
                (Some(a), Some(b)) => vec![a, b],
                (Some(a), None) => vec![a],
                _ => q("total", &k.total_ms).into_iter().collect(),
            };
            let times = if times.is_empty() {
                String::new()
            } else {
                format!("; {}", times.join(", "))
            };
            format!("{kind} {} ({}{times})", k.count, bits.join(", "))
        })
        .collect();
    format!("operations: {}", parts.join(", "))
}

/// One line per kind of capture gap of an input (DESIGN.md rule 12):
/// `2 responses not kept (…): entries 7, 37`, the places as listed in
/// `summary.json`.
fn gap_lines<'g>(gaps: impl IntoIterator<Item = &'g crate::analyze::gaps::Gap>) -> Vec<String> {
    use crate::analyze::gaps::{GapKind, LISTED};
    let by = crate::analyze::gaps::summarize(gaps);
    GapKind::ALL
        .iter()
        .filter_map(|k| by.get(k.name()).map(|s| (k, s)))
        .map(|(k, s)| {
            let (noun, places) = if s.entries.is_empty() {
                ("line", &s.lines)
            } else {
                ("entry", &s.entries)
            };
            let list: Vec<String> = places.iter().map(u64::to_string).collect();
            let more = if s.count as usize > LISTED {
                ", …"
            } else {
                ""
            };
            let at = match list.len() {
                0 => String::new(),
                1 => format!(": {noun} {}", list[0]),
                _ => format!(
                    ": {} {}{more}",
                    if noun == "entry" { "entries" } else { "lines" },
                    list.join(", ")
                ),
            };
            if s.count == 1 && places.is_empty() {
                k.what().to_string()
            } else {
                format!("{} × {}{at}", s.count, k.what())
            }
        })
        .collect()
}

/// `n` and the noun, singular for one (`1 notification`, `2 batches`).
pub(crate) fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n: u64 = n.into();
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "batch" | "request batch") => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

/// A session's findings grouped by kind (most severe first), then its
/// hints.
fn session_findings(o: &mut String, r: &Report<'_>, s: &SessionSummary, color: bool) {
    let a = r.analysis;
    let mine: Vec<&Finding> = a
        .findings
        .iter()
        .filter(|f| f.session == s.name && f.input == s.input)
        .collect();
    if mine.is_empty() {
        let _ = writeln!(o, "  no findings");
    }
    // Grouped by kind and severity: findings a capture gap explains are
    // `info` and stand apart from the same kind's faults.
    let mut kinds: Vec<(Severity, FindingKind)> =
        mine.iter().map(|f| (f.severity(), f.kind)).collect();
    kinds.sort_by_key(|&(sv, k)| (std::cmp::Reverse(sv), k));
    kinds.dedup();
    for (sv, k) in kinds {
        let of: Vec<&&Finding> = mine
            .iter()
            .filter(|f| f.kind == k && f.severity() == sv)
            .collect();
        // A finding in another file than the session's first (a rotated
        // file, the other half of a pair) says which.
        let home = r.file(s.input);
        let places: Vec<String> = of
            .iter()
            .take(4)
            .map(|f| {
                let file = r.file_name(f.file);
                if file == home || file.is_empty() {
                    f.location.describe()
                } else {
                    let name = std::path::Path::new(file)
                        .file_name()
                        .map_or(file.into(), |n| n.to_string_lossy());
                    format!("{} {}", sanitize(&name, 80), f.location.describe())
                }
            })
            .collect();
        let more = if of.len() > 4 {
            format!(", +{} more", of.len() - 4)
        } else {
            String::new()
        };
        let first = format!("  {} ", sev(sv, color));
        wrap(
            o,
            &first,
            "            ",
            &format!(
                "{} ×{} at {}{}",
                k.name(),
                of.len(),
                places.join(", "),
                more
            ),
        );
        for line in group_details(&of) {
            wrap(o, "          ", "            ", &line);
        }
    }
    for h in &s.hints {
        wrap(
            o,
            &format!("  {} ", paint("hint:", "35", color)),
            "        ",
            h,
        );
    }
}

/// The detail lines of a group of findings of one kind: the first
/// finding's, then up to two more whose detail reads differently (its own
/// id and every digit aside: ids, times and counts vary within one
/// wording), then the ids of the rest (the first eight distinct ones, a
/// repeated id as `×N`), so that every grouped finding is named without
/// flooding the terminal.
fn group_details(of: &[&&Finding]) -> Vec<String> {
    let id = |f: &Finding| sanitize(&f.id.to_json().to_string(), 80);
    let wording = |f: &Finding| -> String {
        let json = f.id.to_json();
        let mut d = f.detail.replace(&json.to_string(), "");
        if let Some(text) = json.as_str().filter(|t| !t.is_empty()) {
            d = d.replace(text, "");
        }
        d.chars().filter(|c| !c.is_ascii_digit()).collect()
    };
    let mut lines = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut rest: Vec<(String, usize)> = Vec::new();
    for f in of {
        let w = wording(f);
        if seen.len() < 3 && !seen.contains(&w) {
            lines.push(format!("id {}: {}", id(f), sanitize(&f.detail, 300)));
            seen.push(w);
        } else {
            let i = id(f);
            match rest.iter_mut().find(|(r, _)| *r == i) {
                Some((_, n)) => *n += 1,
                None => rest.push((i, 1)),
            }
        }
    }
    if !rest.is_empty() {
        let count: usize = rest.iter().map(|r| r.1).sum();
        let noun = if count == 1 { "id" } else { "ids" };
        let shown: Vec<String> = rest
            .iter()
            .take(8)
            .map(|(i, n)| {
                if *n > 1 {
                    format!("{i} ×{n}")
                } else {
                    i.clone()
                }
            })
            .collect();
        let more = match rest.len().saturating_sub(8) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        lines.push(format!("also {noun} {}{more}", shown.join(", ")));
    }
    lines
}

/// The count line of errors, warnings and info.
fn footer(o: &mut String, r: &Report<'_>) {
    let a = r.analysis;
    let count = |s: Severity| a.findings.iter().filter(|f| f.severity() == s).count();
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{} error(s), {} warning(s), {} info",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info)
    );
    for g in r.gates {
        let verdict = match (g.judged, g.passed) {
            (false, _) => "not judged",
            (true, true) => "passed",
            (true, false) => "FAILED",
        };
        wrap(
            o,
            "",
            "  ",
            &format!("gate {verdict}: {}: {}", g.gate, g.detail),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_line_says_how_much_is_left_and_where() {
        assert_eq!(
            cut_line("a.log: line 3: bad", 300, "errors"),
            "a.log: line 3: bad"
        );
        let long = format!("a.har: entry 2: {}", "x".repeat(400));
        assert_eq!(
            cut_line(&long, 300, "notices"),
            format!(
                "a.har: entry 2: {}… (116 more characters; the whole line is in summary.json inputs[].notices)",
                "x".repeat(284)
            )
        );
        // Escapes count as what is shown.
        assert_eq!(
            cut_line("\u{1b}[31m", 3, "errors").len(),
            3 + "… (7 more characters; the whole line is in summary.json inputs[].errors)".len()
        );
    }

    fn finding(id: crate::record::Id, detail: &str) -> Finding {
        Finding {
            kind: FindingKind::CancelledRequest,
            session: "s".into(),
            direction: None,
            id: crate::analyze::FindingId::One(id),
            alt_ids: Vec::new(),
            method: None,
            input: 0,
            file: 0,
            location: crate::record::Location::default(),
            evidence: (0, 0),
            detail: detail.into(),
            gap: false,
            by_traffic: false,
        }
    }

    /// A group shows the first detail, up to two more worded differently
    /// (ids and digits aside), then the ids of the rest, a repeated one as
    /// `×N`, the first eight distinct.
    #[test]
    fn a_group_names_every_finding_without_flooding() {
        use crate::record::Id;
        let a = finding(Id::Int(12), "tools/call 12 was cancelled");
        let b = finding(Id::Int(0), "sampling/createMessage timed out");
        let fs = [&a, &b];
        let of: Vec<&&Finding> = fs.iter().collect();
        assert_eq!(
            group_details(&of),
            [
                "id 12: tools/call 12 was cancelled",
                "id 0: sampling/createMessage timed out"
            ]
        );
        let mut fs: Vec<Finding> = (1..=12)
            .map(|i| finding(Id::Int(i), &format!("ping {i} never got a response")))
            .collect();
        fs.push(finding(
            Id::Str("e-1".into()),
            "SSE event e-1 was delivered again",
        ));
        fs.push(finding(
            Id::Str("e-2".into()),
            "SSE event e-2 was delivered again",
        ));
        fs.push(finding(Id::Null, "an error with id null"));
        fs.push(finding(Id::Null, "an error with id null"));
        fs.push(finding(Id::Null, "an error with id null"));
        let refs: Vec<&Finding> = fs.iter().collect();
        let of: Vec<&&Finding> = refs.iter().collect();
        assert_eq!(
            group_details(&of),
            [
                "id 1: ping 1 never got a response",
                "id \"e-1\": SSE event e-1 was delivered again",
                "id null: an error with id null",
                "also ids 2, 3, 4, 5, 6, 7, 8, 9 and 5 more"
            ]
        );
        let refs: Vec<&Finding> = fs[12..].iter().collect();
        let of: Vec<&&Finding> = refs.iter().collect();
        assert_eq!(
            group_details(&of),
            [
                "id \"e-1\": SSE event e-1 was delivered again",
                "id null: an error with id null",
                "also ids \"e-2\", null ×2"
            ]
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\x1b[31mb", 100), "a\\u{1b}[31mb");
    }

    #[test]
    fn colour_only_on_a_tty_without_no_color() {
        use std::ffi::OsStr;
        assert!(use_color(true, None, Some(OsStr::new("xterm"))));
        assert!(!use_color(false, None, None));
        assert!(!use_color(true, Some(OsStr::new("1")), None));
        assert!(
            use_color(true, Some(OsStr::new("")), None),
            "an empty NO_COLOR does not count (no-color.org)"
        );
        assert!(!use_color(true, None, Some(OsStr::new("dumb"))));
    }

    #[test]
    fn wraps_to_width() {
        let mut o = String::new();
        let body = format!("{} {} end", "word ".repeat(30), "x".repeat(200));
        wrap(&mut o, &paint("lead ", "1", true), "    ", &body);
        assert!(o.lines().all(|l| vlen(l) <= WIDTH), "{o}");
        assert!(o.lines().count() > 3 && o.ends_with("end\n"));
        assert_eq!(cut_middle("abcdefghij", 7), "ab…ghij");
    }
}

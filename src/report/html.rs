//! `report.html`: one self-contained page (inline CSS, JS and SVG; no
//! network: a Content-Security-Policy forbids every fetch) that a person
//! opens to see what went wrong.
//!
//! Layout: summary cards (with one sentence saying what each batch number
//! counts); inputs; a sessions table sorted by any column and paginated
//! ([`SESSIONS_PER_PAGE`] rows a page, up to [`MAX_SESSIONS`] embedded);
//! a findings table filtered by
//! kind, severity, session and text and sorted by any column, paginated,
//! each row opening its evidence (the raw message(s) re-read from the
//! input, redacted, with file and place); latency histograms per method; a
//! batch waterfall (each request batch a row of its ids'
//! request-to-response bars, out-of-order responses and slow tails marked).
//!
//! Escaping: the few captured strings written into markup (file, session,
//! server names) go through `html_escape` (text and quoted-attribute
//! encoders). Everything else is a JSON data island, `<script
//! type="application/json">`, in which `<`, `>`, `&`, U+2028 and U+2029
//! are written as `\u` escapes, so no captured `</script>` can close it;
//! the page's script builds the DOM from it with `textContent` only
//! (never `innerHTML`), so captured markup stays text. Control and bidi
//! characters are shown escaped (`\u{1b}`), as in the terminal.
//!
//! Scale: findings are embedded as compact rows (kinds, sessions, files
//! and methods as indexes) up to [`MAX_FINDINGS`], the rest counted; the
//! evidence of at most [`EVIDENCE_BUDGET`] bytes, errors first, each
//! excerpt at most [`EXCERPT_MAX`] bytes; the waterfall holds
//! [`MAX_BATCHES`] batches, those with a problem first. The page renders
//! one page of rows at a time, so 100,000 findings stay usable.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};
use serde_json::{Value, json};

use super::redact;
use super::sanitize::escape_controls;
use super::{Render, RenderOptions, Report};
use crate::analyze::histogram::{self, MethodLatency};
use crate::analyze::{FindingKind, Severity};
use crate::source::Excerpt;

/// Largest evidence excerpt shown per finding (bytes, after redaction).
pub const EXCERPT_MAX: usize = 4096;
/// How much of an evidence range is re-read (a HAR entry is condensed to
/// its request and response before the [`EXCERPT_MAX`] cut, and a secret
/// is redacted before any cut).
pub const READ_WINDOW: usize = 64 * 1024;
/// Total evidence embedded (bytes, counted as `min(len, EXCERPT_MAX)` per
/// distinct range).
pub const EVIDENCE_BUDGET: usize = 8 << 20;
/// Findings embedded as rows; beyond, only counted (all are in the CSV
/// and JSON outputs).
pub const MAX_FINDINGS: usize = 200_000;
/// Batches in the waterfall.
pub const MAX_BATCHES: usize = 5_000;
/// Sessions embedded as rows of the sessions table (shown a page at a
/// time); beyond, only counted (all are in `summary.json` and
/// `sessions.parquet`).
pub const MAX_SESSIONS: usize = 200_000;
/// Rows of the sessions table on one page.
pub const SESSIONS_PER_PAGE: usize = 100;

/// An evidence range: file id, byte offset, length.
pub type EvidenceKey = (u32, u64, u32);

/// An evidence excerpt as the page shows it ([`show_excerpt`]): the text
/// (at most [`EXCERPT_MAX`] bytes of the range, then a note when cut) and
/// whether it was cut.
pub type Shown = (String, bool);

/// What the page shows besides the [`Report`]: the re-read evidence
/// (already shown: condensed, redacted, cut) and the latency
/// distributions.
pub struct Extras<'a> {
    /// Excerpts by range (those [`evidence_wanted`] asked for and the CLI
    /// could read), each passed through [`show_excerpt`] as it was read,
    /// so the read windows ([`READ_WINDOW`]) are not held.
    pub evidence: &'a HashMap<EvidenceKey, Shown>,
    /// Per-method latency distributions ([`histogram::by_method`]).
    pub latency: &'a [MethodLatency],
    /// Redact secrets in the evidence (on unless `--no-redact`).
    pub redact: bool,
}

/// Findings' evidence ranges to re-read, within the budget: errors first,
/// then warnings, then info, each in finding order; distinct ranges only.
pub fn evidence_wanted(r: &Report<'_>) -> Vec<EvidenceKey> {
    let mut order: Vec<usize> = (0..r.analysis.findings.len().min(MAX_FINDINGS)).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(r.analysis.findings[i].severity()));
    let mut seen = HashSet::new();
    let mut used = 0usize;
    let mut out = Vec::new();
    for i in order {
        let f = &r.analysis.findings[i];
        let key = (f.file, f.evidence.0, f.evidence.1);
        if f.evidence.1 == 0 || !seen.insert(key) {
            continue;
        }
        let cost = (f.evidence.1 as usize).min(EXCERPT_MAX);
        if used + cost > EVIDENCE_BUDGET {
            continue;
        }
        used += cost;
        out.push(key);
    }
    out
}

/// Control and bidi characters escaped, newlines and tabs kept (evidence).
fn clean_block(s: &str) -> String {
    s.split('\n')
        .map(|l| {
            l.split('\t')
                .map(|p| escape_controls(p).into_owned())
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A captured one-line string: controls escaped.
fn clean(s: &str) -> String {
    escape_controls(s).into_owned()
}

/// A HAR entry condensed to what a person reads: request line and body,
/// response status and body, then both header lists. `None` when the
/// text is not a HAR entry (or was cut before its end).
fn condense_har(raw: &str) -> Option<String> {
    use base64::Engine as _;
    let v: Value = serde_json::from_str(raw).ok()?;
    let req = v.get("request")?;
    let resp = v.get("response");
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let headers = |v: Option<&Value>| -> String {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|h| format!("{}: {}\n", s(h.get("name")), s(h.get("value"))))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut o = format!("{} {}\n", s(req.get("method")), s(req.get("url")));
    if let Some(t) = req
        .get("postData")
        .and_then(|p| p.get("text"))
        .and_then(Value::as_str)
    {
        o.push_str(t.trim_end());
        o.push('\n');
    }
    if let Some(resp) = resp {
        let status = resp
            .get("status")
            .map(|x| x.to_string())
            .unwrap_or_default();
        let content = resp.get("content");
        let mime = s(content.and_then(|c| c.get("mimeType")));
        o.push_str(&format!(
            "\n→ {status} {} ({mime})\n",
            s(resp.get("statusText"))
        ));
        let mut body = s(content.and_then(|c| c.get("text")));
        if s(content.and_then(|c| c.get("encoding"))) == "base64"
            && let Ok(b) = base64::engine::general_purpose::STANDARD.decode(body.trim())
        {
            body = String::from_utf8_lossy(&b).into_owned();
        }
        if !body.is_empty() {
            o.push_str(body.trim_end());
            o.push('\n');
        }
    }
    o.push_str("\nrequest headers:\n");
    o.push_str(&headers(req.get("headers")));
    if let Some(c) = req
        .get("cookies")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
    {
        o.push_str(&format!("({} request cookie(s))\n", c.len()));
    }
    if let Some(resp) = resp {
        o.push_str("\nresponse headers:\n");
        o.push_str(&headers(resp.get("headers")));
    }
    Some(o)
}

/// The shown text of one excerpt: condensed (`har`: a HAR entry),
/// redacted (`redact_on`), cut at [`EXCERPT_MAX`] bytes, controls escaped.
pub fn show_excerpt(e: &Excerpt, har: bool, redact_on: bool) -> Shown {
    let condensed = if har && !e.cut {
        condense_har(&e.text)
    } else {
        None
    };
    let full = condensed.as_deref().unwrap_or(&e.text);
    let red = if redact_on {
        redact::redact(full)
    } else {
        std::borrow::Cow::Borrowed(full)
    };
    let mut stop = red.len().min(EXCERPT_MAX);
    while !red.is_char_boundary(stop) {
        stop -= 1;
    }
    let cut = e.cut || stop < red.len();
    let mut t = clean_block(&red[..stop]);
    if cut {
        t.push_str(&format!(
            "\n… (cut: {} of the range's {} bytes shown)",
            stop, e.len
        ));
    }
    (t, cut)
}

/// Index of a string in a table (interning).
#[derive(Default)]
struct Table {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Table {
    fn get(&mut self, s: &str) -> usize {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        self.names.push(s.to_string());
        self.index.insert(s.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

fn ms(us: i64) -> f64 {
    (us as f64 / 1000.0 * 1000.0).round() / 1000.0
}

/// A writer that makes JSON text safe inside a `<script>` element on its
/// way through: `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes
/// (still the same JSON). A U+2028/U+2029 split across two writes is
/// still caught; [`ScriptSafe::finish`] writes what is held back.
struct ScriptSafe<W: Write> {
    w: W,
    /// Bytes of a possible U+2028/U+2029 held back: 0, 1 (`E2`) or 2 (`E2 80`).
    held: usize,
}

impl<W: Write> ScriptSafe<W> {
    fn new(w: W) -> Self {
        ScriptSafe { w, held: 0 }
    }

    /// Writes the bytes held back (the text ended inside no separator).
    fn finish(mut self) -> io::Result<W> {
        let held = std::mem::take(&mut self.held);
        self.w.write_all(&[0xE2, 0x80][..held])?;
        Ok(self.w)
    }
}

impl<W: Write> Write for ScriptSafe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut run = 0; // start of the bytes not yet written
        for (i, &b) in buf.iter().enumerate() {
            // A held prefix (from this or an earlier write) that `b` ends or breaks.
            if self.held > 0 {
                match (self.held, b) {
                    (1, 0x80) => {
                        self.held = 2;
                        run = i + 1;
                        continue;
                    }
                    (2, 0xA8 | 0xA9) => {
                        self.held = 0;
                        self.w
                            .write_all(if b == 0xA8 { b"\\u2028" } else { b"\\u2029" })?;
                        run = i + 1;
                        continue;
                    }
                    (n, _) => {
                        self.w.write_all(&[0xE2, 0x80][..n])?;
                        self.held = 0;
                        run = i;
                    }
                }
            }
            let esc: &[u8] = match b {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                b'&' => b"\\u0026",
                0xE2 => b"",
                _ => continue,
            };
            self.w.write_all(&buf[run..i])?;
            self.w.write_all(esc)?;
            if b == 0xE2 {
                self.held = 1;
            }
            run = i + 1;
        }
        // Empty when a prefix is held (it is the buffer's end).
        self.w.write_all(&buf[run..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Writes `v` as JSON that is safe inside a `<script>` element.
#[cfg(test)]
fn script_json(v: &Value) -> String {
    let mut s = ScriptSafe::new(Vec::new());
    serde_json::to_writer(&mut s, v).expect("to memory");
    String::from_utf8(s.finish().expect("to memory")).expect("JSON is UTF-8")
}

/// A writer adapter: `serde_json` errors as I/O errors.
fn to_io(e: serde_json::Error) -> io::Error {
    io::Error::other(e)
}

/// The placeholders that stand in the data island's skeleton where its
/// three large parts are streamed in (captured strings are escaped for
/// terminals, so none holds a NUL and none can look like these).
const EVIDENCE_SLOT: &str = "\u{0}EVIDENCE\u{0}";
const ROWS_SLOT: &str = "\u{0}ROWS\u{0}";
const WATERFALL_SLOT: &str = "\u{0}WATERFALL\u{0}";
const SESSIONS_SLOT: &str = "\u{0}SESSIONS\u{0}";

/// A waterfall batch: whether it has a problem, its session and batch
/// index, its 1-based number among all the run's batches.
type WfBatch = (bool, usize, usize, usize);

/// The slow tails' keys (session, file, evidence, id JSON), to mark
/// waterfall members.
type SlowSet<'a> = HashSet<(&'a str, u32, (u64, u32), String)>;

/// The data island's first pass: names interned in the order the rows
/// name them, the evidence shown, the findings embedded as rows, and the
/// waterfall's batches (shown: `idx`, indexes into `wf`).
struct Island<'a> {
    sessions: Table,
    files: Table,
    methods: Table,
    ev_index: HashMap<EvidenceKey, usize>,
    evidence: Vec<&'a Shown>,
    findings: &'a [crate::analyze::Finding],
    slow: SlowSet<'a>,
    wf: Vec<WfBatch>,
    idx: Vec<usize>,
}

impl<'a> Island<'a> {
    /// Interns the findings' names and picks their evidence.
    fn new(r: &'a Report<'a>, x: &'a Extras<'a>) -> Self {
        let a = r.analysis;
        let mut d = Island {
            sessions: Table::default(),
            files: Table::default(),
            methods: Table::default(),
            ev_index: HashMap::new(),
            evidence: Vec::new(),
            findings: &a.findings[..a.findings.len().min(MAX_FINDINGS)],
            slow: HashSet::new(),
            wf: Vec::new(),
            idx: Vec::new(),
        };
        for f in d.findings {
            let key = (f.file, f.evidence.0, f.evidence.1);
            if !d.ev_index.contains_key(&key)
                && let Some(e) = x.evidence.get(&key)
            {
                d.evidence.push(e);
                d.ev_index.insert(key, d.evidence.len() - 1);
            }
            d.sessions.get(&clean(&f.session));
            if let Some(m) = f.method.as_deref() {
                d.methods.get(&clean(m));
            }
            d.files.get(&clean(r.file_name(f.file)));
        }
        d.waterfall(r);
        for s in r.sessions.iter().take(MAX_SESSIONS) {
            d.files.get(&clean(r.file(s.input)));
        }
        d
    }

    /// Waterfall: request batches with valid-id members and a start time;
    /// problem batches first (in order), then the others, up to the cap;
    /// shown in order.
    fn waterfall(&mut self, r: &'a Report<'a>) {
        let a = r.analysis;
        self.slow = a
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::SlowTail)
            .map(|f| {
                (
                    f.session.as_str(),
                    f.file,
                    f.evidence,
                    f.id.to_json().to_string(),
                )
            })
            .collect();
        let mut batch_no = 0usize;
        for (si, s) in a.sessions.iter().enumerate() {
            for (bi, b) in s.batches.iter().enumerate() {
                batch_no += 1;
                if b.ts.is_none() || b.reqs.is_empty() {
                    continue;
                }
                let problem = batch_members(s, b, &self.slow)
                    .iter()
                    .any(|m| m.ooo || m.slow || !m.paired);
                self.sessions.get(&clean(&s.name));
                self.files.get(&clean(r.file_name(b.file)));
                self.wf.push((problem, si, bi, batch_no));
            }
        }
        let mut idx: Vec<usize> = (0..self.wf.len()).collect();
        idx.sort_by_key(|&i| !self.wf[i].0);
        idx.truncate(MAX_BATCHES);
        idx.sort_unstable();
        self.idx = idx;
    }

    /// The island's JSON with its three large parts as placeholders.
    fn skeleton(&self, r: &Report<'_>, x: &Extras<'_>) -> String {
        let kinds: Vec<Value> = FindingKind::ALL
            .iter()
            .map(|k| json!([k.name(), k.severity().as_str()]))
            .collect();
        let edges: Vec<f64> = (0..=histogram::BINS).map(histogram::edge_ms).collect();
        let lat: Vec<Value> = x
            .latency
            .iter()
            .map(|m| {
                let q = &m.quantiles;
                json!({"method": clean(&m.method), "count": q.count, "p50": q.p50, "p90": q.p90, "p99": q.p99, "max": q.max, "bins": m.bins})
            })
            .collect();
        json!({
            "kinds": kinds,
            "sessions": self.sessions.names,
            "files": self.files.names,
            "methods": self.methods.names,
            "findings": ROWS_SLOT,
            "findings_total": r.analysis.findings.len(),
            "evidence": EVIDENCE_SLOT,
            "evidence_budget": EVIDENCE_BUDGET,
            "redacted": x.redact,
            "latency": {"edges": edges, "methods": lat},
            "waterfall": WATERFALL_SLOT,
            "waterfall_total": self.wf.len(),
            "request_batches": r.analysis.metrics.size.count,
            "session_rows": SESSIONS_SLOT,
            "sessions_total": r.sessions.len(),
            "sessions_per_page": SESSIONS_PER_PAGE,
        })
        .to_string()
    }

    /// The evidence excerpts, comma-separated.
    fn write_evidence<W: Write>(&self, out: &mut ScriptSafe<W>) -> io::Result<()> {
        for (i, e) in self.evidence.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, e).map_err(to_io)?;
        }
        Ok(())
    }

    /// The findings rows, comma-separated.
    fn write_rows<W: Write>(&self, r: &Report<'_>, out: &mut ScriptSafe<W>) -> io::Result<()> {
        let id = |t: &Table, s: &str| t.index.get(s).copied().unwrap_or(0);
        for (i, f) in self.findings.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            let ev = self.ev_index.get(&(f.file, f.evidence.0, f.evidence.1));
            let row = (
                f.kind as usize,
                id(&self.sessions, &clean(&f.session)),
                f.direction.map_or("", |d| d.as_str()),
                clean(&f.id.to_json().to_string()),
                f.method
                    .as_deref()
                    .map_or(-1, |m| id(&self.methods, &clean(m)) as i64),
                id(&self.files, &clean(r.file_name(f.file))),
                f.location.describe(),
                clean(&f.detail),
                ev.map_or(-1, |&i| i as i64),
                u8::from(f.gap),
            );
            serde_json::to_writer(&mut *out, &row).map_err(to_io)?;
        }
        Ok(())
    }

    /// The sessions table's rows, comma-separated: name, file (index),
    /// server, revision, requests, responses, JSON arrays, request
    /// batches, paired, findings, p50 and p99 (as the page shows them).
    fn write_sessions<W: Write>(&self, r: &Report<'_>, out: &mut ScriptSafe<W>) -> io::Result<()> {
        for (i, s) in r.sessions.iter().take(MAX_SESSIONS).enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            let server = s
                .server
                .as_ref()
                .map(|x| format!("{} {}", clean(&x.name), clean(&x.version)))
                .unwrap_or_default();
            let file = clean(r.file(s.input));
            let row = (
                clean(&s.name),
                self.files.index.get(&file).copied().unwrap_or(0),
                server,
                s.revision.as_deref().map(clean).unwrap_or_default(),
                [
                    s.totals.requests,
                    s.totals.responses,
                    s.totals.batches,
                    s.metrics.size.count,
                    s.totals.pairs,
                    s.findings_by_kind.values().sum(),
                ],
                opt_ms(s.latency_ms.map(|q| q.p50)),
                opt_ms(s.latency_ms.map(|q| q.p99)),
            );
            serde_json::to_writer(&mut *out, &row).map_err(to_io)?;
        }
        Ok(())
    }

    /// The waterfall batches shown, comma-separated.
    fn write_waterfall<W: Write>(&self, r: &Report<'_>, out: &mut ScriptSafe<W>) -> io::Result<()> {
        for (n, &i) in self.idx.iter().enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            let (problem, si, bi, batch_no) = self.wf[i];
            let s = &r.analysis.sessions[si];
            let b = &s.batches[bi];
            let t0 = b.ts.unwrap_or_default();
            let members: Vec<Value> = batch_members(s, b, &self.slow)
                .into_iter()
                .map(|m| {
                    let q = &s.requests[m.qi];
                    json!([
                        clean(&q.id.json_text()),
                        q.ts.map(|t| ms(t - t0)),
                        q.response_ts.map(|t| ms(t - t0)),
                        q.response_position,
                        q.status().as_str(),
                        m.ooo,
                        m.slow,
                        q.method.as_deref().map(clean),
                    ])
                })
                .collect();
            let row = json!({
                "n": batch_no,
                "s": self.sessions.index.get(&clean(&s.name)).copied().unwrap_or(0),
                "f": self.files.index.get(&clean(r.file_name(b.file))).copied().unwrap_or(0),
                "loc": b.loc.describe(),
                "size": b.size,
                "done": b.completed.map(|z| ms(z - t0)),
                "m": members,
                "p": problem,
            });
            serde_json::to_writer(&mut *out, &row).map_err(to_io)?;
        }
        Ok(())
    }
}

/// Writes the data island's JSON text to `w`, made safe for a `<script>`
/// element. Two passes, so no part is held as text: the first
/// ([`Island::new`]) interns sessions, files and methods (in the order the
/// rows name them), renders the evidence (at most [`EVIDENCE_BUDGET`]
/// bytes) and marks the batches with a problem; the second writes the
/// object, its findings rows and waterfall batches streamed into the
/// skeleton one by one.
fn write_data<W: Write>(r: &Report<'_>, x: &Extras<'_>, w: W) -> io::Result<W> {
    let d = Island::new(r, x);
    let skeleton = d.skeleton(r, x);
    let mut out = ScriptSafe::new(w);
    let mut rest = skeleton.as_str();
    // The slots in the order the skeleton holds them (its keys are sorted).
    let mut slots: Vec<(usize, &str)> = [EVIDENCE_SLOT, ROWS_SLOT, WATERFALL_SLOT, SESSIONS_SLOT]
        .into_iter()
        .filter_map(|slot| Some((skeleton.find(&json_str(slot))?, slot)))
        .collect();
    slots.sort_unstable();
    for (_, slot) in slots {
        let quoted = json_str(slot);
        let Some(at) = rest.find(&quoted) else {
            continue;
        };
        out.write_all(&rest.as_bytes()[..at])?;
        rest = &rest[at + quoted.len()..];
        out.write_all(b"[")?;
        match slot {
            EVIDENCE_SLOT => d.write_evidence(&mut out)?,
            ROWS_SLOT => d.write_rows(r, &mut out)?,
            SESSIONS_SLOT => d.write_sessions(r, &mut out)?,
            _ => d.write_waterfall(r, &mut out)?,
        }
        out.write_all(b"]")?;
    }
    out.write_all(rest.as_bytes())?;
    out.finish()
}

/// `s` as a JSON string literal.
fn json_str(s: &str) -> String {
    Value::from(s).to_string()
}

/// A waterfall member: its request, whether its response came out of
/// order, whether it is a slow tail, whether it was paired.
struct Member {
    qi: usize,
    ooo: bool,
    slow: bool,
    paired: bool,
}

/// Batch `b`'s valid-id members in request order, each compared with the
/// arrival rank it should have had among the paired ones.
fn batch_members(
    s: &crate::analyze::SessionResult,
    b: &crate::analyze::Batch,
    slow: &SlowSet<'_>,
) -> Vec<Member> {
    // Paired members in request order: the arrival rank each should have.
    let mut expected = HashMap::new();
    let mut rank = 0usize;
    for &qi in &b.reqs {
        if s.requests[qi].response_position.is_some() {
            expected.insert(qi, rank);
            rank += 1;
        }
    }
    b.reqs
        .iter()
        .map(|&qi| {
            let q = &s.requests[qi];
            let ooo = match (q.response_position, expected.get(&qi)) {
                (Some(p), Some(&e)) => p as usize != e,
                _ => false,
            };
            let slow = slow.contains(&(
                s.name.as_str(),
                q.file,
                q.evidence,
                q.id.to_json().to_string(),
            ));
            Member {
                qi,
                ooo,
                slow,
                paired: matches!(q.status(), crate::analyze::PairStatus::Paired),
            }
        })
        .collect()
}

fn card(o: &mut String, label: &str, value: &str, class: &str) {
    o.push_str(&format!(
        "<div class=\"card {}\"><div class=\"v\">{}</div><div class=\"l\">{}</div></div>",
        attr(class),
        text(value),
        text(label)
    ));
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or("–".into(), |x| format!("{x:.1} ms"))
}

/// `report.html` (its evidence and latency charts from
/// [`RenderOptions::page`]; without them, a page without either).
#[derive(Debug, Clone, Copy)]
pub struct Html;

impl Render for Html {
    fn render(
        &self,
        report: &Report<'_>,
        out: &mut (dyn Write + Send),
        opts: &RenderOptions<'_>,
    ) -> io::Result<()> {
        match opts.page {
            Some(x) => page(report, x, out),
            None => {
                let none = HashMap::new();
                let x = Extras {
                    evidence: &none,
                    latency: &[],
                    redact: true,
                };
                page(report, &x, out)
            }
        }
    }
}

/// Writes the page.
fn page<W: Write>(r: &Report<'_>, x: &Extras<'_>, mut w: W) -> io::Result<()> {
    let mut o = String::with_capacity(64 * 1024);
    page_head(&mut o, r, x);
    summary_cards(&mut o, r);
    inputs_table(&mut o, r);
    sessions_table(&mut o);
    o.push_str(BODY);
    w.write_all(o.as_bytes())?;
    drop(o);
    w.write_all(b"<script type=\"application/json\" id=\"data\">")?;
    let mut w = write_data(r, x, w)?;
    w.write_all(b"</script>\n<script>")?;
    w.write_all(JS.as_bytes())?;
    w.write_all(b"</script>\n</body></html>\n")?;
    w.flush()
}

/// The document's head (policy, title, style, error marker) and header.
fn page_head(o: &mut String, r: &Report<'_>, x: &Extras<'_>) {
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    o.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let title = match r.inputs {
        [one] => format!("mcp-audit: {}", clean(&one.file)),
        v => format!("mcp-audit: {} inputs", v.len()),
    };
    o.push_str(&format!(
        "<title>{}</title>\n<style>{CSS}</style>\n",
        text(&title)
    ));
    // Before anything else runs: any script error becomes a visible marker.
    o.push_str("<script>window.onerror=function(m,s,l){var d=document.createElement('div');d.id='script-error';d.className='err';d.textContent='script error: '+m+' (line '+l+')';(document.body||document.documentElement).appendChild(d);};</script>\n");
    o.push_str("</head><body>\n<header><h1>mcp-audit report</h1>");
    o.push_str(&format!(
        "<p class=\"sub\">{} · {}</p></header>\n",
        text(&title),
        if x.redact {
            "secrets redacted"
        } else {
            "<b>not redacted</b> (--no-redact)"
        }
    ));
}

/// The summary cards and the findings per kind.
fn summary_cards(o: &mut String, r: &Report<'_>) {
    let a = r.analysis;
    let t = a.totals;
    let count = |s: Severity| a.findings.iter().filter(|f| f.severity() == s).count();
    o.push_str("<section id=\"summary\"><div class=\"cards\">");
    card(o, "inputs", &r.inputs.len().to_string(), "");
    card(o, "sessions", &t.sessions.to_string(), "");
    card(o, "messages", &t.messages.to_string(), "");
    card(o, "batches (JSON arrays)", &t.batches.to_string(), "");
    card(o, "paired requests", &t.pairs.to_string(), "");
    card(
        o,
        "errors",
        &count(Severity::Error).to_string(),
        "sev-error",
    );
    card(
        o,
        "warnings",
        &count(Severity::Warning).to_string(),
        "sev-warning",
    );
    card(o, "info", &count(Severity::Info).to_string(), "sev-info");
    card(o, "latency p50", &opt_ms(a.latency.map(|q| q.p50)), "");
    card(o, "latency p99", &opt_ms(a.latency.map(|q| q.p99)), "");
    o.push_str("</div>");
    if t.batches > 0 {
        o.push_str(&format!(
            "<p class=\"note\" id=\"batch-counts\">{}</p>",
            text(&batch_counts(r))
        ));
    }

    // Findings by kind (complete, even past the row cap).
    let by_kind: Vec<(FindingKind, u64)> = a
        .findings_by_kind()
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .collect();
    if !by_kind.is_empty() {
        o.push_str("<div class=\"kinds\">");
        for (k, n) in by_kind {
            o.push_str(&format!(
                "<span class=\"chip sev-{}\" data-kind=\"{}\">{} <b>{}</b></span>",
                k.severity().as_str(),
                k.name(),
                k.name(),
                n
            ));
        }
        o.push_str("</div>");
    }
    o.push_str("</section>\n");
}

/// What the page's batch numbers count, in one sentence: the JSON arrays
/// (by direction, the empty ones, the reply arrays), the request batches
/// among them, and those the waterfall draws.
fn batch_counts(r: &Report<'_>) -> String {
    let a = r.analysis;
    let (mut c2s, mut s2c, mut empty, mut replies, mut drawn) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for b in a.sessions.iter().flat_map(|s| &s.batches) {
        match b.direction {
            crate::record::Direction::C2s => c2s += 1,
            crate::record::Direction::S2c => s2c += 1,
        }
        empty += u64::from(b.size == 0);
        replies += u64::from(b.size > 0 && b.responses == b.size);
        drawn += u64::from(b.ts.is_some() && !b.reqs.is_empty());
    }
    let requests = a.metrics.size.count;
    format!(
        "Batches: {} JSON arrays ({c2s} sent by the client, {s2c} by the server; {empty} empty, \
         {replies} of responses only), one row each in batches.csv. {requests} of them hold a \
         request or notification: the request batches, whose sizes the terminal and \
         summary.json give. The waterfall draws the {drawn} of these with a request that has \
         an id and a time.",
        a.totals.batches
    )
}

/// The inputs table.
fn inputs_table(o: &mut String, r: &Report<'_>) {
    // Inputs.
    o.push_str("<section id=\"inputs\"><h2>Inputs</h2><table><thead><tr><th>file</th><th>format</th><th class=\"num\">sessions</th><th class=\"num\">bytes</th><th>problems</th><th>notices</th></tr></thead><tbody>");
    for i in r.inputs {
        o.push_str(&format!(
            "<tr><td class=\"mono file\">{}{}</td><td class=\"nb\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            text(&clean(&i.file)),
            i.partner.as_deref().map(|p| format!("<br>+ {}", text(&clean(p)))).unwrap_or_default(),
            text(&super::read_as(&i.format, &i.dialect)),
            i.sessions,
            i.bytes,
            diagnostics_cell(&i.file, &i.errors),
            diagnostics_cell(&i.file, &i.notices)
        ));
    }
    o.push_str("</tbody></table></section>\n");
}

/// How many of an input's problems (or notices) its row shows before the
/// rest fold into a "N more" disclosure.
const SHOWN_DIAGNOSTICS: usize = 3;

/// An input's problems or notices, one line each (the input's own name,
/// which its row already shows, left off their start), the first
/// [`SHOWN_DIAGNOSTICS`] shown and the rest behind `<details>`: thirteen
/// problems of one capture no longer squeeze the file column to a few
/// characters.
fn diagnostics_cell(file: &str, d: &[crate::diag::Diagnostic]) -> String {
    let line = |e: &crate::diag::Diagnostic| {
        let s = clean(&e.to_string());
        let s = s
            .strip_prefix(&format!("{}: ", clean(file)))
            .map(str::to_string)
            .unwrap_or(s);
        format!("<div>{}</div>", text(&s))
    };
    let mut out: String = d.iter().take(SHOWN_DIAGNOSTICS).map(line).collect();
    if d.len() > SHOWN_DIAGNOSTICS {
        let rest: String = d[SHOWN_DIAGNOSTICS..].iter().map(line).collect();
        out.push_str(&format!(
            "<details><summary>{} more</summary>{rest}</details>",
            d.len() - SHOWN_DIAGNOSTICS
        ));
    }
    out
}

/// The sessions table: its head; the script fills it a page at a time
/// from the data island (`session_rows`), like the findings.
fn sessions_table(o: &mut String) {
    o.push_str(SESSIONS);
}

/// The sessions section (rows from the data island).
const SESSIONS: &str = r##"<section id="sessions"><h2>Sessions</h2>
<div class="controls"><label>search <input id="s-text" type="search" placeholder="session, file, server"></label> <span id="s-count"></span></div>
<p id="s-note" class="note"></p>
<table id="sessions-table"><thead><tr>
<th data-col="0">session</th><th data-col="1">file</th><th data-col="2">server</th><th data-col="3">revision</th><th data-col="4" class="num">requests</th><th data-col="5" class="num">responses</th><th data-col="6" class="num" title="JSON arrays, either direction, [] included: rows of batches.csv">JSON arrays</th><th data-col="7" class="num" title="arrays holding a request or notification">request batches</th><th data-col="8" class="num">paired</th><th data-col="9" class="num">findings</th><th data-col="10" class="num">p50</th><th data-col="11" class="num">p99</th>
</tr></thead><tbody></tbody></table>
<div class="pager" id="s-pager"></div>
</section>
"##;

/// Static sections the script fills.
const BODY: &str = r##"<section id="findings"><h2>Findings</h2>
<div class="controls">
<label>kind <select id="f-kind"><option value="">all</option></select></label>
<label>severity <select id="f-sev"><option value="">all</option><option>error</option><option>warning</option><option>info</option></select></label>
<label>session <select id="f-session"><option value="">all</option></select></label>
<label>search <input id="f-text" type="search" placeholder="id, method, detail"></label>
<span id="f-count"></span>
</div>
<p id="f-note" class="note"></p>
<table id="findings-table"><thead><tr>
<th data-col="sev">severity</th><th data-col="kind">kind</th><th data-col="session">session</th><th data-col="id">id</th><th data-col="method">method</th><th data-col="where">file · place</th><th data-col="detail">detail</th>
</tr></thead><tbody></tbody></table>
<div class="pager" id="f-pager"></div>
</section>
<section id="latency"><h2>Latency per method</h2><p class="note">Histogram of request-to-response latency (log scale, 4 bins per decade); dashed lines: p50 and p99.</p><div id="latency-charts" class="charts"></div></section>
<section id="waterfall"><h2>Batch waterfall</h2>
<p class="note">Each row a request batch with a request that has an id and a time; each bar one member, from its request to its response. <span class="key ooo">out of order</span> <span class="key slow">slow tail</span> <span class="key missing">no response</span></p>
<div class="controls"><label><input type="checkbox" id="w-problems"> only batches with a problem</label> <span id="w-count"></span></div>
<div id="waterfall-rows"></div><div class="pager" id="w-pager"></div>
</section>
"##;

const CSS: &str = r##"
:root{--bg:#fff;--fg:#1d2330;--mut:#677085;--line:#e2e5ec;--err:#c62828;--warn:#b26a00;--info:#1565c0;--ok:#2e7d32;--bar:#5c7cfa}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0 24px 40px}
header h1{font-size:20px;margin:16px 0 0}.sub{color:var(--mut);margin:2px 0 12px;word-break:break-all}
h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}
.card .v{font-size:22px;font-weight:600}.card .l{color:var(--mut);font-size:12px}
.card.sev-error .v{color:var(--err)}.card.sev-warning .v{color:var(--warn)}.card.sev-info .v{color:var(--info)}
.kinds{margin-top:10px;display:flex;flex-wrap:wrap;gap:6px}.chip{border:1px solid var(--line);border-radius:12px;padding:1px 9px;font-size:12px;cursor:pointer}
.chip.sev-error{border-color:#f3b5b5}.chip.sev-warning{border-color:#f1d39c}.chip.sev-info{border-color:#b3cdf0}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f7f9;position:sticky;top:0}th[data-col]{cursor:pointer;user-select:none}th.asc::after{content:" ▲"}th.desc::after{content:" ▼"}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num{white-space:nowrap}.mono,td.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;word-break:break-all}
#inputs td.file{min-width:16em;word-break:break-word}#inputs td div+div{margin-top:3px}#findings-table td{word-break:break-word}td.nb,#findings-table td.nb,#sessions-table td.nb{white-space:nowrap;word-break:normal}#findings-table td.sev,#findings-table td.k{white-space:nowrap;word-break:normal}#findings-table tbody tr.f{cursor:pointer}#findings-table tbody tr.f:hover{background:#f3f6ff}
.sev{font-weight:600}.sev.error{color:var(--err)}.sev.warning{color:var(--warn)}.sev.info{color:var(--info)}
tr.ev td{background:#fafbfc}pre{margin:4px 0;white-space:pre-wrap;word-break:break-all;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:420px;overflow:auto;background:#f4f5f7;padding:8px;border-radius:6px}
.controls{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:6px 0}.controls select,.controls input[type=search]{font:inherit;padding:2px 4px;max-width:260px}
.pager{margin:8px 0;display:flex;gap:6px;align-items:center}.pager button{font:inherit;padding:2px 10px}
.note{color:var(--mut);font-size:12px;margin:4px 0}.err{color:#fff;background:var(--err);padding:8px;margin:8px 0}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:14px}.chart{border:1px solid var(--line);border-radius:8px;padding:6px 8px}
.chart .t{font-weight:600;font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}.chart .q{color:var(--mut);font-size:12px}
svg text{font:10px system-ui,sans-serif;fill:var(--mut)}
.wrow{display:grid;grid-template-columns:260px 1fr;gap:8px;border-bottom:1px solid var(--line);padding:4px 0}.wlab{font-size:12px;word-break:break-all}.wlab .mono{color:var(--mut)}
.key{display:inline-block;padding:0 6px;border-radius:3px;font-size:11px;margin-left:6px}.key.ooo{background:#ff9800;color:#fff}.key.slow{background:var(--err);color:#fff}.key.missing{border:1px dashed var(--mut)}
"##;

const JS: &str = r##"
(function(){
'use strict';
var D = JSON.parse(document.getElementById('data').textContent);
function el(tag, cls, txt){ var e=document.createElement(tag); if(cls) e.className=cls; if(txt!==undefined&&txt!==null) e.textContent=String(txt); return e; }
var SVGNS='http://www.w3.org/2000/svg';
function sv(tag, at, txt){ var e=document.createElementNS(SVGNS, tag); for(var k in at) e.setAttribute(k, at[k]); if(txt!==undefined) e.textContent=String(txt); return e; }
function fmtMs(x){ if(x===null||x===undefined) return '–'; return x>=1000? (x/1000).toFixed(2)+' s' : x>=10? x.toFixed(0)+' ms' : x.toFixed(2)+' ms'; }
var SEVRANK={error:0,warning:1,info:2};
/* A short token (no space, at most 24 characters: an id, null, a method) never wraps inside itself. */
function shortToken(t){ return t.length>0 && t.length<=24 && !/\s/.test(t); }
function cell(cls, txt){ var t=(txt===undefined||txt===null)? '' : String(txt); var td=el('td', cls, t); if(shortToken(t)) td.classList.add('nb'); return td; }

/* ---------- findings ---------- */
var K=D.kinds, S=D.sessions, F=D.files, M=D.methods, R=D.findings, EV=D.evidence;
var fk=document.getElementById('f-kind'), fs=document.getElementById('f-sev'), fss=document.getElementById('f-session'), ft=document.getElementById('f-text');
var kindCount={}; R.forEach(function(r){ kindCount[r[0]]=(kindCount[r[0]]||0)+1; });
K.forEach(function(k,i){ if(kindCount[i]){ var o=el('option',null,k[0]+' ('+kindCount[i]+')'); o.value=String(i); fk.appendChild(o);} });
S.forEach(function(s,i){ if(i<2000){ var o=el('option',null,s.length>60? s.slice(0,60)+'…' : s); o.value=String(i); fss.appendChild(o);} });
var sortCol=null, sortDir=1, page=0, PER=100, view=R.slice(), open={};
function sev(r){ return r[9] ? 'info' : K[r[0]][1]; }
function keyOf(r, c){
  switch(c){
    case 'sev': return SEVRANK[sev(r)];
    case 'kind': return K[r[0]][0];
    case 'session': return S[r[1]];
    case 'id': return r[3];
    case 'method': return r[4]<0? '' : M[r[4]];
    case 'where': return F[r[5]]+' '+r[6];
    case 'detail': return r[7];
  }
  return 0;
}
function placeNum(s){ var m=/(\d+)/.exec(s); return m? +m[1] : 0; }
function applyFilter(){
  var k=fk.value, s=fs.value, ss=fss.value, q=ft.value.toLowerCase();
  view=R.filter(function(r){
    if(k!=='' && r[0]!==+k) return false;
    if(s!=='' && sev(r)!==s) return false;
    if(ss!=='' && r[1]!==+ss) return false;
    if(q){ var h=(r[3]+' '+(r[4]<0?'':M[r[4]])+' '+r[7]+' '+S[r[1]]).toLowerCase(); if(h.indexOf(q)<0) return false; }
    return true;
  });
  if(sortCol){
    view.sort(function(a,b){ var x=keyOf(a,sortCol), y=keyOf(b,sortCol);
      if(sortCol==='where' && F[a[5]]===F[b[5]]){ x=placeNum(a[6]); y=placeNum(b[6]); }
      return (x<y?-1:x>y?1:0)*sortDir; });
  }
  page=0; draw();
}
function evidenceRow(r){
  var tr=el('tr','ev'), td=el('td'); td.colSpan=7;
  td.appendChild(el('div','mono', F[r[5]]+' · '+r[6]));
  if(r[8]>=0){ td.appendChild(el('pre',null,EV[r[8]][0])); }
  else { td.appendChild(el('div','note','evidence not embedded (the page holds at most '+Math.round(D.evidence_budget/1048576)+' MiB of evidence, errors first): open the file at that place')); }
  tr.appendChild(td); return tr;
}
function draw(){
  var tb=document.querySelector('#findings-table tbody'); tb.textContent='';
  var pages=Math.max(1,Math.ceil(view.length/PER)); if(page>=pages) page=pages-1;
  var slice=view.slice(page*PER,(page+1)*PER);
  slice.forEach(function(r){
    var tr=el('tr','f'); var sv_=sev(r);
    tr.appendChild(el('td','sev '+sv_, sv_));
    tr.appendChild(el('td','mono k', K[r[0]][0]));
    tr.appendChild(cell('mono', S[r[1]]));
    tr.appendChild(cell('mono', r[3]));
    tr.appendChild(cell('mono', r[4]<0?'':M[r[4]]));
    tr.appendChild(el('td','mono', F[r[5]]+' · '+r[6]));
    tr.appendChild(el('td',null, r[7]));
    var evtr=null;
    tr.addEventListener('click', function(){ if(evtr){ evtr.remove(); evtr=null; } else { evtr=evidenceRow(r); tr.after(evtr); } });
    tb.appendChild(tr);
  });
  document.getElementById('f-count').textContent=view.length+' of '+R.length+' finding(s)';
  pager(document.getElementById('f-pager'), page, pages, function(p){ page=p; draw(); });
}
function pager(box, p, pages, go){
  box.textContent='';
  var prev=el('button',null,'‹ prev'); prev.disabled=p<=0; prev.onclick=function(){ go(p-1); };
  var next=el('button',null,'next ›'); next.disabled=p>=pages-1; next.onclick=function(){ go(p+1); };
  box.appendChild(prev); box.appendChild(el('span',null,'page '+(p+1)+' of '+pages)); box.appendChild(next);
}
document.querySelectorAll('#findings-table th[data-col]').forEach(function(th){
  th.addEventListener('click', function(){
    var c=th.getAttribute('data-col'); if(sortCol===c) sortDir=-sortDir; else { sortCol=c; sortDir=1; }
    document.querySelectorAll('#findings-table th').forEach(function(h){ h.classList.remove('asc','desc'); });
    th.classList.add(sortDir>0?'asc':'desc'); applyFilter();
  });
});
[fk,fs,fss].forEach(function(s){ s.addEventListener('change', applyFilter); });
var tmo=null; ft.addEventListener('input', function(){ clearTimeout(tmo); tmo=setTimeout(applyFilter, 150); });
document.querySelectorAll('.chip[data-kind]').forEach(function(c){ c.addEventListener('click', function(){
  var name=c.getAttribute('data-kind'); for(var i=0;i<K.length;i++) if(K[i][0]===name){ fk.value=String(i); } applyFilter();
  document.getElementById('findings').scrollIntoView(); }); });
var note=[];
if(D.findings_total>R.length) note.push('The page holds the first '+R.length+' of '+D.findings_total+' findings; all are in findings.csv and summary.json.');
if(D.redacted) note.push('Secrets (Authorization, cookies, tokens, keys, passwords) are redacted.');
document.getElementById('f-note').textContent=note.join(' ');
draw();
/* #fN in the address opens finding N's evidence (a link to one finding). */
var hm=/^#f(\d+)$/.exec(location.hash);
if(hm && +hm[1]<R.length){ page=Math.floor(+hm[1]/PER); draw(); var row=document.querySelectorAll('#findings-table tbody tr.f')[+hm[1]%PER]; if(row){ row.click(); if(row.getBoundingClientRect().top>window.innerHeight) row.scrollIntoView(); } }

/* ---------- sessions ---------- */
var SR=D.session_rows, sview=SR.slice(), sp=0, SPER=D.sessions_per_page, sCol=null, sDir=1, stx=document.getElementById('s-text');
function skey(r, c){ if(c===1) return F[r[1]]; if(c>=4&&c<=9) return r[4][c-4]; if(c>=10){ var v=parseFloat(r[c-5]); return isNaN(v)? -1 : v; } return r[c]; }
function sfilter(){
  var q=stx.value.toLowerCase();
  sview=SR.filter(function(r){ return !q || (r[0]+' '+F[r[1]]+' '+r[2]+' '+r[3]).toLowerCase().indexOf(q)>=0; });
  if(sCol!==null) sview.sort(function(a,b){ var x=skey(a,sCol), y=skey(b,sCol); return (x<y?-1:x>y?1:0)*sDir; });
  sp=0; sdraw();
}
function sdraw(){
  var tb=document.querySelector('#sessions-table tbody'); tb.textContent='';
  var pages=Math.max(1,Math.ceil(sview.length/SPER)); if(sp>=pages) sp=pages-1;
  sview.slice(sp*SPER,(sp+1)*SPER).forEach(function(r){
    var tr=el('tr','s'), name=cell('mono', r[0]); name.title=r[0]; tr.appendChild(name);
    tr.appendChild(cell('mono', F[r[1]])); tr.appendChild(cell(null, r[2])); tr.appendChild(cell(null, r[3]));
    r[4].forEach(function(n){ tr.appendChild(cell('num', n)); });
    tr.appendChild(cell('num', r[5])); tr.appendChild(cell('num', r[6]));
    tb.appendChild(tr);
  });
  document.getElementById('s-count').textContent=sview.length+' of '+SR.length+' session(s)';
  pager(document.getElementById('s-pager'), sp, pages, function(p){ sp=p; sdraw(); });
}
document.querySelectorAll('#sessions-table th[data-col]').forEach(function(th){
  th.addEventListener('click', function(){
    var c=+th.getAttribute('data-col'); if(sCol===c) sDir=-sDir; else { sCol=c; sDir=c>=4? -1 : 1; }
    document.querySelectorAll('#sessions-table th').forEach(function(h){ h.classList.remove('asc','desc'); });
    th.classList.add(sDir>0?'asc':'desc'); sfilter();
  });
});
var stm=null; stx.addEventListener('input', function(){ clearTimeout(stm); stm=setTimeout(sfilter, 150); });
if(D.sessions_total>SR.length) document.getElementById('s-note').textContent='The page holds the first '+SR.length+' of '+D.sessions_total+' sessions; all are in summary.json and sessions.parquet.';
sdraw();

/* ---------- latency histograms ---------- */
var L=D.latency, E=L.edges, box=document.getElementById('latency-charts');
var lo=E.length, hi=0;
L.methods.forEach(function(m){ m.bins.forEach(function(c,i){ if(c>0){ lo=Math.min(lo,i); hi=Math.max(hi,i); } }); });
if(!L.methods.length){ box.appendChild(el('p','note','No timed pairs: latency unknown.')); }
else {
  lo=Math.max(0,lo-1); hi=Math.min(E.length-2,hi+1);
  var shown=L.methods.length>13? L.methods.slice(0,12).concat([L.methods[L.methods.length-1]]) : L.methods;
  if(L.methods.length>13) box.parentNode.insertBefore(el('p','note','The 12 most frequent of '+(L.methods.length-1)+' methods, and all requests (*).'), box);
  shown.forEach(function(m){
    var c=el('div','chart'); c.appendChild(el('div','t', m.method==='*'? '* (all requests)' : m.method));
    c.appendChild(el('div','q','n '+m.count+' · p50 '+fmtMs(m.p50)+' · p90 '+fmtMs(m.p90)+' · p99 '+fmtMs(m.p99)+' · max '+fmtMs(m.max)));
    var W=360,H=120,pl=30,pb=18,n=hi-lo+1,bw=(W-pl)/n, mx=1;
    for(var i=lo;i<=hi;i++) mx=Math.max(mx,m.bins[i]);
    var g=sv('svg',{width:W,height:H,viewBox:'0 0 '+W+' '+H,'class':'hist'});
    g.appendChild(sv('line',{x1:pl,y1:H-pb,x2:W,y2:H-pb,stroke:'#ccd'}));
    g.appendChild(sv('text',{x:2,y:10},mx)); g.appendChild(sv('text',{x:2,y:H-pb},0));
    var tickEnd=-1;
    for(var j=lo;j<=hi;j++){
      var h=(H-pb-8)*m.bins[j]/mx, x=pl+(j-lo)*bw;
      if(m.bins[j]>0){ var rc=sv('rect',{x:x+0.5,y:H-pb-h,width:Math.max(1,bw-1),height:h,fill:m.method==='*'?'#7b8794':'#5c7cfa'}); rc.appendChild(sv('title',{},fmtMs(E[j])+' – '+fmtMs(E[j+1])+': '+m.bins[j])); g.appendChild(rc); }
      if((j%4)===0){
        /* A decade label inside the chart: moved left at the right edge, left out where it would overlap the one before. */
        var lab=fmtMs(E[j]), tw=lab.length*6+2, tx=Math.min(x, W-tw);
        if(tx>tickEnd+4){ g.appendChild(sv('text',{x:tx,y:H-4},lab)); tickEnd=tx+tw; }
      }
    }
    function mark(v, col){ if(v===null) return; var pos=Math.log10(Math.max(v,E[0])/E[0])*4; var x=pl+(Math.min(Math.max(pos,lo),hi+1)-lo)*bw;
      g.appendChild(sv('line',{x1:x,y1:4,x2:x,y2:H-pb,stroke:col,'stroke-dasharray':'3,2'})); }
    mark(m.p50,'#2e7d32'); mark(m.p99,'#c62828');
    c.appendChild(g); box.appendChild(c);
  });
}

/* ---------- waterfall ---------- */
var WF=D.waterfall, wbox=document.getElementById('waterfall-rows'), wp=0, WPER=40, onlyP=document.getElementById('w-problems');
function wdraw(){
  var rows=onlyP.checked? WF.filter(function(b){ return b.p; }) : WF;
  var pages=Math.max(1,Math.ceil(rows.length/WPER)); if(wp>=pages) wp=pages-1;
  wbox.textContent='';
  if(!rows.length) wbox.appendChild(el('p','note','No request batches with timed members.'));
  rows.slice(wp*WPER,(wp+1)*WPER).forEach(function(b){
    var row=el('div','wrow'), lab=el('div','wlab');
    lab.appendChild(el('div',null,'batch #'+b.n+' · '+b.size+' member(s) · '+(b.done===null?'incomplete':'done in '+fmtMs(b.done))));
    lab.appendChild(el('div','mono',S[b.s]));
    lab.appendChild(el('div','mono',F[b.f]+' · '+b.loc));
    row.appendChild(lab);
    var span=0; b.m.forEach(function(m){ span=Math.max(span, m[2]===null? (m[1]||0) : m[2]); }); if(b.done!==null) span=Math.max(span,b.done); if(span<=0) span=1;
    var W=760, rh=16, H=b.m.length*rh+16, lw=120, g=sv('svg',{width:'100%',height:H,viewBox:'0 0 '+W+' '+H,preserveAspectRatio:'xMinYMin meet','class':'wf'});
    var sc=function(t){ return lw+(W-lw-110)*t/span; };
    b.m.forEach(function(m,i){
      var y=i*rh+2, x0=sc(m[1]||0);
      var id=m[0]+(m[7]? ' '+m[7] : ''); g.appendChild(sv('text',{x:0,y:y+11}, id.length>20? id.slice(0,20)+'…' : id));
      var col=m[6]? '#c62828' : m[5]? '#ff9800' : '#5c7cfa', tip=m[0]+' '+(m[7]||'')+': '+m[4];
      if(m[2]===null){ g.appendChild(sv('rect',{x:x0,y:y+2,width:Math.max(2,sc(span)-x0),height:rh-6,fill:'none',stroke:'#677085','stroke-dasharray':'3,2'})); tip+=' (no response)'; }
      else { var rc=sv('rect',{x:x0,y:y+2,width:Math.max(2,sc(m[2])-x0),height:rh-6,fill:col,rx:2}); g.appendChild(rc); tip+=' in '+fmtMs(m[2]-(m[1]||0))+(m[3]!==null?' (arrived '+(m[3]+1)+(m[5]?', out of order':'')+')':''); 
        g.appendChild(sv('text',{x:sc(m[2])+4,y:y+11}, fmtMs(m[2]-(m[1]||0))+(m[5]?' ↯#'+(m[3]+1):'')+(m[6]?' slow':''))); }
      var t=sv('title',{},tip); g.lastChild.appendChild(t);
    });
    var ax=b.m.length*rh+12; g.appendChild(sv('text',{x:lw,y:ax},'0')); g.appendChild(sv('text',{x:W-90,y:ax},fmtMs(span)));
    row.appendChild(g); wbox.appendChild(row);
  });
  var tot=D.waterfall_total>WF.length? ' (the page holds '+WF.length+' of '+D.waterfall_total+', problem batches first)' : '';
  document.getElementById('w-count').textContent=rows.length+(onlyP.checked? ' with a problem' : ' drawn')+', of '+D.request_batches+' request batch'+(D.request_batches===1?'':'es')+tot;
  pager(document.getElementById('w-pager'), wp, pages, function(p){ wp=p; wdraw(); });
}
onlyP.addEventListener('change', function(){ wp=0; wdraw(); });
wdraw();

/* ---------- layout check (read by the tests) ---------- */
/* data-clipped: chart labels that reach outside their chart; data-split-tokens: table cells holding one short token drawn on more than one line. */
function layoutCheck(){
  var clipped=0, split=0;
  document.querySelectorAll('svg').forEach(function(g){ var vb=g.viewBox.baseVal; if(!vb||!vb.width) return;
    g.querySelectorAll('text').forEach(function(t){ var b=t.getBBox(); if(b.x<vb.x-0.5||b.y<vb.y-0.5||b.x+b.width>vb.x+vb.width+0.5||b.y+b.height>vb.y+vb.height+0.5) clipped++; }); });
  document.querySelectorAll('td').forEach(function(td){ if(!shortToken(td.textContent)) return;
    var rg=document.createRange(); rg.selectNodeContents(td); var tops={}, rs=rg.getClientRects();
    for(var i=0;i<rs.length;i++) tops[Math.round(rs[i].top)]=1; if(Object.keys(tops).length>1) split++; });
  document.body.setAttribute('data-clipped', String(clipped)); document.body.setAttribute('data-split-tokens', String(split));
}
layoutCheck();
document.body.setAttribute('data-render-ms', String(Math.round(performance.now())));
document.body.setAttribute('data-ready','1');
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_island_cannot_close_its_script() {
        let v = json!({"m": "</script><script>alert(1)</script>", "x": "a&b\u{2028}"});
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(
            serde_json::from_str::<Value>(&s).unwrap(),
            v,
            "still the same JSON"
        );
    }

    #[test]
    fn script_safe_catches_separators_split_across_writes() {
        // U+2028, U+2029; U+20AC (E2 82 AC) and U+2000 (E2 80 80) share
        // their first bytes and stay as they are.
        let text = "a\u{2028}b\u{2029}<&>\u{20ac}\u{2000}\u{2028}";
        let want = "a\\u2028b\\u2029\\u003c\\u0026\\u003e\u{20ac}\u{2000}\\u2028";
        for step in 1..=4 {
            let mut s = ScriptSafe::new(Vec::new());
            for part in text.as_bytes().chunks(step) {
                s.write_all(part).unwrap();
            }
            assert_eq!(
                String::from_utf8(s.finish().unwrap()).unwrap(),
                want,
                "{step}"
            );
        }
        let mut s = ScriptSafe::new(Vec::new());
        s.write_all(&[b'x', 0xE2, 0x80]).unwrap();
        assert_eq!(
            s.finish().unwrap(),
            [b'x', 0xE2, 0x80],
            "held bytes written"
        );
    }

    #[test]
    fn evidence_is_condensed_redacted_and_cut() {
        let entry = r#"{"request":{"method":"POST","url":"https://h/mcp?token=abc","headers":[{"name":"Authorization","value":"Bearer zzzzzzzzzz"}],"postData":{"text":"{\"id\":1}"}},"response":{"status":200,"content":{"mimeType":"application/json","text":"eyJpZCI6MX0=","encoding":"base64"},"headers":[]}}"#;
        let e = Excerpt {
            text: entry.into(),
            len: entry.len() as u64,
            cut: false,
        };
        let (t, cut) = show_excerpt(&e, true, true);
        assert!(!cut);
        assert!(
            t.starts_with("POST https://h/mcp?token=[REDACTED]\n{\"id\":1}\n"),
            "{t}"
        );
        assert!(
            t.contains("{\"id\":1}\n")
                && t.contains("Authorization: [REDACTED]")
                && !t.contains("zzzz"),
            "{t}"
        );
        let long = Excerpt {
            text: format!("a\u{1b}b\n{}", "x".repeat(5000)),
            len: 9000,
            cut: true,
        };
        let (t, cut) = show_excerpt(&long, false, true);
        assert!(
            cut && t.starts_with("a\\u{1b}b\n")
                && t.ends_with("(cut: 4096 of the range's 9000 bytes shown)"),
            "{}",
            &t[..20]
        );
    }
}

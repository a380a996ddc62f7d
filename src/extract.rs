//! `mcp-audit extract`: a smaller capture, in the input's own format, that
//! holds what one finding (or one session) needs, redacted, for a bug
//! report.
//!
//! The input is read and analysed as `mcp-audit analyze INPUT` alone
//! analyses it (same rules, same findings in the same order: finding `N`
//! is the `N`-th row after the header of `findings.csv`, `findings[N-1]` of `summary.json`). The
//! input is cut into *units*: a physical line of a line log, a block of
//! a raw SSE capture (an event, or an HTTP header block, up to and with
//! the blank lines after it), an element of a HAR's `log.entries`. Each
//! record maps to the units its bytes lie in. An extract keeps units, in
//! input order, each exactly as captured apart from redaction
//! ([`crate::report::redact::redact`], unit by unit; a HAR entry as a
//! whole); a HAR extract is a new HAR 1.2 document with the input's other
//! `log` members (`version`, `creator`, `browser`, …), the pages the kept
//! entries name, and the kept entries.
//!
//! What is kept grows by [`Level`] until the extract, read back the same
//! way, has the finding again (same kind, same id, same severity; for
//! `--session`, every finding of the session): the frames around the
//! finding, then the whole session, then the session with every line
//! that carries no record (context lines a dialect may read), then the
//! whole input. Each level keeps the lines before the first record (a
//! banner a dialect is detected by), a raw SSE capture's header blocks,
//! and the session's process-start lines.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::analyze::{self, Finding, FindingId, Severity};
use crate::config::InputFormat;
use crate::ingest::{self, Format, Input};
use crate::reconstruct::session::Splitter;
use crate::record::{Id, Kind, Member, Message, Parsed, Payload, Record};
use crate::report::redact;

/// What to extract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Every frame of the session of this name (`summary.json`
    /// `sessions[].name`).
    Session(String),
    /// Finding number `N`, 1-based: the `N`-th row after the header of `findings.csv`.
    Finding(usize),
}

/// One `extract` run, its arguments checked.
#[derive(Debug, Clone)]
pub struct Request {
    /// The capture read.
    pub input: PathBuf,
    /// What to keep.
    pub target: Target,
    /// Where the extract goes (never the input).
    pub out: PathBuf,
    /// How the input is read (`--format`).
    pub format: InputFormat,
    /// The rules' thresholds, as `analyze` takes them.
    pub rules: analyze::Config,
    /// Redact secrets (the default; `--no-redact` keeps them).
    pub redact: bool,
}

/// How much of the input an extract keeps (the first that reads back
/// with the finding wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The finding's frame, the frames that carry its ids (requests,
    /// responses, cancellations and progress of those ids; the events of
    /// a replayed SSE event id), the batch it names, and the session's
    /// `initialize` exchange.
    Frames,
    /// Every record of the session.
    Session,
    /// The session and every unit that carries no record.
    Context,
    /// Every unit of the input.
    Whole,
}

impl Level {
    /// How a person reads the level.
    pub fn describe(self) -> &'static str {
        match self {
            Level::Frames => "the frames around the finding",
            Level::Session => "the whole session",
            Level::Context => "the whole session and the input's lines that carry no message",
            Level::Whole => "the whole input",
        }
    }
}

/// What an extract holds, for the one line `extract` prints.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The level kept.
    pub level: Level,
    /// Units kept, and the input's count (lines, SSE blocks or HAR entries).
    pub kept: (usize, usize),
    /// What a unit is (`lines`, `blocks`, `entries`).
    pub unit: &'static str,
    /// The session the extract holds.
    pub session: String,
    /// The findings asked for, as `(kind, id JSON, severity)`.
    pub wanted: Vec<(String, String, Severity)>,
    /// 1-based numbers of those findings in the extract's own findings.
    pub found_as: Vec<usize>,
    /// Findings of the session that no level short of the whole input
    /// keeps (only for `--session`; those judged against the whole
    /// capture, such as `slow_tail` outside batches, DESIGN.md rule 10).
    pub lost: Vec<(String, String, Severity)>,
}

/// Why an extract could not be made: one line, exit 2.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// A bad argument or input; the message is the whole line.
    #[error("{0}")]
    Usage(String),
}

fn usage(msg: impl Into<String>) -> ExtractError {
    ExtractError::Usage(msg.into())
}

/// Makes the extract and writes it to `req.out`.
///
/// # Errors
/// One line naming the input or argument (refused overwrite, unreadable
/// input, a format extract does not write, no such finding or session,
/// an output that cannot be written).
pub fn run(req: &Request) -> Result<Outcome, ExtractError> {
    let shown = req.input.display().to_string();
    check_paths(&req.input, &req.out)?;
    let file = crate::source::read(&req.input).map_err(|e| usage(format!("{e:#}")))?;
    let fmt = format_of(req.format, &file.text, &shown)?;
    // The bytes as captured where the decoded text has their offsets (a
    // plain UTF-8 file: ANSI sequences, which the reader blanks, stay).
    let raw = raw_text(&req.input, &file.text);
    let text: &str = raw.as_deref().unwrap_or(&file.text);
    let parsed = parse(&shown, &file.text, fmt);
    let records = parsed.records.clone();
    let findings = analyse(&req.rules, &shown, file.bytes, parsed);
    let sessions = session_of_records(&records);
    let (sess, wanted) = targeted(&req.target, &findings, &sessions, &shown)?;
    let Some(si) = sessions.names.iter().position(|n| *n == sess) else {
        return Err(usage(format!(
            "{shown}: the finding's session {sess} holds no record"
        )));
    };
    let mut units = Units::new(fmt, text).map_err(|e| usage(format!("{shown}: {e}")))?;
    let owners = units.owners(&records);
    let want_keys: Vec<_> = wanted.iter().map(|f| key_of(f, req.redact)).collect();
    for level in levels(&req.target, fmt) {
        let keep = select(level, si, &wanted, &records, &sessions, &owners, &units);
        let out = units.write(text, &keep, req.redact);
        let back = read_back(&req.rules, &shown, &out, fmt);
        let back_keys: Vec<_> = back.iter().map(|f| key_of(f, req.redact)).collect();
        let (found_as, missing) = match_keys(&want_keys, &back_keys);
        if !missing.is_empty() && level != Level::Whole {
            continue;
        }
        if let (false, Target::Finding(n)) = (missing.is_empty(), &req.target) {
            return Err(usage(format!(
                "{shown}: even the whole input, redacted, does not read back with finding {n}: {} (try --no-redact)",
                show_key(&want_keys[0])
            )));
        }
        let bytes = encoded(&req.out, out.as_bytes())?;
        std::fs::write(&req.out, bytes)
            .map_err(|e| usage(format!("{}: cannot write: {e}", req.out.display())))?;
        return Ok(Outcome {
            level,
            kept: (keep.len(), units.len()),
            unit: units.unit_name(),
            session: redact::redact(&sess).into_owned(),
            wanted: want_keys.clone(),
            found_as,
            lost: missing.iter().map(|&i| want_keys[i].clone()).collect(),
        });
    }
    // `levels` ends with `Whole`, which returns above.
    Err(usage(format!("{shown}: nothing to extract")))
}

/// The format the input is read in (`--format`, else detected); only
/// HAR, raw SSE and line logs are extracted.
fn format_of(given: InputFormat, text: &str, shown: &str) -> Result<Format, ExtractError> {
    let detected = ingest::detect_format(text);
    let fmt = match (given, detected) {
        (InputFormat::Har, _) => Format::Har,
        (InputFormat::Sse, _) => Format::Sse,
        (InputFormat::Stdio, d @ Format::Lines(_)) | (InputFormat::Auto, d) => d,
        (InputFormat::Stdio, _) => Format::Unknown,
    };
    match fmt {
        Format::Har | Format::Sse | Format::Lines(_) => Ok(fmt),
        Format::Cassette | Format::InspectorHistory => Err(usage(format!(
            "{shown}: an {} is not extracted (extract writes HAR, raw SSE and line logs)",
            if fmt == Format::Cassette {
                "mcp-recorder cassette"
            } else {
                "MCP Inspector history export"
            }
        ))),
        _ => Err(usage(format!(
            "{shown}: no known capture format (mcp-audit analyze {shown} says why)"
        ))),
    }
}

/// The session the target names (its name as captured) and the findings
/// the extract must keep: finding `N`, or every finding of the session.
fn targeted<'f>(
    target: &Target,
    findings: &'f [Finding],
    sessions: &Sessions,
    shown: &str,
) -> Result<(String, Vec<&'f Finding>), ExtractError> {
    match target {
        Target::Finding(n) => {
            let f = findings.get(n.wrapping_sub(1)).ok_or_else(|| {
                usage(match findings.len() {
                    0 => format!("--finding {n}: {shown} has no findings"),
                    1 => format!("--finding {n}: {shown} has 1 finding (numbered 1, as the row of findings.csv after its header)"),
                    c => format!("--finding {n}: {shown} has {c} findings (numbered 1 to {c}, as the rows of findings.csv after its header)"),
                })
            })?;
            Ok((f.session.clone(), vec![f]))
        }
        Target::Session(given) => {
            // The name as the outputs show it (redacted) or as captured.
            let raw = sessions
                .names
                .iter()
                .find(|n| *n == given)
                .or_else(|| sessions.names.iter().find(|n| redact::redact(n) == *given));
            let Some(s) = raw else {
                let mut names: Vec<String> = sessions
                    .names
                    .iter()
                    .map(|n| redact::redact(n).into_owned())
                    .collect();
                names.dedup();
                let list = if names.len() > 10 {
                    format!("{}, …", names[..10].join(", "))
                } else {
                    names.join(", ")
                };
                return Err(usage(format!(
                    "--session {given}: no such session in {shown} (its sessions: {list})"
                )));
            };
            Ok((
                s.clone(),
                findings.iter().filter(|f| f.session == *s).collect(),
            ))
        }
    }
}

/// The levels tried, in order: from the frames around a finding (the
/// session for `--session`) up to the whole input; the context level only
/// for a line log.
fn levels(target: &Target, fmt: Format) -> Vec<Level> {
    let first_level = match target {
        Target::Finding(_) => Level::Frames,
        Target::Session(_) => Level::Session,
    };
    let mut levels = vec![first_level, Level::Session];
    if matches!(fmt, Format::Lines(_)) {
        levels.push(Level::Context);
    }
    levels.push(Level::Whole);
    levels.dedup();
    levels
}

/// Refuses an output that is the input (same path or the same file by
/// another name), and an output that is a folder.
fn check_paths(input: &Path, out: &Path) -> Result<(), ExtractError> {
    let meta = std::fs::metadata(input)
        .map_err(|e| usage(format!("{}: cannot read: {e}", input.display())))?;
    if !meta.is_file() {
        return Err(usage(format!(
            "{}: not a file (extract reads one capture file)",
            input.display()
        )));
    }
    if let [spec] = crate::source::expand(&[input.to_path_buf()]).as_slice()
        && matches!(spec.kind, crate::source::InputKind::Pair { .. })
    {
        return Err(usage(format!(
            "{}: one half of a per-direction pair (NAME.client-to-server.jsonl and NAME.server-to-client.jsonl are one capture); extract reads a capture that is one file",
            input.display()
        )));
    }
    if out.is_dir() {
        return Err(usage(format!(
            "--out {}: is a folder; name the file the extract goes to",
            out.display()
        )));
    }
    let same = match std::fs::metadata(out) {
        Ok(o) => same_file(&meta, &o),
        Err(_) => {
            let canon = |p: &Path| {
                let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
                let dir = std::fs::canonicalize(parent.unwrap_or(Path::new("."))).ok()?;
                Some(dir.join(p.file_name()?))
            };
            canon(out).is_some_and(|o| std::fs::canonicalize(input).is_ok_and(|i| i == o))
        }
    };
    if same {
        return Err(usage(format!(
            "--out {}: is the input; extract never overwrites its input",
            out.display()
        )));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// The file's own text when it is plain UTF-8 whose decoded text has the
/// same offsets (no compression, no replaced bytes; a BOM is dropped as
/// the reader drops it).
fn raw_text(path: &Path, decoded: &str) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let text = match text.strip_prefix('\u{feff}') {
        Some(t) => t.to_string(),
        None => text,
    };
    (text.len() == decoded.len()).then_some(text)
}

/// The input parsed whole, as file 0.
fn parse(name: &str, text: &str, fmt: Format) -> Parsed {
    let input = Input {
        file: crate::report::file_id(0, 0),
        name,
        text,
    };
    ingest::parse(input, fmt)
}

/// The extract's bytes as the `--out` name asks: gzip for `.gz` (the
/// reader knows it by its magic bytes), as it is otherwise. Another
/// compression's name (`.zst`, `.xz`, `.bz2`) is refused rather than
/// written as plain text under it.
fn encoded(out: &Path, text: &[u8]) -> Result<Vec<u8>, ExtractError> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "gz" => {
            use std::io::Write as _;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(text)
                .and_then(|()| e.finish())
                .map_err(|err| usage(format!("{}: cannot compress: {err}", out.display())))
        }
        "zst" | "xz" | "bz2" => Err(usage(format!(
            "--out {}: extract writes plain text or gzip (.gz), not .{ext}",
            out.display()
        ))),
        _ => Ok(text.to_vec()),
    }
}

/// The findings of one parsed input, unredacted (what `analyze INPUT`
/// finds, in its order).
fn analyse(rules: &analyze::Config, name: &str, bytes: u64, parsed: Parsed) -> Vec<Finding> {
    crate::pipeline::analyze_parsed(rules, false, vec![(name.to_string(), bytes, parsed)])
        .analysis
        .findings
}

/// An extract's text read back as the input was read, in the same format
/// (a text the format detection would read otherwise, or one `analyze`
/// would refuse as holding no traffic, has no findings: `analyze` on the
/// file would not read it as the input was read).
fn read_back(rules: &analyze::Config, name: &str, text: &str, fmt: Format) -> Vec<Finding> {
    if ingest::detect_format(text) != fmt {
        return Vec::new();
    }
    let parsed = parse(name, text, fmt);
    let run = crate::pipeline::analyze_parsed(
        rules,
        false,
        vec![(name.to_string(), text.len() as u64, parsed)],
    );
    // An extract with no JSON-RPC traffic left (a non-JSON event alone)
    // makes `analyze` exit 2: it does not read back.
    if run.fatal.iter().any(|&f| f) {
        return Vec::new();
    }
    run.analysis.findings
}

/// A finding as an extract must have it again: kind, id (as every output
/// shows it: redacted) and severity.
type Key = (String, String, Severity);

fn key_of(f: &Finding, redacted: bool) -> Key {
    let mut id = f.id.clone();
    if redacted {
        match &mut id {
            FindingId::One(i) => redact::redact_id(i),
            FindingId::Batch(ids) => ids.iter_mut().for_each(redact::redact_id),
        }
    }
    (
        f.kind.name().to_string(),
        id.to_json().to_string(),
        f.severity(),
    )
}

fn show_key(k: &Key) -> String {
    format!("{} id {} ({})", k.0, k.1, k.2.as_str())
}

/// For each wanted key, the 1-based number of a distinct finding read
/// back with it; and the wanted keys none has.
fn match_keys(want: &[Key], back: &[Key]) -> (Vec<usize>, Vec<usize>) {
    let mut used = vec![false; back.len()];
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for (i, w) in want.iter().enumerate() {
        match (0..back.len()).find(|&j| !used[j] && &back[j] == w) {
            Some(j) => {
                used[j] = true;
                found.push(j + 1);
            }
            None => missing.push(i),
        }
    }
    (found, missing)
}

/// Per record, the session it belongs to: a frame the one the splitter
/// puts it in (rule 1), a process-start line the session of the next
/// frame of its key.
struct Sessions {
    names: Vec<String>,
    of: Vec<Option<usize>>,
}

fn session_of_records(records: &[Record]) -> Sessions {
    let mut splitter = Splitter::default();
    let mut of = vec![None; records.len()];
    let mut pending: HashMap<std::sync::Arc<str>, Vec<usize>> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        match r {
            Record::ProcessStart { key, .. } => {
                splitter.push(r.clone());
                pending.entry(key.clone()).or_default().push(i);
            }
            Record::Frame(f) => {
                let key = f.key.clone();
                if let Some((s, _)) = splitter.push(r.clone()) {
                    of[i] = Some(s);
                    for p in pending.remove(&key).unwrap_or_default() {
                        of[p] = Some(s);
                    }
                }
            }
        }
    }
    Sessions {
        names: splitter.names,
        of,
    }
}

/// The messages of a frame.
fn messages(r: &Record) -> Vec<&Message> {
    match r {
        Record::Frame(f) => match &f.payload {
            Payload::Single(m) => vec![m],
            Payload::Batch(ms) => ms
                .iter()
                .filter_map(|m| match m {
                    Member::Message(m) => Some(m),
                    Member::NotObject => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        Record::ProcessStart { .. } => Vec::new(),
    }
}

/// Ids that name one exchange (a missing or null id names none).
fn naming(id: &Id) -> bool {
    !matches!(id, Id::Absent | Id::Null)
}

/// The units a level keeps for session `si`.
fn select(
    level: Level,
    si: usize,
    wanted: &[&Finding],
    records: &[Record],
    sessions: &Sessions,
    owners: &[Vec<usize>],
    units: &Units,
) -> BTreeSet<usize> {
    let mut keep: BTreeSet<usize> = units.always();
    if level == Level::Whole {
        keep.extend(0..units.len());
        return keep;
    }
    let mine: Vec<usize> = (0..records.len())
        .filter(|&i| sessions.of[i] == Some(si))
        .collect();
    let take = |i: usize, keep: &mut BTreeSet<usize>| keep.extend(owners[i].iter().copied());
    for &i in &mine {
        if matches!(records[i], Record::ProcessStart { .. }) {
            take(i, &mut keep);
        }
    }
    if level >= Level::Session {
        for &i in &mine {
            take(i, &mut keep);
        }
        if level == Level::Context {
            keep.extend(units.unowned(owners));
        }
        return keep;
    }
    let links = Links::of(wanted, records, &mine);
    for &i in &mine {
        if let Record::Frame(fr) = &records[i]
            && links.hold(fr, &records[i])
        {
            take(i, &mut keep);
        }
    }
    keep
}

/// What ties a frame of the session to the findings an extract of
/// [`Level::Frames`] keeps.
struct Links<'w> {
    /// The findings' ids, the ids of the session's `initialize` requests
    /// (only ids that name one exchange).
    ids: HashSet<Id>,
    /// The progress tokens of the requests that carry those ids.
    tokens: HashSet<Id>,
    /// The event ids of the replayed SSE events among the findings (the
    /// event a replay repeats carries the same one).
    event_ids: HashSet<&'w str>,
    /// The findings' evidence ranges, `[start, end)`.
    spans: Vec<(u64, u64)>,
}

impl<'w> Links<'w> {
    /// The links of `wanted` in the session whose records are `mine`.
    fn of(wanted: &[&'w Finding], records: &[Record], mine: &[usize]) -> Links<'w> {
        let mut ids: HashSet<Id> = HashSet::new();
        for f in wanted {
            match &f.id {
                FindingId::One(i) => {
                    ids.insert(i.clone());
                }
                FindingId::Batch(b) => ids.extend(b.iter().cloned()),
            }
            ids.extend(f.alt_ids.iter().cloned());
        }
        for &i in mine {
            for m in messages(&records[i]) {
                if m.kind == Kind::Request && m.method.as_deref() == Some("initialize") {
                    ids.insert(m.id.clone());
                }
            }
        }
        ids.retain(naming);
        let mut tokens: HashSet<Id> = HashSet::new();
        for &i in mine {
            for m in messages(&records[i]) {
                if ids.contains(&m.id)
                    && let Some(t) = m.extra.as_ref().and_then(|e| e.progress_token.clone())
                {
                    tokens.insert(t);
                }
            }
        }
        let event_ids = wanted
            .iter()
            .filter(|f| f.kind == crate::analyze::FindingKind::SseReplayDuplicate)
            .filter_map(|&f| match &f.id {
                FindingId::One(Id::Str(s)) => Some(&**s),
                _ => None,
            })
            .collect();
        let spans = wanted
            .iter()
            .map(|f| (f.evidence.0, f.evidence.0 + u64::from(f.evidence.1)))
            .collect();
        Links {
            ids,
            tokens,
            event_ids,
            spans,
        }
    }

    /// Whether frame `fr` (record `r`) is kept: it overlaps a finding's
    /// evidence, carries one of the ids (as its id, the id it cancels or
    /// a progress token), or is an event a replay repeats.
    fn hold(&self, fr: &crate::record::Frame, r: &Record) -> bool {
        let (a, b) = (fr.prov.offset, fr.prov.offset + u64::from(fr.prov.len));
        let at_finding = self
            .spans
            .iter()
            .any(|&(s, e)| s == a || (s < b.max(a + 1) && a < e.max(s + 1)));
        let linked = messages(r).iter().any(|m| {
            self.ids.contains(&m.id)
                || m.extra.as_ref().is_some_and(|e| {
                    e.cancel_id.as_ref().is_some_and(|c| self.ids.contains(c))
                        || e.progress_token
                            .as_ref()
                            .is_some_and(|t| self.tokens.contains(t))
                })
        });
        let replayed = fr
            .event_id
            .as_ref()
            .is_some_and(|e| self.event_ids.contains(&*e.id));
        at_finding || linked || replayed
    }
}

/// The input cut into units (see the module documentation).
struct Units {
    fmt: Format,
    /// Byte spans `[start, end)` of the units, in input order.
    spans: Vec<(usize, usize)>,
    /// Units every level keeps.
    always: Vec<usize>,
    /// A HAR document's parts (entries are the units).
    har: Option<HarParts>,
}

/// A byte span `[start, end)` of the input.
type Span = (usize, usize);

/// A HAR document taken apart: the root's members and `log`'s, in order,
/// as their exact texts, and the pages' ids.
struct HarParts {
    root: Vec<(String, (usize, usize))>,
    log: Vec<(String, (usize, usize))>,
    pages: Option<Vec<(Span, Option<String>)>>,
    /// Per entry, its `pageref`.
    pagerefs: Vec<Option<String>>,
}

impl Units {
    fn new(fmt: Format, text: &str) -> Result<Units, String> {
        match fmt {
            Format::Har => Self::har(text),
            Format::Sse => Ok(Self::sse(text)),
            _ => Ok(Self::lines(text, fmt)),
        }
    }

    fn lines(text: &str, fmt: Format) -> Units {
        let mut spans = Vec::new();
        let mut at = 0;
        for l in text.split_inclusive('\n') {
            spans.push((at, at + l.len()));
            at += l.len();
        }
        Units {
            fmt,
            spans,
            always: Vec::new(),
            har: None,
        }
    }

    /// Blocks of a raw SSE capture: non-blank lines with the blank lines
    /// after them; a block that opens with `HTTP/` is a header block.
    fn sse(text: &str) -> Units {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut always = Vec::new();
        let mut at = 0;
        let mut open: Option<usize> = None;
        let mut blank_run = false;
        for l in split_sse_lines(text) {
            let blank = l.trim_end_matches(['\r', '\n']).is_empty();
            match (open, blank) {
                (None, _) => {
                    open = Some(at);
                    blank_run = blank;
                }
                (Some(s), false) if blank_run => {
                    spans.push((s, at));
                    open = Some(at);
                    blank_run = false;
                }
                (Some(_), true) => blank_run = true,
                (Some(_), false) => {}
            }
            at += l.len();
        }
        if let Some(s) = open {
            spans.push((s, at));
        }
        for (i, &(s, _)) in spans.iter().enumerate() {
            if text[s..].starts_with("HTTP/") {
                always.push(i);
            }
        }
        Units {
            fmt: Format::Sse,
            spans,
            always,
            har: None,
        }
    }

    fn har(text: &str) -> Result<Units, String> {
        let base = text.as_ptr() as usize;
        let span = |r: &RawValue| {
            let s = r.get().as_ptr() as usize - base;
            (s, s + r.get().len())
        };
        let root: Members<'_> =
            serde_json::from_str(text).map_err(|e| format!("not a readable HAR document: {e}"))?;
        let log_raw = root
            .0
            .iter()
            .find(|(k, _)| k == "log")
            .map(|(_, v)| *v)
            .ok_or("not a HAR document: no `log` object")?;
        let log: Members<'_> = serde_json::from_str(log_raw.get())
            .map_err(|e| format!("not a readable HAR `log`: {e}"))?;
        let entries_raw = log
            .0
            .iter()
            .find(|(k, _)| k == "entries")
            .map(|(_, v)| *v)
            .ok_or("not a HAR document: no `log.entries`")?;
        let entries: Vec<&RawValue> = serde_json::from_str(entries_raw.get())
            .map_err(|e| format!("`log.entries` is not an array: {e}"))?;
        #[derive(Deserialize)]
        struct PageRef {
            pageref: Option<serde_json::Value>,
            id: Option<serde_json::Value>,
        }
        let text_of = |v: &Option<serde_json::Value>| match v {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let pagerefs = entries
            .iter()
            .map(|e| {
                serde_json::from_str::<PageRef>(e.get())
                    .ok()
                    .and_then(|p| text_of(&p.pageref))
            })
            .collect();
        let pages = log
            .0
            .iter()
            .find(|(k, _)| k == "pages")
            .and_then(|(_, v)| serde_json::from_str::<Vec<&RawValue>>(v.get()).ok())
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        let id = serde_json::from_str::<PageRef>(p.get())
                            .ok()
                            .and_then(|p| text_of(&p.id));
                        (span(p), id)
                    })
                    .collect()
            });
        Ok(Units {
            fmt: Format::Har,
            spans: entries.iter().map(|e| span(e)).collect(),
            always: Vec::new(),
            har: Some(HarParts {
                root: root.0.iter().map(|(k, v)| (k.clone(), span(v))).collect(),
                log: log.0.iter().map(|(k, v)| (k.clone(), span(v))).collect(),
                pages,
                pagerefs,
            }),
        })
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn unit_name(&self) -> &'static str {
        match self.fmt {
            Format::Har => "entries",
            Format::Sse => "blocks",
            _ => "lines",
        }
    }

    /// Units every level keeps: SSE header blocks; a line log's lines
    /// before its first record (filled in by [`Units::owners`]).
    fn always(&self) -> BTreeSet<usize> {
        self.always.iter().copied().collect()
    }

    /// Per record, the units it lies in. For a line log, also marks the
    /// lines before the first record as always kept.
    fn owners(&mut self, records: &[Record]) -> Vec<Vec<usize>> {
        let owners: Vec<Vec<usize>> = records.iter().map(|r| self.units_of(r)).collect();
        if matches!(self.fmt, Format::Lines(_))
            && let Some(first) = owners.iter().flatten().min()
        {
            self.always.extend(0..*first);
        }
        owners
    }

    fn units_of(&self, r: &Record) -> Vec<usize> {
        let prov = match r {
            Record::Frame(f) => &f.prov,
            Record::ProcessStart { prov, .. } => prov,
        };
        if self.fmt == Format::Har {
            return prov
                .location
                .entry
                .and_then(|e| usize::try_from(e).ok())
                .filter(|&e| e < self.spans.len())
                .into_iter()
                .collect();
        }
        let unit_at = |off: usize| self.spans.partition_point(|&(_, e)| e <= off);
        let start = usize::try_from(prov.offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(prov.len.max(1) as usize - 1);
        let mut first = unit_at(start);
        let last = unit_at(end);
        if self.fmt != Format::Sse
            && let Some(l) = prov.location.line.and_then(|l| usize::try_from(l).ok())
        {
            first = first.min(l.saturating_sub(1));
        }
        (first..=last.max(first))
            .filter(|&u| u < self.spans.len())
            .collect()
    }

    /// Line-log lines that no record lies in.
    fn unowned(&self, owners: &[Vec<usize>]) -> Vec<usize> {
        let owned: HashSet<usize> = owners.iter().flatten().copied().collect();
        (0..self.len()).filter(|u| !owned.contains(u)).collect()
    }

    /// The extract's text: the kept units as captured, redacted.
    fn write(&self, text: &str, keep: &BTreeSet<usize>, redacting: bool) -> String {
        let red = |s: &str| -> String {
            if redacting {
                redact::redact(s).into_owned()
            } else {
                s.to_string()
            }
        };
        let Some(h) = &self.har else {
            let mut out = String::new();
            for &u in keep {
                let (s, e) = self.spans[u];
                // A unit whole (an SSE event's `data:` lines together:
                // a secret's name may end one and its value start the next).
                out.push_str(&red(&text[s..e]));
            }
            return out;
        };
        let refs: HashSet<&str> = keep
            .iter()
            .filter_map(|&u| h.pagerefs[u].as_deref())
            .collect();
        // `[` items `]`, one item a line.
        let list = |items: &mut dyn Iterator<Item = (usize, usize)>, out: &mut String| {
            out.push('[');
            let mut n = 0;
            for (s, e) in items {
                out.push_str(if n == 0 { "\n      " } else { ",\n      " });
                out.push_str(&red(&text[s..e]));
                n += 1;
            }
            out.push_str(if n == 0 { "]" } else { "\n    ]" });
        };
        let mut log = String::from("{");
        for (n, (k, (s, e))) in h.log.iter().enumerate() {
            log.push_str(if n == 0 { "\n    " } else { ",\n    " });
            log.push_str(&serde_json::to_string(k).unwrap_or_default());
            log.push_str(": ");
            match (k.as_str(), &h.pages) {
                ("entries", _) => list(&mut keep.iter().map(|&u| self.spans[u]), &mut log),
                ("pages", Some(pages)) => list(
                    &mut pages
                        .iter()
                        .filter(|(_, id)| id.as_deref().is_some_and(|i| refs.contains(i)))
                        .map(|(span, _)| *span),
                    &mut log,
                ),
                _ => log.push_str(&red(&text[*s..*e])),
            }
        }
        log.push_str("\n  }");
        let mut out = String::from("{");
        let mut log_done = false;
        for (n, (k, (s, e))) in h.root.iter().enumerate() {
            out.push_str(if n == 0 { "\n  " } else { ",\n  " });
            out.push_str(&serde_json::to_string(k).unwrap_or_default());
            out.push_str(": ");
            if k == "log" && !log_done {
                out.push_str(&log);
                log_done = true;
            } else {
                out.push_str(&red(&text[*s..*e]));
            }
        }
        out.push_str("\n}\n");
        out
    }
}

/// Splits text into lines as the SSE reader does (CRLF, lone LF, lone CR),
/// each with its line end.
fn split_sse_lines(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push(&text[start..=i]);
                start = i + 1;
            }
            b'\r' => {
                let end = if b.get(i + 1) == Some(&b'\n') {
                    i + 1
                } else {
                    i
                };
                out.push(&text[start..=end]);
                start = end + 1;
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() {
        out.push(&text[start..]);
    }
    out
}

/// A JSON object's members in document order, each as its exact text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some((k, raw)) = m.next_entry::<String, &'de RawValue>()? {
                    v.push((k, raw));
                }
                Ok(Members(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// The line `extract` prints on stdout: what was written, what it holds,
/// and the finding's number in the extract.
pub fn summary_line(req: &Request, o: &Outcome) -> String {
    let what = match &req.target {
        Target::Finding(n) => format!(
            "finding {n} ({}), read back as finding {}",
            o.wanted.first().map(show_key).unwrap_or_default(),
            o.found_as
                .first()
                .map_or_else(|| "?".to_string(), usize::to_string)
        ),
        Target::Session(_) => format!(
            "{} of the session's {} findings read back",
            o.found_as.len(),
            o.wanted.len()
        ),
    };
    format!(
        "{}: {} of {} {} of {} ({}, session {}): {what}",
        req.out.display(),
        o.kept.0,
        o.kept.1,
        o.unit,
        req.input.display(),
        o.level.describe(),
        o.session
    )
}

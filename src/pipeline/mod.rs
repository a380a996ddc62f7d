//! The pipeline: a validated [`RunConfig`] in, an exit code out. The one
//! path from inputs to outputs, for the binary and for the benches, fuzz
//! targets and tests ([`analyze_parsed`] runs the same stages on inputs
//! already in memory).
//!
//! ```text
//! load (per input, in parallel) ─► gather (rotations, error lines)
//!   ─► sessions ─► walk (in parallel) ─► finalize ─► redact ─► outputs
//! ```
//!
//! stdout carries results; stderr carries the inputs' error lines and the
//! progress bar. Exit codes: 0 clean, 1 a finding at or above `--fail-on`,
//! 2 an input that could not be read (or an error, returned as `Err`).

mod load;
mod outputs;
mod rotation;

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::analyze::{self, Analysis, SessionResult};
use crate::config::RunConfig;
use crate::reconstruct;
use crate::record::{Parsed, Record};
use crate::report::progress::Progress;
use crate::report::{self, InputInfo, Report};
use crate::source::{self, InputSpec};
use load::{Loaded, Reading};

/// A run's analysis with what it knows about its inputs.
#[derive(Debug, Default)]
pub struct Run {
    /// Inputs in command-line order.
    pub infos: Vec<InputInfo>,
    /// Per input: unreadable or incomplete (the run exits 2).
    pub fatal: Vec<bool>,
    /// The analysis (redacted unless the run keeps secrets).
    pub analysis: Analysis,
    /// What the folder walks left out, and why.
    pub skipped: Vec<source::Skipped>,
    /// The responses' places and codes, kept only for `--otlp`.
    pub replies: report::otlp::Replies,
}

impl Run {
    /// The run bundled for the renderers.
    pub fn report(&self) -> Report<'_> {
        Report::new(&self.infos, &self.analysis).with_skipped(&self.skipped)
    }
}

/// Runs the program; returns the exit code (0 clean, 1 findings at or above
/// `--fail-on`, 2 an unreadable input).
pub fn run(config: &RunConfig) -> Result<u8> {
    start_workers(config.threads);
    let (specs, skipped) = expand(config)?;
    outputs::check_ci_targets(config, &specs)?;
    outputs::check_shard_layout(config)?;
    let progress = progress_for(config, &specs);
    let mut run = crate::timings::stage("analysis", || load_and_analyze(config, &specs, &progress));
    run.skipped = skipped;
    let gates = analyze::gates::evaluate(&run.analysis, &config.policy, &config.budgets);
    warn_unjudged_budgets(&gates, &progress);
    let rep = run.report().with_gates(&gates);
    progress.stage("writing");
    if let Some(dir) = &config.out {
        crate::timings::stage("--out (every file)", || {
            outputs::write_outputs(dir, &rep, config.redact)
        })?;
    }
    if let Some(target) = &config.shard {
        outputs::write_shard(&target.dir, &target.shard, &rep)?;
    }
    outputs::write_ci(config, &rep, &run.replies)?;
    progress.finish();
    crate::timings::stage("stdout", || outputs::print_stdout(&rep, config.stdout))?;
    crate::timings::print();
    let failing = run.analysis.findings.iter().any(|f| config.policy.fails(f))
        || gates.iter().any(|g| !g.passed);
    let any_fatal = run.fatal.iter().any(|&f| f);
    if let (true, Some(dir)) = (config.per_input, &config.out) {
        drop(rep);
        outputs::write_per_input(dir, run, config.fail_on, &config.policy)?;
    }
    if any_fatal {
        return Ok(2);
    }
    Ok(if failing { 1 } else { 0 })
}

/// Loads every input (in parallel), prints each one's error lines (the
/// readers' first, then those the analysis met), and analyses them.
fn load_and_analyze(config: &RunConfig, specs: &[InputSpec], progress: &Progress) -> Run {
    let reading = Reading {
        format: config.format,
        cfg: &config.rules,
        block_bytes: config.block_bytes,
        progress,
    };
    let mut loaded: Vec<Loaded> = specs
        .par_iter()
        .enumerate()
        .map(|(i, s)| load::load(s, i, &reading))
        .collect();
    progress.stage("analysing");
    for l in &mut loaded {
        redact_errors(l, config.redact);
        print_errors(&l.info, progress);
    }
    let groups = specs
        .iter()
        .map(|s| s.rotation.as_ref().map(|r| r.group.clone()))
        .collect();
    let ends = (0..specs.len())
        .map(|i| {
            InputSpec::ends_by_rotation(specs, i).map(|p| {
                let newest = specs[i..]
                    .iter()
                    .position(|s| matches!(&s.kind, source::InputKind::File(f) if f == p))
                    .map_or(i, |k| i + k);
                (newest, p.display().to_string())
            })
        })
        .collect();
    let printed: Vec<usize> = loaded.iter().map(|l| l.info.errors.len()).collect();
    let run = analyze_loaded(
        &config.rules,
        config.redact,
        loaded,
        (groups, ends),
        config.otlp.is_some() || config.otlp_metrics.is_some(),
    );
    for (info, &n) in run.infos.iter().zip(&printed) {
        // Problems the analysis met (a member twice), after the readers'.
        if info.errors.len() > n {
            let later = InputInfo {
                errors: info.errors[n..].to_vec(),
                notices: Vec::new(),
                ..info.clone()
            };
            print_errors(&later, progress);
        }
    }
    run
}

/// A `--max-latency` budget that judged nothing passes; a CI job is told
/// why, on stderr.
fn warn_unjudged_budgets(gates: &[analyze::gates::GateResult], progress: &Progress) {
    for g in gates
        .iter()
        .filter(|g| g.gate.starts_with("max-latency") && g.value_ms.is_none())
    {
        progress.suspend(|| {
            eprintln!(
                "mcp-audit: warning: {}: {}",
                report::terminal::sanitize(&g.gate, 200),
                report::terminal::sanitize(&g.detail, 300)
            )
        });
    }
}

/// Sets up the workers: one malloc arena per worker, set before any
/// thread starts (each arena keeps its own freed memory, and glibc's
/// default of 8 per core let the parse's leftovers pile up: reports/BENCH.md,
/// 2 threads: HAR 500 MB analysis 331 MB peak by default, 248 MB with 2
/// arenas; one arena for all gives 217 MB but its lock costs ~20 % of the
/// two-thread speed), then rayon's pool of `threads` workers.
fn start_workers(threads: Option<usize>) {
    let workers = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    crate::mem::limit_arenas(workers);
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .ok();
    }
}

/// The inputs named on the command line, folders and patterns expanded.
/// The run's own output folders are not inputs (a nightly job often
/// writes them beside, or inside, the logs it reads).
fn expand(config: &RunConfig) -> Result<(Vec<InputSpec>, Vec<source::Skipped>)> {
    let own = config.own_folders();
    let (specs, skipped) = source::expand_reporting(&config.inputs, &own);
    // Nothing is left out in silence.
    for line in skip_lines(&skipped) {
        eprintln!("mcp-audit: {line}");
    }
    if specs.is_empty() {
        let skipped = if own.is_empty() {
            String::new()
        } else {
            format!(
                " (the run's own output folders are not read: {})",
                own.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        bail!(
            "no input files found in {}{skipped}",
            config
                .inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok((specs, skipped))
}

/// The stderr lines naming what the walks left out: one per skipped
/// folder, one per folder and reason for files (`DIR: skipped 25 files,
/// each an expected-results file …: a.expected.json, …`); `summary.json`
/// lists each path.
fn skip_lines(skipped: &[source::Skipped]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut i = 0;
    while i < skipped.len() {
        let s = &skipped[i];
        let parent = s.path.parent().map(Path::to_path_buf);
        let mut j = i + 1;
        while j < skipped.len()
            && skipped[j].reason == s.reason
            && skipped[j].path.parent().map(Path::to_path_buf) == parent
        {
            j += 1;
        }
        if j - i == 1 || parent.is_none() {
            lines.push(format!("{}: skipped: {}", s.path.display(), s.reason));
        } else {
            let names: Vec<String> = skipped[i..j]
                .iter()
                .map(|x| {
                    x.path
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                })
                .collect();
            let folders = skipped[i..j].iter().filter(|x| x.path.is_dir()).count();
            let what = match folders {
                0 => "files",
                n if n == j - i => "folders",
                _ => "entries",
            };
            lines.push(format!(
                "{}: skipped {} {what}, each {}: {}",
                parent.as_deref().unwrap_or(Path::new("")).display(),
                j - i,
                s.reason,
                names.join(", ")
            ));
        }
        i = j;
    }
    lines
}

/// The run's progress bar: drawn only when stderr is a terminal and `-q`
/// is not given (`report::progress`); its total is the inputs' size on
/// disk.
fn progress_for(config: &RunConfig, specs: &[InputSpec]) -> Progress {
    let show = config.progress && std::io::stderr().is_terminal();
    if !show {
        return Progress::hidden();
    }
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let total = specs
        .iter()
        .map(|s| match &s.kind {
            source::InputKind::File(p) => size(p),
            source::InputKind::Pair { c2s, s2c, .. } => size(c2s) + size(s2c),
            _ => 0,
        })
        .sum();
    Progress::new(total, true)
}

/// Input errors quote captured lines ("first lines: …"): redacted like
/// every other output unless secrets are kept.
fn redact_errors(l: &mut Loaded, redact: bool) {
    if !redact {
        return;
    }
    for e in l.info.errors.iter_mut().chain(&mut l.info.notices) {
        // Redacted as the line it is shown as: a secret may span input
        // name and message.
        let line = e.to_string();
        if let std::borrow::Cow::Owned(r) = report::redact::redact(&line) {
            *e = e.shown_as(r);
        }
    }
}

/// An input's error lines on stderr, then its notices (`notice:`),
/// sanitised, the progress bar out of their way.
fn print_errors(info: &InputInfo, progress: &Progress) {
    let stderr = std::io::stderr();
    let mut e = stderr.lock();
    progress.suspend(|| {
        let cut = report::terminal::cut_line;
        for line in crate::diag::folded_lines(&info.errors, "errors") {
            let _ = writeln!(e, "mcp-audit: {}", cut(&line, 400, "errors"));
        }
        for line in crate::diag::folded_lines(&info.notices, "notices") {
            let _ = writeln!(e, "mcp-audit: notice: {}", cut(&line, 400, "notices"));
        }
    });
}

/// Runs the analysis on inputs already parsed in memory, as the binary
/// does on the files it read: each `(name, bytes, parsed)` is one input,
/// in order (its file id `report::file_id(i, 0)`). Its error lines are
/// kept in [`Run::infos`], not printed.
pub fn analyze_parsed(
    rules: &analyze::Config,
    redact: bool,
    inputs: Vec<(String, u64, Parsed)>,
) -> Run {
    let loaded: Vec<Loaded> = inputs
        .into_iter()
        .map(|(name, bytes, parsed)| {
            let mut l = load::finish(name, bytes, parsed, Vec::new(), false);
            redact_errors(&mut l, redact);
            l
        })
        .collect();
    let groups = vec![None; loaded.len()];
    let ends = vec![None; loaded.len()];
    analyze_loaded(rules, redact, loaded, (groups, ends), false)
}

/// Loaded inputs → the run: records grouped (rotated files of one log
/// continue one another), sessions rebuilt and walked in parallel, merged
/// with the sessions walked while reading in input order (deterministic
/// for any thread count), the capture-wide rules, then redaction.
/// `groups[i]`: input `i`'s rotation group, if any; `ends[i]`: for the
/// input that opens a log whose newest file given is a rotated one, that
/// file's input index and name ([`InputSpec::ends_by_rotation`]).
/// `want_replies`: keep the responses' places for `--otlp` while the
/// sessions are whole.
fn analyze_loaded(
    rules: &analyze::Config,
    redact: bool,
    loaded: Vec<Loaded>,
    (groups, ends): (Vec<Option<String>>, Ends),
    want_replies: bool,
) -> Run {
    let mut g = gather(loaded, &groups);
    let sessions = reconstruct::build_sessions(g.records);
    for s in sessions.iter().filter(|s| s.counted) {
        if let Some(info) = g.infos.get_mut(s.input) {
            info.sessions += 1;
        }
    }
    let walked: Vec<SessionResult> = sessions
        .par_iter()
        .map(|s| analyze::engine::walk(rules, s))
        .collect();
    let mut replies = report::otlp::Replies::default();
    if want_replies {
        replies.sessions = sessions
            .par_iter()
            .map(report::otlp::Replies::collect)
            .collect();
        if redact {
            replies.redact();
        }
    }
    drop(sessions);
    let mut all: Vec<(usize, usize, SessionResult)> = walked
        .into_iter()
        .enumerate()
        .map(|(n, r)| (r.input, n, r))
        .collect();
    for (input, results) in std::mem::take(&mut g.streamed) {
        all.extend(results.into_iter().enumerate().map(|(n, r)| (input, n, r)));
    }
    all.sort_by_key(|(input, n, _)| (*input, *n));
    for (input, _, r) in &mut all {
        if let Some(info) = g.infos.get_mut(*input) {
            repeated_member_lines(info, std::mem::take(&mut r.repeated_members));
        }
        name_start_gap(&g.infos, r);
        if let Some(end) = ends.get(*input).and_then(Option::as_ref) {
            end_missing(rules, &g.infos, (end, EndWhy::Rotated), r);
        } else if let Some(end) = cut_end(&g.infos, &groups, *input) {
            end_missing(rules, &g.infos, (&end, EndWhy::Cut), r);
        }
    }
    let mut analysis = analyze::finalize(rules, all.into_iter().map(|(_, _, r)| r).collect());
    if redact {
        report::redact::analysis(&mut analysis);
    }
    Run {
        infos: g.infos,
        fatal: g.fatal,
        analysis,
        skipped: Vec::new(),
        replies,
    }
}

/// Completes the details of the findings a missing log start explains
/// (`analyze::engine::start_cut`) with the gap's file name, which the
/// walker does not know.
fn name_start_gap(infos: &[InputInfo], r: &mut SessionResult) {
    let Some(g) = &r.start_gap else { return };
    let name = infos.get((g.file / 2) as usize).map_or("", |x| {
        if g.file % 2 == 1 {
            x.partner.as_deref().unwrap_or(x.file.as_str())
        } else {
            x.file.as_str()
        }
    });
    let text = analyze::engine::start_cut::detail(name, g);
    for &i in &g.findings {
        if let Some(f) = r.findings.get_mut(i) {
            f.detail.push_str(&text);
        }
    }
}

/// Per input, for one that opens a log whose newest file given is a
/// rotated one: that file's input index and name (`analyze_loaded`).
type Ends = Vec<Option<(usize, String)>>;

/// How a cut file is said in `end_missing` details.
const CUT: &str = "was cut (it ends inside a line, or its compressed stream ends early: cut while it was written or copied)";

/// Why a log's end is missing (`end_missing`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum EndWhy {
    /// Its newest file given is a rotated one.
    Rotated,
    /// Its newest file ends inside a line: cut while written or copied.
    Cut,
}

/// For input `input` (a log, or the first file of a rotation group): its
/// newest file's index and name when that file's text ends inside a line.
fn cut_end(
    infos: &[InputInfo],
    groups: &[Option<String>],
    input: usize,
) -> Option<(usize, String)> {
    let mut newest = input;
    if let Some(Some(g)) = groups.get(input) {
        while groups
            .get(newest + 1)
            .is_some_and(|x| x.as_ref() == Some(g))
        {
            newest += 1;
        }
    }
    let info = infos.get(newest)?;
    let cut = info.cut_file.as_ref()?;
    (info.format == "stdio").then(|| (newest, cut.clone()))
}

/// The `end_missing` capture gap (DESIGN.md rule 12): session `r` comes
/// from a line log whose newest file given, `end` (its input index and
/// name), is a rotated file, so the log goes on in a newer file the run
/// was not given, or ends inside a line (`why`), so the log went on past
/// what was copied. A request left unanswered is then `info`, naming the
/// gap, when its answer could be in that file: it was sent within
/// `--timeout` of the last time the session shows (or either time is
/// unknown). One sent earlier was due inside the file: still an error.
fn end_missing(
    rules: &analyze::Config,
    infos: &[InputInfo],
    (end, why): (&(usize, String), EndWhy),
    r: &mut SessionResult,
) {
    use crate::analyze::findings::FindingKind;
    if infos.get(r.input).is_none_or(|i| i.format != "stdio") {
        return;
    }
    let last = r
        .requests
        .iter()
        .flat_map(|q| [q.ts, q.response_ts])
        .flatten()
        .max();
    let mut explained = false;
    for q in &r.requests {
        if !q.id.is_valid() || q.answered || q.cancelled {
            continue;
        }
        if let (Some(t), Some(last)) = (q.ts, last)
            && t.saturating_add(rules.timeout_us) < last
        {
            continue; // due, by --timeout, before the file ended
        }
        let what = q.method.as_deref().unwrap_or("request");
        for f in r.findings.iter_mut().filter(|f| {
            f.kind == FindingKind::MissingResponse
                && !f.gap
                && f.file == q.file
                && f.location == q.loc
        }) {
            f.gap = true;
            let gap = match why {
                EndWhy::Rotated => {
                    "is a rotated file and the newer file(s) of its log were not given: the log goes on there (a capture gap), and its answer may be in it"
                }
                EndWhy::Cut => &format!(
                    "{CUT}: the log goes on past its end (a capture gap), and its answer may be there"
                ),
            };
            f.detail = format!(
                "{what} {} has no response in the capture, but {} {gap}",
                q.id.json_text(),
                end.1
            );
            explained = true;
        }
    }
    // A pair with a cut half: an answer to a request in the part lost.
    if why == EndWhy::Cut && infos.get(r.input).is_some_and(|i| i.partner.is_some()) {
        for f in r
            .findings
            .iter_mut()
            .filter(|f| f.kind == FindingKind::UnknownIdResponse && !f.gap)
        {
            f.gap = true;
            f.detail.push_str(&format!(
                "; but {} {CUT}: the request it answers may be in the part lost (a capture gap)",
                end.1
            ));
            explained = true;
        }
    }
    if explained {
        r.gaps.push(analyze::gaps::Gap {
            kind: analyze::gaps::GapKind::EndMissing,
            location: None,
            file: report::file_id(end.0, 0),
        });
    }
}

/// One problem line per message that has a member twice (read last-wins,
/// as `JSON.parse` does): a reader whose parser takes the first would see
/// another message.
fn repeated_member_lines(
    info: &mut InputInfo,
    found: Vec<(u32, crate::record::Location, &'static str)>,
) {
    use crate::diag::{Diagnostic, Place};
    for (_, loc, name) in found {
        let place = match (loc.entry, loc.line) {
            (Some(e), _) => Some(Place::Entry(e)),
            (None, Some(l)) => Some(Place::Line(l)),
            _ => None,
        };
        let mut d = Diagnostic::new(
            place,
            format!(
                "a message has its `{name}` member twice; read as the last one (as JSON.parse does; a parser that keeps the first sees another message)"
            ),
        );
        d.name_if_unnamed(&info.file);
        info.errors.push(d);
    }
}

/// The loaded inputs taken apart: infos, records per input (a rotation
/// group as one), the sessions walked while reading, fatal flags.
struct Gathered {
    infos: Vec<InputInfo>,
    records: Vec<(usize, Vec<Record>, bool)>,
    streamed: Vec<(usize, Vec<SessionResult>)>,
    fatal: Vec<bool>,
}

fn gather(loaded: Vec<Loaded>, groups: &[Option<String>]) -> Gathered {
    let mut g = Gathered {
        infos: Vec::with_capacity(loaded.len()),
        records: Vec::with_capacity(loaded.len()),
        streamed: Vec::new(),
        fatal: vec![false; loaded.len()],
    };
    let mut group: Option<(String, Box<str>)> = None;
    for (i, mut l) in loaded.into_iter().enumerate() {
        g.fatal[i] = l.fatal;
        if !l.results.is_empty() {
            g.streamed.push((i, std::mem::take(&mut l.results)));
        }
        // Rotated files of one log (DESIGN.md "Scale"), oldest first: their
        // records continue one another, so a session spans the rotation.
        // File-keyed sessions take the group's name.
        match groups.get(i).and_then(Option::as_ref) {
            Some(rot) => {
                let same = group.as_ref().is_some_and(|(g, _)| g == rot);
                if !same {
                    group = Some((rot.clone(), rot.as_str().into()));
                }
                let (_, key) = group.as_ref().expect("set above");
                rotation::rename_file_key(&mut l.records, &l.info.file, key);
                match g.records.last_mut() {
                    Some(last) if same => {
                        rotation::rejoin_replies(&last.1, &mut l.records, key);
                        last.1.append(&mut l.records);
                    }
                    _ => g
                        .records
                        .push((i, std::mem::take(&mut l.records), l.one_direction)),
                }
            }
            None => {
                group = None;
                g.records
                    .push((i, std::mem::take(&mut l.records), l.one_direction));
            }
        }
        g.infos.push(l.info);
    }
    g
}

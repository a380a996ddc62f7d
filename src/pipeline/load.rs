//! Loading inputs: one [`InputSpec`] → [`Loaded`] (its records, or the
//! sessions already walked when a large line log is read block by block),
//! with the diagnostics that say what went wrong (`crate::diag`). Files
//! are read through `source`; nothing here writes anywhere but the
//! progress bar.

use std::path::Path;

use rayon::prelude::*;

use crate::analyze::engine::Walker;
use crate::analyze::{self, Config};
use crate::config::InputFormat;
use crate::diag::Diagnostic;
use crate::ingest::detect::Dialect;
use crate::ingest::{self, Format, Input};
use crate::reconstruct::order::LineOrder;
use crate::reconstruct::session::Splitter;
use crate::record::{Frame, Member, Parsed, Payload, Record};
use crate::report::progress::Progress;
use crate::report::{self, InputInfo};
use crate::source::{self, InputSpec};

/// One input after reading and parsing.
pub(crate) struct Loaded {
    /// What the run reports about it.
    pub info: InputInfo,
    /// Its records (none when read block by block: see `results`).
    pub records: Vec<Record>,
    /// It could not be read, or only in part, or held no traffic: the run
    /// exits 2.
    pub fatal: bool,
    /// One half of a per-direction pair read alone.
    pub one_direction: bool,
    /// Sessions already walked (a large line log read block by block).
    pub results: Vec<analyze::SessionResult>,
}

/// How inputs are read: the same for every input of a run.
pub(crate) struct Reading<'a> {
    /// `--format`.
    pub format: InputFormat,
    /// The rules' thresholds (for sessions walked while reading).
    pub cfg: &'a Config,
    /// Bytes per block of a line log read block by block.
    pub block_bytes: usize,
    /// Where bytes and messages read are counted.
    pub progress: &'a Progress,
}

/// How much of a file decides whether it is read block by block.
const PEEK_BYTES: usize = 64 << 10;

/// Reads and parses input number `input`.
pub(crate) fn load(spec: &InputSpec, input: usize, r: &Reading<'_>) -> Loaded {
    match &spec.kind {
        source::InputKind::File(path) => load_file(path, input, spec.rotation.is_none(), r),
        source::InputKind::Stdin => {
            let file_index = report::file_id(input, 0);
            let path = std::path::PathBuf::from(source::STDIN);
            let loaded = match source::read_stdin() {
                Ok(file) => load_read(&path, file, file_index, r.format),
                Err(e) => unreadable(source::STDIN.to_string(), &path, e),
            };
            counted(loaded, r.progress)
        }
        source::InputKind::Pair { name, c2s, s2c } => counted(
            load_pair(name, c2s, s2c, report::file_id(input, 0)),
            r.progress,
        ),
        // A glob that matched nothing or is malformed: one line, fatal.
        source::InputKind::NoMatch(_)
        | source::InputKind::EmptyFolder(_)
        | source::InputKind::BadPattern { .. } => Loaded {
            info: InputInfo {
                file: spec.display(),
                format: "unknown".into(),
                dialect: "unknown".into(),
                errors: spec.error().iter().map(Diagnostic::from).collect(),
                ..Default::default()
            },
            records: Vec::new(),
            fatal: true,
            one_direction: false,
            results: Vec::new(),
        },
    }
}

/// One file: a plain line log block by block, a HAR as a stream, a
/// compressed line log decompressed then block by block, anything else
/// (and rotated files, `alone` false) read whole.
fn load_file(path: &Path, input: usize, alone: bool, r: &Reading<'_>) -> Loaded {
    let file_index = report::file_id(input, 0);
    let lines = alone && matches!(r.format, InputFormat::Auto | InputFormat::Stdio);
    if lines && let Some(l) = streamable(path).and_then(|d| stream_lines(path, input, d, r)) {
        return l;
    }
    if matches!(r.format, InputFormat::Auto | InputFormat::Har)
        && let Some(l) = stream_har(path, file_index, r.format)
    {
        let l = forced_mismatch(l, r.format, || {
            let mut src = source::TextChunks::open(path).ok()?;
            let head = src.next_chunk().ok()??;
            Some(ingest::detect_format(std::str::from_utf8(head).ok()?))
        });
        return counted(l, r.progress);
    }
    let file = match source::read(path) {
        Ok(f) => f,
        Err(e) => {
            return counted(unreadable(path.display().to_string(), path, e), r.progress);
        }
    };
    // A compressed line log is decompressed whole, then read block by
    // block like a plain one: its records are never all held.
    if lines
        && file.compression.is_some()
        && let Format::Lines(d) = ingest::detect_format(&file.text)
        && let Some(safe) = ingest::chunk::safe_start(d)
    {
        let display = path.display().to_string();
        let (before, damaged) = decode_problems(&file.warnings, file.damage.as_ref());
        let reader = source::BlockReader::from_text(&display, file.text, file.bytes);
        let blocks = Blocks {
            file_index,
            input,
            dialect: d,
            block_bytes: r.block_bytes,
            safe,
        };
        return stream_blocks(reader, display, &blocks, r, before, damaged);
    }
    counted(load_read(path, file, file_index, r.format), r.progress)
}

/// The dialect of a plain line log that can be read block by block, from
/// its first [`PEEK_BYTES`].
fn streamable(path: &Path) -> Option<Dialect> {
    let head = source::head(path, PEEK_BYTES).ok()?;
    let n = head.len();
    let cut = if n < PEEK_BYTES {
        n
    } else {
        memchr::memrchr(b'\n', &head)? + 1
    };
    let text = source::blank_ansi(String::from_utf8_lossy(&head[..cut]).into_owned());
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match ingest::detect_format(text) {
        Format::Lines(d) if ingest::chunk::safe_start(d).is_some() => Some(d),
        _ => None,
    }
}

/// Reads a plain line log block by block (issue 5): blocks are parsed in
/// parallel, then their records go, in file order, through session
/// splitting, line order and the session walkers. Memory holds a few
/// blocks, the pending requests and one row per request — never the whole
/// file. Output is the same as reading the file whole, for any thread count.
fn stream_lines(path: &Path, input: usize, dialect: Dialect, r: &Reading<'_>) -> Option<Loaded> {
    let safe = ingest::chunk::safe_start(dialect)?;
    let reader = match source::BlockReader::open(path) {
        Ok(Some(reader)) => reader,
        _ => return None,
    };
    let display = path.display().to_string();
    let blocks = Blocks {
        file_index: report::file_id(input, 0),
        input,
        dialect,
        block_bytes: r.block_bytes,
        safe,
    };
    Some(stream_blocks(
        reader,
        display,
        &blocks,
        r,
        Vec::new(),
        false,
    ))
}

/// Where a block-read line log goes: its input, dialect, block size and
/// where a block may start (`ingest::chunk::safe_start`).
struct Blocks {
    file_index: u32,
    input: usize,
    dialect: Dialect,
    block_bytes: usize,
    safe: fn(&[u8]) -> bool,
}

/// [`stream_lines`] on a reader: `before` are the problems found while
/// decoding the file, `damaged` whether those make the input incomplete
/// (a damaged compressed stream: the run exits 2).
fn stream_blocks(
    mut reader: source::BlockReader,
    display: String,
    b: &Blocks,
    r: &Reading<'_>,
    before: Vec<Diagnostic>,
    damaged: bool,
) -> Loaded {
    let mut walk = SessionWalk::new(r.cfg, b.input, before);
    if b.dialect == Dialect::Bare {
        // A bare log's responses go the way the requests open before them
        // say, across blocks (FORMATS.md §8.3.7).
        walk.bare = Some(ingest::bare::Directions::default());
    }
    let read = read_blocks(&mut reader, &display, b, r.progress, &mut walk);
    walk.errors.extend(read.errors);
    let walked = walk.finish(damaged);
    let parsed = Parsed {
        format: "stdio",
        dialect: b.dialect.name(),
        other_lines: walked.other_lines,
        ..Default::default()
    };
    r.progress.read(reader.bytes.saturating_sub(read.bytes), 0);
    let exact_offsets = reader.text_is_file() && !damaged;
    let mut problems = std::mem::take(&mut reader.warnings);
    let mut fatal = read.fatal || damaged;
    // The blocks' records went to the walkers: whether the file held
    // traffic is whether any frame reached one.
    if !walked.any_message {
        problems.push(no_traffic(&display, &parsed));
        fatal = true;
    }
    problems.extend(walked.errors);
    let mut l = loaded(display, reader.bytes, parsed, problems, fatal);
    l.info.exact_offsets = exact_offsets;
    if damaged || reader.last_byte.is_some_and(|b| !is_line_end(b)) {
        l.info.cut_file = Some(l.info.file.clone());
    }
    l.info.sessions = walked
        .results
        .iter()
        .filter(|r| r.counts.sessions > 0)
        .count();
    l.results = walked.results;
    l
}

/// What [`read_blocks`] read: bytes counted in the progress, whether a
/// read error ended the file early, and its problems.
struct BlocksRead {
    /// Bytes of the file read (on disk).
    bytes: u64,
    /// Bytes of decoded text read (more than `bytes` for a compressed file).
    text_bytes: u64,
    fatal: bool,
    errors: Vec<Diagnostic>,
}

/// Reads, parses and walks every block. Three stages overlap: while round
/// k + 1 is parsed in parallel, round k is walked and then round k + 2 is
/// read (order, hence output, unchanged). A read error ends the file after
/// the blocks read before it.
fn read_blocks(
    reader: &mut source::BlockReader,
    display: &str,
    b: &Blocks,
    progress: &Progress,
    walk: &mut SessionWalk<'_>,
) -> BlocksRead {
    let per_round = rayon::current_num_threads().max(1) * 2;
    let mut read = BlocksRead {
        bytes: 0,
        text_bytes: 0,
        fatal: false,
        errors: Vec::new(),
    };
    let mut walked: Option<Vec<Parsed>> = None;
    let (mut blocks, mut read_error) = read_round(reader, b, per_round);
    loop {
        if let Some(e) = read_error.take() {
            read.errors.push(Diagnostic::from(&e));
            read.fatal = true;
        }
        if blocks.is_empty() {
            break;
        }
        let round_bytes: u64 = blocks.iter().map(|b| b.text.len() as u64).sum();
        let previous = walked.take();
        let stop = read.fatal;
        let (parsed, (next, next_error)) = rayon::join(
            || parse_blocks(&blocks, display, b),
            || {
                if let Some(p) = previous {
                    walk.push(p);
                }
                if stop {
                    (Vec::new(), None)
                } else {
                    read_round(reader, b, per_round)
                }
            },
        );
        for block in std::mem::replace(&mut blocks, next) {
            reader.recycle(block);
        }
        read_error = next_error;
        let round_messages = parsed.iter().map(|p| messages_in(&p.records)).sum();
        // Counted in bytes of the file, as the progress total is: a
        // compressed file's decompressed blocks in proportion.
        let on_disk =
            reader.on_disk(read.text_bytes + round_bytes) - reader.on_disk(read.text_bytes);
        read.text_bytes += round_bytes;
        read.bytes += on_disk;
        progress.read(on_disk, round_messages);
        walked = Some(parsed);
    }
    if let Some(p) = walked.take() {
        walk.push(p);
    }
    read
}

/// One round of blocks (`per_round` of them, fewer at the end); a read
/// error ends the round, with its text.
fn read_round(
    reader: &mut source::BlockReader,
    b: &Blocks,
    per_round: usize,
) -> (Vec<source::Block>, Option<source::SourceError>) {
    let mut blocks = Vec::with_capacity(per_round);
    while blocks.len() < per_round {
        match reader.next_block(b.block_bytes.max(1), b.safe) {
            Ok(Some(block)) => blocks.push(block),
            Ok(None) => break,
            Err(e) => return (blocks, Some(e)),
        }
    }
    (blocks, None)
}

/// Parses a round of blocks in parallel, results in block order, their
/// problems named after the file.
fn parse_blocks(blocks: &[source::Block], display: &str, b: &Blocks) -> Vec<Parsed> {
    blocks
        .par_iter()
        .map(|block| {
            let mut p = ingest::chunk::parse_block(
                b.file_index,
                display,
                &block.text,
                block.first_line,
                block.offset,
                b.dialect,
            );
            ingest::mark_cut_first_line(&block.text, block.first_line, &mut p);
            ingest::mark_cut_last_line(&block.text, block.first_line, &mut p);
            for e in &mut p.errors {
                e.name_if_unnamed(display);
            }
            p
        })
        .collect()
}

/// The sequential part of reading block by block: records, in file
/// order, through session splitting, line order and one walker per
/// session.
struct SessionWalk<'c> {
    cfg: &'c Config,
    input: usize,
    splitter: Splitter,
    states: Vec<Option<(LineOrder, Walker<'c>)>>,
    /// Per session: its frames of the round being walked, in file order.
    pending: Vec<Vec<Frame>>,
    ready: Vec<Frame>,
    errors: Vec<Diagnostic>,
    other_lines: u64,
    any_message: bool,
    /// A bare NDJSON log's directions, read in file order over the blocks.
    bare: Option<ingest::bare::Directions>,
}

/// The sessions a [`SessionWalk`] walked, and what its blocks said.
struct Walked {
    results: Vec<analyze::SessionResult>,
    errors: Vec<Diagnostic>,
    other_lines: u64,
    any_message: bool,
}

impl<'c> SessionWalk<'c> {
    fn new(cfg: &'c Config, input: usize, errors: Vec<Diagnostic>) -> Self {
        SessionWalk {
            cfg,
            input,
            splitter: Splitter::default(),
            states: Vec::new(),
            pending: Vec::new(),
            ready: Vec::new(),
            errors,
            other_lines: 0,
            any_message: false,
            bare: None,
        }
    }

    /// Walks a round's parsed blocks: records go in file order through
    /// session splitting (sequential), then each session's frames, in
    /// their order, through its line order and walker, sessions in
    /// parallel (they share nothing; the same output for any thread count).
    fn push(&mut self, parsed: Vec<Parsed>) {
        for p in parsed {
            self.errors.extend(p.errors);
            self.other_lines += p.other_lines;
            for mut rec in p.records {
                if let (Some(d), Record::Frame(f)) = (self.bare.as_mut(), &mut rec) {
                    d.frame(f);
                }
                let Some((i, f)) = self.splitter.push(rec) else {
                    continue;
                };
                if frame_has_message(&f) {
                    self.any_message = true;
                }
                self.open(i);
                self.pending[i].push(f);
            }
        }
        self.states
            .par_iter_mut()
            .zip(self.pending.par_iter_mut())
            .filter(|(_, frames)| !frames.is_empty())
            .for_each(|(st, frames)| {
                let Some((order, walker)) = st else {
                    return;
                };
                let mut ready = Vec::new();
                // Taken, not drained: a session's frames of one round are
                // not kept room for across the run.
                for f in std::mem::take(frames) {
                    order.push(f, &mut ready);
                    for f in ready.drain(..) {
                        walker.frame(&f, false);
                    }
                }
            });
    }

    /// Session `i`'s line order and walker, made when its first frame
    /// comes (the splitter's name and start mark of that moment).
    fn open(&mut self, i: usize) {
        if self.states.len() <= i {
            self.states.resize_with(i + 1, || None);
            self.pending.resize_with(i + 1, Vec::new);
        }
        let (cfg, input, names) = (self.cfg, self.input, &self.splitter.names);
        let started = self.splitter.started[i];
        self.states[i].get_or_insert_with(|| {
            let mut w = Walker::new(cfg, names[i].clone(), input, false);
            if started {
                w.start_held();
            }
            (LineOrder::default(), w)
        });
    }

    /// Flushes each session's line order and finishes its walker.
    /// Ends every session; `tail_lost`: the input's end was not read (a
    /// damaged compressed stream, [`Walker::mark_tail_lost`]).
    fn finish(mut self, tail_lost: bool) -> Walked {
        let mut results = Vec::new();
        for (mut order, mut walker) in self.states.into_iter().flatten() {
            order.finish(&mut self.ready);
            for f in self.ready.drain(..) {
                walker.frame(&f, false);
            }
            if tail_lost {
                walker.mark_tail_lost();
            }
            results.push(walker.finish());
        }
        Walked {
            results,
            errors: self.errors,
            other_lines: self.other_lines,
            any_message: self.any_message,
        }
    }
}

/// A per-direction pair: both halves read whole and parsed together.
fn load_pair(name: &str, c2s: &Path, s2c: &Path, file_index: u32) -> Loaded {
    let display = c2s.display().to_string();
    let (halves, mut errors, fatal) = read_halves(&display, c2s, s2c);
    let bytes = halves.iter().flatten().map(|f| f.bytes).sum();
    // One half alone is read alone, every line in its file's direction
    // (FORMATS.md §8.3.8); say so, since its partner's findings are absent.
    match (&halves[0], &halves[1]) {
        (Some(_), None) if !fatal => errors.push(
            Diagnostic::whole(format!("partner {} not found; read alone", s2c.display()))
                .named(display.as_str()),
        ),
        (None, Some(_)) if !fatal => errors.push(
            Diagnostic::whole(format!("partner {display} not found; read alone"))
                .named(s2c.display().to_string()),
        ),
        _ => {}
    }
    let c = halves[0].as_ref().map(|f| Input {
        file: file_index,
        name: &f.display,
        text: &f.text,
    });
    let s = halves[1].as_ref().map(|f| Input {
        file: file_index + 1,
        name: &f.display,
        text: &f.text,
    });
    let parsed = if c.is_some() || s.is_some() {
        ingest::pair::parse(c, s, name)
    } else {
        Parsed::default()
    };
    let display = match (&halves[0], &halves[1]) {
        (None, Some(f)) => f.display.clone(),
        _ => display,
    };
    let mut l = finish(display, bytes, parsed, errors, fatal);
    l.info.cut_file = halves
        .iter()
        .flatten()
        .find(|f| f.damage.is_some() || ends_inside_line(&f.text))
        .map(|f| f.display.clone());
    if halves[0].is_some() {
        l.info.partner = halves[1].as_ref().map(|f| f.display.clone());
    } else if let Some(f) = &halves[1] {
        // Only the server-to-client half: its lines carry file id + 1.
        l.info.partner = Some(f.display.clone());
    }
    l
}

/// Whether a text ends inside a line (no line end after its last one).
fn ends_inside_line(text: &str) -> bool {
    text.as_bytes().last().is_some_and(|&b| !is_line_end(b))
}

/// A byte that ends a line (`\n`, or `\r` of a CR-only log).
fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Both halves of a pair (`None` when absent or unreadable), the error
/// lines of reading them, and whether the input is unusable or incomplete.
fn read_halves(
    display: &str,
    c2s: &Path,
    s2c: &Path,
) -> (Vec<Option<source::SourceFile>>, Vec<Diagnostic>, bool) {
    let mut errors = Vec::new();
    let mut fatal = false;
    let mut halves = Vec::new();
    for r in [source::read(c2s), source::read(s2c)] {
        match r {
            Ok(f) => {
                errors.extend(f.warnings.iter().cloned());
                if let Some(d) = &f.damage {
                    errors.push(Diagnostic::from(d));
                    fatal = true;
                }
                halves.push(Some(f));
            }
            Err(source::SourceError::NotFound(_)) => halves.push(None),
            Err(e) => {
                errors.push(Diagnostic::from(&e));
                fatal = true;
                halves.push(None);
            }
        }
    }
    if halves.iter().all(Option::is_none) && !fatal {
        errors.push(
            Diagnostic::whole(format!(
                "no such file or directory (nor its partner {})",
                s2c.display()
            ))
            .named(display)
            .fatal(),
        );
        fatal = true;
    }
    (halves, errors, fatal)
}

/// Reads a HAR as a stream (issue 5): `source` hands out the decoded text
/// chunk by chunk, the HAR splitter finds the entries and reads them in
/// parallel; the file is never held whole. `None` when the file is not
/// (surely) a HAR or cannot be opened: it is then read whole by
/// [`load_read`], which gives the same result or the error.
fn stream_har(path: &Path, file_index: u32, format: InputFormat) -> Option<Loaded> {
    let display = path.display().to_string();
    if format == InputFormat::Auto {
        // A compressed file is decompressed whole either way: let
        // `load_read` do it once and detect on the whole text.
        let magic = source::head(path, 4).ok()?;
        if source::Compression::sniff(&magic).is_some() {
            return None;
        }
    }
    let mut src = source::TextChunks::open(path).ok()?;
    let first = src.next_chunk().ok()??.to_vec();
    if format == InputFormat::Auto && !surely_har(&first) {
        return None;
    }
    let mut har = ingest::har::HarStream::new(file_index, &display);
    // The next chunk is read while the entries of this one are parsed.
    let mut chunk = first;
    let mut spare = Vec::new();
    loop {
        match har.push_then(&chunk, || src.next_chunk_into(&mut spare)) {
            Ok(true) => std::mem::swap(&mut chunk, &mut spare),
            Ok(false) => break,
            Err(e) => return Some(unreadable(display, path, e)),
        }
    }
    drop((chunk, spare));
    let parsed = har.finish();
    let exact_offsets = src.compression.is_none() && src.warnings.is_empty();
    let (errors, damaged) = decode_problems(&src.warnings, src.damage.as_ref());
    let mut l = finish(display, src.bytes, parsed, errors, damaged);
    l.info.exact_offsets = exact_offsets;
    Some(l)
}

/// Whether a file's first chunk decides that it is a HAR, as detection on
/// the whole text would.
fn surely_har(first: &[u8]) -> bool {
    let Ok(head) = std::str::from_utf8(first) else {
        return false;
    };
    if ingest::detect_format(head) != Format::Har {
        return false;
    }
    // Detection reads the first 64 KiB and the first line: decided by
    // this chunk unless the first line goes on past it.
    let whole = first.len() + 4 < source::TEXT_CHUNK;
    let body = head.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let log_first = body[1..]
        .trim_start()
        .strip_prefix("\"log\"")
        .and_then(|r| r.trim_start().strip_prefix(':'))
        .is_some_and(|r| r.trim_start().starts_with('{'));
    whole || log_first || (body.contains('\n') && body.len() >= 64 << 10)
}

/// What decoding a file found (invalid UTF-8, then a damaged compressed
/// stream) and whether the input is incomplete (the run then exits 2).
fn decode_problems(
    warnings: &[Diagnostic],
    damage: Option<&source::StreamError>,
) -> (Vec<Diagnostic>, bool) {
    let mut problems = warnings.to_vec();
    problems.extend(damage.map(Diagnostic::from));
    (problems, damage.is_some())
}

/// An input that cannot be read: one fatal diagnostic.
fn unreadable(display: String, path: &Path, e: source::SourceError) -> Loaded {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Loaded {
        info: InputInfo {
            file: display,
            format: "unknown".into(),
            dialect: "unknown".into(),
            bytes,
            errors: vec![Diagnostic::from(&e)],
            ..Default::default()
        },
        records: Vec::new(),
        fatal: true,
        one_direction: false,
        results: Vec::new(),
    }
}

/// Parses a file read whole (HAR and SSE captures, rotated logs and
/// anything not read block by block).
fn load_read(
    path: &Path,
    file: source::SourceFile,
    file_index: u32,
    format: InputFormat,
) -> Loaded {
    let display = path.display().to_string();
    let input = Input {
        file: file_index,
        name: &file.display,
        text: &file.text,
    };
    let detected = ingest::detect_format(&file.text);
    let fmt = match (format, detected) {
        (InputFormat::Auto, d) => d,
        (InputFormat::Har, _) => Format::Har,
        (InputFormat::Sse, _) => Format::Sse,
        (InputFormat::Stdio, d @ Format::Lines(_)) => d,
        (InputFormat::Stdio, _) => Format::Unknown,
    };
    let parsed = ingest::parse(input, fmt);
    // A damaged compressed stream: its whole lines are analysed, the run
    // still exits 2 (the input is incomplete).
    let exact_offsets = file.compression.is_none() && file.warnings.is_empty();
    let (errors, damaged) = decode_problems(&file.warnings, file.damage.as_ref());
    let mut l = finish(display, file.bytes, parsed, errors, damaged);
    l.info.exact_offsets = exact_offsets;
    if damaged || ends_inside_line(&file.text) {
        l.info.cut_file = Some(l.info.file.clone());
    }
    if fmt == Format::Unknown {
        l.fatal = true;
    }
    forced_mismatch(l, format, || Some(detected))
}

/// An input given with `--format F` that, read as F, yielded no traffic
/// while its content is another format mcp-audit reads: its fatal
/// problems become one line saying what it is and which `--format` reads
/// it (instead of F's parse error or "no JSON-RPC traffic found").
/// `detect` detects the file's format; asked only then.
fn forced_mismatch(
    mut l: Loaded,
    forced: InputFormat,
    detect: impl FnOnce() -> Option<Format>,
) -> Loaded {
    let (flag, not) = match forced {
        InputFormat::Auto => return l,
        InputFormat::Har => ("har", "it is not a HAR document"),
        InputFormat::Sse => ("sse", "no JSON-RPC traffic found read as a raw SSE capture"),
        InputFormat::Stdio => ("stdio", "it holds no line of a stdio log dialect"),
    };
    let traffic = l
        .records
        .iter()
        .any(|r| matches!(r, Record::Frame(f) if frame_has_message(f)));
    if !l.fatal || traffic || !l.results.is_empty() {
        return l;
    }
    let (is, reads) = match detect() {
        Some(Format::Har) => ("a HAR document".to_string(), "--format har or auto"),
        Some(Format::Sse) => ("a raw SSE capture".to_string(), "--format sse or auto"),
        Some(Format::Lines(d)) => (
            format!("a stdio line log ({} dialect)", d.name()),
            "--format stdio or auto",
        ),
        Some(Format::Cassette) => ("an mcp-recorder cassette".to_string(), "--format auto"),
        Some(Format::InspectorHistory) => (
            "an MCP Inspector history export".to_string(),
            "--format auto",
        ),
        Some(Format::Unknown) | None => return l,
    };
    if reads.starts_with(&format!("--format {flag} ")) {
        // Its own format, broken: its own problem says how.
        return l;
    }
    l.info.errors.retain(|d| !d.fatal);
    l.info.errors.push(
        Diagnostic::whole(format!(
            "--format {flag}, but {not}: it is {is}; {reads} (the default) reads it"
        ))
        .named(&l.info.file)
        .fatal(),
    );
    l
}

/// A parsed input as the run reports it: `errors` (the reading's) then
/// the parser's, each named after the input, and a problem when it held
/// no traffic at all. `fatal`: the input is unusable or incomplete.
pub(crate) fn finish(
    display: String,
    bytes: u64,
    mut parsed: Parsed,
    mut errors: Vec<Diagnostic>,
    fatal: bool,
) -> Loaded {
    errors.extend(std::mem::take(&mut parsed.errors).into_iter().map(|mut e| {
        e.name_if_unnamed(&display);
        e
    }));
    // Read to the end, yet no traffic: say so, and exit 2, so that a gate
    // does not mistake an input it could not use for a clean capture.
    let mut fatal = fatal;
    if !parsed
        .records
        .iter()
        .any(|r| matches!(r, Record::Frame(f) if frame_has_message(f)))
        && !parsed.incomplete
        && !parsed.format.is_empty()
        && parsed.format != "unknown"
    {
        fatal = true;
        errors.push(no_traffic(&display, &parsed));
    }
    loaded(display, bytes, parsed, errors, fatal)
}

/// The problem of an input read to its end without any JSON-RPC traffic.
fn no_traffic(display: &str, parsed: &Parsed) -> Diagnostic {
    Diagnostic::whole(format!(
        "no JSON-RPC traffic found (read as {})",
        report::read_as(parsed.format, parsed.dialect)
    ))
    .named(display)
    .fatal()
}

/// An input as the run reports it, with its problems and, apart, its
/// notices (each output writes them as lines: `Diagnostic`'s `Display`).
fn loaded(
    display: String,
    bytes: u64,
    parsed: Parsed,
    problems: Vec<Diagnostic>,
    fatal: bool,
) -> Loaded {
    let known = |s: &str| {
        if s.is_empty() {
            "unknown".to_string()
        } else {
            s.to_string()
        }
    };
    let (notices, errors) = problems.into_iter().partition(|d| d.notice);
    Loaded {
        info: InputInfo {
            file: display,
            format: known(parsed.format),
            dialect: known(parsed.dialect),
            sessions: 0,
            bytes,
            errors,
            notices,
            other_lines: parsed.other_lines,
            partner: None,
            exact_offsets: false,
            cut_file: None,
        },
        fatal: fatal || parsed.incomplete,
        one_direction: parsed.one_direction,
        records: parsed.records,
        results: Vec::new(),
    }
}

/// Whether a frame is JSON-RPC traffic (an object or an array): a capture
/// of non-JSON lines only, or of lost bodies only, holds none.
fn frame_has_message(f: &Frame) -> bool {
    match &f.payload {
        Payload::Single(_) | Payload::Batch(_) => true,
        Payload::NonJson | Payload::Unparseable | Payload::Lost => false,
    }
}

/// JSON-RPC messages in parsed records (rule 2: objects in frames and
/// batches), for the progress bar.
fn messages_in(records: &[Record]) -> u64 {
    records
        .iter()
        .map(|r| match r {
            Record::Frame(f) => match &f.payload {
                Payload::Single(_) => 1,
                Payload::Batch(m) => {
                    m.iter().filter(|m| matches!(m, Member::Message(_))).count() as u64
                }
                _ => 0,
            },
            Record::ProcessStart { .. } => 0,
        })
        .sum()
}

/// Counts an input read whole in the progress.
fn counted(l: Loaded, progress: &Progress) -> Loaded {
    progress.read(l.info.bytes, messages_in(&l.records));
    l
}

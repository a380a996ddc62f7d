//! HAR 1.2 captures of MCP Streamable HTTP traffic (FORMATS.md §2.3–2.6, §4,
//! §4.2).
//!
//! The document is read as a stream (issue 5): bytes are pushed chunk by
//! chunk into a [`HarStream`], whose [`Splitter`] (a small structural JSON
//! scanner: strings, escapes, depth) finds `log.entries` and copies out each
//! entry's exact text with its index and byte offset; the entries of one
//! chunk are read in parallel (rayon) while the next chunk is split. The
//! file's text is never held whole. Everything around the entries
//! (`log.creator`, `pages`, other members, keys) is checked by serde_json
//! on its own bytes, so a broken document gets the very message a
//! whole-document serde_json parse gives. Each entry is read into small
//! structs with every member optional and type-tolerant (`null`, a missing
//! `timings`, `time` as a string, unknown `_custom` members); no
//! `serde_json::Value` is ever built, and a truncated file still yields
//! every complete entry before the cut plus one error naming the byte
//! offset.
//!
//! Per entry `i` (0-based, DESIGN.md rule 11):
//! - a non-empty POST body is one client→server frame at `startedDateTime`;
//! - a `text/event-stream` response body is read by the WHATWG rules
//!   (FORMATS.md §5, [`super::sse::events`]) and each `message` event with
//!   non-empty data is one server→client frame; a JSON (`application/json`,
//!   `…+json`) body is one frame; both at `startedDateTime + time`
//!   (DESIGN.md rule 4); other bodies (`text/plain` `Accepted`) are not
//!   traffic;
//! - every frame carries the exchange's [`HttpContext`], the request-body
//!   frame included, so that 202 / empty / status-0 answers stay visible;
//! - the session key is chosen by DESIGN.md rule 1, never split.
//!
//! Later issues: the legacy HTTP+SSE transport's cross-entry pairing and
//! SSE replay de-duplication are not done here.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, Visitor};
use serde_json::value::RawValue;

use crate::record::scan::Skim;

use super::{Input, sse};
use crate::record::jsonrpc::{PayloadError, parse_payload};
use crate::record::time::parse_iso;

/// Longest entry duration taken as real (ms): one year. HAR 1.2 gives
/// `time` in ms (FORMATS.md §4); beyond this it is a broken export.
const MAX_ENTRY_MS: f64 = 365.0 * 24.0 * 3600.0 * 1000.0;
use crate::record::{
    Direction, Frame, HttpContext, Location, Micros, Parsed, Payload, Provenance, Record, Split,
};

/// Parses one HAR document (FORMATS.md §4) given whole into frames, in entry
/// order: the text is fed to a [`HarStream`] in [`STREAM_CHUNK`] pieces, so
/// the result is the one a file read chunk by chunk gives.
///
/// `format` is `har`; `dialect` is the known exporter named by
/// `log.creator.name` (lower-cased: `webinspector`, `mitmproxy`, `firefox`,
/// `charles`, `fiddler`, `playwright`, `proxyman`), else `har`. Recoverable
/// problems go to `errors`, one line each naming the entry: an entry that is
/// not an object or has no `request` (skipped), a body not captured
/// (DESIGN.md rule 12), invalid base64, an unreadable `startedDateTime`, and
/// at most one line for JSON that breaks off or is malformed, naming its
/// byte offset. Never panics.
pub fn parse(input: Input<'_>) -> Parsed {
    let mut s = HarStream::new(input.file, input.name);
    for piece in input.text.as_bytes().chunks(STREAM_CHUNK) {
        s.push(piece);
    }
    s.finish()
}

/// Size of the pieces [`parse`] feeds to a [`HarStream`], and the read size
/// `source` uses for HAR files (1 MiB).
pub const STREAM_CHUNK: usize = 1 << 20;

/// A HAR document read as a stream (issue 5): bytes are pushed chunk by
/// chunk (any sizes, any cuts), a [`Splitter`] finds the entries of
/// `log.entries`, and the entries found in one chunk are read in parallel
/// (rayon) while the next chunk is split. Memory holds one chunk, the
/// entries of two chunks and the records made so far — never the document.
///
/// The result ([`HarStream::finish`]) is the same, record for record and
/// error line for error line, whatever the chunk sizes and thread count.
pub struct HarStream {
    file: u32,
    name: String,
    splitter: Splitter,
    /// Entries found by the last push, read by the next one.
    ready: Batch,
    parsed: Parsed,
    /// Entries read (the `n entries read before it` of an error).
    read: u64,
    /// The first document error met in an entry.
    stop: Option<DocError>,
}

impl HarStream {
    /// A stream for input `file` (the index that goes into every
    /// `Provenance`) named `name` (for messages only).
    pub fn new(file: u32, name: &str) -> Self {
        HarStream {
            file,
            name: name.to_string(),
            splitter: Splitter::new(),
            ready: Batch::default(),
            parsed: Parsed {
                format: "har",
                dialect: "har",
                ..Default::default()
            },
            read: 0,
            stop: None,
        }
    }

    /// Feeds the next bytes of the document (UTF-8 text; a chunk may end
    /// inside a character or token). Reads the entries of the previous push
    /// in parallel with splitting this one.
    pub fn push(&mut self, chunk: &[u8]) {
        self.push_then(chunk, || ());
    }

    /// [`HarStream::push`], then `then()` on the thread that split the
    /// chunk, while the entries are still being read (a caller reads its
    /// next chunk there); `then`'s result.
    pub fn push_then<R: Send>(&mut self, chunk: &[u8], then: impl FnOnce() -> R + Send) -> R {
        if self.stop.is_some() {
            return then();
        }
        let batch = std::mem::take(&mut self.ready);
        let mut next = Batch::default();
        let (file, name, splitter) = (self.file, self.name.as_str(), &mut self.splitter);
        let (outs, r) = rayon::join(
            || read_batch(file, name, &batch),
            || {
                splitter.push(chunk, &mut next);
                then()
            },
        );
        self.ready = next;
        self.merge(outs);
        r
    }

    /// Whether nothing more can change the result (a document error was
    /// found); pushing more is then harmless but useless.
    pub fn stopped(&self) -> bool {
        self.stop.is_some() || self.splitter.error.is_some()
    }

    /// Ends the document and returns what was read, as [`parse`] documents.
    pub fn finish(mut self) -> Parsed {
        if self.stop.is_none() {
            let mut batch = std::mem::take(&mut self.ready);
            self.splitter.finish(&mut batch);
            let outs = read_batch(self.file, &self.name, &batch);
            self.merge(outs);
        }
        let mut parsed = self.parsed;
        parsed.dialect = self.splitter.dialect;
        let error = self.stop.or(self.splitter.error.take());
        if let Some(e) = error {
            parsed.incomplete = true;
            parsed.errors.push(e.message(self.read));
        } else if !self.splitter.saw_log {
            parsed.incomplete = true;
            parsed
                .errors
                .push("not a HAR document: no `log` object".to_string());
        } else if !self.splitter.saw_entries {
            parsed.incomplete = true;
            parsed
                .errors
                .push("HAR `log` has no `entries` array".to_string());
        }
        parsed
    }

    /// Appends read entries in entry order, up to the first one that is not
    /// valid JSON.
    fn merge(&mut self, outs: Vec<Result<Parsed, DocError>>) {
        for out in outs {
            match out {
                Ok(p) => {
                    self.parsed.records.extend(p.records);
                    self.parsed.errors.extend(p.errors);
                    self.read += 1;
                }
                Err(e) => {
                    self.stop = Some(e);
                    return;
                }
            }
        }
    }
}

/// Reads the entries of a batch in parallel; each is its records and error
/// lines, or the document error it holds (JSON that is not valid).
fn read_batch(file: u32, name: &str, batch: &Batch) -> Vec<Result<Parsed, DocError>> {
    use rayon::prelude::*;
    batch
        .spans
        .par_iter()
        .map(|sp| {
            let bytes = batch.text.get(sp.start..sp.end).unwrap_or_default();
            // The batch text is decoded already; `from_utf8` checks it with
            // vector code, where `from_utf8_lossy` walks it byte by byte.
            let raw = match std::str::from_utf8(bytes) {
                Ok(s) => Cow::Borrowed(s),
                Err(_) => String::from_utf8_lossy(bytes),
            };
            let mut one = Sink {
                file,
                name,
                parsed: Parsed::default(),
                next_entry: sp.index,
            };
            match one.entry(&raw, sp.offset) {
                Ok(()) => Ok(one.parsed),
                Err(e) => Err(sp.error(&e, raw.as_bytes())),
            }
        })
        .collect()
}

/// Entries found by a [`Splitter`]: their texts one after the other.
#[derive(Debug, Default)]
pub struct Batch {
    text: Vec<u8>,
    spans: Vec<Span>,
}

impl Batch {
    /// The entries: (index in `log.entries`, byte offset of the entry in
    /// the document, its exact JSON text).
    pub fn entries(&self) -> impl Iterator<Item = (u64, u64, &[u8])> + '_ {
        self.spans.iter().map(|s| {
            (
                s.index,
                s.offset,
                self.text.get(s.start..s.end).unwrap_or_default(),
            )
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// No entry.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// One entry in a [`Batch`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    index: u64,
    /// Byte offset in the document.
    offset: u64,
    /// 1-based line of the entry's first byte, and the offset that line
    /// starts at (to place an error inside the entry).
    line: u64,
    line_start: u64,
}

impl Span {
    /// The document error for a serde_json error inside this entry's text.
    fn error(&self, e: &serde_json::Error, raw: &[u8]) -> DocError {
        if e.line() == 0 {
            return DocError::unplaced(e);
        }
        let rel = error_offset(raw, e.line(), e.column());
        let before = &raw[..rel];
        let (line, column) = match memchr::memrchr(b'\n', before) {
            None => (
                self.line,
                (self.offset + rel as u64).saturating_sub(self.line_start),
            ),
            Some(nl) => (
                self.line + memchr::memchr_iter(b'\n', before).count() as u64,
                (rel - nl - 1) as u64,
            ),
        };
        DocError::placed(e, self.offset + rel as u64, line, column)
    }
}

/// The first place where the document is not valid JSON (or ends early),
/// with serde_json's words: the message is the one a whole-document parse
/// with serde_json gives.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DocError {
    /// serde_json's message without its position.
    text: String,
    eof: bool,
    /// Byte offset, 1-based line, column (bytes into the line); all 0 when
    /// serde_json gave no position.
    offset: u64,
    line: u64,
    column: u64,
}

impl DocError {
    fn placed(e: &serde_json::Error, offset: u64, line: u64, column: u64) -> DocError {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        DocError {
            text: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
            eof: e.is_eof(),
            offset,
            line,
            column,
        }
    }

    fn unplaced(e: &serde_json::Error) -> DocError {
        DocError {
            text: e.to_string(),
            eof: e.is_eof(),
            offset: 0,
            line: 0,
            column: 0,
        }
    }

    /// The error line: `HAR ends early at byte N (line L, column C): …; n
    /// entries read before it` (or `HAR is not valid JSON at …`).
    fn message(&self, read: u64) -> String {
        let what = if self.eof {
            "HAR ends early"
        } else {
            "HAR is not valid JSON"
        };
        let (o, l, c) = (self.offset, self.line, self.column);
        let at = if l == 0 {
            String::new()
        } else {
            format!(" at line {l} column {c}")
        };
        format!(
            "{what} at byte {o} (line {l}, column {c}): {}{at}; {read} entries read before it",
            self.text
        )
    }
}

/// Byte offset of a serde_json error position (1-based line, column = bytes
/// consumed on that line), clamped to the text.
fn error_offset(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match memchr::memchr(b'\n', &bytes[start.min(bytes.len())..]) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    start.saturating_add(column).min(bytes.len())
}

// ---------------------------------------------------------------------------
// The entry splitter: {"log": {"creator": …, "entries": [ … ]}}.

/// Finds the entries of `log.entries` in a HAR document pushed chunk by
/// chunk (push-style: it does no I/O).
///
/// A small structural scanner (strings, escapes, nesting depth) walks the
/// root object, the `log` object and the `entries` array exactly as
/// serde_json does (same steps, same error at the same byte), and hands
/// every other value to serde_json as its exact bytes: each key, `creator`
/// (whose `name` gives the dialect), and members it does not need (`pages`,
/// `version`, a second `log` or `entries`, …) are checked in full, so a
/// broken document gets the message a whole-document parse gives. Each
/// element of `log.entries` (the first `entries` of the first `log`) is
/// copied to a [`Batch`] with its index and byte offset; an object element
/// is checked when it is read ([`HarStream`]), a scalar one here.
///
/// Memory: the bytes of the value being scanned (one entry, one key, or one
/// other member such as `pages`), never the document. Never panics.
#[derive(Debug)]
pub struct Splitter {
    /// Bytes from `base` on not yet consumed.
    buf: Vec<u8>,
    /// Byte offset in the document of `buf[0]`.
    base: u64,
    /// Next byte to look at (index in `buf`).
    pos: usize,
    /// First byte of the value or key being scanned (index in `buf`).
    start: usize,
    scan: Scan,
    eof: bool,
    state: State,
    lines: LineCursor,
    next_index: u64,
    saw_log: bool,
    saw_entries: bool,
    dialect: &'static str,
    error: Option<DocError>,
}

/// Where the scanner stands (the serde_json step it mirrors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the document's value.
    Root,
    /// `MapAccess::has_next_key` in the root (`log == false`) or `log` object.
    KeyOrEnd { log: bool, first: bool },
    /// After a `,` in an object: a key must follow.
    KeyAfterComma { log: bool },
    /// Scanning a key from `start`.
    Key { log: bool },
    /// After a key: `:` must follow.
    Colon { log: bool, target: Target },
    /// Before a member's value.
    Value { log: bool, target: Target },
    /// Scanning a value that serde_json reads, from `start`.
    Skip { log: bool, target: Target },
    /// `SeqAccess::has_next_element` in `log.entries`.
    ElemOrEnd { first: bool },
    /// After a `,` in `log.entries`: an element must follow.
    ElemAfterComma,
    /// Scanning an entry from `start`.
    Elem,
    /// After the root object: only whitespace may follow.
    End,
    /// Finished (or stopped at an error).
    Done,
}

/// What a value is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The document itself (must be an object).
    Root,
    /// `log` (must be an object).
    Log,
    /// `log.creator`.
    Creator,
    /// `log.entries` (must be an array).
    Entries,
    /// Anything else: checked, not kept.
    Ignore,
}

/// Progress of scanning one value's extent.
#[derive(Debug, Clone, Copy, Default)]
struct Scan {
    /// Next byte to scan (index in `buf`).
    at: usize,
    depth: u32,
    in_str: bool,
    /// A number or literal (scanned as a token plus lookahead).
    scalar: bool,
    /// The token of a number or literal has been found.
    token_done: bool,
}

/// Lines counted so far: `line` (1-based) is the line of byte `at`, which
/// starts at byte `line_start`.
#[derive(Debug, Clone, Copy)]
struct LineCursor {
    at: u64,
    line: u64,
    line_start: u64,
}

/// Why a step could not finish.
enum Halt {
    /// More bytes are needed.
    More,
    /// Stopped at an error.
    Stop,
}

type Step<T> = Result<T, Halt>;

/// Byte classes outside strings: 1 = `"`, 2 = `{` / `[`, 3 = `}` / `]`.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = 1;
    t[b'{' as usize] = 2;
    t[b'[' as usize] = 2;
    t[b'}' as usize] = 3;
    t[b']' as usize] = 3;
    t
};

/// Bytes that end a number or literal token.
fn ends_token(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\n' | b'\t' | b'\r' | b',' | b':' | b'"' | b'[' | b']' | b'{' | b'}'
    )
}

/// A visitor that accepts nothing: reading with it gives serde_json's
/// "invalid type: …, expected {0}" error.
struct Expect(&'static str);

impl<'de> Visitor<'de> for Expect {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Default for Splitter {
    fn default() -> Self {
        Self::new()
    }
}

impl Splitter {
    /// A splitter at the start of a document.
    pub fn new() -> Self {
        Splitter {
            buf: Vec::new(),
            base: 0,
            pos: 0,
            start: 0,
            scan: Scan::default(),
            eof: false,
            state: State::Root,
            lines: LineCursor {
                at: 0,
                line: 1,
                line_start: 0,
            },
            next_index: 0,
            saw_log: false,
            saw_entries: false,
            dialect: "har",
            error: None,
        }
    }

    /// Feeds the next bytes; the entries they complete go to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Batch) {
        if self.state == State::Done {
            return;
        }
        self.buf.extend_from_slice(chunk);
        self.run(out);
        self.compact();
    }

    /// Ends the document: a last entry may go to `out`, and a document that
    /// breaks off gets its error.
    pub fn finish(&mut self, out: &mut Batch) {
        self.eof = true;
        self.run(out);
    }

    /// The `dialect` named by `log.creator.name` (`har` when none).
    pub fn dialect(&self) -> &'static str {
        self.dialect
    }

    /// Entries found so far.
    pub fn entries_found(&self) -> u64 {
        self.next_index
    }

    /// Drops consumed bytes (counting their lines first).
    fn compact(&mut self) {
        let live = match self.state {
            State::Key { .. } | State::Skip { .. } | State::Elem => self.start.min(self.pos),
            State::Done => self.buf.len(),
            _ => self.pos,
        };
        if live == 0 {
            return;
        }
        self.advance_lines(self.base + live as u64);
        self.buf.drain(..live);
        self.base += live as u64;
        self.pos -= live.min(self.pos);
        self.start -= live.min(self.start);
        self.scan.at -= live.min(self.scan.at);
    }

    /// Moves the line cursor to document byte `to` (at or after it, inside
    /// `buf`).
    fn advance_lines(&mut self, to: u64) {
        let Some(from) = self.lines.at.checked_sub(self.base) else {
            return;
        };
        let to_i = to.saturating_sub(self.base) as usize;
        let (from, to_i) = (from as usize, to_i.min(self.buf.len()));
        if to_i <= from {
            return;
        }
        let part = &self.buf[from..to_i];
        if let Some(nl) = memchr::memrchr(b'\n', part) {
            self.lines.line += memchr::memchr_iter(b'\n', part).count() as u64;
            self.lines.line_start = self.base + (from + nl + 1) as u64;
        }
        self.lines.at = self.base + to_i as u64;
    }

    /// Line and column of document byte `at` (at or after the cursor).
    fn locate(&mut self, at: u64) -> (u64, u64) {
        self.advance_lines(at);
        (self.lines.line, at.saturating_sub(self.lines.line_start))
    }

    /// Stops at serde_json error `code` caused by the byte at `pos`
    /// (`peek_error`: placed one byte on), or by the end of the input.
    fn peek_err(&mut self, code: &str, eof: bool) -> Halt {
        let at = if self.pos < self.buf.len() {
            self.base + self.pos as u64 + 1
        } else {
            self.base + self.buf.len() as u64
        };
        let (line, column) = self.locate(at);
        self.error = Some(DocError {
            text: code.to_string(),
            eof,
            offset: at,
            line,
            column,
        });
        self.state = State::Done;
        Halt::Stop
    }

    /// Stops at a serde_json error met reading `buf[from..to]`.
    fn serde_err(&mut self, e: &serde_json::Error, from: usize, to: usize) -> Halt {
        self.error = Some(if e.line() == 0 {
            DocError::unplaced(e)
        } else {
            let rel = error_offset(&self.buf[from..to], e.line(), e.column());
            let at = self.base + (from + rel) as u64;
            let (line, column) = self.locate(at);
            DocError::placed(e, at, line, column)
        });
        self.state = State::Done;
        Halt::Stop
    }

    /// Skips whitespace; the next byte (not consumed), `None` at the end.
    fn ws(&mut self) -> Step<Option<u8>> {
        while let Some(&b) = self.buf.get(self.pos) {
            match b {
                b' ' | b'\n' | b'\t' | b'\r' => self.pos += 1,
                _ => return Ok(Some(b)),
            }
        }
        if self.eof { Ok(None) } else { Err(Halt::More) }
    }

    /// Starts scanning a value at `pos`.
    fn begin(&mut self) {
        self.start = self.pos;
        let first = self.buf.get(self.pos).copied().unwrap_or(b' ');
        self.scan = Scan {
            at: self.pos,
            scalar: !matches!(first, b'{' | b'[' | b'"'),
            ..Scan::default()
        };
    }

    /// Scans the value from `start`: `Ok((end, closed))` with the end of
    /// what serde_json must see — a container or string: up to its closing
    /// byte (`closed`), or to the end of the input that cuts it; a number or
    /// literal: the token, the whitespace after it and one more byte, which
    /// serde_json needs to judge the token.
    fn extent(&mut self) -> Step<(usize, bool)> {
        let buf = &self.buf;
        let len = buf.len();
        let mut i = self.scan.at;
        if self.scan.scalar {
            if !self.scan.token_done {
                while i < len && !ends_token(buf[i]) {
                    i += 1;
                }
                if i == len && !self.eof {
                    self.scan.at = i;
                    return Err(Halt::More);
                }
                self.scan.token_done = true;
                if i == self.start {
                    // No token (a stray `,` `:` `]` `}`): serde_json judges
                    // that byte.
                    let e = (i + 1).min(len);
                    self.scan.at = e;
                    return Ok((e, true));
                }
            }
            while i < len && matches!(buf[i], b' ' | b'\n' | b'\t' | b'\r') {
                i += 1;
            }
            if i < len {
                self.scan.at = i + 1;
                return Ok((i + 1, true));
            }
            self.scan.at = i;
            return if self.eof {
                Ok((len, true))
            } else {
                Err(Halt::More)
            };
        }
        let (mut depth, mut in_str) = (self.scan.depth, self.scan.in_str);
        loop {
            if in_str {
                match memchr::memchr2(b'"', b'\\', &buf[i..]) {
                    None => {
                        i = len;
                        break;
                    }
                    Some(k) => {
                        i += k;
                        if buf[i] == b'"' {
                            in_str = false;
                            i += 1;
                            if depth == 0 {
                                self.scan.at = i;
                                return Ok((i, true));
                            }
                        } else if i + 1 < len {
                            i += 2;
                        } else {
                            break;
                        }
                    }
                }
            } else {
                while i < len && CLASS[buf[i] as usize] == 0 {
                    i += 1;
                }
                if i == len {
                    break;
                }
                match CLASS[buf[i] as usize] {
                    1 => in_str = true,
                    2 => depth = depth.saturating_add(1),
                    _ => depth = depth.saturating_sub(1),
                }
                i += 1;
                if depth == 0 && !in_str {
                    self.scan.at = i;
                    return Ok((i, true));
                }
            }
        }
        self.scan.at = i;
        self.scan.depth = depth;
        self.scan.in_str = in_str;
        if self.eof {
            Ok((len, false))
        } else {
            Err(Halt::More)
        }
    }

    /// Lets serde_json read `buf[start..end]` with `f`, then checks what
    /// follows; `Ok((value, resume))` with the index where the structure
    /// goes on (the first byte after the value and its whitespace).
    fn serde<T>(
        &mut self,
        end: usize,
        f: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::SliceRead<'_>>,
        ) -> Result<T, serde_json::Error>,
    ) -> Step<(T, usize)> {
        let start = self.start;
        let sub = &self.buf[start..end];
        let mut de = serde_json::Deserializer::from_slice(sub);
        let result = f(&mut de).and_then(|v| match de.end() {
            Ok(()) => Ok((v, end)),
            // Trailing characters: placed one byte after the first of them.
            Err(e) => Ok((
                v,
                start + error_offset(sub, e.line(), e.column()).saturating_sub(1),
            )),
        });
        match result {
            Ok(r) => Ok(r),
            Err(e) => Err(self.serde_err(&e, start, end)),
        }
    }

    /// Adds the entry `buf[start..end]` to `out`.
    fn emit(&mut self, end: usize, out: &mut Batch) {
        let mut text_end = end;
        while text_end > self.start
            && matches!(self.buf[text_end - 1], b' ' | b'\n' | b'\t' | b'\r')
        {
            text_end -= 1;
        }
        let offset = self.base + self.start as u64;
        let (line, column) = self.locate(offset);
        let at = out.text.len();
        out.text.extend_from_slice(&self.buf[self.start..text_end]);
        out.spans.push(Span {
            start: at,
            end: out.text.len(),
            index: self.next_index,
            offset,
            line,
            line_start: offset.saturating_sub(column),
        });
        self.next_index += 1;
    }

    fn run(&mut self, out: &mut Batch) {
        loop {
            match self.step(out) {
                Ok(()) if self.state == State::Done => return,
                Ok(()) => {}
                Err(Halt::More) | Err(Halt::Stop) => return,
            }
        }
    }

    /// One step of the walk.
    fn step(&mut self, out: &mut Batch) -> Step<()> {
        const EOF_VALUE: &str = "EOF while parsing a value";
        const EOF_OBJECT: &str = "EOF while parsing an object";
        match self.state {
            State::Done => Ok(()),
            State::Root => match self.ws()? {
                None => Err(self.peek_err(EOF_VALUE, true)),
                Some(b'{') => {
                    self.pos += 1;
                    self.state = State::KeyOrEnd {
                        log: false,
                        first: true,
                    };
                    Ok(())
                }
                Some(_) => {
                    self.begin();
                    self.state = State::Skip {
                        log: false,
                        target: Target::Root,
                    };
                    Ok(())
                }
            },
            State::KeyOrEnd { log, first } => match self.ws()? {
                Some(b'}') => {
                    self.pos += 1;
                    self.state = if log {
                        State::KeyOrEnd {
                            log: false,
                            first: false,
                        }
                    } else {
                        State::End
                    };
                    Ok(())
                }
                Some(b',') if !first => {
                    self.pos += 1;
                    self.state = State::KeyAfterComma { log };
                    Ok(())
                }
                Some(b'"') if first => {
                    self.begin();
                    self.state = State::Key { log };
                    Ok(())
                }
                Some(_) if first => Err(self.peek_err("key must be a string", false)),
                Some(_) => Err(self.peek_err("expected `,` or `}`", false)),
                None => Err(self.peek_err(EOF_OBJECT, true)),
            },
            State::KeyAfterComma { log } => match self.ws()? {
                Some(b'"') => {
                    self.begin();
                    self.state = State::Key { log };
                    Ok(())
                }
                Some(b'}') => Err(self.peek_err("trailing comma", false)),
                Some(_) => Err(self.peek_err("key must be a string", false)),
                None => Err(self.peek_err(EOF_VALUE, true)),
            },
            State::Key { log } => {
                let (end, _) = self.extent()?;
                let (key, resume) = self.serde(end, |de| String::deserialize(de))?;
                let target = match (log, key.as_ref()) {
                    (false, "log") if !self.saw_log => {
                        self.saw_log = true;
                        Target::Log
                    }
                    (true, "creator") => Target::Creator,
                    (true, "entries") if !self.saw_entries => {
                        self.saw_entries = true;
                        Target::Entries
                    }
                    _ => Target::Ignore,
                };
                self.pos = resume;
                self.state = State::Colon { log, target };
                Ok(())
            }
            State::Colon { log, target } => match self.ws()? {
                Some(b':') => {
                    self.pos += 1;
                    self.state = State::Value { log, target };
                    Ok(())
                }
                Some(_) => Err(self.peek_err("expected `:`", false)),
                None => Err(self.peek_err(EOF_OBJECT, true)),
            },
            State::Value { log, target } => {
                let b = match self.ws()? {
                    None => return Err(self.peek_err(EOF_VALUE, true)),
                    Some(b) => b,
                };
                match (target, b) {
                    (Target::Log, b'{') => {
                        self.pos += 1;
                        self.state = State::KeyOrEnd {
                            log: true,
                            first: true,
                        };
                    }
                    (Target::Entries, b'[') => {
                        self.pos += 1;
                        self.state = State::ElemOrEnd { first: true };
                    }
                    _ => {
                        self.begin();
                        self.state = State::Skip { log, target };
                    }
                }
                Ok(())
            }
            State::Skip { log, target } => {
                let first = self.buf.get(self.start).copied();
                // A wrong container is refused at its first byte.
                let end = match (target, first) {
                    (Target::Root | Target::Log, Some(b'[')) | (Target::Entries, Some(b'{')) => {
                        self.start + 1
                    }
                    _ => self.extent()?.0,
                };
                let ((), resume) = match target {
                    Target::Root => self.serde(end, |de| {
                        de.deserialize_map(Expect("a HAR document {\"log\": {…}}"))
                    })?,
                    Target::Log => {
                        self.serde(end, |de| de.deserialize_map(Expect("the HAR `log` object")))?
                    }
                    Target::Entries => self.serde(end, |de| {
                        de.deserialize_seq(Expect("the `log.entries` array"))
                    })?,
                    Target::Creator => {
                        let (d, resume) = self.serde(end, |de| {
                            Loose::<Creator>::deserialize(de)
                                .map(|c| c.0.and_then(|c| c.name.0).map(|n| dialect(&n)))
                        })?;
                        if let Some(d) = d {
                            self.dialect = d;
                        }
                        ((), resume)
                    }
                    Target::Ignore => {
                        let (IgnoredAny, resume) =
                            self.serde(end, |de| IgnoredAny::deserialize(de))?;
                        ((), resume)
                    }
                };
                self.pos = resume;
                self.state = State::KeyOrEnd { log, first: false };
                Ok(())
            }
            State::ElemOrEnd { first } => match self.ws()? {
                Some(b']') => {
                    self.pos += 1;
                    self.state = State::KeyOrEnd {
                        log: true,
                        first: false,
                    };
                    Ok(())
                }
                Some(b',') if !first => {
                    self.pos += 1;
                    self.state = State::ElemAfterComma;
                    Ok(())
                }
                Some(_) if first => {
                    self.begin();
                    self.state = State::Elem;
                    Ok(())
                }
                Some(_) => Err(self.peek_err("expected `,` or `]`", false)),
                None => Err(self.peek_err("EOF while parsing a list", true)),
            },
            State::ElemAfterComma => match self.ws()? {
                Some(b']') => Err(self.peek_err("trailing comma", false)),
                Some(_) => {
                    self.begin();
                    self.state = State::Elem;
                    Ok(())
                }
                None => Err(self.peek_err(EOF_VALUE, true)),
            },
            State::Elem => {
                let (end, closed) = self.extent()?;
                if self.scan.scalar || !closed {
                    // Judged here: a number or literal (serde needs the
                    // byte after it), or an entry the input cuts off.
                    let ((), resume) =
                        self.serde(end, |de| IgnoredAny::deserialize(de).map(|_| ()))?;
                    self.emit(resume, out);
                    self.pos = resume;
                } else {
                    self.emit(end, out);
                    self.pos = end;
                }
                self.state = State::ElemOrEnd { first: false };
                Ok(())
            }
            State::End => match self.ws()? {
                None => {
                    self.state = State::Done;
                    Ok(())
                }
                Some(_) => Err(self.peek_err("trailing characters", false)),
            },
        }
    }
}

struct Sink<'t> {
    file: u32,
    name: &'t str,
    parsed: Parsed,
    /// Index of the next entry of `log.entries`.
    next_entry: u64,
}

/// The `dialect` name for a `log.creator.name` (FORMATS.md §4.1).
fn dialect(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    const KNOWN: [&str; 7] = [
        "webinspector",
        "mitmproxy",
        "firefox",
        "charles",
        "fiddler",
        "playwright",
        "proxyman",
    ];
    KNOWN.into_iter().find(|k| n.contains(k)).unwrap_or("har")
}

// ---------------------------------------------------------------------------
// One entry, read leniently.

/// A member read without failing its parent: wrong type or `null` → `None`
/// (FORMATS.md §4.1 "tolerate missing optional keys, `null`").
#[derive(Debug)]
struct Loose<T>(Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        Ok(Loose(serde_json::from_str::<T>(raw.get()).ok()))
    }
}

/// A number written as a JSON number or a numeric string.
#[derive(Debug)]
struct Num(f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Read from the raw text, so that the crate-wide
        // `arbitrary_precision` number form does not matter here.
        let raw = <&'de RawValue>::deserialize(d)?;
        let t = raw.get().trim();
        let text: Cow<'_, str> = if t.starts_with('"') {
            serde_json::from_str::<Cow<'_, str>>(t).map_err(serde::de::Error::custom)?
        } else {
            Cow::Borrowed(t)
        };
        text.trim()
            .parse::<f64>()
            .map(Num)
            .map_err(serde::de::Error::custom)
    }
}

impl Num {
    /// The value when finite.
    fn finite(&self) -> Option<f64> {
        self.0.is_finite().then_some(self.0)
    }
}

/// A JSON string, borrowed from the input when it holds no escapes.
#[derive(Debug)]
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Creator<'a> {
    #[serde(borrow)]
    name: Loose<Text<'a>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Entry<'a> {
    #[serde(rename = "startedDateTime", borrow)]
    started: Loose<Text<'a>>,
    time: Loose<Num>,
    timings: Loose<Timings>,
    #[serde(borrow)]
    request: Loose<Request<'a>>,
    #[serde(borrow)]
    response: Loose<Response<'a>>,
    #[serde(rename = "_webSocketMessages", borrow)]
    ws: Loose<Vec<Loose<WsMessage<'a>>>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Timings {
    blocked: Loose<Num>,
    dns: Loose<Num>,
    connect: Loose<Num>,
    send: Loose<Num>,
    wait: Loose<Num>,
    receive: Loose<Num>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Header<'a> {
    #[serde(borrow)]
    name: Loose<Text<'a>>,
    #[serde(borrow)]
    value: Loose<Text<'a>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Request<'a> {
    #[serde(borrow)]
    method: Loose<Text<'a>>,
    #[serde(borrow)]
    url: Loose<Text<'a>>,
    #[serde(borrow)]
    headers: Loose<Vec<Loose<Header<'a>>>>,
    #[serde(rename = "postData", borrow)]
    post_data: Loose<PostData<'a>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct PostData<'a> {
    #[serde(borrow)]
    text: Loose<Text<'a>>,
    /// Not in HAR 1.2; some exporters mark base64 request bodies this way.
    #[serde(borrow)]
    encoding: Loose<Text<'a>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Response<'a> {
    status: Loose<Num>,
    #[serde(borrow)]
    headers: Loose<Vec<Loose<Header<'a>>>>,
    #[serde(borrow)]
    content: Loose<Content<'a>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct Content<'a> {
    #[serde(rename = "mimeType", borrow)]
    mime_type: Loose<Text<'a>>,
    #[serde(borrow)]
    text: Loose<Text<'a>>,
    #[serde(borrow)]
    encoding: Loose<Text<'a>>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct WsMessage<'a> {
    #[serde(rename = "type", borrow)]
    kind: Loose<Text<'a>>,
    time: Loose<Num>,
    opcode: Loose<Num>,
    #[serde(borrow)]
    data: Loose<Text<'a>>,
}

// ---------------------------------------------------------------------------
// The same entry, read by the fast skim (issue 5: HAR throughput).
//
// `serde_json::from_str::<Entry>` re-reads each `Loose` member once per
// level (its raw text, then the member parsed from it), so a body text was
// scanned five times. The skim reads the struct levels in one pass and
// hands each leaf (`Text`, `Num`) to serde_json exactly as `Loose` does, so
// the result is the same `Entry`. Where serde would do something the skim
// does not model (a struct written as an array, a repeated member, text
// the skim is not sure of) the skim gives up and serde reads the entry.

/// One struct level: `Some(Some(t))` a struct, `Some(None)` a value that is
/// no object (a `Loose` member then holds `None`), `None` give up.
type Skimmed<T> = Option<Option<T>>;

/// Reads the value at `sk` as a `#[serde(default)]` struct with these field
/// names; `set(t, field index, sk)` reads one field's value (`None`: give
/// up). Unknown members are skipped.
fn skim_struct<'a, T: Default>(
    sk: &mut Skim<'a>,
    fields: &[&str],
    mut set: impl FnMut(&mut T, usize, &mut Skim<'a>) -> Option<()>,
) -> Skimmed<T> {
    match sk.peek() {
        Some(b'{') => {}
        // serde reads a struct from an array too (fields in order).
        Some(b'[') => return None,
        _ => {
            sk.value_raw()?;
            return Some(None);
        }
    }
    let mut t = T::default();
    let mut seen = 0u64;
    sk.members(|k, sk| match fields.iter().position(|f| *f == k) {
        Some(i) => {
            if seen & (1 << i) != 0 {
                return None; // serde: "duplicate field"
            }
            seen |= 1 << i;
            set(&mut t, i, sk)
        }
        None => sk.value_raw().map(|_| ()),
    })?;
    Some(Some(t))
}

/// A leaf member as `Loose` reads it (serde_json on its raw text).
fn leaf<'a, T: Deserialize<'a>>(sk: &mut Skim<'a>) -> Option<Loose<T>> {
    let raw = sk.value_raw()?;
    Some(Loose(serde_json::from_str::<T>(raw).ok()))
}

/// A text member as `Loose<Text>` reads it: a string decoded by the skim
/// in the same pass (serde_json's decoding, tested in `record::scan`);
/// any other value through [`leaf`].
fn text<'a>(sk: &mut Skim<'a>) -> Option<Loose<Text<'a>>> {
    if sk.peek() == Some(b'"') {
        Some(Loose(Some(Text(sk.string_value()?))))
    } else {
        leaf(sk)
    }
}

/// An array member of structs as `Loose<Vec<Loose<T>>>` reads it.
fn skim_list<'a, T>(
    sk: &mut Skim<'a>,
    item: impl Fn(&mut Skim<'a>) -> Skimmed<T>,
) -> Option<Loose<Vec<Loose<T>>>> {
    if sk.peek() != Some(b'[') {
        sk.value_raw()?;
        return Some(Loose(None));
    }
    let mut out = Vec::new();
    sk.items(|sk| {
        out.push(Loose(item(sk)?));
        Some(())
    })?;
    Some(Loose(Some(out)))
}

impl<'a> Entry<'a> {
    /// The entry `raw` (one JSON value) as `serde_json::from_str` reads
    /// it, or `None` when the skim gives up or it is no object.
    fn skim(raw: &'a str) -> Option<Self> {
        crate::record::scan::whole(raw, Self::skim_at).flatten()
    }

    fn skim_at(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = [
            "startedDateTime",
            "time",
            "timings",
            "request",
            "response",
            "_webSocketMessages",
        ];
        skim_struct(sk, &fields, |e: &mut Entry<'a>, i, sk| {
            match i {
                0 => e.started = text(sk)?,
                1 => e.time = leaf(sk)?,
                2 => e.timings = Loose(Timings::skim(sk)?),
                3 => e.request = Loose(Request::skim(sk)?),
                4 => e.response = Loose(Response::skim(sk)?),
                _ => e.ws = skim_list(sk, WsMessage::skim)?,
            }
            Some(())
        })
    }
}

impl Timings {
    fn skim(sk: &mut Skim<'_>) -> Skimmed<Self> {
        let fields = ["blocked", "dns", "connect", "send", "wait", "receive"];
        skim_struct(sk, &fields, |t: &mut Timings, i, sk| {
            let slot = match i {
                0 => &mut t.blocked,
                1 => &mut t.dns,
                2 => &mut t.connect,
                3 => &mut t.send,
                4 => &mut t.wait,
                _ => &mut t.receive,
            };
            *slot = leaf(sk)?;
            Some(())
        })
    }
}

impl<'a> Header<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        skim_struct(sk, &["name", "value"], |h: &mut Header<'a>, i, sk| {
            if i == 0 {
                h.name = text(sk)?;
            } else {
                h.value = text(sk)?;
            }
            Some(())
        })
    }
}

impl<'a> Request<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["method", "url", "headers", "postData"];
        skim_struct(sk, &fields, |r: &mut Request<'a>, i, sk| {
            match i {
                0 => r.method = text(sk)?,
                1 => r.url = text(sk)?,
                2 => r.headers = skim_list(sk, Header::skim)?,
                _ => r.post_data = Loose(PostData::skim(sk)?),
            }
            Some(())
        })
    }
}

impl<'a> PostData<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        skim_struct(sk, &["text", "encoding"], |p: &mut PostData<'a>, i, sk| {
            if i == 0 {
                p.text = text(sk)?;
            } else {
                p.encoding = text(sk)?;
            }
            Some(())
        })
    }
}

impl<'a> Response<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["status", "headers", "content"];
        skim_struct(sk, &fields, |r: &mut Response<'a>, i, sk| {
            match i {
                0 => r.status = leaf(sk)?,
                1 => r.headers = skim_list(sk, Header::skim)?,
                _ => r.content = Loose(Content::skim(sk)?),
            }
            Some(())
        })
    }
}

impl<'a> Content<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["mimeType", "text", "encoding"];
        skim_struct(sk, &fields, |c: &mut Content<'a>, i, sk| {
            match i {
                0 => c.mime_type = text(sk)?,
                1 => c.text = text(sk)?,
                _ => c.encoding = text(sk)?,
            }
            Some(())
        })
    }
}

impl<'a> WsMessage<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["type", "time", "opcode", "data"];
        skim_struct(sk, &fields, |m: &mut WsMessage<'a>, i, sk| {
            match i {
                0 => m.kind = text(sk)?,
                1 => m.time = leaf(sk)?,
                2 => m.opcode = leaf(sk)?,
                _ => m.data = text(sk)?,
            }
            Some(())
        })
    }
}

/// First non-empty value of a header, name compared case-insensitively
/// (FORMATS.md §4 "header names case-insensitive, duplicates kept").
fn header<'h>(headers: &'h Loose<Vec<Loose<Header<'_>>>>, name: &str) -> Option<&'h str> {
    headers
        .0
        .as_deref()?
        .iter()
        .filter_map(|h| h.0.as_ref())
        .find_map(|h| {
            let n = h.name.0.as_deref()?;
            let v = h.value.0.as_deref()?.trim();
            (n.trim().eq_ignore_ascii_case(name) && !v.is_empty()).then_some(v)
        })
}

/// Value of the first non-empty query parameter among `names` (the legacy
/// `sessionId` / `session_id`, FORMATS.md §2.2).
fn query_param<'u>(url: &'u str, names: &[&str]) -> Option<&'u str> {
    let q = url.split_once('?')?.1;
    let q = q.split('#').next().unwrap_or("");
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (names.contains(&k) && !v.is_empty()).then_some(v)
    })
}

/// `scheme://host:port` of a URL (default port for http/https/ws/wss when
/// none is written), lower-cased; `None` when the URL has no `scheme://`.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if authority.is_empty() {
        return None;
    }
    let (host, port) = if authority.starts_with('[') {
        match authority.split_once(']') {
            Some((h, p)) => (
                format!("{h}]"),
                p.strip_prefix(':').filter(|p| !p.is_empty()),
            ),
            None => (authority.to_string(), None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                (h.to_string(), Some(p))
            }
            Some((h, "")) => (h.to_string(), None),
            _ => (authority.to_string(), None),
        }
    };
    let port = port.map(str::to_string).or_else(|| {
        match scheme.as_str() {
            "http" | "ws" => Some("80"),
            "https" | "wss" => Some("443"),
            _ => None,
        }
        .map(str::to_string)
    });
    let host = host.to_ascii_lowercase();
    Some(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

/// Media type without parameters, lower-cased (FORMATS.md §4.2: `mimeType`
/// may carry `; charset=…`).
fn media_type(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Decodes base64 content (FORMATS.md §4: `encoding: "base64"` → decode
/// first); bytes that are not UTF-8 become U+FFFD (FORMATS.md §5 step 1).
fn decode_base64(text: &str) -> Result<String, base64::DecodeError> {
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT
        .decode(&compact)
        .or_else(|e| {
            base64::engine::general_purpose::URL_SAFE_PAD_INDIFFERENT
                .decode(&compact)
                .map_err(|_| e)
        })?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A payload and whether the text was JSON at all (a JSON scalar is JSON
/// but no message: [`Payload::Unparseable`]).
fn read_payload(text: &str) -> (Payload, bool) {
    match parse_payload(text) {
        Ok(p) => (p, true),
        Err(PayloadError::NotContainer(_)) => (Payload::Unparseable, true),
        Err(PayloadError::Syntax(_)) => (Payload::Unparseable, false),
    }
}

/// Whether a media type is JSON (`application/json`, `…+json`).
fn is_json_type(mt: &str) -> bool {
    mt == "application/json" || mt.ends_with("+json")
}

impl Sink<'_> {
    fn error(&mut self, msg: String) {
        self.parsed.errors.push(msg);
    }

    /// Reads one entry given as its exact JSON text, found at byte `offset`
    /// of the document. `Err` when the text is not valid JSON (serde_json's
    /// error inside `raw`): the document is broken there. An entry that is
    /// valid JSON but no entry object is an error line, and skipped.
    fn entry(&mut self, raw: &str, offset: u64) -> Result<(), serde_json::Error> {
        let i = self.next_entry;
        self.next_entry += 1;
        let len = u32::try_from(raw.len()).unwrap_or(u32::MAX);
        let file = self.file;
        let prov = |location: Location| Provenance {
            file,
            location,
            offset,
            len,
        };

        let e: Entry<'_> = match Entry::skim(raw).map_or_else(|| serde_json::from_str(raw), Ok) {
            Ok(e) => e,
            Err(err) => {
                // Not valid JSON at all, or only not an entry (the same
                // check a whole-document parse makes first).
                serde_json::from_str::<IgnoredAny>(raw)?;
                self.error(format!(
                    "entry {i}: not a HAR entry object ({err}); skipped"
                ));
                return Ok(());
            }
        };
        let Some(req) = e.request.0 else {
            self.error(format!("entry {i}: no `request` object; skipped"));
            return Ok(());
        };
        let method = req
            .method
            .0
            .as_deref()
            .unwrap_or("")
            .trim()
            .to_ascii_uppercase();
        let url = req.url.0.as_deref().unwrap_or("");

        // Times (DESIGN.md rule 4, FORMATS.md §4: `time` = ms, sum of timings).
        let start = e.started.0.as_deref().and_then(parse_iso);
        if start.is_none() {
            self.error(format!(
                "entry {i}: `startedDateTime` missing or not a timestamp; its frames have no time"
            ));
        }
        // A duration outside 0 ..= one year is a broken export, not a
        // latency: said in one line, and `timings` used instead.
        let in_range = |t: &f64| (0.0..=MAX_ENTRY_MS).contains(t);
        let stated = e.time.0.as_ref().and_then(Num::finite);
        if let Some(t) = stated.filter(|t| !in_range(t) && *t != -1.0) {
            let shown = if t.abs() < 1e12 {
                format!("{t}")
            } else {
                format!("{t:e}")
            };
            self.error(format!(
                "entry {i}: `time` {shown} ms is out of range (0 to one year); its duration is taken from `timings`"
            ));
        }
        let dur_ms = stated.filter(in_range).or_else(|| {
            let t = e.timings.0.as_ref()?;
            let parts = [&t.blocked, &t.dns, &t.connect, &t.send, &t.wait, &t.receive];
            let sum: f64 = parts
                .iter()
                .filter_map(|p| p.0.as_ref()?.finite())
                .filter(in_range)
                .sum();
            Some(sum).filter(in_range)
        });
        let dur_us = dur_ms.map_or(0, |ms| (ms * 1000.0).round() as Micros);
        let (start_us, end_us) = match start {
            Some(s) => (s, s.saturating_add(dur_us)),
            None => (0, 0),
        };
        let (req_ts, resp_ts) = (start, start.map(|_| end_us));

        // Session key (DESIGN.md rule 1).
        let has_response = e.response.0.is_some();
        if !has_response {
            self.error(format!(
                "entry {i}: no response object; read as no response (status 0)"
            ));
        }
        let resp = e.response.0.unwrap_or_default();
        if has_response && resp.status.0.as_ref().and_then(Num::finite).is_none() {
            self.error(format!(
                "entry {i}: response status missing or not a number; read as 0 (no response)"
            ));
        }
        let header_key = header(&req.headers, "mcp-session-id")
            .or_else(|| header(&resp.headers, "mcp-session-id"));
        let mut legacy =
            header_key.is_none() && query_param(url, &["sessionId", "session_id"]).is_some();
        let mut key: std::sync::Arc<str> = header_key
            .or_else(|| query_param(url, &["sessionId", "session_id"]))
            .map(std::sync::Arc::from)
            .or_else(|| origin(url).map(std::sync::Arc::from))
            .unwrap_or_else(|| self.name.into());
        let protocol_header = header(&req.headers, "mcp-protocol-version").map(Box::from);

        // Response (FORMATS.md §4, §4.2; DESIGN.md rule 12).
        let status = resp
            .status
            .0
            .as_ref()
            .and_then(Num::finite)
            .map_or(0, |s| s as i64);
        let content = resp.content.0.unwrap_or_default();
        let mut mt = content
            .mime_type
            .0
            .as_deref()
            .map(media_type)
            .unwrap_or_default();
        if (mt.is_empty() || mt == "x-unknown")
            && let Some(ct) = header(&resp.headers, "content-type")
        {
            mt = media_type(ct);
        }
        let stream = mt == "text/event-stream";
        let (body, body_empty): (Option<Cow<'_, str>>, bool) = if status == 0 {
            // Nothing arrived: the POST's requests stay unanswered.
            (None, true)
        } else {
            match content.text.0 {
                None => {
                    self.error(format!(
                        "entry {i}: response body not captured (status {status})"
                    ));
                    (None, true)
                }
                Some(t)
                    if content
                        .encoding
                        .0
                        .as_deref()
                        .is_some_and(|x| x.eq_ignore_ascii_case("base64")) =>
                {
                    match decode_base64(&t) {
                        Ok(s) => {
                            let empty = s.is_empty();
                            (Some(Cow::Owned(s)), empty)
                        }
                        Err(err) => {
                            self.error(format!(
                                "entry {i}: response body is not valid base64 ({err}); not read"
                            ));
                            (None, t.is_empty())
                        }
                    }
                }
                Some(t) => {
                    let empty = t.is_empty();
                    (Some(t.0), empty)
                }
            }
        };

        // Response frames: (event number, payload).
        let mut resp_frames: Vec<(Option<u64>, Payload, Option<crate::record::SseEventId>)> =
            Vec::new();
        let mut body_has_json = false;
        if let Some(body) = body.as_deref() {
            if stream {
                for (n, ev) in sse::events(body).into_iter().enumerate() {
                    // Legacy HTTP+SSE (FORMATS.md §2.2; DESIGN.md rule 1): the
                    // GET stream's `endpoint` event names the POST URI and
                    // its session; the stream belongs to that session.
                    if ev.event_type == "endpoint" {
                        if let Some(sid) = query_param(ev.data.trim(), &["sessionId", "session_id"])
                        {
                            key = sid.into();
                            legacy = true;
                        }
                        continue;
                    }
                    if ev.event_type != "message" || ev.data.is_empty() {
                        continue;
                    }
                    let (p, json) = read_payload(&ev.data);
                    body_has_json |= json;
                    let id = crate::record::SseEventId::new(&ev.last_event_id, &ev.data);
                    resp_frames.push((Some(n as u64 + 1), p, id));
                }
            } else if is_json_type(&mt) && !body.trim().is_empty() {
                let (p, json) = read_payload(body);
                body_has_json |= json;
                resp_frames.push((None, p, None));
            }
        }

        let ctx = |is_request_body: bool, position: u32| HttpContext {
            entry: i,
            is_request_body,
            method: method.as_str().into(),
            status,
            stream,
            body_empty,
            body_has_json,
            start: start_us,
            end: end_us,
            position,
            protocol_header: protocol_header.clone(),
            legacy,
        };

        // Request body (FORMATS.md §2.3: one message or an array per POST).
        if method == "POST"
            && let Some(pd) = req.post_data.0
        {
            if pd.text.0.is_none() {
                self.error(format!("entry {i}: POST body not captured (postData has no text); its messages are unknown"));
            }
            let text = match (pd.text.0, pd.encoding.0.as_deref()) {
                (Some(t), Some(enc)) if enc.eq_ignore_ascii_case("base64") => {
                    match decode_base64(&t) {
                        Ok(s) => Some(Cow::Owned(s)),
                        Err(err) => {
                            self.error(format!(
                                "entry {i}: request body is not valid base64 ({err}); not read"
                            ));
                            None
                        }
                    }
                }
                (t, _) => t.map(|t| t.0),
            };
            if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                let (payload, _) = read_payload(&text);
                self.parsed.records.push(Record::Frame(Frame {
                    key: key.clone(),
                    split: Split::Never,
                    direction: Some(Direction::C2s),
                    ts: req_ts,
                    stated_latency: None,
                    event_id: None,
                    prov: prov(Location::entry(i, None)),
                    payload,
                    http: Some(ctx(true, 0)),
                }));
            }
        }

        for (pos, (event, payload, event_id)) in resp_frames.into_iter().enumerate() {
            self.parsed.records.push(Record::Frame(Frame {
                key: key.clone(),
                split: Split::Never,
                direction: Some(Direction::S2c),
                ts: resp_ts,
                stated_latency: None,
                event_id,
                prov: prov(Location::entry(i, event)),
                payload,
                http: Some(ctx(false, u32::try_from(pos).unwrap_or(u32::MAX))),
            }));
        }

        // WebSocket messages (FORMATS.md §4.1): text frames only (opcode 1),
        // `send` = c2s, `receive` = s2c, `time` in epoch seconds; location
        // event = 1-based index in `_webSocketMessages`. No HttpContext: a
        // WebSocket message is a frame like a stdio line.
        for (n, m) in e.ws.0.unwrap_or_default().into_iter().enumerate() {
            let Some(m) = m.0 else { continue };
            let opcode = m.opcode.0.as_ref().and_then(Num::finite).unwrap_or(1.0);
            let direction = match m.kind.0.as_deref() {
                Some("send") => Direction::C2s,
                Some("receive") => Direction::S2c,
                _ => continue,
            };
            let Some(data) = m.data.0.filter(|d| opcode == 1.0 && !d.trim().is_empty()) else {
                continue;
            };
            let ts = m
                .time
                .0
                .as_ref()
                .and_then(Num::finite)
                .map(|s| (s * 1e6).round() as Micros);
            let (payload, _) = read_payload(&data);
            self.parsed.records.push(Record::Frame(Frame {
                key: key.clone(),
                split: Split::Never,
                direction: Some(direction),
                ts,
                stated_latency: None,
                event_id: None,
                prov: prov(Location::entry(i, Some(n as u64 + 1))),
                payload,
                http: None,
            }));
        }
        Ok(())
    }
}

/// The whole-document parser this module had before the streaming splitter
/// (serde visitors over the whole text): the reference the splitter must
/// match, message for message.
#[cfg(test)]
mod reference {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde_json::value::RawValue;

    use super::{Creator, Input, Loose, Parsed, Sink, dialect, error_offset};

    /// Parses one HAR document (FORMATS.md §4) into frames, in entry order.
    ///
    /// `format` is `har`; `dialect` is the known exporter named by
    /// `log.creator.name` (lower-cased: `webinspector`, `mitmproxy`, `firefox`,
    /// `charles`, `fiddler`, `playwright`, `proxyman`), else `har`. Recoverable
    /// problems go to `errors`, one line each naming the entry: an entry that is
    /// not an object or has no `request` (skipped), a body not captured
    /// (DESIGN.md rule 12), invalid base64, an unreadable `startedDateTime`, and
    /// at most one line for JSON that breaks off or is malformed, naming its
    /// byte offset. Never panics.
    pub(super) fn parse(input: Input<'_>) -> Parsed {
        let mut sink = RefSink {
            input,
            parsed: Parsed {
                format: "har",
                dialect: "har",
                ..Default::default()
            },
            next_entry: 0,
            saw_log: false,
            saw_entries: false,
        };
        let mut de = serde_json::Deserializer::from_str(input.text);
        let result = RootSeed(&mut sink)
            .deserialize(&mut de)
            .and_then(|()| de.end());
        match result {
            Err(e) => {
                let offset = error_offset(input.text.as_bytes(), e.line(), e.column());
                let what = if e.is_eof() {
                    "HAR ends early"
                } else {
                    "HAR is not valid JSON"
                };
                let n = sink.next_entry;
                sink.parsed.incomplete = true;
                sink.parsed.errors.push(format!(
                    "{what} at byte {offset} (line {}, column {}): {e}; {n} entries read before it",
                    e.line(),
                    e.column()
                ));
            }
            Ok(()) if !sink.saw_log => {
                sink.parsed.incomplete = true;
                sink.parsed
                    .errors
                    .push("not a HAR document: no `log` object".to_string())
            }
            Ok(()) if !sink.saw_entries => {
                sink.parsed.incomplete = true;
                sink.parsed
                    .errors
                    .push("HAR `log` has no `entries` array".to_string())
            }
            Ok(()) => {}
        }
        sink.parsed
    }

    // ---------------------------------------------------------------------------
    // Streaming over the document: {"log": {"creator": …, "entries": [ … ]}}.

    /// What the visitors feed: the input and the output being built.
    struct RefSink<'t> {
        input: Input<'t>,
        parsed: Parsed,
        /// Index of the next entry of `log.entries`.
        next_entry: u64,
        saw_log: bool,
        saw_entries: bool,
    }

    struct RootSeed<'s, 't>(&'s mut RefSink<'t>);

    impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for RootSeed<'_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a HAR document {\"log\": {…}}")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "log" && !self.0.saw_log {
                    self.0.saw_log = true;
                    map.next_value_seed(LogSeed(&mut *self.0))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
    }

    struct LogSeed<'s, 't>(&'s mut RefSink<'t>);

    impl<'de> DeserializeSeed<'de> for LogSeed<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for LogSeed<'_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the HAR `log` object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match key.as_ref() {
                    "creator" => {
                        let c = map.next_value::<Loose<Creator<'de>>>()?;
                        if let Some(name) = c.0.and_then(|c| c.name.0) {
                            self.0.parsed.dialect = dialect(&name);
                        }
                    }
                    "entries" if !self.0.saw_entries => {
                        self.0.saw_entries = true;
                        map.next_value_seed(EntriesSeed(&mut *self.0))?;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }

    struct EntriesSeed<'s, 't>(&'s mut RefSink<'t>);

    impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }

    impl<'de> Visitor<'de> for EntriesSeed<'_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the `log.entries` array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            // Entries are found one at a time (each a borrowed slice of the
            // input, no copy) and read in parallel, a batch at a time; records
            // and errors are appended in entry order (issue 5).
            let mut batch: Vec<&'de str> = Vec::with_capacity(256);
            loop {
                let next = seq.next_element::<&'de RawValue>();
                let more = matches!(next, Ok(Some(_)));
                if let Ok(Some(raw)) = &next {
                    batch.push(raw.get());
                }
                if batch.len() >= 256 || !more {
                    self.0.entries(&batch);
                    batch.clear();
                }
                match next {
                    Ok(Some(_)) => {}
                    Ok(None) => return Ok(()),
                    Err(e) => return Err(e),
                }
            }
        }
    }

    impl RefSink<'_> {
        /// As before: a batch of entries read in parallel.
        fn entries(&mut self, raws: &[&str]) {
            use rayon::prelude::*;
            let (input, first) = (self.input, self.next_entry);
            let parts: Vec<Parsed> = raws
                .par_iter()
                .enumerate()
                .map(|(k, raw)| {
                    let base = input.text.as_ptr() as usize;
                    let offset = (raw.as_ptr() as usize - base) as u64;
                    let mut one = Sink {
                        file: input.file,
                        name: input.name,
                        parsed: Parsed::default(),
                        next_entry: first + k as u64,
                    };
                    one.entry(raw, offset)
                        .expect("validated by the document parse");
                    one.parsed
                })
                .collect();
            for p in parts {
                self.parsed.records.extend(p.records);
                self.parsed.errors.extend(p.errors);
            }
            self.next_entry = first + raws.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    /// The skim reads an entry exactly as serde does, or gives up: on
    /// every entry of the bundled HARs and on every one-byte deletion or
    /// swap (from a set of JSON-significant bytes) of some of them.
    #[test]
    fn entry_skim_agrees_with_serde() {
        let mut entries = Vec::new();
        for dir in ["samples/real", "samples/cases"] {
            for f in std::fs::read_dir(dir).unwrap() {
                let p = f.unwrap().path();
                if p.extension().is_some_and(|e| e == "har") {
                    let doc: serde_json::Value =
                        serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
                    for e in doc["log"]["entries"].as_array().into_iter().flatten() {
                        entries.push(e.to_string());
                    }
                }
            }
        }
        assert!(entries.len() > 100, "{}", entries.len());
        let mut texts = entries.clone();
        let swaps = [
            b'"', b'{', b'}', b'[', b']', b',', b':', b'0', b'-', b'n', b' ',
        ];
        for e in entries.iter().filter(|e| e.len() < 1500).take(12) {
            texts.extend(crate::record::scan::edits::one_byte_edits(e, &swaps, false));
        }
        let (mut skimmed, mut total) = (0, 0);
        for t in &texts {
            total += 1;
            if let Some(fast) = super::Entry::skim(t) {
                skimmed += 1;
                let slow: super::Entry = serde_json::from_str(t)
                    .unwrap_or_else(|e| panic!("skim accepted, serde refused ({e}): {t}"));
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{t}");
            }
        }
        assert!(skimmed * 2 > total, "{skimmed} of {total}");
    }

    use super::*;
    use crate::record::{Kind, Member};

    fn run(text: &str) -> Parsed {
        parse(Input {
            file: 7,
            name: "t.har",
            text,
        })
    }

    fn frames(p: &Parsed) -> Vec<&Frame> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some(f),
                _ => None,
            })
            .collect()
    }

    /// A HAR with the given entries (JSON texts).
    fn har(entries: &[String]) -> String {
        format!(
            "{{\"log\":{{\"version\":\"1.2\",\"creator\":{{\"name\":\"WebInspector\",\"version\":\"537.36\"}},\"entries\":[\n{}\n]}}}}",
            entries.join(",\n")
        )
    }

    fn entry(
        started: &str,
        time: &str,
        req_headers: &str,
        post: Option<&str>,
        status: i64,
        resp_headers: &str,
        content: &str,
    ) -> String {
        let post = post.map_or(String::new(), |t| {
            format!(
                ",\"postData\":{{\"mimeType\":\"application/json\",\"text\":{}}}",
                serde_json::to_string(t).unwrap()
            )
        });
        format!(
            "{{\"startedDateTime\":\"{started}\",\"time\":{time},\"request\":{{\"method\":\"{}\",\"url\":\"http://127.0.0.1:3000/mcp\",\"headers\":[{req_headers}]{post}}},\"response\":{{\"status\":{status},\"headers\":[{resp_headers}],\"content\":{content}}},\"timings\":{{\"send\":0,\"wait\":1,\"receive\":0}}}}",
            if post.is_empty() { "GET" } else { "POST" }
        )
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#;

    #[test]
    fn post_json_and_sse_bodies() {
        let sse_body = "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r\n\r\nid: 2\r\ndata: \r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{}}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"res";
        let t = har(&[
            entry(
                "2025-01-01T12:00:00.000Z",
                "12.5",
                "",
                Some(INIT),
                200,
                r#"{"name":"mcp-session-id","value":"S-1"},{"name":"Content-Type","value":"application/json"}"#,
                &format!("{{\"mimeType\":\"application/json; charset=utf-8\",\"text\":{}}}", serde_json::to_string(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"s","version":"1"}}}"#).unwrap()),
            ),
            entry(
                "2025-01-01T14:00:01.000+02:00",
                "\"3\"",
                r#"{"name":"Mcp-Session-Id","value":"S-1"},{"name":"mcp-protocol-version","value":"2025-03-26"}"#,
                Some(r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"n"}]"#),
                200,
                "",
                &format!("{{\"mimeType\":\"Text/Event-Stream\",\"text\":{}}}", serde_json::to_string(sse_body).unwrap()),
            ),
        ]);
        let p = run(&t);
        assert_eq!((p.format, p.dialect), ("har", "webinspector"));
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let f = frames(&p);
        assert_eq!(f.len(), 5);
        // Entry 0: initialize POST keyed by the response's session id.
        assert!(
            f.iter()
                .all(|f| &*f.key == "S-1" && f.split == Split::Never)
        );
        let z = parse_iso("2025-01-01T12:00:00.000Z").unwrap();
        assert_eq!(
            (f[0].direction, f[0].ts, f[0].prov.location),
            (Some(Direction::C2s), Some(z), Location::entry(0, None))
        );
        assert_eq!(
            (f[1].direction, f[1].ts),
            (Some(Direction::S2c), Some(z + 12_500))
        );
        assert!(
            matches!(&f[1].payload, Payload::Single(m) if m.negotiated() == Some("2025-03-26"))
        );
        let h = f[0].http.as_ref().unwrap();
        assert_eq!(
            (
                h.entry,
                h.is_request_body,
                &*h.method,
                h.status,
                h.stream,
                h.body_empty,
                h.body_has_json
            ),
            (0, true, "POST", 200, false, false, true)
        );
        assert_eq!(
            (h.start, h.end, h.position, h.protocol_header.as_deref()),
            (z, z + 12_500, 0, None)
        );
        // Entry 1: batch POST, SSE body with CRLF, a priming event (event 2)
        // and a cut last event.
        assert!(matches!(&f[2].payload, Payload::Batch(m) if m.len() == 2));
        assert_eq!(
            f[2].http.as_ref().unwrap().protocol_header.as_deref(),
            Some("2025-03-26")
        );
        assert_eq!(f[3].prov.location, Location::entry(1, Some(1)));
        assert!(matches!(&f[3].payload, Payload::Single(m) if m.kind == Kind::Notification));
        assert_eq!(f[4].prov.location, Location::entry(1, Some(3)));
        assert!(
            matches!(&f[4].payload, Payload::Single(m) if m.kind == Kind::Response && m.problems.is_empty())
        );
        let h4 = f[4].http.as_ref().unwrap();
        assert_eq!(
            (
                h4.stream,
                h4.position,
                h4.is_request_body,
                h4.end - h4.start
            ),
            (true, 1, false, 3_000)
        );
        assert_eq!(f[4].ts, Some(z + 1_003_000));
        // Offsets point at the entry.
        assert!(t[f[2].prov.offset as usize..].starts_with("{\"startedDateTime\":\"2025-01-01T14"));
        assert_eq!(
            f[2].prov.len as usize,
            t[f[2].prov.offset as usize..].find("\n]}}").unwrap()
        );
    }

    #[test]
    fn base64_bodies() {
        let b64 = base64::engine::general_purpose::STANDARD
            .encode("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"t\":\"\u{2013}\"}}\n\n");
        let t = har(&[
            entry(
                "2025-01-01T12:00:00Z",
                "1",
                "",
                Some(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
                200,
                "",
                &format!(
                    r#"{{"mimeType":"text/event-stream","encoding":"base64","text":"{b64}"}}"#
                ),
            ),
            entry(
                "2025-01-01T12:00:01Z",
                "1",
                "",
                Some(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#),
                200,
                "",
                r#"{"mimeType":"application/json","encoding":"base64","text":"!!not base64!!"}"#,
            ),
        ]);
        let p = run(&t);
        let f = frames(&p);
        assert_eq!(f.len(), 3);
        assert!(matches!(&f[1].payload, Payload::Single(m) if m.kind == Kind::Response));
        assert_eq!(f[1].prov.location, Location::entry(0, Some(1)));
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0].starts_with("entry 1: response body is not valid base64"),
            "{:?}",
            p.errors
        );
        let h = f[2].http.as_ref().unwrap();
        assert_eq!((h.entry, h.body_has_json), (1, false));
    }

    #[test]
    fn empty_202_status_0_and_uncaptured_body() {
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
        let t = har(&[
            entry(
                "2025-01-01T12:00:00Z",
                "2",
                "",
                Some(note),
                202,
                "",
                r#"{"size":0,"mimeType":"x-unknown","text":""}"#,
            ),
            entry("2025-01-01T12:00:01Z", "2", "", Some(ping), 0, "", "{}"),
            entry(
                "2025-01-01T12:00:02Z",
                "2",
                "",
                Some(ping),
                200,
                "",
                r#"{"size":10,"mimeType":"text/event-stream"}"#,
            ),
            entry(
                "2025-01-01T12:00:03Z",
                "2",
                "",
                Some(ping),
                202,
                "",
                r#"{"mimeType":"text/plain","text":"Accepted"}"#,
            ),
        ]);
        let p = run(&t);
        let f = frames(&p);
        assert_eq!(f.len(), 4, "only the request bodies");
        let facts: Vec<_> = f
            .iter()
            .map(|f| {
                let h = f.http.as_ref().unwrap();
                (
                    h.entry,
                    h.status,
                    h.stream,
                    h.body_empty,
                    h.body_has_json,
                    h.is_request_body,
                )
            })
            .collect();
        assert_eq!(
            facts,
            vec![
                (0, 202, false, true, false, true),
                (1, 0, false, true, false, true),
                (2, 200, true, true, false, true),
                (3, 202, false, false, false, true)
            ]
        );
        assert_eq!(
            p.errors,
            vec!["entry 2: response body not captured (status 200)".to_string()]
        );
        // No session header: keyed by origin.
        assert!(f.iter().all(|f| &*f.key == "http://127.0.0.1:3000"));
    }

    #[test]
    fn truncated_har_keeps_earlier_entries() {
        let ping = |n: u32| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#);
        let t = har(&[
            entry(
                "2025-01-01T12:00:00Z",
                "2",
                "",
                Some(&ping(1)),
                200,
                "",
                r#"{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"}"#,
            ),
            entry(
                "2025-01-01T12:00:01Z",
                "2",
                "",
                Some(&ping(2)),
                200,
                "",
                r#"{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"}"#,
            ),
            entry(
                "2025-01-01T12:00:02Z",
                "2",
                "",
                Some(&ping(3)),
                200,
                "",
                r#"{"mimeType":"application/json","text":"{}"}"#,
            ),
        ]);
        let cut = t.find("12:00:02Z").unwrap() + 3;
        let p = run(&t[..cut]);
        assert_eq!(frames(&p).len(), 4);
        assert_eq!(p.errors.len(), 1);
        assert!(
            p.errors[0].starts_with(&format!("HAR ends early at byte {cut} ")),
            "{:?}",
            p.errors
        );
        assert!(
            p.errors[0].ends_with("2 entries read before it"),
            "{:?}",
            p.errors
        );
        // A syntax error in the middle names its place too.
        let bad = t.replacen("\"time\":2", "\"time\":2x", 3);
        let p = run(&bad);
        assert_eq!(frames(&p).len(), 0);
        assert!(
            p.errors[0].starts_with("HAR is not valid JSON at byte"),
            "{:?}",
            p.errors
        );
    }

    #[test]
    fn garbage_and_broken_entries() {
        for text in [
            "",
            "garbage",
            "[1,2]",
            "{}",
            "{\"log\":5}",
            "{\"log\":{}}",
            "{\"log\":{\"entries\":null}}",
            "\u{0}\u{ffff}{",
            "{\"log\":{\"entries\":[{\"request\":",
        ] {
            let p = run(text);
            assert!(p.records.is_empty());
            assert_eq!(p.errors.len(), 1, "{text:?}: {:?}", p.errors);
        }
        let p = run(
            r#"{"log":{"creator":null,"entries":[null, 5, {"request":null}, {"request":{"method":"POST","postData":{"text":"not json"}},"response":null,"time":null}, {"startedDateTime":"2025-01-01T00:00:00Z","request":{"method":"post","url":"https://h.example/mcp?sessionId=abc","postData":{"text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}"}}}]}}"#,
        );
        assert_eq!(p.dialect, "har");
        assert_eq!(p.errors.len(), 6, "{:?}", p.errors);
        assert_eq!(
            p.errors[4],
            "entry 3: no response object; read as no response (status 0)"
        );
        assert_eq!(
            p.errors[5],
            "entry 4: no response object; read as no response (status 0)"
        );
        assert!(
            p.errors[0].starts_with("entry 0:")
                && p.errors[1].starts_with("entry 1:")
                && p.errors[2].starts_with("entry 2:")
        );
        assert!(p.errors[3].starts_with("entry 3: `startedDateTime`"));
        let f = frames(&p);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].payload.clone(), f[0].ts, &*f[0].key),
            (Payload::Unparseable, None, "t.har")
        );
        assert_eq!(f[0].http.as_ref().unwrap().status, 0);
        assert_eq!(&*f[1].key, "abc");
    }

    /// Every prefix of a case HAR parses without panicking; the complete
    /// entries before the cut are kept.
    #[test]
    fn every_prefix_of_a_case_is_safe() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/cases/b21_idle_post_stream_cut_by_edge.har"
        );
        let text = std::fs::read_to_string(path).expect("case b21");
        let full = frames(&run(&text)).len();
        let mut last = 0;
        for cut in (0..=text.len()).filter(|c| text.is_char_boundary(*c)) {
            let p = run(&text[..cut]);
            let n = frames(&p).len();
            assert!(n >= last && n <= full, "cut {cut}");
            assert!(
                text[cut..].trim().is_empty() || p.errors.len() == 1,
                "cut {cut}: {:?}",
                p.errors
            );
            last = n;
        }
        assert_eq!(last, full);
    }

    #[test]
    fn origins_and_query_params() {
        assert_eq!(
            origin("HTTPS://User@Example.COM/mcp?x=1").as_deref(),
            Some("https://example.com:443")
        );
        assert_eq!(
            origin("http://[::1]:8080/mcp").as_deref(),
            Some("http://[::1]:8080")
        );
        assert_eq!(origin("http://h:9/").as_deref(), Some("http://h:9"));
        assert_eq!(origin("/relative"), None);
        assert_eq!(
            query_param("/messages/?session_id=ab12#x", &["sessionId", "session_id"]),
            Some("ab12")
        );
        assert_eq!(
            query_param("/m?a=1&sessionId=&sessionId=z", &["sessionId"]),
            Some("z")
        );
    }

    #[test]
    fn websocket_messages() {
        let t = r#"{"log":{"entries":[{"startedDateTime":"2025-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"ws://h/mcp","headers":[]},"response":{"status":101,"content":{"size":0,"mimeType":"x-unknown"}},"_webSocketMessages":[{"type":"send","time":1735689600.5,"opcode":1,"data":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"},{"type":"receive","time":1735689600.75,"opcode":2,"data":"AAEC"},{"type":"receive","time":1735689601,"opcode":1,"data":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"}]}]}}"#;
        let p = run(t);
        let f = frames(&p);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].direction, f[0].ts, f[0].prov.location),
            (
                Some(Direction::C2s),
                Some(1_735_689_600_500_000),
                Location::entry(0, Some(1))
            )
        );
        assert_eq!(
            (f[1].direction, f[1].prov.location, &*f[1].key),
            (
                Some(Direction::S2c),
                Location::entry(0, Some(3)),
                "ws://h:80"
            )
        );
        // Status 101 without `text`: an error line (rule 12), no panic.
        assert_eq!(p.errors.len(), 1);
    }

    /// Messages and arrays of one parse, both directions (DESIGN.md rule 2).
    #[derive(Debug, Default, PartialEq)]
    struct Counts {
        requests: u64,
        notifications: u64,
        responses: u64,
        batches: u64,
    }

    fn count(p: &Parsed) -> Counts {
        let mut c = Counts::default();
        let add = |m: &crate::record::Message, c: &mut Counts| match m.kind {
            Kind::Request => c.requests += 1,
            Kind::Notification => c.notifications += 1,
            Kind::Response => c.responses += 1,
        };
        for f in frames(p) {
            match &f.payload {
                Payload::Single(m) => add(m, &mut c),
                Payload::Batch(ms) => {
                    c.batches += 1;
                    for m in ms {
                        if let Member::Message(m) = m {
                            add(m, &mut c);
                        }
                    }
                }
                _ => {}
            }
        }
        c
    }

    /// Every HAR of samples/cases and samples/real against its
    /// `.expected.json` `facts.counts` (legacy HTTP+SSE ones and b18 are only
    /// parsed: they are the next issue).
    #[test]
    fn sample_hars_match_expected_counts() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut checked = 0;
        let mut mismatches = Vec::new();
        for dir in ["samples/cases", "samples/real"] {
            let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .expect("samples folder")
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("har"))
                .collect();
            paths.sort();
            for path in paths {
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("")
                    .to_string();
                let text = std::fs::read_to_string(&path).expect("readable HAR");
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
                let p = parse(Input {
                    file: 0,
                    name: &name,
                    text,
                });
                if name.contains("legacy") || name.starts_with("b18") {
                    continue;
                }
                let exp_path = if dir.ends_with("real") {
                    format!("{}.expected.json", path.display())
                } else {
                    path.with_extension("expected.json").display().to_string()
                };
                let exp: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(&exp_path).expect("expected file"),
                )
                .expect("expected JSON");
                let c = &exp["facts"]["counts"];
                let want = Counts {
                    requests: c["requests"].as_u64().unwrap(),
                    notifications: c["notifications"].as_u64().unwrap(),
                    responses: c["responses"].as_u64().unwrap(),
                    batches: c["batches"].as_u64().unwrap(),
                };
                let got = count(&p);
                // Sessions: distinct keys carrying traffic (HAR keys never split).
                let keys: std::collections::BTreeSet<&str> =
                    frames(&p).iter().map(|f| &*f.key).collect();
                let sessions_ok = match &c["sessions"] {
                    serde_json::Value::Number(n) => n.as_u64() == Some(keys.len() as u64),
                    serde_json::Value::Array(a) => {
                        a.iter().any(|n| n.as_u64() == Some(keys.len() as u64))
                    }
                    _ => true,
                };
                if got != want || !sessions_ok || !p.errors.is_empty() {
                    mismatches.push(format!(
                        "{name}: got {got:?} sessions {} errors {:?}, want {want:?} sessions {}",
                        keys.len(),
                        p.errors,
                        c["sessions"]
                    ));
                }
                checked += 1;
            }
        }
        assert!(checked >= 20, "{checked}");
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }

    // -----------------------------------------------------------------------
    // The streaming splitter against the whole-document reference parser.

    /// Everything a parse gives, comparable.
    fn digest(p: &Parsed) -> String {
        format!(
            "{} {} {} {:?}\n{:#?}",
            p.format, p.dialect, p.incomplete, p.errors, p.records
        )
    }

    fn run_chunks(text: &str, size: usize) -> Parsed {
        let mut s = HarStream::new(7, "t.har");
        for piece in text.as_bytes().chunks(size.max(1)) {
            s.push(piece);
        }
        s.finish()
    }

    fn reference(text: &str) -> Parsed {
        super::reference::parse(Input {
            file: 7,
            name: "t.har",
            text,
        })
    }

    /// A HAR whose strings hold `{`, `}`, `]`, `\"`, escaped backslashes and
    /// `"entries"`, with `entries` also in `pages`, in a root member, in a
    /// body and in an entry's custom member.
    fn tricky() -> String {
        let ping = |n: u32| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#);
        let mut e0 = entry(
            "2025-01-01T12:00:00Z",
            "2",
            r#"{"name":"x-note","value":"]}{\"entries\":[\\\\\"} \\"}"#,
            Some(&ping(1)),
            200,
            "",
            r#"{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"entries\":[\"]\",\"}\"]}}"}"#,
        );
        e0.insert_str(
            1,
            r#""_custom":{"entries":[{"request":{}}],"s":"\\\"\\\\"},"#,
        );
        let e1 = entry(
            "2025-01-01T12:00:01Z",
            "3",
            "",
            Some(&ping(2)),
            200,
            "",
            r#"{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"}"#,
        );
        format!(
            "{{\"entries\":[{{\"request\":{{}}}}],\"log\":{{\"version\":\"1.2\",\"creator\":{{\"name\":\"Playwright\",\"entries\":[]}},\"pages\":[{{\"id\":\"p\",\"title\":\"\\\"entries\\\":[{{\",\"entries\":[1]}}],\r\n\t\"entries\" : [ {e0} ,\n{e1}\n ] ,\"comment\":\"]}}\"}} , \"log\":{{\"entries\":[5]}}}}\n"
        )
    }

    #[test]
    fn splitter_finds_only_log_entries() {
        let t = tricky();
        let mut sp = Splitter::new();
        let mut b = Batch::default();
        sp.push(t.as_bytes(), &mut b);
        sp.finish(&mut b);
        assert!(sp.error.is_none(), "{:?}", sp.error);
        assert_eq!(sp.dialect(), "playwright");
        let got: Vec<_> = b.entries().collect();
        assert_eq!(got.len(), 2);
        for (k, (index, offset, bytes)) in got.into_iter().enumerate() {
            assert_eq!(index, k as u64);
            let o = offset as usize;
            assert_eq!(&t.as_bytes()[o..o + bytes.len()], bytes);
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            assert!(v["request"].is_object());
        }
        let p = run(&t);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(frames(&p).len(), 4);
        assert_eq!(digest(&p), digest(&reference(&t)));
    }

    /// Cut into chunks of every size 1..=N, a HAR gives the same entries,
    /// records and errors as whole (and as the reference parser).
    #[test]
    fn every_chunk_size_gives_the_same() {
        let t = tricky();
        let whole = digest(&reference(&t));
        for size in 1..=t.len() + 1 {
            assert_eq!(digest(&run_chunks(&t, size)), whole, "chunk size {size}");
        }
        // Cut as well: every prefix, in 1-, 7- and 4096-byte chunks.
        for cut in 0..=t.len() {
            let want = digest(&reference(&t[..cut]));
            for size in [1, 7, 4096] {
                assert_eq!(
                    digest(&run_chunks(&t[..cut], size)),
                    want,
                    "cut {cut}, chunk size {size}"
                );
            }
        }
    }

    /// Broken documents: the same messages as the whole-document parse.
    #[test]
    fn broken_documents_match_the_reference() {
        let docs = [
            "",
            " ",
            "garbage",
            "[1,2]",
            "\"log\"",
            "-",
            "tru",
            "{}",
            "{} x",
            "{},",
            "{\"log\":5}",
            "{\"log\":\"x\"}",
            "{\"log\":[]}",
            "{\"log\":nul}",
            "{\"log\":{}}",
            "{\"log\":{},}",
            "{\"log\":{}",
            "{\"log\":{\"entries\":null}}",
            "{\"log\":{\"entries\":{}}}",
            "{\"log\":{\"entries\":\"a\"}}",
            "{\"log\":{\"entries\":[]}}",
            "{\"log\":{\"entries\":[],}}",
            "{\"log\":{\"entries\":[,]}}",
            "{\"log\":{\"entries\":[1,]}}",
            "{\"log\":{\"entries\":[1 2]}}",
            "{\"log\":{\"entries\":[1x]}}",
            "{\"log\":{\"entries\":[5, null, \"s\", true, [1], {}, -0.5e3]}}",
            "{\"log\":{\"entries\":[}]}}",
            "{\"log\":{\"entries\":[{]}}",
            "{\"log\":{\"entries\":[{}}]}}",
            "{\"log\":{\"entries\":[{\"a\":1]}]}}",
            "{\"log\":{\"entries\":[{\"request\":{},\"request\":{}, x}]}}",
            "{\"log\":{\"entries\":[{\"\\ud800\":1}]}}",
            "{\"log\":{\"entries\":[{\"a\":\"\\ud800\"}]}}",
            "{\"log\":{\"entries\":[{\"a\":\"\\q\"}]}}",
            "{\"log\":{\"entries\":[{\"a\":\"\u{1}\"}]}}",
            "{\"log\":{\"entries\":[{\"a\":01}]}}",
            "{\"log\":{\"entries\":[{\"a\":1.}]}}",
            "{\"log\":{\"entries\":[{\"a\":1e}]}}",
            "{\"log\":{\"entries\":[]}} x",
            "{\"log\":{\"entries\":[]}}\n\n ",
            "{\"log\":{\"entries\":[]},\"log\":5}",
            "{\"log\":{\"entries\":[]},\"log\":{,}}",
            "{\"log\":{\"entries\":[],\"entries\":[1}}",
            "{\"log\":{\"creator\":5,\"entries\":[]}}",
            "{\"log\":{\"creator\":{\"name\":\"Charles\"},\"creator\":{\"name\":7},\"entries\":[]}}",
            "{\"log\":{\"creator\":{\"name\":\"Fiddler\"}",
            "{\"log\":{\"creator\":{\"name\":\"x\"\"y\"},\"entries\":[]}}",
            "{\"log\":{\"creator\":tx,\"entries\":[]}}",
            "{\"log\":{\"pages\":[{\"entries\":[{]}],\"entries\":[]}}",
            "{\"log\":{\"\\u0065ntries\":[{\"request\":{}}]}}",
            "{\"\\u006cog\":{\"entries\":[]}}",
            "{\"\\x\":1}",
            "{\"log\" {}}",
            "{\"log\":{\"entries\" []}}",
            "{1:2}",
            "{\"log\":{1:2}}",
            "{\"log\":{\"entries\":[]",
            "{\"log\":{\"entries\":[",
            "{\"log\":{\"entries\":[1",
            "{\"log\":{\"entries\":[1,",
            "{\"log\":{\"entries\":[{\"request\":",
            "{\"log\":{\"entries\":[\"ab",
            "{\"log\":{\"entries\":[\"ab\\",
            "{\"log\":{\"ver",
            "{\"log\":{\"version\":",
            "{\"log\":{\"version\":1",
            "{\"log\":{\"version\":1.",
            "{\"log\":{\"version\":1\n,\n\"entries\":\n[\n{}\n,\n{\"x\":\n\"\\u12",
            "\u{0}\u{ffff}{",
            "{\"log\":{\"entries\":[]}}}",
            "{\"log\":{\"entries\":[]}]",
        ];
        for d in docs {
            let want = digest(&reference(d));
            for size in [1, 2, 3, 1 << 20] {
                assert_eq!(
                    digest(&run_chunks(d, size)),
                    want,
                    "{d:?} in {size}-byte chunks"
                );
            }
        }
    }

    /// Every one-byte edit of a small HAR (delete, or replace by a
    /// structural byte) reads as the whole-document parse reads it.
    #[test]
    fn one_byte_edits_match_the_reference() {
        let base = tricky();
        let t = &base[..base.len().min(1500)];
        let t = format!("{t}\"}}]}}}}");
        let bytes = t.as_bytes();
        let mut n = 0;
        for i in 0..bytes.len() {
            let mut variants: Vec<Vec<u8>> = Vec::new();
            let mut del = bytes.to_vec();
            del.remove(i);
            variants.push(del);
            for b in [
                b'"', b',', b'}', b']', b'{', b'[', b'x', b' ', b'\\', b':', b'1',
            ] {
                if bytes[i] != b {
                    let mut v = bytes.to_vec();
                    v[i] = b;
                    variants.push(v);
                }
            }
            for v in variants {
                let Ok(v) = String::from_utf8(v) else {
                    continue;
                };
                assert_eq!(
                    digest(&run_chunks(&v, 97)),
                    digest(&reference(&v)),
                    "edit at byte {i}: {v:?}"
                );
                n += 1;
            }
        }
        assert!(n > 1000);
    }

    /// Every prefix of a real capture ends with the reference's message.
    #[test]
    fn prefixes_of_a_real_capture_match_the_reference() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/real/har_py-streamable-json__py-client.har"
        );
        let text = std::fs::read_to_string(path).expect("sample");
        for cut in (0..=text.len()).step_by(61) {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let t = &text[..cut];
            assert_eq!(
                digest(&run_chunks(t, 1009)),
                digest(&reference(t)),
                "cut {cut}"
            );
        }
    }

    /// All sample HARs: the same as the reference, whole and in small chunks.
    #[test]
    fn sample_hars_match_the_reference() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut n = 0;
        for dir in ["samples/cases", "samples/real"] {
            for e in std::fs::read_dir(format!("{root}/{dir}"))
                .unwrap()
                .flatten()
            {
                let path = e.path();
                if path.extension().and_then(|x| x.to_str()) != Some("har") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
                let want = digest(&reference(text));
                assert_eq!(digest(&run(text)), want, "{}", path.display());
                assert_eq!(digest(&run_chunks(text, 333)), want, "{}", path.display());
                n += 1;
            }
        }
        assert!(n >= 20);
    }

    /// Throughput of the splitter alone and of the whole HAR read on a big
    /// file (`MCP_AUDIT_HAR=path cargo test --release --lib
    /// stream_throughput -- --ignored --nocapture`).
    #[test]
    #[ignore = "needs MCP_AUDIT_HAR=path to a big HAR"]
    fn stream_throughput() {
        let Some(path) = std::env::var_os("MCP_AUDIT_HAR") else {
            return;
        };
        let path = std::path::PathBuf::from(path);
        let t = std::time::Instant::now();
        let mut src = crate::source::TextChunks::open(&path).unwrap();
        let mut bytes = 0usize;
        while let Some(c) = src.next_chunk().unwrap() {
            bytes += c.len();
        }
        let read = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut src = crate::source::TextChunks::open(&path).unwrap();
        let mut sp = Splitter::new();
        let mut n = 0;
        while let Some(c) = src.next_chunk().unwrap() {
            let mut b = Batch::default();
            sp.push(c, &mut b);
            n += b.len();
        }
        let split = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut src = crate::source::TextChunks::open(&path).unwrap();
        let mut h = HarStream::new(0, "big.har");
        while let Some(c) = src.next_chunk().unwrap() {
            h.push(c);
        }
        let p = h.finish();
        let all = t.elapsed().as_secs_f64();
        drop(p);
        // The whole-document reference (read_to_string + serde visitors).
        let t = std::time::Instant::now();
        let text = std::fs::read_to_string(&path).unwrap();
        let r = super::reference::parse(Input {
            file: 0,
            name: "big.har",
            text: &text,
        });
        let before = t.elapsed().as_secs_f64();
        let mb = bytes as f64 / 1e6;
        eprintln!(
            "{mb:.0} MB, {n} entries, {} records, {} threads: read {:.0} MB/s, read+split {:.0} MB/s, read+split+entries {:.0} MB/s; whole-document reference {:.0} MB/s",
            r.records.len(),
            rayon::current_num_threads(),
            mb / read,
            mb / split,
            mb / all,
            mb / before
        );
    }

    /// What one HAR frame costs inline (reports/BENCH-har.md).
    #[test]
    #[ignore = "prints sizes"]
    fn record_sizes() {
        use std::mem::size_of;
        eprintln!(
            "Record {} Frame {} Payload {} Message {} HttpContext {} Provenance {} Location {}",
            size_of::<Record>(),
            size_of::<Frame>(),
            size_of::<Payload>(),
            size_of::<crate::record::Message>(),
            size_of::<HttpContext>(),
            size_of::<Provenance>(),
            size_of::<Location>()
        );
    }
}

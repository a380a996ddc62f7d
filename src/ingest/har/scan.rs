//! The streaming scanner: finds the elements of `log.entries` in a HAR
//! document pushed chunk by chunk and copies each one's exact text out into
//! a [`Batch`]; everything else in the document is checked by serde_json
//! on its own bytes.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer as _, IgnoredAny, Visitor};

use super::error::{DocError, error_offset};
use super::model::{Creator, Loose, dialect};

/// Entries found by a [`HarSplitter`]: their texts one after the other.
#[derive(Debug, Default)]
pub struct Batch {
    pub(super) text: Vec<u8>,
    pub(super) spans: Vec<Span>,
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
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) index: u64,
    /// Byte offset in the document.
    pub(super) offset: u64,
    /// 1-based line of the entry's first byte, and the offset that line
    /// starts at (to place an error inside the entry).
    line: u64,
    line_start: u64,
}

impl Span {
    /// The document error for a serde_json error inside this entry's text.
    pub(super) fn error(&self, e: &serde_json::Error, raw: &[u8]) -> DocError {
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
/// is checked when it is read ([`super::HarStream`]), a scalar one here.
///
/// Memory: the bytes of the value being scanned (one entry, one key, or one
/// other member such as `pages`), never the document. Never panics.
#[derive(Debug)]
pub struct HarSplitter {
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
    /// A `log` member was met in the root object.
    pub(super) saw_log: bool,
    /// An `entries` member was met in `log`.
    pub(super) saw_entries: bool,
    dialect: &'static str,
    /// The document error that stopped the scan.
    pub(super) error: Option<DocError>,
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

/// serde_json's message for a document that ends where a value must be.
const EOF_VALUE: &str = "EOF while parsing a value";
/// serde_json's message for a document that ends inside an object.
const EOF_OBJECT: &str = "EOF while parsing an object";

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

impl Default for HarSplitter {
    fn default() -> Self {
        Self::new()
    }
}

impl HarSplitter {
    /// A splitter at the start of a document.
    pub fn new() -> Self {
        HarSplitter {
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
        self.error = Some(DocError::found(code, eof, at, line, column));
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
        if self.scan.scalar {
            self.extent_scalar()
        } else {
            self.extent_container()
        }
    }

    /// [`HarSplitter::extent`] of a number or literal (or of no token at
    /// all: a stray byte serde_json must judge).
    fn extent_scalar(&mut self) -> Step<(usize, bool)> {
        let buf = &self.buf;
        let len = buf.len();
        let mut i = self.scan.at;
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
        if self.eof {
            Ok((len, true))
        } else {
            Err(Halt::More)
        }
    }

    /// [`HarSplitter::extent`] of an object, array or string: strings,
    /// escapes and nesting depth, resumable where the input runs out.
    fn extent_container(&mut self) -> Step<(usize, bool)> {
        let buf = &self.buf;
        let len = buf.len();
        let mut i = self.scan.at;
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
        let result = f(&mut de).map(|v| match de.end() {
            Ok(()) => (v, end),
            // Trailing characters: placed one byte after the first of them.
            Err(e) => (
                v,
                start + error_offset(sub, e.line(), e.column()).saturating_sub(1),
            ),
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

    /// One step of the walk: the serde_json step the state mirrors.
    fn step(&mut self, out: &mut Batch) -> Step<()> {
        match self.state {
            State::Done => Ok(()),
            State::Root => self.root(),
            State::KeyOrEnd { log, first } => self.key_or_end(log, first),
            State::KeyAfterComma { log } => self.key_after_comma(log),
            State::Key { log } => self.key(log),
            State::Colon { log, target } => self.colon(log, target),
            State::Value { log, target } => self.value(log, target),
            State::Skip { log, target } => self.skip(log, target),
            State::ElemOrEnd { first } => self.elem_or_end(first),
            State::ElemAfterComma => self.elem_after_comma(),
            State::Elem => self.elem(out),
            State::End => self.end(),
        }
    }

    /// [`State::Root`]: the document's value; an object is walked, anything
    /// else is refused by serde_json.
    fn root(&mut self) -> Step<()> {
        match self.ws()? {
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
        }
    }

    /// [`State::KeyOrEnd`]: the object's end, a `,`, or its first key.
    fn key_or_end(&mut self, log: bool, first: bool) -> Step<()> {
        match self.ws()? {
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
        }
    }

    /// [`State::KeyAfterComma`]: a key must follow.
    fn key_after_comma(&mut self, log: bool) -> Step<()> {
        match self.ws()? {
            Some(b'"') => {
                self.begin();
                self.state = State::Key { log };
                Ok(())
            }
            Some(b'}') => Err(self.peek_err("trailing comma", false)),
            Some(_) => Err(self.peek_err("key must be a string", false)),
            None => Err(self.peek_err(EOF_VALUE, true)),
        }
    }

    /// [`State::Key`]: the key, read by serde_json, names what its value
    /// is read as (only the first `log` and its first `entries` count).
    fn key(&mut self, log: bool) -> Step<()> {
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

    /// [`State::Colon`]: `:` after a key.
    fn colon(&mut self, log: bool, target: Target) -> Step<()> {
        match self.ws()? {
            Some(b':') => {
                self.pos += 1;
                self.state = State::Value { log, target };
                Ok(())
            }
            Some(_) => Err(self.peek_err("expected `:`", false)),
            None => Err(self.peek_err(EOF_OBJECT, true)),
        }
    }

    /// [`State::Value`]: `log` and `log.entries` are walked into when they
    /// open the right container; every other value is scanned whole.
    fn value(&mut self, log: bool, target: Target) -> Step<()> {
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

    /// [`State::Skip`]: a value serde_json reads whole — refused when it is
    /// the wrong container, `creator` read for the dialect, anything else
    /// checked and dropped.
    fn skip(&mut self, log: bool, target: Target) -> Step<()> {
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
                let (IgnoredAny, resume) = self.serde(end, |de| IgnoredAny::deserialize(de))?;
                ((), resume)
            }
        };
        self.pos = resume;
        self.state = State::KeyOrEnd { log, first: false };
        Ok(())
    }

    /// [`State::ElemOrEnd`]: the end of `log.entries`, a `,`, or its first
    /// element.
    fn elem_or_end(&mut self, first: bool) -> Step<()> {
        match self.ws()? {
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
        }
    }

    /// [`State::ElemAfterComma`]: an element must follow.
    fn elem_after_comma(&mut self) -> Step<()> {
        match self.ws()? {
            Some(b']') => Err(self.peek_err("trailing comma", false)),
            Some(_) => {
                self.begin();
                self.state = State::Elem;
                Ok(())
            }
            None => Err(self.peek_err(EOF_VALUE, true)),
        }
    }

    /// [`State::Elem`]: one entry, scanned and copied to `out`.
    fn elem(&mut self, out: &mut Batch) -> Step<()> {
        let (end, closed) = self.extent()?;
        if self.scan.scalar || !closed {
            // Judged here: a number or literal (serde needs the
            // byte after it), or an entry the input cuts off.
            let ((), resume) = self.serde(end, |de| IgnoredAny::deserialize(de).map(|_| ()))?;
            self.emit(resume, out);
            self.pos = resume;
        } else {
            self.emit(end, out);
            self.pos = end;
        }
        self.state = State::ElemOrEnd { first: false };
        Ok(())
    }

    /// [`State::End`]: only whitespace may follow the root object.
    fn end(&mut self) -> Step<()> {
        match self.ws()? {
            None => {
                self.state = State::Done;
                Ok(())
            }
            Some(_) => Err(self.peek_err("trailing characters", false)),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The streaming splitter, and the whole stream, against the
    //! whole-document reference parser (`super::super::reference`).

    use super::super::HarStream;
    use super::super::testutil::{entry, frames, run};
    use super::*;
    use crate::ingest::Input;
    use crate::record::Parsed;

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
        super::super::reference::parse(Input {
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
        let mut sp = HarSplitter::new();
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
            "/tests/data/real/har_py-streamable-json__py-client.har"
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
        for dir in ["tests/data/cases", "tests/data/real"] {
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
        let mut sp = HarSplitter::new();
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
        let r = super::super::reference::parse(Input {
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
}

//! HAR 1.2 captures of MCP Streamable HTTP traffic (FORMATS.md §2.3–2.6, §4,
//! §4.2).
//!
//! The document is read as a stream (issue 5): bytes are pushed chunk by
//! chunk into a [`HarStream`], whose [`HarSplitter`] (a small structural JSON
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
//! - every frame carries the exchange's [`HttpContext`](crate::record::HttpContext), the request-body
//!   frame included, so that 202 / empty / status-0 answers stay visible;
//! - the session key is chosen by DESIGN.md rule 1, never split.
//!
//! Later issues: the legacy HTTP+SSE transport's cross-entry pairing and
//! SSE replay de-duplication are not done here.
//!
//! The parts: `scan` finds the entries in the byte stream ([`HarSplitter`],
//! [`Batch`]), `model` reads one entry leniently, `frames` turns it into
//! frames (with `session` for its key and `websocket` for
//! `_webSocketMessages`), and `error` words a document error as serde_json
//! would. `reference` (tests only) is the whole-document parser the stream
//! is tested against.

use std::borrow::Cow;
use std::sync::Arc;

use super::Input;
use crate::diag::Diagnostic;
use crate::record::Parsed;

mod error;
mod frames;
mod mcp_headers;
mod model;
mod scan;
mod session;
mod websocket;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod testutil;

use error::DocError;
use frames::EntrySink;
pub use scan::{Batch, HarSplitter};

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
/// chunk (any sizes, any cuts), a [`HarSplitter`] finds the entries of
/// `log.entries`, and the entries found in one chunk are read in parallel
/// (rayon) while the next chunk is split. Memory holds one chunk, the
/// entries of two chunks and the records made so far — never the document.
///
/// The result ([`HarStream::finish`]) is the same, record for record and
/// error line for error line, whatever the chunk sizes and thread count.
pub struct HarStream {
    file: u32,
    name: String,
    splitter: HarSplitter,
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
            splitter: HarSplitter::new(),
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
        unlinked_legacy_gaps(&mut parsed);
        collapse_mojibake(&mut parsed.errors);
        parsed.dialect = self.splitter.dialect();
        let error = self.stop.or(self.splitter.error.take());
        if let Some(e) = error {
            parsed.incomplete = true;
            parsed
                .errors
                .push(Diagnostic::whole(e.message(self.read)).fatal());
        } else if !self.splitter.saw_log {
            parsed.incomplete = true;
            parsed
                .errors
                .push(Diagnostic::whole("not a HAR document: no `log` object").fatal());
        } else if !self.splitter.saw_entries {
            parsed.incomplete = true;
            parsed
                .errors
                .push(Diagnostic::whole("HAR `log` has no `entries` array").fatal());
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
                    self.parsed.linked_streams.extend(p.linked_streams);
                    self.parsed.legacy_origins.extend(p.legacy_origins);
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

/// What a legacy request's `missing_response` says when its session's GET
/// stream is not in the capture ([`unlinked_legacy_gaps`]).
pub(super) const UNLINKED_STREAM: &str = "its session's SSE stream (the legacy HTTP+SSE transport's GET, which carries every reply) is not in the capture with a readable body: the recorder left the body out (Playwright and Chromium do for a stream still open) or did not record it";

/// Legacy HTTP+SSE requests (POSTed, answered `202`, their replies on the
/// session's GET stream: FORMATS.md §2.2) of a session whose stream the
/// capture does not hold readably ([`Parsed::linked_streams`]): each
/// request carries the gap, so its `missing_response` says the capture
/// lost the replies instead of blaming the server (never a false alarm).
pub(super) fn unlinked_legacy_gaps(parsed: &mut Parsed) {
    use crate::record::{Direction, Kind, Member, Payload};
    adopt_lost_streams(parsed);
    let linked: std::collections::HashSet<&str> =
        parsed.linked_streams.iter().map(|k| &**k).collect();
    let mut unlinked = Vec::new();
    for (k, r) in parsed.records.iter().enumerate() {
        if let crate::record::Record::Frame(f) = r
            && f.direction == Some(Direction::C2s)
            && f.http.as_ref().is_some_and(|h| h.legacy)
            && !linked.contains(&*f.key)
        {
            unlinked.push(k);
        }
    }
    for k in unlinked {
        let crate::record::Record::Frame(f) = &mut parsed.records[k] else {
            continue;
        };
        let mark = |m: &mut crate::record::Message| {
            if m.kind == Kind::Request {
                m.extra.get_or_insert_default().capture_gap = Some(UNLINKED_STREAM.into());
            }
        };
        match &mut f.payload {
            Payload::Single(m) => mark(m),
            Payload::Batch(ms) => ms.iter_mut().for_each(|x| {
                if let Member::Message(m) = x {
                    mark(m)
                }
            }),
            _ => {}
        }
    }
}

/// Gives each legacy GET stream whose body the capture lost to the legacy
/// session it most likely carried (FORMATS.md §2.2). With the body went
/// the `endpoint` event that names the session, so the GET was keyed by
/// its URL's origin and would stand as a session of its own with no
/// messages, while the session it served showed no stream. Each such GET
/// goes to the next session, in order of first POST, that POSTed to the
/// same origin and has no readable stream; one with no such session keeps
/// its origin key. The marker it carries only says replies were lost, so a
/// wrong match can move a capture gap, never make a fault.
fn adopt_lost_streams(parsed: &mut Parsed) {
    use crate::record::{Payload, Record};
    use std::collections::{HashMap, HashSet, VecDeque};
    if parsed.legacy_origins.is_empty() {
        return;
    }
    let linked: HashSet<&str> = parsed.linked_streams.iter().map(|k| &**k).collect();
    let mut seen = HashSet::new();
    let mut waiting: HashMap<&str, VecDeque<&Arc<str>>> = HashMap::new();
    for (key, origin) in &parsed.legacy_origins {
        if !linked.contains(&**key) && seen.insert(&**key) {
            waiting.entry(&**origin).or_default().push_back(key);
        }
    }
    for r in &mut parsed.records {
        let Record::Frame(f) = r else { continue };
        let Some(h) = f.http.as_mut() else { continue };
        if !matches!(f.payload, Payload::Lost) || !h.origin_keyed || &*h.method != "GET" {
            continue;
        }
        if let Some(key) = waiting.get_mut(&*f.key).and_then(VecDeque::pop_front) {
            f.key = key.clone();
            h.legacy = true;
            h.origin_keyed = false;
        }
    }
}

/// Keeps one windows-1252 repair line per input ([`frames::MOJIBAKE`],
/// FORMATS.md §4.1), the first entry's, saying how many more there were:
/// a clean capture from a browser would otherwise list one per entry.
pub(super) fn collapse_mojibake(errors: &mut Vec<Diagnostic>) {
    let is = |d: &Diagnostic| d.message == frames::MOJIBAKE;
    let n = errors.iter().filter(|d| is(d)).count();
    if n < 2 {
        return;
    }
    let mut first = true;
    errors.retain(|d| !is(d) || std::mem::replace(&mut first, false));
    if let Some(d) = errors.iter_mut().find(|d| is(d)) {
        d.message = format!("{} (this entry and {} more)", d.message, n - 1);
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
            let mut one = EntrySink::new(file, name, sp.index);
            match one.entry(&raw, sp.offset) {
                Ok(()) => Ok(one.parsed),
                Err(e) => Err(sp.error(&e, raw.as_bytes())),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::testutil::{entry, frames, har, run};
    use super::*;
    use crate::record::{Kind, Member, Payload};

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
            p.errors[0]
                .to_string()
                .starts_with(&format!("HAR ends early at byte {cut} ")),
            "{:?}",
            p.errors
        );
        assert!(
            p.errors[0]
                .to_string()
                .ends_with("2 entries read before it"),
            "{:?}",
            p.errors
        );
        // A syntax error in the middle names its place too.
        let bad = t.replacen("\"time\":2", "\"time\":2x", 3);
        let p = run(&bad);
        assert_eq!(frames(&p).len(), 0);
        assert!(
            p.errors[0]
                .to_string()
                .starts_with("HAR is not valid JSON at byte"),
            "{:?}",
            p.errors
        );
    }

    /// Every prefix of a case HAR parses without panicking; the complete
    /// entries before the cut are kept.
    #[test]
    fn every_prefix_of_a_case_is_safe() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/cases/b21_idle_post_stream_cut_by_edge.har"
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

    /// Every HAR of tests/data/cases and tests/data/real against its
    /// `.expected.json` `facts.counts` (legacy HTTP+SSE ones and b18 are only
    /// parsed: they are the next issue).
    #[test]
    fn sample_hars_match_expected_counts() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut checked = 0;
        let mut mismatches = Vec::new();
        for dir in ["tests/data/cases", "tests/data/real"] {
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
                let exp = crate::ingest::testdata::expected(&path);
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
                // A repaired windows-1252 body is a notice, not a problem.
                let problems = p.errors.iter().filter(|e| !e.notice);
                if got != want || !sessions_ok || problems.count() > 0 {
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
    /// Two legacy sessions on one origin whose GET streams were both lost
    /// at export (no body text), and a third lost GET on another origin:
    /// each lost GET of the first origin goes to the session that POSTed
    /// there first and is not yet served (entries 0 → `a`, 1 → `b`); the
    /// other keeps its origin key, and no session of no messages is left
    /// for origin 3000.
    #[test]
    fn lost_legacy_streams_join_their_sessions() {
        let e = |t: &str, method: &str, url: &str, post: &str, status: i64, mime: &str| {
            let post = if post.is_empty() {
                String::new()
            } else {
                format!(
                    r#","postData":{{"mimeType":"application/json","text":{}}}"#,
                    serde_json::to_string(post).unwrap()
                )
            };
            format!(
                r#"{{"startedDateTime":"2025-01-01T12:00:0{t}Z","time":5,"request":{{"method":"{method}","url":"{url}","headers":[]{post}}},"response":{{"status":{status},"headers":[],"content":{{"size":0,"mimeType":"{mime}"}}}},"timings":{{"send":0,"wait":1,"receive":0}}}}"#
            )
        };
        let ping = |n: u32| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#);
        let t = har(&[
            e(
                "0",
                "GET",
                "http://127.0.0.1:3000/sse",
                "",
                200,
                "text/event-stream",
            ),
            e(
                "1",
                "GET",
                "http://127.0.0.1:3000/sse",
                "",
                200,
                "text/event-stream",
            ),
            e(
                "2",
                "POST",
                "http://127.0.0.1:3000/message?sessionId=a",
                &ping(1),
                202,
                "text/plain",
            ),
            e(
                "3",
                "POST",
                "http://127.0.0.1:3000/message?sessionId=b",
                &ping(1),
                202,
                "text/plain",
            ),
            e(
                "4",
                "POST",
                "http://127.0.0.1:3000/message?sessionId=a",
                &ping(2),
                202,
                "text/plain",
            ),
            e(
                "5",
                "GET",
                "http://127.0.0.1:4000/sse",
                "",
                200,
                "text/event-stream",
            ),
        ]);
        let p = run(&t);
        let lost: Vec<(u64, &str, bool)> = frames(&p)
            .into_iter()
            .filter(|f| matches!(f.payload, Payload::Lost))
            .map(|f| {
                let h = f.http.as_ref().unwrap();
                (h.entry, &*f.key, h.legacy)
            })
            .collect();
        assert_eq!(
            lost,
            [
                (0, "a", true),
                (1, "b", true),
                (5, "http://127.0.0.1:4000", false)
            ]
        );
        let keys: std::collections::BTreeSet<&str> = frames(&p).iter().map(|f| &*f.key).collect();
        assert_eq!(
            keys,
            ["a", "b", "http://127.0.0.1:4000"].into_iter().collect()
        );
    }
}

//! The line sink: [`LineSink`] turns the traffic lines of one line log into
//! [`Record`]s with provenance (FORMATS.md §8.1 "Traffic", "Payload",
//! "`non_json_line`"), and [`read_lines`] is the one loop of every line
//! dialect, driven by the dialect's [`LineReader`].

use std::sync::Arc;

use super::grammar::{escape, is_blank, trim_host_suffix};
use super::input::Input;
use super::lines::{Line, Lines, lines};
use crate::diag::{Diagnostic, Place};
use crate::record::jsonrpc::{first_value_len, parse_payload};
use crate::record::time::parse_iso;
use crate::record::{
    Direction, Frame, Location, Micros, Parsed, Payload, Provenance, Record, Split,
};

/// How one line dialect reads a log (FORMATS.md §8.2): [`read_lines`] hands
/// it every non-blank line in order.
pub(crate) trait LineReader {
    /// Reads the non-blank `line`. A record spread over lines takes the
    /// lines that continue it from `rest`; the loop goes on after them.
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, rest: &mut Lines<'a>);

    /// Called once after the last line.
    fn end(&mut self, _sink: &mut LineSink<'_>) {}
}

/// The line loop shared by every line dialect (FORMATS.md §8.1 "Lines":
/// blank lines are skipped): each non-blank line of the sink's input goes
/// to `reader`, then the sink's records are collected.
pub(crate) fn read_lines<R: LineReader>(mut sink: LineSink<'_>, mut reader: R) -> Parsed {
    let mut rest = lines(sink.input().text);
    while let Some(line) = rest.next() {
        if is_blank(line.text) {
            continue;
        }
        reader.line(&mut sink, line, &mut rest);
    }
    reader.end(&mut sink);
    sink.finish()
}

/// Everything about a frame but its payload: session key, split rule,
/// direction, time and 1-based line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'k> {
    /// Session key.
    pub(crate) key: &'k str,
    /// How the key splits into sessions.
    pub(crate) split: Split,
    /// Direction (`None` only for unreadable NDJSON lines).
    pub(crate) direction: Option<Direction>,
    /// Time, µs.
    pub(crate) ts: Option<Micros>,
    /// 1-based line number.
    pub(crate) line: u64,
}

impl<'k> At<'k> {
    /// A frame of session key `key` that a new process start splits
    /// ([`Split::ByStart`], FORMATS.md §8.1), at 1-based line `line`.
    pub(crate) fn by_start(
        key: &'k str,
        direction: Option<Direction>,
        ts: Option<Micros>,
        line: u64,
    ) -> At<'k> {
        At {
            key,
            split: Split::ByStart,
            direction,
            ts,
            line,
        }
    }
}

/// Collects the records of one input (FORMATS.md §8.1 "Traffic",
/// "Payload", "`non_json_line`").
pub(crate) struct LineSink<'a> {
    input: Input<'a>,
    parsed: Parsed,
    /// The half of a per-direction pair being read: its problems name it.
    half: Option<String>,
    /// Lines whose timestamp could not be read (the first is reported).
    bad_ts: u64,
    /// The last session key given out: consecutive frames of one session
    /// share it (no allocation per frame).
    last_key: Option<Arc<str>>,
}

impl<'a> LineSink<'a> {
    /// A sink for one input of the dialect named `dialect`.
    pub(crate) fn new(input: Input<'a>, dialect: &'static str) -> Self {
        LineSink {
            input,
            parsed: Parsed {
                format: "stdio",
                dialect,
                ..Default::default()
            },
            half: None,
            bad_ts: 0,
            last_key: None,
        }
    }

    /// Problems will name `file`, one half of a per-direction pair.
    pub(crate) fn for_half(mut self, file: String) -> Self {
        self.half = Some(file);
        self
    }

    /// The place of a problem at `line` (`None`: about the input as a
    /// whole).
    fn place(&self, line: Option<u64>) -> Option<Place> {
        match &self.half {
            Some(file) => Some(Place::Half {
                file: file.clone(),
                line,
            }),
            None => line.map(Place::Line),
        }
    }

    /// The input being read (its name is the session key of most dialects).
    pub(crate) fn input(&self) -> Input<'a> {
        self.input
    }

    /// Byte offset of `part` (a slice of the input text) in the input.
    fn offset_of(&self, part: &str) -> u64 {
        let base = self.input.text.as_ptr() as usize;
        (part.as_ptr() as usize)
            .checked_sub(base)
            .filter(|o| *o <= self.input.text.len())
            .unwrap_or(0) as u64
    }

    fn prov(&self, line: u64, part: &str) -> Provenance {
        Provenance {
            file: self.input.file,
            location: Location::line(line),
            offset: self.offset_of(part),
            len: u32::try_from(part.len()).unwrap_or(u32::MAX),
        }
    }

    /// A frame whose payload text is `part` (a slice of the input).
    pub(crate) fn frame(&mut self, at: At<'_>, part: &str, payload: Payload) {
        self.frame_timed(at, part, payload, None);
    }

    /// A frame with the latency the log states for it (µs; FORMATS.md §8.1
    /// "Stated durations win").
    pub(crate) fn frame_timed(
        &mut self,
        at: At<'_>,
        part: &str,
        payload: Payload,
        stated_latency: Option<Micros>,
    ) {
        let prov = self.prov(at.line, part);
        let key = match &self.last_key {
            Some(k) if **k == *at.key => k.clone(),
            _ => {
                let k: Arc<str> = at.key.into();
                self.last_key = Some(k.clone());
                k
            }
        };
        self.parsed.records.push(Record::Frame(Frame {
            key,
            split: at.split,
            direction: at.direction,
            ts: at.ts,
            stated_latency,
            event_id: None,
            prov,
            payload,
            http: None,
        }));
    }

    /// How many records were collected so far (the index the next one gets).
    pub(crate) fn records_len(&self) -> usize {
        self.parsed.records.len()
    }

    /// Record `i`'s frame, to correct what a later line showed (the side an
    /// unknown direction name stands for).
    pub(crate) fn frame_mut(&mut self, i: usize) -> Option<&mut Frame> {
        match self.parsed.records.get_mut(i) {
            Some(Record::Frame(f)) => Some(f),
            _ => None,
        }
    }

    /// A recorder payload (tagged, arrows, NDJSON): exactly one JSON object
    /// or array, else `non_json_line` (FORMATS.md §8.1 "Payload").
    pub(crate) fn exact(&mut self, at: At<'_>, text: &str) {
        let part = text.trim_matches([' ', '\t', '\r', '\n']);
        let payload = parse_payload(part).unwrap_or(Payload::NonJson);
        self.frame(at, part, payload);
    }

    /// A host payload (Claude, VS Code, Cursor): the first JSON value after
    /// the marker; the rest of the line is dropped (FORMATS.md §8.1
    /// "Payload").
    pub(crate) fn host(&mut self, at: At<'_>, text: &str) {
        let start = text.trim_start_matches([' ', '\t']);
        match first_value_len(start).and_then(|n| start.get(..n)) {
            Some(value) => {
                let payload = parse_payload(value).unwrap_or(Payload::NonJson);
                self.frame(at, value, payload);
            }
            None => self.frame(at, trim_host_suffix(start), Payload::NonJson),
        }
    }

    /// A `non_json_line` whose evidence is `part`.
    pub(crate) fn non_json(&mut self, at: At<'_>, part: &str) {
        self.frame(at, part, Payload::NonJson);
    }

    /// A message the log shows was sent but prints without the parts that
    /// pair it (an error reply without its id, a reply the tool sent and did
    /// not log): a capture gap at `part` (FORMATS.md §8.3.6; DESIGN.md
    /// rule 12). It carries no message; the analysis lets it explain one
    /// `missing_response` of a request sent the other way before it.
    pub(crate) fn lost(&mut self, at: At<'_>, part: &str) {
        self.frame(at, part, Payload::Lost);
    }

    /// A process-start line (FORMATS.md §8.1 "Sessions"): a marker record;
    /// the line also counts as a non-traffic line.
    pub(crate) fn process_start(&mut self, key: &str, line: &Line<'_>) {
        let prov = self.prov(line.number, line.text);
        self.parsed.records.push(Record::ProcessStart {
            key: key.into(),
            prov,
        });
        self.other();
    }

    /// A line that is not traffic (stderr, lifecycle, banners).
    pub(crate) fn other(&mut self) {
        self.parsed.other_lines += 1;
    }

    /// Something read as it should be that the user should know of (a
    /// capture gap the reader worked around): shown as a notice, never
    /// counted as a problem.
    pub(crate) fn notice(&mut self, line: u64, msg: &str) {
        let e = Diagnostic::new(self.place(Some(line)), msg).notice();
        self.parsed.errors.push(e);
    }

    /// A recoverable problem worth telling the user.
    pub(crate) fn error(&mut self, line: u64, msg: &str) {
        let e = Diagnostic::new(self.place(Some(line)), msg);
        self.parsed.errors.push(e);
    }

    /// Reads a timestamp matched by the grammar; a date chrono rejects
    /// (`2025-13-45`) leaves the line without a time and is reported (the
    /// first such line by number, the rest as a count).
    pub(crate) fn ts(&mut self, line: u64, text: &str) -> Option<Micros> {
        let v = parse_iso(text);
        if v.is_none() {
            self.bad_ts += 1;
            if self.bad_ts == 1 {
                self.error(
                    line,
                    &format!(
                        "timestamp \"{}\" is not a valid time; the line has none",
                        escape(text, 40)
                    ),
                );
            }
        }
        v
    }

    /// The input holds one side of the conversation only (a log of what
    /// one peer wrote): nothing is paired (DESIGN.md rule 12).
    pub(crate) fn one_direction(&mut self) {
        self.parsed.one_direction = true;
    }

    /// Sets the dialect name (Cursor files read by the VS Code parser).
    pub(crate) fn set_dialect(&mut self, name: &'static str) {
        self.parsed.dialect = name;
    }

    /// The collected result.
    pub(crate) fn finish(mut self) -> Parsed {
        if self.bad_ts > 1 {
            let e = Diagnostic::new(
                self.place(None),
                format!("{} more lines with unreadable timestamps", self.bad_ts - 1),
            );
            self.parsed.errors.push(e);
        }
        self.parsed
    }
}

//! Capture gaps as data (DESIGN.md rule 12): what each capture could not
//! hold, where, so that `summary.json` lists it per input and a reader of
//! the findings sees why some are only `info`.
//!
//! A gap is recorded once per place: a HAR entry whose response body was
//! not kept is one gap however many frames point at it.

use std::collections::BTreeMap;

use foldhash::{HashSet, HashSetExt};
use serde::Serialize;

use crate::record::Location;

/// What a capture lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GapKind {
    /// A HAR POST whose body was not kept (no `postData`, no `text`, or
    /// only `postData.params` that do not rebuild the JSON).
    RequestBodyLost,
    /// A HAR entry whose response was not kept: no `response` object, or
    /// a status with a body HTTP has but no `text` (a stream open or
    /// aborted at export).
    ResponseBodyLost,
    /// A HAR entry whose `time` closed at the response headers while its
    /// event stream went on (`timings.receive` 0, FORMATS.md §4.2): no
    /// bound on its events' times, so their latencies are unknown.
    TimeUnbounded,
    /// A line log's reply printed without its id, or sent and not logged
    /// (FORMATS.md §8.3.6), or a message cut off at the end of the file.
    ReplyLost,
    /// A log that prints no reply bodies (mcp-remote's plain stderr,
    /// FORMATS.md §8.3.9): which request a reply answered is unknown.
    NoReplyBodies,
    /// A capture of one direction only (raw SSE): nothing can pair.
    OneSided,
    /// A line log that starts mid-session: its first message is no session
    /// start and the log shows traffic of the part it does not hold, or
    /// its first line is the tail of a message cut off (DESIGN.md rule 12).
    StartMissing,
    /// A line log whose newest file given is a rotated one (`app.log.1`
    /// without `app.log`): the log goes on in a file not given, so a
    /// request pending at its end may be answered there (DESIGN.md rule
    /// 12).
    EndMissing,
}

impl GapKind {
    /// Every kind, in the order the terminal lists them.
    pub const ALL: [GapKind; 8] = [
        GapKind::RequestBodyLost,
        GapKind::ResponseBodyLost,
        GapKind::TimeUnbounded,
        GapKind::ReplyLost,
        GapKind::NoReplyBodies,
        GapKind::OneSided,
        GapKind::StartMissing,
        GapKind::EndMissing,
    ];

    /// Name in `summary.json` `inputs[].gaps`.
    pub fn name(self) -> &'static str {
        match self {
            GapKind::RequestBodyLost => "request_body_lost",
            GapKind::ResponseBodyLost => "response_body_lost",
            GapKind::TimeUnbounded => "time_unbounded",
            GapKind::ReplyLost => "reply_lost",
            GapKind::NoReplyBodies => "no_reply_bodies",
            GapKind::OneSided => "one_sided",
            GapKind::StartMissing => "start_missing",
            GapKind::EndMissing => "end_missing",
        }
    }

    /// What it is, for a person (the terminal summary).
    pub fn what(self) -> &'static str {
        match self {
            GapKind::RequestBodyLost => "request bodies not kept",
            GapKind::ResponseBodyLost => "responses not kept (streams open or aborted at export)",
            GapKind::TimeUnbounded => "entry times that end before their event streams",
            GapKind::ReplyLost => {
                "replies whose id the log lost (printed without it, not logged, or cut off)"
            }
            GapKind::NoReplyBodies => "a log that prints no reply bodies",
            GapKind::OneSided => "a capture of one direction only",
            GapKind::StartMissing => "a log that starts mid-session (its beginning not held)",
            GapKind::EndMissing => {
                "a log whose end was not held (a rotated file whose newer files were not given, or a file that ends inside a line)"
            }
        }
    }
}

/// One gap: its kind, where (`None`: the whole capture), and the file id
/// of the frame that showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// What was lost.
    pub kind: GapKind,
    /// Where: a HAR entry or a line; `None` for the whole capture.
    pub location: Option<Location>,
    /// File id (`Provenance::file`).
    pub file: u32,
}

/// The gaps of one session, each place once.
#[derive(Debug, Default)]
pub struct Recorder {
    gaps: Vec<Gap>,
    seen: HashSet<(GapKind, Option<u64>, Option<u64>, u32)>,
}

impl Recorder {
    /// Records gap `kind` at `location` of file `file`, unless it is there
    /// already.
    pub fn add(&mut self, kind: GapKind, location: Option<Location>, file: u32) {
        let place = location.map(|l| match l.entry {
            // An entry is one place, whatever event of it showed the gap.
            Some(e) => Location::entry(e, None),
            None => l,
        });
        let key = (
            kind,
            place.and_then(|l| l.entry),
            place.and_then(|l| l.line),
            file,
        );
        if self.seen.insert(key) {
            self.gaps.push(Gap {
                kind,
                location: place,
                file,
            });
        }
    }

    /// The gaps, in the order they were met.
    pub fn finish(self) -> Vec<Gap> {
        self.gaps
    }
}

/// Places listed per kind in `summary.json` (the count is always exact).
pub const LISTED: usize = 20;

/// `summary.json` `inputs[].gaps.<kind>`: how many places, and the
/// [`LISTED`] first of them in file order (HAR entries or lines).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GapSummary {
    /// Places of this kind (1 for a whole-capture gap).
    pub count: u64,
    /// The first HAR entries (0-based), ascending.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<u64>,
    /// The first lines (1-based), ascending.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u64>,
}

/// Per kind name, the gaps of `gaps` (one input's sessions).
pub fn summarize<'g>(
    gaps: impl IntoIterator<Item = &'g Gap>,
) -> BTreeMap<&'static str, GapSummary> {
    let mut out: BTreeMap<&'static str, GapSummary> = BTreeMap::new();
    let mut seen = HashSet::new();
    for g in gaps {
        // Two sessions of one input may meet one entry (a HAR entry per key).
        let key = (
            g.kind,
            g.location.and_then(|l| l.entry),
            g.location.and_then(|l| l.line),
            g.file,
        );
        if !seen.insert(key) {
            continue;
        }
        let s = out.entry(g.kind.name()).or_default();
        s.count += 1;
        if let Some(l) = g.location {
            if let Some(e) = l.entry {
                s.entries.push(e);
            } else if let Some(n) = l.line {
                s.lines.push(n);
            }
        }
    }
    for s in out.values_mut() {
        for v in [&mut s.entries, &mut s.lines] {
            v.sort_unstable();
            v.truncate(LISTED);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_place_once_and_listed_in_order() {
        let mut r = Recorder::default();
        let at = |e: u64, ev: Option<u64>| Some(Location::entry(e, ev));
        r.add(GapKind::TimeUnbounded, at(3, Some(1)), 0);
        r.add(GapKind::TimeUnbounded, at(3, Some(2)), 0);
        r.add(GapKind::TimeUnbounded, at(1, None), 0);
        r.add(GapKind::ReplyLost, Some(Location::line(40)), 0);
        r.add(GapKind::OneSided, None, 0);
        r.add(GapKind::OneSided, None, 0);
        let gaps = r.finish();
        assert_eq!(gaps.len(), 4);
        let s = summarize(&gaps);
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({
                "one_sided": {"count": 1},
                "reply_lost": {"count": 1, "lines": [40]},
                "time_unbounded": {"count": 2, "entries": [1, 3]},
            })
        );
    }
}

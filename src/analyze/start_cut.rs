//! The `start_missing` capture gap (DESIGN.md rule 12): a line log whose
//! beginning the capture does not hold (today's file of a rotated log, a
//! file that starts inside a message cut by size-based rotation). A child
//! of [`super`] (the engine): the walker feeds it every frame, request and
//! unknown answer, and asks it at the end which `unknown_id_response` and
//! `unknown_progress_token` findings the missing start explains.
//!
//! The rule, exactly (DESIGN.md catalogue and rule 12): a session read
//! from a line log (no HTTP, both directions) whose log shows no
//! process-start line before it *may start mid-session* when its first
//! message is no session start, that is neither a request
//! `initialize` or `server/discover` nor a request whose `_meta` names
//! revision 2026-07-28 (a stateless request needs nothing before it), nor
//! a batch holding one. Then, and only then:
//!
//! - an `unknown_id_response` is explained when no request sent the other
//!   way anywhere in the session has its id (an id requested later is a
//!   real mismatch), it is the session's first answer with that id (one
//!   lost request, one answer), the placeholder rule did not take it, and,
//!   when the id is an integer and the requester's first request in the
//!   log had an integer id, it is below that id (clients count their ids
//!   up: a request sent before the log began has a smaller one);
//! - an `unknown_progress_token` is explained when it comes before the
//!   requester's first request that names a progress token, or before an
//!   answer this rule explained, sent the same way (progress stops at its
//!   request's answer).
//!
//! The gap is listed (`inputs[].gaps.start_missing`, at the first
//! message's line) when it explains a finding, and always when the first
//! message is lost (a first line cut by rotation): the log then shows by
//! itself that something came before.

use crate::analyze::findings::{Finding, FindingKind as K};
use crate::record::{Direction, Frame, Id, Kind, Location, Member, Message, Payload};

/// What the walker keeps for the rule: a few ids and places per session.
#[derive(Debug, Default)]
pub(super) struct StartCut {
    /// Frames seen, in walk order: the place of each judged message.
    seq: u64,
    /// The first message has been seen.
    opened: bool,
    /// The first message when it is no session start: its file id, place,
    /// and whether it is lost (a first line cut by rotation).
    first: Option<(u32, Location, bool)>,
    /// Per requester direction ([`index`]): the id of its first request.
    first_id: [Option<Id>; 2],
    /// Per requester direction: when it first named a progress token.
    first_token: [Option<u64>; 2],
    /// Unknown-id answers met after a first message that is no start:
    /// (finding index, direction sent, id, when).
    unknown: Vec<(usize, Direction, Id, u64)>,
    /// Per direction sent: when the last answer this rule explained came.
    explained_until: [Option<u64>; 2],
    /// Indexes of the findings the rule explained.
    explained: Vec<usize>,
}

/// What the rule found (`StartCut::gap`): the gap's place and the findings it
/// explains, for the pipeline to name the file in their details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartGap {
    /// File id of the first message.
    pub file: u32,
    /// Its place (a line).
    pub location: Location,
    /// The first message is lost: the file starts inside a message.
    pub lost: bool,
    /// Indexes into the session's findings of those the gap explains.
    pub findings: Vec<usize>,
}

fn index(d: Direction) -> usize {
    match d {
        Direction::C2s => 0,
        Direction::S2c => 1,
    }
}

/// Whether message `m` may open a session (nothing needed before it).
fn opens(m: &Message) -> bool {
    m.kind == Kind::Request
        && (matches!(m.method.as_deref(), Some("initialize" | "server/discover"))
            || m.offered() == Some(super::MODERN))
}

impl StartCut {
    /// The log shows the session's start (a process-start line before its
    /// first frame): whatever its first message, it is no cut.
    pub(super) fn held(&mut self) {
        self.opened = true;
    }

    /// Takes the next frame of a two-sided session; returns whether it is
    /// the session's first message and lost (a first line cut by rotation:
    /// it is this gap, not a reply the log lost).
    pub(super) fn frame(&mut self, f: &Frame) -> bool {
        self.seq += 1;
        if self.opened {
            return false;
        }
        let start = match &f.payload {
            Payload::Single(m) => opens(m),
            Payload::Batch(ms) => ms
                .iter()
                .any(|m| matches!(m, Member::Message(m) if opens(m))),
            Payload::Lost => false,
            _ => return false,
        };
        self.opened = true;
        if f.http.is_some() || start {
            return false;
        }
        let lost = matches!(f.payload, Payload::Lost);
        self.first = Some((f.prov.file, f.prov.location, lost));
        lost
    }

    /// The frame being read is a request `m` sent in `d`.
    pub(super) fn request(&mut self, d: Direction, m: &Message) {
        let i = index(d);
        if self.first_id[i].is_none() {
            self.first_id[i] = Some(m.id.clone());
        }
        if self.first_token[i].is_none() && m.progress_token().is_some() {
            self.first_token[i] = Some(self.seq);
        }
    }

    /// Finding `at` is an `unknown_id_response` with id `id` sent in `d`.
    pub(super) fn unknown_answer(&mut self, at: usize, d: Direction, id: &Id) {
        if self.first.is_some() {
            self.unknown.push((at, d, id.clone(), self.seq));
        }
    }

    /// When the frame being read came (for [`StartCut::progress`]).
    pub(super) fn now(&self) -> u64 {
        self.seq
    }

    /// Marks the `unknown_id_response` findings the missing start explains
    /// (`gap`); `requested(d, id)`: a request with this id was sent in `d`
    /// somewhere in the session. Call before [`StartCut::progress`].
    pub(super) fn explain(
        &mut self,
        findings: &mut [Finding],
        requested: impl Fn(Direction, &Id) -> bool,
    ) {
        let mut seen: Vec<(Direction, Id)> = Vec::new();
        for (at, d, id, when) in std::mem::take(&mut self.unknown) {
            let first = seen.iter().all(|(sd, sid)| *sd != d || !sid.strict_eq(&id));
            seen.push((d, id.clone()));
            let below = match (&id, &self.first_id[index(d.other())]) {
                (Id::Int(v), Some(Id::Int(first))) => v < first,
                _ => true,
            };
            let f = &mut findings[at];
            // A finding another gap explains already keeps that reason.
            let open = f.kind == K::UnknownIdResponse && !f.gap;
            if open && first && below && !requested(d.other(), &id) {
                f.gap = true;
                self.explained.push(at);
                let last = &mut self.explained_until[index(d)];
                *last = (*last).max(Some(when));
            }
        }
    }

    /// Marks `found`, an `unknown_progress_token` sent in `d` at `when`
    /// that is to be finding `at`, when the missing start explains it:
    /// it came before the requester's first request naming a token, or
    /// before an answer the rule explained, sent the same way.
    pub(super) fn progress(&mut self, found: &mut Finding, d: Direction, when: u64, at: usize) {
        if self.first.is_some()
            && !found.gap
            && (self.first_token[index(d.other())].is_none_or(|t| when < t)
                || self.explained_until[index(d)].is_some_and(|t| when < t))
        {
            found.gap = true;
            self.explained.push(at);
        }
    }

    /// The gap, when it is one: it explains a finding, or the first
    /// message is lost.
    pub(super) fn gap(&mut self) -> Option<StartGap> {
        let (file, location, lost) = self.first?;
        let findings = std::mem::take(&mut self.explained);
        (lost || !findings.is_empty()).then_some(StartGap {
            file,
            location,
            lost,
            findings,
        })
    }
}

/// What an explained finding's detail gets: the gap named by file and line.
pub fn detail(file: &str, gap: &StartGap) -> String {
    let what = if gap.lost {
        "is the tail of a message cut off by rotation"
    } else {
        "is no session start (no initialize or server/discover)"
    };
    format!(
        "; but the log starts mid-session ({file} {} {what}): the request may be in the part not held, e.g. a rotated-away file (a capture gap)",
        gap.location.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;

    const CALL: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#;
    const ODD: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"q","progress":1}}"#;
    const DONE: &str = r#"{"jsonrpc":"2.0","id":5,"result":{}}"#;

    /// Progress for an unknown token before the log's first request that
    /// names a token is the missing start's; after it, it may be that
    /// request's progress under a wrong token, and stays a warning.
    #[test]
    fn unknown_progress_is_explained_only_before_a_token_is_given() {
        let (f, a) = run(&[(0, "s2c", ODD), (1, "c2s", CALL), (2, "s2c", DONE)]);
        assert_eq!(f, [("unknown_progress_token", "\"q\"".to_string())]);
        assert!(a.findings[0].gap);
        assert!(
            a.sessions[0]
                .gaps
                .iter()
                .any(|g| g.kind == super::super::GapKind::StartMissing)
        );
        let (f, a) = run(&[(0, "c2s", CALL), (1, "s2c", ODD), (2, "s2c", DONE)]);
        assert_eq!(f, [("unknown_progress_token", "\"q\"".to_string())]);
        assert!(!a.findings[0].gap);
        assert!(a.sessions[0].gaps.is_empty());
    }

    /// One lost request, one answer: a second answer with the same unknown
    /// id is not explained; a placeholder error keeps its own kind.
    #[test]
    fn a_second_answer_with_the_same_unknown_id_is_an_error() {
        let three = r#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        let (f, a) = run(&[
            (0, "c2s", CALL),
            (1, "s2c", three),
            (2, "s2c", three),
            (3, "s2c", DONE),
        ]);
        assert_eq!(
            f,
            [
                ("unknown_id_response", "3".to_string()),
                ("unknown_id_response", "3".to_string())
            ]
        );
        let gaps: Vec<bool> = a.findings.iter().map(|x| x.gap).collect();
        assert_eq!(gaps, [true, false]);
        let placeholder =
            r#"{"jsonrpc":"2.0","id":"server-error","error":{"code":-32603,"message":"x"}}"#;
        let (f, a) = run(&[(0, "c2s", CALL), (1, "s2c", placeholder), (2, "s2c", DONE)]);
        assert_eq!(
            f,
            [("placeholder_id_error", "\"server-error\"".to_string())]
        );
        assert!(!a.findings[0].gap);
    }
}

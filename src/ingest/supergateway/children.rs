//! Sessions of supergateway's Streamable HTTP modes (FORMATS.md §8.3.6
//! "Sessions", "One child per session"): the gateway runs one child per
//! stateless POST and one per stateful session, and its log names neither
//! the child of a client message nor the child of a child message. Each
//! child is its own session here, so ids of different children are never
//! judged against each other.
//!
//! - Stateless: every client message logged on arrival (`StreamableHttp →
//!   Child:`) starts a child (`FILE#LINE`); the gateway's own
//!   `(auto-initialize)` request, logged in the same call, is that child's;
//!   its `(initialized)` notification belongs to the child whose
//!   `initialize` reply came last.
//! - Stateful: a client message belongs to the session of the oldest
//!   `SessionAccessCounter.inc() SID, caused by session initialization` /
//!   `… POST request for existing session` line no message has taken yet
//!   (one POST, one line, its messages right after it); a batch's further
//!   messages stay in that session.
//!
//! Child output: a reply goes to the session whose request with its id is
//! pending; a `notifications/progress` to the session whose pending request
//! named its token (else the last that named it, so that a progress after
//! the response still shows); a stateful child request to the session whose
//! client answers its id; anything else to the only session with a request
//! pending, else the session of the last client message (no rule judges
//! those notifications against their session). Where several sessions wait
//! for the same id (or token), the log cannot tell: the one that asked first
//! takes it (stateful: the one the next `Response finished SID` line names,
//! when it is one of them), the choice is not sure, and a candidate request
//! left unanswered at the end carries a capture gap naming that line.

use std::collections::VecDeque;

use super::Shape;
use crate::record::{Kind, LooseKey};

/// The Streamable HTTP mode a log shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// `Running stateless server`: one child per POST.
    Stateless,
    /// `Running stateful server` with `SessionAccessCounter` lines: one
    /// child per session.
    Stateful,
}

/// What attribution needs of one kept line.
pub(super) enum Ev<'a> {
    /// A message the gateway wrote to a child (`made`: its own
    /// auto-initialize / initialized, not the client's).
    Client {
        made: bool,
        line: u64,
        shape: Option<&'a Shape>,
    },
    /// A message (or non-JSON line) a child wrote, at `line`.
    Child { line: u64, shape: Option<&'a Shape> },
    /// `SessionAccessCounter.inc() SID, caused by` a POST.
    Post(&'a str),
    /// `Response finished SID`.
    Finished(&'a str),
    /// Anything else.
    Other,
}

/// The session (index into [`Attributed::names`]) of one kept line.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Pick {
    /// `None`: the line has no session (not a message, or nothing started).
    pub(super) owner: Option<usize>,
    /// `false`: several sessions could own it (a reply or progress whose
    /// id or token several sessions waited for).
    pub(super) sure: bool,
}

/// The sessions of a log and of each of its lines.
pub(super) struct Attributed {
    /// Session keys: SIDs (stateful), `FILE#LINE` (stateless).
    pub(super) names: Vec<String>,
    /// One per event, in order.
    pub(super) picks: Vec<Pick>,
    /// Client requests (event index) never answered whose id a reply
    /// taken by another waiting session also had: (request, that reply's line).
    pub(super) gaps: Vec<(usize, u64)>,
}

struct Pending {
    owner: usize,
    id: LooseKey,
    token: Option<LooseKey>,
    made: bool,
    ev: usize,
}

fn index_of(names: &mut Vec<String>, sid: &str) -> usize {
    names.iter().position(|n| n == sid).unwrap_or_else(|| {
        names.push(sid.to_string());
        names.len() - 1
    })
}

/// The sessions of `evs` (see the module text).
pub(super) fn attribute(mode: Mode, file: &str, evs: &[Ev<'_>]) -> Attributed {
    let mut names = Vec::new();
    let mut picks = vec![Pick::default(); evs.len()];
    client_owners(mode, file, evs, &mut names, &mut picks);
    let mut w = Walk {
        mode,
        evs,
        names: &names,
        pending: Vec::new(),
        had: Vec::new(),
        candidates: Vec::new(),
        init_answered: None,
        latest: None,
    };
    for (i, ev) in evs.iter().enumerate() {
        match ev {
            Ev::Client { made, shape, .. } => w.client(i, *made, *shape, &mut picks),
            Ev::Child { line, shape } => picks[i] = w.child(i, *line, *shape, &picks),
            _ => {}
        }
    }
    let mut gaps: Vec<(usize, u64)> = w
        .candidates
        .iter()
        .filter(|(ev, _)| w.pending.iter().any(|p| p.ev == *ev))
        .copied()
        .collect();
    gaps.sort_unstable();
    gaps.dedup_by_key(|g| g.0);
    Attributed { names, picks, gaps }
}

/// The sessions of the client messages, which do not depend on child output.
fn client_owners(
    mode: Mode,
    file: &str,
    evs: &[Ev<'_>],
    names: &mut Vec<String>,
    picks: &mut [Pick],
) {
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut last: Option<usize> = None;
    for (i, ev) in evs.iter().enumerate() {
        match (mode, ev) {
            (Mode::Stateful, Ev::Post(sid)) => queue.push_back(index_of(names, sid)),
            (Mode::Stateful, Ev::Client { .. }) => {
                last = queue.pop_front().or(last);
                picks[i] = Pick {
                    owner: last,
                    sure: true,
                };
            }
            (Mode::Stateless, Ev::Client { made, line, shape }) => {
                if !made {
                    names.push(format!("{file}#{line}"));
                    last = Some(names.len() - 1);
                }
                // A made notification (`initialized`) is placed by the walk.
                let made_note = *made && shape.is_none_or(|s| s.kind != Kind::Request);
                if !made_note {
                    picks[i] = Pick {
                        owner: last,
                        sure: true,
                    };
                }
            }
            _ => {}
        }
    }
}

/// The walk over child output, in log order.
struct Walk<'e, 'a> {
    mode: Mode,
    evs: &'e [Ev<'a>],
    names: &'e [String],
    pending: Vec<Pending>,
    /// (session, token) of every request that named a progress token.
    had: Vec<(usize, LooseKey)>,
    /// (client request, line) of the requests an ambiguous reply could answer.
    candidates: Vec<(usize, u64)>,
    /// The child whose auto-initialize was answered last (stateless).
    init_answered: Option<usize>,
    /// The session of the last client message.
    latest: Option<usize>,
}

impl Walk<'_, '_> {
    fn client(&mut self, i: usize, made: bool, shape: Option<&Shape>, picks: &mut [Pick]) {
        if made && shape.is_none_or(|s| s.kind != Kind::Request) {
            picks[i] = Pick {
                owner: self.init_answered.or(self.latest),
                sure: true,
            };
        }
        let Some(owner) = picks[i].owner else {
            return;
        };
        self.latest = Some(owner);
        let Some(s) = shape else { return };
        if s.kind != Kind::Request {
            return;
        }
        if let Some(t) = &s.token {
            self.had.push((owner, t.clone()));
        }
        if let Some(id) = &s.id {
            self.pending.push(Pending {
                owner,
                id: id.clone(),
                token: s.token.clone(),
                made,
                ev: i,
            });
        }
    }

    fn child(&mut self, i: usize, line: u64, shape: Option<&Shape>, picks: &[Pick]) -> Pick {
        let sure = |owner| Pick { owner, sure: true };
        match shape {
            Some(Shape {
                kind: Kind::Response,
                id: Some(id),
                ..
            }) => self.reply(i, line, id),
            Some(Shape {
                kind: Kind::Notification,
                progress: true,
                token: Some(t),
                ..
            }) => self.progress(t),
            Some(Shape {
                kind: Kind::Request,
                id: Some(id),
                ..
            }) if self.mode == Mode::Stateful => {
                sure(self.answerer(i, id, picks).or_else(|| self.only_waiting()))
            }
            _ => sure(self.only_waiting()),
        }
    }

    /// The only session with a request pending, else the latest one.
    fn only_waiting(&self) -> Option<usize> {
        let first = self.pending.first().map(|p| p.owner);
        if first.is_some() && self.pending.iter().all(|p| Some(p.owner) == first) {
            first
        } else {
            self.latest
        }
    }

    /// A stateful child request: the session whose client answers its id.
    fn answerer(&self, i: usize, id: &LooseKey, picks: &[Pick]) -> Option<usize> {
        (i + 1..self.evs.len()).find_map(|j| match &self.evs[j] {
            Ev::Client {
                shape:
                    Some(Shape {
                        kind: Kind::Response,
                        id: Some(a),
                        ..
                    }),
                ..
            } if a == id => picks[j].owner,
            _ => None,
        })
    }

    fn reply(&mut self, i: usize, line: u64, id: &LooseKey) -> Pick {
        let waiting: Vec<usize> = (0..self.pending.len())
            .filter(|&k| self.pending[k].id == *id)
            .collect();
        let Some(&first) = waiting.first() else {
            return Pick {
                owner: self.latest,
                sure: true,
            };
        };
        let owner = self.pending[first].owner;
        let one = waiting.iter().all(|&k| self.pending[k].owner == owner);
        let chosen = if one {
            // One session (a duplicate id inside it shows there).
            first
        } else {
            for &k in &waiting {
                self.candidates.push((self.pending[k].ev, line));
            }
            self.finished_next(i, &waiting).unwrap_or(first)
        };
        let p = self.pending.remove(chosen);
        if p.made {
            self.init_answered = Some(p.owner);
        }
        Pick {
            owner: Some(p.owner),
            sure: one,
        }
    }

    /// Stateful: which of `waiting` the next `Response finished SID` line
    /// after event `i` names.
    fn finished_next(&self, i: usize, waiting: &[usize]) -> Option<usize> {
        if self.mode != Mode::Stateful {
            return None;
        }
        self.evs[i + 1..].iter().find_map(|ev| match ev {
            Ev::Finished(sid) => waiting
                .iter()
                .copied()
                .find(|&k| self.names[self.pending[k].owner] == *sid),
            _ => None,
        })
    }

    fn progress(&self, token: &LooseKey) -> Pick {
        let mut owners: Vec<usize> = self
            .pending
            .iter()
            .filter(|p| p.token.as_ref() == Some(token))
            .map(|p| p.owner)
            .collect();
        if owners.is_empty() {
            // None waits: the last session that named it (a progress after
            // its response, which shows there).
            owners.extend(self.had.iter().rev().find(|h| h.1 == *token).map(|h| h.0));
        }
        owners.dedup();
        match owners.first() {
            Some(&o) => Pick {
                owner: Some(o),
                sure: owners.len() == 1,
            },
            None => Pick {
                owner: self.latest,
                sure: true,
            },
        }
    }
}

//! Sessions of mcp-proxy's server mode over SSE (FORMATS.md §8.3.10): one
//! proxy serves several SSE clients at once (one child for all, or one
//! per `--named-server`), each client its own session. A client message
//! names its session (the `Parsed session ID: SID` line of its POST comes
//! right before it); a server message (`Sending message via SSE`) names
//! none, and neither do the lines around it (`sse_starlette.sse` `chunk:`,
//! `mcp.server.lowlevel.server` `Response sent`). Each goes to exactly one
//! session (mcp-proxy does not broadcast):
//!
//! - a reply to the session whose request with its id is pending; where
//!   several sessions wait for that id, to the one whose request's method
//!   the result's shape answers (`content` a `tools/call`, `messages` a
//!   `prompts/get`, …), else the log cannot tell: the one that asked
//!   first takes it (not sure), and a candidate request of another session
//!   left unanswered at the end carries a capture gap naming that reply;
//! - a `notifications/progress` to the session whose pending request named
//!   its token; where several did, to the one whose earlier progress on it
//!   stays below this one's value (MCP: progress MUST increase), else the
//!   one that asked first (not sure); with none pending, the last session
//!   that named the token (a progress after its response shows there);
//! - a server request to the session whose client answers its id;
//! - anything else to the only session with a request pending, else the
//!   session of the last client message.

use crate::record::{Kind, LooseKey};

/// What attribution needs of one traffic line.
#[derive(Debug, Default)]
pub(super) struct Ev<'a> {
    /// 1-based line.
    pub(super) line: u64,
    /// A client message (else a server message).
    pub(super) client: bool,
    /// The session a client message's POST named.
    pub(super) session: Option<&'a str>,
    /// `None`: not readable.
    pub(super) kind: Option<Kind>,
    /// A valid id.
    pub(super) id: Option<LooseKey>,
    /// A request's `_meta.progressToken`, a progress's `progressToken`.
    pub(super) token: Option<LooseKey>,
    /// A progress's `progress` value.
    pub(super) progress: Option<f64>,
    /// A request: its method when it is one [`result_method`] knows; a
    /// response: the method its result's shape answers.
    pub(super) family: Option<&'static str>,
}

/// The method whose result has `key` as a member only it has.
const FAMILIES: [(&str, &str); 9] = [
    ("initialize", "protocolVersion"),
    ("tools/list", "tools"),
    ("tools/call", "content"),
    ("prompts/list", "prompts"),
    ("prompts/get", "messages"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
    ("resources/read", "contents"),
    ("completion/complete", "completion"),
];

/// `method` as [`FAMILIES`] names it.
pub(super) fn method_family(method: &str) -> Option<&'static str> {
    FAMILIES.iter().find(|(m, _)| *m == method).map(|(m, _)| *m)
}

/// The method a result answers, by the one member of [`FAMILIES`] it
/// holds; `None` when it holds none or several.
pub(super) fn result_method(
    result: &serde_json::Map<String, serde_json::Value>,
) -> Option<&'static str> {
    let mut hits = FAMILIES.iter().filter(|(_, k)| result.contains_key(*k));
    match (hits.next(), hits.next()) {
        (Some((m, _)), None) => Some(m),
        _ => None,
    }
}

/// The sessions of a log's traffic lines.
#[derive(Debug, Default)]
pub(super) struct Attributed<'a> {
    /// One per event: its session (`None`: before any session).
    pub(super) owners: Vec<Option<&'a str>>,
    /// The first line of a server message no session was certain of, and
    /// how many there were.
    pub(super) unsure: Option<(u64, usize)>,
    /// Client requests (event index) never answered whose id a reply
    /// counted in another waiting session also had: (request, that
    /// reply's line).
    pub(super) gaps: Vec<(usize, u64)>,
}

struct Pending<'a> {
    session: &'a str,
    id: LooseKey,
    token: Option<LooseKey>,
    family: Option<&'static str>,
    ev: usize,
}

#[derive(Default)]
struct Walk<'a> {
    pending: Vec<Pending<'a>>,
    /// (session, token) of every request that named a progress token.
    had: Vec<(&'a str, LooseKey)>,
    /// (session, token, value) of the last progress counted there.
    last_progress: Vec<(&'a str, LooseKey, f64)>,
    /// The session of the last client message.
    latest: Option<&'a str>,
    /// (client request, line) of the requests an ambiguous reply could answer.
    candidates: Vec<(usize, u64)>,
}

/// The sessions of `evs` (see the module text).
pub(super) fn attribute<'a>(evs: &[Ev<'a>]) -> Attributed<'a> {
    let mut w = Walk::default();
    let mut out = Attributed::default();
    for (i, ev) in evs.iter().enumerate() {
        let (owner, sure) = if ev.client {
            (w.client(i, ev), true)
        } else {
            w.server(i, ev, evs)
        };
        if !sure {
            out.unsure.get_or_insert((ev.line, 0)).1 += 1;
        }
        out.owners.push(owner);
    }
    out.gaps = w
        .candidates
        .iter()
        .filter(|(ev, _)| w.pending.iter().any(|p| p.ev == *ev))
        .copied()
        .collect();
    out.gaps.sort_unstable();
    out.gaps.dedup_by_key(|g| g.0);
    out
}

impl<'a> Walk<'a> {
    fn client(&mut self, i: usize, ev: &Ev<'a>) -> Option<&'a str> {
        let s = ev.session?;
        self.latest = Some(s);
        if ev.kind == Some(Kind::Request) {
            if let Some(t) = &ev.token {
                self.had.push((s, t.clone()));
                self.last_progress
                    .retain(|(ps, pt, _)| !(*ps == s && pt == t));
            }
            if let Some(id) = &ev.id {
                self.pending.push(Pending {
                    session: s,
                    id: id.clone(),
                    token: ev.token.clone(),
                    family: ev.family,
                    ev: i,
                });
            }
        }
        Some(s)
    }

    /// A server message's session and whether the log makes it certain.
    fn server(&mut self, i: usize, ev: &Ev<'a>, evs: &[Ev<'a>]) -> (Option<&'a str>, bool) {
        match (ev.kind, &ev.id, &ev.token) {
            (Some(Kind::Response), Some(id), _) => self.reply(ev, id),
            (Some(Kind::Notification), _, Some(t)) => self.progress(ev, t),
            (Some(Kind::Request), Some(id), _) => {
                let answerer = evs[i + 1..].iter().find_map(|e| {
                    (e.client && e.kind == Some(Kind::Response) && e.id.as_ref() == Some(id))
                        .then_some(e.session)
                        .flatten()
                });
                (answerer.or_else(|| self.only_waiting()), true)
            }
            _ => (self.only_waiting(), true),
        }
    }

    /// The only session with a request pending, else the latest one.
    fn only_waiting(&self) -> Option<&'a str> {
        let first = self.pending.first().map(|p| p.session);
        if first.is_some() && self.pending.iter().all(|p| Some(p.session) == first) {
            first
        } else {
            self.latest
        }
    }

    fn reply(&mut self, ev: &Ev<'a>, id: &LooseKey) -> (Option<&'a str>, bool) {
        let waiting: Vec<usize> = (0..self.pending.len())
            .filter(|&k| self.pending[k].id == *id)
            .collect();
        let Some(&first) = waiting.first() else {
            return (self.latest, true);
        };
        let one_session = |ks: &[usize]| {
            ks.iter()
                .all(|&k| self.pending[k].session == self.pending[ks[0]].session)
        };
        let fits: Vec<usize> = waiting
            .iter()
            .copied()
            .filter(|&k| match (self.pending[k].family, ev.family) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            })
            .collect();
        let (chosen, sure) = if one_session(&waiting) {
            (first, true)
        } else if !fits.is_empty() && one_session(&fits) {
            (fits[0], true)
        } else {
            for &k in &waiting {
                self.candidates.push((self.pending[k].ev, ev.line));
            }
            (fits.first().copied().unwrap_or(first), false)
        };
        (Some(self.pending.remove(chosen).session), sure)
    }

    fn progress(&mut self, ev: &Ev<'a>, token: &LooseKey) -> (Option<&'a str>, bool) {
        let mut owners: Vec<&'a str> = Vec::new();
        for p in &self.pending {
            if p.token.as_ref() == Some(token) && !owners.contains(&p.session) {
                owners.push(p.session);
            }
        }
        if owners.is_empty() {
            // None waits: the last session that named it (a progress after
            // its response, which shows there).
            let last = self.had.iter().rev().find(|h| h.1 == *token).map(|h| h.0);
            return (last.or(self.latest), true);
        }
        // Progress MUST increase: a session whose last progress on this
        // token is not below this one's cannot be its owner.
        let below = |s: &&'a str| match ev.progress {
            Some(v) => !self
                .last_progress
                .iter()
                .any(|(ps, pt, pv)| ps == s && pt == token && *pv >= v),
            None => true,
        };
        let fits: Vec<&'a str> = owners.iter().copied().filter(below).collect();
        let (owner, sure) = match fits.as_slice() {
            [one] => (*one, true),
            [first, ..] => (*first, false),
            [] => (owners[0], owners.len() == 1),
        };
        if let Some(v) = ev.progress {
            self.last_progress
                .retain(|(ps, pt, _)| !(*ps == owner && pt == token));
            self.last_progress.push((owner, token.clone(), v));
        }
        (Some(owner), sure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client<'a>(line: u64, s: &'a str, kind: Kind, id: Option<i128>) -> Ev<'a> {
        Ev {
            line,
            client: true,
            session: Some(s),
            kind: Some(kind),
            id: id.map(LooseKey::Int),
            ..Default::default()
        }
    }

    fn server<'a>(line: u64, kind: Kind, id: Option<i128>) -> Ev<'a> {
        Ev {
            line,
            kind: Some(kind),
            id: id.map(LooseKey::Int),
            ..Default::default()
        }
    }

    #[test]
    fn replies_go_to_the_waiting_session() {
        let evs = vec![
            client(1, "A", Kind::Request, Some(1)),
            client(2, "B", Kind::Request, Some(2)),
            server(3, Kind::Response, Some(2)),
            server(4, Kind::Response, Some(1)),
        ];
        let a = attribute(&evs);
        assert_eq!(a.owners, vec![Some("A"), Some("B"), Some("B"), Some("A")]);
        assert_eq!((a.unsure, a.gaps.len()), (None, 0));
    }

    #[test]
    fn the_result_shape_tells_two_waiting_sessions_apart() {
        // Both wait for id 9: A a tools/call, B a prompts/get; the first
        // reply's `messages` answers B's.
        let mut a9 = client(1, "A", Kind::Request, Some(9));
        a9.family = method_family("tools/call");
        let mut b9 = client(2, "B", Kind::Request, Some(9));
        b9.family = method_family("prompts/get");
        let mut r1 = server(3, Kind::Response, Some(9));
        r1.family = Some("prompts/get");
        let r2 = server(4, Kind::Response, Some(9));
        let a = attribute(&[a9, b9, r1, r2]);
        assert_eq!(a.owners[2..], [Some("B"), Some("A")]);
        assert_eq!(a.unsure, None);
    }

    #[test]
    fn same_requests_in_two_sessions_cannot_be_told_apart() {
        // Both wait for id 12 with the same method: the one that asked
        // first takes the reply, not sure; B's request never answered
        // carries the gap.
        let evs = vec![
            client(1, "A", Kind::Request, Some(12)),
            client(2, "B", Kind::Request, Some(12)),
            server(3, Kind::Response, Some(12)),
        ];
        let a = attribute(&evs);
        assert_eq!(a.owners[2], Some("A"));
        assert_eq!((a.unsure, a.gaps), (Some((3, 1)), vec![(1, 3)]));
    }

    #[test]
    fn progress_goes_where_it_still_increases() {
        let mut a = client(1, "A", Kind::Request, Some(9));
        a.token = Some(LooseKey::Int(9));
        let mut b = client(2, "B", Kind::Request, Some(9));
        b.token = Some(LooseKey::Int(9));
        let p = |line, v| Ev {
            line,
            kind: Some(Kind::Notification),
            token: Some(LooseKey::Int(9)),
            progress: Some(v),
            ..Default::default()
        };
        // A's 1 (only A waits yet), then 2 (either), 1 (not A's: A is at
        // 2), 3 (either), 2 (not A's).
        let evs = vec![a, p(2, 1.0), b, p(4, 2.0), p(5, 1.0), p(6, 3.0), p(7, 2.0)];
        let got = attribute(&evs);
        assert_eq!(
            got.owners,
            vec![
                Some("A"),
                Some("A"),
                Some("B"),
                Some("A"),
                Some("B"),
                Some("A"),
                Some("B")
            ]
        );
        assert_eq!(got.unsure, Some((4, 2)));
    }

    #[test]
    fn server_requests_go_to_the_answering_client() {
        let evs = vec![
            client(1, "A", Kind::Request, Some(1)),
            client(2, "B", Kind::Request, Some(1)),
            server(3, Kind::Request, Some(0)),
            client(4, "B", Kind::Response, Some(0)),
        ];
        assert_eq!(attribute(&evs).owners[2], Some("B"));
    }

    #[test]
    fn result_shapes() {
        let obj = |j: &str| serde_json::from_str::<serde_json::Value>(j).unwrap();
        let m = |j: &str| result_method(obj(j).as_object().unwrap());
        assert_eq!(m(r#"{"content":[],"isError":false}"#), Some("tools/call"));
        assert_eq!(
            m(r#"{"messages":[],"description":"x"}"#),
            Some("prompts/get")
        );
        assert_eq!(m(r#"{}"#), None);
        assert_eq!(m(r#"{"content":[],"messages":[]}"#), None);
        assert_eq!(method_family("ping"), None);
    }
}

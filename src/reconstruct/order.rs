//! Causal order inside a session (DESIGN.md rule 4).
//!
//! Line logs keep line order, with one exception (FORMATS.md §8.1
//! "Order"): a request written after a response that answers it, with the
//! same timestamp, is read just before that response.
//!
//! HAR frames are ordered by time: a POST body at `startedDateTime`, its
//! response body at `startedDateTime + time`, ties by entry index, request
//! before response, then position. A response-body frame only lies
//! somewhere inside its body's window, so it is placed where causality puts
//! it: after the request it answers (a legacy GET stream whose `time`
//! closed at the headers), and before the POST that answers a server
//! request it carries (sampling on a GET stream). Frames so placed are
//! marked `moved`: a latency that depends on them is unknown.

use foldhash::{HashMap, HashMapExt};

use crate::record::{Direction, Frame, Kind, LooseKey, Member, Message, Micros, Payload};

/// Orders a session's frames in place.
pub fn order_session(s: &mut super::Session) {
    if s.frames.iter().any(|f| f.http.is_some()) {
        order_http(s);
    } else {
        order_lines(s);
    }
}

/// The messages of a frame, in order (no allocation).
pub fn messages(f: &Frame) -> impl Iterator<Item = &Message> {
    let (single, batch): (Option<&Message>, &[Member]) = match &f.payload {
        Payload::Single(m) => (Some(m), &[]),
        Payload::Batch(ms) => (None, ms),
        _ => (None, &[]),
    };
    single
        .into_iter()
        .chain(batch.iter().filter_map(|m| match m {
            Member::Message(m) => Some(m),
            Member::NotObject => None,
        }))
}

fn loose_of(m: &Message) -> Option<LooseKey> {
    m.id.loose()
}

fn order_lines(s: &mut super::Session) {
    let mut order = LineOrder::default();
    let mut out = Vec::with_capacity(s.frames.len());
    for f in std::mem::take(&mut s.frames) {
        order.push(f, &mut out);
    }
    order.finish(&mut out);
    s.moved = vec![false; out.len()];
    s.frames = out;
}

/// Incremental line-log order (FORMATS.md §8.1 "Order") for one session:
/// frames go in in line order and come out in causal order. Only frames that
/// share one timestamp are held back (a recorder's same-millisecond race),
/// so memory stays bounded by the longest run of equal timestamps.
#[derive(Default)]
pub struct LineOrder {
    /// (requester direction, loose id) → requests read and not yet answered.
    pending: HashMap<(Direction, LooseKey), usize>,
    /// Frames stamped with the same time, not yet released.
    group: Vec<Frame>,
}

impl LineOrder {
    /// Takes the next frame in line order; releases the frames now known to
    /// be in order into `out`.
    pub fn push(&mut self, f: Frame, out: &mut Vec<Frame>) {
        let same = f.ts.is_some() && self.group.first().is_some_and(|g| g.ts == f.ts);
        if !same {
            self.flush(out);
        }
        if f.ts.is_none() {
            self.release(f, out);
        } else {
            self.group.push(f);
        }
    }

    /// Releases everything held.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        self.flush(out);
    }

    /// Releases the held group: a request written after a response that
    /// answers it is released just before that response.
    fn flush(&mut self, out: &mut Vec<Frame>) {
        if self.group.len() <= 1 {
            // Nothing to reorder (the common case: a time of its own).
            if let Some(f) = self.group.pop() {
                self.release(f, out);
            }
            return;
        }
        let mut group = std::mem::take(&mut self.group);
        let mut was_moved = vec![false; group.len()];
        let mut i = 0;
        while i < group.len() {
            if let Some(d) = group[i].direction {
                let wanted: Vec<LooseKey> = messages(&group[i])
                    .filter(|m| m.kind == Kind::Response)
                    .filter_map(loose_of)
                    .filter(|k| {
                        self.pending
                            .get(&(d.other(), k.clone()))
                            .copied()
                            .unwrap_or(0)
                            == 0
                    })
                    .collect();
                let found = wanted.iter().find_map(|k| {
                    (i + 1..group.len()).find(|&j| {
                        !was_moved[j]
                            && group[j].direction == Some(d.other())
                            && messages(&group[j])
                                .any(|m| m.kind == Kind::Request && loose_of(m).as_ref() == Some(k))
                    })
                });
                if let Some(j) = found {
                    let f = group.remove(j);
                    group.insert(i, f);
                    was_moved.remove(j);
                    was_moved.insert(i, true);
                    continue;
                }
            }
            self.note(&group[i]);
            i += 1;
        }
        out.extend(group);
    }

    fn release(&mut self, f: Frame, out: &mut Vec<Frame>) {
        self.note(&f);
        out.push(f);
    }

    /// Tracks which requests are pending after `f`.
    fn note(&mut self, f: &Frame) {
        let Some(d) = f.direction else { return };
        for m in messages(f) {
            let Some(k) = loose_of(m) else { continue };
            match m.kind {
                Kind::Request => *self.pending.entry((d, k)).or_default() += 1,
                Kind::Response => {
                    let key = (d.other(), k);
                    if let Some(n) = self.pending.get_mut(&key) {
                        *n = n.saturating_sub(1);
                        if *n == 0 {
                            self.pending.remove(&key);
                        }
                    }
                }
                Kind::Notification => {}
            }
        }
    }
}

/// Sort key of an HTTP frame: (time µs, entry, part, stream entry, position).
/// `part` is -1 for a frame pulled before a POST, 0 for a request body, 1
/// for a response-body frame.
type Key = (Micros, u64, i8, u64, u32);

/// Times (µs) and entries of c2s bodies, by the loose ids of the messages
/// in them, each list sorted by time.
type TimesById = HashMap<LooseKey, Vec<(Micros, u64)>>;

/// Orders a HAR session's frames causally (rule 4): each body at its time,
/// then each SSE event of a response body moved inside its stream where
/// causality puts it.
fn order_http(s: &mut super::Session) {
    let (requests_at, answers_at) = c2s_times(s);
    let (mut keys, mut bodies) = initial_keys(s);
    let mut moved = vec![false; s.frames.len()];
    for idx in bodies.values_mut() {
        idx.sort_by_key(|&i| keys[i]);
        let (start, end) = match &s.frames[idx[0]].http {
            Some(h) => (h.start, h.end),
            None => continue,
        };
        let (up, low) = stream_bounds(s, idx, &keys, (start, end), &requests_at, &answers_at);
        let placed = clamp(idx.iter().map(|&i| keys[i]).collect(), &up, &low);
        for (p, &i) in idx.iter().enumerate() {
            if placed[p] != keys[i] {
                moved[i] = true;
                keys[i] = placed[p];
            }
        }
    }
    let mut order: Vec<usize> = (0..s.frames.len()).collect();
    order.sort_by_key(|&i| keys[i]);
    let mut frames: Vec<Option<Frame>> = std::mem::take(&mut s.frames)
        .into_iter()
        .map(Some)
        .collect();
    s.frames = order.iter().filter_map(|&i| frames[i].take()).collect();
    s.moved = order.iter().map(|&i| moved[i]).collect();
}

/// Times of c2s request bodies by the loose ids of the requests they hold,
/// and of c2s bodies that hold responses, by the responses' loose ids.
fn c2s_times(s: &super::Session) -> (TimesById, TimesById) {
    let mut requests_at: TimesById = HashMap::new();
    let mut answers_at: TimesById = HashMap::new();
    for f in &s.frames {
        let (Some(h), Some(Direction::C2s)) = (&f.http, f.direction) else {
            continue;
        };
        for m in messages(f) {
            let Some(k) = loose_of(m) else { continue };
            let slot = match m.kind {
                Kind::Request => &mut requests_at,
                Kind::Response => &mut answers_at,
                Kind::Notification => continue,
            };
            slot.entry(k).or_default().push((h.start, h.entry));
        }
    }
    for v in requests_at.values_mut().chain(answers_at.values_mut()) {
        v.sort();
    }
    (requests_at, answers_at)
}

/// Every frame's key at its own time, and the response-body frames
/// grouped by entry (a body is a stream).
fn initial_keys(s: &super::Session) -> (Vec<Key>, HashMap<u64, Vec<usize>>) {
    let mut keys: Vec<Key> = vec![(0, 0, 0, 0, 0); s.frames.len()];
    let mut bodies: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, f) in s.frames.iter().enumerate() {
        let Some(h) = &f.http else {
            keys[i] = (f.ts.unwrap_or(0), u64::MAX, 1, u64::MAX, i as u32);
            continue;
        };
        if h.is_request_body {
            keys[i] = (h.start, h.entry, 0, h.entry, h.position);
        } else {
            // A frame's own time (an event's, DevTools) or the body's end.
            keys[i] = (f.ts.unwrap_or(h.end), h.entry, 1, h.entry, h.position);
            bodies.entry(h.entry).or_default().push(i);
        }
    }
    (keys, bodies)
}

/// For each frame of one response body (`idx`, in body order, the body's
/// window `start..end`): the upper bound (a server request must precede
/// the POST answering it) and the lower bound (a response must follow the
/// request it answers).
fn stream_bounds(
    s: &super::Session,
    idx: &[usize],
    keys: &[Key],
    (start, _): (Micros, Micros),
    requests_at: &TimesById,
    answers_at: &TimesById,
) -> (Vec<Option<Key>>, Vec<Option<Key>>) {
    let mut up: Vec<Option<Key>> = vec![None; idx.len()];
    let mut low: Vec<Option<Key>> = vec![None; idx.len()];
    for (p, &i) in idx.iter().enumerate() {
        let pos = keys[i].4;
        // The frame's own time: the body's end, or its event's arrival.
        let end = keys[i].0.max(start);
        for m in messages(&s.frames[i]) {
            let Some(k) = loose_of(m) else { continue };
            match m.kind {
                Kind::Request => {
                    if let Some(ans) = answers_at.get(&k) {
                        // `ans` is sorted by time: binary searches keep
                        // a capture that repeats one id linear.
                        // The first answer inside the stream's window
                        // answers it (a later one is then a duplicate).
                        if let Some(&(t, e)) = ans.get(ans.partition_point(|&(t, _)| t < start))
                            && t < end
                        {
                            let cand = (t, e, -1, idx_entry(&s.frames[i]), pos);
                            up[p] = Some(up[p].map_or(cand, |u| u.min(cand)));
                        }
                    }
                }
                Kind::Response => {
                    if let Some(reqs) = requests_at.get(&k) {
                        let before = reqs.first().is_some_and(|&(t, _)| t <= end);
                        if !before && let Some(&(t, e)) = reqs.first() {
                            let cand = (t, e, 1, idx_entry(&s.frames[i]), pos);
                            low[p] = Some(low[p].map_or(cand, |l| l.max(cand)));
                        }
                    }
                }
                Kind::Notification => {}
            }
        }
    }
    (up, low)
}

/// The keys of one body's frames (`placed`, in body order) moved under
/// their bounds: an upper bound holds for every frame before it in the
/// body, a lower bound for every frame after it; positions are kept.
fn clamp(mut placed: Vec<Key>, up: &[Option<Key>], low: &[Option<Key>]) -> Vec<Key> {
    let mut run_up: Option<Key> = None;
    for p in (0..placed.len()).rev() {
        if let Some(u) = up[p] {
            run_up = Some(run_up.map_or(u, |r| r.min(u)));
        }
        if let Some(u) = run_up {
            let u = (u.0, u.1, u.2, u.3, placed[p].4);
            if u < placed[p] {
                placed[p] = u;
            }
        }
    }
    let mut run_low: Option<Key> = None;
    for p in 0..placed.len() {
        if let Some(l) = low[p] {
            run_low = Some(run_low.map_or(l, |r| r.max(l)));
        }
        if let Some(l) = run_low {
            let l = (l.0, l.1, l.2, l.3, placed[p].4);
            if l > placed[p] {
                placed[p] = l;
            }
        }
    }
    placed
}

fn idx_entry(f: &Frame) -> u64 {
    f.http.as_ref().map_or(0, |h| h.entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconstruct::Session;
    use crate::record::jsonrpc::parse_payload;
    use crate::record::{HttpContext, Location, Provenance, Split};

    fn frame(
        line: u64,
        d: Direction,
        ts: Option<Micros>,
        json: &str,
        http: Option<HttpContext>,
    ) -> Frame {
        Frame {
            key: "k".into(),
            split: Split::Never,
            direction: Some(d),
            ts,
            stated_latency: None,
            prov: Provenance {
                file: 0,
                location: Location::line(line),
                offset: 0,
                len: 0,
            },
            payload: parse_payload(json).unwrap(),
            http,
            event_id: None,
        }
    }

    fn session(frames: Vec<Frame>) -> Session {
        let n = frames.len();
        Session {
            name: "k".into(),
            input: 0,
            frames,
            moved: vec![false; n],
            counted: true,
            one_direction: false,
            started: false,
        }
    }

    fn lines_of(s: &Session) -> Vec<u64> {
        s.frames
            .iter()
            .map(|f| f.prov.location.line.unwrap_or(0))
            .collect()
    }

    #[test]
    fn same_millisecond_request_is_read_before_its_response() {
        // The recorder wrote the client's answer (line 2) before the
        // server's roots/list request (line 3), both stamped 1000.
        let mut s = session(vec![
            frame(
                1,
                Direction::C2s,
                Some(900),
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#,
                None,
            ),
            frame(
                2,
                Direction::C2s,
                Some(1000),
                r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
                None,
            ),
            frame(
                3,
                Direction::S2c,
                Some(1000),
                r#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#,
                None,
            ),
            frame(
                4,
                Direction::S2c,
                Some(1100),
                r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
                None,
            ),
        ]);
        order_session(&mut s);
        assert_eq!(lines_of(&s), vec![1, 3, 2, 4]);
    }

    #[test]
    fn different_times_keep_line_order() {
        let mut s = session(vec![
            frame(
                1,
                Direction::C2s,
                Some(1000),
                r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
                None,
            ),
            frame(
                2,
                Direction::S2c,
                Some(1001),
                r#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#,
                None,
            ),
        ]);
        order_session(&mut s);
        assert_eq!(lines_of(&s), vec![1, 2]);
    }

    fn http(entry: u64, req: bool, start: Micros, end: Micros, pos: u32) -> Option<HttpContext> {
        Some(HttpContext {
            entry,
            is_request_body: req,
            method: "POST".into(),
            status: 200,
            stream: true,
            body_empty: false,
            body_has_json: true,
            start,
            end,
            position: pos,
            protocol_header: None,
            legacy: false,
            response_lost: false,
            time_unbounded: false,
            origin_keyed: false,
            headers: None,
        })
    }

    #[test]
    fn server_request_on_a_stream_precedes_the_post_answering_it() {
        // Entry 0: GET stream 0..10_000 carrying sampling request id 1.
        // Entry 1: the client's answer POST at 5_000 (before the GET ends).
        let mut s = session(vec![
            frame(
                10,
                Direction::S2c,
                Some(10_000),
                r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage"}"#,
                http(0, false, 0, 10_000, 0),
            ),
            frame(
                11,
                Direction::C2s,
                Some(5_000),
                r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                http(1, true, 5_000, 5_010, 0),
            ),
        ]);
        order_session(&mut s);
        assert_eq!(lines_of(&s), vec![10, 11]);
        assert_eq!(s.moved, vec![true, false]);
    }

    #[test]
    fn response_on_a_stream_closed_early_follows_its_request() {
        // Entry 0: legacy GET whose `time` closed at 10 µs; it carries the
        // answer to the POST of entry 1 at 5_000.
        let mut s = session(vec![
            frame(
                20,
                Direction::S2c,
                Some(10),
                r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
                http(0, false, 0, 10, 0),
            ),
            frame(
                21,
                Direction::C2s,
                Some(5_000),
                r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
                http(1, true, 5_000, 5_002, 0),
            ),
        ]);
        order_session(&mut s);
        assert_eq!(lines_of(&s), vec![21, 20]);
        assert_eq!(s.moved, vec![false, true]);
    }
}

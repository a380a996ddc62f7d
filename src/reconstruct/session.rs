//! Sessions from session keys (DESIGN.md rule 1; FORMATS.md §8.1).

use foldhash::HashMap;

use crate::record::{Direction, Frame, Kind, Payload, Record, Split};

/// One session: frames of one key between session starts, in causal order.
#[derive(Debug, Clone)]
pub struct Session {
    /// Display name: the key, then `KEY#2`, `KEY#3` … for later sessions
    /// of the same key.
    pub name: String,
    /// Index of the input (its first file for a per-direction pair or a
    /// rotation group).
    pub input: usize,
    /// Frames in causal order (rule 4).
    pub frames: Vec<Frame>,
    /// Per frame: its time was moved by causal placement, so a latency that
    /// depends on it is unknown (rule 4).
    pub moved: Vec<bool>,
    /// Counts as a session: it carries a message or a non-JSON line whose
    /// direction is known. Lines that could not be read at all (an NDJSON
    /// line that is no envelope) name no session of their own.
    pub counted: bool,
    /// The input holds one direction only (raw SSE): no pairing rules.
    pub one_direction: bool,
    /// The log shows its start: it opened at or after its key's
    /// process-start line ([`Splitter::started`]), so it never starts
    /// mid-session (DESIGN.md rule 12, `start_missing`).
    pub started: bool,
}

#[derive(Default)]
struct KeyState {
    current: Option<usize>,
    count: usize,
    has_traffic: bool,
    has_initialize: bool,
    seen_start: bool,
}

fn is_initialize_request(f: &Frame) -> bool {
    f.direction == Some(Direction::C2s)
        && matches!(&f.payload, Payload::Single(m) if m.kind == Kind::Request && m.method.as_deref() == Some("initialize"))
}

/// Incremental session splitting (rule 1): records go in in input order;
/// each frame comes out with the index of the session it belongs to.
///
/// A `ProcessStart` opens a new session for its key when the key's current
/// session already carried traffic; for keys that have shown no
/// process-start line, a client→server `initialize` request outside a batch
/// opens a new session when the current one already holds an `initialize`.
/// `Split::Never` keys are one session.
#[derive(Default)]
pub struct Splitter {
    keys: HashMap<Box<str>, KeyState>,
    /// Names of the sessions opened so far, by index.
    pub names: Vec<String>,
    /// Per session, by index: its key's process-start line came before
    /// its first frame (the log holds the session's start).
    pub started: Vec<bool>,
}

impl Splitter {
    /// Takes one record; returns the frame with its session index, or
    /// `None` for a marker record.
    pub fn push(&mut self, rec: Record) -> Option<(usize, Frame)> {
        match rec {
            Record::ProcessStart { key, .. } => {
                let st = self.keys.entry((*key).into()).or_default();
                st.seen_start = true;
                if st.current.is_some() && st.has_traffic {
                    Self::open(&mut self.names, &mut self.started, st, &key);
                }
                None
            }
            Record::Frame(frame) => {
                // Look the key up before cloning it: a clone only for a new key.
                if !self.keys.contains_key(&*frame.key) {
                    self.keys.insert((*frame.key).into(), KeyState::default());
                }
                let st = self.keys.get_mut(&*frame.key)?;
                let init = is_initialize_request(&frame);
                if st.current.is_none()
                    || (frame.split == Split::ByStart
                        && !st.seen_start
                        && init
                        && st.has_initialize)
                {
                    Self::open(&mut self.names, &mut self.started, st, &frame.key);
                }
                st.has_traffic = true;
                st.has_initialize |= init;
                st.current.map(|i| (i, frame))
            }
        }
    }

    fn open(names: &mut Vec<String>, started: &mut Vec<bool>, st: &mut KeyState, key: &str) {
        started.push(st.seen_start);
        st.count += 1;
        names.push(if st.count == 1 {
            key.to_string()
        } else {
            format!("{key}#{}", st.count)
        });
        st.current = Some(names.len() - 1);
        st.has_traffic = false;
        st.has_initialize = false;
    }
}

/// Splits one input's records into sessions (see [`Splitter`]). Sessions
/// without traffic are dropped. Frames keep record order here;
/// [`super::order`] orders them.
pub fn split_sessions(input: usize, mut records: Vec<Record>) -> Vec<Session> {
    let mut splitter = Splitter::default();
    let mut frames: Vec<Vec<Frame>> = Vec::new();
    // Records are taken front to back (popped from the reversed vector)
    // while its buffer shrinks, so that a large input is not held twice
    // while its frames move into their sessions (issue 5).
    records.reverse();
    while let Some(rec) = records.pop() {
        if records.capacity() > 4096 && records.len() < records.capacity() / 2 {
            records.shrink_to_fit();
        }
        if let Some((i, f)) = splitter.push(rec) {
            if frames.len() <= i {
                frames.resize_with(i + 1, Vec::new);
            }
            frames[i].push(f);
        }
    }
    frames.resize_with(splitter.names.len(), Vec::new);
    splitter
        .names
        .into_iter()
        .zip(splitter.started)
        .zip(frames)
        .filter(|(_, f)| !f.is_empty())
        .map(|((name, started), frames)| Session {
            name,
            input,
            moved: vec![false; frames.len()],
            counted: frames.iter().any(|f| f.direction.is_some()),
            frames,
            one_direction: false,
            started,
        })
        .collect()
}

/// Sessions of every input `(index, records, one_direction)`, each ordered
/// causally (rule 4).
pub fn build_sessions(inputs: Vec<(usize, Vec<Record>, bool)>) -> Vec<Session> {
    use rayon::prelude::*;
    let mut out = Vec::new();
    for (input, records, one_direction) in inputs {
        for mut s in split_sessions(input, records) {
            s.one_direction = one_direction;
            out.push(s);
        }
    }
    // Each session is ordered on its own: in parallel, same result.
    out.par_iter_mut().for_each(super::order::order_session);
    out
}

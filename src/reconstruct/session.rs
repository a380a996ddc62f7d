//! Sessions from session keys (DESIGN.md rule 1; FORMATS.md §8.1).

use std::collections::HashMap;

use crate::record::{Direction, Frame, Kind, Payload, Record, Split};

/// One session: frames of one key between session starts, in causal order.
#[derive(Debug, Clone)]
pub struct Session {
    /// Display name: the key, then `KEY#2`, `KEY#3` … for later sessions
    /// of the same key.
    pub name: String,
    /// Index of the input (its first file for a per-direction pair).
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

/// Splits one input's records into sessions (rule 1): a `ProcessStart`
/// opens a new session for its key when the key's current session already
/// carried traffic; for keys that have shown no process-start line, a
/// client→server `initialize` request outside a batch opens a new session
/// when the current one already holds an `initialize`. `Split::Never` keys
/// are one session. Sessions without traffic are dropped. Frames keep
/// record order here; [`super::order`] orders them.
pub fn split_sessions(input: usize, records: Vec<Record>) -> Vec<Session> {
    let mut sessions: Vec<Session> = Vec::new();
    let mut keys: HashMap<Box<str>, KeyState> = HashMap::new();
    let open = |sessions: &mut Vec<Session>, st: &mut KeyState, key: &str| {
        st.count += 1;
        let name = if st.count == 1 { key.to_string() } else { format!("{key}#{}", st.count) };
        sessions.push(Session { name, input, frames: Vec::new(), moved: Vec::new(), counted: false, one_direction: false });
        st.current = Some(sessions.len() - 1);
        st.has_traffic = false;
        st.has_initialize = false;
    };
    for rec in records {
        match rec {
            Record::ProcessStart { key, .. } => {
                let st = keys.entry(key.clone()).or_default();
                st.seen_start = true;
                if st.current.is_some() && st.has_traffic {
                    open(&mut sessions, st, &key);
                }
            }
            Record::Frame(frame) => {
                let st = keys.entry(frame.key.clone()).or_default();
                let init = is_initialize_request(&frame);
                if st.current.is_none()
                    || (frame.split == Split::ByStart && !st.seen_start && init && st.has_initialize)
                {
                    open(&mut sessions, st, &frame.key);
                }
                st.has_traffic = true;
                st.has_initialize |= init;
                if let Some(i) = st.current {
                    sessions[i].frames.push(frame);
                }
            }
        }
    }
    sessions.retain(|s| !s.frames.is_empty());
    for s in &mut sessions {
        s.moved = vec![false; s.frames.len()];
        s.counted = s.frames.iter().any(|f| f.direction.is_some());
    }
    sessions
}

/// Sessions of every input `(index, records, one_direction)`, each ordered
/// causally (rule 4).
pub fn build_sessions(inputs: Vec<(usize, Vec<Record>, bool)>) -> Vec<Session> {
    let mut out = Vec::new();
    for (input, records, one_direction) in inputs {
        for mut s in split_sessions(input, records) {
            s.one_direction = one_direction;
            super::order::order_session(&mut s);
            out.push(s);
        }
    }
    out
}

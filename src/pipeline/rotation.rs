//! Rotated files of one log read as one stream (DESIGN.md "Scale"): each
//! file is parsed alone, then their records continue one another. What a
//! reader keyed by its file's name is given the group's; a reply a reader
//! could not give to a session, because the request it answers is in an
//! older file, goes to the session that sent that request.

use std::collections::HashMap;
use std::sync::Arc;

use crate::record::id::LooseKey;
use crate::record::{Direction, Kind, Payload, Record};

/// Gives the records keyed by a rotated file's own name the group's name,
/// and those keyed by its name and a bracketed process (mcp-remote's
/// `FILE[PID]`) the group's name with the same brackets: one process's
/// lines in two files of the log are one session.
pub(super) fn rename_file_key(records: &mut [Record], file: &str, group: &str) {
    let mut renamed: Option<(Arc<str>, Arc<str>)> = None;
    for r in records {
        let key = match r {
            Record::Frame(f) => &mut f.key,
            Record::ProcessStart { key, .. } => key,
        };
        if let Some((from, to)) = &renamed
            && Arc::ptr_eq(key, from)
        {
            *key = to.clone();
            continue;
        }
        let new: Arc<str> = if &**key == file {
            group.into()
        } else if let Some(rest) = key.strip_prefix(file)
            && rest.starts_with('[')
            && rest.ends_with(']')
        {
            format!("{group}{rest}").into()
        } else {
            continue;
        };
        renamed = Some((key.clone(), new.clone()));
        *key = new;
    }
}

/// The ids of the requests still open at the end of `records`, per
/// session key (client→server requests not yet answered server→client).
type Open = HashMap<Arc<str>, HashMap<LooseKey, u32>>;

/// Notes frame `r` in `open`: a client request opens its id in its
/// session, a server response closes it.
fn note(open: &mut Open, r: &Record) {
    let Record::Frame(f) = r else { return };
    let Payload::Single(m) = &f.payload else {
        return;
    };
    let Some(id) = m.id.loose() else { return };
    match (m.kind, f.direction) {
        (Kind::Request, Some(Direction::C2s)) => {
            *open
                .entry(f.key.clone())
                .or_default()
                .entry(id)
                .or_insert(0) += 1;
        }
        (Kind::Response, Some(Direction::S2c)) => {
            if let Some(ids) = open.get_mut(&f.key)
                && let Some(n) = ids.get_mut(&id)
            {
                *n -= 1;
                if *n == 0 {
                    ids.remove(&id);
                }
            }
        }
        _ => {}
    }
}

/// `later` (a newer file of the group, parsed alone) after `earlier` (the
/// group's records so far): a server response its reader left under the
/// group's own key `fallback` (no session of that file sent its id: a
/// bridge log such as supergateway's, whose replies name no session) goes
/// to the one session whose request with that id is open, when exactly
/// one is; otherwise it stays where its reader put it.
pub(super) fn rejoin_replies(earlier: &[Record], later: &mut [Record], fallback: &str) {
    let mut open = Open::new();
    for r in earlier {
        note(&mut open, r);
    }
    if open.keys().all(|k| &**k == fallback) {
        return;
    }
    for r in later.iter_mut() {
        if let Record::Frame(f) = r
            && &*f.key == fallback
            && f.direction == Some(Direction::S2c)
            && let Payload::Single(m) = &f.payload
            && m.kind == Kind::Response
            && let Some(id) = m.id.loose()
        {
            let mut sent = open
                .iter()
                .filter(|(k, ids)| &***k != fallback && ids.contains_key(&id));
            if let (Some((k, _)), None) = (sent.next(), sent.next()) {
                f.key = k.clone();
            }
        }
        note(&mut open, r);
    }
}

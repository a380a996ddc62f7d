//! Per-direction pairs (FORMATS.md table 8.2 row 13, §8.3.8):
//! `NAME.client-to-server.jsonl` + `NAME.server-to-client.jsonl`, bare JSON
//! lines, one capture and one session named NAME (never split).
//!
//! Every non-blank line of a half is traffic in the direction its file name
//! gives; a line that is not a JSON object or array is a `non_json_line`.
//! The lines carry no timestamps, so the halves are merged causally
//! (§8.3.8 steps 1–4): each file keeps its order, a response is not read
//! before the request it answers, and server lines come as early as that
//! allows. A half whose partner is absent is read alone.

use std::collections::HashMap;

use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::diag::Diagnostic;
use crate::record::{Direction, Kind, Member, Message, Parsed, Payload, Record, Split, ValidId};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "pair";

/// File-name suffix of the client-to-server half.
pub const C2S_SUFFIX: &str = ".client-to-server.jsonl";
/// File-name suffix of the server-to-client half.
pub const S2C_SUFFIX: &str = ".server-to-client.jsonl";

/// `(NAME, direction)` when a path's file name ends in a pair suffix
/// (FORMATS.md §8.3.8); NAME is the file name without the suffix.
pub fn pair_name(path: &str) -> Option<(&str, Direction)> {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if let Some(stem) = file.strip_suffix(C2S_SUFFIX) {
        Some((stem, Direction::C2s))
    } else {
        file.strip_suffix(S2C_SUFFIX)
            .map(|stem| (stem, Direction::S2c))
    }
}

/// The file name of the other half of `path` (same directory), if `path` is
/// a pair half.
pub fn partner_path(path: &str) -> Option<String> {
    let (_, dir) = pair_name(path)?;
    let (from, to) = match dir {
        Direction::C2s => (C2S_SUFFIX, S2C_SUFFIX),
        Direction::S2c => (S2C_SUFFIX, C2S_SUFFIX),
    };
    path.strip_suffix(from).map(|p| format!("{p}{to}"))
}

/// One line of a half, with the valid ids of its requests and responses.
struct Item {
    record: Record,
    requests: Vec<ValidId>,
    responses: Vec<ValidId>,
}

/// Every line of a half: traffic in its direction, of session `key`.
struct Half<'n> {
    key: &'n str,
    dir: Direction,
}

impl LineReader for Half<'_> {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let at = At {
            key: self.key,
            split: Split::Never,
            direction: Some(self.dir),
            ts: None,
            line: line.number,
        };
        sink.exact(at, line.text);
    }
}

/// Reads one half: every non-blank line in direction `dir`.
fn read_half(
    input: Input<'_>,
    dir: Direction,
    name: &str,
    errors: &mut Vec<Diagnostic>,
) -> Vec<Item> {
    let sink = LineSink::new(input, NAME).for_half(input.name.to_string());
    let parsed = read_lines(sink, Half { key: name, dir });
    errors.extend(parsed.errors);
    parsed
        .records
        .into_iter()
        .map(|record| {
            let (mut requests, mut responses) = (Vec::new(), Vec::new());
            if let Record::Frame(f) = &record {
                let mut add = |m: &Message| match (m.kind, m.id.valid()) {
                    (Kind::Request, Some(id)) => requests.push(id),
                    (Kind::Response, Some(id)) => responses.push(id),
                    _ => {}
                };
                match &f.payload {
                    Payload::Single(m) => add(m),
                    Payload::Batch(ms) => ms.iter().for_each(|m| {
                        if let Member::Message(m) = m {
                            add(m)
                        }
                    }),
                    _ => {}
                }
            }
            Item {
                record,
                requests,
                responses,
            }
        })
        .collect()
}

/// Counts per id space: (requester direction, id).
type Tally = HashMap<(Direction, ValidId), u32>;

fn get(t: &Tally, dir: Direction, id: &ValidId) -> u32 {
    t.get(&(dir, id.clone())).copied().unwrap_or(0)
}

/// Step 2: a line waits when one of its responses answers a request still
/// to come and none answers a request already read and not yet answered.
fn waits(item: &Item, dir: Direction, to_come: &Tally, pending: &Tally) -> bool {
    let space = dir.other();
    item.responses.iter().any(|id| get(to_come, space, id) > 0)
        && !item.responses.iter().any(|id| get(pending, space, id) > 0)
}

/// Step 4: its requests become pending; each response settles one pending
/// request with its id.
fn take(item: &Item, dir: Direction, to_come: &mut Tally, pending: &mut Tally) {
    for id in &item.requests {
        if let Some(n) = to_come.get_mut(&(dir, id.clone())) {
            *n = n.saturating_sub(1);
        }
        *pending.entry((dir, id.clone())).or_insert(0) += 1;
    }
    for id in &item.responses {
        if let Some(n) = pending.get_mut(&(dir.other(), id.clone())) {
            *n = n.saturating_sub(1);
        }
    }
}

/// Parses a per-direction pair (FORMATS.md §8.3.8): either half may be
/// missing. Records come in the causal merge order of steps 1–4; every
/// frame has key `name` and [`Split::Never`], and its provenance names its
/// own half's file and line.
pub fn parse(c2s: Option<Input<'_>>, s2c: Option<Input<'_>>, name: &str) -> Parsed {
    let mut out = Parsed {
        format: "stdio",
        dialect: NAME,
        // A half read alone holds one side: its requests' answers are in
        // the file that is not here, so nothing is paired (DESIGN.md rule 6,
        // one-sided captures).
        one_direction: c2s.is_none() || s2c.is_none(),
        ..Default::default()
    };
    let c = c2s
        .map(|i| read_half(i, Direction::C2s, name, &mut out.errors))
        .unwrap_or_default();
    let s = s2c
        .map(|i| read_half(i, Direction::S2c, name, &mut out.errors))
        .unwrap_or_default();

    // Step 1: every request with a valid id is to come.
    let mut to_come = Tally::new();
    let mut pending = Tally::new();
    for (items, dir) in [(&c, Direction::C2s), (&s, Direction::S2c)] {
        for id in items.iter().flat_map(|i| &i.requests) {
            *to_come.entry((dir, id.clone())).or_insert(0) += 1;
        }
    }

    // Step 3.
    let mut c = c.into_iter().peekable();
    let mut s = s.into_iter().peekable();
    out.records.reserve(c.len() + s.len());
    loop {
        let pick_s = match (c.peek(), s.peek()) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(_), Some(si)) => !waits(si, Direction::S2c, &to_come, &pending),
        };
        let (item, dir) = if pick_s {
            (s.next(), Direction::S2c)
        } else {
            // The client line, whether it waits or not (both waiting → c2s).
            (c.next(), Direction::C2s)
        };
        let Some(item) = item else { break };
        take(&item, dir, &mut to_come, &mut pending);
        out.records.push(item.record);
    }
    out
}

/// Reads one half alone (FORMATS.md §8.3.8: "a half whose partner is
/// absent is read alone"), its direction from its file name (client→server
/// when the name is no pair name).
pub fn parse_alone(input: Input<'_>) -> Parsed {
    let (stem, dir) = pair_name(input.name).unwrap_or((input.name, Direction::C2s));
    match dir {
        Direction::C2s => parse(Some(input), None, stem),
        Direction::S2c => parse(None, Some(input), stem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(p: &Parsed) -> Vec<String> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some(format!(
                    "{}{}",
                    if f.direction == Some(Direction::C2s) {
                        "c"
                    } else {
                        "s"
                    },
                    f.prov.location.line.unwrap_or(0)
                )),
                _ => None,
            })
            .collect()
    }

    fn run(c: &str, s: &str) -> Parsed {
        parse(
            Some(Input {
                file: 0,
                name: "x.client-to-server.jsonl",
                text: c,
            }),
            Some(Input {
                file: 1,
                name: "x.server-to-client.jsonl",
                text: s,
            }),
            "x",
        )
    }

    const REQ1: &str = r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    const REQ2: &str = r#"{"jsonrpc":"2.0","id":2,"method":"b"}"#;
    const RES1: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    const RES2: &str = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
    const NOTE: &str = r#"{"jsonrpc":"2.0","method":"notifications/message"}"#;

    #[test]
    fn responses_wait_for_their_requests() {
        let p = run(
            &format!("{REQ1}\n{NOTE}\n{REQ2}\n"),
            &format!("{NOTE}\n{RES1}\n{RES2}\n"),
        );
        // Server lines as early as causality allows: the log notification first.
        assert_eq!(order(&p), ["s1", "c1", "s2", "c2", "c3", "s3"]);
        assert_eq!((p.dialect, p.format, p.other_lines), ("pair", "stdio", 0));
        let Record::Frame(f) = &p.records[1] else {
            panic!()
        };
        assert_eq!(
            (&*f.key, f.split, f.prov.file, f.ts),
            ("x", Split::Never, 0, None)
        );
    }

    #[test]
    fn server_requests_and_client_answers() {
        // Server request id 1 (its own id space) answered by the client;
        // the client's id 1 is answered after.
        let s_req = r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#;
        let c_res = r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}"#;
        let p = run(&format!("{REQ1}\n{c_res}\n"), &format!("{s_req}\n{RES1}\n"));
        assert_eq!(order(&p), ["s1", "c1", "s2", "c2"]);
    }

    #[test]
    fn a_response_to_an_already_read_request_does_not_wait() {
        // id 1 sent twice: the first reply settles the first request and
        // must not wait for the second one still to come.
        let p = run(&format!("{REQ1}\n{REQ1}\n"), &format!("{RES1}\n{RES1}\n"));
        assert_eq!(order(&p), ["c1", "s1", "c2", "s2"]);
    }

    #[test]
    fn contradictions_and_leftovers() {
        // Both wait (each answers a request of the other still to come): c2s first.
        let s_req = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        let c_res = r#"{"jsonrpc":"2.0","id":7,"result":{}}"#;
        let p = run(&format!("{c_res}\n{REQ1}\n"), &format!("{RES1}\n{s_req}\n"));
        assert_eq!(order(&p), ["c1", "c2", "s1", "s2"]);
        // Responses whose requests never come, and non-JSON lines, do not wait.
        let p = run("\r\nnot json\r\n", &format!("{RES2}\n\n[]"));
        assert_eq!(order(&p), ["s1", "s3", "c2"]);
    }

    #[test]
    fn one_half_alone_and_names() {
        let p = parse(
            None,
            Some(Input {
                file: 2,
                name: "a/x.server-to-client.jsonl",
                text: &format!("{RES1}\nnull"),
            }),
            "x",
        );
        assert_eq!(order(&p), ["s1", "s2"]);
        assert!(parse(None, None, "x").records.is_empty());
        assert_eq!(
            pair_name("d/run 1.client-to-server.jsonl"),
            Some(("run 1", Direction::C2s))
        );
        assert_eq!(
            pair_name("x.server-to-client.jsonl"),
            Some(("x", Direction::S2c))
        );
        assert_eq!(pair_name("x.jsonl"), None);
        assert_eq!(
            partner_path("d/x.server-to-client.jsonl").as_deref(),
            Some("d/x.client-to-server.jsonl")
        );
        // Via parse_lines: the name gives the direction.
        let input = Input {
            file: 0,
            name: "d/y.server-to-client.jsonl",
            text: REQ2,
        };
        let p = super::super::formats::parse_lines(input, super::super::formats::Dialect::Pair);
        let Record::Frame(f) = &p.records[0] else {
            panic!()
        };
        assert_eq!((&*f.key, f.direction), ("y", Some(Direction::S2c)));
    }
}

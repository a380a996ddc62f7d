//! Per-direction pairs (FORMATS.md table 8.2 row 13, §8.3.8):
//! `NAME.client-to-server.jsonl` + `NAME.server-to-client.jsonl`, bare JSON
//! lines, one capture and one session named NAME (never split).
//!
//! Every non-blank line of a half is traffic in the direction its file name
//! gives; a line that is not a JSON object or array is a `non_json_line`.
//! The lines carry no timestamps, so the halves are merged causally
//! (§8.3.8 steps 1–4): each file keeps its order, a response is not read
//! before the request it answers, a `notifications/progress` not before the
//! request that named its `progressToken`, and server lines come as early as
//! that allows. A half whose partner is absent is read alone.

use std::collections::{HashMap, VecDeque};

use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::diag::Diagnostic;
use crate::record::id::LooseKey;
use crate::record::{Direction, Id, Kind, Member, Message, Parsed, Payload, Record, Split};

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

/// One request of a line: its valid id (if any) and the
/// `_meta.progressToken` it names (if any).
type Named = (Option<LooseKey>, Option<Id>);

/// One line of a half, with its requests, the valid ids of its responses
/// and the tokens of its `notifications/progress`.
struct Item {
    record: Record,
    requests: Vec<Named>,
    responses: Vec<LooseKey>,
    progress: Vec<Id>,
}

impl Item {
    fn new(record: Record) -> Item {
        let mut item = Item {
            record,
            requests: Vec::new(),
            responses: Vec::new(),
            progress: Vec::new(),
        };
        let Record::Frame(f) = &item.record else {
            return item;
        };
        // Valid ids, compared as pairing falls back to (DESIGN.md rule 5):
        // a response `"3"` to request 3 waits for it too.
        let key = |m: &Message| m.id.valid().and_then(|_| m.id.loose());
        let mut add = |m: &Message| match m.kind {
            Kind::Request => {
                let named = (key(m), m.progress_token().cloned());
                item.requests.push(named);
            }
            Kind::Response => item.responses.extend(key(m)),
            Kind::Notification if m.method.as_deref() == Some("notifications/progress") => {
                item.progress.extend(m.progress_token().cloned())
            }
            Kind::Notification => {}
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
        item
    }
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
            split: Split::ByStart,
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
    parsed.records.into_iter().map(Item::new).collect()
}

/// Counts per space: (requester direction, request id or progress token).
type Tally<K> = HashMap<(Direction, K), u32>;

fn get<K: Eq + std::hash::Hash + Clone>(t: &Tally<K>, dir: Direction, k: &K) -> u32 {
    t.get(&(dir, k.clone())).copied().unwrap_or(0)
}

fn add<K: Eq + std::hash::Hash>(t: &mut Tally<K>, dir: Direction, k: K, by: i32) {
    let n = t.entry((dir, k)).or_insert(0);
    *n = n.saturating_add_signed(by);
}

/// The merge's state (steps 1, 2 and 4).
#[derive(Default)]
struct Merge {
    /// Requests with a valid id still to come.
    to_come: Tally<LooseKey>,
    /// The tokens of each request read and not yet answered, by its id
    /// (`None` for one naming no token), oldest first: their number is
    /// the pending count.
    pending: HashMap<(Direction, LooseKey), VecDeque<Option<Id>>>,
    /// Progress tokens named by requests still to come.
    tokens_to_come: Tally<Id>,
    /// Progress tokens named by requests read and not yet answered (or
    /// with no valid id, so never answered).
    tokens_open: Tally<Id>,
}

impl Merge {
    /// Step 1: every request with a valid id, and every progress token a
    /// request names, is to come.
    fn new(halves: [(&[Item], Direction); 2]) -> Merge {
        let mut m = Merge::default();
        for (items, dir) in halves {
            for (id, tok) in items.iter().flat_map(|i| &i.requests) {
                if let Some(id) = id {
                    add(&mut m.to_come, dir, id.clone(), 1);
                }
                if let Some(tok) = tok {
                    add(&mut m.tokens_to_come, dir, tok.clone(), 1);
                }
            }
        }
        m
    }

    fn pending(&self, dir: Direction, id: &LooseKey) -> bool {
        self.pending
            .get(&(dir, id.clone()))
            .is_some_and(|q| !q.is_empty())
    }

    /// Step 2: a line waits when one of its responses answers a request
    /// still to come and none answers a request already read and not yet
    /// answered; or when one of its progress notifications names the
    /// token of a request still to come and none names the token of a
    /// request already read and not yet answered.
    fn waits(&self, item: &Item, dir: Direction) -> bool {
        let space = dir.other();
        let responses = &item.responses;
        let progress = &item.progress;
        (responses.iter().any(|id| get(&self.to_come, space, id) > 0)
            && !responses.iter().any(|id| self.pending(space, id)))
            || (progress
                .iter()
                .any(|t| get(&self.tokens_to_come, space, t) > 0)
                && !progress
                    .iter()
                    .any(|t| get(&self.tokens_open, space, t) > 0))
    }

    /// Step 4: its requests become pending (their tokens open); each
    /// response settles one pending request with its id (closing its
    /// token).
    fn take(&mut self, item: &Item, dir: Direction) {
        for (id, tok) in &item.requests {
            if let Some(tok) = tok {
                add(&mut self.tokens_to_come, dir, tok.clone(), -1);
                add(&mut self.tokens_open, dir, tok.clone(), 1);
            }
            if let Some(id) = id {
                add(&mut self.to_come, dir, id.clone(), -1);
                let q = self.pending.entry((dir, id.clone())).or_default();
                q.push_back(tok.clone());
            }
        }
        let space = dir.other();
        for id in &item.responses {
            let settled = self
                .pending
                .get_mut(&(space, id.clone()))
                .and_then(|q| q.pop_front());
            if let Some(Some(tok)) = settled {
                add(&mut self.tokens_open, space, tok, -1);
            }
        }
    }
}

/// Parses a per-direction pair (FORMATS.md §8.3.8): either half may be
/// missing. Records come in the causal merge order of steps 1–4; every
/// frame has key `name` and [`Split::ByStart`], and its provenance names its
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

    let mut merge = Merge::new([(&c, Direction::C2s), (&s, Direction::S2c)]);

    // Step 3.
    let mut c = c.into_iter().peekable();
    let mut s = s.into_iter().peekable();
    out.records.reserve(c.len() + s.len());
    loop {
        let pick_s = match (c.peek(), s.peek()) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(_), Some(si)) => !merge.waits(si, Direction::S2c),
        };
        let (item, dir) = if pick_s {
            (s.next(), Direction::S2c)
        } else {
            // The client line, whether it waits or not (both waiting → c2s).
            (c.next(), Direction::C2s)
        };
        let Some(item) = item else { break };
        merge.take(&item, dir);
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

    /// A response whose id is its request's in another form (`"2"` for 2)
    /// waits for that request too, so pairing sees it after the request
    /// (`id_type_changed`, DESIGN.md rule 5), not before it (an unknown
    /// id, then a missing response: a second fresh user's faulty server).
    #[test]
    fn a_response_in_another_id_form_waits_for_its_request() {
        let res2 = r#"{"jsonrpc":"2.0","id":"2","result":{}}"#;
        let p = run(&format!("{REQ1}\n{REQ2}\n"), &format!("{RES1}\n{res2}\n"));
        assert_eq!(order(&p), ["c1", "s1", "c2", "s2"]);
    }

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
        // A new session at each client→server initialize (a tee appended to
        // by a restarted server, `tee -a`, DESIGN.md rule 1).
        assert_eq!(
            (&*f.key, f.split, f.prov.file, f.ts),
            ("x", Split::ByStart, 0, None)
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

    /// A `tools/call` with id `id` naming progress token `tok` (JSON).
    fn call(id: u32, tok: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"progressToken":{tok}}}}}}}"#
        )
    }

    fn prog(tok: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{tok},"progress":1}}}}"#
        )
    }

    /// Each request with progress (its id, its notifications, how many after
    /// its response) and the unlinked ones, as the analysis links them.
    fn links(p: Parsed) -> (Vec<(String, u32, u32)>, u64) {
        let cfg = crate::analyze::Config::default();
        let run = crate::pipeline::analyze_parsed(&cfg, false, vec![("x".into(), 0, p)]);
        let s = &run.analysis.sessions[0];
        let mut linked: Vec<_> = (s.progress.iter())
            .filter(|(_, p)| p.notifications > 0)
            .map(|(ri, p)| {
                (
                    s.requests[*ri].id.json_text(),
                    p.notifications,
                    p.after_response,
                )
            })
            .collect();
        linked.sort();
        (linked, s.unlinked_progress)
    }

    #[test]
    fn progress_waits_for_the_request_naming_its_token() {
        // The shape of the TS SDK stdio tee (#11): the results of id 1 come
        // before the progress on id 2, which names token 2 on the next line.
        let (c2, p2) = (call(2, "2"), prog("2"));
        let p = run(
            &format!("{REQ1}\n{c2}\n"),
            &format!("{RES1}\n{p2}\n{p2}\n{RES2}\n"),
        );
        // Before: s1 and both progress lines ahead of c2 (c1 s1 s2 s3 c2 s4).
        assert_eq!(order(&p), ["c1", "s1", "c2", "s2", "s3", "s4"]);
        assert_eq!(links(p), (vec![("2".into(), 2, 0)], 0));
        // A progress line in a batch waits the same way.
        let p = run(&format!("{REQ1}\n{c2}\n"), &format!("[{p2}]\n{RES2}\n"));
        assert_eq!(order(&p), ["c1", "c2", "s1", "s2"]);
        // Tokens compare by JSON type and value, as the analysis links them:
        // "7" is named by no request and does not wait; 7 does.
        let p = run(
            &call(3, "7"),
            &format!("{}\n{}\n", prog(r#""7""#), prog("7")),
        );
        assert_eq!(order(&p), ["s1", "c1", "s2"]);
        assert_eq!(links(p), (vec![("3".into(), 1, 0)], 1));
    }

    #[test]
    fn a_reused_token_waits_for_the_request_still_to_come() {
        // Token 7 named by id 1 (answered) and again by id 2: the progress
        // after id 1's result belongs to id 2, not after id 1's response.
        let (c1, c2, p7) = (call(1, "7"), call(2, "7"), prog("7"));
        let p = run(&format!("{c1}\n{c2}\n"), &format!("{RES1}\n{p7}\n{RES2}\n"));
        assert_eq!(order(&p), ["c1", "s1", "c2", "s2", "s3"]);
        assert_eq!(links(p), (vec![("2".into(), 1, 0)], 0));
        // While id 1 is open its token is too: nothing waits for id 2.
        let p = run(&format!("{c1}\n{c2}\n"), &format!("{p7}\n{RES1}\n{RES2}\n"));
        assert_eq!(order(&p), ["c1", "s1", "s2", "c2", "s3"]);
    }

    #[test]
    fn progress_no_request_names_does_not_wait() {
        // Token 99 is named by no request; token "n" by a request without a
        // valid id (never answered, so its token stays open once read).
        let null =
            r#"{"jsonrpc":"2.0","id":null,"method":"a","params":{"_meta":{"progressToken":"n"}}}"#;
        let p = run(
            &format!("{REQ1}\n{null}\n"),
            &format!("{}\n{}\n{RES1}\n", prog("99"), prog(r#""n""#)),
        );
        assert_eq!(order(&p), ["s1", "c1", "c2", "s2", "s3"]);
        let (linked, unlinked) = links(p);
        assert_eq!((linked.len(), unlinked), (1, 1));
    }

    /// The fresh user's stdio tees (tests/data/real4/pair-progress). TS SDK
    /// 1.32.2: the 4 progress on id 7 (s8–s11) come after c9, the request
    /// naming token 7, not right after s7 as before.
    #[test]
    fn the_fresh_user_tees_merge_progress_after_its_request() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/real4/pair-progress/"
        );
        let c = std::fs::read_to_string(format!("{dir}ts-stdio.client-to-server.jsonl")).unwrap();
        let s = std::fs::read_to_string(format!("{dir}ts-stdio.server-to-client.jsonl")).unwrap();
        let p = run(&c, &s);
        let want = "c1 s1 c2 c3 s2 c4 c5 c6 c7 s3 s4 c8 s5 s6 s7 c9 s8 s9 s10 s11 s12 \
                    c10 s13 c11 s14 c12 s15 c13 s16 s17 c14 c15 c16 s18 s19 c17 c18 s20 \
                    s21 c19 c20 s22 s23 c21 c22 s24 c23 s25";
        assert_eq!(order(&p).join(" "), want);
        assert_eq!(links(p), (vec![("7".into(), 4, 0)], 0));
        // fastmcp 4.2.3: 3 on id 7 (s7–s9 after c7), 2 on the cancelled id
        // 12 (s15–s16 after c12).
        let c = std::fs::read_to_string(format!("{dir}py-stdio.client-to-server.jsonl")).unwrap();
        let s = std::fs::read_to_string(format!("{dir}py-stdio.server-to-client.jsonl")).unwrap();
        let p = run(&c, &s);
        let want = "c1 s1 c2 s2 c3 c4 c5 c6 s3 s4 s5 s6 c7 s7 s8 s9 s10 c8 s11 c9 s12 \
                    c10 s13 c11 s14 c12 s15 s16 c13 c14 s17";
        assert_eq!(order(&p).join(" "), want);
        assert_eq!(links(p), (vec![("12".into(), 2, 0), ("7".into(), 3, 0)], 0));
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

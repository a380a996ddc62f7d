//! LSP client traces (FORMATS.md table 8.2 row 6, §8.3.4): vscode-languageclient
//! `[Trace - h:mm:ss AM] Sending request 'METHOD - (ID)'.` and tsserver
//! `[Trace - …] Sending request: COMMAND (SEQ). Response expected: yes.`
//!
//! Message-level traces log no bodies: each traffic line is rebuilt into a
//! message (`rebuilt`, FORMATS.md §8.1 "Rebuilt messages"). Stated durations
//! (`in 21ms`, `Processing request took 7ms`, `Request took 12 ms`) are the
//! response frame's `stated_latency` (§8.1 "Stated durations win", DESIGN.md
//! rule 10). TIME has no date: a frame's time is its time of day in µs,
//! plus a day each time the clock goes back past midnight. `Params:` /
//! `Result:` blocks and every other line are not traffic; there is no
//! `non_json_line`. The file is the session key; sessions start at each
//! `initialize`.

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_while_m_n};
use nom::character::complete::{char, digit1, space0, space1};
use nom::combinator::opt;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Id, Kind, Message, Micros, Parsed, Payload};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "lsp";

const DAY: Micros = 86_400_000_000;

/// Reads a trace TIME (FORMATS.md §8.3.4: `h:mm:ss AM|PM` or 24-hour
/// `H:mm:ss`, optionally with a fraction) as µs since midnight.
pub fn time_of_day(s: &str) -> IResult<&str, Micros> {
    fn two(s: &str) -> IResult<&str, &str> {
        take_while_m_n(2, 2, |c: char| c.is_ascii_digit()).parse(s)
    }
    let (rest, (h, _, m, _, sec, frac)) = (
        take_while_m_n(1, 2, |c: char| c.is_ascii_digit()),
        char(':'),
        two,
        char(':'),
        two,
        opt(preceded(char('.'), digit1)),
    )
        .parse(s)?;
    let (rest, half) = opt(preceded(
        space1,
        alt((tag_no_case("AM"), tag_no_case("PM"))),
    ))
    .parse(rest)?;
    let fail = || nom::Err::Error(nom::error::Error::new(s, nom::error::ErrorKind::Verify));
    let num = |t: &str| t.parse::<i64>().map_err(|_| fail());
    let (mut h, m, sec) = (num(h)?, num(m)?, num(sec)?);
    if m > 59 || sec > 59 {
        return Err(fail());
    }
    match half {
        Some(ap) => {
            if !(1..=12).contains(&h) {
                return Err(fail());
            }
            h %= 12;
            if ap.eq_ignore_ascii_case("PM") {
                h += 12;
            }
        }
        None if h > 23 => return Err(fail()),
        None => {}
    }
    let mut us = ((h * 60 + m) * 60 + sec) * 1_000_000;
    if let Some(f) = frac {
        let digits: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
        us += digits.parse::<i64>().unwrap_or(0);
    }
    Ok((rest, us))
}

/// Splits a trace line into its time of day (µs) and the text after
/// `[Trace - TIME] ` (FORMATS.md table 8.2 row 6 "recognised by"). tsserver's
/// padded `[Trace  - ` and its `<semantic> ` / `<syntax> ` server prefix are
/// accepted too.
pub fn split(line: &str) -> Option<(Micros, &str)> {
    let (rest, (_, _, _, _, us, _, _)) = (
        tag("[Trace"),
        space1,
        char('-'),
        space1,
        time_of_day,
        space0,
        char(']'),
    )
        .parse(line)
        .ok()?;
    let text = rest.strip_prefix(' ').unwrap_or(rest);
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let text = match text.strip_prefix('<').and_then(|r| r.split_once("> ")) {
        Some((server, after))
            if !server.is_empty() && server.chars().all(|c| c.is_alphanumeric()) =>
        {
            after
        }
        _ => text,
    };
    Some((us, text))
}

/// Row 6 claims the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

/// One traffic line of an LSP trace, rebuilt (FORMATS.md §8.3.4).
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    /// Which way the message went.
    pub direction: Direction,
    /// The rebuilt message (`rebuilt: true`, no problems).
    pub message: Message,
    /// The duration the line states, µs (responses only).
    pub latency: Option<Micros>,
}

/// Reads the text after `[Trace - TIME] ` by the table of FORMATS.md §8.3.4;
/// `None` for a line that is not traffic.
pub fn traffic(text: &str) -> Option<Traffic> {
    if let Some(t) = quoted(text) {
        return t;
    }
    if let Some(rest) = text.strip_prefix("Sending request: ") {
        return tsserver_request(rest);
    }
    if let Some(rest) = text.strip_prefix("Response received: ") {
        return tsserver_response(rest);
    }
    if let Some(rest) = text.strip_prefix("Event received: ") {
        return tsserver_event(rest);
    }
    None
}

/// A vscode-languageclient line (`Sending request 'METHOD - (ID)'.` and
/// the like): `None` when no such prefix opens `text`, else what the line
/// holds (`None` inside: the prefix but not the rest of the shape).
fn quoted(text: &str) -> Option<Option<Traffic>> {
    use Direction::{C2s, S2c};
    use Kind::{Notification, Request, Response};
    let quoted: [(&str, Direction, Kind); 6] = [
        ("Sending request '", C2s, Request),
        ("Received request '", S2c, Request),
        ("Received response '", S2c, Response),
        ("Sending response '", C2s, Response),
        ("Sending notification '", C2s, Notification),
        ("Received notification '", S2c, Notification),
    ];
    quoted.into_iter().find_map(|(prefix, direction, kind)| {
        let rest = text.strip_prefix(prefix)?;
        Some(quoted_traffic(rest, direction, kind))
    })
}

/// The rest of a vscode-languageclient line after its quote.
fn quoted_traffic(rest: &str, direction: Direction, kind: Kind) -> Option<Traffic> {
    if kind == Kind::Notification {
        let end = rest.find("'.").or_else(|| rest.rfind('\''))?;
        let method = rest.get(..end)?;
        return Some(Traffic {
            direction,
            message: rebuilt(kind, Id::Absent, Some(method), false, None),
            latency: None,
        });
    }
    let (method, after) = rest.split_once(" - (")?;
    let (id, tail) = after.split_once(")'")?;
    let id = id_of(id);
    if kind == Kind::Request {
        return Some(Traffic {
            direction,
            message: rebuilt(kind, id, Some(method), false, None),
            latency: None,
        });
    }
    let latency = if direction == Direction::S2c {
        duration_after(tail, " in ")
    } else {
        duration_after(tail, "took ")
    };
    let failed = tail.to_ascii_lowercase().contains("request failed");
    let code = if failed { failure_code(tail) } else { None };
    Some(Traffic {
        direction,
        message: rebuilt(kind, id, Some(method), failed, code),
        latency,
    })
}

/// tsserver `Sending request: COMMAND (SEQ). Response expected: yes.`
fn tsserver_request(rest: &str) -> Option<Traffic> {
    let (command, seq, tail) = command_seq(rest)?;
    let expected = tail
        .split_once("Response expected: ")
        .map(|(_, r)| r.trim_start());
    let kind = if expected.is_some_and(|r| r.starts_with("yes")) {
        Kind::Request
    } else {
        Kind::Notification
    };
    let id = if kind == Kind::Request {
        id_of(seq)
    } else {
        Id::Absent
    };
    Some(Traffic {
        direction: Direction::C2s,
        message: rebuilt(kind, id, Some(command), false, None),
        latency: None,
    })
}

/// tsserver `Response received: COMMAND (SEQ). Request took N ms. Success: B`.
fn tsserver_response(rest: &str) -> Option<Traffic> {
    let (_command, seq, tail) = command_seq(rest)?;
    let failed = tail
        .split_once("Success: ")
        .is_some_and(|(_, r)| r.trim_start().starts_with("false"));
    let latency = duration_after(tail, "Request took ");
    Some(Traffic {
        direction: Direction::S2c,
        message: rebuilt(Kind::Response, id_of(seq), None, failed, None),
        latency,
    })
}

/// tsserver `Event received: NAME (SEQ).`
fn tsserver_event(rest: &str) -> Option<Traffic> {
    let name = rest
        .split_once(" (")
        .map_or(rest.trim_end_matches('.'), |(n, _)| n)
        .trim();
    if name.is_empty() {
        return None;
    }
    Some(Traffic {
        direction: Direction::S2c,
        message: rebuilt(Kind::Notification, Id::Absent, Some(name), false, None),
        latency: None,
    })
}

/// `COMMAND (SEQ)` and what follows.
fn command_seq(s: &str) -> Option<(&str, &str, &str)> {
    let (command, after) = s.split_once(" (")?;
    let (seq, tail) = after.split_once(')')?;
    Some((command, seq, tail))
}

/// An ID is an integer when it is all digits, optionally signed, else a
/// string (FORMATS.md §8.3.4).
pub fn id_of(text: &str) -> Id {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        Id::from_raw(text.strip_prefix('+').unwrap_or(text))
    } else {
        Id::Str(text.into())
    }
}

/// The duration in ms written after `marker` (`21ms`, `12 ms`, `2.5ms`), µs.
fn duration_after(text: &str, marker: &str) -> Option<Micros> {
    let (_, rest) = text.split_once(marker)?;
    let n = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let num = rest.get(..n)?;
    if !rest.get(n..)?.trim_start().starts_with("ms") {
        return None;
    }
    ms_to_us(num)
}

/// Milliseconds text (`21`, `2.819125`) to µs; `None` when it is no number
/// or too large.
pub(crate) fn ms_to_us(num: &str) -> Option<Micros> {
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v < 1e12).then(|| (v * 1000.0).round() as Micros)
}

/// The error code vscode-languageclient writes at the end of a failure
/// (`Request failed: Unhandled method x (-32601).`).
fn failure_code(tail: &str) -> Option<i64> {
    let t = tail.trim_end().trim_end_matches('.');
    let inner = t.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    inner.get(open + 1..)?.parse().ok()
}

/// A message rebuilt from a trace line (FORMATS.md §8.1 "Rebuilt
/// messages"): a response has `result`, or `error` when it failed.
pub fn rebuilt(
    kind: Kind,
    id: Id,
    method: Option<&str>,
    failed: bool,
    error_code: Option<i64>,
) -> Message {
    let response = kind == Kind::Response;
    Message {
        kind,
        id,
        method: method.map(Into::into),
        has_result: response && !failed,
        has_error: response && failed,
        error_code: if response { error_code } else { None },
        problems: Vec::new(),
        extra: None,
        rebuilt: true,
    }
}

/// Parses an LSP client trace (FORMATS.md §8.2 row 6, §8.3.4).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Lsp::default())
}

/// Reads each line alone, keeping the day count of the time of day.
#[derive(Default)]
struct Lsp {
    /// Days the clock went back past midnight, µs.
    day: Micros,
    /// The last frame's time.
    last: Option<Micros>,
}

impl LineReader for Lsp {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let Some((tod, text)) = split(line.text) else {
            return sink.other();
        };
        let Some(t) = traffic(text) else {
            return sink.other();
        };
        let mut ts = tod + self.day;
        // The clock went back by more than half a day: past midnight.
        if self.last.is_some_and(|l| ts < l - DAY / 2) {
            self.day += DAY;
            ts += DAY;
        }
        self.last = Some(ts);
        let at = At::by_start(sink.input().name, Some(t.direction), Some(ts), line.number);
        let latency = if t.message.kind == Kind::Response {
            t.latency
        } else {
            None
        };
        sink.frame_timed(
            at,
            line.text.trim_end(),
            Payload::Single(t.message),
            latency,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    fn one(
        text: &str,
    ) -> (
        Direction,
        Kind,
        Id,
        Option<String>,
        bool,
        Option<i64>,
        Option<Micros>,
    ) {
        let t = traffic(text).unwrap_or_else(|| panic!("not traffic: {text}"));
        let m = t.message;
        assert!(m.rebuilt && m.problems.is_empty());
        assert!(m.kind != Kind::Response || (m.has_result != m.has_error));
        (
            t.direction,
            m.kind,
            m.id,
            m.method.map(|s| s.to_string()),
            m.has_error,
            m.error_code,
            t.latency,
        )
    }

    #[test]
    fn times_of_day() {
        assert_eq!(
            time_of_day("1:24:27 PM]").map(|r| r.1),
            Ok(((13 * 60 + 24) * 60 + 27) * 1_000_000)
        );
        assert_eq!(time_of_day("12:00:01 AM").map(|r| r.1), Ok(1_000_000));
        assert_eq!(
            time_of_day("12:00:00 pm").map(|r| r.1),
            Ok(12 * 3600 * 1_000_000)
        );
        assert_eq!(
            time_of_day("13:24:27]").map(|r| r.1),
            Ok(((13 * 60 + 24) * 60 + 27) * 1_000_000)
        );
        assert_eq!(time_of_day("0:00:00.25").map(|r| r.1), Ok(250_000));
        assert!(time_of_day("13:24:27 PM").is_err());
        assert!(time_of_day("24:00:00").is_err());
        assert!(time_of_day("1:60:00").is_err());
        assert!(time_of_day("1:2:03").is_err());
    }

    #[test]
    fn trace_lines() {
        assert_eq!(
            split("[Trace - 1:24:27 PM] Sending notification 'x'."),
            Some((48_267_000_000, "Sending notification 'x'."))
        );
        assert_eq!(
            split("[Trace - 13:24:27] Received request 'a - (1)'.").map(|s| s.0),
            Some(48_267_000_000)
        );
        assert_eq!(
            split("[Trace  - 10:57:41 AM] <semantic> Event received: x (0).").map(|s| s.1),
            Some("Event received: x (0).")
        );
        assert_eq!(split("[Trace - 1:24:27 PM]"), Some((48_267_000_000, "")));
        assert_eq!(
            split("[Info  - 1:24:27 PM] Connection to server got closed."),
            None
        );
        assert_eq!(split("[Trace - 1:24:27 PMX] x"), None);
        assert_eq!(split("[Trace - 25:00:00] x"), None);
        assert_eq!(split("Params: {"), None);
    }

    #[test]
    fn vscode_languageclient_rows() {
        use Direction::{C2s, S2c};
        use Kind::{Notification, Request, Response};
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            one("Sending request 'textDocument/hover - (14)'."),
            (
                C2s,
                Request,
                Id::Int(14),
                s("textDocument/hover"),
                false,
                None,
                None
            )
        );
        assert_eq!(
            one("Received request 'workspace/configuration - (3)'."),
            (
                S2c,
                Request,
                Id::Int(3),
                s("workspace/configuration"),
                false,
                None,
                None
            )
        );
        assert_eq!(
            one("Received response 'textDocument/hover - (14)' in 12ms."),
            (
                S2c,
                Response,
                Id::Int(14),
                s("textDocument/hover"),
                false,
                None,
                Some(12_000)
            )
        );
        assert_eq!(
            one(
                "Received response 'textDocument/hover - (15)' in 9ms. Request failed: Unhandled method textDocument/hover (-32601)."
            ),
            (
                S2c,
                Response,
                Id::Int(15),
                s("textDocument/hover"),
                true,
                Some(-32601),
                Some(9_000)
            )
        );
        assert_eq!(
            one("Sending response 'workspace/configuration - (3)'. Processing request took 7ms"),
            (
                C2s,
                Response,
                Id::Int(3),
                s("workspace/configuration"),
                false,
                None,
                Some(7_000)
            )
        );
        assert_eq!(
            one("Sending notification '$/cancelRequest'."),
            (
                C2s,
                Notification,
                Id::Absent,
                s("$/cancelRequest"),
                false,
                None,
                None
            )
        );
        assert_eq!(
            one("Received notification 'textDocument/publishDiagnostics'."),
            (
                S2c,
                Notification,
                Id::Absent,
                s("textDocument/publishDiagnostics"),
                false,
                None,
                None
            )
        );
        // Ids: integer when all digits (optionally signed), else a string.
        assert_eq!(one("Sending request 'a - (-7)'.").2, Id::Int(-7));
        assert_eq!(one("Sending request 'a - (+7)'.").2, Id::Int(7));
        assert_eq!(
            one("Sending request 'a - (abc-1)'.").2,
            Id::Str("abc-1".into())
        );
        assert_eq!(one("Sending request 'a - (1.5)'.").2, Id::Str("1.5".into()));
        assert_eq!(traffic("Sending request 'no id'."), None);
        assert_eq!(
            traffic("Received response 5 without active response promise."),
            None
        );
        assert_eq!(traffic("Params: {}"), None);
    }

    #[test]
    fn tsserver_rows() {
        use Direction::{C2s, S2c};
        use Kind::{Notification, Request, Response};
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            one(
                "Sending request: completionInfo (134). Response expected: yes. Current queue length: 0"
            ),
            (
                C2s,
                Request,
                Id::Int(134),
                s("completionInfo"),
                false,
                None,
                None
            )
        );
        assert_eq!(
            one("Sending request: geterr (135). Response expected: no. Current queue length: 0"),
            (
                C2s,
                Notification,
                Id::Absent,
                s("geterr"),
                false,
                None,
                None
            )
        );
        assert_eq!(
            one("Response received: completionInfo (134). Request took 41 ms. Success: true "),
            (S2c, Response, Id::Int(134), None, false, None, Some(41_000))
        );
        assert_eq!(
            one(
                "Response received: definition (136). Request took 3 ms. Success: false . Message: No content available."
            ),
            (S2c, Response, Id::Int(136), None, true, None, Some(3_000))
        );
        assert_eq!(
            one("Event received: requestCompleted (0)."),
            (
                S2c,
                Notification,
                Id::Absent,
                s("requestCompleted"),
                false,
                None,
                None
            )
        );
        assert_eq!(
            one("Event received: projectLoadingStart"),
            (
                S2c,
                Notification,
                Id::Absent,
                s("projectLoadingStart"),
                false,
                None,
                None
            )
        );
    }

    fn frames(p: &Parsed) -> Vec<(u64, Option<Micros>, Option<Micros>)> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => {
                    Some((f.prov.location.line.unwrap_or(0), f.ts, f.stated_latency))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn verbose_trace_with_blocks_and_midnight() {
        let text = "[Info  - 11:59:58 PM] Starting\n\
            [Trace - 11:59:59 PM] Sending request 'initialize - (0)'.\n\
            Params: {\n    \"processId\": 1\n}\n\n\n\
            [Trace - 12:00:01 AM] Received response 'initialize - (0)' in 2100ms.\n\
            Result: {\n    \"capabilities\": {}\n}\n\
            [Trace - 0:00:02] Received notification 'window/logMessage'.\n\
            [Trace - 12:00:02 AM] Error: something\n";
        let p = parse(Input {
            file: 0,
            name: "t.log",
            text,
        });
        let d = DAY;
        assert_eq!(
            frames(&p),
            vec![
                (2, Some(d - 1_000_000), None),
                (8, Some(d + 1_000_000), Some(2_100_000)),
                (12, Some(d + 2_000_000), None)
            ]
        );
        assert_eq!((p.other_lines, p.dialect, p.errors.len()), (8, "lsp", 0));
        let Record::Frame(f) = &p.records[0] else {
            panic!()
        };
        assert_eq!(
            &text[f.prov.offset as usize..][..f.prov.len as usize],
            "[Trace - 11:59:59 PM] Sending request 'initialize - (0)'."
        );
    }
}

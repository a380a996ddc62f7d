//! Tagged proxy logs (FORMATS.md table 8.2 row 1, §8.3.3):
//! `[TS ][STDIN] JSON`, `[TS ][STDOUT] JSON`, `[TS ][STDERR] TEXT`.
//!
//! Recorder output: the payload is the wire line and must be exactly one JSON
//! object or array (anything else is a `non_json_line`). `[STDERR]` and
//! untagged lines are not traffic. The file is the session key; sessions
//! start at each `initialize` (decided later), or at a proxy's `Subprocess
//! launched` line, emitted here as a process start.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::combinator::opt;
use nom::{IResult, Parser};

use super::grammar::iso_ts_then_space;
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "tagged";

/// The three tags of row 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// `[STDIN]`: client → server.
    Stdin,
    /// `[STDOUT]`: server → client.
    Stdout,
    /// `[STDERR]`: server stderr, not traffic.
    Stderr,
}

/// One line split into its optional timestamp, its tag and the text after
/// the tag (one space dropped), per FORMATS.md table 8.2 row 1 "recognised
/// by": an optional ISO timestamp, then `[STDIN]`, `[STDOUT]` or `[STDERR]`.
pub fn split(line: &str) -> Option<(Option<&str>, Tag, &str)> {
    let (rest, ts) = opt(iso_ts_then_space).parse(line).ok()?;
    let (rest, t) = tag_word(rest).ok()?;
    let t = match t {
        "[STDIN]" => Tag::Stdin,
        "[STDOUT]" => Tag::Stdout,
        _ => Tag::Stderr,
    };
    Some((ts, t, rest.strip_prefix(' ').unwrap_or(rest)))
}

fn tag_word(s: &str) -> IResult<&str, &str> {
    alt((tag("[STDIN]"), tag("[STDOUT]"), tag("[STDERR]"))).parse(s)
}

/// Row 1 claims the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

/// Parses a tagged proxy log (FORMATS.md §8.2 row 1, §8.3.3).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Tagged)
}

/// Reads each line alone; the file is the key.
struct Tagged;

impl LineReader for Tagged {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let key = sink.input().name;
        let Some((ts, t, rest)) = split(line.text) else {
            // Untagged: not traffic; a proxy's own start line opens a session
            // (FORMATS.md §8.1 "Process-start lines").
            if line.text.contains("Subprocess launched") {
                sink.process_start(key, &line);
            } else {
                sink.other();
            }
            return;
        };
        let dir = match t {
            Tag::Stdin => Direction::C2s,
            Tag::Stdout => Direction::S2c,
            Tag::Stderr => return sink.other(),
        };
        let ts = ts.and_then(|s| sink.ts(line.number, s));
        sink.exact(At::by_start(key, Some(dir), ts, line.number), rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Payload, Record, Split};

    type Row = (Option<Direction>, Option<i64>, u64, u64, u32, bool);

    fn frames(p: &Parsed) -> Vec<Row> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => Some((
                    f.direction,
                    f.ts,
                    f.prov.location.line.unwrap_or(0),
                    f.prov.offset,
                    f.prov.len,
                    matches!(f.payload, Payload::NonJson),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn tags_timestamps_and_payloads() {
        let text = "2025-01-01T12:00:00.000Z [STDIN] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\
                    \r\n\
                    2025-01-01T12:00:00.001+00:00 [STDERR] {\"not\":\"traffic\"}\n\
                    banner line\n\
                    [STDOUT] {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} trailing\n\
                    2025-01-01T12:00:00.002 [STDOUT] [1]\n\
                    2025-01-01T12:00:00.003Z [STDOUT]\n\
                    2025-01-01T12:00:00.004Z [STDIN] null";
        let p = parse(Input {
            file: 3,
            name: "t.log",
            text,
        });
        assert_eq!((p.format, p.dialect, p.other_lines), ("stdio", "tagged", 2));
        let base = 1_735_732_800_000_000;
        assert_eq!(
            frames(&p),
            vec![
                (Some(Direction::C2s), Some(base), 1, 33, 40, false),
                (Some(Direction::S2c), None, 5, 155, 45, true),
                (Some(Direction::S2c), Some(base + 2000), 6, 234, 3, false),
                (Some(Direction::S2c), Some(base + 3000), 7, 271, 0, true),
                (Some(Direction::C2s), Some(base + 4000), 8, 305, 4, true),
            ]
        );
        let Record::Frame(f) = &p.records[0] else {
            panic!()
        };
        assert_eq!(
            (&*f.key, f.split, f.prov.file),
            ("t.log", Split::ByStart, 3)
        );
        assert_eq!(
            &text[33..73],
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
        );
        assert_eq!(
            &text[155..200],
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} trailing"
        );
        assert!(p.errors.is_empty());
    }

    #[test]
    fn subprocess_launched_is_a_process_start() {
        let p = parse(Input {
            file: 0,
            name: "t",
            text: "2025-01-01T00:00:00Z Subprocess launched (pid 4)\n",
        });
        assert!(matches!(&p.records[..], [Record::ProcessStart { key, .. }] if &**key == "t"));
        assert_eq!(p.other_lines, 1);
    }

    #[test]
    fn claims_only_the_three_tags() {
        assert!(claims("[STDIN] {}") && claims("2025-01-01T00:00:00Z  [STDERR] x"));
        assert!(
            !claims("2025-01-01T00:00:00Z [STDINX] x")
                && !claims(" [STDIN] x")
                && !claims("[stdin] x")
        );
    }
}

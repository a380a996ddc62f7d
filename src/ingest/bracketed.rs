//! The bracketed host log of FORMATS.md §8.3.2 (last paragraph),
//! `[YYYY-MM-DD HH:MM:SS.mmm][LEVEL] [NAME]TEXT`, recognised by that opening
//! and checked after table 8.2 row 5: no traffic lines, key NAME,
//! `[NAME]Connection state: Starting` starts a process, `[NAME][server
//! stderr] …` is stderr, a JSON.parse error text is a server→client
//! `non_json_line` of NAME.

use nom::Parser;
use nom::character::complete::char;
use nom::sequence::delimited;

use super::grammar::{bracket, is_json_parse_error, is_level, local_ts, trim_host_suffix};
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "bracketed";

/// Splits a bracketed host-log line into `(timestamp, level, rest)` by its
/// opening `[YYYY-MM-DD HH:MM:SS.mmm][LEVEL]` (FORMATS.md §8.3.2, last
/// paragraph); `rest` is `[NAME]TEXT` after one space.
pub fn split(line: &str) -> Option<(&str, &str, &str)> {
    let (rest, ts) = delimited(char('['), local_ts, char(']')).parse(line).ok()?;
    let (rest, level) = bracket(rest).ok()?;
    if !is_level(level) {
        return None;
    }
    Some((ts, level, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// The bracketed host log claims the line (FORMATS.md §8.3.2: "recognised
/// by that opening, checked after row 5").
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

/// Parses a bracketed host log (FORMATS.md §8.3.2, last paragraph).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Bracketed)
}

/// Reads each line alone; the key is NAME.
struct Bracketed;

impl LineReader for Bracketed {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let Some((ts, _level, rest)) = split(line.text) else {
            return sink.other();
        };
        let Ok((text, name)) = bracket(rest) else {
            return sink.other();
        };
        if text.starts_with("Connection state: Starting") {
            sink.process_start(name, &line);
        } else if !text.starts_with("[server stderr]") && is_json_parse_error(text) {
            let ts = sink.ts(line.number, ts);
            let at = At::by_start(name, Some(Direction::S2c), ts, line.number);
            sink.non_json(at, trim_host_suffix(text));
        } else {
            sink.other();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    use crate::ingest::testdata::lines_read as got;

    #[test]
    fn bracketed_host_log() {
        let text = "[2025-03-01 09:00:00.000][info] [fs]Connection state: Starting\n\
            [2025-03-01 09:00:00.100][warning] [fs][server stderr] Unexpected token x\n\
            [2025-03-01 09:00:01.000][error] [fs]Failed to parse message: Unexpected token 'x', \"xyz\" is not valid JSON\n\
            [2025-03-01 09:00:02.000][info] [fs]Connection state: Running\n\
            [2025-03-01 09:00:03.000][info] no name\n\
            stray";
        assert!(
            claims("[2025-03-01 09:00:00.000][info] [fs]x")
                && !claims("[2025-03-01 09:00:00.000] [info] x")
        );
        let p = parse(Input {
            file: 0,
            name: "host.log",
            text,
        });
        assert!(matches!(&p.records[0], Record::ProcessStart { key, .. } if &**key == "fs"));
        assert_eq!(
            got(&p),
            vec![(3, Some(Direction::S2c), true, Some(1_740_819_601_000_000))]
        );
        assert!(matches!(&p.records[1], Record::Frame(f) if &*f.key == "fs"));
        assert_eq!((p.other_lines, p.dialect), (5, "bracketed"));
    }
}

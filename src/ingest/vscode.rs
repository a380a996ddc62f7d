//! VS Code "MCP: NAME" output channels and Cursor MCP logs (FORMATS.md table
//! 8.2 rows 4 and 5, §8.3.2, §6.2, §6.3): `YYYY-MM-DD HH:MM:SS.mmm [LEVEL]
//! TEXT`, local time with no zone (read as if UTC, compared only within the
//! file).
//!
//! Traffic: `[editor -> server] JSON` / early `[Client Says] JSON` (c2s),
//! `[server -> editor] JSON` / early `[Server Says] JSON` (s2c), and Cursor's
//! `… Received a response for an unknown message ID: JSON` (s2c); the
//! payload is the first JSON value after the marker. A text that is a
//! JSON.parse error is a server→client `non_json_line`. `[server stderr]`,
//! connection-state, tool-call and offering lines are not traffic. Process
//! starts: VS Code `Starting server NAME`, `Connection state: Starting`;
//! Cursor `Handling CreateClient action`, `Starting new stdio process …`
//! (FORMATS.md §8.1 "Sessions"). One server per channel: the file is the
//! session key. (The bracketed host log of §8.3.2 is [`super::bracketed`].)

use nom::Parser;
use nom::character::complete::char;

use super::grammar::{bracket, is_json_parse_error, is_level, local_ts, trim_host_suffix};
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`; `cursor` for a Cursor file).
pub(crate) const NAME: &str = "vscode";

/// Splits a line into `(timestamp, level, text)` by FORMATS.md table 8.2
/// row 4 "recognised by": a local timestamp, a space, `[LEVEL]`.
pub fn split(line: &str) -> Option<(&str, &str, &str)> {
    let (rest, ts) = local_ts(line).ok()?;
    let (rest, _) = char::<&str, nom::error::Error<&str>>(' ')
        .parse(rest)
        .ok()?;
    let (rest, level) = bracket(rest).ok()?;
    if !is_level(level) {
        return None;
    }
    Some((ts, level, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// Rows 4 and 5 claim the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

/// Cursor 2025 builds may open TEXT with the last 4 characters of the server
/// name and `: ` (FORMATS.md table 8.2 row 5); returns TEXT without it.
pub fn strip_cursor_prefix(text: &str) -> &str {
    let mut it = text.char_indices().skip(4);
    match it.next() {
        Some((i, ':')) => text
            .get(i..)
            .and_then(|r| r.strip_prefix(": "))
            .unwrap_or(text),
        _ => text,
    }
}

const C2S_TAGS: [&str; 2] = ["[editor -> server]", "[Client Says]"];
const S2C_TAGS: [&str; 2] = ["[server -> editor]", "[Server Says]"];
const CURSOR_UNKNOWN_ID: &str = "Received a response for an unknown message ID:";

/// Parses a VS Code or Cursor MCP log (FORMATS.md §8.2 rows 4 and 5,
/// §8.3.2). `Parsed.dialect` is `cursor` when the file shows Cursor lines
/// and no VS Code traffic tag, else `vscode`.
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), VsCode::default())
}

/// Reads each line alone and notes which host wrote the file.
#[derive(Default)]
struct VsCode {
    /// A VS Code traffic tag was seen.
    vscode_seen: bool,
    /// A line only Cursor writes was seen.
    cursor_seen: bool,
}

/// The traffic tag opening `text` (FORMATS.md §8.3.2): its direction and
/// the text after it.
fn traffic_tag(text: &str) -> Option<(Direction, &str)> {
    C2S_TAGS
        .iter()
        .find_map(|t| text.strip_prefix(t).map(|r| (Direction::C2s, r)))
        .or_else(|| {
            S2C_TAGS
                .iter()
                .find_map(|t| text.strip_prefix(t).map(|r| (Direction::S2c, r)))
        })
}

impl LineReader for VsCode {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        let Some((ts, _level, text)) = split(line.text) else {
            return sink.other();
        };
        let (key, n) = (sink.input().name, line.number);
        if let Some((dir, rest)) = traffic_tag(text) {
            self.vscode_seen = true;
            let ts = sink.ts(n, ts);
            return sink.host(At::by_start(key, Some(dir), ts, n), rest);
        }
        if text.starts_with("[server stderr]") {
            return sink.other();
        }
        let t = strip_cursor_prefix(text);
        if let Some(i) = t.find(CURSOR_UNKNOWN_ID) {
            self.cursor_seen = true;
            let rest = t.get(i + CURSOR_UNKNOWN_ID.len()..).unwrap_or("");
            let ts = sink.ts(n, ts);
            sink.host(At::by_start(key, Some(Direction::S2c), ts, n), rest);
        } else if is_json_parse_error(t) {
            let ts = sink.ts(n, ts);
            let at = At::by_start(key, Some(Direction::S2c), ts, n);
            sink.non_json(at, trim_host_suffix(t));
        } else if text.starts_with("Starting server ")
            || text.starts_with("Connection state: Starting")
        {
            sink.process_start(key, &line);
        } else if t.starts_with("Handling CreateClient action")
            || t.starts_with("Starting new stdio process")
        {
            self.cursor_seen = true;
            sink.process_start(key, &line);
        } else {
            sink.other();
        }
    }

    fn end(&mut self, sink: &mut LineSink<'_>) {
        if self.cursor_seen && !self.vscode_seen {
            sink.set_dialect("cursor");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    #[test]
    fn split_and_prefix() {
        assert_eq!(
            split("2025-01-01 12:00:00.000 [debug] [editor -> server] {}"),
            Some(("2025-01-01 12:00:00.000", "debug", "[editor -> server] {}"))
        );
        assert_eq!(split("2025-01-01 12:00:00.000 [nope] x"), None);
        assert_eq!(split("2025-01-01T12:00:00.000Z [info] x"), None);
        assert_eq!(
            strip_cursor_prefix("ools: Handling CreateClient action"),
            "Handling CreateClient action"
        );
        assert_eq!(strip_cursor_prefix("éééé: x"), "x");
        assert_eq!(strip_cursor_prefix("Handling: x"), "Handling: x");
        assert_eq!(strip_cursor_prefix("ab"), "ab");
    }

    use crate::ingest::testdata::lines_read as got;

    #[test]
    fn tags_early_tags_stderr_and_parse_errors() {
        let text = "2025-01-01 12:00:00.000 [info] Starting server s\r\n\
            2025-01-01 12:00:00.001 [info] Connection state: Starting\r\n\
            2025-01-01 12:00:00.100 [debug] [editor -> server] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\r\n\
            2025-01-01 12:00:00.200 [info] [Server Says] {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} trailing\r\n\
            2025-01-01 12:00:00.300 [warning] [server stderr] {\"jsonrpc\":\"2.0\",\"id\":9}\r\n\
            2025-01-01 12:00:00.400 [info] [Client Says] nope\r\n\
            2025-01-01 12:00:00.500 [error] Failed to parse message: Unexpected token 'x', \"xyz\" is not valid JSON\r\n\
            2025-01-01 12:00:00.600 [info] hello from the server\r\n\
            a stray line";
        let p = parse(Input {
            file: 0,
            name: "MCP s.log",
            text,
        });
        let t0 = 1_735_732_800_000_000;
        assert_eq!(
            got(&p),
            vec![
                (3, Some(Direction::C2s), false, Some(t0 + 100_000)),
                (4, Some(Direction::S2c), false, Some(t0 + 200_000)),
                (6, Some(Direction::C2s), true, Some(t0 + 400_000)),
                (7, Some(Direction::S2c), true, Some(t0 + 500_000)),
            ]
        );
        assert!(matches!(&p.records[0], Record::ProcessStart { key, .. } if &**key == "MCP s.log"));
        assert_eq!((p.other_lines, p.dialect), (5, "vscode"));
    }

    #[test]
    fn cursor_lines() {
        let text = "2025-12-01 10:04:00.551 [info] ools: Handling CreateClient action\n\
            2025-12-01 10:04:01.494 [error] Installed 71 packages in 64ms\n\
            2025-12-01 10:17:38.056 [error] Client error for command Received a response for an unknown message ID: {\"jsonrpc\":\"2.0\",\"id\":20,\"error\":{\"code\":0,\"message\":\"x\"}}\n\
            2025-12-01 10:17:39.000 [error] ools: Error in MCP: Received a response for an unknown message ID: {\"jsonrpc\":\"2.0\",\"id\":21,\"result\":{}}";
        let p = parse(Input {
            file: 0,
            name: "Cursor MCP.log",
            text,
        });
        assert_eq!(
            got(&p).iter().map(|g| (g.0, g.1, g.2)).collect::<Vec<_>>(),
            vec![
                (3, Some(Direction::S2c), false),
                (4, Some(Direction::S2c), false)
            ]
        );
        assert_eq!((p.other_lines, p.dialect), (2, "cursor"));
    }
}

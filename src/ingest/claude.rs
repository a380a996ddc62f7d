//! Claude Desktop logs (FORMATS.md table 8.2 rows 2 and 3, §8.3.1, §6.1):
//! `mcp-server-NAME.log` (`TS [NAME] [LEVEL] TEXT`), `mcp.log`
//! (`TS [LEVEL] [NAME] TEXT`) and the main log (`TS [LEVEL] TEXT`).
//!
//! Traffic: `Message from client: JSON` (c2s) and `Message from server: JSON`
//! (s2c); the payload is the first JSON value after the marker and the rest
//! (` { metadata: undefined }`) is dropped. An `[error]` line whose text is a
//! JSON.parse error is a server→client `non_json_line` (one per entry; the
//! continuation lines of a multi-line entry carry no timestamp and are not
//! traffic). `Initializing server…` and `Server started and connected
//! successfully` are process starts. The session key is NAME (main log: the
//! NAME in a parse error's text, else the file).

use nom::Parser;
use nom::character::complete::space1;

use super::grammar::{bracket, is_json_parse_error, is_level, iso_ts, trim_host_suffix};
use super::input::Input;
use super::lines::{Line, Lines};
use super::sink::{At, LineReader, LineSink, read_lines};
use crate::record::{Direction, Parsed};

/// The dialect's name (`Parsed.dialect`).
pub(crate) const NAME: &str = "claude";

/// The parts of one timestamped Claude line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefix<'a> {
    /// The timestamp text.
    pub ts: &'a str,
    /// The server name (`None` on a main-log line).
    pub name: Option<&'a str>,
    /// The level word as written.
    pub level: &'a str,
    /// The text after the brackets (one space dropped).
    pub text: &'a str,
}

/// Splits a line by FORMATS.md §8.3.1: an ISO timestamp, then two bracketed
/// words of which the level is the second (row 2: `[NAME] [LEVEL]`) or the
/// first (row 3: `[LEVEL] [NAME]`), or one bracketed level (main log).
/// When both words are levels, row 2 (checked first) wins.
pub fn split(line: &str) -> Option<Prefix<'_>> {
    let (rest, ts) = iso_ts(line).ok()?;
    let (rest, _) = space1::<&str, nom::error::Error<&str>>.parse(rest).ok()?;
    let (rest, a) = bracket(rest).ok()?;
    let second = rest.strip_prefix(' ').and_then(|r| bracket(r).ok());
    let (name, level, rest) = match second {
        Some((r, b)) if is_level(b) => (Some(a), b, r),
        Some((r, b)) if is_level(a) => (Some(b), a, r),
        _ if is_level(a) => (None, a, rest),
        _ => return None,
    };
    Some(Prefix {
        ts,
        name,
        level,
        text: rest.strip_prefix(' ').unwrap_or(rest),
    })
}

/// Rows 2 and 3 claim the line (FORMATS.md §8.2).
pub fn claims(line: &str) -> bool {
    split(line).is_some()
}

const FROM_CLIENT: &str = "Message from client:";
const FROM_SERVER: &str = "Message from server:";
const MAIN_LOG_ERROR: &str = "Error in MCP connection to server ";

/// A block of a large log may start at a line that opens with a digit (a
/// timestamp): a multi-line entry continues on lines without one
/// (FORMATS.md §8.3.1).
pub(crate) fn block_start(line: &[u8]) -> bool {
    line.first().is_some_and(u8::is_ascii_digit)
}

/// Parses a Claude Desktop log (FORMATS.md §8.2 rows 2 and 3, §8.3.1).
pub fn parse(input: Input<'_>) -> Parsed {
    read_lines(LineSink::new(input, NAME), Claude)
}

/// Reads each timestamped line alone; the key is the server's name.
struct Claude;

impl LineReader for Claude {
    fn line<'a>(&mut self, sink: &mut LineSink<'a>, line: Line<'a>, _: &mut Lines<'a>) {
        // Lines without a timestamp (server stderr, continuation lines of a
        // multi-line entry) are not traffic.
        let Some(p) = split(line.text) else {
            return sink.other();
        };
        let key = p.name.unwrap_or(sink.input().name);
        let n = line.number;
        let dir = if let Some(rest) = p.text.strip_prefix(FROM_CLIENT) {
            Some((Direction::C2s, rest))
        } else {
            p.text
                .strip_prefix(FROM_SERVER)
                .map(|rest| (Direction::S2c, rest))
        };
        if let Some((dir, rest)) = dir {
            let ts = sink.ts(n, p.ts);
            sink.host(At::by_start(key, Some(dir), ts, n), rest);
        } else if p.text.contains("Server stderr") {
            sink.other();
        } else if p.level.eq_ignore_ascii_case("error") && is_json_parse_error(p.text) {
            let ts = sink.ts(n, p.ts);
            let at = At::by_start(parse_error_key(&p, key), Some(Direction::S2c), ts, n);
            sink.non_json(at, trim_host_suffix(p.text));
        } else if p.text.starts_with("Initializing server")
            || p.text
                .starts_with("Server started and connected successfully")
        {
            sink.process_start(key, &line);
        } else {
            sink.other();
        }
    }
}

/// The key of a JSON.parse error line: on the main log (no NAME), the NAME
/// in `Error in MCP connection to server NAME: SyntaxError: …`, else `key`.
fn parse_error_key<'a>(p: &Prefix<'a>, key: &'a str) -> &'a str {
    match (
        p.name,
        p.text
            .strip_prefix(MAIN_LOG_ERROR)
            .and_then(|r| r.split_once(": ")),
    ) {
        (None, Some((name, _))) if !name.is_empty() => name,
        _ => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Kind, Payload, Record};

    #[test]
    fn both_layouts_and_the_main_log() {
        let row2 =
            split("2025-01-01T12:00:00.000Z [my server.x] [info] Message from client: {}").unwrap();
        assert_eq!(
            (row2.name, row2.level, row2.text),
            (Some("my server.x"), "info", "Message from client: {}")
        );
        let row3 = split("2025-01-01T12:00:00.000Z [ERROR] [js-sandbox] Unexpected token").unwrap();
        assert_eq!(
            (row3.name, row3.level, row3.text),
            (Some("js-sandbox"), "ERROR", "Unexpected token")
        );
        let main = split("2025-01-01T12:00:00.000Z [info] Connected to MCP server x!").unwrap();
        assert_eq!((main.name, main.level), (None, "info"));
        assert!(split("2025-01-01T12:00:00.000Z [x] [y] z").is_none());
        assert!(split("2025-01-01T12:00:00.000Z [STDIN] {}").is_none());
        assert!(split("2025-01-01 12:00:00.000 [info] x").is_none());
    }

    fn summary(p: &Parsed) -> Vec<String> {
        p.records
            .iter()
            .map(|r| match r {
                Record::Frame(f) => format!(
                    "{}:{} {} {}",
                    f.prov.location.line.unwrap_or(0),
                    f.key,
                    f.direction.map_or("?", |d| d.as_str()),
                    match &f.payload {
                        Payload::Single(m) => format!("{:?}", m.kind),
                        Payload::Batch(b) => format!("batch{}", b.len()),
                        _ => "nonjson".into(),
                    }
                ),
                Record::ProcessStart { key, prov } => {
                    format!("{}:{key} start", prov.location.line.unwrap_or(0))
                }
            })
            .collect()
    }

    #[test]
    fn metadata_suffix_multiline_errors_and_crlf() {
        let text = "2025-09-11T23:28:52.265Z [mcp-server-w] [info] Server started and connected successfully { metadata: undefined }\r\n\
            2025-09-11T23:28:52.275Z [mcp-server-w] [info] Message from client: {\"method\":\"initialize\",\"params\":{},\"jsonrpc\":\"2.0\",\"id\":0} { metadata: undefined }\r\n\
            2025-09-11T23:28:52.407Z [mcp-server-w] [error] Unexpected token 'e', \"[envload@4.\"... is not valid JSON {\r\n\
            \x20 metadata: {\r\n\
            \x20   context: 'connection',\r\n\
            \x20   stack: `SyntaxError: Unexpected token 'e', \"[envload@4.\"... is not valid JSON\\n` +\r\n\
            \x20 }\r\n\
            }\r\n\
            \r\n\
            2025-09-11T23:28:52.911Z [mcp-server-w] [info] Message from server: [{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}] { metadata: undefined }\r\n\
            2025-09-11T23:28:52.912Z [mcp-server-w] [info] Message from server: {\"jsonrpc\":\"2.0\",\"id\":0,\"res { metadata: undefined }\r\n\
            2025-09-11T23:28:52.913Z [mcp-server-w] [info] Message from server: 42 { metadata: undefined }\r\n\
            2025-09-11T23:28:52.914Z [mcp-server-w] [info] Server stderr: Unexpected token\r\n\
            2025-09-11T23:28:52.915Z [mcp-server-w] [info] Server transport closed";
        let p = parse(Input {
            file: 0,
            name: "f.log",
            text,
        });
        assert_eq!(
            summary(&p),
            [
                "1:mcp-server-w start",
                "2:mcp-server-w c2s Request",
                "3:mcp-server-w s2c nonjson",
                "10:mcp-server-w s2c batch1",
                "11:mcp-server-w s2c nonjson",
                "12:mcp-server-w s2c nonjson",
            ]
        );
        // start line + 5 continuation lines + stderr + transport closed.
        assert_eq!(p.other_lines, 8);
        // The payload excludes the metadata suffix.
        let Record::Frame(f) = &p.records[1] else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert!(text[o..o + l].starts_with("{\"method\"") && text[o..o + l].ends_with("\"id\":0}"));
        assert_eq!(f.ts, Some(1_757_633_332_275_000));
        // The parse-error evidence drops the trailing ` {`.
        let Record::Frame(f) = &p.records[2] else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert!(
            text[o..o + l].starts_with("Unexpected token")
                && text[o..o + l].ends_with("is not valid JSON")
        );
        let Record::Frame(f) = &p.records[4] else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(&text[o..o + l], "{\"jsonrpc\":\"2.0\",\"id\":0,\"res");
    }

    #[test]
    fn mcp_log_names_several_servers_and_the_main_log() {
        let text = "2025-05-05T18:24:18.865Z [info] [a b] Initializing server...\n\
            2025-05-05T18:24:18.866Z [info] [c] Message from client: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\
            2025-05-05T18:24:23.590Z [error] [a b] Unexpected token 'B', \"Booting sa\"... is not valid JSON\n\
            2025-05-05T18:24:23.591Z [info] Connected to MCP server a b!\n\
            2025-05-05T18:24:23.592Z [error] Error in MCP connection to server d: SyntaxError: Unexpected end of JSON input\n\
            2025-05-05T18:24:23.593Z [info] Unexpected token is only an error at [error]";
        let p = parse(Input {
            file: 0,
            name: "mcp.log",
            text,
        });
        assert_eq!(
            summary(&p),
            [
                "1:a b start",
                "2:c c2s Notification",
                "3:a b s2c nonjson",
                "5:d s2c nonjson"
            ]
        );
        assert_eq!(p.other_lines, 3);
        let Record::Frame(f) = &p.records[1] else {
            panic!()
        };
        assert!(matches!(&f.payload, Payload::Single(m) if m.kind == Kind::Notification));
    }
}

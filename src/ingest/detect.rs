//! Format detection (FORMATS.md §8.1 "One dialect per file"), dispatch to the
//! line-log dialect parsers (table 8.2), and the pieces they share: the
//! timestamp and bracket grammar (nom) and `Sink`, which turns traffic
//! lines into [`Record`]s with provenance.
//!
//! Detection order: a HAR document (§4), then a raw SSE capture (§5), then
//! the rows of table 8.2 tried in row order on each non-blank line from the
//! top, skipping lines no row claims; the first claimed line decides.

use std::sync::Arc;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1, take_while_m_n};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::sequence::delimited;
use nom::{IResult, Parser};
use serde::de::IgnoredAny;

use super::lines::{Line, lines};
use super::{
    Format, Input, arrow, bare, claude, envelope, inspect, lsp, pair, supergateway, tagged,
    twoline, vscode,
};
use crate::record::jsonrpc::{first_value_len, parse_payload};
use crate::record::time::parse_iso;
use crate::record::{
    Direction, Frame, Location, Micros, Parsed, Payload, Provenance, Record, Split,
};

/// A line-log dialect (FORMATS.md table 8.2; the row numbers are the table's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Row 1: `TS [STDIN] JSON` / `[STDOUT]` / `[STDERR]`.
    Tagged,
    /// Rows 2 and 3: Claude Desktop `mcp-server-NAME.log`, `mcp.log` and the
    /// main log.
    Claude,
    /// Rows 4 and 5: VS Code output channel (`[editor -> server]`); Cursor's
    /// MCP log shares its line shape and is read by the same parser
    /// (FORMATS.md §8.1: "the rules of both rows apply to such a file").
    VsCode,
    /// The bracketed host log of FORMATS.md §8.3.2 (last paragraph),
    /// `[YYYY-MM-DD HH:MM:SS.mmm][LEVEL] [NAME]TEXT`, checked after row 5.
    Bracketed,
    /// Row 6: LSP client traces (`[Trace - h:mm:ss AM] …`, §8.3.4).
    Lsp,
    /// Row 7: two-line logs (`// Send:` / `// Receive (took Nms):`, §8.3.5).
    TwoLine,
    /// Row 8: supergateway (`[supergateway] SRC → DST: BODY`, §8.3.6).
    Supergateway,
    /// Row 9: util.inspect tracers (`DEBUG --> BODY`, §8.3.6).
    Inspect,
    /// Row 10: arrow logs (`-->`, `<--`, `>`, `<`).
    Arrow,
    /// Row 11: NDJSON envelopes.
    Envelope,
    /// Row 12: bare NDJSON.
    Bare,
    /// Row 13: one half of a per-direction pair read alone (known by its
    /// file name, never detected from content; see [`pair::parse`] for both
    /// halves).
    Pair,
}

impl Dialect {
    /// Every dialect, in table 8.2 row order (the per-direction pair last).
    pub const ALL: [Dialect; 12] = [
        Dialect::Tagged,
        Dialect::Claude,
        Dialect::VsCode,
        Dialect::Bracketed,
        Dialect::Lsp,
        Dialect::TwoLine,
        Dialect::Supergateway,
        Dialect::Inspect,
        Dialect::Arrow,
        Dialect::Envelope,
        Dialect::Bare,
        Dialect::Pair,
    ];

    /// The short name written to `Parsed.dialect`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Tagged => "tagged",
            Dialect::Claude => "claude",
            Dialect::VsCode => "vscode",
            Dialect::Bracketed => "bracketed",
            Dialect::Lsp => "lsp",
            Dialect::TwoLine => "twoline",
            Dialect::Supergateway => "supergateway",
            Dialect::Inspect => "inspect",
            Dialect::Arrow => "arrow",
            Dialect::Envelope => "envelope",
            Dialect::Bare => "bare",
            Dialect::Pair => "pair",
        }
    }
}

/// Decides the format of a whole input (FORMATS.md §8.1): a HAR document
/// (one JSON value with a `log` object; §4), a raw SSE capture (first
/// non-blank line an SSE field, a comment or an HTTP status line; §5), else
/// the first line claimed by a row of table 8.2 in row order, else
/// [`Format::Unknown`].
pub fn detect(text: &str) -> Format {
    let body = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if body.starts_with('{') && looks_like_har(body) {
        return Format::Har;
    }
    let mut non_blank = lines(text).filter(|l| !is_blank(l.text));
    let Some(first) = non_blank.next() else {
        return Format::Unknown;
    };
    if is_sse_start(first.text) {
        return Format::Sse;
    }
    std::iter::once(first)
        .chain(non_blank)
        .find_map(|l| claim(l.text))
        .map_or(Format::Unknown, Format::Lines)
}

/// The first row of table 8.2 (FORMATS.md §8.2 "recognised by") that claims
/// one line, tried in row order; `None` when no row does.
pub fn claim(line: &str) -> Option<Dialect> {
    if tagged::claims(line) {
        Some(Dialect::Tagged)
    } else if claude::claims(line) {
        Some(Dialect::Claude)
    } else if vscode::claims(line) {
        Some(Dialect::VsCode)
    } else if vscode::claims_bracketed(line) {
        Some(Dialect::Bracketed)
    } else if lsp::claims(line) {
        Some(Dialect::Lsp)
    } else if twoline::claims(line) {
        Some(Dialect::TwoLine)
    } else if supergateway::claims(line) {
        Some(Dialect::Supergateway)
    } else if inspect::claims(line) {
        Some(Dialect::Inspect)
    } else if arrow::claims(line) {
        Some(Dialect::Arrow)
    } else if envelope::claims(line) {
        Some(Dialect::Envelope)
    } else if bare::claims(line) {
        Some(Dialect::Bare)
    } else {
        None
    }
}

/// Parses a line log in a known dialect (FORMATS.md §8.2). A lone
/// [`Dialect::Pair`] half takes its direction from its file name
/// (§8.3.8: "a half whose partner is absent is read alone").
pub fn parse_lines(input: Input<'_>, dialect: Dialect) -> Parsed {
    match dialect {
        Dialect::Tagged => tagged::parse(input),
        Dialect::Claude => claude::parse(input),
        Dialect::VsCode => vscode::parse(input),
        Dialect::Bracketed => vscode::parse_bracketed(input),
        Dialect::Lsp => lsp::parse(input),
        Dialect::TwoLine => twoline::parse(input),
        Dialect::Supergateway => supergateway::parse(input),
        Dialect::Inspect => inspect::parse(input),
        Dialect::Arrow => arrow::parse(input),
        Dialect::Envelope => envelope::parse(input),
        Dialect::Bare => bare::parse(input),
        Dialect::Pair => {
            let (stem, dir) = pair::pair_name(input.name).unwrap_or((input.name, Direction::C2s));
            match dir {
                Direction::C2s => pair::parse(Some(input), None, stem),
                Direction::S2c => pair::parse(None, Some(input), stem),
            }
        }
    }
}

/// The one-line message for an input no dialect recognises (FORMATS.md
/// §8.1): the file's name and the first two non-blank lines, quoted,
/// shortened and with control characters escaped.
pub fn unknown_message(input: Input<'_>) -> String {
    let name = escape(input.name, usize::MAX);
    let firsts: Vec<String> = lines(input.text)
        .filter(|l| !is_blank(l.text))
        .take(2)
        .map(|l| format!("line {} \"{}\"", l.number, escape(l.text, 60)))
        .collect();
    if firsts.is_empty() {
        format!("{name}: no known format: the input holds no non-blank line")
    } else {
        format!(
            "{name}: no known format (not HAR, not SSE, no line of a FORMATS.md §8.2 dialect); first lines: {}",
            firsts.join(", ")
        )
    }
}

/// HAR (FORMATS.md §4): the top-level object's first member is `log` holding
/// an object; or a document whose first line is not a whole JSON value (a
/// pretty-printed one) naming `"log"` and `"entries"` near its top.
fn looks_like_har(body: &str) -> bool {
    let after = body.get(1..).unwrap_or("").trim_start();
    if let Some(rest) = after.strip_prefix("\"log\"")
        && let Some(r) = rest.trim_start().strip_prefix(':')
    {
        return r.trim_start().starts_with('{');
    }
    let first_line = body.split('\n').next().unwrap_or("").trim_end();
    if serde_json::from_str::<IgnoredAny>(first_line).is_ok() {
        return false;
    }
    let head = prefix_chars(body, 64 * 1024);
    head.contains("\"log\"") && head.contains("\"entries\"")
}

/// A raw SSE capture opens with an SSE field, a comment or an HTTP status
/// line (FORMATS.md §8.1, §5).
fn is_sse_start(line: &str) -> bool {
    line.starts_with(':')
        || ["data:", "event:", "id:", "retry:"]
            .iter()
            .any(|f| line.starts_with(f))
        || line
            .strip_prefix("HTTP/")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char
/// boundary.
fn prefix_chars(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `s` with `\`, `"`, control, line-separator and bidi characters escaped,
/// cut after `max` characters (with `…`).
pub(crate) fn escape(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i >= max {
            out.push('…');
            break;
        }
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// Blank lines are skipped everywhere (FORMATS.md §8.1 "Lines").
pub(crate) fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

// ---------------------------------------------------------------------------
// Grammar shared by the dialects (FORMATS.md §8.1 "Timestamps").

fn digits<'a>(n: usize) -> impl FnMut(&'a str) -> IResult<&'a str, &'a str> {
    take_while_m_n(n, n, |c: char| c.is_ascii_digit())
}

fn date(s: &str) -> IResult<&str, &str> {
    recognize((digits(4), char('-'), digits(2), char('-'), digits(2))).parse(s)
}

fn clock(s: &str) -> IResult<&str, &str> {
    recognize((
        digits(2),
        char(':'),
        digits(2),
        char(':'),
        digits(2),
        opt((char('.'), digit1)),
    ))
    .parse(s)
}

fn zone(s: &str) -> IResult<&str, &str> {
    alt((
        tag("Z"),
        tag("z"),
        recognize((one_of("+-"), digits(2), opt(char(':')), digits(2))),
    ))
    .parse(s)
}

/// An ISO 8601 timestamp `YYYY-MM-DDTHH:MM:SS[.f][ZONE]` (Claude, tagged,
/// arrows; FORMATS.md §8.1). The zone is optional here: without one
/// [`parse_iso`] reads it as UTC.
pub(crate) fn iso_ts(s: &str) -> IResult<&str, &str> {
    recognize((date, one_of("Tt"), clock, opt(zone))).parse(s)
}

/// A local wall-clock timestamp `YYYY-MM-DD HH:MM:SS[.mmm]` (VS Code,
/// Cursor; FORMATS.md §8.1: zone unknown, read as if UTC).
pub(crate) fn local_ts(s: &str) -> IResult<&str, &str> {
    recognize((date, char(' '), clock)).parse(s)
}

/// An ISO timestamp followed by spaces or tabs (an optional line prefix).
pub(crate) fn iso_ts_then_space(s: &str) -> IResult<&str, &str> {
    let (rest, ts) = iso_ts(s)?;
    let (rest, _) = nom::character::complete::space1(rest)?;
    Ok((rest, ts))
}

/// `[WORD]`: a bracketed, non-empty text without `]`.
pub(crate) fn bracket(s: &str) -> IResult<&str, &str> {
    delimited(char('['), take_till1(|c| c == ']'), char(']')).parse(s)
}

/// A log level word (FORMATS.md §8.3.1: `info`, `warn`, `warning`, `error`,
/// `debug`, `trace`, `verbose`, any case).
pub(crate) fn is_level(word: &str) -> bool {
    [
        "info", "warn", "warning", "error", "debug", "trace", "verbose",
    ]
    .iter()
    .any(|l| word.eq_ignore_ascii_case(l))
}

/// A host's report that it could not parse a line of server stdout
/// (FORMATS.md §8.1 `non_json_line` (b)).
pub(crate) fn is_json_parse_error(text: &str) -> bool {
    [
        "is not valid JSON",
        "Unexpected token",
        "Unexpected end of JSON input",
        "Unexpected non-whitespace character after JSON",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Host text after a value or an error (FORMATS.md §8.1 "Payload"): the
/// Claude 2025-09 suffix ` { metadata: undefined }`, or the ` {` that opens a
/// multi-line metadata block (§8.3.1).
pub(crate) fn trim_host_suffix(text: &str) -> &str {
    let t = text.trim_end();
    let t = t
        .strip_suffix("{ metadata: undefined }")
        .unwrap_or(t)
        .trim_end();
    t.strip_suffix(" {").unwrap_or(t).trim_end()
}

// ---------------------------------------------------------------------------
// Building records.

/// Everything about a frame but its payload: session key, split rule,
/// direction, time and 1-based line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'k> {
    /// Session key.
    pub(crate) key: &'k str,
    /// How the key splits into sessions.
    pub(crate) split: Split,
    /// Direction (`None` only for unreadable NDJSON lines).
    pub(crate) direction: Option<Direction>,
    /// Time, µs.
    pub(crate) ts: Option<Micros>,
    /// 1-based line number.
    pub(crate) line: u64,
}

impl<'k> At<'k> {
    /// A frame of session key `key` that a new process start splits
    /// ([`Split::ByStart`], FORMATS.md §8.1), at 1-based line `line`.
    pub(crate) fn by_start(
        key: &'k str,
        direction: Option<Direction>,
        ts: Option<Micros>,
        line: u64,
    ) -> At<'k> {
        At {
            key,
            split: Split::ByStart,
            direction,
            ts,
            line,
        }
    }
}

/// Collects the records of one input (FORMATS.md §8.1 "Traffic",
/// "Payload", "`non_json_line`").
pub(crate) struct Sink<'a> {
    input: Input<'a>,
    parsed: Parsed,
    /// Prefix of every error message (a pair half names its file).
    error_prefix: String,
    /// Lines whose timestamp could not be read (the first is reported).
    bad_ts: u64,
    /// The last session key given out: consecutive frames of one session
    /// share it (no allocation per frame).
    last_key: Option<Arc<str>>,
}

impl<'a> Sink<'a> {
    /// A sink for one input of `dialect`.
    pub(crate) fn new(input: Input<'a>, dialect: Dialect) -> Self {
        Sink {
            input,
            parsed: Parsed {
                format: "stdio",
                dialect: dialect.name(),
                ..Default::default()
            },
            error_prefix: String::new(),
            bad_ts: 0,
            last_key: None,
        }
    }

    /// Errors will start with `prefix` (e.g. the file's name).
    pub(crate) fn with_error_prefix(mut self, prefix: String) -> Self {
        self.error_prefix = prefix;
        self
    }

    /// Byte offset of `part` (a slice of the input text) in the input.
    fn offset_of(&self, part: &str) -> u64 {
        let base = self.input.text.as_ptr() as usize;
        (part.as_ptr() as usize)
            .checked_sub(base)
            .filter(|o| *o <= self.input.text.len())
            .unwrap_or(0) as u64
    }

    fn prov(&self, line: u64, part: &str) -> Provenance {
        Provenance {
            file: self.input.file,
            location: Location::line(line),
            offset: self.offset_of(part),
            len: u32::try_from(part.len()).unwrap_or(u32::MAX),
        }
    }

    /// A frame whose payload text is `part` (a slice of the input).
    pub(crate) fn frame(&mut self, at: At<'_>, part: &str, payload: Payload) {
        self.frame_timed(at, part, payload, None);
    }

    /// A frame with the latency the log states for it (µs; FORMATS.md §8.1
    /// "Stated durations win").
    pub(crate) fn frame_timed(
        &mut self,
        at: At<'_>,
        part: &str,
        payload: Payload,
        stated_latency: Option<Micros>,
    ) {
        let prov = self.prov(at.line, part);
        let key = match &self.last_key {
            Some(k) if **k == *at.key => k.clone(),
            _ => {
                let k: Arc<str> = at.key.into();
                self.last_key = Some(k.clone());
                k
            }
        };
        self.parsed.records.push(Record::Frame(Frame {
            key,
            split: at.split,
            direction: at.direction,
            ts: at.ts,
            stated_latency,
            event_id: None,
            prov,
            payload,
            http: None,
        }));
    }

    /// A recorder payload (tagged, arrows, NDJSON): exactly one JSON object
    /// or array, else `non_json_line` (FORMATS.md §8.1 "Payload").
    pub(crate) fn exact(&mut self, at: At<'_>, text: &str) {
        let part = text.trim_matches([' ', '\t', '\r', '\n']);
        let payload = parse_payload(part).unwrap_or(Payload::NonJson);
        self.frame(at, part, payload);
    }

    /// A host payload (Claude, VS Code, Cursor): the first JSON value after
    /// the marker; the rest of the line is dropped (FORMATS.md §8.1
    /// "Payload").
    pub(crate) fn host(&mut self, at: At<'_>, text: &str) {
        let start = text.trim_start_matches([' ', '\t']);
        match first_value_len(start).and_then(|n| start.get(..n)) {
            Some(value) => {
                let payload = parse_payload(value).unwrap_or(Payload::NonJson);
                self.frame(at, value, payload);
            }
            None => self.frame(at, trim_host_suffix(start), Payload::NonJson),
        }
    }

    /// A `non_json_line` whose evidence is `part`.
    pub(crate) fn non_json(&mut self, at: At<'_>, part: &str) {
        self.frame(at, part, Payload::NonJson);
    }

    /// A process-start line (FORMATS.md §8.1 "Sessions"): a marker record;
    /// the line also counts as a non-traffic line.
    pub(crate) fn process_start(&mut self, key: &str, line: &Line<'_>) {
        let prov = self.prov(line.number, line.text);
        self.parsed.records.push(Record::ProcessStart {
            key: key.into(),
            prov,
        });
        self.other();
    }

    /// A line that is not traffic (stderr, lifecycle, banners).
    pub(crate) fn other(&mut self) {
        self.parsed.other_lines += 1;
    }

    /// A recoverable problem worth telling the user.
    pub(crate) fn error(&mut self, line: u64, msg: &str) {
        let e = format!("{}line {line}: {msg}", self.error_prefix);
        self.parsed.errors.push(e);
    }

    /// Reads a timestamp matched by the grammar; a date chrono rejects
    /// (`2025-13-45`) leaves the line without a time and is reported (the
    /// first such line by number, the rest as a count).
    pub(crate) fn ts(&mut self, line: u64, text: &str) -> Option<Micros> {
        let v = parse_iso(text);
        if v.is_none() {
            self.bad_ts += 1;
            if self.bad_ts == 1 {
                self.error(
                    line,
                    &format!(
                        "timestamp \"{}\" is not a valid time; the line has none",
                        escape(text, 40)
                    ),
                );
            }
        }
        v
    }

    /// Sets the dialect name (Cursor files read by the VS Code parser).
    pub(crate) fn set_dialect(&mut self, name: &'static str) {
        self.parsed.dialect = name;
    }

    /// The collected result.
    pub(crate) fn finish(mut self) -> Parsed {
        if self.bad_ts > 1 {
            let e = format!(
                "{}{} more lines with unreadable timestamps",
                self.error_prefix,
                self.bad_ts - 1
            );
            self.parsed.errors.push(e);
        }
        self.parsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        assert_eq!(
            iso_ts("2025-01-01T12:00:00.000Z [x]").map(|r| r.1),
            Ok("2025-01-01T12:00:00.000Z")
        );
        assert_eq!(
            iso_ts("2025-01-01T14:00:00+02:00 x").map(|r| r.1),
            Ok("2025-01-01T14:00:00+02:00")
        );
        assert_eq!(
            iso_ts("2025-01-01T12:00:00.5 x").map(|r| r.1),
            Ok("2025-01-01T12:00:00.5")
        );
        assert!(iso_ts("2025-01-01 12:00:00.000").is_err());
        assert_eq!(
            local_ts("2025-01-01 12:00:00.000 [info]").map(|r| r.1),
            Ok("2025-01-01 12:00:00.000")
        );
        assert_eq!(bracket("[my server] x"), Ok((" x", "my server")));
        assert!(bracket("[] x").is_err());
        assert!(is_level("WARNING") && !is_level("STDIN"));
        assert_eq!(
            trim_host_suffix("x is not valid JSON {"),
            "x is not valid JSON"
        );
        assert_eq!(trim_host_suffix("abc { metadata: undefined }"), "abc");
    }

    #[test]
    fn detects_har_sse_and_rows_in_order() {
        assert_eq!(
            detect("{\n  \"log\": {\n \"version\": \"1.2\", \"entries\": []}}"),
            Format::Har
        );
        assert_eq!(
            detect("\u{feff}{\"log\":{\"version\":\"1.2\",\"entries\":[]}}"),
            Format::Har
        );
        assert_eq!(
            detect("{\n \"version\": 1,\n \"log\": {\"entries\": []}}"),
            Format::Har
        );
        assert_eq!(
            detect("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"),
            Format::Sse
        );
        assert_eq!(detect("\n: ping\n\ndata: {}\n\n"), Format::Sse);
        assert_eq!(detect("event: message\ndata: {}\n\n"), Format::Sse);
        // Row 1 before row 2/3; row 11 before row 12.
        assert_eq!(
            detect("2025-01-01T00:00:00Z [STDIN] {}\n"),
            Format::Lines(Dialect::Tagged)
        );
        assert_eq!(
            detect("banner\n2025-01-01T00:00:00.000Z [s] [info] x\n"),
            Format::Lines(Dialect::Claude)
        );
        assert_eq!(
            detect("2025-01-01 00:00:00.000 [info] x\n"),
            Format::Lines(Dialect::VsCode)
        );
        assert_eq!(detect("noise\n\n> {}\n"), Format::Lines(Dialect::Arrow));
        assert_eq!(
            detect("{\"dir\":\"c2s\",\"msg\":{}}\n"),
            Format::Lines(Dialect::Envelope)
        );
        assert_eq!(
            detect("{\"jsonrpc\":\"2.0\",\"log\":1}\n"),
            Format::Lines(Dialect::Bare)
        );
        assert_eq!(
            detect("{\"jsonrpc\":\"2.0\"\n[1]\n"),
            Format::Lines(Dialect::Bare)
        );
        assert_eq!(detect(""), Format::Unknown);
        assert_eq!(
            detect("[Trace - 1:24:27 PM] Sending notification 'x'.\n"),
            Format::Lines(Dialect::Lsp)
        );
        // Rows 4/5, the bracketed host log, then rows 6 to 10 in order.
        assert_eq!(
            detect("[2025-01-01 00:00:00.000][info] [s]Connection state: Starting\n"),
            Format::Lines(Dialect::Bracketed)
        );
        assert_eq!(
            detect("Zed\n// Receive (took 2.8ms):\n{}\n"),
            Format::Lines(Dialect::TwoLine)
        );
        assert_eq!(
            detect("[supergateway] Starting...\n"),
            Format::Lines(Dialect::Supergateway)
        );
        assert_eq!(
            detect("lsp DEBUG --> { id: 1 }\n"),
            Format::Lines(Dialect::Inspect)
        );
        assert_eq!(detect("DEBUG\n--> {}\n"), Format::Lines(Dialect::Arrow));
        assert_eq!(
            detect("[Trace - 1:24:27 PMX] x\n[Trace - 99:00:00] y\n"),
            Format::Unknown
        );
    }

    #[test]
    fn unknown_message_is_one_escaped_line() {
        let m = unknown_message(Input {
            file: 0,
            name: "a.log",
            text: "\n  \nhello \u{1b}[31m \"x\"\tand a very long tail that goes on and on and on and on and on\nsecond\nthird",
        });
        assert!(!m.contains('\n') && !m.contains('\u{1b}'), "{m}");
        assert!(
            m.starts_with("a.log: ") && m.contains("line 3 \"hello \\u{1b}[31m \\\"x\\\"\\t"),
            "{m}"
        );
        assert!(
            m.contains('…') && m.contains("line 4 \"second\"") && !m.contains("third"),
            "{m}"
        );
        assert!(
            unknown_message(Input {
                file: 0,
                name: "e",
                text: "\n\n"
            })
            .contains("no non-blank line")
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        let odd = [
            "\u{feff}",
            "{",
            "[",
            "{\"log\"",
            "{\"log\":",
            "é{",
            "2025-01-01T",
            "[STDIN]",
            "-->",
            "<",
            "\u{2028}\n{",
            "2025-01-01T00:00:00Z [é] [info] Message from client: {\"a\":\"é",
            "2025-01-01 00:00:00.000 [info] [editor -> server] é",
            "[Trace - 1:24:27 PM] Received response 'é - (é)' in é",
            "[Trace - 1:24:27 PM] Sending request 'é",
            "// Receive (took é):\n{\"é",
            "// Send:\n[\n",
            "[supergateway] Child → SSE: { a: 'é",
            "[supergateway] Child → SSE: [",
            "é DEBUG <-- { é: [Obj",
            "[2025-01-01 00:00:00.000][info] [é",
        ];
        for t in odd {
            let f = detect(t);
            let input = Input {
                file: 0,
                name: "x",
                text: t,
            };
            for d in Dialect::ALL {
                let _ = parse_lines(input, d);
            }
            let _ = (f, unknown_message(input));
        }
    }
}

/// Parses every `.log` case and every stdio capture of `tests/data/` and checks
/// detection, message counts and `non_json_line`s against its
/// `.expected.json` (tests/data/cases/README.md "counts").
#[cfg(test)]
mod samples {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::record::{Id, Kind, Member, ValidId};

    #[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
    struct Dir {
        requests: u64,
        notifications: u64,
        responses: u64,
        batches: u64,
    }

    #[derive(Debug, Default)]
    struct Counts {
        c2s: Dir,
        s2c: Dir,
        non_json: Vec<Option<Direction>>,
        process_starts: u64,
    }

    impl Counts {
        fn total(&self) -> Dir {
            Dir {
                requests: self.c2s.requests + self.s2c.requests,
                notifications: self.c2s.notifications + self.s2c.notifications,
                responses: self.c2s.responses + self.s2c.responses,
                batches: self.c2s.batches + self.s2c.batches,
            }
        }
    }

    fn count(p: &Parsed) -> Counts {
        let mut c = Counts::default();
        for r in &p.records {
            let f = match r {
                Record::Frame(f) => f,
                Record::ProcessStart { .. } => {
                    c.process_starts += 1;
                    continue;
                }
            };
            let d = match f.direction {
                Some(Direction::C2s) => &mut c.c2s,
                Some(Direction::S2c) => &mut c.s2c,
                None => {
                    assert!(
                        matches!(f.payload, Payload::NonJson),
                        "direction None on a JSON frame"
                    );
                    c.non_json.push(None);
                    continue;
                }
            };
            let mut add = |k: Kind| match k {
                Kind::Request => d.requests += 1,
                Kind::Notification => d.notifications += 1,
                Kind::Response => d.responses += 1,
            };
            match &f.payload {
                Payload::Single(m) => add(m.kind),
                Payload::Batch(ms) => {
                    for m in ms {
                        if let Member::Message(m) = m {
                            add(m.kind);
                        }
                    }
                    d.batches += 1;
                }
                Payload::NonJson => c.non_json.push(f.direction),
                Payload::Unparseable => panic!("line logs never make Unparseable"),
            }
        }
        c
    }

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
    }

    fn expected(path: &Path) -> serde_json::Value {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn dir_of(s: &serde_json::Value) -> Option<Direction> {
        match s.as_str() {
            Some("c2s") => Some(Direction::C2s),
            Some("s2c") => Some(Direction::S2c),
            _ => None,
        }
    }

    /// Checks totals and `non_json_line` findings (with their directions)
    /// against an expected file.
    fn check(name: &str, c: &Counts, exp: &serde_json::Value) {
        let counts = &exp["facts"]["counts"];
        let want = Dir {
            requests: counts["requests"].as_u64().unwrap_or(u64::MAX),
            notifications: counts["notifications"].as_u64().unwrap_or(u64::MAX),
            responses: counts["responses"].as_u64().unwrap_or(u64::MAX),
            batches: counts["batches"].as_u64().unwrap_or(u64::MAX),
        };
        assert_eq!(c.total(), want, "{name}: counts");
        let mut want_nj: Vec<Option<Direction>> = exp["facts"]["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["kind"] == "non_json_line")
            .map(|f| dir_of(&f["direction"]))
            .collect();
        let mut got_nj = c.non_json.clone();
        want_nj.sort();
        got_nj.sort();
        assert_eq!(got_nj, want_nj, "{name}: non_json_line directions");
    }

    fn read(path: &Path) -> String {
        let t = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        t.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(t)
    }

    #[test]
    fn cases() {
        let want: BTreeMap<&str, Option<Dialect>> = [
            ("b04", Some(Dialect::Arrow)),
            ("b07", Some(Dialect::Claude)),
            ("b08", Some(Dialect::Arrow)),
            ("b09", Some(Dialect::Arrow)),
            ("b13", Some(Dialect::Arrow)),
            ("b31", Some(Dialect::Arrow)),
            ("l01", Some(Dialect::Claude)),
            ("l02", Some(Dialect::Claude)),
            ("l03", Some(Dialect::VsCode)),
            ("l05", Some(Dialect::VsCode)),
            ("l07", Some(Dialect::Lsp)),
        ]
        .into_iter()
        .collect();
        let dir = root().join("cases");
        let mut seen = 0;
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .expect("tests/data/cases")
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for path in entries {
            let file = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_owned();
            let text = read(&path);
            match path.extension().and_then(|e| e.to_str()) {
                Some("har") => assert_eq!(detect(&text), Format::Har, "{file}"),
                Some("sse") => assert_eq!(detect(&text), Format::Sse, "{file}"),
                Some("log") => {
                    let id = file.get(..3).unwrap_or("");
                    let Some(dialect) = want.get(id) else {
                        panic!("{file}: no expected dialect")
                    };
                    seen += 1;
                    let input = Input {
                        file: 0,
                        name: &file,
                        text: &text,
                    };
                    match (detect(&text), dialect) {
                        (Format::Lines(d), Some(w)) => assert_eq!(d, *w, "{file}"),
                        (Format::Unknown, None) => {
                            let m = unknown_message(input);
                            assert!(m.contains(&file) && m.contains("[Trace - "), "{m}");
                            continue;
                        }
                        (f, w) => panic!("{file}: detected {f:?}, want {w:?}"),
                    }
                    let p = parse_lines(input, dialect.unwrap_or(Dialect::Bare));
                    assert_eq!(
                        (p.format, p.errors.len()),
                        ("stdio", 0),
                        "{file}: {:?}",
                        p.errors
                    );
                    let c = count(&p);
                    check(&file, &c, &expected(&path.with_extension("expected.json")));
                    match id {
                        // stderr line `npx: installed …` and five lifecycle lines.
                        "b07" => assert_eq!((c.process_starts, p.other_lines), (2, 7), "{file}"),
                        // 2 × 8 continuation lines and the start line.
                        "l01" => assert_eq!((c.process_starts, p.other_lines), (1, 17), "{file}"),
                        "l02" => assert_eq!(c.process_starts, 2, "{file}"),
                        // Starting server ×2, Connection state: Starting ×2.
                        "l03" => assert_eq!((c.process_starts, p.other_lines), (4, 7), "{file}"),
                        "l05" => assert_eq!((c.process_starts, p.dialect), (2, "cursor"), "{file}"),
                        // Every line is traffic; 6 stated latencies (`in Nms`).
                        "l07" => {
                            let stated = p
                                .records
                                .iter()
                                .filter(
                                    |r| matches!(r, Record::Frame(f) if f.stated_latency.is_some()),
                                )
                                .count();
                            assert_eq!(
                                (c.process_starts, p.other_lines, p.dialect, stated),
                                (0, 0, "lsp", 6),
                                "{file}"
                            );
                        }
                        _ => assert_eq!(c.process_starts, 0, "{file}"),
                    }
                }
                _ => {}
            }
        }
        assert_eq!(seen, want.len());
    }

    /// Cut anywhere (on a char boundary), every `.log` case still detects
    /// and parses without a panic, and every frame's evidence lies inside
    /// the text.
    #[test]
    fn every_prefix_of_a_log_case_is_safe() {
        let dir = root().join("cases");
        for e in std::fs::read_dir(&dir).expect("tests/data/cases").flatten() {
            let path = e.path();
            if path.extension().and_then(|x| x.to_str()) != Some("log") {
                continue;
            }
            let text = read(&path);
            let mut cut = 0;
            while cut <= text.len() {
                if text.is_char_boundary(cut) {
                    let t = &text[..cut];
                    let input = Input {
                        file: 0,
                        name: "p",
                        text: t,
                    };
                    let p = match detect(t) {
                        Format::Lines(d) => parse_lines(input, d),
                        _ => {
                            assert!(!unknown_message(input).contains('\n'));
                            cut += 7;
                            continue;
                        }
                    };
                    for r in &p.records {
                        if let Record::Frame(f) = r {
                            let end = f.prov.offset as usize + f.prov.len as usize;
                            assert!(
                                t.get(f.prov.offset as usize..end).is_some(),
                                "{}: cut {cut}",
                                path.display()
                            );
                        }
                    }
                }
                cut += 7;
            }
        }
    }

    /// Per-direction counts from tests/data/real/README.md ("c2s req/notif/resp/err |
    /// s2c …", errors folded into responses, invalid batch elements that are
    /// objects counted as responses).
    fn readme_counts(file: &str) -> (Dir, Dir) {
        let d = |requests, notifications, responses, batches| Dir {
            requests,
            notifications,
            responses,
            batches,
        };
        if file.starts_with("stdio_py-client__py-server") {
            (d(24, 1, 3, 0), d(3, 13, 24, 0))
        } else if file.starts_with("stdio_ts-client__py-server") {
            (d(23, 1, 3, 0), d(3, 13, 23, 0))
        } else if file.starts_with("stdio_raw-batches__server-everything") {
            (d(7, 3, 1, 3), d(0, 1, 3, 0))
        } else {
            panic!("{file}: no README counts")
        }
    }

    #[test]
    fn real_stdio_captures() {
        let dir = root().join("real");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .expect("tests/data/real")
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|n| n.starts_with("stdio_") && !n.ends_with(".expected.json"))
            .collect();
        files.sort();
        let mut checked = 0;
        for file in &files {
            let path = dir.join(file);
            let text = read(&path);
            let (p, want_dialect) = if file.ends_with(".server-to-client.jsonl") {
                continue; // read with its partner
            } else if let Some(stem) = file.strip_suffix(".client-to-server.jsonl") {
                let partner = format!("{stem}.server-to-client.jsonl");
                let s2c_text = read(&dir.join(&partner));
                let c2s = Input {
                    file: 0,
                    name: file,
                    text: &text,
                };
                let s2c = Input {
                    file: 1,
                    name: &partner,
                    text: &s2c_text,
                };
                assert_eq!(pair::pair_name(file), Some((stem, Direction::C2s)));
                let p = pair::parse(Some(c2s), Some(s2c), stem);
                assert_causal(&p, file);
                (p, Dialect::Pair)
            } else {
                let want = if file.ends_with(".claude.log") {
                    Dialect::Claude
                } else if file.ends_with(".logger.log") {
                    Dialect::Tagged
                } else if file.ends_with(".ndjson") {
                    Dialect::Envelope
                } else {
                    panic!("{file}: unexpected stdio capture")
                };
                assert_eq!(detect(&text), Format::Lines(want), "{file}");
                (
                    parse_lines(
                        Input {
                            file: 0,
                            name: file,
                            text: &text,
                        },
                        want,
                    ),
                    want,
                )
            };
            assert_eq!(
                (p.format, p.dialect),
                ("stdio", want_dialect.name()),
                "{file}"
            );
            assert!(p.errors.is_empty(), "{file}: {:?}", p.errors);
            let c = count(&p);
            check(
                file,
                &c,
                &expected(&dir.join(format!("{file}.expected.json"))),
            );
            assert_eq!((c.c2s, c.s2c), readme_counts(file), "{file}: by direction");
            let frames = p
                .records
                .iter()
                .filter(|r| matches!(r, Record::Frame(_)))
                .count() as u64;
            let non_blank = text.lines().filter(|l| !is_blank(l)).count() as u64;
            match want_dialect {
                // 54 non-blank stderr lines (of 56) + Initializing, Server
                // started, transport closed.
                Dialect::Claude => assert_eq!((c.process_starts, p.other_lines), (2, 57), "{file}"),
                Dialect::Tagged => assert_eq!(p.other_lines + frames, non_blank, "{file}"),
                _ => assert_eq!(p.other_lines, 0, "{file}"),
            }
            if want_dialect == Dialect::Tagged && file.starts_with("stdio_py") {
                assert_eq!(p.other_lines, 56, "{file}: [STDERR] lines");
            }
            // Same key for every frame: one capture, one server.
            let keys: std::collections::BTreeSet<&str> = p
                .records
                .iter()
                .filter_map(|r| {
                    if let Record::Frame(f) = r {
                        Some(&*f.key)
                    } else {
                        None
                    }
                })
                .collect();
            assert_eq!(keys.len(), 1, "{file}: keys {keys:?}");
            checked += 1;
        }
        assert_eq!(checked, 8);
    }

    /// In a merged pair every response with a valid id comes after a request
    /// with that id sent the other way (FORMATS.md §8.3.8).
    fn assert_causal(p: &Parsed, file: &str) {
        let mut sent: std::collections::HashSet<(Direction, ValidId)> = Default::default();
        for r in &p.records {
            let Record::Frame(f) = r else { continue };
            let Some(d) = f.direction else { continue };
            let msgs: Vec<&crate::record::Message> = match &f.payload {
                Payload::Single(m) => vec![m],
                Payload::Batch(ms) => ms
                    .iter()
                    .filter_map(|m| {
                        if let Member::Message(m) = m {
                            Some(m)
                        } else {
                            None
                        }
                    })
                    .collect(),
                _ => vec![],
            };
            for m in msgs {
                match (m.kind, m.id.valid()) {
                    (Kind::Request, Some(id)) => {
                        sent.insert((d, id));
                    }
                    (Kind::Response, Some(id)) => {
                        assert!(
                            sent.contains(&(d.other(), id.clone())),
                            "{file}: response {id:?} before its request"
                        )
                    }
                    _ => assert!(!matches!(m.id, Id::Other(_))),
                }
            }
        }
    }
}

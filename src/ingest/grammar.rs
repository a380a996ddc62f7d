//! The line grammar the dialects share (FORMATS.md §8.1 "Lines",
//! "Timestamps", "Payload"): blank lines, the timestamp and bracket
//! parsers (nom), host-text helpers, escaping for messages, and the bracket
//! counter for bodies spread over lines (§8.3.5, §8.3.6).

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1, take_while_m_n};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::sequence::delimited;
use nom::{IResult, Parser};

use super::lines::Lines;

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
// Timestamps, brackets and host text (FORMATS.md §8.1 "Timestamps").

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
/// [`parse_iso`](crate::record::time::parse_iso) reads it as UTC.
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
// Bodies spread over lines (FORMATS.md §8.3.5, §8.3.6).

/// Extends a BODY that opens `{` or `[` over the lines `rest` gives until
/// its brackets balance (FORMATS.md §8.3.6), stopping before a line
/// `is_start` claims (the next traffic line) and at the end of the input;
/// `rest` is left at the first line not taken. Returns the body (a slice of
/// `text`) and how many non-blank lines it took from `rest`.
pub(crate) fn continue_body<'t>(
    text: &'t str,
    rest: &mut Lines<'t>,
    body: &'t str,
    is_start: fn(&str) -> bool,
) -> (&'t str, usize) {
    let trimmed = body.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return (body, 0);
    }
    let mut bal = Balance::default();
    bal.feed(body);
    let (mut end, mut taken) = (body, 0);
    while bal.open() {
        let Some(l) = rest.peek() else { break };
        if is_start(l.text) {
            break;
        }
        rest.next();
        bal.feed(l.text);
        end = l.text;
        if !is_blank(l.text) {
            taken += 1;
        }
    }
    (span(text, body, end), taken)
}

/// The slice of `text` from the start of `first` to the end of `last` (both
/// slices of `text`); `first` alone when they are not.
pub(crate) fn span<'t>(text: &'t str, first: &'t str, last: &'t str) -> &'t str {
    let base = text.as_ptr() as usize;
    let start = (first.as_ptr() as usize).checked_sub(base);
    let end = (last.as_ptr() as usize)
        .checked_sub(base)
        .map(|e| e + last.len());
    match (start, end) {
        (Some(s), Some(e)) if s <= e => text.get(s..e).unwrap_or(first),
        _ => first,
    }
}

/// A bracket counter for bodies spread over lines (FORMATS.md §8.3.5,
/// §8.3.6): `{}` and `[]` outside `'…'`, `"…"` and `` `…` `` strings. Strings
/// never span lines in JSON or util.inspect output, so each line starts
/// outside one.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Balance {
    depth: i64,
    /// A closer came before its opener: the text can never balance.
    pub(crate) broken: bool,
}

impl Balance {
    /// Counts the brackets of one line.
    pub(crate) fn feed(&mut self, line: &str) {
        let mut quote: Option<u8> = None;
        let mut escaped = false;
        for b in line.bytes() {
            if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
                continue;
            }
            match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'{' | b'[' => self.depth = self.depth.saturating_add(1),
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth < 0 {
                        self.broken = true;
                    }
                }
                _ => {}
            }
        }
    }
    /// Brackets are still open (and can still close).
    pub(crate) fn open(&self) -> bool {
        self.depth > 0 && !self.broken
    }
    /// Every bracket closed, none too many.
    pub(crate) fn balanced(&self) -> bool {
        self.depth == 0 && !self.broken
    }
}

/// A byte range of a log's text (a line part kept without borrowing it).
pub(crate) type Span = std::ops::Range<usize>;

/// The range of `part` (a slice of `text`) in `text`; `0..len` when it is
/// not one.
pub(crate) fn span_of(text: &str, part: &str) -> Span {
    let start = (part.as_ptr() as usize)
        .checked_sub(text.as_ptr() as usize)
        .filter(|s| s + part.len() <= text.len())
        .unwrap_or(0);
    start..start + part.len()
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
    fn balance_counts_outside_strings() {
        let mut b = Balance::default();
        b.feed("{ a: '{[', b: \"}\", c: `]`, d: [");
        assert!(b.open());
        b.feed("] }");
        assert!(b.balanced());
        let mut b = Balance::default();
        b.feed("} {");
        assert!(!b.open() && !b.balanced());
    }

    #[test]
    fn a_body_continues_until_it_balances() {
        let text = "{ a: [\n\n  1 ] }\n{ b: 2 }\nnext";
        let mut rest = super::super::lines::lines(text);
        let first = rest.next().map_or("", |l| l.text);
        let (body, taken) = continue_body(text, &mut rest, first, |_| false);
        assert_eq!((body, taken), ("{ a: [\n\n  1 ] }", 1));
        assert_eq!(rest.next().map(|l| l.number), Some(4));
        let mut rest = super::super::lines::lines("x\n}");
        let (body, taken) = continue_body("{ a", &mut rest, "{ a", |l| l == "x");
        assert_eq!(
            (body, taken, rest.peek().map(|l| l.text)),
            ("{ a", 0, Some("x"))
        );
    }
}

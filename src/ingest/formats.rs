//! The table of input formats: one row per format or line dialect, giving
//! its name, how it claims an input, how it parses one and where a block of
//! a large log may start (FORMATS.md §8.1 "One dialect per file", table
//! 8.2). Detection ([`super::detect`]) and dispatch read the table in row
//! order; a dialect's file exports only the functions of its row.
//!
//! Adding a dialect: one new file, a [`Dialect`] variant (in
//! [`Dialect::ALL`]) and one row of `DIALECTS` at its place in the
//! detection order.

use super::input::Input;
use super::{
    arrow, bare, bracketed, cassette, claude, envelope, har, har_claim, inspect, inspector_history,
    lsp, mcpproxy, mcpremote, mcpsnoop, mcpspy, npmproxy, pair, sse, supergateway, tagged, twoline,
    vscode,
};
use crate::record::Parsed;

/// The format an input was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// HAR 1.2 JSON document (FORMATS.md §4).
    Har,
    /// A line log, one of the dialects of FORMATS.md §8.2.
    Lines(Dialect),
    /// A raw SSE capture (FORMATS.md §5); read in a later issue.
    Sse,
    /// An mcp-recorder cassette (FORMATS.md §9.1).
    Cassette,
    /// An MCP Inspector protocol-history export (FORMATS.md §9.2).
    InspectorHistory,
    /// Nothing recognisable: the message names the first lines read.
    Unknown,
}

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
    /// mcp-remote's plain stderr and `--debug` file (`[PID] …`,
    /// `[ISO][PID] Local → Remote message {…}`, §8.3.9), checked after row 8.
    McpRemote,
    /// mcp-proxy (PyPI) Python logging with pydantic reprs (`[D DATE TIME,ms.ms
    /// logger] Sending client message: root=JSONRPCRequest(…)`, §8.3.10).
    McpProxy,
    /// npm `mcp-proxy` (punkpeye) `--debug` stdout (`transport event {` +
    /// util.inspect, server→client only, §8.3.11).
    NpmProxy,
    /// Row 9: util.inspect tracers (`DEBUG --> BODY`, §8.3.6).
    Inspect,
    /// Row 10: arrow logs (`-->`, `<--`, `>`, `<`).
    Arrow,
    /// mcpsnoop's JSONL session log (§8.3.12), checked before row 11.
    Mcpsnoop,
    /// MCPSpy's JSONL output (§8.3.13), checked before row 11.
    Mcpspy,
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
    /// Every dialect, in table 8.2 row order (the per-direction pair last);
    /// also the order of the table's dialect rows.
    pub const ALL: [Dialect; 17] = [
        Dialect::Tagged,
        Dialect::Claude,
        Dialect::VsCode,
        Dialect::Bracketed,
        Dialect::Lsp,
        Dialect::TwoLine,
        Dialect::Supergateway,
        Dialect::McpRemote,
        Dialect::McpProxy,
        Dialect::NpmProxy,
        Dialect::Inspect,
        Dialect::Arrow,
        Dialect::Mcpsnoop,
        Dialect::Mcpspy,
        Dialect::Envelope,
        Dialect::Bare,
        Dialect::Pair,
    ];

    /// The short name written to `Parsed.dialect`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The dialect's row of [`DIALECTS`].
    pub(crate) fn spec(self) -> &'static FormatSpec {
        &DIALECTS[self as usize]
    }
}

/// How a row claims an input (FORMATS.md §8.1): rows of one kind are tried
/// in table order; whole-text rows first, then first-line rows on the first
/// non-blank line, then line rows on each non-blank line from the top.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Claim {
    /// By the whole text (a HAR document).
    Text(fn(&str) -> bool),
    /// By the first non-blank line (a raw SSE capture).
    FirstLine(fn(&str) -> bool),
    /// By one line: the first line some row claims decides (table 8.2).
    Line(fn(&str) -> bool),
    /// Never from content: known by its file name (a per-direction pair).
    ByName,
}

impl Claim {
    /// The whole-text claim, if the row has one.
    pub(crate) fn text(self) -> Option<fn(&str) -> bool> {
        match self {
            Claim::Text(f) => Some(f),
            _ => None,
        }
    }

    /// The first-line claim, if the row has one.
    pub(crate) fn first_line(self) -> Option<fn(&str) -> bool> {
        match self {
            Claim::FirstLine(f) => Some(f),
            _ => None,
        }
    }

    /// The line claim, if the row has one.
    pub(crate) fn line(self) -> Option<fn(&str) -> bool> {
        match self {
            Claim::Line(f) => Some(f),
            _ => None,
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FormatSpec {
    /// What an input this row claims is read as.
    pub(crate) format: Format,
    /// The row's short name (for a dialect, `Parsed.dialect`).
    pub(crate) name: &'static str,
    /// How the row claims an input.
    pub(crate) claim: Claim,
    /// Parses a whole input (or one block of it).
    pub(crate) parse: fn(Input<'_>) -> Parsed,
    /// Whether a line (its bytes, without the line end) may start a block
    /// of a large log; `None` when the format is never split (issue 5).
    pub(crate) block_start: Option<fn(&[u8]) -> bool>,
}

/// Any line may start a block: every line stands alone.
fn any_line(_: &[u8]) -> bool {
    true
}

/// The formats known from the whole text or its first line (FORMATS.md
/// §8.1), tried before any line dialect.
pub(crate) static FILE_FORMATS: [FormatSpec; 4] = [
    FormatSpec {
        format: Format::Har,
        name: "har",
        claim: Claim::Text(har_claim::claims),
        parse: har::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Cassette,
        name: cassette::NAME,
        claim: Claim::Text(cassette::claims),
        parse: cassette::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::InspectorHistory,
        name: inspector_history::NAME,
        claim: Claim::Text(inspector_history::claims),
        parse: inspector_history::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Sse,
        name: "sse",
        claim: Claim::FirstLine(sse::claims_start),
        parse: sse::parse_raw,
        block_start: None,
    },
];

/// The line dialects of FORMATS.md table 8.2, in row order (the order of
/// [`Dialect::ALL`]).
pub(crate) static DIALECTS: [FormatSpec; 17] = [
    FormatSpec {
        format: Format::Lines(Dialect::Tagged),
        name: tagged::NAME,
        claim: Claim::Line(tagged::claims),
        parse: tagged::parse,
        block_start: Some(any_line),
    },
    FormatSpec {
        format: Format::Lines(Dialect::Claude),
        name: claude::NAME,
        claim: Claim::Line(claude::claims),
        parse: claude::parse,
        block_start: Some(claude::block_start),
    },
    FormatSpec {
        format: Format::Lines(Dialect::VsCode),
        name: vscode::NAME,
        claim: Claim::Line(vscode::claims),
        parse: vscode::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::Bracketed),
        name: bracketed::NAME,
        claim: Claim::Line(bracketed::claims),
        parse: bracketed::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::Lsp),
        name: lsp::NAME,
        claim: Claim::Line(lsp::claims),
        parse: lsp::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::TwoLine),
        name: twoline::NAME,
        claim: Claim::Line(twoline::claims),
        parse: twoline::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::Supergateway),
        name: supergateway::NAME,
        claim: Claim::Line(supergateway::claims),
        parse: supergateway::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::McpRemote),
        name: mcpremote::NAME,
        claim: Claim::Line(mcpremote::claims),
        parse: mcpremote::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::McpProxy),
        name: mcpproxy::NAME,
        claim: Claim::Line(mcpproxy::claims),
        parse: mcpproxy::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::NpmProxy),
        name: npmproxy::NAME,
        claim: Claim::Line(npmproxy::claims),
        parse: npmproxy::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::Inspect),
        name: inspect::NAME,
        claim: Claim::Line(inspect::claims),
        parse: inspect::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::Arrow),
        name: arrow::NAME,
        claim: Claim::Line(arrow::claims),
        parse: arrow::parse,
        block_start: Some(any_line),
    },
    FormatSpec {
        format: Format::Lines(Dialect::Mcpsnoop),
        name: mcpsnoop::NAME,
        claim: Claim::Line(mcpsnoop::claims),
        parse: mcpsnoop::parse,
        block_start: Some(any_line),
    },
    FormatSpec {
        format: Format::Lines(Dialect::Mcpspy),
        name: mcpspy::NAME,
        claim: Claim::Line(mcpspy::claims),
        parse: mcpspy::parse,
        block_start: None,
    },
    FormatSpec {
        format: Format::Lines(Dialect::Envelope),
        name: envelope::NAME,
        claim: Claim::Line(envelope::claims),
        parse: envelope::parse,
        block_start: Some(any_line),
    },
    FormatSpec {
        format: Format::Lines(Dialect::Bare),
        name: bare::NAME,
        claim: Claim::Line(bare::claims),
        parse: bare::parse,
        block_start: Some(any_line),
    },
    FormatSpec {
        format: Format::Lines(Dialect::Pair),
        name: pair::NAME,
        claim: Claim::ByName,
        parse: pair::parse_alone,
        block_start: None,
    },
];

/// Every row, in detection order.
pub(crate) fn rows() -> impl Iterator<Item = &'static FormatSpec> {
    FILE_FORMATS.iter().chain(DIALECTS.iter())
}

/// The row of `format`; `None` for [`Format::Unknown`].
pub(crate) fn spec(format: Format) -> Option<&'static FormatSpec> {
    match format {
        Format::Lines(d) => Some(d.spec()),
        Format::Unknown => None,
        f => FILE_FORMATS.iter().find(|s| s.format == f),
    }
}

/// Parses a line log in a known dialect (FORMATS.md §8.2). A lone
/// [`Dialect::Pair`] half takes its direction from its file name
/// (§8.3.8: "a half whose partner is absent is read alone").
pub fn parse_lines(input: Input<'_>, dialect: Dialect) -> Parsed {
    (dialect.spec().parse)(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_dialect_order() {
        for (i, d) in Dialect::ALL.into_iter().enumerate() {
            assert_eq!(d as usize, i);
            assert_eq!(DIALECTS[i].format, Format::Lines(d));
            assert_eq!(
                spec(Format::Lines(d)).map(|s| s.format),
                Some(Format::Lines(d))
            );
        }
        let names: Vec<&str> = rows().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "har",
                "mcp-recorder",
                "inspector-history",
                "sse",
                "tagged",
                "claude",
                "vscode",
                "bracketed",
                "lsp",
                "twoline",
                "supergateway",
                "mcp-remote",
                "mcp-proxy",
                "mcp-proxy-npm",
                "inspect",
                "arrow",
                "mcpsnoop",
                "mcpspy",
                "envelope",
                "bare",
                "pair"
            ]
        );
        assert_eq!(spec(Format::Har).map(|s| s.name), Some("har"));
        assert_eq!(spec(Format::Sse).map(|s| s.name), Some("sse"));
        assert!(spec(Format::Unknown).is_none());
    }
}

//! Format detection (FORMATS.md §8.1 "One dialect per file"), by the rows
//! of the format table ([`super::formats`]) in row order: a HAR document
//! (§4), then a raw SSE capture (§5), then the rows of table 8.2 tried in
//! row order on each non-blank line from the top, skipping lines no row
//! claims; the first claimed line decides. Also the message for an input no
//! row claims.

use super::formats::{Claim, Format, rows};
pub use super::formats::{Dialect, parse_lines};
use super::grammar::{escape, is_blank};
use super::input::Input;
use super::lines::lines;
use crate::diag::Diagnostic;

/// Decides the format of a whole input (FORMATS.md §8.1): a HAR document
/// (one JSON value with a `log` object; §4), a raw SSE capture (first
/// non-blank line an SSE field, a comment or an HTTP status line; §5), else
/// the first line claimed by a row of table 8.2 in row order, else
/// [`Format::Unknown`].
pub fn detect(text: &str) -> Format {
    if let Some(f) = claimed(text, Claim::text) {
        return f;
    }
    let mut non_blank = lines(text).filter(|l| !is_blank(l.text));
    let Some(first) = non_blank.next() else {
        return Format::Unknown;
    };
    if let Some(f) = claimed(first.text, Claim::first_line) {
        return f;
    }
    match std::iter::once(first)
        .chain(non_blank)
        .find_map(|l| claim(l.text))
    {
        Some(Dialect::Bare) if !mostly_bare(text) => Format::Unknown,
        Some(d) => Format::Lines(d),
        None => Format::Unknown,
    }
}

/// How many of a text's first non-blank lines [`mostly_bare`] reads.
const BARE_WINDOW: usize = 64;

/// Bare NDJSON is a log whose every line is a message (FORMATS.md §8.2 row
/// 12): a text is read as one only when at least half of its first
/// [`BARE_WINDOW`] non-blank lines are JSON-RPC. A program or document
/// with one JSON-looking line among its text (a Python doctest `[]`, a
/// README's example) is no capture of traffic.
fn mostly_bare(text: &str) -> bool {
    let (mut seen, mut bare) = (0usize, 0usize);
    for l in lines(text).filter(|l| !is_blank(l.text)).take(BARE_WINDOW) {
        seen += 1;
        bare += usize::from(super::bare::claims(l.text));
    }
    bare * 2 >= seen
}

/// The first row of table 8.2 (FORMATS.md §8.2 "recognised by") that claims
/// one line, tried in row order; `None` when no row does.
pub fn claim(line: &str) -> Option<Dialect> {
    match claimed(line, Claim::line) {
        Some(Format::Lines(d)) => Some(d),
        _ => None,
    }
}

/// A test of one text: does the row claim it?
type ClaimTest = fn(&str) -> bool;

/// The format of the first row, in table order, whose claim of one kind
/// (`kind` picks it out) holds for `s`.
fn claimed(s: &str, kind: fn(Claim) -> Option<ClaimTest>) -> Option<Format> {
    rows()
        .find(|row| kind(row.claim).is_some_and(|claims| claims(s)))
        .map(|row| row.format)
}

/// The problem of an input no dialect recognises (FORMATS.md §8.1), or of
/// a JSON document that holds no JSON-RPC message: its first two non-blank
/// lines, quoted, shortened and with control
/// characters escaped (the run names the file). Fatal: nothing is read.
pub fn unknown_message(input: Input<'_>) -> Diagnostic {
    let firsts: Vec<String> = lines(input.text)
        .filter(|l| !is_blank(l.text))
        .take(2)
        .map(|l| format!("line {} \"{}\"", l.number, escape(l.text, 60)))
        .collect();
    // A JSON document that is not traffic (a package.json, a config): said
    // as such, not as an unknown log.
    let json_document = matches!(
        input.text.trim_start().as_bytes().first(),
        Some(b'{' | b'[')
    ) && serde_json::from_str::<serde::de::IgnoredAny>(
        input.text.trim_start_matches('\u{feff}'),
    )
    .is_ok();
    let message = if firsts.is_empty() {
        "no known format: the input holds no non-blank line".to_string()
    } else if json_document {
        format!(
            "no JSON-RPC traffic found: a JSON document with no JSON-RPC message (no \"jsonrpc\" member) and not a HAR or a capture format mcp-audit reads; first lines: {}",
            firsts.join(", ")
        )
    } else {
        format!(
            "no known format (not HAR, not SSE, no line of a log dialect mcp-audit reads: `mcp-audit analyze --help` lists them); first lines: {}",
            firsts.join(", ")
        )
    };
    Diagnostic::whole(message).fatal()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            detect("{\"jsonrpc\":\"2.0\"\n[{\"id\":1,\"result\":{}}]\n"),
            Format::Lines(Dialect::Bare)
        );
        // One JSON-RPC-looking line among text is no bare NDJSON log.
        assert_eq!(
            detect("def f():\n    \"\"\"\n    >>> f()\n    []\n    \"\"\"\n"),
            Format::Unknown
        );
        assert_eq!(
            detect("started\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"),
            Format::Lines(Dialect::Bare)
        );
        // JSON that is no JSON-RPC never makes a file bare NDJSON.
        assert_eq!(detect("{\"name\":\"pkg\"}\n[1]\n"), Format::Unknown);
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
        // mcp-remote: a line that is only `[PID] ` parses as the JSON array
        // `[17924]` and never decides; the summary lines do.
        assert_eq!(detect("[17924] \n"), Format::Unknown);
        assert_eq!(
            detect("[17924] Press Ctrl+C to exit\n[17924] \n[17924] [Local→Remote] initialize\n"),
            Format::Lines(Dialect::McpRemote)
        );
        assert_eq!(
            detect(
                "[2026-12-01T23:03:36.772Z][18014] Starting mcp-remote\n[2026-12-01T23:03:37.063Z][18014] Local → Remote message {\"method\":\"notifications/initialized\"}\n"
            ),
            Format::Lines(Dialect::McpRemote)
        );
        assert_eq!(
            detect("[D 2026-12-01 23:03:42,589.589 mcp_proxy.__main__] Starting\n"),
            Format::Lines(Dialect::McpProxy)
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
        let d = unknown_message(Input {
            file: 0,
            name: "a.log",
            text: "\n  \nhello \u{1b}[31m \"x\"\tand a very long tail that goes on and on and on and on and on\nsecond\nthird",
        });
        // The run names the file; nothing is read.
        assert!(d.input.is_none() && d.location.is_none() && d.fatal);
        let m = d.named("a.log").to_string();
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
            .message
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
            "[1] {\n  \"a\": [",
            "[1] [Local→Remote] é\n[1] {",
            "[2026-12-01T23:03:37.021Z][1] Remote → Local message {\"id\":",
            "[D 2026-12-01 23:03:42,682.682 x] SSE message: root=X(a=[{'b': (1,",
            "[D 2026-12-01 23:03:42,682.682 mcp_proxy] é",
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

    use super::super::pair;
    use super::*;
    use crate::record::{Direction, Id, Kind, Member, Parsed, Payload, Record, ValidId};

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
                // A reply a line log shows without its id (supergateway's
                // `Request error:`) is a lost frame: no message to count.
                Payload::Lost => {}
                Payload::Unparseable => {
                    panic!("line logs never make Unparseable frames")
                }
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
                            let m = unknown_message(input).named(file.as_str()).to_string();
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
                            assert!(!unknown_message(input).message.contains('\n'));
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

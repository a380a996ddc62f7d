//! The whole run on arbitrary text: detect (or force) a format, parse,
//! rebuild sessions, analyse, and render summary.json and the terminal
//! summary. Catches panics in the stages after the parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::analyze::{Config, analyze};
use mcp_audit::ingest::detect::Dialect;
use mcp_audit::ingest::{Format, Input, detect_format, parse};
use mcp_audit::reconstruct::build_sessions;
use mcp_audit::report::{InputInfo, Report, json, terminal};

fuzz_target!(|data: &[u8]| {
    // First byte: which format (most values: auto-detect, like the CLI).
    let Some((&sel, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let format = match sel {
        0 => Format::Har,
        1 => Format::Sse,
        2 => Format::Lines(Dialect::Tagged),
        3 => Format::Lines(Dialect::Claude),
        4 => Format::Lines(Dialect::VsCode),
        5 => Format::Lines(Dialect::Arrow),
        6 => Format::Lines(Dialect::Envelope),
        7 => Format::Lines(Dialect::Bare),
        8 => Format::Lines(Dialect::Lsp),
        9 => Format::Lines(Dialect::TwoLine),
        10 => Format::Lines(Dialect::Inspect),
        11 => Format::Lines(Dialect::Supergateway),
        12 => Format::Lines(Dialect::Bracketed),
        _ => detect_format(&text),
    };
    let parsed = parse(Input { file: 0, name: "f.log", text: &text }, format);
    let sessions = build_sessions(vec![(0, parsed.records, parsed.one_direction)]);
    let analysis = analyze(&Config::default(), &sessions);
    let infos = vec![InputInfo { file: "f.log".into(), other_lines: parsed.other_lines, ..Default::default() }];
    let rep = Report::new(&infos, &analysis);
    let _ = json::summary(&rep);
    let _ = terminal::render(&rep, false);
});

//! The whole run on arbitrary text: detect (or force) a format, parse,
//! run the pipeline's analysis (`pipeline::analyze_parsed`: sessions,
//! rules), and render summary.json and the terminal summary. Catches
//! panics in the stages after the parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::analyze::Config;
use mcp_audit::ingest::detect::Dialect;
use mcp_audit::ingest::{Format, Input, detect_format, parse};
use mcp_audit::pipeline;
use mcp_audit::report::{json, terminal};

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
    let input = ("f.log".to_string(), rest.len() as u64, parsed);
    let run = pipeline::analyze_parsed(&Config::default(), false, vec![input]);
    let rep = run.report();
    let _ = json::summary(&rep);
    let _ = terminal::text(&rep, false);
});

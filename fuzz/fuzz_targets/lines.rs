//! Every line-log dialect parser on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::ingest::detect::Dialect;
use mcp_audit::ingest::{Format, Input, parse};

const DIALECTS: [Dialect; 12] = Dialect::ALL;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for (i, d) in DIALECTS.iter().enumerate() {
        // Pair halves take their direction from the name: try both.
        let name = if i % 2 == 0 { "f.client-to-server.jsonl" } else { "f.server-to-client.jsonl" };
        let _ = parse(Input { file: 0, name, text: &text }, Format::Lines(*d));
    }
});

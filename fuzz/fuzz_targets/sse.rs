//! The WHATWG event-stream parser (HAR bodies) and raw SSE captures.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::ingest::{Input, sse};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = sse::events(&text);
    let _ = sse::parse_raw(Input { file: 0, name: "f.sse", text: &text });
});

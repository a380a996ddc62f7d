//! The HAR reader on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::ingest::{Input, har};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = har::parse(Input { file: 0, name: "f.har", text: &text });
});

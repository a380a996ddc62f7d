//! The HAR reader on arbitrary text: never panics, and the same result
//! whether the text is pushed whole or in small chunks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::ingest::{Input, har};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let whole = har::parse(Input { file: 0, name: "f.har", text: &text });
    let mut s = har::HarStream::new(0, "f.har");
    for piece in text.as_bytes().chunks(7) {
        s.push(piece);
    }
    let chunked = s.finish();
    assert_eq!(whole.errors, chunked.errors);
    assert_eq!(format!("{:?}", whole.records), format!("{:?}", chunked.records));
});

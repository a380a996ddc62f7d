//! Format detection on arbitrary bytes (decoded as the source does: lossy
//! UTF-8), plus the per-line dialect claim.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::ingest::{detect, detect_format};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = detect_format(&text);
    for line in text.lines().take(64) {
        let _ = detect::claim(line);
    }
});

//! JSON-RPC payload classification (one frame's JSON text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_audit::record::jsonrpc;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = jsonrpc::parse_payload(&text);
    let _ = jsonrpc::first_value_len(&text);
    let _ = jsonrpc::parse_message(&text);
});

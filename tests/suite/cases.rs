//! Every case in `tests/data/cases` (reduced from public bug reports) and every
//! real capture in `tests/data/real`, `real2` and `real3` with an
//! `.expected.json`, run through the real binary and checked with
//! `tools/check_case.py` (summary.json and pairs.csv).

use crate::common;

use common::{check_case, check_empty_case, root};

macro_rules! cases {
    ($($name:ident => $file:literal;)*) => {$(
        #[test]
        fn $name() {
            let dir = root().join("tests/data/cases");
            let input = dir.join($file);
            let stem = $file.rsplit_once('.').map(|x| x.0).unwrap();
            check_case(&input, &dir.join(format!("{stem}.expected.json")), stringify!($name));
        }
    )*};
}

macro_rules! real {
    ($($name:ident => $file:literal;)*) => {$(
        #[test]
        fn $name() {
            let dir = root().join("tests/data/real");
            check_case(&dir.join($file), &dir.join(concat!($file, ".expected.json")), stringify!($name));
        }
    )*};
}

/// Captures written by the tools users run (browser HAR recorders,
/// bridges) whose readers are not built yet: each is ignored with the
/// reason; `cargo test --release --test suite -- --ignored real` shows
/// where they stand.
macro_rules! real2 {
    ($($name:ident => $file:literal, $why:literal;)*) => {$(
        #[test]
        #[ignore = $why]
        fn $name() {
            let dir = root().join("tests/data/real2");
            check_case(&dir.join($file), &dir.join(concat!($file, ".expected.json")), stringify!($name));
        }
    )*};
}

cases! {
    b01_batch_reordered_by_balancer => "b01_batch_reordered_by_balancer.har";
    b03_string_id_echoed_as_integer => "b03_string_id_echoed_as_integer.har";
    b04_server_answers_every_request_with_id_zero => "b04_server_answers_every_request_with_id_zero.log";
    b05_constant_request_id_cross_wired => "b05_constant_request_id_cross_wired.har";
    b07_initialize_cancelled_after_slow_npx_install => "b07_initialize_cancelled_after_slow_npx_install.log";
    b08_invalid_envelopes_answered_as_valid => "b08_invalid_envelopes_answered_as_valid.log";
    b09_batch_with_notification_never_answered => "b09_batch_with_notification_never_answered.log";
    b11_single_reply_wrapped_in_array_with_error_null => "b11_single_reply_wrapped_in_array_with_error_null.har";
    b12_tool_exception_answered_with_null_id => "b12_tool_exception_answered_with_null_id.har";
    b13_parse_error_answered_with_null_id => "b13_parse_error_answered_with_null_id.log";
    b15_batch_refused_with_fresh_uuid_id => "b15_batch_refused_with_fresh_uuid_id.har";
    b16_batch_rejected_under_2025_03_26 => "b16_batch_rejected_under_2025_03_26.har";
    b18_responses_broadcast_to_every_session => "b18_responses_broadcast_to_every_session.har";
    b20_resume_with_stale_event_id_replays => "b20_resume_with_stale_event_id_replays.sse";
    b21_idle_post_stream_cut_by_edge => "b21_idle_post_stream_cut_by_edge.har";
    b25_fractional_request_id_rejected => "b25_fractional_request_id_rejected.har";
    b27_notification_batch_answered_with_empty_array => "b27_notification_batch_answered_with_empty_array.har";
    b29_notification_post_awaited_until_timeout => "b29_notification_post_awaited_until_timeout.har";
    b23_sse_crlf_line_endings => "b23_sse_crlf_line_endings.sse";
    b31_server_writes_null_for_notification => "b31_server_writes_null_for_notification.log";
    l01_claude_desktop_2025_09_metadata_dialect => "l01_claude_desktop_2025_09_metadata_dialect.log";
    l02_claude_desktop_2025_05_mcp_log_dialect => "l02_claude_desktop_2025_05_mcp_log_dialect.log";
    l03_vscode_editor_server_dialect => "l03_vscode_editor_server_dialect.log";
    l05_cursor_2025_12_dialect_late_cancel_reply => "l05_cursor_2025_12_dialect_late_cancel_reply.log";
    l07_lsp_client_trace_dialect_slow_tail => "l07_lsp_client_trace_dialect_slow_tail.log";
}

real! {
    har_conformance_client_initialize => "har_conformance-client-initialize__py-client.har";
    har_conformance_client_sse_retry => "har_conformance-client-sse-retry__py-client.har";
    har_conformance_client_tools_call => "har_conformance-client-tools-call__py-client.har";
    har_conformance_server_suite => "har_conformance-server-suite__server-everything.har";
    har_py_streamable_json => "har_py-streamable-json__py-client.har";
    har_py_streamable_sse => "har_py-streamable-sse__py-client.har";
    har_py_streamable_sse_raw_batches => "har_py-streamable-sse__raw-batches.har";
    har_py_streamable_sse_ts_client => "har_py-streamable-sse__ts-client.har";
    har_py_streamable_stateless_json => "har_py-streamable-stateless-json__py-client.har";
    har_ts_streamable_json => "har_ts-streamable-json__py-client.har";
    har_ts_streamable_sse => "har_ts-streamable-sse__py-client.har";
    har_ts_streamable_sse_raw_batches => "har_ts-streamable-sse__raw-batches.har";
    har_ts_streamable_sse_large => "har_ts-streamable-sse__ts-client__large.har";
    har_py_legacy_sse => "har_py-legacy-sse__py-client.har";
    sse_py_progress => "sse_py_events.progress.headers.sse";
    sse_py_slow_echo => "sse_py_events.slow_echo.body.sse";
    sse_py_legacy_get => "sse_py_legacy.get_sse.headers.sse";
    sse_ts_batch => "sse_ts_events.batch.body.sse";
    sse_ts_progress => "sse_ts_events.progress.headers.sse";
    sse_ts_resume => "sse_ts_events.resume.headers.sse";
    stdio_py_claude => "stdio_py-client__py-server.claude.log";
    stdio_py_pair => "stdio_py-client__py-server.client-to-server.jsonl";
    stdio_py_logger => "stdio_py-client__py-server.logger.log";
    stdio_py_ndjson => "stdio_py-client__py-server.ndjson";
    stdio_raw_batches_logger => "stdio_raw-batches__server-everything.logger.log";
    stdio_raw_batches_ndjson => "stdio_raw-batches__server-everything.ndjson";
    stdio_ts_pair => "stdio_ts-client__py-server.client-to-server.jsonl";
    stdio_ts_ndjson => "stdio_ts-client__py-server.ndjson";
}

real2! {
    real2_mcp_remote_debug => "x_stdio_mcp-remote.debug.log", "issue 11: mcp-remote --debug file";
    real2_supergateway_sse => "x_stdio_supergateway-sse.log", "issue 11: supergateway sessions split in two";
}

/// Real captures in `tests/data/real2` and `tests/data/real3` that are
/// read right today.
macro_rules! real_in {
    ($($name:ident => $dir:literal, $file:literal;)*) => {$(
        #[test]
        fn $name() {
            let dir = root().join($dir);
            check_case(&dir.join($file), &dir.join(concat!($file, ".expected.json")), stringify!($name));
        }
    )*};
}

real_in! {
    real2_chrome_har_params_only => "tests/data/real2", "har_browser-chrome-har__ts-streamable-sse.har";
    real2_devtools_open_streams => "tests/data/real2", "har_browser-devtools-sensitive__server-everything-streamable-open.har";
    real4_browser_devtools_sensitive => "tests/data/real4/browser", "har_browser-devtools-sensitive__ts-streamable-open.har";
    real4_browser_devtools_sanitized => "tests/data/real4/browser", "har_browser-devtools-sanitized__ts-streamable-open.har";
    real4_browser_chrome_har => "tests/data/real4/browser", "har_browser-chrome-har__ts-streamable-open.har";
    real4_browser_playwright_embed => "tests/data/real4/browser", "har_browser-playwright-embed__ts-streamable-open.har";
    real2_playwright_default => "tests/data/real2", "har_browser-playwright-default__ts-streamable-sse.har";
    real2_py1_raw_batches => "tests/data/real2", "x_har_py1-streamable__raw-batches.har";
    real3_sse_server_everything => "tests/data/real3", "sse_server-everything-post.curl-i.sse";
    real3_sse_curl_i => "tests/data/real3", "sse_streamable-post.curl-i.sse";
    real3_sse_curl => "tests/data/real3", "sse_streamable-post.curl.sse";
    real3_mitmproxy_receive_zero => "tests/data/real3", "x_har_mitmproxy__py1-streamable-feature-run.har";
}

/// Captures of set 3 whose readers are not built yet (issue 11).
macro_rules! real3 {
    ($($name:ident => $file:literal, $why:literal;)*) => {$(
        #[test]
        #[ignore = $why]
        fn $name() {
            let dir = root().join("tests/data/real3");
            check_case(&dir.join($file), &dir.join(concat!($file, ".expected.json")), stringify!($name));
        }
    )*};
}

real3! {
    real3_mcp_proxy => "x_stdio_mcp-proxy.debug.log", "issue 11: mcp-proxy (PyPI) Python repr logs are not read";
    real3_mcp_remote_debug_file => "x_stdio_mcp-remote.debug-file.log", "issue 11: mcp-remote --debug file";
    real3_mcp_remote_stderr => "x_stdio_mcp-remote.stderr.log", "issue 11: mcp-remote plain stderr (a `[PID] ` line reads as JSON)";
    real3_supergateway_sse_to_stdio => "x_stdio_supergateway-sse-to-stdio.log", "issue 11: supergateway --sse mode `Response:` lines";
}

/// Real captures that hold no JSON-RPC traffic (a client that hung before
/// it sent anything; a GET stream that carried no event): exit 2, and the
/// outputs say zero.
#[test]
fn har_py_legacy_sse_client_hung() {
    let dir = root().join("tests/data/real");
    let f = "har_py-legacy-sse__default-buffering-client-hung.har";
    check_empty_case(
        &dir.join(f),
        &dir.join(format!("{f}.expected.json")),
        "har_py_legacy_sse_client_hung",
    );
}

#[test]
fn sse_ts_get_stream() {
    let dir = root().join("tests/data/real");
    let f = "sse_ts_events.get_stream.headers.sse";
    check_empty_case(
        &dir.join(f),
        &dir.join(format!("{f}.expected.json")),
        "sse_ts_get_stream",
    );
}

//! Every case in `tests/data/cases` (reduced from public bug reports) and every
//! real capture in `tests/data/real`, `real2`, `real3`, `real4` and `real5` with an
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

/// Real captures in `tests/data/real2`, `real3`, `real4` and `real5` that are
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
    real4_browser_firefox => "tests/data/real4/browser", "har_browser-firefox__ts-streamable-open.har";
    real2_playwright_default => "tests/data/real2", "har_browser-playwright-default__ts-streamable-sse.har";
    real2_py1_raw_batches => "tests/data/real2", "x_har_py1-streamable__raw-batches.har";
    real3_sse_server_everything => "tests/data/real3", "sse_server-everything-post.curl-i.sse";
    real3_sse_curl_i => "tests/data/real3", "sse_streamable-post.curl-i.sse";
    real3_sse_curl => "tests/data/real3", "sse_streamable-post.curl.sse";
    real4_curl_json_refusals => "tests/data/real4/curl", "curl_py-mcp-1.30.0__refusals.curl-i.sse";
    real3_mitmproxy_receive_zero => "tests/data/real3", "x_har_mitmproxy__py1-streamable-feature-run.har";
    i12_har_fastmcp_4_1_4_tasks_tasks => "tests/data/real4/issue12", "har_fastmcp-4.1.4-tasks__tasks.har";
    i12_har_fastmcp_4_2_3_client_timeout => "tests/data/real4/issue12", "har_fastmcp-4.2.3__client-timeout.har";
    i12_har_fastmcp_4_2_3_mrtr => "tests/data/real4/issue12", "har_fastmcp-4.2.3__mrtr.har";
    i12_har_fastmcp_4_2_3_raw_2026 => "tests/data/real4/issue12", "har_fastmcp-4.2.3__raw-2026.har";
    i12_har_mcp_2_3_0_mcpserver_fastmcp_client_mrtr_listen => "tests/data/real4/issue12", "har_mcp-2.3.0-mcpserver__fastmcp-client__mrtr-listen.har";
    i12_har_py_mcp_1_30_0_json_raw_batches => "tests/data/real4/issue12", "har_py-mcp-1.30.0-json__raw-batches.har";
    i12_har_py_mcp_1_30_0_json_versions => "tests/data/real4/issue12", "har_py-mcp-1.30.0-json__versions.har";
    i12_har_rmcp_3_11_0_http_raw_2026 => "tests/data/real4/issue12", "har_rmcp-3.11.0-http__raw-2026.har";
    i12_har_rmcp_3_11_0_http_raw_legacy => "tests/data/real4/issue12", "har_rmcp-3.11.0-http__raw-legacy.har";
    i12_har_ts_sdk_1_32_2_json_raw_batches => "tests/data/real4/issue12", "har_ts-sdk-1.32.2-json__raw-batches.har";
    i12_har_ts_sdk_1_32_2_json_versions => "tests/data/real4/issue12", "har_ts-sdk-1.32.2-json__versions.har";
    i12_har_ts_server_2_4_0_raw_2026 => "tests/data/real4/issue12", "har_ts-server-2.4.0__raw-2026.har";
    i12_har_ts_server_2_4_0_raw_legacy => "tests/data/real4/issue12", "har_ts-server-2.4.0__raw-legacy.har";
    i12_stdio_mcp_2_3_0_mcpserver_fastmcp_client_mrtr_listen_logger => "tests/data/real4/issue12", "stdio_mcp-2.3.0-mcpserver__fastmcp-client__mrtr-listen.logger.log";
    i12_stdio_rmcp_3_11_0_raw_lines_logger => "tests/data/real4/issue12", "stdio_rmcp-3.11.0__raw-lines.logger.log";
    r5_har_ts_v2_healthy => "tests/data/real5/issue12", "har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.har";
    r5_har_ts_v2_listen_closed => "tests/data/real5/issue12", "har_ts-v2-2.4.0-server__ts-v2-2.4.0-client__listen-closed.har";
    r5_har_ts_v2_fastmcp_client_healthy => "tests/data/real5/issue12", "har_ts-v2-2.4.0-server__fastmcp-4.2.3-client__healthy.har";
    r5_stdio_ts_v2_healthy => "tests/data/real5/issue12", "stdio_ts-v2-2.4.0-server__ts-v2-2.4.0-client__healthy.logger.log";
    r5_har_fastmcp_4_1_4_healthy_tasks => "tests/data/real5/issue12", "har_fastmcp-4.1.4-tasks__fastmcp-client__healthy-tasks.har";
    r5_har_ts_sdk_1_32_2_ts_v2_client_fallback => "tests/data/real5/issue12", "har_ts-sdk-1.32.2-json__ts-v2-2.4.0-client__fallback.har";
    r5_har_ts_v2_raw_faults_2026 => "tests/data/real5/issue12", "har_ts-v2-2.4.0-server__raw-faults-2026.har";
    r5_har_mcp_2_3_0_raw_faults_2026 => "tests/data/real5/issue12", "har_mcp-2.3.0-mcpserver__raw-faults-2026.har";
    r5_har_ts_sdk_1_32_2_raw_faults_2026 => "tests/data/real5/issue12", "har_ts-sdk-1.32.2-json__raw-faults-2026.har";
    r5_har_ts_sdk_1_32_2_raw_faults_2025 => "tests/data/real5/issue12", "har_ts-sdk-1.32.2-json__raw-faults-2025.har";
    r5_har_ts_v2_raw_faults_2025 => "tests/data/real5/issue12", "har_ts-v2-2.4.0-server__raw-faults-2025.har";
    r5_har_mcp_2_3_0_raw_faults_2025 => "tests/data/real5/issue12", "har_mcp-2.3.0-mcpserver__raw-faults-2025.har";
    r5_har_ts_v2_raw_faults_cancel => "tests/data/real5/issue12", "har_ts-v2-2.4.0-server__raw-faults-cancel.har";
    r5_har_mcp_2_3_0_raw_faults_cancel => "tests/data/real5/issue12", "har_mcp-2.3.0-mcpserver__raw-faults-cancel.har";
    r5_stdio_ts_v2_raw_faults => "tests/data/real5/issue12", "stdio_ts-v2-2.4.0-server__raw-faults.logger.log";
    r5_stdio_mcp_2_3_0_raw_faults => "tests/data/real5/issue12", "stdio_mcp-2.3.0-mcpserver__raw-faults.logger.log";
    origin_har_ts_sdk_1_32_2 => "tests/data/real4/origin", "har_ts-sdk-1.32.2__origin.har";
    origin_har_fastmcp_4_2_3 => "tests/data/real4/origin", "har_fastmcp-4.2.3__origin.har";
    origin_har_mcp_2_3_0_mcpserver => "tests/data/real4/origin", "har_mcp-2.3.0-mcpserver__origin.har";
    mixed_har_ts_json_fastmcp => "tests/data/real4/mixed", "har_ts-sdk-1.32.2-json__fastmcp-4.2.3-client.har";
    mixed_har_ts_sse_fastmcp => "tests/data/real4/mixed", "har_ts-sdk-1.32.2-sse__fastmcp-4.2.3-client.har";
    mixed_har_py1_fastmcp => "tests/data/real4/mixed", "har_py-mcp-1.30.0__fastmcp-4.2.3-client.har";
    mixed_har_py1_ts_client => "tests/data/real4/mixed", "har_py-mcp-1.30.0__ts-client-2.4.0.har";
    mixed_har_fastmcp_py1_client => "tests/data/real4/mixed", "har_fastmcp-4.2.3__py-mcp-1.30.0-client.har";
    mixed_stdio_ts_fastmcp => "tests/data/real4/mixed", "stdio_ts-sdk-1.32.2__fastmcp-4.2.3-client.envelope.jsonl";
    mixed_stdio_py1_ts_client => "tests/data/real4/mixed", "stdio_py-mcp-1.30.0__ts-client-2.4.0.logger.log";
    reissue_har_driver => "tests/data/real4/reissue", "har_fastmcp-4.2.3-broken-stream__httpx-reissue-driver.har";
    reissue_har_fastmcp_app => "tests/data/real4/reissue", "har_fastmcp-4.2.3-broken-stream__fastmcp-4.2.3-client-app-reissue.har";
    cancel_stdio_fastmcp_4_2_3 => "tests/data/real4/cancel", "stdio_fastmcp-4.2.3__cancel-2026.logger.log";
    cancel_stdio_mcp_2_3_0_mcpserver => "tests/data/real4/cancel", "stdio_mcp-2.3.0-mcpserver__cancel-2026.logger.log";
    real2_mcp_remote_debug => "tests/data/real2", "x_stdio_mcp-remote.debug.log";
    real3_mcp_proxy => "tests/data/real3", "x_stdio_mcp-proxy.debug.log";
    real3_mcp_remote_debug_file => "tests/data/real3", "x_stdio_mcp-remote.debug-file.log";
    real3_mcp_remote_stderr => "tests/data/real3", "x_stdio_mcp-remote.stderr.log";
    real4_mcp_remote_sse_debug_file => "tests/data/real4/bridge", "x_stdio_mcp-remote-sse.debug-file.log";
    real4_mcp_remote_sse_debug_stderr => "tests/data/real4/bridge", "x_stdio_mcp-remote-sse.debug-stderr.log";
    real4_mcp_proxy_sse_client => "tests/data/real4/bridge", "x_stdio_mcp-proxy-sse-client.debug.log";
    real4_mcp_proxy_sse_server => "tests/data/real4/bridge", "x_stdio_mcp-proxy-sse-server.debug.log";
    real4_mcp_proxy_npm_stream => "tests/data/real4/bridge", "x_stdio_mcp-proxy-npm-stream.debug.log";
    real4_mcp_proxy_npm_sse => "tests/data/real4/bridge", "x_stdio_mcp-proxy-npm-sse.debug.log";
    real4_mcp_remote_stream_cancel_debug_file => "tests/data/real4/remote-cancel", "x_stdio_mcp-remote-stream-cancel.debug-file.log";
    real4_mcp_remote_sse_cancel_debug_file => "tests/data/real4/remote-cancel", "x_stdio_mcp-remote-sse-cancel.debug-file.log";
    real4_mcp_remote_stream_cancel_debug_stderr => "tests/data/real4/remote-cancel", "x_stdio_mcp-remote-stream-cancel.debug-stderr.log";
    real4_mcp_remote_sse_cancel_debug_stderr => "tests/data/real4/remote-cancel", "x_stdio_mcp-remote-sse-cancel.debug-stderr.log";
    real2_supergateway_sse => "tests/data/real2", "x_stdio_supergateway-sse.log";
    real3_supergateway_sse_to_stdio => "tests/data/real3", "x_stdio_supergateway-sse-to-stdio.log";
    real4_mcpsnoop_stdio => "tests/data/real4/mcpsnoop", "mcpsnoop-0.18.0_stdio__everything.jsonl";
    real4_mcpsnoop_http => "tests/data/real4/mcpsnoop", "mcpsnoop-0.18.0_http__everything.jsonl";
    real4_mcpsnoop_http_two_clients => "tests/data/real4/mcpsnoop", "mcpsnoop-0.18.0_http__everything-two-clients.jsonl";
    real4_supergateway_streamable_stateful => "tests/data/real4/supergateway", "x_stdio_supergateway-streamable-stateful.log";
    real4_supergateway_streamable_stateless => "tests/data/real4/supergateway", "x_stdio_supergateway-streamable-stateless.log";
    real4_supergateway_ws => "tests/data/real4/supergateway", "x_stdio_supergateway-ws.log";
    real4_supergateway_sse_two_sessions => "tests/data/real4/supergateway", "x_stdio_supergateway-sse-two-sessions.log";
    real4_supergateway_stateless_two_clients => "tests/data/real4/supergateway", "x_stdio_supergateway-stateless-two-clients.log";
    real4_supergateway_stateful_two_clients => "tests/data/real4/supergateway", "x_stdio_supergateway-stateful-two-clients.log";
    real4_supergateway_stateful_dup_two_clients => "tests/data/real4/supergateway", "x_stdio_supergateway-stateful-dup-two-clients.log";
    real4_supergateway_stateful_sampling_hang => "tests/data/real4/supergateway-hang", "x_stdio_supergateway-stateful-sampling-hang.log";
    real4_mcp_recorder_http => "tests/data/real4/files", "cassette_mcp-recorder-0.5.0__http-feature-run.json";
    real4_mcp_recorder_stdio => "tests/data/real4/files", "cassette_mcp-recorder-0.5.0__stdio-feature-run.json";
    real4_inspector_history => "tests/data/real4/files", "inspector-protocol_2.12.0__py1-streamable-connect-replay.json";
    real4_inspector_history_progress => "tests/data/real4/files", "inspector-protocol_2.12.0__py1-streamable-tools-progress.json";
    unseen_mcp_remote_two_clients => "tests/data/real4/unseen", "mr-debug-two-clients.debug-file.log";
    unseen_mcp_remote_two_runs => "tests/data/real4/unseen", "mr-debug-two-runs.debug-file.log";
    unseen_mcp_remote_sse_restart_debug_file => "tests/data/real4/unseen", "mr-sse-restart.debug-file.log";
    unseen_mcp_remote_sse_restart_debug_stderr => "tests/data/real4/unseen", "mr-sse-restart.debug-stderr.log";
    unseen_mcp_remote_http_restart_debug_file => "tests/data/real4/unseen", "mr-debug-restart.debug-file.log";
    unseen_mcp_remote_http_restart_debug_stderr => "tests/data/real4/unseen", "mr-debug-restart.debug-stderr.log";
    unseen_mcp_proxy_sse_two_clients => "tests/data/real4/unseen", "mp-server-sse-two-clients.debug.log";
    unseen_mcp_proxy_named_servers_sse => "tests/data/real4/unseen", "mp-named-servers-sse.debug.log";
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

/// mcp-remote logs a request's params as a JSON string and a server's
/// progress with no params at all (`{"method":"notifications/progress"}`,
/// tests/data/real4/remote-cancel/README.md). The string is read, so
/// request 2 names progress token 2; each progress without params goes to
/// the one request whose token is still open. Checked by hand on the SSE
/// debug file (lines 114-147): five progress at 37.902, .950, 38.001,
/// .053, .104 after the request at 37.882, the result at 38.160, so the
/// longest silence is the last 56 ms; the client tap has the five with
/// token 2.
#[test]
fn mcp_remote_progress_without_params_links_to_the_open_request() {
    let dir = root().join("tests/data/real4/remote-cancel");
    for f in [
        "x_stdio_mcp-remote-sse-cancel.debug-file.log",
        "x_stdio_mcp-remote-sse-cancel.debug-stderr.log",
    ] {
        let o = crate::common::mcp_audit(&[dir.join(f).to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("summary.json");
        assert_eq!(
            v["sessions"][0]["progress"],
            serde_json::json!({"after_response": 0, "linked": 5, "longest_silence_ms": 56.0,
                               "requests_with_progress": 1, "unlinked": 0}),
            "{f}"
        );
    }
}

/// A per-direction pair (the tee of a stdio server's stdin and stdout, no
/// timestamps; tests/data/real4/pair-progress/README.md): each progress is
/// merged after the request that named its token (FORMATS.md §8.3.8 step 2),
/// so all of them link. Before, the server's progress lines were merged
/// ahead of that request and all were unlinked. The counts are those the
/// sending client received (truth/*.json): TS SDK 1.32.2, 4 on id 7;
/// fastmcp 4.2.3, 3 on id 7 and 2 on id 12 (cancelled). Either half named
/// gives the same session.
#[test]
fn pair_progress_links_to_the_request_naming_its_token() {
    let dir = root().join("tests/data/real4/pair-progress");
    for (name, requests) in [("ts-stdio", 1), ("py-stdio", 2)] {
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("truth/{name}.json"))).unwrap(),
        )
        .unwrap();
        // "progress notifications received: 4", "progress received: 5".
        let note = truth["notes"][0].as_str().unwrap();
        let received: u64 = note.rsplit(' ').next().unwrap().parse().unwrap();
        for half in ["client-to-server", "server-to-client"] {
            let out = crate::common::out_dir(&format!("pair_progress_{name}_{half}"));
            let input = dir.join(format!("{name}.{half}.jsonl"));
            let o = crate::common::mcp_audit(&[
                input.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(o.status.code(), Some(0), "{name} {half}");
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                    .unwrap();
            assert_eq!(v["sessions"].as_array().unwrap().len(), 1, "{name} {half}");
            assert_eq!(v["sessions"][0]["name"], name);
            assert_eq!(
                v["sessions"][0]["progress"],
                serde_json::json!({"after_response": 0, "linked": received, "longest_silence_ms": null,
                                   "requests_with_progress": requests, "unlinked": 0}),
                "{name} {half}"
            );
        }
    }
}

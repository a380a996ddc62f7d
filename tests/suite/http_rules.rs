//! The HTTP and cancellation kinds of issue 12 (`header_mismatch`,
//! `retired_error_code`, `origin_not_rejected`, `answered_after_cancel`;
//! DESIGN.md catalogue) on real captures, with the exact findings checked
//! by hand against the sending side's record (`tests/data/real4/origin`,
//! `cancel` and `issue12` READMEs).

use crate::common;
use common::{mcp_audit, root};

/// `--json` summary of one capture.
fn summary(rel: &str) -> serde_json::Value {
    let f = root().join(rel);
    let o = mcp_audit(&[f.to_str().unwrap(), "--json"]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{rel}: {:?}",
        o.status
    );
    serde_json::from_slice(&o.stdout).expect("summary.json")
}

/// (entry or line, id JSON, detail) of the findings of `kind`.
fn of_kind(s: &serde_json::Value, kind: &str) -> Vec<(u64, String, String)> {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .map(|f| {
            let loc = &f["location"];
            let at = loc["entry"].as_u64().or(loc["line"].as_u64()).unwrap();
            (
                at,
                f["id"].to_string(),
                f["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const MISMATCH: &str = "Mcp-Method tools/list but the body's method is tools/call; the server refused it with 400 (2026-07-28 streamable-http Standard Headers: headers mirror the body, a mismatch is 400 with -32020)";

/// The raw 2026-07-28 driver sent tools/call add 8 with `Mcp-Method:
/// tools/list` (its tap: POST 9, entry 8); TS v2, fastmcp and rmcp each
/// refused it with 400 -32020. Every other POST's headers agree.
#[test]
fn header_mismatch_on_the_raw_2026_captures() {
    for f in [
        "har_ts-server-2.4.0__raw-2026.har",
        "har_fastmcp-4.2.3__raw-2026.har",
        "har_rmcp-3.11.0-http__raw-2026.har",
    ] {
        let s = summary(&format!("tests/data/real4/issue12/{f}"));
        assert_eq!(
            of_kind(&s, "header_mismatch"),
            vec![(8, "8".to_string(), MISMATCH.to_string())],
            "{f}"
        );
        // Their unknown method got 404 with -32601: no retired_error_code.
        assert_eq!(of_kind(&s, "retired_error_code"), vec![], "{f}");
        assert_eq!(s["findings_by_kind"]["header_mismatch"], 1, "{f}");
    }
    // fastmcp's own Client sends the headers right (MRTR, listen 404 -32601).
    let s = summary("tests/data/real4/issue12/har_fastmcp-4.2.3__mrtr.har");
    assert_eq!(of_kind(&s, "header_mismatch"), vec![]);
    assert_eq!(of_kind(&s, "retired_error_code"), vec![]);
}

fn origin(entry: u64, id: &str, status: u32) -> (u64, String, String) {
    (
        entry,
        id.to_string(),
        format!(
            "Origin http://evil.example is foreign to the request's host 127.0.0.1, and the server answered POST {status}: servers MUST validate Origin and refuse a foreign one with 403 (basic/transports, Security Warning: DNS rebinding)"
        ),
    )
}

/// The driver's foreign-Origin POSTs (its taps `truth/origin_*`): the TS
/// SDK 1.32.2 and fastmcp 4.2.3 serve them, mcp 2.3.0 refuses them 403.
/// Same-host, loopback-alias and absent origins are never reported.
#[test]
fn origin_not_rejected_on_real_servers() {
    let s = summary("tests/data/real4/origin/har_ts-sdk-1.32.2__origin.har");
    assert_eq!(
        of_kind(&s, "origin_not_rejected"),
        vec![
            origin(0, "0", 200),
            origin(1, "null", 202),
            origin(3, "2", 200),
            origin(6, "5", 200)
        ]
    );
    let s = summary("tests/data/real4/origin/har_fastmcp-4.2.3__origin.har");
    assert_eq!(
        of_kind(&s, "origin_not_rejected"),
        vec![
            origin(0, "1", 200),
            origin(2, "3", 200),
            origin(5, "6", 200)
        ]
    );
    assert_eq!(of_kind(&s, "header_mismatch"), vec![]);
    let s = summary("tests/data/real4/origin/har_mcp-2.3.0-mcpserver__origin.har");
    assert_eq!(of_kind(&s, "origin_not_rejected"), vec![]);
    assert_eq!(s["findings_by_kind"]["missing_response"], 3);
}

/// fastmcp 4.2.3 and mcp 2.3.0 over stdio under 2026-07-28: the two calls
/// the driver cancelled 150 ms after sending are never answered (its
/// record `truth/cancel_*.driver.jsonl`), so no `answered_after_cancel`;
/// the cancels are `cancelled_request`, in the 2026-07-28 wording.
#[test]
fn cancelled_calls_left_unanswered_on_real_servers() {
    for f in [
        "stdio_fastmcp-4.2.3__cancel-2026.logger.log",
        "stdio_mcp-2.3.0-mcpserver__cancel-2026.logger.log",
    ] {
        let s = summary(&format!("tests/data/real4/cancel/{f}"));
        assert_eq!(of_kind(&s, "answered_after_cancel"), vec![], "{f}");
        let c: Vec<(String, String)> = of_kind(&s, "cancelled_request")
            .into_iter()
            .map(|(_, id, d)| (id, d))
            .collect();
        let d = "the requester cancelled tools/call while it was unanswered; under 2026-07-28 no reply may follow (one would be answered_after_cancel)";
        assert_eq!(
            c,
            vec![("2".into(), d.into()), ("3".into(), d.into())],
            "{f}"
        );
    }
}

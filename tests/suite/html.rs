//! `report.html` in a real browser (headless Chromium: the tables and
//! charts are there after the scripts ran, and no script error occurred),
//! and hostile captures: markup, control characters and secrets in a
//! capture stay inert and hidden in every output.
//!
//! Chromium is Debian's `chromium` package; `.ci/run` installs it. Locally
//! without it the browser checks are skipped with a message (under `CI`
//! they fail instead). `UPDATE_SCREENSHOT=1` rewrites
//! `reports/report-screenshot.png`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{mcp_audit, out_dir, root};
use serde_json::json;

/// The Chromium binary, if installed.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Chromium or a skip message (a failure under CI, which installs it).
fn browser(test: &str) -> Option<PathBuf> {
    let c = chromium();
    if c.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: chromium is not installed, but CI must run this test (.ci/run installs it)"
        );
        eprintln!(
            "SKIPPED {test}: chromium not found on PATH (apt-get install -y chromium); the browser checks did not run"
        );
    }
    c
}

/// Runs headless Chromium on `page` with `extra` arguments; returns
/// (stdout, stderr).
fn headless(bin: &Path, page: &Path, name: &str, extra: &[&str]) -> (String, String) {
    let profile = out_dir(&format!("chromium-profile-{name}"));
    let url = format!(
        "file://{}{}",
        page.canonicalize().expect("page exists").display(),
        fragment(name)
    );
    let o = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url)
        .output()
        .expect("run chromium");
    (
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// The screenshot opens the evidence of finding 8 (the sample's
/// `duplicate_id`), to show it.
fn fragment(name: &str) -> &'static str {
    if name == "shot" { "#f8" } else { "" }
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Loads the page, returns the DOM after its scripts ran; asserts they ran
/// to the end without an error.
fn dom_after_scripts(bin: &Path, page: &Path, name: &str) -> String {
    let (dom, log) = headless(bin, page, name, &["--dump-dom"]);
    assert!(
        !dom.contains("id=\"script-error\""),
        "{name}: a script error was caught by window.onerror:\n{}",
        &dom[dom.find("script-error").unwrap_or(0)..]
            .chars()
            .take(400)
            .collect::<String>()
    );
    assert!(
        dom.contains("data-ready=\"1\""),
        "{name}: the page script did not finish; chromium log:\n{log}"
    );
    for line in log.lines().filter(|l| l.contains("CONSOLE")) {
        assert!(
            !line.contains("Uncaught") && !line.contains("Error"),
            "{name}: console error: {line}"
        );
    }
    dom
}

#[test]
fn real_sample_report_renders_in_chromium() {
    // Relative, as a person types it (tests run in the package root).
    let sample = "tests/data/real/har_ts-streamable-sse__raw-batches.har";
    assert!(root().join(sample).exists());
    let out = out_dir("html-real");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-audit"))
        .current_dir(root())
        .args(["analyze", sample, "--out", out.to_str().unwrap(), "-q"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).expect("report.html written");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let findings = summary["findings"].as_array().unwrap().len();
    assert!(findings > 0);

    // Self-contained: no external resource of any kind, and a CSP that
    // forbids fetching one.
    for bad in ["<link", "<img", "<iframe", " src=", "@import", "url("] {
        assert!(
            !html.contains(bad),
            "report.html refers to an external resource: {bad}"
        );
    }
    assert!(html.contains("default-src 'none'"));

    let Some(bin) = browser("real_sample_report_renders_in_chromium") else {
        return;
    };
    let dom = dom_after_scripts(&bin, &page, "real");
    // The findings table: one row per finding (they fit one page).
    assert_eq!(count(&dom, "<tr class=\"f\""), findings, "findings rows");
    for kind in ["out_of_order_batch", "duplicate_id", "missing_response"] {
        assert!(dom.contains(&format!(">{kind}</td>")), "{kind} row");
    }
    // Filter options, summary cards, sortable headers.
    assert!(
        dom.contains("<option value=\"0\">out_of_order_batch (3)</option>"),
        "kind filter"
    );
    assert!(count(&dom, "class=\"card") >= 10 && dom.contains(">latency p99<"));
    assert_eq!(
        count(&dom, "<th data-col="),
        7 + 12,
        "findings and sessions headers"
    );
    // Latency charts: one per method plus the whole capture, with bars.
    let methods = dom.matches("class=\"chart\"").count();
    assert!(methods >= 2, "latency charts: {methods}");
    assert!(dom.contains("* (all requests)") && count(&dom, "<svg") >= methods);
    // The waterfall: batches with bars; out-of-order members marked.
    assert!(count(&dom, "class=\"wrow\"") >= 3, "waterfall rows");
    assert!(dom.contains("fill=\"#ff9800\""), "an out-of-order bar");

    // The three batch numbers, each saying what it counts. Checked by
    // hand against the HAR: entries 2-9 POST a JSON array each (8, all
    // client→server, entry 8 `[]`; no reply array: every answer is one
    // object or an SSE event); 7 hold a request or notification (all but
    // `[]`); the waterfall draws 6 (entry 4 holds notifications only).
    assert!(
        dom.contains(">8</div><div class=\"l\">batches (JSON arrays)</div>"),
        "batches card"
    );
    assert!(
        dom.contains(
            "<p class=\"note\" id=\"batch-counts\">Batches: 8 JSON arrays (8 sent by the client, 0 by the server; 1 empty, 0 of responses only), one row each in batches.csv. 7 of them hold a request or notification: the request batches, whose sizes the terminal and summary.json give. The waterfall draws the 6 of these with a request that has an id and a time.</p>"
        ),
        "batch counts sentence"
    );
    assert!(
        dom.contains("<span id=\"w-count\">6 drawn, of 7 request batches</span>"),
        "waterfall count"
    );
    assert_eq!(count(&dom, "class=\"wrow\""), 6, "waterfall rows");
    // The sessions table, filled by the script: one row, numbers
    // right-aligned under right-aligned headers (16 requests: ids 0-13
    // and 15, 9 twice; 14 is in entry 10's broken JSON).
    assert_eq!(count(&dom, "<tr class=\"s\">"), 1, "session rows");
    assert!(
        dom.contains("<td class=\"num nb\">16</td><td class=\"num nb\">16</td><td class=\"num nb\">8</td><td class=\"num nb\">7</td><td class=\"num nb\">13</td><td class=\"num nb\">16</td><td class=\"num\">60.2 ms</td><td class=\"num\">253.1 ms</td>"),
        "session row numbers"
    );
    assert!(dom.contains("<span id=\"s-count\">1 of 1 session(s)</span>"));
    assert_eq!(
        count(&html, "<th class=\"num\">"),
        2,
        "inputs: numeric headers"
    );
    assert_eq!(
        count(&html, "class=\"num\">") - count(&html, "<th class=\"num\">"),
        8,
        "sessions: numeric headers"
    );
    // The format cell names the format and the exporter once.
    assert!(
        html.contains("<td class=\"nb\">har mitmproxy</td>"),
        "format cell"
    );
    // At 1280 and 800 pixels: no chart label reaches outside its chart,
    // and no short token (`null`, `tools/call`, `[7,8]`) is broken
    // inside itself (before: 7 waterfall labels cut at the right edge;
    // at 800 pixels 13 tokens split, `nul`/`l` among them).
    for width in [1280, 800] {
        let (narrow, _) = headless(
            &bin,
            &page,
            &format!("width-{width}"),
            &["--dump-dom", &format!("--window-size={width},2000")],
        );
        assert!(
            narrow.contains("data-clipped=\"0\" data-split-tokens=\"0\""),
            "{width} px: {}",
            narrow.lines().find(|l| l.contains("<body")).unwrap_or("")
        );
    }

    // A screenshot (a PNG of the page as a person sees it).
    let shot = out.join("report-screenshot.png");
    let (_, log) = headless(
        &bin,
        &page,
        "shot",
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000",
        ],
    );
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {log}"));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 20_000,
        "screenshot is a real PNG"
    );
    if std::env::var_os("UPDATE_SCREENSHOT").is_some() {
        std::fs::create_dir_all(root().join("reports")).unwrap();
        std::fs::copy(&shot, root().join("reports/report-screenshot.png")).unwrap();
    }
}

#[test]
fn sessions_table_is_paginated_like_the_findings() {
    // 250 initialize exchanges in one bare NDJSON log: 250 sessions
    // (FORMATS.md §8.4: each client→server initialize opens one).
    let out = out_dir("html-sessions");
    let cap = out.join("many.jsonl");
    let mut log = String::new();
    for i in 0..250 {
        log.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
        log.push('\n');
        log.push_str(&format!(r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"2025-06-18","capabilities":{{}},"serverInfo":{{"name":"s{i}","version":"1"}}}}}}"#));
        log.push('\n');
    }
    std::fs::write(&cap, log).unwrap();
    let o = mcp_audit(&[cap.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // No session row in the markup: all 250 are in the data island.
    assert_eq!(count(&html, "<tr class=\"s\">"), 0);
    assert!(html.contains("\"sessions_total\":250") && html.contains("\"sessions_per_page\":100"));
    let Some(bin) = browser("sessions_table_is_paginated_like_the_findings") else {
        return;
    };
    let dom = dom_after_scripts(&bin, &page, "sessions");
    assert_eq!(count(&dom, "<tr class=\"s\">"), 100, "one page of sessions");
    assert!(dom.contains("<span id=\"s-count\">250 of 250 session(s)</span>"));
    let pager = &dom[dom.find("id=\"s-pager\"").expect("sessions pager")..];
    assert!(pager.starts_with("id=\"s-pager\"><button disabled=\"\">‹ prev</button><span>page 1 of 3</span><button>next ›</button>"), "{}", &pager[..200.min(pager.len())]);
    // The first page is the log's first 100 sessions, in order.
    assert!(dom.contains("<td>s0 1</td>") && dom.contains("<td>s99 1</td>"));
    assert!(!dom.contains("<td>s100 1</td>"));
}

const XSS: &str = "<script>alert(1)</script>";
const IMG: &str = "\"><img src=x onerror=alert(1)>";
const SECRETS: [&str; 6] = [
    "SECRETBEARER1234567",
    "SECRETTOKEN987",
    "SECRETCOOKIE",
    "SECRETPASS",
    "SECRETKEY42",
    "SECRETSETCOOKIE",
];

fn entry(
    t: &str,
    url: &str,
    headers: serde_json::Value,
    body: serde_json::Value,
    resp_headers: serde_json::Value,
    resp: Option<serde_json::Value>,
) -> serde_json::Value {
    json!({
        "startedDateTime": t,
        "time": 20.0,
        "request": {"method": "POST", "url": url, "httpVersion": "HTTP/1.1", "cookies": [{"name": "sid", "value": "SECRETCOOKIE"}],
            "headers": headers, "queryString": [], "headersSize": -1, "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": body.to_string()}},
        "response": {"status": if resp.is_some() { 200 } else { 202 }, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": resp_headers,
            "content": {"size": -1, "mimeType": "application/json", "text": resp.map(|r| r.to_string()).unwrap_or_default()},
            "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 20, "receive": 0}
    })
}

/// A HAR whose methods, ids, session id and server name are markup,
/// control characters and ANSI escapes, with credentials in headers, the
/// URL, cookies and bodies.
fn hostile_har() -> String {
    let h = |extra: &[(&str, &str)]| {
        let mut v = vec![
            json!({"name": "Content-Type", "value": "application/json"}),
            json!({"name": "Authorization", "value": "Bearer SECRETBEARER1234567"}),
            json!({"name": "Cookie", "value": "sid=SECRETCOOKIE"}),
        ];
        v.extend(extra.iter().map(|(n, x)| json!({"name": n, "value": x})));
        serde_json::Value::Array(v)
    };
    let url = "http://127.0.0.1:9/mcp?token=SECRETTOKEN987&x=1";
    let session = [("Mcp-Session-Id", XSS)];
    let entries = vec![
        entry(
            "2025-06-16T09:00:00.000Z",
            url,
            h(&[]),
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}),
            json!([{"name": "Mcp-Session-Id", "value": XSS}, {"name": "Set-Cookie", "value": "sid=SECRETSETCOOKIE; HttpOnly"}]),
            Some(
                json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-03-26", "serverInfo": {"name": IMG, "version": "\u{1b}[2J\u{1b}]0;pwned\u{7}"}}}),
            ),
        ),
        entry(
            "2025-06-16T09:00:01.000Z",
            url,
            h(&session),
            json!([
                {"jsonrpc": "2.0", "id": XSS, "method": XSS, "params": {"password": "SECRETPASS"}},
                {"jsonrpc": "2.0", "id": 2, "method": IMG},
                {"jsonrpc": "2.0", "id": 3, "method": "\u{1b}[31mred\u{1b}[0m\u{7}\u{202e}"}
            ]),
            json!([]),
            Some(json!([
                {"jsonrpc": "2.0", "id": 3, "result": {}},
                {"jsonrpc": "2.0", "id": XSS, "result": {"apiKey": "SECRETKEY42"}}
            ])),
        ),
        entry(
            "2025-06-16T09:00:02.000Z",
            url,
            h(&session),
            json!({"jsonrpc": "2.0", "id": "\u{1b}]0;pwn\u{7}", "method": "tools/call", "params": {"name": format!("{XSS}{IMG}")}}),
            json!([]),
            Some(json!({"jsonrpc": "2.0", "id": format!("</script>{XSS}"), "result": {}})),
        ),
    ];
    json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}}).to_string()
}

#[test]
fn hostile_capture_stays_inert_and_secrets_stay_hidden() {
    let out = out_dir("html-hostile");
    let cap = out.join("hostile.har");
    std::fs::write(&cap, hostile_har()).unwrap();
    let o = mcp_audit(&[cap.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();

    // The capture was read as intended: its hostile strings are in the
    // findings (so the checks below are not vacuous).
    let s: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let f = s["findings"].as_array().unwrap();
    assert!(
        f.iter()
            .any(|x| x["kind"] == "missing_response" && x["method"] == IMG),
        "{summary}"
    );
    assert!(
        f.iter().any(|x| x["kind"] == "unknown_id_response"),
        "{summary}"
    );
    assert!(f.iter().any(|x| x["session"] == XSS), "{summary}");
    assert!(
        html.contains("\\u003cscript\\u003ealert(1)"),
        "the hostile method is in the data island, escaped"
    );
    assert!(
        html.contains(r#""session_rows":[["\u003cscript\u003ealert(1)\u003c/script\u003e",0,"\"\u003e\u003cimg src=x"#),
        "the hostile session id and server name are in the sessions rows of the data island, escaped"
    );

    // An exporter no dialect names (creator `test`): the format once, not
    // "har har".
    assert!(html.contains("<td class=\"nb\">har</td>") && !html.contains("har har"));

    // HTML: nothing from the capture is markup.
    let lower = html.to_lowercase();
    assert!(
        !lower.contains("<script>alert"),
        "unescaped <script> from the capture"
    );
    assert!(!lower.contains("<img"), "unescaped <img from the capture");
    assert!(
        !lower.contains("</script><script>"),
        "a captured </script> closed a script"
    );
    assert_eq!(
        count(&lower, "<script"),
        3,
        "only the page's own three scripts"
    );
    assert!(
        !html.contains('\u{1b}') && !html.contains('\u{7}') && !html.contains('\u{202e}'),
        "raw control / bidi characters in the HTML"
    );

    // Terminal: no raw ESC or BEL, every line at most 80 columns.
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "raw control characters on stdout:\n{stdout}"
    );
    assert!(
        stdout.contains("\\u{1b}"),
        "the ANSI escape is shown escaped:\n{stdout}"
    );
    for line in stdout.lines() {
        assert!(line.chars().count() <= 80, "longer than 80 columns: {line}");
    }

    // Secrets: in no output, by default.
    let csv = std::fs::read_to_string(out.join("findings.csv")).unwrap();
    for secret in SECRETS {
        for (name, text) in [
            ("report.html", &html),
            ("summary.json", &summary),
            ("findings.csv", &csv),
            ("stdout", &stdout),
        ] {
            assert!(!text.contains(secret), "{secret} in {name}");
        }
    }
    assert!(
        html.contains("Authorization: [REDACTED]") && html.contains("token=[REDACTED]"),
        "evidence shown, redacted"
    );

    // --no-redact shows them (the evidence is really there).
    let raw = out_dir("html-hostile-raw");
    let o = mcp_audit(&[
        cap.to_str().unwrap(),
        "--out",
        raw.to_str().unwrap(),
        "-q",
        "--no-redact",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let raw_html = std::fs::read_to_string(raw.join("report.html")).unwrap();
    assert!(raw_html.contains("SECRETBEARER1234567") && raw_html.contains("SECRETTOKEN987"));
    assert!(!raw_html.to_lowercase().contains("<script>alert"));

    // In a browser: the page runs to the end and no captured element exists.
    let Some(bin) = browser("hostile_capture_stays_inert_and_secrets_stay_hidden") else {
        return;
    };
    let page = out.join("report.html");
    let dom = dom_after_scripts(&bin, &page, "hostile");
    let dom_lower = dom.to_lowercase();
    assert!(
        !dom_lower.contains("<img"),
        "an <img> element was created from the capture"
    );
    assert_eq!(
        count(&dom_lower, "<script"),
        3,
        "a <script> element was created from the capture"
    );
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the hostile strings are shown as text"
    );
}

//! The HTTP and cancellation rules of issue 12 (DESIGN.md catalogue):
//! `header_mismatch`, `retired_error_code`, `origin_not_rejected` and
//! `answered_after_cancel`. A child of [`super`] (the engine), so that the
//! walker calls them from two small hooks: [`Walker::request_rules`] for
//! every frame (before its messages are read) and [`Walker::answer_rules`]
//! for every response that pairs with a request.
//!
//! Spec sources:
//! - 2026-07-28 basic/transports/streamable-http, "Standard Headers" and
//!   "Custom Headers from Tool Parameters" (SEP-2243): `Mcp-Method` mirrors
//!   the body's `method`, `Mcp-Name` its `params.name` (`tools/call`,
//!   `prompts/get`) or `params.uri` (`resources/read`), `Mcp-Param-{Name}`
//!   the argument annotated `x-mcp-header: {Name}`, and
//!   `MCP-Protocol-Version` the `_meta` `io.modelcontextprotocol/protocolVersion`;
//!   a value wrapped as `=?base64?…?=` is Base64; a server refuses a
//!   disagreement with 400 and -32020 (HeaderMismatch). An unknown method is
//!   HTTP 404 with -32601.
//! - 2026-07-28 changelog: no `URLElicitationRequiredError` (-32042; input
//!   comes by MRTR `input_required`), and a missing resource is -32602
//!   Invalid Params, not -32002 (SEP-2164).
//! - basic/transports, Security Warning (every revision with HTTP): servers
//!   MUST validate `Origin` (DNS rebinding) and refuse an invalid one with
//!   403.
//! - 2026-07-28 basic/patterns/cancellation: nothing may follow for a
//!   cancelled request; earlier revisions only say the receiver SHOULD not
//!   answer, and both must tolerate the race (`cancelled_request` only).

use base64::Engine;
use foldhash::{HashMap, HashSet};

use super::{MODERN, Walker};
use crate::analyze::findings::{FindingId, FindingKind as K};
use crate::record::jsonrpc::str_value;
use crate::record::{
    Direction, Frame, HttpContext, Id, Kind, Location, Message, Micros, Payload, RequestHeaders,
};

/// What the rules keep per session: few requests are cancelled, few
/// entries carry a foreign `Origin`.
#[derive(Default)]
pub(super) struct HttpRules {
    /// Request index → time and place of the `notifications/cancelled`
    /// that cancelled it.
    cancels: HashMap<usize, (Option<Micros>, Location)>,
    /// HAR entries already judged by `origin_not_rejected` (one finding
    /// per entry, at its first frame).
    origin_entries: HashSet<u64>,
}

impl HttpRules {
    /// Request `ri` was cancelled by a `notifications/cancelled` at `at`.
    pub(super) fn cancelled(&mut self, ri: usize, ts: Option<Micros>, at: Location) {
        self.cancels.insert(ri, (ts, at));
    }
}

/// A header value as the spec compares it: `=?base64?…?=` decoded (an
/// `Err` when that payload is not Base64 of UTF-8 text), else as sent.
fn decoded(v: &str) -> Result<std::borrow::Cow<'_, str>, ()> {
    let Some(inner) = v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Ok(v.into());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .map_err(|_| ())?;
    String::from_utf8(bytes).map(Into::into).map_err(|_| ())
}

/// Whether header value `h` (decoded) mirrors the raw JSON argument `body`:
/// a string verbatim, an integer as its decimal (compared by value, so
/// `42` and `42.0` agree), a boolean as `true`/`false`. `None` where the
/// spec defines no header form (object, array, null: not judged here).
fn mirrors(h: &str, body: &str) -> Option<bool> {
    match body.as_bytes().first()? {
        b'"' => Some(str_value(body).is_some_and(|s| s == h)),
        b't' | b'f' => Some(h.eq_ignore_ascii_case(body)),
        b'-' | b'0'..=b'9' => {
            let (a, b) = (h.parse::<f64>().ok(), body.parse::<f64>().ok());
            Some(matches!((a, b), (Some(a), Some(b)) if a == b))
        }
        _ => None,
    }
}

/// The disagreements between a 2026-07-28 request `m` and its headers,
/// each as a clause of the finding's detail.
fn disagreements(m: &Message, protocol: Option<&str>, hd: Option<&RequestHeaders>) -> Vec<String> {
    let mut out = Vec::new();
    let method = m.method.as_deref().unwrap_or("");
    if let (Some(hv), Some(mv)) = (protocol, m.offered())
        && hv != mv
    {
        out.push(format!(
            "MCP-Protocol-Version {hv} but _meta io.modelcontextprotocol/protocolVersion {mv}"
        ));
    }
    let Some(hd) = hd else { return out };
    if let Some(hm) = hd.mcp_method.as_deref()
        && hm != method
    {
        out.push(format!("Mcp-Method {hm} but the body's method is {method}"));
    }
    let target = match method {
        "tools/call" | "prompts/get" => hd.body_name.as_deref().map(|v| ("params.name", v)),
        "resources/read" => hd.body_uri.as_deref().map(|v| ("params.uri", v)),
        _ => None,
    };
    if let (Some(hn), Some((member, bv))) = (hd.mcp_name.as_deref(), target) {
        match decoded(hn) {
            Ok(v) if v == bv => {}
            Ok(v) => out.push(format!("Mcp-Name {v} but {member} is {bv}")),
            Err(()) => out.push(format!("Mcp-Name {hn} is not valid Base64")),
        }
    }
    if method == "tools/call" {
        for p in &hd.mcp_params {
            let Some(body) = p.body.as_deref() else {
                continue;
            };
            let name = &p.name;
            match decoded(&p.value) {
                Err(()) => out.push(format!("Mcp-Param-{name} {} is not valid Base64", p.value)),
                Ok(v) if body == "null" => out.push(format!(
                    "Mcp-Param-{name} {v} for an argument that is null (the header must then be absent)"
                )),
                Ok(v) if mirrors(&v, body) == Some(false) => out.push(format!(
                    "Mcp-Param-{name} {v} but the argument is {body}"
                )),
                Ok(_) => {}
            }
        }
    }
    out
}

impl Walker<'_> {
    /// The request-side rules for frame `f` of direction `d`:
    /// `header_mismatch` at a 2026-07-28 request or notification POST,
    /// `origin_not_rejected` at the first frame of an entry with a foreign
    /// `Origin` answered 2xx.
    pub(super) fn request_rules(&mut self, f: &Frame, d: Direction) {
        let Some(h) = &f.http else { return };
        self.origin_rule(f, h);
        if d != Direction::C2s || !h.is_request_body {
            return;
        }
        let Payload::Single(m) = &f.payload else {
            return;
        };
        // Under 2026-07-28: the request states it in _meta or in the header.
        let protocol = h.protocol_header.as_deref();
        if m.kind == Kind::Response
            || m.method.as_deref() == Some("initialize")
            || (m.offered() != Some(MODERN) && protocol != Some(MODERN))
        {
            return;
        }
        let found = disagreements(m, protocol, h.headers.as_deref());
        if found.is_empty() {
            return;
        }
        let answer = match h.status {
            0 => "; no response arrived".to_string(),
            400 => "; the server refused it with 400".to_string(),
            s if (200..300).contains(&s) => format!("; the server served it anyway ({s})"),
            s => format!("; the server answered {s}"),
        };
        let detail = format!(
            "{}{answer} (2026-07-28 streamable-http Standard Headers: headers mirror the body, a mismatch is 400 with -32020)",
            found.join("; ")
        );
        self.find(
            K::HeaderMismatch,
            f,
            Some(d),
            FindingId::One(m.id.clone()),
            m.method.as_deref().map(str::to_string),
            detail,
        );
    }

    /// `origin_not_rejected`: an entry whose `Origin` names another host
    /// than its URL, answered 2xx; reported once, at its first frame.
    fn origin_rule(&mut self, f: &Frame, h: &HttpContext) {
        let Some((origin, host)) = h.headers.as_deref().and_then(|x| x.foreign_origin.as_ref())
        else {
            return;
        };
        if !(200..300).contains(&h.status) || !self.http_rules.origin_entries.insert(h.entry) {
            return;
        }
        let (id, method) = match &f.payload {
            Payload::Single(m) if h.is_request_body => {
                (m.id.clone(), m.method.as_deref().map(str::to_string))
            }
            _ => (Id::Absent, None),
        };
        let detail = format!(
            "Origin {origin} is foreign to the request's host {host}, and the server answered {} {}: servers MUST validate Origin and refuse a foreign one with 403 (basic/transports, Security Warning: DNS rebinding)",
            h.method, h.status
        );
        let dir = if h.is_request_body {
            Some(Direction::C2s)
        } else {
            f.direction
        };
        self.find(
            K::OriginNotRejected,
            f,
            dir,
            FindingId::One(id),
            method,
            detail,
        );
    }

    /// The rules on a response `m` (frame `f`, direction `d`) that paired
    /// with request `ri`, in a 2026-07-28 session: `answered_after_cancel`
    /// and `retired_error_code`.
    pub(super) fn answer_rules(&mut self, f: &Frame, d: Direction, m: &Message, ri: usize) {
        let q = &self.out.requests[ri];
        if !q.is_modern(self.out.revision.as_deref()) {
            return;
        }
        let method = q.method.as_deref().map(str::to_string);
        let what = method.as_deref().unwrap_or("the request").to_string();
        if q.cancelled {
            let (ts, at) = self
                .http_rules
                .cancels
                .get(&ri)
                .copied()
                .unwrap_or_default();
            let after = match (ts, f.ts) {
                (Some(a), Some(b)) if b >= a => format!(" {:.1} ms", (b - a) as f64 / 1000.0),
                _ => String::new(),
            };
            let place = if at == Location::default() {
                String::new()
            } else {
                format!(" at {}", at.describe())
            };
            let detail = format!(
                "{what} was answered{after} after the client cancelled it (notifications/cancelled{place}); under 2026-07-28 nothing may follow for a cancelled request (basic/patterns/cancellation)"
            );
            self.find(
                K::AnsweredAfterCancel,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                method.clone(),
                detail,
            );
        }
        let why = match m.error_code {
            Some(-32042) => Some("error -32042 (URLElicitationRequiredError), which 2026-07-28 no longer has: a server that needs the user answers input_required with an elicitation input request (MRTR)".to_string()),
            Some(-32002) if what.starts_with("resources/") => Some(format!(
                "error -32002 for {what}: under 2026-07-28 a missing resource is -32602 Invalid Params (SEP-2164)"
            )),
            Some(-32601) => match &f.http {
                Some(h) if h.status != 404 && h.status != 0 => Some(format!(
                    "error -32601 (method not found) with HTTP {}{}: under 2026-07-28 an unknown method is HTTP 404 with -32601 (streamable-http)",
                    h.status,
                    if h.stream { " inside an event stream" } else { "" }
                )),
                _ => None,
            },
            _ => None,
        };
        if let Some(detail) = why {
            self.find(
                K::RetiredErrorCode,
                f,
                Some(d),
                FindingId::One(m.id.clone()),
                method,
                detail,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{run, run_text};
    use super::*;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;

    /// A HAR of POSTs to `http://127.0.0.1:3000/mcp`, 10 ms apart: (request
    /// headers as `name: value`, a name starting `>` for a response header,
    /// body, status, JSON response body or "").
    /// One test entry: headers, body, status, response body.
    type Entry<'a> = (&'a [(&'a str, &'a str)], String, i64, &'a str);

    fn har(entries: &[Entry<'_>]) -> String {
        let list: Vec<String> = entries
            .iter()
            .enumerate()
            .map(|(i, (hs, body, status, resp))| {
                let h = |(n, v): &(&str, &str)| {
                    format!(r#"{{"name":"{}","value":"{v}"}}"#, n.trim_start_matches('>'))
                };
                let rh: Vec<String> = hs.iter().filter(|(n, _)| n.starts_with('>')).map(h).collect();
                let hs: Vec<String> = hs.iter().filter(|(n, _)| !n.starts_with('>')).map(h).collect();
                let content = if resp.is_empty() {
                    r#"{"size":0,"mimeType":"","text":""}"#.to_string()
                } else {
                    format!(
                        r#"{{"size":1,"mimeType":"application/json","text":{}}}"#,
                        serde_json::to_string(resp).unwrap()
                    )
                };
                format!(
                    r#"{{"startedDateTime":"2026-08-01T00:00:00.{:03}Z","time":5,"request":{{"method":"POST","url":"http://127.0.0.1:3000/mcp","headers":[{}],"postData":{{"mimeType":"application/json","text":{}}}}},"response":{{"status":{status},"headers":[{}],"content":{content}}},"timings":{{"send":0,"wait":5,"receive":0}}}}"#,
                    i * 10,
                    hs.join(","),
                    serde_json::to_string(body).unwrap(),
                    rh.join(",")
                )
            })
            .collect();
        format!(
            r#"{{"log":{{"version":"1.2","entries":[{}]}}}}"#,
            list.join(",")
        )
    }

    fn details(a: &crate::analyze::Analysis, kind: &str) -> Vec<String> {
        a.findings
            .iter()
            .filter(|f| f.kind.name() == kind)
            .map(|f| format!("{} {}", f.location.describe(), f.detail))
            .collect()
    }

    #[test]
    fn header_mismatch_compares_headers_with_the_body() {
        let call = |id: u32, name: &str, args: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args},{META}}}}}"#
            )
        };
        let ok = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
        let pv = ("MCP-Protocol-Version", "2026-07-28");
        let text = har(&[
            // 0: Mcp-Method disagrees (refused 400 like the real servers).
            (
                &[pv, ("Mcp-Method", "tools/list"), ("Mcp-Name", "add")],
                call(1, "add", "{}"),
                400,
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}"#,
            ),
            // 1: everything agrees: Base64 Mcp-Name ("add"), an integer and a string argument.
            (
                &[
                    pv,
                    ("Mcp-Method", "tools/call"),
                    ("Mcp-Name", "=?base64?YWRk?="),
                    ("Mcp-Param-Count", "42"),
                    ("mcp-param-region", "us-west1"),
                ],
                call(2, "add", r#"{"count":42.0,"Region":"us-west1"}"#),
                200,
                &ok(2),
            ),
            // 2: Mcp-Name and one Mcp-Param disagree, another names no argument.
            (
                &[
                    pv,
                    ("Mcp-Method", "tools/call"),
                    ("Mcp-Name", "sub"),
                    ("Mcp-Param-Region", "us-east1"),
                    ("Mcp-Param-Tenant", "t1"),
                ],
                call(3, "add", r#"{"region":"us-west1"}"#),
                200,
                &ok(3),
            ),
            // 3: the header revision disagrees with _meta; Mcp-Name not Base64.
            (
                &[
                    ("MCP-Protocol-Version", "2025-11-25"),
                    ("Mcp-Method", "tools/call"),
                    ("Mcp-Name", "=?base64?!!?="),
                ],
                call(4, "add", "{}"),
                400,
                "",
            ),
            // 4: resources/read compares Mcp-Name with params.uri.
            (
                &[
                    pv,
                    ("Mcp-Method", "resources/read"),
                    ("Mcp-Name", "file:///b"),
                ],
                format!(
                    r#"{{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{{"uri":"file:///a",{META}}}}}"#
                ),
                200,
                &ok(5),
            ),
        ]);
        let (_, a) = run_text("t.har", &text);
        assert_eq!(
            details(&a, "header_mismatch"),
            vec![
                "entry 0 Mcp-Method tools/list but the body's method is tools/call; the server refused it with 400 (2026-07-28 streamable-http Standard Headers: headers mirror the body, a mismatch is 400 with -32020)",
                "entry 2 Mcp-Name sub but params.name is add; Mcp-Param-Region us-east1 but the argument is \"us-west1\"; the server served it anyway (200) (2026-07-28 streamable-http Standard Headers: headers mirror the body, a mismatch is 400 with -32020)",
                "entry 3 MCP-Protocol-Version 2025-11-25 but _meta io.modelcontextprotocol/protocolVersion 2026-07-28; Mcp-Name =?base64?!!?= is not valid Base64; the server refused it with 400 (2026-07-28 streamable-http Standard Headers: headers mirror the body, a mismatch is 400 with -32020)",
                "entry 4 Mcp-Name file:///b but params.uri is file:///a; the server served it anyway (200) (2026-07-28 streamable-http Standard Headers: headers mirror the body, a mismatch is 400 with -32020)",
            ]
        );
        let f: Vec<_> = a
            .findings
            .iter()
            .filter(|f| f.kind == K::HeaderMismatch)
            .map(|f| f.id.to_json().to_string())
            .collect();
        assert_eq!(f, vec!["1", "3", "4", "5"]);
        // Before 2026-07-28 the headers mean nothing: not judged.
        let old = har(&[(
            &[("Mcp-Method", "tools/list")],
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#.to_string(),
            200,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        )]);
        let (f, _) = run_text("t.har", &old);
        assert_eq!(f, vec![]);
    }

    #[test]
    fn foreign_origins_answered_2xx() {
        let ping = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let ok = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
        let text = har(&[
            (&[("Origin", "http://evil.example")], ping(1), 200, &ok(1)),
            (&[("Origin", "http://evil.example")], ping(2), 403, ""),
            (&[("Origin", "http://localhost:6274")], ping(3), 200, &ok(3)),
            (&[("Origin", "http://127.0.0.1:3000")], ping(4), 200, &ok(4)),
            (&[("origin", "null")], ping(5), 200, &ok(5)),
            (
                &[("Origin", "https://Evil.Example:8443")],
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
                202,
                "",
            ),
            // Allow-listed by an exact Access-Control-Allow-Origin: not this;
            // `*` allows anyone and is no validation.
            (
                &[
                    ("Origin", "https://app.example"),
                    (">Access-Control-Allow-Origin", "https://app.example"),
                ],
                ping(7),
                200,
                &ok(7),
            ),
            (
                &[
                    ("Origin", "https://app.example"),
                    (">Access-Control-Allow-Origin", "*"),
                ],
                ping(8),
                200,
                &ok(8),
            ),
        ]);
        let (_, a) = run_text("t.har", &text);
        assert_eq!(
            details(&a, "origin_not_rejected"),
            vec![
                "entry 0 Origin http://evil.example is foreign to the request's host 127.0.0.1, and the server answered POST 200: servers MUST validate Origin and refuse a foreign one with 403 (basic/transports, Security Warning: DNS rebinding)",
                "entry 5 Origin https://Evil.Example:8443 is foreign to the request's host 127.0.0.1, and the server answered POST 202: servers MUST validate Origin and refuse a foreign one with 403 (basic/transports, Security Warning: DNS rebinding)",
                "entry 7 Origin https://app.example is foreign to the request's host 127.0.0.1, and the server answered POST 200: servers MUST validate Origin and refuse a foreign one with 403 (basic/transports, Security Warning: DNS rebinding)",
            ]
        );
        let ids: Vec<_> = a
            .findings
            .iter()
            .filter(|f| f.kind == K::OriginNotRejected)
            .map(|f| f.id.to_json().to_string())
            .collect();
        assert_eq!(ids, vec!["1", "null", "8"]);
    }

    #[test]
    fn retired_codes_under_2026_only() {
        let req = |id: u32, m: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{m}","params":{{{META}}}}}"#)
        };
        let err = |id: u32, code: i64| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"x"}}}}"#)
        };
        let (r1, r2, r3) = (
            req(1, "resources/read"),
            req(2, "tools/call"),
            req(3, "tools/call"),
        );
        let (e1, e2, e3) = (err(1, -32002), err(2, -32002), err(3, -32042));
        let (f, a) = run(&[
            (0, "c2s", &r1),
            (1, "s2c", &e1),
            (2, "c2s", &r2),
            (3, "s2c", &e2),
            (4, "c2s", &r3),
            (5, "s2c", &e3),
        ]);
        assert_eq!(
            f,
            vec![
                ("retired_error_code", "1".into()),
                ("retired_error_code", "3".into())
            ]
        );
        assert_eq!(
            details(&a, "retired_error_code"),
            vec![
                "line 2 error -32002 for resources/read: under 2026-07-28 a missing resource is -32602 Invalid Params (SEP-2164)",
                "line 6 error -32042 (URLElicitationRequiredError), which 2026-07-28 no longer has: a server that needs the user answers input_required with an elicitation input request (MRTR)",
            ]
        );
        // 2025-11-25 had both codes.
        let old = |id: u32, m: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{m}"}}"#);
        let init = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}"#;
        let (o1, o3) = (old(1, "resources/read"), old(3, "tools/call"));
        let (f, _) = run(&[
            (
                0,
                "c2s",
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            ),
            (1, "s2c", init),
            (2, "c2s", &o1),
            (3, "s2c", &e1),
            (4, "c2s", &o3),
            (5, "s2c", &e3),
        ]);
        assert_eq!(f, vec![]);
        // Over HTTP, -32601 comes with 404 under 2026-07-28.
        let text = har(&[
            (&[], req(7, "no/such"), 404, &err(7, -32601)),
            (&[], req(8, "no/such"), 200, &err(8, -32601)),
        ]);
        let (_, a) = run_text("t.har", &text);
        assert_eq!(
            details(&a, "retired_error_code"),
            vec![
                "entry 1 error -32601 (method not found) with HTTP 200: under 2026-07-28 an unknown method is HTTP 404 with -32601 (streamable-http)"
            ]
        );
    }

    #[test]
    fn answered_after_cancel_under_2026_only() {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"slow",{META}}}}}"#
        );
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":5,"result":{}}"#;
        let (f, a) = run(&[
            (0, "c2s", &call),
            (100, "c2s", cancel),
            (350, "s2c", answer),
        ]);
        assert_eq!(
            f,
            vec![
                ("cancelled_request", "5".into()),
                ("answered_after_cancel", "5".into())
            ]
        );
        assert_eq!(
            details(&a, "answered_after_cancel"),
            vec![
                "line 3 tools/call was answered 250.0 ms after the client cancelled it (notifications/cancelled at line 2); under 2026-07-28 nothing may follow for a cancelled request (basic/patterns/cancellation)"
            ]
        );
        // 2025-06-18: the same exchange is no fault.
        let old = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}"#;
        let init = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"s","version":"1"}}}"#;
        let (f, _) = run(&[
            (
                0,
                "c2s",
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
            ),
            (1, "s2c", init),
            (2, "c2s", old),
            (100, "c2s", cancel),
            (350, "s2c", answer),
        ]);
        assert_eq!(f, vec![("cancelled_request", "5".into())]);
    }

    #[test]
    fn header_values_as_the_spec_compares_them() {
        assert_eq!(decoded("=?base64?SGVsbG8=?=").as_deref(), Ok("Hello"));
        assert_eq!(decoded("plain").as_deref(), Ok("plain"));
        assert!(decoded("=?base64?!!?=").is_err());
        assert_eq!(mirrors("us-west1", "\"us-west1\""), Some(true));
        assert_eq!(mirrors("us-east1", "\"us-west1\""), Some(false));
        assert_eq!(mirrors("42", "42.0"), Some(true));
        assert_eq!(mirrors("43", "42"), Some(false));
        assert_eq!(mirrors("true", "true"), Some(true));
        assert_eq!(mirrors("false", "true"), Some(false));
        assert_eq!(mirrors("x", "{}"), None);
    }
}

//! Helpers shared by the HAR unit tests: read a text, list its frames,
//! build small HAR documents.

use super::parse;
use crate::ingest::Input;
use crate::record::{Frame, Parsed, Record};

/// Parses `text` as input 7 named `t.har`.
pub(super) fn run(text: &str) -> Parsed {
    parse(Input {
        file: 7,
        name: "t.har",
        text,
    })
}

/// The frames of a parse.
pub(super) fn frames(p: &Parsed) -> Vec<&Frame> {
    p.records
        .iter()
        .filter_map(|r| match r {
            Record::Frame(f) => Some(f),
            _ => None,
        })
        .collect()
}

/// A HAR with the given entries (JSON texts).
pub(super) fn har(entries: &[String]) -> String {
    format!(
        "{{\"log\":{{\"version\":\"1.2\",\"creator\":{{\"name\":\"WebInspector\",\"version\":\"537.36\"}},\"entries\":[\n{}\n]}}}}",
        entries.join(",\n")
    )
}

/// One entry: a POST of `post` when given, else a GET, to
/// `http://127.0.0.1:3000/mcp`, with these headers, status and `content`.
pub(super) fn entry(
    started: &str,
    time: &str,
    req_headers: &str,
    post: Option<&str>,
    status: i64,
    resp_headers: &str,
    content: &str,
) -> String {
    let post = post.map_or(String::new(), |t| {
        format!(
            ",\"postData\":{{\"mimeType\":\"application/json\",\"text\":{}}}",
            serde_json::to_string(t).unwrap()
        )
    });
    format!(
        "{{\"startedDateTime\":\"{started}\",\"time\":{time},\"request\":{{\"method\":\"{}\",\"url\":\"http://127.0.0.1:3000/mcp\",\"headers\":[{req_headers}]{post}}},\"response\":{{\"status\":{status},\"headers\":[{resp_headers}],\"content\":{content}}},\"timings\":{{\"send\":0,\"wait\":1,\"receive\":0}}}}",
        if post.is_empty() { "GET" } else { "POST" }
    )
}

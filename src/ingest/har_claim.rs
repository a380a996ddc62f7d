//! How a HAR document is known by its content (FORMATS.md §8.1, §4): the
//! claim of the HAR row of the format table, kept apart from the reader
//! (`har.rs`).

use serde::de::IgnoredAny;

/// The whole text is a HAR document (FORMATS.md §4): after a BOM and white
/// space it opens an object that looks like one (`looks_like_har`).
pub fn claims(text: &str) -> bool {
    let body = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    body.starts_with('{') && looks_like_har(body)
}

/// HAR (FORMATS.md §4): the top-level object's first member is `log` holding
/// an object; or a document whose first line is not a whole JSON value (a
/// pretty-printed one) naming `"log"` and `"entries"` near its top.
fn looks_like_har(body: &str) -> bool {
    let after = body.get(1..).unwrap_or("").trim_start();
    if let Some(rest) = after.strip_prefix("\"log\"")
        && let Some(r) = rest.trim_start().strip_prefix(':')
    {
        return r.trim_start().starts_with('{');
    }
    let first_line = body.split('\n').next().unwrap_or("").trim_end();
    if serde_json::from_str::<IgnoredAny>(first_line).is_ok() {
        return false;
    }
    let head = prefix_chars(body, 64 * 1024);
    head.contains("\"log\"") && head.contains("\"entries\"")
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char
/// boundary.
fn prefix_chars(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

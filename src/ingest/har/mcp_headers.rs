//! The request headers of a HAR entry that the HTTP rules compare with its
//! body or its URL ([`RequestHeaders`]): the 2026-07-28 routing headers
//! (basic/transports/streamable-http, Standard Headers and Custom Headers
//! from Tool Parameters, SEP-2243) and a foreign `Origin` (the transports'
//! Security Warning: servers MUST validate `Origin`).
//!
//! Only the few body members the rules need are read (`params.name`,
//! `params.uri`, the `params.arguments` members that an `Mcp-Param-*`
//! header names), by the skim or by serde_json into raw values; no
//! `serde_json::Value` is built, and nothing is read for an entry without
//! such headers.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::model::Headers;
use crate::record::jsonrpc::str_value;
use crate::record::{ParamHeader, RequestHeaders, scan};

/// The entry's [`RequestHeaders`], `None` when it has none of them.
/// `body` is the request body text when the capture kept it as text;
/// `response` the response headers (an `Access-Control-Allow-Origin` that
/// echoes the `Origin` exactly says the server allow-listed it: then the
/// origin is not kept as foreign; `*` allows any origin and says nothing).
pub(super) fn read(
    headers: &Headers<'_>,
    response: &Headers<'_>,
    url: &str,
    body: Option<&str>,
) -> Option<Arc<RequestHeaders>> {
    let mut out = RequestHeaders::default();
    for h in headers
        .0
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .filter_map(|h| h.0.as_ref())
    {
        let (Some(n), Some(v)) = (h.name.0.as_deref(), h.value.0.as_deref()) else {
            continue;
        };
        let (n, v) = (n.trim(), v.trim());
        if n.eq_ignore_ascii_case("mcp-method") && out.mcp_method.is_none() {
            out.mcp_method = Some(v.into());
        } else if n.eq_ignore_ascii_case("mcp-name") && out.mcp_name.is_none() {
            out.mcp_name = Some(v.into());
        } else if n.len() > 10
            && n.is_char_boundary(10)
            && n[..10].eq_ignore_ascii_case("mcp-param-")
        {
            out.mcp_params.push(ParamHeader {
                name: n[10..].into(),
                value: v.into(),
                body: None,
            });
        } else if n.eq_ignore_ascii_case("origin") && out.foreign_origin.is_none() {
            out.foreign_origin = foreign(v, url);
        }
    }
    if let Some((o, _)) = &out.foreign_origin
        && super::model::header(response, "access-control-allow-origin") == Some(&**o)
    {
        out.foreign_origin = None;
    }
    if out == RequestHeaders::default() {
        return None;
    }
    if (out.mcp_name.is_some() || !out.mcp_params.is_empty())
        && let Some(params) = body.and_then(|b| members(b.trim(), &["params"])[0])
    {
        let [name, uri, arguments] = members(params, &["name", "uri", "arguments"]);
        out.body_name = name.and_then(str_value).map(|s| s.as_ref().into());
        out.body_uri = uri.and_then(str_value).map(|s| s.as_ref().into());
        if let Some(args) = arguments.filter(|a| a.starts_with('{')) {
            let all = all_members(args);
            for p in &mut out.mcp_params {
                let hit = all
                    .iter()
                    .find(|(k, _)| **k == *p.name)
                    .or_else(|| all.iter().find(|(k, _)| k.eq_ignore_ascii_case(&p.name)));
                p.body = hit.map(|(_, v)| Box::from(*v));
            }
        }
    }
    Some(Arc::new(out))
}

/// Raw values of the named members of a JSON object text (`None` each when
/// the text is no object).
fn members<'a, const N: usize>(text: &'a str, names: &[&str; N]) -> [Option<&'a str>; N] {
    let mut out = [None; N];
    if !text.starts_with('{') {
        return out;
    }
    for (k, v) in all_members(text) {
        if let Some(i) = names.iter().position(|n| *n == k) {
            out[i] = Some(v);
        }
    }
    out
}

/// Every member of a JSON object text, keys decoded (a repeated key: the
/// last wins, as in `JSON.parse`); empty when the text is no object.
fn all_members(text: &str) -> Vec<(std::borrow::Cow<'_, str>, &str)> {
    let mut out: Vec<(std::borrow::Cow<'_, str>, &str)> = Vec::new();
    let skimmed = scan::object_members(text, |k, v| {
        out.retain(|(o, _)| o != k);
        out.push((k.into(), v));
    });
    if skimmed.is_some() {
        return out;
    }
    match serde_json::from_str::<BTreeMap<String, &RawValue>>(text) {
        Ok(m) => m.into_iter().map(|(k, v)| (k.into(), v.get())).collect(),
        Err(_) => Vec::new(),
    }
}

/// `(origin, url host)` when `origin` names another host than `url`;
/// loopback names (`localhost`, `127.x.x.x`, `::1`) count as one host, and
/// `null` or an origin without a scheme is not judged.
fn foreign(origin: &str, url: &str) -> Option<(Box<str>, Box<str>)> {
    let o = host_of(origin)?;
    let u = host_of(url)?;
    let loopback = |h: &str| {
        h == "localhost" || h == "::1" || h.starts_with("127.") || h.ends_with(".localhost")
    };
    if o == u || (loopback(&o) && loopback(&u)) {
        return None;
    }
    Some((origin.into(), u.into()))
}

/// The lower-cased host of `scheme://[userinfo@]host[:port][/…]`, brackets
/// of an IPv6 literal removed; `None` without `://` or with an empty host.
pub(super) fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let auth = rest.split(['/', '?', '#']).next()?;
    let auth = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let host = if let Some(v6) = auth.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        auth.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_foreign_origins() {
        assert_eq!(
            host_of("http://127.0.0.1:3000/mcp").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(host_of("http://[::1]:8080/mcp").as_deref(), Some("::1"));
        assert_eq!(
            host_of("https://u:p@Example.COM/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of("null"), None);
        let url = "http://127.0.0.1:18500/mcp";
        assert_eq!(
            foreign("http://evil.example", url),
            Some(("http://evil.example".into(), "127.0.0.1".into()))
        );
        // Same host, another port, and loopback aliases are not foreign.
        assert_eq!(foreign("http://127.0.0.1:6274", url), None);
        assert_eq!(foreign("http://localhost:5173", url), None);
        assert_eq!(foreign("null", url), None);
        assert_eq!(
            foreign("http://app.example", "https://app.example/mcp"),
            None
        );
    }
}

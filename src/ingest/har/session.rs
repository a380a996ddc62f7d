//! The session an entry belongs to (DESIGN.md rule 1; FORMATS.md §2.2): the
//! `Mcp-Session-Id` header, the legacy HTTP+SSE transport's `sessionId`
//! query parameter or `endpoint` event, else the URL's origin. HAR keys are
//! never split.

use std::sync::Arc;

use super::model::{Headers, header};

/// Query parameters that carry the legacy transport's session id.
const SESSION_PARAMS: [&str; 2] = ["sessionId", "session_id"];

/// An entry's session key, and whether it is the legacy HTTP+SSE
/// transport's.
pub(super) struct Session {
    pub(super) key: Arc<str>,
    pub(super) legacy: bool,
    /// No session header or parameter named it: the key is the origin.
    pub(super) origin_keyed: bool,
}

impl Session {
    /// The session of an exchange (DESIGN.md rule 1): the `Mcp-Session-Id`
    /// header of the request, then of the response; else the legacy
    /// `sessionId` / `session_id` query parameter of `url`; else the URL's
    /// origin; else the input's `name`.
    pub(super) fn of(request: &Headers<'_>, response: &Headers<'_>, url: &str, name: &str) -> Self {
        let header_key =
            header(request, "mcp-session-id").or_else(|| header(response, "mcp-session-id"));
        let param = query_param(url, &SESSION_PARAMS);
        let legacy = header_key.is_none() && param.is_some();
        let origin_keyed = header_key.is_none() && param.is_none();
        let key: Arc<str> = header_key
            .or(param)
            .map(Arc::from)
            .or_else(|| origin(url).map(Arc::from))
            .unwrap_or_else(|| name.into());
        Session {
            key,
            legacy,
            origin_keyed,
        }
    }

    /// A legacy GET stream's `endpoint` event (FORMATS.md §2.2): its data
    /// names the POST URI and its session; the stream belongs to that
    /// session.
    pub(super) fn endpoint(&mut self, data: &str) {
        if let Some(sid) = query_param(data.trim(), &SESSION_PARAMS) {
            self.key = sid.into();
            self.legacy = true;
            self.origin_keyed = false;
        }
    }
}

/// Value of the first non-empty query parameter among `names` (the legacy
/// `sessionId` / `session_id`, FORMATS.md §2.2).
fn query_param<'u>(url: &'u str, names: &[&str]) -> Option<&'u str> {
    let q = url.split_once('?')?.1;
    let q = q.split('#').next().unwrap_or("");
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (names.contains(&k) && !v.is_empty()).then_some(v)
    })
}

/// `scheme://host:port` of a URL (default port for http/https/ws/wss when
/// none is written), lower-cased; `None` when the URL has no `scheme://`.
pub(super) fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if authority.is_empty() {
        return None;
    }
    let (host, port) = if authority.starts_with('[') {
        match authority.split_once(']') {
            Some((h, p)) => (
                format!("{h}]"),
                p.strip_prefix(':').filter(|p| !p.is_empty()),
            ),
            None => (authority.to_string(), None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                (h.to_string(), Some(p))
            }
            Some((h, "")) => (h.to_string(), None),
            _ => (authority.to_string(), None),
        }
    };
    let port = port.map(str::to_string).or_else(|| {
        match scheme.as_str() {
            "http" | "ws" => Some("80"),
            "https" | "wss" => Some("443"),
            _ => None,
        }
        .map(str::to_string)
    });
    let host = host.to_ascii_lowercase();
    Some(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_query_params() {
        assert_eq!(
            origin("HTTPS://User@Example.COM/mcp?x=1").as_deref(),
            Some("https://example.com:443")
        );
        assert_eq!(
            origin("http://[::1]:8080/mcp").as_deref(),
            Some("http://[::1]:8080")
        );
        assert_eq!(origin("http://h:9/").as_deref(), Some("http://h:9"));
        assert_eq!(origin("/relative"), None);
        assert_eq!(
            query_param("/messages/?session_id=ab12#x", &["sessionId", "session_id"]),
            Some("ab12")
        );
        assert_eq!(
            query_param("/m?a=1&sessionId=&sessionId=z", &["sessionId"]),
            Some("z")
        );
    }
}

//! The lenient HAR models (FORMATS.md §4.1): one entry read into small
//! structs with every member optional and type-tolerant, by a one-pass skim
//! that serde_json backs up, plus the `log.creator` name that gives the
//! dialect.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};
use serde_json::value::RawValue;

use crate::record::scan::Skim;

/// The `dialect` name for a `log.creator.name` (FORMATS.md §4.1).
pub(super) fn dialect(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    const KNOWN: [&str; 7] = [
        "webinspector",
        "mitmproxy",
        "firefox",
        "charles",
        "fiddler",
        "playwright",
        "proxyman",
    ];
    KNOWN.into_iter().find(|k| n.contains(k)).unwrap_or("har")
}

/// A member read without failing its parent: wrong type or `null` → `None`
/// (FORMATS.md §4.1 "tolerate missing optional keys, `null`").
#[derive(Debug)]
pub(super) struct Loose<T>(pub(super) Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        Ok(Loose(serde_json::from_str::<T>(raw.get()).ok()))
    }
}

/// A number written as a JSON number or a numeric string.
#[derive(Debug)]
pub(super) struct Num(pub(super) f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Read from the raw text, so that the crate-wide
        // `arbitrary_precision` number form does not matter here.
        let raw = <&'de RawValue>::deserialize(d)?;
        let t = raw.get().trim();
        let text: Cow<'_, str> = if t.starts_with('"') {
            serde_json::from_str::<Cow<'_, str>>(t).map_err(serde::de::Error::custom)?
        } else {
            Cow::Borrowed(t)
        };
        text.trim()
            .parse::<f64>()
            .map(Num)
            .map_err(serde::de::Error::custom)
    }
}

impl Num {
    /// The value when finite.
    pub(super) fn finite(&self) -> Option<f64> {
        self.0.is_finite().then_some(self.0)
    }
}

/// A JSON string, borrowed from the input when it holds no escapes.
#[derive(Debug)]
pub(super) struct Text<'a>(pub(super) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// `log.creator`: only its `name` is read.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Creator<'a> {
    #[serde(borrow)]
    pub(super) name: Loose<Text<'a>>,
}

/// One element of `log.entries`, with the members the frames come from.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Entry<'a> {
    #[serde(rename = "startedDateTime", borrow)]
    pub(super) started: Loose<Text<'a>>,
    pub(super) time: Loose<Num>,
    pub(super) timings: Loose<Timings>,
    #[serde(borrow)]
    pub(super) request: Loose<Request<'a>>,
    #[serde(borrow)]
    pub(super) response: Loose<Response<'a>>,
    #[serde(rename = "_webSocketMessages", borrow)]
    pub(super) ws: Loose<Vec<Loose<WsMessage<'a>>>>,
    /// Chromium DevTools' per-event record of an event-stream response
    /// (FORMATS.md §4.1 "DevTools").
    #[serde(rename = "_eventSourceMessages", borrow)]
    pub(super) es: Loose<Vec<Loose<EsMessage<'a>>>>,
}

/// `entry.timings` (ms), summed when `time` is missing or out of range.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Timings {
    pub(super) blocked: Loose<Num>,
    pub(super) dns: Loose<Num>,
    pub(super) connect: Loose<Num>,
    pub(super) send: Loose<Num>,
    pub(super) wait: Loose<Num>,
    pub(super) receive: Loose<Num>,
}

/// A `headers` member: a list of [`Header`]s.
pub(super) type Headers<'a> = Loose<Vec<Loose<Header<'a>>>>;

/// One request or response header.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Header<'a> {
    #[serde(borrow)]
    pub(super) name: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) value: Loose<Text<'a>>,
}

/// `entry.request`.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Request<'a> {
    #[serde(borrow)]
    pub(super) method: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) url: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) headers: Headers<'a>,
    #[serde(rename = "postData", borrow)]
    pub(super) post_data: Loose<PostData<'a>>,
}

/// `request.postData`: the request body.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct PostData<'a> {
    #[serde(borrow)]
    pub(super) text: Loose<Text<'a>>,
    /// Not in HAR 1.2; some exporters mark base64 request bodies this way.
    #[serde(borrow)]
    pub(super) encoding: Loose<Text<'a>>,
    /// HAR 1.2 form parameters. chrome-har writes a JSON body only here
    /// (FORMATS.md §4.1 "chrome-har"): one pair per top-level key or array
    /// index, the value left as JSON.
    #[serde(borrow)]
    pub(super) params: Loose<Vec<Loose<Param<'a>>>>,
}

/// One `postData.params` element: `name` and its `value` as raw JSON.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Param<'a> {
    #[serde(borrow)]
    pub(super) name: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) value: Loose<&'a RawValue>,
}

/// `entry.response`.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Response<'a> {
    pub(super) status: Loose<Num>,
    #[serde(borrow)]
    pub(super) headers: Headers<'a>,
    #[serde(borrow)]
    pub(super) content: Loose<Content<'a>>,
    /// Chromium's network error for the exchange (`net::ERR_ABORTED` when
    /// the page aborted the body), `null` otherwise.
    #[serde(rename = "_error", borrow)]
    pub(super) error: Loose<Text<'a>>,
}

/// `response.content`: the response body.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct Content<'a> {
    #[serde(rename = "mimeType", borrow)]
    pub(super) mime_type: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) text: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) encoding: Loose<Text<'a>>,
}

/// One element of `entry._eventSourceMessages` (Chromium DevTools' HAR
/// export, FORMATS.md §4.1): one SSE event as DevTools' network panel saw
/// it arrive. `time` is in seconds since the Unix epoch; the sanitized
/// export leaves `data` out.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct EsMessage<'a> {
    pub(super) time: Loose<Num>,
    #[serde(rename = "eventName", borrow)]
    pub(super) event_name: Loose<Text<'a>>,
    #[serde(rename = "eventId", borrow)]
    pub(super) event_id: Loose<Text<'a>>,
    #[serde(borrow)]
    pub(super) data: Loose<Text<'a>>,
}

/// One element of `entry._webSocketMessages` (FORMATS.md §4.1).
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(super) struct WsMessage<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Loose<Text<'a>>,
    pub(super) time: Loose<Num>,
    pub(super) opcode: Loose<Num>,
    #[serde(borrow)]
    pub(super) data: Loose<Text<'a>>,
}

// ---------------------------------------------------------------------------
// The same entry, read by the fast skim (issue 5: HAR throughput).
//
// `serde_json::from_str::<Entry>` re-reads each `Loose` member once per
// level (its raw text, then the member parsed from it), so a body text was
// scanned five times. The skim reads the struct levels in one pass and
// hands each leaf (`Text`, `Num`) to serde_json exactly as `Loose` does, so
// the result is the same `Entry`. Where serde would do something the skim
// does not model (a struct written as an array, a repeated member, text
// the skim is not sure of) the skim gives up and serde reads the entry.

/// One struct level: `Some(Some(t))` a struct, `Some(None)` a value that is
/// no object (a `Loose` member then holds `None`), `None` give up.
type Skimmed<T> = Option<Option<T>>;

/// Reads the value at `sk` as a `#[serde(default)]` struct with these field
/// names; `set(t, field index, sk)` reads one field's value (`None`: give
/// up). Unknown members are skipped.
fn skim_struct<'a, T: Default>(
    sk: &mut Skim<'a>,
    fields: &[&str],
    mut set: impl FnMut(&mut T, usize, &mut Skim<'a>) -> Option<()>,
) -> Skimmed<T> {
    match sk.peek() {
        Some(b'{') => {}
        // serde reads a struct from an array too (fields in order).
        Some(b'[') => return None,
        _ => {
            sk.value_raw()?;
            return Some(None);
        }
    }
    let mut t = T::default();
    let mut seen = 0u64;
    sk.members(|k, sk| match fields.iter().position(|f| *f == k) {
        Some(i) => {
            if seen & (1 << i) != 0 {
                return None; // serde: "duplicate field"
            }
            seen |= 1 << i;
            set(&mut t, i, sk)
        }
        None => sk.value_raw().map(|_| ()),
    })?;
    Some(Some(t))
}

/// A leaf member as `Loose` reads it (serde_json on its raw text).
fn leaf<'a, T: Deserialize<'a>>(sk: &mut Skim<'a>) -> Option<Loose<T>> {
    let raw = sk.value_raw()?;
    Some(Loose(serde_json::from_str::<T>(raw).ok()))
}

/// A text member as `Loose<Text>` reads it: a string decoded by the skim
/// in the same pass (serde_json's decoding, tested in `record::scan`);
/// any other value through [`leaf`].
fn text<'a>(sk: &mut Skim<'a>) -> Option<Loose<Text<'a>>> {
    if sk.peek() == Some(b'"') {
        Some(Loose(Some(Text(sk.string_value()?))))
    } else {
        leaf(sk)
    }
}

/// An array member of structs as `Loose<Vec<Loose<T>>>` reads it.
fn skim_list<'a, T>(
    sk: &mut Skim<'a>,
    item: impl Fn(&mut Skim<'a>) -> Skimmed<T>,
) -> Option<Loose<Vec<Loose<T>>>> {
    if sk.peek() != Some(b'[') {
        sk.value_raw()?;
        return Some(Loose(None));
    }
    let mut out = Vec::new();
    sk.items(|sk| {
        out.push(Loose(item(sk)?));
        Some(())
    })?;
    Some(Loose(Some(out)))
}

impl<'a> Entry<'a> {
    /// The entry `raw` (one JSON value) as `serde_json::from_str` reads
    /// it, or `None` when the skim gives up or it is no object.
    pub(super) fn skim(raw: &'a str) -> Option<Self> {
        crate::record::scan::whole(raw, Self::skim_at).flatten()
    }

    fn skim_at(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = [
            "startedDateTime",
            "time",
            "timings",
            "request",
            "response",
            "_webSocketMessages",
            "_eventSourceMessages",
        ];
        skim_struct(sk, &fields, |e: &mut Entry<'a>, i, sk| {
            match i {
                0 => e.started = text(sk)?,
                1 => e.time = leaf(sk)?,
                2 => e.timings = Loose(Timings::skim(sk)?),
                3 => e.request = Loose(Request::skim(sk)?),
                4 => e.response = Loose(Response::skim(sk)?),
                5 => e.ws = skim_list(sk, WsMessage::skim)?,
                _ => e.es = skim_list(sk, EsMessage::skim)?,
            }
            Some(())
        })
    }
}

impl Timings {
    fn skim(sk: &mut Skim<'_>) -> Skimmed<Self> {
        let fields = ["blocked", "dns", "connect", "send", "wait", "receive"];
        skim_struct(sk, &fields, |t: &mut Timings, i, sk| {
            let slot = match i {
                0 => &mut t.blocked,
                1 => &mut t.dns,
                2 => &mut t.connect,
                3 => &mut t.send,
                4 => &mut t.wait,
                _ => &mut t.receive,
            };
            *slot = leaf(sk)?;
            Some(())
        })
    }
}

impl<'a> Header<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        skim_struct(sk, &["name", "value"], |h: &mut Header<'a>, i, sk| {
            if i == 0 {
                h.name = text(sk)?;
            } else {
                h.value = text(sk)?;
            }
            Some(())
        })
    }
}

impl<'a> Request<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["method", "url", "headers", "postData"];
        skim_struct(sk, &fields, |r: &mut Request<'a>, i, sk| {
            match i {
                0 => r.method = text(sk)?,
                1 => r.url = text(sk)?,
                2 => r.headers = skim_list(sk, Header::skim)?,
                _ => r.post_data = Loose(PostData::skim(sk)?),
            }
            Some(())
        })
    }
}

impl<'a> PostData<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["text", "encoding", "params"];
        skim_struct(sk, &fields, |p: &mut PostData<'a>, i, sk| {
            match i {
                0 => p.text = text(sk)?,
                1 => p.encoding = text(sk)?,
                _ => p.params = skim_list(sk, Param::skim)?,
            }
            Some(())
        })
    }
}

impl<'a> Param<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        skim_struct(sk, &["name", "value"], |p: &mut Param<'a>, i, sk| {
            if i == 0 {
                p.name = text(sk)?;
            } else {
                p.value = leaf(sk)?;
            }
            Some(())
        })
    }
}

impl<'a> Response<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["status", "headers", "content", "_error"];
        skim_struct(sk, &fields, |r: &mut Response<'a>, i, sk| {
            match i {
                0 => r.status = leaf(sk)?,
                1 => r.headers = skim_list(sk, Header::skim)?,
                2 => r.content = Loose(Content::skim(sk)?),
                _ => r.error = text(sk)?,
            }
            Some(())
        })
    }
}

impl<'a> Content<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["mimeType", "text", "encoding"];
        skim_struct(sk, &fields, |c: &mut Content<'a>, i, sk| {
            match i {
                0 => c.mime_type = text(sk)?,
                1 => c.text = text(sk)?,
                _ => c.encoding = text(sk)?,
            }
            Some(())
        })
    }
}

impl<'a> EsMessage<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["time", "eventName", "eventId", "data"];
        skim_struct(sk, &fields, |m: &mut EsMessage<'a>, i, sk| {
            match i {
                0 => m.time = leaf(sk)?,
                1 => m.event_name = text(sk)?,
                2 => m.event_id = text(sk)?,
                _ => m.data = text(sk)?,
            }
            Some(())
        })
    }
}

impl<'a> WsMessage<'a> {
    fn skim(sk: &mut Skim<'a>) -> Skimmed<Self> {
        let fields = ["type", "time", "opcode", "data"];
        skim_struct(sk, &fields, |m: &mut WsMessage<'a>, i, sk| {
            match i {
                0 => m.kind = text(sk)?,
                1 => m.time = leaf(sk)?,
                2 => m.opcode = leaf(sk)?,
                _ => m.data = text(sk)?,
            }
            Some(())
        })
    }
}

/// First non-empty value of a header, name compared case-insensitively
/// (FORMATS.md §4 "header names case-insensitive, duplicates kept").
pub(super) fn header<'h>(headers: &'h Headers<'_>, name: &str) -> Option<&'h str> {
    headers
        .0
        .as_deref()?
        .iter()
        .filter_map(|h| h.0.as_ref())
        .find_map(|h| {
            let n = h.name.0.as_deref()?;
            let v = h.value.0.as_deref()?.trim();
            (n.trim().eq_ignore_ascii_case(name) && !v.is_empty()).then_some(v)
        })
}

#[cfg(test)]
mod tests {
    /// The skim reads an entry exactly as serde does, or gives up: on
    /// every entry of the bundled HARs and on every one-byte deletion or
    /// swap (from a set of JSON-significant bytes) of some of them.
    #[test]
    fn entry_skim_agrees_with_serde() {
        let mut entries = Vec::new();
        for dir in ["tests/data/real", "tests/data/cases"] {
            for f in std::fs::read_dir(dir).unwrap() {
                let p = f.unwrap().path();
                if p.extension().is_some_and(|e| e == "har") {
                    let doc: serde_json::Value =
                        serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
                    for e in doc["log"]["entries"].as_array().into_iter().flatten() {
                        entries.push(e.to_string());
                    }
                }
            }
        }
        assert!(entries.len() > 100, "{}", entries.len());
        let mut texts = entries.clone();
        let swaps = [
            b'"', b'{', b'}', b'[', b']', b',', b':', b'0', b'-', b'n', b' ',
        ];
        for e in entries.iter().filter(|e| e.len() < 1500).take(12) {
            texts.extend(crate::record::scan::edits::one_byte_edits(e, &swaps, false));
        }
        let (mut skimmed, mut total) = (0, 0);
        for t in &texts {
            total += 1;
            if let Some(fast) = super::Entry::skim(t) {
                skimmed += 1;
                let slow: super::Entry = serde_json::from_str(t)
                    .unwrap_or_else(|e| panic!("skim accepted, serde refused ({e}): {t}"));
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{t}");
            }
        }
        assert!(skimmed * 2 > total, "{skimmed} of {total}");
    }
}

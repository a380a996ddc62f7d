//! A fast, validating skim over JSON text (issue 5: "a SIMD scanner for
//! those members is in scope; keep serde_json where it does not matter").
//!
//! The classifiers in [`super::jsonrpc`] and the envelope reader need only
//! the raw text of a few members of one object; everything else is skipped.
//! serde_json skips a string byte by byte; this skim finds the end of a
//! string with `memchr2` (SIMD, chosen at run time) and checks the span for
//! control characters in one vectorised pass, so long `result` / `params`
//! texts cost a fraction of a cycle per byte.
//!
//! It is a fast path, not a second authority. It answers only when it is
//! sure the text is valid JSON (RFC 8259 §2–§7: whitespace, literals, the
//! number grammar, string escapes, no raw control characters in strings)
//! and every key it hands out is written without escapes; in every other
//! case (invalid JSON, an escaped key, nesting deeper than
//! [`MAX_DEPTH`]) it answers `None` and the caller asks serde_json, whose
//! result and error text are then the ones used. The raw member texts it
//! gives are exactly the ones serde_json's `RawValue` gives (the value's
//! bytes, without the whitespace around them). Tests compare the two on
//! every one-byte edit of a set of messages.

use std::borrow::Cow;

/// Deepest nesting the skim follows; deeper text goes to serde_json (whose
/// own limit is 128).
pub const MAX_DEPTH: u32 = 100;

/// Calls `member(key, raw value)` for each member of the JSON object that
/// is the whole of `text` (whitespace around it allowed), in order.
///
/// `None` when `text` is not exactly one valid JSON object, when a key has
/// an escape, or when it nests deeper than [`MAX_DEPTH`]: the caller must
/// then drop what `member` was given and use serde_json instead.
pub fn object_members<'a>(text: &'a str, member: impl FnMut(&'a str, &'a str)) -> Option<()> {
    whole(text, |s| s.object(member))
}

/// Like [`object_members`], but the member's value is left to the caller:
/// `member(key, skim)` is called with `skim` at the value's first byte and
/// must move it past exactly that value ([`Skim::value_raw`],
/// [`Skim::object_raw`], [`Skim::members`], [`Skim::items`]), or answer
/// `None` to give up (then the whole call answers `None`). Used to classify
/// an envelope's message in the same pass that reads the envelope.
pub fn object_with<'a>(
    text: &'a str,
    member: impl FnMut(&'a str, &mut Skim<'a>) -> Option<()>,
) -> Option<()> {
    whole(text, |s| s.members(member))
}

/// Runs `read` on a skim at the first value of `text`, then checks that
/// only whitespace follows; `None` when `read` gives up or text follows.
pub fn whole<'a, T>(text: &'a str, read: impl FnOnce(&mut Skim<'a>) -> Option<T>) -> Option<T> {
    let mut s = Skim::new(text);
    s.ws();
    let t = read(&mut s)?;
    s.ws();
    s.at_end()?;
    Some(t)
}

/// Calls `item(raw value)` for each element of the JSON array that is the
/// whole of `text` (whitespace around it allowed), in order. `None` as for
/// [`object_members`].
pub fn array_items<'a>(text: &'a str, mut item: impl FnMut(&'a str)) -> Option<()> {
    whole(text, |s| {
        s.items(|sk| {
            item(sk.value_raw()?);
            Some(())
        })
    })
}

/// The text of a JSON string value written without escapes (`"abc"` →
/// `abc`); `None` for any other value text, and for a string with a
/// backslash (decode those with serde_json). `raw` must be valid JSON, as a
/// member text from this module or from serde_json's `RawValue` is.
pub fn plain_str(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if memchr::memchr(b'\\', inner.as_bytes()).is_some() {
        None
    } else {
        Some(inner)
    }
}

/// A position in a JSON text being skimmed (see [`object_with`]).
pub struct Skim<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Skim<'a> {
    /// The next byte (the first of the value, inside [`object_with`]).
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// The skim's place, for [`Skim::since`].
    pub fn mark(&self) -> usize {
        self.i
    }

    /// The text from `mark` to the skim's place.
    pub fn since(&self, mark: usize) -> &'a str {
        &self.text[mark..self.i]
    }

    /// Skips one value; its raw text.
    pub fn value_raw(&mut self) -> Option<&'a str> {
        let v0 = self.i;
        self.value(1)?;
        Some(&self.text[v0..self.i])
    }

    /// Skips one object, calling `member(key, raw value)` per member; the
    /// object's raw text. `None` as for [`object_members`].
    pub fn object_raw(&mut self, member: impl FnMut(&'a str, &'a str)) -> Option<&'a str> {
        let v0 = self.i;
        self.object(member)?;
        Some(&self.text[v0..self.i])
    }

    /// Reads the object at the skim member by member: `member(key, skim)`
    /// with the skim at the value, which it must skip (see
    /// [`object_with`]).
    pub fn members(
        &mut self,
        mut member: impl FnMut(&'a str, &mut Skim<'a>) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        self.ws();
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            self.ws();
            let key = self.key()?;
            self.ws();
            self.expect(b':')?;
            self.ws();
            member(key, self)?;
            self.ws();
            if self.eat(b',') {
                continue;
            }
            return self.expect(b'}');
        }
    }

    /// Reads the array at the skim element by element: `item(skim)` with
    /// the skim at the element, which it must skip.
    pub fn items(&mut self, mut item: impl FnMut(&mut Skim<'a>) -> Option<()>) -> Option<()> {
        self.expect(b'[')?;
        self.ws();
        if self.eat(b']') {
            return Some(());
        }
        loop {
            self.ws();
            item(self)?;
            self.ws();
            if self.eat(b',') {
                continue;
            }
            return self.expect(b']');
        }
    }

    /// A key without escapes, its text (`None` for an escaped one).
    fn key(&mut self) -> Option<&'a str> {
        let k0 = self.i;
        if self.string()? {
            return None; // an escaped key: serde_json decodes it
        }
        Some(&self.text[k0 + 1..self.i - 1])
    }

    /// A skim at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Skim {
            text,
            b: text.as_bytes(),
            i: 0,
        }
    }

    fn at_end(&self) -> Option<()> {
        (self.i == self.b.len()).then_some(())
    }

    /// Skips JSON whitespace (RFC 8259 §2: space, tab, LF, CR).
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }

    /// An object at `i`; `member(key, raw value)` per member.
    fn object(&mut self, mut member: impl FnMut(&'a str, &'a str)) -> Option<()> {
        self.members(|key, sk| {
            member(key, sk.value_raw()?);
            Some(())
        })
    }

    /// Skips one value at `i` (no leading whitespace), nested `depth` deep.
    fn value(&mut self, depth: u32) -> Option<()> {
        match *self.b.get(self.i)? {
            b'"' => self.string().map(|_| ()),
            b'{' => {
                if depth > MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.eat(b'}') {
                    return Some(());
                }
                loop {
                    self.ws();
                    if *self.b.get(self.i)? != b'"' {
                        return None;
                    }
                    self.string()?;
                    self.ws();
                    self.expect(b':')?;
                    self.ws();
                    self.value(depth + 1)?;
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    return self.expect(b'}');
                }
            }
            b'[' => {
                if depth > MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.eat(b']') {
                    return Some(());
                }
                loop {
                    self.ws();
                    self.value(depth + 1)?;
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    return self.expect(b']');
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        self.eat(b'-');
        match *self.b.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.') {
            self.one_or_more_digits()?;
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.one_or_more_digits()?;
        }
        // A digit right after `0` (`01`) is no number.
        if self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        Some(())
    }

    fn digits(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
    }

    fn one_or_more_digits(&mut self) -> Option<()> {
        let start = self.i;
        self.digits();
        (self.i > start).then_some(())
    }

    /// The place of the next `"` or `\\` at or after `j` inside a string;
    /// `None` at a control character (not allowed raw, RFC 8259 §7) or at
    /// the end of the text.
    fn next_stop(&self, mut j: usize) -> Option<usize> {
        // Most runs are short (keys, names, text between escapes): a byte
        // loop finds their end sooner than setting up a vector search.
        let short_end = (j + 24).min(self.b.len());
        while j < short_end && !STOP[self.b[j] as usize] {
            j += 1;
        }
        if j == short_end {
            let rel = memchr::memchr2(b'"', b'\\', &self.b[j..])?;
            if has_control(&self.b[j..j + rel]) {
                return None;
            }
            Some(j + rel)
        } else if self.b[j] < 0x20 {
            None
        } else {
            Some(j)
        }
    }

    /// A string at `i` (RFC 8259 §7); returns whether it has an escape.
    fn string(&mut self) -> Option<bool> {
        if *self.b.get(self.i)? != b'"' {
            return None;
        }
        let mut j = self.i + 1;
        let mut escaped = false;
        loop {
            j = self.next_stop(j)?;
            if self.b[j] == b'"' {
                self.i = j + 1;
                return Some(escaped);
            }
            escaped = true;
            match *self.b.get(j + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                b'u' => {
                    hex4(self.b, j + 2)?;
                    j += 6;
                }
                _ => return None,
            }
        }
    }

    /// Skips the string at the skim and returns its value, unescaped
    /// (borrowed when it has no escape). `None` when it is no valid string,
    /// or holds a lone surrogate escape (serde_json refuses those; leave
    /// them to it). An escaped string is first skimmed to its end, so that
    /// its value is built in one allocation of the right size.
    pub fn string_value(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i + 1;
        if !self.string()? {
            return Some(Cow::Borrowed(&self.text[start..self.i - 1]));
        }
        unescape(&self.text[start..self.i - 1]).map(Cow::Owned)
    }
}

/// The value of the inside of a valid JSON string that has escapes
/// (RFC 8259 §7); `None` for a lone surrogate.
fn unescape(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut seg = 0;
    while let Some(rel) = memchr::memchr(b'\\', &b[seg..]) {
        let j = seg + rel;
        copy_run(&mut out, b, seg, j);
        let (c, used) = match b[j + 1] {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            _ => {
                // `\uXXXX`, already checked to be four hex digits.
                let hi = hex4(b, j + 2)?;
                match hi {
                    0xD800..=0xDBFF => {
                        // A high surrogate must be followed by a low one.
                        if b.get(j + 6..j + 8) != Some(b"\\u") {
                            return None;
                        }
                        let lo = hex4(b, j + 8)?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return None;
                        }
                        let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        (char::from_u32(cp)?, 12)
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => (char::from_u32(hi)?, 6),
                }
            }
        };
        let mut utf8 = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        seg = j + used;
    }
    out.extend_from_slice(&b[seg..]);
    // Whole characters were copied and escapes decoded: always UTF-8.
    String::from_utf8(out).ok()
}

/// Appends `b[from..to]` to `out`. Runs between escapes are short in JSON
/// held in a JSON string (a few bytes between `\"`): a run of at most 16
/// bytes is copied as a fixed 16-byte block (no call) and cut back.
fn copy_run(out: &mut Vec<u8>, b: &[u8], from: usize, to: usize) {
    let n = to - from;
    if n <= 16 && from + 16 <= b.len() {
        let keep = out.len() + n;
        let block: &[u8; 16] = b[from..from + 16].try_into().expect("16 bytes");
        out.extend_from_slice(block);
        out.truncate(keep);
    } else {
        out.extend_from_slice(&b[from..to]);
    }
}

/// The four hex digits at `j` of `b`, as a number.
fn hex4(b: &[u8], j: usize) -> Option<u32> {
    let hex = b.get(j..j + 4)?;
    let mut v = 0;
    for &h in hex {
        v = v * 16 + (h as char).to_digit(16)?;
    }
    Some(v)
}

/// Bytes that end a run of plain string text: `"`, `\\` and the control
/// characters (RFC 8259 §7).
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Whether `span` holds a byte below 0x20 (not allowed raw in a string);
/// written as a minimum over the bytes so that it compiles to vector
/// instructions.
fn has_control(span: &[u8]) -> bool {
    span.iter().fold(u8::MAX, |m, &c| m.min(c)) < 0x20
}

/// Test inputs shared by the differential tests here and in
/// `ingest::har`.
#[cfg(test)]
pub(crate) mod edits {
    /// `seed`, every one-byte deletion of it, every swap of one byte for one
    /// of `swaps`, and (with `insert`) every insertion of one of them: the
    /// ones that are still UTF-8.
    pub(crate) fn one_byte_edits(seed: &str, swaps: &[u8], insert: bool) -> Vec<String> {
        let b = seed.as_bytes();
        let mut texts = vec![seed.to_string()];
        for i in 0..b.len() {
            let mut d = b.to_vec();
            d.remove(i);
            texts.extend(String::from_utf8(d).ok());
            for &c in swaps {
                let mut r = b.to_vec();
                r[i] = c;
                texts.extend(String::from_utf8(r).ok());
                if insert {
                    let mut ins = b.to_vec();
                    ins.insert(i, c);
                    texts.extend(String::from_utf8(ins).ok());
                }
            }
        }
        texts
    }
}

#[cfg(test)]
mod tests {
    use super::edits::one_byte_edits;
    use super::*;
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde_json::value::RawValue;
    use std::borrow::Cow;

    /// serde_json's view: the members as (key, raw text), `None` when it is
    /// not one object.
    fn serde_members(text: &str) -> Option<Vec<(String, String)>> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<Cow<'de, str>>()? {
                    let v = m.next_value::<&'de RawValue>()?;
                    out.push((k.into_owned(), v.get().to_string()));
                }
                Ok(out)
            }
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let v = (&mut de).deserialize_map(V).ok()?;
        de.end().ok()?;
        Some(v)
    }

    fn skim_members(text: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        object_members(text, |k, v| out.push((k.to_string(), v.to_string())))?;
        Some(out)
    }

    fn serde_items(text: &str) -> Option<Vec<String>> {
        let v: Vec<&RawValue> = serde_json::from_str(text).ok()?;
        Some(v.iter().map(|r| r.get().to_string()).collect())
    }

    fn skim_items(text: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        array_items(text, |v| out.push(v.to_string()))?;
        Some(out)
    }

    const SEEDS: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2.5,-3e2,true,false,null]}}}"#,
        r#" { "jsonrpc" : "2.0" , "id" : "a\"b\\c\u00e9\n" , "result" : { "content" : [ { "type" : "text" , "text" : "ok" } ] } } "#,
        r#"{"jsonrpc":"2.0","id":-0,"error":{"code":-32601,"message":"Method not found","data":0.5E+3}}"#,
        r#"{"a":{},"b":[],"c":[[]],"d":"","e":0,"f":-0.0e-0}"#,
        "{\"a\":\"\\ud83d\\ude00\",\t\"b\":\r\n1}",
        r#"{"\u006dethod":"x","id":1}"#,
        r#"[1,{"jsonrpc":"2.0","method":"a"},"x",[],null]"#,
        r#"[]"#,
    ];

    /// Every one-byte deletion, and every replacement by a byte from a set
    /// of JSON-significant ones, of each seed: where the skim answers, it
    /// answers exactly as serde_json does; where serde_json refuses, the
    /// skim never accepts.
    #[test]
    fn agrees_with_serde_json_on_every_one_byte_edit() {
        let swaps = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'0', b'1', b'-', b'.', b'e',
            b'+', b'n', b't', b'u', b'x', b'\t', b'\n', 0x01, 0x1f,
        ];
        let mut checked = 0;
        for seed in SEEDS {
            for t in &one_byte_edits(seed, &swaps, true) {
                let (fast, slow) = (skim_members(t), serde_members(t));
                if let Some(f) = &fast {
                    assert_eq!(Some(f), slow.as_ref(), "object {t:?}");
                }
                let (fast, slow) = (skim_items(t), serde_items(t));
                if let Some(f) = &fast {
                    assert_eq!(Some(f), slow.as_ref(), "array {t:?}");
                }
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// `string_value` decodes exactly as serde_json does, or gives up.
    #[test]
    fn string_values_agree_with_serde_json() {
        let seeds = [
            r#""plain""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u0000\uffff \ud83d\ude00 end""#,
            r#""{\"jsonrpc\":\"2.0\",\"id\":1}""#,
            r#""\ud83d""#,
            r#""\ude00x""#,
            r#""\ud83d\u0041""#,
        ];
        let swaps = [b'"', b'\\', b'u', b'd', b'8', b'0', b'n', b'x', 0x01];
        let mut n = 0;
        for seed in seeds {
            for t in &one_byte_edits(seed, &swaps, false) {
                let fast = whole(t, |s| s.string_value());
                let slow = serde_json::from_str::<Cow<str>>(t).ok();
                if let Some(f) = &fast {
                    assert_eq!(Some(f), slow.as_ref(), "{t:?}");
                    n += 1;
                }
            }
        }
        assert!(n > 100, "{n}");
        assert_eq!(
            whole(seeds[2], |s| s.string_value()).unwrap(),
            "é\u{0}\u{ffff} 😀 end"
        );
        // Lone surrogates: serde_json's turn.
        for lone in &seeds[4..] {
            assert_eq!(whole(lone, |s| s.string_value()), None);
        }
    }

    #[test]
    fn answers_for_plain_valid_text_and_leaves_the_rest() {
        assert_eq!(
            skim_members(SEEDS[0]).unwrap()[3],
            (
                "params".to_string(),
                r#"{"name":"x","arguments":{"a":[1,2.5,-3e2,true,false,null]}}"#.to_string()
            )
        );
        assert_eq!(skim_members(SEEDS[1]).unwrap().len(), 3);
        // An escaped key, a too-deep nesting: serde_json's turn.
        assert_eq!(skim_members(SEEDS[5]), None);
        let deep = format!(r#"{{"a":{}{}}}"#, "[".repeat(150), "]".repeat(150));
        assert_eq!(skim_members(&deep), None);
        assert_eq!(skim_items(SEEDS[6]).unwrap().len(), 5);
        for bad in [
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":"x"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":1} x"#,
        ] {
            assert_eq!(skim_members(bad), None, "{bad}");
            assert_eq!(serde_members(bad), None, "{bad}");
        }
        assert_eq!(plain_str(r#""abc""#), Some("abc"));
        assert_eq!(plain_str(r#""a\"c""#), None);
        assert_eq!(plain_str("12"), None);
    }

    #[test]
    fn skips_a_long_string_in_one_pass() {
        let long = "x".repeat(1 << 20);
        let text = format!(r#"{{"id":1,"result":"{long}"}}"#);
        let m = skim_members(&text).unwrap();
        assert_eq!((m[1].0.as_str(), m[1].1.len()), ("result", (1 << 20) + 2));
    }
}

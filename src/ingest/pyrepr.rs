//! A reader of Python `repr()` text (FORMATS.md §8.3.10): the pydantic
//! model reprs mcp-proxy (PyPI) logs, turned into JSON values.
//!
//! Read: `None`, `True`, `False`; integers and floats (`inf`, `nan` become
//! `null`); strings in either quote style with Python escapes (`\n`,
//! `\xNN`, `\uNNNN`, `\UNNNNNNNN`, `\'`) and an optional `b`/`r`/`u`
//! prefix; dicts (non-string keys are written as their JSON text); lists;
//! tuples (as lists); calls `Name(field=value, …)` and `pkg.Name(…)`.
//! A call with keyword arguments is an object of them without the `None`
//! ones (pydantic serialises a model without its unset fields); a call with
//! one positional argument and no keywords is that argument
//! (`AnyUrl('config://app')`); any other call is an object of its keywords.
//! `<… object at 0x…>` is `null`. Anything else is an error with its byte
//! offset. Nesting deeper than [`MAX_DEPTH`] is an error, never a stack
//! overflow; the reader never panics.

use serde_json::{Map, Value};

/// How deep values may nest before the text is refused.
pub const MAX_DEPTH: usize = 64;

/// Why a repr could not be read: what, and the byte offset in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReprError {
    /// Byte offset of the problem.
    pub at: usize,
    /// What was expected.
    pub what: &'static str,
}

/// Reads one value at the start of `text` (leading spaces allowed): the
/// value and the byte length read (trailing text is the caller's).
pub fn read_value(text: &str) -> Result<(Value, usize), ReprError> {
    let mut r = Reader { s: text, pos: 0 };
    r.ws();
    let v = r.value(0)?;
    Ok((v, r.pos))
}

/// Reads a whole text as one value; text after it is an error.
pub fn read_whole(text: &str) -> Result<Value, ReprError> {
    let (v, n) = read_value(text)?;
    let rest = &text[n..];
    if !rest.trim().is_empty() {
        return Err(ReprError {
            at: n + (rest.len() - rest.trim_start().len()),
            what: "end of the value",
        });
    }
    Ok(v)
}

struct Reader<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn err<T>(&self, what: &'static str) -> Result<T, ReprError> {
        Err(ReprError { at: self.pos, what })
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ReprError> {
        if depth > MAX_DEPTH {
            return self.err("a shallower value (nesting too deep)");
        }
        match self.peek() {
            Some(b'{') => self.dict(depth),
            Some(b'[') => {
                self.pos += 1;
                self.items(b']', depth).map(Value::Array)
            }
            Some(b'(') => {
                self.pos += 1;
                self.items(b')', depth).map(Value::Array)
            }
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'<') => self.angle(),
            Some(b'-' | b'+' | b'0'..=b'9' | b'.') => self.number(),
            Some(c) if c == b'_' || c.is_ascii_alphabetic() => self.word(depth),
            _ => self.err("a value"),
        }
    }

    /// `<mcp.shared.session.RequestResponder object at 0x…>`: no content.
    fn angle(&mut self) -> Result<Value, ReprError> {
        match self.rest().find('>') {
            Some(n) => {
                self.pos += n + 1;
                Ok(Value::Null)
            }
            None => self.err("`>`"),
        }
    }

    fn items(&mut self, close: u8, depth: usize) -> Result<Vec<Value>, ReprError> {
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.eat(close) {
                return Ok(out);
            }
            out.push(self.value(depth + 1)?);
            self.ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(close) {
                return Ok(out);
            }
            return self.err("`,` or a closing bracket");
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, ReprError> {
        self.pos += 1;
        let mut m = Map::new();
        loop {
            self.ws();
            if self.eat(b'}') {
                return Ok(Value::Object(m));
            }
            let k = self.value(depth + 1)?;
            self.ws();
            if !self.eat(b':') {
                return self.err("`:`");
            }
            self.ws();
            let v = self.value(depth + 1)?;
            let key = match k {
                Value::String(s) => s,
                other => other.to_string(),
            };
            m.insert(key, v);
            self.ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(b'}') {
                return Ok(Value::Object(m));
            }
            return self.err("`,` or `}`");
        }
    }

    fn ident(&mut self) -> &'a str {
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c == b'_' || c == b'.' || c.is_ascii_alphanumeric())
        {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    /// `None`, `True`, `False`, `inf`, `nan`, a string prefix, or a call.
    fn word(&mut self, depth: usize) -> Result<Value, ReprError> {
        let start = self.pos;
        let name = self.ident();
        if matches!(self.peek(), Some(b'\'' | b'"'))
            && name.len() <= 2
            && name
                .bytes()
                .all(|c| matches!(c, b'b' | b'r' | b'u' | b'B' | b'R' | b'U'))
        {
            return self.string().map(Value::String);
        }
        match name {
            "None" | "inf" | "nan" => return Ok(Value::Null),
            "True" => return Ok(Value::Bool(true)),
            "False" => return Ok(Value::Bool(false)),
            _ => {}
        }
        if !self.eat(b'(') {
            self.pos = start;
            return self.err("a value (a bare name)");
        }
        self.call(depth)
    }

    /// The arguments of a call, after its `(`.
    fn call(&mut self, depth: usize) -> Result<Value, ReprError> {
        let mut kw = Map::new();
        let mut positional = Vec::new();
        loop {
            self.ws();
            if self.eat(b')') {
                break;
            }
            let save = self.pos;
            let name = self.ident();
            let is_kw = !name.is_empty()
                && !name.contains('.')
                && self.peek() == Some(b'=')
                && self.s.as_bytes().get(self.pos + 1) != Some(&b'=');
            if is_kw {
                self.pos += 1;
                self.ws();
                let v = self.value(depth + 1)?;
                if !v.is_null() {
                    kw.insert(name.to_string(), v);
                }
            } else {
                self.pos = save;
                positional.push(self.value(depth + 1)?);
            }
            self.ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(b')') {
                break;
            }
            return self.err("`,` or `)`");
        }
        if kw.is_empty() && positional.len() == 1 {
            return Ok(positional.pop().unwrap_or(Value::Null));
        }
        Ok(Value::Object(kw))
    }

    fn number(&mut self) -> Result<Value, ReprError> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        if self.rest().starts_with("inf") {
            self.pos += 3;
            return Ok(Value::Null);
        }
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'_' | b'x' | b'a'..=b'd' | b'f' | b'A'..=b'F')
        ) || (matches!(self.peek(), Some(b'-' | b'+'))
            && matches!(
                self.pos
                    .checked_sub(1)
                    .and_then(|i| self.s.as_bytes().get(i)),
                Some(b'e' | b'E')
            ))
        {
            self.pos += 1;
        }
        let t: String = self.s[start..self.pos]
            .chars()
            .filter(|c| *c != '_')
            .collect();
        if let Ok(i) = t.parse::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = t.parse::<u64>() {
            return Ok(Value::from(u));
        }
        let digits = t.strip_prefix(['-', '+']).unwrap_or(&t);
        if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
            // A huge integer keeps its digits (serde_json arbitrary precision).
            if let Ok(n) = t.trim_start_matches('+').parse::<serde_json::Number>() {
                return Ok(Value::Number(n));
            }
        }
        if let Some(h) = t
            .strip_prefix("0x")
            .and_then(|h| i64::from_str_radix(h, 16).ok())
        {
            return Ok(Value::from(h));
        }
        match t.parse::<f64>() {
            Ok(f) => Ok(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            Err(_) => {
                self.pos = start;
                self.err("a number")
            }
        }
    }

    /// A quoted string (either quote style; triple quotes are not reprs).
    fn string(&mut self) -> Result<String, ReprError> {
        let Some(q) = self.peek() else {
            return self.err("a string");
        };
        self.pos += 1;
        let mut out = String::new();
        let bytes = self.s.as_bytes();
        loop {
            let Some(&b) = bytes.get(self.pos) else {
                return self.err("the end of the string");
            };
            if b == q {
                self.pos += 1;
                return Ok(out);
            }
            if b != b'\\' {
                // Copy one whole char (the text is UTF-8).
                let ch = self.rest().chars().next().unwrap_or('\u{fffd}');
                out.push(ch);
                self.pos += ch.len_utf8();
                continue;
            }
            self.pos += 1;
            let Some(&e) = bytes.get(self.pos) else {
                return self.err("an escape");
            };
            self.pos += 1;
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'0' => out.push('\0'),
                b'a' => out.push('\u{7}'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'v' => out.push('\u{b}'),
                b'x' => out.push(self.hex(2)?),
                b'u' => out.push(self.hex(4)?),
                b'U' => out.push(self.hex(8)?),
                b'\\' | b'\'' | b'"' => out.push(e as char),
                _ => {
                    self.pos -= 1;
                    let ch = self.rest().chars().next().unwrap_or('\u{fffd}');
                    out.push('\\');
                    out.push(ch);
                    self.pos += ch.len_utf8();
                }
            }
        }
    }

    fn hex(&mut self, n: usize) -> Result<char, ReprError> {
        let Some(h) = self.s.get(self.pos..self.pos + n) else {
            return self.err("hex digits");
        };
        match u32::from_str_radix(h, 16) {
            Ok(c) if h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                self.pos += n;
                Ok(char::from_u32(c).unwrap_or('\u{fffd}'))
            }
            _ => self.err("hex digits"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn literals() {
        let r = |t| read_whole(t).unwrap();
        assert_eq!(r("None"), Value::Null);
        assert_eq!(r("[True, False, None]"), json!([true, false, null]));
        assert_eq!(r("-12"), json!(-12));
        assert_eq!(
            r("123456789012345678901234567890").to_string(),
            "123456789012345678901234567890"
        );
        assert_eq!(r("1.5e-05"), json!(1.5e-05));
        assert_eq!(r("[inf, -inf, nan]"), json!([null, null, null]));
        assert!(read_whole("'it''s'").is_err()); // two strings, not one
        assert_eq!(r("\"Ask the client's LLM\""), json!("Ask the client's LLM"));
        assert_eq!(r(r"'a\'b\n\x41\u00e9\U0001F600\\'"), json!("a'b\nAé😀\\"));
        assert_eq!(r("'é ✓'"), json!("é ✓"));
        assert_eq!(r("b'raw'"), json!("raw"));
        assert_eq!(r("(1, 2)"), json!([1, 2]));
        assert_eq!(
            r("{'a': {1: 'x'}, 'b': []}"),
            json!({"a": {"1": "x"}, "b": []})
        );
    }

    #[test]
    fn calls() {
        let v = read_whole(
            "JSONRPCRequest(method='tools/call', params={'name': 'add', 'arguments': {'a': 2, 'b': 3}, '_meta': {'progressToken': 12}}, jsonrpc='2.0', id=9)",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": {"progressToken": 12}}, "jsonrpc": "2.0", "id": 9})
        );
        let v = read_whole(
            "JSONRPCError(jsonrpc='2.0', id=0, error=ErrorData(code=-32600, message='Sampling not supported', data=None))",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32600, "message": "Sampling not supported"}})
        );
        assert_eq!(
            read_whole("JSONRPCMessage(root=JSONRPCNotification(method='notifications/initialized', params=None, jsonrpc='2.0'))").unwrap(),
            json!({"root": {"method": "notifications/initialized", "jsonrpc": "2.0"}})
        );
        assert_eq!(
            read_whole("AnyUrl('config://app')").unwrap(),
            json!("config://app")
        );
        assert_eq!(
            read_whole("<mcp.shared.session.RequestResponder object at 0x7f1f>").unwrap(),
            Value::Null
        );
        // A value and the text after it.
        assert_eq!(
            read_value("X(a=1) metadata=None").unwrap(),
            (json!({"a": 1}), 6)
        );
    }

    #[test]
    fn errors_never_panic() {
        for t in [
            "", "(", "[", "{", "{'a'", "{'a':", "{'a': 1", "X(", "X(a=", "X(a=1", "'abc", "'\\",
            "'\\x4", "'\\u12'", "Foo", "{1: 2,,}", "[1 2]", ")", "-", "0x", "é", "'é", "<abc",
            "X(=1)", "[[[[[[", "X(a==1)",
        ] {
            assert!(read_whole(t).is_err(), "{t:?}");
        }
        let deep = "[".repeat(100_000);
        assert_eq!(
            read_whole(&deep).unwrap_err().what,
            "a shallower value (nesting too deep)"
        );
        let deep = "X(a=".repeat(1000);
        assert!(read_whole(&deep).is_err());
        let long = format!("'{}'", "x".repeat(1 << 20));
        assert_eq!(
            read_whole(&long).unwrap().as_str().map(str::len),
            Some(1 << 20)
        );
        assert_eq!(read_whole("[1, 2] x").unwrap_err().at, 7);
    }
}

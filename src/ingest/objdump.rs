//! The reader of Node `util.inspect` object dumps (FORMATS.md §8.3.6, §7),
//! shared by the util.inspect tracers (table 8.2 row 9, [`super::inspect`])
//! and supergateway (row 8, [`super::supergateway`]).
//!
//! A BODY is read as JSON first, else as `util.inspect` text
//! (single-quoted strings, unquoted keys, `undefined`, `[Object]` /
//! `[Array]` placeholders, `[Function …]`), never with a JSON parser alone.
//! A placeholder means "present, content unknown": the message still
//! classifies and pairs by id. A body readable neither way is a
//! `non_json_line`.

use super::grammar::escape;
use super::sink::{At, LineSink};
use crate::record::jsonrpc::{parse_message, parse_payload};
use crate::record::{Member, Message, Payload, Problem};

/// How deep the util.inspect reader descends before it skips a nested value
/// as "present, content unknown" (no stack overflow on deep input).
pub const MAX_DEPTH: usize = 64;

/// Turns one BODY into a frame (FORMATS.md §8.3.6): a message or batch when
/// it reads as JSON or util.inspect, else a `non_json_line`; a body read only
/// in part is reported in `Parsed.errors`.
pub(crate) fn emit_body(sink: &mut LineSink<'_>, at: At<'_>, body: &str) {
    let part = body.trim_matches([' ', '\t', '\r', '\n']);
    emit_read(sink, at, part, read_body(part));
}

/// [`emit_body`] for a BODY already read: `part` is its trimmed text (a
/// slice of the input), `read` what [`read_body`] made of it.
pub(crate) fn emit_read(sink: &mut LineSink<'_>, at: At<'_>, part: &str, read: Body) {
    match read {
        Body::Read(payload) => sink.frame(at, part, payload),
        Body::Partly(payload, what) => {
            sink.error(
                at.line,
                &format!("util.inspect body read only in part: {what}"),
            );
            sink.frame(at, part, payload);
        }
        Body::Unreadable => sink.non_json(at, part),
    }
}

/// What a BODY holds (FORMATS.md §8.3.6).
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Read whole, as JSON or as util.inspect (placeholders included).
    Read(Payload),
    /// Read in part: the members recovered, and what could not be read.
    /// Envelope checks do not apply to such messages (they are marked
    /// `rebuilt`, FORMATS.md §8.1 "Rebuilt messages").
    Partly(Payload, String),
    /// Readable neither as JSON nor as util.inspect, or not an object or
    /// array: a `non_json_line`.
    Unreadable,
}

/// Reads a BODY as JSON first, else as util.inspect text (FORMATS.md §8.3.6).
pub fn read_body(text: &str) -> Body {
    let t = text.trim_matches([' ', '\t', '\r', '\n']);
    match parse_payload(t) {
        Ok(p) => return Body::Read(p),
        Err(crate::record::jsonrpc::PayloadError::NotContainer(_)) => return Body::Unreadable,
        Err(_) => {}
    }
    match read_inspect(t) {
        Some((v, lost)) => body_of(&v, lost),
        None => Body::Unreadable,
    }
}

/// Reads the member `name` of a util.inspect object dump as a BODY (an
/// event wrapper such as npm mcp-proxy's `{ message: {…}, type: 'message' }`,
/// FORMATS.md §8.3.11). `None` when the text is no object or has no such
/// member.
pub fn read_member(text: &str, name: &str) -> Option<Body> {
    let (v, lost) = read_inspect(text.trim_matches([' ', '\t', '\r', '\n']))?;
    let V::Obj(members) = v else { return None };
    let inner = members.into_iter().find(|(k, _)| k == name)?.1;
    Some(body_of(&inner, lost))
}

/// The JSON that `JSON.stringify` would give for util.inspect text read
/// whole (placeholders as empty containers or `null`); `None` when it is
/// no object or array, or was read only in part.
pub fn inspect_json(text: &str) -> Option<String> {
    let (v, lost) = read_inspect(text.trim_matches([' ', '\t', '\r', '\n']))?;
    if !lost.is_empty() {
        return None;
    }
    let mut json = String::new();
    v.write_json(&mut json);
    Some(json)
}

/// The value of util.inspect text and what could not be read of it;
/// `None` when it opens no object or array.
fn read_inspect(t: &str) -> Option<(V, Vec<String>)> {
    let mut r = Reader {
        src: t,
        pos: 0,
        lost: Vec::new(),
        path: Vec::new(),
    };
    r.ws();
    let opening = r
        .rest()
        .strip_prefix("<ref *")
        .and_then(|x| x.split_once('>'))
        .map_or(r.rest(), |x| x.1);
    if !opening.trim_start().starts_with(['{', '[']) {
        return None;
    }
    let v = r.value(0);
    r.ws();
    if !r.rest().is_empty() {
        r.note(format!("text after the body (\"{}\")", snippet(r.rest())));
    }
    Some((v, r.lost))
}

/// The BODY of a value read from util.inspect text.
fn body_of(v: &V, lost: Vec<String>) -> Body {
    let partial = !lost.is_empty();
    let payload = match v {
        V::Obj(m) => {
            if partial && m.is_empty() {
                return Body::Unreadable;
            }
            match to_message(v, partial) {
                Some(m) => Payload::Single(m),
                None => return Body::Unreadable,
            }
        }
        V::Arr(items) => Payload::Batch(
            items
                .iter()
                .map(|it| match to_message(it, partial) {
                    Some(m) if matches!(it, V::Obj(_)) => Member::Message(m),
                    _ => Member::NotObject,
                })
                .collect(),
        ),
        _ => return Body::Unreadable,
    };
    if partial {
        let mut what = lost[0].clone();
        if lost.len() > 1 {
            what.push_str(&format!("; {} more unreadable part(s)", lost.len() - 1));
        }
        Body::Partly(payload, what)
    } else {
        Body::Read(payload)
    }
}

/// The message of one object read from util.inspect text. A placeholder
/// `error` (`[Object]`) is an error of unknown content, not a malformed one;
/// a message read in part is `rebuilt` (no envelope checks).
fn to_message(v: &V, partial: bool) -> Option<Message> {
    let V::Obj(members) = v else { return None };
    let mut json = String::new();
    v.write_json(&mut json);
    let mut m = parse_message(&json).ok()?;
    let error_hole = members
        .iter()
        .any(|(k, v)| k == "error" && matches!(v, V::Hole(_)));
    if error_hole {
        m.problems
            .retain(|p| !matches!(p, Problem::InvalidRequest(w) if w.starts_with("error is not")));
        m.error_code = None;
    }
    if partial {
        m.rebuilt = true;
        m.problems.clear();
    }
    Some(m)
}

// ---------------------------------------------------------------------------
// The util.inspect reader.

/// What a placeholder stood for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Hole {
    /// `[Object]`, or an object nested too deep: written as `{}`.
    Object,
    /// `[Array]`, or an array nested too deep: written as `[]`.
    Array,
    /// `[Function: f]`, `[Circular *1]`, `Symbol(x)`, an unreadable value:
    /// written as `null`.
    Other,
}

/// A value read from util.inspect text.
#[derive(Debug, Clone, PartialEq)]
enum V {
    Str(String),
    /// JSON number text.
    Num(String),
    Bool(bool),
    Null,
    /// `undefined`: dropped from objects, `null` in arrays (JSON.stringify).
    Undefined,
    Obj(Vec<(String, V)>),
    Arr(Vec<V>),
    Hole(Hole),
}

impl V {
    /// Writes the JSON that `JSON.stringify` would give (placeholders as
    /// empty containers or `null`). Recursion is bounded by [`MAX_DEPTH`].
    fn write_json(&self, out: &mut String) {
        match self {
            V::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())),
            V::Num(n) => out.push_str(n),
            V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            V::Null | V::Undefined | V::Hole(Hole::Other) => out.push_str("null"),
            V::Hole(Hole::Object) => out.push_str("{}"),
            V::Hole(Hole::Array) => out.push_str("[]"),
            V::Obj(ms) => {
                out.push('{');
                let mut first = true;
                for (k, v) in ms {
                    if matches!(v, V::Undefined) {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&serde_json::to_string(k).unwrap_or_else(|_| "\"\"".into()));
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
            V::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_json(out);
                }
                out.push(']');
            }
        }
    }
}

/// At most 40 characters of `s`, escaped, for messages.
fn snippet(s: &str) -> String {
    escape(s.lines().next().unwrap_or(""), 40)
}

struct Reader<'a> {
    src: &'a str,
    /// Always on a char boundary.
    pos: usize,
    /// What could not be read, with its path.
    lost: Vec<String>,
    /// Keys and indexes from the top to the value being read.
    path: Vec<String>,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start_matches([' ', '\t', '\r', '\n']).len();
    }
    fn where_(&self) -> String {
        if self.path.is_empty() {
            "the body".into()
        } else {
            format!("`{}`", self.path.join("."))
        }
    }
    fn note(&mut self, what: String) {
        self.lost.push(what);
    }
    /// Reads an identifier (possibly empty).
    fn ident(&mut self) -> &'a str {
        let r = self.rest();
        let n = r.find(|c: char| !is_ident(c)).unwrap_or(r.len());
        self.pos += n;
        r.get(..n).unwrap_or("")
    }

    /// Skips the rest of an unreadable value: up to a `,`, `}` or `]` at
    /// this level (not consumed), strings and nested brackets skipped,
    /// without recursion.
    fn skip_rest(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '\'' | '"' | '`' => {
                    let _ = self.string_lit(c);
                    continue;
                }
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' if depth > 0 => depth -= 1,
                ',' | '}' | ']' if depth == 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips one bracketed value without recursion (too deep to read).
    fn skip_container(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '\'' | '"' | '`' => {
                    let _ = self.string_lit(c);
                    continue;
                }
                '{' | '[' => depth += 1,
                '}' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Reads a quoted string (JS escapes); `None` when it never closes on
    /// its line.
    fn string_lit(&mut self, q: char) -> Option<String> {
        self.bump();
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.bump();
            if c == q {
                return Some(out);
            }
            if c == '\n' {
                return None;
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let e = self.peek()?;
            self.bump();
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                '0' => out.push('\0'),
                'x' => out.push(self.hex(2).unwrap_or('\u{fffd}')),
                'u' => {
                    let c = if self.eat("{") {
                        let r = self.rest();
                        let n = r.find('}').unwrap_or(0);
                        let v = r.get(..n).and_then(|h| u32::from_str_radix(h, 16).ok());
                        self.pos += n;
                        self.eat("}");
                        v.and_then(char::from_u32)
                    } else {
                        self.hex(4)
                    };
                    out.push(c.unwrap_or('\u{fffd}'));
                }
                other => out.push(other),
            }
        }
    }

    fn hex(&mut self, n: usize) -> Option<char> {
        let h = self.rest().get(..n)?;
        let v = u32::from_str_radix(h, 16).ok()?;
        self.pos += n;
        char::from_u32(v)
    }

    /// A string, with `'a' +\n 'b'` concatenations of older Node versions.
    fn string(&mut self, q: char) -> Option<String> {
        let mut s = self.string_lit(q)?;
        loop {
            let save = self.pos;
            self.ws();
            if self.eat("+") {
                self.ws();
                if let Some(q2) = self.peek().filter(|c| matches!(c, '\'' | '"' | '`'))
                    && let Some(more) = self.string_lit(q2)
                {
                    s.push_str(&more);
                    continue;
                }
            }
            self.pos = save;
            return Some(s);
        }
    }

    /// A value that could not be read: skipped and noted.
    fn unreadable(&mut self) -> V {
        let at = self.pos;
        self.skip_rest();
        let text = self.src.get(at..self.pos).unwrap_or("");
        let w = self.where_();
        self.note(format!("the value of {w} (\"{}\")", snippet(text)));
        V::Hole(Hole::Other)
    }

    fn value(&mut self, depth: usize) -> V {
        self.ws();
        if self.eat("<ref *") {
            let r = self.rest();
            self.pos += r.find('>').map_or(r.len(), |i| i + 1);
            self.ws();
        }
        let Some(c) = self.peek() else {
            let w = self.where_();
            self.note(format!("the value of {w} (the body ends first)"));
            return V::Hole(Hole::Other);
        };
        match c {
            '{' | '[' if depth >= MAX_DEPTH => {
                let w = self.where_();
                self.note(format!("{w}, nested deeper than {MAX_DEPTH} levels"));
                self.skip_container();
                V::Hole(if c == '{' { Hole::Object } else { Hole::Array })
            }
            '{' => self.object(depth),
            '[' if self.is_tag() => self.tag(depth),
            '[' => self.array(depth),
            '\'' | '"' | '`' => match self.string(c) {
                Some(s) => V::Str(s),
                None => self.unreadable(),
            },
            c if c == '-' || c.is_ascii_digit() => self.number(),
            c if is_ident(c) => self.word(depth),
            _ => self.unreadable(),
        }
    }

    /// `[Object]`, `[Function: f]`, `[Object: null prototype] {…}` rather than
    /// an array: a letter right after `[`, not a literal element.
    fn is_tag(&self) -> bool {
        let r = self.rest().get(1..).unwrap_or("");
        if !r.starts_with(|c: char| c.is_alphabetic()) {
            return false;
        }
        let word_end = r.find(|c: char| !c.is_alphanumeric()).unwrap_or(r.len());
        let word = r.get(..word_end).unwrap_or("");
        let after = r.get(word_end..).unwrap_or("").trim_start();
        let literal = matches!(
            word,
            "true" | "false" | "null" | "undefined" | "NaN" | "Infinity"
        );
        !(literal && (after.starts_with(',') || after.starts_with(']')))
    }

    /// Consumes one bracketed tag (`[Object]`, `[Symbol(x)]`) on its line
    /// and returns its inner text.
    fn skip_tag(&mut self) -> &'a str {
        let start = self.pos;
        let mut nest = 0usize;
        while let Some(c) = self.peek() {
            self.bump();
            match c {
                '[' => nest += 1,
                ']' => {
                    nest = nest.saturating_sub(1);
                    if nest == 0 {
                        break;
                    }
                }
                '\n' => break,
                _ => {}
            }
        }
        self.src
            .get(start + 1..self.pos.saturating_sub(1))
            .unwrap_or("")
    }

    /// A placeholder, or a prefix tag before an object or array
    /// (`[Object: null prototype] {`); never more than one tag deep.
    fn tag(&mut self, depth: usize) -> V {
        let inner = self.skip_tag();
        let save = self.pos;
        self.ws();
        let follows = match self.peek() {
            Some('{') => true,
            Some('[') => !self.is_tag(),
            _ => false,
        };
        if follows {
            return self.value(depth);
        }
        self.pos = save;
        match inner {
            "Object" => V::Hole(Hole::Object),
            "Array" => V::Hole(Hole::Array),
            _ => V::Hole(Hole::Other),
        }
    }

    fn number(&mut self) -> V {
        let r = self.rest();
        let n = r
            .find([',', '}', ']', ' ', '\t', '\r', '\n'])
            .unwrap_or(r.len());
        let tok = r.get(..n).unwrap_or("");
        let num = tok.strip_suffix('n').unwrap_or(tok);
        if tok == "-Infinity" {
            self.pos += n;
            return V::Null;
        }
        if serde_json::from_str::<serde::de::IgnoredAny>(num).is_ok() && !num.starts_with('"') {
            self.pos += n;
            return V::Num(num.to_owned());
        }
        // A Date prints as its ISO text, which JSON.stringify also gives.
        if tok.len() >= 10
            && tok
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '-' | ':' | 'T' | '.' | 'Z' | '+'))
        {
            self.pos += n;
            return V::Str(tok.to_owned());
        }
        self.unreadable()
    }

    fn word(&mut self, depth: usize) -> V {
        let start = self.pos;
        let w = self.ident();
        match w {
            "true" => return V::Bool(true),
            "false" => return V::Bool(false),
            "null" => return V::Null,
            "undefined" => return V::Undefined,
            "NaN" | "Infinity" => return V::Null,
            _ => {}
        }
        // `Symbol(x)`, `Map(2) {…}`, `ClassName {…}`, `ClassName [Object: …] {…}`.
        if self.peek() == Some('(') {
            self.skip_parens();
        }
        let save = self.pos;
        self.ws();
        if self.peek() == Some('[') && self.is_tag() {
            let _ = self.skip_tag();
            self.ws();
        }
        match self.peek() {
            Some('{') | Some('[') if !matches!(w, "Map" | "Set") => self.value(depth),
            _ if w == "Symbol" => {
                self.pos = save;
                V::Hole(Hole::Other)
            }
            _ => {
                self.pos = start;
                self.unreadable()
            }
        }
    }

    fn skip_parens(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.bump();
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                '\n' => return,
                _ => {}
            }
        }
    }

    /// After a member or element: `,` (true), the closer (false, consumed),
    /// else garbage skipped up to one of them.
    fn separator(&mut self, close: char) -> Option<bool> {
        self.ws();
        match self.peek() {
            Some(',') => {
                self.bump();
                Some(true)
            }
            Some(c) if c == close => {
                self.bump();
                Some(false)
            }
            None => None,
            Some(_) => {
                let _ = self.unreadable();
                self.separator_after_skip(close)
            }
        }
    }

    fn separator_after_skip(&mut self, close: char) -> Option<bool> {
        match self.peek() {
            Some(',') => {
                self.bump();
                Some(true)
            }
            Some(c) if c == close => {
                self.bump();
                Some(false)
            }
            Some(_) => {
                // The other closer: stop reading this container here.
                Some(false)
            }
            None => None,
        }
    }

    fn ended_early(&mut self, close: char) {
        let w = self.where_();
        self.note(format!(
            "everything after the last member read in {w} (the body ends before its `{close}`)"
        ));
    }

    fn object(&mut self, depth: usize) -> V {
        self.bump();
        let mut members = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None => {
                    self.ended_early('}');
                    break;
                }
                Some('}') => {
                    self.bump();
                    break;
                }
                _ => {}
            }
            if self.rest().starts_with("...") {
                self.skip_rest();
            } else {
                let key = match self.peek() {
                    Some(q @ ('\'' | '"' | '`')) => self.string_lit(q),
                    Some('[') => {
                        // `[Symbol(x)]: …` and other computed keys.
                        let _ = self.skip_tag();
                        Some(String::new())
                    }
                    Some(c) if is_ident(c) => Some(self.ident().to_owned()),
                    _ => None,
                };
                self.ws();
                match key {
                    Some(k) if self.eat(":") => {
                        self.path
                            .push(if k.is_empty() { "?".into() } else { k.clone() });
                        let v = self.value(depth + 1);
                        self.path.pop();
                        if !k.is_empty() {
                            members.push((k, v));
                        }
                    }
                    _ => {
                        let _ = self.unreadable();
                    }
                }
            }
            match self.separator('}') {
                Some(true) => continue,
                Some(false) => break,
                None => {
                    self.ended_early('}');
                    break;
                }
            }
        }
        V::Obj(members)
    }

    fn array(&mut self, depth: usize) -> V {
        self.bump();
        let mut items = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None => {
                    self.ended_early(']');
                    break;
                }
                Some(']') => {
                    self.bump();
                    break;
                }
                _ => {}
            }
            let r = self.rest();
            if r.starts_with("...") || (r.starts_with('<') && !r.starts_with("<ref *")) {
                // `... 3 more items`, `<2 empty items>`.
                self.skip_rest();
            } else {
                self.path.push(format!("[{}]", items.len()));
                let v = self.value(depth + 1);
                self.path.pop();
                items.push(v);
            }
            match self.separator(']') {
                Some(true) => continue,
                Some(false) => break,
                None => {
                    self.ended_early(']');
                    break;
                }
            }
        }
        V::Arr(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Id, Kind};

    fn single(b: Body) -> (Message, bool) {
        match b {
            Body::Read(Payload::Single(m)) => (m, false),
            Body::Partly(Payload::Single(m), _) => (m, true),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn json_first_then_inspect() {
        let (m, p) = single(read_body(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        ));
        assert_eq!(
            (m.kind, m.id, m.method.as_deref(), m.problems.len(), p),
            (Kind::Request, Id::Int(1), Some("tools/list"), 0, false)
        );
        let (m, p) = single(read_body(
            "{ jsonrpc: '2.0', id: 1, result: { tools: [ [Object], [Object] ] } }",
        ));
        assert_eq!(
            (m.kind, m.id, m.has_result, m.problems.len(), p),
            (Kind::Response, Id::Int(1), true, 0, false)
        );
        let (m, _) = single(read_body(
            "{ jsonrpc: '2.0', id: 'a\\'b', result: [Object] }",
        ));
        assert_eq!(
            (m.id, m.has_result, m.problems.len()),
            (Id::Str("a'b".into()), true, 0)
        );
        let (m, _) = single(read_body(
            "{ jsonrpc: '2.0', id: 2, error: { code: -32601, message: \"Method 'x' not found\" } }",
        ));
        assert_eq!(
            (m.has_error, m.error_code, m.problems.len()),
            (true, Some(-32601), 0)
        );
        // A placeholder error: present, content unknown, not malformed.
        let (m, _) = single(read_body("{ jsonrpc: '2.0', id: 3, error: [Object] }"));
        assert_eq!(
            (m.has_error, m.error_code, m.problems.len()),
            (true, None, 0)
        );
        // `undefined` members are dropped, as JSON.stringify does.
        let (m, _) = single(read_body("{ jsonrpc: '2.0', id: 4, result: undefined }"));
        assert_eq!(m.problems, vec![Problem::NeitherResultNorError]);
        let (m, _) = single(read_body(
            "{ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'f', cb: [Function: cb], s: Symbol(x), when: 2025-01-01T00:00:00.000Z, big: 12n, arr: [Array], o: [Object: null prototype] { a: 1 }, n: NaN, 'quoted key': 'a' +\n 'b', list: [ 1, ... 2 more items ] } }",
        ));
        assert_eq!(
            (m.kind, m.method.as_deref(), m.problems.len(), m.rebuilt),
            (Kind::Request, Some("tools/call"), 0, false)
        );
        let (m, _) = single(read_body(
            "<ref *1> { jsonrpc: '2.0', id: 6, result: { self: [Circular *1] } }",
        ));
        assert_eq!(m.id, Id::Int(6));
        // Cancelled request id and initialize results are still read.
        let (m, _) = single(read_body(
            "{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'x' } }",
        ));
        assert_eq!(m.cancel_id(), Some(&Id::Int(7)));
        match read_body("[ { jsonrpc: '2.0', id: 1, result: {} }, 3 ]") {
            Body::Read(Payload::Batch(ms)) => assert!(matches!(
                ms.as_slice(),
                [Member::Message(_), Member::NotObject]
            )),
            other => panic!("{other:?}"),
        }
        assert_eq!(read_body("null"), Body::Unreadable);
        assert_eq!(read_body("hello"), Body::Unreadable);
        assert_eq!(read_body(""), Body::Unreadable);
        assert_eq!(read_body("{ ??? }"), Body::Unreadable);
    }

    #[test]
    fn broken_bodies_are_read_in_part() {
        // Cut before its end: the members before the cut are kept, the
        // message is rebuilt (no envelope checks) and the loss is named.
        match read_body("{ jsonrpc: '2.0', id: 9, result: { content: [ { type: 'text'") {
            Body::Partly(Payload::Single(m), what) => {
                assert_eq!(
                    (m.id, m.kind, m.has_result, m.rebuilt, m.problems.len()),
                    (Id::Int(9), Kind::Response, true, true, 0)
                );
                assert!(what.contains("ends before"), "{what}");
            }
            other => panic!("{other:?}"),
        }
        match read_body("{ jsonrpc: '2.0', id: 10, result: Map(1) { 'a' => 1 }, x: 1 }") {
            Body::Partly(Payload::Single(m), what) => {
                assert_eq!((m.id, m.has_result), (Id::Int(10), true));
                assert!(
                    what.contains("`result`") && what.contains("Map(1)"),
                    "{what}"
                );
            }
            other => panic!("{other:?}"),
        }
        match read_body(
            "{ jsonrpc: '2.0', id: 11, method: 'a', params: { x: @@@, y: %% } } trailing",
        ) {
            Body::Partly(Payload::Single(m), what) => {
                assert_eq!((m.kind, m.method.as_deref()), (Kind::Request, Some("a")));
                assert!(
                    what.contains("`params.x`") && what.contains("2 more"),
                    "{what}"
                );
            }
            other => panic!("{other:?}"),
        }
        // Unterminated string, odd separators: no panic, something or nothing read.
        for t in [
            "{ a: 'x",
            "{ a: 1 b: 2 }",
            "{ a: 1 ]",
            "[ 1, 2 }",
            "{ 'é",
            "{ é: 'é' }",
            "[Object",
            "{ a: [Obj",
            "{ a: '\\u{110000}' }",
            "{ a: '\\x' }",
        ] {
            let _ = read_body(t);
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        for open in ["{ a: ", "[ "] {
            let deep = open.repeat(100_000);
            let b = read_body(&format!("{{ jsonrpc: '2.0', id: 1, result: {deep} }}"));
            match b {
                Body::Partly(Payload::Single(m), what) => {
                    assert_eq!((m.id, m.has_result), (Id::Int(1), true));
                    assert!(what.contains("deeper"), "{what}");
                }
                other => panic!("{other:?}"),
            }
        }
        let closed = format!(
            "{{ jsonrpc: '2.0', id: 1, result: {}1{} }}",
            "[ ".repeat(200),
            " ]".repeat(200)
        );
        assert!(matches!(
            read_body(&closed),
            Body::Partly(Payload::Single(_), _)
        ));
        // Deep JSON: read as JSON (serde_json skips `result` without
        // recursion), or by the reader when it is cut.
        let json = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}1{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(matches!(read_body(&json), Body::Read(Payload::Single(_))));
        let cut = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}",
            "[".repeat(100_000)
        );
        assert!(matches!(
            read_body(&cut),
            Body::Partly(Payload::Single(_), _)
        ));
        let top = "[".repeat(100_000);
        let _ = read_body(&top);
        let params = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{{\"_meta\":{}}}}}",
            "{\"a\":".repeat(100_000)
        );
        let _ = read_body(&params);
    }

    #[test]
    fn every_prefix_reads_without_panic() {
        let body = "<ref *1> { jsonrpc: '2.0', id: 'é\\u{1F600}\\x41', method: \"m'\", params: { a: [ [Object], [Array], \
            [Function: f], Symbol(é), Map(1) { 'k' => 1 }, 1e3, -0, 12n, NaN, undefined, `t`, 'a' +\n 'b', \
            [Object: null prototype] { x: [Circular *1] }, Foo { y: [Getter] }, 2025-01-01T00:00:00Z, ... 1 more item ] } }";
        for (i, _) in body.char_indices() {
            let _ = read_body(&body[..i]);
            let _ = read_body(&body[i..]);
        }
        assert!(
            matches!(read_body(body), Body::Partly(Payload::Single(_), ref w) if w.contains("Map(1)"))
        );
    }
}

//! JSON-RPC ids, kept with their exact JSON type (FORMATS.md §1.1, §3.1).
//!
//! A valid MCP request id is a string or an integer; `1` and `"1"` are
//! different ids. Pairing compares by JSON type and value first, then by
//! number ("loose" key) to catch `id_type_changed` (DESIGN.md rule 5).

use serde::Serialize;
use serde_json::Value;

/// An `id` member exactly as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// No `id` member.
    Absent,
    /// `"id": null`.
    Null,
    /// An integer that fits in ±2^127.
    Int(i128),
    /// A larger integer: its JSON text (valid, never exact in JavaScript).
    BigInt(Box<str>),
    /// A string, unescaped.
    Str(Box<str>),
    /// Any other number (fractional, exponent, out of range): its JSON text.
    Number(Box<str>),
    /// An object, array or boolean: its JSON text (never valid).
    Other(Box<str>),
}

/// A valid id: string or integer (DESIGN.md rule 3). The strict pairing key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValidId {
    /// An integer id.
    Int(i128),
    /// A string id.
    Str(Box<str>),
    /// An integer id beyond ±2^127, by its text.
    BigInt(Box<str>),
}

/// The loose key: the same number in another form (`5`, `"5"`, `5.0`)
/// gives the same key (DESIGN.md rule 5).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LooseKey {
    /// An integral number, from an integer, a numeric string or `5.0`.
    Int(i128),
    /// A non-integral number, by its `f64` bits.
    Float(u64),
    /// A non-numeric string.
    Str(Box<str>),
    /// An integer beyond ±2^127, by its canonical text.
    BigInt(Box<str>),
}

/// Whether the JSON number `text` (`-1.25e3`) has an integral value beyond
/// ±2^53, decided on its decimal digits (no float rounding): the digits
/// without trailing zeros, times ten to the power that remains.
fn huge_integer(text: &str) -> bool {
    let t = text.trim_start_matches('-');
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{int}{frac}").trim_start_matches('0').into();
    let kept = digits.trim_end_matches('0');
    if kept.is_empty() {
        return false;
    }
    let scale = exp - frac.len() as i64 + (digits.len() - kept.len()) as i64;
    if scale < 0 {
        return false;
    }
    let width = kept.len() as i64 + scale;
    if width != 16 {
        return width > 16;
    }
    let whole = format!("{kept}{}", "0".repeat(scale as usize));
    whole.parse::<i128>().is_ok_and(|v| v > TWO_53)
}

/// The value of an exponent-form number that is an integer within ±2^53
/// (`1e0` is 1, `5E2` is 500, `1.5e1` is 15): an integer id written
/// another way, no fraction. `None` for any other text (`1e-1`, `2.0`,
/// `1e400`: see [`huge_integer`]).
fn exponent_integer(text: &str) -> Option<i64> {
    let negative = text.starts_with('-');
    let t = text.trim_start_matches('-');
    let i = t.find(['e', 'E'])?;
    let (mantissa, exp) = (&t[..i], t[i + 1..].parse::<i64>().ok()?);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let kept = digits.trim_end_matches('0');
    let scale = exp - frac.len() as i64 + (digits.len() - kept.len()) as i64;
    let kept = kept.trim_start_matches('0');
    if kept.is_empty() {
        return Some(0);
    }
    if scale < 0 || kept.len() as i64 + scale > 16 {
        return None;
    }
    let v: i128 = format!("{kept}{}", "0".repeat(scale as usize))
        .parse()
        .ok()?;
    (v <= TWO_53).then(|| if negative { -(v as i64) } else { v as i64 })
}

/// 2^53: integers beyond ±2^53 are `id_precision_risk` (DESIGN.md catalogue).
pub const TWO_53: i128 = 1 << 53;

impl Id {
    /// Reads an id from its raw JSON text (already known to be one value).
    pub fn from_raw(raw: &str) -> Id {
        let t = raw.trim();
        match t.as_bytes().first() {
            Some(b'"') => match super::jsonrpc::str_value(t) {
                Some(s) => Id::Str(s.into()),
                None => Id::Other(t.into()),
            },
            Some(b'n') if t == "null" => Id::Null,
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let is_int = t.bytes().all(|b| b == b'-' || b.is_ascii_digit());
                if is_int {
                    match t.parse::<i128>() {
                        Ok(v) => Id::Int(v),
                        Err(_) => Id::BigInt(t.into()),
                    }
                } else {
                    Id::Number(t.into())
                }
            }
            _ => Id::Other(t.into()),
        }
    }

    /// Whether it is a valid MCP request id (a string or an integer, an
    /// integer beyond ±2^53 in exponent form such as `1e400` included),
    /// without building the [`ValidId`].
    pub fn is_valid(&self) -> bool {
        match self {
            Id::Int(_) | Id::Str(_) | Id::BigInt(_) => true,
            Id::Number(t) => huge_integer(t) || exponent_integer(t).is_some(),
            _ => false,
        }
    }

    /// Strict equality of two valid ids (same JSON type and value:
    /// `1` ≠ `"1"`); false when either is not a valid id. Same as comparing
    /// their [`ValidId`]s, without allocating.
    pub fn strict_eq(&self, other: &Id) -> bool {
        self.is_valid() && self == other
    }

    /// The strict key when this id is valid (string or integer).
    pub fn valid(&self) -> Option<ValidId> {
        match self {
            Id::Int(v) => Some(ValidId::Int(*v)),
            Id::Str(s) => Some(ValidId::Str(s.clone())),
            Id::BigInt(t) => Some(ValidId::BigInt(t.clone())),
            // An integer written with an exponent or a decimal point
            // (`1e400`) is an integer too: keyed by its text.
            Id::Number(t) if huge_integer(t) => Some(ValidId::BigInt(t.clone())),
            // `1e0`: the integer 1, keyed as 1.
            Id::Number(t) => exponent_integer(t).map(|v| ValidId::Int(v.into())),
            _ => None,
        }
    }

    /// The loose key of a string or number id.
    pub fn loose(&self) -> Option<LooseKey> {
        match self {
            Id::Int(v) => Some(LooseKey::Int(*v)),
            Id::Str(s) => Some(loose_of_number_text(s).unwrap_or_else(|| LooseKey::Str(s.clone()))),
            Id::Number(t) if huge_integer(t) => Some(LooseKey::BigInt(t.clone())),
            Id::Number(t) => exponent_integer(t)
                .map(|v| LooseKey::Int(v.into()))
                .or_else(|| loose_of_number_text(t)),
            Id::BigInt(t) => Some(LooseKey::BigInt(t.clone())),
            _ => None,
        }
    }

    /// `true` for a number with a fractional part (`fractional_id`): a
    /// decimal point, or an exponent form whose value is no integer
    /// (`1e-1`). An exponent form of an integer is an integer: `1e0` is 1,
    /// `1e400` an [`Id::precision_risk`].
    pub fn is_fractional(&self) -> bool {
        matches!(self, Id::Number(t) if t.contains(['.', 'e', 'E']) && !huge_integer(t) && exponent_integer(t).is_none())
    }

    /// `true` for an integer beyond ±2^53 (`id_precision_risk`), also when
    /// written in exponent form (`1e400`, `9.1e15`): no double holds it
    /// exactly, so a JavaScript client reads another id.
    pub fn precision_risk(&self) -> bool {
        match self {
            Id::Int(v) => v.abs() > TWO_53,
            Id::BigInt(_) => true,
            Id::Number(t) => huge_integer(t),
            _ => false,
        }
    }

    /// The id as a JSON value for `summary.json` (`null` for absent).
    pub fn to_json(&self) -> Value {
        match self {
            Id::Absent | Id::Null => Value::Null,
            Id::Int(v) => {
                if let Ok(x) = i64::try_from(*v) {
                    Value::from(x)
                } else if let Ok(x) = u64::try_from(*v) {
                    Value::from(x)
                } else {
                    serde_json::from_str(&v.to_string()).unwrap_or(Value::Null)
                }
            }
            Id::Str(s) => Value::String(s.to_string()),
            // serde_json's `arbitrary_precision` keeps such numbers exact.
            Id::BigInt(t) | Id::Number(t) | Id::Other(t) => {
                serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string()))
            }
        }
    }

    /// The id's JSON text (`1`, `"1"`, `null`; empty for absent), as
    /// `pairs.csv` writes it.
    pub fn json_text(&self) -> String {
        let mut out = String::new();
        self.write_json_text(&mut out);
        out
    }

    /// Appends [`Id::json_text`] to `out` (no allocation for numbers).
    pub fn write_json_text(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Id::Absent => {}
            Id::Null => out.push_str("null"),
            Id::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Id::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
            Id::BigInt(t) | Id::Number(t) | Id::Other(t) => out.push_str(t),
        }
    }
}

impl ValidId {
    /// Back to an [`Id`].
    pub fn to_id(&self) -> Id {
        match self {
            ValidId::Int(v) => Id::Int(*v),
            ValidId::Str(s) => Id::Str(s.clone()),
            // An exponent form (`1e400`) goes back to the number it was.
            ValidId::BigInt(t) if t.bytes().all(|b| b == b'-' || b.is_ascii_digit()) => {
                Id::BigInt(t.clone())
            }
            ValidId::BigInt(t) => Id::Number(t.clone()),
        }
    }
    /// Its loose key.
    pub fn loose(&self) -> LooseKey {
        self.to_id().loose().unwrap_or(LooseKey::Int(0))
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

fn loose_of_number_text(t: &str) -> Option<LooseKey> {
    let t = t.trim();
    if t.is_empty() {
        return None;
    }
    let b = t.as_bytes();
    let start = usize::from(b[0] == b'-');
    if start >= b.len() || !b[start].is_ascii_digit() {
        return None;
    }
    if b[start..].iter().all(u8::is_ascii_digit) {
        return Some(
            t.parse::<i128>()
                .map(LooseKey::Int)
                .unwrap_or_else(|_| LooseKey::BigInt(t.into())),
        );
    }
    // A JSON number with fraction or exponent.
    let f: f64 = serde_json::from_str::<f64>(t).ok()?;
    if !t
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    if f.fract() == 0.0 && f.abs() < 1e30 {
        Some(LooseKey::Int(f as i128))
    } else {
        Some(LooseKey::Float(f.to_bits()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_keep_their_json_type() {
        assert_eq!(Id::from_raw("1"), Id::Int(1));
        assert_eq!(Id::from_raw("\"1\""), Id::Str("1".into()));
        assert_eq!(Id::from_raw("null"), Id::Null);
        assert_eq!(Id::from_raw("1.0"), Id::Number("1.0".into()));
        assert_eq!(Id::from_raw("{}"), Id::Other("{}".into()));
        assert_eq!(Id::from_raw("true"), Id::Other("true".into()));
        assert!(Id::from_raw("20050.5").is_fractional());
        // An exponent form of a huge integer is a precision risk, not a fraction.
        for t in [
            "1e400",
            "1.5e400",
            "-2E20",
            "9.1e15",
            "123456789012345678.0",
        ] {
            let id = Id::from_raw(t);
            assert!(id.precision_risk() && !id.is_fractional(), "{t}");
        }
        for t in ["1e3", "9.007199254740992e15", "1e-400", "2.5"] {
            let id = Id::from_raw(t);
            assert!(!id.precision_risk(), "{t}");
        }
        assert!(Id::from_raw("9007199254740993").precision_risk());
        assert!(!Id::from_raw("9007199254740992").precision_risk());
        let big = "1".to_string() + &"0".repeat(400);
        let id = Id::from_raw(&big);
        assert!(id.valid().is_some() && id.precision_risk());
        // `1e400` is an integer: a valid id, equal to itself as written.
        let e = Id::from_raw("1e400");
        assert!(e.is_valid() && e.strict_eq(&Id::from_raw("1e400")));
        assert_eq!(e.valid(), Some(ValidId::BigInt("1e400".into())));
        // An exponent form of an integer in range is that integer: valid,
        // keyed as the integer, no fraction; a fraction stays one.
        for (t, v) in [
            ("1e3", 1000),
            ("1e0", 1),
            ("5E2", 500),
            ("1.5e1", 15),
            ("-2e1", -20),
            ("0e5", 0),
        ] {
            let id = Id::from_raw(t);
            assert!(id.is_valid() && !id.is_fractional(), "{t}");
            assert_eq!(id.valid(), Some(ValidId::Int(v)), "{t}");
            assert_eq!(id.loose(), Some(LooseKey::Int(v)), "{t}");
        }
        for t in ["2.5", "1e-1", "2.0", "1.25e1"] {
            let id = Id::from_raw(t);
            assert!(!id.is_valid() && id.is_fractional(), "{t}");
        }
        assert_eq!(Id::from_raw(&format!("\"{big}\"")).loose(), id.loose());
        assert_eq!(id.to_json().to_string(), big);
        assert_eq!(
            Id::from_raw("18446744073709551616").to_json().to_string(),
            "18446744073709551616"
        );
    }

    #[test]
    fn loose_keys_match_numbers_in_other_forms() {
        let five = Id::Int(5).loose();
        assert_eq!(Id::from_raw("\"5\"").loose(), five);
        assert_eq!(Id::from_raw("5.0").loose(), five);
        assert_ne!(Id::from_raw("\"five\"").loose(), five);
        assert_eq!(Id::from_raw("\"1\"").json_text(), "\"1\"");
    }
}

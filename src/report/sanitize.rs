//! Escaping of untrusted captured strings for outputs that a terminal may
//! show (the terminal summary, CSV files a person `cat`s): control and
//! bidirectional-override characters are written as `\u{..}` escapes, so a
//! hostile capture cannot move the cursor, recolour or reorder the screen.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Controls, bidi overrides, and Unicode noncharacters (U+FDD0–U+FDEF and
/// U+xFFFE/U+xFFFF of every plane: XML 1.0 forbids U+FFFE and U+FFFF, so a
/// JUnit file holding one raw is not well-formed).
fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{fdd0}'..='\u{fdef}')
        || (c as u32) & 0xfffe == 0xfffe
}

/// Escapes control and bidi characters of an untrusted string
/// (`\x1b` → `\u{1b}`), and cuts it to `max` characters (`…` marks a cut).
pub fn sanitize(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        if is_hostile(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`sanitize`] without a length limit; borrows when nothing needs escaping.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    // Printable ASCII is never hostile: only from the first other byte on
    // are characters decoded and asked (most captured text is ASCII).
    let plain = s.bytes().position(|b| !(0x20..0x7f).contains(&b));
    if plain.is_some_and(|at| s[at..].chars().any(is_hostile)) {
        Cow::Owned(sanitize(s, usize::MAX))
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_cuts() {
        assert_eq!(
            sanitize("a\x1b[31mb\u{202e}", 100),
            "a\\u{1b}[31mb\\u{202e}"
        );
        assert_eq!(sanitize("abcdef", 3), "abc…");
        assert!(matches!(escape_controls("plain"), Cow::Borrowed("plain")));
        assert_eq!(escape_controls("x\x07"), "x\\u{7}");
        assert_eq!(
            escape_controls("a\u{ffff}\u{fffe}\u{10ffff}"),
            "a\\u{ffff}\\u{fffe}\\u{10ffff}"
        );
    }
}

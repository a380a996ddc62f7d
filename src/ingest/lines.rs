//! The shared line splitter of every line-log dialect (FORMATS.md §8.1
//! "Lines"): a line ends at LF and one CR before it is dropped; U+0085,
//! U+2028 and U+2029 are not line ends. A text with no LF at all but CRs
//! (classic Mac line ends) ends its lines at CR. Offsets and 1-based line
//! numbers are exact.

/// One physical line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// Byte offset of the line's first byte in the input.
    pub offset: u64,
    /// The text without its LF and without one trailing CR.
    pub text: &'a str,
}

/// The lines of a text, in order (see [`lines`]). A clone reads ahead
/// without moving the original: a dialect whose records span lines looks at
/// the next line with [`Lines::peek`] and takes it with `next`.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    text: &'a str,
    /// Byte offset of the next line.
    pos: usize,
    /// Number of the line last given out.
    number: u64,
    /// The line end: LF, or CR for a text with CRs and no LF.
    end: u8,
}

impl<'a> Lines<'a> {
    /// The next line, without taking it.
    pub fn peek(&self) -> Option<Line<'a>> {
        self.clone().next()
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let (text, bytes) = (self.text, self.text.as_bytes());
        if self.pos >= bytes.len() {
            return None;
        }
        let start = self.pos;
        let end = match memchr::memchr(self.end, &bytes[start..]) {
            Some(i) => {
                self.pos = start + i + 1;
                start + i
            }
            None => {
                self.pos = bytes.len();
                bytes.len()
            }
        };
        let mut stop = end;
        if self.end == b'\n' && stop > start && bytes[stop - 1] == b'\r' {
            stop -= 1;
        }
        self.number += 1;
        Some(Line {
            number: self.number,
            offset: start as u64,
            text: &text[start..stop],
        })
    }
}

/// Iterates the lines of `text` (a final line without LF included; an empty
/// text has no lines).
pub fn lines(text: &str) -> Lines<'_> {
    let b = text.as_bytes();
    let cr_only = memchr::memchr(b'\n', b).is_none() && memchr::memchr(b'\r', b).is_some();
    Lines {
        text,
        pos: 0,
        number: 0,
        end: if cr_only { b'\r' } else { b'\n' },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_crlf_and_no_final_newline() {
        let v: Vec<_> = lines("a\r\nb\n\nc")
            .map(|l| (l.number, l.offset, l.text))
            .collect();
        assert_eq!(v, vec![(1, 0, "a"), (2, 3, "b"), (3, 5, ""), (4, 6, "c")]);
        assert_eq!(lines("").count(), 0);
        // U+2028 inside a line is not a line end.
        assert_eq!(lines("x\u{2028}y\n").count(), 1);
        // A peek takes nothing.
        let mut it = lines("a\nb");
        assert_eq!(it.peek().map(|l| l.text), Some("a"));
        assert_eq!(it.next().map(|l| l.text), Some("a"));
        assert_eq!(it.peek().map(|l| (l.number, l.text)), Some((2, "b")));
    }

    #[test]
    fn cr_only_text_ends_lines_at_cr() {
        let got: Vec<(u64, u64, &str)> = lines("a\rbc\r\rd")
            .map(|l| (l.number, l.offset, l.text))
            .collect();
        assert_eq!(
            got,
            vec![(1, 0, "a"), (2, 2, "bc"), (3, 5, ""), (4, 6, "d")]
        );
        // With one LF anywhere, CRs are not line ends.
        assert_eq!(lines("a\rb\nc").count(), 2);
    }
}

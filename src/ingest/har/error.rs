//! Document errors: the first place a HAR document is not valid JSON (or
//! ends early), said with serde_json's words and placed by byte, line and
//! column in the whole document.

/// The first place where the document is not valid JSON (or ends early),
/// with serde_json's words: the message is the one a whole-document parse
/// with serde_json gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DocError {
    /// serde_json's message without its position.
    text: String,
    eof: bool,
    /// Valid JSON of the wrong shape (a member of the wrong type, say
    /// `log.entries` a number), not a syntax error.
    shape: bool,
    /// Byte offset, 1-based line, column (bytes into the line); all 0 when
    /// serde_json gave no position.
    offset: u64,
    line: u64,
    column: u64,
}

impl DocError {
    /// An error the scanner finds itself: serde_json's message `text` for
    /// the byte at `offset` (`line`, `column`).
    pub(super) fn found(text: &str, eof: bool, offset: u64, line: u64, column: u64) -> DocError {
        DocError {
            text: text.to_string(),
            eof,
            shape: false,
            offset,
            line,
            column,
        }
    }

    /// A serde_json error at document byte `offset` (`line`, `column`); its
    /// own position is dropped from the text.
    pub(super) fn placed(e: &serde_json::Error, offset: u64, line: u64, column: u64) -> DocError {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        DocError {
            text: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
            eof: e.is_eof(),
            shape: e.is_data(),
            offset,
            line,
            column,
        }
    }

    /// A serde_json error without a position.
    pub(super) fn unplaced(e: &serde_json::Error) -> DocError {
        DocError {
            text: e.to_string(),
            eof: e.is_eof(),
            shape: e.is_data(),
            offset: 0,
            line: 0,
            column: 0,
        }
    }

    /// The error line: `HAR ends early at byte N (line L, column C): …; n
    /// entries read before it` (or `HAR is not valid JSON at …`, or `HAR
    /// has the wrong shape at …` for valid JSON with a member of the wrong
    /// type, which serde_json's words then name).
    pub(super) fn message(&self, read: u64) -> String {
        let what = if self.eof {
            "HAR ends early"
        } else if self.shape {
            "HAR has the wrong shape"
        } else {
            "HAR is not valid JSON"
        };
        let (o, l, c) = (self.offset, self.line, self.column);
        let at = if l == 0 {
            String::new()
        } else {
            format!(" at line {l} column {c}")
        };
        format!(
            "{what} at byte {o} (line {l}, column {c}): {}{at}; {}",
            self.text,
            read_before(read)
        )
    }
}

/// `N entries read before it` (`1 entry`): how far a broken HAR was read.
pub(super) fn read_before(n: u64) -> String {
    let entries = if n == 1 { "entry" } else { "entries" };
    format!("{n} {entries} read before it")
}

/// Byte offset of a serde_json error position (1-based line, column = bytes
/// consumed on that line), clamped to the text.
pub(super) fn error_offset(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match memchr::memchr(b'\n', &bytes[start.min(bytes.len())..]) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    start.saturating_add(column).min(bytes.len())
}

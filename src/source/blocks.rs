//! A line log read block by block, cut only where a record may start, so
//! that a large log is never held whole.

use std::path::Path;

use super::SourceError;
use super::decompress::Compression;
use super::read::{check_head, check_regular, invalid_utf8, read_more};
use crate::diag::Diagnostic;

/// One block of a line log read by [`BlockReader`]: whole lines only.
#[derive(Debug, Clone)]
pub struct Block {
    /// The text (UTF-8; invalid bytes read as U+FFFD), ending at a line end
    /// unless it is the end of the file.
    pub text: String,
    /// 1-based number of its first line in the file.
    pub first_line: u64,
    /// Byte offset of its first byte in the decoded text (a leading BOM
    /// removed, invalid bytes counted as the 3 bytes of U+FFFD): the
    /// offsets records carry, which evidence reads back.
    pub offset: u64,
}

/// Reads a plain (uncompressed) file block by block, cutting only at line
/// ends where `safe` says a new record may start, so that a large log is
/// never held whole in memory (issue 5: memory bounded by what is in
/// flight). Errors name the file and the byte offset.
pub struct BlockReader {
    file: Box<dyn std::io::Read + Send>,
    display: String,
    carry: Vec<u8>,
    next_line: u64,
    /// Offset of the next block in the decoded text (a leading BOM
    /// removed, invalid bytes read as U+FFFD), as every reader's offsets
    /// are, so that evidence is read back alike whichever reader ran.
    next_offset: u64,
    /// Offset of the next block in the file's own bytes (a BOM counted):
    /// the offsets that messages name.
    raw_offset: u64,
    eof: bool,
    /// Buffers of blocks handed back by [`BlockReader::recycle`]: reused so
    /// that a long file does not cost a fresh allocation (and its page
    /// faults) per block.
    pool: Vec<Vec<u8>>,
    /// Size on disk, bytes.
    pub bytes: u64,
    /// The last byte of the text read so far (`None` before any): whether
    /// the text ends inside a line, once read to its end.
    pub last_byte: Option<u8>,
    /// Length of the decoded text when it is not the file itself (a
    /// decompressed file, [`BlockReader::from_text`]), bytes.
    text_bytes: Option<u64>,
    /// Recoverable decoding problems (invalid UTF-8 at byte N), named
    /// after the file.
    pub warnings: Vec<Diagnostic>,
}

impl BlockReader {
    /// Opens a plain file for block reading; `None` when it is compressed
    /// (read those whole with [`read`], bounded by [`decompressed_limit`]).
    ///
    /// [`read`]: fn@super::read
    /// [`decompressed_limit`]: super::decompressed_limit
    pub fn open(path: &Path) -> Result<Option<BlockReader>, SourceError> {
        use std::io::Read;
        let display = path.display().to_string();
        check_regular(path, &display)?;
        check_head(path, &display)?;
        let mut file =
            std::fs::File::open(path).map_err(|e| SourceError::Unreadable(display.clone(), e))?;
        let mut head = [0u8; 4];
        let n = file
            .read(&mut head)
            .map_err(|e| SourceError::Unreadable(display.clone(), e))?;
        if Compression::sniff(&head[..n]).is_some() {
            return Ok(None);
        }
        let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut carry = head[..n].to_vec();
        if carry.starts_with(b"\xEF\xBB") {
            // Complete a possible BOM so it can be dropped below.
            let mut rest = [0u8; 1];
            if file
                .read(&mut rest)
                .map_err(|e| SourceError::Unreadable(display.clone(), e))?
                == 1
            {
                carry.push(rest[0]);
            }
        }
        let mut bom = 0;
        if carry.starts_with(b"\xEF\xBB\xBF") {
            carry.drain(..3);
            bom = 3;
        }
        Ok(Some(BlockReader {
            file: Box::new(file),
            display,
            carry,
            next_line: 1,
            next_offset: 0,
            raw_offset: bom,
            eof: false,
            pool: Vec::new(),
            bytes,
            last_byte: None,
            text_bytes: None,
            warnings: Vec::new(),
        }))
    }

    /// Whether the text read so far is the file's own bytes after a UTF-8
    /// byte-order mark: a plain file, and no invalid UTF-8 replaced.
    pub fn text_is_file(&self) -> bool {
        self.text_bytes.is_none() && self.warnings.is_empty()
    }

    /// Reads text already decoded (a decompressed file, see [`read`]) block
    /// by block, as [`BlockReader::open`] reads a plain file: the records
    /// are not all held, only the text. `bytes` is the size on disk. The
    /// decoding problems [`read`] found are the caller's to report.
    ///
    /// [`read`]: fn@super::read
    pub fn from_text(display: &str, text: String, bytes: u64) -> Self {
        let text_bytes = Some(text.len() as u64);
        BlockReader {
            file: Box::new(std::io::Cursor::new(text.into_bytes())),
            display: display.to_string(),
            carry: Vec::new(),
            next_line: 1,
            next_offset: 0,
            raw_offset: 0,
            eof: false,
            pool: Vec::new(),
            bytes,
            last_byte: None,
            text_bytes,
            warnings: Vec::new(),
        }
    }

    /// The share of the size on disk that `text` bytes of the decoded text
    /// stand for: `text` itself for a plain file, in proportion for a
    /// decompressed one (so a progress line counts bytes of the file, as
    /// its total does).
    pub fn on_disk(&self, text: u64) -> u64 {
        match self.text_bytes {
            Some(t) if t > 0 => ((text as u128 * self.bytes as u128) / t as u128) as u64,
            _ => text,
        }
    }

    /// Hands a block's buffer back for reuse by the next blocks (optional:
    /// a block not handed back is simply freed).
    pub fn recycle(&mut self, block: Block) {
        if self.pool.len() < 64 {
            self.pool.push(block.text.into_bytes());
        }
    }

    /// The next block of about `target` bytes (more when no safe cut comes
    /// sooner), or `None` at the end. `safe` tells whether a line (its
    /// bytes) may start a block.
    pub fn next_block(
        &mut self,
        target: usize,
        safe: fn(&[u8]) -> bool,
    ) -> Result<Option<Block>, SourceError> {
        let mut buf = self.pool.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(&self.carry);
        self.carry.clear();
        let cut = loop {
            if !self.eof && buf.len() < target.max(1) {
                let want = target.max(1) - buf.len();
                if read_more(self.file.as_mut(), &mut buf, want, &self.display)? == 0 {
                    self.eof = true;
                }
                continue;
            }
            if self.eof {
                break buf.len();
            }
            match safe_cut(&buf, safe) {
                Some(c) => break c,
                None => {
                    // No safe cut yet: read more.
                    let want = target.max(1);
                    if read_more(self.file.as_mut(), &mut buf, want, &self.display)? == 0 {
                        self.eof = true;
                    }
                }
            }
        };
        if buf.is_empty() {
            return Ok(None);
        }
        self.carry.extend_from_slice(&buf[cut..]);
        buf.truncate(cut);
        let (offset, raw) = (self.next_offset, self.raw_offset);
        if let Some(i) = memchr::memchr(0, &buf) {
            return Err(SourceError::Binary(self.display.clone(), raw + i as u64));
        }
        self.last_byte = buf.last().copied().or(self.last_byte);
        let lines = memchr::memchr_iter(b'\n', &buf).count() as u64;
        let first_line = self.next_line;
        self.next_line += lines;
        self.raw_offset += buf.len() as u64;
        let text = match checked_utf8(buf) {
            Ok(s) => s,
            Err(e) => {
                if self.warnings.is_empty() {
                    let at = raw + e.utf8_error().valid_up_to() as u64;
                    let w = invalid_utf8(&self.display, &at.to_string());
                    self.warnings.push(w);
                }
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        self.next_offset += text.len() as u64;
        Ok(Some(Block {
            text: super::read::blank_ansi(text),
            first_line,
            offset,
        }))
    }
}

/// `buf` as a `String` when it is UTF-8, as [`String::from_utf8`] does,
/// checked with SIMD first (`simdutf8`: several times std's rate on the
/// read path, which is sequential); std's check runs only on a failure, for
/// its error (where the valid prefix ends).
fn checked_utf8(buf: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    if simdutf8::basic::from_utf8(&buf).is_ok() {
        // SAFETY: `simdutf8` has just checked that every byte of `buf` is
        // valid UTF-8, which is all `from_utf8_unchecked` requires.
        return Ok(unsafe { String::from_utf8_unchecked(buf) });
    }
    String::from_utf8(buf)
}

/// The last line end in `buf` after which a record may start (`safe` says
/// so of the line that follows it): the offset of that line.
fn safe_cut(buf: &[u8], safe: fn(&[u8]) -> bool) -> Option<usize> {
    let mut end = buf.len();
    while let Some(i) = memchr::memrchr(b'\n', &buf[..end]) {
        let next = &buf[i + 1..];
        let line_end = memchr::memchr(b'\n', next).unwrap_or(next.len());
        // A line is judged only when it is whole (or the file ends).
        if i + 1 + line_end < buf.len() && safe(&next[..line_end]) {
            return Some(i + 1);
        }
        end = i;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_check_agrees_with_std() {
        let good = "é→{\"id\":1}\n".repeat(40).into_bytes();
        assert_eq!(checked_utf8(good.clone()).unwrap().into_bytes(), good);
        // A bad byte at 70: the error says where the valid prefix ends.
        let mut bad = "a".repeat(100).into_bytes();
        bad[70] = 0xff;
        assert_eq!(
            checked_utf8(bad).unwrap_err().utf8_error().valid_up_to(),
            70
        );
        // A sequence cut at the end is an error too.
        assert!(checked_utf8(vec![b'a', 0xe2, 0x82]).is_err());
    }

    #[test]
    fn decompressed_text_counts_in_bytes_on_disk() {
        let r = BlockReader::from_text("x.gz", "a".repeat(1000), 50);
        assert_eq!((r.on_disk(0), r.on_disk(500), r.on_disk(1000)), (0, 25, 50));
    }

    #[test]
    fn block_reader_cuts_at_safe_line_starts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.log");
        // Lines starting with a digit are safe starts; "x" lines are not.
        // Offsets count the text after the BOM (as every reader's do).
        std::fs::write(&p, "\u{feff}1 a\nx\nx\n2 b\nx\n3 c\n").unwrap();
        let mut r = BlockReader::open(&p).unwrap().unwrap();
        let safe: fn(&[u8]) -> bool = |l| l.first().is_some_and(u8::is_ascii_digit);
        let mut got = Vec::new();
        while let Some(b) = r.next_block(4, safe).unwrap() {
            got.push((b.first_line, b.offset, b.text));
        }
        assert_eq!(
            got,
            vec![
                (1, 0, "1 a\nx\nx\n".to_string()),
                (4, 8, "2 b\nx\n".to_string()),
                (6, 14, "3 c\n".to_string())
            ]
        );
    }
}

//! A file's decoded text chunk by chunk, for a parser that takes a stream.

use std::path::Path;

use super::SourceError;
use super::decompress::{Compression, StreamError};
use super::read::{check_head, check_regular, invalid_utf8, read, read_more};
use crate::diag::Diagnostic;

/// Read size of [`TextChunks`] (1 MiB).
pub const TEXT_CHUNK: usize = 1 << 20;

/// A file's decoded text read chunk by chunk, for a parser that takes a
/// stream (the HAR splitter, issue 5): memory holds one chunk, never the
/// file.
///
/// The chunks, joined, are exactly the `text` [`read`] gives (one leading
/// BOM removed, invalid UTF-8 read as U+FFFD: a chunk never ends inside a
/// character, so offsets are the same), and the same errors and warnings
/// come out: UTF-16 and binary heads at [`TextChunks::open`], an empty file
/// there too, a NUL byte at the chunk that holds it, a file of whitespace
/// only at the end ([`TextChunks::next_chunk`] then returns the error
/// instead of `None`). A caller that meets an error must drop what it made
/// of the chunks before: [`read`] would have refused the file whole.
///
/// A compressed file is decompressed whole by [`read`] (bounded by
/// [`decompressed_limit`]) and handed out in chunks.
///
/// [`decompressed_limit`]: super::decompressed_limit
pub struct TextChunks {
    display: String,
    src: ChunkSource,
    /// Size on disk, bytes (compressed size for a compressed file).
    pub bytes: u64,
    /// Recoverable decoding problems (invalid UTF-8 at byte N), named
    /// after the file.
    pub warnings: Vec<Diagnostic>,
    /// The compression found by magic bytes, if any.
    pub compression: Option<Compression>,
    /// A damaged compressed stream (see [`SourceFile::damage`]).
    ///
    /// [`SourceFile::damage`]: super::SourceFile::damage
    pub damage: Option<StreamError>,
    /// Raw bytes read and not yet handed out (at most an incomplete UTF-8
    /// sequence between calls).
    buf: Vec<u8>,
    out: Vec<u8>,
    /// Offset in the file of `buf[0]`.
    raw_at: u64,
    /// Only ASCII whitespace so far.
    blank: bool,
}

enum ChunkSource {
    Plain { file: std::fs::File, eof: bool },
    Whole { text: String, at: usize },
}

impl TextChunks {
    /// Opens `path` (refusing what [`read`] refuses before reading).
    pub fn open(path: &Path) -> Result<TextChunks, SourceError> {
        let display = path.display().to_string();
        check_regular(path, &display)?;
        check_head(path, &display)?;
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SourceError::NotFound(display));
            }
            Err(e) => return Err(SourceError::Unreadable(display, e)),
        };
        let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut t = TextChunks {
            display,
            src: ChunkSource::Plain { file, eof: false },
            bytes,
            warnings: Vec::new(),
            compression: None,
            damage: None,
            buf: Vec::with_capacity(TEXT_CHUNK),
            out: Vec::with_capacity(TEXT_CHUNK),
            raw_at: 0,
            blank: true,
        };
        t.fill()?;
        if t.buf.is_empty() {
            return Err(SourceError::Empty(t.display));
        }
        if let Some(format) = Compression::sniff(&t.buf) {
            let f = read(path)?;
            t.bytes = f.bytes;
            t.warnings = f.warnings;
            t.damage = f.damage;
            t.compression = Some(format);
            t.buf = Vec::new();
            t.src = ChunkSource::Whole {
                text: f.text,
                at: 0,
            };
            return Ok(t);
        }
        if t.buf.starts_with(b"\xEF\xBB\xBF") {
            t.buf.drain(..3);
            t.raw_at = 3;
            t.blank = false;
        }
        Ok(t)
    }

    /// Reads until `buf` holds a chunk or the file ends.
    fn fill(&mut self) -> Result<(), SourceError> {
        let ChunkSource::Plain { file, eof } = &mut self.src else {
            return Ok(());
        };
        if !*eof && self.buf.len() < TEXT_CHUNK {
            // Into spare capacity: nothing zeroed first (`read_more`).
            let want = TEXT_CHUNK - self.buf.len();
            if read_more(file, &mut self.buf, want, &self.display)? < want {
                *eof = true;
            }
        }
        Ok(())
    }

    /// The next chunk of a file decompressed whole.
    fn whole_chunk(&mut self) -> Option<&[u8]> {
        let ChunkSource::Whole { text, at } = &mut self.src else {
            return None;
        };
        let start = *at;
        if start >= text.len() {
            return None;
        }
        let mut end = (start + TEXT_CHUNK).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        *at = end;
        Some(&text.as_bytes()[start..end])
    }

    /// [`TextChunks::next_chunk`] into `into` (its old buffer is reused
    /// for the next chunk): `false` at the end.
    pub fn next_chunk_into(&mut self, into: &mut Vec<u8>) -> Result<bool, SourceError> {
        let whole = matches!(self.src, ChunkSource::Whole { .. });
        let got = self
            .next_chunk()?
            .map(|c| {
                if whole {
                    into.clear();
                    into.extend_from_slice(c);
                }
            })
            .is_some();
        if got && !whole {
            std::mem::swap(&mut self.out, into);
        }
        Ok(got)
    }

    /// The next chunk of text (UTF-8), `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<&[u8]>, SourceError> {
        if matches!(self.src, ChunkSource::Whole { .. }) {
            return Ok(self.whole_chunk());
        }
        self.fill()?;
        let eof = matches!(self.src, ChunkSource::Plain { eof: true, .. });
        if self.buf.is_empty() {
            return if self.blank {
                Err(SourceError::Blank(self.display.clone(), self.bytes))
            } else {
                Ok(None)
            };
        }
        if let Some(i) = memchr::memchr(0, &self.buf) {
            return Err(SourceError::Binary(
                self.display.clone(),
                self.raw_at + i as u64,
            ));
        }
        if self.blank {
            self.blank = self.buf.iter().all(u8::is_ascii_whitespace);
        }
        let cut = if eof {
            self.buf.len()
        } else {
            utf8_cut(&self.buf)
        };
        match std::str::from_utf8(&self.buf[..cut]) {
            Ok(_) => {
                // The read buffer itself is handed out (no copy); the bytes
                // after the cut (an unfinished character) start the next.
                std::mem::swap(&mut self.out, &mut self.buf);
                self.buf.clear();
                self.buf.extend_from_slice(&self.out[cut..]);
                self.out.truncate(cut);
            }
            Err(e) => {
                if self.warnings.is_empty() {
                    let at = self.raw_at + e.valid_up_to() as u64;
                    let w = invalid_utf8(&self.display, &at.to_string());
                    self.warnings.push(w);
                }
                self.out.clear();
                self.out
                    .extend_from_slice(String::from_utf8_lossy(&self.buf[..cut]).as_bytes());
                self.buf.drain(..cut);
            }
        }
        self.raw_at += cut as u64;
        Ok(Some(&self.out))
    }
}

/// Where a chunk of raw bytes may end so that decoding it apart gives the
/// same text as decoding the file whole: before the lead byte of a last
/// multi-byte sequence (every decoder state is "ready" before a byte that
/// is not a continuation byte).
fn utf8_cut(buf: &[u8]) -> usize {
    let n = buf.len();
    if n == 0 || buf[n - 1] < 0x80 {
        return n;
    }
    for k in 1..=n.min(4) {
        let b = buf[n - k];
        if b & 0xC0 != 0x80 {
            return if b >= 0xC0 { n - k } else { n };
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{gz, zst};
    use super::*;

    fn all_chunks(p: &Path) -> Result<(Vec<u8>, Vec<Diagnostic>), SourceError> {
        let mut c = TextChunks::open(p)?;
        let mut out = Vec::new();
        while let Some(chunk) = c.next_chunk()? {
            assert!(std::str::from_utf8(chunk).is_ok());
            out.extend_from_slice(chunk);
        }
        Ok((out, c.warnings))
    }

    /// The chunks of a file, joined, are `read`'s text, with the same
    /// warnings and errors — multi-byte and invalid UTF-8 at chunk ends,
    /// BOM, NUL, blank, empty and compressed files.
    #[test]
    fn text_chunks_join_to_read_text() {
        let d = tempfile::tempdir().unwrap();
        let mut big = b"\xEF\xBB\xBF".to_vec();
        while big.len() < 3 * TEXT_CHUNK + 10 {
            big.extend_from_slice("{\"a\":\"é€😀\"}\n".as_bytes());
        }
        for (k, at) in [TEXT_CHUNK - 1, TEXT_CHUNK, 2 * TEXT_CHUNK + 1]
            .into_iter()
            .enumerate()
        {
            let mut v = big.clone();
            if k == 1 {
                v[at] = 0xE2; // a lead byte whose sequence breaks off
            } else {
                v[at] = 0xFF;
            }
            for (name, bytes) in [
                ("t.txt", v.clone()),
                ("t.txt.gz", gz(&v)),
                ("t.txt.zst", zst(&v)),
            ] {
                let p = d.path().join(name);
                std::fs::write(&p, &bytes).unwrap();
                let whole = read(&p).unwrap();
                let (text, warnings) = all_chunks(&p).unwrap();
                assert_eq!(text, whole.text.as_bytes(), "{name} {at}");
                assert_eq!(warnings, whole.warnings, "{name} {at}");
            }
        }
        let p = d.path().join("ok.txt");
        std::fs::write(&p, &big).unwrap();
        assert_eq!(all_chunks(&p).unwrap().0, read(&p).unwrap().text.as_bytes());
        for bytes in [b"".to_vec(), b" \n\t ".repeat(TEXT_CHUNK), {
            let mut v = big.clone();
            v[2 * TEXT_CHUNK + 7] = 0;
            v
        }] {
            std::fs::write(&p, &bytes).unwrap();
            let want = read(&p).unwrap_err().to_string();
            assert_eq!(all_chunks(&p).unwrap_err().to_string(), want);
        }
    }

    #[test]
    fn utf8_cuts_before_an_open_sequence() {
        assert_eq!(utf8_cut(b"ab"), 2);
        assert_eq!(utf8_cut("aé".as_bytes()), 1);
        assert_eq!(utf8_cut(b"a\xE2\x82"), 1);
        assert_eq!(utf8_cut(b"a\x80\x80\x80\x80"), 5);
        assert_eq!(utf8_cut(b""), 0);
    }
}

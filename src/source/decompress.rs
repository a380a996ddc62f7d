//! gzip and zstd: recognised by magic bytes, decompressed with bounded
//! output, a damaged stream salvaged up to its last trusted whole line.

use std::fmt;
use std::io::Read;

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use super::SourceError;

/// The compression of an input, recognised by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952), magic `1f 8b`.
    Gzip,
    /// Zstandard (RFC 8878), magic `28 b5 2f fd`.
    Zstd,
}

impl Compression {
    /// The compression whose magic bytes `bytes` starts with, if any.
    pub fn sniff(bytes: &[u8]) -> Option<Compression> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        })
    }
}

/// The output of a compressed file may be at most this many times its size
/// on disk (gzip itself cannot exceed about 1032×; zstd can, but real logs
/// stay far below)…
pub const MAX_RATIO: u64 = 1000;
/// …but at least this much is always allowed (64 MiB), so that a small,
/// very repetitive log is never refused…
pub const MIN_DECOMPRESSED_LIMIT: u64 = 64 << 20;
/// …and never more than this (8 GiB), whatever the file's size.
pub const MAX_DECOMPRESSED_LIMIT: u64 = 8 << 30;

/// How many decompressed bytes a compressed file of `compressed` bytes may
/// yield before reading stops with [`StreamError::TooLarge`]:
/// `clamp(MAX_RATIO × compressed, MIN_DECOMPRESSED_LIMIT, MAX_DECOMPRESSED_LIMIT)`.
/// Decompression never holds more than this (plus one read chunk) in memory.
pub fn decompressed_limit(compressed: u64) -> u64 {
    compressed
        .saturating_mul(MAX_RATIO)
        .clamp(MIN_DECOMPRESSED_LIMIT, MAX_DECOMPRESSED_LIMIT)
}

/// What was kept of a damaged compressed stream: after a truncation, the
/// whole lines decoded; after corruption, the whole lines of the gzip
/// members / zstd frames that ended intact before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Salvage {
    /// Whole lines kept (and analysed).
    pub lines: u64,
    /// Their bytes.
    pub kept: u64,
    /// Decoded bytes not kept (a partial last line, unverified output).
    pub dropped: u64,
}

impl fmt::Display for Salvage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lines == 0 {
            write!(
                f,
                "no whole line before it can be kept ({} decoded byte(s) dropped), nothing analysed",
                self.dropped
            )
        } else {
            write!(
                f,
                "the {} whole line(s) ({} bytes) before it are analysed, the {} decoded byte(s) after them are dropped",
                self.lines, self.kept, self.dropped
            )
        }
    }
}

/// A problem inside a compressed stream (named by file, format and place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// The stream is damaged at `offset` (bytes into the compressed file).
    Corrupt {
        /// Display name.
        file: String,
        /// gzip or zstd.
        format: Compression,
        /// Compressed bytes consumed when the damage was found.
        offset: u64,
        /// Size of the compressed file.
        size: u64,
        /// The decoder's words.
        detail: String,
        /// What was kept.
        salvage: Salvage,
    },
    /// The file ends inside the stream.
    Truncated {
        /// Display name.
        file: String,
        /// gzip or zstd.
        format: Compression,
        /// Size of the compressed file (where it ends).
        size: u64,
        /// What was kept.
        salvage: Salvage,
    },
    /// The output passed [`decompressed_limit`].
    TooLarge {
        /// Display name.
        file: String,
        /// gzip or zstd.
        format: Compression,
        /// Size of the compressed file.
        size: u64,
        /// Compressed bytes consumed when the limit was passed.
        offset: u64,
        /// The limit that was passed.
        limit: u64,
    },
}

impl StreamError {
    /// The display name of the compressed file.
    pub fn file(&self) -> &str {
        match self {
            StreamError::Corrupt { file, .. }
            | StreamError::Truncated { file, .. }
            | StreamError::TooLarge { file, .. } => file,
        }
    }

    /// What is wrong, without the file's name.
    pub fn detail(&self) -> String {
        match self {
            StreamError::Corrupt {
                format,
                offset,
                size,
                detail,
                salvage,
                ..
            } => format!(
                "corrupt {format} stream at compressed byte offset {offset} of {size} ({detail}); {salvage}"
            ),
            StreamError::Truncated {
                format,
                size,
                salvage,
                ..
            } => format!(
                "truncated {format} stream: the file ends at byte offset {size} inside the stream; {salvage}"
            ),
            StreamError::TooLarge {
                format,
                size,
                offset,
                limit,
                ..
            } => format!(
                "{format} stream decompresses to more than {limit} bytes (limit: {MAX_RATIO}× the {size}-byte file, at least 64 MiB, at most 8 GiB), stopped at compressed byte offset {offset}; not analysed (decompression bomb?)"
            ),
        }
    }
}

/// `FILE: DETAIL`.
impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file(), self.detail())
    }
}

impl std::error::Error for StreamError {}

/// The damage as a typed diagnostic, named after its file. Fatal: the
/// input is incomplete.
impl From<&StreamError> for crate::diag::Diagnostic {
    fn from(e: &StreamError) -> Self {
        crate::diag::Diagnostic::whole(e.detail())
            .named(e.file())
            .fatal()
    }
}

/// How a decompression stopped early.
enum Stop {
    /// Damage found at `offset`; the first `verified` output bytes come from
    /// gzip members / zstd frames that ended intact (checksum checked), the
    /// rest may already be garbage.
    Corrupt {
        offset: u64,
        detail: String,
        verified: usize,
    },
    /// The input ended inside a stream: everything decoded is what was
    /// compressed, only the end is missing.
    Truncated,
    TooLarge {
        offset: u64,
    },
}

/// Decompresses `data` (all of it: several gzip members / zstd frames) with
/// at most `limit` output bytes.
///
/// Returns the text and, for a damaged stream that still yields whole
/// lines, the damage. What is kept: after a truncation, every whole line
/// decoded; after corruption, only the whole lines of the members / frames
/// that ended intact before it, since a decoder may emit garbage for a while
/// before it notices damage. A stream that yields no whole line, or passes
/// the limit, is an error.
pub fn decompress(
    display: &str,
    format: Compression,
    data: &[u8],
    limit: u64,
) -> Result<(Vec<u8>, Option<StreamError>), SourceError> {
    let (mut out, stop) = match format {
        Compression::Gzip => gunzip(data, limit),
        Compression::Zstd => unzstd(data, limit),
    };
    let size = data.len() as u64;
    let file = display.to_string();
    let err = match stop {
        None => return Ok((out, None)),
        Some(Stop::TooLarge { offset }) => {
            return Err(StreamError::TooLarge {
                file,
                format,
                size,
                offset,
                limit,
            }
            .into());
        }
        Some(Stop::Corrupt {
            offset,
            detail,
            verified,
        }) => {
            let salvage = keep_whole_lines(&mut out, verified);
            StreamError::Corrupt {
                file,
                format,
                offset,
                size,
                detail,
                salvage,
            }
        }
        Some(Stop::Truncated) => {
            let all = out.len();
            let salvage = keep_whole_lines(&mut out, all);
            StreamError::Truncated {
                file,
                format,
                size,
                salvage,
            }
        }
    };
    if out.is_empty() {
        Err(err.into())
    } else {
        Ok((out, Some(err)))
    }
}

/// Cuts `out` to the whole lines of `out[..trusted]` (to nothing when
/// they are only whitespace) and says what was kept.
fn keep_whole_lines(out: &mut Vec<u8>, trusted: usize) -> Salvage {
    let decoded = out.len() as u64;
    out.truncate(trusted);
    let kept = memchr::memrchr(b'\n', out).map_or(0, |i| i + 1);
    out.truncate(kept);
    if !out.iter().any(|b| !b.is_ascii_whitespace()) {
        out.clear();
    }
    let lines = memchr::memchr_iter(b'\n', out).count() as u64;
    Salvage {
        lines,
        kept: out.len() as u64,
        dropped: decoded - out.len() as u64,
    }
}

/// Read chunk of the gzip decoder.
const CHUNK: usize = 64 << 10;

/// gzip, one member at a time (so that each member's CRC marks a point up
/// to which the output is known good).
fn gunzip(data: &[u8], limit: u64) -> (Vec<u8>, Option<Stop>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    let mut input: &[u8] = data;
    while !input.is_empty() {
        let verified = out.len();
        let mut dec = flate2::bufread::GzDecoder::new(input);
        loop {
            match dec.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if (out.len() + n) as u64 > limit {
                        let offset = (data.len() - dec.get_ref().len()) as u64;
                        return (out, Some(Stop::TooLarge { offset }));
                    }
                    out.extend_from_slice(&buf[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let rest = dec.get_ref().len();
                    let stop = if rest == 0 && e.kind() == std::io::ErrorKind::UnexpectedEof {
                        Stop::Truncated
                    } else {
                        Stop::Corrupt {
                            offset: (data.len() - rest) as u64,
                            detail: e.to_string(),
                            verified,
                        }
                    };
                    return (out, Some(stop));
                }
            }
        }
        let rest = dec.into_inner();
        if rest.len() == input.len() {
            // No progress: cannot happen with a well-behaved decoder, but
            // never loop on input.
            let offset = (data.len() - rest.len()) as u64;
            let verified = out.len();
            return (
                out,
                Some(Stop::Corrupt {
                    offset,
                    detail: "gzip member yields nothing".into(),
                    verified,
                }),
            );
        }
        input = rest;
    }
    (out, None)
}

/// zstd, frame by frame (skippable frames skipped), checking each frame's
/// content checksum when it has one.
fn unzstd(data: &[u8], limit: u64) -> (Vec<u8>, Option<Stop>) {
    let mut input: &[u8] = data;
    let mut dec = FrameDecoder::new();
    let mut out = Vec::new();
    while !input.is_empty() {
        let verified = out.len();
        match zstd_header(&mut dec, &mut input, data, verified) {
            Ok(Header::Frame) => {}
            Ok(Header::Skipped) => continue,
            Err(stop) => return (out, Some(stop)),
        }
        if let Some(stop) = zstd_blocks(&mut dec, &mut input, data, &mut out, limit, verified) {
            return (out, Some(stop));
        }
        if let Some(stop) = zstd_checksum(&dec, offset_in(data, input), verified) {
            return (out, Some(stop));
        }
    }
    (out, None)
}

/// What [`zstd_header`] found at the start of the input.
enum Header {
    /// A frame, ready to be decoded.
    Frame,
    /// A skippable frame, skipped.
    Skipped,
}

/// Where `input`, the unread tail of `data`, starts in `data`.
fn offset_in(data: &[u8], input: &[u8]) -> u64 {
    (data.len() - input.len()) as u64
}

/// Reads the header of the next zstd frame of `input` (a tail of `data`)
/// into `dec`, or skips a skippable frame; the input ending inside it is a
/// truncation, a bad header corruption at the frame's offset.
fn zstd_header(
    dec: &mut FrameDecoder,
    input: &mut &[u8],
    data: &[u8],
    verified: usize,
) -> Result<Header, Stop> {
    let frame_start = *input;
    match dec.init(&mut *input) {
        Ok(()) => Ok(Header::Frame),
        Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
            length,
            ..
        })) => match input.get(length as usize..) {
            Some(rest) => {
                *input = rest;
                Ok(Header::Skipped)
            }
            None => Err(Stop::Truncated),
        },
        Err(_) if input.is_empty() => Err(Stop::Truncated),
        // The offset of the frame whose header is bad.
        Err(e) => Err(Stop::Corrupt {
            offset: offset_in(data, frame_start),
            detail: e.to_string(),
            verified,
        }),
    }
}

/// Decodes the blocks of the frame `dec` was set up for into `out`, at
/// most `limit` bytes in all; `None` once the frame is whole.
fn zstd_blocks(
    dec: &mut FrameDecoder,
    input: &mut &[u8],
    data: &[u8],
    out: &mut Vec<u8>,
    limit: u64,
    verified: usize,
) -> Option<Stop> {
    loop {
        if let Err(e) = dec.decode_blocks(&mut *input, BlockDecodingStrategy::UptoBytes(1 << 20)) {
            if input.is_empty() {
                // Truncated: what the complete blocks produced is good.
                if (out.len() + dec.can_collect()) as u64 <= limit {
                    let _ = dec.collect_to_writer(&mut *out);
                }
                return Some(Stop::Truncated);
            }
            return Some(Stop::Corrupt {
                offset: offset_in(data, input),
                detail: e.to_string(),
                verified,
            });
        }
        if (out.len() + dec.can_collect()) as u64 > limit {
            return Some(Stop::TooLarge {
                offset: offset_in(data, input),
            });
        }
        if let Err(e) = dec.collect_to_writer(&mut *out) {
            return Some(Stop::Corrupt {
                offset: offset_in(data, input),
                detail: e.to_string(),
                verified,
            });
        }
        if dec.is_finished() {
            return None;
        }
    }
}

/// A mismatch between the content checksum a whole frame carries (if it
/// carries one) and the one computed, as corruption at `offset`.
fn zstd_checksum(dec: &FrameDecoder, offset: u64, verified: usize) -> Option<Stop> {
    let (want, got) = (
        dec.get_checksum_from_data()?,
        dec.get_calculated_checksum()?,
    );
    (want != got).then(|| Stop::Corrupt {
        offset,
        detail: format!("content checksum {got:08x} does not match the frame's {want:08x}"),
        verified,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{gz, log_text, zst};
    use super::*;
    use crate::source::read;

    #[test]
    fn gzip_and_zstd_round_trip_by_magic() {
        let d = tempfile::tempdir().unwrap();
        let text = log_text(5000);
        for (name, bytes, fmt) in [
            ("a.log.gz", gz(&text), Compression::Gzip),
            ("b.zst", zst(&text), Compression::Zstd),
            ("c.log", gz(&text), Compression::Gzip),
        ] {
            let p = d.path().join(name);
            std::fs::write(&p, &bytes).unwrap();
            let f = read(&p).unwrap();
            assert_eq!(f.text.as_bytes(), &text[..], "{name}");
            assert_eq!(f.compression, Some(fmt));
            assert_eq!(f.bytes, bytes.len() as u64);
            assert_eq!(f.display, p.display().to_string());
            assert!(f.damage.is_none() && f.warnings.is_empty());
        }
        // Several gzip members and zstd frames are read as one text.
        let (a, b) = text.split_at(text.len() / 2);
        let two_gz = [gz(a), gz(b)].concat();
        assert_eq!(
            decompress("m", Compression::Gzip, &two_gz, u64::MAX)
                .unwrap()
                .0,
            text
        );
        // A skippable frame between two zstd frames.
        let skip = [&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0][..], b"abc"].concat();
        let two_zst = [zst(a), skip, zst(b)].concat();
        assert_eq!(
            decompress("m", Compression::Zstd, &two_zst, u64::MAX)
                .unwrap()
                .0,
            text
        );
        // Not compressed, though named so: read as text.
        let p = d.path().join("plain.gz");
        std::fs::write(&p, "{}\n").unwrap();
        assert_eq!(read(&p).unwrap().compression, None);
        // Decompressed offsets are said to be so.
        let p = d.path().join("nul.gz");
        std::fs::write(&p, gz(b"{}\n\0")).unwrap();
        assert_eq!(
            read(&p).unwrap_err().to_string(),
            format!(
                "{}: binary content (NUL byte at byte offset 3 of the decompressed text), not a text capture",
                p.display()
            )
        );
    }

    #[test]
    fn decompression_is_bounded() {
        assert_eq!(decompressed_limit(0), MIN_DECOMPRESSED_LIMIT);
        assert_eq!(decompressed_limit(1 << 20), 1000 << 20);
        assert_eq!(decompressed_limit(1 << 40), MAX_DECOMPRESSED_LIMIT);
        let zeros = vec![b'\n'; 4 << 20];
        for (fmt, bytes) in [
            (Compression::Gzip, gz(&zeros)),
            (Compression::Zstd, zst(&zeros)),
        ] {
            assert_eq!(
                decompress("x", fmt, &bytes, 4 << 20).unwrap().0.len(),
                4 << 20,
                "{fmt}: at the limit is fine"
            );
            let e = decompress("bomb.gz", fmt, &bytes, 1 << 20).unwrap_err();
            let SourceError::Stream(StreamError::TooLarge { limit, .. }) = &e else {
                panic!("{e}")
            };
            assert_eq!(*limit, 1 << 20);
            assert!(
                e.to_string().starts_with("bomb.gz: ")
                    && e.to_string().contains("more than 1048576 bytes"),
                "{e}"
            );
        }
        // Through `read` with the real limit: 200 MiB from a few KiB of zstd.
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("bomb.zst");
        let big = vec![b' '; 200 << 20];
        std::fs::write(&p, zst(&big)).unwrap();
        drop(big);
        let e = read(&p).unwrap_err();
        assert!(
            matches!(
                e,
                SourceError::Stream(StreamError::TooLarge {
                    limit: MIN_DECOMPRESSED_LIMIT,
                    ..
                })
            ),
            "{e}"
        );
    }

    #[test]
    fn truncated_stream_keeps_whole_lines() {
        let text = log_text(20000);
        for (fmt, bytes) in [
            (Compression::Gzip, gz(&text)),
            (Compression::Zstd, zst(&text)),
        ] {
            let cut = &bytes[..bytes.len() * 2 / 3];
            let (out, damage) = decompress("t.gz", fmt, cut, u64::MAX).unwrap();
            assert!(!out.is_empty() && out.len() < text.len(), "{fmt}");
            assert!(
                out.ends_with(b"\n") && text.starts_with(&out),
                "{fmt}: a prefix of whole lines"
            );
            let Some(StreamError::Truncated { size, salvage, .. }) = &damage else {
                panic!("{fmt}: {damage:?}")
            };
            assert_eq!(*size, cut.len() as u64);
            assert_eq!(salvage.kept, out.len() as u64);
            assert_eq!(
                salvage.lines,
                out.iter().filter(|&&b| b == b'\n').count() as u64
            );
            let msg = damage.unwrap().to_string();
            assert!(
                msg.starts_with(&format!(
                    "t.gz: truncated {fmt} stream: the file ends at byte offset {}",
                    cut.len()
                )),
                "{msg}"
            );
            assert!(msg.contains("are analysed"), "{msg}");
            // Cut inside the header: nothing to keep, one error.
            let e = decompress("t.gz", fmt, &bytes[..6], u64::MAX)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("truncated") && e.contains("nothing analysed"),
                "{e}"
            );
        }
    }

    #[test]
    fn corrupt_stream_names_the_offset() {
        let text = log_text(20000);
        for (fmt, mut bytes) in [
            (Compression::Gzip, gz(&text)),
            (Compression::Zstd, zst(&text)),
        ] {
            let at = bytes.len() / 2;
            for b in &mut bytes[at..at + 64] {
                *b ^= 0x5a;
            }
            // One member / frame: nothing before the damage is known good.
            let e = decompress("c.zst", fmt, &bytes, u64::MAX).unwrap_err();
            let SourceError::Stream(StreamError::Corrupt {
                offset,
                size,
                salvage,
                ..
            }) = &e
            else {
                panic!("{fmt}: {e}")
            };
            assert!(*offset > 0 && *offset <= *size, "{fmt}: {e}");
            assert_eq!(salvage.lines, 0);
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!(
                    "c.zst: corrupt {fmt} stream at compressed byte offset {offset} of {size} ("
                )),
                "{msg}"
            );
            assert!(msg.ends_with("nothing analysed"), "{msg}");
            assert_eq!(msg.lines().count(), 1);
        }
        // Damage in the second member / frame: the first one's lines are kept.
        let (a, b) = text
            .split_at(memchr::memchr(b'\n', &text[text.len() / 2..]).unwrap() + text.len() / 2 + 1);
        for (fmt, first, mut second) in [
            (Compression::Gzip, gz(a), gz(b)),
            (Compression::Zstd, zst(a), zst(b)),
        ] {
            let at = second.len() / 2;
            for x in &mut second[at..at + 64] {
                *x ^= 0x5a;
            }
            let (out, damage) =
                decompress("c", fmt, &[first.clone(), second].concat(), u64::MAX).unwrap();
            assert_eq!(out, a, "{fmt}");
            let Some(StreamError::Corrupt {
                offset, salvage, ..
            }) = &damage
            else {
                panic!("{fmt}: {damage:?}")
            };
            assert!(*offset as usize > first.len(), "{fmt}");
            assert_eq!(salvage.kept, a.len() as u64);
            assert!(
                damage
                    .unwrap()
                    .to_string()
                    .contains("before it are analysed")
            );
        }
        // A bad zstd content checksum is damage too.
        let mut bytes = zst(&text);
        *bytes.last_mut().unwrap() ^= 1;
        let e = decompress("c.zst", Compression::Zstd, &bytes, u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("content checksum") && e.contains("nothing analysed"),
            "{e}"
        );
        // Damage in the header: nothing kept.
        let mut bytes = gz(&text);
        bytes[3] = 0xff; // reserved flag bits
        let e = decompress("c.gz", Compression::Gzip, &bytes, u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("c.gz: corrupt gzip stream at compressed byte offset")
                && e.contains("nothing analysed"),
            "{e}"
        );
    }
}

//! Opening and reading one file: the checks that refuse it before it is
//! read (not a regular file, UTF-16, binary), reading it whole
//! (decompressing by magic bytes), and decoding its bytes to text.

use std::path::{Path, PathBuf};

use super::decompress::{Compression, decompress, decompressed_limit};
use super::{SourceError, SourceFile};
use crate::diag::Diagnostic;

/// Reads and decodes one file, decompressing gzip / zstd (by magic bytes).
pub fn read(path: &Path) -> Result<SourceFile, SourceError> {
    let display = path.display().to_string();
    check_regular(path, &display)?;
    check_head(path, &display)?;
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SourceError::NotFound(display));
        }
        Err(e) => return Err(SourceError::Unreadable(display, e)),
    };
    from_bytes(display, path.to_path_buf(), bytes)
}

/// Reads the standard input whole and decodes it as [`read`] decodes a
/// file (gzip / zstd by magic bytes; UTF-16, binary and unsupported
/// compression refused), named [`super::STDIN`].
pub fn read_stdin() -> Result<SourceFile, SourceError> {
    use std::io::Read;
    let display = super::STDIN.to_string();
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| SourceError::Unreadable(display.clone(), e))?;
    let head = &bytes[..bytes.len().min(8192)];
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        return Err(SourceError::Utf16(display));
    }
    if let Some(kind) = unsupported_compression(head) {
        return Err(SourceError::UnsupportedCompression(display, kind));
    }
    from_bytes(display.clone(), PathBuf::from(display), bytes)
}

/// A file's bytes as read: decompressed when they start with gzip's or
/// zstd's magic bytes, then decoded.
fn from_bytes(display: String, path: PathBuf, bytes: Vec<u8>) -> Result<SourceFile, SourceError> {
    let Some(format) = Compression::sniff(&bytes) else {
        return decode(display, path, bytes);
    };
    let size = bytes.len() as u64;
    let (text, damage) = decompress(&display, format, &bytes, decompressed_limit(size))?;
    drop(bytes);
    let mut f = decode_text(display, path, text, size, true)?;
    f.compression = Some(format);
    f.damage = damage;
    Ok(f)
}

/// The first `max` bytes of a regular file (fewer when it is shorter), to
/// decide how to read it. FIFOs, devices and sockets are refused before
/// they are opened (opening a FIFO blocks until a writer comes).
pub fn head(path: &Path, max: usize) -> Result<Vec<u8>, SourceError> {
    use std::io::Read;
    let display = path.display().to_string();
    check_regular(path, &display)?;
    let mut buf = Vec::with_capacity(max.min(1 << 20));
    std::fs::File::open(path)
        .and_then(|f| f.take(max as u64).read_to_end(&mut buf))
        .map_err(|e| SourceError::Unreadable(display, e))?;
    Ok(buf)
}

/// Refuses FIFOs, devices and sockets before reading: they may never end.
pub(super) fn check_regular(path: &Path, display: &str) -> Result<(), SourceError> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SourceError::NotFound(display.into()));
        }
        Err(e) => return Err(SourceError::Unreadable(display.into(), e)),
    };
    let ft = meta.file_type();
    let kind = if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_dir() {
        "a directory"
    } else {
        return Ok(());
    };
    Err(SourceError::NotRegular(display.into(), kind))
}

/// Looks at the first bytes before reading a whole file: UTF-16 and binary
/// files are refused at once, whatever their size.
pub(super) fn check_head(path: &Path, display: &str) -> Result<(), SourceError> {
    use std::io::Read;
    let mut head = [0u8; 8192];
    let n = match std::fs::File::open(path).and_then(|mut f| f.read(&mut head)) {
        Ok(n) => n,
        Err(e) => return Err(SourceError::Unreadable(display.into(), e)),
    };
    let head = &head[..n];
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        return Err(SourceError::Utf16(display.into()));
    }
    if let Some(kind) = unsupported_compression(head) {
        return Err(SourceError::UnsupportedCompression(display.into(), kind));
    }
    if Compression::sniff(head).is_none()
        && let Some(i) = memchr::memchr(0, head)
    {
        return Err(SourceError::Binary(display.into(), i as u64));
    }
    Ok(())
}

/// The name of a compression or archive format that `head` starts with
/// and that is not read (only gzip and zstd are): xz, bzip2, zip, 7z,
/// lz4, lzip. Recognised by magic bytes, as gzip and zstd are.
fn unsupported_compression(head: &[u8]) -> Option<&'static str> {
    const MAGIC: [(&[u8], &str); 7] = [
        (b"\xFD7zXZ\x00", "xz"),
        (b"BZh", "bzip2"),
        (b"PK\x03\x04", "zip"),
        (b"PK\x05\x06", "zip"),
        (b"7z\xBC\xAF\x27\x1C", "7z"),
        (b"\x04\x22\x4D\x18", "lz4"),
        (b"LZIP", "lzip"),
    ];
    let (_, name) = MAGIC.iter().find(|(m, _)| head.starts_with(m))?;
    // "BZh" is also how a text file may start: bzip2 goes on with a block
    // size digit and the block magic.
    if *name == "bzip2"
        && !(head.len() >= 10
            && head[3].is_ascii_digit()
            && head[4..10] == *b"\x31\x41\x59\x26\x53\x59")
    {
        return None;
    }
    Some(name)
}

/// Appends up to `want` bytes of `file` to `buf` (fewer only at the end of
/// the file), into `buf`'s spare capacity: nothing is zeroed first.
pub(super) fn read_more(
    file: &mut (dyn std::io::Read + Send),
    buf: &mut Vec<u8>,
    want: usize,
    display: &str,
) -> Result<usize, SourceError> {
    use std::io::Read;
    buf.reserve(want);
    file.take(want as u64)
        .read_to_end(buf)
        .map_err(|e| SourceError::Unreadable(display.to_string(), e))
}

/// A text with its ANSI control sequences (CSI: `ESC [` parameters and
/// one final byte, as terminal colours `\x1b[32m` are) each replaced by as
/// many spaces: a log captured from a terminal reads as the plain one, and
/// every byte offset and line number stays where it was (evidence is
/// re-read by offset). Text without `ESC [` is returned as it is.
pub fn blank_ansi(text: String) -> String {
    if memchr::memmem::find(text.as_bytes(), b"\x1b[").is_none() {
        return text;
    }
    let mut b = text.into_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memmem::find(&b[i..], b"\x1b[") {
        let start = i + k;
        let mut end = start + 2;
        while end < b.len() && (0x20..=0x3F).contains(&b[end]) {
            end += 1;
        }
        if end < b.len() && (0x40..=0x7E).contains(&b[end]) {
            for x in &mut b[start..=end] {
                *x = b' ';
            }
            i = end + 1;
        } else {
            i = start + 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII: still UTF-8.
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Decodes bytes read from `path` (BOM, NUL check, UTF-8).
pub fn decode(display: String, path: PathBuf, bytes: Vec<u8>) -> Result<SourceFile, SourceError> {
    let size = bytes.len() as u64;
    decode_text(display, path, bytes, size, false)
}

/// [`decode`] of `bytes` whose size on disk is `size`; `decompressed` says
/// that they are the decompressed text of a compressed file (its error and
/// warning say offsets are in that text).
fn decode_text(
    display: String,
    path: PathBuf,
    bytes: Vec<u8>,
    size: u64,
    decompressed: bool,
) -> Result<SourceFile, SourceError> {
    if bytes.is_empty() {
        return Err(SourceError::Empty(display));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(SourceError::Blank(display, bytes.len() as u64));
    }
    if let Some(i) = memchr::memchr(0, &bytes) {
        return Err(if decompressed {
            SourceError::BinaryDecompressed(display, i as u64)
        } else {
            SourceError::Binary(display, i as u64)
        });
    }
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    let mut warnings = Vec::new();
    // No copy of the text when it is valid UTF-8 (the common case).
    let mut text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            warnings.push(invalid_utf8(
                &display,
                &format!(
                    "{}{}",
                    e.utf8_error().valid_up_to(),
                    if decompressed {
                        " of the decompressed text"
                    } else {
                        ""
                    }
                ),
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    if bom {
        text.drain(..3);
    }
    let text = blank_ansi(text);
    Ok(SourceFile {
        path,
        display,
        text,
        bytes: size,
        warnings,
        compression: None,
        damage: None,
    })
}

/// The problem of invalid UTF-8 in file `display` at byte offset `at`
/// (the offset, with what it counts in): reading goes on with U+FFFD.
pub(super) fn invalid_utf8(display: &str, at: &str) -> Diagnostic {
    Diagnostic::whole(format!(
        "invalid UTF-8 at byte offset {at}; such bytes are read as U+FFFD"
    ))
    .named(display)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_utf16_are_refused_before_reading() {
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: not a regular file (a device); give a capture file"
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("u16.har");
        std::fs::write(&p, b"\xFF\xFE{\0\"\0").unwrap();
        assert!(matches!(read(&p), Err(SourceError::Utf16(_))));
    }

    #[test]
    fn decode_rules() {
        let p = PathBuf::from("x");
        assert!(matches!(
            decode("x".into(), p.clone(), b"".to_vec()),
            Err(SourceError::Empty(_))
        ));
        assert!(matches!(
            decode("x".into(), p.clone(), b" \n".to_vec()),
            Err(SourceError::Blank(_, 2))
        ));
        assert!(matches!(
            decode("x".into(), p.clone(), b"ab\0c".to_vec()),
            Err(SourceError::Binary(_, 2))
        ));
        let f = decode("x".into(), p.clone(), b"\xEF\xBB\xBF{}".to_vec()).unwrap();
        assert_eq!(f.text, "{}");
        let f = decode("x".into(), p, b"{\xff}".to_vec()).unwrap();
        assert_eq!(f.warnings.len(), 1);
        assert!(f.warnings[0].message.contains("byte offset 1"));
    }

    #[test]
    fn other_compressions_are_named_not_binary() {
        // Real archives, made by Python's lzma, bz2 and zipfile modules.
        let dir = tempfile::tempdir().unwrap();
        let script = "import lzma, bz2, zipfile, sys\n\
            d = b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\\n'\n\
            o = sys.argv[1]\n\
            open(o + '/a.xz', 'wb').write(lzma.compress(d))\n\
            open(o + '/a.bz2', 'wb').write(bz2.compress(d))\n\
            zipfile.ZipFile(o + '/a.zip', 'w').writestr('a.ndjson', d)\n";
        let made = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(dir.path())
            .status()
            .expect("python3");
        assert!(made.success());
        for (name, kind) in [("a.xz", "xz"), ("a.bz2", "bzip2"), ("a.zip", "zip")] {
            let p = dir.path().join(name);
            let e = read(&p).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "{}: unsupported compression ({kind}); decompress it first, or recompress it with gzip or zstd",
                    p.display()
                )
            );
        }
        // A text file that merely starts with "BZh" is read.
        let t = dir.path().join("bzh.log");
        std::fs::write(&t, "BZh is not bzip2\n").unwrap();
        assert!(read(&t).is_ok());
    }
}

#[cfg(test)]
mod ansi_tests {
    use super::blank_ansi;

    /// Colours become spaces of the same length; a lone ESC or an
    /// unfinished sequence stays; text without ESC is untouched.
    #[test]
    fn ansi_sequences_become_spaces() {
        let t = "2026-11-30T21:08:51.361Z \x1b[32m[STDIN]\x1b[0m {\"id\":1}\n\x1b[1;34mx\x1b";
        let b = blank_ansi(t.to_string());
        assert_eq!(
            b,
            "2026-11-30T21:08:51.361Z      [STDIN]     {\"id\":1}\n       x\x1b"
        );
        assert_eq!(b.len(), t.len());
        assert_eq!(blank_ansi("plain".into()), "plain");
    }
}

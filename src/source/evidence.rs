//! Byte ranges of an input re-read for a report's evidence excerpts.

use std::path::Path;

use super::SourceError;
use super::chunks::TextChunks;

/// One evidence excerpt re-read from an input (see [`evidence`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// The text of the range, at most the requested maximum (cut at a
    /// character boundary).
    pub text: String,
    /// Length of the whole range in bytes.
    pub len: u64,
    /// The range was longer than the maximum and `text` is its beginning.
    pub cut: bool,
}

/// Re-reads `path` (decompressing as [`read`] does) and returns the text of
/// each `(offset, len)` byte range of its decoded text (the ranges of
/// `Finding::evidence`), each cut to at most `max` bytes; `None` for a
/// range that no longer lies in the file (it changed since the run read it).
///
/// `exact`: the decoded text is the file's bytes after a UTF-8 byte-order
/// mark (`InputInfo::exact_offsets`: not compressed, no invalid UTF-8), so
/// each range is read where it lies and the rest of the file is not read
/// (issue 13: re-reading a 1 GB log for a few megabytes of excerpts was a
/// fifth of the outputs' time). Otherwise the file is read as a stream
/// ([`TextChunks`]): memory holds one chunk and the excerpts, never the file.
///
/// [`read`]: fn@super::read
pub fn evidence(
    path: &Path,
    ranges: &[(u64, u32)],
    max: usize,
    exact: bool,
) -> Result<Vec<Option<Excerpt>>, SourceError> {
    // Per range: the bytes [start, want) — the excerpt and the byte after
    // it, to tell whether it ends at a character boundary.
    let want: Vec<(u64, u64)> = ranges
        .iter()
        .map(|&(off, len)| {
            let end = off.saturating_add(u64::from(len));
            (
                off,
                end.min(off.saturating_add(max as u64)).saturating_add(1),
            )
        })
        .collect();
    let (got, total) = if exact {
        read_ranges(path, &want)?
    } else {
        stream_ranges(path, &want, max)?
    };
    let boundary = |b: Option<&u8>| b.is_none_or(|b| (*b as i8) >= -0x40);
    Ok(ranges
        .iter()
        .zip(got)
        .map(|(&(off, len), bytes)| {
            let end = off.checked_add(u64::from(len))?;
            if end > total || !boundary(bytes.first()) && off < total {
                return None;
            }
            // `bytes` = text[off .. min(end, off + max) + 1], cut by the end.
            let limit = (end - off).min(max as u64) as usize;
            let mut stop = limit;
            while stop > 0 && !boundary(bytes.get(stop)) {
                stop -= 1;
            }
            let text = String::from_utf8_lossy(&bytes[..stop.min(bytes.len())]).into_owned();
            Some(Excerpt {
                text,
                len: u64::from(len),
                cut: (stop as u64) < end - off,
            })
        })
        .collect())
}

/// The bytes `[s, w)` of the decoded text for each `(s, w)` of `want`, read
/// as one stream, and the text's length.
fn stream_ranges(
    path: &Path,
    want: &[(u64, u64)],
    max: usize,
) -> Result<(Vec<Vec<u8>>, u64), SourceError> {
    let mut order: Vec<usize> = (0..want.len()).collect();
    order.sort_by_key(|&i| want[i].0);
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); want.len()];
    let mut src = TextChunks::open(path)?;
    let mut at = 0u64;
    let mut lo = 0usize;
    while let Some(chunk) = src.next_chunk()? {
        let (c0, c1) = (at, at + chunk.len() as u64);
        while lo < order.len() && want[order[lo]].0.saturating_add(max as u64 + 1) < c0 {
            lo += 1;
        }
        for &i in &order[lo..] {
            let (s, w) = want[i];
            if s >= c1 {
                break;
            }
            if w <= c0 {
                continue;
            }
            let from = (s.max(c0) - c0) as usize;
            let to = (w.min(c1) - c0) as usize;
            got[i].extend_from_slice(&chunk[from..to]);
        }
        at = c1;
    }
    Ok((got, at))
}

/// [`stream_ranges`] for a file whose text is its bytes after a UTF-8
/// byte-order mark: each range read where it lies (ranges in file order).
fn read_ranges(path: &Path, want: &[(u64, u64)]) -> Result<(Vec<Vec<u8>>, u64), SourceError> {
    use std::io::{Read, Seek, SeekFrom};
    let display = || path.display().to_string();
    let io = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::NotFound {
            SourceError::NotFound(display())
        } else {
            SourceError::Unreadable(display(), e)
        }
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut head = [0u8; 3];
    let n = file.read(&mut head).map_err(io)?;
    let bom = if head[..n] == b"\xEF\xBB\xBF"[..] {
        3
    } else {
        0
    };
    let total = len.saturating_sub(bom);
    let mut order: Vec<usize> = (0..want.len()).collect();
    order.sort_by_key(|&i| want[i].0);
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); want.len()];
    for i in order {
        let (s, w) = want[i];
        let w = w.min(total);
        if s >= w {
            continue;
        }
        file.seek(SeekFrom::Start(bom + s)).map_err(io)?;
        let buf = &mut got[i];
        (&mut file).take(w - s).read_to_end(buf).map_err(io)?;
    }
    Ok((got, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::TEXT_CHUNK;

    #[test]
    fn evidence_ranges_are_cut_at_char_boundaries() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("e.log");
        std::fs::write(&p, "\u{feff}abc\n{\"é\":1}\n").unwrap();
        let v = evidence(&p, &[(4, 9), (4, 3), (0, 3), (100, 2)], 3, false).unwrap();
        let exact = evidence(&p, &[(4, 9), (4, 3), (0, 3), (100, 2)], 3, true).unwrap();
        assert_eq!(exact, v, "read by range, the same excerpts");
        assert_eq!(
            v[0],
            Some(Excerpt {
                text: "{\"".into(),
                len: 9,
                cut: true
            })
        );
        assert_eq!(
            v[1],
            Some(Excerpt {
                text: "{\"".into(),
                len: 3,
                cut: true
            }),
            "é is not split"
        );
        assert_eq!(v[2].as_ref().map(|e| e.text.as_str()), Some("abc"));
        assert_eq!(v[3], None);
    }

    #[test]
    fn evidence_streams_across_chunks() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big.log");
        let mut text = "x".repeat(TEXT_CHUNK - 2);
        text.push_str("é€yz");
        text.push_str(&"w".repeat(100));
        std::fs::write(&p, format!("\u{feff}{text}")).unwrap();
        let ranges = [
            ((TEXT_CHUNK - 3) as u64, 8u32),
            ((TEXT_CHUNK - 2) as u64, 5),
            ((TEXT_CHUNK - 1) as u64, 2),
            (0, 3),
            (text.len() as u64 - 2, 2),
            (text.len() as u64 - 2, 3),
            (text.len() as u64, 0),
        ];
        let v = evidence(&p, &ranges, 4, false).unwrap();
        assert_eq!(evidence(&p, &ranges, 4, true).unwrap(), v);
        let want: Vec<Option<Excerpt>> = ranges
            .iter()
            .map(|&(off, len)| {
                let (start, end) = (off as usize, off as usize + len as usize);
                if end > text.len() || !text.is_char_boundary(start) {
                    return None;
                }
                let mut stop = end.min(start + 4);
                while !text.is_char_boundary(stop) {
                    stop -= 1;
                }
                Some(Excerpt {
                    text: text[start..stop].to_string(),
                    len: u64::from(len),
                    cut: stop < end,
                })
            })
            .collect();
        assert_eq!(v, want);
    }
}

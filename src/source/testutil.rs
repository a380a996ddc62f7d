//! Helpers shared by the unit tests of [`super`]'s files.

use std::io::Write;
use std::path::Path;

use super::{InputKind, InputSpec};

/// `data` gzip-compressed (one member).
pub(super) fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// `data` zstd-compressed (one frame).
pub(super) fn zst(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

/// The file name of each input (the client-to-server file of a pair, the
/// pattern of a glob error).
pub(super) fn names(v: &[InputSpec]) -> Vec<String> {
    v.iter()
        .map(|s| match &s.kind {
            InputKind::File(p) | InputKind::Pair { c2s: p, .. } => {
                p.file_name().unwrap().to_string_lossy().into_owned()
            }
            _ => s.display(),
        })
        .collect()
}

/// Creates the files `names` in `dir`, each holding `{}`.
pub(super) fn touch(dir: &Path, names: &[&str]) {
    for n in names {
        std::fs::write(dir.join(n), "{}\n").unwrap();
    }
}

/// Many lines, so that the compressed stream spans several blocks.
pub(super) fn log_text(lines: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..lines {
        s.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\",\"params\":{{\"n\":{}}}}}\n",
            i * 7919 % 10007
        ));
    }
    s.into_bytes()
}

//! Source: all input I/O. Expands paths (directories, globs), reads files,
//! decompresses `.gz` / `.zst`, decodes text, finds the partner of a
//! per-direction file (FORMATS.md §8.3.8), and orders the rotated files of
//! one log oldest first. Parsers never open files; they get the text read
//! here.
//!
//! # Expansion rules ([`expand`])
//! - An argument that exists is used as it is: a directory is walked
//!   (sorted, recursively, `*.expected.json` and `*.md` skipped, symlinked
//!   directories followed once: a loop is cut by the set of canonical paths
//!   already walked).
//! - An argument that does not exist and holds `*`, `?` or `[` is a glob
//!   (shell rules: `*` stays inside one path component, `**` crosses
//!   directories, a leading `.` must be matched literally); its matches are
//!   sorted, directories among them walked, and `*.expected.json` / `*.md`
//!   files skipped as in a directory. A glob that matches nothing, or is
//!   malformed, becomes an input whose loading is one error line naming the
//!   pattern ([`InputKind::NoMatch`], [`InputKind::BadPattern`]).
//! - Anything else is kept as a file so that reading it reports the error.
//! - `X.client-to-server.jsonl` and `X.server-to-client.jsonl` (each may be
//!   compressed and/or rotated) become one [`InputKind::Pair`].
//! - Rotated files of one log ([`Rotation`]) are placed next to each other,
//!   oldest first, at the place of the first one met.
//!
//! # Compressed files ([`read`])
//! gzip (`1f 8b`, several members allowed) and zstd (`28 b5 2f fd`, several
//! frames and skippable frames allowed) are recognised by their magic bytes,
//! whatever the name. Output is bounded by [`decompressed_limit`]. A corrupt
//! or truncated stream keeps the whole lines decoded before the damage: they
//! are analysed, and [`SourceFile::damage`] says what was lost (the run then
//! exits 2, as for any incomplete input). All byte offsets of a compressed
//! input (provenance, UTF-8 and NUL positions) are offsets in its
//! decompressed text; [`SourceFile::bytes`] stays the size on disk.
//!
//! # Layout
//! - [`expand`] (`expand.rs`): arguments → inputs; globs in
//!   `pattern.rs`, per-direction pairs in `pairs.rs`, rotation groups in
//!   `rotation.rs`.
//! - [`read`], [`head`], [`decode`] (`read.rs`): opening and
//!   reading one file, the checks that refuse it before reading.
//! - [`decompress`] (`decompress.rs`): gzip / zstd by magic
//!   bytes, bounded, with salvage of damaged streams.
//! - [`BlockReader`] (`blocks.rs`): a line log in blocks of whole lines.
//! - [`TextChunks`] (`chunks.rs`): a file's decoded text in chunks.
//! - [`evidence`] (`evidence.rs`): re-reading byte ranges for a
//!   report's evidence excerpts.
//!
//! [`expand`]: fn@expand
//! [`read`]: fn@read
//! [`decompress`]: fn@decompress
//! [`evidence`]: fn@evidence

use std::path::{Path, PathBuf};

mod blocks;
mod chunks;
mod decompress;
mod evidence;
mod expand;
mod pairs;
mod pattern;
mod read;
mod rotation;
#[cfg(test)]
mod testutil;

pub use blocks::{Block, BlockReader};
pub use chunks::{TEXT_CHUNK, TextChunks};
pub use decompress::{
    Compression, MAX_DECOMPRESSED_LIMIT, MAX_RATIO, MIN_DECOMPRESSED_LIMIT, Salvage, StreamError,
    decompress, decompressed_limit,
};
pub use evidence::{Excerpt, evidence};
pub use expand::{Skipped, expand, expand_excluding, expand_reporting};
pub use read::{blank_ansi, decode, head, read, read_stdin};

/// Why an input cannot be read at all (the run goes on with the others).
#[derive(Debug)]
pub enum SourceError {
    /// The path does not exist.
    NotFound(String),
    /// The OS refused to read it.
    Unreadable(String, std::io::Error),
    /// Zero bytes.
    Empty(String),
    /// Only whitespace.
    Blank(String, u64),
    /// A FIFO, device or socket: not a capture file that can be read to its end.
    NotRegular(String, &'static str),
    /// UTF-16 text (a byte-order mark `FF FE` or `FE FF`).
    Utf16(String),
    /// A compressed or archived file of a kind that is not read (xz,
    /// bzip2, zip, 7z, lz4, recognised by their magic bytes).
    UnsupportedCompression(String, &'static str),
    /// A NUL byte: not a text capture.
    Binary(String, u64),
    /// A NUL byte in the decompressed text of a `.gz` / `.zst` file.
    BinaryDecompressed(String, u64),
    /// A glob that matched no input.
    NoMatch(String),
    /// A folder argument with no file in it (and nothing left out).
    EmptyFolder(String),
    /// A glob that cannot be parsed.
    BadPattern(String, String),
    /// A compressed file that yields nothing usable.
    Stream(StreamError),
}

impl SourceError {
    /// The display name of the input it is about.
    pub fn file(&self) -> &str {
        use SourceError::*;
        match self {
            NotFound(f) | Unreadable(f, _) | Empty(f) | Blank(f, _) | NotRegular(f, _) => f,
            Utf16(f) | UnsupportedCompression(f, _) | Binary(f, _) => f,
            BinaryDecompressed(f, _) | NoMatch(f) | EmptyFolder(f) | BadPattern(f, _) => f,
            Stream(e) => e.file(),
        }
    }

    /// What is wrong, without the input's name.
    pub fn detail(&self) -> String {
        use SourceError::*;
        match self {
            NotFound(_) => "no such file or directory".to_string(),
            Unreadable(_, e) => format!("cannot read: {e}"),
            Empty(_) => "empty file, nothing to analyse".to_string(),
            Blank(_, n) => format!("holds only whitespace ({n} bytes), nothing to analyse"),
            NotRegular(_, "a FIFO") => "not a regular file (a FIFO: a pipe, as `<(cmd)` gives, may never end); give a capture file, or pipe the data to `-` (`cmd | mcp-audit analyze -`)".to_string(),
            NotRegular(_, kind) => format!("not a regular file ({kind}); give a capture file"),
            Utf16(_) => {
                "UTF-16 text (byte-order mark at byte offset 0); re-save it as UTF-8".to_string()
            }
            UnsupportedCompression(_, kind) => format!(
                "unsupported compression ({kind}); decompress it first, or recompress it with gzip or zstd"
            ),
            Binary(_, at) => {
                format!("binary file (NUL byte at byte offset {at}), not a text capture")
            }
            BinaryDecompressed(_, at) => format!(
                "binary content (NUL byte at byte offset {at} of the decompressed text), not a text capture"
            ),
            NoMatch(_) => "no file matches this pattern".to_string(),
            EmptyFolder(_) => "a folder with no file in it, nothing to analyse".to_string(),
            BadPattern(_, reason) => format!("not a valid glob pattern: {reason}"),
            Stream(e) => e.detail(),
        }
    }
}

/// `FILE: DETAIL`.
impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file(), self.detail())
    }
}

impl std::error::Error for SourceError {}

impl From<StreamError> for SourceError {
    fn from(e: StreamError) -> Self {
        SourceError::Stream(e)
    }
}

/// The problem as a typed diagnostic, named after its input. Fatal: the
/// input cannot be read (or only in part).
impl From<&SourceError> for crate::diag::Diagnostic {
    fn from(e: &SourceError) -> Self {
        crate::diag::Diagnostic::whole(e.detail())
            .named(e.file())
            .fatal()
    }
}

/// One readable input file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user gave it (or as found in a directory).
    pub path: PathBuf,
    /// Display name used in every output (the user's path, also for a
    /// compressed file).
    pub display: String,
    /// Decoded text: UTF-8, one leading BOM removed, invalid bytes replaced
    /// by U+FFFD. For a compressed file, the decompressed text.
    pub text: String,
    /// Size on disk, bytes (compressed size for a compressed file).
    pub bytes: u64,
    /// Recoverable decoding problems (invalid UTF-8 at byte N), named
    /// after the file.
    pub warnings: Vec<crate::diag::Diagnostic>,
    /// The compression found by magic bytes, if any.
    pub compression: Option<Compression>,
    /// A damaged compressed stream whose whole lines before the damage are
    /// in `text`: the input is incomplete (the CLI reports this line and
    /// exits 2), but what it holds is still analysed.
    pub damage: Option<StreamError>,
}

/// One thing to analyse, with its place in a rotation group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// What to read.
    pub kind: InputKind,
    /// Set when this input is one of several rotated files of one log that
    /// were given together; the members of a group are consecutive in
    /// [`expand`]'s output, oldest first.
    ///
    /// [`expand`]: fn@expand
    pub rotation: Option<Rotation>,
}

/// What an [`InputSpec`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// A single capture file (maybe compressed).
    File(PathBuf),
    /// `NAME.client-to-server.jsonl` + `NAME.server-to-client.jsonl`
    /// (either may be absent on disk, compressed, or rotated with the same
    /// rotation suffix).
    Pair {
        /// The pair's name (NAME).
        name: String,
        /// The client-to-server half.
        c2s: PathBuf,
        /// The server-to-client half.
        s2c: PathBuf,
    },
    /// `-`: the standard input, read whole (decompressed by magic bytes
    /// like a file), shown as `<stdin>`.
    Stdin,
    /// A glob that matched no file (loading it is one fatal error line).
    NoMatch(String),
    /// A folder argument that holds no file (one fatal error line).
    EmptyFolder(String),
    /// A glob that cannot be parsed (loading it is one fatal error line).
    BadPattern {
        /// The argument as given.
        pattern: String,
        /// Why it is not a pattern.
        reason: String,
    },
}

/// How the standard input (the argument `-`) is named in every output.
pub const STDIN: &str = "<stdin>";

/// The place of an input among the rotated files of one log
/// (`NAME`, `NAME.1`, `NAME.2.gz`, `NAME-20250101`, …).
///
/// Order, oldest first: `NAME-YYYYMMDD[HH[MM[SS]]]` by date, then `NAME.N`
/// from the highest N down (logrotate: higher is older), then `NAME`. A
/// `.gz` / `.zst` extension is ignored for this. A group needs at least two
/// inputs with the same directory and NAME, one of them with a rotation
/// suffix. A per-direction pair rotates as a whole (`X.client-to-server.jsonl.1`
/// with `X.server-to-client.jsonl.1`).
///
/// A later stage that joins sessions across files uses `group` as the key:
/// inputs with the same `group` are one log, cut into `len` pieces, and
/// `index` 0 is the oldest. Each keeps its own line numbers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rotation {
    /// The current (newest) file's path without rotation or compression
    /// suffix, e.g. `logs/app.log` (for a pair: its client-to-server path).
    pub group: String,
    /// 0 for the oldest member.
    pub index: usize,
    /// Members in the group.
    pub len: usize,
}

impl InputSpec {
    /// Where the log this input belongs to goes on in a file the run was
    /// not given: `Some(path)` of the newest file given when that file is a
    /// rotated one (`app.log.1` alone, or `app.log.2.gz` + `app.log.1`
    /// without `app.log`), for the input that opens its group (a lone file,
    /// or its group's oldest member); `None` otherwise. The log's end is
    /// then missing (`end_missing`, DESIGN.md rule 12). `group` is the
    /// whole list of inputs, this one at `at`.
    pub fn ends_by_rotation(group: &[InputSpec], at: usize) -> Option<&Path> {
        let spec = group.get(at)?;
        let newest = match &spec.rotation {
            Some(r) if r.index == 0 => group.get(at + r.len - 1)?,
            Some(_) => return None,
            None => spec,
        };
        let InputKind::File(path) = &newest.kind else {
            return None;
        };
        let name = path.file_name()?.to_string_lossy();
        rotation::is_rotated_name(&name).then_some(path.as_path())
    }

    /// A plain single-file input (no rotation group).
    pub fn file(path: impl Into<PathBuf>) -> Self {
        InputSpec {
            kind: InputKind::File(path.into()),
            rotation: None,
        }
    }

    /// The name used in outputs: the file, the pair's client-to-server
    /// file, or the pattern.
    pub fn display(&self) -> String {
        match &self.kind {
            InputKind::File(p) => p.display().to_string(),
            InputKind::Pair { c2s, .. } => c2s.display().to_string(),
            InputKind::Stdin => STDIN.to_string(),
            InputKind::NoMatch(p)
            | InputKind::EmptyFolder(p)
            | InputKind::BadPattern { pattern: p, .. } => p.clone(),
        }
    }

    /// The error of an input that names nothing to read (a glob that
    /// matched nothing or is malformed); `None` for files and pairs.
    pub fn error(&self) -> Option<SourceError> {
        match &self.kind {
            InputKind::NoMatch(p) => Some(SourceError::NoMatch(p.clone())),
            InputKind::EmptyFolder(p) => Some(SourceError::EmptyFolder(p.clone())),
            InputKind::BadPattern { pattern, reason } => {
                Some(SourceError::BadPattern(pattern.clone(), reason.clone()))
            }
            _ => None,
        }
    }
}

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

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Why an input cannot be read at all (the run goes on with the others).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The path does not exist.
    #[error("{0}: no such file or directory")]
    NotFound(String),
    /// The OS refused to read it.
    #[error("{0}: cannot read: {1}")]
    Unreadable(String, std::io::Error),
    /// Zero bytes.
    #[error("{0}: empty file, nothing to analyse")]
    Empty(String),
    /// Only whitespace.
    #[error("{0}: holds only whitespace ({1} bytes), nothing to analyse")]
    Blank(String, u64),
    /// A FIFO, device or socket: not a capture file that can be read to its end.
    #[error("{0}: not a regular file ({1}); give a capture file")]
    NotRegular(String, &'static str),
    /// UTF-16 text (a byte-order mark `FF FE` or `FE FF`).
    #[error("{0}: UTF-16 text (byte-order mark at byte offset 0); re-save it as UTF-8")]
    Utf16(String),
    /// A NUL byte: not a text capture.
    #[error("{0}: binary file (NUL byte at byte offset {1}), not a text capture")]
    Binary(String, u64),
    /// A NUL byte in the decompressed text of a `.gz` / `.zst` file.
    #[error(
        "{0}: binary content (NUL byte at byte offset {1} of the decompressed text), not a text capture"
    )]
    BinaryDecompressed(String, u64),
    /// A glob that matched no input.
    #[error("{0}: no file matches this pattern")]
    NoMatch(String),
    /// A glob that cannot be parsed.
    #[error("{0}: not a valid glob pattern: {1}")]
    BadPattern(String, String),
    /// A compressed file that yields nothing usable.
    #[error(transparent)]
    Stream(#[from] StreamError),
}

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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The stream is damaged at `offset` (bytes into the compressed file).
    #[error(
        "{file}: corrupt {format} stream at compressed byte offset {offset} of {size} ({detail}); {salvage}"
    )]
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
    #[error(
        "{file}: truncated {format} stream: the file ends at byte offset {size} inside the stream; {salvage}"
    )]
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
    #[error(
        "{file}: {format} stream decompresses to more than {limit} bytes (limit: {MAX_RATIO}× the {size}-byte file, at least 64 MiB, at most 8 GiB), stopped at compressed byte offset {offset}; not analysed (decompression bomb?)"
    )]
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
    /// Recoverable decoding problems (invalid UTF-8 at byte N).
    pub warnings: Vec<String>,
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
    /// A glob that matched no file (loading it is one fatal error line).
    NoMatch(String),
    /// A glob that cannot be parsed (loading it is one fatal error line).
    BadPattern {
        /// The argument as given.
        pattern: String,
        /// Why it is not a pattern.
        reason: String,
    },
}

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
            InputKind::NoMatch(p) | InputKind::BadPattern { pattern: p, .. } => p.clone(),
        }
    }

    /// The error of an input that names nothing to read (a glob that
    /// matched nothing or is malformed); `None` for files and pairs.
    pub fn error(&self) -> Option<SourceError> {
        match &self.kind {
            InputKind::NoMatch(p) => Some(SourceError::NoMatch(p.clone())),
            InputKind::BadPattern { pattern, reason } => {
                Some(SourceError::BadPattern(pattern.clone(), reason.clone()))
            }
            _ => None,
        }
    }
}

const C2S_SUFFIX: &str = ".client-to-server.jsonl";
const S2C_SUFFIX: &str = ".server-to-client.jsonl";
const COMPRESSED_EXTS: [&str; 2] = [".gz", ".zst"];
/// Directory levels walked below an argument.
const MAX_DEPTH: usize = 32;

/// Turns the command-line paths into inputs (see the module doc for the
/// rules): directories walked, globs expanded, pairs joined, rotated files
/// ordered oldest first and grouped. Never fails: what cannot be used
/// becomes an input whose loading reports why.
pub fn expand(paths: &[PathBuf]) -> Vec<InputSpec> {
    expand_excluding(paths, &[])
}

/// [`expand`], leaving out every file a folder walk or glob finds under one
/// of the folders `skip` (the run's own `--out` and `--shard-dir`, so that
/// a second run over a folder holding its outputs does not read them as
/// captures; a file named on the command line is still read), and reading
/// each file once however it is named (`a.log`, `./a.log`, a symlink to
/// it: the same canonical path).
pub fn expand_excluding(paths: &[PathBuf], skip: &[PathBuf]) -> Vec<InputSpec> {
    let skip: Vec<PathBuf> = skip
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
    // A file named on the command line is read even there.
    let named: HashSet<PathBuf> = paths
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let mut items = collect_items(paths);
    let mut seen = HashSet::new();
    items.retain(|it| match it {
        Item::File(p) => match std::fs::canonicalize(p) {
            Ok(c) => {
                (named.contains(&c) || !skip.iter().any(|d| c.starts_with(d))) && seen.insert(c)
            }
            Err(_) => true,
        },
        Item::Bad(_) => true,
    });
    group_rotations(join_pairs(items))
}

fn collect_items(paths: &[PathBuf]) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    for p in paths {
        let s = p.to_string_lossy();
        if p.is_dir() {
            walk(p, &mut items);
        } else if !p.exists() && s.contains(['*', '?', '[']) {
            match glob_paths(&s) {
                Ok(found) => {
                    let before = items.len();
                    for f in found {
                        if f.is_dir() {
                            walk(&f, &mut items);
                        } else if !skipped(&f) {
                            items.push(Item::File(f));
                        }
                    }
                    if items.len() == before {
                        items.push(Item::Bad(InputKind::NoMatch(s.into_owned())));
                    }
                }
                Err(reason) => items.push(Item::Bad(InputKind::BadPattern {
                    pattern: s.into_owned(),
                    reason,
                })),
            }
        } else {
            items.push(Item::File(p.clone()));
        }
    }
    items
}

enum Item {
    File(PathBuf),
    Bad(InputKind),
}

/// Files a directory walk (or a glob) leaves out: expected results and docs.
fn skipped(p: &Path) -> bool {
    let s = p.to_string_lossy();
    s.ends_with(".expected.json") || s.ends_with(".md")
}

/// Walks `dir` (sorted, recursive); a directory already walked (same
/// canonical path, e.g. through a symlink loop) is not walked again.
fn walk(dir: &Path, out: &mut Vec<Item>) {
    let mut seen = HashSet::new();
    walk_in(dir, out, 0, &mut seen);
}

fn walk_in(dir: &Path, out: &mut Vec<Item>, depth: usize, seen: &mut HashSet<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Ok(c) = std::fs::canonicalize(dir)
        && !seen.insert(c)
    {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        out.push(Item::File(dir.to_path_buf()));
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk_in(&p, out, depth + 1, seen);
        } else if !skipped(&p) {
            out.push(Item::File(p));
        }
    }
}

/// Expands a glob, one path component at a time (so that a pattern reads
/// only the directories it names), following symlinks but never into a
/// directory already visited. Results are sorted and deduplicated.
fn glob_paths(pattern: &str) -> Result<Vec<PathBuf>, String> {
    glob::Pattern::new(pattern).map_err(|e| e.to_string())?;
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    let mut current: Vec<PathBuf> = vec![PathBuf::new()];
    let comps: Vec<Component<'_>> = Path::new(pattern).components().collect();
    for (i, comp) in comps.iter().enumerate() {
        let last = i + 1 == comps.len();
        let Component::Normal(name) = comp else {
            current = current
                .into_iter()
                .map(|p| p.join(comp.as_os_str()))
                .collect();
            continue;
        };
        let name = name.to_string_lossy();
        let mut next = Vec::new();
        if name == "**" {
            // Zero or more directories.
            let mut seen = HashSet::new();
            for base in &current {
                dirs_below(base, 0, &mut seen, &mut next);
            }
        } else if name.contains(['*', '?', '[']) {
            let pat = glob::Pattern::new(&name).map_err(|e| e.to_string())?;
            for base in &current {
                let dir = if base.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    base.as_path()
                };
                let Ok(rd) = std::fs::read_dir(dir) else {
                    continue;
                };
                let mut found: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok())
                    .filter(|e| pat.matches_with(&e.file_name().to_string_lossy(), opts))
                    .map(|e| base.join(e.file_name()))
                    .filter(|p| last || p.is_dir())
                    .collect();
                found.sort();
                next.extend(found);
            }
        } else {
            next = current
                .iter()
                .map(|p| p.join(&*name))
                .filter(|p| if last { p.exists() } else { p.is_dir() })
                .collect();
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    current.sort();
    current.dedup();
    // A pattern of only `**` / literal parts can leave the empty path.
    current.retain(|p| !p.as_os_str().is_empty());
    Ok(current)
}

/// `base` and every directory below it (not hidden, loop-safe), in sorted
/// order.
fn dirs_below(base: &Path, depth: usize, seen: &mut HashSet<PathBuf>, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let dir = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    if let Ok(c) = std::fs::canonicalize(dir)
        && !seen.insert(c)
    {
        return;
    }
    out.push(base.to_path_buf());
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subs: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| base.join(e.file_name()))
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    for s in subs {
        dirs_below(&s, depth + 1, seen, out);
    }
}

/// A file name split into NAME, rotation suffix and compression extension:
/// `app.log.2.gz` → (`app.log`, `.2`, `.gz`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct NameParts {
    stem: String,
    rotation: String,
    compression: String,
    age: Age,
}

/// Where a file stands in its rotation; `Ord` is oldest first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Age {
    /// `NAME-YYYYMMDD…`: the digits, padded to 14 so they compare as times.
    Dated(String),
    /// `NAME.N`: `Reverse` so that a higher N sorts first (older).
    Numbered(std::cmp::Reverse<u64>),
    /// `NAME`: the file being written.
    Current,
}

fn split_name(name: &str) -> NameParts {
    let (rest, compression) = COMPRESSED_EXTS
        .iter()
        .find_map(|ext| {
            name.strip_suffix(ext)
                .filter(|r| !r.is_empty())
                .map(|r| (r, *ext))
        })
        .unwrap_or((name, ""));
    let numbered = rest.rsplit_once('.').and_then(|(stem, n)| {
        let ok =
            !stem.is_empty() && (1..=6).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit());
        let v: u64 = if ok { n.parse().ok()? } else { return None };
        Some((stem, Age::Numbered(std::cmp::Reverse(v))))
    });
    let dated = || {
        rest.rsplit_once('-').and_then(|(stem, d)| {
            let ok = !stem.is_empty()
                && (8..=14).contains(&d.len())
                && d.len() % 2 == 0
                && d.bytes().all(|b| b.is_ascii_digit())
                && matches!(
                    &d[4..6],
                    "01" | "02"
                        | "03"
                        | "04"
                        | "05"
                        | "06"
                        | "07"
                        | "08"
                        | "09"
                        | "10"
                        | "11"
                        | "12"
                )
                && (1..=31).contains(&d[6..8].parse::<u32>().unwrap_or(0));
            ok.then(|| (stem, Age::Dated(format!("{d:0<14}"))))
        })
    };
    match numbered.or_else(dated) {
        Some((stem, age)) => NameParts {
            stem: stem.to_string(),
            rotation: rest[stem.len()..].to_string(),
            compression: compression.to_string(),
            age,
        },
        None => NameParts {
            stem: rest.to_string(),
            rotation: String::new(),
            compression: compression.to_string(),
            age: Age::Current,
        },
    }
}

/// Joins the halves of per-direction pairs (one input at the place of the
/// first half met) and drops duplicates.
fn join_pairs(items: Vec<Item>) -> Vec<InputSpec> {
    let mut out: Vec<InputSpec> = Vec::new();
    // (dir, NAME, rotation suffix) → index in `out`.
    let mut pairs: HashMap<(PathBuf, String, String), usize> = HashMap::new();
    let mut files: HashSet<PathBuf> = HashSet::new();
    for item in items {
        let f = match item {
            Item::Bad(kind) => {
                let spec = InputSpec {
                    kind,
                    rotation: None,
                };
                if !out.contains(&spec) {
                    out.push(spec);
                }
                continue;
            }
            Item::File(f) => f,
        };
        let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
        let parts = f.file_name().map(|n| split_name(&n.to_string_lossy()));
        let half = parts.as_ref().and_then(|p| {
            p.stem
                .strip_suffix(C2S_SUFFIX)
                .map(|b| (b, true))
                .or_else(|| p.stem.strip_suffix(S2C_SUFFIX).map(|b| (b, false)))
        });
        let (Some(parts), Some((base, is_c2s))) = (&parts, half) else {
            if files.insert(f.clone()) {
                out.push(InputSpec::file(f));
            }
            continue;
        };
        let key = (dir.clone(), base.to_string(), parts.rotation.clone());
        let partner_name = |c2s: bool| {
            format!(
                "{base}{}{}",
                if c2s { C2S_SUFFIX } else { S2C_SUFFIX },
                parts.rotation
            )
        };
        match pairs.get(&key) {
            Some(&i) => {
                // The other half (or the same one again): take its real path.
                // A second, different file of a half already taken (`X.c2s.jsonl`
                // beside `X.c2s.jsonl.gz`) is read as an input of its own:
                // never dropped.
                let mut taken = false;
                if let InputKind::Pair { c2s, s2c, .. } = &mut out[i].kind {
                    let slot = if is_c2s { c2s } else { s2c };
                    if *slot != f && slot.is_file() {
                        taken = true;
                    } else {
                        *slot = f.clone();
                    }
                }
                if taken && files.insert(f.clone()) {
                    out.push(InputSpec::file(f));
                }
            }
            None => {
                let partner = find_partner(&dir, &partner_name(!is_c2s), &parts.compression);
                let (c2s, s2c) = if is_c2s {
                    (f.clone(), partner)
                } else {
                    (partner, f.clone())
                };
                pairs.insert(key, out.len());
                out.push(InputSpec {
                    kind: InputKind::Pair {
                        name: base.to_string(),
                        c2s,
                        s2c,
                    },
                    rotation: None,
                });
            }
        }
    }
    out
}

/// The partner half on disk: same compression first, then plain, `.gz`,
/// `.zst`; if none exists, the same compression (reading reports it absent).
fn find_partner(dir: &Path, name: &str, compression: &str) -> PathBuf {
    let candidates = [compression, "", ".gz", ".zst"];
    candidates
        .iter()
        .map(|ext| dir.join(format!("{name}{ext}")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| dir.join(format!("{name}{compression}")))
}

/// The rotation key and age of an input (None for errors and for names
/// that cannot rotate).
fn rotation_key(spec: &InputSpec) -> Option<(String, Age)> {
    let path = match &spec.kind {
        InputKind::File(p) | InputKind::Pair { c2s: p, .. } => p,
        _ => return None,
    };
    let parts = split_name(&path.file_name()?.to_string_lossy());
    let dir = path.parent().unwrap_or(Path::new(""));
    Some((dir.join(&parts.stem).display().to_string(), parts.age))
}

/// Puts the members of each rotation group next to each other, oldest
/// first, at the place of the first member, and marks them.
fn group_rotations(specs: Vec<InputSpec>) -> Vec<InputSpec> {
    let keys: Vec<Option<(String, Age)>> = specs.iter().map(rotation_key).collect();
    let mut members: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some((g, _)) = k {
            members.entry(g.as_str()).or_default().push(i);
        }
    }
    members.retain(|_, v| {
        v.len() >= 2
            && v.iter()
                .any(|&i| keys[i].as_ref().is_some_and(|(_, a)| *a != Age::Current))
    });
    let mut slots: Vec<Option<InputSpec>> = specs.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        let Some((g, _)) = &keys[i] else {
            out.extend(slots[i].take());
            continue;
        };
        let Some(group) = members.get(g.as_str()) else {
            out.extend(slots[i].take());
            continue;
        };
        if slots[i].is_none() {
            continue; // already placed with its group
        }
        let mut order = group.clone();
        order.sort_by(|&a, &b| {
            let (ka, kb) = (
                &keys[a].as_ref().expect("member has a key").1,
                &keys[b].as_ref().expect("member has a key").1,
            );
            ka.cmp(kb).then(a.cmp(&b))
        });
        let len = order.len();
        for (index, m) in order.into_iter().enumerate() {
            if let Some(mut s) = slots[m].take() {
                s.rotation = Some(Rotation {
                    group: g.clone(),
                    index,
                    len,
                });
                out.push(s);
            }
        }
    }
    out
}

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
    let Some(format) = Compression::sniff(&bytes) else {
        return decode(display, path.to_path_buf(), bytes);
    };
    let size = bytes.len() as u64;
    let (text, damage) = decompress(&display, format, &bytes, decompressed_limit(size))?;
    drop(bytes);
    let mut f = decode_text(display, path.to_path_buf(), text, size, true)?;
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
fn check_regular(path: &Path, display: &str) -> Result<(), SourceError> {
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
fn check_head(path: &Path, display: &str) -> Result<(), SourceError> {
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
    if Compression::sniff(head).is_none() {
        if let Some(i) = memchr::memchr(0, head) {
            return Err(SourceError::Binary(display.into(), i as u64));
        }
    }
    Ok(())
}

/// One block of a line log read by [`BlockReader`]: whole lines only.
#[derive(Debug, Clone)]
pub struct Block {
    /// The text (UTF-8; invalid bytes read as U+FFFD), ending at a line end
    /// unless it is the end of the file.
    pub text: String,
    /// 1-based number of its first line in the file.
    pub first_line: u64,
    /// Byte offset of its first byte in the file.
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
    next_offset: u64,
    eof: bool,
    /// Buffers of blocks handed back by [`BlockReader::recycle`]: reused so
    /// that a long file does not cost a fresh allocation (and its page
    /// faults) per block.
    pool: Vec<Vec<u8>>,
    /// Size on disk, bytes.
    pub bytes: u64,
    /// Recoverable decoding problems (invalid UTF-8 at byte N).
    pub warnings: Vec<String>,
}

/// Appends up to `want` bytes of `file` to `buf` (fewer only at the end of
/// the file), into `buf`'s spare capacity: nothing is zeroed first.
fn read_more(
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

impl BlockReader {
    /// Opens a plain file for block reading; `None` when it is compressed
    /// (read those whole with [`read`], bounded by [`decompressed_limit`]).
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
        let mut next_offset = 0;
        if carry.starts_with(b"\xEF\xBB\xBF") {
            carry.drain(..3);
            next_offset = 3;
        }
        Ok(Some(BlockReader {
            file: Box::new(file),
            display,
            carry,
            next_line: 1,
            next_offset,
            eof: false,
            pool: Vec::new(),
            bytes,
            warnings: Vec::new(),
        }))
    }

    /// Reads text already decoded (a decompressed file, see [`read`]) block
    /// by block, as [`BlockReader::open`] reads a plain file: the records
    /// are not all held, only the text. `bytes` is the size on disk. The
    /// decoding problems [`read`] found are the caller's to report.
    pub fn from_text(display: &str, text: String, bytes: u64) -> Self {
        BlockReader {
            file: Box::new(std::io::Cursor::new(text.into_bytes())),
            display: display.to_string(),
            carry: Vec::new(),
            next_line: 1,
            next_offset: 0,
            eof: false,
            pool: Vec::new(),
            bytes,
            warnings: Vec::new(),
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
            // The last line end after which a record may start.
            let mut end = buf.len();
            let mut found = None;
            while let Some(i) = memchr::memrchr(b'\n', &buf[..end]) {
                let next = &buf[i + 1..];
                let line_end = memchr::memchr(b'\n', next).unwrap_or(next.len());
                // A line is judged only when it is whole (or the file ends).
                if i + 1 + line_end < buf.len() && safe(&next[..line_end]) {
                    found = Some(i + 1);
                    break;
                }
                end = i;
            }
            match found {
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
        let offset = self.next_offset;
        if let Some(i) = memchr::memchr(0, &buf) {
            return Err(SourceError::Binary(self.display.clone(), offset + i as u64));
        }
        let lines = memchr::memchr_iter(b'\n', &buf).count() as u64;
        let first_line = self.next_line;
        self.next_line += lines;
        self.next_offset += buf.len() as u64;
        let text = match String::from_utf8(buf) {
            Ok(s) => s,
            Err(e) => {
                if self.warnings.is_empty() {
                    self.warnings.push(format!(
                        "invalid UTF-8 at byte offset {}; such bytes are read as U+FFFD",
                        offset + e.utf8_error().valid_up_to() as u64
                    ));
                }
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        Ok(Some(Block {
            text,
            first_line,
            offset,
        }))
    }
}

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
pub struct TextChunks {
    display: String,
    src: ChunkSource,
    /// Size on disk, bytes (compressed size for a compressed file).
    pub bytes: u64,
    /// Recoverable decoding problems (invalid UTF-8 at byte N).
    pub warnings: Vec<String>,
    /// The compression found by magic bytes, if any.
    pub compression: Option<Compression>,
    /// A damaged compressed stream (see [`SourceFile::damage`]).
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
                    self.warnings.push(format!(
                        "invalid UTF-8 at byte offset {}; such bytes are read as U+FFFD",
                        self.raw_at + e.valid_up_to() as u64
                    ));
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

/// Decodes bytes read from `path` (BOM, NUL check, UTF-8).
pub fn decode(display: String, path: PathBuf, bytes: Vec<u8>) -> Result<SourceFile, SourceError> {
    let size = bytes.len() as u64;
    decode_text(display, path, bytes, size, false)
}

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
            warnings.push(format!(
                "invalid UTF-8 at byte offset {}{}; such bytes are read as U+FFFD",
                e.utf8_error().valid_up_to(),
                if decompressed {
                    " of the decompressed text"
                } else {
                    ""
                }
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    if bom {
        text.drain(..3);
    }
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
    // Keeps the whole lines of `out[..trusted]`.
    let salvage = |out: &mut Vec<u8>, trusted: usize| {
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
    };
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
            let salvage = salvage(&mut out, verified);
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
            let salvage = salvage(&mut out, all);
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
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    let mut input: &[u8] = data;
    let mut dec = FrameDecoder::new();
    let mut out = Vec::new();
    let at = |input: &[u8]| (data.len() - input.len()) as u64;
    while !input.is_empty() {
        let frame_start = input;
        let verified = out.len();
        match dec.init(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                match input.get(length as usize..) {
                    Some(rest) => input = rest,
                    None => return (out, Some(Stop::Truncated)),
                }
                continue;
            }
            Err(_) if input.is_empty() => return (out, Some(Stop::Truncated)),
            // The offset of the frame whose header is bad.
            Err(e) => {
                return (
                    out,
                    Some(Stop::Corrupt {
                        offset: at(frame_start),
                        detail: e.to_string(),
                        verified,
                    }),
                );
            }
        }
        loop {
            if let Err(e) = dec.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(1 << 20))
            {
                if input.is_empty() {
                    // Truncated: what the complete blocks produced is good.
                    if (out.len() + dec.can_collect()) as u64 <= limit {
                        let _ = dec.collect_to_writer(&mut out);
                    }
                    return (out, Some(Stop::Truncated));
                }
                return (
                    out,
                    Some(Stop::Corrupt {
                        offset: at(input),
                        detail: e.to_string(),
                        verified,
                    }),
                );
            }
            if (out.len() + dec.can_collect()) as u64 > limit {
                return (out, Some(Stop::TooLarge { offset: at(input) }));
            }
            if let Err(e) = dec.collect_to_writer(&mut out) {
                return (
                    out,
                    Some(Stop::Corrupt {
                        offset: at(input),
                        detail: e.to_string(),
                        verified,
                    }),
                );
            }
            if dec.is_finished() {
                break;
            }
        }
        if let (Some(want), Some(got)) =
            (dec.get_checksum_from_data(), dec.get_calculated_checksum())
            && want != got
        {
            let detail =
                format!("content checksum {got:08x} does not match the frame's {want:08x}");
            return (
                out,
                Some(Stop::Corrupt {
                    offset: at(input),
                    detail,
                    verified,
                }),
            );
        }
    }
    (out, None)
}

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
/// The file is read as a stream ([`TextChunks`]): memory holds one chunk
/// and the excerpts, never the file.
pub fn evidence(
    path: &Path,
    ranges: &[(u64, u32)],
    max: usize,
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
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| want[i].0);
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); ranges.len()];
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
    let total = at;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn zst(data: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
    }

    fn names(v: &[InputSpec]) -> Vec<String> {
        v.iter()
            .map(|s| match &s.kind {
                InputKind::File(p) | InputKind::Pair { c2s: p, .. } => {
                    p.file_name().unwrap().to_string_lossy().into_owned()
                }
                _ => s.display(),
            })
            .collect()
    }

    fn touch(dir: &Path, names: &[&str]) {
        for n in names {
            std::fs::write(dir.join(n), "{}\n").unwrap();
        }
    }

    /// Many lines, so that the compressed stream spans several blocks.
    fn log_text(lines: usize) -> Vec<u8> {
        let mut s = String::new();
        for i in 0..lines {
            s.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\",\"params\":{{\"n\":{}}}}}\n",
                i * 7919 % 10007
            ));
        }
        s.into_bytes()
    }

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
    fn block_reader_cuts_at_safe_line_starts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.log");
        // Lines starting with a digit are safe starts; "x" lines are not.
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
                (1, 3, "1 a\nx\nx\n".to_string()),
                (4, 11, "2 b\nx\n".to_string()),
                (6, 17, "3 c\n".to_string())
            ]
        );
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
        assert!(f.warnings[0].contains("byte offset 1"));
    }

    #[test]
    fn pairs_are_one_input() {
        let v = expand(&[
            PathBuf::from("a/x.client-to-server.jsonl"),
            PathBuf::from("a/x.server-to-client.jsonl"),
        ]);
        assert_eq!(v.len(), 1);
        assert!(matches!(&v[0].kind, InputKind::Pair { name, .. } if name == "x"));
        assert_eq!(v[0].rotation, None);
    }

    #[test]
    fn compressed_pairs_find_their_partner() {
        let d = tempfile::tempdir().unwrap();
        touch(
            d.path(),
            &[
                "x.client-to-server.jsonl.gz",
                "x.server-to-client.jsonl",
                "y.server-to-client.jsonl.zst",
            ],
        );
        let v = expand(&[d.path().to_path_buf()]);
        assert_eq!(v.len(), 2, "{v:?}");
        let InputKind::Pair { name, c2s, s2c } = &v[0].kind else {
            panic!("{v:?}")
        };
        assert_eq!(name, "x");
        assert_eq!(c2s, &d.path().join("x.client-to-server.jsonl.gz"));
        assert_eq!(s2c, &d.path().join("x.server-to-client.jsonl"));
        // A lone half: the partner keeps its compression and is absent.
        let InputKind::Pair { c2s, .. } = &v[1].kind else {
            panic!("{v:?}")
        };
        assert_eq!(c2s, &d.path().join("y.client-to-server.jsonl.zst"));
    }

    #[test]
    fn glob_sorted_and_skips() {
        let d = tempfile::tempdir().unwrap();
        touch(
            d.path(),
            &["b.log", "a.log", "c.txt", "a.expected.json", ".hidden.log"],
        );
        std::fs::create_dir(d.path().join("sub")).unwrap();
        touch(&d.path().join("sub"), &["z.log", "y.log"]);
        let pat = d.path().join("*.log");
        assert_eq!(names(&expand(&[pat])), ["a.log", "b.log"]);
        // `*` does not cross `/`, `**` does; a matched directory is walked.
        assert_eq!(
            names(&expand(&[d.path().join("**/*.log")])),
            ["a.log", "b.log", "y.log", "z.log"]
        );
        assert_eq!(names(&expand(&[d.path().join("s*")])), ["y.log", "z.log"]);
        assert_eq!(
            names(&expand(&[d.path().join("[ab].*")])),
            ["a.log", "b.log"],
            "a.expected.json skipped"
        );
        assert_eq!(
            names(&expand(&[d.path().join("?.txt"), d.path().join("*.log")])),
            ["c.txt", "a.log", "b.log"]
        );
    }

    #[test]
    fn glob_matching_nothing_is_one_error() {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), &["a.log"]);
        let pat = d.path().join("*.har");
        let v = expand(&[pat.clone(), d.path().join("a.log")]);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].kind, InputKind::NoMatch(pat.display().to_string()));
        let e = v[0].error().unwrap().to_string();
        assert_eq!(
            e,
            format!("{}: no file matches this pattern", pat.display())
        );
        assert!(v[1].error().is_none());
        let v = expand(&[d.path().join("[a.log")]);
        assert!(matches!(&v[0].kind, InputKind::BadPattern { .. }), "{v:?}");
        assert!(
            v[0].error()
                .unwrap()
                .to_string()
                .contains("not a valid glob pattern")
        );
        // A file whose name holds glob characters is used as it is.
        touch(d.path(), &["odd[1].log"]);
        assert_eq!(
            names(&expand(&[d.path().join("odd[1].log")])),
            ["odd[1].log"]
        );
    }

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

    #[test]
    fn rotation_names() {
        let n = split_name("app.log.2.gz");
        assert_eq!(
            (n.stem.as_str(), n.rotation.as_str(), n.compression.as_str()),
            ("app.log", ".2", ".gz")
        );
        assert_eq!(split_name("app.log").age, Age::Current);
        assert_eq!(split_name("app.log-20250131").stem, "app.log");
        assert_eq!(
            split_name("app.log-20251399").age,
            Age::Current,
            "not a date"
        );
        assert_eq!(split_name("trace.json").age, Age::Current);
        assert!(split_name("a.log-20250101").age < split_name("a.log.9").age);
        assert!(split_name("a.log.10").age < split_name("a.log.9").age);
        assert!(split_name("a.log.1.zst").age < split_name("a.log").age);
        assert!(split_name("a.log-2025010112").age > split_name("a.log-20250101").age);
    }

    #[test]
    fn rotated_files_oldest_first() {
        let d = tempfile::tempdir().unwrap();
        touch(
            d.path(),
            &[
                "app.log",
                "app.log.1",
                "app.log.2.gz",
                "app.log.10.gz",
                "other.log",
                "zz.log-20250102",
                "zz.log-20250101.zst",
                "solo.log.1",
            ],
        );
        let v = expand(&[d.path().to_path_buf()]);
        assert_eq!(
            names(&v),
            [
                "app.log.10.gz",
                "app.log.2.gz",
                "app.log.1",
                "app.log",
                "other.log",
                "solo.log.1",
                "zz.log-20250101.zst",
                "zz.log-20250102"
            ]
        );
        let app = d.path().join("app.log").display().to_string();
        for (i, s) in v[..4].iter().enumerate() {
            assert_eq!(
                s.rotation,
                Some(Rotation {
                    group: app.clone(),
                    index: i,
                    len: 4
                })
            );
        }
        assert_eq!(v[4].rotation, None);
        assert_eq!(v[5].rotation, None, "a lone rotated file is no group");
        assert_eq!(
            v[7].rotation.as_ref().map(|r| (r.index, r.len)),
            Some((1, 2))
        );
        // Given on the command line in any order, or by a glob: same order.
        let p = |n: &str| d.path().join(n);
        let v = expand(&[
            p("app.log"),
            p("other.log"),
            p("app.log.1"),
            p("app.log.2.gz"),
        ]);
        assert_eq!(
            names(&v),
            ["app.log.2.gz", "app.log.1", "app.log", "other.log"]
        );
        assert_eq!(
            names(&expand(&[p("app.log*")])),
            ["app.log.10.gz", "app.log.2.gz", "app.log.1", "app.log"]
        );
        // The same file plain and compressed is not a rotation.
        let e = tempfile::tempdir().unwrap();
        touch(e.path(), &["x.log", "x.log.gz"]);
        assert!(
            expand(&[e.path().to_path_buf()])
                .iter()
                .all(|s| s.rotation.is_none())
        );
    }

    #[test]
    fn rotated_pairs_rotate_together() {
        let d = tempfile::tempdir().unwrap();
        touch(
            d.path(),
            &[
                "s.client-to-server.jsonl",
                "s.server-to-client.jsonl",
                "s.client-to-server.jsonl.1.gz",
                "s.server-to-client.jsonl.1.gz",
            ],
        );
        let v = expand(&[d.path().to_path_buf()]);
        assert_eq!(v.len(), 2, "{v:?}");
        let InputKind::Pair { c2s, s2c, .. } = &v[0].kind else {
            panic!()
        };
        assert_eq!(c2s.file_name().unwrap(), "s.client-to-server.jsonl.1.gz");
        assert_eq!(s2c.file_name().unwrap(), "s.server-to-client.jsonl.1.gz");
        assert_eq!(v[0].rotation.as_ref().map(|r| r.index), Some(0));
        assert_eq!(v[1].rotation.as_ref().map(|r| r.index), Some(1));
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loop_does_not_hang() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        touch(&sub, &["a.log"]);
        std::os::unix::fs::symlink(d.path(), sub.join("up")).unwrap();
        std::os::unix::fs::symlink(&sub, sub.join("self")).unwrap();
        std::os::unix::fs::symlink(d.path(), sub.join("up2")).unwrap();
        assert_eq!(names(&expand(&[d.path().to_path_buf()])), ["a.log"]);
        assert_eq!(names(&expand(&[d.path().join("**/*.log")])), ["a.log"]);
    }

    /// A second file of a half already taken is its own input, never
    /// dropped.
    #[test]
    fn a_second_file_of_one_half_is_not_dropped() {
        let d = tempfile::tempdir().unwrap();
        touch(
            d.path(),
            &[
                "X.client-to-server.jsonl",
                "X.client-to-server.jsonl.gz",
                "X.server-to-client.jsonl",
            ],
        );
        let specs = expand(&[d.path().to_path_buf()]);
        assert_eq!(specs.len(), 2, "{specs:?}");
        assert!(matches!(&specs[0].kind, InputKind::Pair { c2s, s2c, .. }
            if c2s.ends_with("X.client-to-server.jsonl") && s2c.ends_with("X.server-to-client.jsonl")));
        assert!(
            matches!(&specs[1].kind, InputKind::File(p) if p.ends_with("X.client-to-server.jsonl.gz"))
        );
    }

    #[test]
    fn evidence_ranges_are_cut_at_char_boundaries() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("e.log");
        std::fs::write(&p, "\u{feff}abc\n{\"é\":1}\n").unwrap();
        let v = evidence(&p, &[(4, 9), (4, 3), (0, 3), (100, 2)], 3).unwrap();
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

    fn all_chunks(p: &Path) -> Result<(Vec<u8>, Vec<String>), SourceError> {
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
        let v = evidence(&p, &ranges, 4).unwrap();
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

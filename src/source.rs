//! Source: all input I/O. Expands paths, reads files, decodes text, and
//! finds the partner of a per-direction file (FORMATS.md §8.3.8). Parsers
//! never open files; they get the text read here.

use std::path::{Path, PathBuf};

/// Why an input cannot be read at all (the run goes on with the others).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The path does not exist.
    #[error("{0}: no such file or directory")]
    NotFound(String),
    /// The OS refused to read it.
    #[error("{0}: cannot read: {1}")]
    Unreadable(String, std::io::Error),
    /// Zero bytes, or only whitespace.
    #[error("{0}: empty file, nothing to analyse")]
    Empty(String),
    /// A NUL byte: not a text capture.
    #[error("{0}: binary file (NUL byte at byte offset {1}), not a text capture")]
    Binary(String, u64),
}

/// One readable input file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user gave it (or as found in a directory).
    pub path: PathBuf,
    /// Display name used in every output.
    pub display: String,
    /// Decoded text: UTF-8, one leading BOM removed, invalid bytes replaced
    /// by U+FFFD.
    pub text: String,
    /// Size on disk, bytes.
    pub bytes: u64,
    /// Recoverable decoding problems (invalid UTF-8 at byte N).
    pub warnings: Vec<String>,
}

/// One thing to analyse: a single file, or a per-direction pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSpec {
    /// A single capture file.
    File(PathBuf),
    /// `NAME.client-to-server.jsonl` + `NAME.server-to-client.jsonl`
    /// (either may be absent on disk).
    Pair {
        /// The pair's name (NAME).
        name: String,
        /// The client-to-server half.
        c2s: PathBuf,
        /// The server-to-client half.
        s2c: PathBuf,
    },
}

const C2S_SUFFIX: &str = ".client-to-server.jsonl";
const S2C_SUFFIX: &str = ".server-to-client.jsonl";

/// Turns the command-line paths into inputs: directories are walked
/// (sorted, recursively, `*.expected.json` skipped), and the two halves of a
/// per-direction pair become one input reported under its client-to-server
/// file. Paths that do not exist are kept as files so that reading them
/// reports the error.
pub fn expand(paths: &[PathBuf]) -> Vec<InputSpec> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut files, 0);
        } else {
            files.push(p.clone());
        }
    }
    let mut out: Vec<InputSpec> = Vec::new();
    for f in files {
        let s = f.to_string_lossy().to_string();
        let spec = if let Some(base) = s.strip_suffix(C2S_SUFFIX).or_else(|| s.strip_suffix(S2C_SUFFIX)) {
            let name = Path::new(base).file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            InputSpec::Pair { name, c2s: PathBuf::from(format!("{base}{C2S_SUFFIX}")), s2c: PathBuf::from(format!("{base}{S2C_SUFFIX}")) }
        } else {
            InputSpec::File(f)
        };
        if !out.contains(&spec) {
            out.push(spec);
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        out.push(dir.to_path_buf());
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out, depth + 1);
        } else if !p.to_string_lossy().ends_with(".expected.json") && !p.to_string_lossy().ends_with(".md") {
            out.push(p);
        }
    }
}

/// Reads and decodes one file.
pub fn read(path: &Path) -> Result<SourceFile, SourceError> {
    let display = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(SourceError::NotFound(display)),
        Err(e) => return Err(SourceError::Unreadable(display, e)),
    };
    decode(display, path.to_path_buf(), bytes)
}

/// Decodes bytes read from `path` (BOM, NUL check, UTF-8).
pub fn decode(display: String, path: PathBuf, bytes: Vec<u8>) -> Result<SourceFile, SourceError> {
    let size = bytes.len() as u64;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(SourceError::Empty(display));
    }
    if let Some(i) = memchr::memchr(0, &bytes) {
        return Err(SourceError::Binary(display, i as u64));
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut warnings = Vec::new();
    let text = match std::str::from_utf8(body) {
        Ok(s) => s.to_string(),
        Err(e) => {
            warnings.push(format!(
                "invalid UTF-8 at byte offset {}; such bytes are read as U+FFFD",
                e.valid_up_to() + (bytes.len() - body.len())
            ));
            String::from_utf8_lossy(body).into_owned()
        }
    };
    Ok(SourceFile { path, display, text, bytes: size, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rules() {
        let p = PathBuf::from("x");
        assert!(matches!(decode("x".into(), p.clone(), b" \n".to_vec()), Err(SourceError::Empty(_))));
        assert!(matches!(decode("x".into(), p.clone(), b"ab\0c".to_vec()), Err(SourceError::Binary(_, 2))));
        let f = decode("x".into(), p.clone(), b"\xEF\xBB\xBF{}".to_vec()).unwrap();
        assert_eq!(f.text, "{}");
        let f = decode("x".into(), p, b"{\xff}".to_vec()).unwrap();
        assert_eq!(f.warnings.len(), 1);
        assert!(f.warnings[0].contains("byte offset 1"));
    }

    #[test]
    fn pairs_are_one_input() {
        let v = expand(&[PathBuf::from("a/x.client-to-server.jsonl"), PathBuf::from("a/x.server-to-client.jsonl")]);
        assert_eq!(v.len(), 1);
        assert!(matches!(&v[0], InputSpec::Pair { name, .. } if name == "x"));
    }
}

//! Command-line arguments → inputs: directories walked, globs expanded
//! ([`super::pattern`]), the run's own output folders skipped, each file
//! read once, then per-direction halves joined ([`super::pairs`]) and
//! rotated files grouped ([`super::rotation`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::pairs::join_pairs;
use super::pattern::glob_paths;
use super::rotation::group_rotations;
use super::{InputKind, InputSpec};

/// Directory levels walked below an argument.
pub(super) const MAX_DEPTH: usize = 32;

/// What a folder walk or glob left out, and why: said on stderr and in
/// `summary.json` (`skipped`), never in silence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file or folder as found.
    pub path: PathBuf,
    /// Why it is not read.
    pub reason: &'static str,
}

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
    expand_reporting(paths, skip).0
}

/// [`expand_excluding`], also returning what the walks left out: the run's
/// own output folders, earlier runs' output folders (a folder holding an
/// mcp-audit `summary.json`), documents (`.md`) and expected-result files
/// (`.expected.json`).
pub fn expand_reporting(paths: &[PathBuf], skip: &[PathBuf]) -> (Vec<InputSpec>, Vec<Skipped>) {
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
    let mut skipped = Vec::new();
    let mut items = collect_items(paths, &skip, &mut skipped);
    let mut seen = HashSet::new();
    items.retain(|it| match it {
        Item::File(p) => match std::fs::canonicalize(p) {
            Ok(c) => {
                (named.contains(&c) || !skip.iter().any(|d| written_by_run(&c, d)))
                    && seen.insert(c)
            }
            Err(_) => true,
        },
        Item::Bad(_) => true,
    });
    (group_rotations(join_pairs(items)), skipped)
}

/// Whether file `c` lies in what this run's output folder `d` holds of
/// its own outputs (a file `--out` writes, or anything in an output
/// subfolder: `inputs/`, a shard partition); a capture beside them
/// (`--out .` among the logs) is not.
fn written_by_run(c: &Path, d: &Path) -> bool {
    let Ok(rel) = c.strip_prefix(d) else {
        return false;
    };
    rel.components()
        .next()
        .is_some_and(|first| output_entry(&d.join(first)))
}

/// What the arguments name, in order: files (directories walked, globs
/// expanded) and the arguments that name nothing to read.
fn collect_items(paths: &[PathBuf], own: &[PathBuf], skipped: &mut Vec<Skipped>) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    let mut w = Walk {
        own,
        skipped,
        seen: HashSet::new(),
    };
    for p in paths {
        let s = p.to_string_lossy();
        if s == "-" {
            // The standard input (once, however often it is named).
            items.push(Item::Bad(InputKind::Stdin));
        } else if p.is_dir() {
            w.seen.clear();
            let (before, skipped) = (items.len(), w.skipped.len());
            w.walk_in(p, &mut items, 0);
            if items.len() == before && w.skipped.len() == skipped {
                // Nothing in it, nothing left out: said, not silent.
                items.push(Item::Bad(InputKind::EmptyFolder(s.into_owned())));
            }
        } else if !p.exists() && s.contains(['*', '?', '[']) {
            match glob_paths(&s) {
                Ok(found) => {
                    let before = items.len();
                    for f in found {
                        if f.is_dir() {
                            w.seen.clear();
                            w.walk_in(&f, &mut items, 0);
                        } else {
                            w.file(f, &mut items);
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

/// One thing found by [`collect_items`], before pairs are joined.
pub(super) enum Item {
    /// A file to read.
    File(PathBuf),
    /// Not a file on disk: the standard input, or a glob that matched
    /// nothing or is malformed.
    Bad(InputKind),
}

/// Files a directory walk (or a glob) leaves out: expected results and
/// docs, with the reason said.
fn skip_reason(p: &Path) -> Option<&'static str> {
    let s = p.to_string_lossy();
    if s.ends_with(".expected.json") {
        Some("an expected-results file (.expected.json), not a capture")
    } else if s.ends_with(".md") {
        Some("a document (.md), not a capture")
    } else if source_file(&s) {
        Some("a source or build file (.py, .js, .ts, .rs, .toml, …), not a capture")
    } else {
        None
    }
}

/// Whether a file name ends like program source or a build file, which no
/// recorder names a capture (a walk over a project finds many: a Python
/// doctest line `[]` would read as an empty batch).
fn source_file(name: &str) -> bool {
    const ENDS: [&str; 24] = [
        ".py", ".pyc", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".rs",
        ".go", ".java", ".rb", ".c", ".h", ".cc", ".cpp", ".sh", ".toml", ".lock", ".yaml", ".yml",
    ];
    ENDS.iter().any(|e| name.ends_with(e))
}

/// Folders a walk does not enter below its argument: what package
/// managers, version control and build tools keep (`node_modules` beside
/// a Node MCP client's logs holds thousands of `.js` and `.json` files,
/// none a capture). Named on stderr and in `summary.json` `skipped`; given
/// as an argument, such a folder is walked.
fn tool_folder(name: &str) -> Option<&'static str> {
    match name {
        "node_modules" => Some("a package folder (node_modules), not captures"),
        ".git" | ".hg" | ".svn" => Some("a version-control folder, not captures"),
        "__pycache__" | ".venv" | ".tox" | ".mypy_cache" | ".pytest_cache" => {
            Some("a Python tool folder, not captures")
        }
        _ => None,
    }
}

/// Whether `p`, in an mcp-audit output folder, is one of what `--out`
/// writes there: its files (`crate::report::OUT_FILES`), `--per-input`'s
/// `index.json` and `inputs/` folder, and a `--shard-dir` layout's
/// Hive partitions (`kind=…` folders).
fn output_entry(p: &Path) -> bool {
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    crate::report::OUT_FILES.contains(&name)
        || name == "index.json"
        || (p.is_dir() && (name == "inputs" || name.contains('=')))
}

/// Whether `dir` is an mcp-audit output folder: it holds a `summary.json`
/// with mcp-audit's top-level members (`schema_version` a number,
/// `findings_by_kind` and `totals` objects). Read as a stream, keeping
/// nothing, so a large summary costs only the time to skim it.
fn is_output_folder(dir: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct Marker {
        schema_version: Option<u64>,
        findings_by_kind: Option<serde::de::IgnoredAny>,
        totals: Option<serde::de::IgnoredAny>,
    }
    let Ok(f) = std::fs::File::open(dir.join("summary.json")) else {
        return false;
    };
    let m: Result<Marker, _> = serde_json::from_reader(std::io::BufReader::new(f));
    m.is_ok_and(|m| {
        m.schema_version.is_some() && m.findings_by_kind.is_some() && m.totals.is_some()
    })
}

/// A folder walk: what it left out, the run's own output folders, the
/// folders already walked (same canonical path, e.g. through a symlink
/// loop).
struct Walk<'a> {
    own: &'a [PathBuf],
    skipped: &'a mut Vec<Skipped>,
    seen: HashSet<PathBuf>,
}

impl Walk<'_> {
    /// A file found by a walk or a glob: an input, or skipped with its
    /// reason. An empty file (0 bytes) found this way is skipped, not an
    /// input that fails the run: logrotate's `create` leaves the current
    /// log empty until the next line, beside rotated files that hold the
    /// traffic. Named as an argument, an empty file is still an input (and
    /// exits 2: nothing to analyse).
    fn file(&mut self, p: PathBuf, out: &mut Vec<Item>) {
        let empty = || std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.len() == 0);
        match skip_reason(&p) {
            Some(reason) => self.skipped.push(Skipped { path: p, reason }),
            None if empty() => self.skipped.push(Skipped {
                path: p,
                reason: "an empty file (0 bytes), nothing to read",
            }),
            None => out.push(Item::File(p)),
        }
    }

    /// Walks `dir` (sorted, recursive) at `depth` levels below the
    /// argument.
    fn walk_in(&mut self, dir: &Path, out: &mut Vec<Item>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let canonical = std::fs::canonicalize(dir).ok();
        if let Some(c) = &canonical
            && !self.seen.insert(c.clone())
        {
            return;
        }
        let own = canonical.as_ref().is_some_and(|c| self.own.contains(c));
        let Ok(rd) = std::fs::read_dir(dir) else {
            out.push(Item::File(dir.to_path_buf()));
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        // An output folder (this run's, or one whose summary.json is
        // mcp-audit's): skipped whole, or, when it holds captures too
        // (`--out .` among the logs), walked without its output files.
        let (outputs, whole, file) = if own {
            (
                true,
                "this run's own output folder (--out or --shard-dir)",
                "this run's own output file (--out or --shard-dir), not a capture",
            )
        } else {
            (
                is_output_folder(dir),
                "an mcp-audit output folder (its summary.json says so), not captures",
                "an mcp-audit output file (its folder's summary.json is mcp-audit's), not a capture",
            )
        };
        if outputs && entries.iter().all(|p| output_entry(p)) {
            self.skipped.push(Skipped {
                path: dir.to_path_buf(),
                reason: whole,
            });
            return;
        }
        for p in entries {
            if outputs && output_entry(&p) {
                self.skipped.push(Skipped {
                    path: p,
                    reason: file,
                });
                continue;
            }
            if p.is_dir() {
                let venv = p
                    .join("pyvenv.cfg")
                    .is_file()
                    .then_some("a Python virtual environment (it holds pyvenv.cfg), not captures");
                let tool = p.file_name().and_then(|n| n.to_str()).and_then(tool_folder);
                if let Some(reason) = tool.or(venv) {
                    self.skipped.push(Skipped { path: p, reason });
                    continue;
                }
                self.walk_in(&p, out, depth + 1);
            } else {
                self.file(p, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{names, touch};
    use crate::source::{InputKind, expand};

    #[test]
    fn empty_files_in_a_walk_are_skipped_and_named() {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), &["app.log", "app.log.2"]);
        std::fs::write(d.path().join("app.log.1"), "").unwrap();
        let (v, skipped) = crate::source::expand_reporting(&[d.path().to_path_buf()], &[]);
        assert_eq!(names(&v), ["app.log.2", "app.log"]);
        let got: Vec<(String, &str)> = skipped
            .iter()
            .map(|s| {
                (
                    s.path.file_name().unwrap().to_string_lossy().into_owned(),
                    s.reason,
                )
            })
            .collect();
        assert_eq!(
            got,
            [(
                "app.log.1".to_string(),
                "an empty file (0 bytes), nothing to read"
            )]
        );
        // Named on the command line, it stays an input.
        let v = expand(&[d.path().join("app.log.1")]);
        assert_eq!(names(&v), ["app.log.1"]);
    }

    #[test]
    fn tool_folders_are_skipped_and_named() {
        let d = tempfile::tempdir().unwrap();
        for sub in ["node_modules/pkg", ".git", "logs", "venv/lib"] {
            std::fs::create_dir_all(d.path().join(sub)).unwrap();
        }
        touch(&d.path().join("node_modules/pkg"), &["index.json"]);
        touch(&d.path().join(".git"), &["HEAD"]);
        touch(
            &d.path().join("logs"),
            &["a.log", "driver.py", "server.mjs"],
        );
        touch(&d.path().join("venv"), &["pyvenv.cfg"]);
        touch(&d.path().join("venv/lib"), &["x.log"]);
        let (v, skipped) = crate::source::expand_reporting(&[d.path().to_path_buf()], &[]);
        assert_eq!(names(&v), ["a.log"]);
        let got: Vec<(String, &str)> = skipped
            .iter()
            .map(|s| {
                (
                    s.path.file_name().unwrap().to_string_lossy().into_owned(),
                    s.reason,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (".git".to_string(), "a version-control folder, not captures"),
                (
                    "driver.py".to_string(),
                    "a source or build file (.py, .js, .ts, .rs, .toml, …), not a capture"
                ),
                (
                    "server.mjs".to_string(),
                    "a source or build file (.py, .js, .ts, .rs, .toml, …), not a capture"
                ),
                (
                    "node_modules".to_string(),
                    "a package folder (node_modules), not captures"
                ),
                (
                    "venv".to_string(),
                    "a Python virtual environment (it holds pyvenv.cfg), not captures"
                ),
            ]
        );
        // Given as the argument, such a folder is walked.
        let (v, _) = crate::source::expand_reporting(&[d.path().join("node_modules")], &[]);
        assert_eq!(names(&v), ["index.json"]);
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
}

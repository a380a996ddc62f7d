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

/// What the arguments name, in order: files (directories walked, globs
/// expanded) and the arguments that name nothing to read.
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

/// One thing found by [`collect_items`], before pairs are joined.
pub(super) enum Item {
    /// A file to read.
    File(PathBuf),
    /// A glob that matched nothing or is malformed.
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

/// [`walk`] at `depth` levels below the argument.
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

#[cfg(test)]
mod tests {
    use super::super::testutil::{names, touch};
    use crate::source::{InputKind, expand};

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

//! Shell globs, expanded one path component at a time (`*` stays in one
//! component, `**` crosses directories, a leading `.` is matched
//! literally), loop-safe.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::expand::MAX_DEPTH;

/// Expands a glob, one path component at a time (so that a pattern reads
/// only the directories it names), following symlinks but never into a
/// directory already visited. Results are sorted and deduplicated.
pub(super) fn glob_paths(pattern: &str) -> Result<Vec<PathBuf>, String> {
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

#[cfg(test)]
mod tests {
    use super::super::testutil::{names, touch};
    use crate::source::expand;

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
}

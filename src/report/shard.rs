//! Shards (issue 5, "beyond one machine"): where a shard run's Parquet
//! tables go, partitioned Hive-style so that Spark, Trino or DuckDB read a
//! folder of shards as one table per name with the partition keys as
//! columns (`reports/SCHEMA.md` "Shards").
//!
//! `--shard date=2026-11-30,host=web1 --shard-dir SHARDS` puts each table
//! at `SHARDS/<table>/date=2026-11-30/host=web1/part-00000.parquet`, and
//! so does `--shard host=web1,date=2026-11-30`: the folder levels are the
//! keys in name order (ASCII), whatever order they were given in, so every
//! shard of a fleet has one layout. A shard folder that already holds
//! another layout along this shard's path (other keys at a level, or a part
//! where this shard has more levels) is refused before any input is read
//! ([`Shard::layout_conflict`]): an engine cannot read two layouts as one
//! table. The
//! partition columns are in the path only, never inside the files (Hive
//! convention). Keys and values are checked here so that no value can
//! leave the shard folder: no `/`, `\`, `..`, leading dot, or anything
//! but ASCII letters, digits, `.`, `_` and `-`.

use std::path::{Path, PathBuf};

/// The file name of a shard's part in each partition folder. Fixed, so a
/// shard run that is repeated replaces its own file instead of adding a
/// second one (which an engine would count twice).
pub const PART_FILE: &str = "part-00000.parquet";

/// Most keys a shard may have.
pub const MAX_KEYS: usize = 8;

/// Longest key, and longest value, in characters.
pub const MAX_LEN: usize = 64;

/// A shard's partition: `key=value` pairs, sorted by key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    /// (key, value) sorted by key (byte order): the folder levels,
    /// outermost first.
    pub keys: Vec<(String, String)>,
}

/// Why a `--shard` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Nothing given.
    #[error("--shard is empty (give key=value pairs, e.g. date=2026-11-30,host=web1)")]
    Empty,
    /// A part without `=`.
    #[error("--shard: `{0}` is not key=value")]
    NotPair(String),
    /// A key that is not a lower-case identifier.
    #[error(
        "--shard: key `{0}` must be a lower-case letter then letters, digits or '_' (at most {MAX_LEN})"
    )]
    BadKey(String),
    /// A value that could leave the folder or is not portable.
    #[error(
        "--shard: value `{value}` of {key} must be ASCII letters, digits, '.', '_' or '-', not starting with '.' (at most {MAX_LEN})"
    )]
    BadValue {
        /// The key.
        key: String,
        /// The refused value.
        value: String,
    },
    /// The same key twice.
    #[error("--shard: key `{0}` given twice")]
    Repeated(String),
    /// A key that is also a column of a table: the engine would see it twice.
    #[error("--shard: key `{0}` is a column of the {1} table; choose another name")]
    Column(String, &'static str),
    /// Too many keys.
    #[error("--shard: at most {MAX_KEYS} keys")]
    TooMany,
}

fn key_ok(k: &str) -> bool {
    let mut c = k.chars();
    matches!(c.next(), Some('a'..='z'))
        && k.len() <= MAX_LEN
        && c.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

fn value_ok(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= MAX_LEN
        && !v.starts_with('.')
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl Shard {
    /// Parses `key=value[,key=value…]` and sorts the pairs by key (the
    /// canonical order: the layout does not depend on the order given).
    /// `columns` lists (table, column) names that a key must not take.
    ///
    /// Errors: [`ShardError`], one line each, naming the bad part.
    pub fn parse(text: &str, columns: &[(&'static str, String)]) -> Result<Shard, ShardError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ShardError::Empty);
        }
        let mut keys: Vec<(String, String)> = Vec::new();
        for part in text.split(',') {
            let part = part.trim();
            let Some((k, v)) = part.split_once('=') else {
                return Err(ShardError::NotPair(part.to_string()));
            };
            let (k, v) = (k.trim(), v.trim());
            if !key_ok(k) {
                return Err(ShardError::BadKey(k.to_string()));
            }
            if !value_ok(v) {
                return Err(ShardError::BadValue {
                    key: k.to_string(),
                    value: v.to_string(),
                });
            }
            if keys.iter().any(|(x, _)| x == k) {
                return Err(ShardError::Repeated(k.to_string()));
            }
            if let Some((table, _)) = columns.iter().find(|(_, c)| c == k) {
                return Err(ShardError::Column(k.to_string(), table));
            }
            keys.push((k.to_string(), v.to_string()));
        }
        if keys.len() > MAX_KEYS {
            return Err(ShardError::TooMany);
        }
        keys.sort_unstable();
        Ok(Shard { keys })
    }

    /// The partition as given back to people: `k1=v1,k2=v2` in key order.
    pub fn spec(&self) -> String {
        self.keys
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Another layout along this shard's path under `root/<table>`: one
    /// line saying where, or `None` when the folder is empty, absent, or
    /// laid out as this shard would write it. At each level of the path
    /// the partition folders (`k=v`, not hidden) must name this shard's key
    /// of that level, and no part file may sit above the last level; the
    /// last level holds no partition folders.
    pub fn layout_conflict(&self, root: &Path, table: &str) -> Option<String> {
        let mut dir = root.join(table);
        for level in 0..=self.keys.len() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                return None; // nothing there yet: no other layout
            };
            let want = self.keys.get(level).map(|(k, _)| k.as_str());
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                let found = match (is_dir, name.split_once('=')) {
                    (true, Some((k, _))) if Some(k) != want => {
                        format!("a partition folder {name}")
                    }
                    (false, None) if want.is_some() && name.ends_with(".parquet") => {
                        format!("a part {name}")
                    }
                    _ => continue,
                };
                let expected = match want {
                    Some(k) => format!("{k}=… folders"),
                    None => "this shard's part".to_string(),
                };
                return Some(format!(
                    "--shard-dir {}: {} holds {found} where --shard {} puts {expected} (levels are the keys in name order: {}); an engine cannot read two layouts as one table: move the other shards' folders or use another --shard-dir",
                    root.display(),
                    dir.display(),
                    self.spec(),
                    self.keys
                        .iter()
                        .map(|(k, _)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some((k, v)) = self.keys.get(level) {
                dir.push(format!("{k}={v}"));
            }
        }
        None
    }

    /// The folder of table `table`'s part, relative to the shard folder:
    /// `<table>/<k1>=<v1>/<k2>=<v2>…`.
    pub fn folder(&self, table: &str) -> PathBuf {
        let mut p = PathBuf::from(table);
        for (k, v) in &self.keys {
            p.push(format!("{k}={v}"));
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Shard, ShardError> {
        Shard::parse(t, &[("pairs", "session".to_string())])
    }

    #[test]
    fn paths_follow_the_keys() {
        let s = parse("date=2026-11-30, host=web1").unwrap();
        assert_eq!(
            s.folder("pairs"),
            PathBuf::from("pairs/date=2026-11-30/host=web1")
        );
    }

    #[test]
    fn the_layout_does_not_depend_on_the_order_given() {
        let a = parse("host=web1,run=2,date=2026-11-30").unwrap();
        let b = parse("date=2026-11-30,host=web1,run=2").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            a.folder("pairs"),
            PathBuf::from("pairs/date=2026-11-30/host=web1/run=2")
        );
        assert_eq!(a.spec(), "date=2026-11-30,host=web1,run=2");
    }

    #[test]
    fn another_layout_in_the_folder_is_named() {
        let root = std::env::temp_dir().join(format!("mcp-audit-shard-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let s = parse("host=web1,date=2026-11-30").unwrap();
        assert_eq!(s.layout_conflict(&root, "pairs"), None, "no folder yet");
        // This shard's own layout, a sibling partition and a hidden
        // temporary file are no conflict.
        std::fs::create_dir_all(root.join("pairs/date=2026-11-30/host=web2")).unwrap();
        std::fs::create_dir_all(root.join("pairs/date=2026-12-01/host=web1")).unwrap();
        std::fs::write(
            root.join("pairs/date=2026-11-30/.part-00000.parquet.1.tmp"),
            "",
        )
        .unwrap();
        assert_eq!(s.layout_conflict(&root, "pairs"), None);
        // An older run's host-first folders.
        std::fs::create_dir_all(root.join("pairs/host=web1/date=2026-11-30")).unwrap();
        let msg = s.layout_conflict(&root, "pairs").unwrap();
        assert!(
            msg.contains("holds a partition folder host=web1 where --shard date=2026-11-30,host=web1 puts date=… folders (levels are the keys in name order: date, host)"),
            "{msg}"
        );
        std::fs::remove_dir_all(root.join("pairs/host=web1")).unwrap();
        // A date-only shard's part where this one has a host level.
        std::fs::write(root.join("pairs/date=2026-11-30/part-00000.parquet"), "").unwrap();
        let msg = s.layout_conflict(&root, "pairs").unwrap();
        assert!(msg.contains("holds a part part-00000.parquet where --shard date=2026-11-30,host=web1 puts host=… folders"), "{msg}");
        std::fs::remove_file(root.join("pairs/date=2026-11-30/part-00000.parquet")).unwrap();
        // A shard with one more level below this one's folder.
        std::fs::create_dir_all(root.join("pairs/date=2026-11-30/host=web1/run=2")).unwrap();
        let msg = s.layout_conflict(&root, "pairs").unwrap();
        assert!(msg.contains("holds a partition folder run=2 where --shard date=2026-11-30,host=web1 puts this shard's part"), "{msg}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn nothing_leaves_the_folder() {
        for bad in [
            "host=..",
            "host=../x",
            "host=a/b",
            "host=a\\b",
            "host=.hidden",
            "host=",
            "host=a b",
            "host=é",
            "host=a=b",
        ] {
            assert!(
                matches!(parse(bad), Err(ShardError::BadValue { .. })),
                "{bad}: {:?}",
                parse(bad)
            );
        }
        for bad in ["Host=a", "1h=a", "../x=a", "=a", "h-h=a"] {
            assert!(matches!(parse(bad), Err(ShardError::BadKey(_))), "{bad}");
        }
        assert_eq!(parse(""), Err(ShardError::Empty));
        assert!(matches!(parse("web1"), Err(ShardError::NotPair(_))));
        assert!(matches!(parse("a=1,a=2"), Err(ShardError::Repeated(_))));
        assert!(matches!(parse("session=x"), Err(ShardError::Column(..))));
        let many: Vec<String> = (0..9).map(|i| format!("k{i}=v")).collect();
        assert_eq!(parse(&many.join(",")), Err(ShardError::TooMany));
    }
}

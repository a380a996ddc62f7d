//! Shards (issue 5, "beyond one machine"): where a shard run's Parquet
//! tables go, partitioned Hive-style so that Spark, Trino or DuckDB read a
//! folder of shards as one table per name with the partition keys as
//! columns (`reports/SCHEMA.md` "Shards").
//!
//! `--shard date=2026-11-30,host=web1 --shard-dir SHARDS` puts each table
//! at `SHARDS/<table>/date=2026-11-30/host=web1/part-00000.parquet`. The
//! partition columns are in the path only, never inside the files (Hive
//! convention). Keys and values are checked here so that no value can
//! leave the shard folder: no `/`, `\`, `..`, leading dot, or anything
//! but ASCII letters, digits, `.`, `_` and `-`.

use std::path::PathBuf;

/// The file name of a shard's part in each partition folder. Fixed, so a
/// shard run that is repeated replaces its own file instead of adding a
/// second one (which an engine would count twice).
pub const PART_FILE: &str = "part-00000.parquet";

/// Most keys a shard may have.
pub const MAX_KEYS: usize = 8;

/// Longest key, and longest value, in characters.
pub const MAX_LEN: usize = 64;

/// A shard's partition: `key=value` pairs in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    /// (key, value) in order: the folder levels, outermost first.
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
    /// Parses `key=value[,key=value…]`. `columns` lists (table, column)
    /// names that a key must not take.
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
        Ok(Shard { keys })
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

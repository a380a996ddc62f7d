//! Rotated files of one log (`NAME`, `NAME.1`, `NAME.2.gz`,
//! `NAME-20250101`, …): names split into stem, rotation suffix and
//! compression, and the members of a group placed together, oldest first
//! (see [`Rotation`]).

use std::collections::HashMap;
use std::path::Path;

use super::{InputKind, InputSpec, Rotation};

/// Compression extensions, ignored for rotation.
const COMPRESSED_EXTS: [&str; 2] = [".gz", ".zst"];

/// A file name split into NAME, rotation suffix and compression extension:
/// `app.log.2.gz` → (`app.log`, `.2`, `.gz`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NameParts {
    /// NAME.
    pub(super) stem: String,
    /// `.N` or `-YYYYMMDD…`, or empty.
    pub(super) rotation: String,
    /// `.gz`, `.zst` or empty.
    pub(super) compression: String,
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

/// Splits a file name (see [`NameParts`]); a name without a rotation
/// suffix is [`Age::Current`].
pub(super) fn split_name(name: &str) -> NameParts {
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

/// Whether file name `name` is a rotated file (`app.log.1`,
/// `app.log.2.gz`, `app.log-20250101`): one that its log's newer files
/// (the current `app.log` at least) continue.
pub(super) fn is_rotated_name(name: &str) -> bool {
    split_name(name).age != Age::Current
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
pub(super) fn group_rotations(specs: Vec<InputSpec>) -> Vec<InputSpec> {
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

#[cfg(test)]
mod tests {
    use super::super::testutil::{names, touch};
    use super::*;
    use crate::source::expand;

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
}

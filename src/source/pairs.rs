//! Per-direction captures (FORMATS.md §8.3.8): `X.client-to-server.jsonl`
//! and `X.server-to-client.jsonl` become one [`InputKind::Pair`], at the
//! place of the first half met, whatever their compression.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::expand::Item;
use super::rotation::{NameParts, split_name};
use super::{InputKind, InputSpec};

const C2S_SUFFIX: &str = ".client-to-server.jsonl";
const S2C_SUFFIX: &str = ".server-to-client.jsonl";

/// Joins the halves of per-direction pairs (one input at the place of the
/// first half met) and drops duplicates.
pub(super) fn join_pairs(items: Vec<Item>) -> Vec<InputSpec> {
    let mut joined = Joined::default();
    for item in items {
        match item {
            Item::Bad(kind) => joined.bad(kind),
            Item::File(f) => joined.file(f),
        }
    }
    joined.out
}

/// The inputs made so far by [`join_pairs`].
#[derive(Default)]
struct Joined {
    out: Vec<InputSpec>,
    /// (dir, NAME, rotation suffix) → index in `out`.
    pairs: HashMap<(PathBuf, String, String), usize>,
    /// Files placed as inputs of their own.
    files: HashSet<PathBuf>,
}

impl Joined {
    /// An input that names nothing to read, once.
    fn bad(&mut self, kind: InputKind) {
        let spec = InputSpec {
            kind,
            rotation: None,
        };
        if !self.out.contains(&spec) {
            self.out.push(spec);
        }
    }

    /// A file read as an input of its own, once.
    fn single(&mut self, f: PathBuf) {
        if self.files.insert(f.clone()) {
            self.out.push(InputSpec::file(f));
        }
    }

    /// A file: a half of a pair (a new pair, or the pair its partner
    /// started), or else an input of its own.
    fn file(&mut self, f: PathBuf) {
        let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
        let parts = f.file_name().map(|n| split_name(&n.to_string_lossy()));
        let half = parts.as_ref().and_then(|p| half_of(&p.stem));
        let (Some(parts), Some((base, is_c2s))) = (&parts, half) else {
            self.single(f);
            return;
        };
        let key = (dir.clone(), base.to_string(), parts.rotation.clone());
        match self.pairs.get(&key) {
            Some(&i) => self.other_half(i, f, is_c2s),
            None => {
                self.pairs.insert(key, self.out.len());
                self.out.push(new_pair(&dir, base, parts, f, is_c2s));
            }
        }
    }

    /// A half of the pair `out[i]`: the other half (or the same one again)
    /// takes its real path. A second, different file of a half already
    /// taken (`X.c2s.jsonl` beside `X.c2s.jsonl.gz`) is read as an input of
    /// its own: never dropped.
    fn other_half(&mut self, i: usize, f: PathBuf, is_c2s: bool) {
        let mut taken = false;
        if let InputKind::Pair { c2s, s2c, .. } = &mut self.out[i].kind {
            let slot = if is_c2s { c2s } else { s2c };
            if *slot != f && slot.is_file() {
                taken = true;
            } else {
                *slot = f.clone();
            }
        }
        if taken {
            self.single(f);
        }
    }
}

/// NAME, and whether this is the client-to-server half, when `stem` (a
/// file name without rotation or compression suffix) names a half.
fn half_of(stem: &str) -> Option<(&str, bool)> {
    stem.strip_suffix(C2S_SUFFIX)
        .map(|b| (b, true))
        .or_else(|| stem.strip_suffix(S2C_SUFFIX).map(|b| (b, false)))
}

/// The pair of the half `f` (in `dir`, named by `parts`), first met: its
/// partner is the file on disk [`find_partner`] finds.
fn new_pair(dir: &Path, base: &str, parts: &NameParts, f: PathBuf, is_c2s: bool) -> InputSpec {
    let partner_suffix = if is_c2s { S2C_SUFFIX } else { C2S_SUFFIX };
    let partner_name = format!("{base}{partner_suffix}{}", parts.rotation);
    let partner = find_partner(dir, &partner_name, &parts.compression);
    let (c2s, s2c) = if is_c2s { (f, partner) } else { (partner, f) };
    InputSpec {
        kind: InputKind::Pair {
            name: base.to_string(),
            c2s,
            s2c,
        },
        rotation: None,
    }
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::testutil::touch;
    use crate::source::{InputKind, expand};

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
}

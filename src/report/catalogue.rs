//! The findings catalogue as users read it: the rows of
//! `docs/DESIGN.md` "Findings catalogue" (`| \`kind\` | severity | rule |`),
//! compiled in, for the outputs that carry help text (SARIF rules, JUnit
//! messages). One source: the document; a unit test checks that every
//! kind has its row, with the severity the code gives it.

use crate::analyze::FindingKind;

/// docs/DESIGN.md, compiled in.
const DESIGN: &str = include_str!("../../docs/DESIGN.md");

/// The catalogue rule of `kind` (the row's third cell, as written, with
/// its backquotes), or `""` when the document has no row for it.
pub fn rule(kind: FindingKind) -> &'static str {
    row(kind.name()).map_or("", |(_, r)| r)
}

/// The row of `name`: (severity word, rule text).
fn row(name: &str) -> Option<(&'static str, &'static str)> {
    let start = DESIGN.find("## Findings catalogue")?;
    let section = &DESIGN[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let head = format!("| `{name}` |");
    section[..end].lines().find_map(|l| {
        let rest = l.strip_prefix(head.as_str())?;
        let (sev, rule) = rest.split_once('|')?;
        Some((sev.trim(), rule.trim().trim_end_matches('|').trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_row_with_its_severity() {
        for &k in FindingKind::ALL {
            let (sev, rule) = row(k.name()).unwrap_or_else(|| panic!("no row for {}", k.name()));
            assert_eq!(sev, k.severity().as_str(), "{}", k.name());
            assert!(!rule.is_empty(), "{}", k.name());
        }
        assert_eq!(
            rule(FindingKind::DuplicateId),
            "a request carries an id that is still pending in its id space (same batch or not)"
        );
    }
}

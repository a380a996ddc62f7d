//! `--sarif FILE`: the findings as SARIF 2.1.0 (OASIS), for code-scanning
//! pages. One run; its driver `mcp-audit` has one rule per finding kind of
//! the catalogue (id the kind name, help text the catalogue's rule, level
//! its severity); one result per finding, with its file as a physical
//! location (line and SSE event where known) and a HAR entry as a logical
//! location (`log.entries[N]`). Redacted like every output: the analysis
//! it renders is. Levels: error → `error`, warning → `warning`, info →
//! `note`. A finding whose kind `--allow` names keeps its level and carries
//! an accepted external suppression (SARIF 2.1.0 §3.27.23, §3.35), so a
//! code-scanning page shows it as dismissed, as the run does not fail on
//! it. Inputs that could not be read make the invocation
//! `executionSuccessful: false`, each problem a tool execution notification.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::sanitize::escape_controls;
use super::{Render, RenderOptions, Report, catalogue};
use crate::analyze::gates::Policy;
use crate::analyze::{Finding, FindingKind, Severity};

/// The schema the document names (`$schema`).
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF renderer.
#[derive(Debug, Clone, Copy)]
pub struct Sarif<'p> {
    /// Which findings fail the run (`--allow` kinds are suppressed).
    pub policy: &'p Policy,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `duplicate_id` → `DuplicateId` (SARIF's `rule.name` is PascalCase).
fn pascal(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A path as a URI reference: relative paths stay relative, absolute ones
/// become `file://` URIs; bytes outside RFC 3986's unreserved set and `/`
/// are percent-encoded.
pub fn uri(path: &str) -> String {
    let mut s = String::new();
    if path.starts_with('/') {
        s.push_str("file://");
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// The SARIF document as a value; `policy` says which kinds `--allow` names.
pub fn document(r: &Report<'_>, policy: &Policy) -> Value {
    let results: Vec<Value> = r
        .analysis
        .findings
        .iter()
        .map(|f| result(r, f, policy.allow.contains(&f.kind)))
        .collect();
    let notes = notifications(r);
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcp-audit",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules(),
            }},
            "invocations": [{
                "executionSuccessful": notes.is_empty(),
                "toolExecutionNotifications": notes,
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// The driver's rules: one per finding kind of the catalogue, in its
/// order (a result's `ruleIndex` is its place here).
fn rules() -> Vec<Value> {
    FindingKind::ALL
        .iter()
        .map(|&k| {
            let text = catalogue::rule(k);
            json!({
                "id": k.name(),
                "name": pascal(k.name()),
                "shortDescription": {"text": format!("{}: {text}", k.name())},
                "fullDescription": {"text": text},
                "help": {"text": format!("{text} (docs/DESIGN.md, \"Findings catalogue\")")},
                "defaultConfiguration": {"level": level(k.severity())},
            })
        })
        .collect()
}

/// One finding as a result; `allowed`: its kind is named by `--allow`.
fn result(r: &Report<'_>, f: &Finding, allowed: bool) -> Value {
    let rule_index = FindingKind::ALL.iter().position(|&k| k == f.kind);
    let mut v = json!({
        "ruleId": f.kind.name(),
        "ruleIndex": rule_index,
        "level": level(f.severity()),
        "message": {"text": escape_controls(&f.detail)},
        "locations": [location(r, f)],
        "properties": {
            "session": escape_controls(&f.session),
            "id": f.id.to_json(),
            "method": f.method.as_deref().map(escape_controls),
            "capture_gap": f.capture_gap(),
        },
    });
    if allowed {
        v["suppressions"] = json!([{
            "kind": "external",
            "status": "accepted",
            "justification": format!("--allow {}: this kind never fails the run", f.kind.name()),
        }]);
    }
    v
}

/// A finding's location: its file (and line) as a physical location, its
/// HAR entry (and SSE event) as a logical one.
fn location(r: &Report<'_>, f: &Finding) -> Value {
    let mut physical = json!({
        "artifactLocation": {"uri": uri(r.file_name(f.file))},
    });
    if let Some(n) = f.location.line {
        physical["region"] = json!({"startLine": n});
    }
    let mut location = json!({"physicalLocation": physical});
    if let Some(e) = f.location.entry {
        let mut name = format!("entry {e}");
        if let Some(ev) = f.location.event {
            name.push_str(&format!(" event {ev}"));
        }
        location["logicalLocations"] = json!([{
            "name": name,
            "fullyQualifiedName": format!("log.entries[{e}]"),
            "kind": "element",
        }]);
    } else if let Some(ev) = f.location.event {
        location["logicalLocations"] = json!([{"name": format!("event {ev}"), "kind": "element"}]);
    }
    location
}

/// Inputs that could not be read (the run exits 2): the invocation did
/// not succeed, each problem a notification naming its file.
fn notifications(r: &Report<'_>) -> Vec<Value> {
    r.inputs
        .iter()
        .flat_map(|i| i.errors.iter().filter(|d| d.fatal).map(move |d| (i, d)))
        .map(|(i, d)| {
            json!({
                "level": "error",
                "message": {"text": escape_controls(&d.to_string())},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&i.file)}}}],
            })
        })
        .collect()
}

impl Render for Sarif<'_> {
    fn render(
        &self,
        r: &Report<'_>,
        out: &mut (dyn Write + Send),
        _: &RenderOptions<'_>,
    ) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &document(r, self.policy))?;
        out.write_all(b"\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris() {
        assert_eq!(pascal("duplicate_id"), "DuplicateId");
        assert_eq!(uri("logs/a b.har"), "logs/a%20b.har");
        assert_eq!(uri("/tmp/x#1.log"), "file:///tmp/x%231.log");
    }
}

//! `--junit FILE`: the findings as JUnit XML, for CI pages. One
//! `<testsuite>` per session (per input with `--per-input`), one
//! `<testcase>` per finding kind of the catalogue in each (a session suite
//! is named `FILE: SESSION` unless the session is named after its file); a test case
//! fails (`<failure>`) when a finding of its kind fails the run
//! (`--fail-on`, `--fail-on-kind`, `--allow`: [`Policy::fails`]), and lists
//! its findings with file and place, the others go to its `<system-out>`.
//! The gates (`--max-latency` and the others) are a last suite, `gates`,
//! one test case each; inputs that could not be read (the run exits 2)
//! are a suite `inputs`, an `<error>` each. Every captured string is escaped, control
//! characters shown as escapes (XML 1.0 cannot hold most of them).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use html_escape::encode_quoted_attribute as esc;

use super::sanitize::escape_controls;
use super::{Render, RenderOptions, Report};
use crate::analyze::gates::Policy;
use crate::analyze::{Finding, FindingKind};

/// Findings listed per test case; the rest are counted.
pub const LISTED: usize = 50;

/// The JUnit renderer; `per_input` groups by input instead of session.
#[derive(Debug, Clone, Copy)]
pub struct Junit<'p> {
    /// Which findings fail the run.
    pub policy: &'p Policy,
    /// One suite per input (`--per-input`) instead of per session.
    pub per_input: bool,
}

/// `file:line`, `file entry N`, with the SSE event where known.
pub fn place(r: &Report<'_>, f: &Finding) -> String {
    let mut s = r.file_name(f.file).to_string();
    let l = f.location;
    if let Some(n) = l.line {
        let _ = write!(s, ":{n}");
    }
    if let Some(e) = l.entry {
        let _ = write!(s, " entry {e}");
    }
    if let Some(ev) = l.event {
        let _ = write!(s, " event {ev}");
    }
    s
}

/// A session's suite name: the session, prefixed by its file when the
/// session is not named after it (HAR sessions of two files may share a
/// name, and CI pages merge suites of one name).
fn suite_name(session: &str, file: &str) -> String {
    if session == file {
        session.to_string()
    } else {
        format!("{file}: {session}")
    }
}

fn x(s: &str) -> String {
    esc(&escape_controls(s)).into_owned()
}

impl Render for Junit<'_> {
    fn render(
        &self,
        r: &Report<'_>,
        out: &mut (dyn Write + Send),
        _: &RenderOptions<'_>,
    ) -> io::Result<()> {
        // Suites in order: sessions as the summary lists them (or inputs),
        // each with its findings per kind.
        let mut suites: Vec<(String, String)> = Vec::new();
        let mut index: BTreeMap<(String, usize), usize> = BTreeMap::new();
        if self.per_input {
            for (i, info) in r.inputs.iter().enumerate() {
                index.insert((String::new(), i), suites.len());
                suites.push((info.file.clone(), info.file.clone()));
            }
        } else {
            for s in &r.sessions {
                index.insert((s.name.clone(), s.input), suites.len());
                suites.push((
                    suite_name(&s.name, r.file(s.input)),
                    r.file(s.input).to_string(),
                ));
            }
        }
        let mut found: Vec<BTreeMap<FindingKind, Vec<&Finding>>> =
            vec![BTreeMap::new(); suites.len()];
        for f in &r.analysis.findings {
            let key = if self.per_input {
                (String::new(), f.input)
            } else {
                (f.session.clone(), f.input)
            };
            let at = match index.get(&key) {
                Some(&i) => i,
                None => {
                    // A finding of a session without a summary row: its own suite.
                    index.insert(key, suites.len());
                    suites.push((
                        suite_name(&f.session, r.file(f.input)),
                        r.file(f.input).to_string(),
                    ));
                    found.push(BTreeMap::new());
                    suites.len() - 1
                }
            };
            found[at].entry(f.kind).or_default().push(f);
        }
        let kinds = FindingKind::ALL.len();
        let failing = |by: &BTreeMap<FindingKind, Vec<&Finding>>| {
            by.values()
                .filter(|v| v.iter().any(|f| self.policy.fails(f)))
                .count()
        };
        let total_fail: usize =
            found.iter().map(failing).sum::<usize>() + r.gates.iter().filter(|g| !g.passed).count();
        let broken_n = r
            .inputs
            .iter()
            .filter(|i| i.errors.iter().any(|d| d.fatal))
            .count();
        let total = suites.len() * kinds + r.gates.len() + broken_n;
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            out,
            r#"<testsuites name="mcp-audit" tests="{total}" failures="{total_fail}" errors="{broken_n}">"#
        )?;
        for ((name, file), by) in suites.iter().zip(&found) {
            writeln!(
                out,
                r#"  <testsuite name="{}" tests="{kinds}" failures="{}" errors="0" skipped="0">"#,
                x(name),
                failing(by)
            )?;
            writeln!(
                out,
                r#"    <properties><property name="file" value="{}"/></properties>"#,
                x(file)
            )?;
            for &k in FindingKind::ALL {
                let list = by.get(&k).map_or(&[][..], Vec::as_slice);
                let fails = list.iter().any(|f| self.policy.fails(f));
                write!(
                    out,
                    r#"    <testcase classname="{}" name="{}" file="{}""#,
                    x(name),
                    k.name(),
                    x(file)
                )?;
                if list.is_empty() {
                    writeln!(out, "/>")?;
                    continue;
                }
                writeln!(out, ">")?;
                let mut body = String::new();
                for f in list.iter().take(LISTED) {
                    let _ = writeln!(
                        body,
                        "{} [{}] {}",
                        escape_controls(&place(r, f)),
                        f.severity().as_str(),
                        escape_controls(&f.detail)
                    );
                }
                if list.len() > LISTED {
                    let _ = writeln!(body, "… and {} more", list.len() - LISTED);
                }
                if fails {
                    let first = list.iter().find(|f| self.policy.fails(f)).copied();
                    let msg = first.map_or(String::new(), |f| {
                        format!(
                            "{} finding(s); first at {}: {}",
                            list.len(),
                            place(r, f),
                            f.detail
                        )
                    });
                    writeln!(
                        out,
                        r#"      <failure type="{}" message="{}">{}</failure>"#,
                        k.name(),
                        x(&msg),
                        esc(&body)
                    )?;
                } else {
                    writeln!(out, "      <system-out>{}</system-out>", esc(&body))?;
                }
                writeln!(out, "    </testcase>")?;
            }
            writeln!(out, "  </testsuite>")?;
        }
        // Inputs that could not be read (the run exits 2): errors, so a CI
        // page never shows green for a run that analysed nothing.
        let broken: Vec<(&str, String)> = r
            .inputs
            .iter()
            .filter_map(|i| {
                let lines: Vec<String> = i
                    .errors
                    .iter()
                    .filter(|d| d.fatal)
                    .map(|d| escape_controls(&d.to_string()).into_owned())
                    .collect();
                (!lines.is_empty()).then(|| (i.file.as_str(), lines.join("\n")))
            })
            .collect();
        if !broken.is_empty() {
            writeln!(
                out,
                r#"  <testsuite name="inputs" tests="{n}" failures="0" errors="{n}" skipped="0">"#,
                n = broken.len()
            )?;
            for (file, lines) in &broken {
                let first = lines.lines().next().unwrap_or("");
                writeln!(
                    out,
                    r#"    <testcase classname="inputs" name="{}" file="{}"><error type="unreadable_input" message="{}">{}</error></testcase>"#,
                    x(file),
                    x(file),
                    x(first),
                    esc(lines)
                )?;
            }
            writeln!(out, "  </testsuite>")?;
        }
        if !r.gates.is_empty() {
            let failed = r.gates.iter().filter(|g| !g.passed).count();
            writeln!(
                out,
                r#"  <testsuite name="gates" tests="{}" failures="{failed}" errors="0" skipped="0">"#,
                r.gates.len()
            )?;
            for g in r.gates {
                write!(
                    out,
                    r#"    <testcase classname="gates" name="{}""#,
                    x(&g.gate)
                )?;
                if g.passed {
                    writeln!(out, "><system-out>{}</system-out></testcase>", x(&g.detail))?;
                } else {
                    writeln!(
                        out,
                        r#"><failure type="gate" message="{}"/></testcase>"#,
                        x(&g.detail)
                    )?;
                }
            }
            writeln!(out, "  </testsuite>")?;
        }
        writeln!(out, "</testsuites>")
    }
}

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

/// One `<testsuite>` of findings: its name, its file, and its findings
/// per kind.
struct Suite<'r> {
    name: String,
    file: String,
    found: BTreeMap<FindingKind, Vec<&'r Finding>>,
}

impl Junit<'_> {
    /// The suites in order: sessions as the summary lists them (or
    /// inputs), each with its findings per kind; a finding of a session
    /// without a summary row gets its own suite after them.
    fn suites<'r>(&self, r: &'r Report<'_>) -> Vec<Suite<'r>> {
        let mut suites: Vec<Suite<'r>> = Vec::new();
        let mut index: BTreeMap<(String, usize), usize> = BTreeMap::new();
        let suite = |name: String, file: String| Suite {
            name,
            file,
            found: BTreeMap::new(),
        };
        if self.per_input {
            for (i, info) in r.inputs.iter().enumerate() {
                index.insert((String::new(), i), suites.len());
                suites.push(suite(info.file.clone(), info.file.clone()));
            }
        } else {
            for s in &r.sessions {
                index.insert((s.name.clone(), s.input), suites.len());
                suites.push(suite(
                    suite_name(&s.name, r.file(s.input)),
                    r.file(s.input).to_string(),
                ));
            }
        }
        for f in &r.analysis.findings {
            let key = if self.per_input {
                (String::new(), f.input)
            } else {
                (f.session.clone(), f.input)
            };
            let at = *index.entry(key).or_insert_with(|| {
                suites.push(suite(
                    suite_name(&f.session, r.file(f.input)),
                    r.file(f.input).to_string(),
                ));
                suites.len() - 1
            });
            suites[at].found.entry(f.kind).or_default().push(f);
        }
        suites
    }

    /// How many of a suite's test cases fail.
    fn failing(&self, s: &Suite<'_>) -> usize {
        s.found
            .values()
            .filter(|v| v.iter().any(|f| self.policy.fails(f)))
            .count()
    }

    /// One suite: a test case per finding kind of the catalogue.
    fn write_suite(&self, r: &Report<'_>, s: &Suite<'_>, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            r#"  <testsuite name="{}" tests="{}" failures="{}" errors="0" skipped="0">"#,
            x(&s.name),
            FindingKind::ALL.len(),
            self.failing(s)
        )?;
        writeln!(
            out,
            r#"    <properties><property name="file" value="{}"/></properties>"#,
            x(&s.file)
        )?;
        for &k in FindingKind::ALL {
            let list = s.found.get(&k).map_or(&[][..], Vec::as_slice);
            write!(
                out,
                r#"    <testcase classname="{}" name="{}" file="{}""#,
                x(&s.name),
                k.name(),
                x(&s.file)
            )?;
            if list.is_empty() {
                writeln!(out, "/>")?;
                continue;
            }
            writeln!(out, ">")?;
            self.write_case_body(r, k, list, out)?;
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")
    }

    /// A test case's findings (the first [`LISTED`], then a count): a
    /// `<failure>` naming the first failing one when one fails the run,
    /// else its `<system-out>`.
    fn write_case_body(
        &self,
        r: &Report<'_>,
        k: FindingKind,
        list: &[&Finding],
        out: &mut dyn Write,
    ) -> io::Result<()> {
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
        match list.iter().find(|f| self.policy.fails(f)) {
            Some(first) => {
                let msg = format!(
                    "{} finding(s); first at {}: {}",
                    list.len(),
                    place(r, first),
                    first.detail
                );
                writeln!(
                    out,
                    r#"      <failure type="{}" message="{}">{}</failure>"#,
                    k.name(),
                    x(&msg),
                    esc(&body)
                )
            }
            None => writeln!(out, "      <system-out>{}</system-out>", esc(&body)),
        }
    }
}

/// Inputs that could not be read (the run exits 2), each with its fatal
/// problems, one escaped line each.
fn broken_inputs<'r>(r: &'r Report<'_>) -> Vec<(&'r str, String)> {
    r.inputs
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
        .collect()
}

/// The suite `inputs`: an `<error>` per input that could not be read, so
/// a CI page never shows green for a run that analysed nothing.
fn write_inputs_suite(broken: &[(&str, String)], out: &mut dyn Write) -> io::Result<()> {
    if broken.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        r#"  <testsuite name="inputs" tests="{n}" failures="0" errors="{n}" skipped="0">"#,
        n = broken.len()
    )?;
    for (file, lines) in broken {
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
    writeln!(out, "  </testsuite>")
}

/// The suite `gates`: a test case per gate, failing where it failed and
/// skipped where it judged nothing (a budget with no latency to measure).
fn write_gates_suite(r: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    if r.gates.is_empty() {
        return Ok(());
    }
    let failed = r.gates.iter().filter(|g| !g.passed).count();
    let skipped = r.gates.iter().filter(|g| !g.judged).count();
    writeln!(
        out,
        r#"  <testsuite name="gates" tests="{}" failures="{failed}" errors="0" skipped="{skipped}">"#,
        r.gates.len()
    )?;
    for g in r.gates {
        write!(
            out,
            r#"    <testcase classname="gates" name="{}""#,
            x(&g.gate)
        )?;
        if !g.judged {
            // A budget with nothing to measure: neither a pass nor a fault.
            writeln!(out, r#"><skipped message="{}"/></testcase>"#, x(&g.detail))?;
        } else if g.passed {
            writeln!(out, "><system-out>{}</system-out></testcase>", x(&g.detail))?;
        } else {
            writeln!(
                out,
                r#"><failure type="gate" message="{}"/></testcase>"#,
                x(&g.detail)
            )?;
        }
    }
    writeln!(out, "  </testsuite>")
}

impl Render for Junit<'_> {
    fn render(
        &self,
        r: &Report<'_>,
        out: &mut (dyn Write + Send),
        _: &RenderOptions<'_>,
    ) -> io::Result<()> {
        let suites = self.suites(r);
        let broken = broken_inputs(r);
        let total_fail: usize = suites.iter().map(|s| self.failing(s)).sum::<usize>()
            + r.gates.iter().filter(|g| !g.passed).count();
        let total = suites.len() * FindingKind::ALL.len() + r.gates.len() + broken.len();
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            out,
            r#"<testsuites name="mcp-audit" tests="{total}" failures="{total_fail}" errors="{}">"#,
            broken.len()
        )?;
        for s in &suites {
            self.write_suite(r, s, out)?;
        }
        write_inputs_suite(&broken, out)?;
        write_gates_suite(r, out)?;
        writeln!(out, "</testsuites>")
    }
}

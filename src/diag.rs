//! Diagnostics: a problem met while reading an input, as data (which input,
//! where in it, what, and whether reading went on). Readers produce them;
//! the run formats each one once, into the line every output shows
//! (`FILE: line 12: …`, `FILE: entry 3: …`).

use std::fmt;

/// Where in its input a problem sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A 1-based physical line of a line log: `line N: `.
    Line(u64),
    /// A 0-based HAR entry (index into `log.entries`): `entry N: `.
    Entry(u64),
    /// One half of a per-direction pair, named by its file, optionally at
    /// one of its lines: `HALF line N: ` or `HALF `.
    Half {
        /// The half's display name.
        file: String,
        /// Its 1-based line, when the problem is on one.
        line: Option<u64>,
    },
}

/// One problem met while reading an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The input's display name; `None` until the run names it (readers
    /// that parse text do not know how the input is shown).
    pub input: Option<String>,
    /// Where in the input, when the problem is at one place.
    pub location: Option<Place>,
    /// What went wrong, without input or place.
    pub message: String,
    /// Reading stopped there, or the input is unusable: the run exits 2.
    pub fatal: bool,
    /// Not a problem but a notice: something read as it should be that a
    /// user may want to know (a body repaired from windows-1252 mojibake, a
    /// HAR entry that is no MCP traffic, skipped). Reported apart
    /// (`summary.json` `inputs[].notices`), never counted as an error.
    pub notice: bool,
}

impl Diagnostic {
    /// A problem reading went on after.
    pub fn new(location: Option<Place>, message: impl Into<String>) -> Self {
        Diagnostic {
            input: None,
            location,
            message: message.into(),
            fatal: false,
            notice: false,
        }
    }

    /// A problem at line `n`.
    pub fn line(n: u64, message: impl Into<String>) -> Self {
        Diagnostic::new(Some(Place::Line(n)), message)
    }

    /// A problem at HAR entry `i`.
    pub fn entry(i: u64, message: impl Into<String>) -> Self {
        Diagnostic::new(Some(Place::Entry(i)), message)
    }

    /// A problem about the input as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        Diagnostic::new(None, message)
    }

    /// The same problem, for input `name`.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.input = Some(name.into());
        self
    }

    /// The same problem, marked as stopping reading (or making the input
    /// unusable).
    pub fn fatal(mut self) -> Self {
        self.fatal = true;
        self
    }

    /// The same line, as a notice rather than a problem.
    pub fn notice(mut self) -> Self {
        self.notice = true;
        self
    }

    /// Names the input when no reader did.
    pub fn name_if_unnamed(&mut self, name: &str) {
        if self.input.is_none() {
            self.input = Some(name.to_string());
        }
    }

    /// The same problem shown as `line`, a whole line (its redacted text,
    /// say): input and place are then part of it.
    pub fn shown_as(&self, line: String) -> Self {
        Diagnostic {
            input: None,
            location: None,
            message: line,
            fatal: self.fatal,
            notice: self.notice,
        }
    }

    /// Moves the place `lines` lines down (a block of a line log parsed
    /// alone, whose line 1 is line `lines + 1` of the file).
    pub fn shift_lines(&mut self, lines: u64) {
        match &mut self.location {
            Some(Place::Line(n)) => *n += lines,
            Some(Place::Half { line: Some(n), .. }) => *n += lines,
            _ => {}
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}: "),
            Place::Entry(i) => write!(f, "entry {i}: "),
            Place::Half {
                file,
                line: Some(n),
            } => write!(f, "{file} line {n}: "),
            Place::Half { file, line: None } => write!(f, "{file} "),
        }
    }
}

/// The one line every output shows: `INPUT: PLACE: MESSAGE`, each part
/// present when known.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(input) = &self.input {
            write!(f, "{input}: ")?;
        }
        if let Some(place) = &self.location {
            write!(f, "{place}")?;
        }
        f.write_str(&self.message)
    }
}

/// As its line (`summary.json` `inputs[].errors` is an array of strings).
impl serde::Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// How many problems of one shape are shown before the rest are counted.
const SHOWN_OF_A_SHAPE: usize = 3;

/// The lines to show for an input's problems on a terminal or stderr: the
/// first three (`SHOWN_OF_A_SHAPE`) of each shape (the same line but for its
/// numbers: places, statuses), then one line counting the rest, so a
/// capture with thousands of entries without bodies prints a few lines,
/// not thousands. `summary.json` keeps every line, in `inputs[].MEMBER`
/// (`errors` or `notices`), which the counting line names.
pub fn folded_lines(errors: &[Diagnostic], member: &str) -> Vec<String> {
    let shape = |line: &str| -> String {
        let mut out = String::with_capacity(line.len());
        let mut in_digits = false;
        for c in line.chars() {
            if c.is_ascii_digit() {
                if !in_digits {
                    out.push('#');
                }
                in_digits = true;
            } else {
                in_digits = false;
                out.push(c);
            }
        }
        out
    };
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut order: Vec<(String, &str)> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for line in &lines {
        let key = shape(line);
        let n = seen.entry(key.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            order.push((key, line));
        }
        if *n <= SHOWN_OF_A_SHAPE {
            out.push(line.clone());
        }
    }
    for (key, first) in order {
        let n = seen[&key];
        if n > SHOWN_OF_A_SHAPE {
            out.push(format!(
                "… and {} more like \"{first}\" (all in summary.json inputs[].{member})",
                n - SHOWN_OF_A_SHAPE
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_problems_of_one_shape_fold() {
        let mut errs: Vec<Diagnostic> = (0..5)
            .map(|i| {
                Diagnostic::new(
                    None,
                    format!("entry {i}: response body not captured (status 200)"),
                )
            })
            .collect();
        errs.push(Diagnostic::new(None, "line 9: bad"));
        assert_eq!(
            folded_lines(&errs, "errors"),
            vec![
                "entry 0: response body not captured (status 200)",
                "entry 1: response body not captured (status 200)",
                "entry 2: response body not captured (status 200)",
                "line 9: bad",
                "… and 2 more like \"entry 0: response body not captured (status 200)\" (all in summary.json inputs[].errors)",
            ]
        );
    }

    #[test]
    fn formats_input_place_and_message() {
        let d = Diagnostic::line(12, "bad").named("a.log");
        assert_eq!(d.to_string(), "a.log: line 12: bad");
        assert_eq!(Diagnostic::entry(3, "x").to_string(), "entry 3: x");
        let mut h = Diagnostic::new(
            Some(Place::Half {
                file: "c.jsonl".into(),
                line: Some(2),
            }),
            "y",
        );
        h.shift_lines(10);
        h.name_if_unnamed("c.jsonl");
        assert_eq!(h.to_string(), "c.jsonl: c.jsonl line 12: y");
        assert_eq!(Diagnostic::whole("z").named("f").to_string(), "f: z");
    }

    #[test]
    fn source_errors_read_the_same_as_diagnostics() {
        use crate::source::SourceError;
        for e in [
            SourceError::NotFound("a.log".into()),
            SourceError::Blank("b.log".into(), 3),
            SourceError::BadPattern("*[".into(), "unclosed".into()),
        ] {
            let d = Diagnostic::from(&e);
            assert!(d.fatal && d.input.as_deref() == Some(e.file()));
            assert_eq!(d.to_string(), e.to_string());
        }
        assert_eq!(
            SourceError::Blank("b.log".into(), 3).to_string(),
            "b.log: holds only whitespace (3 bytes), nothing to analyse"
        );
    }
}

//! The whole-document parser this module had before the streaming splitter
//! (serde visitors over the whole text), kept for tests only: the oracle
//! of the differential tests in `scan` — [`super::HarStream`] must give
//! what it gives, record for record and message for message, whatever the
//! chunk sizes and cuts. It reads each entry with the production
//! [`EntrySink`]; only the document walk (root, `log`, `log.entries`) and
//! the wording of its errors are its own.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::Input;
use super::error::{error_offset, read_before};
use super::frames::EntrySink;
use super::model::{Creator, Loose, dialect};
use crate::diag::Diagnostic;
use crate::record::Parsed;

/// Parses one HAR document (FORMATS.md §4) into frames, in entry order.
///
/// `format` is `har`; `dialect` is the known exporter named by
/// `log.creator.name` (lower-cased: `webinspector`, `mitmproxy`, `firefox`,
/// `charles`, `fiddler`, `playwright`, `proxyman`), else `har`. Recoverable
/// problems go to `errors`, one line each naming the entry: an entry that is
/// not an object or has no `request` (skipped), a body not captured
/// (DESIGN.md rule 12), invalid base64, an unreadable `startedDateTime`, and
/// at most one line for JSON that breaks off or is malformed, naming its
/// byte offset. Never panics.
pub(super) fn parse(input: Input<'_>) -> Parsed {
    let mut sink = RefSink {
        input,
        parsed: Parsed {
            format: "har",
            dialect: "har",
            ..Default::default()
        },
        next_entry: 0,
        saw_log: false,
        saw_entries: false,
    };
    let mut de = serde_json::Deserializer::from_str(input.text);
    let result = RootSeed(&mut sink)
        .deserialize(&mut de)
        .and_then(|()| de.end());
    match result {
        Err(e) => {
            let offset = error_offset(input.text.as_bytes(), e.line(), e.column());
            let what = if e.is_eof() {
                "HAR ends early"
            } else if e.is_data() {
                "HAR has the wrong shape"
            } else {
                "HAR is not valid JSON"
            };
            let n = sink.next_entry;
            sink.parsed.incomplete = true;
            sink.parsed.errors.push(
                Diagnostic::whole(format!(
                    "{what} at byte {offset} (line {}, column {}): {e}; {}",
                    e.line(),
                    e.column(),
                    read_before(n)
                ))
                .fatal(),
            );
        }
        Ok(()) if !sink.saw_log => {
            sink.parsed.incomplete = true;
            sink.parsed
                .errors
                .push(Diagnostic::whole("not a HAR document: no `log` object").fatal())
        }
        Ok(()) if !sink.saw_entries => {
            sink.parsed.incomplete = true;
            sink.parsed
                .errors
                .push(Diagnostic::whole("HAR `log` has no `entries` array").fatal())
        }
        Ok(()) => {}
    }
    super::unlinked_legacy_gaps(&mut sink.parsed);
    super::collapse_mojibake(&mut sink.parsed.errors);
    sink.parsed
}

// ---------------------------------------------------------------------------
// Streaming over the document: {"log": {"creator": …, "entries": [ … ]}}.

/// What the visitors feed: the input and the output being built.
struct RefSink<'t> {
    input: Input<'t>,
    parsed: Parsed,
    /// Index of the next entry of `log.entries`.
    next_entry: u64,
    saw_log: bool,
    saw_entries: bool,
}

struct RootSeed<'s, 't>(&'s mut RefSink<'t>);

impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a HAR document {\"log\": {…}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "log" && !self.0.saw_log {
                self.0.saw_log = true;
                map.next_value_seed(LogSeed(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct LogSeed<'s, 't>(&'s mut RefSink<'t>);

impl<'de> DeserializeSeed<'de> for LogSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LogSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the HAR `log` object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "creator" => {
                    let c = map.next_value::<Loose<Creator<'de>>>()?;
                    if let Some(name) = c.0.and_then(|c| c.name.0) {
                        self.0.parsed.dialect = dialect(&name);
                    }
                }
                "entries" if !self.0.saw_entries => {
                    self.0.saw_entries = true;
                    map.next_value_seed(EntriesSeed(&mut *self.0))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct EntriesSeed<'s, 't>(&'s mut RefSink<'t>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the `log.entries` array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Entries are found one at a time (each a borrowed slice of the
        // input, no copy) and read in parallel, a batch at a time; records
        // and errors are appended in entry order (issue 5).
        let mut batch: Vec<&'de str> = Vec::with_capacity(256);
        loop {
            let next = seq.next_element::<&'de RawValue>();
            let more = matches!(next, Ok(Some(_)));
            if let Ok(Some(raw)) = &next {
                batch.push(raw.get());
            }
            if batch.len() >= 256 || !more {
                self.0.entries(&batch);
                batch.clear();
            }
            match next {
                Ok(Some(_)) => {}
                Ok(None) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
}

impl RefSink<'_> {
    /// As before: a batch of entries read in parallel.
    fn entries(&mut self, raws: &[&str]) {
        use rayon::prelude::*;
        let (input, first) = (self.input, self.next_entry);
        let parts: Vec<Parsed> = raws
            .par_iter()
            .enumerate()
            .map(|(k, raw)| {
                let base = input.text.as_ptr() as usize;
                let offset = (raw.as_ptr() as usize - base) as u64;
                let mut one = EntrySink::new(input.file, input.name, first + k as u64);
                one.entry(raw, offset)
                    .expect("validated by the document parse");
                one.parsed
            })
            .collect();
        for p in parts {
            self.parsed.records.extend(p.records);
            self.parsed.linked_streams.extend(p.linked_streams);
            self.parsed.legacy_origins.extend(p.legacy_origins);
            self.parsed.errors.extend(p.errors);
        }
        self.next_entry = first + raws.len() as u64;
    }
}

//! Timestamps of every form the dialects write (FORMATS.md §8.1
//! "Timestamps"), read with chrono into µs since the epoch.

use chrono::{DateTime, NaiveDateTime};

use super::Micros;

/// Reads an ISO 8601 / RFC 3339 timestamp: with a zone (`Z`, `+02:00`) it is
/// absolute; without one (`2025-01-01T12:00:00.000`, or the local wall clock
/// `2025-01-01 12:00:00.000`) it is read as UTC. Returns µs since the epoch,
/// or `None` when the text is not a timestamp.
pub fn parse_iso(text: &str) -> Option<Micros> {
    let t = text.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Some(dt.timestamp_micros());
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f%#z",
    ] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, fmt) {
            return Some(n.and_utc().timestamp_micros());
        }
    }
    if let Ok(dt) = DateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f%#z") {
        return Some(dt.timestamp_micros());
    }
    None
}

/// Formats µs since the epoch as RFC 3339 UTC with µs (`pairs.csv`).
/// Years 0–9999 are written field by field (chrono's `format` parses its
/// pattern on every call: 5 % of a run writing `pairs.csv`); others as
/// chrono writes them (`+10000-…`).
pub fn format_rfc3339(us: Micros) -> String {
    use chrono::{Datelike, Timelike};
    use std::fmt::Write;
    let Some(dt) = DateTime::from_timestamp_micros(us) else {
        return String::new();
    };
    if !(0..=9999).contains(&dt.year()) {
        return dt.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
    }
    let mut s = String::with_capacity(27);
    let _ = write!(
        s,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        us.rem_euclid(1_000_000)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_and_precisions() {
        let z = parse_iso("2025-01-01T12:00:00.000Z").unwrap();
        assert_eq!(parse_iso("2025-01-01T14:00:00.000+02:00"), Some(z));
        assert_eq!(parse_iso("2025-01-01T12:00:00.000"), Some(z));
        assert_eq!(parse_iso("2025-01-01 12:00:00.000"), Some(z));
        assert_eq!(
            parse_iso("2026-11-30T21:04:36.527044+00:00").map(|v| v % 1_000_000),
            Some(527_044)
        );
        assert_eq!(parse_iso("yesterday"), None);
        assert_eq!(format_rfc3339(z + 1500), "2025-01-01T12:00:00.001500Z");
        // Before the epoch, the µs count upwards within the second.
        assert_eq!(format_rfc3339(-1), "1969-12-31T23:59:59.999999Z");
        // Beyond year 9999, as chrono writes it.
        assert_eq!(
            format_rfc3339(253_402_300_800_000_000),
            "+10000-01-01T00:00:00.000000Z"
        );
    }
}

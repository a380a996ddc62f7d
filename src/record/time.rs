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
pub fn format_rfc3339(us: Micros) -> String {
    match DateTime::from_timestamp_micros(us) {
        Some(dt) => dt.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        None => String::new(),
    }
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
    }
}

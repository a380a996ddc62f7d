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
/// Years 0–9999 are written digit by digit from the day count (chrono's
/// `format` parses its pattern on every call, and `write!` pads through
/// the formatting machinery: 5 % of a run writing `pairs.csv`); other
/// years as chrono writes them (`+10000-…`).
pub fn format_rfc3339(us: Micros) -> String {
    let mut out = Vec::with_capacity(27);
    write_rfc3339(us, &mut out);
    // Only ASCII digits and punctuation were written.
    String::from_utf8(out).unwrap_or_default()
}

/// [`format_rfc3339`] appended to `out` (nothing for a time chrono cannot
/// hold).
pub fn write_rfc3339(us: Micros, out: &mut Vec<u8>) {
    let secs = us.div_euclid(1_000_000);
    let micros = us.rem_euclid(1_000_000);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        if let Some(dt) = DateTime::from_timestamp_micros(us) {
            out.extend_from_slice(dt.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string().as_bytes());
        }
        return;
    }
    let mut put = |v: i64, width: usize, after: u8| {
        let mut digits = [b'0'; 6];
        let mut v = v;
        for k in (0..width).rev() {
            digits[k] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        out.extend_from_slice(&digits[..width]);
        out.push(after);
    };
    put(y, 4, b'-');
    put(m, 2, b'-');
    put(d, 2, b'T');
    put(sod / 3600, 2, b':');
    put(sod / 60 % 60, 2, b':');
    put(sod % 60, 2, b'.');
    put(micros, 6, b'Z');
}

/// The proleptic Gregorian (year, month, day) of `days` since 1970-01-01
/// (H. Hinnant's `civil_from_days`, exact for every i64 day count that
/// a µs timestamp can give).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
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
        // As chrono writes them: every day of 1900–2100 and every 97th
        // day from year 0 to 9999 (a day's first µs, its last, and one
        // in the afternoon).
        const DAY: i64 = 86_400_000_000;
        let (lo, hi) = (-62_167_219_200_000_000i64, 253_402_300_800_000_000i64);
        let days = (-25_567..47_482)
            .map(|d| d * DAY)
            .chain((lo..hi).step_by(97 * DAY as usize));
        for t in days {
            for v in [t, t + DAY - 1, t + 45_296_789_012] {
                let chrono = DateTime::from_timestamp_micros(v)
                    .unwrap()
                    .format("%Y-%m-%dT%H:%M:%S%.6fZ")
                    .to_string();
                assert_eq!(format_rfc3339(v), chrono, "{v}");
            }
        }
        assert_eq!(format_rfc3339(lo - 1), "-0001-12-31T23:59:59.999999Z");
        // Beyond year 9999, as chrono writes it.
        assert_eq!(
            format_rfc3339(253_402_300_800_000_000),
            "+10000-01-01T00:00:00.000000Z"
        );
    }
}

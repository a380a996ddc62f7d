//! Binned latencies per method, for the latency charts of `report.html`
//! (reports never compute, so the binning lives here).
//!
//! Bins are fixed and logarithmic, [`PER_DECADE`] per decade from
//! [`FIRST_EDGE_MS`]: bin `i` holds latencies in
//! `[edge(i), edge(i + 1))`; the first bin also holds anything smaller,
//! the last anything larger. Fixed edges make histograms of different runs
//! comparable. Only paired, not cancelled requests with a known latency
//! count (the same set as `latency_ms`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::Analysis;
use super::latency::{self, Quantiles};
use crate::record::Micros;

/// Bins per decade.
pub const PER_DECADE: u32 = 4;
/// Lower edge of the first bin (ms).
pub const FIRST_EDGE_MS: f64 = 0.01;
/// Number of bins: 0.01 ms to 10^6 ms (about 17 minutes).
pub const BINS: usize = 8 * PER_DECADE as usize;

/// Lower edge of bin `i` in ms.
pub fn edge_ms(i: usize) -> f64 {
    FIRST_EDGE_MS * 10f64.powf(i as f64 / f64::from(PER_DECADE))
}

/// The bin of a latency.
pub fn bin_of(us: Micros) -> usize {
    let ms = us as f64 / 1000.0;
    // NaN cannot occur (an integer in); anything at or below the first edge is bin 0.
    if ms <= FIRST_EDGE_MS {
        return 0;
    }
    let i = ((ms / FIRST_EDGE_MS).log10() * f64::from(PER_DECADE) + 1e-9).floor();
    (i as usize).min(BINS - 1)
}

/// The latency distribution of one method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodLatency {
    /// The request method (`(none)` when it had none).
    pub method: String,
    /// Quantiles (ms).
    pub quantiles: Quantiles,
    /// Counts per bin, [`BINS`] long.
    pub bins: Vec<u64>,
}

/// The latencies (µs) of every session's requests, not cancelled, per
/// method (`(none)` when it had none), in request order within a method.
pub fn per_method(a: &Analysis) -> BTreeMap<&str, Vec<Micros>> {
    let mut per: BTreeMap<&str, Vec<Micros>> = BTreeMap::new();
    for s in &a.sessions {
        for q in s.requests.iter().filter(|q| !q.cancelled) {
            if let Some(l) = q.latency {
                per.entry(q.method.as_deref().unwrap_or("(none)"))
                    .or_default()
                    .push(l);
            }
        }
    }
    per
}

/// Latency distributions per method over every session, the most frequent
/// method first (ties by name), then the whole capture as `*` last.
pub fn by_method(a: &Analysis) -> Vec<MethodLatency> {
    let per = per_method(a);
    let all: Vec<Micros> = per.values().flatten().copied().collect();
    let make = |method: &str, v: &[Micros]| {
        let mut bins = vec![0u64; BINS];
        for &l in v {
            bins[bin_of(l)] += 1;
        }
        latency::quantiles(v).map(|quantiles| MethodLatency {
            method: method.to_string(),
            quantiles,
            bins,
        })
    };
    let mut out: Vec<MethodLatency> = per.iter().filter_map(|(m, v)| make(m, v)).collect();
    out.sort_by(|x, y| {
        y.quantiles
            .count
            .cmp(&x.quantiles.count)
            .then_with(|| x.method.cmp(&y.method))
    });
    out.extend(make("*", &all));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_log_spaced() {
        assert_eq!(bin_of(0), 0);
        assert_eq!(bin_of(10), 0); // 0.01 ms
        assert_eq!(bin_of(1_000), 2 * PER_DECADE as usize); // 1 ms
        assert_eq!(bin_of(999), 2 * PER_DECADE as usize - 1);
        assert_eq!(bin_of(i64::MAX), BINS - 1);
        assert!((edge_ms(8) - 1.0).abs() < 1e-9);
    }
}

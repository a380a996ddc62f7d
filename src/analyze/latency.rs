//! Latency quantiles and medians (DESIGN.md rule 10): exact, nearest rank.

use serde::Serialize;

use crate::record::Micros;

/// Exact quantiles of a set of latencies, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quantiles {
    /// Number of latencies.
    pub count: usize,
    /// Nearest-rank p50 (ms).
    pub p50: f64,
    /// Nearest-rank p90 (ms).
    pub p90: f64,
    /// Nearest-rank p99 (ms).
    pub p99: f64,
    /// Largest (ms).
    pub max: f64,
}

/// The value at 1-based rank ceil(q·n) of the ascending `sorted` values.
pub fn nearest_rank(sorted: &[Micros], permille: usize) -> Micros {
    let n = sorted.len();
    let rank = (permille * n).div_ceil(1000).max(1);
    sorted[rank.min(n) - 1]
}

/// Latencies sorted ascending, never empty: where every latency quantile
/// of the outputs is taken (nearest rank) and turned into milliseconds,
/// for `summary.json`, the tables and the page alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sorted(Vec<Micros>);

impl Sorted {
    /// Sorts `values`; `None` when empty.
    pub fn new(mut values: Vec<Micros>) -> Option<Sorted> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        Some(Sorted(values))
    }

    /// Number of latencies.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The nearest-rank quantile at `permille` ‰ (ms).
    pub fn quantile_ms(&self, permille: usize) -> f64 {
        ms(nearest_rank(&self.0, permille))
    }

    /// The largest (ms).
    pub fn max_ms(&self) -> f64 {
        ms(*self.0.last().unwrap_or(&0))
    }

    /// The [`median`] (ms).
    pub fn median_ms(&self) -> f64 {
        median_of_sorted(&self.0) / 1000.0
    }

    /// Count, p50, p90, p99 and max.
    pub fn quantiles(&self) -> Quantiles {
        Quantiles {
            count: self.count(),
            p50: self.quantile_ms(500),
            p90: self.quantile_ms(900),
            p99: self.quantile_ms(990),
            max: self.max_ms(),
        }
    }
}

/// µs → ms.
fn ms(x: Micros) -> f64 {
    x as f64 / 1000.0
}

/// Quantiles of `values` (µs in, ms out); `None` when empty.
pub fn quantiles(values: &[Micros]) -> Option<Quantiles> {
    Sorted::new(values.to_vec()).map(|s| s.quantiles())
}

/// Median in µs (an even count's median is the mean of the two middle
/// values); 0 for an empty slice.
pub fn median(values: &[Micros]) -> f64 {
    let mut v = values.to_vec();
    v.sort_unstable();
    median_of_sorted(&v)
}

/// [`median`] of values already sorted.
pub fn median_of_sorted(v: &[Micros]) -> f64 {
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
    }
}

/// [`median`] of `sorted` without its element at index `skip` (the median
/// of the rest of a batch, rule 10), in O(1): no copy per member, so a
/// batch of n members costs one sort, not n.
pub fn median_without(sorted: &[Micros], skip: usize) -> f64 {
    let n = sorted.len().saturating_sub(1);
    if n == 0 || skip >= sorted.len() {
        return 0.0;
    }
    let at = |k: usize| sorted[if k < skip { k } else { k + 1 }] as f64;
    if n % 2 == 1 {
        at(n / 2)
    } else {
        (at(n / 2 - 1) + at(n / 2)) / 2.0
    }
}

/// The two middle values of `sorted` without its element at index `skip`
/// (`usize::MAX`: none left out) when they are an even count, not zero:
/// the values whose mean is their median (rule 10), which a `slow_tail`
/// detail names beside the nearest-rank p50 (the lower of the two).
pub fn middle_two(sorted: &[Micros], skip: usize) -> Option<(Micros, Micros)> {
    let n = sorted.len() - usize::from(skip < sorted.len());
    if n == 0 || n % 2 == 1 {
        return None;
    }
    let at = |k: usize| sorted[if k < skip { k } else { k + 1 }];
    Some((at(n / 2 - 1), at(n / 2)))
}

#[cfg(test)]
mod tests {
    /// 1, 3, 3, 7, 9, 12: the middle two are 3 and 7 (median 5); without
    /// the 9 (index 4) five are left: none. 1, 3, 3, 7: 3 and 3. 1, 3, 3,
    /// 7, 9 without the 1 (index 0) is 3, 3, 7, 9: 3 and 7. One value
    /// without itself, and no value: none.
    #[test]
    fn middle_two_of_an_even_count() {
        let v: Vec<super::Micros> = vec![1, 3, 3, 7, 9, 12];
        assert_eq!(super::middle_two(&v, usize::MAX), Some((3, 7)));
        assert_eq!(super::middle_two(&v, 4), None);
        assert_eq!(super::middle_two(&v[..4], usize::MAX), Some((3, 3)));
        assert_eq!(super::middle_two(&v[..5], 0), Some((3, 7)));
        assert_eq!(super::middle_two(&v[..1], 0), None);
        assert_eq!(super::middle_two(&[], usize::MAX), None);
    }

    #[test]
    fn median_without_equals_median_of_the_rest() {
        let v: Vec<super::Micros> = vec![1, 3, 3, 7, 9, 12, 40];
        for len in 1..=v.len() {
            let s = &v[..len];
            for skip in 0..len {
                let mut rest = s.to_vec();
                rest.remove(skip);
                assert_eq!(
                    super::median_without(s, skip),
                    super::median(&rest),
                    "{len} {skip}"
                );
            }
        }
    }

    use super::*;

    #[test]
    fn nearest_rank_by_hand() {
        // 1..=10 ms: p50 rank 5 → 5 ms, p90 rank 9, p99 rank ceil(9.9)=10.
        let v: Vec<Micros> = (1..=10).map(|x| x * 1000).collect();
        let q = quantiles(&v).unwrap();
        assert_eq!(
            (q.p50, q.p90, q.p99, q.max, q.count),
            (5.0, 9.0, 10.0, 10.0, 10)
        );
        assert_eq!(median(&[1, 3]), 2.0);
        assert_eq!(median(&[5, 1, 3]), 3.0);
        assert!(quantiles(&[]).is_none());
    }
}

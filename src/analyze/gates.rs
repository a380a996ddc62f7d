//! Gates: what makes a run fail besides `--fail-on` (docs/DESIGN.md
//! "Gates"). `--fail-on-kind KIND` fails the run on any finding of that
//! kind whatever its severity, `--allow KIND` never lets that kind fail
//! it, and `--max-latency METHOD:QUANTILE=DURATION` is a latency budget.
//! A finding that a capture gap explains never fails a run (it is `info`
//! for that reason alone, and no gate can make it a fault).

use std::collections::BTreeMap;

use serde::Serialize;

use super::latency::Sorted;
use super::{Analysis, Finding, FindingKind, Severity};
use crate::record::Micros;

/// A latency quantile a budget names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantile {
    /// Nearest-rank median.
    P50,
    /// Nearest-rank 90th percentile.
    P90,
    /// Nearest-rank 99th percentile.
    P99,
    /// Nearest-rank 99.9th percentile.
    P999,
    /// The largest.
    Max,
}

impl Quantile {
    /// The word of the flag and the outputs (`p50`, `p90`, `p99`, `p99.9`, `max`).
    pub fn as_str(self) -> &'static str {
        match self {
            Quantile::P50 => "p50",
            Quantile::P90 => "p90",
            Quantile::P99 => "p99",
            Quantile::P999 => "p99.9",
            Quantile::Max => "max",
        }
    }

    fn of(self, s: &Sorted) -> f64 {
        match self {
            Quantile::P50 => s.quantile_ms(500),
            Quantile::P90 => s.quantile_ms(900),
            Quantile::P99 => s.quantile_ms(990),
            Quantile::P999 => s.quantile_ms(999),
            Quantile::Max => s.max_ms(),
        }
    }
}

/// One `--max-latency` budget: `METHOD:QUANTILE=DURATION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencyBudget {
    /// The method, or `*`: every method, each on its own latencies.
    pub method: String,
    /// Which quantile.
    pub quantile: Quantile,
    /// The budget (µs); the gate fails when the quantile is above it.
    pub limit_us: Micros,
}

impl LatencyBudget {
    /// Parses `tools/call:p99=2s` (the duration as `--timeout` takes it,
    /// parsed by `duration`). The method is everything before the last
    /// `:` that precedes the `=` (method names may hold `:`).
    ///
    /// # Errors
    /// A sentence saying what is wrong with `text`.
    pub fn parse(
        text: &str,
        duration: impl Fn(&str) -> Result<Micros, String>,
    ) -> Result<LatencyBudget, String> {
        let shape = "use METHOD:QUANTILE=DURATION, e.g. tools/call:p99=2s or '*:max=30s'";
        let (head, dur) = text
            .rsplit_once('=')
            .ok_or_else(|| format!("`{text}`: {shape}"))?;
        let (method, q) = head
            .rsplit_once(':')
            .ok_or_else(|| format!("`{text}`: {shape}"))?;
        if method.is_empty() {
            return Err(format!("`{text}`: no method ({shape})"));
        }
        let quantile = match q.trim().to_ascii_lowercase().as_str() {
            "p50" | "median" => Quantile::P50,
            "p90" => Quantile::P90,
            "p99" => Quantile::P99,
            "p99.9" | "p999" => Quantile::P999,
            "max" => Quantile::Max,
            other => {
                return Err(format!(
                    "`{text}`: quantile `{other}` is not one of p50, p90, p99, p99.9, max"
                ));
            }
        };
        let limit_us = duration(dur).map_err(|e| format!("`{text}`: {e}"))?;
        Ok(LatencyBudget {
            method: method.to_string(),
            quantile,
            limit_us,
        })
    }

    /// How the gate is named in the outputs: `max-latency tools/call p99 <= 2000 ms`.
    pub fn name(&self) -> String {
        format!(
            "max-latency {} {} <= {} ms",
            self.method,
            self.quantile.as_str(),
            fmt_ms(self.limit_us as f64 / 1000.0)
        )
    }
}

/// Which findings fail the run: `--fail-on` with `--fail-on-kind` and
/// `--allow`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// The lowest severity that fails the run (`None`: `--fail-on never`).
    pub floor: Option<Severity>,
    /// Kinds that fail the run whatever their severity.
    pub fail_on_kind: Vec<FindingKind>,
    /// Kinds that never fail the run.
    pub allow: Vec<FindingKind>,
}

impl Policy {
    /// Whether `f` fails the run: never when a capture gap explains it or
    /// its kind is allowed; always when its kind is named by
    /// `--fail-on-kind` (an `info` the traffic explains, a `slow_tail` with
    /// progress, included: whatever its severity); else when its severity
    /// reaches the floor (an explained finding is `info`).
    pub fn fails(&self, f: &Finding) -> bool {
        if f.capture_gap() || self.allow.contains(&f.kind) {
            return false;
        }
        self.fail_on_kind.contains(&f.kind) || self.floor.is_some_and(|fl| f.severity() >= fl)
    }
}

/// The verdict of one gate (`summary.json` `gates[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateResult {
    /// The gate as a person reads it (`fail-on-kind duplicate_id`,
    /// `allow slow_tail`, `max-latency tools/call p99 <= 2000 ms`).
    pub gate: String,
    /// Whether the run passes it (an `allow` gate always passes).
    pub passed: bool,
    /// What was measured, in one line.
    pub detail: String,
    /// The findings of the gate's kind (`fail-on-kind`, `allow`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<u64>,
    /// The measured quantile (ms) of the worst method (`max-latency`);
    /// `None` when no latency of the method was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_ms: Option<f64>,
    /// The method whose quantile that is (`max-latency`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Whether the gate judged anything: `false` for a budget that found
    /// no latency to measure (it passes, and every output says it was not
    /// judged: `judged: false` in summary.json, a skipped JUnit case, "gate
    /// not judged" on the terminal). Written only when `false`.
    #[serde(skip_serializing_if = "is_true")]
    pub judged: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Evaluates every gate of `policy` and `budgets` on the run, in the
/// order: fail-on-kind, allow, max-latency (each in command-line order).
/// Latencies are the ones rule 10 counts (paired, not cancelled, both
/// times bounded by the capture), per method over every session.
pub fn evaluate(a: &Analysis, policy: &Policy, budgets: &[LatencyBudget]) -> Vec<GateResult> {
    let mut out = kind_gates(a, policy);
    if budgets.is_empty() {
        return out;
    }
    let sorted: BTreeMap<&str, Sorted> = super::histogram::per_method(a)
        .into_iter()
        .filter_map(|(m, v)| Sorted::new(v).map(|s| (m, s)))
        .collect();
    out.extend(budgets.iter().map(|b| budget_gate(a, &sorted, b)));
    out
}

/// The `--fail-on-kind` gates (failing on a finding of the kind that no
/// capture gap explains), then the `--allow` ones (always passing).
fn kind_gates(a: &Analysis, policy: &Policy) -> Vec<GateResult> {
    let mut out = Vec::new();
    let count = |k: FindingKind, gaps: bool| {
        a.findings
            .iter()
            .filter(|f| f.kind == k && f.capture_gap() == gaps)
            .count() as u64
    };
    for &k in &policy.fail_on_kind {
        let (n, gaps) = (count(k, false), count(k, true));
        let mut detail = format!("{n} {} finding(s)", k.name());
        if gaps > 0 {
            detail.push_str(&format!(
                " ({gaps} more explained by capture gaps do not count)"
            ));
        }
        out.push(GateResult {
            gate: format!("fail-on-kind {}", k.name()),
            passed: n == 0,
            detail,
            findings: Some(n),
            value_ms: None,
            method: None,
            judged: true,
        });
    }
    for &k in &policy.allow {
        let n = count(k, false) + count(k, true);
        out.push(GateResult {
            gate: format!("allow {}", k.name()),
            passed: true,
            detail: format!("{n} {} finding(s), none fails the run", k.name()),
            findings: Some(n),
            value_ms: None,
            method: None,
            judged: true,
        });
    }
    out
}

/// One `--max-latency` gate, judged on the worst method it covers (ties:
/// the first by name) of `sorted`, each method's latencies; a budget
/// that covers no measured method passes, saying why.
fn budget_gate(a: &Analysis, sorted: &BTreeMap<&str, Sorted>, b: &LatencyBudget) -> GateResult {
    let limit_ms = b.limit_us as f64 / 1000.0;
    let mut worst: Option<(&str, f64, usize)> = None;
    for (m, s) in sorted {
        if b.method != "*" && *m != b.method {
            continue;
        }
        let v = b.quantile.of(s);
        if worst.is_none_or(|(_, w, _)| v > w) {
            worst = Some((m, v, s.count()));
        }
    }
    let Some((m, v, n)) = worst else {
        return GateResult {
            gate: b.name(),
            passed: true,
            detail: unmeasured(a, b),
            findings: None,
            value_ms: None,
            method: None,
            judged: false,
        };
    };
    GateResult {
        gate: b.name(),
        passed: v <= limit_ms,
        detail: format!(
            "{m} {} {} ms over {n} {}",
            b.quantile.as_str(),
            fmt_ms(v),
            if n == 1 { "latency" } else { "latencies" }
        ),
        findings: None,
        value_ms: Some(v),
        method: Some(m.to_string()),
        judged: true,
    }
}

/// Why a budget judged nothing: no latency at all, none of its method,
/// or no request of its method (a misspelt name, most likely).
fn unmeasured(a: &Analysis, b: &LatencyBudget) -> String {
    if b.method == "*" {
        "no latency measured in the capture".to_string()
    } else if a
        .sessions
        .iter()
        .flat_map(|s| s.requests.iter())
        .any(|q| q.method.as_deref() == Some(b.method.as_str()))
    {
        format!("no latency of {} measured in the capture", b.method)
    } else {
        format!(
            "no request of {} in the capture (is the method name right?): nothing to judge",
            b.method
        )
    }
}

/// Milliseconds without a trailing `.0` (`2000`, `12.5`).
fn fmt_ms(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dur(t: &str) -> Result<Micros, String> {
        crate::cli::parse_duration_us(t)
    }

    #[test]
    fn budgets_parse() {
        let b = LatencyBudget::parse("tools/call:p99=2s", dur).expect("valid");
        assert_eq!(
            b,
            LatencyBudget {
                method: "tools/call".into(),
                quantile: Quantile::P99,
                limit_us: 2_000_000
            }
        );
        assert_eq!(b.name(), "max-latency tools/call p99 <= 2000 ms");
        let b = LatencyBudget::parse("ns:tool:p99.9=1500ms", dur).expect("valid");
        assert_eq!(
            (b.method.as_str(), b.quantile, b.limit_us),
            ("ns:tool", Quantile::P999, 1_500_000)
        );
        assert_eq!(
            LatencyBudget::parse("*:max=0.25", dur)
                .expect("valid")
                .name(),
            "max-latency * max <= 0.25 ms"
        );
        let e = LatencyBudget::parse("tools/call=2s", dur).expect_err("no quantile");
        assert!(e.contains("use METHOD:QUANTILE=DURATION"), "{e}");
        let e = LatencyBudget::parse("tools/call:p95=2s", dur).expect_err("p95");
        assert!(
            e.contains("quantile `p95` is not one of p50, p90, p99, p99.9, max"),
            "{e}"
        );
        let e = LatencyBudget::parse("x:p99=soon", dur).expect_err("duration");
        assert!(e.contains("`soon` is not a duration"), "{e}");
        assert!(LatencyBudget::parse(":p99=1s", dur).is_err());
    }
}

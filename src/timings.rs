//! Wall time per stage of a run, for the benchmarks (issue 13: every
//! output benched on its own). Off unless the environment variable
//! `MCP_AUDIT_TIMINGS` is set (to anything); then, at the end of the run,
//! stderr gets one line per stage in the order stages first ran:
//!
//! ```text
//! timing: analysis 2684.1 ms
//! timing: pairs.parquet 412.9 ms
//! ```
//!
//! A stage timed several times (a table written frame by frame) is the sum
//! of its parts. With timings on, the outputs are written one after
//! another ([`join`]), so each stage's time is its own and not work another
//! output's thread lent it; the analysis keeps its threads. Nothing here
//! changes what a run writes.

use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The stages timed so far: name, summed wall time.
static STAGES: Mutex<Vec<(String, Duration)>> = Mutex::new(Vec::new());

/// Whether `MCP_AUDIT_TIMINGS` is set (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MCP_AUDIT_TIMINGS").is_some())
}

/// Runs `f`, adding its wall time to stage `name` when timings are on.
pub fn stage<T>(name: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let t = Instant::now();
    let out = f();
    add(name, t.elapsed());
    out
}

/// `rayon::join(a, b)`, or `a` then `b` on this thread when timings are on
/// (a thread blocked in a join runs other queued work, which would be
/// counted in the stage it interrupted).
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if enabled() {
        let ra = a();
        (ra, b())
    } else {
        rayon::join(a, b)
    }
}

/// Adds `d` to stage `name`.
fn add(name: &str, d: Duration) {
    let mut stages = STAGES.lock().unwrap_or_else(|e| e.into_inner());
    match stages.iter_mut().find(|(n, _)| n == name) {
        Some((_, sum)) => *sum += d,
        None => stages.push((name.to_string(), d)),
    }
}

/// The stage lines (`timing: NAME MS ms`), in the order stages first ran.
pub fn lines() -> Vec<String> {
    let stages = STAGES.lock().unwrap_or_else(|e| e.into_inner());
    stages
        .iter()
        .map(|(n, d)| format!("timing: {n} {:.1} ms", d.as_secs_f64() * 1e3))
        .collect()
}

/// Prints [`lines`] on stderr when timings are on.
pub fn print() {
    if enabled() {
        for l in lines() {
            eprintln!("{l}");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stage_timed_twice_is_one_line_with_the_sum() {
        super::add("test-stage-x", std::time::Duration::from_millis(2));
        super::add("test-stage-y", std::time::Duration::from_micros(500));
        super::add("test-stage-x", std::time::Duration::from_millis(3));
        let lines = super::lines();
        let mine: Vec<&String> = lines.iter().filter(|l| l.contains("test-stage-")).collect();
        assert_eq!(
            mine,
            ["timing: test-stage-x 5.0 ms", "timing: test-stage-y 0.5 ms"]
        );
    }
}

//! Progress on stderr for long runs (issue 5): bytes read of the total,
//! messages parsed, and the read rate in MB/s, drawn by `indicatif`.
//!
//! Shown only when the CLI asks for it (stderr is a terminal and `-q` is
//! not given), and then only once the run has lasted [`SHOW_AFTER`]: a
//! short run draws nothing at all. The bar is cleared when the run
//! finishes, so stdout and every output file are the same with or without
//! it. [`Progress`] is shared by the reading threads (`&Progress` is
//! `Sync`; its counters are atomics).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its progress is drawn.
pub const SHOW_AFTER: Duration = Duration::from_millis(700);

/// Redraws per second at most.
const REFRESH_HZ: u8 = 8;

/// Progress of one run. [`Progress::hidden`] draws nothing and costs two
/// atomic adds per call.
pub struct Progress {
    bar: Option<ProgressBar>,
    messages: AtomicU64,
    /// `true` once finished: the reveal thread must not draw after that.
    done: Arc<Mutex<bool>>,
}

impl Progress {
    /// Progress over `total_bytes` of input. When `show` is false nothing
    /// is ever drawn. When true, a background thread reveals the bar on
    /// stderr after [`SHOW_AFTER`] unless [`Progress::finish`] came first.
    pub fn new(total_bytes: u64, show: bool) -> Progress {
        let done = Arc::new(Mutex::new(false));
        if !show {
            return Progress {
                bar: None,
                messages: AtomicU64::new(0),
                done,
            };
        }
        let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden());
        bar.set_style(style(
            "{spinner} {prefix:9} {decimal_bytes:>9} / {decimal_total_bytes:<9} {wide_msg} {decimal_bytes_per_sec:>11} {elapsed:>4}",
        ));
        bar.set_prefix("reading");
        bar.set_message("0 messages");
        let reveal = bar.clone();
        let flag = Arc::clone(&done);
        std::thread::spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            let done = flag.lock().unwrap_or_else(|e| e.into_inner());
            if !*done {
                reveal.set_draw_target(ProgressDrawTarget::stderr_with_hz(REFRESH_HZ));
                reveal.enable_steady_tick(Duration::from_millis(250));
            }
        });
        Progress {
            bar: Some(bar),
            messages: AtomicU64::new(0),
            done,
        }
    }

    /// A progress that never draws.
    pub fn hidden() -> Progress {
        Progress::new(0, false)
    }

    /// Counts `bytes` more of input read (on-disk bytes: compressed for a
    /// compressed file) and `messages` more JSON-RPC messages parsed.
    pub fn read(&self, bytes: u64, messages: u64) {
        let total = self.messages.fetch_add(messages, Ordering::Relaxed) + messages;
        if let Some(b) = &self.bar {
            b.inc(bytes);
            b.set_message(format!("{total} messages"));
        }
    }

    /// Messages counted so far.
    pub fn messages(&self) -> u64 {
        self.messages.load(Ordering::Relaxed)
    }

    /// Names the stage after reading (`analysing`, `writing`). The first
    /// call ends the reading: the line then keeps the bytes and messages
    /// read and the mean read rate, which no longer moves.
    pub fn stage(&self, name: &'static str) {
        if let Some(b) = &self.bar {
            if b.prefix() == "reading" {
                if let Some(len) = b.length() {
                    b.set_position(len);
                }
                let secs = b.elapsed().as_secs_f64().max(1e-3);
                b.set_style(style(
                    "{spinner} {prefix:9} {decimal_total_bytes:>9} read, {wide_msg} {elapsed:>4}",
                ));
                b.set_message(format!(
                    "{} messages, {:.1} MB/s",
                    self.messages(),
                    b.position() as f64 / secs / 1e6
                ));
            }
            b.set_prefix(name);
        }
    }

    /// Runs `f` (which writes to stderr) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Clears the bar for good; nothing is drawn after this.
    pub fn finish(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *done = true;
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_progress_counts_and_draws_nothing() {
        let p = Progress::hidden();
        p.read(10, 3);
        p.read(5, 2);
        p.stage("analysing");
        assert_eq!(p.messages(), 5);
        assert_eq!(p.suspend(|| 7), 7);
        p.finish();
    }

    #[test]
    fn a_short_shown_run_finishes_before_it_is_drawn() {
        // Shown, but finished well before SHOW_AFTER: the reveal thread
        // then leaves the (hidden) target alone.
        let p = Progress::new(100, true);
        p.read(100, 1);
        p.finish();
        std::thread::sleep(SHOW_AFTER + Duration::from_millis(100));
        assert!(p.bar.as_ref().is_some_and(|b| b.is_finished()));
    }
}

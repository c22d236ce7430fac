//! A progress bar on stderr, shared by the runs of a parallel sweep.
//!
//! Work is counted in abstract units (a scenario usually counts simulated
//! milliseconds). The bar is an `indicatif` bar drawn on stderr only when
//! stderr is a terminal: a redirected or captured stderr receives nothing from
//! it, and neither does a hidden bar (tests, `--quiet`).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A thread-safe progress counter that draws itself on stderr.
pub struct Progress {
    bar: ProgressBar,
    fixed: AtomicBool,
}

impl Progress {
    /// A bar on stderr if stderr is a terminal, hidden otherwise.
    #[must_use]
    pub fn new(label: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(10));
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{bar:30}] {percent:>3}% {elapsed} elapsed, ~{eta} left",
        ) {
            bar.set_style(style.progress_chars("#>."));
        }
        bar.set_message(label.to_string());
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress {
            bar,
            fixed: AtomicBool::new(false),
        }
    }

    /// A bar that never draws.
    #[must_use]
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
            fixed: AtomicBool::new(false),
        }
    }

    /// Whether the bar draws anything.
    #[must_use]
    pub fn is_visible(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// Changes the label.
    pub fn set_label(&self, label: &str) {
        self.bar.set_message(label.to_string());
    }

    /// Adds `units` to the expected total (each run calls this as it starts),
    /// unless a sweep fixed the total beforehand.
    pub fn add_total(&self, units: u64) {
        if !self.fixed.load(Ordering::Relaxed) {
            self.bar.inc_length(units);
        }
    }

    /// Sets the whole sweep's total before its runs start, so the bar does not
    /// jump back as parallel runs register themselves; later `add_total` calls
    /// are ignored.
    pub fn set_total(&self, units: u64) {
        self.bar.set_length(units);
        self.fixed.store(true, Ordering::Relaxed);
    }

    /// Sets the total before a set of parallel runs starts ([`set_total`](Self::set_total)),
    /// unless it was fixed already (by an enclosing set of runs).
    pub fn plan(&self, units: u64) {
        if !self.fixed.load(Ordering::Relaxed) {
            self.set_total(units);
        }
    }

    /// Records `units` of work done.
    pub fn advance(&self, units: u64) {
        self.bar.inc(units);
    }

    /// Clears the bar's line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

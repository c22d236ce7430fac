//! A progress bar on stderr, shared by the runs of a parallel sweep.
//!
//! Work is counted in abstract units (a scenario usually counts simulated
//! milliseconds). Nothing is printed during the first second, so short runs stay
//! quiet, nor when the bar is hidden (tests, `--quiet`).

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A thread-safe progress counter that draws itself on stderr.
pub struct Progress {
    total: AtomicU64,
    done: AtomicU64,
    fixed: AtomicBool,
    visible: bool,
    drawn: AtomicBool,
    start: Instant,
    last_draw: Mutex<Instant>,
    label: Mutex<String>,
}

impl Progress {
    /// A visible bar (drawn after the first second of work).
    #[must_use]
    pub fn new(label: &str) -> Progress {
        Progress {
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
            fixed: AtomicBool::new(false),
            visible: true,
            drawn: AtomicBool::new(false),
            start: Instant::now(),
            last_draw: Mutex::new(Instant::now()),
            label: Mutex::new(label.to_string()),
        }
    }

    /// A bar that never draws.
    #[must_use]
    pub fn hidden() -> Progress {
        let mut p = Progress::new("");
        p.visible = false;
        p
    }

    /// Changes the label.
    pub fn set_label(&self, label: &str) {
        if let Ok(mut l) = self.label.lock() {
            *l = label.to_string();
        }
    }

    /// Adds `units` to the expected total (each run calls this as it starts),
    /// unless a sweep fixed the total beforehand.
    pub fn add_total(&self, units: u64) {
        if !self.fixed.load(Ordering::Relaxed) {
            self.total.fetch_add(units, Ordering::Relaxed);
        }
    }

    /// Sets the whole sweep's total before its runs start, so the bar does not
    /// jump back as parallel runs register themselves; later `add_total` calls
    /// are ignored.
    pub fn set_total(&self, units: u64) {
        self.total.store(units, Ordering::Relaxed);
        self.fixed.store(true, Ordering::Relaxed);
    }

    /// Records `units` of work done, redrawing at most every 100 ms.
    pub fn advance(&self, units: u64) {
        let done = self.done.fetch_add(units, Ordering::Relaxed) + units;
        if !self.visible || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let Ok(mut last) = self.last_draw.try_lock() else {
            return;
        };
        if last.elapsed() < Duration::from_millis(100) {
            return;
        }
        *last = Instant::now();
        let total = self.total.load(Ordering::Relaxed).max(1);
        let frac = (done as f64 / total as f64).min(1.0);
        let width = 30;
        let filled = (frac * width as f64) as usize;
        let label = self.label.lock().map(|l| l.clone()).unwrap_or_default();
        let el = self.start.elapsed().as_secs_f64();
        let eta = if frac > 0.0 { el / frac - el } else { 0.0 };
        let mut e = std::io::stderr().lock();
        let _ = write!(
            e,
            "\r{label} [{}{}] {:5.1}% {el:.0}s elapsed, ~{eta:.0}s left   ",
            "#".repeat(filled),
            ".".repeat(width - filled),
            frac * 100.0
        );
        let _ = e.flush();
        self.drawn.store(true, Ordering::Relaxed);
    }

    /// Clears the bar's line if it was drawn.
    pub fn finish(&self) {
        if self.drawn.swap(false, Ordering::Relaxed) {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r{}\r", " ".repeat(100));
            let _ = e.flush();
        }
    }
}

//! A reference model of RED written as plainly as FJ93, in `f64`, for the
//! differential tests and fuzz targets. It uses the profile's exact `w_q` and
//! `max_p` (both are multiples of 2^-32, exact in an `f64`).
//!
//! Compiled for the crate's tests and with the `reference` feature; it is not
//! used by the state machines (no floats on the per-packet path). `libm`
//! provides `pow` without `std`.
#![allow(clippy::float_arithmetic)]

use crate::{RedConfig, RedProfile};

/// FJ93's average: `avg = (1 - w_q) avg + w_q q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefAvg {
    /// The average, in queue units.
    pub avg: f64,
    /// `w_q`.
    pub w: f64,
}

impl RefAvg {
    /// An arrival to a queue of `q` (FJ93 figure 2).
    pub fn arrive(&mut self, q: f64) {
        self.avg = (1.0 - self.w) * self.avg + self.w * q;
    }
    /// An idle period of `m` typical transmission times: `avg *= (1 - w_q)^m`.
    pub fn idle(&mut self, m: f64) {
        self.avg *= libm::pow(1.0 - self.w, m);
    }
}

/// FJ93's average driven as [`Red`](crate::Red) drives its own (the queue
/// length clamped to the buffer limit, idle decay over `m = idle ticks / s`
/// at an arrival to an empty queue, the idle period starting at the last
/// `queue_empty` or empty-queue arrival, a clock that steps back adding no
/// time), together with a bound on how far the fixed-point average may be
/// from it.
///
/// Timestamps are plain tick counts; the caller keeps them below 2^63, where
/// [`Instant`](netcond_core::Instant)'s serial comparison is the plain one.
///
/// # The bound
///
/// In queue units, with `u = 2^-F` the resolution of the fixed-point average
/// ([`RedProfile::avg_frac_bits`]) and `e` the distance before an operation:
///
/// - An arrival to a nonempty queue: the fixed-point step rounds by less than
///   `u` (module `fx`, `ewma`), and the exact step shrinks the earlier
///   distance by `1 - w_q`: `e <- (1 - w_q) e + u + 2^-51 limit`, the last
///   term for the three roundings of the `f64` step (values at most `limit`).
///   Without idle periods the bound stays below `u / w_q + ...`, the bound of
///   the crate's arrival-only differential test.
/// - An arrival to an empty queue after `dt` idle ticks, factor `f = (1 -
///   w_q)^(dt/s)`: the crate's decay is within a relative 2^-40 of the exact
///   factor, then rounded to nearest (half a unit), and the exact factor
///   shrinks the earlier distance: `e <- f e + u / 2 + f (avg + e) 2^-40 +
///   2^-50 avg`, the last term for the `f64` model's own rounding of `m` and
///   `pow` (relative `|ln f| 2^-52`, and `f |ln f| <= 1/e`).
///
/// The bound grows only with idle periods whose rounding does not cancel
/// (many short idle periods, each moving the average by less than half a
/// unit, add up to half a unit each): it is tracked step by step, not fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefRedAvg {
    /// The model's average.
    pub avg: RefAvg,
    /// The bound on `|fixed - avg|`, in queue units.
    pub bound: f64,
    unit: f64,
    limit: u32,
    s: f64,
    q_time: u64,
}

impl RefRedAvg {
    /// The model of a new [`Red`](crate::Red) (average 0, idle since tick 0)
    /// for `profile` (which `cfg` made: the model takes `s` from it).
    #[must_use]
    pub fn new(profile: &RedProfile, cfg: &RedConfig) -> RefRedAvg {
        RefRedAvg {
            avg: RefAvg {
                avg: 0.0,
                w: profile.w_q().to_num::<f64>(),
            },
            bound: 0.0,
            unit: libm::ldexp(1.0, -(profile.avg_frac_bits() as i32)),
            limit: profile.limit(),
            s: cfg.tick.ticks_from_duration(cfg.queue.typical_tx) as f64,
            q_time: 0,
        }
    }

    /// A packet arrives at `now` to a queue of `queue_len`.
    pub fn arrive(&mut self, now: u64, queue_len: u32) {
        if queue_len == 0 {
            let idle = now.saturating_sub(self.q_time);
            self.q_time = self.q_time.max(now);
            if idle == 0 {
                return;
            }
            let before = self.avg.avg;
            self.avg.idle(idle as f64 / self.s);
            let f = libm::pow(1.0 - self.avg.w, idle as f64 / self.s);
            self.bound = f * self.bound
                + self.unit / 2.0
                + f * (before + self.bound) * libm::ldexp(1.0, -40)
                + before * libm::ldexp(1.0, -50);
        } else {
            self.avg.arrive(f64::from(queue_len.min(self.limit)));
            self.bound = (1.0 - self.avg.w) * self.bound
                + self.unit
                + f64::from(self.limit) * libm::ldexp(1.0, -51);
        }
    }

    /// The queue became empty at `now`.
    pub fn queue_empty(&mut self, now: u64) {
        self.q_time = self.q_time.max(now);
    }

    /// True when a fixed-point average of `avg` queue units is within the
    /// bound of the model's.
    #[must_use]
    pub fn matches(&self, avg: f64) -> bool {
        libm::fabs(avg - self.avg.avg) <= self.bound
    }
}

/// FJ93's p_b, with gentle RED.
pub fn p_b(avg: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> f64 {
    if avg < min_th {
        0.0
    } else if avg < max_th {
        max_p * (avg - min_th) / (max_th - min_th)
    } else if gentle && avg < 2.0 * max_th {
        max_p + (1.0 - max_p) * (avg - max_th) / max_th
    } else {
        1.0
    }
}

/// p_a for the n-th packet after a drop (n >= 1) under each spreading, as the
/// formula reads: `p_b / (K - c p_b)`, 1 when the denominator is not positive
/// or the quotient exceeds 1.
pub fn p_a(p: f64, n: u64, s: crate::Spreading) -> f64 {
    use crate::Spreading::*;
    let (k, c) = match s {
        // At a constant p_b the accumulated sum is (n - 1) p_b.
        Uniform | Accumulated => (1.0, (n - 1) as f64),
        UniformCountFirst => (1.0, n as f64),
        // At a constant p_b the sum of the p_b / 2 reaches U when the sum
        // of the p_b, (n - 1) p_b before this packet, reaches 2 U.
        Dpdk | AccumulatedDpdk => (2.0, (n - 1) as f64),
        Geometric => (1.0, 0.0),
        // ns-3's Wait=true (RedQueueDisc::ModifyP): count n, this packet
        // included; nothing while n p_b < 1, then p_b / (2 - n p_b).
        Wait => {
            let x = n as f64 * p;
            if x < 1.0 {
                return 0.0;
            }
            (2.0, n as f64)
        }
    };
    let den = k - c * p;
    if den <= 0.0 || p / den >= 1.0 {
        1.0
    } else {
        p / den
    }
}

/// `p_b / (k - c p_b)`, 1 when that is not in `[0, 1)`.
pub fn p_a_from(p: f64, k: f64, c: f64) -> f64 {
    let den = k - c * p;
    if den <= 0.0 || p / den >= 1.0 {
        1.0
    } else {
        p / den
    }
}

#[cfg(test)]
/// The distribution of the gap between drops at a constant p_b, from p_a:
/// `P(X = n) = p_a(n) prod_{i<n} (1 - p_a(i))`, until the mass is spent or
/// `max_n` is reached.
pub fn gap_pmf(p: f64, s: crate::Spreading, max_n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut survive = 1.0;
    for n in 1..=max_n as u64 {
        let pa = p_a(p, n, s);
        out.push(survive * pa);
        survive *= 1.0 - pa;
        if survive <= 0.0 {
            break;
        }
    }
    out
}

#[cfg(test)]
/// Mean and variance of the gap.
pub fn gap_moments(p: f64, s: crate::Spreading) -> (f64, f64) {
    let pmf = gap_pmf(p, s, 100_000_000);
    let mean: f64 = pmf
        .iter()
        .enumerate()
        .map(|(i, q)| (i + 1) as f64 * q)
        .sum();
    let m2: f64 = pmf
        .iter()
        .enumerate()
        .map(|(i, q)| ((i + 1) as f64).powi(2) * q)
        .sum();
    (mean, m2 - mean * mean)
}

//! A reference model of RED written as plainly as FJ93, in `f64`, for the
//! differential tests. It uses the profile's exact `w_q` and `max_p` (both are
//! multiples of 2^-32, exact in an `f64`).
#![allow(clippy::float_arithmetic)]

/// FJ93's average: `avg = (1 - w_q) avg + w_q q`.
pub struct RefAvg {
    pub avg: f64,
    pub w: f64,
}

impl RefAvg {
    pub fn arrive(&mut self, q: f64) {
        self.avg = (1.0 - self.w) * self.avg + self.w * q;
    }
    pub fn idle(&mut self, m: f64) {
        self.avg *= (1.0 - self.w).powf(m);
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
        Dpdk => (2.0, (n - 1) as f64),
        Geometric => (1.0, 0.0),
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

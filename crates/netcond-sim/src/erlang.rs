//! Erlang-B blocking: the theoretical row of draft-babiarz-pcn-explicit-marking-01's admission table.

/// Erlang-B blocking probability for `servers` servers and `erlangs` offered
/// load, by the stable recursion `B(0) = 1`, `B(n) = A B(n-1) / (n + A B(n-1))`.
#[must_use]
pub fn erlang_b(servers: u32, erlangs: f64) -> f64 {
    let mut b = 1.0;
    for n in 1..=servers {
        b = erlangs * b / (f64::from(n) + erlangs * b);
    }
    b
}

/// Carried load (Erlangs) of an Erlang-B system: `A (1 - B)`.
#[must_use]
pub fn carried(servers: u32, erlangs: f64) -> f64 {
    erlangs * (1.0 - erlang_b(servers, erlangs))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// algorithms.md: offered load 0.75 N; B(N, A) and B(N-1, A).
    #[test]
    fn seed_000_facts() {
        let pct = |n: u32, s: u32| 100.0 * erlang_b(s, 0.75 * f64::from(n));
        assert!((pct(10, 10) - 9.95).abs() < 0.005, "{}", pct(10, 10));
        assert!((pct(50, 50) - 0.87).abs() < 0.005, "{}", pct(50, 50));
        assert!(
            (pct(200, 200) - 0.0015).abs() < 0.00005,
            "{}",
            pct(200, 200)
        );
        assert!((pct(10, 9) - 14.74).abs() < 0.005, "{}", pct(10, 9));
        assert!((pct(50, 49) - 1.18).abs() < 0.005, "{}", pct(50, 49));
        assert!(
            (pct(200, 199) - 0.0020).abs() < 0.00005,
            "{}",
            pct(200, 199)
        );
    }
}

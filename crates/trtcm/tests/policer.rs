//! The premium TCP test's rule for the premium policer: with `PBs > TBs + one packet` and the
//! premium buffer served at least at the committed rate, a single conforming
//! stream never sees a buffer drop; and counterexamples when the buffer is
//! smaller.
//!
//! The premium buffer is served by a FIFO server of `R` bytes/s that sends
//! packets back to back and reports each one to the policer as dequeued when its
//! last byte has left. Service times are rounded down to whole nanoseconds, so
//! the server is never slower than `R`.

use std::collections::VecDeque;

use netcond_core::{Instant, RandomSource, Rate, SplitMix64};
use proptest::prelude::*;
use trtcm::{
    PolicerCounters, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile,
};

/// The premium queue's server.
struct Server {
    rate: u64, // bytes per second
    queue: VecDeque<u32>,
    /// When the packet at the head of the queue finishes (valid if non-empty).
    head_done: u64,
}

impl Server {
    fn service_ns(&self, len: u32) -> u64 {
        (u128::from(len) * 1_000_000_000 / u128::from(self.rate)) as u64
    }

    /// Completes every packet finished by `now`, reporting each to the policer.
    fn run_until(&mut self, now: u64, policer: &mut PremiumPolicer) {
        while let Some(&len) = self.queue.front() {
            if self.head_done > now {
                break;
            }
            policer.dequeued(len);
            self.queue.pop_front();
            if let Some(&next) = self.queue.front() {
                self.head_done += self.service_ns(next);
            }
        }
    }

    fn enqueue(&mut self, now: u64, len: u32) {
        if self.queue.is_empty() {
            self.head_done = now + self.service_ns(len);
        }
        self.queue.push_back(len);
    }
}

/// Offers `(gap_ns, len)` packets to a policer whose buffer is served at
/// `service` bytes/s; returns the counters.
fn simulate(cfg: &PremiumPolicerConfig, service: u64, stream: &[(u64, u32)]) -> PolicerCounters {
    simulate_max(cfg, service, stream).0
}

/// Like [`simulate`], also returning the largest backlog seen.
fn simulate_max(
    cfg: &PremiumPolicerConfig,
    service: u64,
    stream: &[(u64, u32)],
) -> (PolicerCounters, u64) {
    let p = PremiumPolicerProfile::new(cfg).unwrap();
    let mut pol = PremiumPolicer::new(&p, Instant::ZERO);
    let mut srv = Server {
        rate: service,
        queue: VecDeque::new(),
        head_done: 0,
    };
    let mut counters = PolicerCounters::default();
    let mut now = 0u64;
    let mut max_backlog = 0;
    for &(gap, len) in stream {
        now += gap;
        srv.run_until(now, &mut pol);
        let v = pol.offer(&p, Instant::from_ticks(now), len);
        counters.record(v, len);
        if v == PolicerVerdict::Admitted {
            srv.enqueue(now, len);
        }
        // The policer's count of the buffer is the server's queue.
        assert_eq!(
            pol.backlog(),
            srv.queue.iter().map(|&l| u64::from(l)).sum::<u64>()
        );
        max_backlog = max_backlog.max(pol.backlog());
    }
    (counters, max_backlog)
}

fn stream_strategy(max_packet: u32) -> impl Strategy<Value = Vec<(u64, u32)>> {
    proptest::collection::vec(
        (
            prop_oneof![Just(0u64), 0u64..2_000_000, 0u64..50_000_000],
            1u32..=max_packet,
        ),
        1..400,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The premium TCP test: PBs > TBs + one packet, service rate >= committed rate: no buffer drop.
    #[test]
    fn pbs_above_tbs_plus_packet_means_no_buffer_drop(
        rate in 1_000u64..10_000_000,
        extra in 0u64..2_000_000,
        max_packet in 1u32..9000,
        tbs_extra in 0u64..60_000,
        pbs_extra in 1u64..5_000,
        stream in stream_strategy(9000),
    ) {
        let tbs = u64::from(max_packet) + tbs_extra;
        let cfg = PremiumPolicerConfig::new(Rate::from_bytes_per_sec(rate), tbs, tbs + u64::from(max_packet) + pbs_extra, max_packet);
        prop_assert!(PremiumPolicerProfile::new(&cfg).unwrap().pbs_exceeds_tbs_plus_packet());
        let stream: Vec<(u64, u32)> =
            stream.into_iter().map(|(g, l)| (g, l.min(max_packet))).collect();
        let c = simulate(&cfg, rate + extra, &stream);
        prop_assert_eq!(c.packets(PolicerVerdict::BufferDrop), 0);
    }

    /// The exact bound: PBs = TBs + one packet - 1 byte is already enough.
    #[test]
    fn tight_bound_means_no_buffer_drop(
        rate in 1_000u64..10_000_000,
        max_packet in 1u32..3000,
        tbs_extra in 0u64..20_000,
        stream in stream_strategy(3000),
    ) {
        let tbs = u64::from(max_packet) + tbs_extra;
        let cfg = PremiumPolicerConfig::new(Rate::from_bytes_per_sec(rate), tbs, (tbs + u64::from(max_packet) - 1).max(u64::from(max_packet)), max_packet);
        let stream: Vec<(u64, u32)> =
            stream.into_iter().map(|(g, l)| (g, l.min(max_packet))).collect();
        let c = simulate(&cfg, rate, &stream);
        prop_assert_eq!(c.packets(PolicerVerdict::BufferDrop), 0);
    }
}

/// The streams above do exercise the policer: over many random streams there are
/// policer drops and full-ish buffers, so the property is not vacuous.
#[test]
fn random_streams_are_not_vacuous() {
    let mut r = SplitMix64::new(3);
    // Rate: 8% of 2048 kbit/s.
    let cfg = PremiumPolicerConfig::new(Rate::from_bytes_per_sec(20_480), 11_000, 13_000, 1500);
    // Offered at about 3x the committed rate, in bursts.
    let stream: Vec<(u64, u32)> = (0..200_000)
        .map(|_| {
            let gap = if r.chance(1 << 30) {
                u64::from(r.below(300_000_000))
            } else {
                0
            };
            (gap, 40 + r.below(1461))
        })
        .collect();
    let (c, max_backlog) = simulate_max(&cfg, 20_480, &stream);
    assert!(max_backlog > 10_000, "largest backlog {max_backlog}");
    assert!(c.packets(PolicerVerdict::PolicerDrop) > 1000);
    assert!(c.packets(PolicerVerdict::Admitted) > 1000);
    assert_eq!(c.packets(PolicerVerdict::BufferDrop), 0);
}

/// PBs < TBs: one burst of TBs conforming bytes at once overflows the buffer.
#[test]
fn buffer_smaller_than_bucket_drops() {
    // Rate: 8% of 2048 kbit/s.
    let cfg = PremiumPolicerConfig::new(Rate::from_bytes_per_sec(20_480), 11_000, 10_000, 1500);
    assert!(!PremiumPolicerProfile::new(&cfg)
        .unwrap()
        .pbs_exceeds_tbs_plus_packet());
    // Eight 1375-byte packets at t = 0: 11,000 bytes, all conforming.
    let c = simulate(&cfg, 20_480, &[(0, 1375); 8]);
    assert_eq!(c.packets(PolicerVerdict::PolicerDrop), 0);
    assert_eq!(c.packets(PolicerVerdict::BufferDrop), 1);
    // The same burst into the premium TCP test's case A buffer (13,000 bytes) fits.
    let a = cfg.with_pbs(13_000);
    let c = simulate(&a, 20_480, &[(0, 1375); 8]);
    assert_eq!(c.packets(PolicerVerdict::BufferDrop), 0);
}

/// PBs = TBs + one packet - 2 bytes: a buffer drop, because the packet in service
/// still occupies the buffer while the bucket has refilled almost all of it.
/// Rates: 1000 B/s on a nanosecond clock, i.e. one byte per millisecond.
#[test]
fn one_packet_of_slack_is_needed() {
    let cfg = |pbs| PremiumPolicerConfig::new(Rate::from_bytes_per_sec(1000), 3000, pbs, 1500);
    let ms = 1_000_000;
    // A: 1500 bytes at 0, in service until 1500 ms. At 1499 ms the bucket holds
    // 1500 + 1499 bytes: B (1500) and C (1499) conform.
    let stream = [(0, 1500), (1499 * ms, 1500), (0, 1499)];
    let short = simulate(&cfg(3000 + 1500 - 2), 1000, &stream);
    assert_eq!(short.packets(PolicerVerdict::PolicerDrop), 0);
    assert_eq!(short.packets(PolicerVerdict::BufferDrop), 1);
    let exact = simulate(&cfg(3000 + 1500 - 1), 1000, &stream);
    assert_eq!(exact.packets(PolicerVerdict::BufferDrop), 0);
    assert_eq!(exact.packets(PolicerVerdict::Admitted), 3);
}

/// A server slower than the committed rate breaks the rule too.
#[test]
fn slow_service_drops() {
    let cfg = PremiumPolicerConfig::new(Rate::from_bytes_per_sec(100_000), 3000, 4501, 1500);
    // 1000-byte packets at exactly the committed rate (every 10 ms), served at
    // 90% of it.
    let stream = vec![(10_000_000u64, 1000u32); 2000];
    let c = simulate(&cfg, 90_000, &stream);
    assert_eq!(c.packets(PolicerVerdict::PolicerDrop), 0);
    assert!(c.packets(PolicerVerdict::BufferDrop) > 0);
}

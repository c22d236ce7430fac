//! Code shared by the netcond benchmarks: deterministic packet streams,
//! the per-burst loops that the criterion benches, the instruction counts and
//! the `contention` example all run, and baselines.
// The only unsafe code: calls through the C interface (`c_call`).
#![deny(unsafe_code)]
#![deny(missing_docs)]

use netcond::base::{RandomSource, SplitMix64};

pub mod c_call;
pub mod meter_stream;
pub mod million;
pub mod pcn_stream;
pub mod pie_stream;
pub mod ras_stream;
pub mod red_stream;

/// The packet-length mix of the meter benches: 64, 576 and 1518 bytes in
/// proportions 4:3:1, as a precomputed table of `n` lengths (a power of two).
#[must_use]
pub fn imix_lengths(n: usize, seed: u64) -> Vec<u32> {
    let mut r = SplitMix64::new(seed);
    (0..n)
        .map(|_| match r.below(8) {
            0..=3 => 64,
            4..=6 => 576,
            _ => 1518,
        })
        .collect()
}

/// A table of `n` pseudo-random flow indices in `0..flows`.
#[must_use]
pub fn flow_indices(n: usize, flows: u32, seed: u64) -> Vec<u32> {
    let mut r = SplitMix64::new(seed);
    (0..n).map(|_| r.below(flows)).collect()
}

/// A table of `n` pre-colors, 6 green, 1 yellow and 1 red in 8 on average.
#[must_use]
pub fn precolors(n: usize, seed: u64) -> Vec<netcond::base::Color> {
    use netcond::base::Color;
    flow_indices(n, 8, seed)
        .into_iter()
        .map(|c| match c {
            0 => Color::Red,
            1 => Color::Yellow,
            _ => Color::Green,
        })
        .collect()
}

/// Mean packet length of [`imix_lengths`]'s mix: (4 x 64 + 3 x 576 + 1518) / 8.
pub const IMIX_MEAN: u64 = (4 * 64 + 3 * 576 + 1518) / 8;

/// Ticks between packets on a 2.3 GHz clock so that the offered load of the
/// 4:3:1 mix is about 80 MB/s: 2.3e9 x mean / 80e6.
pub const BENCH_TICKS_PER_PACKET: u64 = 2_300_000_000 * IMIX_MEAN / 80_000_000;

/// A division-based trTCM in the style of DPDK's `rte_meter`, written here to
/// run beside the benches without DPDK: each bucket keeps its own timestamp,
/// and a packet computes `n = (now - t) / period` per bucket, credits `n *
/// bytes_per_period` and advances `t` by `n * period`. Two 64-bit divisions
/// per packet, 32 bytes of state, and a period rounded to whole ticks (so the
/// rate is not exact).
///
/// Its cost has the shape of rte_meter's, not its exact rule: below 100 ticks
/// per byte it credits 100 bytes per period, where DPDK 22.11 credits
/// `ceil(100 / period)` bytes per `floor(hz b / rate)` cycles (2 and 3 bytes
/// per 100 ticks on the bench profile, against 100 bytes per 5000 and 3333
/// here), so its colors differ from DPDK's on a few per cent of the bench
/// stream. DPDK itself runs beside netcond with the `dpdk` feature
/// (`benches/dpdk/`, docs/performance.md).
pub mod division_baseline {
    use netcond::base::{Color, Instant};
    use netcond::trtcm::ThreeColorMarker;

    /// Periods below this many ticks are scaled up (DPDK uses 100).
    const PERIOD_MIN: u64 = 100;

    /// One bucket's constants.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Tb {
        period: u64,
        bytes_per_period: u64,
        size: u64,
    }

    impl Tb {
        fn new(hz: u64, bytes_per_sec: u64, size: u64) -> Tb {
            let period = hz / bytes_per_sec;
            if period >= PERIOD_MIN {
                Tb {
                    period,
                    bytes_per_period: 1,
                    size,
                }
            } else {
                Tb {
                    period: hz * PERIOD_MIN / bytes_per_sec,
                    bytes_per_period: PERIOD_MIN,
                    size,
                }
            }
        }
    }

    /// The constants of a trTCM (CIR/CBS, PIR/PBS).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Profile {
        c: Tb,
        p: Tb,
    }

    impl Profile {
        /// CIR and PIR in bytes per second, CBS and PBS in bytes, clock in Hz.
        #[must_use]
        pub fn new(hz: u64, cir: u64, pir: u64, cbs: u64, pbs: u64) -> Profile {
            Profile {
                c: Tb::new(hz, cir, cbs),
                p: Tb::new(hz, pir, pbs),
            }
        }
    }

    /// The per-flow state: two timestamps and two token counts (32 bytes).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct TrTcm {
        time_c: u64,
        time_p: u64,
        tc: u64,
        tp: u64,
    }

    impl TrTcm {
        #[inline]
        fn refill(&mut self, p: &Profile, now: u64) -> (u64, u64) {
            let nc = now.wrapping_sub(self.time_c) / p.c.period;
            let np = now.wrapping_sub(self.time_p) / p.p.period;
            self.time_c = self.time_c.wrapping_add(nc * p.c.period);
            self.time_p = self.time_p.wrapping_add(np * p.p.period);
            let tc = (self.tc + nc * p.c.bytes_per_period).min(p.c.size);
            let tp = (self.tp + np * p.p.bytes_per_period).min(p.p.size);
            (tc, tp)
        }
    }

    impl netcond::trtcm::State for TrTcm {
        type Profile = Profile;

        fn start(p: &Profile, now: Instant) -> TrTcm {
            TrTcm {
                time_c: now.ticks(),
                time_p: now.ticks(),
                tc: p.c.size,
                tp: p.p.size,
            }
        }
    }

    impl ThreeColorMarker for TrTcm {
        #[inline]
        fn color_blind(&mut self, p: &Profile, now: Instant, len: u32) -> Color {
            let (tc, tp) = self.refill(p, now.ticks());
            let len = u64::from(len);
            if tp < len {
                (self.tc, self.tp) = (tc, tp);
                Color::Red
            } else if tc < len {
                (self.tc, self.tp) = (tc, tp - len);
                Color::Yellow
            } else {
                (self.tc, self.tp) = (tc - len, tp - len);
                Color::Green
            }
        }

        #[inline]
        fn color_aware(&mut self, p: &Profile, now: Instant, len: u32, input: Color) -> Color {
            let (tc, tp) = self.refill(p, now.ticks());
            let len = u64::from(len);
            if input == Color::Red || tp < len {
                (self.tc, self.tp) = (tc, tp);
                Color::Red
            } else if input == Color::Yellow || tc < len {
                (self.tc, self.tp) = (tc, tp - len);
                Color::Yellow
            } else {
                (self.tc, self.tp) = (tc - len, tp - len);
                Color::Green
            }
        }

        fn tc_at(&self, p: &Profile, now: Instant) -> u64 {
            let mut s = *self;
            s.refill(p, now.ticks()).0
        }
    }
}

/// The floor of the marker benches: a "marker" that only keeps the last
/// timestamp and colors by length (no buckets, no arithmetic). Run through the
/// same loops as the real markers, it measures what the loop itself costs
/// (reading the length and color tables, the clock, the accumulator), so that
/// a marker's figure can be read as harness plus marker.
pub mod harness_floor {
    use netcond::base::{Color, Instant};
    use netcond::trtcm::ThreeColorMarker;

    /// The per-flow "state": the last timestamp.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Null {
        last: Instant,
    }

    impl netcond::trtcm::State for Null {
        type Profile = u32;

        fn start(_: &u32, now: Instant) -> Null {
            Null { last: now }
        }
    }

    impl ThreeColorMarker for Null {
        #[inline]
        fn color_blind(&mut self, big: &u32, now: Instant, len: u32) -> Color {
            self.last = now;
            if len > *big {
                Color::Yellow
            } else {
                Color::Green
            }
        }

        #[inline]
        fn color_aware(&mut self, big: &u32, now: Instant, len: u32, input: Color) -> Color {
            let c = self.color_blind(big, now, len);
            if input == Color::Green {
                c
            } else {
                input
            }
        }

        fn tc_at(&self, _: &u32, _: Instant) -> u64 {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::division_baseline::{Profile, TrTcm};
    use netcond::base::{Color, Instant};
    use netcond::trtcm::{State, ThreeColorMarker};

    #[test]
    fn baseline_colors_dpdk_facts() {
        let p = Profile::new(2_300_000_000, 46_000_000, 69_000_000, 2048, 4096);
        let t = Instant::from_ticks(5);
        let got: Vec<Color> = [2047, 2049, 4095, 4097]
            .iter()
            .map(|&l| TrTcm::start(&p, t).color_blind(&p, t, l))
            .collect();
        assert_eq!(
            got,
            [Color::Green, Color::Yellow, Color::Yellow, Color::Red]
        );
    }

    #[test]
    fn stream_tables() {
        let l = super::imix_lengths(8000, 1);
        let small = l.iter().filter(|&&x| x == 64).count();
        assert!((3700..4300).contains(&small), "{small}");
        assert!(super::flow_indices(1000, 7, 2).iter().all(|&f| f < 7));
        // 4:3:1 of 64/576/1518 averages 437.75 bytes (437 in integers); at 80 MB/s on 2.3 GHz that is
        // about 12,600 ticks per packet.
        assert_eq!(super::IMIX_MEAN, 437);
        assert_eq!(super::BENCH_TICKS_PER_PACKET, 12_563);
    }
}

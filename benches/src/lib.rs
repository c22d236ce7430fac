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

/// The flows `0..flows` in a pseudo-random order: a table in which each
/// appears once (Fisher and Yates' shuffle).
#[must_use]
pub fn flow_permutation(flows: u32, seed: u64) -> Vec<u32> {
    let mut r = SplitMix64::new(seed);
    let mut v: Vec<u32> = (0..flows).collect();
    for i in (1..v.len()).rev() {
        let j = r.below(u32::try_from(i + 1).unwrap_or(u32::MAX)) as usize;
        v.swap(i, j);
    }
    v
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

/// The srTCM's fast path as netcond computed it until 2026-12-07, without a
/// branch on the color, kept beside the benches to measure the choice
/// `SrTcm`'s fast path now makes (it branches on the color, as rte_meter
/// does): the same units, counts and colors (RFC 2697 section 3, tokens in
/// units of `1/scale` byte, the clock clamped at C and E's fill time), but
/// every packet refills E from C's overflow, tests both buckets, and settles
/// them and picks the color with masks made from the tests' signs and
/// conditional moves. The benches' `branch_free_srtcm_is_srtcm` test ties its
/// colors and counts to `SrTcm`'s.
pub mod branch_free_srtcm {
    use netcond::base::branchless::select_unpredictable as select;
    use netcond::base::{BucketProfile, Color, Instant, Rate, TickRate};
    use netcond::trtcm::ThreeColorMarker;

    /// The constants: C's and E's rate and unit (shared), their capacities
    /// in units, and the clamp of elapsed time.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Profile {
        inc: u64,
        scale: u64,
        cbs: u64,
        ebs: u64,
        dt_max: u64,
    }

    impl Profile {
        /// The profile of `SrTcmConfig::new(cir, cbs, ebs).with_tick(tick)`,
        /// or `None` where the products could overflow (bucket sizes or a
        /// refill past 2^62 units, a cost past 2^62), which the benches'
        /// profile is far from.
        #[must_use]
        pub fn new(cir: Rate, cbs: u64, ebs: u64, tick: TickRate) -> Option<Profile> {
            let c = BucketProfile::new(cir, cbs, tick).ok()?;
            let e = BucketProfile::new(cir, ebs, tick).ok()?;
            let (inc, scale) = (c.inc(), c.scale());
            let full = c.full().checked_add(e.full())?;
            let dt_max = full.div_ceil(inc);
            let limit = 1u64 << 62;
            let ok = full < limit
                && dt_max.checked_mul(inc)? < limit
                && u64::from(u32::MAX).checked_mul(scale)? < limit;
            ok.then_some(Profile {
                inc,
                scale,
                cbs: c.full(),
                ebs: e.full(),
                dt_max,
            })
        }
    }

    /// The state: C's and E's counts and the last instant, as `SrTcm`'s.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct SrTcm {
        tc: u64,
        te: u64,
        last: Instant,
    }

    impl SrTcm {
        /// C's and E's counts at the last update.
        #[must_use]
        pub fn counts(&self) -> (u64, u64) {
            (self.tc, self.te)
        }

        /// One packet: `red_in` negative if it came red, `yellow_in`
        /// negative unless it came green (both 0 when color-blind).
        #[inline(always)]
        fn packet(
            &mut self,
            p: &Profile,
            now: Instant,
            len: u32,
            red_in: i64,
            yellow_in: i64,
        ) -> Color {
            let dt = self.last.advance_to_capped(now, p.dt_max);
            // C refills; what overflows C goes into E, with no branch.
            let t = self.tc + dt * p.inc;
            let tc = select(t > p.cbs, p.cbs, t);
            let e = self.te + (t - tc);
            let te = select(e > p.ebs, p.ebs, e);
            let need = u64::from(len) * p.scale;
            // Each test as the sign of `tokens - need`.
            let dc = tc.wrapping_sub(need) as i64;
            let de = te.wrapping_sub(need) as i64;
            // Negative unless green: C refuses it, or it came yellow or red.
            let not_green = dc | yellow_in;
            // Negative if red: not green, and E refuses it or it came red.
            let red = not_green & (de | red_in);
            // C pays unless the packet is not green (a mask from the sign).
            self.tc = (dc as u64).wrapping_add(need & (not_green >> 63) as u64);
            // E pays for a yellow packet only.
            let paid = select((de | red_in) < 0, te, de as u64);
            self.te = select(not_green < 0, paid, te);
            let worse = select(not_green < 0, Color::Yellow, Color::Green);
            select(red < 0, Color::Red, worse)
        }
    }

    impl netcond::trtcm::State for SrTcm {
        type Profile = Profile;

        fn start(p: &Profile, now: Instant) -> SrTcm {
            SrTcm {
                tc: p.cbs,
                te: p.ebs,
                last: now,
            }
        }
    }

    impl ThreeColorMarker for SrTcm {
        #[inline]
        fn color_blind(&mut self, p: &Profile, now: Instant, len: u32) -> Color {
            self.packet(p, now, len, 0, 0)
        }

        #[inline]
        fn color_aware(&mut self, p: &Profile, now: Instant, len: u32, input: Color) -> Color {
            let i = input.index() as i64;
            // Green 0, yellow 1, red 2: only red reaches bit 63 when shifted by 62.
            self.packet(p, now, len, i << 62, -i)
        }

        fn tc_at(&self, p: &Profile, now: Instant) -> u64 {
            let mut s = *self;
            let dt = s.last.advance_to_capped(now, p.dt_max);
            (s.tc + dt * p.inc).min(p.cbs)
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

    /// A color-aware answer from the color-blind one: the pre-color unless
    /// it is green.
    #[inline]
    fn aware(blind: Color, input: Color) -> Color {
        if input == Color::Green {
            blind
        } else {
            input
        }
    }

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
            aware(self.color_blind(big, now, len), input)
        }

        fn tc_at(&self, _: &u32, _: Instant) -> u64 {
            0
        }
    }

    /// The memory floor of the many-flow benches: a "marker" whose state is `W`
    /// words, as large as a real marker's (`Touch<3>`: 24 bytes, the srTCM's
    /// and trTCM's states and DPDK's srTCM; `Touch<2>`: 16 bytes, the `Compact`
    /// states; `Touch<4>`: 32 bytes, DPDK's trTCM), which reads its last word,
    /// writes its first and last (a store needs its line as a load does) and
    /// colors by one compare. Any meter with a state of that size reads and
    /// writes at least those lines on every packet, so on the same stream, with
    /// the same prefetching, no meter's loop can take less time than this one's
    /// (but for the noise of the measurement): the ratio of another loop to it
    /// bounds what any meter with that state can reach against that loop.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Touch<const W: usize> {
        words: [u64; W],
    }

    impl<const W: usize> netcond::trtcm::State for Touch<W> {
        type Profile = u32;

        fn start(_: &u32, now: Instant) -> Touch<W> {
            Touch {
                words: [now.ticks(); W],
            }
        }
    }

    impl<const W: usize> ThreeColorMarker for Touch<W> {
        #[inline]
        fn color_blind(&mut self, big: &u32, now: Instant, len: u32) -> Color {
            let level = self.words[W - 1].wrapping_add(u64::from(len)) & 0xffff;
            self.words[0] = now.ticks();
            self.words[W - 1] = level;
            if level > u64::from(*big) {
                Color::Yellow
            } else {
                Color::Green
            }
        }

        #[inline]
        fn color_aware(&mut self, big: &u32, now: Instant, len: u32, input: Color) -> Color {
            aware(self.color_blind(big, now, len), input)
        }

        fn tc_at(&self, _: &u32, _: Instant) -> u64 {
            self.words[0]
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

    /// The branch-free srTCM gives `SrTcm`'s colors and counts: on the bench
    /// stream (one flow, blind and aware, with its pre-colors), and on random
    /// lengths, gaps (idle times past the fill time included, and a clock
    /// stepping backwards) and pre-colors.
    #[test]
    fn branch_free_srtcm_is_srtcm() {
        use super::branch_free_srtcm;
        use netcond::base::{Rate, SplitMix64};
        use netcond::trtcm::{SrTcm, SrTcmConfig, SrTcmProfile};
        let tick = super::meter_stream::tick();
        let cfg = SrTcmConfig::default().with_tick(tick);
        let sr = SrTcmProfile::new(&cfg).unwrap();
        let br = branch_free_srtcm::Profile::new(cfg.cir, cfg.cbs, cfg.ebs, tick).unwrap();
        let s = super::meter_stream::stream();
        for aware in [false, true] {
            let (mut a, mut b) = (
                SrTcm::new(&sr, Instant::ZERO),
                <branch_free_srtcm::SrTcm as State>::start(&br, Instant::ZERO),
            );
            let mut t = 0u64;
            let mut colors = [0usize; 3];
            for (&len, &pre) in s.lens.iter().zip(&s.colors) {
                t += super::BENCH_TICKS_PER_PACKET;
                let now = Instant::from_ticks(t);
                let (ca, cb) = if aware {
                    (
                        a.color_aware(&sr, now, len, pre),
                        b.color_aware(&br, now, len, pre),
                    )
                } else {
                    (a.color_blind(&sr, now, len), b.color_blind(&br, now, len))
                };
                assert_eq!(ca, cb, "t {t} len {len} pre {pre:?}");
                assert_eq!((a.tc(), a.te()), b.counts());
                colors[ca.index()] += 1;
            }
            // The stream exercises all three colors.
            assert!(colors.iter().all(|&n| n > 10), "{colors:?}");
        }
        let mut rng = SplitMix64::new(11);
        let mut compared = 0;
        for round in 0..200u64 {
            let cir = Rate::from_bytes_per_sec(1000 * (1 + rng.next_u64() % 100_000));
            let (cbs, ebs) = (1 + rng.next_u64() % 70_000, rng.next_u64() % 70_000);
            let cfg = SrTcmConfig::new(cir, cbs, ebs).with_tick(tick);
            let (Ok(sr), Some(br)) = (
                SrTcmProfile::new(&cfg),
                branch_free_srtcm::Profile::new(cir, cbs, ebs, tick),
            ) else {
                continue;
            };
            let mut t = rng.next_u64() >> 2;
            let (mut a, mut b) = (
                SrTcm::new(&sr, Instant::from_ticks(t)),
                <branch_free_srtcm::SrTcm as State>::start(&br, Instant::from_ticks(t)),
            );
            for _ in 0..500 {
                let r = rng.next_u64();
                t = match r % 16 {
                    0 => t.wrapping_sub(r >> 40),
                    1 => t.wrapping_add(r >> 8),
                    _ => t.wrapping_add((r >> 8) % 200_000),
                };
                let now = Instant::from_ticks(t);
                let len = (rng.next_u64() % 9000) as u32;
                let pre = [Color::Green, Color::Yellow, Color::Red][(r >> 4) as usize % 3];
                let aware = r & 32 != 0;
                let (ca, cb) = if aware {
                    (
                        a.color_aware(&sr, now, len, pre),
                        b.color_aware(&br, now, len, pre),
                    )
                } else {
                    (a.color_blind(&sr, now, len), b.color_blind(&br, now, len))
                };
                assert_eq!(ca, cb, "round {round} t {t} len {len}");
                assert_eq!((a.tc(), a.te()), b.counts(), "round {round}");
            }
            compared += 1;
        }
        assert!(compared > 150, "{compared}");
    }

    #[test]
    fn touch_states_are_the_markers_sizes() {
        use super::harness_floor::Touch;
        use core::mem::{align_of, size_of};
        use netcond::trtcm::{Compact, SrTcm, TrTcm};
        assert_eq!(size_of::<Touch<3>>(), size_of::<SrTcm>());
        assert_eq!(size_of::<Touch<3>>(), size_of::<TrTcm>());
        assert_eq!(align_of::<Touch<3>>(), align_of::<TrTcm>());
        assert_eq!(size_of::<Touch<2>>(), size_of::<Compact<TrTcm>>());
        assert_eq!(align_of::<Touch<2>>(), align_of::<Compact<TrTcm>>());
        let mut s = <Touch<3> as State>::start(&1000, Instant::ZERO);
        assert_eq!(
            s.color_blind(&1000, Instant::from_ticks(7), 999),
            Color::Green
        );
        assert_eq!(
            s.color_blind(&1000, Instant::from_ticks(9), 2),
            Color::Yellow
        );
        assert_eq!(s.tc_at(&1000, Instant::ZERO), 9);
    }
}

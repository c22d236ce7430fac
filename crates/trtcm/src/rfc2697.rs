//! RFC 2697: the single rate three color marker (srTCM).

use netcond_core::branchless::mask;
use netcond_core::{BucketError, BucketProfile, Color, Instant, Rate, TickRate};

use crate::fast_path::{fast_costs, fast_refill};
use crate::{color_of, probe, Bucket, Limits, Mode, Probe};

/// The parameters of an srTCM, in the units of RFC 2697 section 2.
///
/// `Default` is the configuration of DPDK's meter tests: CIR 46,000,000 bytes/s,
/// CBS 2048 bytes, EBS 4096 bytes, nanosecond ticks.
///
/// # Example
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use trtcm::{SrTcmConfig, SrTcmProfile};
///
/// // CIR 1 MB/s, CBS 3000 B, EBS 6000 B, on a microsecond clock.
/// let cfg = SrTcmConfig::new(Rate::from_bytes_per_sec(1_000_000), 3000, 6000)
///     .with_tick(TickRate::MICROS);
/// assert_eq!(cfg.cbs, 3000);
/// assert!(SrTcmProfile::new(&cfg).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct SrTcmConfig {
    /// Committed Information Rate: the rate at which both buckets fill.
    pub cir: Rate,
    /// Committed Burst Size in bytes: the size of bucket C.
    pub cbs: u64,
    /// Excess Burst Size in bytes: the size of bucket E.
    pub ebs: u64,
    /// The clock of the timestamps passed to the meter.
    pub tick: TickRate,
    /// Byte mode (the default) or packet mode ([`Mode`]): in packet mode the
    /// rates are packets per second and the bursts packets.
    #[cfg_attr(feature = "serde", serde(default))]
    pub mode: Mode,
}

impl SrTcmConfig {
    /// An srTCM with committed rate `cir`, committed burst `cbs` and excess burst
    /// `ebs` bytes, on nanosecond ticks ([`with_tick`](Self::with_tick) for another clock).
    #[must_use]
    pub const fn new(cir: Rate, cbs: u64, ebs: u64) -> SrTcmConfig {
        SrTcmConfig {
            cir,
            cbs,
            ebs,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }

    /// An srTCM in packet mode ([`Mode::Packets`]): committed rate `cir_pps`
    /// packets per second, bursts `cbs` and `ebs` packets, nanosecond ticks.
    #[must_use]
    pub const fn packets(cir_pps: u64, cbs: u64, ebs: u64) -> SrTcmConfig {
        SrTcmConfig {
            cir: Rate::from_bytes_per_sec(cir_pps),
            cbs,
            ebs,
            tick: TickRate::NANOS,
            mode: Mode::Packets,
        }
    }
}

config_builders!(SrTcmConfig {
    mode: Mode => with_mode,
    cir: Rate => with_cir,
    cbs: u64 => with_cbs,
    ebs: u64 => with_ebs,
    tick: TickRate => with_tick,
});

impl Default for SrTcmConfig {
    fn default() -> Self {
        SrTcmConfig {
            cir: Rate::from_bytes_per_sec(46_000_000),
            cbs: 2048,
            ebs: 4096,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }
}

netcond_core::config_error! {
    /// Why an [`SrTcmConfig`] was refused.
    pub enum SrTcmError {
        /// CIR is zero.
        ZeroCir => "CIR must be greater than zero (RFC 2697 section 2; a zero rate never refills)",
        /// CBS and EBS are both zero.
        ZeroBursts => "at least one of CBS and EBS must be larger than 0 (RFC 2697 section 2)",
        /// A bucket does not fit the token counter.
        TooLarge => "CBS or EBS times the clock's resolution does not fit the 2^62-unit token \
                     counter (bytes * 8 * tick_hz / gcd(CIR bits, 8 * tick_hz)); use a coarser \
                     clock or smaller bursts",
    }
}

impl From<BucketError> for SrTcmError {
    fn from(_: BucketError) -> Self {
        SrTcmError::TooLarge
    }
}

/// The validated, precomputed constants of an srTCM, shared by any number of flows.
///
/// Both buckets fill at CIR on the same clock, so they share `inc` and `scale`:
/// token counts of C and E are in the same unit and the overflow of C can be
/// poured into E as it is.
///
/// Laid out so that a packet on the fast path reads one 64-byte cache line of
/// it (both buckets' rate, unit and capacity, the fill time, the path flag:
/// 59 bytes with the mode flags); the general path's limits follow in the second line. Aligned to
/// 64 bytes (128 in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C, align(64))]
pub struct SrTcmProfile {
    // First cache line: everything the fast path reads.
    c: BucketProfile,
    e: BucketProfile,
    /// C's fill time, which counts E's size: a flow idle that long finds
    /// both buckets full (the fast path's one test of elapsed time).
    dt_max: u64,
    /// Whether byte lengths take the fast path: the fast path is exact for
    /// these constants and the profile is in byte mode.
    fast: bool,
    /// Whether the `..._packet` methods take the fast path (exact constants).
    fast_pkt: bool,
    /// Packet mode: every packet costs one unit whatever its length.
    packets: bool,
    // Second line: the general path's clamps.
    c_lim: Limits,
    e_lim: Limits,
}

const _: () = assert!(core::mem::offset_of!(SrTcmProfile, fast) < 64);
const _: () = assert!(core::mem::offset_of!(SrTcmProfile, c_lim) == 64);
const _: () = assert!(core::mem::align_of::<SrTcmProfile>() == 64);

impl SrTcmProfile {
    /// Validates `cfg` (RFC 2697 section 2) and precomputes the buckets.
    pub fn new(cfg: &SrTcmConfig) -> Result<SrTcmProfile, SrTcmError> {
        if cfg.cir.is_zero() {
            return Err(SrTcmError::ZeroCir);
        }
        if cfg.cbs == 0 && cfg.ebs == 0 {
            return Err(SrTcmError::ZeroBursts);
        }
        let c = crate::bucket(cfg.cir, cfg.cbs, cfg.tick)?;
        let e = crate::bucket(cfg.cir, cfg.ebs, cfg.tick)?;
        // C's refill must be able to fill both C and E; one cost serves both.
        let largest = cfg.cbs.max(cfg.ebs);
        let c = Bucket::new(c, c.full() + e.full(), largest);
        let e = Bucket::new(e, e.full(), largest);
        // E shares C's `inc` and `scale`. On the fast path C's refill of at most
        // `c.fill_ticks x inc` units lands in C (at most CBS before) and what
        // overflows in E (at most EBS before): both sums must fit (see the fast
        // path's comments in lib.rs).
        let fast = fast_costs(&c.b, 0)
            && fast_refill(&c.b, c.fill_ticks, c.full())
            && fast_refill(&e.b, c.fill_ticks, e.full());
        let packets = cfg.mode.is_packets();
        Ok(SrTcmProfile {
            c: c.b,
            e: e.b,
            dt_max: c.fill_ticks,
            fast: fast && !packets,
            fast_pkt: fast,
            packets,
            c_lim: c.limits(),
            e_lim: e.limits(),
        })
    }
}

impl SrTcmProfile {
    /// Counts `tc` and `te` refilled by `dt` ticks: C at CIR, and E by what
    /// overflows C (RFC 2697 section 3; [`SrTcm::move_to`]).
    fn refill_pair(&self, tc: u64, te: u64, dt: u64) -> [u64; 2] {
        let (tc, over) = self.c.refill_with_overflow(tc, dt);
        [tc, self.e.add(te, over)]
    }
}

marker_profile!(
    SrTcmProfile,
    /// Bucket E: CIR and EBS (filled only by C's overflow).
    second: e (e_lim) => excess, bucket_e
);

/// The per-flow state of an srTCM: the token counts of C and E and the time of
/// the last update. 24 bytes, `Copy`.
///
/// Token counts are in units of `1/scale` byte of the profile's buckets
/// ([`BucketProfile::scale`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SrTcm {
    tc: u64,
    te: u64,
    last: Instant,
}

marker_state!(
    SrTcm,
    SrTcmProfile,
    new: {
        /// A meter with both buckets full at `now` (RFC 2697 section 3: Tc(0) = CBS,
        /// Te(0) = EBS).
    },
    from_parts: {
        /// A meter with given token counts (clamped to the buckets) last updated at `last`.
    },
    move_to: {
        /// Moves this flow from profile `old` to profile `new` at `now` (DPDK's
        /// `rte_mtr_meter_profile_update`, for one flow).
    },
    /// Token count of E at the last update.
    second: te in e
);

impl SrTcm {
    /// The token count E would hold at `now` if no packet arrived (C's overflow
    /// included), without changing anything.
    #[inline]
    #[must_use]
    pub fn te_at(&self, profile: &SrTcmProfile, now: Instant) -> u64 {
        let (_, over) = profile
            .c
            .refill_with_overflow(self.tc, now.ticks_since(self.last));
        profile.e.add(self.te, over)
    }

    /// RFC 2697 section 3: tokens arrive at CIR into C up to CBS, and only what
    /// overflows C goes into E, up to EBS. Returns the two probes of a packet of
    /// `cost` units (C and E share the unit).
    #[inline(always)]
    fn update(&mut self, p: &SrTcmProfile, now: Instant, cost: u64) -> (Probe, Probe) {
        let dt = self.last.advance_to(now);
        let (bc, be) = (p.bucket_c(), p.bucket_e());
        let c = probe(&bc, self.tc, bc.gain(dt), cost, 0);
        let e = probe(&be, self.te, c.over, cost, 0);
        (c, e)
    }

    /// The fast path (see [`fast_costs`](crate::fast_path::fast_costs)): `dt`
    /// not clamped, no saturation, the length not clamped; `input` is the
    /// pre-color (`Green` when color-blind). Branches on the color, as the
    /// RFC's rule reads: a packet that C accepts returns before E is looked at,
    /// and E is refilled only when C overflows (docs/performance.md has what
    /// this costs and saves against the branch-free form it replaced). A flow
    /// idle for at least `dt_max` ticks (C's fill time, which counts E's
    /// size) finds both buckets full without any arithmetic: the common case
    /// of a large flow table, where most flows are seen seldom.
    #[inline(always)]
    fn fast(&mut self, p: &SrTcmProfile, dt: u64, len: u32, input: Color) -> Color {
        let need = u64::from(len) * p.c.scale();
        if dt >= p.dt_max {
            // RFC 2697's decision written out again on the full counts, not
            // merged with the one below: merged, the compiler moves the counts
            // between registers on every packet of a one-flow loop
            // (docs/performance.md, "Full buckets").
            if input == Color::Green && p.c.full() >= need {
                (self.tc, self.te) = (p.c.full() - need, p.e.full());
                return Color::Green;
            }
            self.tc = p.c.full();
            if input != Color::Red && p.e.full() >= need {
                self.te = p.e.full() - need;
                return Color::Yellow;
            }
            self.te = p.e.full();
            return Color::Red;
        }
        // Tokens arrive into C; what overflows C goes into E.
        let mut tc = self.tc + dt * p.c.inc();
        if tc > p.c.full() {
            self.te = (self.te + (tc - p.c.full())).min(p.e.full());
            tc = p.c.full();
        }
        if input == Color::Green && tc >= need {
            self.tc = tc - need;
            return Color::Green;
        }
        self.tc = tc;
        if input != Color::Red && self.te >= need {
            self.te -= need;
            Color::Yellow
        } else {
            Color::Red
        }
    }

    /// Colors a packet of `len` bytes arriving at `now`, color-blind (RFC 2697
    /// section 3): green if `Tc - B >= 0` (Tc -= B), else yellow if `Te - B >= 0`
    /// (Te -= B), else red (nothing decremented).
    #[inline]
    pub fn color_blind(&mut self, profile: &SrTcmProfile, now: Instant, len: u32) -> Color {
        if profile.fast {
            let dt = self.last.advance_to_hot(now);
            self.fast(profile, dt, len, Color::Green)
        } else {
            self.blind_general(profile, now, len)
        }
    }

    #[cold]
    #[inline(never)]
    fn blind_general(&mut self, profile: &SrTcmProfile, now: Instant, len: u32) -> Color {
        let len = profile.units(len);
        let cost = profile.bucket_c().cost(len);
        let (c, e) = self.update(profile, now, cost);
        let green = c.fits;
        let yellow = !green & e.fits;
        self.tc = c.tokens - (cost & green);
        self.te = e.tokens - (cost & yellow);
        color_of(green, green | yellow)
    }

    /// Colors one packet arriving at `now`, color-blind, charging one unit: the
    /// way to meter with a packet-mode profile ([`Mode::Packets`]), on the same
    /// fast path as [`color_blind`](Self::color_blind). With a byte-mode profile
    /// it charges one byte.
    #[inline]
    pub fn color_blind_packet(&mut self, profile: &SrTcmProfile, now: Instant) -> Color {
        if profile.fast_pkt {
            let dt = self.last.advance_to_hot(now);
            self.fast(profile, dt, 1, Color::Green)
        } else {
            self.blind_general(profile, now, 1)
        }
    }

    /// Colors one packet pre-colored `input`, color-aware, charging one unit
    /// (see [`color_blind_packet`](Self::color_blind_packet)).
    #[inline]
    pub fn color_aware_packet(
        &mut self,
        profile: &SrTcmProfile,
        now: Instant,
        input: Color,
    ) -> Color {
        if profile.fast_pkt {
            let dt = self.last.advance_to_hot(now);
            self.fast(profile, dt, 1, input)
        } else {
            self.aware_general(profile, now, 1, input)
        }
    }

    /// Colors a packet pre-colored `input`, color-aware (RFC 2697 section 3): a
    /// green packet is tested against C then E, a yellow one against E only, a red
    /// one stays red. The result is never better than `input`.
    #[inline]
    pub fn color_aware(
        &mut self,
        profile: &SrTcmProfile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        if profile.fast {
            let dt = self.last.advance_to_hot(now);
            self.fast(profile, dt, len, input)
        } else {
            self.aware_general(profile, now, len, input)
        }
    }

    #[cold]
    #[inline(never)]
    fn aware_general(
        &mut self,
        profile: &SrTcmProfile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        let len = profile.units(len);
        let cost = profile.bucket_c().cost(len);
        let (c, e) = self.update(profile, now, cost);
        let green = mask(input == Color::Green) & c.fits;
        let yellow = !green & mask(input != Color::Red) & e.fits;
        self.tc = c.tokens - (cost & green);
        self.te = e.tokens - (cost & yellow);
        color_of(green, green | yellow)
    }
}

meter_alias!(SrTcmMeter = SrTcm, SrTcmConfig, SrTcmProfile, SrTcmError);

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    dpdk_tests!(SrTcm, SrTcmConfig, SrTcmProfile);

    #[test]
    fn config_rules() {
        let ok = SrTcmConfig::default();
        assert!(SrTcmProfile::new(&ok).is_ok());
        let e = |c: SrTcmConfig| SrTcmProfile::new(&c).unwrap_err();
        assert_eq!(
            e(SrTcmConfig {
                cir: Rate::ZERO,
                ..ok
            }),
            SrTcmError::ZeroCir
        );
        assert_eq!(
            e(SrTcmConfig {
                cbs: 0,
                ebs: 0,
                ..ok
            }),
            SrTcmError::ZeroBursts
        );
        // One zero burst alone is allowed (RFC 2697 section 2, DPDK).
        assert!(SrTcmProfile::new(&SrTcmConfig { cbs: 0, ..ok }).is_ok());
        assert!(SrTcmProfile::new(&SrTcmConfig { ebs: 0, ..ok }).is_ok());
        assert_eq!(
            e(SrTcmConfig {
                cir: Rate::from_bits_per_sec(1),
                cbs: 1 << 30,
                tick: TickRate::from_hz(1 << 40).unwrap(),
                ..ok
            }),
            SrTcmError::TooLarge
        );
        assert!(SrTcmError::ZeroBursts.to_string().contains("RFC 2697"));
        assert!(SrTcmError::ZeroCir.to_string().contains("RFC 2697"));
    }

    #[test]
    fn starts_full_and_e_fills_only_from_c_overflow() {
        // 1000 B/s on a millisecond clock: 1 byte per tick, scale 1.
        let p = SrTcmProfile::new(&SrTcmConfig {
            cir: Rate::from_bytes_per_sec(1000),
            cbs: 100,
            ebs: 50,
            tick: TickRate::MILLIS,
            mode: crate::Mode::Bytes,
        })
        .unwrap();
        assert_eq!(p.committed().scale(), 1);
        let t0 = Instant::from_ticks(0);
        let mut m = SrTcm::new(&p, t0);
        assert_eq!((m.tc(), m.te()), (100, 50));
        // Drain both.
        assert_eq!(m.color_blind(&p, t0, 100), G);
        assert_eq!(m.color_blind(&p, t0, 50), Y);
        assert_eq!((m.tc(), m.te()), (0, 0));
        // 60 ticks: all 60 tokens into C, none into E.
        let t = Instant::from_ticks(60);
        assert_eq!((m.tc_at(&p, t), m.te_at(&p, t)), (60, 0));
        // 130 ticks: C full at 100, 30 overflow into E.
        let t = Instant::from_ticks(130);
        assert_eq!((m.tc_at(&p, t), m.te_at(&p, t)), (100, 30));
        // Views do not mutate.
        assert_eq!((m.tc(), m.te()), (0, 0));
        // A red packet touches nothing.
        assert_eq!(m.color_blind(&p, t, 131), R);
        assert_eq!((m.tc(), m.te()), (100, 30));
        // Yellow takes from E only.
        assert_eq!(m.color_aware(&p, t, 20, Y), Y);
        assert_eq!((m.tc(), m.te()), (100, 10));
        // Green from C only.
        assert_eq!(m.color_blind(&p, t, 100), G);
        assert_eq!((m.tc(), m.te()), (0, 10));
    }

    #[test]
    fn size() {
        assert_eq!(core::mem::size_of::<SrTcm>(), 24);
    }

    #[test]
    fn which_path() {
        assert!(SrTcmProfile::new(&SrTcmConfig::default())
            .unwrap()
            .on_fast_path());
        // Lengths must be clamped: 1 byte/s on a 2^31 + 1 Hz clock.
        let slow = SrTcmConfig {
            cir: Rate::from_bytes_per_sec(1),
            tick: TickRate::from_hz((1 << 31) + 1).unwrap(),
            cbs: 1,
            ebs: 1,
            mode: crate::Mode::Bytes,
        };
        assert!(!SrTcmProfile::new(&slow).unwrap().on_fast_path());
        // On a 1 Hz clock an odd rate r bit/s adds r units per tick (8 per byte);
        // C (1 byte) and E (1 byte) fill in one tick. A full C plus one tick is
        // 8 + r, and what overflows into a full E is r: with r = 2^64 - 9 both
        // fit, with 2^64 - 7 they do not.
        let one = TickRate::from_hz(1).unwrap();
        let huge = |bits: u64| SrTcmConfig {
            cir: Rate::from_bits_per_sec(bits),
            tick: one,
            cbs: 1,
            ebs: 1,
            mode: crate::Mode::Bytes,
        };
        assert!(!SrTcmProfile::new(&huge(u64::MAX - 6))
            .unwrap()
            .on_fast_path());
        let p = SrTcmProfile::new(&huge(u64::MAX - 8)).unwrap();
        assert!(p.on_fast_path());
        let mut m = SrTcm::new(&p, Instant::ZERO);
        assert_eq!(m.color_blind(&p, Instant::from_ticks(1), 2), R);
        assert_eq!((m.tc(), m.te()), (8, 8));
        assert_eq!(m.color_blind(&p, Instant::from_ticks(1), 1), G);
        assert_eq!(m.color_blind(&p, Instant::from_ticks(1), 1), Y);
        assert_eq!(m.color_blind(&p, Instant::from_ticks(2), 1), G);
        assert_eq!((m.tc(), m.te()), (0, 8));
    }

    /// C's overflow into E at and around C's fill time (which is the time to
    /// fill both), from empty, partly full and full buckets.
    #[test]
    fn overflow_at_the_boundaries() {
        // 1000 B/s on a millisecond clock: C 100 B, E 50 B; 150 ms fill both.
        let p = SrTcmProfile::new(&SrTcmConfig {
            cir: Rate::from_bytes_per_sec(1000),
            cbs: 100,
            ebs: 50,
            tick: TickRate::MILLIS,
            mode: crate::Mode::Bytes,
        })
        .unwrap();
        assert!(p.on_fast_path());
        assert_eq!(p.c_lim.fill_ticks, 150);
        let g = p.general_path_only();
        let z = Instant::ZERO;
        let states = [
            SrTcm::from_parts(&p, 0, 0, z),
            SrTcm::from_parts(&p, 99, 0, z),
            SrTcm::from_parts(&p, 100, 0, z),
            SrTcm::from_parts(&p, 60, 25, z),
            SrTcm::from_parts(&p, 0, 50, z),
            SrTcm::new(&p, z),
        ];
        let ops = crate::both_paths::grid(
            &[0, 1, 40, 50, 100, 150, 1000, 1 << 40],
            &[0, 1, 49, 50, 51, 99, 100, 101, u32::MAX],
        );
        crate::both_paths::same_from::<SrTcm>(&p, &g, &states, &ops);
    }

    proptest::proptest! {
        #[test]
        fn fast_path_matches_general_path(
            cir in crate::both_paths::rate(),
            cbs in crate::both_paths::burst(),
            ebs in crate::both_paths::burst(),
            tick in crate::both_paths::tick(),
            start in proptest::prelude::any::<u64>(),
            ops in crate::both_paths::ops(),
        ) {
            if let Ok(p) = SrTcmProfile::new(&SrTcmConfig { cir, cbs, ebs, tick, mode: crate::Mode::Bytes, }) {
                crate::both_paths::same::<SrTcm>(&p, &p.general_path_only(), start, &ops)?;
            }
        }
    }
}

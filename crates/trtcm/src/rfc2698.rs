//! RFC 2698: the two rate three color marker (trTCM).

use netcond_core::branchless::mask;
use netcond_core::{BucketError, BucketProfile, Color, Instant, Rate, TickRate};

use crate::fast_path::{color_of_signs, fast_costs, fast_refill, fill, margin, settle, signs_of};
use crate::{color_of, probe, Bucket, Limits, Mode, Probe};

/// The parameters of a trTCM, in the units of RFC 2698 section 2.
///
/// `Default` is the configuration of DPDK's meter tests: CIR 46,000,000 bytes/s,
/// PIR 69,000,000 bytes/s, CBS 2048 bytes, PBS 4096 bytes, nanosecond ticks.
///
/// # Example
///
/// ```
/// use netcond_core::Rate;
/// use trtcm::{TrTcmConfig, TrTcmProfile};
///
/// // CIR 1 MB/s, PIR 2 MB/s, CBS 3000 B, PBS 6000 B, nanosecond ticks.
/// let cfg = TrTcmConfig::new(
///     Rate::from_bytes_per_sec(1_000_000),
///     Rate::from_bytes_per_sec(2_000_000),
///     3000,
///     6000,
/// );
/// assert!(TrTcmProfile::new(&cfg).is_ok());
/// // PIR below CIR is refused.
/// let bad = cfg.with_pir(Rate::from_bytes_per_sec(500_000));
/// assert!(TrTcmProfile::new(&bad).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct TrTcmConfig {
    /// Committed Information Rate: the rate of bucket C.
    pub cir: Rate,
    /// Peak Information Rate: the rate of bucket P (PIR >= CIR).
    pub pir: Rate,
    /// Committed Burst Size in bytes: the size of bucket C.
    pub cbs: u64,
    /// Peak Burst Size in bytes: the size of bucket P.
    pub pbs: u64,
    /// The clock of the timestamps passed to the meter.
    pub tick: TickRate,
    /// Byte mode (the default) or packet mode ([`Mode`]): in packet mode the
    /// rates are packets per second and the bursts packets.
    #[cfg_attr(feature = "serde", serde(default))]
    pub mode: Mode,
}

impl TrTcmConfig {
    /// A trTCM with rates `cir` and `pir` and bursts `cbs` and `pbs` bytes, on
    /// nanosecond ticks ([`with_tick`](Self::with_tick) for another clock).
    #[must_use]
    pub const fn new(cir: Rate, pir: Rate, cbs: u64, pbs: u64) -> TrTcmConfig {
        TrTcmConfig {
            cir,
            pir,
            cbs,
            pbs,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }

    /// A trTCM in packet mode ([`Mode::Packets`]): rates `cir_pps` and `pir_pps`
    /// packets per second, bursts `cbs` and `pbs` packets, nanosecond ticks.
    #[must_use]
    pub const fn packets(cir_pps: u64, pir_pps: u64, cbs: u64, pbs: u64) -> TrTcmConfig {
        TrTcmConfig {
            cir: Rate::from_bytes_per_sec(cir_pps),
            pir: Rate::from_bytes_per_sec(pir_pps),
            cbs,
            pbs,
            tick: TickRate::NANOS,
            mode: Mode::Packets,
        }
    }
}

config_builders!(TrTcmConfig {
    mode: Mode => with_mode,
    cir: Rate => with_cir,
    pir: Rate => with_pir,
    cbs: u64 => with_cbs,
    pbs: u64 => with_pbs,
    tick: TickRate => with_tick,
});

impl Default for TrTcmConfig {
    fn default() -> Self {
        TrTcmConfig {
            cir: Rate::from_bytes_per_sec(46_000_000),
            pir: Rate::from_bytes_per_sec(69_000_000),
            cbs: 2048,
            pbs: 4096,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }
}

netcond_core::config_error! {
    /// Why a [`TrTcmConfig`] was refused.
    pub enum TrTcmError {
        /// CIR is zero.
        ZeroCir => "CIR must be greater than zero (RFC 2698 section 2)",
        /// PIR is zero.
        ZeroPir => "PIR must be greater than zero (RFC 2698 section 2)",
        /// CBS is zero.
        ZeroCbs => "CBS must be greater than 0 (RFC 2698 section 2)",
        /// PBS is zero.
        ZeroPbs => "PBS must be greater than 0 (RFC 2698 section 2)",
        /// PIR is below CIR.
        PirBelowCir => "PIR must be equal to or greater than CIR (RFC 2698 section 2)",
        /// A bucket does not fit the token counter.
        TooLarge => "CBS or PBS times the clock's resolution does not fit the 2^62-unit token \
                     counter (bytes * 8 * tick_hz / gcd(rate bits, 8 * tick_hz)); use a coarser \
                     clock or smaller bursts",
    }
}

impl From<BucketError> for TrTcmError {
    fn from(_: BucketError) -> Self {
        TrTcmError::TooLarge
    }
}

/// The validated, precomputed constants of a trTCM, shared by any number of flows.
///
/// Laid out so that a packet on the fast path reads one 64-byte cache line of
/// it: the first line holds both buckets' rate, unit and capacity, the fill
/// time and the path and mode flags (59 bytes); the general path's limits follow in the
/// second. The struct is aligned to 64 bytes (128 bytes in all), so the first
/// line never straddles two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(C, align(64))]
pub struct TrTcmProfile {
    // First cache line: everything the fast path reads.
    c: BucketProfile,
    p: BucketProfile,
    /// The longer of the two fill times: a flow idle that long finds both
    /// buckets full (the fast path's one test of elapsed time).
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
    p_lim: Limits,
}

// The fast path's constants end before byte 64, and the profile starts a line.
const _: () = assert!(core::mem::offset_of!(TrTcmProfile, fast) < 64);
const _: () = assert!(core::mem::offset_of!(TrTcmProfile, c_lim) == 64);
const _: () = assert!(core::mem::align_of::<TrTcmProfile>() == 64);

impl TrTcmProfile {
    /// Validates `cfg` (RFC 2698 section 2) and precomputes the buckets.
    pub fn new(cfg: &TrTcmConfig) -> Result<TrTcmProfile, TrTcmError> {
        if cfg.cir.is_zero() {
            return Err(TrTcmError::ZeroCir);
        }
        if cfg.pir.is_zero() {
            return Err(TrTcmError::ZeroPir);
        }
        if cfg.cbs == 0 {
            return Err(TrTcmError::ZeroCbs);
        }
        if cfg.pbs == 0 {
            return Err(TrTcmError::ZeroPbs);
        }
        if cfg.pir < cfg.cir {
            return Err(TrTcmError::PirBelowCir);
        }
        let c = crate::bucket(cfg.cir, cfg.cbs, cfg.tick)?;
        let p = crate::bucket(cfg.pir, cfg.pbs, cfg.tick)?;
        let c = Bucket::new(c, c.full(), cfg.cbs);
        let p = Bucket::new(p, p.full(), cfg.pbs);
        // After `fill_ticks` ticks a bucket is full whatever it held, so after
        // the larger of the two both are full (see the fast path's comments in
        // fast_path.rs).
        let dt_max = c.fill_ticks.max(p.fill_ticks);
        let fast = [&c, &p]
            .iter()
            .all(|b| fast_costs(&b.b, 0) && fast_refill(&b.b, dt_max, b.full()));
        let packets = cfg.mode.is_packets();
        Ok(TrTcmProfile {
            c: c.b,
            p: p.b,
            dt_max,
            fast: fast && !packets,
            fast_pkt: fast,
            packets,
            c_lim: c.limits(),
            p_lim: p.limits(),
        })
    }
}

impl TrTcmProfile {
    /// Counts `tc` and `tp` refilled by `dt` ticks, each bucket at its own
    /// rate ([`TrTcm::move_to`]).
    fn refill_pair(&self, tc: u64, tp: u64, dt: u64) -> [u64; 2] {
        [self.c.refill(tc, dt), self.p.refill(tp, dt)]
    }
}

marker_profile!(
    TrTcmProfile,
    /// Bucket P: PIR and PBS.
    second: p (p_lim) => peak, bucket_p
);

/// The per-flow state of a trTCM: the token counts of C and P and the time of the
/// last update. 24 bytes, `Copy`.
///
/// Each count is in the units of its own bucket (`1/scale` byte, see
/// [`BucketProfile::scale`]); C and P generally have different units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TrTcm {
    tc: u64,
    tp: u64,
    last: Instant,
}

marker_state!(
    TrTcm,
    TrTcmProfile,
    new: {
        /// A meter with both buckets full at `now` (RFC 2698 section 3: Tp(0) = PBS,
        /// Tc(0) = CBS).
    },
    from_parts: {
        /// A meter with given token counts (clamped to the buckets) last updated at `last`.
    },
    move_to: {
        /// Moves this flow from profile `old` to profile `new` at `now` (DPDK's
        /// `rte_mtr_meter_profile_update`, for one flow).
    },
    /// Token count of P at the last update.
    second: tp in p
);

impl TrTcm {
    /// The token count P would hold at `now` if no packet arrived, without changing
    /// anything.
    #[inline]
    #[must_use]
    pub fn tp_at(&self, profile: &TrTcmProfile, now: Instant) -> u64 {
        profile.p.refill(self.tp, now.ticks_since(self.last))
    }

    /// RFC 2698 section 3: Tp fills at PIR up to PBS, Tc at CIR up to CBS.
    /// Returns the probes of C and P for a packet of `len` bytes.
    #[inline(always)]
    fn update(&mut self, p: &TrTcmProfile, now: Instant, len: u32) -> (u64, Probe, u64, Probe) {
        let len = p.units(len);
        let dt = self.last.advance_to(now);
        let (bc, bp) = (p.bucket_c(), p.bucket_p());
        let (cost_c, cost_p) = (bc.cost(len), bp.cost(len));
        let c = probe(&bc, self.tc, bc.gain(dt), cost_c, 0);
        let pk = probe(&bp, self.tp, bp.gain(dt), cost_p, 0);
        (cost_c, c, cost_p, pk)
    }

    /// The fast path (see [`fast_costs`]), `dt` elapsed (not clamped):
    /// lengths not clamped, no saturation. `red_in` and `yellow_in` are the signs
    /// of the pre-color ([`signs_of`]; both 0 for color-blind).
    #[inline(always)]
    fn fast(&mut self, p: &TrTcmProfile, dt: u64, len: u32, red_in: i64, yellow_in: i64) -> Color {
        let len = u64::from(len);
        // Idle for `dt_max` ticks or more (the longer fill time): both full.
        let (tp, tc) = if dt >= p.dt_max {
            (p.p.full(), p.c.full())
        } else {
            (fill(&p.p, self.tp, dt), fill(&p.c, self.tc, dt))
        };
        let need_p = len * p.p.scale();
        let need_c = len * p.c.scale();
        let dp = margin(tp, need_p);
        let dc = margin(tc, need_c);
        // Negative when red: P refuses it, or it came red.
        let red = dp | red_in;
        // Negative unless green: red, C refuses it, or it came yellow or red.
        let not_green = red | dc | yellow_in;
        self.tp = settle(dp, 0, need_p, red);
        self.tc = settle(dc, 0, need_c, not_green);
        color_of_signs(not_green, red)
    }

    /// Colors a packet of `len` bytes arriving at `now`, color-blind (RFC 2698
    /// section 3): red if `Tp - B < 0` (no bucket touched), else yellow if
    /// `Tc - B < 0` (Tp -= B only), else green (Tp -= B and Tc -= B).
    #[inline]
    pub fn color_blind(&mut self, profile: &TrTcmProfile, now: Instant, len: u32) -> Color {
        if profile.fast {
            let dt = self.last.advance_to_hot(now);
            self.fast(profile, dt, len, 0, 0)
        } else {
            self.blind_general(profile, now, len)
        }
    }

    #[cold]
    #[inline(never)]
    fn blind_general(&mut self, profile: &TrTcmProfile, now: Instant, len: u32) -> Color {
        let (cost_c, c, cost_p, pk) = self.update(profile, now, len);
        let not_red = pk.fits;
        let green = not_red & c.fits;
        self.tp = pk.tokens - (cost_p & not_red);
        self.tc = c.tokens - (cost_c & green);
        color_of(green, not_red)
    }

    /// Colors one packet arriving at `now`, color-blind, charging one unit: the
    /// way to meter with a packet-mode profile ([`Mode::Packets`]), on the same
    /// fast path as [`color_blind`](Self::color_blind). With a byte-mode profile
    /// it charges one byte.
    #[inline]
    pub fn color_blind_packet(&mut self, profile: &TrTcmProfile, now: Instant) -> Color {
        if profile.fast_pkt {
            let dt = self.last.advance_to_hot(now);
            self.fast(profile, dt, 1, 0, 0)
        } else {
            self.blind_general(profile, now, 1)
        }
    }

    /// Colors one packet pre-colored `input`, color-aware, charging one unit
    /// (see [`color_blind_packet`](Self::color_blind_packet)).
    #[inline]
    pub fn color_aware_packet(
        &mut self,
        profile: &TrTcmProfile,
        now: Instant,
        input: Color,
    ) -> Color {
        if profile.fast_pkt {
            let dt = self.last.advance_to_hot(now);
            let (red, not_green) = signs_of(input);
            self.fast(profile, dt, 1, red, not_green)
        } else {
            self.aware_general(profile, now, 1, input)
        }
    }

    /// Colors a packet pre-colored `input`, color-aware (RFC 2698 section 3): red
    /// if pre-colored red or `Tp - B < 0`; else yellow if pre-colored yellow or
    /// `Tc - B < 0` (Tp -= B); else green (both decremented). The result is never
    /// better than `input`.
    #[inline]
    pub fn color_aware(
        &mut self,
        profile: &TrTcmProfile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        if profile.fast {
            let dt = self.last.advance_to_hot(now);
            let (red, not_green) = signs_of(input);
            self.fast(profile, dt, len, red, not_green)
        } else {
            self.aware_general(profile, now, len, input)
        }
    }

    #[cold]
    #[inline(never)]
    fn aware_general(
        &mut self,
        profile: &TrTcmProfile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        let (cost_c, c, cost_p, pk) = self.update(profile, now, len);
        let not_red = mask(input != Color::Red) & pk.fits;
        let green = not_red & mask(input == Color::Green) & c.fits;
        self.tp = pk.tokens - (cost_p & not_red);
        self.tc = c.tokens - (cost_c & green);
        color_of(green, not_red)
    }
}

meter_alias!(TrTcmMeter = TrTcm, TrTcmConfig, TrTcmProfile, TrTcmError);

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    dpdk_tests!(TrTcm, TrTcmConfig, TrTcmProfile);

    #[test]
    fn config_rules() {
        let ok = TrTcmConfig::default();
        assert!(TrTcmProfile::new(&ok).is_ok());
        let e = |c: TrTcmConfig| TrTcmProfile::new(&c).unwrap_err();
        assert_eq!(
            e(TrTcmConfig {
                cir: Rate::ZERO,
                ..ok
            }),
            TrTcmError::ZeroCir
        );
        assert_eq!(
            e(TrTcmConfig {
                pir: Rate::ZERO,
                ..ok
            }),
            TrTcmError::ZeroPir
        );
        assert_eq!(e(TrTcmConfig { cbs: 0, ..ok }), TrTcmError::ZeroCbs);
        assert_eq!(e(TrTcmConfig { pbs: 0, ..ok }), TrTcmError::ZeroPbs);
        assert_eq!(
            e(TrTcmConfig {
                pir: Rate::from_bytes_per_sec(45_999_999),
                ..ok
            }),
            TrTcmError::PirBelowCir
        );
        // PIR == CIR is allowed.
        assert!(TrTcmProfile::new(&TrTcmConfig { pir: ok.cir, ..ok }).is_ok());
        assert_eq!(
            e(TrTcmConfig {
                pbs: 1 << 40,
                tick: TickRate::from_hz(1 << 40).unwrap(),
                pir: Rate::from_bits_per_sec((1 << 40) + 1),
                cir: Rate::from_bits_per_sec(1 << 20),
                ..ok
            }),
            TrTcmError::TooLarge
        );
        for m in [
            TrTcmError::ZeroCir,
            TrTcmError::ZeroPir,
            TrTcmError::ZeroCbs,
            TrTcmError::ZeroPbs,
            TrTcmError::PirBelowCir,
        ] {
            assert!(m.to_string().contains("RFC 2698 section 2"), "{m}");
        }
    }

    /// 1000 B/s and 2000 B/s on a millisecond clock: scale 1 for both, so token
    /// counts read in bytes.
    fn small() -> TrTcmProfile {
        TrTcmProfile::new(&TrTcmConfig {
            cir: Rate::from_bytes_per_sec(1000),
            pir: Rate::from_bytes_per_sec(2000),
            cbs: 100,
            pbs: 300,
            tick: TickRate::MILLIS,
            mode: crate::Mode::Bytes,
        })
        .unwrap()
    }

    #[test]
    fn red_touches_no_bucket() {
        let p = small();
        let t = Instant::from_ticks(0);
        let mut m = TrTcm::new(&p, t);
        assert_eq!(m.color_blind(&p, t, 301), R);
        assert_eq!((m.tc(), m.tp()), (100, 300));
        // Red although C alone could pass it: P decides first.
        let mut m = TrTcm::from_parts(&p, 100, 10, t);
        assert_eq!(m.color_blind(&p, t, 50), R);
        assert_eq!((m.tc(), m.tp()), (100, 10));
        // Pre-colored red with every bucket full: still nothing taken.
        let mut m = TrTcm::new(&p, t);
        assert_eq!(m.color_aware(&p, t, 1, R), R);
        assert_eq!((m.tc(), m.tp()), (100, 300));
    }

    #[test]
    fn yellow_takes_from_p_only() {
        let p = small();
        let t = Instant::from_ticks(0);
        let mut m = TrTcm::new(&p, t);
        assert_eq!(m.color_blind(&p, t, 150), Y);
        assert_eq!((m.tc(), m.tp()), (100, 150));
        let mut m = TrTcm::new(&p, t);
        assert_eq!(m.color_aware(&p, t, 50, Y), Y);
        assert_eq!((m.tc(), m.tp()), (100, 250));
    }

    #[test]
    fn green_takes_from_both() {
        let p = small();
        let t = Instant::from_ticks(0);
        let mut m = TrTcm::new(&p, t);
        assert_eq!(m.color_blind(&p, t, 100), G);
        assert_eq!((m.tc(), m.tp()), (0, 200));
        // Refill: 30 ms gives C 30 bytes and P 60 bytes.
        let t = Instant::from_ticks(30);
        assert_eq!((m.tc_at(&p, t), m.tp_at(&p, t)), (30, 260));
        assert_eq!((m.tc(), m.tp()), (0, 200));
        assert_eq!(m.color_aware(&p, t, 30, G), G);
        assert_eq!((m.tc(), m.tp()), (0, 230));
    }

    #[test]
    fn size() {
        assert_eq!(core::mem::size_of::<TrTcm>(), 24);
    }

    #[test]
    fn which_path() {
        let ok = TrTcmConfig::default();
        assert!(TrTcmProfile::new(&ok).unwrap().on_fast_path());
        assert!(small().on_fast_path());
        // 1 byte/s on a 2^31 + 1 Hz clock: a u32::MAX-byte packet costs 2^63
        // units or more, so lengths must be clamped: general path.
        let slow = TrTcmConfig {
            cir: Rate::from_bytes_per_sec(1),
            pir: Rate::from_bytes_per_sec(1),
            tick: TickRate::from_hz((1 << 31) + 1).unwrap(),
            cbs: 1,
            pbs: 1,
            mode: crate::Mode::Bytes,
        };
        assert!(!TrTcmProfile::new(&slow).unwrap().on_fast_path());
        // On a 1 Hz clock, 2^64 - 7 bit/s adds that many units per tick to a full
        // 8-unit bucket: the sum needs the general path's saturation. 2^64 - 9
        // bit/s reaches exactly u64::MAX: fast.
        let one = TickRate::from_hz(1).unwrap();
        let huge = |bits: u64| TrTcmConfig {
            cir: Rate::from_bits_per_sec(bits),
            pir: Rate::from_bits_per_sec(bits),
            tick: one,
            cbs: 1,
            pbs: 1,
            mode: crate::Mode::Bytes,
        };
        assert!(!TrTcmProfile::new(&huge(u64::MAX - 6))
            .unwrap()
            .on_fast_path());
        let p = TrTcmProfile::new(&huge(u64::MAX - 8)).unwrap();
        assert!(p.on_fast_path());
        let mut m = TrTcm::new(&p, Instant::ZERO);
        assert_eq!(m.color_blind(&p, Instant::from_ticks(1), 1), G);
        assert_eq!(m.color_blind(&p, Instant::from_ticks(2), 1), G);
        assert_eq!((m.tc(), m.tp()), (0, 0));
        // A slow C next to a fast P: the shared fill time (C's) times
        // P's rate must fit too.
        let mixed = TrTcmConfig {
            cir: Rate::from_bits_per_sec(1),
            pir: Rate::from_bits_per_sec(u64::MAX / 2),
            tick: one,
            cbs: 1 << 20,
            pbs: 1,
            mode: crate::Mode::Bytes,
        };
        assert!(!TrTcmProfile::new(&mixed).unwrap().on_fast_path());
    }

    /// The fast path tests elapsed time once, against the larger fill time of
    /// the two buckets (both full at or beyond it); the general path clamps each
    /// bucket to its own. Elapsed times at
    /// and around both fill times, from empty, partly full and full buckets.
    #[test]
    fn shared_fill_time() {
        // C: 1000 B/s, 100 B, fills in 100 ms; P: 3000 B/s, 1000 B, in 334 ms.
        let p = TrTcmProfile::new(&TrTcmConfig {
            cir: Rate::from_bytes_per_sec(1000),
            pir: Rate::from_bytes_per_sec(3000),
            cbs: 100,
            pbs: 1000,
            tick: TickRate::MILLIS,
            mode: crate::Mode::Bytes,
        })
        .unwrap();
        assert!(p.on_fast_path());
        assert_eq!(
            (p.c_lim.fill_ticks, p.p_lim.fill_ticks, p.dt_max),
            (100, 334, 334)
        );
        let g = p.general_path_only();
        let z = Instant::ZERO;
        let states = [
            TrTcm::from_parts(&p, 0, 0, z),
            TrTcm::from_parts(&p, 1, 1, z),
            TrTcm::from_parts(&p, 50, 500, z),
            TrTcm::from_parts(&p, 100, 0, z),
            TrTcm::from_parts(&p, 0, 1000, z),
            TrTcm::new(&p, z),
        ];
        let ops = crate::both_paths::grid(
            &[0, 1, 100, 334, 1000, 1 << 40],
            &[0, 1, 99, 100, 101, 1000, 1001, u32::MAX],
        );
        crate::both_paths::same_from::<TrTcm>(&p, &g, &states, &ops);
    }

    proptest::proptest! {
        #[test]
        fn fast_path_matches_general_path(
            cir in crate::both_paths::rate(),
            extra in proptest::prelude::any::<u64>(),
            cbs in crate::both_paths::burst(),
            pbs in crate::both_paths::burst(),
            tick in crate::both_paths::tick(),
            start in proptest::prelude::any::<u64>(),
            ops in crate::both_paths::ops(),
        ) {
            let cfg = TrTcmConfig {
                cir,
                pir: Rate::from_bits_per_sec(cir.bits_per_sec().saturating_add(extra >> (extra % 64))),
                cbs: cbs.max(1),
                pbs: pbs.max(1),
                tick, mode: crate::Mode::Bytes,
            };
            if let Ok(p) = TrTcmProfile::new(&cfg) {
                crate::both_paths::same::<TrTcm>(&p, &p.general_path_only(), start, &ops)?;
            }
        }
    }
}

//! RFC 2698: the two rate three color marker (trTCM).

use netcond_core::{BucketError, BucketProfile, Color, Instant, Rate, TickRate};

use crate::{color_of, mask, probe, Bucket, Probe};

/// The parameters of a trTCM, in the units of RFC 2698 section 2.
///
/// `Default` is the configuration of DPDK's meter tests: CIR 46,000,000 bytes/s,
/// PIR 69,000,000 bytes/s, CBS 2048 bytes, PBS 4096 bytes, nanosecond ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
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
}

impl Default for TrTcmConfig {
    fn default() -> Self {
        TrTcmConfig {
            cir: Rate::from_bytes_per_sec(46_000_000),
            pir: Rate::from_bytes_per_sec(69_000_000),
            cbs: 2048,
            pbs: 4096,
            tick: TickRate::NANOS,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TrTcmProfile {
    c: Bucket,
    p: Bucket,
}

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
        Ok(TrTcmProfile {
            c: Bucket::new(c, c.full(), cfg.cbs),
            p: Bucket::new(p, p.full(), cfg.pbs),
        })
    }

    /// Bucket C: CIR and CBS.
    #[inline]
    #[must_use]
    pub const fn committed(&self) -> &BucketProfile {
        &self.c.b
    }

    /// Bucket P: PIR and PBS.
    #[inline]
    #[must_use]
    pub const fn peak(&self) -> &BucketProfile {
        &self.p.b
    }
}

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

impl TrTcm {
    /// A meter with both buckets full at `now` (RFC 2698 section 3: Tp(0) = PBS,
    /// Tc(0) = CBS).
    #[inline]
    #[must_use]
    pub const fn new(profile: &TrTcmProfile, now: Instant) -> TrTcm {
        TrTcm {
            tc: profile.c.full(),
            tp: profile.p.full(),
            last: now,
        }
    }

    /// A meter with given token counts (clamped to the buckets) last updated at `last`.
    #[inline]
    #[must_use]
    pub fn from_parts(profile: &TrTcmProfile, tc: u64, tp: u64, last: Instant) -> TrTcm {
        TrTcm {
            tc: tc.min(profile.c.full()),
            tp: tp.min(profile.p.full()),
            last,
        }
    }

    /// Token count of C at the last update.
    #[inline]
    #[must_use]
    pub const fn tc(&self) -> u64 {
        self.tc
    }

    /// Token count of P at the last update.
    #[inline]
    #[must_use]
    pub const fn tp(&self) -> u64 {
        self.tp
    }

    /// The time of the last update.
    #[inline]
    #[must_use]
    pub const fn last(&self) -> Instant {
        self.last
    }

    /// The token count C would hold at `now` if no packet arrived, without changing
    /// anything. An instant older than the last update gives the current count.
    #[inline]
    #[must_use]
    pub fn tc_at(&self, profile: &TrTcmProfile, now: Instant) -> u64 {
        profile.c.b.refill(self.tc, now.ticks_since(self.last))
    }

    /// The token count P would hold at `now` if no packet arrived, without changing
    /// anything.
    #[inline]
    #[must_use]
    pub fn tp_at(&self, profile: &TrTcmProfile, now: Instant) -> u64 {
        profile.p.b.refill(self.tp, now.ticks_since(self.last))
    }

    /// RFC 2698 section 3: Tp fills at PIR up to PBS, Tc at CIR up to CBS.
    /// Returns the probes of C and P for a packet of `len` bytes.
    #[inline(always)]
    fn update(&mut self, p: &TrTcmProfile, now: Instant, len: u32) -> (u64, Probe, u64, Probe) {
        let dt = self.last.advance_to(now);
        let (cost_c, cost_p) = (p.c.cost(len), p.p.cost(len));
        let c = probe(&p.c, self.tc, p.c.gain(dt), cost_c, 0);
        let pk = probe(&p.p, self.tp, p.p.gain(dt), cost_p, 0);
        (cost_c, c, cost_p, pk)
    }

    /// Colors a packet of `len` bytes arriving at `now`, color-blind (RFC 2698
    /// section 3): red if `Tp - B < 0` (no bucket touched), else yellow if
    /// `Tc - B < 0` (Tp -= B only), else green (Tp -= B and Tc -= B).
    #[inline]
    pub fn color_blind(&mut self, profile: &TrTcmProfile, now: Instant, len: u32) -> Color {
        let (cost_c, c, cost_p, pk) = self.update(profile, now, len);
        let not_red = pk.fits;
        let green = not_red & c.fits;
        self.tp = pk.tokens - (cost_p & not_red);
        self.tc = c.tokens - (cost_c & green);
        color_of(green, not_red)
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
        let (cost_c, c, cost_p, pk) = self.update(profile, now, len);
        let not_red = mask(input != Color::Red) & pk.fits;
        let green = not_red & mask(input == Color::Green) & c.fits;
        self.tp = pk.tokens - (cost_p & not_red);
        self.tc = c.tokens - (cost_c & green);
        color_of(green, not_red)
    }
}

/// A TrTcm profile paired with one flow's state; see [`Meter`](crate::Meter).
pub type TrTcmMeter = crate::Meter<TrTcm>;

impl crate::Meter<TrTcm> {
    /// Validates `cfg` and starts with full buckets at `now`.
    pub fn new(cfg: &TrTcmConfig, now: Instant) -> Result<TrTcmMeter, TrTcmError> {
        Ok(crate::Meter::from_profile(TrTcmProfile::new(cfg)?, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    fn dpdk() -> TrTcmProfile {
        TrTcmProfile::new(&TrTcmConfig {
            tick: TickRate::from_hz(2_300_000_000).unwrap(),
            ..TrTcmConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn dpdk_facts() {
        crate::dpdk_facts::<TrTcm>(&dpdk());
    }

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
}

//! The validated, precomputed profile of a RAS: the rate units, the rate
//! function F of RFC 2963 figures 2 and 3, the shaping rate, the
//! transmission time per packet and the EAR constants; and the validation of
//! every MUST of sections 2.2 and 2.4.

use core::time::Duration;

use netcond_core::branchless::saturate_u64;
use netcond_core::{Rate, TickRate};

use crate::config::{
    RasError, RasKind, SrRasConfig, SrThresholds, TrRasConfig, TrThresholds, LINE_BITS,
    MAX_DRAIN_TICKS, MAX_SCALE,
};
use crate::ear::{Ear, EarBuildError, EarProfile, EAR_EXTRA_BITS};
use crate::fixed::{normalize_ratio, ConstGap};
use crate::schedule::transmission_time;

/// A linear piece of F: `lo + (b - from) * m * 2^-sh`, for `b` in `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct Slope {
    m: u64,
    sh: u32,
}

impl Slope {
    fn new(lo: u64, hi: u64, from: u64, to: u64) -> Slope {
        if hi <= lo || to <= from {
            return Slope { m: 0, sh: 0 };
        }
        match normalize_ratio((hi - lo) as u128, (to - from) as u128) {
            // (hi - lo) < 2^41 and (to - from) >= 1, so e >= 22; e <= 127 as the
            // ratio is at least 2^-64.
            Some((m, e)) => Slope {
                m,
                sh: e.clamp(0, 127) as u32,
            },
            None => Slope { m: 0, sh: 0 },
        }
    }

    #[inline(always)]
    fn at(&self, d: u64) -> u64 {
        ((d as u128 * self.m as u128) >> self.sh) as u64
    }
}

/// The validated, precomputed constants of a RAS (any of the four): the rate
/// function F, the rate units, and the EAR constants.
///
/// Rates are kept in units of `2^-S` bytes per tick, where the scale `S <= 47` is
/// the largest that keeps the line rate below `2^40` units. CIR is rounded up and
/// MIR down when converted, so that the shaping rate is never below CIR nor above
/// MIR; PIR is rounded to nearest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RasProfile {
    kind: RasKind,
    scale: u32,
    hz: u64,
    cir: u64,
    pir: u64,
    mir: u64,
    cir_th: u64,
    pir_th: u64,
    mir_th: u64,
    s1: Slope,
    s2: Slope,
    buffer_bytes: u64,
    ear: EarProfile,
    /// The gap per byte count at CIR, rounded down, and at MIR, rounded up
    /// (`None` for rates outside the format): the flat pieces of F need no
    /// reciprocal per packet.
    cir_gap: Option<ConstGap>,
    mir_gap: Option<ConstGap>,
}

/// A profile of one RAS kind: a [`RasProfile`] built only from that kind's
/// configuration, which dereferences to it and converts into it.
macro_rules! kind_profile {
    ($(#[$doc:meta])* $name:ident, $cfg:ty, $(#[$new_doc:meta])*) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub struct $name(RasProfile);

        impl $name {
            $(#[$new_doc])*
            pub fn new(cfg: &$cfg) -> Result<$name, RasError> {
                RasProfile::validate(cfg).map($name)
            }
        }

        impl core::ops::Deref for $name {
            type Target = RasProfile;
            fn deref(&self) -> &RasProfile {
                &self.0
            }
        }

        impl From<$name> for RasProfile {
            fn from(p: $name) -> RasProfile {
                p.0
            }
        }
    };
}

kind_profile!(
    /// The profile of an srRAS or G-srRAS; dereferences to [`RasProfile`].
    SrRasProfile,
    SrRasConfig,
    /// Validates an srRAS configuration (every MUST of RFC 2963 section 2.2).
);

kind_profile!(
    /// The profile of a trRAS or G-trRAS; dereferences to [`RasProfile`].
    TrRasProfile,
    TrRasConfig,
    /// Validates a trRAS configuration (every MUST of RFC 2963 section 2.4).
);

/// The buffer holds one maximum-size packet.
fn check_max_packet(max_packet: u32, buffer: u64) -> Result<(), RasError> {
    if max_packet == 0 {
        return Err(RasError::ZeroMaxPacket);
    }
    if buffer < u64::from(max_packet) {
        return Err(RasError::BufferBelowMaxPacket);
    }
    Ok(())
}

/// What an srRAS and a trRAS configuration share, read one way: an srRAS is
/// a trRAS whose PIR is its CIR and whose PIR_th is its CIR_th (F of RFC 2963
/// figure 2 is that of figure 3 without its middle piece), so one validation
/// ([`RasProfile::validate`]) checks both.
trait Shape {
    const KIND: RasKind;
    /// The error for the middle rate (srRAS: CIR, trRAS: PIR) above MIR.
    const MIDDLE_ABOVE_MIR: RasError;
    /// The error for the middle threshold (srRAS: CIR_th, trRAS: PIR_th)
    /// above MIR_th.
    const MIDDLE_TH_ABOVE_MIR_TH: RasError;
    /// CIR, PIR, MIR (`None`: the line rate) and the line rate.
    fn rates(&self) -> (Rate, Rate, Option<Rate>, Rate);
    /// CIR_th, PIR_th and MIR_th, the defaults for a buffer of `b` bytes
    /// where none are configured.
    fn thresholds(&self, b: u64) -> (u64, u64, u64);
    /// The buffer, the largest packet, K and the clock.
    fn queue(&self) -> (u64, u32, Duration, TickRate);
}

impl Shape for SrRasConfig {
    const KIND: RasKind = RasKind::SingleRate;
    const MIDDLE_ABOVE_MIR: RasError = RasError::CirAboveMir;
    const MIDDLE_TH_ABOVE_MIR_TH: RasError = RasError::CirThAboveMirTh;
    fn rates(&self) -> (Rate, Rate, Option<Rate>, Rate) {
        (self.cir, self.cir, self.mir, self.line_rate)
    }
    fn thresholds(&self, b: u64) -> (u64, u64, u64) {
        let th = self.thresholds.unwrap_or(SrThresholds {
            cir_th: b / 4,
            mir_th: b / 4 * 3,
        });
        (th.cir_th, th.cir_th, th.mir_th)
    }
    fn queue(&self) -> (u64, u32, Duration, TickRate) {
        (self.buffer_bytes, self.max_packet_bytes, self.k, self.tick)
    }
}

impl Shape for TrRasConfig {
    const KIND: RasKind = RasKind::TwoRate;
    const MIDDLE_ABOVE_MIR: RasError = RasError::PirAboveMir;
    const MIDDLE_TH_ABOVE_MIR_TH: RasError = RasError::PirThAboveMirTh;
    fn rates(&self) -> (Rate, Rate, Option<Rate>, Rate) {
        (self.cir, self.pir, self.mir, self.line_rate)
    }
    fn thresholds(&self, b: u64) -> (u64, u64, u64) {
        let th = self.thresholds.unwrap_or(TrThresholds {
            cir_th: b / 4,
            pir_th: b / 2,
            mir_th: b / 4 * 3,
        });
        (th.cir_th, th.pir_th, th.mir_th)
    }
    fn queue(&self) -> (u64, u32, Duration, TickRate) {
        (self.buffer_bytes, self.max_packet_bytes, self.k, self.tick)
    }
}

impl RasProfile {
    /// Every MUST of RFC 2963 sections 2.2 (srRAS, where PIR is CIR and
    /// PIR_th is CIR_th, so that their checks never fire) and 2.4 (trRAS), in
    /// the order of the rules' variants.
    fn validate<C: Shape>(cfg: &C) -> Result<RasProfile, RasError> {
        let (cir, pir, mir, line) = cfg.rates();
        let mir = mir.unwrap_or(line);
        if cir.is_zero() {
            return Err(RasError::ZeroCir);
        }
        // RFC 2963 s2.2: CIR <= MIR <= line rate; s2.4: CIR <= PIR <= MIR <=
        // line rate.
        if cir > pir {
            return Err(RasError::CirAbovePir);
        }
        if pir > mir {
            return Err(C::MIDDLE_ABOVE_MIR);
        }
        if mir > line {
            return Err(RasError::MirAboveLineRate);
        }
        let (b, max_packet, k, tick) = cfg.queue();
        if b == 0 {
            return Err(RasError::ZeroBuffer);
        }
        check_max_packet(max_packet, b)?;
        let (cir_th, pir_th, mir_th) = cfg.thresholds(b);
        // RFC 2963 s2.2: CIR_th <= MIR_th <= buffer size; s2.4: CIR_th <=
        // PIR_th <= MIR_th <= buffer size.
        if cir_th > pir_th {
            return Err(RasError::CirThAbovePirTh);
        }
        if pir_th > mir_th {
            return Err(C::MIDDLE_TH_ABOVE_MIR_TH);
        }
        if mir_th > b {
            return Err(RasError::MirThAboveBuffer);
        }
        RasProfile::build(
            C::KIND,
            b,
            (cir, pir, mir, line),
            (cir_th, pir_th, mir_th),
            k,
            tick,
        )
    }

    fn build(
        kind: RasKind,
        buffer_bytes: u64,
        (cir, pir, mir, line): (Rate, Rate, Rate, Rate),
        (cir_th, pir_th, mir_th): (u64, u64, u64),
        k: Duration,
        tick: TickRate,
    ) -> Result<RasProfile, RasError> {
        let hz = tick.hz();
        let per_sec = 8u128 * hz as u128;
        // The largest S <= 47 with line * 2^S / (8 hz) < 2^40.
        let line_bits = line.bits_per_sec() as u128;
        if line_bits >= per_sec << LINE_BITS {
            return Err(RasError::LineRateTooHigh);
        }
        let mut scale = MAX_SCALE;
        while scale > 0 && (line_bits << scale) >= per_sec << LINE_BITS {
            scale -= 1;
        }
        let units = |r: Rate, up: bool, nearest: bool| -> u64 {
            let n = (r.bits_per_sec() as u128) << scale;
            let q = if up {
                n.div_ceil(per_sec)
            } else if nearest {
                (n + per_sec / 2) / per_sec
            } else {
                n / per_sec
            };
            q as u64
        };
        // CIR up, MIR down: the shaping rate stays within [CIR, MIR]. CIR > 0 so
        // its units are at least 1.
        let mut cir_u = units(cir, true, false);
        let mir_u = units(mir, false, false).max(1);
        if cir_u > mir_u {
            // CIR == MIR (or within one unit): both take the rounded-down value.
            cir_u = mir_u;
        }
        let pir_u = units(pir, false, true).clamp(cir_u, mir_u);
        // The shaping rate never drops below `cir_u`, so no queued packet waits
        // longer than the buffer's drain time at CIR. buffer < 2^64 and
        // scale <= 47: the shift fits in 128 bits.
        let drain = (u128::from(buffer_bytes) << scale).div_ceil(u128::from(cir_u));
        if drain > u128::from(MAX_DRAIN_TICKS) {
            return Err(RasError::DrainTooSlow);
        }
        let k_ticks = tick.ticks_from_nanos(u64::try_from(k.as_nanos()).unwrap_or(u64::MAX));
        let ear = EarProfile::new(k_ticks, scale).map_err(|e| match e {
            EarBuildError::ZeroK => RasError::ZeroK,
            EarBuildError::KTooLong => RasError::KTooLong,
        })?;
        Ok(RasProfile {
            kind,
            scale,
            hz,
            cir: cir_u,
            pir: pir_u,
            mir: mir_u,
            cir_th,
            pir_th,
            mir_th,
            s1: Slope::new(cir_u, pir_u, cir_th, pir_th),
            s2: Slope::new(pir_u, mir_u, pir_th, mir_th),
            buffer_bytes,
            ear,
            cir_gap: ConstGap::new(cir_u, scale, false),
            mir_gap: ConstGap::new(mir_u, scale, true),
        })
    }

    /// The rate function F of figures 2 and 3, in rate units, for a buffer
    /// occupancy of `occupancy` bytes: CIR below CIR_th, linear from CIR to PIR on
    /// `[CIR_th, PIR_th)` (trRAS), linear from PIR (srRAS: CIR) to MIR on
    /// `[PIR_th, MIR_th)`, MIR from MIR_th on (section 2.3: "when the buffer
    /// occupancy reaches the MIR_th threshold, the output rate ... is set to the
    /// maximum information rate"). Interpolation rounds down, by less than one
    /// unit.
    #[inline]
    #[must_use]
    pub fn rate_function(&self, occupancy: u64) -> u64 {
        if occupancy < self.cir_th {
            self.cir
        } else if occupancy < self.pir_th {
            (self.cir + self.s1.at(occupancy - self.cir_th)).min(self.pir)
        } else if occupancy < self.mir_th {
            (self.pir + self.s2.at(occupancy - self.pir_th)).min(self.mir)
        } else {
            self.mir
        }
    }

    /// The shaping rate in rate units: `max(EAR, F(occupancy))` (sections 2.3 and
    /// 2.5), capped at MIR. The cap is this crate's reading of "maximum
    /// information rate": the EAR can exceed it while a burst arrives faster than
    /// MIR, and the output never does.
    #[inline]
    #[must_use]
    pub fn shaping_rate(&self, ear: &Ear, occupancy: u64) -> u64 {
        let e = ear.raw() >> EAR_EXTRA_BITS;
        let f = self.rate_function(occupancy);
        (if e > f { e } else { f }).min(self.mir)
    }

    /// The transmission time of `len` bytes at the shaping rate
    /// [`shaping_rate`](Self::shaping_rate)`(ear, occupancy)`, in whole ticks and
    /// 2^-32 tick.
    ///
    /// When the rate is CIR (occupancy below CIR_th and the EAR not above CIR) or
    /// MIR (occupancy at MIR_th or above, or the EAR at MIR or above), the gap
    /// comes from a constant precomputed at configuration time: rounded down at
    /// CIR and up at MIR, so the output is never below CIR nor above MIR by the
    /// rounding. Otherwise, or for rates the constants cannot represent, it is
    /// [`transmission_time`] (relative error below 1e-10).
    ///
    /// Below CIR_th, F is CIR, so the rate `min(MIR, max(EAR, CIR))` is CIR
    /// when the EAR is at most CIR, MIR when it is at least MIR, and the EAR
    /// itself in between (CIR <= MIR): that case passes the EAR straight to
    /// [`transmission_time`], without evaluating F, the max and the cap
    /// again (the same rate, so the same gap).
    #[inline(always)]
    pub(crate) fn gap(&self, ear: &Ear, occupancy: u64, len: u32) -> (u64, u32) {
        let e = ear.raw() >> EAR_EXTRA_BITS;
        if occupancy < self.cir_th {
            if e <= self.cir {
                if let Some(g) = self.cir_gap {
                    return g.gap(len);
                }
            } else if e < self.mir {
                // CIR < EAR < MIR: shaping_rate is max(EAR, CIR).min(MIR) = EAR.
                return transmission_time(len, e, self.scale);
            } else if let Some(g) = self.mir_gap {
                return g.gap(len);
            }
        } else if occupancy >= self.mir_th || e >= self.mir {
            if let Some(g) = self.mir_gap {
                return g.gap(len);
            }
        }
        transmission_time(len, self.shaping_rate(ear, occupancy), self.scale)
    }

    /// The transmission time of `len` bytes at MIR, as [`gap`](Self::gap)
    /// gives it when the shaping rate is MIR (rounded up by the precomputed
    /// constant where it represents MIR).
    #[inline(always)]
    pub(crate) fn mir_gap(&self, len: u32) -> (u64, u32) {
        match self.mir_gap {
            Some(g) => g.gap(len),
            None => transmission_time(len, self.mir, self.scale),
        }
    }

    /// The same profile without the precomputed CIR and MIR gaps: every gap from
    /// [`transmission_time`] (the differential tests compare the two).
    #[cfg(test)]
    pub(crate) fn without_const_gaps(mut self) -> RasProfile {
        self.cir_gap = None;
        self.mir_gap = None;
        self
    }

    /// True when both precomputed gaps are in use.
    #[cfg(test)]
    pub(crate) fn has_const_gaps(&self) -> bool {
        self.cir_gap.is_some() && self.mir_gap.is_some()
    }

    /// The EAR of `ear` in rate units (`2^-S` bytes per tick, rounded down).
    #[inline]
    #[must_use]
    pub fn ear_rate(&self, ear: &Ear) -> u64 {
        ear.raw() >> EAR_EXTRA_BITS
    }

    /// The EAR constants.
    #[must_use]
    pub const fn ear(&self) -> &EarProfile {
        &self.ear
    }

    /// Single or two rate.
    #[must_use]
    pub const fn kind(&self) -> RasKind {
        self.kind
    }

    /// The rate scale `S`: rate units are `2^-S` bytes per tick.
    #[must_use]
    pub const fn scale(&self) -> u32 {
        self.scale
    }

    /// Ticks per second of the profile's clock.
    #[must_use]
    pub const fn tick_hz(&self) -> u64 {
        self.hz
    }

    /// CIR in rate units (rounded up).
    #[must_use]
    pub const fn cir_units(&self) -> u64 {
        self.cir
    }

    /// PIR in rate units (srRAS: equal to CIR).
    #[must_use]
    pub const fn pir_units(&self) -> u64 {
        self.pir
    }

    /// MIR in rate units (rounded down).
    #[must_use]
    pub const fn mir_units(&self) -> u64 {
        self.mir
    }

    /// CIR_th, PIR_th (srRAS: equal to CIR_th) and MIR_th in bytes.
    #[must_use]
    pub const fn thresholds(&self) -> (u64, u64, u64) {
        (self.cir_th, self.pir_th, self.mir_th)
    }

    /// The buffer size in bytes.
    #[must_use]
    pub const fn buffer_bytes(&self) -> u64 {
        self.buffer_bytes
    }

    /// A rate in rate units expressed in bits per second (rounded down; for
    /// reports, it divides).
    #[must_use]
    pub fn units_to_bits_per_sec(&self, units: u64) -> u64 {
        let v = ((units as u128) * 8 * self.hz as u128) >> self.scale;
        saturate_u64(v)
    }
}

#[cfg(test)]
#[allow(clippy::float_arithmetic)] // f64 reference values in tests only
mod tests {
    use super::*;

    fn tr() -> TrRasConfig {
        let mut c = TrRasConfig::new(
            Rate::from_mbps(2),
            Rate::from_mbps(4),
            Rate::from_mbps(34),
            100_000,
        );
        c.thresholds = Some(TrThresholds {
            cir_th: 10_000,
            pir_th: 30_000,
            mir_th: 60_000,
        });
        c
    }

    fn sr() -> SrRasConfig {
        let mut c = SrRasConfig::new(Rate::from_mbps(2), Rate::from_mbps(34), 100_000);
        c.mir = Some(Rate::from_mbps(20));
        c.thresholds = Some(SrThresholds {
            cir_th: 10_000,
            mir_th: 60_000,
        });
        c
    }

    /// `gap` as it chose the rate before the EAR-only case was split off:
    /// the precomputed CIR gap below CIR_th with the EAR at most CIR, the MIR
    /// gap from MIR_th on or with the EAR at MIR or above, otherwise the
    /// reciprocal path at `shaping_rate`.
    fn gap_by_rate(p: &RasProfile, ear: &Ear, occ: u64, len: u32) -> (u64, u32) {
        let e = p.ear_rate(ear);
        match (p.cir_gap, p.mir_gap) {
            (Some(g), _) if occ < p.cir_th && e <= p.cir => g.gap(len),
            (_, Some(g)) if !(occ < p.cir_th && e <= p.cir) && (occ >= p.mir_th || e >= p.mir) => {
                g.gap(len)
            }
            _ => transmission_time(len, p.shaping_rate(ear, occ), p.scale),
        }
    }

    /// `gap` equals `gap_by_rate` exactly on random profiles (with and
    /// without the precomputed gaps), EARs on and next to CIR and MIR and
    /// random, occupancies on and next to the thresholds, and any length.
    #[test]
    fn gap_matches_the_choice_by_rate() {
        use netcond_core::{RandomSource, SplitMix64};
        let mut r = SplitMix64::new(41);
        let mut n = 0;
        for _ in 0..if cfg!(miri) { 20 } else { 2_000 } {
            let cir = 1 + (r.next_u32() as u64) * (1 + r.below(1000) as u64);
            let pir = cir + cir * r.below(3) as u64 + r.below(1000) as u64;
            let mir = pir + pir * r.below(3) as u64 * r.below(2) as u64 + r.below(2) as u64;
            let buf = 1 + r.below(500_000) as u64;
            let mut th = [0; 3].map(|_| buf * r.below(101) as u64 / 100);
            th.sort_unstable();
            let mut c = TrRasConfig::new(
                Rate::from_bits_per_sec(cir),
                Rate::from_bits_per_sec(pir),
                Rate::from_bits_per_sec(mir),
                buf,
            );
            c.thresholds = Some(TrThresholds {
                cir_th: th[0],
                pir_th: th[1],
                mir_th: th[2],
            });
            c.tick = TickRate::from_hz(
                [1_000_000_000u64, 2_300_000_000, 1_000_000, 3][r.below(4) as usize],
            )
            .unwrap();
            let Ok(p) = TrRasProfile::new(&c) else {
                continue;
            };
            let p: RasProfile = p.into();
            for p in [p, p.without_const_gaps()] {
                let (cu, mu) = (p.cir_units(), p.mir_units());
                let mut es = vec![
                    0,
                    cu,
                    mu,
                    cu + 1,
                    mu + 1,
                    cu.saturating_sub(1),
                    mu.saturating_sub(1),
                ];
                es.push(cu + r.next_u32() as u64 % (mu - cu + 1));
                es.push(r.next_u32() as u64 * r.next_u32() as u64);
                for e in es {
                    let e = e.min(u64::MAX >> EAR_EXTRA_BITS);
                    let ear = Ear::from_raw((e << EAR_EXTRA_BITS) | r.below(1 << 16) as u64);
                    for occ in [
                        0,
                        th[0],
                        th[0].saturating_sub(1),
                        th[2],
                        th[2].saturating_sub(1),
                        th[1],
                        buf,
                    ] {
                        let len = [0, 1, 64, 1500, r.below(1 << 20), u32::MAX][r.below(6) as usize];
                        assert_eq!(
                            p.gap(&ear, occ, len),
                            gap_by_rate(&p, &ear, occ, len),
                            "{p:?} e {e} occ {occ} len {len}"
                        );
                        n += 1;
                    }
                }
            }
        }
        assert!(n > if cfg!(miri) { 100 } else { 100_000 }, "{n}");
    }

    #[test]
    fn valid_configurations_pass() {
        assert!(SrRasProfile::new(&sr()).is_ok());
        assert!(TrRasProfile::new(&tr()).is_ok());
        // Defaults: MIR = line rate, thresholds by quarters.
        let p = TrRasProfile::new(&TrRasConfig::new(
            Rate::from_mbps(2),
            Rate::from_mbps(4),
            Rate::from_mbps(34),
            4000,
        ))
        .unwrap();
        assert_eq!(p.thresholds(), (1000, 2000, 3000));
        assert_eq!(p.units_to_bits_per_sec(p.mir_units() + 1) / 1000, 34_000);
        let p = SrRasProfile::new(&SrRasConfig::new(
            Rate::from_mbps(2),
            Rate::from_mbps(34),
            4000,
        ))
        .unwrap();
        assert_eq!(p.thresholds(), (1000, 1000, 3000));
        assert_eq!(p.kind(), RasKind::SingleRate);
        // Equalities are allowed everywhere.
        let mut c = tr();
        c.pir = c.cir;
        c.mir = Some(c.cir);
        c.line_rate = c.cir;
        c.thresholds = Some(TrThresholds {
            cir_th: 100_000,
            pir_th: 100_000,
            mir_th: 100_000,
        });
        let p = TrRasProfile::new(&c).unwrap();
        assert_eq!(p.cir_units(), p.mir_units());
    }

    #[test]
    fn each_srras_rule_is_enforced() {
        let mut c = sr();
        c.cir = Rate::ZERO;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::ZeroCir));
        let mut c = sr();
        c.cir = Rate::from_mbps(21);
        assert_eq!(SrRasProfile::new(&c), Err(RasError::CirAboveMir));
        let mut c = sr();
        c.mir = Some(Rate::from_mbps(35));
        assert_eq!(SrRasProfile::new(&c), Err(RasError::MirAboveLineRate));
        let mut c = sr();
        c.mir = None;
        c.line_rate = Rate::from_mbps(1);
        assert_eq!(SrRasProfile::new(&c), Err(RasError::CirAboveMir));
        let mut c = sr();
        c.thresholds = Some(SrThresholds {
            cir_th: 60_001,
            mir_th: 60_000,
        });
        assert_eq!(SrRasProfile::new(&c), Err(RasError::CirThAboveMirTh));
        let mut c = sr();
        c.thresholds = Some(SrThresholds {
            cir_th: 0,
            mir_th: 100_001,
        });
        assert_eq!(SrRasProfile::new(&c), Err(RasError::MirThAboveBuffer));
        let mut c = sr();
        c.buffer_bytes = 0;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::ZeroBuffer));
        // One maximum-size packet must fit the buffer (thresholds kept inside it).
        let mut c = sr();
        c.thresholds = None;
        c.buffer_bytes = 1499;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::BufferBelowMaxPacket));
        c.buffer_bytes = 1500;
        assert!(SrRasProfile::new(&c).is_ok());
        c.max_packet_bytes = 9000;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::BufferBelowMaxPacket));
        c.max_packet_bytes = 0;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::ZeroMaxPacket));
        let mut t = TrRasConfig::new(
            Rate::from_mbps(1),
            Rate::from_mbps(2),
            Rate::from_mbps(10),
            1499,
        );
        assert_eq!(TrRasProfile::new(&t), Err(RasError::BufferBelowMaxPacket));
        t.buffer_bytes = 1500;
        assert!(TrRasProfile::new(&t).is_ok());
        t.max_packet_bytes = 0;
        assert_eq!(TrRasProfile::new(&t), Err(RasError::ZeroMaxPacket));
        let mut c = sr();
        c.k = Duration::ZERO;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::ZeroK));
        let mut c = sr();
        c.k = Duration::from_secs(1100); // 1.1e12 ns > 2^40
        assert_eq!(SrRasProfile::new(&c), Err(RasError::KTooLong));
        let mut c = sr();
        c.tick = TickRate::from_hz(1).unwrap();
        c.line_rate = Rate::from_bits_per_sec(u64::MAX);
        c.mir = None;
        assert_eq!(SrRasProfile::new(&c), Err(RasError::LineRateTooHigh));
    }

    #[test]
    fn each_trras_rule_is_enforced() {
        let mut c = tr();
        c.cir = Rate::ZERO;
        assert_eq!(TrRasProfile::new(&c), Err(RasError::ZeroCir));
        let mut c = tr();
        c.cir = Rate::from_mbps(5);
        assert_eq!(TrRasProfile::new(&c), Err(RasError::CirAbovePir));
        let mut c = tr();
        c.mir = Some(Rate::from_mbps(3));
        assert_eq!(TrRasProfile::new(&c), Err(RasError::PirAboveMir));
        let mut c = tr();
        c.mir = Some(Rate::from_mbps(40));
        assert_eq!(TrRasProfile::new(&c), Err(RasError::MirAboveLineRate));
        let mut c = tr();
        c.thresholds = Some(TrThresholds {
            cir_th: 30_001,
            pir_th: 30_000,
            mir_th: 60_000,
        });
        assert_eq!(TrRasProfile::new(&c), Err(RasError::CirThAbovePirTh));
        let mut c = tr();
        c.thresholds = Some(TrThresholds {
            cir_th: 0,
            pir_th: 60_001,
            mir_th: 60_000,
        });
        assert_eq!(TrRasProfile::new(&c), Err(RasError::PirThAboveMirTh));
        let mut c = tr();
        c.thresholds = Some(TrThresholds {
            cir_th: 0,
            pir_th: 0,
            mir_th: 100_001,
        });
        assert_eq!(TrRasProfile::new(&c), Err(RasError::MirThAboveBuffer));
        let mut c = tr();
        c.buffer_bytes = 0;
        c.thresholds = None;
        assert_eq!(TrRasProfile::new(&c), Err(RasError::ZeroBuffer));
        let mut c = tr();
        c.k = Duration::from_nanos(1);
        c.tick = TickRate::MILLIS;
        assert_eq!(TrRasProfile::new(&c), Err(RasError::ZeroK));
        assert!(RasError::CirAbovePir.to_string().contains("section 2.4"));
        assert!(RasError::CirThAboveMirTh
            .to_string()
            .contains("section 2.2"));
    }

    /// F in exact rational arithmetic, in rate units times `den`, written as the
    /// RFC states it.
    fn f_exact(c: &TrRasConfig, s: u32, b: u64) -> f64 {
        let th = c.thresholds.unwrap();
        let mir = c.mir.unwrap_or(c.line_rate).bits_per_sec() as f64;
        let (cir, pir) = (c.cir.bits_per_sec() as f64, c.pir.bits_per_sec() as f64);
        let r = if b < th.cir_th {
            cir
        } else if b < th.pir_th {
            cir + (pir - cir) * (b - th.cir_th) as f64 / (th.pir_th - th.cir_th) as f64
        } else if b < th.mir_th {
            pir + (mir - pir) * (b - th.pir_th) as f64 / (th.mir_th - th.pir_th) as f64
        } else {
            mir
        };
        r * 2f64.powi(s as i32) / (8.0 * c.tick.hz() as f64)
    }

    #[test]
    fn rate_function_at_and_between_thresholds() {
        let c = tr();
        let p = TrRasProfile::new(&c).unwrap();
        let s = p.scale();
        // At the thresholds exactly.
        assert_eq!(p.rate_function(0), p.cir_units());
        assert_eq!(p.rate_function(9_999), p.cir_units());
        assert_eq!(p.rate_function(10_000), p.cir_units());
        assert!(p.rate_function(30_000).abs_diff(p.pir_units()) <= 1);
        assert_eq!(p.rate_function(60_000), p.mir_units());
        assert_eq!(p.rate_function(u64::MAX), p.mir_units());
        // Midpoints of each rising piece.
        let mid1 = (p.cir_units() + p.pir_units()) / 2;
        assert!(p.rate_function(20_000).abs_diff(mid1) <= 2);
        let mid2 = (p.pir_units() + p.mir_units()) / 2;
        assert!(p.rate_function(45_000).abs_diff(mid2) <= 2);
        // Everywhere: within two units of the exact value, and monotone.
        // Under Miri, which interprets every instruction: every 499th backlog.
        let mut prev = 0;
        let step = if cfg!(miri) { 499 } else { 1 };
        for b in (0..=100_000u64).step_by(step) {
            let f = p.rate_function(b);
            let want = f_exact(&c, s, b);
            assert!((f as f64 - want).abs() <= 2.0, "b {b}: {f} vs {want}");
            assert!(f >= prev);
            prev = f;
        }
    }

    #[test]
    fn srras_rate_function_has_one_piece() {
        let c = sr();
        let p = SrRasProfile::new(&c).unwrap();
        assert_eq!(p.rate_function(9_999), p.cir_units());
        let mid = (p.cir_units() + p.mir_units()) / 2;
        assert!(p.rate_function(35_000).abs_diff(mid) <= 2);
        assert_eq!(p.rate_function(60_000), p.mir_units());
        // Same as a trRAS whose PIR is CIR and PIR_th is CIR_th.
        let mut t = TrRasConfig::new(c.cir, c.cir, c.line_rate, c.buffer_bytes);
        t.mir = c.mir;
        t.thresholds = Some(TrThresholds {
            cir_th: 10_000,
            pir_th: 10_000,
            mir_th: 60_000,
        });
        let q = TrRasProfile::new(&t).unwrap();
        // Under Miri, which interprets every instruction: every 701st backlog.
        for b in (0..100_000).step_by(if cfg!(miri) { 701 } else { 7 }) {
            assert_eq!(p.rate_function(b), q.rate_function(b));
        }
    }

    #[test]
    fn degenerate_thresholds_step() {
        let mut c = tr();
        c.thresholds = Some(TrThresholds {
            cir_th: 5_000,
            pir_th: 5_000,
            mir_th: 5_000,
        });
        let p = TrRasProfile::new(&c).unwrap();
        assert_eq!(p.rate_function(4_999), p.cir_units());
        assert_eq!(p.rate_function(5_000), p.mir_units());
    }

    #[test]
    fn rounding_keeps_rates_inside_the_bounds() {
        // 1 bit/s above nothing: awkward clocks and rates.
        for hz in [1_000u64, 1_000_000_000, 2_300_000_000, 3] {
            let mut c = tr();
            c.tick = TickRate::from_hz(hz).unwrap();
            c.k = Duration::from_secs(10);
            c.cir = Rate::from_bits_per_sec(1_999_999);
            c.pir = Rate::from_bits_per_sec(3_999_999);
            c.mir = Some(Rate::from_bits_per_sec(33_333_333));
            let p = TrRasProfile::new(&c).unwrap();
            let per = 8u128 * hz as u128;
            // units * 8 hz / 2^S >= CIR and <= MIR, exactly.
            assert!((p.cir_units() as u128 * per) >= (1_999_999u128 << p.scale()));
            assert!((p.mir_units() as u128 * per) <= (33_333_333u128 << p.scale()));
            assert!(p.mir_units() < 1 << LINE_BITS);
        }
    }
}

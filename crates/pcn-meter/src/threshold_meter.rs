//! The RFC 5670 threshold meter (section 2.3, appendix A.1), marking ThM per
//! RFC 6660.

use crate::bucket::unit_accessors;
use crate::mark::PcnMark;
use crate::node::PcnMeter;
use crate::out_table::{by_mark, OutRows, OUT_AS};
use crate::rfc5670::Rfc5670Error;
use crate::units::{below, Units};
use netcond_core::{Instant, Rate, TickRate};

/// Configuration of an RFC 5670 threshold meter.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{ThresholdMeterConfig, ThresholdMeterProfile};
///
/// // PCN-threshold-rate 8 Mbit/s, BS_tm 10 kB, threshold 5 kB, on a
/// // microsecond clock.
/// let c = ThresholdMeterConfig::new(Rate::from_mbps(8), 10_000, 5_000)
///     .with_tick(TickRate::MICROS);
/// assert_eq!(c.bs_tm, 10_000);
/// assert!(ThresholdMeterProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct ThresholdMeterConfig {
    /// PCN-threshold-rate (the PCN-admissible-rate with RFC 6661).
    pub threshold_rate: Rate,
    /// BS_tm, the bucket depth, in bytes; the bucket starts full.
    pub bs_tm: u64,
    /// `threshold`, the marking depth, in bytes.
    pub threshold: u64,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl ThresholdMeterConfig {
    /// PCN-threshold-rate, BS_tm and `threshold` (bytes), on a nanosecond
    /// clock.
    #[must_use]
    pub const fn new(threshold_rate: Rate, bs_tm: u64, threshold: u64) -> ThresholdMeterConfig {
        ThresholdMeterConfig {
            threshold_rate,
            bs_tm,
            threshold,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> ThresholdMeterConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed constants of a [`ThresholdMeter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// C layout, `out` first: the output table at offset 0 makes its lookup one
// address addition, where a displacement needs one more.
#[repr(C)]
pub struct ThresholdMeterProfile {
    /// The state a packet leaves in, by ECN code and marked: NM becomes ThM,
    /// the rest stay (ETM is not threshold-marked).
    out: OutRows,
    u: Units,
    threshold: u64,
    /// Per arriving ECN code: units per byte of a packet's cost, `scale` for a
    /// PCN packet, 0 for not-PCN: not metered, it costs nothing. The length is
    /// held first, if it must be (see `Units::held`).
    scale_by_mark: [u64; 4],
}

impl ThresholdMeterProfile {
    /// Test support: the same profile with lengths always held (the general
    /// path), and whether this one skips the hold.
    #[cfg(test)]
    pub(crate) fn held_always(mut self) -> (Self, bool) {
        let fit = self.u.lens_fit;
        self.u.lens_fit = false;
        (self, fit)
    }

    /// Validates `c` and precomputes its constants.
    pub fn new(c: &ThresholdMeterConfig) -> Result<ThresholdMeterProfile, Rfc5670Error> {
        if c.threshold_rate.bits_per_sec() == 0 {
            return Err(Rfc5670Error::ZeroRate);
        }
        if c.bs_tm == 0 {
            return Err(Rfc5670Error::ZeroBucket);
        }
        if c.threshold > c.bs_tm {
            return Err(Rfc5670Error::ThresholdAboveSize);
        }
        let u = Units::new(c.threshold_rate, c.bs_tm, c.tick, 1).ok_or(Rfc5670Error::TooLarge)?;
        let threshold = u.bytes(c.threshold).ok_or(Rfc5670Error::TooLarge)?;
        Ok(ThresholdMeterProfile {
            u,
            threshold,
            scale_by_mark: by_mark(0, u.scale, u.scale, u.scale),
            out: OUT_AS.rows(),
        })
    }
}

unit_accessors!(ThresholdMeterProfile, "BS_tm");

/// Per-link state of the RFC 5670 threshold meter (appendix A.1):
///
/// ```text
/// F_tm = min(BS_tm, F_tm + dt * PCN-threshold-rate)
/// F_tm = max(0, F_tm - packet_size)
/// if F_tm < threshold and packet is not ETM: threshold-mark (ThM)
/// ```
///
/// Every PCN packet is metered, already-marked ones included (appendix B.5:
/// all packets count towards the admission decision).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ThresholdMeter {
    fill: u64,
    last: Instant,
}

impl ThresholdMeter {
    /// A meter with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &ThresholdMeterProfile, now: Instant) -> ThresholdMeter {
        ThresholdMeter {
            fill: p.u.cap,
            last: now,
        }
    }

    /// F_tm in units.
    #[must_use]
    pub const fn fill_units(&self) -> u64 {
        self.fill
    }

    /// Meters one packet; returns its new state.
    #[inline(always)]
    pub fn mark(
        &mut self,
        p: &ThresholdMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let mut last = self.last;
        let dt = p.u.elapsed(&mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &ThresholdMeterProfile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        let e = usize::from(mark.ecn());
        // fill <= cap < 2^62 and gain < 2 cap: no overflow; exact refill.
        let fill = p.u.cap_at(self.fill + p.u.gain_to_cap(dt));
        // Exact up to BS_tm bytes, above the fill beyond (max(0, F - size) is
        // 0 either way); 0 for not-PCN, which only refills.
        let cost = p.u.held(len) * p.scale_by_mark[e];
        let fill = p.u.sat_sub(fill, cost);
        self.fill = fill;
        // fill, threshold <= cap < 2^62: below() is exact. Branch-free: the
        // marking follows the traffic.
        p.out[e][below(fill, p.threshold)]
    }
}

impl PcnMeter for ThresholdMeter {
    #[inline(always)]
    fn mark(
        &mut self,
        p: &ThresholdMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        ThresholdMeter::mark(self, p, now, len, mark)
    }
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &ThresholdMeterProfile,
        _now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        ThresholdMeter::mark_elapsed(self, p, last, dt, len, mark)
    }
    #[inline]
    fn level(&self) -> i128 {
        self.fill as i128
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i128, i128) {
        (0, p.u.cap as i128)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

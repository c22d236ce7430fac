//! The RFC 5670 threshold meter (section 2.3, appendix A.1), marking ThM per
//! RFC 6660.

use crate::bucket::{bucket_meter, unit_accessors, Bucket, BucketRule};
use crate::mark::PcnMark;
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

bucket_meter!(
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
    ThresholdMeter,
    ThresholdMeterRule,
    ThresholdMeterProfile
);

/// The marking rule of a [`ThresholdMeter`]: every PCN packet takes its
/// tokens down to zero; below `threshold` it is threshold-marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ThresholdMeterRule {}

impl ThresholdMeter {
    /// A meter with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &ThresholdMeterProfile, now: Instant) -> ThresholdMeter {
        ThresholdMeter(Bucket::at(p.u.cap, now))
    }

    /// F_tm in units.
    #[must_use]
    pub const fn fill_units(&self) -> u64 {
        self.0.level_of()
    }
}

impl BucketRule for ThresholdMeterRule {
    type Profile = ThresholdMeterProfile;
    type Level = u64;
    const NAME: &'static str = "ThresholdMeter";
    const FIELD: &'static str = "fill";

    #[inline(always)]
    fn units(p: &ThresholdMeterProfile) -> &Units {
        &p.u
    }

    #[inline(always)]
    fn step(
        p: &ThresholdMeterProfile,
        level: &mut u64,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let e = usize::from(mark.ecn());
        let fill = p.u.refill(*level, dt);
        // Exact up to BS_tm bytes, above the fill beyond (max(0, F - size) is
        // 0 either way); 0 for not-PCN, which only refills.
        let cost = p.u.held(len) * p.scale_by_mark[e];
        let fill = p.u.sat_sub(fill, cost);
        *level = fill;
        // fill, threshold <= cap < 2^62: below() is exact. Branch-free: the
        // marking follows the traffic.
        p.out[e][below(fill, p.threshold)]
    }
}

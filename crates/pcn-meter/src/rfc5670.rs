//! The RFC 5670 threshold meter (section 2.3, appendix A.1) and excess-traffic
//! meter (section 2.4, appendix A.2), with their marking per RFC 6660.
//!
//! RFC 5670 sizes buckets in bits; this crate takes bytes, like every other
//! netcond meter (divide the RFC's bit values by 8).

use crate::mark::PcnMark;
use crate::node::PcnMeter;
use crate::units::{sub_floor, Units};
use netcond_core::{Instant, Rate, TickRate};

netcond_core::config_error! {
    /// Why an RFC 5670 meter configuration was refused.
    pub enum Rfc5670Error {
        /// The bucket does not fit the token counter.
        TooLarge => "bucket size times the clock resolution must stay below 2^62 token units; \
                     use a coarser clock or a smaller bucket",
        /// The threshold lies above the bucket.
        ThresholdAboveSize => "threshold must not exceed BS_tm (RFC 5670 section 2.3: an \
                               intermediate depth of the token bucket)",
    }
}

// ---------------------------------------------------------------------------
// Threshold meter
// ---------------------------------------------------------------------------

/// Configuration of an RFC 5670 threshold meter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
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

/// The precomputed constants of a [`ThresholdMeter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThresholdMeterProfile {
    u: Units,
    threshold: u64,
}

impl ThresholdMeterProfile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &ThresholdMeterConfig) -> Result<ThresholdMeterProfile, Rfc5670Error> {
        if c.threshold > c.bs_tm {
            return Err(Rfc5670Error::ThresholdAboveSize);
        }
        let u = Units::new(c.threshold_rate, c.bs_tm, c.tick, 1).ok_or(Rfc5670Error::TooLarge)?;
        let threshold = u.bytes(c.threshold).ok_or(Rfc5670Error::TooLarge)?;
        Ok(ThresholdMeterProfile { u, threshold })
    }

    /// BS_tm in units.
    #[must_use]
    pub const fn capacity_units(&self) -> u64 {
        self.u.cap
    }

    /// Units per byte.
    #[must_use]
    pub const fn units_per_byte(&self) -> u64 {
        self.u.scale
    }
}

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
        let dt = self.last.advance_to(now);
        let fill = p.u.refill(self.fill, dt);
        if !mark.is_pcn() {
            self.fill = fill;
            return mark;
        }
        let fill = fill.saturating_sub(p.u.cost(len));
        self.fill = fill;
        if fill < p.threshold {
            mark.remark(PcnMark::Thm)
        } else {
            mark
        }
    }
}

impl PcnMeter for ThresholdMeter {
    type Profile = ThresholdMeterProfile;
    #[inline]
    fn start(p: &ThresholdMeterProfile, now: Instant) -> Self {
        ThresholdMeter::new(p, now)
    }
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
    #[inline]
    fn level(&self) -> i64 {
        self.fill as i64
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i64, i64) {
        (0, p.u.cap as i64)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

// ---------------------------------------------------------------------------
// Excess-traffic meter
// ---------------------------------------------------------------------------

/// Which "classic" excess-traffic meter tie rule to use when a packet's size
/// equals the fill exactly.
///
/// RFC 5670 section 2.4 removes the packet's tokens down to a minimum of zero
/// and marks if the bucket is then empty: a packet of exactly `F_etm` bytes
/// empties it and is marked (and a zero-length packet is marked when the bucket
/// is empty). Appendix B.6 describes the classic meter as marking "if the number
/// of tokens in the token bucket is smaller than the packet size": that packet
/// is not marked. Both remove the packet's tokens down to zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ClassicTie {
    /// Section 2.4 (normative, the default): mark iff `F_etm <= size`.
    #[default]
    Section2_4,
    /// Appendix B.6 (informative): mark iff `F_etm < size`.
    AppendixB6,
}

/// The excess-traffic meter's behaviour (RFC 5670 section 2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ExcessMode {
    /// "Packet size independent marking" (the SHOULD of section 2.4, appendix
    /// A.2): if `F_etm < 0` mark and take no tokens, else take the packet's
    /// tokens; the bucket can go below zero by at most one packet.
    SizeIndependent,
    /// The "classic" behaviour with the chosen tie rule.
    Classic(ClassicTie),
}

/// Configuration of an RFC 5670 excess-traffic meter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExcessTrafficMeterConfig {
    /// PCN-excess-rate (the PCN-supportable-rate with RFC 6661).
    pub excess_rate: Rate,
    /// BS_etm, the bucket depth, in bytes; the bucket starts full.
    pub bs_etm: u64,
    /// Size-independent (recommended) or classic.
    pub mode: ExcessMode,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

/// The precomputed constants of an [`ExcessTrafficMeter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExcessTrafficMeterProfile {
    u: Units,
    mode: ExcessMode,
}

impl ExcessTrafficMeterProfile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &ExcessTrafficMeterConfig) -> Result<ExcessTrafficMeterProfile, Rfc5670Error> {
        let u = Units::new(c.excess_rate, c.bs_etm, c.tick, 1).ok_or(Rfc5670Error::TooLarge)?;
        Ok(ExcessTrafficMeterProfile { u, mode: c.mode })
    }

    /// BS_etm in units.
    #[must_use]
    pub const fn capacity_units(&self) -> u64 {
        self.u.cap
    }

    /// Units per byte.
    #[must_use]
    pub const fn units_per_byte(&self) -> u64 {
        self.u.scale
    }
}

/// Per-link state of the RFC 5670 excess-traffic meter.
///
/// Packets that are ETM on arrival are not metered (section 2.4's first
/// SHOULD NOT; dropping is the caller's business and a dropped packet should
/// simply not be passed in). Size independent (appendix A.2):
///
/// ```text
/// F_etm = min(BS_etm, F_etm + dt * PCN-excess-rate)
/// if packet is not ETM: if F_etm < 0 { mark ETM } else { F_etm -= packet_size }
/// ```
///
/// Classic (section 2.4): `F_etm = max(0, F_etm - packet_size)`, marked as
/// chosen by [`ClassicTie`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ExcessTrafficMeter {
    fill: i64,
    last: Instant,
}

impl ExcessTrafficMeter {
    /// A meter with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &ExcessTrafficMeterProfile, now: Instant) -> ExcessTrafficMeter {
        ExcessTrafficMeter {
            fill: p.u.cap as i64,
            last: now,
        }
    }

    /// F_etm in units (negative only in size-independent mode).
    #[must_use]
    pub const fn fill_units(&self) -> i64 {
        self.fill
    }

    /// Meters one packet; returns its new state.
    #[inline(always)]
    pub fn mark(
        &mut self,
        p: &ExcessTrafficMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let dt = self.last.advance_to(now);
        let fill = p.u.refill_signed(self.fill, dt);
        self.fill = fill;
        if !matches!(mark, PcnMark::Nm | PcnMark::Thm) {
            return mark;
        }
        let cost = p.u.cost(len);
        match p.mode {
            ExcessMode::SizeIndependent => {
                if fill < 0 {
                    PcnMark::Etm
                } else {
                    self.fill = sub_floor(fill, cost);
                    mark
                }
            }
            ExcessMode::Classic(tie) => {
                // The classic bucket never goes below zero.
                let f = fill as u64;
                let marked = match tie {
                    ClassicTie::Section2_4 => f <= cost,
                    ClassicTie::AppendixB6 => f < cost,
                };
                self.fill = f.saturating_sub(cost) as i64;
                if marked {
                    PcnMark::Etm
                } else {
                    mark
                }
            }
        }
    }
}

impl PcnMeter for ExcessTrafficMeter {
    type Profile = ExcessTrafficMeterProfile;
    #[inline]
    fn start(p: &ExcessTrafficMeterProfile, now: Instant) -> Self {
        ExcessTrafficMeter::new(p, now)
    }
    #[inline(always)]
    fn mark(
        &mut self,
        p: &ExcessTrafficMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        ExcessTrafficMeter::mark(self, p, now, len, mark)
    }
    #[inline]
    fn level(&self) -> i64 {
        self.fill
    }
    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i64, i64) {
        match p.mode {
            ExcessMode::SizeIndependent => (crate::FLOOR, p.u.cap as i64),
            ExcessMode::Classic(_) => (0, p.u.cap as i64),
        }
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

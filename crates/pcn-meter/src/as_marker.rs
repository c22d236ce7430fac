//! The 3sM AR-meter / AS-marker: a token bucket with threshold marking, in the
//! forms of draft-babiarz-pcn-explicit-marking-01 section 1.2 and
//! draft-babiarz-pcn-3sm-01 section 3.2.2.

use crate::bucket::{bucket_meter, unit_accessors, Bucket, BucketRule};
use crate::mark::PcnMark;
use crate::out_table::{by_mark, OutTable, OUT_AS};
use crate::units::{below, select, Units};
use netcond_core::{Instant, Rate, TickRate};

/// Which published form of the AS-marker to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum AsForm {
    /// draft-babiarz-pcn-explicit-marking-01 section 1.2 (the form its admission-control runs used): mark AS
    /// if `fill < packet.size` (bucket untouched); else `fill -= packet.size` and
    /// mark AS if then `fill < threshold`.
    DraftExplicitMarking01,
    /// draft-babiarz-pcn-3sm-01 section 3.2.2: mark AS if `fill < threshold`
    /// (tested before taking the packet); then `fill = max(0, fill - packet.size)`.
    Draft3sm01,
}

/// Configuration of a 3sM AR-meter / AS-marker.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{AsForm, AsMarkerConfig, AsMarkerProfile};
///
/// // AR 800 kbit/s, a 20 kB bucket, a 10 kB threshold; 3sm-01's form on a
/// // microsecond clock.
/// let c = AsMarkerConfig::draft_3sm01(Rate::from_kbps(800), 20_000, 10_000)
///     .with_tick(TickRate::MICROS);
/// assert_eq!(c.form, AsForm::Draft3sm01);
/// assert!(AsMarkerProfile::new(&c).is_ok());
/// let c = c.with_form(AsForm::DraftExplicitMarking01);
/// assert!(AsMarkerProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct AsMarkerConfig {
    /// AR, the admissible rate: the token rate TB.rate.
    pub ar: Rate,
    /// TB.size in bytes; the bucket starts full.
    pub bucket_size: u64,
    /// TB.threshold in bytes.
    pub threshold: u64,
    /// Which form.
    pub form: AsForm,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl AsMarkerConfig {
    /// The AS-marker of draft-babiarz-pcn-explicit-marking-01 section 1.2 on a nanosecond clock.
    #[must_use]
    pub const fn draft_explicit_marking_01(
        ar: Rate,
        bucket_size: u64,
        threshold: u64,
    ) -> AsMarkerConfig {
        AsMarkerConfig {
            ar,
            bucket_size,
            threshold,
            form: AsForm::DraftExplicitMarking01,
            tick: TickRate::NANOS,
        }
    }

    /// The AS-marker of 3sm-01 section 3.2.2 on a nanosecond clock.
    #[must_use]
    pub const fn draft_3sm01(ar: Rate, bucket_size: u64, threshold: u64) -> AsMarkerConfig {
        AsMarkerConfig {
            ar,
            bucket_size,
            threshold,
            form: AsForm::Draft3sm01,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration in the form `form`.
    #[must_use]
    pub const fn with_form(mut self, form: AsForm) -> AsMarkerConfig {
        self.form = form;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> AsMarkerConfig {
        self.tick = tick;
        self
    }
}

netcond_core::config_error! {
    /// Why an AS-marker configuration was refused.
    pub enum AsMarkerError {
        /// The bucket does not fit the token counter.
        TooLarge => "TB.size times the clock resolution must stay below 2^62 token units; use a \
                     coarser clock or a smaller bucket",
        /// The threshold lies above the bucket.
        ThresholdAboveSize => "TB.threshold must not exceed TB.size (draft-babiarz-pcn-explicit-marking-01 section 1.2: an \
                               intermediate depth of the bucket)",
        /// AR is zero.
        ZeroRate => "AR must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 section \
                     2.3: tokens are added at the admissible rate; at zero none ever is)",
        /// TB.size is zero.
        ZeroBucket => "TB.size must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 \
                       section 2.3: a bucket of depth 0 holds no token, so every packet is marked)",
    }
}

/// The precomputed constants of an [`AsMarker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// C layout, `out` first: the output table at offset 0 makes its lookup one
// address addition, where a displacement needs one more.
#[repr(C)]
pub struct AsMarkerProfile {
    /// The state a packet leaves in, by ECN code and marked: a marked NM
    /// becomes ThM; everything else leaves as it arrived (ThM stays ThM, and
    /// ET and not-PCN are never marked).
    out: OutTable,
    u: Units,
    threshold: u64,
    form: AsForm,
    /// draft-babiarz-pcn-explicit-marking-01's form and lengths that fit (`Units::lens_fit`): the common
    /// case, tested first, alone.
    explicit_marking_fit: bool,
    /// Per arriving ECN code: units per byte of a packet's cost, `scale` for
    /// NM and ThM, 0 for not-PCN and ET: not metered, they cost nothing. The
    /// length is held first, if it must be (see `Units::held`).
    scale_by_mark: [u64; 4],
}

impl AsMarkerProfile {
    /// Test support: the same profile with lengths always held (the general
    /// path), and whether this one skips the hold.
    #[cfg(test)]
    pub(crate) fn held_always(mut self) -> (Self, bool) {
        let fit = self.u.lens_fit;
        self.u.lens_fit = false;
        self.explicit_marking_fit = false;
        (self, fit)
    }

    /// Validates `c` and precomputes its constants.
    pub fn new(c: &AsMarkerConfig) -> Result<AsMarkerProfile, AsMarkerError> {
        if c.ar.bits_per_sec() == 0 {
            return Err(AsMarkerError::ZeroRate);
        }
        if c.bucket_size == 0 {
            return Err(AsMarkerError::ZeroBucket);
        }
        if c.threshold > c.bucket_size {
            return Err(AsMarkerError::ThresholdAboveSize);
        }
        let u = Units::new(c.ar, c.bucket_size, c.tick, 1).ok_or(AsMarkerError::TooLarge)?;
        let threshold = u.bytes(c.threshold).ok_or(AsMarkerError::TooLarge)?;
        Ok(AsMarkerProfile {
            u,
            threshold,
            form: c.form,
            explicit_marking_fit: c.form == AsForm::DraftExplicitMarking01 && u.lens_fit,
            scale_by_mark: by_mark(0, u.scale, u.scale, 0),
            out: OUT_AS,
        })
    }
}

unit_accessors!(AsMarkerProfile, "The capacity (TB.size)");

bucket_meter!(
    /// Per-link state of a 3sM AS-marker. Only PCN packets that are not ET on
    /// arrival are metered (draft-babiarz-pcn-explicit-marking-01 section 1.2); time refills the bucket for every
    /// call. A metered packet leaves as ThM (AS) if marked, else unchanged.
    ///
    /// Metering is branch-free on the traffic, like the ET-marker's: the fill's
    /// chain is the refill, one subtraction and one select.
    AsMarker,
    AsMarkerRule,
    AsMarkerProfile
);

/// The marking rule of an [`AsMarker`], in the form its profile says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum AsMarkerRule {}

impl AsMarker {
    /// A marker with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &AsMarkerProfile, now: Instant) -> AsMarker {
        AsMarker(Bucket::at(p.u.cap, now))
    }

    /// The fill in units of the profile.
    #[must_use]
    pub const fn fill_units(&self) -> u64 {
        self.0.level_of()
    }
}

impl BucketRule for AsMarkerRule {
    type Profile = AsMarkerProfile;
    type Level = u64;
    const NAME: &'static str = "AsMarker";
    const FIELD: &'static str = "fill";

    #[inline(always)]
    fn units(p: &AsMarkerProfile) -> &Units {
        &p.u
    }

    #[inline(always)]
    fn step(p: &AsMarkerProfile, level: &mut u64, dt: u64, len: u32, mark: PcnMark) -> PcnMark {
        let e = usize::from(mark.ecn());
        let fill = p.u.refill(*level, dt);
        // The cost: exact up to TB.size bytes, above cap (so above the fill)
        // beyond, held or not (see `Units::held`); 0 for a packet that is not
        // metered, which then leaves the fill as it is. fill <= cap < 2^62,
        // cost < 2^63, threshold <= cap: fill - cost is exact as an i64.
        let (after, marked) = if p.explicit_marking_fit {
            // The common case first, with one test of the profile: draft-babiarz-pcn-explicit-marking-01,
            // lengths that fit, so not held (see `Units::held`).
            let cost = u64::from(len) * p.scale_by_mark[e];
            let d = fill.wrapping_sub(cost);
            // cost <= 2^62: the sum is below 2^63, below() exact.
            (
                select((d as i64) < 0, fill, d),
                below(fill, cost + p.threshold),
            )
        } else {
            let cost = p.u.held(len) * p.scale_by_mark[e];
            match p.form {
                AsForm::DraftExplicitMarking01 => {
                    let d = fill.wrapping_sub(cost);
                    // A held length costs up to cap + scale: cost + threshold
                    // may exceed the fill by 2^63 or more, where below()
                    // fails. fill < size + threshold is d < threshold
                    // (d = fill - size, exact as an i64), compared.
                    (
                        select((d as i64) < 0, fill, d),
                        usize::from((d as i64) < p.threshold as i64),
                    )
                }
                // max(0, fill - size); marked if fill < threshold, tested before.
                AsForm::Draft3sm01 => (p.u.sat_sub(fill, cost), below(fill, p.threshold)),
            }
        };
        *level = after;
        p.out.at(e, marked)
    }
}

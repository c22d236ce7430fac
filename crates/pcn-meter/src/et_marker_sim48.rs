//! The ET-marker that draft-babiarz-pcn-explicit-marking-01's simulations ran
//! (section 4.8, Figure 9): take the packet first, mark when the bucket is at
//! or below zero, then add `pcn_px`.

use crate::bucket::{bucket_meter, unit_accessors, Bucket, BucketRule};
use crate::mark::PcnMark;
use crate::units::{Units, Wide};
use netcond_core::{Instant, Rate, TickRate};

/// Configuration of the ET-marker as simulated in draft-babiarz-pcn-explicit-marking-01 section 4.8,
/// with the draft's parameter names.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{EtMarkerSim48Config, EtMarkerSim48Profile};
///
/// // pcn_pt 1 Mbit/s, pcn_tb 10 kB, pcn_px 1064 B, on a microsecond clock.
/// let c = EtMarkerSim48Config::new(Rate::from_kbps(1000), 10_000, 1064)
///     .with_tick(TickRate::MICROS);
/// assert_eq!(c.pcn_px, 1064);
/// assert!(EtMarkerSim48Profile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EtMarkerSim48Config {
    /// `pcn_pt`: the preemption threshold (SR) rate.
    pub pcn_pt: Rate,
    /// `pcn_tb`: the token bucket depth in bytes; the bucket starts full.
    pub pcn_tb: u64,
    /// `pcn_px`: tokens (bytes) added after each mark: one mark per about `x`
    /// bytes of excess traffic.
    pub pcn_px: u64,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl EtMarkerSim48Config {
    /// `pcn_pt`, `pcn_tb` and `pcn_px` on a nanosecond clock.
    #[must_use]
    pub const fn new(pcn_pt: Rate, pcn_tb: u64, pcn_px: u64) -> EtMarkerSim48Config {
        EtMarkerSim48Config {
            pcn_pt,
            pcn_tb,
            pcn_px,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> EtMarkerSim48Config {
        self.tick = tick;
        self
    }
}

netcond_core::config_error! {
    /// Why a section 4.8 ET-marker configuration was refused.
    pub enum EtMarkerSim48Error {
        /// The bucket does not fit the token counter.
        TooLarge => "pcn_tb and pcn_px times the clock resolution must stay below 2^62 token \
                     units; use a coarser clock or a smaller bucket",
        /// pcn_pt is zero.
        ZeroRate => "pcn_pt must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 4.8, as RFC 5670 \
                     section 2.4: tokens are added at the preemption threshold rate)",
        /// pcn_tb is zero.
        ZeroBucket => "pcn_tb must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 4.8, as RFC 5670 \
                       section 2.4: a bucket of depth 0 holds no token)",
    }
}

/// The precomputed constants of an [`EtMarkerSim48`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EtMarkerSim48Profile {
    u: Units,
    px: u64,
}

impl EtMarkerSim48Profile {
    /// Validates `c` and precomputes its constants.
    pub fn new(c: &EtMarkerSim48Config) -> Result<EtMarkerSim48Profile, EtMarkerSim48Error> {
        if c.pcn_pt.bits_per_sec() == 0 {
            return Err(EtMarkerSim48Error::ZeroRate);
        }
        if c.pcn_tb == 0 {
            return Err(EtMarkerSim48Error::ZeroBucket);
        }
        let u = Units::new(c.pcn_pt, c.pcn_tb, c.tick, 1).ok_or(EtMarkerSim48Error::TooLarge)?;
        let px = u.bytes(c.pcn_px).ok_or(EtMarkerSim48Error::TooLarge)?;
        Ok(EtMarkerSim48Profile { u, px })
    }

    /// `pcn_px` in units.
    #[must_use]
    pub const fn px_units(&self) -> u64 {
        self.px
    }
}

unit_accessors!(EtMarkerSim48Profile, "The capacity (`pcn_tb`)");

bucket_meter!(
    /// Per-link state of the ET-marker exactly as simulated in draft-babiarz-pcn-explicit-marking-01 section
    /// 4.8 (Figure 9), which differs from section 1.2: the packet is always taken
    /// from the bucket first and the bucket may go negative.
    ///
    /// ```text
    /// tokens = min(tokens + dt * pcn_pt, pcn_tb)
    /// tokens = tokens - packet.size
    /// if tokens <= 0 { mark ET (ECN = 11); tokens = tokens + pcn_px }
    /// ```
    ///
    /// As in the figure every PCN packet is metered, already-ET ones included
    /// (the draft's single-node runs had none). After `+ pcn_px` the fill may
    /// exceed `pcn_tb` until the next refill caps it, as in the figure. The token
    /// count is an `i128` charged each packet's exact cost, as the figure's
    /// unbounded count: exact for any sequence of fewer than 2^33 packets (and
    /// any longer one that does not take it below -2^127 units; see
    /// [`FLOOR`](crate::FLOOR)), where it would be held.
    EtMarkerSim48,
    EtMarkerSim48Rule,
    EtMarkerSim48Profile
);

/// The marking rule of an [`EtMarkerSim48`]: section 4.8's Figure 9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum EtMarkerSim48Rule {}

impl EtMarkerSim48 {
    /// A marker with a full bucket at `now` (`tokenCountP = pcn_tb`).
    #[must_use]
    pub const fn new(p: &EtMarkerSim48Profile, now: Instant) -> EtMarkerSim48 {
        EtMarkerSim48(Bucket::at(Wide::new(p.u.cap as i128), now))
    }

    /// The token count in units (may be negative).
    #[must_use]
    pub const fn tokens_units(&self) -> i128 {
        self.0.level_of().get()
    }
}

impl BucketRule for EtMarkerSim48Rule {
    type Profile = EtMarkerSim48Profile;
    type Level = Wide;
    const NAME: &'static str = "EtMarkerSim48";
    const FIELD: &'static str = "tokens";

    #[inline(always)]
    fn units(p: &EtMarkerSim48Profile) -> &Units {
        &p.u
    }

    #[inline(always)]
    fn step(
        p: &EtMarkerSim48Profile,
        tokens: &mut Wide,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        if p.u.lens_fit {
            if let Some(fill) = tokens.narrow() {
                // The common case: every cost at most 2^62 and a level that
                // fits an i64; the same arithmetic in 64 bits while nothing
                // overflows (else the wide path below, from the same state).
                // cap < 2^62 and fill >= -2^63: the room fits a u64.
                let cap = p.u.cap as i64;
                let t = if fill >= cap {
                    cap
                } else {
                    let room = cap.wrapping_sub(fill) as u64;
                    let gain = dt.saturating_mul(p.u.inc);
                    if gain >= room {
                        cap
                    } else {
                        fill + gain as i64
                    }
                };
                if !mark.is_pcn() {
                    *tokens = Wide::new(t as i128);
                    return mark;
                }
                // cost <= 2^62 (lens_fit) and px < 2^62.
                let cost = u64::from(len) * p.u.scale;
                if let Some(t) = t.checked_sub(cost as i64) {
                    if t <= 0 {
                        if let Some(v) = t.checked_add(p.px as i64) {
                            *tokens = Wide::new(v as i128);
                            return PcnMark::Etm;
                        }
                    } else {
                        *tokens = Wide::new(t as i128);
                        return mark;
                    }
                }
            }
        }
        let t = p.u.refill_wide(tokens.get(), dt);
        if !mark.is_pcn() {
            *tokens = Wide::new(t);
            return mark;
        }
        // The exact cost (below 2^94); held at FLOOR only after more than
        // 2^33 packets with no tokens added (see `FLOOR`).
        let t = t.saturating_sub(p.u.cost_wide(len) as i128);
        if t <= 0 {
            // t <= 0 and px < 2^62: no overflow.
            *tokens = Wide::new(t + p.px as i128);
            PcnMark::Etm
        } else {
            *tokens = Wide::new(t);
            mark
        }
    }

    #[inline]
    fn bounds(p: &EtMarkerSim48Profile) -> (i128, i128) {
        (crate::FLOOR, p.u.cap.max(p.px) as i128)
    }
}

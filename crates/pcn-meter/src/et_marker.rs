//! The 3sM SR-meter / ET-marker: a token bucket with tail marking (or
//! packet-size-independent marking) and marking-frequency reduction `s`, as
//! draft-babiarz-pcn-explicit-marking-01 section 1.2 and draft-babiarz-pcn-3sm-01
//! section 3.1.2 and appendix A.1.5 describe it.

use crate::bucket::{bucket_meter, unit_accessors, Bucket, BucketRule};
use crate::mark::PcnMark;
use crate::out_table::{by_mark, OutTable, OUT_ET};
use crate::units::{select, Units, MAX_UNITS};
use netcond_core::{gcd, Instant, Rate, TickRate};

/// How the ET-marker decides that a packet is excess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum EtMarking {
    /// Tail marking (draft-babiarz-pcn-explicit-marking-01 section 1.2; 3sm-01 section 3.1.2): mark ET when
    /// `fill < packet.size`, then `fill = min(size, fill + s)`.
    TailMarking,
    /// Packet-size-independent marking with proportional reduction (3sm-01
    /// appendix A.1.5): mark ET when `fill < MTU`, then
    /// `fill = min(size, fill + s * packet.size / MTU)`.
    SizeIndependent {
        /// The MTU in bytes.
        mtu: u32,
    },
}

/// Configuration of a 3sM SR-meter / ET-marker, in the draft's units.
///
/// Built from a named profile of its source and adjusted with the `with_*`
/// setters; the fields stay readable.
///
/// ```
/// use netcond_core::{Rate, TickRate};
/// use pcn_meter::{EtMarkerConfig, EtMarkerProfile, EtMarking};
///
/// // draft-babiarz-pcn-explicit-marking-01 section 1.2: SR 1 Mbit/s, a 10 kB
/// // bucket, s = 1064 B; here on a microsecond clock.
/// let c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_kbps(1000), 10_000, 1064)
///     .with_tick(TickRate::MICROS);
/// assert!(c.already_et_adds_s);
/// assert_eq!(c.marking, EtMarking::TailMarking);
/// assert!(EtMarkerProfile::new(&c).is_ok());
///
/// // The same bucket with 3sm-01's size-independent marking (MTU 1500 B).
/// let c = c.with_marking(EtMarking::SizeIndependent { mtu: 1500 });
/// assert!(EtMarkerProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct EtMarkerConfig {
    /// SR, the supportable rate: the token rate TB.rate.
    pub sr: Rate,
    /// TB.size in bytes; the bucket starts full.
    pub bucket_size: u64,
    /// `s`, the marking-frequency reduction, in bytes: after each ET mark the
    /// bucket gains `s` tokens (or `s * size / MTU`), so that under overload about
    /// one packet is marked per `s` + packet size bytes of excess traffic.
    pub s: u64,
    /// draft-babiarz-pcn-explicit-marking-01 section 1.2: "If an ET-marked packet arrives, the TB's fill state
    /// is also incremented by s" (proportionally, `s * size / MTU`, with
    /// [`EtMarking::SizeIndependent`], as in 3sm-01 appendix A.1.5). Off, an
    /// arriving ET packet only lets time refill the bucket.
    pub already_et_adds_s: bool,
    /// The marking test.
    pub marking: EtMarking,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl EtMarkerConfig {
    /// The ET-marker of draft-babiarz-pcn-explicit-marking-01 section 1.2: tail marking, already-ET packets
    /// add `s`, nanosecond clock.
    #[must_use]
    pub const fn draft_explicit_marking_01(sr: Rate, bucket_size: u64, s: u64) -> EtMarkerConfig {
        EtMarkerConfig {
            sr,
            bucket_size,
            s,
            already_et_adds_s: true,
            marking: EtMarking::TailMarking,
            tick: TickRate::NANOS,
        }
    }

    /// The ET-marker of 3sm-01 section 3.1.2: tail marking; an already-ET packet
    /// does not add `s`.
    #[must_use]
    pub const fn draft_3sm01(sr: Rate, bucket_size: u64, s: u64) -> EtMarkerConfig {
        EtMarkerConfig {
            sr,
            bucket_size,
            s,
            already_et_adds_s: false,
            marking: EtMarking::TailMarking,
            tick: TickRate::NANOS,
        }
    }

    /// The ET-marker of 3sm-01 appendix A.1.5: packet-size-independent marking
    /// with proportional reduction, already-ET packets adding `s * size / MTU`.
    #[must_use]
    pub const fn draft_3sm01_size_independent(
        sr: Rate,
        bucket_size: u64,
        s: u64,
        mtu: u32,
    ) -> EtMarkerConfig {
        EtMarkerConfig {
            sr,
            bucket_size,
            s,
            already_et_adds_s: true,
            marking: EtMarking::SizeIndependent { mtu },
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with `already_et_adds_s` set.
    #[must_use]
    pub const fn with_already_et_adds_s(mut self, already_et_adds_s: bool) -> EtMarkerConfig {
        self.already_et_adds_s = already_et_adds_s;
        self
    }

    /// The same configuration with this marking test.
    #[must_use]
    pub const fn with_marking(mut self, marking: EtMarking) -> EtMarkerConfig {
        self.marking = marking;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> EtMarkerConfig {
        self.tick = tick;
        self
    }
}

netcond_core::config_error! {
    /// Why an ET-marker configuration was refused.
    pub enum EtMarkerError {
        /// The bucket does not fit the token counter.
        TooLarge => "TB.size times the clock resolution (times MTU / gcd(s * scale, MTU) with \
                     size-independent marking) must stay below 2^62 token units; use a coarser \
                     clock or a smaller bucket",
        /// MTU is zero.
        ZeroMtu => "MTU must be greater than zero (3sm-01 appendix A.1.5: the reduction is s * size / MTU)",
        /// The bucket cannot hold one MTU.
        MtuAboveBucket => "TB.size must be at least MTU with size-independent marking (3sm-01 \
                           appendix A.1.5: the test fill >= MTU must be reachable)",
        /// SR is zero.
        ZeroRate => "SR must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 section \
                     2.4: tokens are added at the configured rate; at zero none ever is)",
        /// TB.size is zero.
        ZeroBucket => "TB.size must be greater than zero (draft-babiarz-pcn-explicit-marking-01 section 1.2, as RFC 5670 \
                       section 2.4: a bucket of depth 0 holds no token)",
    }
}

/// The precomputed constants of an [`EtMarker`].
///
/// Tokens are units of `1 / (scale * k)` byte (see the crate docs): with tail
/// marking `k = 1`; with size-independent marking `k = MTU / gcd(s * scale, MTU)`,
/// so that the proportional reduction `s * size / MTU` is a whole number of units
/// per byte of packet and is applied exactly, with no rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// C layout, `out` first: the output table at offset 0 makes its lookup one
// address addition, where a displacement needs one more.
#[repr(C)]
pub struct EtMarkerProfile {
    /// The state a packet leaves in, by `2 * ECN code + short`: short NM and
    /// ThM become ETM, everything else leaves as it arrived.
    out: OutTable,
    u: Units,
    /// Size-independent marking (else tail marking).
    size_independent: bool,
    /// Tail marking and lengths that fit (`Units::lens_fit`): the common
    /// case, tested first, alone.
    tail_fit: bool,
    /// Per arriving ECN code: units per byte of a packet's cost, `scale` for
    /// a metered packet (NM, ThM) and for ET with tail marking, 0 for not-PCN
    /// (never short, takes nothing) and for ET with size-independent marking
    /// (never compared with the fill: `need_by_mark` makes it short). The
    /// length is held first, if it must be (see `Units::held`).
    scale_by_mark: [u64; 4],
    /// Per arriving ECN code, tail marking: or-ed into the cost, 2^62 for ET,
    /// so that it costs above any fill (and still below 2^63) and takes the
    /// short path, which only adds `add_by_mark`; 0 for the others. Applied
    /// after the length is held, which then does not depend on the marking.
    cost_or: [u64; 4],
    /// Per arriving ECN code, tail marking: the units a packet on the short
    /// path adds, `s` for NM and ThM (marked), for ET `s` if an arriving ET
    /// packet adds it, 0 for not-PCN and for ET otherwise.
    add_by_mark: [u64; 4],
    /// Per arriving ECN code, size independent: the fill a packet needs not to
    /// be short: MTU in units for NM and ThM, 0 for not-PCN (never short),
    /// 2^62 for ET (above any fill, always short: it only adds `per_by_mark`).
    need_by_mark: [u64; 4],
    /// Per arriving ECN code, size independent: units added per byte on the
    /// short path (as `add_by_mark`, proportionally).
    per_by_mark: [u64; 4],
    /// Size independent: `ceil(cap / per)` bytes (0 for a zero `per`), the
    /// packet length at which the proportional addition reaches the capacity;
    /// the length is held there before the multiply.
    add_len: u64,
}

impl EtMarkerProfile {
    /// Test support: the same profile with lengths always held (the general
    /// path), and whether this one skips the hold.
    #[cfg(test)]
    pub(crate) fn held_always(mut self) -> (Self, bool) {
        let fit = self.u.lens_fit;
        self.u.lens_fit = false;
        self.tail_fit = false;
        (self, fit)
    }

    /// Validates `c` and precomputes its constants.
    pub fn new(c: &EtMarkerConfig) -> Result<EtMarkerProfile, EtMarkerError> {
        if c.sr.bits_per_sec() == 0 {
            return Err(EtMarkerError::ZeroRate);
        }
        if c.bucket_size == 0 {
            return Err(EtMarkerError::ZeroBucket);
        }
        let base = Units::new(c.sr, c.bucket_size, c.tick, 1).ok_or(EtMarkerError::TooLarge)?;
        match c.marking {
            EtMarking::TailMarking => {
                let s = base
                    .bytes(c.s.min(c.bucket_size))
                    .ok_or(EtMarkerError::TooLarge)?;
                let et = if c.already_et_adds_s { s } else { 0 };
                Ok(EtMarkerProfile {
                    u: base,
                    size_independent: false,
                    tail_fit: base.lens_fit,
                    scale_by_mark: by_mark(0, base.scale, base.scale, base.scale),
                    cost_or: by_mark(0, 0, 0, MAX_UNITS),
                    add_by_mark: by_mark(0, s, s, et),
                    need_by_mark: [0; 4],
                    per_by_mark: [0; 4],
                    out: OUT_ET,
                    add_len: 0,
                })
            }
            EtMarking::SizeIndependent { mtu } => {
                if mtu == 0 {
                    return Err(EtMarkerError::ZeroMtu);
                }
                if u64::from(mtu) > c.bucket_size {
                    return Err(EtMarkerError::MtuAboveBucket);
                }
                // s * scale per MTU bytes of packet; refine by k so that it divides.
                // An s of TB.size * MTU or more fills the bucket on any non-empty
                // packet, so capping it there changes nothing and bounds the products.
                let s = c.s.min(c.bucket_size.saturating_mul(u64::from(mtu)));
                let s_units = (s as u128) * (base.scale as u128);
                let g = gcd((s_units % u128::from(mtu)) as u64, u64::from(mtu));
                let k = u64::from(mtu) / g.max(1);
                let u =
                    Units::new(c.sr, c.bucket_size, c.tick, k).ok_or(EtMarkerError::TooLarge)?;
                // Units per byte of packet: s * scale * k / MTU, exact by choice of k.
                let per = s_units * (k as u128) / u128::from(mtu);
                let per = if per > MAX_UNITS as u128 {
                    MAX_UNITS
                } else {
                    per as u64
                };
                let need = u.bytes(u64::from(mtu)).ok_or(EtMarkerError::TooLarge)?;
                let et = if c.already_et_adds_s { per } else { 0 };
                Ok(EtMarkerProfile {
                    u,
                    size_independent: true,
                    tail_fit: false,
                    scale_by_mark: by_mark(0, u.scale, u.scale, 0),
                    cost_or: [0; 4],
                    add_by_mark: [0; 4],
                    need_by_mark: by_mark(0, need, need, MAX_UNITS),
                    per_by_mark: by_mark(0, per, per, et),
                    out: OUT_ET,
                    add_len: if per == 0 { 0 } else { u.cap.div_ceil(per) },
                })
            }
        }
    }
}

unit_accessors!(EtMarkerProfile, "The capacity (TB.size)");

bucket_meter!(
    /// Per-link state of a 3sM ET-marker: the bucket fill and the last update.
    ///
    /// draft-babiarz-pcn-explicit-marking-01 section 1.2, 3sm-01 section 3.1.2 (tail marking) and appendix A.1.5
    /// (size independent), on each PCN packet, after the refill
    /// `fill = min(size, fill + SR * dt)`:
    ///
    /// ```text
    /// not ET on arrival:  if fill < need  { mark ET; fill = min(size, fill + add) }
    ///                     else            { fill = fill - packet.size }
    /// ET on arrival:      if already_et_adds_s { fill = min(size, fill + add) }
    /// need = packet.size (tail) or MTU (size independent)
    /// add  = s           (tail) or s * packet.size / MTU (size independent)
    /// ```
    ///
    /// With size-independent marking a packet longer than the MTU may take more
    /// than the fill; the fill then stops at zero (the draft assumes no packet
    /// exceeds the MTU).
    ///
    /// Metering is branch-free on the traffic: whether a packet is marked follows
    /// the traffic, so the new fill is a select, not a branch that would
    /// mispredict. Only the fill's own chain (an add, the cap, a compare or
    /// subtract, a select) is loop-carried; everything else depends on the
    /// packet and the time only.
    EtMarker,
    EtMarkerRule,
    EtMarkerProfile
);

/// The marking rule of an [`EtMarker`]: tail or size-independent marking,
/// as its profile says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum EtMarkerRule {}

impl EtMarker {
    /// A marker with a full bucket at `now`.
    #[must_use]
    pub const fn new(p: &EtMarkerProfile, now: Instant) -> EtMarker {
        EtMarker(Bucket::at(p.u.cap, now))
    }

    /// The fill in units of the profile.
    #[must_use]
    pub const fn fill_units(&self) -> u64 {
        self.0.level_of()
    }

    /// The last update time.
    #[must_use]
    pub const fn last_update(&self) -> Instant {
        self.0.last_update()
    }
}

impl BucketRule for EtMarkerRule {
    type Profile = EtMarkerProfile;
    type Level = u64;
    const NAME: &'static str = "EtMarker";
    const FIELD: &'static str = "fill";

    #[inline(always)]
    fn units(p: &EtMarkerProfile) -> &Units {
        &p.u
    }

    #[inline(always)]
    fn step(p: &EtMarkerProfile, fill_out: &mut u64, dt: u64, len: u32, mark: PcnMark) -> PcnMark {
        let e = usize::from(mark.ecn());
        let fill = p.u.refill(*fill_out, dt);
        // Not-PCN: cost 0 and never short, so the fill is only refilled.
        let short = if p.tail_fit {
            // The common case first, with one test of the profile: tail
            // marking, lengths that fit, so not held (see `Units::held`).
            tail(fill_out, p, fill, u64::from(len) * p.scale_by_mark[e], e)
        } else if p.size_independent {
            let cost = p.u.held(len) * p.scale_by_mark[e];
            let len = u64::from(len);
            // mtu <= cap (checked at construction): fill < mtu is the test.
            // fill <= cap < 2^62 and need <= 2^62: below() is exact.
            let short = usize::from(fill < p.need_by_mark[e]);
            // s * size / MTU: exact below the capacity, at least the capacity
            // at add_len bytes and beyond (and then below cap + per < 2^63),
            // where min(fill + add, cap) is cap either way.
            let add = len.min(p.add_len) * p.per_by_mark[e];
            // Cost exact up to TB.size bytes, above cap beyond; a packet longer
            // than the fill (only possible beyond the MTU) leaves it at zero.
            *fill_out = select(short != 0, p.u.cap_at(fill + add), p.u.sat_sub(fill, cost));
            short
        } else {
            tail(fill_out, p, fill, p.u.held(len) * p.scale_by_mark[e], e)
        };
        p.out.at(e, short)
    }
}

/// Tail marking after the refill to `fill`: a packet of `cost` units (held
/// or not, see `Units::held`) arriving with ECN code `e`; the new fill goes
/// to `out`. Returns 1 if short (marked, or ET on arrival), else 0.
#[inline(always)]
fn tail(out: &mut u64, p: &EtMarkerProfile, fill: u64, cost: u64, e: usize) -> usize {
    // fill <= cap < 2^62 and cost < 2^63 (at most cap + scale held, 2^62
    // not; or-ed with 2^62): the sign of the difference is the test, and
    // when not short the difference is the new fill.
    let d = fill.wrapping_sub(cost | p.cost_or[e]);
    // add <= s <= cap: the sum is below 2^63.
    let plus = p.u.cap_at(fill + p.add_by_mark[e]);
    *out = select((d as i64) < 0, plus, d);
    (d >> 63) as usize
}

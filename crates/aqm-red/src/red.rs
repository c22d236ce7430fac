//! Classic RED (FJ93), with gentle mode, byte mode and ECN.

use core::time::Duration;

use fixed::types::U32F32;
use netcond_core::{Instant, RandomSource, Rate, TickRate};

use crate::average::AvgProfile;
use crate::byte_mode::ByteMode;
use crate::curve::{Curve, Region};
use crate::queue_settings::{queue_settings, QueueSettings, QueueUnit};
use crate::spreading::{fresh_budget, Spread, Spreading, FRESH};
use crate::ONE;
use crate::{Decision, Packet, RedError};

/// A RED configuration in the units of FJ93 section 4.
///
/// Built with [`packets`](Self::packets), the settings RED shares with RIO
/// given as one [`QueueSettings`] with [`with_queue`](Self::with_queue), and
/// the clock with [`with_tick`](Self::with_tick) (or by setting the public
/// fields of a built value); new fields may be added.
///
/// ```
/// use aqm_red::{QueueSettings, QueueUnit, RedConfig, RedProfile, Spreading};
///
/// // 20 to 60 kB in bytes, max_p 0.1, w_q 1/512, a 100 kB buffer, gentle,
/// // ECN marking up to max_th, DPDK's law with one draw per drop.
/// let queue = QueueSettings::new(RedConfig::prob(1.0 / 512.0), 100_000)
///     .with_unit(QueueUnit::Bytes)
///     .with_gentle(true)
///     .with_ecn(true)
///     .with_ecn_drop_th(Some(60_000))
///     .with_spreading(Spreading::AccumulatedDpdk);
/// let cfg = RedConfig::packets(20_000, 60_000, RedConfig::prob(0.1), queue.w_q, queue.limit)
///     .with_queue(queue);
/// assert!(RedProfile::new(&cfg).is_ok());
///
/// // The same by field: the shared settings are under `queue`.
/// let mut by_field = RedConfig::packets(20_000, 60_000, RedConfig::prob(0.1), RedConfig::prob(1.0 / 512.0), 100_000);
/// by_field.queue.unit = QueueUnit::Bytes;
/// by_field.queue.gentle = true;
/// by_field.queue.ecn = true;
/// by_field.queue.ecn_drop_th = Some(60_000);
/// by_field.queue.spreading = Spreading::AccumulatedDpdk;
/// assert_eq!(by_field, cfg);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct RedConfig {
    /// min_th, in queue units.
    pub min_th: u32,
    /// max_th, in queue units (at most `queue.limit`).
    pub max_th: u32,
    /// max_p, in `[0, 1]`.
    pub max_p: U32F32,
    /// The settings RED shares with RIO: w_q, the buffer, the unit, gentle
    /// RED, byte mode, ECN, `s` and the spreading.
    pub queue: QueueSettings,
    /// The tick clock of the `Instant`s passed in; `queue.typical_tx` is
    /// converted to it once, when the profile is built.
    pub tick: TickRate,
}

impl RedConfig {
    /// A packet-mode configuration: not gentle, no byte mode, no ECN, FJ93
    /// spreading ([`Spreading::Accumulated`]), and `s` = 1200 us (1500 bytes at 10
    /// Mbit/s; set [`QueueSettings::typical_tx`] for the real link,
    /// e.g. with [`typical_tx`](Self::typical_tx)): the queue settings of
    /// [`QueueSettings::new`]; nanosecond ticks.
    #[must_use]
    pub const fn packets(
        min_th: u32,
        max_th: u32,
        max_p: U32F32,
        w_q: U32F32,
        limit: u32,
    ) -> RedConfig {
        RedConfig {
            min_th,
            max_th,
            max_p,
            queue: QueueSettings::new(w_q, limit),
            tick: TickRate::NANOS,
        }
    }

    /// A probability or weight from an `f64` (configuration time). NaN,
    /// negative and huge values give `U32F32::MAX`, which the profile refuses.
    #[must_use]
    pub fn prob(x: f64) -> U32F32 {
        U32F32::checked_from_num(x).unwrap_or(U32F32::MAX)
    }

    /// The time to send `bytes` at `rate`, rounded down to whole nanoseconds
    /// and at least 1 ns: FJ93's `s` for a link, for
    /// [`QueueSettings::typical_tx`]. `Duration::MAX` for a zero rate.
    #[must_use]
    pub const fn typical_tx(rate: Rate, bytes: u32) -> Duration {
        let bits = rate.bits_per_sec();
        if bits == 0 {
            return Duration::MAX;
        }
        let total = bytes as u64 * 8;
        let secs = total / bits;
        // Below 10^9: the remainder is below `bits`.
        let nanos = ((total % bits) as u128 * 1_000_000_000 / bits as u128) as u32;
        if secs == 0 && nanos == 0 {
            Duration::from_nanos(1)
        } else {
            Duration::new(secs, nanos)
        }
    }

    /// The time to send `bytes` at `rate`, in ticks of `tick` (at least 1).
    #[deprecated(note = "durations are `Duration`s: use `typical_tx`")]
    #[must_use]
    pub const fn typical_tx_ticks(rate: Rate, bytes: u32, tick: TickRate) -> u64 {
        let bits = rate.bits_per_sec();
        if bits == 0 {
            return u64::MAX;
        }
        let t = tick.ticks_from_secs_ratio(bytes as u64 * 8, bits);
        if t == 0 {
            1
        } else {
            t
        }
    }
}

queue_settings!(RedConfig);

/// The settings every RED-family queue has once, whatever its curves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Common {
    pub avg: AvgProfile,
    pub unit: QueueUnit,
    pub bytes: ByteMode,
    pub ecn: bool,
    /// ECN hard-drop threshold in average units (above every average when off).
    pub hard_fx: u64,
    pub spread: Spread,
    /// A budget spreading ([`Spreading::Accumulated`] or
    /// [`Spreading::AccumulatedDpdk`]) and no byte mode: the short path of
    /// [`Common::decide_fast`] applies.
    pub fast: bool,
    /// `u32::MAX` in bytes, 0 in packets.
    pub len_mask: u32,
    /// `limit` in bytes, `limit - 1` in packets.
    pub fit_limit: u64,
    /// `limit - 1` in packets with a `w_q` that [`AvgProfile::shifts`], 0
    /// otherwise: `queue_len - 1 < fit_short` (wrapping) is "the short path
    /// applies, the queue is not empty and the arrival fits" ([`FastLine::short`]).
    pub fit_short: u32,
}

/// The constants the per-packet short path reads ([`Common::decide_fast`],
/// [`Red::on_arrival`], [`Rio::on_arrival`](crate::Rio::on_arrival)), copied
/// from a [`Common`] and one [`Curve`] into one 64-byte line: the first field
/// of [`RedProfile`], one per color at the start of
/// [`RioProfile`](crate::RioProfile). A RED packet on the short path reads
/// this line and no other line of its profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C, align(64))]
pub(crate) struct FastLine {
    /// [`Curve::fast_range`].
    pub fast_range: u64,
    /// The slope of the curve's first segment.
    pub slope: u64,
    /// [`Curve::top_fx`].
    pub top_fx: u64,
    /// With ECN, [`Common::hard_fx`]; without, 0: an ECN-capable packet is
    /// marked instead of dropped exactly when `avg < mark_below`.
    pub mark_below: u64,
    /// [`Curve::early_range`].
    pub early_range: u64,
    /// [`Common::fit_short`].
    pub fit_short: u32,
    /// [`Curve::min_fx`].
    pub min_fx: u32,
    /// [`Common::spread`].
    pub spread: Spread,
    /// `2^frac` ([`AvgProfile::frac`]): the queue in fixed point is
    /// `queue_len * q_mul`, one multiply where a shift by a variable amount
    /// takes two instructions on x86-64 without BMI2 (the count must be moved
    /// to `cl`). Equal to `queue_len << frac` for every `queue_len`
    /// (wrapping), and exact where it is used, `queue_len < limit`.
    pub q_mul: u32,
    /// The EWMA's shift ([`AvgProfile::shift`]) where the short path applies
    /// (`fit_short > 0`), 0 otherwise.
    pub shift: u8,
    /// [`Curve::fast_sh`].
    pub fast_sh: u8,
    /// RIO's mode (`RioMode as u8`), read from the first line by
    /// [`Rio::on_arrival`](crate::Rio::on_arrival); 0 for RED, which does not
    /// read it.
    pub rio_mode: u8,
}

const _: () = assert!(core::mem::size_of::<FastLine>() == 64);

impl FastLine {
    /// The short path's constants of `common` with `curve`.
    pub(crate) const fn new(common: &Common, curve: &Curve) -> FastLine {
        FastLine {
            fast_range: curve.fast_range,
            slope: curve.seg[0].slope,
            top_fx: curve.top_fx,
            mark_below: if common.ecn { common.hard_fx } else { 0 },
            early_range: curve.early_range,
            fit_short: common.fit_short,
            min_fx: curve.min_fx,
            spread: common.spread,
            // shift <= 32 where the short path applies; frac <= 31 and
            // fast_sh <= 63 always.
            shift: if common.fit_short > 0 {
                common.avg.shift as u8
            } else {
                0
            },
            // frac <= 31.
            q_mul: 1 << common.avg.frac,
            fast_sh: curve.fast_sh as u8,
            rio_mode: 0,
        }
    }

    /// True when the arrival takes the short path: packets, a `w_q` that
    /// [`AvgProfile::shifts`], and `1 <= queue_len < limit` (no idle period,
    /// the packet fits, and the queue needs no clamping). One comparison:
    /// `queue_len = 0` wraps to `u32::MAX`, which is not below
    /// `fit_short <= limit - 1 < u32::MAX`.
    #[inline(always)]
    pub(crate) const fn short(&self, queue_len: u32) -> bool {
        queue_len.wrapping_sub(1) < self.fit_short
    }

    /// `queue_len << frac` as a multiply ([`q_mul`](Self::q_mul)).
    #[inline(always)]
    pub(crate) const fn q_fx(&self, queue_len: u32) -> u32 {
        queue_len.wrapping_mul(self.q_mul)
    }

    /// One EWMA step toward `q_fx` by [`ewma_shift`](crate::average::ewma_shift),
    /// on the short path.
    #[inline(always)]
    pub(crate) const fn step(&self, avg: u32, q_fx: u32) -> u32 {
        crate::average::ewma_shift(avg, q_fx, self.shift as u32)
    }

    /// [`Common::signal`] with the ECN settings folded into `mark_below`.
    #[inline(always)]
    pub(crate) const fn signal(&self, avg: u32, pkt: Packet, drop: Decision) -> Decision {
        if pkt.ecn.is_capable() && (avg as u64) < self.mark_below {
            Decision::Mark
        } else {
            drop
        }
    }
}

impl Common {
    pub(crate) fn new(c: &QueueSettings, tick: TickRate) -> Result<Common, RedError> {
        let w = c.w_q.to_bits();
        if w == 0 || w > ONE {
            return Err(RedError::WeightOutOfRange);
        }
        if c.limit == 0 {
            return Err(RedError::ZeroLimit);
        }
        // FJ93 section 4's `s`, converted once to whole ticks.
        let s_ticks = tick.ticks_from_duration(c.typical_tx);
        if s_ticks == 0 {
            return Err(RedError::ZeroTransmissionTime);
        }
        let bytes = match c.byte_mode {
            None => ByteMode::OFF,
            Some(0) => return Err(RedError::ZeroMaxPacketSize),
            Some(m) => ByteMode::new(m),
        };
        let avg = AvgProfile::new(w, c.limit, s_ticks);
        let hard_fx = match (c.ecn, c.ecn_drop_th) {
            (true, Some(th)) => avg.th_fx(th as u64),
            _ => u64::MAX,
        };
        Ok(Common {
            avg,
            unit: c.unit,
            bytes,
            ecn: c.ecn,
            hard_fx,
            spread: Spread::new(c.spreading),
            fast: matches!(
                c.spreading,
                Spreading::Accumulated | Spreading::AccumulatedDpdk
            ) && bytes.max_len == 0,
            len_mask: match c.unit {
                QueueUnit::Packets => 0,
                QueueUnit::Bytes => u32::MAX,
            },
            fit_limit: match c.unit {
                QueueUnit::Packets => c.limit as u64 - 1,
                QueueUnit::Bytes => c.limit as u64,
            },
            fit_short: match c.unit {
                QueueUnit::Packets if avg.shifts() => c.limit - 1,
                _ => 0,
            },
        })
    }

    /// True when the arrival does not fit the buffer: `q >= limit` in
    /// packets, `q + len > limit` in bytes (written without a branch on the
    /// unit: `q + (len & mask) > limit - (1 in packets)`).
    #[inline(always)]
    pub(crate) const fn overflows(&self, q: u32, len: u32) -> bool {
        q as u64 + (len & self.len_mask) as u64 > self.fit_limit
    }

    /// RFC 3168 section 5: where RED drops for congestion, an ECN-capable
    /// packet is marked instead, unless the average is at or above the hard
    /// threshold (section 7).
    #[inline(always)]
    pub(crate) const fn signal(&self, avg: u32, pkt: Packet, drop: Decision) -> Decision {
        if self.ecn && pkt.ecn.is_capable() && (avg as u64) < self.hard_fx {
            Decision::Mark
        } else {
            drop
        }
    }

    /// [`decide`](Self::decide) with short paths for the common cases: below
    /// min_th, and (a budget spreading, no byte mode) the average in
    /// `[min_th, max_th)` with the packet not picked (a subtraction, a
    /// multiply and a shift for p_b, one subtraction for the budget). The
    /// curve's `fast_sh` gives p_b for [`Spreading::Accumulated`] and p_b / 2
    /// for [`Spreading::AccumulatedDpdk`] with the same instructions.
    ///
    /// With `EARLY` false the per-packet spreadings' short path is left out
    /// (their packets take [`decide`](Self::decide), out of line, which gives
    /// the same decisions): RIO inlines this once per color, and keeps its
    /// code size down that way.
    #[inline(always)]
    pub(crate) fn decide_fast<const EARLY: bool, R: RandomSource + ?Sized>(
        &self,
        f: &FastLine,
        curve: &Curve,
        avg: u32,
        count: &mut u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        // avg - min_fx, wrapping: below min_fx it is at least 2^32 - min_fx >= fast_range.
        let d = avg.wrapping_sub(f.min_fx);
        if (d as u64) < f.fast_range {
            // seg[0] starts from 0 at min_th (seg[0].lo = min_fx): no base to
            // add. `fast_sh` is seg[0]'s shift, one more for AccumulatedDpdk:
            // `Spread::pick`'s `p >> k_shift`. Below 2^32: `Segment::at` is at most the exact p_b, which is
            // below max_p <= 1 before max_th. Compared with the budget in 32
            // bits, as the budget is kept.
            let p = ((d as u64 * f.slope) >> f.fast_sh) as u32;
            // Spread::pick for the budget spreading, inline, with the test of
            // the budget first: p < b never holds for b = FRESH = 0.
            let mut b = *count;
            if p < b {
                *count = b - p;
                return Decision::Enqueue;
            }
            if b == FRESH {
                b = fresh_budget(rng);
                if p < b {
                    *count = b - p;
                    return Decision::Enqueue;
                }
            }
            // Spread::after_pick for a budget spreading: the next budget now.
            *count = fresh_budget(rng);
            return f.signal(avg, pkt, Decision::DropEarly);
        } else if avg < f.min_fx {
            // FJ93: count = -1 below min_th (and a new budget for Accumulated).
            *count = 0;
            return Decision::Enqueue;
        } else if avg as u64 >= f.top_fx {
            // `decide`'s forced region without its two other tests: here
            // avg >= min_fx, and top_fx >= max_fx (the thresholds are
            // saturated alike and 2 max_th >= max_th), so `region` is Forced.
            *count = f.spread.after_drop;
            return f.signal(avg, pkt, Decision::DropForced);
        } else if EARLY && (d as u64) < f.early_range {
            // The per-packet spreadings in the first probabilistic region,
            // without byte mode: Spread::pick's draw and test, inline. Their
            // `fast_half` is 0, so `fast_sh` is seg[0]'s shift.
            let p = (d as u64 * f.slope) >> f.fast_sh;
            let r = rng.next_u32();
            if f.spread.hit(p, *count, r) {
                // Spread::after_pick for a per-packet spreading.
                *count = f.spread.after_drop;
                return f.signal(avg, pkt, Decision::DropEarly);
            }
            *count = count.saturating_add(1);
            return Decision::Enqueue;
        }
        let (d, c) = self.decide_by_value(curve, avg, *count, pkt, rng);
        *count = c;
        d
    }

    /// [`decide`](Self::decide) out of line, the count passed and returned by
    /// value: the rest of [`decide_fast`](Self::decide_fast), kept out of the
    /// caller's loop so that its registers hold the short path's values.
    #[inline(never)]
    pub(crate) fn decide_by_value<R: RandomSource + ?Sized>(
        &self,
        curve: &Curve,
        avg: u32,
        mut count: u32,
        pkt: Packet,
        rng: &mut R,
    ) -> (Decision, u32) {
        let d = self.decide(curve, avg, &mut count, pkt, rng);
        (d, count)
    }

    /// FJ93 figure 2's decision for a packet whose average is `avg` on `curve`.
    #[inline(always)]
    pub(crate) fn decide<R: RandomSource + ?Sized>(
        &self,
        curve: &Curve,
        avg: u32,
        count: &mut u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        match curve.region(avg) {
            Region::Below => {
                // FJ93: count = -1 below min_th (and a new budget for Accumulated).
                *count = 0;
                Decision::Enqueue
            }
            Region::Early(p) => {
                let p = self.bytes.scale(p, pkt.len);
                if self.spread.pick(p, count, rng) {
                    *count = self.spread.after_pick(rng);
                    self.signal(avg, pkt, Decision::DropEarly)
                } else {
                    Decision::Enqueue
                }
            }
            Region::Forced => {
                *count = self.spread.after_drop;
                self.signal(avg, pkt, Decision::DropForced)
            }
        }
    }
}

/// RFC 3168 section 7's hard threshold: only with ECN, at least every
/// `min_th`, at most the buffer limit.
pub(crate) fn check_ecn_drop(
    ecn: bool,
    ecn_drop_th: Option<u32>,
    min_ths: &[u32],
    limit: u32,
) -> Result<(), RedError> {
    let Some(th) = ecn_drop_th else {
        return Ok(());
    };
    if !ecn {
        return Err(RedError::EcnDropWithoutEcn);
    }
    if min_ths.iter().any(|&m| th < m) {
        return Err(RedError::EcnDropBelowMinTh);
    }
    if th > limit {
        return Err(RedError::EcnDropAboveLimit);
    }
    Ok(())
}

/// The precomputed constants of one RED configuration, shared by every queue
/// that uses it. Aligned to 64 bytes: the first line holds every constant a
/// packet on the short path reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct RedProfile {
    pub(crate) fast: FastLine,
    pub(crate) common: Common,
    pub(crate) curve: Curve,
}

impl RedProfile {
    /// Checks `cfg` and precomputes the fixed-point constants.
    pub fn new(cfg: &RedConfig) -> Result<RedProfile, RedError> {
        let common = Common::new(&cfg.queue, cfg.tick)?;
        let curve = check_curve(&common, cfg.min_th, cfg.max_th, cfg.max_p, cfg.queue.gentle)?;
        check_ecn_drop(
            cfg.queue.ecn,
            cfg.queue.ecn_drop_th,
            &[cfg.min_th],
            cfg.queue.limit,
        )?;
        Ok(RedProfile {
            fast: FastLine::new(&common, &curve),
            common,
            curve,
        })
    }

    /// `w_q` as represented (exactly the configured `U32F32`).
    #[must_use]
    pub fn w_q(&self) -> U32F32 {
        U32F32::from_bits(self.common.avg.w)
    }

    /// max_p as configured ([`AdaptiveRed::max_p`](crate::AdaptiveRed::max_p)
    /// is an adapting queue's current one).
    #[must_use]
    pub fn max_p(&self) -> U32F32 {
        U32F32::from_bits(self.curve.max_p)
    }

    /// The fractional bits `F` of the average (`avg * 2^F` is kept).
    #[must_use]
    pub const fn avg_frac_bits(&self) -> u32 {
        self.common.avg.frac
    }

    /// p_b at an average of `avg` queue units (before byte mode and spreading):
    /// 0 below min_th, 1 in the forced region. Rounded down to the average's
    /// resolution first.
    #[must_use]
    pub fn p_b(&self, avg: U32F32) -> U32F32 {
        self.p_b_on(&self.curve, avg)
    }

    /// [`p_b`](Self::p_b) on `curve` (this profile's, or an adapted copy).
    pub(crate) fn p_b_on(&self, curve: &Curve, avg: U32F32) -> U32F32 {
        U32F32::from_bits(region_p(curve, self.common.avg.fx_of_units(avg)))
    }

    /// The buffer limit in queue units.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.common.avg.limit
    }
}

/// p_b of a region in 2^-32 units (forced = 1).
pub(crate) fn region_p(c: &Curve, avg: u32) -> u64 {
    match c.region(avg) {
        Region::Below => 0,
        Region::Early(p) => p,
        Region::Forced => ONE,
    }
}

/// Checks and builds one curve.
pub(crate) fn check_curve(
    common: &Common,
    min_th: u32,
    max_th: u32,
    max_p: U32F32,
    gentle: bool,
) -> Result<Curve, RedError> {
    if max_p.to_bits() > ONE {
        return Err(RedError::MaxPOutOfRange);
    }
    if min_th >= max_th {
        return Err(RedError::ThresholdOrder);
    }
    if max_th > common.avg.limit {
        return Err(RedError::ThresholdAboveLimit);
    }
    let mut c = Curve::new(&common.avg, min_th, max_th, max_p.to_bits(), gentle);
    c.set_fast_half(common.spread.halves());
    if common.fast {
        c.fast_range = c.max_fx - c.min_fx as u64;
    } else if !common.spread.budget && !common.spread.wait && common.bytes.max_len == 0 {
        // Spreading::Wait takes the general path (Spread::pick), so that the
        // short path of the other per-packet laws has no test for it.
        c.early_range = c.max_fx - c.min_fx as u64;
    }
    Ok(c)
}

/// The per-queue RED state: 16 bytes (the average, the count since the last
/// drop, and the start of the current idle period).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Red {
    avg: u32,
    count: u32,
    q_time: Instant,
}

impl Red {
    /// An empty queue whose time-keeping starts at `now` (as the meters'
    /// constructors do): average 0, count reset, idle since `now`. Later
    /// timestamps are serial times relative to `now` (see
    /// [`Instant::ticks_since`]), so a free-running or wall-clock counter
    /// works from any starting value, 2^63 ticks or more past zero included.
    /// The profile is taken for the crates' one way to start a state,
    /// `State::new(&profile, now)`; the state does not depend on it.
    #[must_use]
    pub const fn new(_profile: &RedProfile, now: Instant) -> Red {
        Red {
            avg: 0,
            count: 0,
            q_time: now,
        }
    }

    /// The decision for a packet arriving at `now` to a queue holding
    /// `queue_len` (packets or bytes, the profile's unit; the arriving packet
    /// not included).
    ///
    /// FJ93 figure 2: the average is updated (with `queue_len = 0`, decayed
    /// over the idle time since [`on_queue_empty`](Self::on_queue_empty) or the
    /// last arrival to an empty queue); a packet that does not fit the buffer
    /// is [`Decision::DropForced`] without touching the count; otherwise RED's
    /// regions decide. Draws one random value only in a probabilistic region.
    #[inline(always)]
    pub fn on_arrival<R: RandomSource + ?Sized>(
        &mut self,
        profile: &RedProfile,
        now: Instant,
        queue_len: u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        self.arrive(
            &profile.fast,
            &profile.common,
            &profile.curve,
            now,
            queue_len,
            pkt,
            rng,
        )
    }

    /// [`on_arrival`](Self::on_arrival) with the profile's parts given one
    /// by one: [`AdaptiveRed`](crate::AdaptiveRed) passes its own curve and
    /// short-path line, which follow its adapted max_p.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn arrive<R: RandomSource + ?Sized>(
        &mut self,
        f: &FastLine,
        common: &Common,
        curve: &Curve,
        now: Instant,
        queue_len: u32,
        pkt: Packet,
        rng: &mut R,
    ) -> Decision {
        let avg = if f.short(queue_len) {
            // 0 < queue_len < limit: queue_len << frac needs no clamp and
            // stays below limit << frac < 2^32.
            f.step(self.avg, f.q_fx(queue_len))
        } else {
            // Off the short path, out of line and by value: the state stays
            // in registers in a caller's loop.
            let s = arrive_long(common, self.avg, self.q_time, now, queue_len, pkt.len);
            self.q_time = s.q_time;
            if !s.fits {
                self.avg = s.avg;
                return Decision::DropForced;
            }
            s.avg
        };
        self.avg = avg;
        common.decide_fast::<true, R>(f, curve, avg, &mut self.count, pkt, rng)
    }

    /// Tells RED that the queue became empty at `now` (FJ93: `q_time`), so
    /// that the next arrival decays the average over the idle period. A `now`
    /// older than the last recorded time is ignored. The profile is taken as
    /// by every method that advances a state; the idle start does not depend
    /// on it.
    #[inline]
    pub fn on_queue_empty(&mut self, _profile: &RedProfile, now: Instant) {
        let _ = self.q_time.advance_to(now);
    }

    /// The average queue length in queue units.
    #[must_use]
    pub fn avg(&self, profile: &RedProfile) -> U32F32 {
        profile.common.avg.units_of(self.avg)
    }

    /// The average as kept: `avg * 2^F` ([`RedProfile::avg_frac_bits`]).
    #[must_use]
    pub const fn avg_bits(&self) -> u32 {
        self.avg
    }

    /// The spreading state: for the count-based spreadings, the packets since
    /// the last drop or mark in the probabilistic region (FJ93's `count`, with
    /// 0 for its -1); for [`Spreading::Accumulated`], the remaining budget in
    /// 2^-32 units (drawn at each early drop or mark for the next gap; 0
    /// below min_th and after a forced drop: a new one is drawn at the next
    /// packet in the probabilistic region), and for
    /// [`Spreading::AccumulatedDpdk`] the same against the sum of `p_b / 2`.
    #[must_use]
    pub const fn count(&self) -> u32 {
        self.count
    }

    /// The start of the current (or last) idle period.
    #[must_use]
    pub const fn idle_since(&self) -> Instant {
        self.q_time
    }

    /// Restarts the spreading state as an arrival below min_th does (FJ93's
    /// `count = -1`; for [`Spreading::Accumulated`] and
    /// [`Spreading::AccumulatedDpdk`], a new budget at the next packet in the
    /// probabilistic region). The average and the idle period are untouched.
    ///
    /// For a caller with a rule of its own before RED's decision: ns-3's
    /// `RedQueueDisc` neither drops nor marks an arrival to a queue of at most
    /// one packet, and treats the next arrival in the region as the first of
    /// a new stay there, as after a stay below min_th; a caller emulating it
    /// calls [`on_arrival`](Self::on_arrival) (for the average), keeps the
    /// packet whatever the decision (if it fits), then calls this.
    #[inline]
    pub fn restart_count(&mut self) {
        self.count = 0;
    }
}

/// What [`arrive_long`] hands back: the new average and idle start, and
/// whether the arrival fits the buffer.
#[derive(Clone, Copy)]
pub(crate) struct LongStep {
    pub q_time: Instant,
    pub avg: u32,
    pub fits: bool,
}

/// [`Red::on_arrival`]'s average off the short path (an empty queue, bytes, a
/// `w_q` that is not a power of two, or an arrival that does not fit), and the
/// buffer test. Out of line, with the state passed and returned by value, so
/// that a caller's loop keeps the state in registers on the short path.
#[cold]
#[inline(never)]
pub(crate) fn arrive_long(
    c: &Common,
    avg: u32,
    mut q_time: Instant,
    now: Instant,
    queue_len: u32,
    len: u32,
) -> LongStep {
    let avg = if queue_len == 0 {
        let idle = q_time.advance_to(now);
        c.avg.decay(avg, idle)
    } else {
        c.avg.step_mul(avg, c.avg.q_fx(queue_len))
    };
    let fits = !c.overflows(queue_len, len);
    LongStep { q_time, avg, fits }
}

#[cfg(test)]
impl FastLine {
    /// This line with every short path switched off: no arrival passes
    /// [`short`](Self::short), and [`Common::decide_fast`] sends every
    /// average in a probabilistic region to [`Common::decide`]. An arrival
    /// then takes the general path, [`arrive_long`] (the multiply form of the
    /// EWMA, the idle decay and the buffer test) and the out-of-line decision.
    pub(crate) const fn general_only(mut self) -> FastLine {
        self.fit_short = 0;
        self.fast_range = 0;
        self.early_range = 0;
        self
    }
}

#[cfg(test)]
impl RedProfile {
    /// This profile with the short paths switched off
    /// ([`FastLine::general_only`]): [`Red::on_arrival`] with it runs the
    /// general path, which the short paths must reproduce exactly
    /// (decisions, state and draws).
    pub(crate) fn general_path_only(&self) -> RedProfile {
        RedProfile {
            fast: self.fast.general_only(),
            ..*self
        }
    }
}

#[cfg(test)]
mod tests;

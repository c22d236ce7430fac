//! Adaptive ECN (Zheng and Kinicki's AECN slides): RED/ECN with a max_p per flow
//! class and mark-front over a fixed-capacity FIFO of packet descriptors.

use core::time::Duration;

use fixed::types::U32F32;
use heapless::Deque;
use netcond_core::{Instant, RandomSource, TickRate};

use crate::average::ewma;
use crate::curve::{Curve, Region};
use crate::queue_settings::QueueSettings;
use crate::red::{check_curve, Common};
use crate::spreading::Spreading;
use crate::ONE;
use crate::{Decision, Ecn, RedError};

/// The flow classes of Zheng and Kinicki's AECN slides (slide 20), e.g. from an RTT hint: short RTT
/// flows are robust, long RTT flows fragile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FlowClass {
    /// Marked with `min(alpha base_max_p, 1)`.
    Robust = 0,
    /// Marked with `base_max_p`.
    #[default]
    Average = 1,
    /// Marked with `base_max_p / beta`.
    Fragile = 2,
}

impl FlowClass {
    /// The three classes.
    pub const ALL: [FlowClass; 3] = [FlowClass::Robust, FlowClass::Average, FlowClass::Fragile];

    /// Index 0, 1, 2.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A packet descriptor that AECN can queue: it knows its class and its ECN
/// field, and can be marked CE.
pub trait AecnDescriptor {
    /// The flow class.
    fn class(&self) -> FlowClass;
    /// The ECN field.
    fn ecn(&self) -> Ecn;
    /// Sets CE (called only on ECT(0) / ECT(1) descriptors).
    fn set_ce(&mut self);
}

/// An AECN configuration (Zheng and Kinicki's AECN slides 9, 12, 20, 21).
/// The queue is counted in packets.
///
/// Built with [`zheng_kinicki`](Self::zheng_kinicki) or [`new`](Self::new)
/// and the `with_*` methods (or by setting the public fields of a built
/// value); new fields may be added.
///
/// ```
/// use aqm_red::{AecnConfig, AecnProfile, FlowClass, RedConfig, Spreading};
///
/// // The slides' router with base_max_p 0.5 and FJ93's spreading.
/// let cfg = AecnConfig::zheng_kinicki(RedConfig::prob(0.5)).with_spreading(Spreading::Accumulated);
/// let profile = AecnProfile::new(&cfg).unwrap();
/// assert_eq!(profile.max_p(FlowClass::Fragile), RedConfig::prob(0.2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct AecnConfig {
    /// w_q in `(0, 1]` (0.001 on the slides).
    pub w_q: U32F32,
    /// min_th in packets (10).
    pub min_th: u32,
    /// max_th in packets (30): at or above it arrivals are dropped.
    pub max_th: u32,
    /// base_max_p in `[0, 1]` (0.5 for 60 flows, 0.8 for 120).
    pub base_max_p: U32F32,
    /// alpha: max_p_robust = min(alpha base_max_p, 1) (2.5).
    pub alpha: U32F32,
    /// beta: max_p_fragile = base_max_p / beta (2.5).
    pub beta: U32F32,
    /// Buffer size in packets (50); at most the queue's capacity.
    pub limit: u32,
    /// FJ93's `s`, the typical transmission time of a packet, converted once
    /// to whole ticks of `tick` when the profile is built.
    pub typical_tx: Duration,
    /// The tick clock of the `Instant`s passed in.
    pub tick: TickRate,
    /// Spreading of marks within each class.
    pub spreading: Spreading,
}

impl AecnConfig {
    /// `w_q`, the thresholds, `base_max_p`, `alpha`, `beta` and the buffer
    /// `limit` in packets; `s` = 1500 bytes at 90 Mbit/s (133,333 ns),
    /// nanosecond ticks and ns-2's spreading ([`Spreading::UniformCountFirst`]), as
    /// on the slides.
    #[must_use]
    pub const fn new(
        w_q: U32F32,
        min_th: u32,
        max_th: u32,
        base_max_p: U32F32,
        alpha: U32F32,
        beta: U32F32,
        limit: u32,
    ) -> AecnConfig {
        AecnConfig {
            w_q,
            min_th,
            max_th,
            base_max_p,
            alpha,
            beta,
            limit,
            typical_tx: Duration::from_nanos(133_333),
            tick: TickRate::NANOS,
            spreading: Spreading::UniformCountFirst,
        }
    }

    /// Sets [`typical_tx`](Self::typical_tx).
    #[must_use]
    pub const fn with_typical_tx(mut self, typical_tx: Duration) -> Self {
        self.typical_tx = typical_tx;
        self
    }

    /// Sets [`tick`](Self::tick).
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> Self {
        self.tick = tick;
        self
    }

    /// Sets [`spreading`](Self::spreading).
    #[must_use]
    pub const fn with_spreading(mut self, spreading: Spreading) -> Self {
        self.spreading = spreading;
        self
    }

    /// The AECN slides' router (slide 12): w_q 0.001, min_th 10, max_th 30, buffer
    /// 50 packets, alpha = beta = 2.5, with `base_max_p`; `s` = 1500 bytes at
    /// 90 Mbit/s (133,333 ns) in nanosecond ticks; ns-2's spreading.
    #[must_use]
    pub const fn zheng_kinicki(base_max_p: U32F32) -> AecnConfig {
        AecnConfig::new(
            U32F32::lit("0.001"),
            10,
            30,
            base_max_p,
            U32F32::lit("2.5"),
            U32F32::lit("2.5"),
            50,
        )
    }
}

/// The precomputed constants of an AECN queue: one curve per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AecnProfile {
    common: Common,
    curves: [Curve; 3],
}

impl AecnProfile {
    /// Checks `cfg` and computes the class max_p values (slide 21):
    /// robust `min(alpha base, 1)`, average `base`, fragile `base / beta`,
    /// each rounded down to 2^-32.
    pub fn new(cfg: &AecnConfig) -> Result<AecnProfile, RedError> {
        let common = Common::new(
            &QueueSettings::new(cfg.w_q, cfg.limit)
                .with_ecn(true)
                .with_ecn_drop_th(Some(cfg.max_th))
                .with_typical_tx(cfg.typical_tx)
                .with_spreading(cfg.spreading),
            cfg.tick,
        )?;
        let base = cfg.base_max_p.to_bits();
        if base > ONE {
            return Err(RedError::MaxPOutOfRange);
        }
        if cfg.beta.to_bits() == 0 {
            return Err(RedError::ZeroBeta);
        }
        if cfg.beta < U32F32::ONE {
            return Err(RedError::BetaBelowOne);
        }
        if cfg.alpha.to_bits() == 0 {
            return Err(RedError::ZeroAlpha);
        }
        if cfg.alpha < U32F32::ONE {
            return Err(RedError::AlphaBelowOne);
        }
        let robust = ((base as u128 * cfg.alpha.to_bits() as u128) >> 32).min(ONE as u128) as u64;
        let fragile = ((base as u128) << 32) / cfg.beta.to_bits() as u128;
        let fragile = fragile.min(ONE as u128) as u64;
        let mut curves = [Curve::new(&common.avg, 0, 1, 0, false); 3];
        for (i, p) in [robust, base, fragile].into_iter().enumerate() {
            curves[i] = check_curve(&common, cfg.min_th, cfg.max_th, U32F32::from_bits(p), false)?;
        }
        Ok(AecnProfile { common, curves })
    }

    /// The max_p of a class.
    #[must_use]
    pub fn max_p(&self, class: FlowClass) -> U32F32 {
        U32F32::from_bits(self.curves[class.index()].max_p)
    }

    /// The buffer limit in packets.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.common.avg.limit
    }
}

/// A refused arrival: why, and the descriptor handed back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected<D> {
    /// [`Decision::DropEarly`] or [`Decision::DropForced`].
    pub decision: Decision,
    /// The packet, returned to the caller.
    pub packet: D,
}

/// An AECN queue: the RED state (average, a count per class, idle start) and a
/// FIFO of up to `N` descriptors.
///
/// The queue holds at most `N` packets, whatever the profile's buffer limit:
/// with a limit above `N`, an arrival that finds `N` queued is refused as
/// [`Decision::DropForced`] and handed back in its [`Rejected`] (after the
/// average and the class's count were updated as for any arrival). A limit of
/// at most `N` never reaches that case: the limit refuses the arrival first.
///
/// For each class a cursor remembers how far the queue has been searched for
/// an unmarked ECN-capable packet of that class: everything of that class
/// before the cursor is marked or not ECN-capable, and new packets join at the
/// back, so mark-front scans each queued packet at most once per class
/// (amortised O(1) per packet).
#[derive(Clone, Debug)]
pub struct AecnQueue<D, const N: usize> {
    fifo: Deque<D, N>,
    avg: u32,
    count: [u32; 3],
    cursor: [u32; 3],
    q_time: Instant,
}

impl<D: AecnDescriptor, const N: usize> AecnQueue<D, N> {
    /// An empty queue for `profile` whose time-keeping starts at `now` (idle
    /// since `now`). The profile is taken for the crates' one way to start a
    /// state; the state does not depend on it. A buffer limit above `N` is
    /// allowed: the queue then holds at most `N` (see [`AecnQueue`]).
    #[must_use]
    pub const fn new(_profile: &AecnProfile, now: Instant) -> Self {
        AecnQueue {
            fifo: Deque::new(),
            avg: 0,
            count: [0; 3],
            cursor: [0; 3],
            q_time: now,
        }
    }

    /// The AECN slides (Zheng and Kinicki), slide 20: the average is updated; at or above max_th the
    /// arrival is dropped as ECN does; otherwise it is queued, and between
    /// min_th and max_th, with its class's probability (and the count since
    /// its class's last mark), the first unmarked ECN-capable packet of its
    /// class nearest the front is marked CE (possibly the arrival itself).
    /// A not-ECN-capable arrival picked to be marked is dropped instead (RED
    /// for non-ECN flows). A full buffer drops the arrival.
    ///
    /// `Ok(Decision::Enqueue)` or `Ok(Decision::Mark)` when queued; otherwise
    /// the descriptor comes back in [`Rejected`].
    #[inline]
    pub fn enqueue<R: RandomSource + ?Sized>(
        &mut self,
        profile: &AecnProfile,
        now: Instant,
        pkt: D,
        rng: &mut R,
    ) -> Result<Decision, Rejected<D>> {
        let k = pkt.class();
        let len = self.fifo.len() as u32;
        let (avg, count, q_time) = (&mut self.avg, &mut self.count, &mut self.q_time);
        let capable = || pkt.ecn().is_capable();
        let decision = decide(profile, now, len, k, capable, (avg, count, q_time), rng);
        if matches!(decision, Decision::DropEarly | Decision::DropForced) {
            return Err(Rejected {
                decision,
                packet: pkt,
            });
        }
        let hit = decision == Decision::Mark;
        let k = k.index();
        if let Err(packet) = self.fifo.push_back(pkt) {
            return Err(Rejected {
                decision: Decision::DropForced,
                packet,
            });
        }
        if hit && self.mark_front(k) {
            Ok(Decision::Mark)
        } else {
            Ok(Decision::Enqueue)
        }
    }

    /// Marks the first unmarked ECN-capable packet of class `k`; false if
    /// there is none.
    fn mark_front(&mut self, k: usize) -> bool {
        let start = self.cursor[k] as usize;
        let (a, b) = self.fifo.as_mut_slices();
        let na = a.len();
        let total = na + b.len();
        let mut i = start;
        while i < total {
            let d = if i < na { &mut a[i] } else { &mut b[i - na] };
            if d.class().index() == k && matches!(d.ecn(), Ecn::Ect0 | Ecn::Ect1) {
                d.set_ce();
                self.cursor[k] = (i + 1) as u32;
                return true;
            }
            i += 1;
        }
        self.cursor[k] = total as u32;
        false
    }

    /// Takes the packet at the front; when the queue becomes empty, `now` is
    /// recorded as the start of an idle period.
    ///
    /// The profile is not read: it is taken so that this method has the shape
    /// of every per-packet method, `(&mut self, &profile, now, ...)`, and so
    /// that a later version may read it without changing the signature.
    #[inline]
    pub fn dequeue(&mut self, _profile: &AecnProfile, now: Instant) -> Option<D> {
        let d = self.fifo.pop_front()?;
        for c in &mut self.cursor {
            *c = c.saturating_sub(1);
        }
        if self.fifo.is_empty() {
            let _ = self.q_time.advance_to(now);
        }
        Some(d)
    }

    /// The number of queued packets.
    #[must_use]
    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    /// True when nothing is queued.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// The queued descriptors, front first.
    pub fn iter(&self) -> impl Iterator<Item = &D> {
        self.fifo.iter()
    }

    /// The average queue length in packets.
    #[must_use]
    pub fn avg(&self, profile: &AecnProfile) -> U32F32 {
        profile.common.avg.units_of(self.avg)
    }

    /// The counts since each class's last mark.
    #[must_use]
    pub const fn counts(&self) -> [u32; 3] {
        self.count
    }

    /// The mark-front search positions per class (for the invariants).
    #[must_use]
    pub const fn cursors(&self) -> [u32; 3] {
        self.cursor
    }
}

/// The arrival decision shared by [`AecnQueue`] and [`Aecn`]: updates the
/// average (decayed over an idle period when `len` is 0) and the class's
/// count, and returns `Enqueue`, `Mark` (queue it, then mark front), or a drop.
#[inline]
fn decide<R: RandomSource + ?Sized>(
    profile: &AecnProfile,
    now: Instant,
    len: u32,
    class: FlowClass,
    ecn_capable: impl FnOnce() -> bool,
    (avg, count, q_time): (&mut u32, &mut [u32; 3], &mut Instant),
    rng: &mut R,
) -> Decision {
    let c = &profile.common;
    if len == 0 {
        let idle = q_time.advance_to(now);
        *avg = c.avg.decay(*avg, idle);
    } else {
        *avg = ewma(*avg, c.avg.q_fx(len), c.avg.w);
    }
    let k = class.index();
    let hit = match profile.curves[k].region(*avg) {
        Region::Forced => {
            count[k] = c.spread.after_drop;
            return Decision::DropForced;
        }
        // Mutation check 3 (test builds): the buffer limit forgotten.
        _ if c.overflows(len, 1) => {
            return Decision::DropForced;
        }
        Region::Below => {
            count[k] = 0;
            false
        }
        Region::Early(p) => {
            let hit = c.spread.pick(p, &mut count[k], rng);
            if hit {
                count[k] = c.spread.after_pick(rng);
            }
            hit
        }
    };
    if !hit {
        Decision::Enqueue
    } else if ecn_capable() {
        Decision::Mark
    } else {
        Decision::DropEarly
    }
}

/// AECN's state without a FIFO (the average, a count per class, the idle
/// start), for a caller that keeps its own queue: [`on_arrival`](Self::on_arrival)
/// decides exactly as [`AecnQueue::enqueue`] does for a queue of the given
/// length; on [`Decision::Mark`] the caller queues the arrival and then marks
/// CE the first unmarked ECN-capable packet of its class nearest the front
/// (the arrival itself if there is no other).
///
/// ```
/// use aqm_red::{Aecn, AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Ecn, FlowClass, RedConfig};
/// use netcond_core::{Instant, SplitMix64};
///
/// #[derive(Clone, Copy)]
/// struct D(FlowClass);
/// impl AecnDescriptor for D {
///     fn class(&self) -> FlowClass { self.0 }
///     fn ecn(&self) -> Ecn { Ecn::Ect0 }
///     fn set_ce(&mut self) {}
/// }
/// let p = AecnProfile::new(&AecnConfig::zheng_kinicki(RedConfig::prob(0.8))).unwrap();
/// let mut q = AecnQueue::<D, 64>::new(&p, Instant::ZERO);
/// let (mut state, mut len) = (Aecn::new(&p, Instant::ZERO), 0u32);
/// let (mut r1, mut r2) = (SplitMix64::new(7), SplitMix64::new(7));
/// for i in 0..20_000u64 {
///     let (now, class) = (Instant::from_ticks(i * 100_000), FlowClass::ALL[(i % 3) as usize]);
///     let want = q.enqueue(&p, now, D(class), &mut r1).map_err(|r| r.decision);
///     let got = state.on_arrival(&p, now, len, class, Ecn::Ect0, &mut r2);
///     assert_eq!(want.unwrap_or_else(|d| d), got);
///     len += u32::from(want.is_ok());
///     if i % 2 == 0 && q.dequeue(&p, now).is_some() {
///         len -= 1;
///         if len == 0 {
///             state.on_queue_empty(&p, now);
///         }
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aecn {
    avg: u32,
    count: [u32; 3],
    q_time: Instant,
}

impl Aecn {
    /// A state for an empty queue, idle since `now` (the profile is taken for
    /// the crates' one way to start a state; the state does not depend on it).
    #[must_use]
    pub const fn new(_profile: &AecnProfile, now: Instant) -> Aecn {
        Aecn {
            avg: 0,
            count: [0; 3],
            q_time: now,
        }
    }

    /// The decision for a packet of `class` arriving at `now` in front of a
    /// queue of `queue_len` packets: `Enqueue`, `Mark` (queue it, then mark
    /// front), `DropEarly` (picked, not ECN-capable) or `DropForced` (average
    /// at or above max_th, or the buffer limit reached).
    #[inline]
    pub fn on_arrival<R: RandomSource + ?Sized>(
        &mut self,
        profile: &AecnProfile,
        now: Instant,
        queue_len: u32,
        class: FlowClass,
        ecn: Ecn,
        rng: &mut R,
    ) -> Decision {
        let state = (&mut self.avg, &mut self.count, &mut self.q_time);
        decide(
            profile,
            now,
            queue_len,
            class,
            || ecn.is_capable(),
            state,
            rng,
        )
    }

    /// The queue became empty at `now` (the start of an idle period). The
    /// profile is taken as by every method that advances a state; the idle
    /// start does not depend on it.
    pub fn on_queue_empty(&mut self, _profile: &AecnProfile, now: Instant) {
        let _ = self.q_time.advance_to(now);
    }

    /// The average queue length in packets.
    #[must_use]
    pub fn avg(&self, profile: &AecnProfile) -> U32F32 {
        profile.common.avg.units_of(self.avg)
    }

    /// The counts since each class's last mark.
    #[must_use]
    pub const fn counts(&self) -> [u32; 3] {
        self.count
    }
}

#[cfg(test)]
mod tests;

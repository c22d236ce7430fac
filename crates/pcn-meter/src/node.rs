//! The common interface of the interior meters and the combined per-link marker.

use crate::mark::PcnMark;
use netcond_core::Instant;

/// A per-link PCN meter and marker: a small `Copy` state driven by an immutable
/// profile, called once per packet.
///
/// Every implementation follows the same rules: a [`PcnMark::NotPcn`] packet
/// is never marked (RFC 5670 section 2.5) and never metered (metering
/// competing-non-PCN traffic is a MAY there; a caller who wants it can pass
/// [`PcnMark::Nm`] and ignore the result); the returned state is never less
/// severe than the arriving one; a clock that steps backwards adds no tokens.
///
/// A meter starts as every state does, through [`State`](netcond_core::State)
/// (its supertrait, which also gives the `Profile` type): `M::start(&profile,
/// now)`, the same as the meter's own `new(&profile, now)`.
pub trait PcnMeter: Copy + netcond_core::State {
    /// Meters a packet of `len` bytes arriving at `now` in state `mark` and
    /// returns its new state.
    fn mark(&mut self, profile: &Self::Profile, now: Instant, len: u32, mark: PcnMark) -> PcnMark;

    /// [`mark`](Self::mark), given the time elapsed since
    /// [`last_update`](Self::last_update): `dt` ticks, after which the last
    /// update is `last` (`now`, or the old last update if `now` is older),
    /// as [`Instant::advance_to`] gives them. A [`NodeMarker`] whose two stages
    /// were last updated at the same instant computes them once for both.
    ///
    /// The default ignores `last` and `dt` and calls `mark` with `now`, which
    /// is always right; the meters of this crate use them instead of working
    /// them out again.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        profile: &Self::Profile,
        now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let _ = (last, dt);
        self.mark(profile, now, len, mark)
    }

    /// The bucket fill in the profile's token units (see each meter).
    fn level(&self) -> i128;

    /// The lowest and highest [`level`](Self::level) the meter can ever hold.
    fn level_bounds(profile: &Self::Profile) -> (i128, i128);

    /// The newest time seen.
    fn last_update(&self) -> Instant;
}

/// The profiles of a [`NodeMarker`]: one for the excess stage, one for the
/// threshold stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeProfile<E, T> {
    /// Profile of the excess-traffic (ET) stage, run first.
    pub excess: E,
    /// Profile of the threshold (AS) stage, run second.
    pub threshold: T,
}

/// A combined per-link PCN node marker: an excess-traffic (ET / ETM) meter and
/// a threshold (AS / ThM) meter run on each packet, excess first.
///
/// Order: the excess stage sees the packet as it arrived, because RFC 5670
/// section 2.4 and 3sM (draft-babiarz-pcn-explicit-marking-01 section 1.2) both skip packets that were
/// already ETM/ET *on arrival*. The threshold stage then sees the result: the
/// RFC 5670 threshold meter meters every PCN packet and does not threshold-mark
/// an ETM one (appendix A.1; ETM takes precedence, RFC 6660 section 5.2.2); the
/// 3sM AS-marker meters only non-ET packets, so a packet ET-marked on this link
/// does not count against AR either (its flow is about to be terminated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeMarker<E, T> {
    /// State of the excess stage.
    pub excess: E,
    /// State of the threshold stage.
    pub threshold: T,
}

impl<E: PcnMeter, T: PcnMeter> NodeMarker<E, T> {
    /// Both stages started at `now`, each from its own profile (each stage's
    /// bucket full).
    #[inline]
    #[must_use]
    pub fn new(p: &NodeProfile<E::Profile, T::Profile>, now: Instant) -> Self {
        NodeMarker {
            excess: E::start(&p.excess, now),
            threshold: T::start(&p.threshold, now),
        }
    }
}

impl<E: PcnMeter, T: PcnMeter> PcnMeter for NodeMarker<E, T> {
    /// Both stages, excess first. When they were last updated at the same
    /// instant (always, unless their states were set apart), the elapsed time
    /// is worked out once for both.
    #[inline(always)]
    fn mark(&mut self, p: &Self::Profile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let mut last = self.excess.last_update();
        if last == self.threshold.last_update() {
            let dt = last.advance_to_hot(now);
            let m = self
                .excess
                .mark_elapsed(&p.excess, now, last, dt, len, mark);
            self.threshold
                .mark_elapsed(&p.threshold, now, last, dt, len, m)
        } else {
            let m = self.excess.mark(&p.excess, now, len, mark);
            self.threshold.mark(&p.threshold, now, len, m)
        }
    }

    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &Self::Profile,
        now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        if self.excess.last_update() == self.threshold.last_update() {
            let m = self
                .excess
                .mark_elapsed(&p.excess, now, last, dt, len, mark);
            self.threshold
                .mark_elapsed(&p.threshold, now, last, dt, len, m)
        } else {
            self.mark(p, now, len, mark)
        }
    }

    /// The excess stage's level.
    #[inline]
    fn level(&self) -> i128 {
        self.excess.level()
    }

    #[inline]
    fn level_bounds(p: &Self::Profile) -> (i128, i128) {
        E::level_bounds(&p.excess)
    }

    #[inline]
    fn last_update(&self) -> Instant {
        self.excess.last_update()
    }
}

/// The 3sM node of draft-babiarz-pcn-explicit-marking-01 section 1.2: [`EtMarker`](crate::EtMarker) then
/// [`AsMarker`](crate::AsMarker).
pub type Node3sm = NodeMarker<crate::EtMarker, crate::AsMarker>;

/// The 3sM node with the ET-marker as simulated in draft-babiarz-pcn-explicit-marking-01 section 4.8.
pub type Node3smSim48 = NodeMarker<crate::EtMarkerSim48, crate::AsMarker>;

/// The RFC 5670 node: [`ExcessTrafficMeter`](crate::ExcessTrafficMeter) then
/// [`ThresholdMeter`](crate::ThresholdMeter), marking per RFC 6660.
pub type NodeRfc5670 = NodeMarker<crate::ExcessTrafficMeter, crate::ThresholdMeter>;

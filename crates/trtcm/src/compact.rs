//! A 16-byte per-flow state for the two-bucket markers.
//!
//! [`SrTcm`], [`TrTcm`] and [`Rfc4115`] keep two `u64` token counts and a
//! timestamp: 24 bytes per flow. When both buckets of a profile hold fewer than
//! 2^32 units, the counts fit in `u32`s, and [`Compact`] stores a flow in 16
//! bytes. Every packet is colored by the wrapped marker's own code, on counts
//! widened to `u64` and narrowed back afterwards; nothing is rounded, so a
//! `Compact<M>` gives exactly the colors and counts of `M` on every stream.
//!
//! What it buys: a third less memory per flow, so more flows fit in each cache
//! level; with many flows, a packet's cost is mostly the time to bring its
//! flow's state into the cache. What it costs: profiles whose buckets reach
//! 2^32 units are refused ([`CompactProfile::new`]). A bucket of `size` bytes
//! holds `size x scale` units, where `scale` ([`BucketProfile::scale`]) is
//! `8 hz / gcd(8 x rate, 8 hz)` for a tick clock of `hz`: with a nanosecond
//! clock and a rate in whole kB/s, `scale` divides 8,000, so buckets up to
//! 536 kB always fit; DPDK's test profile on a 2.3 GHz clock has `scale` 50 and
//! 100 (C and P), so buckets up to 42 MB fit.
//!
//! ```
//! use netcond_core::{Color, Instant};
//! use trtcm::{Compact, CompactProfile, ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile};
//!
//! let profile = CompactProfile::new(TrTcmProfile::new(&TrTcmConfig::default())?)?;
//! let mut flows = vec![Compact::<TrTcm>::new(&profile, Instant::ZERO); 1024];
//! assert_eq!(core::mem::size_of::<Compact<TrTcm>>(), 16);
//!
//! let t = Instant::from_ticks(1_000);
//! assert_eq!(flows[7].color_blind(&profile, t, 1500), Color::Green);
//! // The same stream on the 24-byte state gives the same colors and counts.
//! let mut wide = TrTcm::new(profile.inner(), Instant::ZERO);
//! assert_eq!(wide.color_blind(profile.inner(), t, 1500), Color::Green);
//! assert_eq!(flows[7].to_state(), wide);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`BucketProfile::scale`]: netcond_core::BucketProfile::scale

use core::marker::PhantomData;

use netcond_core::{Color, Instant};

use crate::{Rfc4115, Rfc4115Profile, SrTcm, SrTcmProfile, ThreeColorMarker, TrTcm, TrTcmProfile};

/// The markers [`Compact`] can store: two token counts and a timestamp.
pub trait TwoBucket: ThreeColorMarker + sealed::Parts {}

impl TwoBucket for SrTcm {}
impl TwoBucket for TrTcm {}
impl TwoBucket for Rfc4115 {}

pub(crate) mod sealed {
    use netcond_core::Instant;

    /// The two bucket capacities of a profile, in units, in the order of
    /// [`Parts::counts`].
    pub trait Capacities {
        /// `[C's, the other's]`.
        fn capacities(&self) -> [u64; 2];
    }

    /// Raw access to a two-bucket marker's state, inside this crate only.
    pub trait Parts: crate::ThreeColorMarker<Profile: Capacities> {
        /// The two token counts.
        fn counts(&self) -> [u64; 2];
        /// The last update.
        fn last_update(&self) -> Instant;
        /// A state from counts that are within the capacities (not checked).
        fn from_counts(counts: [u64; 2], last: Instant) -> Self;
    }
}

netcond_core::config_error! {
    /// Why a profile cannot be used with a [`Compact`] state.
    pub enum CompactError {
        /// A bucket's capacity does not fit a `u32`.
        TooLarge => "each bucket must hold fewer than 2^32 token units (size x scale) for its \
                     count to fit 32 bits; use a smaller bucket, a coarser clock, or the \
                     24-byte state",
    }
}

/// A marker profile checked for use with [`Compact`]: both buckets hold fewer
/// than 2^32 units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompactProfile<P> {
    inner: P,
}

impl<P> CompactProfile<P> {
    /// The wrapped profile, for the 24-byte state or for inspection.
    #[inline]
    #[must_use]
    pub const fn inner(&self) -> &P {
        &self.inner
    }
}

impl<P: sealed::Capacities> CompactProfile<P> {
    /// Checks that both buckets of `profile` hold fewer than 2^32 units.
    pub fn new(profile: P) -> Result<Self, CompactError> {
        if profile
            .capacities()
            .iter()
            .all(|&c| c <= u64::from(u32::MAX))
        {
            Ok(CompactProfile { inner: profile })
        } else {
            Err(CompactError::TooLarge)
        }
    }
}

/// The per-flow state of marker `M` in 16 bytes: its two token counts as
/// `u32`s and the last update. See the [module docs](self).
///
/// Every count stays within its bucket's capacity, which
/// [`CompactProfile::new`] checked to be below 2^32, so narrowing a count to
/// `u32` after a packet loses nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Compact<M> {
    counts: [u32; 2],
    last: Instant,
    marker: PhantomData<M>,
}

impl<M: TwoBucket> Compact<M> {
    /// A state with both buckets full at `now`.
    #[inline]
    #[must_use]
    pub fn new(profile: &CompactProfile<M::Profile>, now: Instant) -> Compact<M> {
        Compact::store(M::start(&profile.inner, now))
    }

    /// The compact form of `state`, a state of a marker on `profile`'s inner
    /// profile; counts above a bucket's capacity are clamped to it.
    #[inline]
    #[must_use]
    pub fn from_state(profile: &CompactProfile<M::Profile>, state: M) -> Compact<M> {
        let caps = sealed::Capacities::capacities(&profile.inner);
        let c = state.counts();
        Compact::store(M::from_counts(
            [c[0].min(caps[0]), c[1].min(caps[1])],
            state.last_update(),
        ))
    }

    /// The same state as the 24-byte marker.
    #[inline]
    #[must_use]
    pub fn to_state(&self) -> M {
        M::from_counts(
            [u64::from(self.counts[0]), u64::from(self.counts[1])],
            self.last,
        )
    }

    /// Narrows `m`, whose counts are within a [`CompactProfile`]'s capacities.
    #[inline(always)]
    fn store(m: M) -> Compact<M> {
        let [a, b] = m.counts();
        // Both counts are at most their capacity, below 2^32: exact.
        Compact {
            counts: [a as u32, b as u32],
            last: m.last_update(),
            marker: PhantomData,
        }
    }

    /// Moves this flow from profile `old` to profile `new` at `now`, as the
    /// 24-byte marker's `move_to` does (the counts end within `new`'s
    /// buckets, below 2^32).
    #[inline]
    pub fn move_to(
        &mut self,
        old: &CompactProfile<M::Profile>,
        new: &CompactProfile<M::Profile>,
        now: Instant,
    ) {
        let mut m = self.to_state();
        m.move_to(&old.inner, &new.inner, now);
        *self = Compact::store(m);
    }

    /// Colors a packet, color-blind, as `M::color_blind` does.
    #[inline(always)]
    pub fn color_blind(
        &mut self,
        profile: &CompactProfile<M::Profile>,
        now: Instant,
        len: u32,
    ) -> Color {
        let mut m = self.to_state();
        let color = m.color_blind(&profile.inner, now, len);
        *self = Compact::store(m);
        color
    }

    /// Colors a packet pre-colored `input`, color-aware, as `M::color_aware`
    /// does.
    #[inline(always)]
    pub fn color_aware(
        &mut self,
        profile: &CompactProfile<M::Profile>,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        let mut m = self.to_state();
        let color = m.color_aware(&profile.inner, now, len, input);
        *self = Compact::store(m);
        color
    }
}

netcond_core::impl_state!({M: TwoBucket} Compact<M>, CompactProfile<M::Profile>);

impl<M: TwoBucket> ThreeColorMarker for Compact<M>
where
    M: core::fmt::Debug + PartialEq + Eq + core::hash::Hash,
{
    #[inline(always)]
    fn color_blind(&mut self, profile: &Self::Profile, now: Instant, len: u32) -> Color {
        Compact::color_blind(self, profile, now, len)
    }

    #[inline(always)]
    fn color_aware(
        &mut self,
        profile: &Self::Profile,
        now: Instant,
        len: u32,
        input: Color,
    ) -> Color {
        Compact::color_aware(self, profile, now, len, input)
    }

    #[inline]
    fn tc_at(&self, profile: &Self::Profile, now: Instant) -> u64 {
        self.to_state().tc_at(&profile.inner, now)
    }

    #[inline]
    fn move_to(&mut self, old: &Self::Profile, new: &Self::Profile, now: Instant) {
        Compact::move_to(self, old, new, now);
    }

    #[inline(always)]
    fn color_blind_packet(&mut self, profile: &Self::Profile, now: Instant) -> Color {
        let mut m = self.to_state();
        let color = m.color_blind_packet(&profile.inner, now);
        *self = Compact::store(m);
        color
    }

    #[inline(always)]
    fn color_aware_packet(&mut self, profile: &Self::Profile, now: Instant, input: Color) -> Color {
        let mut m = self.to_state();
        let color = m.color_aware_packet(&profile.inner, now, input);
        *self = Compact::store(m);
        color
    }
}

macro_rules! parts {
    ($marker:ty, $profile:ty, $second:ident) => {
        impl sealed::Capacities for $profile {
            #[inline]
            fn capacities(&self) -> [u64; 2] {
                [self.committed().full(), self.$second().full()]
            }
        }

        impl sealed::Parts for $marker {
            #[inline(always)]
            fn counts(&self) -> [u64; 2] {
                [self.tc(), self.second_count()]
            }
            #[inline(always)]
            fn last_update(&self) -> Instant {
                self.last()
            }
            #[inline(always)]
            fn from_counts(counts: [u64; 2], last: Instant) -> Self {
                <$marker>::from_counts(counts, last)
            }
        }
    };
}

parts!(SrTcm, SrTcmProfile, excess);
parts!(TrTcm, TrTcmProfile, peak);
parts!(Rfc4115, Rfc4115Profile, excess);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::both_paths::{ops, tick};
    use crate::{Rfc4115Config, SrTcmConfig, TrTcmConfig};
    use netcond_core::{Rate, TickRate};
    use proptest::prelude::*;

    #[test]
    fn sixteen_bytes() {
        assert_eq!(core::mem::size_of::<Compact<SrTcm>>(), 16);
        assert_eq!(core::mem::size_of::<Compact<TrTcm>>(), 16);
        assert_eq!(core::mem::size_of::<Compact<Rfc4115>>(), 16);
    }

    #[test]
    fn dpdk_facts_hold() {
        let tick = TickRate::from_hz(2_300_000_000).unwrap();
        let sr = SrTcmProfile::new(&SrTcmConfig {
            tick,
            ..SrTcmConfig::default()
        })
        .unwrap();
        let tr = TrTcmProfile::new(&TrTcmConfig {
            tick,
            ..TrTcmConfig::default()
        })
        .unwrap();
        let r4 = Rfc4115Profile::new(&Rfc4115Config {
            tick,
            ..Rfc4115Config::default()
        })
        .unwrap();
        crate::dpdk_facts::<Compact<SrTcm>>(&CompactProfile::new(sr).unwrap());
        crate::dpdk_facts::<Compact<TrTcm>>(&CompactProfile::new(tr).unwrap());
        crate::dpdk_facts::<Compact<Rfc4115>>(&CompactProfile::new(r4).unwrap());
    }

    /// A trTCM whose P bucket holds exactly `units` units: rate 1 B/s on a 1 Hz
    /// clock has scale 1, so PBS bytes are PBS units.
    fn tr_with_pbs(pbs: u64) -> TrTcmProfile {
        TrTcmProfile::new(&TrTcmConfig {
            cir: Rate::from_bytes_per_sec(1),
            pir: Rate::from_bytes_per_sec(1),
            cbs: 1,
            pbs,
            tick: TickRate::from_hz(1).unwrap(),
            mode: crate::Mode::Bytes,
        })
        .unwrap()
    }

    #[test]
    fn capacity_limit() {
        let p = tr_with_pbs(u64::from(u32::MAX));
        assert_eq!(p.peak().full(), u64::from(u32::MAX));
        assert!(CompactProfile::new(p).is_ok());
        let p = tr_with_pbs(1 << 32);
        assert_eq!(CompactProfile::new(p), Err(CompactError::TooLarge));
        // A ns clock and 1 GB buckets at an odd rate: far above 2^32 units.
        let big = SrTcmProfile::new(&SrTcmConfig {
            cir: Rate::from_bytes_per_sec(46_000_001),
            cbs: 1 << 30,
            ebs: 1 << 30,
            tick: TickRate::NANOS,
            mode: crate::Mode::Bytes,
        })
        .unwrap();
        assert_eq!(CompactProfile::new(big), Err(CompactError::TooLarge));
    }

    #[test]
    fn full_bucket_at_the_limit_round_trips() {
        // Counts of exactly u32::MAX survive narrowing and packets.
        let p = CompactProfile::new(tr_with_pbs(u64::from(u32::MAX))).unwrap();
        let mut c = Compact::<TrTcm>::new(&p, Instant::ZERO);
        assert_eq!(c.to_state().tp(), u64::from(u32::MAX));
        let mut w = TrTcm::new(p.inner(), Instant::ZERO);
        for (i, len) in [0u32, 1, 7, u32::MAX, 3].into_iter().enumerate() {
            let now = Instant::from_ticks(i as u64 * 3);
            assert_eq!(
                c.color_blind(&p, now, len),
                w.color_blind(p.inner(), now, len)
            );
            assert_eq!(c.to_state(), w);
        }
        // A state from elsewhere is clamped on the way in.
        let other = TrTcm::from_parts(&tr_with_pbs(u64::MAX >> 3), 5, u64::MAX >> 4, Instant::ZERO);
        let c = Compact::from_state(&p, other);
        assert_eq!(c.to_state().tp(), u64::from(u32::MAX));
        assert_eq!(c.to_state().tc(), 1);
    }

    /// Runs one stream through `M` and `Compact<M>` and compares every color
    /// and state.
    fn same<M>(
        p: CompactProfile<M::Profile>,
        ops: &[crate::both_paths::Op],
    ) -> Result<(), TestCaseError>
    where
        M: TwoBucket + core::fmt::Debug + PartialEq + Eq + core::hash::Hash,
    {
        let mut wide = M::start(p.inner(), Instant::ZERO);
        let mut narrow = Compact::<M>::new(&p, Instant::ZERO);
        let mut t = 0u64;
        for &(dt, len, input) in ops {
            t = t.wrapping_add(dt);
            let now = Instant::from_ticks(t);
            let (a, b) = match input {
                None => (
                    wide.color_blind(p.inner(), now, len),
                    narrow.color_blind(&p, now, len),
                ),
                Some(c) => (
                    wide.color_aware(p.inner(), now, len, c),
                    narrow.color_aware(&p, now, len, c),
                ),
            };
            prop_assert_eq!(a, b);
            prop_assert_eq!(narrow.to_state(), wide);
            prop_assert_eq!(
                ThreeColorMarker::tc_at(&narrow, &p, now),
                wide.tc_at(p.inner(), now)
            );
        }
        Ok(())
    }

    /// `size` held to the largest bucket at `rate` that fits 2^32 units (at
    /// least 1 byte), so that most random profiles can be compact.
    fn fit(rate: Rate, size: u64, tick: TickRate) -> u64 {
        match netcond_core::BucketProfile::new(rate, 1, tick) {
            Ok(b) => size.min(u64::from(u32::MAX) / b.scale()).max(1),
            Err(_) => size,
        }
    }

    proptest! {
        /// Any profile that fits gives the 24-byte marker's colors and counts,
        /// on any stream (lengths up to u32::MAX, clocks stepping backwards).
        /// Bucket sizes are held to what fits 32 bits, so that few cases are
        /// refused.
        #[test]
        fn same_as_the_wide_state(
            cir in 1u64..1 << 34,
            extra in 0u64..1 << 34,
            cbs in 1u64..1 << 24,
            big in 1u64..1 << 28,
            tick in tick(),
            ops in ops(),
        ) {
            let pir = Rate::from_bytes_per_sec(cir + extra);
            let cir = Rate::from_bytes_per_sec(cir);
            let cbs = fit(cir, cbs, tick);
            let (ebs, pbs) = (fit(cir, big, tick), fit(pir, big, tick));
            let mut ran = 0;
            if let Ok(p) = SrTcmProfile::new(&SrTcmConfig { cir, cbs, ebs, tick, mode: crate::Mode::Bytes, }) {
                if let Ok(p) = CompactProfile::new(p) {
                    same::<SrTcm>(p, &ops)?;
                    ran += 1;
                }
            }
            if let Ok(p) = TrTcmProfile::new(&TrTcmConfig { cir, pir, cbs, pbs, tick, mode: crate::Mode::Bytes, }) {
                if let Ok(p) = CompactProfile::new(p) {
                    same::<TrTcm>(p, &ops)?;
                    ran += 1;
                }
            }
            if let Ok(p) = Rfc4115Profile::new(&Rfc4115Config { cir, eir: pir, cbs, ebs: pbs, tick, mode: crate::Mode::Bytes, }) {
                if let Ok(p) = CompactProfile::new(p) {
                    same::<Rfc4115>(p, &ops)?;
                    ran += 1;
                }
            }
            // A scale of 2^32 or more fits no bucket at all; anything else must
            // have run all three.
            let scale = |r| netcond_core::BucketProfile::new(r, 1, tick).map_or(u64::MAX, |b| b.scale());
            if scale(cir) <= u64::from(u32::MAX) && scale(pir) <= u64::from(u32::MAX) {
                prop_assert_eq!(ran, 3);
            }
        }
    }
}

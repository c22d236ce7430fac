//! The token-bucket state every interior meter of this crate shares: a level
//! and the last update, moved forward in time and metered by a marking rule.
//!
//! Each meter's module keeps its configuration, profile, error and rule (a
//! [`BucketRule`]: what a packet takes, what it marks when the bucket is
//! short, and the profile it reads); the state, the elapsed time, the
//! accessors and the [`PcnMeter`] implementation are written once here.

use crate::mark::PcnMark;
use crate::node::PcnMeter;
use core::fmt;
use core::hash::Hash;
use core::marker::PhantomData;
use netcond_core::Instant;

pub(crate) mod sealed {
    /// Only this crate's rules drive a [`Bucket`](super::Bucket).
    pub trait Sealed {}
}

/// What a level of a [`Bucket`] must be with the `serde` feature: written and
/// read as the meter's own state was.
#[cfg(feature = "serde")]
pub trait LevelSerde: serde::Serialize + serde::de::DeserializeOwned {}
#[cfg(feature = "serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> LevelSerde for T {}
/// What a level of a [`Bucket`] must be with the `serde` feature (nothing
/// without it).
#[cfg(not(feature = "serde"))]
pub trait LevelSerde {}
#[cfg(not(feature = "serde"))]
impl<T> LevelSerde for T {}

/// What a level of a [`Bucket`] must be with the `defmt` feature.
#[cfg(feature = "defmt")]
pub trait LevelFormat: defmt::Format {}
#[cfg(feature = "defmt")]
impl<T: defmt::Format> LevelFormat for T {}
/// What a level of a [`Bucket`] must be with the `defmt` feature (nothing
/// without it).
#[cfg(not(feature = "defmt"))]
pub trait LevelFormat {}
#[cfg(not(feature = "defmt"))]
impl<T> LevelFormat for T {}

/// The marking rule of one of this crate's token-bucket meters: the type
/// parameter of [`Bucket`], one per meter (sealed: the rules are this
/// crate's five).
pub trait BucketRule: sealed::Sealed + Copy + Eq + Hash + fmt::Debug {
    /// The meter's precomputed, shared configuration.
    type Profile;
    /// The stored level: `u64` for a bucket that is never negative, a signed
    /// 128-bit level stored as two words for the two that may be.
    type Level: Copy + Eq + Hash + fmt::Debug + LevelSerde + LevelFormat;
    /// The meter's type name, as its state's `Debug` and serde forms give it.
    const NAME: &'static str;
    /// The level's field name in those forms.
    const FIELD: &'static str;

    /// The level of a full bucket, where every meter starts.
    fn full(p: &Self::Profile) -> Self::Level;

    /// Moves `last` to `now` and returns the ticks elapsed; a clock that
    /// steps backwards gives 0 and leaves `last`.
    #[inline(always)]
    fn elapsed(_p: &Self::Profile, last: &mut Instant, now: Instant) -> u64 {
        crate::units::forward(last, now)
    }

    /// The level after `dt` ticks and one packet of `len` bytes arriving in
    /// state `mark`, and the state it leaves in.
    fn step(
        p: &Self::Profile,
        level: Self::Level,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> (Self::Level, PcnMark);

    /// The level in the profile's token units.
    fn units(level: Self::Level) -> i128;

    /// The lowest and highest level the meter can ever hold.
    fn bounds(p: &Self::Profile) -> (i128, i128);
}

/// The per-link state of a token-bucket meter: its level and last update,
/// metered by the rule `R`. Used through the meters' own names
/// ([`ThresholdMeter`](crate::ThresholdMeter),
/// [`ExcessTrafficMeter`](crate::ExcessTrafficMeter),
/// [`EtMarker`](crate::EtMarker), [`AsMarker`](crate::AsMarker),
/// [`EtMarkerSim48`](crate::EtMarkerSim48)), which document each rule.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Bucket<R: BucketRule> {
    fill: R::Level,
    last: Instant,
    rule: PhantomData<R>,
}

impl<R: BucketRule> Bucket<R> {
    /// The state with level `fill` last updated at `last`.
    #[inline(always)]
    pub(crate) const fn at(fill: R::Level, last: Instant) -> Bucket<R> {
        Bucket {
            fill,
            last,
            rule: PhantomData,
        }
    }

    /// The stored level.
    #[inline(always)]
    pub(crate) const fn level_of(&self) -> R::Level {
        self.fill
    }

    /// The last update time.
    #[must_use]
    pub const fn last_update(&self) -> Instant {
        self.last
    }

    /// Meters one packet of `len` bytes arriving at `now` in state `mark`;
    /// returns its new state (see the meter's own type for its rule).
    #[inline(always)]
    pub fn mark(&mut self, p: &R::Profile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        let mut last = self.last;
        let dt = R::elapsed(p, &mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &R::Profile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        let (fill, out) = R::step(p, self.fill, dt, len, mark);
        self.fill = fill;
        out
    }
}

impl<R: BucketRule> PcnMeter for Bucket<R> {
    type Profile = R::Profile;
    #[inline]
    fn start(p: &R::Profile, now: Instant) -> Self {
        Bucket::at(R::full(p), now)
    }
    #[inline(always)]
    fn mark(&mut self, p: &R::Profile, now: Instant, len: u32, mark: PcnMark) -> PcnMark {
        Bucket::mark(self, p, now, len, mark)
    }
    #[inline(always)]
    fn mark_elapsed(
        &mut self,
        p: &R::Profile,
        _now: Instant,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        Bucket::mark_elapsed(self, p, last, dt, len, mark)
    }
    #[inline]
    fn level(&self) -> i128 {
        R::units(self.fill)
    }
    #[inline]
    fn level_bounds(p: &R::Profile) -> (i128, i128) {
        R::bounds(p)
    }
    #[inline]
    fn last_update(&self) -> Instant {
        self.last
    }
}

/// As the meter's own state wrote it: its name, the level's field and `last`.
impl<R: BucketRule> fmt::Debug for Bucket<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(R::NAME)
            .field(R::FIELD, &self.fill)
            .field("last", &self.last)
            .finish()
    }
}

/// The meter's serde form: a struct of its name with the level's field
/// (`fill`, or `tokens` for [`EtMarkerSim48`](crate::EtMarkerSim48)) and
/// `last`.
#[cfg(feature = "serde")]
impl<R: BucketRule> serde::Serialize for Bucket<R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct(R::NAME, 2)?;
        st.serialize_field(R::FIELD, &self.fill)?;
        st.serialize_field("last", &self.last)?;
        st.end()
    }
}

/// The form [`Serialize`](serde::Serialize) writes, read back.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct Stored<L> {
    #[serde(alias = "tokens")]
    fill: L,
    last: Instant,
}

#[cfg(feature = "serde")]
impl<'de, R: BucketRule> serde::Deserialize<'de> for Bucket<R> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <Stored<R::Level> as serde::Deserialize>::deserialize(d)?;
        Ok(Bucket::at(s.fill, s.last))
    }
}

//! The token-bucket state the 3sM markers share (the ET-marker, the
//! AS-marker and the section 4.8 ET-marker): a level and the last update,
//! moved forward in time and metered by a marking rule.
//!
//! Each marker's module keeps its configuration, profile, error and rule (a
//! [`BucketRule`]: what a packet takes, what it marks when the bucket is
//! short, and the profile it reads); the state, the elapsed time, the
//! accessors and the [`PcnMeter`](crate::PcnMeter) implementation are written
//! once here. The RFC 5670 meters keep their own state code (on this
//! generic state their combined node measured more instructions per
//! packet); they share only the profile accessors ([`unit_accessors`]).

use crate::mark::PcnMark;
use crate::units::{Units, Wide};
use core::fmt;
use core::hash::Hash;
use core::marker::PhantomData;
use netcond_core::Instant;

/// What a level of a [`Bucket`] must be with the `serde` feature: written and
/// read as the meter's own state was.
#[cfg(feature = "serde")]
pub(crate) trait LevelSerde: serde::Serialize + serde::de::DeserializeOwned {}
#[cfg(feature = "serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> LevelSerde for T {}
/// What a level of a [`Bucket`] must be with the `serde` feature (nothing
/// without it).
#[cfg(not(feature = "serde"))]
pub(crate) trait LevelSerde {}
#[cfg(not(feature = "serde"))]
impl<T> LevelSerde for T {}

/// What a level of a [`Bucket`] must be with the `defmt` feature.
#[cfg(feature = "defmt")]
pub(crate) trait LevelFormat: defmt::Format {}
#[cfg(feature = "defmt")]
impl<T: defmt::Format> LevelFormat for T {}
/// What a level of a [`Bucket`] must be with the `defmt` feature (nothing
/// without it).
#[cfg(not(feature = "defmt"))]
pub(crate) trait LevelFormat {}
#[cfg(not(feature = "defmt"))]
impl<T> LevelFormat for T {}

/// The level a [`Bucket`] stores: `u64` for a bucket that is never
/// negative, a signed 128-bit level stored as two words for the two that may
/// be.
pub(crate) trait Level: Copy + Eq + Hash + fmt::Debug + LevelSerde + LevelFormat {
    /// The level in units.
    fn value(self) -> i128;
}

impl Level for u64 {
    #[inline(always)]
    fn value(self) -> i128 {
        self as i128
    }
}

impl Level for Wide {
    #[inline(always)]
    fn value(self) -> i128 {
        self.get()
    }
}

/// The marking rule of one of this crate's token-bucket meters: the type
/// parameter of [`Bucket`], one per meter.
pub(crate) trait BucketRule: Copy + Eq + Hash + fmt::Debug {
    /// The meter's precomputed, shared configuration.
    type Profile;
    /// The stored level (see [`Level`]).
    type Level: Level;
    /// The meter's type name, as its state's `Debug` and serde forms give it.
    const NAME: &'static str;
    /// The level's field name in those forms.
    const FIELD: &'static str;

    /// The profile's token units.
    fn units(p: &Self::Profile) -> &Units;

    /// Moves `last` to `now` and returns the ticks elapsed; a clock that
    /// steps backwards gives 0 and leaves `last`.
    #[inline(always)]
    fn elapsed(_p: &Self::Profile, last: &mut Instant, now: Instant) -> u64 {
        last.advance_to_hot(now)
    }

    /// Moves `level` on by `dt` ticks and one packet of `len` bytes
    /// arriving in state `mark`; returns the state the packet leaves in.
    fn step(
        p: &Self::Profile,
        level: &mut Self::Level,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark;

    /// The lowest and highest level the meter can ever hold: by default
    /// those of a bucket that is never negative.
    #[inline]
    fn bounds(p: &Self::Profile) -> (i128, i128) {
        (0, Self::units(p).cap as i128)
    }
}

/// The per-link state of a token-bucket meter: its level and last update,
/// metered by the rule `R`. Held by the meters' own types
/// ([`EtMarker`](crate::EtMarker), [`AsMarker`](crate::AsMarker),
/// [`EtMarkerSim48`](crate::EtMarkerSim48); see [`bucket_meter`]), which
/// document each rule.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct Bucket<R: BucketRule> {
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

    /// The level in units.
    #[inline(always)]
    pub(crate) fn level(&self) -> i128 {
        self.fill.value()
    }

    /// The last update time.
    #[inline(always)]
    pub(crate) const fn last_update(&self) -> Instant {
        self.last
    }

    /// Meters one packet of `len` bytes arriving at `now` in state `mark`;
    /// returns its new state (see the meter's own type for its rule).
    #[inline(always)]
    pub(crate) fn mark(
        &mut self,
        p: &R::Profile,
        now: Instant,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        let mut last = self.last;
        let dt = R::elapsed(p, &mut last, now);
        self.mark_elapsed(p, last, dt, len, mark)
    }

    /// [`mark`](Self::mark) with the elapsed time already computed:
    /// `dt = elapsed(&mut last, now)` from this meter's last update.
    #[inline(always)]
    pub(crate) fn mark_elapsed(
        &mut self,
        p: &R::Profile,
        last: Instant,
        dt: u64,
        len: u32,
        mark: PcnMark,
    ) -> PcnMark {
        self.last = last;
        R::step(p, &mut self.fill, dt, len, mark)
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

/// The two unit accessors of a meter's profile (a `u: Units` field), with the
/// capacity's own name in its documentation.
macro_rules! unit_accessors {
    ($profile:ty, $capacity:literal) => {
        impl $profile {
            #[doc = concat!($capacity, " in units.")]
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
    };
}
pub(crate) use unit_accessors;

/// A meter's public type over a [`Bucket`] with its rule: the struct (the
/// documentation given first), `mark`, `Debug` and [`PcnMeter`] (its
/// `new` and level accessor are the meter module's own, as they differ).
///
/// [`PcnMeter`]: crate::PcnMeter
macro_rules! bucket_meter {
    ($(#[$doc:meta])* $name:ident, $rule:ty, $profile:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub struct $name($crate::bucket::Bucket<$rule>);

        impl $name {
            /// Meters one packet; returns its new state.
            #[inline(always)]
            pub fn mark(
                &mut self,
                p: &$profile,
                now: netcond_core::Instant,
                len: u32,
                mark: $crate::PcnMark,
            ) -> $crate::PcnMark {
                self.0.mark(p, now, len, mark)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl $crate::PcnMeter for $name {
            #[inline(always)]
            fn mark(
                &mut self,
                p: &$profile,
                now: netcond_core::Instant,
                len: u32,
                mark: $crate::PcnMark,
            ) -> $crate::PcnMark {
                self.0.mark(p, now, len, mark)
            }
            #[inline(always)]
            fn mark_elapsed(
                &mut self,
                p: &$profile,
                _now: netcond_core::Instant,
                last: netcond_core::Instant,
                dt: u64,
                len: u32,
                mark: $crate::PcnMark,
            ) -> $crate::PcnMark {
                self.0.mark_elapsed(p, last, dt, len, mark)
            }
            #[inline]
            fn level(&self) -> i128 {
                self.0.level()
            }
            #[inline]
            fn level_bounds(p: &$profile) -> (i128, i128) {
                <$rule as $crate::bucket::BucketRule>::bounds(p)
            }
            #[inline]
            fn last_update(&self) -> netcond_core::Instant {
                self.0.last_update()
            }
        }
    };
}
pub(crate) use bucket_meter;

#[cfg(test)]
mod tests {
    use crate::{
        EtMarker, EtMarkerConfig, EtMarkerProfile, EtMarkerSim48, EtMarkerSim48Config,
        EtMarkerSim48Profile, PcnMark,
    };
    use netcond_core::State;
    use netcond_core::{Instant, Rate};

    #[test]
    fn debug_is_the_meters_own_form() {
        let c = EtMarkerConfig::draft_3sm01(Rate::from_kbps(1000), 10_000, 1064);
        let p = EtMarkerProfile::new(&c).unwrap();
        let mut m = EtMarker::new(&p, Instant::from_ticks(7));
        m.mark(&p, Instant::from_ticks(9), 100, PcnMark::Nm);
        assert_eq!(
            format!("{m:?}"),
            format!(
                "EtMarker {{ fill: {}, last: {:?} }}",
                m.fill_units(),
                m.last_update()
            )
        );
        assert_eq!(m.last_update(), Instant::from_ticks(9));
        let c = EtMarkerSim48Config::new(Rate::from_kbps(1000), 10_000, 1064);
        let p = EtMarkerSim48Profile::new(&c).unwrap();
        let m = EtMarkerSim48::start(&p, Instant::from_ticks(3));
        assert_eq!(
            format!("{m:?}"),
            format!(
                "EtMarkerSim48 {{ tokens: Wide {{ lo: {}, hi: 0 }}, last: {:?} }}",
                m.tokens_units(),
                Instant::from_ticks(3)
            )
        );
    }
}

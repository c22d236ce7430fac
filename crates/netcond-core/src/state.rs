//! What every netcond state has in common: it starts from a profile at an
//! instant ([`State`]), and a single-flow user keeps it next to its profile
//! ([`WithProfile`]).
//!
//! A profile holds a flow's constants and is shared by any number of states;
//! a state holds what changes per packet, and every per-packet method takes
//! `(&mut self, &profile, now, ...)`. [`WithProfile`] is the one pair of the
//! two for a user with a single flow; each crate adds, through an extension
//! trait implemented for `WithProfile<its state>`, per-packet methods that
//! read the profile from the pair.

use crate::Instant;

/// A state that starts from a profile at an instant: `start(&profile, now)`
/// is the state's `new(&profile, now)`, the only way to create it.
///
/// The family traits of the library crates (`trtcm::ThreeColorMarker`, ...)
/// have it as their supertrait, so generic code starts any state, of any
/// family, the same way.
///
/// ```
/// use netcond_core::{Instant, State};
///
/// // A state that counts the ticks since it started, up to a profile's limit.
/// struct Limit(u64);
/// struct Age { start: Instant, ticks: u64 }
///
/// impl State for Age {
///     type Profile = Limit;
///     fn start(_profile: &Limit, now: Instant) -> Age {
///         Age { start: now, ticks: 0 }
///     }
/// }
///
/// let age = Age::start(&Limit(10), Instant::from_ticks(5));
/// assert_eq!((age.start, age.ticks), (Instant::from_ticks(5), 0));
/// ```
pub trait State: Sized {
    /// The shared constants the state is started from and metered against.
    type Profile;

    /// The state as it starts on `profile` at `now` (full buckets, empty
    /// queues, no history: each state's `new` says what it holds).
    fn start(profile: &Self::Profile, now: Instant) -> Self;
}

/// Implements [`State`] for a type whose inherent
/// `new(&profile, now) -> Self` starts it: `netcond_core::impl_state!(Codel, CodelProfile);`
/// (generic types as `impl_state!({const N: usize} FqCodel<N>, FqCodelProfile)`).
#[macro_export]
macro_rules! impl_state {
    ($(#[$m:meta])* $({$($g:tt)*})? $state:ty, $profile:ty) => {
        $(#[$m])*
        impl$(<$($g)*>)? $crate::State for $state {
            type Profile = $profile;

            #[inline]
            fn start(profile: &$profile, now: $crate::Instant) -> Self {
                <$state>::new(profile, now)
            }
        }
    };
}

/// A profile paired with one state, for a single-flow user: the profile
/// travels with the state, so per-packet calls need not pass it.
///
/// The fields are public: a user who needs the state's own methods calls
/// them on `state` with `&profile`, or takes both at once with
/// [`parts_mut`](Self::parts_mut). It derives `Clone`, `Copy`, `Debug`,
/// `PartialEq`, `Eq` and `Hash` where the state and its profile have them.
///
/// ```
/// use netcond_core::{Instant, State, WithProfile};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Quota(u32);
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Used(u32);
/// impl State for Used {
///     type Profile = Quota;
///     fn start(_: &Quota, _: Instant) -> Used {
///         Used(0)
///     }
/// }
/// impl Used {
///     fn take(&mut self, q: &Quota, n: u32) -> bool {
///         let ok = self.0 + n <= q.0;
///         if ok {
///             self.0 += n;
///         }
///         ok
///     }
/// }
///
/// let mut pair = WithProfile::<Used>::new(Quota(10), Instant::ZERO);
/// let (state, quota) = pair.parts_mut();
/// assert!(state.take(quota, 6));
/// assert!(!state.take(quota, 6));
/// assert_eq!(pair.state, Used(6));
/// pair.restart(Instant::from_ticks(1));
/// assert_eq!(pair.state, Used(0));
/// assert_eq!(pair.profile, Quota(10));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WithProfile<S: State> {
    /// The constants.
    pub profile: S::Profile,
    /// The state, started from `profile`.
    pub state: S,
}

impl<S: State> WithProfile<S> {
    /// `profile` and a state started from it at `now`.
    #[inline]
    #[must_use]
    pub fn new(profile: S::Profile, now: Instant) -> WithProfile<S> {
        WithProfile {
            state: S::start(&profile, now),
            profile,
        }
    }

    /// Starts the state afresh from the profile at `now`, as
    /// [`new`](Self::new) did.
    #[inline]
    pub fn restart(&mut self, now: Instant) {
        self.state = S::start(&self.profile, now);
    }

    /// The state, to change, and the profile, to read: what a per-packet
    /// method of the state takes.
    #[inline]
    pub fn parts_mut(&mut self) -> (&mut S, &S::Profile) {
        (&mut self.state, &self.profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    struct Step(u64);
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    struct Clock {
        at: Instant,
        n: u64,
    }
    impl Clock {
        fn new(p: &Step, now: Instant) -> Clock {
            Clock { at: now, n: p.0 }
        }
    }
    crate::impl_state!(Clock, Step);

    #[test]
    fn new_and_restart_start_from_the_profile() {
        let mut w = WithProfile::<Clock>::new(Step(7), Instant::from_ticks(3));
        assert_eq!(
            w.state,
            Clock {
                at: Instant::from_ticks(3),
                n: 7
            }
        );
        w.state.n = 0;
        w.profile = Step(9);
        w.restart(Instant::from_ticks(11));
        assert_eq!(
            w.state,
            Clock {
                at: Instant::from_ticks(11),
                n: 9
            }
        );
        let (s, p) = w.parts_mut();
        s.n += p.0;
        assert_eq!(w.state.n, 18);
        let copy = w;
        assert_eq!(copy, w);
    }
}

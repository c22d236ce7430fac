//! The shapers as [`State`]s, and the single-instance pairs of a profile with
//! one shaper ([`RasShaper`], [`GreenRasShaper`], [`MeteredRasShaper`]): each
//! a [`WithProfile`], driven through [`ShaperPair`].

use netcond_core::{impl_state, Color, Instant, State, WithProfile};

use crate::green::{GreenMeter, GreenRas};
use crate::shaper::{PacketLen, Ras};
use crate::{Ear, EarProfile, RasCore, RasProfile};

impl_state!({P: PacketLen, const N: usize} Ras<P, N>, RasProfile);
impl_state!({P: PacketLen, const N: usize} GreenRas<P, N>, RasProfile);
impl_state!(Ear, EarProfile);

/// A core started by [`State::start`] is [`RasCore::new`] with no packet limit
/// of its own (`capacity` `usize::MAX`): only the profile's buffer size limits
/// its queue, as in RFC 2963. A caller whose queue holds fewer packets starts
/// the core with [`RasCore::new`] and that capacity.
impl State for RasCore {
    type Profile = RasProfile;

    #[inline]
    fn start(profile: &RasProfile, now: Instant) -> RasCore {
        RasCore::new(profile, now, usize::MAX)
    }
}

/// The profiles of a shaper followed by its meter: the shaper's and the
/// meter's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaperMeterProfile<MP> {
    /// The shaper's profile.
    pub shaper: RasProfile,
    /// The downstream meter's profile.
    pub meter: MP,
}

impl<MP> ShaperMeterProfile<MP> {
    /// `shaper` (an [`SrRasProfile`](crate::SrRasProfile) or a
    /// [`TrRasProfile`](crate::TrRasProfile)) followed by a meter on `meter`.
    #[must_use]
    pub fn new(shaper: impl Into<RasProfile>, meter: MP) -> Self {
        ShaperMeterProfile {
            shaper: shaper.into(),
            meter,
        }
    }
}

/// A shaper's state followed by its downstream meter's state: started
/// together, empty and with full buckets, from a [`ShaperMeterProfile`].
#[derive(Clone, Debug)]
pub struct ThenMeter<S, M> {
    /// The shaper's state ([`Ras`] or [`GreenRas`]).
    pub shaper: S,
    /// The meter's state.
    pub meter: M,
}

impl<S, M> State for ThenMeter<S, M>
where
    S: State<Profile = RasProfile>,
    M: GreenMeter,
{
    type Profile = ShaperMeterProfile<M::Profile>;

    #[inline]
    fn start(p: &Self::Profile, now: Instant) -> Self {
        ThenMeter {
            shaper: S::start(&p.shaper, now),
            meter: M::start(&p.meter, now),
        }
    }
}

/// An srRAS or trRAS with its profile, for single-instance users such as a
/// simulator: `enqueue(now, pkt)`, `next_release()`, `dequeue(now)` of
/// [`ShaperPair`].
pub type RasShaper<P, const N: usize> = WithProfile<Ras<P, N>>;

/// A G-srRAS (`M = SrTcm`) or G-trRAS (`M = TrTcm`) with its downstream meter
/// and both profiles, for single-instance users: [`ShaperPair`]'s `dequeue`
/// returns the packet and its color at the meter.
pub type GreenRasShaper<P, M, const N: usize> = WithProfile<ThenMeter<GreenRas<P, N>, M>>;

/// A plain srRAS / trRAS followed by its meter, with the same calls as
/// [`GreenRasShaper`]: the shaper ignores the meter's state and `dequeue`
/// colors each released packet (color-blind). Lets a simulator swap a trRAS
/// for a G-trRAS without changing its code.
pub type MeteredRasShaper<P, M, const N: usize> = WithProfile<ThenMeter<Ras<P, N>, M>>;

/// The calls of a shaper paired with its profile (and its meter's):
/// [`RasShaper`], [`GreenRasShaper`], [`MeteredRasShaper`].
pub trait ShaperPair {
    /// The packets queued.
    type Packet;
    /// What `dequeue` hands out: the packet, or the packet and its color.
    type Released;

    /// Offers a packet; hands it back when the FIFO is full.
    fn enqueue(&mut self, now: Instant, pkt: Self::Packet) -> Result<(), Self::Packet>;

    /// When the head packet may leave, if any.
    fn next_release(&self) -> Option<Instant>;

    /// The head packet (with its color at the meter, where there is one) if
    /// it is due at `now`.
    fn dequeue(&mut self, now: Instant) -> Option<Self::Released>;
}

impl<P: PacketLen, const N: usize> ShaperPair for RasShaper<P, N> {
    type Packet = P;
    type Released = P;

    #[inline]
    fn enqueue(&mut self, now: Instant, pkt: P) -> Result<(), P> {
        self.state.enqueue(&self.profile, now, pkt)
    }

    #[inline]
    fn next_release(&self) -> Option<Instant> {
        self.state.next_release()
    }

    #[inline]
    fn dequeue(&mut self, now: Instant) -> Option<P> {
        self.state.dequeue(&self.profile, now)
    }
}

impl<P: PacketLen, M: GreenMeter, const N: usize> ShaperPair for GreenRasShaper<P, M, N> {
    type Packet = P;
    type Released = (P, Color);

    #[inline]
    fn enqueue(&mut self, now: Instant, pkt: P) -> Result<(), P> {
        let (s, p) = self.parts_mut();
        s.shaper.enqueue(&p.shaper, &p.meter, &s.meter, now, pkt)
    }

    #[inline]
    fn next_release(&self) -> Option<Instant> {
        self.state.shaper.next_release()
    }

    #[inline]
    fn dequeue(&mut self, now: Instant) -> Option<(P, Color)> {
        let (s, p) = self.parts_mut();
        s.shaper.dequeue(&p.shaper, &p.meter, &mut s.meter, now)
    }
}

impl<P: PacketLen, M: GreenMeter, const N: usize> ShaperPair for MeteredRasShaper<P, M, N> {
    type Packet = P;
    type Released = (P, Color);

    #[inline]
    fn enqueue(&mut self, now: Instant, pkt: P) -> Result<(), P> {
        self.state.shaper.enqueue(&self.profile.shaper, now, pkt)
    }

    #[inline]
    fn next_release(&self) -> Option<Instant> {
        self.state.shaper.next_release()
    }

    #[inline]
    fn dequeue(&mut self, now: Instant) -> Option<(P, Color)> {
        let (s, p) = self.parts_mut();
        let pkt = s.shaper.dequeue(&p.shaper, now)?;
        let c = s.meter.color(&p.meter, now, pkt.packet_len());
        Some((pkt, c))
    }
}

//! The green shapers G-srRAS and G-trRAS (RFC 2963 section 3): a RAS that reads
//! the downstream meter and releases its head packet as soon as the meter would
//! color it green, if that comes before the rate schedule.

use netcond_core::{BucketProfile, Color, Instant};
use trtcm::{SrTcm, SrTcmProfile, TrTcm, TrTcmProfile};

use crate::config::RasProfile;
use crate::fixed::recip;
use crate::shaper::{PacketLen, Ras, Schedule};

/// A meter downstream of a green shaper: it can tell, without changing
/// anything, when a packet would be colored green, and it colors the packets the
/// shaper releases.
pub trait GreenMeter {
    /// The meter's shared constants.
    type Profile;

    /// A meter with full buckets at `now`.
    fn start(profile: &Self::Profile, now: Instant) -> Self;

    /// T2 of RFC 2963 sections 3.3 and 3.5: the earliest instant at or after
    /// `now` at which a packet of `len` bytes would be colored green, if no other
    /// packet reached the meter before; `None` (infinity) if it never would
    /// (`len` above a burst size).
    fn green_at(&self, profile: &Self::Profile, now: Instant, len: u32) -> Option<Instant>;

    /// Colors a released packet, color-blind.
    fn color(&mut self, profile: &Self::Profile, now: Instant, len: u32) -> Color;
}

/// Exactly [`BucketProfile::ticks_until`] (the whole ticks of refill after which
/// `tokens` reaches `need`, rounded up; `None` if never), without its division:
/// the quotient comes from the table-and-Newton reciprocal of the bucket's
/// per-tick increment and is then corrected to the exact ceiling by at most a
/// few multiply-and-compare steps. Waits of 2^32 ticks or more fall back to the
/// division.
#[inline]
#[must_use]
pub fn ticks_until(b: &BucketProfile, tokens: u64, need: u64) -> Option<u64> {
    if need <= tokens {
        return Some(0);
    }
    let inc = b.inc();
    if need > b.full() || inc == 0 {
        return None;
    }
    let diff = (need - tokens) as u128;
    let (y, lz) = recip(inc);
    // diff < 2^62 and y <= 2^63; 126 - lz >= 63.
    let est = (diff * y as u128) >> (126 - lz);
    if est >= 1 << 32 {
        return b.ticks_until(tokens, need);
    }
    // The estimate is within 2 of the quotient; walk to the exact ceiling.
    let inc = inc as u128;
    let mut q = est;
    while q * inc < diff {
        q += 1;
    }
    while q > 0 && (q - 1) * inc >= diff {
        q -= 1;
    }
    Some(q as u64)
}

/// srTCM (RFC 2697): `T2 = max(t, t + (B - Tc(t))/CIR)`, infinite if `B > CBS`
/// (RFC 2963 section 3.3). The wait is rounded up to a whole tick, so that the
/// meter holds at least `B` bytes in C at T2.
impl GreenMeter for SrTcm {
    type Profile = SrTcmProfile;

    #[inline]
    fn start(profile: &SrTcmProfile, now: Instant) -> Self {
        SrTcm::new(profile, now)
    }

    #[inline]
    fn green_at(&self, profile: &SrTcmProfile, now: Instant, len: u32) -> Option<Instant> {
        let c = profile.committed();
        let d = ticks_until(c, self.tc_at(profile, now), c.cost(len))?;
        Some(now.wrapping_add(d))
    }

    #[inline]
    fn color(&mut self, profile: &SrTcmProfile, now: Instant, len: u32) -> Color {
        self.color_blind(profile, now, len)
    }
}

/// trTCM (RFC 2698): `T2 = max(t, t + (B - Tc(t))/CIR, t + (B - Tp(t))/PIR)`,
/// infinite if `B > CBS` or `B > PBS` (RFC 2963 section 3.5). Waits round up to a
/// whole tick.
impl GreenMeter for TrTcm {
    type Profile = TrTcmProfile;

    #[inline]
    fn start(profile: &TrTcmProfile, now: Instant) -> Self {
        TrTcm::new(profile, now)
    }

    #[inline]
    fn green_at(&self, profile: &TrTcmProfile, now: Instant, len: u32) -> Option<Instant> {
        let c = profile.committed();
        let p = profile.peak();
        let dc = ticks_until(c, self.tc_at(profile, now), c.cost(len))?;
        let dp = ticks_until(p, self.tp_at(profile, now), p.cost(len))?;
        Some(now.wrapping_add(dc.max(dp)))
    }

    #[inline]
    fn color(&mut self, profile: &TrTcmProfile, now: Instant, len: u32) -> Color {
        self.color_blind(profile, now, len)
    }
}

/// The state of one green shaper: a [`Ras`] whose head leaves at `min(T1, T2)`.
///
/// The meter is passed in on each call and the shaper colors the packets it
/// releases itself: T2 for the next head must be computed from the meter's
/// state after the released packet took its tokens, or a packet released at T2
/// could find the tokens gone. So `dequeue` meters the packet (color-blind) and
/// returns its color, and the meter must see no other traffic. Under those
/// conditions, and a clock that does not step back, every packet released at
/// T2 is green.
///
/// T2 is computed at the time of the call that makes a packet the head (the
/// `enqueue` into an empty shaper, or the `dequeue` that releases its
/// predecessor), as section 3 computes it when a packet "arrives at the head".
#[derive(Clone, Debug)]
pub struct GreenRas<P, const N: usize> {
    ras: Ras<P, N>,
}

/// G-srRAS state: a [`GreenRas`] with an srTCM downstream.
pub type GSrRas<P, const N: usize> = GreenRas<P, N>;
/// G-trRAS state: a [`GreenRas`] with a trTCM downstream.
pub type GTrRas<P, const N: usize> = GreenRas<P, N>;

impl<P: PacketLen, const N: usize> GreenRas<P, N> {
    /// An empty shaper whose clock starts at `now`.
    #[must_use]
    pub const fn new(now: Instant) -> Self {
        GreenRas { ras: Ras::new(now) }
    }

    /// Offers a packet; hands it back when the FIFO is full. Reads the meter when
    /// the packet becomes the head.
    #[inline]
    pub fn enqueue<M: GreenMeter>(
        &mut self,
        p: &RasProfile,
        mp: &M::Profile,
        meter: &M,
        now: Instant,
        pkt: P,
    ) -> Result<(), P> {
        if self.ras.push(p, now, pkt)? {
            self.schedule(mp, meter, now);
        }
        Ok(())
    }

    /// When the head packet may leave: `min(T1, T2)` rounded up to a tick.
    #[inline]
    #[must_use]
    pub fn next_release(&self) -> Option<Instant> {
        self.ras.next_release()
    }

    /// Releases the head packet if it is due at `now`, colors it with the meter
    /// (color-blind) and schedules the next head from the updated meter.
    #[inline]
    pub fn dequeue<M: GreenMeter>(
        &mut self,
        p: &RasProfile,
        mp: &M::Profile,
        meter: &mut M,
        now: Instant,
    ) -> Option<(P, Color)> {
        let pkt = self.ras.pop(p, now)?;
        let color = meter.color(mp, now, pkt.packet_len());
        self.schedule(mp, meter, now);
        Some((pkt, color))
    }

    #[inline(always)]
    fn schedule<M: GreenMeter>(&mut self, mp: &M::Profile, meter: &M, now: Instant) {
        self.ras
            .schedule_head(now, |len| meter.green_at(mp, now, len));
    }

    /// The underlying shaper state (queue, EAR, T1, T2).
    #[must_use]
    pub fn ras(&self) -> &Ras<P, N> {
        &self.ras
    }

    /// True when the head will be released at T2 (no later than T1).
    #[must_use]
    pub fn head_at_t2(&self) -> bool {
        match self.ras.head_t2() {
            Some(t) => !self.ras.is_empty() && self.ras.head_schedule() == Schedule::whole(t),
            None => false,
        }
    }
}

/// A green shaper with its profile, the downstream meter's profile and the meter
/// itself, for single-instance users: `enqueue(now, pkt)`, `next_release()`,
/// `dequeue(now) -> Option<(pkt, color)>`.
#[derive(Clone, Debug)]
pub struct GreenRasShaper<P, M: GreenMeter, const N: usize> {
    profile: RasProfile,
    meter_profile: M::Profile,
    meter: M,
    state: GreenRas<P, N>,
}

impl<P: PacketLen, M: GreenMeter, const N: usize> GreenRasShaper<P, M, N> {
    /// A G-srRAS (with `M = SrTcm`) or G-trRAS (with `M = TrTcm`), empty, with the
    /// meter's buckets full at `now`.
    #[must_use]
    pub fn new(profile: impl Into<RasProfile>, meter_profile: M::Profile, now: Instant) -> Self {
        let meter = M::start(&meter_profile, now);
        GreenRasShaper {
            profile: profile.into(),
            meter_profile,
            meter,
            state: GreenRas::new(now),
        }
    }

    /// Offers a packet; hands it back when the FIFO is full.
    #[inline]
    pub fn enqueue(&mut self, now: Instant, pkt: P) -> Result<(), P> {
        self.state
            .enqueue(&self.profile, &self.meter_profile, &self.meter, now, pkt)
    }

    /// When the head packet may leave, if any.
    #[inline]
    #[must_use]
    pub fn next_release(&self) -> Option<Instant> {
        self.state.next_release()
    }

    /// The head packet and its color at the meter, if it is due at `now`.
    #[inline]
    pub fn dequeue(&mut self, now: Instant) -> Option<(P, Color)> {
        self.state
            .dequeue(&self.profile, &self.meter_profile, &mut self.meter, now)
    }

    /// The shaper's profile.
    #[must_use]
    pub fn profile(&self) -> &RasProfile {
        &self.profile
    }

    /// The meter's profile.
    #[must_use]
    pub fn meter_profile(&self) -> &M::Profile {
        &self.meter_profile
    }

    /// The meter's state.
    #[must_use]
    pub fn meter(&self) -> &M {
        &self.meter
    }

    /// The shaper's state.
    #[must_use]
    pub fn state(&self) -> &GreenRas<P, N> {
        &self.state
    }
}

/// A plain srRAS / trRAS followed by its meter, with the same calls as
/// [`GreenRasShaper`]: the shaper ignores the meter's state and `dequeue`
/// colors each released packet (color-blind). Lets a simulator swap a trRAS for
/// a G-trRAS without changing its code.
#[derive(Clone, Debug)]
pub struct MeteredRasShaper<P, M: GreenMeter, const N: usize> {
    profile: RasProfile,
    meter_profile: M::Profile,
    meter: M,
    state: Ras<P, N>,
}

impl<P: PacketLen, M: GreenMeter, const N: usize> MeteredRasShaper<P, M, N> {
    /// An empty shaper with the meter's buckets full at `now`.
    #[must_use]
    pub fn new(profile: impl Into<RasProfile>, meter_profile: M::Profile, now: Instant) -> Self {
        let meter = M::start(&meter_profile, now);
        MeteredRasShaper {
            profile: profile.into(),
            meter_profile,
            meter,
            state: Ras::new(now),
        }
    }

    /// Offers a packet; hands it back when the FIFO is full.
    #[inline]
    pub fn enqueue(&mut self, now: Instant, pkt: P) -> Result<(), P> {
        self.state.enqueue(&self.profile, now, pkt)
    }

    /// When the head packet may leave, if any.
    #[inline]
    #[must_use]
    pub fn next_release(&self) -> Option<Instant> {
        self.state.next_release()
    }

    /// The head packet and its color at the meter, if it is due at `now`.
    #[inline]
    pub fn dequeue(&mut self, now: Instant) -> Option<(P, Color)> {
        let pkt = self.state.dequeue(&self.profile, now)?;
        let c = self.meter.color(&self.meter_profile, now, pkt.packet_len());
        Some((pkt, c))
    }

    /// The shaper's profile.
    #[must_use]
    pub fn profile(&self) -> &RasProfile {
        &self.profile
    }

    /// The meter's state.
    #[must_use]
    pub fn meter(&self) -> &M {
        &self.meter
    }

    /// The shaper's state.
    #[must_use]
    pub fn state(&self) -> &Ras<P, N> {
        &self.state
    }
}

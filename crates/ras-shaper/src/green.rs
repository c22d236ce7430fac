//! The green shapers G-srRAS and G-trRAS (RFC 2963 section 3): a RAS that reads
//! the downstream meter and releases its head packet as soon as the meter would
//! color it green, if that comes before the rate schedule.

use netcond_core::{BucketProfile, Color, Instant};
use trtcm::{SrTcm, SrTcmProfile, TrTcm, TrTcmProfile};

use netcond_core::branchless::borrow;

use crate::fixed::{hi, recip};
use crate::profile::RasProfile;
use crate::schedule::Schedule;
use crate::shaper::{PacketLen, Ras};

/// A meter downstream of a green shaper: it can tell, without changing
/// anything, when a packet would be colored green, and it colors the packets the
/// shaper releases.
///
/// A meter starts as every state does, with [`State::start`](netcond_core::State::start)
/// (its supertrait), on its [`State::Profile`](netcond_core::State::Profile).
pub trait GreenMeter: netcond_core::State {
    /// T2 of RFC 2963 sections 3.3 and 3.5: the earliest instant at or after
    /// `now` at which a packet of `len` bytes would be colored green, if no other
    /// packet reached the meter before; `None` (infinity) if it never would
    /// (`len` above a burst size).
    fn green_at(&self, profile: &Self::Profile, now: Instant, len: u32) -> Option<Instant>;

    /// Colors a released packet, color-blind.
    fn color(&mut self, profile: &Self::Profile, now: Instant, len: u32) -> Color;

    /// [`green_at`](Self::green_at), given a cache of exact divisors that the
    /// caller keeps from one call to the next (a [`GreenRas`] keeps one), so that
    /// the waits need no reciprocal per packet. Must return exactly what
    /// `green_at` returns; the default ignores the cache.
    #[inline(always)]
    fn green_at_cached(
        &self,
        profile: &Self::Profile,
        now: Instant,
        len: u32,
        cache: &mut T2Cache,
    ) -> Option<Instant> {
        let _ = cache;
        self.green_at(profile, now, len)
    }
}

/// Exact `ceil(diff / inc)` for one divisor `inc >= 1` and every `diff` in
/// `[0, 2^62)`, by two multiplies: a reciprocal computed once (with a
/// division) and kept, instead of a table-and-Newton reciprocal per packet.
///
/// With `j = floor(log2 inc)` and `S = 63 + j`, `m = ceil(2^S / inc)`; `m <=
/// 2^63` since `inc >= 2^j`. Write `m inc = 2^S + e` with `0 <= e < inc <
/// 2^(j+1)`. For `n < 2^62`,
///
/// ```text
/// n m / 2^S = n / inc + n e / (inc 2^S),   and   n e < 2^62 2^(j+1) = 2^S,
/// ```
///
/// so the second term lies in `[0, 1/inc)`. With `n = q inc + r`, `r <= inc -
/// 1`, the sum lies in `[q, q + (r + 1)/inc)`, inside `[q, q + 1)`: `floor(n m /
/// 2^S) = floor(n / inc) = q` exactly (Granlund and Montgomery's argument).
/// `q` is taken as the high word of `(2n) m` (`2n < 2^63`, no overflow),
/// shifted right by `j`: `floor(floor(2n m / 2^64) / 2^j) = floor(n m / 2^(63 +
/// j))`.
///
/// The ceiling is `ceil(n / inc) = floor((n - 1) / inc) + 1` for `n >= 1`, and
/// 0 for `n = 0`: the quotient of `n - 1` (below 2^62 too), plus one, masked to
/// 0 when `n = 0`. The mask comes from the borrow of the subtraction that
/// gives `n`, so there is no branch on whether the meter already holds the
/// packet (which follows the traffic), and no multiply-back to find the
/// remainder: one multiply, a shift, an add and an `and` after `n`, which
/// lies on the loop's chain from one release to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct IncDivisor {
    /// The divisor the constants are for, never 0: the empty entry holds the
    /// constants of 1, so that a bucket with `inc` 0 never matches an entry
    /// and the test for it is the entry's compare (see
    /// [`ticks_until_cached`]).
    inc: u64,
    /// `ceil(2^(63 + j) / inc)`.
    m: u64,
    /// `floor(log2 inc)`.
    j: u32,
}

impl IncDivisor {
    /// The constants for 1: `j = 0`, `m = 2^63`.
    const EMPTY: IncDivisor = IncDivisor {
        inc: 1,
        m: 1 << 63,
        j: 0,
    };

    /// The constants for `inc` (one `u128` division: not per packet).
    #[cold]
    #[inline(never)]
    fn new(inc: u64) -> IncDivisor {
        // `inc >= 1` (the max only keeps the division total).
        let d = inc.max(1);
        let j = 63 - d.leading_zeros();
        // 2^(63 + j) <= 2^126; the quotient is at most 2^63.
        let m = (1u128 << (63 + j)).div_ceil(d as u128) as u64;
        IncDivisor { inc, m, j }
    }

    /// `ceil(n / self.inc)` for `0 <= n < 2^62` (see the type's docs).
    #[cfg(test)]
    fn ceil_div(&self, n: u64) -> u64 {
        self.ceil_div_sub(n, 0)
    }

    /// `ceil((need - tokens)^+ / self.inc)`, for `need - tokens <= 2^62` when
    /// `need > tokens` (see the type's docs).
    #[inline(always)]
    fn ceil_div_sub(&self, need: u64, tokens: u64) -> u64 {
        // !0 when tokens < need, that is when n = need - tokens >= 1.
        let more = borrow(tokens, need);
        // n - 1 when n >= 1; otherwise a value whose quotient is masked off
        // (`<< 1` and the multiply wrap harmlessly).
        let n1 = need.wrapping_sub(tokens).wrapping_sub(1);
        let q = hi(n1 << 1, self.m) >> (self.j & 63);
        q.wrapping_add(1) & more
    }
}

/// [`ticks_until_cached`] when the entry is not for `inc`: a bucket that
/// does not refill (`inc == 0`, never held by an entry), or a meter profile
/// other than the last one. Out of line, so that the per-packet path has one
/// compare for both.
#[cold]
#[inline(never)]
fn ticks_until_refilled(div: &mut IncDivisor, inc: u64, tokens: u64, need: u64) -> Option<u64> {
    if inc == 0 {
        return if need <= tokens { Some(0) } else { None };
    }
    *div = IncDivisor::new(inc);
    Some(div.ceil_div_sub(need, tokens))
}

/// The exact divisors of a green shaper's T2: one per bucket of the meter
/// (C, and P for a trTCM), each filled on first use and refilled only when a
/// call passes a bucket of another rate. Part of a [`GreenRas`]'s state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct T2Cache {
    div: [IncDivisor; 2],
}

impl T2Cache {
    /// An empty cache.
    pub const EMPTY: T2Cache = T2Cache {
        div: [IncDivisor::EMPTY; 2],
    };
}

impl Default for T2Cache {
    fn default() -> Self {
        T2Cache::EMPTY
    }
}

/// Exactly `b.ticks_until(min(tokens, b.full()), need)` (the count clamped to
/// the bucket, as [`BucketProfile::refill`] leaves it), with the division done
/// by the cached exact reciprocal of `b.inc()` in `div`.
///
/// `ticks_until(t, need)` is `Some(0)` when `need <= t`, else `None` when
/// `need > full` or `inc == 0`, else `Some(ceil((need - t) / inc))`. With `t =
/// min(tokens, full)`:
///
/// - `need > full`: then `need > t`, so `None`, whatever `tokens`;
/// - `need <= full`: then `need <= t` exactly when `need <= tokens`, and
///   `need - t` saturated at 0 is `need - tokens` saturated at 0 (if `tokens
///   > full`, both are 0). So the clamp drops out: for `inc == 0` it is
///   `Some(0)` if `need <= tokens`, else `None`; otherwise `ceil(diff / inc)`
///   with `diff = (need - tokens)^+`, and [`IncDivisor::ceil_div_sub`] gives 0
///   for `diff = 0`, so no branch on whether the bucket already holds the packet
///   (which follows the traffic). There `diff <= need <= full < 2^62`
///   (`BucketProfile` keeps `full` below 2^62) and `inc >= 1`.
///
/// The two tests that leave the straight path depend on the profile and the
/// packet length only, not on the meter's state: `need > full`, and whether
/// `div` holds the constants of `inc`, which also sends `inc == 0` (never held)
/// to [`ticks_until_refilled`].
#[inline(always)]
fn ticks_until_cached(
    b: &BucketProfile,
    div: &mut IncDivisor,
    tokens: u64,
    need: u64,
) -> Option<u64> {
    if need > b.full() {
        return None;
    }
    let inc = b.inc();
    if div.inc != inc {
        return ticks_until_refilled(div, inc, tokens, need);
    }
    // need - tokens <= need <= full < 2^62.
    Some(div.ceil_div_sub(need, tokens))
}

/// T2 from a wait counted from the meter's last update rather than from `now`.
///
/// The cached paths take the bucket's count at its last update, `tokens =
/// min(tc, full)` (what [`BucketProfile::refill`] gives for no time; the clamp
/// is folded into [`ticks_until_cached`]), and `w = ticks_until(tokens,
/// need)` ticks of refill from there, instead of refilling
/// to `now` first and waiting from `now`. With `dt = now.ticks_since(last)`
/// (what `tc_at` refills by), `ticks_until(refill(tokens, dt), need)` is
/// `(w - dt)^+` whenever `w` is finite:
///
/// - if `tokens + dt inc >= need` (saturation and the cap included, as `need
///   <= full` once `w` is finite), the refilled bucket holds the packet (0),
///   and `w <= dt` since `dt` ticks were enough (0);
/// - otherwise `tokens + dt inc < need <= full`, so the refill neither
///   saturates nor reaches the cap, and `ceil((need - tokens - dt inc) / inc)
///   = ceil((need - tokens) / inc) - dt = w - dt > 0`.
///
/// `w` is infinite exactly when the refilled one is: the `None` cases need
/// `need > tokens` and `need > full` or `inc = 0`; with `need > full >=` the
/// refilled count, or no refill at all, `need > tokens` and `need >` the
/// refilled count say the same. So the refill (a saturating multiply, an add
/// and the cap) drops out of T2, and for a trTCM, `max((wc - dt)^+, (wp -
/// dt)^+) = (max(wc, wp) - dt)^+` takes one subtraction. `dt` follows the
/// traffic (0 right after the shaper colored a packet), so the `^+` is a
/// borrow mask.
#[inline(always)]
fn wait_after(now: Instant, last: Instant, w: u64) -> Instant {
    let dt = now.ticks_since(last);
    // (w - dt)^+: the mask is !0 when dt < w, from a compare that does not
    // wait for the subtraction.
    now.wrapping_add(w.wrapping_sub(dt) & borrow(dt, w))
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
    #[inline(always)]
    fn green_at(&self, profile: &SrTcmProfile, now: Instant, len: u32) -> Option<Instant> {
        let c = profile.committed();
        let d = ticks_until(c, self.tc_at(profile, now), c.cost(len))?;
        Some(now.wrapping_add(d))
    }

    #[inline(always)]
    fn green_at_cached(
        &self,
        profile: &SrTcmProfile,
        now: Instant,
        len: u32,
        cache: &mut T2Cache,
    ) -> Option<Instant> {
        let c = profile.committed();
        let w = ticks_until_cached(c, &mut cache.div[0], self.tc(), c.cost(len))?;
        Some(wait_after(now, self.last(), w))
    }

    #[inline(always)]
    fn color(&mut self, profile: &SrTcmProfile, now: Instant, len: u32) -> Color {
        self.color_blind(profile, now, len)
    }
}

/// trTCM (RFC 2698): `T2 = max(t, t + (B - Tc(t))/CIR, t + (B - Tp(t))/PIR)`,
/// infinite if `B > CBS` or `B > PBS` (RFC 2963 section 3.5). Waits round up to a
/// whole tick.
impl GreenMeter for TrTcm {
    #[inline(always)]
    fn green_at(&self, profile: &TrTcmProfile, now: Instant, len: u32) -> Option<Instant> {
        let c = profile.committed();
        let p = profile.peak();
        let dc = ticks_until(c, self.tc_at(profile, now), c.cost(len))?;
        let dp = ticks_until(p, self.tp_at(profile, now), p.cost(len))?;
        Some(now.wrapping_add(dc.max(dp)))
    }

    #[inline(always)]
    fn green_at_cached(
        &self,
        profile: &TrTcmProfile,
        now: Instant,
        len: u32,
        cache: &mut T2Cache,
    ) -> Option<Instant> {
        let c = profile.committed();
        let p = profile.peak();
        let [dc_div, dp_div] = &mut cache.div;
        let wc = ticks_until_cached(c, dc_div, self.tc(), c.cost(len))?;
        let wp = ticks_until_cached(p, dp_div, self.tp(), p.cost(len))?;
        // max((wc - dt)^+, (wp - dt)^+) = (max(wc, wp) - dt)^+.
        Some(wait_after(now, self.last(), wc.max(wp)))
    }

    #[inline(always)]
    fn color(&mut self, profile: &TrTcmProfile, now: Instant, len: u32) -> Color {
        self.color_blind(profile, now, len)
    }
}

/// The later of `a` and `b` in serial time (`b` when it is after `a` by less
/// than 2^63 ticks), by a mask: which one it is follows the traffic.
#[inline(always)]
fn later(a: Instant, b: Instant) -> Instant {
    let d = b.ticks().wrapping_sub(a.ticks());
    // All ones when 1 <= d <= 2^63 - 1.
    let take_b = borrow(d.wrapping_sub(1), i64::MAX as u64);
    Instant::from_ticks(a.ticks() ^ ((a.ticks() ^ b.ticks()) & take_b))
}

/// The state of one green shaper: a [`Ras`] whose head leaves at `min(T1, T2)`,
/// T2 taken no earlier than the line is free after the previous release.
///
/// **The line.** RFC 2963 releases the head at `min(T1, T2)` and leaves open
/// what T2 may do to the packet before it. T1 keeps the gap after each
/// release, the packet's transmission time at the shaping rate (at most MIR,
/// and MIR at most the line rate). A T2 taken as is could release a packet in
/// the same tick as a 1500-byte packet before it, and a backlogged green
/// shaper whose meter has tokens then releases faster than the line: over
/// twice MIR on the RAS bench stream. So T2 counts from the first tick at
/// which the previous packet has gone out at MIR: the output never exceeds
/// MIR, T2 still wins whenever it is before T1, and a packet released at T2
/// is still green, since the meter only gains tokens while it waits.
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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GreenRas<P, const N: usize> {
    ras: Ras<P, N>,
    /// The exact divisors of T2's waits (they depend on the meter profile
    /// only; kept here because the meter profile is passed in on each call).
    t2: T2Cache,
    /// The first tick at which the line is free after the last release: its
    /// release point plus its transmission time at MIR, rounded up. T2 is
    /// never earlier.
    free: Instant,
}

/// G-srRAS state: a [`GreenRas`] with an srTCM downstream.
pub type GSrRas<P, const N: usize> = GreenRas<P, N>;
/// G-trRAS state: a [`GreenRas`] with a trTCM downstream.
pub type GTrRas<P, const N: usize> = GreenRas<P, N>;

impl<P: PacketLen, const N: usize> GreenRas<P, N> {
    /// An empty shaper whose clock starts at `now`.
    #[must_use]
    pub const fn new(profile: &RasProfile, now: Instant) -> Self {
        GreenRas {
            ras: Ras::new(profile, now),
            t2: T2Cache::EMPTY,
            free: now,
        }
    }

    /// Offers a packet; hands it back when the FIFO is full. Reads the meter when
    /// the packet becomes the head.
    #[inline(always)]
    pub fn enqueue<M: GreenMeter>(
        &mut self,
        p: &RasProfile,
        mp: &M::Profile,
        meter: &M,
        now: Instant,
        pkt: P,
    ) -> Result<(), P> {
        let len = pkt.packet_len();
        if self.ras.push(p, now, pkt)? {
            // The packet is the head: it arrived now and its length is
            // known, so the queue is not read back.
            let (t1, ask) = self.ras.t1_for(now, now);
            self.schedule_with(mp, meter, now, t1, len, ask);
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
    #[inline(always)]
    pub fn dequeue<M: GreenMeter>(
        &mut self,
        p: &RasProfile,
        mp: &M::Profile,
        meter: &mut M,
        now: Instant,
    ) -> Option<(P, Color)> {
        let released = self.ras.head_schedule();
        let pkt = self.ras.pop(p, now)?;
        let len = pkt.packet_len();
        self.free = released.plus(p.mir_gap(len)).ceil();
        let color = meter.color(mp, now, len);
        self.schedule(mp, meter, now);
        Some((pkt, color))
    }

    #[inline(always)]
    fn schedule<M: GreenMeter>(&mut self, mp: &M::Profile, meter: &M, now: Instant) {
        if let Some((t1, len, ask)) = self.ras.t1_for_head(now) {
            self.schedule_with(mp, meter, now, t1, len, ask);
        }
    }

    /// Sets the head's release point from its T1, its length and whether T2
    /// is asked (T1 still in the future).
    #[inline(always)]
    fn schedule_with<M: GreenMeter>(
        &mut self,
        mp: &M::Profile,
        meter: &M,
        now: Instant,
        t1: Schedule,
        len: u32,
        ask: bool,
    ) {
        // T2 is computed whether or not it is asked for and then dropped
        // by a mask when T1 is already due: whether the head waits
        // follows the traffic (in an idle shaper, the length of the
        // packet before), and a branch on it mispredicts about every
        // other packet, which costs more than the T2 it would save.
        let t2 = meter
            .green_at_cached(mp, now, len, &mut self.t2)
            .map(|t2| later(t2, self.free));
        self.ras.set_head_if(t1, t2, ask);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_in_serial_time() {
        let t = Instant::from_ticks;
        assert_eq!(later(t(5), t(7)), t(7));
        assert_eq!(later(t(7), t(5)), t(7));
        assert_eq!(later(t(9), t(9)), t(9));
        // Across the wrap: 3 is 5 ticks after u64::MAX - 1.
        assert_eq!(later(t(u64::MAX - 1), t(3)), t(3));
        assert_eq!(later(t(3), t(u64::MAX - 1)), t(3));
        // 2^63 ticks apart: neither is after the other; the first stays.
        assert_eq!(later(t(0), t(1 << 63)), t(0));
        assert_eq!(later(t(0), t(i64::MAX as u64)), t(i64::MAX as u64));
    }
    use netcond_core::{RandomSource, SplitMix64};
    use std::vec::Vec;

    /// `IncDivisor::ceil_div` equals the exact ceiling for divisors of every
    /// magnitude (1, powers of two and their neighbours, the 64-bit extremes,
    /// random ones) and numerators at the edges of the proof's range: 0, small,
    /// multiples of the divisor and one either side, and the largest below 2^62
    /// with every remainder class that matters (r = 0 and r = inc - 1).
    #[test]
    fn inc_divisor_is_exact() {
        let mut r = SplitMix64::new(3);
        let mut divs: Vec<u64> = vec![1, 2, 3, 4, 5, 7, 230, 115, u64::MAX, 1 << 63, (1 << 63) + 1];
        for k in 1..64 {
            let p = 1u64 << k;
            divs.extend([p - 1, p, p + 1]);
        }
        for _ in 0..if cfg!(miri) { 20 } else { 5_000 } {
            let x = ((r.next_u32() as u64) << 32) | r.next_u32() as u64;
            divs.push((x >> r.below(64)).max(1));
        }
        assert_eq!(IncDivisor::EMPTY, IncDivisor::new(1));
        let top = (1u64 << 62) - 1;
        for &d in &divs {
            let div = IncDivisor::new(d);
            assert_eq!(div.inc, d);
            let mut ns = vec![0u64, 1, 2, 3, top, top - 1, top / 2];
            let k = top / d;
            for q in [1, 2, k.saturating_sub(1), k, k + 1] {
                let m = q.saturating_mul(d);
                ns.extend([m.wrapping_sub(1), m, m.wrapping_add(1)]);
            }
            for _ in 0..if cfg!(miri) { 2 } else { 40 } {
                let x = ((r.next_u32() as u64) << 32) | r.next_u32() as u64;
                ns.push(x >> (2 + r.below(62)));
            }
            for n in ns.into_iter().filter(|&n| n <= top) {
                assert_eq!(div.ceil_div(n), n.div_ceil(d), "n {n} d {d}");
            }
        }
    }

    /// The cached T2, which waits from the meter's last update, equals
    /// `green_at`, which refills to `now` first, for meters whose last update
    /// lies at every distance from `now` that matters: the same tick, just
    /// before and after the tick at which the packet fits (`dt = w` and one
    /// either side), long ago (a full bucket, a saturating refill), and after
    /// `now` (a clock stepped back, no refill). Also with a profile other than
    /// the meter's own, whose counts may lie above the bucket.
    #[test]
    fn cached_t2_from_the_last_update_is_exact() {
        use netcond_core::{Rate, TickRate};
        use trtcm::{SrTcmConfig, TrTcmConfig};
        let mut r = SplitMix64::new(17);
        let mut n = 0;
        for _ in 0..if cfg!(miri) { 20 } else { 3_000 } {
            let tick =
                TickRate::from_hz([2_300_000_000u64, 1_000_000, 7][r.below(3) as usize]).unwrap();
            let rate = |r: &mut SplitMix64| {
                Rate::from_bits_per_sec(1 + (r.next_u32() as u64) * (1 + r.below(1000) as u64))
            };
            let (cir, pir) = (rate(&mut r), rate(&mut r));
            let (cbs, pbs) = (1 + r.below(20_000) as u64, 1 + r.below(20_000) as u64);
            let Ok(sp) = SrTcmProfile::new(&SrTcmConfig::new(cir, cbs, pbs).with_tick(tick)) else {
                continue;
            };
            let Ok(tp) = TrTcmProfile::new(
                &TrTcmConfig::new(
                    cir,
                    Rate::from_bits_per_sec(cir.bits_per_sec().max(pir.bits_per_sec())),
                    cbs,
                    pbs,
                )
                .with_tick(tick),
            ) else {
                continue;
            };
            let now = Instant::from_ticks(r.next_u32() as u64 * r.next_u32() as u64);
            let len =
                [0u32, 1, 64, 1500, cbs as u32, cbs as u32 + 1, u32::MAX][r.below(7) as usize];
            let tc = (r.next_u32() as u64 * r.next_u32() as u64) % (sp.committed().full() + 1);
            let tq = (r.next_u32() as u64 * r.next_u32() as u64) % (tp.peak().full() + 1);
            // The wait from the last update with no refill, and its edges.
            let w = sp
                .committed()
                .ticks_until(tc, sp.committed().cost(len))
                .unwrap_or(0);
            let mut dts = vec![0u64, 1, w, w.wrapping_sub(1), w + 1, 1 << 40, (1 << 63) - 1];
            dts.extend([u64::MAX, 1u64.wrapping_neg() << 20, 1 << 63]);
            let mut cache = T2Cache::EMPTY;
            for dt in dts {
                let last = Instant::from_ticks(now.ticks().wrapping_sub(dt));
                let m = SrTcm::from_parts(&sp, tc, tc, last);
                assert_eq!(
                    m.green_at_cached(&sp, now, len, &mut cache),
                    m.green_at(&sp, now, len),
                    "srTCM {sp:?} tc {tc} dt {dt} len {len}"
                );
                let m = TrTcm::from_parts(&tp, tc, tq, last);
                assert_eq!(
                    m.green_at_cached(&tp, now, len, &mut cache),
                    m.green_at(&tp, now, len),
                    "trTCM {tp:?} tc {tc} tp {tq} dt {dt} len {len}"
                );
                // A meter full on a four times larger bucket, read with this
                // profile: its count lies above the bucket.
                if let Ok(big) =
                    SrTcmProfile::new(&SrTcmConfig::new(cir, 4 * cbs, pbs).with_tick(tick))
                {
                    let m = SrTcm::from_parts(&big, u64::MAX, 0, last);
                    assert!(m.tc() > sp.committed().full());
                    assert_eq!(
                        m.green_at_cached(&sp, now, len, &mut cache),
                        m.green_at(&sp, now, len),
                        "srTCM above the bucket, dt {dt} len {len}"
                    );
                }
                n += 1;
            }
        }
        assert!(n > if cfg!(miri) { 10 } else { 10_000 });
    }

    /// `ticks_until_cached` equals `BucketProfile::ticks_until` of the count
    /// clamped to the bucket on random buckets, counts within and above the
    /// bucket, one cache entry serving them all (refilled on each change).
    #[test]
    fn cached_ticks_until_is_exact() {
        use netcond_core::{BucketProfile, Rate, TickRate};
        let mut r = SplitMix64::new(13);
        let mut div = IncDivisor::EMPTY;
        let (mut n, mut zero_inc) = (0, 0);
        for _ in 0..if cfg!(miri) { 200 } else { 200_000 } {
            let bits = match r.below(3) {
                0 => r.below(1000) as u64,
                1 => r.next_u32() as u64,
                _ => (r.next_u32() as u64) << r.below(30),
            };
            let hz = [1_000_000_000u64, 2_300_000_000, 1_000_000, 3, 1][r.below(5) as usize];
            let size = r.below(1_000_000) as u64;
            let Ok(b) = BucketProfile::new(
                Rate::from_bits_per_sec(bits),
                size,
                TickRate::from_hz(hz).unwrap(),
            ) else {
                continue;
            };
            // A count within the bucket, or (one time in eight) above it,
            // which the cached form clamps.
            let tokens = match r.below(8) {
                0 => b.full() + 1 + r.below(1000) as u64,
                _ => (r.next_u32() as u64 * r.next_u32() as u64) % (b.full() + 1),
            };
            let need = b.cost(r.below(size as u32 + 2));
            for need in [need, 0, tokens, tokens + 1, b.full(), b.full() + 1] {
                assert_eq!(
                    ticks_until_cached(&b, &mut div, tokens, need),
                    b.ticks_until(tokens.min(b.full()), need),
                    "{b:?} {tokens} {need}"
                );
                n += 1;
                zero_inc += (b.inc() == 0) as usize;
            }
        }
        assert!(n > 0);
        // Buckets that never refill (rate 0) take the entry's miss path.
        assert!(cfg!(miri) || zero_inc > 0);
    }
}

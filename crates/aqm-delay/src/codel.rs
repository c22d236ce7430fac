//! CoDel (RFC 8289): configuration, profile and the per-queue state machine.

use netcond_core::Instant;

use crate::{Head, Verdict};

mod profile;
pub use profile::*;

/// Linux's CoDel clock: one unit is 2^10 ns (`CODEL_SHIFT` in `codel.h`).
pub const LINUX_TIME_SHIFT: u32 = 10;

/// Serial "2^63 or more is earlier" bound for tick differences.
const HALF: u64 = 1 << 63;

/// The longest `interval` the exact law accepts, in ticks: 2^57 (4.5 years of
/// nanoseconds), so that `now + interval` and `16 interval` stay well inside
/// the serial half range and below the 2^62 ticks at which a stale stored
/// instant is moved up (see the crate docs' "Time").
pub const MAX_EXACT_INTERVAL_TICKS: u64 = 1 << 57;

/// With the exact law, a stored instant (`first_above_time`, `drop_next`)
/// that falls more than 2^62 ticks behind the clock is moved up to 2^62 ticks
/// behind it: it reads as past either way, and cannot come to read as future
/// after the clock has moved on by 2^63 ticks in total.
const STALE: u64 = 1 << 62;

/// `floor(interval / sqrt(count))`: the largest `q` with `q^2 <= floor(interval^2
/// / count)` (equivalently `q^2 count <= interval^2`). `count` 0 reads as 1.
///
/// Never inlined: its 128-bit divisions need a large stack frame on 32-bit
/// targets, which would otherwise be reserved on every dequeue, also under
/// the Linux law that never calls it (docs/firmware.md).
#[must_use]
#[inline(never)]
pub fn exact_spacing(interval: u64, count: u32) -> u64 {
    let c = u128::from(count.max(1));
    let n = u128::from(interval) * u128::from(interval) / c;
    isqrt(n) as u64
}

/// Integer square root: Newton's iteration from a power of two above the root
/// decreases monotonically to `floor(sqrt(n))`.
fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    let bits = 128 - n.leading_zeros();
    let mut x: u128 = 1 << bits.div_ceil(2);
    loop {
        let y = (x + n / x) >> 1;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// One Newton step of Linux's reciprocal square root cache: with
/// `x = r << 16` (Q0.32), `x' = x (3 - count x^2) / 2`, computed as Linux
/// does (`codel_Newton_step`): `x2 = x^2 >> 32`, `v = (3 << 32) - count x2`
/// (mod 2^64), `v >>= 2`, `x' = (v x mod 2^64) >> 31`, and `r' = x' >> 16`
/// truncated to 16 bits.
#[must_use]
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let x = u64::from(rec_inv_sqrt) << 16;
    let x2 = (x * x) >> 32;
    let v = (3u64 << 32).wrapping_sub(u64::from(count) * x2) >> 2;
    let x_next = v.wrapping_mul(x) >> 31;
    (x_next >> 16) as u16
}

/// Linux's `codel_control_law`: `t + reciprocal_scale(interval, r << 16)`,
/// all modulo 2^32.
#[must_use]
pub fn linux_control_law(t: u32, interval: u32, rec_inv_sqrt: u16) -> u32 {
    let scale = u64::from(rec_inv_sqrt) << 16;
    t.wrapping_add(((u64::from(interval) * scale) >> 32) as u32)
}

/// The dropping state, and what the state is in the middle of between two
/// calls that Linux's `codel_dequeue` makes in one. One byte for both, so that
/// the common case (not dropping, a fresh dequeue) is one test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
enum Phase {
    /// Not dropping; the next call is a fresh dequeue.
    #[default]
    Idle,
    /// In the dropping state; the next call is a fresh dequeue.
    Dropping,
    /// In the dropping state. The last verdict dropped the packet that entered
    /// it: the next head is delivered whatever its sojourn time.
    AfterEntryDrop,
    /// In the dropping state. The last verdict was a drop in it: the next head
    /// decides whether dropping goes on, and may be dropped too.
    AfterLoopDrop,
}

/// The state of one CoDel queue (RFC 8289 section 5.2's per-queue state,
/// 40 bytes): `count`, `lastcount`, `dropping`, `first_above_time`,
/// `drop_next`, Linux's cached `1/sqrt(count)`, and the last instant seen.
///
/// CoDel decides at dequeue. The packets stay in the caller's queue: for each
/// packet taken from the head, call [`on_dequeue`](Self::on_dequeue) with the
/// packet's enqueue time, length and ECN capability and the bytes still queued
/// behind it. On [`Verdict::Drop`], drop the packet and call again at once, with
/// the same `now`, for the next head, or call [`on_queue_empty`](Self::on_queue_empty) when
/// there is none: the pair of calls is one turn of RFC 8289's dequeue loop. On
/// [`Verdict::Deliver`] or [`Verdict::Mark`] (set CE), send the packet. Call
/// `on_queue_empty` too when a dequeue finds the queue empty.
///
/// ```
/// use aqm_delay::{Codel, CodelConfig, CodelProfile, Head, Verdict};
/// use netcond_core::Instant;
///
/// let p = CodelProfile::new(&CodelConfig::rfc8289()).unwrap();
/// let mut codel = Codel::new(&p, Instant::ZERO);
/// let ms = |m: u64| Instant::from_ticks(m * 1_000_000);
/// // A packet that waited 20 ms, 10 kB queued behind it: above target, but
/// // not yet for an interval.
/// let v = codel.on_dequeue(&p, ms(50), Head::new(ms(30), 1500, false), 10_000);
/// assert_eq!(v, Verdict::Deliver);
/// // Still above target 100 ms later: the first drop.
/// let v = codel.on_dequeue(&p, ms(150), Head::new(ms(130), 1500, false), 10_000);
/// assert_eq!(v, Verdict::Drop);
/// // The next head is delivered (RFC 8289 section 5.5: drop one, then serve).
/// let v = codel.on_dequeue(&p, ms(150), Head::new(ms(131), 1500, false), 8_500);
/// assert_eq!(v, Verdict::Deliver);
/// assert!(codel.dropping());
/// assert_eq!(codel.count(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Codel {
    /// The newest instant seen (the serial-time clamp).
    last: Instant,
    /// Exact: ticks (valid when `above_set`); Linux: u32 codel time, 0 = unset.
    first_above: u64,
    /// Exact: ticks; Linux: u32 codel time.
    drop_next: u64,
    count: u32,
    lastcount: u32,
    /// Linux: 1/sqrt(count) as the upper 16 bits of a Q0.32 number.
    rec_inv_sqrt: u16,
    /// Exact: whether `first_above` is set (RFC 8289 uses 0 as "unset").
    above_set: bool,
    /// The dropping state and the turn of the dequeue loop.
    phase: Phase,
}

impl Codel {
    /// A queue that has not dropped yet, its clock started at `now`. With
    /// [`ControlLaw::Linux`] every variable starts at zero, as Linux's
    /// `codel_vars_init` leaves them.
    #[must_use]
    pub fn new(profile: &CodelProfile, now: Instant) -> Codel {
        let drop_next = match profile.law {
            ControlLaw::Exact => now.ticks(),
            ControlLaw::Linux => 0,
        };
        Codel {
            last: now,
            first_above: 0,
            drop_next,
            count: 0,
            lastcount: 0,
            rec_inv_sqrt: 0,
            above_set: false,
            phase: Phase::Idle,
        }
    }

    /// `count`: drops (and marks) since the dropping state was entered, plus
    /// what re-entry carried over (RFC 8289 section 5.5).
    #[must_use]
    pub const fn count(&self) -> u32 {
        self.count
    }

    /// `lastcount`: `count` when the dropping state was last entered.
    #[must_use]
    pub const fn lastcount(&self) -> u32 {
        self.lastcount
    }

    /// Whether the queue is in the dropping state.
    #[must_use]
    pub const fn dropping(&self) -> bool {
        !matches!(self.phase, Phase::Idle)
    }

    /// `drop_next` in the law's units (ticks, or 1024 ns units modulo 2^32).
    #[must_use]
    pub const fn drop_next(&self) -> u64 {
        self.drop_next
    }

    /// `first_above_time` in the law's units, or `None` when unset.
    #[must_use]
    pub const fn first_above_time(&self) -> Option<u64> {
        if self.above_set || self.first_above != 0 {
            Some(self.first_above)
        } else {
            None
        }
    }

    /// Linux's cached `1/sqrt(count)` (upper 16 bits of Q0.32); unused by
    /// [`ControlLaw::Exact`].
    #[must_use]
    pub const fn rec_inv_sqrt(&self) -> u16 {
        self.rec_inv_sqrt
    }

    /// True when the last verdict was [`Verdict::Drop`]: the next call
    /// continues the same dequeue.
    #[must_use]
    pub const fn in_drop_loop(&self) -> bool {
        matches!(self.phase, Phase::AfterEntryDrop | Phase::AfterLoopDrop)
    }

    /// The newest instant seen.
    #[must_use]
    pub const fn last_seen(&self) -> Instant {
        self.last
    }

    /// `n` packets were dropped from this queue's head because a shared
    /// buffer overflowed: adds `n` to `count` as Linux's `fq_codel_drop` does
    /// ("tell codel to increase its signal strength"); wraps with the Linux
    /// law, saturates with the exact one. The state contract's shape
    /// (`(&mut self, &profile, now, ...)`); `now` is not read, since CoDel
    /// keeps its clock at dequeue.
    pub fn on_overflow(&mut self, profile: &CodelProfile, now: Instant, n: u32) {
        let _ = now;
        self.count = match profile.law {
            ControlLaw::Exact => self.count.saturating_add(n),
            ControlLaw::Linux => self.count.wrapping_add(n),
        };
    }

    /// Adds `n` to `count` after an overflow drop: the old form of
    /// [`on_overflow`](Self::on_overflow), without the instant.
    #[deprecated(since = "0.1.0", note = "renamed to `on_overflow(&profile, now, n)`")]
    #[inline]
    pub fn bump_count(&mut self, profile: &CodelProfile, n: u32) {
        self.on_overflow(profile, self.last, n);
    }

    /// The verdict for the packet just taken from the head of the queue.
    ///
    /// `head` is the packet (its enqueue instant, length and ECN capability);
    /// `backlog` the bytes still queued after it left (RFC 8289's `bytes()`,
    /// Linux's backlog after `dequeue_func`). On [`Verdict::Drop`] call again
    /// for the next head, or [`on_queue_empty`](Self::on_queue_empty) if there is none.
    #[inline]
    pub fn on_dequeue(
        &mut self,
        profile: &CodelProfile,
        now: Instant,
        head: Head,
        backlog: u64,
    ) -> Verdict {
        self.advance(profile, now);
        let below = self.below_target(profile, head.enqueued, backlog);
        if below {
            // RFC 8289 s5.6, Linux codel_should_drop: below TARGET or few
            // bytes queued forgets first_above_time.
            self.clear_first_above();
            if matches!(self.phase, Phase::Idle) {
                // Neither dropping nor in the middle of a dequeue: deliver.
                return Verdict::Deliver;
            }
        }
        self.dequeue_turn(profile, head.ecn_capable, below)
    }

    /// The rest of [`on_dequeue`](Self::on_dequeue) once the clock has moved
    /// and the head has been tested against TARGET (`below`): out of line, so
    /// that the common case (not dropping, below TARGET) stays small where it
    /// is inlined.
    #[inline(never)]
    fn dequeue_turn(&mut self, profile: &CodelProfile, ecn_capable: bool, below: bool) -> Verdict {
        let t = self.now_units(profile);
        match self.phase {
            Phase::AfterEntryDrop => {
                // RFC 8289 s5.5: after the entry drop, dodequeue() runs on the
                // next packet (updating first_above_time) and it is delivered.
                self.phase = Phase::Dropping;
                let _ = self.ok_to_drop(profile, t, below);
                Verdict::Deliver
            }
            Phase::AfterLoopDrop => {
                if self.ok_to_drop(profile, t, below) {
                    // RFC 8289 s5.5: still above: schedule the next drop, and
                    // drop this one too if that is already due.
                    self.phase = Phase::Dropping;
                    self.drop_next = self.control_law(profile, self.drop_next);
                    self.drop_step(profile, t, ecn_capable)
                } else {
                    self.phase = Phase::Idle;
                    Verdict::Deliver
                }
            }
            Phase::Dropping => {
                if self.ok_to_drop(profile, t, below) {
                    self.drop_step(profile, t, ecn_capable)
                } else {
                    // Sojourn time below target: leave the dropping state.
                    self.phase = Phase::Idle;
                    Verdict::Deliver
                }
            }
            Phase::Idle => {
                if self.ok_to_drop(profile, t, below) {
                    self.enter(profile, t);
                    if profile.ecn && ecn_capable {
                        Verdict::Mark
                    } else {
                        self.phase = Phase::AfterEntryDrop;
                        Verdict::Drop
                    }
                } else {
                    Verdict::Deliver
                }
            }
        }
    }

    /// The queue was found empty at `now`: after a [`Verdict::Drop`] (no next
    /// head), or on a dequeue from an empty queue. Leaves the dropping state,
    /// except right after the entry drop (Linux and RFC 8289 s5.5 enter the
    /// dropping state even when the queue empties), and forgets
    /// `first_above_time` where the source does.
    pub fn on_queue_empty(&mut self, profile: &CodelProfile, now: Instant) {
        self.advance(profile, now);
        match self.phase {
            Phase::AfterEntryDrop => {
                self.clear_first_above();
                self.phase = Phase::Dropping;
            }
            Phase::AfterLoopDrop => {
                self.clear_first_above();
                self.phase = Phase::Idle;
            }
            Phase::Idle | Phase::Dropping => {
                self.phase = Phase::Idle;
                // RFC 8289 s5.6 dodequeue() on an empty queue resets
                // first_above_time; Linux and ns-3 return before it.
                if profile.law == ControlLaw::Exact {
                    self.clear_first_above();
                }
            }
        }
    }

    /// The queue was found empty at `now`: the old name of
    /// [`on_queue_empty`](Self::on_queue_empty).
    #[deprecated(since = "0.1.0", note = "renamed to `on_queue_empty`")]
    #[inline]
    pub fn on_empty(&mut self, profile: &CodelProfile, now: Instant) {
        self.on_queue_empty(profile, now);
    }

    /// Moves the clock to `now` (serial rule); with the exact law, keeps the
    /// stored instants within [`STALE`] behind it.
    fn advance(&mut self, profile: &CodelProfile, now: Instant) {
        self.last.advance_to(now);
        if profile.mode != Mode::Exact {
            return;
        }
        let new = self.last.ticks();
        // A stored instant t is within [-2^62, 2^57] ticks of the clock before
        // the step, and the step is below 2^63, so that `new - t` lies in
        // (-2^57, 2^63 + 2^62): modulo 2^64, t is more than STALE behind
        // exactly when `new - t - (STALE + 1)` is below 2^63, and no value of
        // the rest of that range wraps into it. With no step, nothing moves.
        let rebase = |t: u64| -> u64 {
            if new.wrapping_sub(t).wrapping_sub(STALE + 1) < HALF {
                new.wrapping_sub(STALE)
            } else {
                t
            }
        };
        self.drop_next = rebase(self.drop_next);
        if self.above_set {
            self.first_above = rebase(self.first_above);
        }
    }

    fn clear_first_above(&mut self) {
        self.first_above = 0;
        self.above_set = false;
    }

    /// Now in the law's units.
    #[inline]
    fn now_units(&self, profile: &CodelProfile) -> u64 {
        match profile.mode {
            Mode::Exact => self.last.ticks(),
            Mode::Kernel | Mode::Ns3 | Mode::LinuxOddClock => {
                u64::from(profile.codel_time(self.last))
            }
        }
    }

    /// `a >= b` in the law's time.
    #[inline]
    fn after_eq(profile: &CodelProfile, a: u64, b: u64) -> bool {
        match profile.law {
            ControlLaw::Exact => a.wrapping_sub(b) < HALF,
            ControlLaw::Linux => match profile.variant {
                LinuxVariant::Kernel => (a as u32).wrapping_sub(b as u32) as i32 >= 0,
                LinuxVariant::Ns3 => a as u32 >= b as u32,
            },
        }
    }

    /// Linux's strict `codel_time_after`, as `variant` compares.
    #[inline]
    fn linux_after(variant: LinuxVariant, a: u32, b: u32) -> bool {
        match variant {
            LinuxVariant::Kernel => a.wrapping_sub(b) as i32 > 0,
            LinuxVariant::Ns3 => a > b,
        }
    }

    /// Whether the head is below TARGET or leaves at most MAXPACKET queued
    /// (RFC 8289 s5.6 `dodequeue()`, Linux `codel_should_drop()`): then it is
    /// not dropped and `first_above_time` is forgotten.
    #[inline]
    fn below_target(&self, profile: &CodelProfile, enqueued: Instant, backlog: u64) -> bool {
        match profile.mode {
            Mode::Exact => {
                let sojourn = self.last.ticks_since(enqueued);
                sojourn < profile.target || backlog <= u64::from(profile.mtu)
            }
            Mode::Kernel => self.linux_below(profile, LinuxVariant::Kernel, enqueued, backlog),
            Mode::Ns3 => self.linux_below(profile, LinuxVariant::Ns3, enqueued, backlog),
            Mode::LinuxOddClock => self.linux_below_odd_clock(profile, enqueued, backlog),
        }
    }

    /// [`linux_below`](Self::linux_below) on a clock that is not a whole
    /// number of nanoseconds per tick: out of line, so that its 128-bit
    /// conversions put no call on the common path of the other clocks.
    #[inline(never)]
    fn linux_below_odd_clock(
        &self,
        profile: &CodelProfile,
        enqueued: Instant,
        backlog: u64,
    ) -> bool {
        self.linux_below(profile, profile.variant, enqueued, backlog)
    }

    /// [`below_target`](Self::below_target) under [`ControlLaw::Linux`] as
    /// `variant` computes it.
    #[inline(always)]
    fn linux_below(
        &self,
        profile: &CodelProfile,
        variant: LinuxVariant,
        enqueued: Instant,
        backlog: u64,
    ) -> bool {
        let (now, enqueued) = (profile.nanos(self.last), profile.nanos(enqueued));
        let (sojourn, few_bytes) = match variant {
            LinuxVariant::Kernel => (
                ((now >> LINUX_TIME_SHIFT) as u32)
                    .wrapping_sub((enqueued >> LINUX_TIME_SHIFT) as u32),
                backlog <= u64::from(profile.mtu),
            ),
            LinuxVariant::Ns3 => (
                (now.saturating_sub(enqueued) >> LINUX_TIME_SHIFT) as u32,
                backlog < u64::from(profile.mtu),
            ),
        };
        Self::linux_after(variant, profile.target as u32, sojourn) || few_bytes
    }

    /// The rest of `dodequeue()` / `codel_should_drop()` after
    /// [`below_target`](Self::below_target) (`below`; when true, the caller
    /// has forgotten `first_above_time`): sets `first_above_time` on the
    /// first packet above, and answers whether it has been above for an
    /// interval.
    fn ok_to_drop(&mut self, profile: &CodelProfile, t: u64, below: bool) -> bool {
        if below {
            return false;
        }
        match profile.law {
            ControlLaw::Exact => {
                if !self.above_set {
                    self.above_set = true;
                    self.first_above = t.wrapping_add(profile.interval);
                    false
                } else {
                    Self::after_eq(profile, t, self.first_above)
                }
            }
            ControlLaw::Linux => {
                let now = t as u32;
                if self.first_above == 0 {
                    self.first_above = u64::from(now.wrapping_add(profile.interval as u32));
                    false
                } else {
                    Self::linux_after(profile.variant, now, self.first_above as u32)
                }
            }
        }
    }

    /// One turn of the dropping loop on the head (`ecn_capable` or not): drop
    /// (or mark) it if the next drop is due.
    fn drop_step(&mut self, profile: &CodelProfile, t: u64, ecn_capable: bool) -> Verdict {
        if !Self::after_eq(profile, t, self.drop_next) {
            return Verdict::Deliver;
        }
        match profile.law {
            ControlLaw::Exact => self.count = self.count.saturating_add(1),
            ControlLaw::Linux => {
                self.count = self.count.wrapping_add(1);
                self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
            }
        }
        if profile.ecn && ecn_capable {
            // The mark counts as the drop; the packet is delivered and the
            // loop ends. Linux schedules from drop_next, ns-3 from now.
            let base = match (profile.law, profile.variant) {
                (ControlLaw::Linux, LinuxVariant::Ns3) => t,
                _ => self.drop_next,
            };
            self.drop_next = self.control_law(profile, base);
            Verdict::Mark
        } else {
            self.phase = Phase::AfterLoopDrop;
            Verdict::Drop
        }
    }

    /// Entering the dropping state at `t` (RFC 8289 s5.5): `count` restarts at
    /// 1, or at `count - lastcount` when that is above 1 and the last drop
    /// (approximately `drop_next`) is less than 16 intervals ago.
    fn enter(&mut self, profile: &CodelProfile, t: u64) {
        self.phase = Phase::Dropping;
        let delta = self.count.wrapping_sub(self.lastcount);
        match profile.law {
            ControlLaw::Exact => {
                let since = t.wrapping_sub(self.drop_next);
                // A drop_next in the future counts as no time since it.
                let since = if since >= HALF { 0 } else { since };
                let recent = since < profile.interval.saturating_mul(16);
                self.count = if delta > 1 && recent { delta } else { 1 };
            }
            ControlLaw::Linux => {
                let now = t as u32;
                let since = now.wrapping_sub(self.drop_next as u32);
                let window = (profile.interval as u32).wrapping_mul(16);
                let carry = match profile.variant {
                    LinuxVariant::Kernel => delta > 1 && (window.wrapping_sub(since) as i32) > 0,
                    LinuxVariant::Ns3 => (delta as i32) > 1 && since < window,
                };
                if carry {
                    self.count = delta;
                    self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
                } else {
                    self.count = 1;
                    self.rec_inv_sqrt = u16::MAX;
                }
            }
        }
        self.lastcount = self.count;
        self.drop_next = self.control_law(profile, t);
    }

    /// `t + interval / sqrt(count)` in the law's arithmetic.
    fn control_law(&self, profile: &CodelProfile, t: u64) -> u64 {
        match profile.law {
            ControlLaw::Exact => t.wrapping_add(exact_spacing(profile.interval, self.count)),
            ControlLaw::Linux => u64::from(linux_control_law(
                t as u32,
                profile.interval as u32,
                self.rec_inv_sqrt,
            )),
        }
    }
}

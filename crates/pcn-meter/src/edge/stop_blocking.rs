//! draft-babiarz-pcn-explicit-marking-01 section 2.3 at the egress: block on
//! AS, the stop-blocking timer, terminate on ET.

use super::{Admission, EdgeError};
use crate::mark::PcnMark;
use crate::units::{duration_ticks, reached};
use core::time::Duration;
use netcond_core::{Instant, TickRate};

/// Configuration of draft-babiarz-pcn-explicit-marking-01's egress traffic control (section 2.3).
///
/// ```
/// use core::time::Duration;
/// use netcond_core::TickRate;
/// use pcn_meter::{StopBlockingConfig, StopBlockingProfile};
///
/// // The draft's 1 s timeout, ET also blocking; here on a microsecond clock.
/// let c = StopBlockingConfig::draft_explicit_marking_01().with_tick(TickRate::MICROS);
/// assert_eq!(StopBlockingProfile::new(&c).unwrap().timeout_ticks(), 1_000_000);
/// // A 500 ms timeout where ET marks only terminate.
/// let c = StopBlockingConfig::new(Duration::from_millis(500), false);
/// assert!(!c.et_blocks);
/// assert!(StopBlockingProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct StopBlockingConfig {
    /// The stop-blocking timeout (1 s in draft-babiarz-pcn-explicit-marking-01 section 3.2), in
    /// whole ticks of `tick` (rounded down; at least one tick, at most 2^62).
    pub timeout: Duration,
    /// Section 2.3: "a flow termination signal will also generate a block
    /// admission signal" when admission control is modelled at the same time.
    pub et_blocks: bool,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl StopBlockingConfig {
    /// draft-babiarz-pcn-explicit-marking-01's setting: 1 s timeout, ET also blocks, nanosecond clock.
    #[must_use]
    pub const fn draft_explicit_marking_01() -> StopBlockingConfig {
        StopBlockingConfig::new(Duration::from_secs(1), true)
    }

    /// A timeout of `timeout`, ET blocking or not, nanosecond clock.
    #[must_use]
    pub const fn new(timeout: Duration, et_blocks: bool) -> StopBlockingConfig {
        StopBlockingConfig {
            timeout,
            et_blocks,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with a timeout of `timeout`.
    #[must_use]
    pub const fn with_timeout(mut self, timeout: Duration) -> StopBlockingConfig {
        self.timeout = timeout;
        self
    }

    /// The same configuration with `et_blocks` set.
    #[must_use]
    pub const fn with_et_blocks(mut self, et_blocks: bool) -> StopBlockingConfig {
        self.et_blocks = et_blocks;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> StopBlockingConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed stop-blocking timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StopBlockingProfile {
    timeout: u64,
    et_blocks: bool,
}

impl StopBlockingProfile {
    /// Validates `c`.
    pub fn new(c: &StopBlockingConfig) -> Result<StopBlockingProfile, EdgeError> {
        Ok(StopBlockingProfile {
            timeout: duration_ticks(c.tick, c.timeout)?,
            et_blocks: c.et_blocks,
        })
    }

    /// The timeout in ticks.
    #[must_use]
    pub const fn timeout_ticks(&self) -> u64 {
        self.timeout
    }
}

/// The stop-blocking timer of one aggregate (draft-babiarz-pcn-explicit-marking-01 section 2.3).
///
/// A block signal on an admitting aggregate blocks it and starts the timer. At
/// each timeout, if at least one more block signal came during that period the
/// timer restarts (from the timeout instant); otherwise admission resumes. A
/// block signal at exactly the timeout instant belongs to the next period.
///
/// The same state machine serves at the egress (feed it the marks, delay the
/// resulting signals by the signalling delay) or at the ingress (feed it the
/// block signals as they arrive).
///
/// Calling late: [`poll`](Self::poll) and [`on_block`](Self::on_block) first
/// play every timeout up to `now`. If admission would have resumed in between
/// and `on_block` blocks again, the resumption is merged away (the aggregate
/// simply stays blocked); otherwise it is reported by the next `poll`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StopBlockingTimer {
    /// Timeout instant while blocked; resumption instant while `pending`.
    deadline: Instant,
    blocked: bool,
    /// A block signal arrived during the current timer period.
    seen: bool,
    /// Admission resumed and has not been reported by `poll` yet.
    pending: bool,
}

impl StopBlockingTimer {
    /// An admitting aggregate with no timer running, at `now` (an idle timer
    /// keeps no time: the profile and the instant are taken for the crates'
    /// one way to start a state, `State::new(&profile, now)`).
    #[must_use]
    pub const fn new(_profile: &StopBlockingProfile, _now: Instant) -> StopBlockingTimer {
        StopBlockingTimer::IDLE
    }

    const IDLE: StopBlockingTimer = StopBlockingTimer {
        deadline: Instant::ZERO,
        blocked: false,
        seen: false,
        pending: false,
    };

    /// The current admission state (as of the last call).
    #[must_use]
    pub const fn admission(&self) -> Admission {
        if self.blocked {
            Admission::Block
        } else {
            Admission::Admit
        }
    }

    fn settle(&mut self, p: &StopBlockingProfile, now: Instant) {
        // At most two rounds: a restart clears `seen`.
        while self.blocked && reached(now, self.deadline) {
            if self.seen {
                self.seen = false;
                self.deadline = self.deadline.wrapping_add(p.timeout);
            } else {
                self.blocked = false;
                self.pending = true;
            }
        }
    }

    /// A block signal at `now`. Returns true if it blocked an admitting
    /// aggregate (a new blocking period and timer start).
    pub fn on_block(&mut self, p: &StopBlockingProfile, now: Instant) -> bool {
        self.settle(p, now);
        if self.blocked {
            self.seen = true;
            false
        } else {
            self.blocked = true;
            self.pending = false;
            self.seen = false;
            self.deadline = now.wrapping_add(p.timeout);
            true
        }
    }

    /// Plays the timer up to `now`. Returns the instant at which admission
    /// resumed ("start admission" signal) once, when it has.
    pub fn poll(&mut self, p: &StopBlockingProfile, now: Instant) -> Option<Instant> {
        self.settle(p, now);
        if self.pending {
            self.pending = false;
            Some(self.deadline)
        } else {
            None
        }
    }

    /// When [`poll`](Self::poll) next has something to do: the running timeout,
    /// or an unreported resumption (in the past), or `None` when idle.
    #[must_use]
    pub const fn next_wakeup(&self) -> Option<Instant> {
        if self.blocked || self.pending {
            Some(self.deadline)
        } else {
            None
        }
    }
}

/// What the egress control signals for one packet (draft-babiarz-pcn-explicit-marking-01 section 2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EgressSignal<F> {
    /// Nothing to signal (a not-marked or not-PCN packet).
    Nothing,
    /// An AS packet: signal "block admission" to the aggregate. `new_period` is
    /// true when it blocked an admitting aggregate.
    Block {
        /// The aggregate was admitting and is now blocked.
        new_period: bool,
    },
    /// An ET packet: terminate `flow`. With [`StopBlockingConfig::et_blocks`] it
    /// is also a block signal, and `new_block_period` says whether it started a
    /// blocking period (always false without `et_blocks`).
    Terminate {
        /// The flow to terminate.
        flow: F,
        /// The aggregate was admitting and is now blocked.
        new_block_period: bool,
    },
}

/// draft-babiarz-pcn-explicit-marking-01's egress traffic control for up to `N` ingress-egress aggregates,
/// keyed by `K`: one [`StopBlockingTimer`] per aggregate, and one flow
/// termination per ET packet.
///
/// Aggregates are registered with [`add`](Self::add), which hands the key back
/// when the table is full. Lookups are linear in `N`;
/// [`on_packet_at`](Self::on_packet_at) takes the index `add` returned instead.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Egress3sm<K, const N: usize> {
    aggs: heapless::Vec<(K, StopBlockingTimer), N>,
}

impl<K: Copy + Eq, const N: usize> Egress3sm<K, N> {
    /// An empty table at `now`.
    #[must_use]
    pub const fn new(_profile: &StopBlockingProfile, _now: Instant) -> Self {
        Egress3sm {
            aggs: heapless::Vec::new(),
        }
    }

    /// Registers aggregate `key` (admitting) and returns its index, or its
    /// existing index. `Err(key)` when the table is full.
    pub fn add(&mut self, key: K) -> Result<usize, K> {
        if let Some(i) = self.index_of(key) {
            return Ok(i);
        }
        self.aggs
            .push((key, StopBlockingTimer::IDLE))
            .map(|()| self.aggs.len() - 1)
            .map_err(|(k, _)| k)
    }

    /// The index of aggregate `key`, if registered.
    #[must_use]
    pub fn index_of(&self, key: K) -> Option<usize> {
        self.aggs.iter().position(|(k, _)| *k == key)
    }

    /// The number of registered aggregates.
    #[must_use]
    pub fn len(&self) -> usize {
        self.aggs.len()
    }

    /// True if no aggregate is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.aggs.is_empty()
    }

    /// The admission state of aggregate `key`, if registered.
    #[must_use]
    pub fn admission(&self, key: K) -> Option<Admission> {
        self.index_of(key).map(|i| self.aggs[i].1.admission())
    }

    /// One packet of aggregate `key` and flow `flow` leaving the PCN domain at
    /// `now` in state `mark`. `Err(key)` if the aggregate is not registered.
    pub fn on_packet<F>(
        &mut self,
        p: &StopBlockingProfile,
        now: Instant,
        key: K,
        flow: F,
        mark: PcnMark,
    ) -> Result<EgressSignal<F>, K> {
        match self.index_of(key) {
            Some(i) => Ok(self.on_packet_at(p, now, i, flow, mark)),
            None => Err(key),
        }
    }

    /// As [`on_packet`](Self::on_packet) with the aggregate's index; an index
    /// out of range signals [`EgressSignal::Nothing`].
    pub fn on_packet_at<F>(
        &mut self,
        p: &StopBlockingProfile,
        now: Instant,
        index: usize,
        flow: F,
        mark: PcnMark,
    ) -> EgressSignal<F> {
        let Some((_, t)) = self.aggs.get_mut(index) else {
            return EgressSignal::Nothing;
        };
        match mark {
            PcnMark::NotPcn | PcnMark::Nm => EgressSignal::Nothing,
            PcnMark::Thm => EgressSignal::Block {
                new_period: t.on_block(p, now),
            },
            PcnMark::Etm => EgressSignal::Terminate {
                flow,
                new_block_period: p.et_blocks && t.on_block(p, now),
            },
        }
    }

    /// Plays every timer up to `now` and returns one aggregate whose admission
    /// resumed, with the resumption instant. Call until it returns `None`.
    pub fn poll(&mut self, p: &StopBlockingProfile, now: Instant) -> Option<(K, Instant)> {
        self.aggs
            .iter_mut()
            .find_map(|(k, t)| t.poll(p, now).map(|at| (*k, at)))
    }

    /// The earliest instant at which [`poll`](Self::poll) has something to do
    /// (compared as plain tick counts), or `None` when every aggregate is idle.
    #[must_use]
    pub fn next_wakeup(&self) -> Option<Instant> {
        self.aggs.iter().filter_map(|(_, t)| t.next_wakeup()).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::*;
    use crate::invariants::stop_blocking_consistent;
    use netcond_core::{RandomSource, SplitMix64};

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    fn at(t: u64) -> Instant {
        Instant::from_ticks(t)
    }

    fn draft_timer() -> StopBlockingProfile {
        StopBlockingProfile::new(&StopBlockingConfig::draft_explicit_marking_01()).unwrap()
    }

    #[test]
    fn stop_blocking_timer_sequence() {
        let p = draft_timer();
        let mut t = StopBlockingTimer::new(&p, at(0));
        assert_eq!(t.next_wakeup(), None);
        assert!(t.on_block(&p, at(0)));
        assert_eq!(t.admission(), Admission::Block);
        assert_eq!(t.next_wakeup(), Some(at(S)));
        assert!(!t.on_block(&p, at(500 * MS)));
        assert_eq!(t.poll(&p, at(S - 1)), None);
        // A block came during the first second: the timer restarts.
        assert_eq!(t.poll(&p, at(S)), None);
        assert_eq!(t.next_wakeup(), Some(at(2 * S)));
        assert!(!t.on_block(&p, at(1_500 * MS)));
        assert_eq!(t.poll(&p, at(2 * S)), None);
        assert_eq!(t.next_wakeup(), Some(at(3 * S)));
        // The third second is silent: admission resumes at 3 s, reported once.
        assert_eq!(t.poll(&p, at(3 * S)), Some(at(3 * S)));
        assert_eq!(t.admission(), Admission::Admit);
        assert_eq!(t.poll(&p, at(3 * S)), None);
        assert_eq!(t.next_wakeup(), None);
        // The next block starts a new period.
        assert!(t.on_block(&p, at(3_200 * MS)));
        assert_eq!(t.next_wakeup(), Some(at(4_200 * MS)));
    }

    #[test]
    fn stop_blocking_timer_called_late() {
        let p = draft_timer();
        // Polled late: the restarts and the resumption are replayed in order.
        let mut t = StopBlockingTimer::new(&p, at(0));
        t.on_block(&p, at(0));
        t.on_block(&p, at(500 * MS));
        assert_eq!(t.next_wakeup(), Some(at(S)));
        assert_eq!(t.poll(&p, at(10 * S)), Some(at(2 * S)));
        // A block at exactly the timeout belongs to the next period.
        let mut t = StopBlockingTimer::new(&p, at(0));
        t.on_block(&p, at(0));
        assert!(t.on_block(&p, at(S)));
        assert_eq!(t.next_wakeup(), Some(at(2 * S)));
        // A resumption missed before a new block is merged away.
        let mut t = StopBlockingTimer::new(&p, at(0));
        t.on_block(&p, at(0));
        assert!(t.on_block(&p, at(5 * S)));
        assert_eq!(t.poll(&p, at(5_500 * MS)), None);
        assert_eq!(t.admission(), Admission::Block);
        // An unpolled resumption shows up as an immediate wakeup.
        let mut t = StopBlockingTimer::new(&p, at(0));
        t.on_block(&p, at(0));
        let _ = t.clone().poll(&p, at(0));
        let mut e: Egress3sm<u8, 1> = Egress3sm::new(&p, at(0));
        e.add(1).unwrap();
        e.on_packet(&p, at(0), 1, (), PcnMark::Thm).unwrap();
        // An NM packet after the timeout settles nothing by itself...
        assert_eq!(
            e.on_packet(&p, at(5 * S), 1, (), PcnMark::Nm),
            Ok(EgressSignal::Nothing)
        );
        // ...and poll reports the resumption at the timeout instant.
        assert_eq!(e.next_wakeup(), Some(at(S)));
        assert_eq!(e.poll(&p, at(5 * S)), Some((1, at(S))));
        assert_eq!(e.poll(&p, at(5 * S)), None);
    }

    #[test]
    fn stop_blocking_random_streams_stay_consistent() {
        let p = StopBlockingProfile::new(&StopBlockingConfig {
            timeout: Duration::from_micros(1),
            et_blocks: true,
            tick: TickRate::NANOS,
        })
        .unwrap();
        let mut r = SplitMix64::new(5);
        let mut t = StopBlockingTimer::new(&p, at(0));
        let mut now = 0u64;
        let (mut resumed, mut started) = (0, 0);
        // Miri interprets every instruction: a shorter stream there.
        let (n, min_started) = if cfg!(miri) { (600, 2) } else { (100_000, 100) };
        for _ in 0..n {
            now += u64::from(r.below(700));
            // A careful caller polls at every wakeup before the next event.
            while let Some(w) = t.next_wakeup().filter(|w| w.ticks() <= now) {
                resumed += usize::from(t.poll(&p, w).is_some());
                stop_blocking_consistent(&p, &t, w).unwrap();
            }
            match r.below(3) {
                0 => started += usize::from(t.on_block(&p, at(now))),
                _ => resumed += usize::from(t.poll(&p, at(now)).is_some()),
            }
            stop_blocking_consistent(&p, &t, at(now)).unwrap();
        }
        // Every blocking period that ended was reported once.
        assert!(
            started > min_started && (started - resumed) <= 1,
            "{started} {resumed}"
        );
        // A careless caller (random polls) still never breaks the invariants.
        let mut t = StopBlockingTimer::new(&p, at(0));
        for _ in 0..n {
            now += u64::from(r.below(3000));
            if r.below(2) == 0 {
                t.on_block(&p, at(now));
            } else {
                let _ = t.poll(&p, at(now));
            }
            stop_blocking_consistent(&p, &t, at(now)).unwrap();
        }
    }

    /// A call exactly 2^63 ticks after the deadline: under the serial-time
    /// rule the deadline is not reached (`now - deadline` is not below
    /// 2^63), so the timer stays blocked, and the consistency check asks the
    /// timer's question, not the reverse one (for which the deadline would read
    /// as earlier than `now` too). Regression for the fuzz input
    /// pcn_egress_3sm/regress-antipode.
    #[test]
    fn deadline_at_the_antipode_is_not_reached() {
        let p = draft_timer();
        let mut t = StopBlockingTimer::new(&p, at(0));
        assert!(t.on_block(&p, at(5)));
        let deadline = 5 + S;
        let now = at(deadline.wrapping_add(1 << 63));
        assert_eq!(t.poll(&p, now), None);
        assert_eq!(t.admission(), Admission::Block);
        assert_eq!(t.next_wakeup(), Some(at(deadline)));
        stop_blocking_consistent(&p, &t, now).unwrap();
        // One tick less, 2^63 - 1 ticks after the deadline, it is reached
        // and admission resumes.
        let earlier = at(deadline.wrapping_add((1 << 63) - 1));
        assert_eq!(t.poll(&p, earlier), Some(at(deadline)));
        assert_eq!(t.admission(), Admission::Admit);
        stop_blocking_consistent(&p, &t, earlier).unwrap();
    }

    #[test]
    fn egress3sm_signals_and_capacity() {
        let p = draft_timer();
        let mut e: Egress3sm<u32, 2> = Egress3sm::new(&p, at(0));
        assert_eq!(e.add(10), Ok(0));
        assert_eq!(e.add(20), Ok(1));
        assert_eq!(e.add(10), Ok(0));
        assert_eq!(e.add(30), Err(30));
        assert_eq!(e.len(), 2);
        assert_eq!(e.on_packet(&p, at(0), 30, 1u64, PcnMark::Thm), Err(30));
        assert_eq!(
            e.on_packet(&p, at(0), 10, 1u64, PcnMark::Nm),
            Ok(EgressSignal::Nothing)
        );
        assert_eq!(
            e.on_packet(&p, at(0), 10, 1u64, PcnMark::Thm),
            Ok(EgressSignal::Block { new_period: true })
        );
        assert_eq!(
            e.on_packet(&p, at(MS), 10, 2u64, PcnMark::Thm),
            Ok(EgressSignal::Block { new_period: false })
        );
        // One termination per ET packet, carrying its flow; ET also blocks.
        assert_eq!(
            e.on_packet(&p, at(2 * MS), 20, 7u64, PcnMark::Etm),
            Ok(EgressSignal::Terminate {
                flow: 7,
                new_block_period: true
            })
        );
        assert_eq!(
            e.on_packet_at(&p, at(3 * MS), 1, 8u64, PcnMark::Etm),
            EgressSignal::Terminate {
                flow: 8,
                new_block_period: false
            }
        );
        assert_eq!(e.admission(20), Some(Admission::Block));
        assert_eq!(e.next_wakeup(), Some(at(S)));
        // Aggregate 10 saw a block at 1 ms: restarts at 1 s, resumes at 2 s;
        // aggregate 20 saw blocks at 2 and 3 ms: restarts at 1.002 s, resumes 2.002 s.
        assert_eq!(e.poll(&p, at(2 * S)), Some((10, at(2 * S))));
        assert_eq!(e.poll(&p, at(2 * S)), None);
        assert_eq!(e.poll(&p, at(3 * S)), Some((20, at(2 * S + 2 * MS))));
        assert_eq!(e.next_wakeup(), None);
        // Without et_blocks, ET only terminates.
        let q = StopBlockingProfile::new(&StopBlockingConfig {
            et_blocks: false,
            ..StopBlockingConfig::draft_explicit_marking_01()
        })
        .unwrap();
        let mut e: Egress3sm<u8, 1> = Egress3sm::new(&q, at(0));
        e.add(0).unwrap();
        assert_eq!(
            e.on_packet(&q, at(0), 0, 'f', PcnMark::Etm),
            Ok(EgressSignal::Terminate {
                flow: 'f',
                new_block_period: false
            })
        );
        assert_eq!(e.admission(0), Some(Admission::Admit));
        assert_eq!(
            StopBlockingProfile::new(&StopBlockingConfig {
                timeout: Duration::ZERO,
                ..StopBlockingConfig::draft_explicit_marking_01()
            }),
            Err(EdgeError::ZeroDuration)
        );
    }

    /// Fuzz finding (pcn_egress_3sm): a timeout of 2^63 ticks or more made a
    /// fresh deadline look already reached, or neither past nor future. Such
    /// timeouts are now refused, and the longest one allowed behaves.
    #[test]
    fn timeouts_past_half_the_tick_range_are_refused() {
        let ghz2 = TickRate::from_hz(2_000_000_000).unwrap();
        let cfg = |timeout_ns, tick| StopBlockingConfig {
            timeout: Duration::from_nanos(timeout_ns),
            et_blocks: false,
            tick,
        };
        assert_eq!(
            StopBlockingProfile::new(&cfg(1 << 62, ghz2)),
            Err(EdgeError::DurationTooLong)
        );
        assert_eq!(
            StopBlockingProfile::new(&cfg(u64::MAX, TickRate::NANOS)),
            Err(EdgeError::DurationTooLong)
        );
        let p = StopBlockingProfile::new(&cfg(crate::MAX_DURATION_TICKS, TickRate::NANOS)).unwrap();
        for start in [0, 17_023_394_657_341_594_064, u64::MAX] {
            let t0 = Instant::from_ticks(start);
            let mut t = StopBlockingTimer::new(&p, at(0));
            assert!(t.on_block(&p, t0));
            assert_eq!(
                crate::invariants::stop_blocking_consistent(&p, &t, t0),
                Ok(())
            );
            let late = t0.wrapping_add(crate::MAX_DURATION_TICKS - 1);
            assert!(!t.on_block(&p, late));
            assert_eq!(t.poll(&p, late), None);
            assert_eq!(t.admission(), Admission::Block);
            // The block at `late` restarts the timer at the first timeout.
            let end = t0.wrapping_add(2 * crate::MAX_DURATION_TICKS);
            assert_eq!(t.poll(&p, end), Some(end));
            assert_eq!(t.admission(), Admission::Admit);
        }
    }
}

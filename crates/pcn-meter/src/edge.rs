//! The PCN edge: what the egress does with the marks, and the decision point.
//!
//! - [`StopBlockingTimer`] and [`Egress3sm`]: draft-babiarz-pcn-explicit-marking-01 section 2.3. Each AS
//!   (ThM) packet signals "block" for its ingress-egress aggregate; the
//!   stop-blocking timer restarts while blocks keep coming and admission resumes
//!   after one silent timeout; each ET (ETM) packet terminates its flow.
//! - [`CleAdmission`]: the CLE-based option of the 3sM draft: per measurement
//!   interval, block when the fraction of marked bytes reaches the admission-stop
//!   threshold, resume when it falls below the admission-continue threshold.
//! - [`EgressMeter`] and [`DecisionPoint`]: RFC 6661 (CL) and RFC 6662 (SM):
//!   NM / ThM / ETM rates per `T_meas`, the congestion level estimate (CLE),
//!   optional report suppression, admit / block and the amount to terminate.
//!
//! Everything is allocation-free with fixed capacities. Time-driven parts take
//! `now` from the caller and report, with `next_wakeup`, when they next need a
//! call to `poll`; calling `poll` late is safe (see each type).

use crate::mark::PcnMark;
use crate::units::{duration_ticks, reached};
use fixed::types::{U16F16, U1F31};
use netcond_core::{Instant, TickRate};

/// Admission state of an ingress-egress aggregate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Admission {
    /// New flows may be admitted.
    #[default]
    Admit,
    /// New flows are blocked.
    Block,
}

/// The fraction `k / 1000` (RFC 6661 and 6662 configure CLE values in tenths of
/// a percent, 0 to 1000) as a `U1F31`, rounded down (by less than 2^-31), so
/// that a CLE of exactly `k / 1000` counts as reaching it: with a CLE-limit of
/// `per_mille(50)`, a CLE of exactly 5 % blocks, as RFC 6661 section 3.3.1
/// wants. Values above 1000 give 1.
#[must_use]
pub const fn per_mille(k: u16) -> U1F31 {
    let k = if k > 1000 { 1000 } else { k as u64 };
    U1F31::from_bits(((k << 31) / 1000) as u32)
}

// ---------------------------------------------------------------------------
// Congestion level estimate
// ---------------------------------------------------------------------------

/// A congestion level estimate kept as the exact ratio `marked / total` of
/// bytes (equal to the ratio of the rates, RFC 6661 section 3.2.3); zero when
/// no traffic was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cle {
    /// Marked bytes (the numerator).
    pub marked: u64,
    /// All bytes counted (the denominator).
    pub total: u64,
}

impl Cle {
    /// The CLE of `marked` out of `total` bytes (`marked` is capped at `total`).
    #[must_use]
    pub const fn new(marked: u64, total: u64) -> Cle {
        Cle {
            marked: if marked > total { total } else { marked },
            total,
        }
    }

    /// True if the CLE is strictly below `limit`, compared exactly
    /// (`marked * 2^31 < limit_bits * total`). A CLE with no traffic is zero.
    #[inline]
    #[must_use]
    pub const fn is_below(self, limit: U1F31) -> bool {
        (self.marked as u128) << 31 < (limit.to_bits() as u128) * (self.total as u128)
    }

    /// True if the CLE is strictly above `threshold`, compared exactly.
    #[inline]
    #[must_use]
    pub const fn is_above(self, threshold: U1F31) -> bool {
        (self.marked as u128) << 31 > (threshold.to_bits() as u128) * (self.total as u128)
    }

    /// The CLE as a `U1F31`, rounded down (0 with no traffic). Divides: for
    /// reports and logs, not for the per-packet path.
    #[must_use]
    pub const fn to_fixed(self) -> U1F31 {
        if self.total == 0 {
            return U1F31::ZERO;
        }
        U1F31::from_bits((((self.marked as u128) << 31) / self.total as u128) as u32)
    }
}

/// Bytes per second over `ticks` ticks of a `hz` clock, rounded down
/// (saturating; zero for an empty interval).
fn rate_of(bytes: u64, ticks: u64, hz: u64) -> u64 {
    if ticks == 0 {
        return 0;
    }
    let r = bytes as u128 * hz as u128 / ticks as u128;
    if r > u64::MAX as u128 {
        u64::MAX
    } else {
        r as u64
    }
}

/// A grid of measurement intervals `[start, end)` of `len` ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct Interval {
    start: Instant,
    end: Instant,
}

impl Interval {
    fn first(now: Instant, len: u64) -> Interval {
        Interval {
            start: now,
            end: now.wrapping_add(len),
        }
    }

    /// Moves on to the interval of the grid that contains `now` (the intervals
    /// skipped over, if any, saw no call). Divides, once per interval.
    fn roll(&mut self, now: Instant, len: u64) {
        // Mutation check 10 (test builds): intervals one tick too long.
        let len = len + u64::from(cfg!(test) && crate::mutants::on(10));
        let behind = now.ticks_since(self.end);
        let skip = behind / len * len;
        self.start = self.end.wrapping_add(skip);
        self.end = self.start.wrapping_add(len);
    }
}

// ---------------------------------------------------------------------------
// draft-babiarz-pcn-explicit-marking-01 section 2.3: block on AS, stop-blocking timer, terminate on ET
// ---------------------------------------------------------------------------

/// Configuration of draft-babiarz-pcn-explicit-marking-01's egress traffic control (section 2.3).
///
/// ```
/// use netcond_core::TickRate;
/// use pcn_meter::{StopBlockingConfig, StopBlockingProfile};
///
/// // The draft's 1 s timeout, ET also blocking; here on a microsecond clock.
/// let c = StopBlockingConfig::draft_explicit_marking_01().with_tick(TickRate::MICROS);
/// assert_eq!(StopBlockingProfile::new(&c).unwrap().timeout_ticks(), 1_000_000);
/// // A 500 ms timeout where ET marks only terminate.
/// let c = StopBlockingConfig::new(500_000_000, false);
/// assert!(!c.et_blocks);
/// assert!(StopBlockingProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct StopBlockingConfig {
    /// The stop-blocking timeout in nanoseconds (1 s in draft-babiarz-pcn-explicit-marking-01 section 3.2).
    pub timeout_ns: u64,
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
        StopBlockingConfig::new(1_000_000_000, true)
    }

    /// A timeout of `timeout_ns` nanoseconds, ET blocking or not, nanosecond
    /// clock.
    #[must_use]
    pub const fn new(timeout_ns: u64, et_blocks: bool) -> StopBlockingConfig {
        StopBlockingConfig {
            timeout_ns,
            et_blocks,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with a timeout of `timeout_ns` nanoseconds.
    #[must_use]
    pub const fn with_timeout_ns(mut self, timeout_ns: u64) -> StopBlockingConfig {
        self.timeout_ns = timeout_ns;
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

netcond_core::config_error! {
    /// Why an edge configuration was refused.
    pub enum EdgeError {
        /// A timer or interval of zero ticks.
        ZeroDuration => "timeouts and measurement intervals must be at least one clock tick \
                         (draft-babiarz-pcn-explicit-marking-01 section 2.3; RFC 6661 section 3.5)",
        /// A timer or interval longer than [`MAX_DURATION_TICKS`](crate::MAX_DURATION_TICKS).
        DurationTooLong => "timeouts and measurement intervals must not exceed 2^62 clock \
                            ticks: deadlines are compared over half the 64-bit tick range",
        /// The admission-continue threshold lies above the admission-stop one.
        ContinueAboveStop => "the admission-continue threshold must not exceed the \
                              admission-stop threshold (3sM draft: hysteresis)",
        /// A CLE threshold above 1.
        FractionAboveOne => "CLE-limit and CLE thresholds must lie between 0 and 1 (RFC 6661 \
                             section 5.1.2: 0 to 1000 tenths of a percent)",
        /// U not above one.
        UNotAboveOne => "U must be greater than one (RFC 6662 section 3.3.2)",
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
            timeout: duration_ticks(c.tick, c.timeout_ns)?,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
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
    /// An admitting aggregate with no timer running.
    #[must_use]
    pub const fn new() -> StopBlockingTimer {
        StopBlockingTimer {
            deadline: Instant::ZERO,
            blocked: false,
            seen: false,
            pending: false,
        }
    }

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
            // Mutation check 7: the resumption reported again at every poll.
            self.pending = cfg!(test) && crate::mutants::on(7);
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
pub struct Egress3sm<K, const N: usize> {
    aggs: heapless::Vec<(K, StopBlockingTimer), N>,
}

impl<K: Copy + Eq, const N: usize> Default for Egress3sm<K, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Copy + Eq, const N: usize> Egress3sm<K, N> {
    /// An empty table.
    #[must_use]
    pub const fn new() -> Self {
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
            .push((key, StopBlockingTimer::new()))
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

// ---------------------------------------------------------------------------
// 3sM draft: CLE-based admission with admission-stop / admission-continue
// ---------------------------------------------------------------------------

/// Configuration of the 3sM draft's CLE-based admission option.
///
/// ```
/// use netcond_core::TickRate;
/// use pcn_meter::{per_mille, CleAdmissionConfig, CleAdmissionProfile};
///
/// // 100 ms intervals; block at a CLE of 10 %, resume below 5 %; microsecond clock.
/// let c = CleAdmissionConfig::new(100_000_000, per_mille(100), per_mille(50))
///     .with_tick(TickRate::MICROS);
/// assert!(CleAdmissionProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct CleAdmissionConfig {
    /// The measurement interval in nanoseconds.
    pub interval_ns: u64,
    /// Admission-stop threshold: an admitting aggregate blocks when the CLE of
    /// an interval is at or above it.
    pub stop: U1F31,
    /// Admission-continue threshold: a blocked aggregate resumes when the CLE of
    /// an interval is below it.
    pub resume: U1F31,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl CleAdmissionConfig {
    /// Intervals of `interval_ns` nanoseconds, the admission-stop and
    /// admission-continue thresholds, nanosecond clock.
    #[must_use]
    pub const fn new(interval_ns: u64, stop: U1F31, resume: U1F31) -> CleAdmissionConfig {
        CleAdmissionConfig {
            interval_ns,
            stop,
            resume,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> CleAdmissionConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed constants of a [`CleAdmission`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CleAdmissionProfile {
    interval: u64,
    stop: U1F31,
    resume: U1F31,
}

impl CleAdmissionProfile {
    /// Validates `c`.
    pub fn new(c: &CleAdmissionConfig) -> Result<CleAdmissionProfile, EdgeError> {
        if c.stop > U1F31::ONE || c.resume > U1F31::ONE {
            return Err(EdgeError::FractionAboveOne);
        }
        if c.resume > c.stop {
            return Err(EdgeError::ContinueAboveStop);
        }
        Ok(CleAdmissionProfile {
            interval: duration_ticks(c.tick, c.interval_ns)?,
            stop: c.stop,
            resume: c.resume,
        })
    }
}

/// The outcome of one measurement interval of a [`CleAdmission`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CleDecision {
    /// Start of the interval.
    pub start: Instant,
    /// End of the interval (exclusive).
    pub end: Instant,
    /// The interval's CLE: AS- or ET-marked bytes over all PCN bytes.
    pub cle: Cle,
    /// The admission state from now on.
    pub admission: Admission,
    /// True if `admission` changed at this interval.
    pub changed: bool,
}

/// The 3sM draft's CLE-based admission option for one aggregate, with
/// hysteresis: per interval, CLE = (AS + ET bytes) / (all PCN bytes); an
/// admitting aggregate blocks when CLE >= admission-stop; a blocked one resumes
/// when CLE < admission-continue. With both thresholds equal this is RFC 6661's
/// CLE-limit rule.
///
/// Calling late: a packet at or after the end of the interval closes it; its
/// decision is kept for the next [`poll`](Self::poll) (only the latest one
/// if several close unpolled). Intervals in which nothing at all was called are
/// not reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CleAdmission {
    iv: Interval,
    marked: u64,
    total: u64,
    admission: Admission,
    pending: Option<CleDecision>,
}

impl CleAdmission {
    /// An admitting aggregate whose first interval starts at `now`.
    #[must_use]
    pub fn new(p: &CleAdmissionProfile, now: Instant) -> CleAdmission {
        CleAdmission {
            iv: Interval::first(now, p.interval),
            marked: 0,
            total: 0,
            admission: Admission::Admit,
            pending: None,
        }
    }

    /// The current admission state.
    #[must_use]
    pub const fn admission(&self) -> Admission {
        self.admission
    }

    fn close(&mut self, p: &CleAdmissionProfile, now: Instant) {
        let cle = Cle::new(self.marked, self.total);
        let before = self.admission;
        self.admission = match before {
            Admission::Admit if !cle.is_below(p.stop) => Admission::Block,
            Admission::Block if cle.is_below(p.resume) => Admission::Admit,
            s => s,
        };
        self.pending = Some(CleDecision {
            start: self.iv.start,
            end: self.iv.end,
            cle,
            admission: self.admission,
            changed: self.admission != before,
        });
        self.marked = 0;
        self.total = 0;
        self.iv.roll(now, p.interval);
    }

    /// One packet of the aggregate at the egress.
    pub fn on_packet(&mut self, p: &CleAdmissionProfile, now: Instant, len: u32, mark: PcnMark) {
        if reached(now, self.iv.end) {
            self.close(p, now);
        }
        if mark.is_pcn() {
            let l = u64::from(len);
            self.total = self.total.saturating_add(l);
            if mark != PcnMark::Nm {
                self.marked = self.marked.saturating_add(l);
            }
        }
    }

    /// Closes the interval if it has ended and returns its decision.
    pub fn poll(&mut self, p: &CleAdmissionProfile, now: Instant) -> Option<CleDecision> {
        if self.pending.is_none() && reached(now, self.iv.end) {
            self.close(p, now);
        }
        self.pending.take()
    }

    /// When [`poll`](Self::poll) next has something to do.
    #[must_use]
    pub fn next_wakeup(&self) -> Instant {
        match self.pending {
            Some(d) => d.end,
            None => self.iv.end,
        }
    }
}

// ---------------------------------------------------------------------------
// RFC 6661 (CL) and RFC 6662 (SM): egress measurement and decision point
// ---------------------------------------------------------------------------

/// Which PCN boundary-node behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum EdgeBehaviour {
    /// Controlled Load, RFC 6661: CLE = (ThM + ETM) / (NM + ThM + ETM);
    /// SAR = NM-rate + ThM-rate; termination triggered by a non-zero ETM-rate.
    ControlledLoad,
    /// Single Marking, RFC 6662: CLE = ETM / (NM + ETM) (ThM counted as ETM,
    /// RFC 6660 section 5.3); SAR = U x NM-rate; termination triggered by "block".
    SingleMarking {
        /// U, greater than one; RFC 6662 section 5.1.1: "between 1.2 and 2".
        u: U16F16,
    },
}

/// Optional report suppression (RFC 6661 / 6662 section 3.2.3).
///
/// ```
/// use pcn_meter::{per_mille, EgressMeterConfig, Suppression};
///
/// // Suppress reports of a CLE at or below 0 for up to 4 s.
/// let s = Suppression::new(per_mille(0), 4_000_000_000);
/// let c = EgressMeterConfig::controlled_load().with_suppression(Some(s));
/// assert_eq!(c.suppression, Some(s));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Suppression {
    /// CLE-reporting-threshold; the RFC default is 0. It must not exceed the
    /// decision point's CLE-limit (not checkable here: a deployment rule).
    pub cle_reporting_threshold: U1F31,
    /// T_maxsuppress in nanoseconds; RECOMMENDED "on the order of 3 to 6 seconds".
    pub t_maxsuppress_ns: u64,
}

impl Suppression {
    /// CLE-reporting-threshold and T_maxsuppress in nanoseconds.
    #[must_use]
    pub const fn new(cle_reporting_threshold: U1F31, t_maxsuppress_ns: u64) -> Suppression {
        Suppression {
            cle_reporting_threshold,
            t_maxsuppress_ns,
        }
    }
}

/// Configuration of an RFC 6661 / 6662 PCN-egress-node measurement.
///
/// ```
/// use netcond_core::TickRate;
/// use pcn_meter::{EgressMeterConfig, EgressMeterProfile};
///
/// // RFC 6661 with T_meas 100 ms on a microsecond clock, ETM flows not recorded.
/// let c = EgressMeterConfig::controlled_load()
///     .with_t_meas_ns(100_000_000)
///     .with_record_etm_flows(false)
///     .with_tick(TickRate::MICROS);
/// assert!(EgressMeterProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct EgressMeterConfig {
    /// CL or SM.
    pub behaviour: EdgeBehaviour,
    /// T_meas in nanoseconds; RECOMMENDED "on the order of 100 to 500 ms"
    /// (section 3.5.1; the MIB range of RFC 6662 section 5.1.2 is 50 to 1000 ms).
    pub t_meas_ns: u64,
    /// Record the flows seen with ETM packets (RFC 6661 section 3.2.1 option;
    /// ignored for SM). At most `M` are kept per interval, the most recent.
    pub record_etm_flows: bool,
    /// Report suppression, if enabled.
    pub suppression: Option<Suppression>,
    /// The clock of the `Instant`s passed in.
    pub tick: TickRate,
}

impl EgressMeterConfig {
    /// RFC 6661 (CL) with this crate's defaults: T_meas 200 ms (inside the
    /// RECOMMENDED 100-500 ms), ETM flows recorded, no report suppression,
    /// nanosecond clock.
    #[must_use]
    pub const fn controlled_load() -> EgressMeterConfig {
        EgressMeterConfig {
            behaviour: EdgeBehaviour::ControlledLoad,
            t_meas_ns: 200_000_000,
            record_etm_flows: true,
            suppression: None,
            tick: TickRate::NANOS,
        }
    }

    /// RFC 6662 (SM) with this crate's defaults: U = 1.5 (inside the suggested
    /// 1.2-2), T_meas 200 ms, no report suppression, nanosecond clock.
    #[must_use]
    pub const fn single_marking() -> EgressMeterConfig {
        EgressMeterConfig {
            behaviour: EdgeBehaviour::SingleMarking {
                u: U16F16::from_bits(3 << 15),
            },
            t_meas_ns: 200_000_000,
            record_etm_flows: false,
            suppression: None,
            tick: TickRate::NANOS,
        }
    }

    /// The same configuration with the behaviour `behaviour` (CL, or SM with
    /// its U).
    #[must_use]
    pub const fn with_behaviour(mut self, behaviour: EdgeBehaviour) -> EgressMeterConfig {
        self.behaviour = behaviour;
        self
    }

    /// The same configuration with a T_meas of `t_meas_ns` nanoseconds.
    #[must_use]
    pub const fn with_t_meas_ns(mut self, t_meas_ns: u64) -> EgressMeterConfig {
        self.t_meas_ns = t_meas_ns;
        self
    }

    /// The same configuration with `record_etm_flows` set.
    #[must_use]
    pub const fn with_record_etm_flows(mut self, record_etm_flows: bool) -> EgressMeterConfig {
        self.record_etm_flows = record_etm_flows;
        self
    }

    /// The same configuration with report suppression `suppression`.
    #[must_use]
    pub const fn with_suppression(mut self, suppression: Option<Suppression>) -> EgressMeterConfig {
        self.suppression = suppression;
        self
    }

    /// The same configuration on the clock `tick`.
    #[must_use]
    pub const fn with_tick(mut self, tick: TickRate) -> EgressMeterConfig {
        self.tick = tick;
        self
    }
}

/// The precomputed constants of an [`EgressMeter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EgressMeterProfile {
    sm: bool,
    t_meas: u64,
    hz: u64,
    record: bool,
    suppress: Option<(U1F31, u64)>,
}

impl EgressMeterProfile {
    /// Validates `c`.
    pub fn new(c: &EgressMeterConfig) -> Result<EgressMeterProfile, EdgeError> {
        let sm = match c.behaviour {
            EdgeBehaviour::ControlledLoad => false,
            EdgeBehaviour::SingleMarking { u } => {
                if u <= U16F16::ONE {
                    return Err(EdgeError::UNotAboveOne);
                }
                true
            }
        };
        let suppress = match c.suppression {
            None => None,
            Some(s) => {
                if s.cle_reporting_threshold > U1F31::ONE {
                    return Err(EdgeError::FractionAboveOne);
                }
                let t = duration_ticks(c.tick, s.t_maxsuppress_ns)?;
                Some((s.cle_reporting_threshold, t))
            }
        };
        Ok(EgressMeterProfile {
            sm,
            t_meas: duration_ticks(c.tick, c.t_meas_ns)?,
            hz: c.tick.hz(),
            record: c.record_etm_flows && !sm,
            suppress,
        })
    }
}

/// One measurement report of an [`EgressMeter`] (RFC 6661 / 6662 section 3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report<F, const M: usize> {
    /// Start of the measurement interval.
    pub start: Instant,
    /// End of the measurement interval (exclusive).
    pub end: Instant,
    /// NM bytes in the interval.
    pub nm_bytes: u64,
    /// ThM bytes in the interval (always 0 with SM: counted as ETM).
    pub thm_bytes: u64,
    /// ETM bytes in the interval.
    pub etm_bytes: u64,
    /// NM-rate in octets per second (rounded down).
    pub nm_rate: u64,
    /// ThM-rate in octets per second (rounded down).
    pub thm_rate: u64,
    /// ETM-rate in octets per second (rounded down).
    pub etm_rate: u64,
    /// The congestion level estimate of the interval.
    pub cle: Cle,
    /// The flows seen with ETM packets (CL option), most recent last.
    pub etm_flows: heapless::Vec<F, M>,
}

/// The PCN-egress-node measurement of one ingress-egress aggregate (RFC 6661 /
/// RFC 6662 section 3.2): bytes of NM, ThM and ETM packets per `T_meas`, the
/// rates and CLE at the end of each interval, and optionally the flows seen
/// with ETM (CL; up to `M`, keeping the most recent distinct ones).
///
/// Calling late: a packet at or after the end of the interval closes it; the
/// report waits for the next [`poll`](Self::poll). Intervals in which nothing
/// at all was called are not reported.
#[derive(Clone, Debug)]
pub struct EgressMeter<F, const M: usize> {
    iv: Interval,
    nm: u64,
    thm: u64,
    etm: u64,
    flows: heapless::Vec<F, M>,
    last_report: Instant,
    prev_above: bool,
    pending: Option<Report<F, M>>,
}

impl<F: Copy + Eq, const M: usize> EgressMeter<F, M> {
    /// A meter whose first interval starts at `now`.
    #[must_use]
    pub fn new(p: &EgressMeterProfile, now: Instant) -> Self {
        EgressMeter {
            iv: Interval::first(now, p.t_meas),
            nm: 0,
            thm: 0,
            etm: 0,
            flows: heapless::Vec::new(),
            last_report: now,
            prev_above: false,
            pending: None,
        }
    }

    fn close(&mut self, p: &EgressMeterProfile, now: Instant) {
        let all = self.nm.saturating_add(self.thm).saturating_add(self.etm);
        let cle = Cle::new(self.thm.saturating_add(self.etm), all);
        let send = match p.suppress {
            None => true,
            Some((thr, tmax)) => {
                let above = cle.is_above(thr);
                // Section 3.2.3 steps 2 and 3.
                let send =
                    above || self.prev_above || self.iv.end.ticks_since(self.last_report) >= tmax;
                self.prev_above = above;
                send
            }
        };
        if send {
            let d = self.iv.end.ticks_since(self.iv.start);
            self.last_report = self.iv.end;
            self.pending = Some(Report {
                start: self.iv.start,
                end: self.iv.end,
                nm_bytes: self.nm,
                thm_bytes: self.thm,
                etm_bytes: self.etm,
                nm_rate: rate_of(self.nm, d, p.hz),
                thm_rate: rate_of(self.thm, d, p.hz),
                etm_rate: rate_of(self.etm, d, p.hz),
                cle,
                etm_flows: self.flows.clone(),
            });
        }
        // Mutation check 8 (test builds): the counts never reset.
        if !(cfg!(test) && crate::mutants::on(8)) {
            self.nm = 0;
            self.thm = 0;
            self.etm = 0;
        }
        self.flows.clear();
        self.iv.roll(now, p.t_meas);
    }

    /// One packet of flow `flow` of this aggregate at the egress at `now`.
    pub fn on_packet(
        &mut self,
        p: &EgressMeterProfile,
        now: Instant,
        len: u32,
        mark: PcnMark,
        flow: F,
    ) {
        if reached(now, self.iv.end) {
            self.close(p, now);
        }
        let l = u64::from(len);
        match mark {
            PcnMark::NotPcn => {}
            PcnMark::Nm => self.nm = self.nm.saturating_add(l),
            // RFC 6660 section 5.3: with excess-traffic-marking only, ThM is ETM.
            PcnMark::Thm if p.sm => self.etm = self.etm.saturating_add(l),
            PcnMark::Thm => self.thm = self.thm.saturating_add(l),
            PcnMark::Etm => {
                self.etm = self.etm.saturating_add(l);
                if p.record && M > 0 && !self.flows.contains(&flow) {
                    if self.flows.is_full() {
                        self.flows.remove(0);
                    }
                    let _ = self.flows.push(flow);
                }
            }
        }
    }

    /// Closes the interval if it has ended and returns its report (unless
    /// suppressed). Call until it returns `None`.
    pub fn poll(&mut self, p: &EgressMeterProfile, now: Instant) -> Option<Report<F, M>> {
        if self.pending.is_none() && reached(now, self.iv.end) {
            self.close(p, now);
        }
        self.pending.take()
    }

    /// When [`poll`](Self::poll) next has something to do.
    #[must_use]
    pub fn next_wakeup(&self) -> Instant {
        match &self.pending {
            Some(r) => r.end,
            None => self.iv.end,
        }
    }
}

/// Configuration of an RFC 6661 / 6662 Decision Point for its aggregates.
///
/// ```
/// use fixed::types::U16F16;
/// use pcn_meter::{per_mille, DecisionConfig, DecisionProfile, EdgeBehaviour};
///
/// // RFC 6662 with U = 2 and a CLE-limit of 3 %, termination off.
/// let c = DecisionConfig::single_marking()
///     .with_behaviour(EdgeBehaviour::SingleMarking { u: U16F16::from_num(2) })
///     .with_cle_limit(per_mille(30))
///     .with_termination_enabled(false);
/// assert!(c.admission_enabled);
/// assert!(DecisionProfile::new(&c).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct DecisionConfig {
    /// CL or SM (SM carries U).
    pub behaviour: EdgeBehaviour,
    /// CLE-limit: admit while CLE < CLE-limit (section 3.3.1).
    pub cle_limit: U1F31,
    /// PCN-based flow admission enabled.
    pub admission_enabled: bool,
    /// PCN-based flow termination enabled.
    pub termination_enabled: bool,
}

impl DecisionConfig {
    /// RFC 6662 section 5.1.1: CLE-limit "on the order of 5%", U = 1.5 (inside
    /// 1.2-2), both mechanisms enabled.
    #[must_use]
    pub const fn single_marking() -> DecisionConfig {
        DecisionConfig {
            behaviour: EdgeBehaviour::SingleMarking {
                u: U16F16::from_bits(3 << 15),
            },
            cle_limit: per_mille(50),
            admission_enabled: true,
            termination_enabled: true,
        }
    }

    /// RFC 6661 with this crate's default CLE-limit of 5% (RFC 6661 gives no
    /// value and notes admission is not very sensitive to it), both enabled.
    #[must_use]
    pub const fn controlled_load() -> DecisionConfig {
        DecisionConfig {
            behaviour: EdgeBehaviour::ControlledLoad,
            cle_limit: per_mille(50),
            admission_enabled: true,
            termination_enabled: true,
        }
    }

    /// The same configuration with the behaviour `behaviour` (CL, or SM with
    /// its U).
    #[must_use]
    pub const fn with_behaviour(mut self, behaviour: EdgeBehaviour) -> DecisionConfig {
        self.behaviour = behaviour;
        self
    }

    /// The same configuration with the CLE-limit `cle_limit`.
    #[must_use]
    pub const fn with_cle_limit(mut self, cle_limit: U1F31) -> DecisionConfig {
        self.cle_limit = cle_limit;
        self
    }

    /// The same configuration with PCN-based flow admission on or off.
    #[must_use]
    pub const fn with_admission_enabled(mut self, admission_enabled: bool) -> DecisionConfig {
        self.admission_enabled = admission_enabled;
        self
    }

    /// The same configuration with PCN-based flow termination on or off.
    #[must_use]
    pub const fn with_termination_enabled(mut self, termination_enabled: bool) -> DecisionConfig {
        self.termination_enabled = termination_enabled;
        self
    }
}

/// The precomputed constants of a [`DecisionPoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecisionProfile {
    /// U as 16.16 bits for SM; `None` for CL.
    u: Option<u32>,
    cle_limit: U1F31,
    admission: bool,
    termination: bool,
}

impl DecisionProfile {
    /// Validates `c`.
    pub fn new(c: &DecisionConfig) -> Result<DecisionProfile, EdgeError> {
        if c.cle_limit > U1F31::ONE {
            return Err(EdgeError::FractionAboveOne);
        }
        let u = match c.behaviour {
            EdgeBehaviour::ControlledLoad => None,
            EdgeBehaviour::SingleMarking { u } => {
                if u <= U16F16::ONE {
                    return Err(EdgeError::UNotAboveOne);
                }
                Some(u.to_bits())
            }
        };
        Ok(DecisionProfile {
            u,
            cle_limit: c.cle_limit,
            admission: c.admission_enabled,
            termination: c.termination_enabled,
        })
    }

    /// The sustainable aggregate rate of a report: NM-rate + ThM-rate (CL,
    /// RFC 6661 section 3.3.2) or U x NM-rate rounded down (SM, RFC 6662).
    #[must_use]
    pub fn sar<F, const M: usize>(&self, r: &Report<F, M>) -> u64 {
        match self.u {
            None => r.nm_rate.saturating_add(r.thm_rate),
            Some(u) => {
                let s = (r.nm_rate as u128 * u as u128) >> 16;
                if s > u64::MAX as u128 {
                    u64::MAX
                } else {
                    s as u64
                }
            }
        }
    }
}

/// What the decision point asks of the ingress for termination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Termination {
    /// Nothing to do.
    None,
    /// Ask the PCN-ingress-node for the PCN-sent-rate; the next report decides.
    RequestSentRate,
    /// Terminate [`amount_to_terminate`]`(PCN-sent-rate, sar)` octets per second
    /// of flows (those in the report's ETM flow list first, CL).
    Terminate {
        /// The sustainable aggregate rate of the latest report.
        sar: u64,
    },
}

/// The decision for one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decision {
    /// The PCN-admission-state (always `Admit` with admission disabled).
    pub admission: Admission,
    /// The termination step.
    pub termination: Termination,
}

/// RFC 6661 / 6662 section 3.3.2, step 2: `PCN-sent-rate - SAR`, or zero when
/// that is not positive.
#[must_use]
pub const fn amount_to_terminate(pcn_sent_rate: u64, sar: u64) -> u64 {
    pcn_sent_rate.saturating_sub(sar)
}

/// The Decision Point's state for one aggregate (RFC 6661 / 6662 section 3.3).
///
/// Admission (3.3.1): "admit" if CLE < CLE-limit, else "block". Termination
/// (3.3.2): a report with a non-zero ETM-rate (CL) or a "block" state (SM)
/// requests the PCN-sent-rate; if the next report has a non-zero ETM-rate, the
/// amount to terminate is PCN-sent-rate - SAR from that report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecisionPoint {
    awaiting: bool,
}

impl DecisionPoint {
    /// A decision point that awaits nothing.
    #[must_use]
    pub const fn new() -> DecisionPoint {
        DecisionPoint { awaiting: false }
    }

    /// True while a PCN-sent-rate was requested and the next report is awaited.
    #[must_use]
    pub const fn awaiting_report(&self) -> bool {
        self.awaiting
    }

    /// Decides on one egress report.
    pub fn on_report<F, const M: usize>(
        &mut self,
        p: &DecisionProfile,
        r: &Report<F, M>,
    ) -> Decision {
        // Mutation check 9 (test builds): the CLE-limit test inverted.
        let below = r.cle.is_below(p.cle_limit) != (cfg!(test) && crate::mutants::on(9));
        let state = if below {
            Admission::Admit
        } else {
            Admission::Block
        };
        let admission = if p.admission { state } else { Admission::Admit };
        let termination = if !p.termination {
            Termination::None
        } else if self.awaiting {
            self.awaiting = false;
            if r.etm_bytes > 0 {
                Termination::Terminate { sar: p.sar(r) }
            } else {
                Termination::None
            }
        } else {
            let trigger = match p.u {
                None => r.etm_bytes > 0,
                Some(_) => state == Admission::Block,
            };
            if trigger {
                self.awaiting = true;
                Termination::RequestSentRate
            } else {
                Termination::None
            }
        };
        Decision {
            admission,
            termination,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let mut t = StopBlockingTimer::new();
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
        let mut t = StopBlockingTimer::new();
        t.on_block(&p, at(0));
        t.on_block(&p, at(500 * MS));
        assert_eq!(t.next_wakeup(), Some(at(S)));
        assert_eq!(t.poll(&p, at(10 * S)), Some(at(2 * S)));
        // A block at exactly the timeout belongs to the next period.
        let mut t = StopBlockingTimer::new();
        t.on_block(&p, at(0));
        assert!(t.on_block(&p, at(S)));
        assert_eq!(t.next_wakeup(), Some(at(2 * S)));
        // A resumption missed before a new block is merged away.
        let mut t = StopBlockingTimer::new();
        t.on_block(&p, at(0));
        assert!(t.on_block(&p, at(5 * S)));
        assert_eq!(t.poll(&p, at(5_500 * MS)), None);
        assert_eq!(t.admission(), Admission::Block);
        // An unpolled resumption shows up as an immediate wakeup.
        let mut t = StopBlockingTimer::new();
        t.on_block(&p, at(0));
        let _ = t.clone().poll(&p, at(0));
        let mut e: Egress3sm<u8, 1> = Egress3sm::new();
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
            timeout_ns: 1_000,
            et_blocks: true,
            tick: TickRate::NANOS,
        })
        .unwrap();
        let mut r = SplitMix64::new(5);
        let mut t = StopBlockingTimer::new();
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
        let mut t = StopBlockingTimer::new();
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

    #[test]
    fn egress3sm_signals_and_capacity() {
        let p = draft_timer();
        let mut e: Egress3sm<u32, 2> = Egress3sm::new();
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
        let mut e: Egress3sm<u8, 1> = Egress3sm::default();
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
                timeout_ns: 0,
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
            timeout_ns,
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
            let mut t = StopBlockingTimer::new();
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

    #[test]
    fn cle_arithmetic() {
        assert_eq!(per_mille(1000), U1F31::ONE);
        assert_eq!(per_mille(2000), U1F31::ONE);
        assert_eq!(per_mille(500).to_bits(), 1 << 30);
        assert!(!Cle::new(50, 1000).is_below(per_mille(50)));
        assert!(Cle::new(49, 1000).is_below(per_mille(50)));
        assert_eq!(per_mille(0), U1F31::ZERO);
        let third = Cle::new(1, 3);
        assert!(third.is_below(per_mille(334)));
        assert!(!third.is_below(per_mille(333)));
        assert!(third.is_above(per_mille(333)));
        assert_eq!(third.to_fixed().to_bits(), (1u32 << 31) / 3);
        assert_eq!(Cle::new(0, 0).to_fixed(), U1F31::ZERO);
        assert_eq!(Cle::new(5, 3), Cle::new(3, 3));
        assert_eq!(Cle::new(3, 3).to_fixed(), U1F31::ONE);
        // A CLE of 0 is not below a CLE-limit of 0 (RFC 6661 s3.3.1: block).
        assert!(!Cle::new(0, 0).is_below(U1F31::ZERO));
        // Against exact rationals: every marked/total up to 60 and every limit.
        // Under Miri, which interprets every instruction: totals up to 8, and
        // every 125th limit plus those at and next to marked/total.
        let (max_total, step) = if cfg!(miri) { (8, 125) } else { (60u64, 1) };
        for total in 0..=max_total {
            for marked in 0..=total {
                let c = Cle::new(marked, total);
                let at = (marked * 1000).checked_div(total).unwrap_or(0);
                let near = cfg!(miri).then(|| at.saturating_sub(1)..=(at + 1).min(1000));
                for k in (0..=1000u64)
                    .step_by(step)
                    .chain(near.into_iter().flatten())
                {
                    let lhs = marked * 1000;
                    let rhs = k * total;
                    // per_mille rounds down: "below" is exact for every k, "above"
                    // wherever k / 1000 is representable or the CLE differs from it.
                    assert_eq!(
                        c.is_below(per_mille(k as u16)),
                        lhs < rhs,
                        "{marked}/{total} vs {k}"
                    );
                    if lhs != rhs || k % 125 == 0 {
                        assert_eq!(
                            c.is_above(per_mille(k as u16)),
                            lhs > rhs,
                            "{marked}/{total} vs {k}"
                        );
                    }
                }
            }
        }
        // No overflow at the extremes.
        let big = Cle::new(u64::MAX, u64::MAX);
        assert!(!big.is_below(U1F31::ONE));
        assert_eq!(big.to_fixed(), U1F31::ONE);
    }

    #[test]
    fn cle_admission_hysteresis() {
        let p = CleAdmissionProfile::new(&CleAdmissionConfig {
            interval_ns: 100 * MS,
            stop: per_mille(100),
            resume: per_mille(20),
            tick: TickRate::NANOS,
        })
        .unwrap();
        let mut a = CleAdmission::new(&p, at(0));
        // Marked share per interval, in percent, and the expected state.
        let plan = [
            (5, Admission::Admit, false),
            (10, Admission::Block, true),
            (5, Admission::Block, false),
            (2, Admission::Block, false),
            (1, Admission::Admit, true),
            (9, Admission::Admit, false),
        ];
        for (i, &(pct, adm, changed)) in plan.iter().enumerate() {
            let t0 = i as u64 * 100 * MS;
            for j in 0..100u64 {
                let mark = if j < pct { PcnMark::Thm } else { PcnMark::Nm };
                a.on_packet(&p, at(t0 + j * MS), 100, mark);
                a.on_packet(&p, at(t0 + j * MS), 100, PcnMark::NotPcn);
            }
            assert_eq!(a.poll(&p, at(t0 + 100 * MS - 1)), None);
            assert_eq!(a.next_wakeup(), at(t0 + 100 * MS));
            let d = a.poll(&p, at(t0 + 100 * MS)).unwrap();
            assert_eq!(
                (d.cle, d.admission, d.changed),
                (Cle::new(pct * 100, 10_000), adm, changed),
                "{i}"
            );
            assert_eq!((d.start, d.end), (at(t0), at(t0 + 100 * MS)));
        }
        let bad = |stop, resume, iv| {
            CleAdmissionProfile::new(&CleAdmissionConfig {
                interval_ns: iv,
                stop,
                resume,
                tick: TickRate::NANOS,
            })
        };
        assert_eq!(
            bad(per_mille(10), per_mille(20), 1),
            Err(EdgeError::ContinueAboveStop)
        );
        assert_eq!(
            bad(U1F31::MAX, per_mille(20), 1),
            Err(EdgeError::FractionAboveOne)
        );
        assert_eq!(
            bad(per_mille(10), per_mille(10), 0),
            Err(EdgeError::ZeroDuration)
        );
    }

    fn cl_meter(t_meas_ns: u64, suppression: Option<Suppression>) -> EgressMeterProfile {
        EgressMeterProfile::new(&EgressMeterConfig {
            t_meas_ns,
            suppression,
            ..EgressMeterConfig::controlled_load()
        })
        .unwrap()
    }

    #[test]
    fn egress_meter_rates_cle_and_flows() {
        let p = cl_meter(100 * MS, None);
        let mut m: EgressMeter<u32, 4> = EgressMeter::new(&p, at(0));
        for (t, len, mark, flow) in [
            (1, 1000, PcnMark::Nm, 1),
            (2, 1000, PcnMark::Nm, 2),
            (3, 1000, PcnMark::Nm, 3),
            (4, 500, PcnMark::Thm, 1),
            (5, 500, PcnMark::Etm, 7),
            (6, 200, PcnMark::Etm, 8),
            (7, 100, PcnMark::Etm, 7),
            (8, 999, PcnMark::NotPcn, 9),
        ] {
            m.on_packet(&p, at(t * MS), len, mark, flow);
        }
        assert_eq!(m.poll(&p, at(100 * MS - 1)), None);
        assert_eq!(m.next_wakeup(), at(100 * MS));
        let r = m.poll(&p, at(100 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.thm_bytes, r.etm_bytes), (3000, 500, 800));
        assert_eq!((r.nm_rate, r.thm_rate, r.etm_rate), (30_000, 5_000, 8_000));
        assert_eq!(r.cle, Cle::new(1300, 4300));
        assert_eq!(r.etm_flows.as_slice(), &[7, 8]);
        assert_eq!((r.start, r.end), (at(0), at(100 * MS)));
        assert_eq!(m.poll(&p, at(100 * MS)), None);
        assert_eq!(m.next_wakeup(), at(200 * MS));
        // SM: ThM counts as ETM (RFC 6660 s5.3), CLE = ETM / (NM + ETM), no flow list.
        let ps = EgressMeterProfile::new(&EgressMeterConfig::single_marking()).unwrap();
        let mut s: EgressMeter<u32, 4> = EgressMeter::new(&ps, at(0));
        s.on_packet(&ps, at(0), 3000, PcnMark::Nm, 1);
        s.on_packet(&ps, at(0), 500, PcnMark::Thm, 1);
        s.on_packet(&ps, at(0), 800, PcnMark::Etm, 2);
        let r = s.poll(&ps, at(200 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.thm_bytes, r.etm_bytes), (3000, 0, 1300));
        assert_eq!((r.nm_rate, r.etm_rate), (15_000, 6_500));
        assert_eq!(r.cle, Cle::new(1300, 4300));
        assert!(r.etm_flows.is_empty());
        // The flow list keeps the most recent distinct flows.
        let mut m: EgressMeter<u32, 2> = EgressMeter::new(&p, at(0));
        for f in [1, 2, 1, 3] {
            m.on_packet(&p, at(0), 100, PcnMark::Etm, f);
        }
        assert_eq!(m.poll(&p, at(S)).unwrap().etm_flows.as_slice(), &[2, 3]);
    }

    #[test]
    fn egress_meter_called_late() {
        let p = cl_meter(100 * MS, None);
        let mut m: EgressMeter<u8, 1> = EgressMeter::new(&p, at(0));
        m.on_packet(&p, at(50 * MS), 100, PcnMark::Nm, 0);
        // A packet in the next interval closes the first; its report waits.
        m.on_packet(&p, at(150 * MS), 200, PcnMark::Nm, 0);
        assert_eq!(m.next_wakeup(), at(100 * MS));
        let r = m.poll(&p, at(160 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.end), (100, at(100 * MS)));
        assert_eq!(m.poll(&p, at(160 * MS)), None);
        let r = m.poll(&p, at(200 * MS)).unwrap();
        assert_eq!((r.nm_bytes, r.start), (200, at(100 * MS)));
        // Polled 0.8 s late: one report, and the grid carries on at 1.0 s.
        let r = m.poll(&p, at(S)).unwrap();
        assert_eq!(
            (r.nm_bytes, r.start, r.end),
            (0, at(200 * MS), at(300 * MS))
        );
        assert_eq!(m.next_wakeup(), at(1_100 * MS));
    }

    #[test]
    fn egress_meter_report_suppression() {
        // RFC 6661 s3.2.3: report when CLE > threshold now or in the previous
        // interval, or T_maxsuppress has passed since the last report.
        let p = cl_meter(
            100 * MS,
            Some(Suppression {
                cle_reporting_threshold: U1F31::ZERO,
                t_maxsuppress_ns: 450 * MS,
            }),
        );
        let mut m: EgressMeter<u8, 1> = EgressMeter::new(&p, at(0));
        let mut sent = [false; 12];
        for (i, s) in sent.iter_mut().enumerate() {
            let t0 = i as u64 * 100 * MS;
            let mark = if i == 2 { PcnMark::Etm } else { PcnMark::Nm };
            m.on_packet(&p, at(t0), 100, mark, 0);
            *s = m.poll(&p, at(t0 + 100 * MS)).is_some();
        }
        // 0-1: silent (first report due 450 ms after start: interval ending at 500 ms);
        // 2: CLE > 0; 3: the previous was above; then every 500 ms (5 intervals).
        let expect = [
            false, false, true, true, false, false, false, false, true, false, false, false,
        ];
        assert_eq!(sent, expect);
    }

    #[test]
    fn egress_meter_counts_every_byte_once() {
        // Random stream, polled at each wakeup: the reports add up to the input,
        // intervals tile the time line, and late or not, nothing is counted twice.
        for careful in [true, false] {
            let p = cl_meter(7 * MS, None);
            let mut m: EgressMeter<u8, 4> = EgressMeter::new(&p, at(0));
            let mut r = SplitMix64::new(11);
            let (mut now, mut fed, mut reported) = (0u64, [0u64; 3], [0u64; 3]);
            let mut last_end = at(0);
            let mut take = |rep: Report<u8, 4>, reported: &mut [u64; 3]| {
                assert!(rep.start.ticks() >= last_end.ticks());
                assert_eq!(rep.end.ticks() - rep.start.ticks(), 7 * MS);
                last_end = rep.end;
                reported[0] += rep.nm_bytes;
                reported[1] += rep.thm_bytes;
                reported[2] += rep.etm_bytes;
                assert_eq!(
                    rep.cle,
                    Cle::new(
                        rep.thm_bytes + rep.etm_bytes,
                        rep.nm_bytes + rep.thm_bytes + rep.etm_bytes
                    )
                );
            };
            // Miri interprets every instruction: a shorter stream there.
            let n = if cfg!(miri) { 300 } else { 50_000 };
            for _ in 0..n {
                now += u64::from(r.below(200_000));
                if careful {
                    while m.next_wakeup().ticks() <= now {
                        let w = m.next_wakeup();
                        if let Some(rep) = m.poll(&p, w) {
                            take(rep, &mut reported);
                        }
                    }
                } else if r.below(50) == 0 {
                    while let Some(rep) = m.poll(&p, at(now)) {
                        take(rep, &mut reported);
                    }
                }
                let mark =
                    [PcnMark::Nm, PcnMark::Thm, PcnMark::Etm, PcnMark::NotPcn][r.below(4) as usize];
                let len = r.below(1500);
                if let Some(i) = [PcnMark::Nm, PcnMark::Thm, PcnMark::Etm]
                    .iter()
                    .position(|x| *x == mark)
                {
                    fed[i] += u64::from(len);
                }
                m.on_packet(&p, at(now), len, mark, r.below(10) as u8);
            }
            while let Some(rep) = m.poll(&p, at(now + S)) {
                take(rep, &mut reported);
            }
            if careful {
                assert_eq!(reported, fed);
            } else {
                // Unpolled intervals may be dropped (only the latest waits), never doubled.
                assert!(reported.iter().zip(fed.iter()).all(|(r, f)| r <= f));
            }
        }
    }

    fn report(nm_rate: u64, thm_rate: u64, etm_rate: u64, cle: Cle) -> Report<u8, 1> {
        Report {
            start: at(0),
            end: at(S),
            nm_bytes: nm_rate,
            thm_bytes: thm_rate,
            etm_bytes: etm_rate,
            nm_rate,
            thm_rate,
            etm_rate,
            cle,
            etm_flows: heapless::Vec::new(),
        }
    }

    #[test]
    fn decision_point_cl() {
        let p = DecisionProfile::new(&DecisionConfig::controlled_load()).unwrap();
        let mut d = DecisionPoint::new();
        let quiet = report(1000, 0, 0, Cle::new(0, 1000));
        assert_eq!(
            d.on_report(&p, &quiet),
            Decision {
                admission: Admission::Admit,
                termination: Termination::None
            }
        );
        // ThM only, CLE 10 % >= 5 %: block, no termination.
        let thm = report(900, 100, 0, Cle::new(100, 1000));
        assert_eq!(d.on_report(&p, &thm).admission, Admission::Block);
        assert_eq!(d.on_report(&p, &thm).termination, Termination::None);
        // ETM: ask for the sent rate, then terminate sent - (NM + ThM).
        let etm = report(600, 300, 100, Cle::new(400, 1000));
        assert_eq!(
            d.on_report(&p, &etm).termination,
            Termination::RequestSentRate
        );
        assert!(d.awaiting_report());
        let dec = d.on_report(&p, &etm);
        assert_eq!(dec.termination, Termination::Terminate { sar: 900 });
        assert_eq!(amount_to_terminate(1200, 900), 300);
        assert_eq!(amount_to_terminate(800, 900), 0);
        // If the next report has no ETM, nothing is terminated.
        assert_eq!(
            d.on_report(&p, &etm).termination,
            Termination::RequestSentRate
        );
        assert_eq!(d.on_report(&p, &thm).termination, Termination::None);
        assert!(!d.awaiting_report());
        // Either mechanism can be switched off.
        let off = DecisionProfile::new(&DecisionConfig {
            admission_enabled: false,
            termination_enabled: false,
            ..DecisionConfig::controlled_load()
        })
        .unwrap();
        assert_eq!(
            DecisionPoint::new().on_report(&off, &etm),
            Decision {
                admission: Admission::Admit,
                termination: Termination::None
            }
        );
    }

    #[test]
    fn decision_point_sm() {
        let p = DecisionProfile::new(&DecisionConfig::single_marking()).unwrap();
        let mut d = DecisionPoint::new();
        // CLE 4 % < 5 %: admit, no termination even with ETM.
        let low = report(960, 0, 40, Cle::new(40, 1000));
        assert_eq!(
            d.on_report(&p, &low),
            Decision {
                admission: Admission::Admit,
                termination: Termination::None
            }
        );
        // CLE 30 %: block, request; next with ETM: terminate sent - 1.5 NM.
        let high = report(701, 0, 300, Cle::new(300, 1001));
        assert_eq!(
            d.on_report(&p, &high).termination,
            Termination::RequestSentRate
        );
        assert_eq!(
            d.on_report(&p, &high),
            Decision {
                admission: Admission::Block,
                termination: Termination::Terminate { sar: 1051 }
            }
        );
        let bad = |u| {
            DecisionProfile::new(&DecisionConfig {
                behaviour: EdgeBehaviour::SingleMarking { u },
                ..DecisionConfig::single_marking()
            })
        };
        assert_eq!(bad(U16F16::ONE), Err(EdgeError::UNotAboveOne));
        assert!(DecisionProfile::new(&DecisionConfig {
            cle_limit: U1F31::MAX,
            ..DecisionConfig::controlled_load()
        })
        .is_err());
        assert!(EgressMeterProfile::new(&EgressMeterConfig {
            t_meas_ns: 0,
            ..EgressMeterConfig::controlled_load()
        })
        .is_err());
    }
}

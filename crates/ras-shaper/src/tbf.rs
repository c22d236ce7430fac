//! A token bucket filter shaper with the semantics of Linux's `tbf` queueing
//! discipline (tc-tbf(8)): packets wait in a byte-limited FIFO until a bucket
//! of `burst` bytes filled at `rate` holds enough tokens for the head, and,
//! with a `peakrate`, until a second bucket of `mtu` bytes filled at
//! `peakrate` does too.
//!
//! [`Tbf`] keeps no packets: as with [`RasCore`](crate::RasCore), the caller
//! keeps them in a FIFO of its own and tells the state what happens to it.
//!
//! 1. On arrival, [`Tbf::enqueue`]`(p, now, len)`: [`TbfVerdict::Accept`] and
//!    the caller appends the packet; [`TbfVerdict::DropTooBig`] for a packet
//!    longer than the largest one the buckets can ever pass (Linux drops it
//!    at enqueue, `max_size` in the kernel); [`TbfVerdict::DropOverLimit`]
//!    when the backlog would exceed `limit` bytes (Linux's inner `bfifo`).
//! 2. [`Tbf::dequeue`]`(p, now, head_len)`: [`TbfDeparture::Now`] and the
//!    head leaves (the caller removes it), or [`TbfDeparture::At`] with the
//!    first instant at which it may (the kernel's watchdog time): call again
//!    then. [`Tbf::next_departure`] answers the same question without
//!    changing anything.
//!
//! Lengths are the packets' lengths as the caller sees them (the kernel's
//! `qdisc_pkt_len`). The `limit` and the largest packet are counted in those
//! bytes, and the buckets are charged the length after the profile's
//! [`LengthAdjust`] (tc's `overhead`, `mpu` and `linklayer`, which tc sets
//! on tbf's rate tables): both buckets are sized in charged bytes too (the
//! kernel sizes them as the time to send `burst` and `mtu` bytes at their
//! rates, through the same rate tables).
//!
//! Linux splits a GSO super-packet longer than `max_size` into its segments
//! before this test; a caller with such packets passes each segment.
//!
//! # Arithmetic, and how it differs from Linux
//!
//! The buckets are [`BucketProfile`]s: tokens are counted in units of
//! `1/scale` byte such that one tick adds a whole number of units, so there
//! is no rounding; the watchdog instant is the exact ceiling, in ticks, of
//! the instant at which both buckets hold the head's charge. Over any
//! interval `[s, t]` the charged bytes sent are at most
//! `burst + rate x (t - s)`, and with a peak rate at most
//! `mtu + peakrate x (t - s)` (`check_sent`, with the `invariants` feature).
//!
//! Linux counts tokens in nanoseconds of transmission time and converts a
//! length to time with `psched_l2t_ns`, `len x mult >> shift` with `mult =
//! floor(2^shift x 10^9 / rate)` and `rate` in whole bytes per second. That
//! rounds every packet's cost down, by less than one nanosecond plus a
//! relative 2^-31, so a backlogged Linux tbf runs ahead of this one by at
//! most that much per packet (about 0.8 us per second at 10 Mbit/s with
//! 1500-byte packets), and a rate that is not a whole number of bytes per
//! second is rounded down to one. This state keeps the exact arithmetic;
//! the cross-checks against ns-3 and Linux measure the difference rather
//! than reproduce it. One more difference: Linux caps the elapsed time at
//! the rate bucket's depth before adding it to the peak bucket, so when
//! `mtu / peakrate > burst / rate` its peak bucket refills to less than
//! `mtu` after an idle period; here each bucket refills on its own.
//!
//! # Configuration
//!
//! [`TbfProfile::new`] refuses, one [`TbfError`] variant each: a zero rate,
//! a zero burst, a burst or mtu above `u32::MAX` bytes (the kernel's
//! 32-bit attributes), both or neither of `limit` and `latency`, a peak
//! rate not above the rate, a zero mtu, and a bucket too large for the
//! token counter. `latency` becomes a limit as tc computes it:
//! `rate x latency + burst`, and with a peak rate the smaller of that and
//! `peakrate x latency + mtu`, in whole bytes (rates in whole bytes per
//! second, as tc keeps them).
//!
//! ```
//! use core::time::Duration;
//! use netcond_core::{Instant, Rate};
//! use ras_shaper::{Tbf, TbfConfig, TbfDeparture, TbfProfile, TbfVerdict};
//!
//! // tc qdisc add dev eth0 root tbf rate 8mbit burst 3000 latency 10ms
//! let cfg = TbfConfig::with_latency(Rate::from_mbps(8), 3000, Duration::from_millis(10));
//! let p = TbfProfile::new(&cfg).unwrap();
//! assert_eq!(p.limit(), 10_000 + 3000); // 1 MB/s x 10 ms + burst
//! let t0 = Instant::ZERO;
//! let mut tbf = Tbf::new(&p, t0);
//! for _ in 0..3 {
//!     assert_eq!(tbf.enqueue(&p, t0, 1500), TbfVerdict::Accept);
//! }
//! // The burst lets two packets go at once; the third waits 1.5 ms.
//! assert_eq!(tbf.dequeue(&p, t0, 1500), TbfDeparture::Now);
//! assert_eq!(tbf.dequeue(&p, t0, 1500), TbfDeparture::Now);
//! let at = Instant::from_ticks(1_500_000);
//! assert_eq!(tbf.dequeue(&p, t0, 1500), TbfDeparture::At(at));
//! assert_eq!(tbf.dequeue(&p, at, 1500), TbfDeparture::Now);
//! assert_eq!(tbf.backlog(), 0);
//! ```

use core::time::Duration;

use netcond_core::{BucketError, BucketProfile, Instant, LengthAdjust, Rate, TickRate};

netcond_core::config_error! {
    /// Why a token bucket filter configuration was refused. One variant per rule.
    pub enum TbfError {
        /// The rate is zero.
        ZeroRate => "rate must be greater than zero (tc-tbf(8): the rate at which the bucket fills)",
        /// The burst is zero.
        ZeroBurst => "burst must be greater than zero bytes (tc-tbf(8): the size of the bucket)",
        /// The burst does not fit the kernel's 32-bit attribute.
        BurstTooLarge => "burst must be at most 4294967295 bytes (tc-tbf(8); a 32-bit attribute in Linux)",
        /// Both a limit and a latency were given.
        LimitAndLatency => "give only one of limit and latency (tc-tbf(8): they are mutually exclusive)",
        /// Neither a limit nor a latency was given.
        NoLimit => "give one of limit (bytes) or latency (tc-tbf(8): one is required)",
        /// The peak rate does not exceed the rate.
        PeakNotAboveRate => "peakrate must be greater than rate (tc-tbf(8); Linux refuses it otherwise)",
        /// The peak bucket holds no byte.
        ZeroMtu => "mtu must be greater than zero bytes when peakrate is given (tc-tbf(8): the size of the peakrate bucket)",
        /// The mtu does not fit the kernel's 32-bit attribute.
        MtuTooLarge => "mtu must be at most 4294967295 bytes (tc-tbf(8); a 32-bit attribute in Linux)",
        /// A bucket does not fit the token counter.
        BucketTooLarge => "a bucket's size times the clock's resolution must be below 2^62 token units \
                           (size_bytes * 8 * tick_hz / gcd(rate_bits, 8 * tick_hz)); use a coarser clock or a smaller bucket",
    }
}

impl From<BucketError> for TbfError {
    fn from(_: BucketError) -> TbfError {
        TbfError::BucketTooLarge
    }
}

/// The peak-rate bucket of a token bucket filter: tc's `peakrate` and `mtu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TbfPeak {
    /// The peak rate: the fastest the shaper sends within a burst.
    pub rate: Rate,
    /// The size of the peak bucket, bytes (tc's `mtu`, also `minburst`).
    pub mtu: u64,
}

/// The configuration of a token bucket filter, in tc-tbf(8)'s terms.
///
/// Exactly one of `limit` and `latency` is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TbfConfig {
    /// The rate at which the bucket fills.
    pub rate: Rate,
    /// The bucket's size, bytes (tc's `burst`, also `buffer` or `maxburst`).
    pub burst: u64,
    /// The most bytes that may wait in the queue.
    pub limit: Option<u64>,
    /// The longest a packet may wait, converted to a limit as tc does.
    pub latency: Option<Duration>,
    /// The optional peak-rate bucket.
    pub peak: Option<TbfPeak>,
    /// The length each packet is charged (tc's `overhead`, `mpu`, `linklayer`).
    pub adjust: LengthAdjust,
    /// The clock of the instants given to the state.
    pub tick: TickRate,
}

impl TbfConfig {
    /// `rate`, `burst` bytes, and a queue of at most `limit` bytes;
    /// nanosecond ticks, no peak rate, lengths charged as they are.
    #[must_use]
    pub const fn with_limit(rate: Rate, burst: u64, limit: u64) -> TbfConfig {
        TbfConfig {
            rate,
            burst,
            limit: Some(limit),
            latency: None,
            peak: None,
            adjust: LengthAdjust::NONE,
            tick: TickRate::NANOS,
        }
    }

    /// `rate`, `burst` bytes, and a queue limit computed from `latency` as
    /// tc does; nanosecond ticks, no peak rate.
    #[must_use]
    pub const fn with_latency(rate: Rate, burst: u64, latency: Duration) -> TbfConfig {
        TbfConfig {
            rate,
            burst,
            limit: None,
            latency: Some(latency),
            peak: None,
            adjust: LengthAdjust::NONE,
            tick: TickRate::NANOS,
        }
    }

    /// This configuration with a peak-rate bucket of `mtu` bytes.
    #[must_use]
    pub const fn with_peak(self, rate: Rate, mtu: u64) -> TbfConfig {
        TbfConfig {
            peak: Some(TbfPeak { rate, mtu }),
            ..self
        }
    }

    /// This configuration with a length adjustment.
    #[must_use]
    pub const fn with_adjust(self, adjust: LengthAdjust) -> TbfConfig {
        TbfConfig { adjust, ..self }
    }

    /// This configuration on another clock.
    #[must_use]
    pub const fn with_tick(self, tick: TickRate) -> TbfConfig {
        TbfConfig { tick, ..self }
    }
}

/// The limit tc computes from a latency: `rate x latency + size`, in whole
/// bytes, with the rate in whole bytes per second.
fn latency_limit(rate: Rate, latency: Duration, size: u64) -> u64 {
    let bytes = u128::from(rate.bytes_per_sec()) * latency.as_nanos() / 1_000_000_000;
    let total = bytes.saturating_add(u128::from(size));
    if total > u128::from(u64::MAX) {
        u64::MAX
    } else {
        total as u64
    }
}

/// A validated token bucket filter: the buckets' constants, the limit and
/// the largest packet. Shared by any number of [`Tbf`] states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TbfProfile {
    rate: BucketProfile,
    peak: Option<BucketProfile>,
    limit: u64,
    max_size: u32,
    adjust: LengthAdjust,
    config: TbfConfig,
}

impl TbfProfile {
    /// Validates a configuration.
    pub fn new(cfg: &TbfConfig) -> Result<TbfProfile, TbfError> {
        if cfg.rate.is_zero() {
            return Err(TbfError::ZeroRate);
        }
        if cfg.burst == 0 {
            return Err(TbfError::ZeroBurst);
        }
        let Ok(burst) = u32::try_from(cfg.burst) else {
            return Err(TbfError::BurstTooLarge);
        };
        let mut limit = match (cfg.limit, cfg.latency) {
            (Some(_), Some(_)) => return Err(TbfError::LimitAndLatency),
            (None, None) => return Err(TbfError::NoLimit),
            (Some(l), None) => l,
            (None, Some(lat)) => latency_limit(cfg.rate, lat, cfg.burst),
        };
        // The buckets hold the charged length of burst and mtu bytes, as the
        // kernel's buffer and mtu are the times to send them at their rates.
        let rate = BucketProfile::new(cfg.rate, u64::from(cfg.adjust.apply(burst)), cfg.tick)?;
        let mut max_size = burst;
        let peak = match cfg.peak {
            None => None,
            Some(pk) => {
                if pk.rate <= cfg.rate {
                    return Err(TbfError::PeakNotAboveRate);
                }
                if pk.mtu == 0 {
                    return Err(TbfError::ZeroMtu);
                }
                let Ok(mtu) = u32::try_from(pk.mtu) else {
                    return Err(TbfError::MtuTooLarge);
                };
                max_size = max_size.min(mtu);
                if let (None, Some(lat)) = (cfg.limit, cfg.latency) {
                    limit = limit.min(latency_limit(pk.rate, lat, pk.mtu));
                }
                Some(BucketProfile::new(
                    pk.rate,
                    u64::from(cfg.adjust.apply(mtu)),
                    cfg.tick,
                )?)
            }
        };
        Ok(TbfProfile {
            rate,
            peak,
            limit,
            max_size,
            adjust: cfg.adjust,
            config: *cfg,
        })
    }

    /// The most bytes the queue holds (given, or computed from the latency).
    #[must_use]
    pub const fn limit(&self) -> u64 {
        self.limit
    }

    /// The longest packet that can ever be sent, bytes: the burst, or the
    /// mtu when that is smaller (the kernel's `max_size`). Longer packets
    /// are dropped at enqueue.
    #[must_use]
    pub const fn max_size(&self) -> u32 {
        self.max_size
    }

    /// The rate bucket's constants (sized in charged bytes).
    #[must_use]
    pub const fn rate_bucket(&self) -> &BucketProfile {
        &self.rate
    }

    /// The peak bucket's constants, if there is a peak rate.
    #[must_use]
    pub const fn peak_bucket(&self) -> Option<&BucketProfile> {
        self.peak.as_ref()
    }

    /// The bytes a packet of `len` bytes is charged.
    #[inline(always)]
    #[must_use]
    pub const fn charge(&self, len: u32) -> u32 {
        self.adjust.apply(len)
    }

    /// The configuration this profile was built from.
    #[must_use]
    pub const fn config(&self) -> &TbfConfig {
        &self.config
    }
}

/// What [`Tbf::enqueue`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TbfVerdict {
    /// Queued: the caller appends the packet to its FIFO.
    Accept,
    /// Dropped: the backlog would exceed the limit.
    DropOverLimit,
    /// Dropped: longer than [`TbfProfile::max_size`], so it could never be sent.
    DropTooBig,
}

/// What [`Tbf::dequeue`] decided about the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TbfDeparture {
    /// The head leaves now: the caller removes it from its FIFO.
    Now,
    /// Not yet: the head may leave at this instant (the watchdog time).
    At(Instant),
    /// Never: the head is longer than a bucket (only for a length that
    /// [`Tbf::enqueue`] did not accept).
    Never,
}

/// The state of one token bucket filter: the two token counts, the instant
/// they were last brought up to date, and the backlog in bytes. The caller
/// keeps the packets (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Tbf {
    tokens: u64,
    ptokens: u64,
    last: Instant,
    backlog: u64,
    packets: u32,
}

impl Tbf {
    /// Full buckets and an empty queue at `now` (Linux fills both buckets
    /// when the qdisc is configured).
    #[must_use]
    pub const fn new(p: &TbfProfile, now: Instant) -> Tbf {
        Tbf {
            tokens: p.rate.full(),
            ptokens: match &p.peak {
                Some(b) => b.full(),
                None => 0,
            },
            last: now,
            backlog: 0,
            packets: 0,
        }
    }

    /// A packet of `len` bytes arrives at `now`.
    #[inline]
    pub fn enqueue(&mut self, p: &TbfProfile, now: Instant, len: u32) -> TbfVerdict {
        let _ = now; // arrivals do not move the buckets (Linux: tbf_enqueue)
        if len > p.max_size {
            return TbfVerdict::DropTooBig;
        }
        let b = self.backlog.saturating_add(u64::from(len));
        if b > p.limit {
            return TbfVerdict::DropOverLimit;
        }
        self.backlog = b;
        self.packets = self.packets.saturating_add(1);
        TbfVerdict::Accept
    }

    /// The token counts at `now` (refilled, not stored).
    #[inline(always)]
    fn at(&self, p: &TbfProfile, now: Instant) -> (u64, u64, Instant) {
        let mut last = self.last;
        let dt = last.advance_to(now);
        let tokens = p.rate.refill(self.tokens, dt);
        let ptokens = match &p.peak {
            Some(b) => b.refill(self.ptokens, dt),
            None => 0,
        };
        (tokens, ptokens, last)
    }

    /// Ticks until both buckets hold the charge of `head_len` bytes, from
    /// the token counts `(tokens, ptokens)`; `None` for never.
    #[inline(always)]
    fn wait(p: &TbfProfile, tokens: u64, ptokens: u64, head_len: u32) -> Option<u64> {
        let charged = p.charge(head_len);
        let w = p.rate.ticks_until(tokens, p.rate.cost(charged))?;
        match &p.peak {
            None => Some(w),
            Some(b) => Some(w.max(b.ticks_until(ptokens, b.cost(charged))?)),
        }
    }

    /// The earliest instant, not before `now`, at which a head of
    /// `head_len` bytes may leave (`now` when it may leave at once), or
    /// `None` if it never can. Changes nothing.
    #[must_use]
    pub fn next_departure(&self, p: &TbfProfile, now: Instant, head_len: u32) -> Option<Instant> {
        let (tokens, ptokens, last) = self.at(p, now);
        let w = Self::wait(p, tokens, ptokens, head_len)?;
        // `last` is `now`, or the later instant already seen.
        Some(last.wrapping_add(w))
    }

    /// The head of the caller's FIFO, of `head_len` bytes, leaves at `now`
    /// if both buckets hold its charge: [`TbfDeparture::Now`], tokens taken
    /// and the backlog reduced. Otherwise nothing changes and the answer is
    /// the instant at which it may leave.
    #[inline]
    pub fn dequeue(&mut self, p: &TbfProfile, now: Instant, head_len: u32) -> TbfDeparture {
        let (tokens, ptokens, last) = self.at(p, now);
        match Self::wait(p, tokens, ptokens, head_len) {
            None => TbfDeparture::Never,
            Some(0) => {
                let charged = p.charge(head_len);
                self.tokens = tokens - p.rate.cost(charged);
                if let Some(b) = &p.peak {
                    self.ptokens = ptokens - b.cost(charged);
                }
                self.last = last;
                self.backlog = self.backlog.saturating_sub(u64::from(head_len));
                self.packets = self.packets.saturating_sub(1);
                TbfDeparture::Now
            }
            Some(w) => TbfDeparture::At(last.wrapping_add(w)),
        }
    }

    /// Bytes queued (accepted and not yet dequeued).
    #[must_use]
    pub const fn backlog(&self) -> u64 {
        self.backlog
    }

    /// Packets queued.
    #[must_use]
    pub const fn packets(&self) -> u32 {
        self.packets
    }

    /// The rate bucket's tokens at the last update, in the profile's units
    /// (`1/scale` byte).
    #[must_use]
    pub const fn tokens(&self) -> u64 {
        self.tokens
    }

    /// The peak bucket's tokens at the last update (0 without a peak rate).
    #[must_use]
    pub const fn peak_tokens(&self) -> u64 {
        self.ptokens
    }
}

/// Checks a departure record against the token bucket bounds: for every
/// pair of departures `i <= j`, the charged bytes sent at `t_i..=t_j` are at
/// most `burst + rate x (t_j - t_i)`, and with a peak rate at most
/// `mtu + peakrate x (t_j - t_i)` (all in charged bytes, exactly, in
/// `u128`). `sent` holds `(tick, charged_len)` in departure order, ticks not
/// decreasing. Quadratic: for tests and fuzzers. Returns the first pair that
/// breaks a bound.
#[cfg(any(test, feature = "invariants"))]
#[cfg_attr(docsrs, doc(cfg(feature = "invariants")))]
pub fn check_sent(p: &TbfProfile, sent: &[(u64, u32)]) -> Result<(), (usize, usize)> {
    let hz8 = 8 * u128::from(p.config.tick.hz());
    let burst = u128::from(p.charge(p.config.burst.min(u64::from(u32::MAX)) as u32));
    let rate = u128::from(p.config.rate.bits_per_sec());
    for i in 0..sent.len() {
        let mut bytes = 0u128;
        for (j, &(t, len)) in sent.iter().enumerate().skip(i) {
            bytes += u128::from(len);
            let dt = u128::from(t.wrapping_sub(sent[i].0));
            if bytes * hz8 > burst * hz8 + rate * dt {
                return Err((i, j));
            }
            if let Some(pk) = p.config.peak {
                let mtu = u128::from(p.charge(pk.mtu.min(u64::from(u32::MAX)) as u32));
                if bytes * hz8 > mtu * hz8 + u128::from(pk.rate.bits_per_sec()) * dt {
                    return Err((i, j));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "tests/tbf.rs"]
mod tests;

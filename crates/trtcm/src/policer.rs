//! The single-rate EF ("premium") policer in front of a premium buffer (the premium TCP test).
//!
//! A token bucket of `TBs` bytes filled at the committed rate decides whether a
//! packet conforms; conforming packets go on to a premium buffer of `PBs` bytes,
//! nonconforming ones are policer drops. A conforming packet that does not fit the
//! buffer is a buffer drop.
//!
//! # Buffer accounting: the caller reports departures
//!
//! The policer keeps the number of bytes in the premium buffer, but it does not
//! model the scheduler that empties it: in the premium TCP test the premium queue gets a
//! weighted share of a PPP link, and only the scheduler knows when a packet has
//! left. So the caller reports each departure with
//! [`PremiumPolicer::dequeued`]. This keeps the policer exact for any scheduler
//! (strict priority, weighted, work-conserving or not) instead of baking in a
//! fluid drain rate that real queues only approximate.
//!
//! Report a packet as dequeued when its last bit has left (end of transmission):
//! that is when its buffer space is free. Reported at the start of transmission
//! instead, the occupancy reads up to one packet lower.
//!
//! # The premium TCP test's rule, and the exact bound
//!
//! The premium TCP test states that with `PBs > TBs + one packet` a single premium stream sees
//! no buffer drop. With the buffer served at a rate `R` at least the committed
//! rate `r`, and departures reported at end of transmission, the occupancy just
//! before a conforming arrival plus that packet is at most
//! `TBs + r t - R t + (bytes already sent of the packet in service) < TBs + Lmax`
//! over the current busy period of length `t`. In whole bytes: `PBs >= TBs + Lmax - 1`
//! is enough, and for every smaller `PBs` a stream exists that overflows it (the
//! tests build one). The test's `PBs > TBs + Lmax` holds with two bytes to spare;
//! [`PremiumPolicerProfile::pbs_exceeds_tbs_plus_packet`] checks it.
//!
//! A conforming packet that is buffer-dropped has still spent its tokens: the
//! policer sits upstream of the buffer, as in the premium TCP test's router
//! (DiffServ on the PPP interface's outgoing traffic).

use netcond_core::{BucketError, BucketProfile, Instant, Rate, TickRate};

use crate::Mode;

/// The parameters of the premium policer, named as in the premium TCP test.
///
/// `Default` is the premium TCP test's case A at 8% of a 2048 kbit/s PPP link: committed rate
/// 163,840 bit/s, TBs 11,000 bytes, PBs 13,000 bytes, largest packet 1500 bytes,
/// nanosecond ticks.
///
/// # Example
///
/// ```
/// use netcond_core::Rate;
/// use trtcm::{PremiumPolicerConfig, PremiumPolicerProfile};
///
/// // The premium TCP test's case A: 8 % of a 2048 kbit/s link, TBs 11,000 B, PBs 13,000 B.
/// let cfg = PremiumPolicerConfig::new(Rate::from_bits_per_sec(163_840), 11_000, 13_000, 1500);
/// assert_eq!(cfg, PremiumPolicerConfig::default());
/// let p = PremiumPolicerProfile::new(&cfg).unwrap();
/// assert!(p.pbs_exceeds_tbs_plus_packet());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct PremiumPolicerConfig {
    /// The committed rate: the fill rate of the token bucket.
    pub rate: Rate,
    /// Token Bucket size (TBs) in bytes.
    pub tbs: u64,
    /// Premium Buffer size (PBs) in bytes.
    pub pbs: u64,
    /// The largest packet of the stream in bytes (the "one packet" of the premium TCP test's
    /// rule); both TBs and PBs must hold one.
    pub max_packet: u32,
    /// The clock of the timestamps passed to the policer.
    pub tick: TickRate,
    /// Byte mode (the default) or packet mode ([`Mode`]): in packet mode the
    /// rate is packets per second, TBs and PBs are packets, and so is the
    /// largest packet (1).
    #[cfg_attr(feature = "serde", serde(default))]
    pub mode: Mode,
}

impl PremiumPolicerConfig {
    /// A policer with committed `rate`, token bucket `tbs` bytes, premium buffer
    /// `pbs` bytes and largest packet `max_packet` bytes, on nanosecond ticks
    /// ([`with_tick`](Self::with_tick) for another clock).
    #[must_use]
    pub const fn new(rate: Rate, tbs: u64, pbs: u64, max_packet: u32) -> PremiumPolicerConfig {
        PremiumPolicerConfig {
            rate,
            tbs,
            pbs,
            max_packet,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }

    /// A policer in packet mode ([`Mode::Packets`]): committed rate `rate_pps`
    /// packets per second, token bucket `tbs` packets, premium buffer `pbs`
    /// packets, nanosecond ticks.
    #[must_use]
    pub const fn packets(rate_pps: u64, tbs: u64, pbs: u64) -> PremiumPolicerConfig {
        PremiumPolicerConfig {
            rate: Rate::from_bytes_per_sec(rate_pps),
            tbs,
            pbs,
            max_packet: 1,
            tick: TickRate::NANOS,
            mode: Mode::Packets,
        }
    }
}

config_builders!(PremiumPolicerConfig {
    mode: Mode => with_mode,
    rate: Rate => with_rate,
    tbs: u64 => with_tbs,
    pbs: u64 => with_pbs,
    max_packet: u32 => with_max_packet,
    tick: TickRate => with_tick,
});

impl Default for PremiumPolicerConfig {
    fn default() -> Self {
        PremiumPolicerConfig {
            rate: Rate::from_bits_per_sec(163_840),
            tbs: 11_000,
            pbs: 13_000,
            max_packet: 1500,
            tick: TickRate::NANOS,
            mode: Mode::Bytes,
        }
    }
}

netcond_core::config_error! {
    /// Why a [`PremiumPolicerConfig`] was refused.
    pub enum PremiumPolicerError {
        /// The committed rate is zero.
        ZeroRate => "the committed rate must be greater than zero (the premium TCP test: the premium \
                     stream's committed rate)",
        /// TBs is zero.
        ZeroTbs => "the token bucket size TBs must be greater than zero (the premium TCP test)",
        /// The largest packet size is zero.
        ZeroMaxPacket => "the largest packet size must be greater than zero",
        /// TBs cannot hold the largest packet.
        TbsBelowMaxPacket => "TBs must be at least the largest packet, or such packets never \
                              conform (the premium TCP test; RFC 2697 section 2 makes the same recommendation)",
        /// PBs cannot hold the largest packet.
        PbsBelowMaxPacket => "the premium buffer PBs must hold at least the largest packet \
                              (the premium TCP test; PBs > TBs + one packet avoids buffer drops)",
        /// The bucket does not fit the token counter.
        TooLarge => "TBs times the clock's resolution does not fit the 2^62-unit token counter \
                     (bytes * 8 * tick_hz / gcd(rate bits, 8 * tick_hz)); use a coarser clock \
                     or a smaller TBs",
    }
}

impl From<BucketError> for PremiumPolicerError {
    fn from(_: BucketError) -> Self {
        PremiumPolicerError::TooLarge
    }
}

/// The validated constants of a premium policer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PremiumPolicerProfile {
    bucket: crate::Bucket,
    pbs: u64,
    max_packet: u32,
    /// Packet mode: every packet costs one token and one buffer place.
    packets: bool,
}

impl PremiumPolicerProfile {
    /// Validates `cfg` and precomputes the token bucket.
    pub fn new(cfg: &PremiumPolicerConfig) -> Result<PremiumPolicerProfile, PremiumPolicerError> {
        if cfg.rate.is_zero() {
            return Err(PremiumPolicerError::ZeroRate);
        }
        if cfg.tbs == 0 {
            return Err(PremiumPolicerError::ZeroTbs);
        }
        if cfg.max_packet == 0 {
            return Err(PremiumPolicerError::ZeroMaxPacket);
        }
        if cfg.tbs < u64::from(cfg.max_packet) {
            return Err(PremiumPolicerError::TbsBelowMaxPacket);
        }
        if cfg.pbs < u64::from(cfg.max_packet) {
            return Err(PremiumPolicerError::PbsBelowMaxPacket);
        }
        let b = crate::bucket(cfg.rate, cfg.tbs, cfg.tick)?;
        Ok(PremiumPolicerProfile {
            bucket: crate::Bucket::new(b, b.full(), cfg.tbs),
            pbs: cfg.pbs,
            max_packet: cfg.max_packet,
            packets: cfg.mode.is_packets(),
        })
    }

    /// The token bucket: committed rate and TBs.
    #[inline]
    #[must_use]
    pub const fn committed(&self) -> &BucketProfile {
        &self.bucket.b
    }

    /// Byte mode or packet mode.
    #[inline]
    #[must_use]
    pub const fn mode(&self) -> Mode {
        if self.packets {
            Mode::Packets
        } else {
            Mode::Bytes
        }
    }

    /// PBs in bytes (in packets in packet mode).
    #[inline]
    #[must_use]
    pub const fn pbs(&self) -> u64 {
        self.pbs
    }

    /// The largest packet the configuration was made for.
    #[inline]
    #[must_use]
    pub const fn max_packet(&self) -> u32 {
        self.max_packet
    }

    /// The premium TCP test's rule `PBs > TBs + one packet`: when it holds and the premium
    /// buffer is served at least at the committed rate, a single conforming stream
    /// never sees a buffer drop.
    #[must_use]
    pub fn pbs_exceeds_tbs_plus_packet(&self) -> bool {
        let tbs = self.bucket.b.full() / self.bucket.b.scale();
        u128::from(self.pbs) > u128::from(tbs) + u128::from(self.max_packet)
    }
}

/// What the policer did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum PolicerVerdict {
    /// Conforming, and admitted to the premium buffer.
    Admitted = 0,
    /// Nonconforming: dropped by the policer (no tokens spent).
    PolicerDrop = 1,
    /// Conforming, but the premium buffer had no room (tokens spent).
    BufferDrop = 2,
}

impl PolicerVerdict {
    /// The three verdicts, in index order.
    pub const ALL: [PolicerVerdict; 3] = [
        PolicerVerdict::Admitted,
        PolicerVerdict::PolicerDrop,
        PolicerVerdict::BufferDrop,
    ];

    /// 0, 1, 2 for counters indexed by verdict.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The per-flow state of a premium policer: the token count, the time of the last
/// update and the premium buffer's occupancy in bytes. 24 bytes, `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PremiumPolicer {
    tokens: u64,
    last: Instant,
    backlog: u64,
}

impl PremiumPolicer {
    /// A policer with a full bucket and an empty buffer at `now`.
    #[inline]
    #[must_use]
    pub const fn new(profile: &PremiumPolicerProfile, now: Instant) -> PremiumPolicer {
        PremiumPolicer {
            tokens: profile.bucket.full(),
            last: now,
            backlog: 0,
        }
    }

    /// Token count at the last update (units of `1/scale` byte).
    #[inline]
    #[must_use]
    pub const fn tokens(&self) -> u64 {
        self.tokens
    }

    /// The token count at `now` if no packet arrived, without changing anything.
    #[inline]
    #[must_use]
    pub fn tokens_at(&self, profile: &PremiumPolicerProfile, now: Instant) -> u64 {
        profile
            .bucket
            .b
            .refill(self.tokens, now.ticks_since(self.last))
    }

    /// Bytes in the premium buffer.
    #[inline]
    #[must_use]
    pub const fn backlog(&self) -> u64 {
        self.backlog
    }

    /// The time of the last update.
    #[inline]
    #[must_use]
    pub const fn last(&self) -> Instant {
        self.last
    }

    /// Polices a packet of `len` bytes arriving at `now`. Conforming (`B <= tokens`)
    /// packets spend their tokens; if the buffer has room for the whole packet it is
    /// admitted and counted in the backlog, else it is a buffer drop.
    ///
    /// `offer` does not read the profile's [`Mode`]: it charges `len` units,
    /// bytes or (with a packet-mode profile) packets. Police in packet mode
    /// with [`offer_packet`](Self::offer_packet), which charges one. (A check
    /// of the mode here costs the byte path about 9 instructions per packet in
    /// the `policer_offer` bench, so the markers' way, a mode flag on a path
    /// that already branches, does not carry over.)
    #[inline]
    pub fn offer(
        &mut self,
        profile: &PremiumPolicerProfile,
        now: Instant,
        len: u32,
    ) -> PolicerVerdict {
        self.offer_units(profile, now, len)
    }

    /// The policer's step for a packet charged `len` units.
    #[inline(always)]
    fn offer_units(
        &mut self,
        profile: &PremiumPolicerProfile,
        now: Instant,
        len: u32,
    ) -> PolicerVerdict {
        let dt = self.last.advance_to(now);
        let cost = profile.bucket.cost(len);
        let b = crate::probe(
            &profile.bucket,
            self.tokens,
            profile.bucket.gain(dt),
            cost,
            0,
        );
        let conforming = b.fits;
        self.tokens = b.tokens - (cost & conforming);
        let room = netcond_core::branchless::fits(
            profile.pbs.saturating_sub(self.backlog),
            u64::from(len),
        );
        let admitted = conforming & room;
        self.backlog += u64::from(len) & admitted;
        // Index 1 if nonconforming, 2 if conforming but not admitted, else 0.
        let i = (!conforming & 1) as usize + 2 * (conforming & !admitted & 1) as usize;
        match i {
            0 => PolicerVerdict::Admitted,
            1 => PolicerVerdict::PolicerDrop,
            _ => PolicerVerdict::BufferDrop,
        }
    }

    /// [`offer`](Self::offer), then the packet recorded in `counters`
    /// ([`Counters::record_verdict`](crate::Counters::record_verdict): green if
    /// it conformed, red if not, and dropped unless admitted).
    #[inline]
    pub fn offer_counted(
        &mut self,
        profile: &PremiumPolicerProfile,
        now: Instant,
        len: u32,
        counters: &mut crate::Counters,
    ) -> PolicerVerdict {
        let v = self.offer(profile, now, len);
        counters.record_verdict(v, len);
        v
    }

    /// Polices one packet arriving at `now`, charging one unit of tokens and of
    /// buffer: the way to police with a packet-mode profile ([`Mode::Packets`]);
    /// report its departure with `dequeued(1)`.
    #[inline]
    pub fn offer_packet(
        &mut self,
        profile: &PremiumPolicerProfile,
        now: Instant,
    ) -> PolicerVerdict {
        self.offer_units(profile, now, 1)
    }

    /// Moves this policer from profile `old` to profile `new` at `now`.
    ///
    /// The token count is carried over exactly in bytes (packets in packet
    /// mode): `t` units of `1/scale_old` byte become
    /// `floor(t x scale_new / scale_old)` units of `1/scale_new` byte (never
    /// more than the old count), capped at the new TBs, after a refill to `now`
    /// under `old` (the clock is kept; an older instant refills nothing). The
    /// buffer occupancy is kept as it is: the packets in it are still there,
    /// and a new PBs below it only refuses arrivals until departures bring it
    /// under (a packet is admitted when its length fits the room left,
    /// `PBs - backlog`, or none). A change of [`Mode`] has no exchange rate: the bucket then starts
    /// full and the occupancy empty, as [`new`](Self::new) would, with the
    /// clock kept. O(1), no allocation; it divides.
    pub fn move_to(
        &mut self,
        old: &PremiumPolicerProfile,
        new: &PremiumPolicerProfile,
        now: Instant,
    ) {
        let dt = self.last.advance_to(now);
        let tokens = old.bucket.b.refill(self.tokens, dt);
        if old.packets == new.packets {
            self.tokens = crate::carry(tokens, &old.bucket.b, &new.bucket.b);
        } else {
            self.tokens = new.bucket.full();
            self.backlog = 0;
        }
    }

    /// Reports that `len` bytes left the premium buffer (saturates at empty).
    /// In packet mode, `len` is the number of packets that left.
    #[inline]
    pub fn dequeued(&mut self, len: u32) {
        self.backlog = self.backlog.saturating_sub(u64::from(len));
    }
}

/// Packets and bytes per policer verdict, saturating.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PolicerCounters {
    /// Packets per verdict, indexed by [`PolicerVerdict::index`].
    pub packets: [u64; 3],
    /// Bytes per verdict, indexed by [`PolicerVerdict::index`].
    pub bytes: [u64; 3],
}

impl PolicerCounters {
    /// Counts one packet of `len` bytes with verdict `v`.
    #[inline]
    pub fn record(&mut self, v: PolicerVerdict, len: u32) {
        let i = v.index();
        self.packets[i] = self.packets[i].saturating_add(1);
        self.bytes[i] = self.bytes[i].saturating_add(u64::from(len));
    }

    /// Packets with verdict `v`.
    #[inline]
    #[must_use]
    pub const fn packets(&self, v: PolicerVerdict) -> u64 {
        self.packets[v.index()]
    }

    /// Bytes with verdict `v`.
    #[inline]
    #[must_use]
    pub const fn bytes(&self, v: PolicerVerdict) -> u64 {
        self.bytes[v.index()]
    }
}

netcond_core::impl_state!(PremiumPolicer, PremiumPolicerProfile);

/// A policer profile with one flow's state, for single-instance users, used
/// through [`PolicerPair`].
pub type PremiumPolicerMeter = netcond_core::WithProfile<PremiumPolicer>;

impl PremiumPolicerConfig {
    /// Validates the configuration and starts one flow on it, full bucket and
    /// empty buffer at `now`: the profile and the state as a pair.
    pub fn meter(&self, now: Instant) -> Result<PremiumPolicerMeter, PremiumPolicerError> {
        Ok(netcond_core::WithProfile::new(
            PremiumPolicerProfile::new(self)?,
            now,
        ))
    }
}

/// The per-packet methods of a policer paired with its profile
/// ([`PremiumPolicerMeter`]).
pub trait PolicerPair {
    /// See [`PremiumPolicer::offer`].
    fn offer(&mut self, now: Instant, len: u32) -> PolicerVerdict;

    /// See [`PremiumPolicer::dequeued`].
    fn dequeued(&mut self, len: u32);
}

impl PolicerPair for PremiumPolicerMeter {
    #[inline]
    fn offer(&mut self, now: Instant, len: u32) -> PolicerVerdict {
        self.state.offer(&self.profile, now, len)
    }

    #[inline]
    fn dequeued(&mut self, len: u32) {
        self.state.dequeued(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PolicerVerdict::{Admitted as A, BufferDrop as B, PolicerDrop as P};

    fn cfg(tbs: u64, pbs: u64) -> PremiumPolicerConfig {
        // 1000 B/s on a millisecond clock: one byte per tick.
        PremiumPolicerConfig {
            rate: Rate::from_bytes_per_sec(1000),
            tbs,
            pbs,
            max_packet: 100,
            tick: TickRate::MILLIS,
            mode: crate::Mode::Bytes,
        }
    }

    #[test]
    fn config_rules() {
        let ok = PremiumPolicerConfig::default();
        let p = PremiumPolicerProfile::new(&ok).unwrap();
        assert!(p.pbs_exceeds_tbs_plus_packet());
        assert_eq!(p.pbs(), 13_000);
        let e = |c: PremiumPolicerConfig| PremiumPolicerProfile::new(&c).unwrap_err();
        use PremiumPolicerError as E;
        assert_eq!(
            e(PremiumPolicerConfig {
                rate: Rate::ZERO,
                ..ok
            }),
            E::ZeroRate
        );
        assert_eq!(e(PremiumPolicerConfig { tbs: 0, ..ok }), E::ZeroTbs);
        assert_eq!(
            e(PremiumPolicerConfig {
                max_packet: 0,
                ..ok
            }),
            E::ZeroMaxPacket
        );
        assert_eq!(
            e(PremiumPolicerConfig { tbs: 1499, ..ok }),
            E::TbsBelowMaxPacket
        );
        assert_eq!(
            e(PremiumPolicerConfig { pbs: 1499, ..ok }),
            E::PbsBelowMaxPacket
        );
        assert_eq!(
            e(PremiumPolicerConfig {
                rate: Rate::from_bits_per_sec(1),
                tbs: 1 << 30,
                tick: TickRate::from_hz(1 << 40).unwrap(),
                ..ok
            }),
            E::TooLarge
        );
        // the premium TCP test case B passes the rule; PBs = TBs + packet exactly does not.
        let b = PremiumPolicerConfig {
            tbs: 43_000,
            pbs: 45_000,
            ..ok
        };
        assert!(PremiumPolicerProfile::new(&b)
            .unwrap()
            .pbs_exceeds_tbs_plus_packet());
        let edge = PremiumPolicerConfig {
            tbs: 43_000,
            pbs: 44_500,
            ..ok
        };
        assert!(!PremiumPolicerProfile::new(&edge)
            .unwrap()
            .pbs_exceeds_tbs_plus_packet());
    }

    #[test]
    fn verdicts_and_accounting() {
        let p = PremiumPolicerProfile::new(&cfg(300, 250)).unwrap();
        let t0 = Instant::from_ticks(0);
        let mut s = PremiumPolicer::new(&p, t0);
        assert_eq!(s.offer(&p, t0, 100), A);
        assert_eq!(s.offer(&p, t0, 100), A);
        assert_eq!(s.backlog(), 200);
        // Conforming (100 tokens left) but only 50 bytes of room: buffer drop,
        // tokens spent.
        assert_eq!(s.offer(&p, t0, 100), B);
        assert_eq!((s.tokens(), s.backlog()), (0, 200));
        // No tokens: policer drop, nothing spent, buffer untouched.
        assert_eq!(s.offer(&p, t0, 1), P);
        assert_eq!((s.tokens(), s.backlog()), (0, 200));
        s.dequeued(100);
        assert_eq!(s.backlog(), 100);
        // 40 ms later: 40 tokens.
        let t = Instant::from_ticks(40);
        assert_eq!(s.tokens_at(&p, t), 40);
        assert_eq!(s.offer(&p, t, 41), P);
        assert_eq!(s.offer(&p, t, 40), A);
        assert_eq!(s.backlog(), 140);
        s.dequeued(1000);
        assert_eq!(s.backlog(), 0);
        let mut c = PolicerCounters::default();
        c.record(A, 10);
        c.record(B, 20);
        c.record(B, 5);
        assert_eq!((c.packets(B), c.bytes(B), c.packets(P)), (2, 25, 0));
        assert_eq!(c.bytes(A), 10);
    }

    #[test]
    fn size() {
        assert_eq!(core::mem::size_of::<PremiumPolicer>(), 24);
    }
}

//! A bulk-transfer TCP model: Reno congestion control with SACK loss recovery and ECN.
//!
//! The model is a pair of plain state machines, independent of any event engine:
//!
//! - [`TcpSender`] is always backlogged (a bulk sender, as in the documents' experiments).
//!   Its methods take the current time in nanoseconds and an incoming [`Ack`] (or a
//!   timer expiry) and push the [`Segment`]s to transmit into a caller-owned `Vec`;
//!   [`TcpSender::deadline`] tells the caller when to call [`TcpSender::on_timer`].
//! - [`TcpReceiver`] takes arriving [`Segment`]s and returns the [`Ack`]s to send,
//!   with SACK blocks and the ECN echo; with delayed ACKs enabled it also has a
//!   [`TcpReceiver::deadline`].
//!
//! # What is modelled
//!
//! - Sequence numbers count whole segments of `mss` payload bytes, as ns-2's TCP
//!   agents do: a bulk sender only ever sends full-sized segments, so byte
//!   granularity would add nothing but arithmetic. Every segment is `mss + header`
//!   bytes on the wire.
//! - Slow start and congestion avoidance as RFC 5681 section 3.1: `cwnd += min(N, SMSS)`
//!   per ACK below `ssthresh`, `cwnd += SMSS*SMSS/cwnd` per ACK above it; the initial
//!   window is configurable (RFC 5681 allows up to 4 segments of this size; the
//!   default is 2, as the seeds' simulators used 1 or 2).
//! - Loss recovery with SACK as RFC 6675: a segment is lost when `DupThresh` (3)
//!   segments above it are SACKed; recovery starts at the third duplicate ACK (one
//!   carrying new SACK information) or as soon as the first unacked segment is
//!   lost; `ssthresh = cwnd = max(FlightSize/2, 2 SMSS)` once per window (the
//!   RecoveryPoint guard); while in recovery the sender keeps `pipe` (RFC 6675
//!   section 4) below `cwnd`, sending first the lost segments, then new data.
//!   Outside recovery the same `pipe` rule lets each SACKed segment release a new
//!   one, which is limited transmit (RFC 3042) in effect.
//! - Without SACK (`sack: false`) recovery is NewReno (RFC 6582): the first
//!   unacked segment is retransmitted at the third duplicate ACK and after every
//!   partial ACK, and each duplicate ACK lets one new segment out.
//! - Retransmission timer as RFC 6298: SRTT/RTTVAR with alpha 1/8, beta 1/4,
//!   `RTO = SRTT + max(G, 4 RTTVAR)` clamped to `[min_rto, max_rto]`, Karn's rule
//!   (no samples from retransmitted segments), exponential backoff, restart on
//!   every ACK that advances the window. On expiry `ssthresh = max(FlightSize/2,
//!   2 SMSS)` (first expiry of a series only), `cwnd = 1 SMSS`, and every segment
//!   not SACKed is treated as lost and resent in slow start (RFC 6675 section 5.1).
//! - A receiver window cap (`max_window` bytes): the sender never has more than
//!   `max_window / mss` segments outstanding.
//! - Optional timestamps (RFC 7323) for RTT samples on every window-advancing
//!   ACK, retransmissions included (without them, Karn's rule applies and a
//!   backed-off RTO stays until a segment sent once is acknowledged).
//! - Optional delayed ACKs (RFC 5681 section 4.2: every second full segment, a
//!   timeout otherwise, immediately for out-of-order data or when a hole fills).
//! - ECN as RFC 3168 section 6.1: data segments are ECT (retransmissions are not,
//!   section 6.1.5), the receiver echoes CE with ECE on every ACK until it sees CWR,
//!   the sender halves `cwnd` (`ssthresh = max(FlightSize/2, 2 SMSS)`) at most once
//!   per window of data and sets CWR on its next new segment.
//! - A scalable ("L4S") response as DCTCP (RFC 8257) with the L4S identifier
//!   (RFC 9331) when `scalable` is set with `ecn`: data segments, retransmissions
//!   included (RFC 8311 section 4.3 lifts RFC 3168's ban for experiments), carry
//!   ECT(1); the receiver echoes each segment's CE on its ACK (no latching until
//!   CWR; RFC 8257 section 3.2); the sender keeps the fraction of delivered
//!   segments whose ACKs echoed CE over each window of data (one RTT) and its
//!   moving average `alpha` (gain g = 1/16, starting at 1; section 3.3), in
//!   units of 1/1024 as Linux's `tcp_dctcp`, and at most once per window, on an
//!   ECE, sets `cwnd = ssthresh = max(cwnd - cwnd * alpha / 2, 2 SMSS)`.
//!   Losses are answered as Reno does. With delayed ACKs the receiver ACKs at
//!   once when the CE state changes, but a pending segment received in the old
//!   state is echoed with the new one (RFC 8257's receiver first sends an ACK
//!   for it with the old state).
//!
//! [`net`] runs these state machines over chains of the simulator's links
//! ([`crate::net`]), whose queues plug in the workspace's conditioners; the
//! `ras-tcp`, `aecn`, `premium-tcp` and `aqm-dumbbell` scenarios are built on it.
//!
//! # Example
//!
//! A sender and a receiver driven by hand: the second segment is lost, three
//! later ones are SACKed, and the sender retransmits it without a timeout.
//!
//! ```
//! use netcond_sim::tcp::{TcpConfig, TcpReceiver, TcpSender};
//!
//! let cfg = TcpConfig { initial_cwnd: 5, ..TcpConfig::default() };
//! let (mut tx, mut rx) = (TcpSender::new(cfg, 0), TcpReceiver::new(cfg, 0));
//! let mut out = Vec::new();
//! tx.start(0, &mut out);
//! assert_eq!(out.len(), 5);
//! let sent = std::mem::take(&mut out);
//! for seg in sent.iter().filter(|s| s.seq != 1) {
//!     let ack = rx.on_segment(10_000_000, seg).unwrap();
//!     tx.on_ack(20_000_000, &ack, &mut out);
//! }
//! assert!(out.iter().any(|s| s.seq == 1 && s.retransmit));
//! assert_eq!(tx.stats().fast_recoveries, 1);
//! assert_eq!(tx.stats().timeouts, 0);
//! ```
//!
//! Goodput counts each payload byte once, when it is delivered in order at the
//! receiver; throughput counts every data segment the sender transmits,
//! retransmissions included (the definitions on the metrics slide of the AECN slides).

pub mod net;
mod receiver;
mod sender;

pub use receiver::{ReceiverStats, TcpReceiver};
pub use sender::{SenderStats, TcpSender, DCTCP_ALPHA_ONE};

/// Maximum number of SACK blocks an ACK carries (RFC 2018 allows 3 with timestamps, 4 without).
pub const MAX_SACK_BLOCKS: usize = 4;

/// TCP parameters shared by a sender and its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Payload bytes per segment (SMSS).
    pub mss: u32,
    /// Header bytes added on the wire (40 for IPv4 + TCP without options).
    pub header: u32,
    /// Receiver window cap in bytes (the "maximum window size" of the seeds).
    pub max_window: u32,
    /// Initial congestion window in segments.
    pub initial_cwnd: u32,
    /// Initial slow-start threshold in bytes (`u64::MAX`: unbounded).
    pub initial_ssthresh: u64,
    /// Initial retransmission timeout, ns (RFC 6298 (2.1): 1 s).
    pub initial_rto_ns: u64,
    /// Lower bound on the RTO, ns (RFC 6298 (2.4): 1 s; many stacks use 200 ms).
    pub min_rto_ns: u64,
    /// Upper bound on the RTO, ns (RFC 6298 (2.5): at least 60 s).
    pub max_rto_ns: u64,
    /// Clock granularity G, ns (RFC 6298 section 2).
    pub clock_granularity_ns: u64,
    /// Use SACK (RFC 2018 / RFC 6675); otherwise NewReno (RFC 6582).
    pub sack: bool,
    /// SACK blocks per ACK (1..=[`MAX_SACK_BLOCKS`]).
    pub sack_blocks: u8,
    /// ECN-capable transport (RFC 3168).
    pub ecn: bool,
    /// With `ecn`: the scalable (DCTCP, RFC 8257) congestion response, ECT(1)
    /// on every data segment (RFC 9331's L4S identifier) and a per-segment CE
    /// echo; otherwise RFC 3168's classic response with ECT(0).
    pub scalable: bool,
    /// TCP timestamps (RFC 7323) for RTT measurement: every ACK that advances
    /// the window gives an RTT sample, retransmissions included; otherwise the
    /// sender times segments itself and follows Karn's rule.
    pub timestamps: bool,
    /// Delayed-ACK timeout, ns; `None` acknowledges every segment at once.
    pub delayed_ack_ns: Option<u64>,
    /// Duplicate-ACK / SACK threshold (RFC 6675 DupThresh).
    pub dupthresh: u32,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            header: 40,
            max_window: 65_535,
            initial_cwnd: 2,
            initial_ssthresh: u64::MAX,
            initial_rto_ns: 1_000_000_000,
            min_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            clock_granularity_ns: 1_000_000,
            sack: true,
            sack_blocks: 3,
            ecn: false,
            scalable: false,
            timestamps: false,
            delayed_ack_ns: None,
            dupthresh: 3,
        }
    }
}

impl TcpConfig {
    /// Bytes of one segment on the wire.
    #[must_use]
    pub fn wire_bytes(&self) -> u32 {
        self.mss.saturating_add(self.header)
    }

    /// The receiver window cap in whole segments (at least one).
    #[must_use]
    pub fn window_segments(&self) -> u64 {
        (u64::from(self.max_window) / u64::from(self.mss.max(1))).max(1)
    }
}

/// A data segment in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Flow identifier (copied from the sender).
    pub flow: u32,
    /// Sequence number, in segments.
    pub seq: u64,
    /// Bytes on the wire.
    pub wire_len: u32,
    /// This is a retransmission (it does not count towards goodput twice anyway).
    pub retransmit: bool,
    /// ECN-capable transport codepoint (ECT(0), or ECT(1) with `ect1`).
    pub ect: bool,
    /// With `ect`: the codepoint is ECT(1), the L4S identifier (RFC 9331).
    pub ect1: bool,
    /// Congestion experienced, set by an ECN-marking queue.
    pub ce: bool,
    /// Congestion window reduced (RFC 3168 section 6.1.2).
    pub cwr: bool,
    /// Timestamp value (the send time, ns), echoed when timestamps are on.
    pub ts: u64,
}

impl Segment {
    /// Mark the segment CE if it is ECN-capable; returns whether it was marked
    /// (an ECN queue drops a not-ECT packet instead).
    pub fn mark_ce(&mut self) -> bool {
        if self.ect {
            self.ce = true;
        }
        self.ect
    }
}

/// A cumulative acknowledgement with SACK blocks and the ECN echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// Flow identifier.
    pub flow: u32,
    /// Next segment expected (everything below is acknowledged).
    pub ack: u64,
    /// SACK blocks `[start, end)` in segments; only the first `nsack` are valid.
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// Number of valid SACK blocks.
    pub nsack: u8,
    /// ECN-Echo (RFC 3168 section 6.1.3).
    pub ece: bool,
    /// Timestamp echo reply (RFC 7323 TSecr).
    pub tsecr: u64,
}

impl Ack {
    /// The valid SACK blocks.
    #[must_use]
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..usize::from(self.nsack).min(MAX_SACK_BLOCKS)]
    }
}

/// Bytes of an ACK on the wire (IPv4 + TCP header).
pub const ACK_WIRE_BYTES: u32 = 40;

#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod tests;

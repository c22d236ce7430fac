//! Delay-based active queue management: CoDel (RFC 8289), FQ-CoDel
//! (RFC 8290) and PIE (RFC 8033), in integers, for callers that keep the
//! packets.
//!
//! # The algorithms
//!
//! CoDel (Nichols and Jacobson; RFC 8289) looks at each packet as it leaves
//! the queue. When the time it waited (its *sojourn time*) has stayed at or
//! above TARGET (5 ms) for at least INTERVAL (100 ms), and more than one MTU
//! is queued, CoDel enters the *dropping state*: it drops a packet, then the
//! next ones at `interval / sqrt(count)` spacing, `count` the drops so far,
//! until a packet's sojourn time falls below TARGET. Re-entering soon after
//! leaving (within 16 intervals of the last drop) starts `count` at the number
//! of drops of the previous cycle, `count - lastcount`, instead of 1 (RFC 8289
//! section 5.5). With ECN on, an ECN-capable packet is marked CE instead of
//! dropped (RFC 3168 section 5), and the mark counts as the drop.
//!
//! FQ-CoDel (RFC 8290) keeps one CoDel per flow queue and serves the queues
//! by deficit round robin with a quantum of bytes, new flows (those that just
//! became active) before old ones; when the whole queue is over its packet
//! limit it drops from the head of the flow holding the most bytes.
//!
//! PIE (RFC 8033) steers the queue delay toward QDELAY_REF (15 ms) with a
//! proportional-integral controller: every T_UPDATE it adds
//! `alpha (delay - ref) + beta (delay - previous delay)` to a drop probability,
//! scaled down while the probability is small, and drops (or marks) arriving
//! packets at random with it, after a burst allowance and with a
//! derandomizing accumulator.
//!
//! The crate implements:
//!
//! - [`Codel`] / [`CodelProfile`]: CoDel with two control laws
//!   ([`ControlLaw`]): [`ControlLaw::Exact`] computes
//!   `t + floor(interval / sqrt(count))` exactly on the caller's ticks, and
//!   [`ControlLaw::Linux`] computes it as Linux's `codel_impl.h` and ns-3's
//!   `CoDelQueueDisc` do (a cached reciprocal square root refined by one Newton
//!   step in Q0.32, time in 1024 ns units), with the surrounding state machine
//!   of either ([`LinuxVariant`]), so that their decisions can be reproduced
//!   packet for packet. 40 bytes per queue.
//! - [`FqCodel`] / [`FqCodelProfile`]: FQ-CoDel over `N` flow queues (a const
//!   generic), with a single-packet drop or Linux's batch drop on overflow
//!   ([`OverflowDrop`]; RFC 8290 section 4.1's own batch, half the fattest
//!   queue's packets, is not implemented). The packets stay in the caller's
//!   per-flow FIFOs: [`FqCodel::schedule`] says which flow to take the head
//!   from.
//! - [`Pie`] / [`PieProfile`]: PIE with the integer arithmetic of Linux's
//!   `sch_pie` (probability in units of 2^-56, time in 64 ns units, queue delay
//!   from timestamps), so that its decisions can be reproduced given the same
//!   random draws; optionally bounding the probability to one as RFC 8033
//!   does and Linux does not. 64 bytes per queue.
//!
//! Per packet: integers only, no allocation, no panics, no overflow, for every
//! input (zero lengths, `u64::MAX` instants, any order of calls). Time is
//! serial ([`Instant`]): an instant before the newest
//! one seen counts as that newest one (no time passes).
//!
//! # Time
//!
//! [`Codel::new`] and [`FqCodel::new`] take the instant at which the state's
//! clock starts. Time is serial: an instant 2^63 ticks or more after the
//! newest one seen reads as earlier, and no time passes. With the exact law,
//! the stored `first_above_time` and `drop_next` are kept within 2^62 ticks
//! behind the clock (a stale one reads as past either way), so they never come
//! to read as future. The Linux law keeps Linux's 32-bit time of 1024 ns units
//! and its wrap after about 73 minutes, as the kernel and ns-3 do.
//!
//! # Calling CoDel
//!
//! CoDel decides when a packet leaves. For each packet taken from the head of
//! the queue, [`Codel::on_dequeue`] gets its enqueue instant, length and ECN
//! capability ([`Head`]) and the bytes still queued behind it, and returns a
//! [`Verdict`]: deliver it, mark it and deliver it, or drop it. After a drop,
//! the caller takes the next head and asks again at the same instant (the
//! second half of RFC 8289's dequeue loop), or calls [`Codel::on_empty`] if the
//! queue is empty.
//!
//! # Example
//!
//! ```
//! use aqm_delay::{Codel, CodelConfig, CodelProfile, Head, Verdict};
//! use netcond_core::Instant;
//! use std::collections::VecDeque;
//!
//! let profile = CodelProfile::new(&CodelConfig::rfc8289()).unwrap();
//! let mut codel = Codel::new(&profile, Instant::ZERO);
//! let mut queue: VecDeque<Head> = VecDeque::new();
//! let mut bytes = 0u64;
//! let (mut sent, mut dropped, mut worst_late) = (0u32, 0u32, 0u64);
//! // 1500-byte packets arrive every 500 us at a link that sends one every
//! // 550 us: 10 % too much, from a sender that does not slow down.
//! for us in (0..30_000_000u64).step_by(50) {
//!     let now = Instant::from_ticks(us * 1_000);
//!     if us % 500 == 0 {
//!         queue.push_back(Head::new(now, 1500, false));
//!         bytes += 1500;
//!     }
//!     if us % 550 == 0 {
//!         loop {
//!             let Some(head) = queue.pop_front() else {
//!                 codel.on_empty(&profile, now);
//!                 break;
//!             };
//!             bytes -= u64::from(head.len);
//!             match codel.on_dequeue(&profile, now, head, bytes) {
//!                 Verdict::Drop => dropped += 1, // and take the next head
//!                 _ => {
//!                     sent += 1;
//!                     if us > 20_000_000 {
//!                         worst_late = worst_late.max(now.ticks_since(head.enqueued));
//!                     }
//!                     break;
//!                 }
//!             }
//!         }
//!     }
//! }
//! // The link never idles (30 s / 550 us = 54545 packets), about one packet
//! // in eleven is dropped, and in the last 10 s no packet waited 100 ms; a
//! // tail-drop queue would have reached 3 s by the end.
//! assert!(sent >= 54_545, "{sent}");
//! assert!((5_000..5_455).contains(&dropped), "{dropped}");
//! assert!(worst_late < 100_000_000, "{worst_late} ns");
//! ```
//!
//! # Configuration rules
//!
//! A profile refuses a configuration with one [`DelayError`] variant per rule:
//! `ZeroTarget` and `ZeroInterval` (at least one unit of the law's clock: a
//! tick, or 1024 ns for the Linux law), `TargetNotBelowInterval` (RFC 8289
//! section 4.5: TARGET is 5 %, or 5-10 %, of INTERVAL), `IntervalTooLong`
//! (2^57 ticks for the exact law; below 2^31 units of 1024 ns, about 36
//! minutes, for the Linux law, whose comparisons are serial on 32 bits), and
//! FQ-CoDel's `ZeroQuantum`, `QuantumTooLarge` (below 2^31 bytes),
//! `ZeroLimit` and `ZeroDropBatch`, and PIE's `ZeroTarget` (below 64 ns),
//! `ZeroUpdate`, `ZeroLimit`, `ZeroMtu` and `PieParameterTooLarge` (times of
//! 2^40 ns or more, alpha or beta above 32/16).
//!
//! # Sources
//!
//! - K. Nichols, V. Jacobson, A. McGregor and J. Iyengar (eds.), "Controlled
//!   Delay Active Queue Management", RFC 8289, January 2018.
//! - T. Hoeiland-Joergensen, P. McKenney, D. Taht, J. Gettys and E. Dumazet,
//!   "The Flow Queue CoDel Packet Scheduler and Active Queue Management
//!   Algorithm", RFC 8290, January 2018.
//! - R. Pan, P. Natarajan, F. Baker and G. White, "Proportional Integral
//!   Controller Enhanced (PIE): A Lightweight Control Scheme to Address the
//!   Bufferbloat Problem", RFC 8033, February 2017.
//! - K. Ramakrishnan, S. Floyd and D. Black, "The Addition of Explicit
//!   Congestion Notification (ECN) to IP", RFC 3168, September 2001.
//! - Linux `include/net/codel.h`, `include/net/codel_impl.h` and
//!   `net/sched/sch_fq_codel.c` (the arithmetic of [`ControlLaw::Linux`],
//!   [`LinuxVariant::Kernel`] and [`OverflowDrop::Batch`]); `include/net/pie.h`
//!   and `net/sched/sch_pie.c` ([`Pie`]); ns-3
//!   `src/traffic-control/model/codel-queue-disc.cc` ([`LinuxVariant::Ns3`]).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod codel;
mod fq_codel;
#[cfg(any(test, feature = "invariants"))]
#[cfg_attr(docsrs, doc(cfg(feature = "invariants")))]
pub mod invariants;
mod pie;
#[cfg(any(test, feature = "reference"))]
#[cfg_attr(docsrs, doc(cfg(feature = "reference")))]
pub mod reference;

pub use codel::{
    exact_spacing, linux_control_law, newton_step, Codel, CodelConfig, CodelProfile, ControlLaw,
    LinuxVariant, LINUX_TIME_SHIFT, MAX_EXACT_INTERVAL_TICKS,
};
pub use fq_codel::{Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, OverflowDrop};
pub use pie::{Pie, PieConfig, PieProfile, MAX_PROB, PSCHED_SHIFT};

use netcond_core::Instant;

netcond_core::config_error! {
    /// Why a CoDel or FQ-CoDel configuration was refused.
    pub enum DelayError {
        /// TARGET is shorter than one unit of the law's clock.
        ZeroTarget => "TARGET must be at least one unit of the clock (a tick; 1024 ns for the \
                       Linux law) (TARGET: RFC 8289 section 4.3)",
        /// INTERVAL is shorter than one unit of the law's clock.
        ZeroInterval => "INTERVAL must be at least one unit of the clock (a tick; 1024 ns for \
                         the Linux law) (INTERVAL: RFC 8289 section 4.2)",
        /// TARGET is not below INTERVAL.
        TargetNotBelowInterval => "TARGET must be below INTERVAL (RFC 8289 section 4.5: TARGET \
                                   is 5 percent of INTERVAL, or 5 to 10 percent)",
        /// INTERVAL is too long for the law's arithmetic.
        IntervalTooLong => "INTERVAL must be at most 2^57 ticks for the exact law, and below \
                            2^31 units of 1024 ns for the Linux law (serial 32-bit time, \
                            include/net/codel.h)",
        /// FQ-CoDel's quantum is zero.
        ZeroQuantum => "the DRR quantum must be at least one byte (the quantum: RFC 8290 \
                        section 5.2.4)",
        /// FQ-CoDel's quantum is 2^31 bytes or more.
        QuantumTooLarge => "the DRR quantum must be below 2^31 bytes (Linux's signed 32-bit \
                            credits, RFC 8290 section 5.4)",
        /// FQ-CoDel's packet limit is zero.
        ZeroLimit => "the packet limit must be at least one packet (FQ-CoDel: RFC 8290 \
                      section 5.2.3; PIE: Linux sch_pie's limit)",
        /// A batch drop of zero packets.
        ZeroDropBatch => "a batch drop must drop at least one packet (Linux fq_codel \
                          drop_batch_size)",
        /// PIE's T_UPDATE is shorter than one tick.
        ZeroUpdate => "PIE's T_UPDATE must be at least one tick of the clock (RFC 8033 \
                       section 4.2: the probability is updated every T_UPDATE)",
        /// PIE's MTU is zero.
        ZeroMtu => "PIE's MTU must be at least one byte (no early drop below two MTUs \
                    queued; byte mode divides by it)",
        /// A PIE time of 2^40 ns or more, or alpha or beta above 32/16.
        PieParameterTooLarge => "PIE's target, T_UPDATE and burst allowance must be below 2^40 \
                                 ns, and alpha and beta at most 32 sixteenths (Linux sch_pie's \
                                 range)",
    }
}

/// The packet at the head of a queue, as CoDel needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Head {
    /// When the packet was enqueued (RFC 8289 section 5.4's timestamp), on the
    /// profile's clock.
    pub enqueued: Instant,
    /// Its length in bytes.
    pub len: u32,
    /// Whether its ECN field is ECT(0), ECT(1) or CE (RFC 3168 section 5): it
    /// may be marked instead of dropped (a CE packet stays CE).
    pub ecn_capable: bool,
}

impl Head {
    /// A packet enqueued at `enqueued`, of `len` bytes.
    #[inline]
    #[must_use]
    pub const fn new(enqueued: Instant, len: u32, ecn_capable: bool) -> Head {
        Head {
            enqueued,
            len,
            ecn_capable,
        }
    }
}

/// What to do with the packet just taken from the head of the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Verdict {
    /// Send it unchanged.
    Deliver,
    /// Set CE (RFC 3168 section 5) and send it: CoDel's congestion signal to an
    /// ECN-capable packet.
    Mark,
    /// Drop it, and ask again for the next head at the same instant (or report
    /// an empty queue).
    Drop,
}

impl Verdict {
    /// True when the packet leaves the queue for the link (delivered or marked).
    #[inline]
    #[must_use]
    pub const fn sends(self) -> bool {
        !matches!(self, Verdict::Drop)
    }

    /// True for a congestion signal (a mark or a drop).
    #[inline]
    #[must_use]
    pub const fn signals(self) -> bool {
        !matches!(self, Verdict::Deliver)
    }
}

#[cfg(test)]
mod tests;

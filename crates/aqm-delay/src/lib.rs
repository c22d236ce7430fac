//! Delay-based active queue management: CoDel (RFC 8289), FQ-CoDel
//! (RFC 8290), PIE (RFC 8033) and DualPI2 (RFC 9332), in integers, for
//! callers that keep the packets.
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
//! derandomizing accumulator. Under RFC 8033's own law ([`PieLaw::Rfc8033`])
//! each rule is the RFC's: no random drop while the previous delay sample is
//! below QDELAY_REF / 2 with a probability below 20 %, or with at most two
//! MEAN_PKTSIZE queued (section 4.1); the update divided by 2048, 512, 128,
//! 32, 8 or 2 while the probability is below 0.0001 %, 0.001 %, 0.01 %, 0.1 %,
//! 1 % or 10 % (section 4.2), at most 2 % per update from 10 % (section 5.5),
//! times 0.98 when both delay samples are 0 and bounded to [0, 1] (section
//! 4.2); the burst allowance MAX_BURST spent by T_UPDATE per update and
//! restored when the probability is 0 and both samples are below
//! QDELAY_REF / 2 (section 4.4); marking instead of dropping below
//! `mark_ecnth`, 10 % (section 5.1); derandomization (section 5.4, optional:
//! no drop while the accumulated probability is below 0.85, a sure drop from
//! 8.5); the delay from timestamps or from the departure rate (sections 4.3,
//! 5.2: `byte_length * avg_dq_time / DQ_THRESHOLD`).
//!
//! FQ-PIE, as Linux's `sch_fq_pie` and ns-3's `FqPieQueueDisc` build it,
//! serves flow queues by FQ-CoDel's deficit round robin (RFC 8290 sections
//! 4.1 and 4.2) and runs a PIE per flow (Linux's law): the drop decision at
//! enqueue on the flow's own backlog, one timer updating every flow's
//! probability.
//!
//! DualPI2 (RFC 9332) keeps two queues: L4S packets (ECN field ECT(1) or CE)
//! in one, Classic packets (Not-ECT, ECT(0)) in the other (Appendix A's
//! classifier). A PI controller updates a base probability `p'` every Tupdate
//! from the queuing delay (Appendix A: `p' += alpha (curq - target) + beta
//! (curq - prevq)`, bounded to [0, 1]); the Classic queue drops or marks with
//! `p_C = p'^2` and the L4S queue marks with `p_CL = k p'` (section 2.1), or
//! with its own shallow ramp or step on its queuing delay when that is higher
//! (Appendix A.2, `p_L = max(p'_L, p_CL)`). In overload (section 4.2.3) Classic
//! ECN packets are dropped once `p_C >= p_Cmax = min(1 / k^2, 1)`, and the L4S
//! queue drops with `p_C` once `p_CL` reaches one. A time-shifted FIFO or a
//! weighted round robin chooses which head leaves next (section 4.1).
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
//!   does and Linux does not; or with RFC 8033's rules in exact integer
//!   arithmetic ([`PieLaw::Rfc8033`], [`PieConfig::rfc8033`]), timestamps or
//!   the departure-rate estimator ([`PieEstimator`]). 96 bytes per queue.
//! - [`FqPie`] / [`FqPieProfile`]: FQ-PIE over `N` flow queues on the
//!   caller's per-flow FIFOs, as Linux's `sch_fq_pie` (120 bytes per flow).
//! - [`DualPi2`] / [`DualPi2Profile`]: DualPI2 over the caller's two FIFOs
//!   ([`DualPi2::schedule`] names the queue to take the head from), decisions
//!   by the caller's random draws or RFC 9332's `recur()`
//!   ([`DualDecision`]), a time-shifted FIFO or weighted round robin
//!   ([`DualScheduler`]). 56 bytes.
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
//! second half of RFC 8289's dequeue loop), or calls [`Codel::on_queue_empty`] if the
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
//!                 codel.on_queue_empty(&profile, now);
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
//! # Example: PIE under RFC 8033's law
//!
//! ```
//! use aqm_delay::{Head, Pie, PieConfig, PieProfile, Verdict, MAX_PROB};
//! use netcond_core::{Instant, SplitMix64};
//!
//! let p = PieProfile::new(&PieConfig::rfc8033().with_ecn(true)).unwrap();
//! let mut pie = Pie::new(&p, Instant::ZERO);
//! let mut rng = SplitMix64::new(1);
//! let ms = |m: u64| Instant::from_ticks(m * 1_000_000);
//! let (mut marks, mut drops) = (0, 0);
//! // A standing queue of 40 ms (60 kB), ECN-capable packets.
//! for t in 0..5_000u64 {
//!     pie.poll(&p, ms(t), 60_000);
//!     pie.on_dequeue(&p, ms(t), Head::new(ms(t.saturating_sub(40)), 1500, true), 60_000);
//!     match pie.on_arrival(&p, ms(t), Head::new(ms(t), 1500, true), 40, 60_000, &mut rng) {
//!         Verdict::Mark => marks += 1,
//!         Verdict::Drop => drops += 1,
//!         Verdict::Deliver => {}
//!     }
//! }
//! // The probability climbs (at most to one, section 4.2); ECN-capable
//! // packets are marked while it is below 10 % and dropped above (5.1).
//! assert!(pie.prob() <= MAX_PROB && pie.prob() > MAX_PROB / 10);
//! assert!(marks > 0 && drops > 0, "{marks} {drops}");
//! ```
//!
//! # Example: DualPI2
//!
//! ```
//! use aqm_delay::{DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, Ecn, Verdict};
//! use netcond_core::{Instant, SplitMix64};
//!
//! let p = DualPi2Profile::new(&DualPi2Config::rfc9332()).unwrap();
//! let mut aqm = DualPi2::new(&p, Instant::ZERO);
//! let mut rng = SplitMix64::new(1);
//! // ECT(1) and CE go to the L4S queue, Not-ECT and ECT(0) to the Classic.
//! assert_eq!(aqm.on_arrival(&p, Instant::ZERO, Ecn::Ect1, 1500, 0), Some(DualQueue::L4s));
//! assert_eq!(aqm.on_arrival(&p, Instant::ZERO, Ecn::Ect0, 1500, 0), Some(DualQueue::Classic));
//! // A Classic head that has waited 100 ms drives p' up at the first update:
//! // 0.15 (0.1 - 0.015) + 3 (0.1 - 0) = 0.31275.
//! let ms = |m: u64| Instant::from_ticks(m * 1_000_000);
//! assert!(aqm.poll(&p, ms(115), None, Some(ms(15))));
//! assert_eq!(aqm.p_prime(), 1_343_251_021); // 0.31275 * 2^32, rounded down
//! // Time-shifted FIFO (40 ms): the L4S head leaves first unless the Classic
//! // head has waited more than 40 ms longer.
//! assert_eq!(aqm.schedule(&p, ms(115), Some(ms(114)), Some(ms(100))), Some(DualQueue::L4s));
//! assert_eq!(aqm.schedule(&p, ms(115), Some(ms(114)), Some(ms(15))), Some(DualQueue::Classic));
//! // The L4S queue marks with p_CL = 2 p' = 0.6255 (its own ramp is 0 with
//! // one packet left).
//! let marks = (0..1000)
//!     .filter(|_| {
//!         let h = DualHead::new(ms(114), 1500, Ecn::Ect1);
//!         aqm.on_dequeue(&p, ms(115), DualQueue::L4s, h, 1, &mut rng) == Verdict::Mark
//!     })
//!     .count();
//! assert_eq!(marks, 625); // recur(): floor(1000 p_CL), no randomness
//! ```
//!
//! # Example: FQ-PIE
//!
//! ```
//! use aqm_delay::{FqPie, FqPieConfig, FqPieProfile, Head, Verdict};
//! use netcond_core::{Instant, SplitMix64};
//!
//! let p = FqPieProfile::new(&FqPieConfig::linux().with_limit(3)).unwrap();
//! let mut fq: FqPie<8> = FqPie::new(&p, Instant::ZERO);
//! let mut rng = SplitMix64::new(1);
//! let h = Head::new(Instant::ZERO, 1500, false);
//! // The packet limit counts every flow (sch_fq_pie's sch->limit).
//! for flow in [0, 5, 5] {
//!     assert_eq!(fq.enqueue(&p, Instant::ZERO, flow, h, &mut rng), Verdict::Deliver);
//! }
//! assert_eq!(fq.enqueue(&p, Instant::ZERO, 2, h, &mut rng), Verdict::Drop);
//! // Deficit round robin: flows 0 and 5 are new, each sends a quantum.
//! let order: Vec<usize> = std::iter::from_fn(|| {
//!     let f = fq.schedule(&p, Instant::ZERO)?;
//!     fq.on_dequeue(&p, Instant::ZERO, f, h);
//!     Some(f)
//! })
//! .collect();
//! assert_eq!(order, [0, 5, 5]);
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
//! 2^40 ns or more, alpha or beta above 32/16), for PIE's RFC law
//! `PieBytemodeNotInRfc` (RFC 8033 section 4.1 gives no packet-size scaling),
//! `PieRfcUnbounded` (section 4.2 bounds the probability to [0, 1]) and
//! `PieRateEstimatorRfcOnly` (section 5.2's estimator is the RFC law's), and
//! FQ-PIE's `FqPieLinuxOnly` (each flow's PIE follows Linux's law) and
//! `FqPieEcnProbTooLarge` (a percentage), and
//! DualPI2's `DualPi2ZeroTarget`, `DualPi2ZeroUpdate` (RFC 9332 Appendix A),
//! `DualPi2ZeroCoupling` (section 2.1), `DualPi2ZeroThreshold` (Appendix
//! A.2), `DualPi2LimitBelowMtu` (Appendix A's limit test), `DualPi2ZeroWeight`
//! (section 4.1) and `DualPi2ParameterTooLarge`.
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
//! - K. De Schepper, B. Briscoe (ed.) and G. White, "Dual-Queue Coupled
//!   Active Queue Management (AQM) for Low Latency, Low Loss, and Scalable
//!   Throughput (L4S)", RFC 9332, January 2023.
//! - K. Ramakrishnan, S. Floyd and D. Black, "The Addition of Explicit
//!   Congestion Notification (ECN) to IP", RFC 3168, September 2001.
//! - Linux `include/net/codel.h`, `include/net/codel_impl.h` and
//!   `net/sched/sch_fq_codel.c` (the arithmetic of [`ControlLaw::Linux`],
//!   [`LinuxVariant::Kernel`] and [`OverflowDrop::Batch`]); `include/net/pie.h`
//!   and `net/sched/sch_pie.c` ([`Pie`]); `net/sched/sch_fq_pie.c`
//!   ([`FqPie`]); ns-3
//!   `src/traffic-control/model/codel-queue-disc.cc` ([`LinuxVariant::Ns3`]).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

// The `arbitrary` derive refers to `std` (which the `arbitrary` crate needs).
#[cfg(all(feature = "arbitrary", not(test)))]
extern crate std;

mod codel;
mod drr;
mod dualpi2;
mod fq_codel;
mod fq_pie;
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
pub use dualpi2::{
    pi2_update, DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue,
    DualScheduler, Ecn, MAX_GAIN_MHZ, P_ONE, RECUR_ONE,
};
pub use fq_codel::{Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, OverflowDrop};
pub use fq_pie::{FqPie, FqPieConfig, FqPieProfile};
pub use pie::{
    rate_qdelay, rfc8033_update, Pie, PieConfig, PieEstimator, PieLaw, PieProfile, DQ_THRESHOLD,
    MAX_PROB, PSCHED_SHIFT, RFC8033_SCALING,
};

use netcond_core::Instant;

// Every state of the crate starts as `X::new(&profile, now)`, which is also its
// `netcond_core::State::start` (and so a `netcond_core::WithProfile` pair).
netcond_core::impl_state!(Codel, CodelProfile);
netcond_core::impl_state!(Pie, PieProfile);
netcond_core::impl_state!(DualPi2, DualPi2Profile);
netcond_core::impl_state!({const N: usize} FqCodel<N>, FqCodelProfile);
netcond_core::impl_state!({const N: usize} FqPie<N>, FqPieProfile);

netcond_core::config_error! {
    /// Why a CoDel, FQ-CoDel, PIE or DualPI2 configuration was refused.
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
        /// Byte mode with the RFC law.
        PieBytemodeNotInRfc => "byte mode is Linux sch_pie's; RFC 8033's law has no packet-size \
                                scaling (section 4.1 leaves it to the implementation)",
        /// The RFC law without the bound to one.
        PieRfcUnbounded => "RFC 8033's law bounds the drop probability to [0, 1] after each \
                            update (section 4.2): bound_prob must be on",
        /// The departure-rate estimator with the Linux law.
        PieRateEstimatorRfcOnly => "the departure-rate estimator (RFC 8033 section 5.2) is \
                                    implemented for the RFC law only",
        /// DualPI2's target is shorter than one tick.
        DualPi2ZeroTarget => "DualPI2's Classic target must be at least one tick (RFC 9332 \
                              Appendix A: target, 15 ms)",
        /// DualPI2's Tupdate is shorter than one tick.
        DualPi2ZeroUpdate => "DualPI2's Tupdate must be at least one tick (RFC 9332 Appendix \
                              A: p' is updated every Tupdate)",
        /// DualPI2's coupling factor is zero.
        DualPi2ZeroCoupling => "DualPI2's coupling factor k must be positive (RFC 9332 section \
                                2.1: p_CL = k p')",
        /// DualPI2's L4S marking threshold is zero.
        DualPi2ZeroThreshold => "DualPI2's L4S ramp must end at least one tick above zero \
                                 (RFC 9332 Appendix A.2: minTh + range)",
        /// DualPI2's shared buffer is smaller than one MTU (or the MTU is 0).
        DualPi2LimitBelowMtu => "DualPI2's limit must hold at least one MTU, and the MTU be \
                                 positive (RFC 9332 Appendix A: drop when lq.byt() + cq.byt() \
                                 + MTU > limit)",
        /// A weighted round robin weight of zero.
        DualPi2ZeroWeight => "DualPI2's round-robin weights must be positive (RFC 9332 \
                              section 4.1: the scheduler serves both queues)",
        /// A DualPI2 time of 2^40 ns or more, a gain above 1 kHz or k above 16.
        DualPi2ParameterTooLarge => "DualPI2's times must be below 2^40 ns, alpha and beta at \
                                     most 1 kHz and k at most 16 (the crate's range)",
        /// FQ-PIE with PIE's RFC law.
        FqPieLinuxOnly => "FQ-PIE follows Linux sch_fq_pie: each flow's PIE must use the \
                           Linux law (RFC 8033 describes PIE on a single queue)",
        /// FQ-PIE's ECN threshold above 100 percent.
        FqPieEcnProbTooLarge => "FQ-PIE's ecn_prob is a percentage, at most 100 (Linux \
                                 sch_fq_pie; RFC 8033 section 5.1's mark_ecnth)",
        /// A PIE time of 2^40 ns or more, or alpha or beta above 32/16.
        PieParameterTooLarge => "PIE's target, T_UPDATE and burst allowance must be below 2^40 \
                                 ns, and alpha and beta at most 32 sixteenths (Linux sch_pie's \
                                 range)",
    }
}

/// The packet at the head of a queue, as CoDel needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
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

//! The AQM stages (CoDel, FQ-CoDel, PIE, FQ-PIE, DualPI2): their state and setup.

use super::*;
use crate::chain::{QueueLimit, Stage, FQ_FLOWS_MAX};
use crate::flows::five_tuple_hash;
use crate::packet::IpInfo;
use netcond::base::{Instant, SplitMix64, TickRate};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, DelayError, DualHead, DualPi2, DualPi2Config, DualPi2Profile,
    DualQueue, DualScheduler, Ecn as DualEcn, FqCodel, FqCodelConfig, FqCodelProfile, FqPie,
    FqPieConfig, FqPieProfile, Head, OverflowDrop, Pie, PieConfig, PieProfile,
};
use std::collections::VecDeque;

/// A packet in an AQM stage's queue.
#[derive(Clone, Copy, Debug)]
pub(super) struct AqmHeld {
    pub(super) id: u32,
    pub(super) len: u32,
    pub(super) enqueued: u64,
    /// The ECN field when it arrived.
    pub(super) ecn: u8,
}

impl AqmHeld {
    pub(super) fn head(&self) -> Head {
        Head::new(Instant::from_ticks(self.enqueued), self.len, self.ecn != 0)
    }

    pub(super) fn dual_head(&self) -> DualHead {
        DualHead::new(
            Instant::from_ticks(self.enqueued),
            self.len,
            DualEcn::from_bits(self.ecn),
        )
    }
}

/// The enqueue instants of DualPI2's two heads (L4S, Classic).
pub(super) fn dual_heads(q: &[VecDeque<AqmHeld>; 2]) -> (Option<Instant>, Option<Instant>) {
    let at = |f: &VecDeque<AqmHeld>| f.front().map(|h| Instant::from_ticks(h.enqueued));
    (at(&q[0]), at(&q[1]))
}

/// DualPI2's FIFO index of a queue: 0 L4S, 1 Classic.
pub(super) fn dual_index(q: DualQueue) -> usize {
    usize::from(q == DualQueue::Classic)
}

pub(super) enum AqmKind {
    Codel {
        profile: CodelProfile,
        codel: Codel,
        limit: QueueLimit,
    },
    Fq {
        profile: FqCodelProfile,
        fq: Box<FqCodel<{ FQ_FLOWS_MAX as usize }>>,
        fifos: Vec<VecDeque<AqmHeld>>,
        flows: u32,
    },
    Pie {
        profile: PieProfile,
        pie: Pie,
        rng: SplitMix64,
        /// The update timer is running (it stops while the queue is empty).
        timer: bool,
        limit: u32,
        t_update_ns: u64,
    },
    FqPie {
        profile: FqPieProfile,
        fq: Box<FqPie<{ FQ_FLOWS_MAX as usize }>>,
        fifos: Vec<VecDeque<AqmHeld>>,
        flows: u32,
        rng: SplitMix64,
        /// The update timer is running (it stops while the queue is empty).
        timer: bool,
        t_update_ns: u64,
    },
    Dual {
        profile: DualPi2Profile,
        dual: DualPi2,
        /// The L4S queue and the Classic queue.
        queues: Box<[VecDeque<AqmHeld>; 2]>,
        rng: SplitMix64,
        /// The update timer is running (it stops while the queue is empty).
        timer: bool,
        t_update_ns: u64,
    },
}

impl AqmKind {
    /// The periodic update at `at` (PIE, FQ-PIE, DualPI2) with `bytes`
    /// queued: the time of the next one, or `None` when the timer stops
    /// (`empty`: the updates while idle are replayed at the next arrival).
    pub(super) fn timer_poll(&mut self, at: u64, bytes: u64, empty: bool) -> Option<u64> {
        let t = Instant::from_ticks(at);
        let (next, timer) = match self {
            AqmKind::Pie {
                profile,
                pie,
                timer,
                ..
            } => {
                pie.poll(profile, t, bytes);
                (pie.next_update(), timer)
            }
            AqmKind::FqPie {
                profile, fq, timer, ..
            } => {
                fq.poll(profile, t);
                (fq.next_update(), timer)
            }
            AqmKind::Dual {
                profile,
                dual,
                queues,
                timer,
                ..
            } => {
                let (l, c) = dual_heads(queues);
                dual.poll(profile, t, l, c);
                (dual.next_update(), timer)
            }
            AqmKind::Codel { .. } | AqmKind::Fq { .. } => return None,
        };
        if empty {
            *timer = false;
            return None;
        }
        Some(next.ticks().max(at.saturating_add(1)))
    }

    /// A packet was queued at `at`: starts the stopped update timer and
    /// returns when it fires next (`None` if it was running, or for CoDel
    /// and FQ-CoDel).
    pub(super) fn timer_arm(&mut self, at: u64) -> Option<u64> {
        let (next, timer) = match self {
            AqmKind::Pie { pie, timer, .. } => (pie.next_update(), timer),
            AqmKind::FqPie { fq, timer, .. } => (fq.next_update(), timer),
            AqmKind::Dual { dual, timer, .. } => (dual.next_update(), timer),
            AqmKind::Codel { .. } | AqmKind::Fq { .. } => return None,
        };
        if *timer {
            return None;
        }
        *timer = true;
        Some(next.ticks().max(at))
    }

    /// At an arrival at `at` with the timer stopped (before the decision):
    /// runs the updates it would have run while the queue was empty, up to
    /// the first that changes nothing (every later one is the same), then
    /// the last one due, which sets the next update time.
    pub(super) fn timer_replay(&mut self, at: u64) {
        match self {
            AqmKind::Pie {
                profile,
                pie,
                timer: false,
                t_update_ns,
                ..
            } => {
                let mut k = 0u32;
                while pie.next_update().ticks() <= at && k < 1_000_000 {
                    let before = (pie.prob(), pie.qdelay_old(), pie.burst_time());
                    let t = pie.next_update();
                    pie.poll(profile, t, 0);
                    k += 1;
                    if (pie.prob(), pie.qdelay_old(), pie.burst_time()) == before {
                        let nu = pie.next_update().ticks();
                        if nu <= at {
                            let last = nu + (at - nu) / *t_update_ns * *t_update_ns;
                            pie.poll(profile, Instant::from_ticks(last), 0);
                        }
                        break;
                    }
                }
            }
            AqmKind::FqPie {
                profile,
                fq,
                timer: false,
                t_update_ns,
                ..
            } => {
                let state = |fq: &FqPie<{ FQ_FLOWS_MAX as usize }>| -> Vec<(u64, u64, u64)> {
                    (0..FQ_FLOWS_MAX as usize)
                        .map(|f| {
                            let p = fq.pie(f);
                            (p.prob(), p.qdelay_old(), p.burst_time())
                        })
                        .collect()
                };
                let mut k = 0u32;
                while fq.next_update().ticks() <= at && k < 1_000_000 {
                    let before = state(fq);
                    let t = fq.next_update();
                    fq.poll(profile, t);
                    k += 1;
                    if state(fq) == before {
                        let nu = fq.next_update().ticks();
                        if nu <= at {
                            let last = nu + (at - nu) / *t_update_ns * *t_update_ns;
                            fq.poll(profile, Instant::from_ticks(last));
                        }
                        break;
                    }
                }
            }
            AqmKind::Dual {
                profile,
                dual,
                timer: false,
                t_update_ns,
                ..
            } => {
                let mut k = 0u32;
                while dual.next_update().ticks() <= at && k < 1_000_000 {
                    let before = (dual.p_prime(), dual.prevq());
                    let t = dual.next_update();
                    dual.poll(profile, t, None, None);
                    k += 1;
                    if (dual.p_prime(), dual.prevq()) == before {
                        let nu = dual.next_update().ticks();
                        if nu <= at {
                            let last = nu + (at - nu) / *t_update_ns * *t_update_ns;
                            dual.poll(profile, Instant::from_ticks(last), None, None);
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
}

/// A `codel`, `fq_codel` or `pie` stage: the AQM, its queue, and the link
/// of `rate` that drains it one packet at a time.
pub(super) struct AqmRt {
    pub(super) kind: AqmKind,
    /// The FIFO of `codel` and `pie` (`fq_codel` keeps one per flow).
    pub(super) fifo: VecDeque<AqmHeld>,
    pub(super) packets: u32,
    pub(super) bytes: u64,
    pub(super) link_bps: u64,
    /// The packet being sent, and when its transmission ends.
    pub(super) tx: Option<u32>,
    /// A link event is pending.
    pub(super) scheduled: bool,
    pub(super) busy_until: u64,
    pub(super) frac: u64,
}

fn delay_err(stage: &str, e: DelayError) -> SetupError {
    SetupError(format!("{stage}: {e}"))
}

/// The library profiles of an AQM stage, checked (used by the chain parser
/// so that a bad configuration is refused with the library's message).
pub fn check_aqm(s: &Stage) -> Result<(), SetupError> {
    aqm_rt(s).map(|_| ())
}

pub(super) fn aqm_rt(s: &Stage) -> Result<AqmRt, SetupError> {
    let now = Instant::ZERO;
    let (kind, rate) = match *s {
        Stage::Codel {
            rate,
            target,
            interval,
            limit,
            ecn,
            linux,
        } => {
            let base = if linux {
                CodelConfig::linux()
            } else {
                CodelConfig::rfc8289()
            };
            let cfg = base
                .with_target(target)
                .with_interval(interval)
                .with_ecn(ecn)
                .with_tick(TickRate::NANOS);
            let profile = CodelProfile::new(&cfg).map_err(|e| delay_err("codel", e))?;
            (
                AqmKind::Codel {
                    profile,
                    codel: Codel::new(&profile, now),
                    limit,
                },
                rate,
            )
        }
        Stage::FqCodel {
            rate,
            flows,
            quantum,
            target,
            interval,
            limit,
            ecn,
        } => {
            let codel = CodelConfig::linux()
                .with_target(target)
                .with_interval(interval)
                .with_ecn(ecn)
                .with_tick(TickRate::NANOS);
            let cfg = FqCodelConfig::linux()
                .with_codel(codel)
                .with_quantum(quantum)
                .with_limit(limit)
                .with_overflow(OverflowDrop::Batch { max_packets: 64 });
            let profile = FqCodelProfile::new(&cfg).map_err(|e| delay_err("fq_codel", e))?;
            (
                AqmKind::Fq {
                    profile,
                    fq: Box::new(FqCodel::new(&profile, now)),
                    fifos: vec![VecDeque::new(); flows as usize],
                    flows,
                },
                rate,
            )
        }
        Stage::Pie {
            rate,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            bytemode,
        } => {
            let cfg = PieConfig::linux()
                .with_target(target)
                .with_t_update(tupdate)
                .with_alpha_beta(alpha, beta)
                .with_limit(limit)
                .with_ecn(ecn)
                .with_bytemode(bytemode)
                .with_tick(TickRate::NANOS);
            let profile = PieProfile::new(&cfg).map_err(|e| delay_err("pie", e))?;
            (
                AqmKind::Pie {
                    profile,
                    pie: Pie::new(&profile, now),
                    rng: SplitMix64::new(1),
                    timer: false,
                    limit,
                    t_update_ns: u64::try_from(tupdate.as_nanos()).unwrap_or(u64::MAX).max(1),
                },
                rate,
            )
        }
        Stage::FqPie {
            rate,
            flows,
            quantum,
            target,
            tupdate,
            alpha,
            beta,
            limit,
            ecn,
            ecn_prob,
            bytemode,
        } => {
            let pie = PieConfig::linux()
                .with_target(target)
                .with_t_update(tupdate)
                .with_alpha_beta(alpha, beta)
                .with_ecn(ecn)
                .with_bytemode(bytemode)
                .with_tick(TickRate::NANOS);
            let cfg = FqPieConfig::linux()
                .with_pie(pie)
                .with_quantum(quantum)
                .with_limit(limit)
                .with_ecn_prob(ecn_prob);
            let profile = FqPieProfile::new(&cfg).map_err(|e| delay_err("fq_pie", e))?;
            (
                AqmKind::FqPie {
                    profile,
                    fq: Box::new(FqPie::new(&profile, now)),
                    fifos: vec![VecDeque::new(); flows as usize],
                    flows,
                    rng: SplitMix64::new(1),
                    timer: false,
                    t_update_ns: u64::try_from(tupdate.as_nanos()).unwrap_or(u64::MAX).max(1),
                },
                rate,
            )
        }
        Stage::DualPi2 {
            rate,
            target,
            tupdate,
            alpha_mhz,
            beta_mhz,
            k16,
            step,
            limit,
            tshift,
        } => {
            let cfg = DualPi2Config::linux_defaults()
                .with_target(target)
                .with_t_update(tupdate)
                .with_gains(alpha_mhz, beta_mhz)
                .with_k16(k16)
                .with_ramp(step, std::time::Duration::ZERO)
                .with_limit(limit, 1500)
                .with_scheduler(DualScheduler::TimeShifted { tshift })
                .with_tick(TickRate::NANOS);
            let profile = DualPi2Profile::new(&cfg).map_err(|e| delay_err("dualpi2", e))?;
            (
                AqmKind::Dual {
                    profile,
                    dual: DualPi2::new(&profile, now),
                    queues: Box::default(),
                    rng: SplitMix64::new(1),
                    timer: false,
                    t_update_ns: u64::try_from(tupdate.as_nanos()).unwrap_or(u64::MAX).max(1),
                },
                rate,
            )
        }
        _ => return Err(SetupError("internal: not an AQM stage".into())),
    };
    if rate.is_zero() {
        return Err(SetupError(format!("{}: rate must be above zero", s.name())));
    }
    Ok(AqmRt {
        kind,
        fifo: VecDeque::new(),
        packets: 0,
        bytes: 0,
        link_bps: rate.bits_per_sec(),
        tx: None,
        scheduled: false,
        busy_until: 0,
        frac: 0,
    })
}

/// The `fq_codel` flow queue of a packet: the upper 32 bits of
/// [`five_tuple_hash`] scaled to `flows` as Linux's `reciprocal_scale`
/// (`hash * flows >> 32`).
pub fn fq_flow(info: &IpInfo, flows: u32) -> usize {
    let h = five_tuple_hash(info) >> 32;
    ((h * u64::from(flows)) >> 32) as usize
}

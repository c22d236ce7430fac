//! DualPI2 (RFC 9332) in C: `aqm_delay::DualPi2`, the coupled PI controller
//! of a Classic and an L4S queue whose packets the caller keeps in two FIFOs.
//!
//! For each arrival `netcond_dualpi2_enqueue` names the queue to append it to
//! (ECT(1) and CE to the L4S queue, Not-ECT and ECT(0) to the Classic queue)
//! or says that the shared buffer is full; to send, `netcond_dualpi2_schedule`
//! names the queue whose head to take, given both heads' enqueue times, and
//! `netcond_dualpi2_on_dequeue` decides deliver, mark or drop (after a drop the
//! caller schedules again at the same `now`); `netcond_dualpi2_poll` runs the
//! PI update every Tupdate. Random draws come from a seeded `netcond_rng` or
//! from a 64-bit value passed with the packet (`netcond_dualpi2_on_dequeue_draw`:
//! at most two 32-bit draws, high half first).

use super::pie::Draw64;
use super::*;
use aqm_delay::{
    DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, DualScheduler, Ecn,
};
use netcond_core::{RandomSource, SplitMix64};

use crate::red_ffi::netcond_rng;
use crate::state;

/// Size in bytes of a `netcond_dualpi2_profile`.
pub const NETCOND_DUALPI2_PROFILE_SIZE: usize = 128;
/// Size in bytes of a `netcond_dualpi2` (the queue pair's state).
pub const NETCOND_DUALPI2_STATE_SIZE: usize = 64;
/// Probability one in `p'` and `p_CL` (units of 2^-32).
pub const NETCOND_DUALPI2_P_ONE: u64 = 1 << 32;

const _: () = assert!(NETCOND_DUALPI2_P_ONE == aqm_delay::P_ONE);

/// One of the two queues, or neither.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_dualpi2_queue {
    /// The L4S queue.
    NETCOND_DUALPI2_L4S = 0,
    /// The Classic queue.
    NETCOND_DUALPI2_CLASSIC = 1,
    /// Neither: at enqueue, the shared buffer is full (drop the packet); at
    /// scheduling, both queues are empty.
    NETCOND_DUALPI2_NONE = 2,
}

/// How the scheduler chooses between the two heads (RFC 9332 section 4.1).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_dualpi2_scheduler {
    /// Time-shifted FIFO: the L4S head unless the Classic head has waited
    /// more than `tshift_ns` longer.
    NETCOND_DUALPI2_TIME_SHIFTED = 0,
    /// Weighted round robin: `wrr_l4s` L4S packets, then `wrr_classic`
    /// Classic packets.
    NETCOND_DUALPI2_WRR = 1,
}

/// How a probability becomes a decision.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_dualpi2_decision {
    /// RFC 9332 Appendix A.2's deterministic `recur()`: no draws.
    NETCOND_DUALPI2_RECUR = 0,
    /// Random; the Classic probability `p'^2` as two draws, `max(u1, u2) < p'`
    /// (RFC 9332 section 2.5.2).
    NETCOND_DUALPI2_RANDOM_TWO_DRAWS = 1,
    /// Random; the Classic probability as one draw against `p'^2`.
    NETCOND_DUALPI2_RANDOM_ONE_DRAW = 2,
}

/// The parameters of a DualPI2 queue pair (RFC 9332 Appendix A's names).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_dualpi2_params {
    /// The Classic queue delay target, ns (15 ms is 15000000).
    pub target_ns: u64,
    /// Tupdate, ns (15 ms).
    pub t_update_ns: u64,
    /// minTh, where the L4S marking ramp starts, ns (800 us).
    pub min_th_ns: u64,
    /// The ramp's range, ns (400 us; 0 makes it a step at `min_th_ns`).
    pub range_ns: u64,
    /// The time shift of `NETCOND_DUALPI2_TIME_SHIFTED`, ns (ignored by the
    /// round robin).
    pub tshift_ns: u64,
    /// The shared buffer, bytes: an arrival is dropped when the bytes queued
    /// plus one MTU exceed it.
    pub limit: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// alpha, the integral gain, millihertz (150 is 0.15 Hz).
    pub alpha_mhz: u32,
    /// beta, the proportional gain, millihertz (3000 is 3 Hz).
    pub beta_mhz: u32,
    /// The coupling factor k in sixteenths (32 is k = 2).
    pub k16: u32,
    /// Th_len: no native L4S marking with at most this many packets left in
    /// the L4S queue (1).
    pub th_len: u32,
    /// The MTU of the limit test, bytes.
    pub mtu: u32,
    /// 1: the PI update uses the larger of both queues' delays (Appendix
    /// A.2); 0: the Classic queue's (Appendix A.1).
    pub curq_max: u32,
    /// A `netcond_dualpi2_scheduler`.
    pub scheduler: u32,
    /// A `netcond_dualpi2_decision`.
    pub decision: u32,
    /// L4S packets per round of `NETCOND_DUALPI2_WRR`.
    pub wrr_l4s: u16,
    /// Classic packets per round of `NETCOND_DUALPI2_WRR`.
    pub wrr_classic: u16,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A validated DualPI2 profile (opaque).
#[repr(C, align(64))]
pub struct netcond_dualpi2_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// The state of a DualPI2 queue pair (opaque; must be started by
/// `netcond_dualpi2_config`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct netcond_dualpi2 {
    /// Opaque.
    pub opaque: [u64; 8],
}

/// What a `netcond_dualpi2` holds, for logs and tests.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_dualpi2_info {
    /// The base probability `p'`, units of 2^-32.
    pub p_prime: u64,
    /// The coupled L4S probability `p_CL = min(k p', 1)`, units of 2^-32.
    pub p_cl: u64,
    /// The Classic probability `p'^2`, units of 2^-64 (saturating).
    pub p_c: u64,
    /// The queue delay of the previous update, ticks.
    pub prevq: u64,
    /// The L4S queue's `recur()` accumulator, units of 2^-62.
    pub l_count: u64,
    /// The Classic queue's `recur()` accumulator, units of 2^-62.
    pub c_count: u64,
    /// When the next update is due, ticks.
    pub next_update: u64,
    /// The newest instant seen, ticks.
    pub last_seen: u64,
    /// Packets served in the round robin's current turn.
    pub wrr_served: u32,
    /// 1 when it is the Classic queue's turn of the round robin.
    pub wrr_classic_turn: u32,
}

const _: () =
    assert!(core::mem::size_of::<netcond_dualpi2_profile>() == NETCOND_DUALPI2_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_dualpi2>() == NETCOND_DUALPI2_STATE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_dualpi2_params>() == 96);
const _: () = assert!(core::mem::size_of::<netcond_dualpi2_info>() == 72);
const _: () = assert!(crate::fits::<netcond_dualpi2, crate::Tagged<DualPi2>>());
const _: () = assert!(crate::fits::<
    netcond_dualpi2_profile,
    crate::Tagged<DualPi2Profile>,
>());

const TAG_DUALPI2: u64 = 0x6e63_6432;
const TAG_DUALPI2_STATE: u64 = 0x6e63_6473;

/// The Rust configuration of `a`, or the status refusing it.
pub(crate) fn dualpi2_config(a: &netcond_dualpi2_params) -> Result<DualPi2Config, c_int> {
    crate::errors::reserved_zero(&[a.reserved.into()])?;
    let tick = TickRate::from_hz(a.tick_hz).ok_or(NETCOND_E_TICK)?;
    let scheduler = match a.scheduler {
        0 => DualScheduler::TimeShifted {
            tshift: Duration::from_nanos(a.tshift_ns),
        },
        1 => DualScheduler::WeightedRoundRobin {
            l4s: a.wrr_l4s,
            classic: a.wrr_classic,
        },
        _ => return Err(NETCOND_E_ENUM),
    };
    let decision = match a.decision {
        0 => DualDecision::Recur,
        1 => DualDecision::Random { two_draws: true },
        2 => DualDecision::Random { two_draws: false },
        _ => return Err(NETCOND_E_ENUM),
    };
    let curq_max = super::pie::flag(a.curq_max)?;
    Ok(DualPi2Config::rfc9332()
        .with_target(Duration::from_nanos(a.target_ns))
        .with_t_update(Duration::from_nanos(a.t_update_ns))
        .with_gains(a.alpha_mhz, a.beta_mhz)
        .with_k16(a.k16)
        .with_ramp(
            Duration::from_nanos(a.min_th_ns),
            Duration::from_nanos(a.range_ns),
        )
        .with_th_len(a.th_len)
        .with_limit(a.limit, a.mtu)
        .with_curq_max(curq_max)
        .with_scheduler(scheduler)
        .with_decision(decision)
        .with_tick(tick))
}

/// Validates `params` and writes the profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` (a flag or enum out
/// of range) or a `NETCOND_E_DELAY_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_dualpi2_profile_config(
    p: *mut netcond_dualpi2_profile,
    params: *const netcond_dualpi2_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_DUALPI2, |a| {
            DualPi2Profile::new(&dualpi2_config(a)?).map_err(delay_code)
        })
    }
}

/// Starts state `s` on profile `p` at `now`: `p' = 0`, the first update due
/// one Tupdate after `now`. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_dualpi2_config(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_queue(s, p, TAG_DUALPI2, TAG_DUALPI2_STATE, now, DualPi2::new) }
}

/// The state and profile, if both are present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
#[inline(always)]
unsafe fn dual<'a>(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
) -> Option<(&'a mut DualPi2, &'a DualPi2Profile)> {
    // SAFETY: caller contract, passed on.
    unsafe { queue_and_profile(s, p, TAG_DUALPI2, TAG_DUALPI2_STATE) }
}

fn queue_code(q: Option<DualQueue>) -> netcond_dualpi2_queue {
    match q {
        Some(DualQueue::L4s) => netcond_dualpi2_queue::NETCOND_DUALPI2_L4S,
        Some(DualQueue::Classic) => netcond_dualpi2_queue::NETCOND_DUALPI2_CLASSIC,
        None => netcond_dualpi2_queue::NETCOND_DUALPI2_NONE,
    }
}

/// The queue for an arriving packet of `len` bytes whose ECN field is the low
/// two bits of `ecn` (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE), with `backlog`
/// bytes queued in both queues: `NETCOND_DUALPI2_NONE` (drop it) when the
/// shared buffer cannot take one more MTU, else the classifier's queue. A
/// NULL, unstarted or unconfigured argument gives the classifier's queue and
/// changes nothing.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_dualpi2_enqueue(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    ecn: u32,
    len: u32,
    backlog: u64,
) -> netcond_dualpi2_queue {
    let ecn = Ecn::from_bits(ecn as u8);
    // SAFETY: caller contract, passed on.
    match unsafe { dual(s, p) } {
        Some((s, p)) => queue_code(s.on_arrival(p, Instant::from_ticks(now), ecn, len, backlog)),
        None => queue_code(Some(ecn.queue())),
    }
}

fn head(has: c_int, at: u64) -> Option<Instant> {
    (has != 0).then_some(Instant::from_ticks(at))
}

/// The queue whose head to take next at `now`, given whether each queue
/// holds a packet (`has_l4s`, `has_classic` nonzero) and its head's enqueue
/// time: `NETCOND_DUALPI2_NONE` when both are empty or on a NULL, unstarted
/// or unconfigured argument.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_dualpi2_schedule(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    has_l4s: c_int,
    l4s_head: u64,
    has_classic: c_int,
    classic_head: u64,
) -> netcond_dualpi2_queue {
    // SAFETY: caller contract, passed on.
    match unsafe { dual(s, p) } {
        Some((s, p)) => queue_code(s.schedule(
            p,
            Instant::from_ticks(now),
            head(has_l4s, l4s_head),
            head(has_classic, classic_head),
        )),
        None => netcond_dualpi2_queue::NETCOND_DUALPI2_NONE,
    }
}

/// The verdict on `q` and its state for a head taken from `queue`.
///
/// # Safety
/// As `netcond_dualpi2_on_dequeue`.
#[allow(clippy::too_many_arguments)]
unsafe fn dequeue<R: RandomSource>(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    queue: netcond_dualpi2_queue,
    enqueued_at: u64,
    len: u32,
    ecn: u32,
    left: u32,
    rng: &mut R,
) -> netcond_codel_verdict {
    let q = match queue {
        netcond_dualpi2_queue::NETCOND_DUALPI2_L4S => DualQueue::L4s,
        netcond_dualpi2_queue::NETCOND_DUALPI2_CLASSIC => DualQueue::Classic,
        netcond_dualpi2_queue::NETCOND_DUALPI2_NONE => return DELIVER,
    };
    // SAFETY: caller contract, passed on.
    match unsafe { dual(s, p) } {
        Some((s, p)) => {
            let h = DualHead::new(
                Instant::from_ticks(enqueued_at),
                len,
                Ecn::from_bits(ecn as u8),
            );
            verdict(s.on_dequeue(p, Instant::from_ticks(now), q, h, left, rng))
        }
        None => DELIVER,
    }
}

/// The verdict for the head packet just taken from `queue` (the queue
/// `netcond_dualpi2_schedule` named): enqueued at `enqueued_at`, `len` bytes,
/// the low two bits of `ecn` its ECN field, `left` packets left in that queue
/// after it; draws from `rng`. On `NETCOND_CODEL_DROP`, drop it and schedule
/// again. `NETCOND_DUALPI2_NONE`, or a NULL, unstarted or unconfigured
/// argument, gives `NETCOND_CODEL_DELIVER` and changes nothing.
///
/// # Safety
/// Each pointer is NULL or valid; `s` and `rng` are used by one thread.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_dualpi2_on_dequeue(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    queue: netcond_dualpi2_queue,
    enqueued_at: u64,
    len: u32,
    ecn: u32,
    left: u32,
    rng: *mut netcond_rng,
) -> netcond_codel_verdict {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return DELIVER;
    };
    // SAFETY: caller contract, passed on.
    unsafe { dequeue(s, p, now, queue, enqueued_at, len, ecn, left, rng) }
}

/// The old name of `netcond_dualpi2_on_dequeue`, which it calls.
///
/// # Safety
/// As `netcond_dualpi2_on_dequeue`.
#[deprecated(since = "0.1.0", note = "renamed to netcond_dualpi2_on_dequeue")]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_dualpi2_dequeue(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    queue: netcond_dualpi2_queue,
    enqueued_at: u64,
    len: u32,
    ecn: u32,
    left: u32,
    rng: *mut netcond_rng,
) -> netcond_codel_verdict {
    // SAFETY: caller contract, passed on.
    unsafe { netcond_dualpi2_on_dequeue(s, p, now, queue, enqueued_at, len, ecn, left, rng) }
}

/// As `netcond_dualpi2_on_dequeue`, with `draw` (a uniform 64-bit value) for the
/// at most two 32-bit draws the decision takes, high half first.
///
/// # Safety
/// As `netcond_dualpi2_on_dequeue`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_dualpi2_on_dequeue_draw(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    queue: netcond_dualpi2_queue,
    enqueued_at: u64,
    len: u32,
    ecn: u32,
    left: u32,
    draw: u64,
) -> netcond_codel_verdict {
    let mut rng = Draw64 {
        value: draw,
        high_next: true,
    };
    // SAFETY: caller contract, passed on.
    unsafe { dequeue(s, p, now, queue, enqueued_at, len, ecn, left, &mut rng) }
}

/// The old name of `netcond_dualpi2_on_dequeue_draw`, which it calls.
///
/// # Safety
/// As `netcond_dualpi2_on_dequeue_draw`.
#[deprecated(since = "0.1.0", note = "renamed to netcond_dualpi2_on_dequeue_draw")]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_dualpi2_dequeue_draw(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    queue: netcond_dualpi2_queue,
    enqueued_at: u64,
    len: u32,
    ecn: u32,
    left: u32,
    draw: u64,
) -> netcond_codel_verdict {
    // SAFETY: caller contract, passed on.
    unsafe { netcond_dualpi2_on_dequeue_draw(s, p, now, queue, enqueued_at, len, ecn, left, draw) }
}

/// Runs the PI update if it is due at `now` (one Tupdate after the previous
/// one), with the heads' enqueue times as for `netcond_dualpi2_schedule`; the
/// next is then due one Tupdate after `now`. Returns 1 if it ran, 0 if not,
/// `NETCOND_E_NULL` on a NULL, unstarted or unconfigured argument.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_dualpi2_poll(
    s: *mut netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    now: u64,
    has_l4s: c_int,
    l4s_head: u64,
    has_classic: c_int,
    classic_head: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    match unsafe { dual(s, p) } {
        Some((s, p)) => c_int::from(s.poll(
            p,
            Instant::from_ticks(now),
            head(has_l4s, l4s_head),
            head(has_classic, classic_head),
        )),
        None => NETCOND_E_NULL,
    }
}

/// Writes the variables of `s` (with the probabilities `p` derives) to
/// `*info`. Returns 0, or `NETCOND_E_NULL` (leaving `*info` untouched) if an
/// argument is NULL, unstarted or unconfigured.
///
/// # Safety
/// `s`, `p` and `info` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_dualpi2_info_get(
    s: *const netcond_dualpi2,
    p: *const netcond_dualpi2_profile,
    info: *mut netcond_dualpi2_info,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(st), Some(p), Some(out)) = (unsafe {
        (
            profile::<_, DualPi2>(s, TAG_DUALPI2_STATE),
            profile::<_, DualPi2Profile>(p, TAG_DUALPI2),
            info.as_mut(),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    *out = dual_info(st, p);
    NETCOND_OK
}

fn dual_info(st: &DualPi2, p: &DualPi2Profile) -> netcond_dualpi2_info {
    let (l_count, c_count) = st.counts();
    let (served, classic) = st.wrr_position();
    netcond_dualpi2_info {
        p_prime: st.p_prime(),
        p_cl: st.p_cl(p),
        p_c: st.p_c(),
        prevq: st.prevq(),
        l_count,
        c_count,
        next_update: st.next_update().ticks(),
        last_seen: st.last_seen().ticks(),
        wrr_served: u32::from(served),
        wrr_classic_turn: u32::from(classic),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    //! The C calls against `aqm_delay::DualPi2` through the Rust API, call for
    //! call, on seeded random streams; configuration errors and bad
    //! arguments.

    use super::*;
    use crate::delay_ffi::tests::{Rng, NS};
    use crate::errors::{
        NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU, NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE,
        NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING, NETCOND_E_DELAY_DUALPI2_ZERO_TARGET,
        NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD, NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE,
        NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT,
    };
    use crate::red_ffi::netcond_rng_seed;
    use std::collections::VecDeque;

    pub(crate) fn params(scheduler: u32, decision: u32, hz: u64) -> netcond_dualpi2_params {
        netcond_dualpi2_params {
            target_ns: 15_000_000,
            t_update_ns: 15_000_000,
            min_th_ns: 800_000,
            range_ns: 400_000,
            tshift_ns: 40_000_000,
            limit: 3_125_000,
            tick_hz: hz,
            alpha_mhz: 150,
            beta_mhz: 3_000,
            k16: 32,
            th_len: 1,
            mtu: 1500,
            curq_max: 1,
            scheduler,
            decision,
            wrr_l4s: 3,
            wrr_classic: 1,
            reserved: 0,
        }
    }

    fn new_profile(a: &netcond_dualpi2_params) -> (c_int, Box<netcond_dualpi2_profile>) {
        let mut p = Box::new(netcond_dualpi2_profile { opaque: [0; 16] });
        // SAFETY: both pointers are valid.
        let rc = unsafe { netcond_dualpi2_profile_config(&mut *p, a) };
        (rc, p)
    }

    type Fifo = VecDeque<(u64, u32, u32)>;

    fn front(q: &Fifo) -> (c_int, u64) {
        q.front().map_or((0, 0), |h| (1, h.0))
    }

    /// An L4S and a Classic sender over a link in phases of overload and
    /// underload, through the C calls and the Rust state side by side (draws
    /// from a seeded `netcond_rng` or supplied per packet); every answer and,
    /// after every call, every variable must agree. Returns the counts of
    /// delivered, marked and dropped packets and the largest `p'`.
    fn stream(a: &netcond_dualpi2_params, seed: u64, supplied: bool) -> ([u64; 3], u64) {
        let (rc, cp) = new_profile(a);
        assert_eq!(rc, NETCOND_OK);
        let rp = DualPi2Profile::new(&dualpi2_config(a).unwrap()).unwrap();
        let mut cs = netcond_dualpi2 { opaque: [0; 8] };
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_dualpi2_config(&mut cs, &*cp, 0) }, 0);
        let mut rs = DualPi2::new(&rp, Instant::ZERO);
        let mut crng = netcond_rng { opaque: [0] };
        // SAFETY: valid pointer.
        unsafe { netcond_rng_seed(&mut crng, seed) };
        let mut rrng = SplitMix64::new(seed);
        let per_us = a.tick_hz / 1_000_000;
        let mut rng = Rng(seed ^ 0x5eed);
        let (mut lq, mut cq): (Fifo, Fifo) = (VecDeque::new(), VecDeque::new());
        let mut bytes = 0u64;
        let mut now = 0u64;
        let mut counts = [0u64; 3];
        let mut top = 0u64;
        let check = |cs: &netcond_dualpi2, rs: &DualPi2| {
            let mut got = netcond_dualpi2_info::default();
            // SAFETY: valid pointers.
            assert_eq!(unsafe { netcond_dualpi2_info_get(cs, &*cp, &mut got) }, 0);
            assert_eq!(got, dual_info(rs, &rp));
        };
        let t = Instant::from_ticks;
        let rh = |q: &Fifo| q.front().map(|h| t(h.0));
        for i in 0..100_000u64 {
            let r = rng.next();
            let phase = (i / 10_000) % 3;
            now += (r % 100 + 1) * per_us;
            let ((hl, al), (hc, ac)) = (front(&lq), front(&cq));
            // SAFETY: valid pointers.
            let ran = unsafe { netcond_dualpi2_poll(&mut cs, &*cp, now, hl, al, hc, ac) };
            assert_eq!(ran, c_int::from(rs.poll(&rp, t(now), rh(&lq), rh(&cq))));
            let arrive = match phase {
                0 => (r >> 20) % 4 < 3,
                1 => (r >> 20) % 2 == 0,
                _ => (r >> 20) % 4 == 0,
            };
            if arrive {
                let len = 64 + ((r >> 24) % 1437) as u32;
                let ecn = ((r >> 40) % 4) as u32;
                // SAFETY: valid pointers.
                let c = unsafe { netcond_dualpi2_enqueue(&mut cs, &*cp, now, ecn, len, bytes) };
                let want = rs.on_arrival(&rp, t(now), Ecn::from_bits(ecn as u8), len, bytes);
                assert_eq!(c, queue_code(want), "step {i}");
                match want {
                    Some(DualQueue::L4s) => lq.push_back((now, len, ecn)),
                    Some(DualQueue::Classic) => cq.push_back((now, len, ecn)),
                    None => counts[2] += 1,
                }
                if want.is_some() {
                    bytes += u64::from(len);
                }
                check(&cs, &rs);
            }
            // The link: one packet per step in two.
            if (r >> 50) % 2 == 0 {
                loop {
                    let ((hl, al), (hc, ac)) = (front(&lq), front(&cq));
                    // SAFETY: valid pointers.
                    let c = unsafe { netcond_dualpi2_schedule(&mut cs, &*cp, now, hl, al, hc, ac) };
                    let want = rs.schedule(&rp, t(now), rh(&lq), rh(&cq));
                    assert_eq!(c, queue_code(want), "step {i}");
                    let Some(q) = want else { break };
                    let fifo = if q == DualQueue::L4s {
                        &mut lq
                    } else {
                        &mut cq
                    };
                    let (at, len, ecn) = fifo.pop_front().unwrap();
                    bytes -= u64::from(len);
                    let left = fifo.len() as u32;
                    let draw = rng.next();
                    // SAFETY: valid pointers. Every other step through
                    // the old names, which must do the same.
                    #[allow(deprecated)]
                    let v = unsafe {
                        match (supplied, i % 2 == 0) {
                            (true, true) => netcond_dualpi2_on_dequeue_draw(
                                &mut cs, &*cp, now, c, at, len, ecn, left, draw,
                            ),
                            (true, false) => netcond_dualpi2_dequeue_draw(
                                &mut cs, &*cp, now, c, at, len, ecn, left, draw,
                            ),
                            (false, true) => netcond_dualpi2_on_dequeue(
                                &mut cs, &*cp, now, c, at, len, ecn, left, &mut crng,
                            ),
                            (false, false) => netcond_dualpi2_dequeue(
                                &mut cs, &*cp, now, c, at, len, ecn, left, &mut crng,
                            ),
                        }
                    };
                    let h = DualHead::new(t(at), len, Ecn::from_bits(ecn as u8));
                    let w = if supplied {
                        let mut d = Draw64 {
                            value: draw,
                            high_next: true,
                        };
                        rs.on_dequeue(&rp, t(now), q, h, left, &mut d)
                    } else {
                        rs.on_dequeue(&rp, t(now), q, h, left, &mut rrng)
                    };
                    assert_eq!(v, verdict(w), "step {i}");
                    check(&cs, &rs);
                    counts[v as usize] += 1;
                    if w != Verdict::Drop {
                        break;
                    }
                }
            }
            top = top.max(rs.p_prime());
        }
        (counts, top)
    }

    #[test]
    fn c_calls_give_the_rust_verdicts_call_for_call() {
        let configs = [params(0, 0, NS), params(1, 1, NS), params(0, 2, 1_000_000)];
        for (k, a) in configs.iter().enumerate() {
            for supplied in [false, true] {
                let (counts, top) = stream(a, 11 + k as u64, supplied);
                // The overload brought p' up: marks and drops.
                assert!(
                    counts[1] > 1000 && counts[2] > 100 && top > NETCOND_DUALPI2_P_ONE / 100,
                    "{k}: {counts:?} {top}"
                );
            }
        }
    }

    #[test]
    fn errors_and_bad_arguments() {
        let good = params(1, 0, NS);
        let (rc, p) = new_profile(&good);
        assert_eq!(rc, 0);
        type Case = (fn(&mut netcond_dualpi2_params), c_int);
        let cases: [Case; 13] = [
            (|a| a.target_ns = 0, NETCOND_E_DELAY_DUALPI2_ZERO_TARGET),
            (|a| a.t_update_ns = 0, NETCOND_E_DELAY_DUALPI2_ZERO_UPDATE),
            (|a| a.k16 = 0, NETCOND_E_DELAY_DUALPI2_ZERO_COUPLING),
            (
                |a| (a.min_th_ns, a.range_ns) = (0, 0),
                NETCOND_E_DELAY_DUALPI2_ZERO_THRESHOLD,
            ),
            (|a| a.limit = 1499, NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU),
            (|a| a.mtu = 0, NETCOND_E_DELAY_DUALPI2_LIMIT_BELOW_MTU),
            (|a| a.wrr_classic = 0, NETCOND_E_DELAY_DUALPI2_ZERO_WEIGHT),
            (
                |a| a.alpha_mhz = 1_000_001,
                NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE,
            ),
            (
                |a| a.target_ns = 1 << 40,
                NETCOND_E_DELAY_DUALPI2_PARAMETER_TOO_LARGE,
            ),
            (|a| a.scheduler = 2, NETCOND_E_ENUM),
            (|a| a.decision = 3, NETCOND_E_ENUM),
            (|a| a.curq_max = 2, NETCOND_E_ENUM),
            (|a| a.tick_hz = 0, NETCOND_E_TICK),
        ];
        for (n, (f, want)) in cases.into_iter().enumerate() {
            let mut a = good;
            f(&mut a);
            assert_eq!(new_profile(&a).0, want, "case {n}");
        }
        let never = netcond_dualpi2_profile { opaque: [0; 16] };
        let zeros = netcond_dualpi2 { opaque: [0; 8] };
        let mut s = zeros;
        let mut rng = netcond_rng { opaque: [0] };
        let l4s = netcond_dualpi2_queue::NETCOND_DUALPI2_L4S;
        let classic = netcond_dualpi2_queue::NETCOND_DUALPI2_CLASSIC;
        let none = netcond_dualpi2_queue::NETCOND_DUALPI2_NONE;
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            netcond_rng_seed(&mut rng, 1);
            assert_eq!(netcond_dualpi2_config(&mut s, &never, 0), NETCOND_E_NULL);
            assert_eq!(
                netcond_dualpi2_config(core::ptr::null_mut(), &*p, 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_dualpi2_config(&mut s, core::ptr::null(), 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_dualpi2_profile_config(core::ptr::null_mut(), &good),
                NETCOND_E_NULL
            );
            let mut q = netcond_dualpi2_profile { opaque: [0; 16] };
            assert_eq!(
                netcond_dualpi2_profile_config(&mut q, core::ptr::null()),
                NETCOND_E_NULL
            );
            // Unstarted: the classifier's answer, nothing else, nothing changed.
            let mut z = zeros;
            assert_eq!(netcond_dualpi2_enqueue(&mut z, &*p, 1, 1, 100, 0), l4s);
            assert_eq!(netcond_dualpi2_enqueue(&mut z, &*p, 1, 3, 100, 0), l4s);
            assert_eq!(netcond_dualpi2_enqueue(&mut z, &*p, 1, 2, 100, 0), classic);
            assert_eq!(
                netcond_dualpi2_enqueue(&mut z, &*p, 1, 4, 100, 1 << 40),
                classic
            );
            assert_eq!(netcond_dualpi2_schedule(&mut z, &*p, 1, 1, 0, 1, 0), none);
            assert_eq!(
                netcond_dualpi2_on_dequeue(&mut z, &*p, 1, l4s, 0, 100, 1, 5, &mut rng),
                DELIVER
            );
            assert_eq!(
                netcond_dualpi2_on_dequeue_draw(&mut z, &*p, 1, classic, 0, 100, 0, 5, 0),
                DELIVER
            );
            assert_eq!(
                netcond_dualpi2_poll(&mut z, &*p, 1 << 40, 1, 0, 1, 0),
                NETCOND_E_NULL
            );
            assert_eq!(z.opaque, zeros.opaque);
            let mut info = netcond_dualpi2_info::default();
            assert_eq!(netcond_dualpi2_info_get(&z, &*p, &mut info), NETCOND_E_NULL);
            assert_eq!(netcond_dualpi2_config(&mut s, &*p, 5), 0);
            assert_eq!(
                netcond_dualpi2_info_get(&s, &never, &mut info),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_dualpi2_info_get(&s, &*p, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_dualpi2_info_get(&s, &*p, &mut info), 0);
            assert_eq!((info.next_update, info.last_seen), (15_000_005, 5));
            // The shared buffer: full when the bytes queued plus an MTU
            // exceed the limit.
            assert_eq!(
                netcond_dualpi2_enqueue(&mut s, &*p, 6, 0, 100, 3_123_500),
                classic
            );
            assert_eq!(
                netcond_dualpi2_enqueue(&mut s, &*p, 6, 1, 100, 3_123_501),
                none
            );
            // NULL generator, NONE queue: deliver, nothing changes.
            let before = s;
            assert_eq!(
                netcond_dualpi2_on_dequeue(
                    &mut s,
                    &*p,
                    7,
                    l4s,
                    0,
                    100,
                    1,
                    5,
                    core::ptr::null_mut()
                ),
                DELIVER
            );
            assert_eq!(
                netcond_dualpi2_on_dequeue(&mut s, &*p, 7, none, 0, 100, 1, 5, &mut rng),
                DELIVER
            );
            assert_eq!(s.opaque, before.opaque);
            // The round robin, 3 L4S then 1 Classic, both backlogged.
            let mut order = Vec::new();
            for k in 0..8u64 {
                let q = netcond_dualpi2_schedule(&mut s, &*p, 10 + k, 1, 9, 1, 8);
                order.push(q as u32);
                netcond_dualpi2_on_dequeue_draw(&mut s, &*p, 10 + k, q, 9, 100, 1, 5, u64::MAX);
            }
            assert_eq!(order, [0, 0, 0, 1, 0, 0, 0, 1]);
            assert_eq!(netcond_dualpi2_schedule(&mut s, &*p, 20, 0, 0, 0, 0), none);
            assert_eq!(
                netcond_dualpi2_schedule(&mut s, &*p, 20, 0, 0, 1, 0),
                classic
            );
        }
    }
}

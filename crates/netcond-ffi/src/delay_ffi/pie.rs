//! PIE (RFC 8033) in C: `aqm_delay::Pie` with the integer arithmetic of
//! Linux's `sch_pie` (probability in units of 2^-56, time in 64 ns units,
//! the queue delay measured from each departing packet's timestamp).
//!
//! PIE decides at enqueue: for each arrival the caller passes the packets and
//! bytes already queued and gets `NETCOND_PIE_ENQUEUE`, `NETCOND_PIE_MARK` or
//! `NETCOND_PIE_DROP`; for each departure it calls `netcond_pie_on_dequeue`
//! with the packet's enqueue time, which measures the queue delay; and it
//! calls `netcond_pie_poll` on every event or from a timer, which runs the
//! drop-probability update once T_UPDATE has passed. Random draws come from a
//! `netcond_rng` the caller seeds (the crate's SplitMix64, so the same seed
//! gives the Rust API's decisions) or from a 64-bit value passed with the
//! packet (`netcond_pie_enqueue_draw`): PIE takes at most one draw of 64
//! bits per arrival (two 32-bit values, high half first, from a
//! `netcond_rng`).

use super::*;
use aqm_delay::{Pie, PieConfig, PieProfile};
use netcond_core::{RandomSource, SplitMix64};

use crate::red_ffi::netcond_rng;
use crate::state;

/// Size in bytes of a `netcond_pie_profile`.
pub const NETCOND_PIE_PROFILE_SIZE: usize = 128;
/// Size in bytes of a `netcond_pie` (one queue's state).
pub const NETCOND_PIE_STATE_SIZE: usize = 104;
/// Probability one in PIE's fixed point (Linux's `MAX_PROB`, 2^56 - 1).
pub const NETCOND_PIE_MAX_PROB: u64 = 72_057_594_037_927_935;

const _: () = assert!(NETCOND_PIE_MAX_PROB == aqm_delay::MAX_PROB);

/// What to do with an arriving packet.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_pie_verdict {
    /// Queue it unchanged. Also the answer to a NULL or unusable argument.
    NETCOND_PIE_ENQUEUE = 0,
    /// Set CE (RFC 3168 section 5) and queue it.
    NETCOND_PIE_MARK = 1,
    /// Drop it (the queue's limit, or PIE's random early drop).
    NETCOND_PIE_DROP = 2,
}

/// The parameters of a PIE queue (RFC 8033 section 4's names, Linux
/// `sch_pie`'s units).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_pie_params {
    /// QDELAY_REF, ns (RFC 8033 section 4.2; 15 ms is 15000000).
    pub target_ns: u64,
    /// T_UPDATE, ns (section 4.2; 15 ms).
    pub t_update_ns: u64,
    /// MAX_BURST, ns (section 4.4; 150 ms).
    pub max_burst_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// alpha in units of 1/16 Hz, at most 32 (2 is RFC 8033's 0.125).
    pub alpha: u32,
    /// beta in units of 1/16 Hz, at most 32 (20 is RFC 8033's 1.25).
    pub beta: u32,
    /// The packet limit: an arrival to a queue holding this many is dropped
    /// (Linux: 1000).
    pub limit: u32,
    /// The MTU in bytes: no early drop below two of them queued; byte mode
    /// scales by it (Linux: 1514).
    pub mtu: u32,
    /// 1 to mark ECN-capable packets instead of dropping them while the drop
    /// probability is at most 10 %, else 0.
    pub ecn: u32,
    /// 1 for byte mode (probability scaled by `len / mtu`), else 0.
    pub bytemode: u32,
    /// 1 to bound the probability to one after each update (RFC 8033
    /// section 4.2), 0 to let it grow past one as Linux does.
    pub bound_prob: u32,
    /// Reserved, set to 0.
    pub reserved0: u32,
    /// Reserved, set to 0.
    pub reserved: u64,
}

/// A validated PIE profile (opaque; read-only once configured).
#[repr(C, align(64))]
pub struct netcond_pie_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// One PIE queue's state: 104 bytes (opaque; must be started by
/// `netcond_pie_config`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct netcond_pie {
    /// Opaque.
    pub opaque: [u64; 13],
}

/// What a `netcond_pie` holds (Linux's `struct pie_vars`), for logs and tests.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_pie_info {
    /// The drop probability, in units of 2^-56 (`NETCOND_PIE_MAX_PROB` is
    /// one; without `bound_prob` it may exceed it).
    pub prob: u64,
    /// The derandomization's accumulated probability, same units.
    pub accu_prob: u64,
    /// The queue delay estimate, 64 ns units.
    pub qdelay: u64,
    /// The queue delay at the previous update, 64 ns units.
    pub qdelay_old: u64,
    /// The burst allowance left, 64 ns units.
    pub burst_time: u64,
    /// When the next update is due, ticks.
    pub next_update: u64,
    /// The newest instant seen, ticks.
    pub last_seen: u64,
}

const _: () = assert!(core::mem::size_of::<netcond_pie_profile>() == NETCOND_PIE_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_pie>() == NETCOND_PIE_STATE_SIZE);
const _: () = assert!(core::mem::align_of::<netcond_pie>() == 8);
const _: () = assert!(core::mem::size_of::<netcond_pie_params>() == 72);
const _: () = assert!(core::mem::size_of::<netcond_pie_info>() == 56);
const _: () = assert!(crate::fits::<netcond_pie, crate::Tagged<Pie>>());
const _: () = assert!(crate::fits::<netcond_pie_profile, crate::Tagged<PieProfile>>());

pub(super) const TAG_PIE: u64 = 0x6e63_7069;
const TAG_PIE_STATE: u64 = 0x6e63_7073;

/// A 64-bit draw supplied by the caller: high half first, as PIE reads a
/// `netcond_rng`.
pub(super) struct Draw64 {
    pub(super) value: u64,
    pub(super) high_next: bool,
}

impl RandomSource for Draw64 {
    fn next_u32(&mut self) -> u32 {
        let v = if self.high_next {
            (self.value >> 32) as u32
        } else {
            self.value as u32
        };
        self.high_next = !self.high_next;
        v
    }
}

pub(super) fn pie_verdict(v: Verdict) -> netcond_pie_verdict {
    match v {
        Verdict::Deliver => netcond_pie_verdict::NETCOND_PIE_ENQUEUE,
        Verdict::Mark => netcond_pie_verdict::NETCOND_PIE_MARK,
        Verdict::Drop => netcond_pie_verdict::NETCOND_PIE_DROP,
    }
}

pub(super) fn flag(v: u32) -> Result<bool, c_int> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(NETCOND_E_ENUM),
    }
}

/// The Rust configuration of `a`, or the status refusing it.
pub(super) fn pie_config(a: &netcond_pie_params) -> Result<PieConfig, c_int> {
    crate::errors::reserved_zero(&[a.reserved0.into(), a.reserved])?;
    let tick = TickRate::from_hz(a.tick_hz).ok_or(NETCOND_E_TICK)?;
    Ok(PieConfig::linux()
        .with_target(Duration::from_nanos(a.target_ns))
        .with_t_update(Duration::from_nanos(a.t_update_ns))
        .with_max_burst(Duration::from_nanos(a.max_burst_ns))
        .with_alpha_beta(a.alpha, a.beta)
        .with_limit(a.limit)
        .with_mtu(a.mtu)
        .with_ecn(flag(a.ecn)?)
        .with_bytemode(flag(a.bytemode)?)
        .with_bound_prob(flag(a.bound_prob)?)
        .with_tick(tick))
}

/// Validates `params` and writes the profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` (a flag out of range)
/// or a `NETCOND_E_DELAY_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_profile_config(
    p: *mut netcond_pie_profile,
    params: *const netcond_pie_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_PIE, |a| {
            PieProfile::new(&pie_config(a)?).map_err(delay_code)
        })
    }
}

/// Starts queue state `s` on profile `p` at `now`: probability 0, the full
/// burst allowance, the first update due one T_UPDATE after `now`. Returns 0
/// or `NETCOND_E_NULL` (`s` or `p` NULL, or `p` not configured).
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_config(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_queue(s, p, TAG_PIE, TAG_PIE_STATE, now, Pie::new) }
}

/// The state and profile, if both are present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
#[inline(always)]
unsafe fn pie<'a>(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
) -> Option<(&'a mut Pie, &'a PieProfile)> {
    // SAFETY: caller contract, passed on.
    unsafe { queue_and_profile(s, p, TAG_PIE, TAG_PIE_STATE) }
}

const ENQUEUE: netcond_pie_verdict = netcond_pie_verdict::NETCOND_PIE_ENQUEUE;

/// The verdict for a packet of `len` bytes, ECN-capable if `ecn_capable` is 1
/// (ECT(0), ECT(1) or CE; any other value counts as not-ECT), arriving at
/// `now` to a queue holding `qlen` packets and `backlog` bytes (the arrival
/// not included), with draws from `rng`. A NULL, unstarted or unconfigured
/// argument gives `NETCOND_PIE_ENQUEUE` and changes nothing.
///
/// # Safety
/// Each pointer is NULL or valid; `s` and `rng` are used by one thread.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_pie_enqueue(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
    now: u64,
    len: u32,
    ecn_capable: c_int,
    qlen: u32,
    backlog: u64,
    rng: *mut netcond_rng,
) -> netcond_pie_verdict {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return ENQUEUE;
    };
    // SAFETY: caller contract, passed on.
    match unsafe { pie(s, p) } {
        Some((s, p)) => pie_verdict(s.on_arrival(
            p,
            Instant::from_ticks(now),
            Head::new(Instant::from_ticks(now), len, ecn_capable == 1),
            qlen,
            backlog,
            rng,
        )),
        None => ENQUEUE,
    }
}

/// As `netcond_pie_enqueue`, with `draw` (a uniform 64-bit value) for the
/// one random draw the decision may take.
///
/// # Safety
/// As `netcond_pie_enqueue`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_pie_enqueue_draw(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
    now: u64,
    len: u32,
    ecn_capable: c_int,
    qlen: u32,
    backlog: u64,
    draw: u64,
) -> netcond_pie_verdict {
    let mut rng = Draw64 {
        value: draw,
        high_next: true,
    };
    // SAFETY: caller contract, passed on.
    match unsafe { pie(s, p) } {
        Some((s, p)) => pie_verdict(s.on_arrival(
            p,
            Instant::from_ticks(now),
            Head::new(Instant::from_ticks(now), len, ecn_capable == 1),
            qlen,
            backlog,
            &mut rng,
        )),
        None => ENQUEUE,
    }
}

/// A packet enqueued at `enqueued_at` (ticks) left the queue at `now`, with
/// `backlog` bytes left after it: the queue delay becomes its sojourn time
/// (0 if the queue is now empty) and the time since the previous departure
/// is taken from the burst allowance. Does nothing on a NULL, unstarted or
/// unconfigured argument.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_on_dequeue(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
    now: u64,
    enqueued_at: u64,
    len: u32,
    backlog: u64,
) {
    // SAFETY: caller contract, passed on.
    if let Some((s, p)) = unsafe { pie(s, p) } {
        s.on_dequeue(
            p,
            Instant::from_ticks(now),
            Head::new(Instant::from_ticks(enqueued_at), len, false),
            backlog,
        );
    }
}

/// The old name of `netcond_pie_on_dequeue`, which it calls.
///
/// # Safety
/// As `netcond_pie_on_dequeue`.
#[deprecated(since = "0.1.0", note = "renamed to netcond_pie_on_dequeue")]
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_dequeue(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
    now: u64,
    enqueued_at: u64,
    len: u32,
    backlog: u64,
) {
    // SAFETY: caller contract, passed on.
    unsafe { netcond_pie_on_dequeue(s, p, now, enqueued_at, len, backlog) }
}

/// Runs the drop-probability update if it is due at `now` (one T_UPDATE
/// after the previous one), with `backlog` bytes queued; the next is then due
/// one T_UPDATE after `now`. Returns 1 if it ran, 0 if not,
/// `NETCOND_E_NULL` on a NULL, unstarted or unconfigured argument.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_poll(
    s: *mut netcond_pie,
    p: *const netcond_pie_profile,
    now: u64,
    backlog: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    match unsafe { pie(s, p) } {
        Some((s, p)) => c_int::from(s.poll(p, Instant::from_ticks(now), backlog)),
        None => NETCOND_E_NULL,
    }
}

/// The drop probability of `s` in units of 2^-56 (`NETCOND_PIE_MAX_PROB` is
/// one), or 0 if `s` is NULL or unstarted.
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_prob(s: *const netcond_pie) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Pie>(s, TAG_PIE_STATE) } {
        Some(st) => st.prob(),
        None => 0,
    }
}

/// Writes the variables of `s` to `*info`. Returns 0, or `NETCOND_E_NULL`
/// (leaving `*info` untouched) if `s` or `info` is NULL or `s` is unstarted.
///
/// # Safety
/// `s` and `info` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_pie_info_get(
    s: *const netcond_pie,
    info: *mut netcond_pie_info,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(st), Some(out)) = (unsafe { (profile::<_, Pie>(s, TAG_PIE_STATE), info.as_mut()) })
    else {
        return NETCOND_E_NULL;
    };
    *out = pie_info(st);
    NETCOND_OK
}

pub(super) fn pie_info(st: &Pie) -> netcond_pie_info {
    netcond_pie_info {
        prob: st.prob(),
        accu_prob: st.accu_prob(),
        qdelay: st.qdelay(),
        qdelay_old: st.qdelay_old(),
        burst_time: st.burst_time(),
        next_update: st.next_update().ticks(),
        last_seen: st.last_seen().ticks(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    //! The C calls against `aqm_delay::Pie` through the Rust API, call for
    //! call, on seeded random streams; configuration errors and bad
    //! arguments.

    use super::*;
    use crate::delay_ffi::tests::{Rng, NS};
    use crate::errors::{
        NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE, NETCOND_E_DELAY_ZERO_LIMIT,
        NETCOND_E_DELAY_ZERO_MTU, NETCOND_E_DELAY_ZERO_TARGET, NETCOND_E_DELAY_ZERO_UPDATE,
    };
    use crate::red_ffi::netcond_rng_seed;
    use std::collections::VecDeque;

    fn params(ecn: u32, bytemode: u32, bound: u32, hz: u64) -> netcond_pie_params {
        netcond_pie_params {
            target_ns: 15_000_000,
            t_update_ns: 15_000_000,
            max_burst_ns: 150_000_000,
            tick_hz: hz,
            alpha: 2,
            beta: 20,
            limit: 200,
            mtu: 1514,
            ecn,
            bytemode,
            bound_prob: bound,
            reserved0: 0,
            reserved: 0,
        }
    }

    fn new_profile(a: &netcond_pie_params) -> (c_int, Box<netcond_pie_profile>) {
        let mut p = Box::new(netcond_pie_profile { opaque: [0; 16] });
        // SAFETY: both pointers are valid.
        let rc = unsafe { netcond_pie_profile_config(&mut *p, a) };
        (rc, p)
    }

    /// A queue in phases of overload and underload with idle gaps, driven
    /// through the C calls and the Rust state side by side (draws from a
    /// seeded `netcond_rng` or supplied per packet); every verdict, update
    /// and, after every call, every variable must agree. Returns the counts
    /// of enqueues, marks, drops, and the largest probability.
    fn stream(a: &netcond_pie_params, seed: u64, supplied: bool) -> ([u64; 3], u64) {
        let (rc, cp) = new_profile(a);
        assert_eq!(rc, NETCOND_OK);
        let rp = PieProfile::new(&pie_config(a).unwrap()).unwrap();
        let mut cs = netcond_pie { opaque: [0; 13] };
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_pie_config(&mut cs, &*cp, 0) }, 0);
        let mut rs = Pie::new(&rp, Instant::ZERO);
        let mut crng = netcond_rng { opaque: [0] };
        // SAFETY: valid pointer.
        unsafe { netcond_rng_seed(&mut crng, seed) };
        let mut rrng = SplitMix64::new(seed);
        let per_us = a.tick_hz / 1_000_000;
        let mut rng = Rng(seed ^ 0xabcd);
        let mut q: VecDeque<(u64, u32)> = VecDeque::new();
        let mut bytes = 0u64;
        let mut now = 0u64;
        let mut counts = [0u64; 3];
        let mut top = 0u64;
        let check = |cs: &netcond_pie, rs: &Pie| {
            let mut got = netcond_pie_info::default();
            // SAFETY: valid pointers.
            assert_eq!(unsafe { netcond_pie_info_get(cs, &mut got) }, 0);
            assert_eq!(got, pie_info(rs));
        };
        for i in 0..200_000u64 {
            let r = rng.next();
            // Phases of 20000 steps: arrivals 1.5, 1 and 0.5 times the link.
            let phase = (i / 20_000) % 3;
            now += (r % 200 + 1) * per_us;
            if (r >> 12) % 5000 == 0 {
                now += 300_000 * per_us; // an idle gap of 300 ms
            }
            // SAFETY: valid pointers.
            let ran = unsafe { netcond_pie_poll(&mut cs, &*cp, now, bytes) };
            assert_eq!(
                ran,
                c_int::from(rs.poll(&rp, Instant::from_ticks(now), bytes))
            );
            let arrive = match phase {
                0 => (r >> 20) % 4 < 3,
                1 => (r >> 20) % 2 == 0,
                _ => (r >> 20) % 4 == 0,
            };
            if arrive {
                let len = 64 + ((r >> 24) % 1451) as u32;
                let ecn = c_int::from((r >> 40) % 2 == 0);
                let draw = rng.next();
                let qlen = q.len() as u32;
                // SAFETY: valid pointers.
                let c = unsafe {
                    if supplied {
                        netcond_pie_enqueue_draw(&mut cs, &*cp, now, len, ecn, qlen, bytes, draw)
                    } else {
                        netcond_pie_enqueue(&mut cs, &*cp, now, len, ecn, qlen, bytes, &mut crng)
                    }
                };
                let head = Head::new(Instant::from_ticks(now), len, ecn == 1);
                let want = if supplied {
                    let mut d = Draw64 {
                        value: draw,
                        high_next: true,
                    };
                    rs.on_arrival(&rp, Instant::from_ticks(now), head, qlen, bytes, &mut d)
                } else {
                    rs.on_arrival(&rp, Instant::from_ticks(now), head, qlen, bytes, &mut rrng)
                };
                assert_eq!(c, pie_verdict(want), "step {i}");
                counts[c as usize] += 1;
                if c != netcond_pie_verdict::NETCOND_PIE_DROP {
                    q.push_back((now, len));
                    bytes += u64::from(len);
                }
                check(&cs, &rs);
            }
            // The link: one packet per step in two.
            if (r >> 50) % 2 == 0 {
                if let Some((at, len)) = q.pop_front() {
                    bytes -= u64::from(len);
                    // SAFETY: valid pointers. Every other step through
                    // the old name, which must do the same.
                    #[allow(deprecated)]
                    unsafe {
                        if i % 2 == 0 {
                            netcond_pie_on_dequeue(&mut cs, &*cp, now, at, len, bytes)
                        } else {
                            netcond_pie_dequeue(&mut cs, &*cp, now, at, len, bytes)
                        }
                    };
                    rs.on_dequeue(
                        &rp,
                        Instant::from_ticks(now),
                        Head::new(Instant::from_ticks(at), len, false),
                        bytes,
                    );
                    check(&cs, &rs);
                }
            }
            top = top.max(rs.prob());
        }
        (counts, top)
    }

    #[test]
    fn c_calls_give_the_rust_verdicts_call_for_call() {
        let configs = [
            params(0, 0, 0, NS),
            params(1, 0, 0, NS),
            params(0, 1, 1, NS),
            params(1, 0, 1, 1_000_000),
        ];
        for (k, a) in configs.iter().enumerate() {
            for supplied in [false, true] {
                let (counts, top) = stream(a, 7 + k as u64, supplied);
                // The stream brought the probability up and dropped early.
                assert!(
                    counts[2] > 1000 && top > NETCOND_PIE_MAX_PROB / 100,
                    "{k}: {counts:?} {top}"
                );
                if a.ecn == 1 {
                    assert!(counts[1] > 10, "{k}: {counts:?}");
                } else {
                    assert_eq!(counts[1], 0, "{k}: {counts:?}");
                }
            }
        }
    }

    #[test]
    fn supplied_draw_is_read_high_half_first() {
        let mut d = Draw64 {
            value: 0x1122_3344_5566_7788,
            high_next: true,
        };
        assert_eq!(d.next_u32(), 0x1122_3344);
        assert_eq!(d.next_u32(), 0x5566_7788);
    }

    #[test]
    fn errors_and_bad_arguments() {
        let good = params(0, 0, 0, NS);
        let (rc, p) = new_profile(&good);
        assert_eq!(rc, 0);
        type Case = (fn(&mut netcond_pie_params), c_int);
        let cases: [Case; 10] = [
            (|a| a.target_ns = 63, NETCOND_E_DELAY_ZERO_TARGET),
            (|a| a.t_update_ns = 0, NETCOND_E_DELAY_ZERO_UPDATE),
            (|a| a.limit = 0, NETCOND_E_DELAY_ZERO_LIMIT),
            (|a| a.mtu = 0, NETCOND_E_DELAY_ZERO_MTU),
            (|a| a.alpha = 33, NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE),
            (
                |a| a.max_burst_ns = 1 << 40,
                NETCOND_E_DELAY_PIE_PARAMETER_TOO_LARGE,
            ),
            (|a| a.ecn = 2, NETCOND_E_ENUM),
            (|a| a.bytemode = 2, NETCOND_E_ENUM),
            (|a| a.bound_prob = 7, NETCOND_E_ENUM),
            (|a| a.tick_hz = 0, NETCOND_E_TICK),
        ];
        for (f, want) in cases {
            let mut a = good;
            f(&mut a);
            assert_eq!(new_profile(&a).0, want);
        }
        let mut a = good;
        a.tick_hz = 0;
        let (_, bad) = new_profile(&a);
        let never = netcond_pie_profile { opaque: [0; 16] };
        let mut s = netcond_pie { opaque: [0; 13] };
        let zeros = netcond_pie { opaque: [0; 13] };
        let mut rng = netcond_rng { opaque: [0] };
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            netcond_rng_seed(&mut rng, 1);
            assert_eq!(netcond_pie_config(&mut s, &*bad, 0), NETCOND_E_NULL);
            assert_eq!(netcond_pie_config(&mut s, &never, 0), NETCOND_E_NULL);
            assert_eq!(
                netcond_pie_config(core::ptr::null_mut(), &*p, 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_pie_config(&mut s, core::ptr::null(), 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_pie_profile_config(core::ptr::null_mut(), &good),
                NETCOND_E_NULL
            );
            let mut q = netcond_pie_profile { opaque: [0; 16] };
            assert_eq!(
                netcond_pie_profile_config(&mut q, core::ptr::null()),
                NETCOND_E_NULL
            );
            // An unstarted (all-zero) state is refused like NULL.
            let mut z = zeros;
            assert_eq!(
                netcond_pie_enqueue(&mut z, &*p, 1, 1500, 0, 5000, 1 << 30, &mut rng),
                ENQUEUE
            );
            assert_eq!(
                netcond_pie_enqueue_draw(&mut z, &*p, 1, 1500, 0, 5000, 1 << 30, 0),
                ENQUEUE
            );
            netcond_pie_on_dequeue(&mut z, &*p, 1, 0, 1500, 0);
            assert_eq!(netcond_pie_poll(&mut z, &*p, 1 << 40, 0), NETCOND_E_NULL);
            assert_eq!(z.opaque, zeros.opaque);
            assert_eq!(netcond_pie_prob(&z), 0);
            assert_eq!(netcond_pie_config(&mut s, &*p, 0), 0);
            assert_eq!(
                netcond_pie_enqueue(&mut s, &never, 1, 1, 0, 0, 0, &mut rng),
                ENQUEUE
            );
            assert_eq!(
                netcond_pie_enqueue(&mut s, &*p, 1, 1, 0, 0, 0, core::ptr::null_mut()),
                ENQUEUE
            );
            assert_eq!(
                netcond_pie_enqueue(core::ptr::null_mut(), &*p, 1, 1, 0, 0, 0, &mut rng),
                ENQUEUE
            );
            netcond_pie_on_dequeue(core::ptr::null_mut(), &*p, 1, 0, 1, 0);
            netcond_pie_on_dequeue(&mut s, core::ptr::null(), 1, 0, 1, 0);
            assert_eq!(
                netcond_pie_poll(core::ptr::null_mut(), &*p, 1, 0),
                NETCOND_E_NULL
            );
            // The queue limit: an arrival to a full queue is dropped.
            assert_eq!(
                netcond_pie_enqueue(&mut s, &*p, 1, 100, 0, 200, 20_000, &mut rng),
                netcond_pie_verdict::NETCOND_PIE_DROP
            );
            assert_eq!(
                netcond_pie_info_get(&s, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            let mut i = netcond_pie_info::default();
            assert_eq!(
                netcond_pie_info_get(core::ptr::null(), &mut i),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_pie_info_get(&s, &mut i), 0);
            assert_eq!(i.burst_time, 150_000_000 >> 6);
            assert_eq!(i.next_update, 15_000_000);
        }
    }
}

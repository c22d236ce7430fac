//! CoDel (RFC 8289) as the Rust crate `aqm-delay` implements it (`Codel`,
//! `CodelProfile`), with its two control laws: the exact law on the caller's
//! ticks, and Linux's arithmetic (time in 1024 ns units, a cached reciprocal
//! square root) with the state machine of either the Linux kernel or ns-3's
//! `CoDelQueueDisc` around it.
//!
//! CoDel decides at dequeue and keeps no packets: for each packet the caller
//! takes from the head of its queue, `netcond_codel_on_dequeue` gets the
//! packet's enqueue time, length and ECN capability and the bytes still queued
//! behind it, and returns a verdict. After `NETCOND_CODEL_DROP` the caller
//! drops the packet and asks again, at the same `now`, for the next head, or
//! calls `netcond_codel_queue_empty` when there is none (one turn of RFC 8289's
//! dequeue loop); it calls `netcond_codel_queue_empty` too when a dequeue finds
//! the queue empty.
//!
//! FQ-CoDel (RFC 8290; `FqCodel<1024>`, Linux's number of flows) is the same
//! CoDel per flow queue with a deficit-round-robin scheduler: the caller keeps
//! one FIFO per flow, tells `netcond_fq_codel_enqueue` about each packet it
//! pushed (and drops head packets of the fattest flow through its callback
//! when the queue is over its limit), asks `netcond_fq_codel_schedule` which
//! flow to serve, and `netcond_fq_codel_on_dequeue` for the verdict on that
//! flow's head.
//!
//! PIE (RFC 8033; `Pie`, in Linux `sch_pie`'s integers) decides at enqueue
//! from a drop probability that `netcond_pie_poll` updates every T_UPDATE
//! from the queue delay `netcond_pie_on_dequeue` measures (see `delay_ffi/pie.rs`).
//!
//! Durations are nanoseconds (`*_ns`), times are ticks of `tick_hz`.

use core::ffi::c_int;
use core::time::Duration;

use aqm_delay::{
    Codel, CodelConfig, CodelProfile, ControlLaw, Enqueued, FqCodelConfig, FqCodelProfile, Head,
    LinuxVariant, OverflowDrop, Verdict,
};
use netcond_core::{Instant, TickRate};

use crate::errors::{delay_code, NETCOND_E_ENUM, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_OK};
use crate::trtcm_ffi::configure;
use crate::{profile, profile_mut, store_profile};

/// Size in bytes of a `netcond_codel_profile`.
pub const NETCOND_CODEL_PROFILE_SIZE: usize = 128;
/// Size in bytes of a `netcond_codel` (one queue's state).
pub const NETCOND_CODEL_STATE_SIZE: usize = 48;

/// How CoDel computes the next drop time, `t + INTERVAL / sqrt(count)`
/// (RFC 8289 section 5.6).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_codel_law {
    /// Exact on the caller's ticks: `t + floor(interval / sqrt(count))`, with
    /// RFC 8289's pseudocode around it.
    NETCOND_CODEL_EXACT = 0,
    /// Linux's arithmetic (`include/net/codel.h`): `uint32_t` time in units of
    /// 1024 ns, `1/sqrt(count)` cached and refined by one Newton step, with the
    /// state machine named by `netcond_codel_variant`.
    NETCOND_CODEL_LINUX = 1,
}

/// The state machine around `NETCOND_CODEL_LINUX` (ignored by the exact law).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_codel_variant {
    /// The kernel's `codel_impl.h`: serial 32-bit comparisons, no drop while
    /// `backlog <= mtu`, an ECN mark in the dropping state schedules the next
    /// signal from `drop_next`.
    NETCOND_CODEL_KERNEL = 0,
    /// ns-3's `CoDelQueueDisc`: plain comparisons, the sojourn time as
    /// `(now - enqueued) >> 10` in ns, no drop while `backlog < mtu` (ns-3's
    /// `MinBytes`), an ECN mark schedules the next signal from `now`.
    NETCOND_CODEL_NS3 = 1,
}

/// What to do with the packet just taken from the head of the queue.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_codel_verdict {
    /// Send it unchanged. Also the answer to a NULL or unusable argument (so a
    /// caller's dequeue loop ends and nothing is dropped).
    NETCOND_CODEL_DELIVER = 0,
    /// Set CE (RFC 3168 section 5) and send it.
    NETCOND_CODEL_MARK = 1,
    /// Drop it, then call `netcond_codel_on_dequeue` again at the same `now`
    /// for the next head, or `netcond_codel_queue_empty` if the queue is empty.
    NETCOND_CODEL_DROP = 2,
}

/// The parameters of a CoDel queue (RFC 8289 section 5.3's names).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_codel_params {
    /// TARGET, ns (RFC 8289 section 4.3; 5 ms is 5000000).
    pub target_ns: u64,
    /// INTERVAL, ns (RFC 8289 section 4.2; 100 ms is 100000000).
    pub interval_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// MAXPACKET, bytes: no drop while at most this many bytes stay queued
    /// after the head (ns-3 variant: fewer than this). 1500 for an Ethernet
    /// MTU (RFC 8289 section 5.3 says to use the interface MTU); Linux's
    /// `sch_codel` uses 1514, ns-3's `MinBytes` is 1500.
    pub mtu: u32,
    /// 1 to mark ECN-capable packets CE instead of dropping them, else 0.
    pub ecn: u32,
    /// A `netcond_codel_law`.
    pub control_law: u32,
    /// A `netcond_codel_variant` (used by `NETCOND_CODEL_LINUX`).
    pub linux_variant: u32,
    /// Reserved, set to 0.
    pub reserved: u64,
}

/// A validated CoDel profile (opaque; read-only once configured, shared by any
/// number of queues and threads).
#[repr(C, align(64))]
pub struct netcond_codel_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// One CoDel queue's state: 48 bytes (opaque; must be started by
/// `netcond_codel_config`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct netcond_codel {
    /// Opaque.
    pub opaque: [u64; 6],
}

/// What a `netcond_codel` holds (RFC 8289 section 5.2's variables), for logs
/// and tests. Times are in the law's units: ticks for the exact law, 1024 ns
/// units (modulo 2^32) for the Linux law.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_codel_info {
    /// `drop_next`.
    pub drop_next: u64,
    /// `first_above_time` (meaningful when `first_above_set` is 1).
    pub first_above_time: u64,
    /// The newest instant the state has seen, ticks.
    pub last_seen: u64,
    /// `count`: drops and marks of this dropping state, plus what re-entry
    /// carried over.
    pub count: u32,
    /// `lastcount`: `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// 1 in the dropping state, else 0.
    pub dropping: u32,
    /// 1 if `first_above_time` is set, else 0.
    pub first_above_set: u32,
    /// 1 if the last verdict was `NETCOND_CODEL_DROP` (the next call continues
    /// the same dequeue), else 0.
    pub in_drop_loop: u32,
    /// Linux's cached `1/sqrt(count)` (the upper 16 bits of a Q0.32 number);
    /// 0 with the exact law.
    pub rec_inv_sqrt: u32,
}

const _: () = assert!(core::mem::size_of::<netcond_codel_profile>() == NETCOND_CODEL_PROFILE_SIZE);
const _: () = assert!(core::mem::align_of::<netcond_codel_profile>() == 64);
const _: () = assert!(core::mem::size_of::<netcond_codel>() == NETCOND_CODEL_STATE_SIZE);
const _: () = assert!(core::mem::align_of::<netcond_codel>() == 8);
const _: () = assert!(core::mem::size_of::<netcond_codel_params>() == 48);
const _: () = assert!(core::mem::size_of::<netcond_codel_info>() == 48);
// The state holds the tag and the Rust state: nothing to spare but nothing missing.
const _: () = assert!(crate::fits::<netcond_codel, crate::Tagged<Codel>>());
const _: () = assert!(crate::fits::<
    netcond_codel_profile,
    crate::Tagged<CodelProfile>,
>());

const TAG_CODEL: u64 = 0x6e63_636f;
const TAG_CODEL_STATE: u64 = 0x6e63_6373;

const DELIVER: netcond_codel_verdict = netcond_codel_verdict::NETCOND_CODEL_DELIVER;

fn verdict(v: Verdict) -> netcond_codel_verdict {
    match v {
        Verdict::Deliver => netcond_codel_verdict::NETCOND_CODEL_DELIVER,
        Verdict::Mark => netcond_codel_verdict::NETCOND_CODEL_MARK,
        Verdict::Drop => netcond_codel_verdict::NETCOND_CODEL_DROP,
    }
}

/// The Rust configuration of `a`, or the status refusing it.
fn codel_config(a: &netcond_codel_params) -> Result<CodelConfig, c_int> {
    crate::errors::reserved_zero(&[a.reserved])?;
    let tick = TickRate::from_hz(a.tick_hz).ok_or(NETCOND_E_TICK)?;
    let ecn = match a.ecn {
        0 => false,
        1 => true,
        _ => return Err(NETCOND_E_ENUM),
    };
    let law = match a.control_law {
        0 => ControlLaw::Exact,
        1 => ControlLaw::Linux,
        _ => return Err(NETCOND_E_ENUM),
    };
    let variant = match a.linux_variant {
        0 => LinuxVariant::Kernel,
        1 => LinuxVariant::Ns3,
        _ => return Err(NETCOND_E_ENUM),
    };
    Ok(CodelConfig::rfc8289()
        .with_target(Duration::from_nanos(a.target_ns))
        .with_interval(Duration::from_nanos(a.interval_ns))
        .with_mtu(a.mtu)
        .with_ecn(ecn)
        .with_control_law(law)
        .with_linux_variant(variant)
        .with_tick(tick))
}

/// Validates `params` and writes the profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` (an enum or flag field
/// out of range) or a `NETCOND_E_DELAY_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_profile_config(
    p: *mut netcond_codel_profile,
    params: *const netcond_codel_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_CODEL, |a| {
            CodelProfile::new(&codel_config(a)?).map_err(delay_code)
        })
    }
}

/// Starts queue state `s` on profile `p` at `now`: not dropping, no drop yet.
/// Returns 0 or `NETCOND_E_NULL` (`s` or `p` NULL, or `p` not configured).
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_config(
    s: *mut netcond_codel,
    p: *const netcond_codel_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { start_queue(s, p, TAG_CODEL, TAG_CODEL_STATE, now, Codel::new) }
}

/// The state and profile, if both are present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
#[inline(always)]
unsafe fn codel<'a>(
    s: *mut netcond_codel,
    p: *const netcond_codel_profile,
) -> Option<(&'a mut Codel, &'a CodelProfile)> {
    // SAFETY: caller contract, passed on.
    unsafe { queue_and_profile(s, p, TAG_CODEL, TAG_CODEL_STATE) }
}

/// The verdict for the packet just taken from the head of the queue at `now`:
/// enqueued at `enqueued_at` (ticks), `len` bytes, ECN-capable if
/// `ecn_capable` is 1 (ECT(0), ECT(1) or CE; any other value counts as
/// not-ECT, which is dropped, never marked), with `backlog_bytes` still queued
/// after it left. On `NETCOND_CODEL_DROP` call again for the next head at the
/// same `now`, or `netcond_codel_queue_empty`. A NULL, unstarted or unconfigured
/// argument gives `NETCOND_CODEL_DELIVER` and changes nothing.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_on_dequeue(
    s: *mut netcond_codel,
    p: *const netcond_codel_profile,
    now: u64,
    enqueued_at: u64,
    len: u32,
    ecn_capable: c_int,
    backlog_bytes: u64,
) -> netcond_codel_verdict {
    // SAFETY: caller contract, passed on.
    match unsafe { codel(s, p) } {
        Some((s, p)) => verdict(s.on_dequeue(
            p,
            Instant::from_ticks(now),
            Head::new(Instant::from_ticks(enqueued_at), len, ecn_capable == 1),
            backlog_bytes,
        )),
        None => DELIVER,
    }
}

/// The queue was found empty at `now` (after a `NETCOND_CODEL_DROP` with no
/// next head, or on a dequeue from an empty queue). Does nothing on a NULL,
/// unstarted or unconfigured argument.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_queue_empty(
    s: *mut netcond_codel,
    p: *const netcond_codel_profile,
    now: u64,
) {
    // SAFETY: caller contract, passed on.
    if let Some((s, p)) = unsafe { codel(s, p) } {
        s.on_queue_empty(p, Instant::from_ticks(now));
    }
}

/// The old name of `netcond_codel_queue_empty`, which it calls.
///
/// # Safety
/// As `netcond_codel_queue_empty`.
#[deprecated(since = "0.1.0", note = "renamed to netcond_codel_queue_empty")]
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_on_empty(
    s: *mut netcond_codel,
    p: *const netcond_codel_profile,
    now: u64,
) {
    // SAFETY: caller contract, passed on.
    unsafe { netcond_codel_queue_empty(s, p, now) }
}

/// `count` of `s`, or 0 if `s` is NULL or unstarted.
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_count(s: *const netcond_codel) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Codel>(s, TAG_CODEL_STATE) } {
        Some(c) => c.count(),
        None => 0,
    }
}

/// 1 if `s` is in the dropping state, 0 if not, `NETCOND_E_NULL` if `s` is
/// NULL or unstarted.
///
/// # Safety
/// `s` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_dropping(s: *const netcond_codel) -> c_int {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Codel>(s, TAG_CODEL_STATE) } {
        Some(c) => c_int::from(c.dropping()),
        None => NETCOND_E_NULL,
    }
}

/// Writes the variables of `s` to `*info`. Returns 0, or `NETCOND_E_NULL`
/// (leaving `*info` untouched) if `s` or `info` is NULL or `s` is unstarted.
///
/// # Safety
/// `s` and `info` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_codel_info_get(
    s: *const netcond_codel,
    info: *mut netcond_codel_info,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(c), Some(out)) =
        (unsafe { (profile::<_, Codel>(s, TAG_CODEL_STATE), info.as_mut()) })
    else {
        return NETCOND_E_NULL;
    };
    *out = info_of(c);
    NETCOND_OK
}

fn info_of(c: &Codel) -> netcond_codel_info {
    netcond_codel_info {
        drop_next: c.drop_next(),
        first_above_time: c.first_above_time().unwrap_or(0),
        last_seen: c.last_seen().ticks(),
        count: c.count(),
        lastcount: c.lastcount(),
        dropping: u32::from(c.dropping()),
        first_above_set: u32::from(c.first_above_time().is_some()),
        in_drop_loop: u32::from(c.in_drop_loop()),
        rec_inv_sqrt: u32::from(c.rec_inv_sqrt()),
    }
}

/// A flow scheduler's answer as the C calls give it: 1 with the flow written
/// to `flow` (unless NULL), or 0 when no flow has a packet.
///
/// # Safety
/// `flow` is NULL or writable.
#[inline]
pub(crate) unsafe fn scheduled(next: Option<usize>, flow: *mut u32) -> c_int {
    match next {
        Some(f) => {
            // SAFETY: caller contract.
            if let Some(o) = unsafe { flow.as_mut() } {
                *o = f as u32;
            }
            1
        }
        None => 0,
    }
}

/// The body of the delay AQMs' `*_config` calls: the state `new(profile,
/// now)` written to `s` (tag `stag`) for the profile at `p` (tag `ptag`).
/// Returns 0 or `NETCOND_E_NULL` (`s` or `p` NULL, or `p` not configured).
///
/// # Safety
/// `s` and `p` are NULL or point to valid structs of their types.
#[inline]
pub(crate) unsafe fn start_queue<O, PO, P, S>(
    s: *mut O,
    p: *const PO,
    ptag: u64,
    stag: u64,
    now: u64,
    new: impl FnOnce(&P, Instant) -> S,
) -> c_int {
    if s.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, P>(p, ptag) }) else {
        return NETCOND_E_NULL;
    };
    let state = new(p, Instant::from_ticks(now));
    // SAFETY: `s` is non-NULL and writable.
    unsafe { store_profile(s, stag, state) };
    NETCOND_OK
}

/// A delay AQM's state (tag `stag`) and profile (tag `ptag`), if both are
/// present and started.
///
/// # Safety
/// `s` and `p` are NULL or valid; `s` is used by this call only.
#[inline(always)]
pub(crate) unsafe fn queue_and_profile<'a, O, PO, S, P>(
    s: *mut O,
    p: *const PO,
    ptag: u64,
    stag: u64,
) -> Option<(&'a mut S, &'a P)> {
    // SAFETY: caller contract, passed on.
    let p = unsafe { profile::<_, P>(p, ptag) }?;
    // SAFETY: caller contract, passed on.
    let s = unsafe { profile_mut::<_, S>(s, stag) }?;
    Some((s, p))
}

mod fq_codel;
pub use fq_codel::*;
mod pie;
pub use pie::*;
mod dualpi2;
pub use dualpi2::*;
mod fq_pie;
pub use fq_pie::*;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    //! The C calls against `aqm_delay::Codel` through the Rust API, packet for
    //! packet, on seeded random streams; configuration errors and bad
    //! arguments.

    use super::*;
    use crate::errors::{NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL, NETCOND_E_DELAY_ZERO_TARGET};
    use std::collections::VecDeque;

    pub(super) const NS: u64 = 1_000_000_000;

    pub(super) fn params(law: u32, variant: u32, ecn: u32, hz: u64) -> netcond_codel_params {
        netcond_codel_params {
            target_ns: 5_000_000,
            interval_ns: 100_000_000,
            tick_hz: hz,
            mtu: 1500,
            ecn,
            control_law: law,
            linux_variant: variant,
            reserved: 0,
        }
    }

    fn new_profile(a: &netcond_codel_params) -> (c_int, Box<netcond_codel_profile>) {
        let mut p = Box::new(netcond_codel_profile { opaque: [0; 16] });
        // SAFETY: both pointers are valid.
        let rc = unsafe { netcond_codel_profile_config(&mut *p, a) };
        (rc, p)
    }

    /// SplitMix64.
    pub(super) struct Rng(pub(super) u64);

    impl Rng {
        pub(super) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    /// A queue filled faster than it drains in some phases and slower in
    /// others, with idle gaps, dequeued through the C calls and the Rust
    /// state side by side; every verdict and, after every call, every
    /// variable must agree. Returns the counts of deliveries, marks, drops.
    fn stream(a: &netcond_codel_params, seed: u64, start: u64) -> [u64; 3] {
        let (rc, cp) = new_profile(a);
        assert_eq!(rc, NETCOND_OK);
        let rp = CodelProfile::new(&codel_config(a).unwrap()).unwrap();
        let mut cs = netcond_codel { opaque: [0; 6] };
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_codel_config(&mut cs, &*cp, start) }, 0);
        let mut rs = Codel::new(&rp, Instant::from_ticks(start));
        let per_ms = a.tick_hz / 1000;
        let mut rng = Rng(seed);
        let mut q: VecDeque<(u64, u32, bool)> = VecDeque::new();
        let mut bytes = 0u64;
        let mut now = start;
        let mut counts = [0u64; 3];
        let check = |cs: &netcond_codel, rs: &Codel| {
            let mut got = netcond_codel_info::default();
            // SAFETY: valid pointers.
            assert_eq!(unsafe { netcond_codel_info_get(cs, &mut got) }, 0);
            assert_eq!(got, info_of(rs));
        };
        for i in 0..60_000u64 {
            let r = rng.next();
            // Phases of 4000 steps: overload (arrivals twice as often as
            // departures), balance, underload.
            let phase = (i / 4000) % 3;
            now = now.wrapping_add((r % 400) * per_ms / 1000 + 1);
            if (r >> 9) % 997 == 0 {
                now = now.wrapping_add(2000 * per_ms); // an idle gap of 2 s
            }
            if (r >> 20) % 1500 == 0 {
                now = now.wrapping_sub(3 * per_ms); // a clock step back
            }
            let arrive = match phase {
                0 => (r >> 30) % 3 != 0,
                1 => (r >> 30) % 2 == 0,
                _ => (r >> 30) % 4 == 0,
            };
            if arrive {
                let len = match (r >> 40) % 64 {
                    0 => 0,
                    1 => 9000,
                    k => 40 + (k as u32) * 23,
                };
                q.push_back((now, len, (r >> 50) % 3 != 0));
                bytes += u64::from(len);
            }
            if (r >> 33) % 2 == 0 {
                continue; // no departure in this step
            }
            loop {
                let Some((at, len, ecn)) = q.pop_front() else {
                    // SAFETY: valid pointers. Every other step through
                    // the old name, which must do the same.
                    #[allow(deprecated)]
                    unsafe {
                        if i % 2 == 0 {
                            netcond_codel_queue_empty(&mut cs, &*cp, now)
                        } else {
                            netcond_codel_on_empty(&mut cs, &*cp, now)
                        }
                    };
                    rs.on_queue_empty(&rp, Instant::from_ticks(now));
                    check(&cs, &rs);
                    break;
                };
                bytes -= u64::from(len);
                // SAFETY: valid pointers.
                let c = unsafe {
                    netcond_codel_on_dequeue(&mut cs, &*cp, now, at, len, c_int::from(ecn), bytes)
                };
                let want = rs.on_dequeue(
                    &rp,
                    Instant::from_ticks(now),
                    Head::new(Instant::from_ticks(at), len, ecn),
                    bytes,
                );
                assert_eq!(c, verdict(want), "step {i}");
                check(&cs, &rs);
                counts[c as usize] += 1;
                if c != netcond_codel_verdict::NETCOND_CODEL_DROP {
                    break;
                }
            }
        }
        counts
    }

    #[test]
    fn c_calls_give_the_rust_verdicts_packet_for_packet() {
        let configs = [
            params(0, 0, 0, NS),
            params(0, 0, 1, NS),
            params(0, 0, 0, 1_000_000),
            params(1, 0, 0, NS),
            params(1, 0, 1, NS),
            params(1, 1, 0, NS),
            params(1, 1, 1, NS),
            params(1, 1, 1, 2_400_000_000),
        ];
        for (k, a) in configs.iter().enumerate() {
            for seed in [1u64, 0x5eed_c0de] {
                // One start near Linux's 32-bit wrap of 1024 ns units.
                let start = if k % 2 == 0 { 0 } else { (1u64 << 42) - 3 * NS };
                let counts = stream(a, seed ^ k as u64, start);
                // The stream reached the dropping state (and marked with ECN).
                assert!(counts[0] > 10_000 && counts[2] > 100, "{k}: {counts:?}");
                if a.ecn == 1 {
                    assert!(counts[1] > 100, "{k}: {counts:?}");
                } else {
                    assert_eq!(counts[1], 0, "{k}: {counts:?}");
                }
            }
        }
    }

    #[test]
    fn standing_queue_first_drops_at_the_documented_times() {
        // aqm-delay's hand-computed drop times of a standing queue: exact
        // law 101, 201, 272 ms; Linux law 102, 202, 252 ms (1 ms steps, every
        // packet 10 ms old, 10 kB behind it).
        for (law, want) in [(0u32, [101u64, 201, 272]), (1, [102, 202, 252])] {
            let (rc, p) = new_profile(&params(law, 0, 0, NS));
            assert_eq!(rc, 0);
            let mut s = netcond_codel { opaque: [0; 6] };
            // SAFETY: valid pointers.
            assert_eq!(unsafe { netcond_codel_config(&mut s, &*p, 0) }, 0);
            let mut drops = Vec::new();
            for ms in 1..=300u64 {
                let now = ms * 1_000_000;
                loop {
                    // SAFETY: valid pointers.
                    let v = unsafe {
                        netcond_codel_on_dequeue(
                            &mut s,
                            &*p,
                            now,
                            now.wrapping_sub(10_000_000),
                            1500,
                            0,
                            10_000,
                        )
                    };
                    if v != netcond_codel_verdict::NETCOND_CODEL_DROP {
                        break;
                    }
                    drops.push(ms);
                }
            }
            assert_eq!(&drops[..3], &want, "law {law}");
        }
    }

    #[test]
    fn errors_and_bad_arguments() {
        let good = params(1, 1, 0, NS);
        let (rc, p) = new_profile(&good);
        assert_eq!(rc, 0);
        let mut a = good;
        a.target_ns = 1000; // below 1024 ns: zero units of the Linux law
        assert_eq!(new_profile(&a).0, NETCOND_E_DELAY_ZERO_TARGET);
        a = good;
        a.target_ns = a.interval_ns;
        assert_eq!(new_profile(&a).0, NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL);
        for f in [
            |a: &mut netcond_codel_params| a.ecn = 2,
            |a: &mut netcond_codel_params| a.control_law = 2,
            |a: &mut netcond_codel_params| a.linux_variant = 2,
        ] {
            a = good;
            f(&mut a);
            assert_eq!(new_profile(&a).0, NETCOND_E_ENUM);
        }
        a = good;
        a.tick_hz = 0;
        let (rc, bad) = new_profile(&a);
        assert_eq!(rc, NETCOND_E_TICK);
        let never = netcond_codel_profile { opaque: [0; 16] };
        let mut s = netcond_codel { opaque: [0; 6] };
        let zeros = netcond_codel { opaque: [0; 6] };
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            assert_eq!(netcond_codel_config(&mut s, &*bad, 0), NETCOND_E_NULL);
            assert_eq!(netcond_codel_config(&mut s, &never, 0), NETCOND_E_NULL);
            assert_eq!(
                netcond_codel_config(core::ptr::null_mut(), &*p, 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_codel_config(&mut s, core::ptr::null(), 0),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_codel_profile_config(core::ptr::null_mut(), &good),
                NETCOND_E_NULL
            );
            let mut q = netcond_codel_profile { opaque: [0; 16] };
            assert_eq!(
                netcond_codel_profile_config(&mut q, core::ptr::null()),
                NETCOND_E_NULL
            );
            // An unstarted (all-zero) state is refused like NULL.
            let mut z = zeros;
            assert_eq!(
                netcond_codel_on_dequeue(&mut z, &*p, 1, 0, 1500, 0, 1 << 20),
                DELIVER
            );
            netcond_codel_queue_empty(&mut z, &*p, 1);
            assert_eq!(z.opaque, zeros.opaque);
            assert_eq!(netcond_codel_dropping(&z), NETCOND_E_NULL);
            assert_eq!(netcond_codel_config(&mut s, &*p, 0), 0);
            assert_eq!(
                netcond_codel_on_dequeue(&mut s, &never, 1, 0, 1, 0, 0),
                DELIVER
            );
            assert_eq!(
                netcond_codel_on_dequeue(core::ptr::null_mut(), &*p, 1, 0, 1, 0, 0),
                DELIVER
            );
            netcond_codel_queue_empty(core::ptr::null_mut(), &*p, 1);
            netcond_codel_queue_empty(&mut s, core::ptr::null(), 1);
            assert_eq!(netcond_codel_count(core::ptr::null()), 0);
            assert_eq!(netcond_codel_dropping(core::ptr::null()), NETCOND_E_NULL);
            assert_eq!(netcond_codel_dropping(&s), 0);
            assert_eq!(
                netcond_codel_info_get(&s, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            let mut i = netcond_codel_info::default();
            assert_eq!(
                netcond_codel_info_get(core::ptr::null(), &mut i),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_codel_info_get(&s, &mut i), 0);
            assert_eq!(i.last_seen, 0);
        }
    }
}

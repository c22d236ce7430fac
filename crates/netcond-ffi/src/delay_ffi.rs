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
//! calls `netcond_codel_on_empty` when there is none (one turn of RFC 8289's
//! dequeue loop); it calls `netcond_codel_on_empty` too when a dequeue finds
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
//! Durations are nanoseconds (`*_ns`), times are ticks of `tick_hz`.

use core::ffi::c_int;
use core::time::Duration;

use aqm_delay::{
    Codel, CodelConfig, CodelProfile, ControlLaw, Enqueued, FqCodel, FqCodelConfig, FqCodelProfile,
    Head, LinuxVariant, OverflowDrop, Verdict,
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
    /// for the next head, or `netcond_codel_on_empty` if the queue is empty.
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
    if s.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, CodelProfile>(p, TAG_CODEL) }) else {
        return NETCOND_E_NULL;
    };
    let c = Codel::new(p, Instant::from_ticks(now));
    // SAFETY: `s` is non-NULL and writable.
    unsafe { store_profile(s, TAG_CODEL_STATE, c) };
    NETCOND_OK
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
    let p = unsafe { profile::<_, CodelProfile>(p, TAG_CODEL) }?;
    // SAFETY: caller contract, passed on.
    let s = unsafe { profile_mut::<_, Codel>(s, TAG_CODEL_STATE) }?;
    Some((s, p))
}

/// The verdict for the packet just taken from the head of the queue at `now`:
/// enqueued at `enqueued_at` (ticks), `len` bytes, ECN-capable if
/// `ecn_capable` is 1 (ECT(0), ECT(1) or CE; any other value counts as
/// not-ECT, which is dropped, never marked), with `backlog_bytes` still queued
/// after it left. On `NETCOND_CODEL_DROP` call again for the next head at the
/// same `now`, or `netcond_codel_on_empty`. A NULL, unstarted or unconfigured
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
pub unsafe extern "C" fn netcond_codel_on_empty(
    s: *mut netcond_codel,
    p: *const netcond_codel_profile,
    now: u64,
) {
    // SAFETY: caller contract, passed on.
    if let Some((s, p)) = unsafe { codel(s, p) } {
        s.on_empty(p, Instant::from_ticks(now));
    }
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

// ------------------------------------------------------------------- FQ-CoDel

/// The flow queues of a `netcond_fq_codel` (Linux's default): flow indexes are
/// taken modulo this.
pub const NETCOND_FQ_CODEL_FLOWS: usize = 1024;
/// Size in bytes of a `netcond_fq_codel_profile`.
pub const NETCOND_FQ_CODEL_PROFILE_SIZE: usize = 128;
/// Size in bytes of a `netcond_fq_codel` (a whole queue: 1024 flows of 64
/// bytes, the lists and counters, the tag).
pub const NETCOND_FQ_CODEL_SIZE: usize = 65_600;

/// What an FQ-CoDel overflow drops (RFC 8290 section 4.1).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_fq_overflow {
    /// One packet from the head of the fattest flow.
    NETCOND_FQ_OVERFLOW_SINGLE = 0,
    /// Linux's `fq_codel_drop`: from the head of the fattest flow until half
    /// its bytes are gone, at most `drop_batch` packets.
    NETCOND_FQ_OVERFLOW_BATCH = 1,
}

/// The parameters of an FQ-CoDel queue (RFC 8290 section 5.2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_fq_codel_params {
    /// The CoDel of every flow queue (its `mtu` is compared with the bytes of
    /// the whole queue, as in Linux).
    pub codel: netcond_codel_params,
    /// The DRR quantum, bytes (RFC 8290 section 5.2.4; Linux: 1514).
    pub quantum: u32,
    /// The packet limit of the whole queue (section 5.2.3; Linux: 10240).
    pub limit: u32,
    /// A `netcond_fq_overflow`.
    pub overflow: u32,
    /// With `NETCOND_FQ_OVERFLOW_BATCH`, the most packets one overflow drops
    /// (Linux's `drop_batch_size`, 64); ignored otherwise.
    pub drop_batch: u32,
    /// Reserved, set to 0.
    pub reserved: u64,
}

/// What an overflow dropped.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_fq_overflow_info {
    /// Bytes dropped.
    pub bytes: u64,
    /// The flow whose head packets were dropped (the fattest).
    pub victim: u32,
    /// Packets dropped.
    pub packets: u32,
}

/// One flow queue of a `netcond_fq_codel`, for logs and tests.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_fq_codel_flow {
    /// Its DRR deficit, bytes.
    pub deficit: i64,
    /// Bytes queued.
    pub bytes: u64,
    /// Packets queued.
    pub packets: u32,
    /// 0 on neither list, 1 on the new flows, 2 on the old flows.
    pub list: u32,
    /// Its CoDel.
    pub codel: netcond_codel_info,
}

/// A validated FQ-CoDel profile (opaque).
#[repr(C, align(64))]
pub struct netcond_fq_codel_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// A whole FQ-CoDel queue (opaque; must be started by
/// `netcond_fq_codel_config`).
#[repr(C, align(64))]
pub struct netcond_fq_codel {
    /// Opaque.
    pub opaque: [u64; 8200],
}

/// The caller's drop of the head packet of flow `flow`'s FIFO on overflow:
/// removes it, writes its length to `*len` and returns 1, or returns 0 if the
/// FIFO is empty. `ctx` is the pointer given to `netcond_fq_codel_enqueue`.
pub type netcond_fq_drop_head_fn =
    Option<unsafe extern "C" fn(ctx: *mut core::ffi::c_void, flow: u32, len: *mut u32) -> c_int>;

type Fq = FqCodel<NETCOND_FQ_CODEL_FLOWS>;

const _: () =
    assert!(core::mem::size_of::<netcond_fq_codel_profile>() == NETCOND_FQ_CODEL_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_fq_codel>() == NETCOND_FQ_CODEL_SIZE);
const _: () = assert!(core::mem::align_of::<netcond_fq_codel>() == 64);
const _: () = assert!(core::mem::size_of::<netcond_fq_codel_params>() == 72);
const _: () = assert!(core::mem::size_of::<netcond_fq_overflow_info>() == 16);
const _: () = assert!(core::mem::size_of::<netcond_fq_codel_flow>() == 72);
const _: () = assert!(crate::fits::<netcond_fq_codel, crate::Tagged<Fq>>());
const _: () = assert!(crate::fits::<
    netcond_fq_codel_profile,
    crate::Tagged<FqCodelProfile>,
>());

const TAG_FQ_CODEL: u64 = 0x6e63_6671;
const TAG_FQ_CODEL_STATE: u64 = 0x6e63_6673;

/// Validates `params` and writes the FQ-CoDel profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_DELAY_*` code; on error `p` is unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_profile_config(
    p: *mut netcond_fq_codel_profile,
    params: *const netcond_fq_codel_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_FQ_CODEL, |a| {
            let overflow = match a.overflow {
                0 => OverflowDrop::Single,
                1 => OverflowDrop::Batch {
                    max_packets: a.drop_batch,
                },
                _ => return Err(NETCOND_E_ENUM),
            };
            FqCodelProfile::new(
                &FqCodelConfig::rfc8290()
                    .with_codel(codel_config(&a.codel)?)
                    .with_quantum(a.quantum)
                    .with_limit(a.limit)
                    .with_overflow(overflow),
            )
            .map_err(delay_code)
        })
    }
}

/// Starts queue `q` on profile `p` at `now`: every flow empty, on neither
/// list. Returns 0 or `NETCOND_E_NULL`. Builds the 64 KiB queue on the stack
/// before copying it to `q`.
///
/// # Safety
/// `q` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_config(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
) -> c_int {
    if q.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, FqCodelProfile>(p, TAG_FQ_CODEL) }) else {
        return NETCOND_E_NULL;
    };
    let s = Fq::new(p, Instant::from_ticks(now));
    // SAFETY: `q` is non-NULL and writable.
    unsafe { store_profile(q, TAG_FQ_CODEL_STATE, s) };
    NETCOND_OK
}

/// The queue and profile, if both are present and started.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by this call only.
#[inline(always)]
unsafe fn fq<'a>(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
) -> Option<(&'a mut Fq, &'a FqCodelProfile)> {
    // SAFETY: caller contract, passed on.
    let p = unsafe { profile::<_, FqCodelProfile>(p, TAG_FQ_CODEL) }?;
    // SAFETY: caller contract, passed on.
    let q = unsafe { profile_mut::<_, Fq>(q, TAG_FQ_CODEL_STATE) }?;
    Some((q, p))
}

/// A packet of `len` bytes was pushed to the tail of flow `flow`'s FIFO
/// (`flow` modulo `NETCOND_FQ_CODEL_FLOWS`; the caller's hash or classifier).
/// Returns 0 if the queue is within its limit; 1 if it went over it, after
/// calling `drop_head(ctx, victim, &len)` for each packet to drop from the
/// head of the fattest flow, with what was dropped written to `*out` (if not
/// NULL); `NETCOND_E_NULL` (nothing changed) if `q`, `p` or `drop_head` is
/// NULL or `q` is unstarted.
///
/// # Safety
/// `q`, `p` and `out` are NULL or valid; `q` is used by one thread during the
/// call; `drop_head` is NULL or a function that may be called with `ctx`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn netcond_fq_codel_enqueue(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
    flow: u32,
    len: u32,
    drop_head: netcond_fq_drop_head_fn,
    ctx: *mut core::ffi::c_void,
    out: *mut netcond_fq_overflow_info,
) -> c_int {
    let Some(drop_head) = drop_head else {
        return NETCOND_E_NULL;
    };
    // SAFETY: caller contract, passed on.
    let Some((q, p)) = (unsafe { fq(q, p) }) else {
        return NETCOND_E_NULL;
    };
    let r = q.enqueue(p, Instant::from_ticks(now), flow as usize, len, |victim| {
        let mut l = 0u32;
        // SAFETY: the caller's callback with its own context (caller contract);
        // `victim` is below NETCOND_FQ_CODEL_FLOWS.
        let dropped = unsafe { drop_head(ctx, victim as u32, &mut l) };
        (dropped == 1).then_some(l)
    });
    match r {
        Enqueued::Queued => 0,
        Enqueued::Overflow {
            victim,
            packets,
            bytes,
        } => {
            // SAFETY: `out` is NULL or writable (caller contract).
            if let Some(o) = unsafe { out.as_mut() } {
                *o = netcond_fq_overflow_info {
                    bytes,
                    victim: victim as u32,
                    packets,
                };
            }
            1
        }
    }
}

/// The flow to serve at `now` (RFC 8290 section 4.2: new flows first, then
/// old ones, by deficit round robin): returns 1 and writes it to `*flow` (if
/// not NULL), 0 if every flow is empty, `NETCOND_E_NULL` if `q` or `p` is NULL
/// or unstarted. While a flow's CoDel is dropping in one dequeue, the same
/// flow comes back.
///
/// # Safety
/// `q`, `p` and `flow` are NULL or valid; `q` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_schedule(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
    flow: *mut u32,
) -> c_int {
    // SAFETY: caller contract, passed on.
    let Some((q, p)) = (unsafe { fq(q, p) }) else {
        return NETCOND_E_NULL;
    };
    match q.schedule(p, Instant::from_ticks(now)) {
        Some(f) => {
            // SAFETY: `flow` is NULL or writable (caller contract).
            if let Some(o) = unsafe { flow.as_mut() } {
                *o = f as u32;
            }
            1
        }
        None => 0,
    }
}

/// The verdict for the head packet just taken from flow `flow`'s FIFO (the
/// flow `netcond_fq_codel_schedule` named): enqueued at `enqueued_at`, `len`
/// bytes, ECN-capable if `ecn_capable` is 1. The flow's CoDel decides with the
/// bytes left in the whole queue as its backlog. On `NETCOND_CODEL_DROP`,
/// drop it and call `netcond_fq_codel_schedule` again. A NULL or unstarted
/// argument gives `NETCOND_CODEL_DELIVER` and changes nothing.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_on_dequeue(
    q: *mut netcond_fq_codel,
    p: *const netcond_fq_codel_profile,
    now: u64,
    flow: u32,
    enqueued_at: u64,
    len: u32,
    ecn_capable: c_int,
) -> netcond_codel_verdict {
    // SAFETY: caller contract, passed on.
    match unsafe { fq(q, p) } {
        Some((q, p)) => verdict(q.on_dequeue(
            p,
            Instant::from_ticks(now),
            flow as usize,
            Head::new(Instant::from_ticks(enqueued_at), len, ecn_capable == 1),
        )),
        None => DELIVER,
    }
}

/// Packets in the whole queue, or 0 if `q` is NULL or unstarted.
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_packets(q: *const netcond_fq_codel) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Fq>(q, TAG_FQ_CODEL_STATE) } {
        Some(q) => q.packets(),
        None => 0,
    }
}

/// Bytes in the whole queue, or 0 if `q` is NULL or unstarted.
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_bytes(q: *const netcond_fq_codel) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Fq>(q, TAG_FQ_CODEL_STATE) } {
        Some(q) => q.bytes(),
        None => 0,
    }
}

/// Writes flow `flow`'s state (`flow` modulo `NETCOND_FQ_CODEL_FLOWS`) to
/// `*out`. Returns 0, or `NETCOND_E_NULL` (leaving `*out` untouched) if `q`
/// or `out` is NULL or `q` is unstarted.
///
/// # Safety
/// `q` and `out` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_fq_codel_flow_get(
    q: *const netcond_fq_codel,
    flow: u32,
    out: *mut netcond_fq_codel_flow,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(q), Some(out)) = (unsafe { (profile::<_, Fq>(q, TAG_FQ_CODEL_STATE), out.as_mut()) })
    else {
        return NETCOND_E_NULL;
    };
    *out = flow_of(q, flow as usize % NETCOND_FQ_CODEL_FLOWS);
    NETCOND_OK
}

fn flow_of(q: &Fq, f: usize) -> netcond_fq_codel_flow {
    netcond_fq_codel_flow {
        deficit: q.deficit(f),
        bytes: q.flow_bytes(f),
        packets: q.flow_packets(f),
        list: if q.is_new(f) {
            1
        } else if q.is_old(f) {
            2
        } else {
            0
        },
        codel: info_of(q.codel(f)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    //! The C calls against `aqm_delay::Codel` through the Rust API, packet for
    //! packet, on seeded random streams; configuration errors and bad
    //! arguments.

    use super::*;
    use crate::errors::{
        NETCOND_E_DELAY_QUANTUM_TOO_LARGE, NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL,
        NETCOND_E_DELAY_ZERO_DROP_BATCH, NETCOND_E_DELAY_ZERO_LIMIT, NETCOND_E_DELAY_ZERO_QUANTUM,
        NETCOND_E_DELAY_ZERO_TARGET,
    };
    use std::collections::VecDeque;

    const NS: u64 = 1_000_000_000;

    fn params(law: u32, variant: u32, ecn: u32, hz: u64) -> netcond_codel_params {
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
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
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
                    // SAFETY: valid pointers.
                    unsafe { netcond_codel_on_empty(&mut cs, &*cp, now) };
                    rs.on_empty(&rp, Instant::from_ticks(now));
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
            netcond_codel_on_empty(&mut z, &*p, 1);
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
            netcond_codel_on_empty(core::ptr::null_mut(), &*p, 1);
            netcond_codel_on_empty(&mut s, core::ptr::null(), 1);
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

    // ---------------------------------------------------------- FQ-CoDel

    fn fq_params(law: u32, ecn: u32, overflow: u32) -> netcond_fq_codel_params {
        netcond_fq_codel_params {
            codel: params(law, 0, ecn, NS),
            quantum: 1514,
            limit: 300,
            overflow,
            drop_batch: 64,
            reserved: 0,
        }
    }

    /// The caller's FIFOs (enqueue instant, length, ECN), one per flow index
    /// as given (the C side takes them modulo 1024).
    struct Fifos(Vec<VecDeque<(u64, u32, bool)>>);

    unsafe extern "C" fn drop_head(ctx: *mut core::ffi::c_void, flow: u32, len: *mut u32) -> c_int {
        // SAFETY: the test passes a live `Fifos` and a writable `len`.
        let f = unsafe { &mut *ctx.cast::<Fifos>() };
        match f.0[flow as usize].pop_front() {
            Some((_, l, _)) => {
                // SAFETY: as above.
                unsafe { *len = l };
                1
            }
            None => 0,
        }
    }

    /// Flows hashed to 12 indexes (two of them beyond 1024, aliasing 3 and
    /// 5), arrivals in overload and underload phases, over the packet limit
    /// at times: the C calls and `FqCodel<1024>` through the Rust API side by
    /// side, every answer and the touched flow's state compared.
    fn fq_stream(a: &netcond_fq_codel_params, seed: u64) -> [u64; 4] {
        let mut cp = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_fq_codel_profile_config(&mut *cp, a) }, 0);
        let overflow = if a.overflow == 0 {
            OverflowDrop::Single
        } else {
            OverflowDrop::Batch {
                max_packets: a.drop_batch,
            }
        };
        let rp = FqCodelProfile::new(
            &FqCodelConfig::rfc8290()
                .with_codel(codel_config(&a.codel).unwrap())
                .with_quantum(a.quantum)
                .with_limit(a.limit)
                .with_overflow(overflow),
        )
        .unwrap();
        let mut cq: Box<netcond_fq_codel> = Box::new(netcond_fq_codel { opaque: [0; 8200] });
        // SAFETY: valid pointers.
        assert_eq!(unsafe { netcond_fq_codel_config(&mut *cq, &*cp, 0) }, 0);
        let mut rq: Box<Fq> = Box::new(Fq::new(&rp, Instant::ZERO));
        let mut cf = Fifos(vec![VecDeque::new(); NETCOND_FQ_CODEL_FLOWS]);
        let mut rf = Fifos(vec![VecDeque::new(); NETCOND_FQ_CODEL_FLOWS]);
        let keys: [u32; 12] = [0, 1, 2, 3, 5, 8, 13, 21, 34, 1023, 1027, 1029];
        let mut rng = Rng(seed);
        let mut now = 0u64;
        let mut counts = [0u64; 4]; // delivered, marked, dropped, overflow drops
        let same_flow = |cq: &netcond_fq_codel, rq: &Fq, f: usize| {
            let mut got = netcond_fq_codel_flow::default();
            // SAFETY: valid pointers.
            assert_eq!(
                unsafe { netcond_fq_codel_flow_get(cq, f as u32, &mut got) },
                0
            );
            assert_eq!(got, flow_of(rq, f));
            // SAFETY: valid pointers.
            unsafe {
                assert_eq!(netcond_fq_codel_packets(cq), rq.packets());
                assert_eq!(netcond_fq_codel_bytes(cq), rq.bytes());
            }
        };
        for i in 0..40_000u64 {
            let r = rng.next();
            now += (r % 300) * 1000 + 1;
            let overload = (i / 5000) % 2 == 0;
            let arrivals = if overload {
                (r >> 10) % 3
            } else {
                (r >> 10) % 2
            };
            for j in 0..arrivals {
                let k = keys[((r >> (20 + 4 * j)) % 12) as usize];
                let f = k as usize % NETCOND_FQ_CODEL_FLOWS;
                let len = 64 + ((r >> (30 + 8 * j)) % 1437) as u32;
                let ecn = (r >> (50 + j)) & 1 == 1;
                cf.0[f].push_back((now, len, ecn));
                rf.0[f].push_back((now, len, ecn));
                let mut info = netcond_fq_overflow_info::default();
                // SAFETY: valid pointers; `cf` outlives the call.
                let c = unsafe {
                    netcond_fq_codel_enqueue(
                        &mut *cq,
                        &*cp,
                        now,
                        k,
                        len,
                        Some(drop_head),
                        (&mut cf as *mut Fifos).cast(),
                        &mut info,
                    )
                };
                let want = rq.enqueue(&rp, Instant::from_ticks(now), k as usize, len, |v| {
                    rf.0[v].pop_front().map(|h| h.1)
                });
                match want {
                    Enqueued::Queued => assert_eq!(c, 0),
                    Enqueued::Overflow {
                        victim,
                        packets,
                        bytes,
                    } => {
                        assert_eq!(c, 1);
                        assert_eq!(
                            info,
                            netcond_fq_overflow_info {
                                bytes,
                                victim: victim as u32,
                                packets
                            }
                        );
                        counts[3] += u64::from(packets);
                        same_flow(&cq, &rq, victim);
                    }
                }
                same_flow(&cq, &rq, f);
            }
            // One departure per step on average below the arrivals' mean in
            // overload and above it in underload.
            if (r >> 60) % 4 == 0 {
                continue;
            }
            loop {
                let mut cflow = u32::MAX;
                // SAFETY: valid pointers.
                let c = unsafe { netcond_fq_codel_schedule(&mut *cq, &*cp, now, &mut cflow) };
                let want = rq.schedule(&rp, Instant::from_ticks(now));
                let Some(f) = want else {
                    assert_eq!(c, 0);
                    break;
                };
                assert_eq!((c, cflow), (1, f as u32));
                let (at, len, ecn) = cf.0[f].pop_front().unwrap();
                assert_eq!(rf.0[f].pop_front(), Some((at, len, ecn)));
                // SAFETY: valid pointers.
                let v = unsafe {
                    netcond_fq_codel_on_dequeue(
                        &mut *cq,
                        &*cp,
                        now,
                        f as u32,
                        at,
                        len,
                        c_int::from(ecn),
                    )
                };
                let w = rq.on_dequeue(
                    &rp,
                    Instant::from_ticks(now),
                    f,
                    Head::new(Instant::from_ticks(at), len, ecn),
                );
                assert_eq!(v, verdict(w), "step {i}");
                same_flow(&cq, &rq, f);
                counts[v as usize] += 1;
                if v != netcond_codel_verdict::NETCOND_CODEL_DROP {
                    break;
                }
            }
        }
        counts
    }

    #[test]
    fn fq_codel_c_calls_give_the_rust_answers_packet_for_packet() {
        for (k, a) in [
            fq_params(0, 0, 0),
            fq_params(0, 1, 1),
            fq_params(1, 0, 1),
            fq_params(1, 1, 0),
        ]
        .iter()
        .enumerate()
        {
            let counts = fq_stream(a, 7 + k as u64);
            // Deliveries, CoDel drops, overflow drops; marks with ECN.
            assert!(
                counts[0] > 10_000 && counts[2] > 50 && counts[3] > 50,
                "{k}: {counts:?}"
            );
            assert_eq!(counts[1] > 50, a.codel.ecn == 1, "{k}: {counts:?}");
        }
    }

    #[test]
    fn fq_codel_errors_and_bad_arguments() {
        let good = fq_params(1, 0, 1);
        let cfg = |f: &dyn Fn(&mut netcond_fq_codel_params)| {
            let mut a = good;
            f(&mut a);
            let mut p = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
            // SAFETY: valid pointers.
            unsafe { netcond_fq_codel_profile_config(&mut *p, &a) }
        };
        assert_eq!(cfg(&|_| {}), 0);
        assert_eq!(cfg(&|a| a.quantum = 0), NETCOND_E_DELAY_ZERO_QUANTUM);
        assert_eq!(
            cfg(&|a| a.quantum = 1 << 31),
            NETCOND_E_DELAY_QUANTUM_TOO_LARGE
        );
        assert_eq!(cfg(&|a| a.limit = 0), NETCOND_E_DELAY_ZERO_LIMIT);
        assert_eq!(cfg(&|a| a.drop_batch = 0), NETCOND_E_DELAY_ZERO_DROP_BATCH);
        assert_eq!(
            cfg(&|a| {
                a.drop_batch = 0;
                a.overflow = 0
            }),
            0
        );
        assert_eq!(cfg(&|a| a.overflow = 2), NETCOND_E_ENUM);
        assert_eq!(cfg(&|a| a.codel.target_ns = 0), NETCOND_E_DELAY_ZERO_TARGET);
        assert_eq!(cfg(&|a| a.codel.tick_hz = 0), NETCOND_E_TICK);
        let mut p = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
        let never = Box::new(netcond_fq_codel_profile { opaque: [0; 16] });
        let mut q: Box<netcond_fq_codel> = Box::new(netcond_fq_codel { opaque: [0; 8200] });
        let null_q = core::ptr::null_mut::<netcond_fq_codel>();
        let mut flow = 7u32;
        // SAFETY: every pointer is NULL or valid.
        unsafe {
            assert_eq!(netcond_fq_codel_profile_config(&mut *p, &good), 0);
            // Unstarted (all zeros): refused like NULL.
            assert_eq!(
                netcond_fq_codel_enqueue(
                    &mut *q,
                    &*p,
                    0,
                    1,
                    100,
                    Some(drop_head),
                    core::ptr::null_mut(),
                    core::ptr::null_mut()
                ),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_schedule(&mut *q, &*p, 0, &mut flow),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_fq_codel_config(&mut *q, &*never, 0), NETCOND_E_NULL);
            assert_eq!(netcond_fq_codel_config(null_q, &*p, 0), NETCOND_E_NULL);
            assert_eq!(netcond_fq_codel_config(&mut *q, &*p, 0), 0);
            assert_eq!(
                netcond_fq_codel_enqueue(
                    &mut *q,
                    &*p,
                    0,
                    1,
                    100,
                    None,
                    core::ptr::null_mut(),
                    core::ptr::null_mut()
                ),
                NETCOND_E_NULL
            );
            assert_eq!(netcond_fq_codel_packets(&*q), 0);
            assert_eq!(netcond_fq_codel_schedule(&mut *q, &*p, 0, &mut flow), 0);
            assert_eq!(flow, 7);
            assert_eq!(
                netcond_fq_codel_schedule(&mut *q, &*never, 0, &mut flow),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_schedule(null_q, &*p, 0, &mut flow),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_on_dequeue(null_q, &*p, 0, 1, 0, 100, 0),
                DELIVER
            );
            assert_eq!(netcond_fq_codel_packets(core::ptr::null()), 0);
            assert_eq!(netcond_fq_codel_bytes(core::ptr::null()), 0);
            let mut fl = netcond_fq_codel_flow::default();
            assert_eq!(
                netcond_fq_codel_flow_get(null_q, 1, &mut fl),
                NETCOND_E_NULL
            );
            assert_eq!(
                netcond_fq_codel_flow_get(&*q, 1, core::ptr::null_mut()),
                NETCOND_E_NULL
            );
            // Flow 1025 is flow 1.
            assert_eq!(
                netcond_fq_codel_enqueue(
                    &mut *q,
                    &*p,
                    0,
                    1025,
                    100,
                    Some(drop_head),
                    core::ptr::null_mut(),
                    core::ptr::null_mut()
                ),
                0
            );
            assert_eq!(netcond_fq_codel_flow_get(&*q, 1, &mut fl), 0);
            assert_eq!(
                (fl.packets, fl.bytes, fl.list, fl.deficit),
                (1, 100, 1, 1514)
            );
            assert_eq!(netcond_fq_codel_schedule(&mut *q, &*p, 0, &mut flow), 1);
            assert_eq!(flow, 1);
        }
    }
}

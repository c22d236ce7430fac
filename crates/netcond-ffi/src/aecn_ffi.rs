//! AECN (Zheng and Kinicki's Adaptive ECN, crate `aqm-red`): RED/ECN with one
//! max_p per flow class (robust, average, fragile) and mark-front.
//!
//! Unlike RED, AECN cannot work from the caller's queue length alone: its
//! mark-front marks the first unmarked ECN-capable packet *of the arrival's
//! class* already queued, so it needs the queue. A `netcond_aecn` therefore
//! holds the crate's fixed-capacity FIFO of up to `NETCOND_AECN_QUEUE`
//! descriptors (the caller's 64-bit cookie, the flow class and the ECN field).
//! The caller keeps the packets themselves; `netcond_aecn_dequeue` hands back
//! the descriptor at the front with its ECN field as it must leave (3, CE, if
//! mark-front marked it while it waited).
//!
//! Draws come from a seeded `netcond_rng` or from the caller's own uniform
//! 32-bit value (the `_draw` function), as for RED.

use core::ffi::c_int;
use core::time::Duration;

use aqm_red::{
    AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Decision, Ecn, FlowClass, Supplied, U32F32,
};
use netcond_core::{Instant, RandomSource, SplitMix64};

use crate::errors::{red_code, NETCOND_E_NULL, NETCOND_OK};
use crate::red_ffi::{netcond_red_decision, netcond_rng, spreading, tick};
use crate::trtcm_ffi::configure;
use crate::{profile, profile_mut, state, store_profile};

/// The packets a `netcond_aecn` queue holds (the profile's `limit` may not
/// exceed it).
pub const NETCOND_AECN_QUEUE: usize = 128;
/// Size in bytes of a `netcond_aecn_profile`.
pub const NETCOND_AECN_PROFILE_SIZE: usize = 1280;
/// Size in bytes of a `netcond_aecn` (its queue and RED state).
pub const NETCOND_AECN_SIZE: usize = 2176;

/// AECN's flow classes (Zheng and Kinicki: e.g. from an RTT hint, short RTT
/// flows robust, long RTT flows fragile).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_flow_class {
    /// Marked with `min(alpha base_max_p, 1)`.
    NETCOND_FLOW_ROBUST = 0,
    /// Marked with `base_max_p`.
    NETCOND_FLOW_AVERAGE = 1,
    /// Marked with `base_max_p / beta`.
    NETCOND_FLOW_FRAGILE = 2,
}

/// The AECN parameters. The queue is counted in packets; probabilities,
/// weights, alpha and beta are 32.32 fixed point (`NETCOND_PROB_ONE` is 1.0).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_aecn_params {
    /// w_q, in (0, 1].
    pub w_q: u64,
    /// base_max_p, the average class's max_p, in [0, 1].
    pub base_max_p: u64,
    /// alpha >= 1: the robust class's max_p is `min(alpha base_max_p, 1)`.
    pub alpha: u64,
    /// beta >= 1: the fragile class's max_p is `base_max_p / beta`.
    pub beta: u64,
    /// FJ93's `s`: the typical transmission time of a packet, in nanoseconds
    /// (converted once to whole ticks of `tick_hz`, rounded down).
    pub idle_tx_ns: u64,
    /// The clock of the `now` arguments, in ticks per second.
    pub tick_hz: u64,
    /// min_th in packets.
    pub min_th: u32,
    /// max_th in packets: at or above it arrivals are dropped.
    pub max_th: u32,
    /// The buffer size in packets. A queue holds at most `NETCOND_AECN_QUEUE`
    /// packets: with a larger limit, an arrival to a full queue is
    /// `NETCOND_DROP_FORCED`.
    pub limit: u32,
    /// A `netcond_red_spreading`, applied within each class.
    pub spreading: u32,
}

/// A validated AECN profile (opaque; read-only once configured, shared by any
/// number of queues and threads).
#[repr(C, align(64))]
pub struct netcond_aecn_profile {
    /// Opaque.
    pub opaque: [u64; 160],
}

/// One AECN queue: up to `NETCOND_AECN_QUEUE` descriptors, the average, a
/// count per class (opaque; must be started by `netcond_aecn_config`).
#[repr(C, align(64))]
pub struct netcond_aecn {
    /// Opaque.
    pub opaque: [u64; 272],
}

/// A queued packet as AECN sees it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_aecn_pkt {
    /// The caller's handle of the packet (a buffer index, a pointer cast to an
    /// integer); never read by netcond.
    pub cookie: u64,
    /// A `netcond_flow_class`.
    pub flow_class: u32,
    /// The two-bit ECN field: 3 (CE) once marked.
    pub ecn: u32,
}

const _: () = assert!(core::mem::size_of::<netcond_aecn_profile>() == NETCOND_AECN_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_aecn>() == NETCOND_AECN_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_aecn_pkt>() == 16);
const _: () = assert!(core::mem::size_of::<netcond_aecn_params>() == 64);

const TAG_AECN: u64 = 0x6e63_5f61_6563_0001;
const TAG_AECN_QUEUE: u64 = 0x6e63_5f61_6563_0002;

/// The descriptor stored in the queue: a `netcond_aecn_pkt` whose class and
/// ECN field were checked on the way in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Desc {
    cookie: u64,
    class: FlowClass,
    ecn: Ecn,
}

impl AecnDescriptor for Desc {
    #[inline]
    fn class(&self) -> FlowClass {
        self.class
    }
    #[inline]
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    #[inline]
    fn set_ce(&mut self) {
        self.ecn = Ecn::Ce;
    }
}

type Queue = AecnQueue<Desc, NETCOND_AECN_QUEUE>;

fn class(v: u32) -> Option<FlowClass> {
    Some(match v {
        0 => FlowClass::Robust,
        1 => FlowClass::Average,
        2 => FlowClass::Fragile,
        _ => return None,
    })
}

fn aecn_cfg(a: &netcond_aecn_params) -> Result<AecnConfig, c_int> {
    Ok(AecnConfig::new(
        U32F32::from_bits(a.w_q),
        a.min_th,
        a.max_th,
        U32F32::from_bits(a.base_max_p),
        U32F32::from_bits(a.alpha),
        U32F32::from_bits(a.beta),
        a.limit,
    )
    .with_typical_tx(Duration::from_nanos(a.idle_tx_ns))
    .with_tick(tick(a.tick_hz)?)
    .with_spreading(spreading(a.spreading)?))
}

const FORCED: netcond_red_decision = netcond_red_decision::NETCOND_DROP_FORCED;

/// Validates `params` and writes the AECN profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_ENUM` (`spreading`),
/// `NETCOND_E_TICK` (`tick_hz` 0) or a
/// `NETCOND_E_RED_*` code (`ZERO_BETA`, `BETA_BELOW_ONE`, `ZERO_ALPHA`,
/// `ALPHA_BELOW_ONE` among them); on error `p` is left unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_profile_config(
    p: *mut netcond_aecn_profile,
    params: *const netcond_aecn_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_AECN, |a| {
            AecnProfile::new(&aecn_cfg(a)?).map_err(red_code)
        })
    }
}

/// The max_p of `flow_class` in profile `p`, 32.32 fixed point (0 on a NULL or
/// unconfigured profile or a class out of range).
///
/// # Safety
/// `p` is NULL or points to a valid `netcond_aecn_profile`.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_max_p(
    p: *const netcond_aecn_profile,
    flow_class: u32,
) -> u64 {
    // SAFETY: caller contract.
    match (
        unsafe { profile::<_, AecnProfile>(p, TAG_AECN) },
        class(flow_class),
    ) {
        (Some(p), Some(c)) => p.max_p(c).to_bits(),
        _ => 0,
    }
}

/// Starts queue `q` for profile `p`, empty and idle since `now`. Returns 0 or
/// `NETCOND_E_NULL` (either NULL, or `p` not configured). The queue holds at
/// most `NETCOND_AECN_QUEUE` packets whatever the profile's limit: above it,
/// an arrival to a full queue is `NETCOND_DROP_FORCED`.
///
/// # Safety
/// `q` is NULL or points to a writable `netcond_aecn`; `p` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_config(
    q: *mut netcond_aecn,
    p: *const netcond_aecn_profile,
    now: u64,
) -> c_int {
    if q.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, AecnProfile>(p, TAG_AECN) }) else {
        // SAFETY: `q` is non-NULL and writable.
        unsafe { crate::clear_tag(q) };
        return NETCOND_E_NULL;
    };
    // SAFETY: `q` is non-NULL and writable.
    unsafe { store_profile(q, TAG_AECN_QUEUE, Queue::new(p, Instant::from_ticks(now))) };
    NETCOND_OK
}

/// A packet of flow class `flow_class` with ECN field `ecn` (a value above 3
/// counts as not-ECT) and the caller's `cookie` arrives at `now`; draws come
/// from `rng`.
///
/// `NETCOND_ENQUEUE`: queued. `NETCOND_MARK`: queued, and the first unmarked
/// ECN-capable packet of its class was marked CE (possibly this one; the mark
/// shows on its descriptor at dequeue). `NETCOND_DROP_EARLY` /
/// `NETCOND_DROP_FORCED`: not queued, the packet stays the caller's. Also
/// `NETCOND_DROP_FORCED` on a NULL or unstarted argument or a class out of
/// range.
///
/// # Safety
/// Each pointer is NULL or valid; `q` and `rng` are used by no other thread
/// during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_enqueue(
    q: *mut netcond_aecn,
    p: *const netcond_aecn_profile,
    now: u64,
    cookie: u64,
    flow_class: u32,
    ecn: u32,
    rng: *mut netcond_rng,
) -> netcond_red_decision {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return FORCED;
    };
    // SAFETY: caller contract, passed on.
    unsafe { aecn_enqueue(q, p, now, cookie, flow_class, ecn, rng) }
}

/// As `netcond_aecn_enqueue`, with `draw` (a uniform 32-bit value) for the
/// random draws the decision may take.
///
/// # Safety
/// As `netcond_aecn_enqueue`.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_enqueue_draw(
    q: *mut netcond_aecn,
    p: *const netcond_aecn_profile,
    now: u64,
    cookie: u64,
    flow_class: u32,
    ecn: u32,
    draw: u32,
) -> netcond_red_decision {
    // SAFETY: caller contract, passed on.
    unsafe { aecn_enqueue(q, p, now, cookie, flow_class, ecn, &mut Supplied(draw)) }
}

/// The body of the two arrivals.
///
/// # Safety
/// As `netcond_aecn_enqueue`.
#[inline(always)]
unsafe fn aecn_enqueue<R: RandomSource>(
    q: *mut netcond_aecn,
    p: *const netcond_aecn_profile,
    now: u64,
    cookie: u64,
    flow_class: u32,
    ecn: u32,
    rng: &mut R,
) -> netcond_red_decision {
    let Some(class) = class(flow_class) else {
        return FORCED;
    };
    let ecn = if ecn > 3 {
        Ecn::NotEct
    } else {
        Ecn::from_bits(ecn as u8)
    };
    // SAFETY: caller contract.
    let (Some(q), Some(p)) = (unsafe { aecn(q, p) }) else {
        return FORCED;
    };
    let d = Desc { cookie, class, ecn };
    match q.enqueue(p, Instant::from_ticks(now), d, rng) {
        Ok(Decision::Mark) => netcond_red_decision::NETCOND_MARK,
        Ok(_) => netcond_red_decision::NETCOND_ENQUEUE,
        Err(r) if r.decision == Decision::DropEarly => netcond_red_decision::NETCOND_DROP_EARLY,
        Err(_) => FORCED,
    }
}

/// Takes the packet at the front of `q` at `now`: returns 1 and writes its
/// descriptor to `*out` (if not NULL; its `ecn` is 3 if it was marked), 0 if
/// the queue is empty, or `NETCOND_E_NULL` if `q` or `p` is NULL or
/// unstarted. `p` is the profile the queue was started on (as for every
/// per-packet call; the dequeue itself reads nothing from it).
///
/// # Safety
/// `q`, `p` and `out` are NULL or valid; `q` is used by one thread during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_dequeue(
    q: *mut netcond_aecn,
    p: *const netcond_aecn_profile,
    now: u64,
    out: *mut netcond_aecn_pkt,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(q), Some(p)) = (unsafe { aecn(q, p) }) else {
        return NETCOND_E_NULL;
    };
    match q.dequeue(p, Instant::from_ticks(now)) {
        Some(d) => {
            // SAFETY: `out` is NULL or writable (caller contract).
            if let Some(o) = unsafe { out.as_mut() } {
                *o = netcond_aecn_pkt {
                    cookie: d.cookie,
                    flow_class: d.class.index() as u32,
                    ecn: d.ecn as u32,
                };
            }
            1
        }
        None => 0,
    }
}

/// The packets queued in `q` (0 on NULL or unstarted).
///
/// # Safety
/// `q` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_len(q: *const netcond_aecn) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, Queue>(q, TAG_AECN_QUEUE) } {
        Some(q) => u32::try_from(q.len()).unwrap_or(u32::MAX),
        None => 0,
    }
}

/// The average queue length of `q` in packets, 32.32 fixed point (0 on a NULL
/// or unstarted argument).
///
/// # Safety
/// `q` and `p` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_avg(
    q: *const netcond_aecn,
    p: *const netcond_aecn_profile,
) -> u64 {
    // SAFETY: caller contract.
    match unsafe {
        (
            profile::<_, Queue>(q, TAG_AECN_QUEUE),
            profile::<_, AecnProfile>(p, TAG_AECN),
        )
    } {
        (Some(q), Some(p)) => q.avg(p).to_bits(),
        _ => 0,
    }
}

/// The counts since each class's last mark, written to `counts[3]` (indexed by
/// `netcond_flow_class`). Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `q` is NULL or valid; `counts` is NULL or points to three writable values.
#[no_mangle]
pub unsafe extern "C" fn netcond_aecn_counts(q: *const netcond_aecn, counts: *mut u32) -> c_int {
    // SAFETY: caller contract.
    let (Some(q), Some(out)) = (unsafe {
        (
            profile::<_, Queue>(q, TAG_AECN_QUEUE),
            counts.cast::<[u32; 3]>().as_mut(),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    *out = q.counts();
    NETCOND_OK
}

/// The queue and profile, if both are present and started.
///
/// # Safety
/// `q` and `p` are NULL or valid; `q` is used by this call only.
#[inline(always)]
unsafe fn aecn<'a>(
    q: *mut netcond_aecn,
    p: *const netcond_aecn_profile,
) -> (Option<&'a mut Queue>, Option<&'a AecnProfile>) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, Queue>(q, TAG_AECN_QUEUE),
            profile::<_, AecnProfile>(p, TAG_AECN),
        )
    }
}

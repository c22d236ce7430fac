//! The 3sM egress traffic control of draft-babiarz-pcn-explicit-marking-01
//! (crate `pcn-meter`, `Egress3sm`): a table of up to `NETCOND_EGRESS3SM_AGGS`
//! ingress-egress aggregates, each keyed by a 32-bit value of the caller's and
//! holding one stop-blocking timer. An AS (ThM) packet signals "block
//! admission" to its aggregate; an ET (ETM) packet signals "terminate its flow"
//! (and also blocks when the profile's `et_blocks` is set). The profile is a
//! `netcond_stop_blocking_profile`.

use core::ffi::c_int;

use netcond_core::Instant;
use pcn_meter::{Egress3sm, EgressSignal, StopBlockingProfile};

use crate::edge_ffi::{admission, netcond_stop_blocking_profile, TAG_STOP};
use crate::errors::{NETCOND_E_NULL, NETCOND_OK};
use crate::pcn_ffi::mark_in;
use crate::{profile, profile_mut, store_profile};

/// The aggregates a `netcond_egress3sm` table holds.
pub const NETCOND_EGRESS3SM_AGGS: usize = 64;
/// Size in bytes of a `netcond_egress3sm`.
pub const NETCOND_EGRESS3SM_SIZE: usize = 1600;

/// A table of aggregates with their stop-blocking timers (opaque; must be
/// started by `netcond_egress3sm_config`).
#[repr(C, align(64))]
pub struct netcond_egress3sm {
    /// Opaque.
    pub opaque: [u64; 200],
}

/// What the egress signals for one packet.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_egress3sm_action {
    /// Nothing (a not-marked or not-PCN packet, or an index out of range).
    NETCOND_EGRESS3SM_NOTHING = 0,
    /// An AS packet: block admission to the aggregate.
    NETCOND_EGRESS3SM_BLOCK = 1,
    /// An ET packet: terminate the packet's flow.
    NETCOND_EGRESS3SM_TERMINATE = 2,
}

/// The signal of one packet.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_egress3sm_signal {
    /// The flow to terminate (the caller's `flow`, for
    /// `NETCOND_EGRESS3SM_TERMINATE`; 0 otherwise).
    pub flow: u64,
    /// A `netcond_egress3sm_action`.
    pub action: u32,
    /// 1 if this packet blocked an admitting aggregate (a new blocking
    /// period), else 0.
    pub new_block_period: u32,
}

const _: () = assert!(core::mem::size_of::<netcond_egress3sm>() == NETCOND_EGRESS3SM_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_egress3sm_signal>() == 16);

const TAG_EGRESS3SM: u64 = 0x6e63_5f65_6467_0010;

type Table = Egress3sm<u32, NETCOND_EGRESS3SM_AGGS>;

/// The table at `e`, mutable, if started.
///
/// # Safety
/// `e` is NULL or valid, used by this call only.
#[inline(always)]
unsafe fn table<'a>(e: *mut netcond_egress3sm) -> Option<&'a mut Table> {
    // SAFETY: caller contract; the tag says a `Table` was stored here.
    unsafe { profile_mut::<_, Table>(e, TAG_EGRESS3SM) }
}

/// The table at `e`, read-only, if started.
///
/// # Safety
/// `e` is NULL or valid.
#[inline(always)]
unsafe fn table_ref<'a>(e: *const netcond_egress3sm) -> Option<&'a Table> {
    // SAFETY: caller contract; the tag says a `Table` was stored here.
    unsafe { profile::<_, Table>(e, TAG_EGRESS3SM) }
}

/// The stop-blocking profile at `p`, if configured.
///
/// # Safety
/// `p` is NULL or valid.
#[inline(always)]
unsafe fn stop_profile<'a>(
    p: *const netcond_stop_blocking_profile,
) -> Option<&'a StopBlockingProfile> {
    // SAFETY: caller contract.
    unsafe { profile::<_, StopBlockingProfile>(p, TAG_STOP) }
}

/// Starts table `e` empty, for timers of profile `p`, at `now`. Returns 0 or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `e` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_config(
    e: *mut netcond_egress3sm,
    p: *const netcond_stop_blocking_profile,
    now: u64,
) -> c_int {
    if e.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { stop_profile(p) }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: `e` is non-NULL and writable.
    unsafe { store_profile(e, TAG_EGRESS3SM, Table::new(p, Instant::from_ticks(now))) };
    NETCOND_OK
}

/// Registers aggregate `key` (admitting), or finds it if registered: returns 0
/// and writes its index to `*index` (if not NULL), 1 if the table is full, or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `e` and `index` are NULL or valid; `e` is used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_add(
    e: *mut netcond_egress3sm,
    key: u32,
    index: *mut u32,
) -> c_int {
    // SAFETY: caller contract.
    let Some(t) = (unsafe { table(e) }) else {
        return NETCOND_E_NULL;
    };
    match t.add(key) {
        Ok(i) => {
            // SAFETY: `index` is NULL or writable (caller contract).
            if let Some(o) = unsafe { index.as_mut() } {
                *o = u32::try_from(i).unwrap_or(u32::MAX);
            }
            NETCOND_OK
        }
        Err(_) => 1,
    }
}

fn signal_out(s: EgressSignal<u64>) -> netcond_egress3sm_signal {
    match s {
        EgressSignal::Nothing => netcond_egress3sm_signal {
            flow: 0,
            action: netcond_egress3sm_action::NETCOND_EGRESS3SM_NOTHING as u32,
            new_block_period: 0,
        },
        EgressSignal::Block { new_period } => netcond_egress3sm_signal {
            flow: 0,
            action: netcond_egress3sm_action::NETCOND_EGRESS3SM_BLOCK as u32,
            new_block_period: u32::from(new_period),
        },
        EgressSignal::Terminate {
            flow,
            new_block_period,
        } => netcond_egress3sm_signal {
            flow,
            action: netcond_egress3sm_action::NETCOND_EGRESS3SM_TERMINATE as u32,
            new_block_period: u32::from(new_block_period),
        },
    }
}

/// A packet of aggregate `key` and flow `flow` leaves the PCN domain at `now`
/// in state `pkt_mark` (a `netcond_pcn_mark`; a value outside 0..3 counts as
/// not-PCN). Returns 0 and writes the signal to `*out` (if not NULL), 1 if
/// `key` is not registered, or `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `e` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_on_packet(
    e: *mut netcond_egress3sm,
    p: *const netcond_stop_blocking_profile,
    now: u64,
    key: u32,
    flow: u64,
    pkt_mark: c_int,
    out: *mut netcond_egress3sm_signal,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(t), Some(p)) = (unsafe { (table(e), stop_profile(p)) }) else {
        return NETCOND_E_NULL;
    };
    match t.on_packet(p, Instant::from_ticks(now), key, flow, mark_in(pkt_mark)) {
        Ok(s) => {
            // SAFETY: `out` is NULL or writable (caller contract).
            if let Some(o) = unsafe { out.as_mut() } {
                *o = signal_out(s);
            }
            NETCOND_OK
        }
        Err(_) => 1,
    }
}

/// As `netcond_egress3sm_on_packet` with the aggregate's index from
/// `netcond_egress3sm_add` (no search); an index out of range signals
/// nothing. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// As `netcond_egress3sm_on_packet`.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_on_packet_at(
    e: *mut netcond_egress3sm,
    p: *const netcond_stop_blocking_profile,
    now: u64,
    index: u32,
    flow: u64,
    pkt_mark: c_int,
    out: *mut netcond_egress3sm_signal,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(t), Some(p)) = (unsafe { (table(e), stop_profile(p)) }) else {
        return NETCOND_E_NULL;
    };
    let s = t.on_packet_at(
        p,
        Instant::from_ticks(now),
        index as usize,
        flow,
        mark_in(pkt_mark),
    );
    // SAFETY: `out` is NULL or writable (caller contract).
    if let Some(o) = unsafe { out.as_mut() } {
        *o = signal_out(s);
    }
    NETCOND_OK
}

/// Plays every timer up to `now`: returns 1 and writes one aggregate whose
/// admission resumed and the instant (each if not NULL), 0 if none, or
/// `NETCOND_E_NULL`. Call until it returns 0.
///
/// # Safety
/// Each pointer is NULL or valid; `e` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_poll(
    e: *mut netcond_egress3sm,
    p: *const netcond_stop_blocking_profile,
    now: u64,
    key: *mut u32,
    resumed_at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(t), Some(p)) = (unsafe { (table(e), stop_profile(p)) }) else {
        return NETCOND_E_NULL;
    };
    match t.poll(p, Instant::from_ticks(now)) {
        Some((k, at)) => {
            // SAFETY: each is NULL or writable (caller contract).
            unsafe {
                if let Some(o) = key.as_mut() {
                    *o = k;
                }
                if let Some(o) = resumed_at.as_mut() {
                    *o = at.ticks();
                }
            }
            1
        }
        None => 0,
    }
}

/// When `netcond_egress3sm_poll` next has something to do: returns 1 and
/// writes the instant to `*at` (if not NULL), 0 if every aggregate is idle, or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `e` and `at` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_next_wakeup(
    e: *const netcond_egress3sm,
    at: *mut u64,
) -> c_int {
    // SAFETY: caller contract.
    let Some(t) = (unsafe { table_ref(e) }) else {
        return NETCOND_E_NULL;
    };
    match t.next_wakeup() {
        Some(w) => {
            // SAFETY: `at` is NULL or writable (caller contract).
            if let Some(o) = unsafe { at.as_mut() } {
                *o = w.ticks();
            }
            1
        }
        None => 0,
    }
}

/// The admission state of aggregate `key` as last advanced: 0 admit, 1 block,
/// 2 if `key` is not registered, or `NETCOND_E_NULL`.
///
/// # Safety
/// `e` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_admission(
    e: *const netcond_egress3sm,
    key: u32,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe { table_ref(e) } {
        Some(t) => t.admission(key).map_or(2, |a| admission(a) as c_int),
        None => NETCOND_E_NULL,
    }
}

/// The number of registered aggregates (0 on NULL or unstarted).
///
/// # Safety
/// `e` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_egress3sm_len(e: *const netcond_egress3sm) -> u32 {
    // SAFETY: caller contract.
    match unsafe { table_ref(e) } {
        Some(t) => u32::try_from(t.len()).unwrap_or(u32::MAX),
        None => 0,
    }
}

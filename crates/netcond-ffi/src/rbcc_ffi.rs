//! RBCC (TRUMP's router-based congestion control, crate `rbcc-rate`): an output
//! interface's max-min fair allocation table, stamping the rate field of data
//! packets and learning from the returned acknowledgements; and the RCP-style
//! rate controller, which stamps one rate updated every control interval.
//!
//! Rates in the packet headers are Q48.16 fixed point bits per second in a
//! `uint64_t` (`NETCOND_RBCC_ONE_BPS` is 1 bit/s; `UINT64_MAX` is "unlimited").
//! A table holds up to `NETCOND_RBCC_FLOWS` rows (a data row per flow, and an
//! ACK row per reverse flow under the coupled ACK model).

use core::ffi::c_int;
use core::time::Duration;

use netcond_core::{Instant, Rate, TickRate};
use rbcc_rate::{
    AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};

use crate::errors::{rbcc_code, NETCOND_E_ENUM, NETCOND_E_NULL, NETCOND_E_TICK, NETCOND_OK};
use crate::trtcm_ffi::configure;
use crate::{profile, profile_mut, store_profile};

/// 1 bit/s in the Q48.16 rates of the RBCC headers.
pub const NETCOND_RBCC_ONE_BPS: u64 = 65_536;
/// Rows of an RBCC interface table.
pub const NETCOND_RBCC_FLOWS: usize = 256;
/// Size in bytes of a `netcond_rbcc_interface`.
pub const NETCOND_RBCC_INTERFACE_SIZE: usize = 24_576;

/// How acknowledgement traffic enters an interface's allocation.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_rbcc_ack_model {
    /// ACK load is outside load of `ack/data` times its returned rate (the
    /// model of the TRUMP/RBCC scenario tables).
    NETCOND_RBCC_ACK_OUTSIDE_LOAD = 0,
    /// Strict coupled max-min: ACK rows take part with weight `ack/data`.
    NETCOND_RBCC_ACK_COUPLED = 1,
}

/// The parameters of one RBCC output interface.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_rbcc_params {
    /// The interface's capacity C, bits per second.
    pub capacity_bps: u64,
    /// Rows not seen for this long are removed by `netcond_rbcc_expire`, ns
    /// (`UINT64_MAX`: never).
    pub idle_timeout_ns: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// The id stamped into the bottleneck field (not zero).
    pub node: u32,
    /// Bytes of acknowledgement per data packet.
    pub ack_bytes: u32,
    /// Bytes of a data packet.
    pub data_bytes: u32,
    /// A `netcond_rbcc_ack_model`.
    pub ack_model: u32,
}

/// The congestion fields of a data packet.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_rbcc_rate_header {
    /// The rate the source asks for (Q48.16 bit/s); routers never change it.
    pub requested: u64,
    /// The rate field, lowered by each router to its allocation (Q48.16 bit/s).
    pub rate: u64,
    /// The router that last lowered `rate` (0: none).
    pub bottleneck: u32,
    /// Reserved.
    pub reserved: u32,
}

/// The congestion fields of an acknowledgement.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct netcond_rbcc_ack_header {
    /// The return rate (Q48.16 bit/s).
    pub rate: u64,
    /// The router that set it (0: none).
    pub bottleneck: u32,
    /// Reserved.
    pub reserved: u32,
}

/// A validated RBCC interface profile (opaque).
#[repr(C, align(64))]
pub struct netcond_rbcc_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// One output interface's allocation table (opaque; must be started by
/// `netcond_rbcc_config`).
#[repr(C, align(64))]
pub struct netcond_rbcc_interface {
    /// Opaque.
    pub opaque: [u64; 3072],
}

const _: () =
    assert!(core::mem::size_of::<netcond_rbcc_interface>() == NETCOND_RBCC_INTERFACE_SIZE);

const TAG_RBCC: u64 = 0x6e63_5f72_6263_6301;
const TAG_RBCC_TABLE: u64 = 0x6e63_5f72_6263_6302;

/// Validates `params` and writes the RBCC profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK`, `NETCOND_E_ENUM` or a
/// `NETCOND_E_RBCC_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_profile_config(
    p: *mut netcond_rbcc_profile,
    params: *const netcond_rbcc_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_RBCC, |a| {
            let ack_model = match a.ack_model {
                0 => AckModel::OutsideLoad,
                1 => AckModel::Coupled,
                _ => return Err(NETCOND_E_ENUM),
            };
            RbccProfile::new(
                &RbccConfig::new(
                    NodeId(a.node),
                    Rate::from_bits_per_sec(a.capacity_bps),
                    a.ack_bytes,
                    a.data_bytes,
                )
                .with_ack_model(ack_model)
                .with_idle_timeout(if a.idle_timeout_ns == u64::MAX {
                    Duration::MAX
                } else {
                    Duration::from_nanos(a.idle_timeout_ns)
                })
                .with_tick(TickRate::from_hz(a.tick_hz).ok_or(NETCOND_E_TICK)?),
            )
            .map_err(rbcc_code)
        })
    }
}

/// Starts interface table `t` on profile `p` at `now`: empty, advertising the
/// capacity. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `t` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_config(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
    now: u64,
) -> c_int {
    if t.is_null() {
        return NETCOND_E_NULL;
    }
    // SAFETY: caller contract.
    let Some(p) = (unsafe { profile::<_, RbccProfile>(p, TAG_RBCC) }) else {
        return NETCOND_E_NULL;
    };
    // SAFETY: `t` is non-NULL and writable.
    unsafe {
        store_profile(
            t,
            TAG_RBCC_TABLE,
            RbccInterface::<NETCOND_RBCC_FLOWS>::new(p, Instant::from_ticks(now)),
        )
    };
    NETCOND_OK
}

/// A data packet of `flow` leaves by this interface at `now`: its rate field
/// is lowered to the advertised rate (and the bottleneck set) when that is
/// smaller, and the flow's row learns its requested rate. Returns 0, 1 if the
/// table is full and the flow is new (the header is still stamped), or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `t` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_on_data(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
    now: u64,
    flow: u32,
    hdr: *mut netcond_rbcc_rate_header,
) -> c_int {
    // SAFETY: caller contract.
    let (t, p) = unsafe { table(t, p) };
    // SAFETY: caller contract.
    let (Some(t), Some(p), Some(h)) = (t, p, unsafe { hdr.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    let mut r = RateHeader {
        requested: FixedRate::from_raw(h.requested),
        rate: FixedRate::from_raw(h.rate),
        bottleneck: NodeId(h.bottleneck),
    };
    let full = t
        .on_data(p, Instant::from_ticks(now), flow, &mut r)
        .is_err();
    h.rate = r.rate.raw();
    h.bottleneck = r.bottleneck.0;
    c_int::from(full)
}

/// The acknowledgement of `flow` came back through this interface at `now`
/// (its data row learns the returned rate). Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `t` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_on_return(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
    now: u64,
    flow: u32,
    ack: *const netcond_rbcc_ack_header,
) -> c_int {
    // SAFETY: caller contract.
    let (t, p) = unsafe { table(t, p) };
    // SAFETY: caller contract.
    let (Some(t), Some(p), Some(a)) = (t, p, unsafe { ack.as_ref() }) else {
        return NETCOND_E_NULL;
    };
    let a = AckHeader {
        rate: FixedRate::from_raw(a.rate),
        bottleneck: NodeId(a.bottleneck),
    };
    t.on_return(p, Instant::from_ticks(now), flow, &a);
    NETCOND_OK
}

/// An acknowledgement of `flow` leaves by this interface at `now` (coupled
/// model: its return rate is lowered like a data packet's rate field). Returns
/// 0, 1 if the table is full and the ACK flow is new (the ACK is unchanged), or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `t` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_on_ack(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
    now: u64,
    flow: u32,
    ack: *mut netcond_rbcc_ack_header,
) -> c_int {
    // SAFETY: caller contract.
    let (t, p) = unsafe { table(t, p) };
    // SAFETY: caller contract.
    let (Some(t), Some(p), Some(h)) = (t, p, unsafe { ack.as_mut() }) else {
        return NETCOND_E_NULL;
    };
    let mut a = AckHeader {
        rate: FixedRate::from_raw(h.rate),
        bottleneck: NodeId(h.bottleneck),
    };
    let full = t.on_ack(p, Instant::from_ticks(now), flow, &mut a).is_err();
    h.rate = a.rate.raw();
    h.bottleneck = a.bottleneck.0;
    c_int::from(full)
}

/// `flow` closed: its rows leave the table. Returns 1 if a row was removed, 0
/// if none was, or `NETCOND_E_NULL`.
///
/// # Safety
/// `t` and `p` are NULL or valid; `t` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_close(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
    flow: u32,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe { table(t, p) } {
        (Some(t), Some(p)) => c_int::from(t.close(p, flow)),
        _ => NETCOND_E_NULL,
    }
}

/// Removes every row not seen for the idle timeout by `now` (call it
/// periodically, not per packet: it visits every row). Returns how many rows
/// left (at most `NETCOND_RBCC_FLOWS`), or `NETCOND_E_NULL`.
///
/// # Safety
/// `t` and `p` are NULL or valid; `t` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_expire(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe { table(t, p) } {
        (Some(t), Some(p)) => {
            c_int::try_from(t.expire(p, Instant::from_ticks(now))).unwrap_or(c_int::MAX)
        }
        _ => NETCOND_E_NULL,
    }
}

/// The rate the interface advertises (Q48.16 bit/s): every flow bottlenecked
/// here gets it. 0 on a NULL or unstarted table.
///
/// # Safety
/// `t` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_advertised(t: *const netcond_rbcc_interface) -> u64 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, RbccInterface<NETCOND_RBCC_FLOWS>>(t, TAG_RBCC_TABLE) } {
        Some(t) => t.advertised().raw(),
        None => 0,
    }
}

/// The rows in use in table `t` (0 on NULL or unstarted).
///
/// # Safety
/// `t` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_rbcc_len(t: *const netcond_rbcc_interface) -> u32 {
    // SAFETY: caller contract.
    match unsafe { profile::<_, RbccInterface<NETCOND_RBCC_FLOWS>>(t, TAG_RBCC_TABLE) } {
        Some(t) => u32::try_from(t.len()).unwrap_or(u32::MAX),
        None => 0,
    }
}

/// The table and profile, if both are present and started.
///
/// # Safety
/// `t` and `p` are NULL or valid; `t` is used by this call only.
#[inline(always)]
unsafe fn table<'a>(
    t: *mut netcond_rbcc_interface,
    p: *const netcond_rbcc_profile,
) -> (
    Option<&'a mut RbccInterface<NETCOND_RBCC_FLOWS>>,
    Option<&'a RbccProfile>,
) {
    // SAFETY: caller contract, passed on.
    unsafe {
        (
            profile_mut::<_, RbccInterface<NETCOND_RBCC_FLOWS>>(t, TAG_RBCC_TABLE),
            profile::<_, RbccProfile>(p, TAG_RBCC),
        )
    }
}

// ---------------------------------------------------------------- RCP

/// The parameters of an RCP-style rate controller (Dukkipati et al.'s
/// `R <- R (1 + (T/d0) (alpha (C - y) - beta q / d0) / C)`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_rcp_params {
    /// Link capacity C, bits per second.
    pub capacity_bps: u64,
    /// The mean round-trip time d0, ns.
    pub rtt_ns: u64,
    /// The control interval T, ns.
    pub interval_ns: u64,
    /// The rate before the first update, bits per second.
    pub initial_bps: u64,
    /// The floor of the rate, bits per second.
    pub min_rate_bps: u64,
    /// Ticks per second of the timestamps.
    pub tick_hz: u64,
    /// The id stamped into the bottleneck field (not zero).
    pub node: u32,
    /// alpha's numerator (0.1 is 1 / 10).
    pub alpha_num: u32,
    /// alpha's denominator.
    pub alpha_den: u32,
    /// beta's numerator (1 is 1 / 1).
    pub beta_num: u32,
    /// beta's denominator.
    pub beta_den: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// A validated RCP profile (opaque).
#[repr(C, align(64))]
pub struct netcond_rcp_profile {
    /// Opaque.
    pub opaque: [u64; 16],
}

/// One interface's RCP state: 24 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_rcp {
    /// Opaque.
    pub opaque: [u64; 3],
}

const TAG_RCP: u64 = 0x6e63_5f72_6370_0001;

/// Validates `params` and writes the RCP profile to `p`. Returns 0,
/// `NETCOND_E_NULL`, `NETCOND_E_TICK` or a `NETCOND_E_RCP_*` code.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rcp_profile_config(
    p: *mut netcond_rcp_profile,
    params: *const netcond_rcp_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        configure(p, params, TAG_RCP, |a| {
            crate::errors::reserved_zero(&[a.reserved.into()])?;
            rbcc_rate::RcpProfile::new(
                &rbcc_rate::RcpConfig::new(
                    NodeId(a.node),
                    Rate::from_bits_per_sec(a.capacity_bps),
                    Duration::from_nanos(a.rtt_ns),
                )
                .with_alpha((a.alpha_num, a.alpha_den))
                .with_beta((a.beta_num, a.beta_den))
                .with_interval(Duration::from_nanos(a.interval_ns))
                .with_initial(Rate::from_bits_per_sec(a.initial_bps))
                .with_min_rate(Rate::from_bits_per_sec(a.min_rate_bps))
                .with_tick(TickRate::from_hz(a.tick_hz).ok_or(NETCOND_E_TICK)?),
            )
            .map_err(crate::errors::rcp_code)
        })
    }
}

/// Starts RCP state `m` at the initial rate, its first interval at `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_rcp_config(
    m: *mut netcond_rcp,
    p: *const netcond_rcp_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { crate::trtcm_ffi::start(m, p, TAG_RCP, now, rbcc_rate::Rcp::new) }
}

/// A data packet of `pkt_len` bytes leaves by this interface: it counts toward
/// the input rate, and its rate field is lowered to R (with this node as the
/// bottleneck) when R is smaller. Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// Each pointer is NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rcp_on_data(
    m: *mut netcond_rcp,
    p: *const netcond_rcp_profile,
    now: u64,
    pkt_len: u32,
    hdr: *mut netcond_rbcc_rate_header,
) -> c_int {
    // SAFETY: caller contract.
    let (Some(m), Some(p), Some(h)) = (unsafe {
        (
            crate::state::<_, rbcc_rate::Rcp>(m),
            profile::<_, rbcc_rate::RcpProfile>(p, TAG_RCP),
            hdr.as_mut(),
        )
    }) else {
        return NETCOND_E_NULL;
    };
    m.on_arrival(p, Instant::from_ticks(now), pkt_len);
    let mut r = RateHeader {
        requested: FixedRate::from_raw(h.requested),
        rate: FixedRate::from_raw(h.rate),
        bottleneck: NodeId(h.bottleneck),
    };
    // RCP's stamping never fails (the signature is RBCC's).
    let _ = m.on_data(p, Instant::from_ticks(now), 0, &mut r);
    h.rate = r.rate.raw();
    h.bottleneck = r.bottleneck.0;
    NETCOND_OK
}

/// Runs the rate update if a control interval T has passed since the last one,
/// with `queue_bytes` the queue now. Returns 1 if it updated, 0 if not, or
/// `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or valid; `m` is used by one thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_rcp_control(
    m: *mut netcond_rcp,
    p: *const netcond_rcp_profile,
    now: u64,
    queue_bytes: u64,
) -> c_int {
    // SAFETY: caller contract.
    match unsafe {
        (
            crate::state::<_, rbcc_rate::Rcp>(m),
            profile::<_, rbcc_rate::RcpProfile>(p, TAG_RCP),
        )
    } {
        (Some(m), Some(p)) => c_int::from(m.control(p, Instant::from_ticks(now), queue_bytes)),
        _ => NETCOND_E_NULL,
    }
}

/// The current rate R of `m` (Q48.16 bit/s; 0 on NULL).
///
/// # Safety
/// `m` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn netcond_rcp_rate(m: *const netcond_rcp) -> u64 {
    // SAFETY: caller contract.
    match unsafe { crate::state_ref::<_, rbcc_rate::Rcp>(m) } {
        Some(m) => m.rate().raw(),
        None => 0,
    }
}

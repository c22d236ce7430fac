//! The RED family: RED (every spreading), RIO-C / RIO-D / WRED with three
//! colors, and Adaptive RED, as the Rust crate `aqm-red` implements them.
//!
//! The caller keeps the queue and passes its length with each arrival (packets
//! or bytes, the profile's unit, the arriving packet not included). Random
//! draws come either from a `netcond_rng` the caller seeds (the crate's
//! SplitMix64: the same seed gives the same decisions as the Rust API), or
//! from a uniform 32-bit value the caller supplies with the packet (a hardware
//! generator, a replayed trace): the `*_draw` functions use it for the one draw
//! a decision may need.
//!
//! Probabilities and weights are 32.32 fixed point in a `uint64_t`: the value
//! times 2^32 (`NETCOND_PROB_ONE` is 1.0; 0.002 is `0.002 * 4294967296.0`,
//! rounded, at configuration time).

use core::ffi::c_int;
use core::time::Duration;

use aqm_red::{
    AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile, Decision, Ecn, Packet, Precedence,
    QueueSettings, QueueUnit, Red, RedConfig, RedProfile, Rio, RioConfig, RioMode, RioProfile,
    Spreading, Supplied, U32F32,
};
use netcond_core::{Instant, RandomSource, SplitMix64, TickRate};

use crate::errors::{red_code, NETCOND_E_ENUM, NETCOND_E_TICK};
use crate::{profile, state, state_ref, store_state};

/// 1.0 in the 32.32 fixed point of probabilities and weights.
pub const NETCOND_PROB_ONE: u64 = 4_294_967_296;
/// "None" for the optional `uint32_t` fields of the RED parameters.
pub const NETCOND_RED_NONE: u32 = u32::MAX;
/// Size in bytes of a RED or RIO profile struct.
pub const NETCOND_RED_PROFILE_SIZE: usize = 1280;
/// Size in bytes of the per-queue RED state.
pub const NETCOND_RED_STATE_SIZE: usize = 16;
/// Size in bytes of the per-queue RIO state.
pub const NETCOND_RIO_STATE_SIZE: usize = 32;
/// Size in bytes of an Adaptive RED profile struct.
pub const NETCOND_ADAPTIVE_RED_PROFILE_SIZE: usize = 1280;
/// Size in bytes of the per-queue Adaptive RED state (the RED state, the
/// adapted max_p and the curve derived from it, the interval's start).
pub const NETCOND_ADAPTIVE_RED_SIZE: usize = 512;
/// Size in bytes of a `netcond_rng`.
pub const NETCOND_RNG_SIZE: usize = 8;

/// What the queue length, thresholds and limit count.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_queue_unit {
    /// Packets: an arrival fits while `queue_len < limit`.
    NETCOND_QUEUE_PACKETS = 0,
    /// Bytes: an arrival fits while `queue_len + len <= limit`.
    NETCOND_QUEUE_BYTES = 1,
}

/// How RED spreads its early drops over the packets since the last one (see
/// the Rust `aqm_red::Spreading` for each law and its drop fraction).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_red_spreading {
    /// FJ93 with one draw per drop (the default; drop fraction about 2 p_b).
    NETCOND_SPREAD_ACCUMULATED = 0,
    /// DPDK's law with one draw per drop (about p_b).
    NETCOND_SPREAD_ACCUMULATED_DPDK = 1,
    /// FJ93 section 7, one draw per packet.
    NETCOND_SPREAD_UNIFORM = 2,
    /// FJ93 figure 2 taken literally (ns-2), one draw per packet.
    NETCOND_SPREAD_UNIFORM_COUNT_FIRST = 3,
    /// DPDK's `p_b / (2 - count p_b)`, one draw per packet.
    NETCOND_SPREAD_DPDK = 4,
    /// No spreading: `p_a = p_b`.
    NETCOND_SPREAD_GEOMETRIC = 5,
    /// ns-3's `RedQueueDisc` with `Wait=true`: no drop while `count p_b < 1`,
    /// then `p_b / (2 - count p_b)` (about `2 p_b / 3`), one draw per packet.
    NETCOND_SPREAD_WAIT = 6,
}

/// RIO's averages.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_rio_mode {
    /// RIO-C: a color's average counts its own and every better color.
    NETCOND_RIO_COUPLED = 0,
    /// RIO-D: each color's average counts its own packets only.
    NETCOND_RIO_DECOUPLED = 1,
    /// WRED: one average of the whole queue; per-color thresholds.
    NETCOND_WRED = 2,
}

/// The decision for an arriving packet.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_red_decision {
    /// Queue the packet unchanged.
    NETCOND_ENQUEUE = 0,
    /// Queue the packet with CE set (RFC 3168 section 5).
    NETCOND_MARK = 1,
    /// RED's random early drop.
    NETCOND_DROP_EARLY = 2,
    /// Drop: above max_th (2 max_th gentle), at the ECN hard threshold, or the
    /// buffer is full. Also the answer to a NULL or unconfigured argument.
    NETCOND_DROP_FORCED = 3,
}

/// The RED parameters (FJ93 section 4; RFC 2309, RFC 3168, RFC 7567).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_red_params {
    /// max_p, 32.32 fixed point, in [0, 1].
    pub max_p: u64,
    /// w_q, 32.32 fixed point, in (0, 1].
    pub w_q: u64,
    /// FJ93's `s`: the typical transmission time of a packet, in nanoseconds
    /// (converted once to whole ticks of `tick_hz`, rounded down; zero ticks
    /// is refused).
    pub idle_tx_ns: u64,
    /// The clock of the `now` arguments, in ticks per second.
    pub tick_hz: u64,
    /// min_th in queue units.
    pub min_th: u32,
    /// max_th in queue units.
    pub max_th: u32,
    /// The buffer size in queue units.
    pub limit: u32,
    /// A `netcond_queue_unit`.
    pub unit: u32,
    /// 1 for gentle RED, 0 for not.
    pub gentle: u32,
    /// 1 to mark ECN-capable packets instead of dropping them, 0 for not.
    pub ecn: u32,
    /// With ECN, drop ECN-capable packets too at or above this average
    /// (`NETCOND_RED_NONE`: never).
    pub ecn_drop_th: u32,
    /// Byte mode with this maximum packet size in bytes (`NETCOND_RED_NONE`: off).
    pub byte_mode: u32,
    /// A `netcond_red_spreading`.
    pub spreading: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

/// One color's RED thresholds in a RIO profile.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_rio_precedence {
    /// max_p, 32.32 fixed point.
    pub max_p: u64,
    /// min_th in queue units.
    pub min_th: u32,
    /// max_th in queue units.
    pub max_th: u32,
}

/// The RIO / WRED parameters (RFC 2597 section 4; RFC 2963 appendix A.1).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct netcond_rio_params {
    /// Thresholds of green, yellow, red (indexed by `netcond_color`).
    pub colors: [netcond_rio_precedence; 3],
    /// w_q, 32.32 fixed point, shared by the averages.
    pub w_q: u64,
    /// FJ93's `s` in nanoseconds (converted once to whole ticks of
    /// `tick_hz`, rounded down).
    pub idle_tx_ns: u64,
    /// The clock of the `now` arguments, in ticks per second.
    pub tick_hz: u64,
    /// A `netcond_rio_mode`.
    pub mode: u32,
    /// Buffer size in queue units, all colors together.
    pub limit: u32,
    /// A `netcond_queue_unit`.
    pub unit: u32,
    /// 1 for gentle RED for every color.
    pub gentle: u32,
    /// 1 to mark ECN-capable packets.
    pub ecn: u32,
    /// With ECN, the hard-drop average (`NETCOND_RED_NONE`: never).
    pub ecn_drop_th: u32,
    /// Byte mode's maximum packet size (`NETCOND_RED_NONE`: off).
    pub byte_mode: u32,
    /// A `netcond_red_spreading`.
    pub spreading: u32,
}

/// A validated RED profile (opaque; read-only once configured, shared by any
/// number of queues and threads).
#[repr(C, align(64))]
pub struct netcond_red_profile {
    /// Opaque.
    pub opaque: [u64; 160],
}

/// A validated RIO / WRED profile (opaque).
#[repr(C, align(64))]
pub struct netcond_rio_profile {
    /// Opaque.
    pub opaque: [u64; 160],
}

/// One queue's RED state: 16 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_red {
    /// Opaque.
    pub opaque: [u64; 2],
}

/// One queue's RIO state: 32 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_rio {
    /// Opaque.
    pub opaque: [u64; 4],
}

/// A validated Adaptive RED profile (opaque; read-only once configured,
/// shared by any number of queues and threads).
#[repr(C, align(64))]
pub struct netcond_adaptive_red_profile {
    /// Opaque.
    pub opaque: [u64; 160],
}

/// One Adaptive RED queue's state (opaque): the RED state, its own adapted
/// max_p with the curve derived from it, and the adaptation clock.
#[repr(C, align(64))]
pub struct netcond_adaptive_red {
    /// Opaque.
    pub opaque: [u64; 64],
}

/// The crate's seedable generator (SplitMix64), 8 bytes (opaque).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct netcond_rng {
    /// Opaque.
    pub opaque: [u64; 1],
}

const _: () = assert!(core::mem::size_of::<netcond_red_profile>() == NETCOND_RED_PROFILE_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_rio_profile>() == NETCOND_RED_PROFILE_SIZE);
const _: () = assert!(
    core::mem::size_of::<netcond_adaptive_red_profile>() == NETCOND_ADAPTIVE_RED_PROFILE_SIZE
);
const _: () = assert!(core::mem::size_of::<netcond_adaptive_red>() == NETCOND_ADAPTIVE_RED_SIZE);
const _: () = assert!(core::mem::size_of::<netcond_red_params>() == 72);
const _: () = assert!(core::mem::size_of::<netcond_rio_params>() == 104);

const TAG_RED: u64 = 0x6e63_5f72_6564_0001;
const TAG_RIO: u64 = 0x6e63_5f72_696f_0001;
/// The Adaptive RED state (tagged: its curve must come from a profile).
const TAG_ADAPTIVE: u64 = 0x6e63_5f61_7265_6402;
const TAG_ADAPTIVE_PROFILE: u64 = 0x6e63_5f61_7270_0001;

fn flag(v: u32) -> Result<bool, c_int> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(NETCOND_E_ENUM),
    }
}

fn unit(v: u32) -> Result<QueueUnit, c_int> {
    match v {
        0 => Ok(QueueUnit::Packets),
        1 => Ok(QueueUnit::Bytes),
        _ => Err(NETCOND_E_ENUM),
    }
}

pub(crate) fn spreading(v: u32) -> Result<Spreading, c_int> {
    Ok(match v {
        0 => Spreading::Accumulated,
        1 => Spreading::AccumulatedDpdk,
        2 => Spreading::Uniform,
        3 => Spreading::UniformCountFirst,
        4 => Spreading::Dpdk,
        5 => Spreading::Geometric,
        6 => Spreading::Wait,
        _ => return Err(NETCOND_E_ENUM),
    })
}

fn option(v: u32) -> Option<u32> {
    (v != NETCOND_RED_NONE).then_some(v)
}

/// A 32.32 probability; a value that does not fit `U32F32` saturates to its
/// maximum, which every profile refuses as out of range.
fn prob(v: u64) -> U32F32 {
    U32F32::from_bits(v)
}

/// The clock of `tick_hz` ticks per second; `NETCOND_E_TICK` for 0.
pub(crate) fn tick(tick_hz: u64) -> Result<TickRate, c_int> {
    TickRate::from_hz(tick_hz).ok_or(NETCOND_E_TICK)
}

fn red_cfg(p: &netcond_red_params) -> Result<RedConfig, c_int> {
    crate::errors::reserved_zero(&[p.reserved.into()])?;
    let mut cfg = RedConfig::packets(p.min_th, p.max_th, prob(p.max_p), prob(p.w_q), p.limit);
    cfg.queue.unit = unit(p.unit)?;
    cfg.queue.gentle = flag(p.gentle)?;
    cfg.queue.ecn = flag(p.ecn)?;
    cfg.queue.ecn_drop_th = option(p.ecn_drop_th);
    cfg.queue.byte_mode = option(p.byte_mode);
    cfg.queue.typical_tx = Duration::from_nanos(p.idle_tx_ns);
    cfg.tick = tick(p.tick_hz)?;
    cfg.queue.spreading = spreading(p.spreading)?;
    Ok(cfg)
}

fn rio_cfg(p: &netcond_rio_params) -> Result<RioConfig, c_int> {
    let mode = match p.mode {
        0 => RioMode::Coupled,
        1 => RioMode::Decoupled,
        2 => RioMode::Wred,
        _ => return Err(NETCOND_E_ENUM),
    };
    let [g, y, r] = p.colors;
    let prec = |c: netcond_rio_precedence| Precedence::new(c.min_th, c.max_th, prob(c.max_p));
    let queue = QueueSettings::new(prob(p.w_q), p.limit)
        .with_unit(unit(p.unit)?)
        .with_gentle(flag(p.gentle)?)
        .with_byte_mode(option(p.byte_mode))
        .with_ecn(flag(p.ecn)?)
        .with_ecn_drop_th(option(p.ecn_drop_th))
        .with_typical_tx(Duration::from_nanos(p.idle_tx_ns))
        .with_spreading(spreading(p.spreading)?);
    Ok(
        RioConfig::new(mode, prob(p.w_q), [prec(g), prec(y), prec(r)], p.limit)
            .with_queue(queue)
            .with_tick(tick(p.tick_hz)?),
    )
}

fn decision(d: Decision) -> netcond_red_decision {
    match d {
        Decision::Enqueue => netcond_red_decision::NETCOND_ENQUEUE,
        Decision::Mark => netcond_red_decision::NETCOND_MARK,
        Decision::DropEarly => netcond_red_decision::NETCOND_DROP_EARLY,
        Decision::DropForced => netcond_red_decision::NETCOND_DROP_FORCED,
    }
}

/// The packet: `ecn` is the two-bit ECN field; a value above 3 counts as
/// not-ECT (never marked).
fn packet(len: u32, ecn: u32) -> Packet {
    let e = if ecn > 3 {
        Ecn::NotEct
    } else {
        Ecn::from_bits(ecn as u8)
    };
    Packet::new(len, e)
}

const FORCED: netcond_red_decision = netcond_red_decision::NETCOND_DROP_FORCED;

// ---------------------------------------------------------------- generator

/// Seeds generator `rng` (SplitMix64; the Rust `SplitMix64::new(seed)`).
/// Does nothing if `rng` is NULL.
///
/// # Safety
/// `rng` is NULL or points to a writable `netcond_rng`.
#[no_mangle]
pub unsafe extern "C" fn netcond_rng_seed(rng: *mut netcond_rng, seed: u64) {
    if !rng.is_null() {
        // SAFETY: `rng` is non-NULL and writable.
        unsafe { store_state(rng, SplitMix64::new(seed)) };
    }
}

/// The next 32-bit value of `rng` (0 if `rng` is NULL).
///
/// # Safety
/// `rng` is NULL or points to a seeded `netcond_rng` used by one thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_rng_next_u32(rng: *mut netcond_rng) -> u32 {
    // SAFETY: caller contract.
    match unsafe { state::<_, SplitMix64>(rng) } {
        Some(r) => r.next_u32(),
        None => 0,
    }
}

// ---------------------------------------------------------------- RED

/// Validates `params` and writes the RED profile to `p`.
///
/// Returns 0, `NETCOND_E_NULL`, `NETCOND_E_ENUM` (`unit`, `spreading`, or a
/// flag other than 0 and 1) or a `NETCOND_E_RED_*` code; on error `p` is left
/// unusable.
///
/// # Safety
/// `p` and `params` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_profile_config(
    p: *mut netcond_red_profile,
    params: *const netcond_red_params,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::configure(p, params, TAG_RED, |a| {
            RedProfile::new(&red_cfg(a)?).map_err(red_code)
        })
    }
}

/// Starts queue state `m` on profile `p`: average 0, idle since `now`.
/// Returns 0 or `NETCOND_E_NULL`.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_config(
    m: *mut netcond_red,
    p: *const netcond_red_profile,
    now: u64,
) -> c_int {
    // SAFETY: caller contract, passed on.
    unsafe { crate::trtcm_ffi::start(m, p, TAG_RED, now, Red::new) }
}

/// The decision for a packet of `pkt_len` bytes with ECN field `ecn` arriving
/// at `now` to a queue holding `queue_len` (the profile's unit, the arrival not
/// included), with draws from `rng`. `NETCOND_DROP_FORCED` on a NULL or
/// unconfigured argument.
///
/// # Safety
/// Each pointer is NULL or points to a valid struct of its type; `m` and `rng`
/// are used by no other thread during the call.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_enqueue(
    m: *mut netcond_red,
    p: *const netcond_red_profile,
    now: u64,
    queue_len: u32,
    pkt_len: u32,
    ecn: u32,
    rng: *mut netcond_rng,
) -> netcond_red_decision {
    // SAFETY: caller contract.
    let Some(rng) = (unsafe { state::<_, SplitMix64>(rng) }) else {
        return FORCED;
    };
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::with(m, p, TAG_RED, FORCED, |m: &mut Red, p| {
            decision(m.on_arrival(
                p,
                Instant::from_ticks(now),
                queue_len,
                packet(pkt_len, ecn),
                rng,
            ))
        })
    }
}

/// As `netcond_red_enqueue`, with `draw` (a uniform 32-bit value) for the one
/// random draw the decision may take.
///
/// # Safety
/// As `netcond_red_enqueue`.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_enqueue_draw(
    m: *mut netcond_red,
    p: *const netcond_red_profile,
    now: u64,
    queue_len: u32,
    pkt_len: u32,
    ecn: u32,
    draw: u32,
) -> netcond_red_decision {
    let mut rng = Supplied(draw);
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::with(m, p, TAG_RED, FORCED, |m: &mut Red, p| {
            decision(m.on_arrival(
                p,
                Instant::from_ticks(now),
                queue_len,
                packet(pkt_len, ecn),
                &mut rng,
            ))
        })
    }
}

/// Tells queue `m` of profile `p` it became empty at `now` (the average
/// decays over the idle time until the next arrival). Does nothing on a NULL
/// or unconfigured argument.
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs of their types; `m` is used
/// by no other thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_queue_empty(
    m: *mut netcond_red,
    p: *const netcond_red_profile,
    now: u64,
) {
    // SAFETY: caller contract, passed on.
    unsafe {
        crate::trtcm_ffi::with(m, p, TAG_RED, (), |m: &mut Red, p| {
            m.on_queue_empty(p, Instant::from_ticks(now));
        });
    }
}

/// Restarts the spreading state of `m` as an arrival below min_th does (the
/// Rust `Red::restart_count`); the average and the idle period are untouched.
/// For a caller with a rule of its own before RED's (ns-3's `RedQueueDisc`
/// passes an arrival to a queue of at most one packet and starts its count
/// again). Does nothing if `m` is NULL.
///
/// # Safety
/// `m` is NULL or points to a valid state used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_restart_count(m: *mut netcond_red) {
    // SAFETY: caller contract.
    if let Some(m) = unsafe { state::<_, Red>(m) } {
        m.restart_count();
    }
}

/// The average queue length of `m`, in queue units, 32.32 fixed point (0 on a
/// NULL or unconfigured argument).
///
/// # Safety
/// `m` and `p` are NULL or point to valid structs.
#[no_mangle]
pub unsafe extern "C" fn netcond_red_avg(
    m: *const netcond_red,
    p: *const netcond_red_profile,
) -> u64 {
    // SAFETY: caller contract.
    match unsafe { (state_ref::<_, Red>(m), profile::<_, RedProfile>(p, TAG_RED)) } {
        (Some(m), Some(p)) => m.avg(p).to_bits(),
        _ => 0,
    }
}

// RIO / WRED, then Adaptive RED, in the order of the header.
mod rio;

mod adaptive;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    //! The C calls for ns-3's waiting law and the count restart, against the
    //! Rust API with the same draws.

    use super::*;
    use crate::errors::NETCOND_OK;

    fn params(spreading: u32) -> netcond_red_params {
        netcond_red_params {
            max_p: NETCOND_PROB_ONE / 10,
            w_q: NETCOND_PROB_ONE / 50,
            idle_tx_ns: 1_200_000,
            tick_hz: 1_000_000_000,
            min_th: 10,
            max_th: 30,
            limit: 60,
            unit: 0,
            gentle: 1,
            ecn: 0,
            ecn_drop_th: NETCOND_RED_NONE,
            byte_mode: NETCOND_RED_NONE,
            spreading,
            reserved: 0,
        }
    }

    fn profile_of(spreading: u32) -> (c_int, netcond_red_profile) {
        let mut p = netcond_red_profile { opaque: [0; 160] };
        // SAFETY: both pointers are valid.
        let rc = unsafe { netcond_red_profile_config(&mut p, &params(spreading)) };
        (rc, p)
    }

    /// `NETCOND_SPREAD_WAIT` is 6 and configures `Spreading::Wait`; 7 is
    /// refused.
    #[test]
    fn wait_is_spreading_six() {
        assert_eq!(netcond_red_spreading::NETCOND_SPREAD_WAIT as u32, 6);
        assert_eq!(spreading(6), Ok(Spreading::Wait));
        assert_eq!(profile_of(6).0, NETCOND_OK);
        assert_eq!(profile_of(7).0, NETCOND_E_ENUM);
        assert_eq!(profile_of(u32::MAX).0, NETCOND_E_ENUM);
    }

    /// The C queue with `NETCOND_SPREAD_WAIT` takes the Rust queue's
    /// decisions with `Spreading::Wait` draw for draw, and
    /// `netcond_red_restart_count` (called after every arrival to a queue of
    /// at most one packet, as the ns-3 queue disc does) is
    /// `Red::restart_count`. Fails if the C side configured another law, or
    /// if the restart left the count.
    #[test]
    fn wait_and_restart_match_the_rust_api() {
        let (rc, cp) = profile_of(6);
        assert_eq!(rc, NETCOND_OK);
        let mut cfg = red_cfg(&params(0)).unwrap();
        cfg.queue.spreading = Spreading::Wait;
        let rp = RedProfile::new(&cfg).unwrap();
        let mut rq = Red::new(&rp, Instant::from_ticks(0));
        let mut cq = netcond_red { opaque: [0; 2] };
        // SAFETY: valid pointer.
        assert_eq!(unsafe { netcond_red_config(&mut cq, &cp, 0) }, NETCOND_OK);
        let mut g = SplitMix64::new(5);
        let mut q: u32 = 20;
        let (mut drops, mut restarts, mut differ) = (0u32, 0u32, 0u32);
        let mut plain = Red::new(&rp, Instant::from_ticks(0));
        for i in 0..200_000u64 {
            let target = [0u32, 25, 45, 12][(i / 4000 % 4) as usize];
            let step = g.next_u32() % 5;
            q = (q + step).saturating_sub(2);
            q = if q < target {
                q + 1
            } else {
                q.saturating_sub(1)
            }
            .min(59);
            let r = g.next_u32();
            // Now and then a single arrival to a queue of 0 or 1 packet while
            // the average is high (a burst that drained).
            let q = if g.next_u32() % 40 == 0 { r % 2 } else { q };
            let now = i * 100_000;
            let expect = rq.on_arrival(
                &rp,
                Instant::from_ticks(now),
                q,
                Packet::not_ect(1500),
                &mut Supplied(r),
            );
            let without = plain.on_arrival(
                &rp,
                Instant::from_ticks(now),
                q,
                Packet::not_ect(1500),
                &mut Supplied(r),
            );
            // SAFETY: valid pointers.
            let got = unsafe { netcond_red_enqueue_draw(&mut cq, &cp, now, q, 1500, 0, r) };
            assert_eq!(got, decision(expect), "step {i}");
            drops += u32::from(expect == Decision::DropEarly);
            differ += u32::from(expect != without);
            if q <= 1 {
                rq.restart_count();
                // SAFETY: valid pointer.
                unsafe { netcond_red_restart_count(&mut cq) };
                restarts += 1;
                assert_eq!(rq.count(), 0);
            }
            // SAFETY: valid pointers.
            let avg = unsafe { netcond_red_avg(&cq, &cp) };
            assert_eq!(avg, rq.avg(&rp).to_bits(), "step {i}");
        }
        // Early drops happened, restarts too, and they changed decisions.
        assert!(drops > 500, "{drops}");
        assert!(restarts > 1000, "{restarts}");
        assert!(differ > 0, "{differ}");
        // NULL is ignored.
        // SAFETY: NULL is allowed.
        unsafe { netcond_red_restart_count(core::ptr::null_mut()) };
    }
}

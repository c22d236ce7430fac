//! DPDK 22.11's three `rte_meter` markers (srTCM, trTCM and the RFC 4115
//! trTCM) behind one trait, [`Meter`], for the bursts of the color-aware rows
//! and of RFC 4115 (blind and aware): the shim's `METER_BURSTS` loops, and
//! the single-packet checks of the agreement tests. A part of `ffi.rs`
//! (`TrTcmProfile`, `SrTcmProfile`, their flows and [`Burst`] are there).
#![allow(unsafe_code)]

use std::ffi::c_int;

use netcond::base::Color;

use super::{Burst, SrTcm, SrTcmProfile, TrTcm, TrTcmProfile};

/// `struct rte_meter_trtcm_rfc4115_profile`: CBS and EBS in bytes, and per
/// bucket the period in clock cycles and the bytes credited per period.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc4115Profile {
    /// Committed bucket size, bytes.
    pub cbs: u64,
    /// Excess bucket size, bytes.
    pub ebs: u64,
    /// Cycles per committed-bucket credit.
    pub cir_period: u64,
    /// Bytes per committed-bucket credit.
    pub cir_bytes_per_period: u64,
    /// Cycles per excess-bucket credit.
    pub eir_period: u64,
    /// Bytes per excess-bucket credit.
    pub eir_bytes_per_period: u64,
}

/// `struct rte_meter_trtcm_rfc4115`: one flow (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc4115 {
    time_tc: u64,
    time_te: u64,
    tc: u64,
    te: u64,
}

extern "C" {
    fn netcond_dpdk_rfc4115_profile(
        p: *mut Rfc4115Profile,
        hz: u64,
        cir: u64,
        eir: u64,
        cbs: u64,
        ebs: u64,
    ) -> c_int;
    fn netcond_dpdk_rfc4115_start(m: *mut Rfc4115, p: *const Rfc4115Profile, now: u64) -> c_int;
    fn netcond_dpdk_rfc4115_check(
        m: *mut Rfc4115,
        p: *const Rfc4115Profile,
        now: u64,
        len: u32,
    ) -> u32;
    fn netcond_dpdk_trtcm_check_aware(
        m: *mut TrTcm,
        p: *const TrTcmProfile,
        now: u64,
        len: u32,
        color: u32,
    ) -> u32;
    fn netcond_dpdk_srtcm_check_aware(
        m: *mut SrTcm,
        p: *const SrTcmProfile,
        now: u64,
        len: u32,
        color: u32,
    ) -> u32;
    fn netcond_dpdk_rfc4115_check_aware(
        m: *mut Rfc4115,
        p: *const Rfc4115Profile,
        now: u64,
        len: u32,
        color: u32,
    ) -> u32;
    fn netcond_dpdk_rfc4115_profile_eal(
        p: *mut Rfc4115Profile,
        cir: u64,
        eir: u64,
        cbs: u64,
        ebs: u64,
    ) -> c_int;
    fn netcond_dpdk_trtcm_burst_one_aware(
        p: *const TrTcmProfile,
        lens: *const u32,
        colors: *const u8,
        n: usize,
        m: *mut TrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_trtcm_burst_many_aware(
        p: *const TrTcmProfile,
        lens: *const u32,
        colors: *const u8,
        flows: *const u32,
        n: usize,
        states: *mut TrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_trtcm_burst_many_aware_prefetched(
        p: *const TrTcmProfile,
        lens: *const u32,
        colors: *const u8,
        flows: *const u32,
        n: usize,
        states: *mut TrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_srtcm_burst_one_aware(
        p: *const SrTcmProfile,
        lens: *const u32,
        colors: *const u8,
        n: usize,
        m: *mut SrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_srtcm_burst_many_aware(
        p: *const SrTcmProfile,
        lens: *const u32,
        colors: *const u8,
        flows: *const u32,
        n: usize,
        states: *mut SrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_srtcm_burst_many_aware_prefetched(
        p: *const SrTcmProfile,
        lens: *const u32,
        colors: *const u8,
        flows: *const u32,
        n: usize,
        states: *mut SrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_rfc4115_burst_one(
        p: *const Rfc4115Profile,
        lens: *const u32,
        n: usize,
        m: *mut Rfc4115,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_rfc4115_burst_one_aware(
        p: *const Rfc4115Profile,
        lens: *const u32,
        colors: *const u8,
        n: usize,
        m: *mut Rfc4115,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_rfc4115_burst_many(
        p: *const Rfc4115Profile,
        lens: *const u32,
        flows: *const u32,
        n: usize,
        states: *mut Rfc4115,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_rfc4115_burst_many_prefetched(
        p: *const Rfc4115Profile,
        lens: *const u32,
        flows: *const u32,
        n: usize,
        states: *mut Rfc4115,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_rfc4115_burst_many_aware(
        p: *const Rfc4115Profile,
        lens: *const u32,
        colors: *const u8,
        flows: *const u32,
        n: usize,
        states: *mut Rfc4115,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_rfc4115_burst_many_aware_prefetched(
        p: *const Rfc4115Profile,
        lens: *const u32,
        colors: *const u8,
        flows: *const u32,
        n: usize,
        states: *mut Rfc4115,
        t: *mut u64,
    ) -> u64;
}

impl Rfc4115Profile {
    /// DPDK's constants for CIR/EIR in bytes per second and CBS/EBS in bytes
    /// on an `hz` clock, filled by the shim; `None` where DPDK refuses.
    #[must_use]
    pub fn new(hz: u64, cir: u64, eir: u64, cbs: u64, ebs: u64) -> Option<Self> {
        let mut p = Self::default();
        // SAFETY: `p` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_rfc4115_profile(&mut p, hz, cir, eir, cbs, ebs) };
        (r == 0).then_some(p)
    }

    /// As [`TrTcmProfile::from_librte_meter`], from
    /// `rte_meter_trtcm_rfc4115_profile_config`.
    #[must_use]
    pub fn from_librte_meter(cir: u64, eir: u64, cbs: u64, ebs: u64) -> Option<Self> {
        let mut p = Self::default();
        // SAFETY: `p` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_rfc4115_profile_eal(&mut p, cir, eir, cbs, ebs) };
        (r == 0).then_some(p)
    }
}

/// A one-flow burst of the shim: (profile, lengths, n, state, clock).
type OneFn<P, M> = unsafe extern "C" fn(*const P, *const u32, usize, *mut M, *mut u64) -> u64;
/// A color-aware one-flow burst: (profile, lengths, pre-colors, n, state,
/// clock).
type OneAwareFn<P, M> =
    unsafe extern "C" fn(*const P, *const u32, *const u8, usize, *mut M, *mut u64) -> u64;
/// A many-flow burst: (profile, lengths, flow indices, n, states, clock).
type ManyFn<P, M> =
    unsafe extern "C" fn(*const P, *const u32, *const u32, usize, *mut M, *mut u64) -> u64;
/// A color-aware many-flow burst: (profile, lengths, pre-colors, flow
/// indices, n, states, clock).
type ManyAwareFn<P, M> = unsafe extern "C" fn(
    *const P,
    *const u32,
    *const u8,
    *const u32,
    usize,
    *mut M,
    *mut u64,
) -> u64;
/// A single-packet check: (state, profile, now, length).
type CheckFn<P, M> = unsafe extern "C" fn(*mut M, *const P, u64, u32) -> u32;
/// A single-packet color-aware check: (state, profile, now, length,
/// pre-color).
type CheckAwareFn<P, M> = unsafe extern "C" fn(*mut M, *const P, u64, u32, u32) -> u32;

/// One of DPDK's three markers (`rte_meter`'s srTCM, trTCM and RFC 4115
/// trTCM): its flow state, profile and the shim's functions for it.
///
/// # Safety
/// The functions must be the shim's for this state and profile type (the
/// `meter!` lines below are the only implementations).
pub unsafe trait Meter: Copy {
    /// The profile shared by the flows.
    type Profile;
    /// `netcond_dpdk_<x>_start`.
    const START: unsafe extern "C" fn(*mut Self, *const Self::Profile, u64) -> c_int;
    /// `netcond_dpdk_<x>_check`.
    const CHECK: CheckFn<Self::Profile, Self>;
    /// `netcond_dpdk_<x>_check_aware`.
    const CHECK_AWARE: CheckAwareFn<Self::Profile, Self>;
    /// `netcond_dpdk_<x>_burst_one`.
    const ONE: OneFn<Self::Profile, Self>;
    /// `netcond_dpdk_<x>_burst_one_aware`.
    const ONE_AWARE: OneAwareFn<Self::Profile, Self>;
    /// `netcond_dpdk_<x>_burst_many`, then its `_prefetched` form.
    const MANY: [ManyFn<Self::Profile, Self>; 2];
    /// `netcond_dpdk_<x>_burst_many_aware`, then its `_prefetched` form.
    const MANY_AWARE: [ManyAwareFn<Self::Profile, Self>; 2];
}

macro_rules! meter {
    ($m:ty, $p:ty, $start:path, $check:path, $check_aware:path, $one:path, $one_aware:path,
     $many:path, $many_pre:path, $many_aware:path, $many_aware_pre:path) => {
        // SAFETY: the shim's functions for this state and profile.
        unsafe impl Meter for $m {
            type Profile = $p;
            const START: unsafe extern "C" fn(*mut Self, *const $p, u64) -> c_int = $start;
            const CHECK: CheckFn<$p, $m> = $check;
            const CHECK_AWARE: CheckAwareFn<$p, $m> = $check_aware;
            const ONE: OneFn<$p, $m> = $one;
            const ONE_AWARE: OneAwareFn<$p, $m> = $one_aware;
            const MANY: [ManyFn<$p, $m>; 2] = [$many, $many_pre];
            const MANY_AWARE: [ManyAwareFn<$p, $m>; 2] = [$many_aware, $many_aware_pre];
        }
    };
}

meter!(
    TrTcm,
    TrTcmProfile,
    super::netcond_dpdk_trtcm_start,
    super::netcond_dpdk_trtcm_check,
    netcond_dpdk_trtcm_check_aware,
    super::netcond_dpdk_trtcm_burst_one,
    netcond_dpdk_trtcm_burst_one_aware,
    super::netcond_dpdk_trtcm_burst_many,
    super::netcond_dpdk_trtcm_burst_many_prefetched,
    netcond_dpdk_trtcm_burst_many_aware,
    netcond_dpdk_trtcm_burst_many_aware_prefetched
);
meter!(
    SrTcm,
    SrTcmProfile,
    super::netcond_dpdk_srtcm_start,
    super::netcond_dpdk_srtcm_check,
    netcond_dpdk_srtcm_check_aware,
    super::netcond_dpdk_srtcm_burst_one,
    netcond_dpdk_srtcm_burst_one_aware,
    super::netcond_dpdk_srtcm_burst_many,
    super::netcond_dpdk_srtcm_burst_many_prefetched,
    netcond_dpdk_srtcm_burst_many_aware,
    netcond_dpdk_srtcm_burst_many_aware_prefetched
);
meter!(
    Rfc4115,
    Rfc4115Profile,
    netcond_dpdk_rfc4115_start,
    netcond_dpdk_rfc4115_check,
    netcond_dpdk_rfc4115_check_aware,
    netcond_dpdk_rfc4115_burst_one,
    netcond_dpdk_rfc4115_burst_one_aware,
    netcond_dpdk_rfc4115_burst_many,
    netcond_dpdk_rfc4115_burst_many_prefetched,
    netcond_dpdk_rfc4115_burst_many_aware,
    netcond_dpdk_rfc4115_burst_many_aware_prefetched
);

/// A flow of marker `M` through its `rte_meter_*_config` (both buckets
/// full), its timestamps set to `now`.
#[must_use]
pub fn start<M: Meter + Default>(p: &M::Profile, now: u64) -> M {
    let mut m = M::default();
    // SAFETY: live structs of the C layout; the library only reads `p`.
    let r = unsafe { M::START(&mut m, p, now) };
    assert_eq!(r, 0, "rte_meter refused a profile");
    m
}

/// One packet through `M`'s color-blind check, or its color-aware one with
/// the pre-color `pre`: 0 green, 1 yellow, 2 red.
pub fn check<M: Meter>(m: &mut M, p: &M::Profile, now: u64, len: u32, pre: Option<Color>) -> u32 {
    // SAFETY: live structs of the C layout; the profile is only read.
    unsafe {
        match pre {
            None => M::CHECK(m, p, now, len),
            Some(c) => M::CHECK_AWARE(m, p, now, len, u32::from(c as u8)),
        }
    }
}

/// One burst of `lens` through one flow of `M`'s color-blind check (as
/// `meter_stream::burst_one`); returns the sum of the colors.
pub fn burst_one<M: Meter>(p: &M::Profile, lens: &[u32], m: &mut M, t: &mut u64) -> u64 {
    // SAFETY: as in `trtcm_burst_one`.
    unsafe { M::ONE(p, lens.as_ptr(), lens.len(), m, t) }
}

/// One burst of `lens` through one flow of `M`'s color-aware check, packet
/// `i` pre-colored `colors[i]`; returns the sum of the colors.
///
/// # Panics
/// If there are not as many colors as lengths.
pub fn burst_one_aware<M: Meter>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    t: &mut u64,
) -> u64 {
    assert_eq!(lens.len(), colors.len(), "one pre-color per length");
    // SAFETY: `lens` and `colors` both hold `lens.len()` entries; `Color` is
    // a `u8` of DPDK's values (green 0, yellow 1, red 2); `m` and `t` are
    // live and exclusive for the call.
    unsafe {
        M::ONE_AWARE(
            p,
            lens.as_ptr(),
            colors.as_ptr().cast::<u8>(),
            lens.len(),
            m,
            t,
        )
    }
}

/// One burst over many flows of `M`'s color-blind check (as
/// `meter_stream::burst_many`), with or without the caller prefetching each
/// flow's state eight packets ahead.
///
/// # Panics
/// If `states` holds fewer flows than the burst was checked for.
pub fn burst_many<M: Meter, const PREFETCH: bool>(
    p: &M::Profile,
    b: &Burst<'_>,
    states: &mut [M],
    t: &mut u64,
) -> u64 {
    assert!(states.len() >= b.flows, "fewer states than flows");
    let f = M::MANY[usize::from(PREFETCH)];
    // SAFETY: as in `trtcm_burst_many`.
    unsafe {
        f(
            p,
            b.lens.as_ptr(),
            b.idx.as_ptr(),
            b.lens.len(),
            states.as_mut_ptr(),
            t,
        )
    }
}

/// [`burst_many`] through `M`'s color-aware check, each packet with its
/// pre-color from [`Burst::with_colors`].
///
/// # Panics
/// If `states` holds fewer flows than the burst was checked for, or the burst
/// has no pre-colors.
pub fn burst_many_aware<M: Meter, const PREFETCH: bool>(
    p: &M::Profile,
    b: &Burst<'_>,
    states: &mut [M],
    t: &mut u64,
) -> u64 {
    assert!(states.len() >= b.flows, "fewer states than flows");
    assert_eq!(b.colors.len(), b.lens.len(), "a burst without pre-colors");
    let f = M::MANY_AWARE[usize::from(PREFETCH)];
    // SAFETY: as in `trtcm_burst_many`, and `colors` holds as many entries
    // as `lens`, each a `u8` of DPDK's values.
    unsafe {
        f(
            p,
            b.lens.as_ptr(),
            b.colors.as_ptr().cast::<u8>(),
            b.idx.as_ptr(),
            b.lens.len(),
            states.as_mut_ptr(),
            t,
        )
    }
}

//! DPDK 22.11's `rte_meter`, `rte_red` and `rte_pie`, called through the C shim
//! `benches/dpdk/shim.c` (built by `benches/build.rs` with the `dpdk`
//! feature). Included with `#[path]` by the `dpdk` and `instructions`
//! benches, the `dpdk` test and the `contention` example; the only FFI in the
//! package, with its part `meters.rs` (the three `rte_meter` markers behind
//! one trait).
//!
//! The structs mirror DPDK's public ones (`#[repr(C)]`; the shim checks their
//! sizes with `_Static_assert`, the `dpdk` test checks them here). Every
//! function below is safe: the checks that make the FFI calls sound (lengths,
//! flow indices in range, one user of `rte_red`'s global generator) are made
//! before the calls, once per burst or once per setup.
#![allow(unsafe_code)]
#![allow(dead_code)]

use std::ffi::{c_char, c_int, CString};
use std::sync::atomic::{AtomicBool, Ordering};

use netcond::base::Color;

#[path = "meters.rs"]
mod meters;
// Not every target that includes this file uses the three-marker interface.
#[allow(unused_imports)]
pub use meters::*;

/// `struct rte_meter_trtcm_profile`: CBS and PBS in bytes, and per bucket the
/// period in clock cycles and the bytes credited per period.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrTcmProfile {
    /// Committed bucket size, bytes.
    pub cbs: u64,
    /// Peak bucket size, bytes.
    pub pbs: u64,
    /// Cycles per committed-bucket credit.
    pub cir_period: u64,
    /// Bytes per committed-bucket credit.
    pub cir_bytes_per_period: u64,
    /// Cycles per peak-bucket credit.
    pub pir_period: u64,
    /// Bytes per peak-bucket credit.
    pub pir_bytes_per_period: u64,
}

/// `struct rte_meter_srtcm_profile`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrTcmProfile {
    /// Committed bucket size, bytes.
    pub cbs: u64,
    /// Excess bucket size, bytes.
    pub ebs: u64,
    /// Cycles per credit.
    pub cir_period: u64,
    /// Bytes per credit.
    pub cir_bytes_per_period: u64,
}

/// `struct rte_meter_trtcm`: one flow (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrTcm {
    time_tc: u64,
    time_tp: u64,
    tc: u64,
    tp: u64,
}

/// `struct rte_meter_srtcm`: one flow (24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrTcm {
    time: u64,
    tc: u64,
    te: u64,
}

/// `struct rte_red_config`: thresholds scaled by 2^(wq_log2 + 10), the drop
/// probability constant, max_p's inverse and w_q's negated log2.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedConfig {
    /// min_th, scaled.
    pub min_th: u32,
    /// max_th, scaled.
    pub max_th: u32,
    /// 2 (max_th - min_th) maxp_inv, scaled by 2^10.
    pub pa_const: u32,
    /// 1 / max_p.
    pub maxp_inv: u8,
    /// -log2(w_q).
    pub wq_log2: u8,
}

/// `struct rte_red`: one queue's average, count and idle start (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedState {
    avg: u32,
    count: u32,
    q_time: u64,
}

extern "C" {
    fn netcond_dpdk_ticks_per_packet() -> u64;
    fn netcond_dpdk_meter_ahead() -> u32;
    fn netcond_dpdk_red_step() -> u32;
    fn netcond_dpdk_red_ticks() -> u32;
    fn netcond_dpdk_tb_params(hz: u64, rate: u64, period: *mut u64, bpp: *mut u64);
    fn netcond_dpdk_trtcm_profile(
        p: *mut TrTcmProfile,
        hz: u64,
        cir: u64,
        pir: u64,
        cbs: u64,
        pbs: u64,
    ) -> c_int;
    fn netcond_dpdk_srtcm_profile(
        p: *mut SrTcmProfile,
        hz: u64,
        cir: u64,
        cbs: u64,
        ebs: u64,
    ) -> c_int;
    fn netcond_dpdk_trtcm_start(m: *mut TrTcm, p: *const TrTcmProfile, now: u64) -> c_int;
    fn netcond_dpdk_srtcm_start(m: *mut SrTcm, p: *const SrTcmProfile, now: u64) -> c_int;
    fn netcond_dpdk_trtcm_check(m: *mut TrTcm, p: *const TrTcmProfile, now: u64, len: u32) -> u32;
    fn netcond_dpdk_srtcm_check(m: *mut SrTcm, p: *const SrTcmProfile, now: u64, len: u32) -> u32;
    fn netcond_dpdk_trtcm_call(m: *mut TrTcm, p: *const TrTcmProfile, now: u64, len: u32) -> u32;
    fn netcond_dpdk_srtcm_call(m: *mut SrTcm, p: *const SrTcmProfile, now: u64, len: u32) -> u32;
    fn netcond_dpdk_trtcm_burst_one(
        p: *const TrTcmProfile,
        lens: *const u32,
        n: usize,
        m: *mut TrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_srtcm_burst_one(
        p: *const SrTcmProfile,
        lens: *const u32,
        n: usize,
        m: *mut SrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_trtcm_burst_many(
        p: *const TrTcmProfile,
        lens: *const u32,
        flows: *const u32,
        n: usize,
        states: *mut TrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_trtcm_burst_many_prefetched(
        p: *const TrTcmProfile,
        lens: *const u32,
        flows: *const u32,
        n: usize,
        states: *mut TrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_srtcm_burst_many(
        p: *const SrTcmProfile,
        lens: *const u32,
        flows: *const u32,
        n: usize,
        states: *mut SrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_srtcm_burst_many_prefetched(
        p: *const SrTcmProfile,
        lens: *const u32,
        flows: *const u32,
        n: usize,
        states: *mut SrTcm,
        t: *mut u64,
    ) -> u64;
    fn netcond_dpdk_red_config(
        c: *mut RedConfig,
        wq_log2: u16,
        min_th: u16,
        max_th: u16,
        maxp_inv: u16,
    ) -> c_int;
    fn netcond_dpdk_red_start(r: *mut RedState) -> c_int;
    fn netcond_dpdk_red_seed(seed: u32);
    fn netcond_dpdk_red_burst(c: *const RedConfig, r: *mut RedState, now: *mut u64, q: u32) -> u32;
    fn netcond_dpdk_pie_config(
        c: *mut PieConfig,
        hz: u64,
        qdelay_ref: u16,
        dp_update_interval: u16,
        max_burst: u16,
        tailq_th: u16,
    );
    fn netcond_dpdk_pie_start(
        s: *mut PieState,
        c: *const PieConfig,
        drop_prob: f64,
        now: u64,
        seed: u64,
    ) -> c_int;
    fn netcond_dpdk_pie_burst(
        c: *const PieConfig,
        s: *mut PieState,
        lens: *const u32,
        n: usize,
        qlen: u32,
        now: u64,
    ) -> u32;
    fn netcond_dpdk_pie_burst_linux_reset(
        c: *const PieConfig,
        s: *mut PieState,
        lens: *const u32,
        n: usize,
        qlen: u32,
        now: u64,
    ) -> u32;
    fn netcond_dpdk_eal_init(argc: c_int, argv: *mut *mut c_char) -> c_int;
    fn netcond_dpdk_tsc_hz() -> u64;
    fn netcond_dpdk_trtcm_profile_eal(
        p: *mut TrTcmProfile,
        cir: u64,
        pir: u64,
        cbs: u64,
        pbs: u64,
    ) -> c_int;
    fn netcond_dpdk_srtcm_profile_eal(p: *mut SrTcmProfile, cir: u64, cbs: u64, ebs: u64) -> c_int;
}

/// The shim's copies of the stream constants: ticks per meter packet, the
/// prefetch distance, RED's packets per step and ticks per packet.
#[must_use]
pub fn shim_constants() -> (u64, u32, u32, u32) {
    // SAFETY: functions without arguments returning constants.
    unsafe {
        (
            netcond_dpdk_ticks_per_packet(),
            netcond_dpdk_meter_ahead(),
            netcond_dpdk_red_step(),
            netcond_dpdk_red_ticks(),
        )
    }
}

/// DPDK 22.11's token bucket rule as the shim applies it: (cycles per period,
/// bytes per period) for `rate` bytes per second on an `hz` clock.
#[must_use]
pub fn tb_params(hz: u64, rate: u64) -> (u64, u64) {
    let (mut period, mut bpp) = (0, 0);
    // SAFETY: the two pointers are to live locals the shim only writes.
    unsafe { netcond_dpdk_tb_params(hz, rate, &mut period, &mut bpp) };
    (period, bpp)
}

impl TrTcmProfile {
    /// DPDK's constants for CIR/PIR in bytes per second and CBS/PBS in bytes
    /// on an `hz` clock, filled by the shim; `None` where DPDK refuses.
    #[must_use]
    pub fn new(hz: u64, cir: u64, pir: u64, cbs: u64, pbs: u64) -> Option<Self> {
        let mut p = Self::default();
        // SAFETY: `p` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_trtcm_profile(&mut p, hz, cir, pir, cbs, pbs) };
        (r == 0).then_some(p)
    }

    /// The same from `rte_meter_trtcm_profile_config` itself, at the TSC
    /// frequency the EAL found (0 without [`eal_init`]); `None` where it
    /// refuses.
    #[must_use]
    pub fn from_librte_meter(cir: u64, pir: u64, cbs: u64, pbs: u64) -> Option<Self> {
        let mut p = Self::default();
        // SAFETY: `p` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_trtcm_profile_eal(&mut p, cir, pir, cbs, pbs) };
        (r == 0).then_some(p)
    }
}

impl SrTcmProfile {
    /// DPDK's constants for CIR in bytes per second and CBS/EBS in bytes on an
    /// `hz` clock, filled by the shim; `None` where DPDK refuses.
    #[must_use]
    pub fn new(hz: u64, cir: u64, cbs: u64, ebs: u64) -> Option<Self> {
        let mut p = Self::default();
        // SAFETY: `p` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_srtcm_profile(&mut p, hz, cir, cbs, ebs) };
        (r == 0).then_some(p)
    }

    /// As [`TrTcmProfile::from_librte_meter`], from
    /// `rte_meter_srtcm_profile_config`.
    #[must_use]
    pub fn from_librte_meter(cir: u64, cbs: u64, ebs: u64) -> Option<Self> {
        let mut p = Self::default();
        // SAFETY: `p` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_srtcm_profile_eal(&mut p, cir, cbs, ebs) };
        (r == 0).then_some(p)
    }
}

impl TrTcm {
    /// A flow through `rte_meter_trtcm_config` (both buckets full), its
    /// timestamps set to `now`.
    #[must_use]
    pub fn start(p: &TrTcmProfile, now: u64) -> Self {
        let mut m = Self::default();
        // SAFETY: live structs of the C layout; the library only reads `p`.
        let r = unsafe { netcond_dpdk_trtcm_start(&mut m, p, now) };
        assert_eq!(r, 0, "rte_meter_trtcm_config refused a profile");
        m
    }

    /// One packet through `rte_meter_trtcm_color_blind_check`: 0 green, 1
    /// yellow, 2 red.
    pub fn check(&mut self, p: &TrTcmProfile, now: u64, len: u32) -> u32 {
        // SAFETY: live structs of the C layout; the profile is only read.
        unsafe { netcond_dpdk_trtcm_check(self, p, now, len) }
    }
}

impl SrTcm {
    /// A flow through `rte_meter_srtcm_config` (both buckets full), its
    /// timestamp set to `now`.
    #[must_use]
    pub fn start(p: &SrTcmProfile, now: u64) -> Self {
        let mut m = Self::default();
        // SAFETY: live structs of the C layout; the library only reads `p`.
        let r = unsafe { netcond_dpdk_srtcm_start(&mut m, p, now) };
        assert_eq!(r, 0, "rte_meter_srtcm_config refused a profile");
        m
    }

    /// One packet through `rte_meter_srtcm_color_blind_check`.
    pub fn check(&mut self, p: &SrTcmProfile, now: u64, len: u32) -> u32 {
        // SAFETY: live structs of the C layout; the profile is only read.
        unsafe { netcond_dpdk_srtcm_check(self, p, now, len) }
    }
}

/// The type of DPDK's per-packet call behind a C function of its own
/// (`netcond_dpdk_trtcm_call`, `netcond_dpdk_srtcm_call` in the shim).
pub type CCall<M, P> = unsafe extern "C" fn(*mut M, *const P, u64, u32) -> u32;

/// `rte_meter_trtcm_color_blind_check` in a C function, behind a function
/// pointer the compiler cannot see through.
#[must_use]
pub fn trtcm_c_call() -> CCall<TrTcm, TrTcmProfile> {
    std::hint::black_box(netcond_dpdk_trtcm_call as CCall<TrTcm, TrTcmProfile>)
}

/// `rte_meter_srtcm_color_blind_check` in a C function, behind a function
/// pointer.
#[must_use]
pub fn srtcm_c_call() -> CCall<SrTcm, SrTcmProfile> {
    std::hint::black_box(netcond_dpdk_srtcm_call as CCall<SrTcm, SrTcmProfile>)
}

/// One burst through a C function per packet, the driver loop of
/// `netcond_benches::c_call::burst_c_call` (the same shape, the profile
/// pointer passed with every call): the sum of the colors.
#[inline(never)]
pub fn burst_c_call<M, P>(f: CCall<M, P>, p: &P, lens: &[u32], m: &mut M, t: &mut u64) -> usize {
    let mut tt = *t;
    let mut acc = 0usize;
    for &len in lens {
        tt += netcond_benches::BENCH_TICKS_PER_PACKET;
        // SAFETY: `m` and `p` are live structs of the C layout, `m` this
        // thread's.
        acc += unsafe { f(m, p, tt, len) } as usize;
    }
    *t = tt;
    acc
}

/// One burst of `lens` through one trTCM flow (as `meter_stream::burst_one`);
/// returns the sum of the colors.
pub fn trtcm_burst_one(p: &TrTcmProfile, lens: &[u32], m: &mut TrTcm, t: &mut u64) -> u64 {
    // SAFETY: `lens` is read for its own length; `m` and `t` are live and
    // exclusive for the call.
    unsafe { netcond_dpdk_trtcm_burst_one(p, lens.as_ptr(), lens.len(), m, t) }
}

/// One burst of `lens` through one srTCM flow.
pub fn srtcm_burst_one(p: &SrTcmProfile, lens: &[u32], m: &mut SrTcm, t: &mut u64) -> u64 {
    // SAFETY: as in `trtcm_burst_one`.
    unsafe { netcond_dpdk_srtcm_burst_one(p, lens.as_ptr(), lens.len(), m, t) }
}

/// A many-flow burst's packets, checked once: as many lengths as flow
/// indices, and every index below `flows`.
#[derive(Clone, Copy, Debug)]
pub struct Burst<'s> {
    lens: &'s [u32],
    idx: &'s [u32],
    flows: usize,
    colors: &'s [Color],
}

impl<'s> Burst<'s> {
    /// The packets `lens[i]` to flow `idx[i]`, over `flows` flows.
    ///
    /// # Panics
    /// If the lengths differ or an index is not below `flows`.
    #[must_use]
    pub fn new(lens: &'s [u32], idx: &'s [u32], flows: usize) -> Self {
        assert_eq!(lens.len(), idx.len(), "one flow index per length");
        assert!(
            idx.iter().all(|&f| (f as usize) < flows),
            "a flow index out of range"
        );
        Burst {
            lens,
            idx,
            flows,
            colors: &[],
        }
    }

    /// As [`new`](Self::new), each packet with its pre-color `colors[i]` for
    /// the color-aware bursts ([`burst_many_aware`]).
    ///
    /// # Panics
    /// As `new`, or if there are not as many colors as lengths.
    #[must_use]
    pub fn with_colors(lens: &'s [u32], idx: &'s [u32], colors: &'s [Color], flows: usize) -> Self {
        assert_eq!(lens.len(), colors.len(), "one pre-color per length");
        Burst {
            colors,
            ..Burst::new(lens, idx, flows)
        }
    }
}

/// The bursts of a many-flow stream's flow table, handed out in turn, as
/// `meter_stream::Stream::next_flows` hands their slices to netcond's loops:
/// the same lengths (and pre-colors) with each slice of `table` in turn.
#[derive(Clone, Debug)]
pub struct Bursts<'s> {
    bursts: Vec<Burst<'s>>,
    next: usize,
}

impl<'s> Bursts<'s> {
    /// One [`Burst`] per slice of `lens.len()` entries of `table`, each with
    /// `colors` when given ([`Burst::with_colors`]).
    ///
    /// # Panics
    /// As [`Burst::new`], or if `table` is not a whole number of bursts.
    #[must_use]
    pub fn new(
        lens: &'s [u32],
        table: &'s [u32],
        colors: Option<&'s [Color]>,
        flows: usize,
    ) -> Self {
        assert!(
            !lens.is_empty() && table.len().is_multiple_of(lens.len()),
            "a whole number of bursts"
        );
        let bursts = table
            .chunks(lens.len())
            .map(|idx| match colors {
                Some(c) => Burst::with_colors(lens, idx, c, flows),
                None => Burst::new(lens, idx, flows),
            })
            .collect();
        Bursts { bursts, next: 0 }
    }

    /// The next burst, starting from the first.
    pub fn next_burst(&mut self) -> Burst<'s> {
        let b = self.bursts[self.next];
        self.next = (self.next + 1) % self.bursts.len();
        b
    }
}

/// One burst over many trTCM flows (as `meter_stream::burst_many`), with or
/// without the caller prefetching each flow's state eight packets ahead.
///
/// # Panics
/// If `states` holds fewer flows than the burst was checked for.
pub fn trtcm_burst_many<const PREFETCH: bool>(
    p: &TrTcmProfile,
    b: &Burst<'_>,
    states: &mut [TrTcm],
    t: &mut u64,
) -> u64 {
    assert!(states.len() >= b.flows, "fewer states than flows");
    let (l, f, n, s) = (
        b.lens.as_ptr(),
        b.idx.as_ptr(),
        b.lens.len(),
        states.as_mut_ptr(),
    );
    // SAFETY: `lens` and `idx` both hold `n` entries; every index is below
    // `b.flows` <= `states.len()` (checked by `Burst::new` and above), so each
    // state the shim reads, writes or prefetches is inside `states`.
    unsafe {
        if PREFETCH {
            netcond_dpdk_trtcm_burst_many_prefetched(p, l, f, n, s, t)
        } else {
            netcond_dpdk_trtcm_burst_many(p, l, f, n, s, t)
        }
    }
}

/// One burst over many srTCM flows; as [`trtcm_burst_many`].
///
/// # Panics
/// If `states` holds fewer flows than the burst was checked for.
pub fn srtcm_burst_many<const PREFETCH: bool>(
    p: &SrTcmProfile,
    b: &Burst<'_>,
    states: &mut [SrTcm],
    t: &mut u64,
) -> u64 {
    assert!(states.len() >= b.flows, "fewer states than flows");
    let (l, f, n, s) = (
        b.lens.as_ptr(),
        b.idx.as_ptr(),
        b.lens.len(),
        states.as_mut_ptr(),
    );
    // SAFETY: as in `trtcm_burst_many`.
    unsafe {
        if PREFETCH {
            netcond_dpdk_srtcm_burst_many_prefetched(p, l, f, n, s, t)
        } else {
            netcond_dpdk_srtcm_burst_many(p, l, f, n, s, t)
        }
    }
}

impl RedConfig {
    /// `rte_red_config_init(wq_log2, min_th, max_th, maxp_inv)`; `None` where
    /// it refuses.
    #[must_use]
    pub fn new(wq_log2: u16, min_th: u16, max_th: u16, maxp_inv: u16) -> Option<Self> {
        let mut c = Self::default();
        // SAFETY: `c` is a live, writable struct of the C layout.
        let r = unsafe { netcond_dpdk_red_config(&mut c, wq_log2, min_th, max_th, maxp_inv) };
        (r == 0).then_some(c)
    }
}

impl RedState {
    /// `rte_red_rt_data_init`: average 0, count 0.
    #[must_use]
    pub fn new() -> Self {
        let mut r = Self::default();
        // SAFETY: `r` is a live, writable struct of the C layout.
        let e = unsafe { netcond_dpdk_red_start(&mut r) };
        assert_eq!(e, 0, "rte_red_rt_data_init failed");
        r
    }
}

static RED_RANDOM_TAKEN: AtomicBool = AtomicBool::new(false);

/// The right to use `rte_red`'s generator: two plain globals in
/// `librte_sched` that every random drop reads and writes. One value of this
/// type exists at a time, so no two threads run [`red_burst`] together.
#[derive(Debug)]
pub struct RedRandom(());

impl RedRandom {
    /// The generator, if nobody else holds it.
    #[must_use]
    pub fn take() -> Option<Self> {
        (!RED_RANDOM_TAKEN.swap(true, Ordering::Acquire)).then_some(RedRandom(()))
    }

    /// Sets DPDK's generator state (`rte_red_rand_seed`; `rte_red_rand_val`
    /// to 0, as at load time).
    pub fn seed(&mut self, seed: u32) {
        // SAFETY: the holder of `self` is the only user of the globals.
        unsafe { netcond_dpdk_red_seed(seed) };
    }
}

impl Drop for RedRandom {
    fn drop(&mut self) {
        RED_RANDOM_TAKEN.store(false, Ordering::Release);
    }
}

/// One step of the RED wave (as `red_stream::red_burst`): 1024 arrivals at
/// queue length `q` through `rte_red_enqueue`; returns the drops.
pub fn red_burst(
    c: &RedConfig,
    r: &mut RedState,
    now: &mut u64,
    q: u32,
    _rng: &mut RedRandom,
) -> u32 {
    // SAFETY: live structs of the C layout; `_rng` makes this the only user
    // of rte_red's global generator.
    unsafe { netcond_dpdk_red_burst(c, r, now, q) }
}

/// `struct rte_pie_config`: the delay target, the update interval and the
/// burst allowance in clock cycles, and the tail-drop threshold in packets.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieConfig {
    /// Latency target, cycles.
    pub qdelay_ref: u64,
    /// Drop probability update interval, cycles.
    pub dp_update_interval: u64,
    /// Burst allowance, cycles.
    pub max_burst: u64,
    /// Tail-drop threshold, packets.
    pub tailq_th: u16,
}

/// `struct rte_pie`: one queue's run-time data (80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PieState {
    active: u16,
    in_measurement: u16,
    departed_bytes_count: u32,
    start_measurement: u64,
    last_measurement: u64,
    qlen: u64,
    qlen_bytes: u64,
    avg_dq_time: u64,
    burst_allowance: u32,
    qdelay_old: u64,
    drop_prob: f64,
    accu_prob: f64,
}

impl PieConfig {
    /// `rte_pie_config_init(qdelay_ref, dp_update_interval, max_burst,
    /// tailq_th)` (milliseconds, packets) at a clock of `hz` cycles per
    /// second in place of the TSC's.
    #[must_use]
    pub fn new(
        hz: u64,
        qdelay_ref: u16,
        dp_update_interval: u16,
        max_burst: u16,
        tailq_th: u16,
    ) -> Self {
        let mut c = Self::default();
        // SAFETY: `c` is a live, writable struct of the C layout.
        unsafe {
            netcond_dpdk_pie_config(
                &mut c,
                hz,
                qdelay_ref,
                dp_update_interval,
                max_burst,
                tailq_th,
            )
        };
        c
    }
}

impl PieState {
    /// `rte_pie_rt_data_init`, then PIE active with drop probability
    /// `drop_prob`, the burst allowance spent, the last queue delay at the
    /// target and the last update at `now`; seeds `rte_drand`'s generator.
    #[must_use]
    pub fn congested(c: &PieConfig, drop_prob: f64, now: u64, _rng: &mut PieRandom) -> Self {
        let mut s = Self::default();
        // SAFETY: live structs of the C layout; `_rng` makes this the only
        // user of the generator.
        let e = unsafe { netcond_dpdk_pie_start(&mut s, c, drop_prob, now, 1) };
        assert_eq!(e, 0, "rte_pie_rt_data_init failed");
        s
    }

    /// The drop probability.
    #[must_use]
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The accumulated probability of the derandomization.
    #[must_use]
    pub fn accu_prob(&self) -> f64 {
        self.accu_prob
    }
}

static PIE_RANDOM_TAKEN: AtomicBool = AtomicBool::new(false);

/// The right to use `rte_drand`'s generator: outside the EAL's threads,
/// `rte_rand` keeps one state for every thread, with no lock. One value of
/// this type exists at a time, so no two threads run [`pie_burst`] together.
#[derive(Debug)]
pub struct PieRandom(());

impl PieRandom {
    /// The generator, if nobody else holds it.
    #[must_use]
    pub fn take() -> Option<Self> {
        (!PIE_RANDOM_TAKEN.swap(true, Ordering::Acquire)).then_some(PieRandom(()))
    }
}

impl Drop for PieRandom {
    fn drop(&mut self) {
        PIE_RANDOM_TAKEN.store(false, Ordering::Release);
    }
}

/// `rte_pie_enqueue` for each of `lens` at `now` with `qlen` packets queued
/// (rte_pie's own packet count put back to `qlen` before each call); returns
/// the drops.
pub fn pie_burst(
    c: &PieConfig,
    s: &mut PieState,
    lens: &[u32],
    qlen: u32,
    now: u64,
    _rng: &mut PieRandom,
) -> u32 {
    // SAFETY: live structs of the C layout, `lens.len()` readable values;
    // `_rng` makes this the only user of the generator.
    unsafe { netcond_dpdk_pie_burst(c, s, lens.as_ptr(), lens.len(), qlen, now) }
}

/// [`pie_burst`], with rte_pie's accumulated probability put back to zero
/// after each drop, as Linux's `sch_pie` (and netcond's PIE) do: rte_pie
/// alone zeroes it only after a drop by its draw.
pub fn pie_burst_linux_reset(
    c: &PieConfig,
    s: &mut PieState,
    lens: &[u32],
    qlen: u32,
    now: u64,
    _rng: &mut PieRandom,
) -> u32 {
    // SAFETY: as pie_burst.
    unsafe { netcond_dpdk_pie_burst_linux_reset(c, s, lens.as_ptr(), lens.len(), qlen, now) }
}

static EAL_STARTED: AtomicBool = AtomicBool::new(false);

/// `rte_eal_init` with `args` (the program name first), once per process:
/// `Err` with its return value, or `Err(-1)` on a second call.
///
/// # Errors
/// When the EAL refuses or has been started before.
pub fn eal_init(args: &[&str]) -> Result<(), i32> {
    if EAL_STARTED.swap(true, Ordering::AcqRel) {
        return Err(-1);
    }
    // The EAL may keep pointers into argv: the strings and the array live
    // for the rest of the process.
    let mut argv: Vec<*mut c_char> = args
        .iter()
        .map(|a| CString::new(*a).expect("no NUL in arguments").into_raw())
        .collect();
    argv.push(std::ptr::null_mut());
    let argv = argv.leak();
    let argc = c_int::try_from(args.len()).expect("few arguments");
    // SAFETY: argc NUL-terminated strings followed by a null pointer, never
    // freed; the EAL is started once (checked above).
    let r = unsafe { netcond_dpdk_eal_init(argc, argv.as_mut_ptr()) };
    if r < 0 {
        Err(r)
    } else {
        Ok(())
    }
}

/// `rte_get_tsc_hz()`: the TSC frequency the EAL found, 0 before it started.
#[must_use]
pub fn tsc_hz() -> u64 {
    // SAFETY: reads a value the EAL set at start.
    unsafe { netcond_dpdk_tsc_hz() }
}

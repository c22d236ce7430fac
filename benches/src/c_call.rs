//! What the C boundary costs on the trTCM color-blind path: the meter
//! stream of [`crate::meter_stream`] (one flow, 2.3 GHz ticks,
//! `BENCH_TICKS_PER_PACKET` apart) through one driver loop that makes one call
//! per packet through a function pointer the compiler cannot see through,
//! passing the profile pointer with every call:
//!
//! - [`burst_rust_call`] calls [`rust_check`], a Rust function holding
//!   `TrTcm::color_blind` (inlined into it): the Rust call;
//! - [`burst_c_call`] calls `netcond_trtcm_color_blind_check` of the C
//!   interface (crates/netcond-ffi, linked as a Rust library but called
//!   through an `extern "C"` function pointer, as a C program calls it from
//!   `libnetcond.a` without cross-language inlining);
//! - [`burst_c_bulk`] passes each burst to `netcond_trtcm_color_blind_bulk`,
//!   which checks its arguments once per burst.
//!
//! Used by the `c_call` bench (interleaved timing) and by the instruction
//! counts (`ffi_*` cases of `benches/instructions.rs`).
// Calls through the C interface's exported functions.
#![allow(unsafe_code)]

use netcond::base::{Color, Instant};
use netcond::trtcm::{SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile};
use netcond_c::{
    netcond_color, netcond_srtcm, netcond_srtcm_color_blind_check, netcond_srtcm_config,
    netcond_srtcm_params, netcond_srtcm_profile, netcond_srtcm_profile_config, netcond_tcm_tokens,
    netcond_trtcm, netcond_trtcm_color_blind_bulk, netcond_trtcm_color_blind_check,
    netcond_trtcm_config, netcond_trtcm_params, netcond_trtcm_profile,
    netcond_trtcm_profile_config, netcond_trtcm_read,
};

use crate::meter_stream::tick;
use crate::BENCH_TICKS_PER_PACKET;

/// The exported per-packet C function's type.
pub type CCheck = unsafe extern "C" fn(
    *mut netcond_trtcm,
    *const netcond_trtcm_profile,
    u64,
    u32,
) -> netcond_color;

/// The Rust call's type.
pub type RustCheck = fn(&mut TrTcm, &TrTcmProfile, Instant, u32) -> Color;

/// The exported C function, behind a function pointer.
#[must_use]
pub fn c_check() -> CCheck {
    std::hint::black_box(netcond_trtcm_color_blind_check as CCheck)
}

/// The Rust call: `TrTcm::color_blind`, out of line.
#[inline(never)]
pub fn rust_check(m: &mut TrTcm, p: &TrTcmProfile, now: Instant, len: u32) -> Color {
    m.color_blind(p, now, len)
}

/// [`rust_check`] behind a function pointer.
#[must_use]
pub fn rust_call() -> RustCheck {
    std::hint::black_box(rust_check as RustCheck)
}

/// DPDK's test profile (CIR 46e6 B/s, PIR 69e6 B/s, CBS 2048, PBS 4096) on the
/// bench clock, through the Rust API and through the C API.
pub struct Profiles {
    /// The Rust profile.
    pub rust: TrTcmProfile,
    /// The same configuration through `netcond_trtcm_profile_config`.
    pub c: Box<netcond_trtcm_profile>,
}

impl Profiles {
    /// Both profiles.
    ///
    /// # Panics
    /// If either constructor refuses DPDK's test profile.
    #[must_use]
    pub fn new() -> Profiles {
        let rust = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap();
        let params = netcond_trtcm_params {
            cir: 46_000_000,
            pir: 69_000_000,
            cbs: 2048,
            pbs: 4096,
            tick_hz: 2_300_000_000,
        };
        let mut c = Box::new(netcond_trtcm_profile { opaque: [0; 32] });
        // SAFETY: both pointers are valid for the call.
        assert_eq!(unsafe { netcond_trtcm_profile_config(&mut *c, &params) }, 0);
        Profiles { rust, c }
    }

    /// A C state started at time 0.
    ///
    /// # Panics
    /// If the profile was refused.
    #[must_use]
    pub fn c_state(&self) -> netcond_trtcm {
        let mut m = netcond_trtcm { opaque: [0; 3] };
        // SAFETY: both pointers are valid for the call.
        assert_eq!(unsafe { netcond_trtcm_config(&mut m, &*self.c, 0) }, 0);
        m
    }
}

impl Default for Profiles {
    fn default() -> Self {
        Profiles::new()
    }
}

/// The token counts and last update of a C state, to compare with a Rust one.
///
/// # Panics
/// Never for a state started by [`Profiles::c_state`].
#[must_use]
pub fn c_tokens(m: &netcond_trtcm) -> [u64; 3] {
    let mut out = netcond_tcm_tokens::default();
    // SAFETY: both pointers are valid for the call.
    assert_eq!(unsafe { netcond_trtcm_read(m, &mut out) }, 0);
    [out.tc, out.te, out.last]
}

/// The token counts and last update of a Rust state.
#[must_use]
pub fn rust_tokens(m: &TrTcm) -> [u64; 3] {
    [m.tc(), m.tp(), m.last().ticks()]
}

/// One burst through the Rust call: the sum of the colors' indices.
#[inline(never)]
pub fn burst_rust_call(
    f: RustCheck,
    p: &TrTcmProfile,
    lens: &[u32],
    m: &mut TrTcm,
    t: &mut u64,
) -> usize {
    let mut tt = *t;
    let mut acc = 0usize;
    for &len in lens {
        tt += BENCH_TICKS_PER_PACKET;
        acc += f(m, p, Instant::from_ticks(tt), len).index();
    }
    *t = tt;
    acc
}

/// One burst through the C call: the sum of the colors' values.
#[inline(never)]
pub fn burst_c_call(
    f: CCheck,
    p: &netcond_trtcm_profile,
    lens: &[u32],
    m: &mut netcond_trtcm,
    t: &mut u64,
) -> usize {
    let mut tt = *t;
    let mut acc = 0usize;
    for &len in lens {
        tt += BENCH_TICKS_PER_PACKET;
        // SAFETY: `m` and `p` are valid, and `m` is this thread's.
        acc += unsafe { f(m, p, tt, len) } as usize;
    }
    *t = tt;
    acc
}

/// One burst through the C bulk call: the timestamps and lengths are laid
/// out as a C caller holds them (`times`, `lens`), the colors come back in
/// `out`; the sum of the colors' values.
///
/// # Panics
/// If the slices differ in length (never in the benches).
#[inline(never)]
pub fn burst_c_bulk(
    p: &netcond_trtcm_profile,
    times: &mut [u64],
    lens: &[u32],
    out: &mut [u8],
    m: &mut netcond_trtcm,
    t: &mut u64,
) -> usize {
    assert!(times.len() == lens.len() && out.len() == lens.len());
    let mut tt = *t;
    for x in times.iter_mut() {
        tt += BENCH_TICKS_PER_PACKET;
        *x = tt;
    }
    *t = tt;
    // SAFETY: the three arrays hold `lens.len()` elements each; `m` and `p`
    // are valid, and `m` is this thread's.
    let rc = unsafe {
        netcond_trtcm_color_blind_bulk(
            m,
            p,
            times.as_ptr(),
            lens.as_ptr(),
            out.as_mut_ptr(),
            lens.len(),
        )
    };
    assert_eq!(rc, 0);
    out.iter().map(|&c| usize::from(c)).sum()
}

/// The srTCM's exported per-packet C function's type.
pub type SrCCheck = unsafe extern "C" fn(
    *mut netcond_srtcm,
    *const netcond_srtcm_profile,
    u64,
    u32,
) -> netcond_color;

/// The srTCM's Rust call's type.
pub type SrRustCheck = fn(&mut SrTcm, &SrTcmProfile, Instant, u32) -> Color;

/// `netcond_srtcm_color_blind_check`, behind a function pointer.
#[must_use]
pub fn sr_c_check() -> SrCCheck {
    std::hint::black_box(netcond_srtcm_color_blind_check as SrCCheck)
}

/// The srTCM's Rust call: `SrTcm::color_blind`, out of line.
#[inline(never)]
pub fn sr_rust_check(m: &mut SrTcm, p: &SrTcmProfile, now: Instant, len: u32) -> Color {
    m.color_blind(p, now, len)
}

/// [`sr_rust_check`] behind a function pointer.
#[must_use]
pub fn sr_rust_call() -> SrRustCheck {
    std::hint::black_box(sr_rust_check as SrRustCheck)
}

/// DPDK's srTCM test profile (CIR 46e6 B/s, CBS 2048, EBS 4096) on the bench
/// clock, through the Rust API and through the C API, with a C state started
/// at time 0.
fn sr_profiles() -> (SrTcmProfile, Box<netcond_srtcm_profile>, netcond_srtcm) {
    let rust = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap();
    let params = netcond_srtcm_params {
        cir: 46_000_000,
        cbs: 2048,
        ebs: 4096,
        tick_hz: 2_300_000_000,
    };
    let mut c = Box::new(netcond_srtcm_profile { opaque: [0; 32] });
    let mut m = netcond_srtcm { opaque: [0; 3] };
    // SAFETY: the pointers are valid for the calls.
    unsafe {
        assert_eq!(netcond_srtcm_profile_config(&mut *c, &params), 0);
        assert_eq!(netcond_srtcm_config(&mut m, &*c, 0), 0);
    }
    (rust, c, m)
}

/// [`burst_rust_call`] for the srTCM.
#[inline(never)]
pub fn burst_sr_rust_call(
    f: SrRustCheck,
    p: &SrTcmProfile,
    lens: &[u32],
    m: &mut SrTcm,
    t: &mut u64,
) -> usize {
    let mut tt = *t;
    let mut acc = 0usize;
    for &len in lens {
        tt += BENCH_TICKS_PER_PACKET;
        acc += f(m, p, Instant::from_ticks(tt), len).index();
    }
    *t = tt;
    acc
}

/// [`burst_c_call`] for the srTCM.
#[inline(never)]
pub fn burst_sr_c_call(
    f: SrCCheck,
    p: &netcond_srtcm_profile,
    lens: &[u32],
    m: &mut netcond_srtcm,
    t: &mut u64,
) -> usize {
    let mut tt = *t;
    let mut acc = 0usize;
    for &len in lens {
        tt += BENCH_TICKS_PER_PACKET;
        // SAFETY: `m` and `p` are valid, and `m` is this thread's.
        acc += unsafe { f(m, p, tt, len) } as usize;
    }
    *t = tt;
    acc
}

/// Bursts of 4096 packets per counted run of an instruction-count case.
const REPS: usize = 4;

/// The counted work of the instruction-count case `name` (16,384 packets
/// after one warm-up burst): `ffi_rust_call_trtcm_blind_1flow`,
/// `ffi_c_call_trtcm_blind_1flow`, `ffi_c_bulk_trtcm_blind_1flow`,
/// `ffi_rust_call_srtcm_blind_1flow` or `ffi_c_call_srtcm_blind_1flow`.
///
/// # Panics
/// On any other name.
#[must_use]
pub fn counted(name: &str) -> Box<dyn FnMut() -> u64> {
    let s = crate::meter_stream::stream();
    let ps = Profiles::new();
    let mut t = 0u64;
    let mut run: Box<dyn FnMut() -> usize> = match name {
        "ffi_rust_call_trtcm_blind_1flow" => {
            let (f, mut m) = (rust_call(), TrTcm::new(&ps.rust, Instant::ZERO));
            Box::new(move || {
                burst_rust_call(f, std::hint::black_box(&ps.rust), &s.lens, &mut m, &mut t)
            })
        }
        "ffi_c_call_trtcm_blind_1flow" => {
            let (f, mut m) = (c_check(), ps.c_state());
            Box::new(move || burst_c_call(f, std::hint::black_box(&ps.c), &s.lens, &mut m, &mut t))
        }
        "ffi_c_bulk_trtcm_blind_1flow" => {
            let mut m = ps.c_state();
            let (mut times, mut out) = (vec![0u64; s.lens.len()], vec![0u8; s.lens.len()]);
            Box::new(move || {
                burst_c_bulk(
                    std::hint::black_box(&ps.c),
                    &mut times,
                    &s.lens,
                    &mut out,
                    &mut m,
                    &mut t,
                )
            })
        }
        "ffi_rust_call_srtcm_blind_1flow" => {
            let (rust, _, _) = sr_profiles();
            let (f, mut m) = (sr_rust_call(), SrTcm::new(&rust, Instant::ZERO));
            Box::new(move || {
                burst_sr_rust_call(f, std::hint::black_box(&rust), &s.lens, &mut m, &mut t)
            })
        }
        "ffi_c_call_srtcm_blind_1flow" => {
            let (_, c, mut m) = sr_profiles();
            let f = sr_c_check();
            Box::new(move || burst_sr_c_call(f, std::hint::black_box(&c), &s.lens, &mut m, &mut t))
        }
        other => panic!("no case {other}"),
    };
    run();
    Box::new(move || (0..REPS).map(|_| run() as u64).sum())
}

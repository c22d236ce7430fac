//! The C interface of netcond: every exported function and type of
//! `include/netcond.h`, which cbindgen generates from this crate.
//!
//! The layout follows DPDK's `rte_meter`: the caller owns a read-only *profile*
//! (the validated configuration, shared by any number of flows) and one small
//! *state* per flow, both plain C structs of fixed size and alignment whose
//! contents are opaque. Nothing is allocated: a constructor writes into the
//! caller's struct and returns `0` or a negative status (`NETCOND_E_*`), one per
//! configuration rule, whose message `netcond_strerror` returns (the same text as
//! the Rust error's `Display`).
//!
//! # Safety argument
//!
//! The library links `std` (a `staticlib` and a `cdylib` need a panic runtime)
//! but never allocates and never reads anything the caller did not pass.
//!
//! Every exported function is total: it checks each pointer for NULL and each
//! enum argument for range before use, uses no indexing that can fail, no
//! `unwrap`, and calls only the algorithm crates' per-packet methods, which are
//! total for every input (their contract, tested and fuzzed there). No panic can
//! start here, so none can reach the C caller. Each opaque struct is at least as
//! large and as aligned as the Rust value stored in it (checked at compile time
//! by `fits`). A profile carries a tag word written by its constructor; a
//! profile without the right tag (never configured, or whose configuration
//! failed) is treated like NULL. What C must guarantee: non-NULL pointers point
//! to live structs of the declared type, a state is not used by two threads at
//! once, and the profile and state given to one call do not overlap.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::float_arithmetic)]
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
// The exported names are C names.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, CStr};
use core::mem::{align_of, size_of};

mod aecn_ffi;
mod delay_ffi;
mod edge_ffi;
mod egress3sm_ffi;
mod errors;
mod green_ras_ffi;
mod pcn_ffi;
mod ras_ffi;
mod rbcc_ffi;
mod red_ffi;
mod sim48_ffi;
mod tbf_ffi;
mod trtcm_ffi;

pub use aecn_ffi::*;
pub use delay_ffi::*;
pub use edge_ffi::*;
pub use egress3sm_ffi::*;
pub use errors::netcond_status;
pub use green_ras_ffi::*;
pub use pcn_ffi::*;
pub use ras_ffi::*;
pub use rbcc_ffi::*;
pub use red_ffi::*;
pub use sim48_ffi::*;
pub use tbf_ffi::*;
pub use trtcm_ffi::*;

/// The color of a packet (RFC 2697, RFC 2698, RFC 4115), numbered as DPDK's
/// `enum rte_color`. Functions that take an input color take an `int`; any value
/// other than these three is treated as `NETCOND_RED`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum netcond_color {
    /// Conforms to the committed rate and burst.
    NETCOND_GREEN = 0,
    /// Exceeds the committed profile, conforms to the peak or excess one.
    NETCOND_YELLOW = 1,
    /// Exceeds both.
    NETCOND_RED = 2,
}

impl From<netcond_core::Color> for netcond_color {
    #[inline(always)]
    fn from(c: netcond_core::Color) -> netcond_color {
        match c {
            netcond_core::Color::Green => netcond_color::NETCOND_GREEN,
            netcond_core::Color::Yellow => netcond_color::NETCOND_YELLOW,
            netcond_core::Color::Red => netcond_color::NETCOND_RED,
        }
    }
}

/// The input color of a color-aware call: 0 green, 1 yellow, anything else red.
#[inline(always)]
pub(crate) fn color_in(c: c_int) -> netcond_core::Color {
    match c {
        0 => netcond_core::Color::Green,
        1 => netcond_core::Color::Yellow,
        _ => netcond_core::Color::Red,
    }
}

/// The message of status `code`: `"ok"` for 0, the rule a configuration broke
/// for a `NETCOND_E_*` code (the same text as the Rust error's `Display`), and
/// `"unknown netcond status"` for anything else. The string is static and
/// NUL-terminated; never free it. Never returns NULL.
#[no_mangle]
pub extern "C" fn netcond_strerror(code: c_int) -> *const c_char {
    errors::message(code).as_ptr()
}

/// The version of this library as `major * 10000 + minor * 100 + patch`.
#[no_mangle]
pub extern "C" fn netcond_version() -> u32 {
    NETCOND_VERSION
}

/// The version of the header: compare with `netcond_version()` at run time.
pub const NETCOND_VERSION: u32 = 100;

/// A profile's stored value: a tag telling which constructor wrote it, then
/// the Rust profile.
#[repr(C)]
pub(crate) struct Tagged<P> {
    tag: u64,
    inner: P,
}

/// Compile-time check that a Rust value `T` fits the C struct `O`: size and
/// alignment. Evaluated when the accessor for `(O, T)` is instantiated.
pub(crate) struct Fits<O, T>(core::marker::PhantomData<(O, T)>);

impl<O, T> Fits<O, T> {
    /// True; a compile error if `T` does not fit `O`.
    pub(crate) const OK: bool = {
        assert!(
            size_of::<T>() <= size_of::<O>(),
            "Rust value larger than its C struct"
        );
        assert!(
            align_of::<T>() <= align_of::<O>(),
            "Rust value more aligned than its C struct"
        );
        true
    };
}

/// Whether `T` fits `O` (forces the compile-time check).
pub(crate) const fn fits<O, T>() -> bool {
    Fits::<O, T>::OK
}

/// Stores profile `inner` with `tag` in the caller's struct at `out`.
///
/// # Safety
/// `out` is non-NULL and points to a writable `O`.
#[inline]
pub(crate) unsafe fn store_profile<O, P>(out: *mut O, tag: u64, inner: P) {
    const { assert!(fits::<O, Tagged<P>>()) };
    // SAFETY: `out` is valid for writes of an `O`, which is at least as large and
    // as aligned as `Tagged<P>` (checked above).
    unsafe { out.cast::<Tagged<P>>().write(Tagged { tag, inner }) };
}

/// Marks the caller's profile at `out` as unusable (after a failed constructor).
///
/// # Safety
/// `out` is non-NULL and points to a writable `O` of at least 8 bytes, aligned to 8.
#[inline]
pub(crate) unsafe fn clear_tag<O>(out: *mut O) {
    const { assert!(fits::<O, u64>()) };
    // SAFETY: `out` is valid for writes of an `O`, which holds a `u64` at offset 0.
    unsafe { out.cast::<u64>().write(0) };
}

/// The profile stored at `p` if `p` is non-NULL and carries `tag`.
///
/// # Safety
/// `p` is NULL or points to a readable `O` that no one writes during `'a`; if
/// its first word is `tag`, the rest was written by [`store_profile`] with `P`.
#[inline(always)]
pub(crate) unsafe fn profile<'a, O, P>(p: *const O, tag: u64) -> Option<&'a P> {
    const { assert!(fits::<O, Tagged<P>>()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` is non-NULL and points to a readable, 8-aligned `O` whose first
    // word is a plain `u64` (any bit pattern is valid).
    let tag_now = unsafe { p.cast::<u64>().read() };
    if tag_now != tag {
        return None;
    }
    // SAFETY: the tag says `store_profile::<O, P>` wrote a `Tagged<P>` here, and
    // `O` is large and aligned enough for it.
    Some(unsafe { &(*p.cast::<Tagged<P>>()).inner })
}

/// The tagged value stored at `p`, mutable, if `p` is non-NULL and carries
/// `tag` (for structs that keep a profile that changes, as Adaptive RED's).
///
/// # Safety
/// As [`profile`], with exclusive access during `'a`.
#[inline(always)]
pub(crate) unsafe fn profile_mut<'a, O, P>(p: *mut O, tag: u64) -> Option<&'a mut P> {
    const { assert!(fits::<O, Tagged<P>>()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` is non-NULL and points to a readable, 8-aligned `O`.
    let tag_now = unsafe { p.cast::<u64>().read() };
    if tag_now != tag {
        return None;
    }
    // SAFETY: the tag says a `Tagged<P>` was stored here; access is exclusive.
    Some(unsafe { &mut (*p.cast::<Tagged<P>>()).inner })
}

/// The state stored at `m`, if `m` is non-NULL.
///
/// # Safety
/// `m` is NULL or points to an `O` that only this call uses during `'a`, holding
/// a `S` written by this crate or zero bytes (every `S` here is plain integers,
/// for which all zeros is a valid empty state).
#[inline(always)]
pub(crate) unsafe fn state<'a, O, S>(m: *mut O) -> Option<&'a mut S> {
    const { assert!(fits::<O, S>()) };
    // SAFETY: per the contract above; `O` is large and aligned enough for `S`.
    unsafe { m.cast::<S>().as_mut() }
}

/// The state stored at `m`, read-only, if `m` is non-NULL.
///
/// # Safety
/// As [`state`], with shared access.
#[inline(always)]
pub(crate) unsafe fn state_ref<'a, O, S>(m: *const O) -> Option<&'a S> {
    const { assert!(fits::<O, S>()) };
    // SAFETY: per the contract above; `O` is large and aligned enough for `S`.
    unsafe { m.cast::<S>().as_ref() }
}

/// Writes a fresh state `s` to `m` (non-NULL).
///
/// # Safety
/// `m` is non-NULL and points to a writable `O`.
#[inline(always)]
pub(crate) unsafe fn store_state<O, S>(m: *mut O, s: S) {
    const { assert!(fits::<O, S>()) };
    // SAFETY: `m` is valid for writes of an `O`, large and aligned enough for `S`.
    unsafe { m.cast::<S>().write(s) };
}

/// A static NUL-terminated copy of a `&'static str` known at compile time.
// Only evaluated in constants (a failure would be a compile error), and the
// loop keeps `i < b.len()` and `i < N`.
#[allow(clippy::indexing_slicing)]
pub(crate) const fn nul_terminated<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && i + 1 < N {
        out[i] = b[i];
        i += 1;
    }
    out
}

/// `CStr` of a constant message (compile error on an interior NUL).
macro_rules! const_cstr {
    ($msg:expr) => {{
        const M: &str = $msg;
        const N: usize = M.len() + 1;
        const B: [u8; N] = $crate::nul_terminated::<N>(M);
        const C: &::core::ffi::CStr = match ::core::ffi::CStr::from_bytes_with_nul(&B) {
            Ok(c) => c,
            Err(_) => panic!("message with an interior NUL"),
        };
        C
    }};
}
pub(crate) use const_cstr;

/// The C string of `"ok"`.
pub(crate) const OK_MSG: &CStr = c"ok";

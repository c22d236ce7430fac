//! Links the netcond library crates into a `no_std` binary without a global
//! allocator, and exercises one operation of each so that none is optimised away.
//!
//! Built for `thumbv7em-none-eabihf` (entry `_start`), or for a hosted target
//! (entry `main`, linked against the C runtime only), where it also runs and
//! returns the number of failed checks as its exit status.
#![no_std]
#![no_main]

use core::hint::black_box;
use netcond::base::{BucketProfile, Instant, Rate, SplitMix64, TickRate};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

/// Runs one operation of every crate; returns the number of failed checks.
fn exercise() -> i32 {
    let mut failures = 0;
    let b = match BucketProfile::new(Rate::from_bytes_per_sec(1_000_000), 1500, TickRate::NANOS) {
        Ok(b) => b,
        Err(_) => return 1,
    };
    let mut last = Instant::ZERO;
    let dt = last.advance_to(black_box(Instant::from_ticks(750_000)));
    let tokens = b.refill(black_box(0), dt);
    if b.whole_bytes(tokens) != 750 {
        failures += 1;
    }
    let mut rng = SplitMix64::new(black_box(1));
    if rng.next_u64() == rng.next_u64() {
        failures += 1;
    }
    failures + crate_checks::run()
}

mod crate_checks;

#[cfg(target_os = "none")]
#[no_mangle]
pub extern "C" fn _start() -> ! {
    let _ = black_box(exercise());
    loop {}
}

/// The prebuilt `core` of a hosted target carries unwind tables that name this
/// symbol; with `panic = "abort"` it is never called.
#[cfg(not(target_os = "none"))]
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

#[cfg(not(target_os = "none"))]
#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    exercise()
}

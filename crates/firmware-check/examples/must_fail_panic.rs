//! Proves that a reached panic fails the run: an index the compiler cannot see
//! is out of bounds panics, and the firmware's panic handler (`src/fail.rs`)
//! must print `FAIL: panic` and exit QEMU with a failure status.
//! `.ci/firmware.sh` runs it and fails if it exits 0 or prints nothing of it.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};

#[path = "../src/fail.rs"]
mod fail;

#[entry]
fn main() -> ! {
    hprintln!("must_fail_panic: indexing a 4-element array at 7");
    let table = core::hint::black_box([1u32, 2, 3, 4]);
    let i = core::hint::black_box(7usize);
    let v = table[i];
    // Not reached: the panic handler exits first.
    hprintln!("must_fail_panic: no panic ({})", v);
    debug::exit(debug::EXIT_SUCCESS);
    loop {
        cortex_m::asm::bkpt();
    }
}

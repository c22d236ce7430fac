//! Proves that a HardFault fails the run: a permanently undefined instruction
//! (`UDF`) raises a UsageFault, which escalates to a HardFault (the configurable
//! faults are off after reset), and the firmware's HardFault handler
//! (`src/fail.rs`) must print `FAIL: HardFault` and exit QEMU with a failure
//! status. `.ci/firmware.sh` runs it and fails if it exits 0 or prints nothing
//! of it.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;

#[path = "../src/fail.rs"]
mod fail;

#[entry]
fn main() -> ! {
    hprintln!("must_fail_fault: executing UDF");
    cortex_m::asm::udf();
}

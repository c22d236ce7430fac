//! What the firmware does when something goes wrong: a reached panic, a
//! HardFault or an unexpected exception prints what happened over semihosting
//! and exits QEMU with a failure status, so that CI fails. Shared by the
//! checking firmware and by the two examples that prove it
//! (`examples/must_fail_panic.rs`, `examples/must_fail_fault.rs`).

use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::{debug, hprintln};

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("FAIL: panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}

#[exception]
unsafe fn HardFault(ef: &ExceptionFrame) -> ! {
    hprintln!(
        "FAIL: HardFault at pc {:#010x}, lr {:#010x}",
        ef.pc(),
        ef.lr()
    );
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    hprintln!("FAIL: unexpected exception {}", irqn);
    debug::exit(debug::EXIT_FAILURE);
}

//! netcond on a bare-metal Cortex-M: known-answer tests of every family, the
//! stack depth of every per-packet entry point and of configuration, and the
//! sizes of profiles and per-flow states, printed over semihosting.
//!
//! Run under QEMU (`cargo run --release` in this directory; see
//! docs/firmware.md). The exit status is 0 only if every check passed; a
//! panic or a HardFault prints what happened and exits with failure.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};

#[allow(dead_code)]
mod cases;
mod fail;
mod known;
mod known_delay;
mod stack;
mod stack_delay;

mod expected {
    include!(concat!(env!("OUT_DIR"), "/expected.rs"));
}

/// Compares a stream's values with the host's as they come.
struct Compare {
    expected: &'static [u64],
    n: usize,
    first_bad: Option<(usize, u64)>,
}

impl cases::Sink for Compare {
    fn put(&mut self, v: u64) {
        let want = self.expected.get(self.n).copied();
        if want != Some(v) && self.first_bad.is_none() {
            self.first_bad = Some((self.n, v));
        }
        self.n += 1;
    }
}

/// Runs the host-computed stream of `family`; prints nothing, returns a
/// description of the first difference, if any.
fn host_stream(family: &str) -> Result<usize, (usize, u64, Option<u64>)> {
    let Some(&(_, run)) = cases::STREAMS.iter().find(|(n, _)| *n == family) else {
        return Err((0, 0, None));
    };
    let Some(&(_, expected)) = expected::EXPECTED.iter().find(|(n, _)| *n == family) else {
        return Err((0, 0, None));
    };
    let mut c = Compare {
        expected,
        n: 0,
        first_bad: None,
    };
    run(&mut c);
    match c.first_bad {
        None if c.n == expected.len() => Ok(c.n),
        None => Err((c.n.min(expected.len()), 0, None)),
        Some((i, got)) => Err((i, got, expected.get(i).copied())),
    }
}

#[entry]
fn main() -> ! {
    hprintln!(
        "netcond firmware checks, {}, {}",
        env!("FW_TARGET"),
        env!("FW_PROFILE"),
    );
    let mut failed = 0u32;
    for f in known::FAMILIES.iter().chain(known_delay::FAMILIES) {
        let mut notes = known::Notes::default();
        (f.check)(&mut notes);
        let mut line_ok = notes.failed == 0;
        let mut values = 0usize;
        for s in f.streams {
            match host_stream(s) {
                Ok(n) => values += n,
                Err((i, got, want)) => {
                    line_ok = false;
                    hprintln!(
                        "  {}: value {} is {:#x}, the host computed {:?}",
                        s,
                        i,
                        got,
                        want
                    );
                }
            }
        }
        if !line_ok {
            failed += 1;
        }
        hprintln!(
            "{} {}: {}/{} known answers, {} values as computed on the host",
            if line_ok { "ok  " } else { "FAIL" },
            f.name,
            notes.passed,
            notes.passed + notes.failed,
            values,
        );
    }
    match cortex_m::Peripherals::take() {
        Some(p) => stack::start_clock(p.SYST),
        None => hprintln!("FAIL: the core peripherals were taken"),
    }
    failed += stack::report();
    stack::sizes();
    if failed == 0 {
        hprintln!("all checks passed");
        debug::exit(debug::EXIT_SUCCESS);
    } else {
        hprintln!("{} families FAILED", failed);
        debug::exit(debug::EXIT_FAILURE);
    }
    loop {
        cortex_m::asm::bkpt();
    }
}

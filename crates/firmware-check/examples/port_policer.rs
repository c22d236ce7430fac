//! A firmware application's shape: one trTCM profile shared by every port,
//! held in a `static`; per-port meter state in a `heapless::Vec`; timestamps
//! from a 1 MHz hardware timer, fed to the meters as `Instant` ticks with
//! `TickRate::MICROS`.
//!
//! On the MPS2 board the 1 MHz timer is SysTick running from its external
//! reference clock (1 MHz on MPS2; `CLKSOURCE = 0`). SysTick is a 24-bit down
//! counter: an exception on each wrap counts the wraps, and `now()` joins the
//! count and the counter into 64 bits. The receive path is a polling loop (as a
//! driver polling its DMA ring would be); each port is offered far more than
//! its PIR for 200 ms, and the colors are checked against the RFC 2698 bounds.
//!
//! Run: `cargo run --release --example port_policer` in crates/firmware-check
//! (QEMU mps2-an386 with `-icount`). Exit status 0 if every port's green and
//! green + yellow bytes stayed within their RFC 2698 bounds and, with what is
//! left in the buckets, account for every byte the buckets were credited.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU32, Ordering};
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{debug, hprintln};
use heapless::Vec;
use netcond::base::{Color, Instant, Rate, TickRate};
use netcond::trtcm::{Counters, TrTcm, TrTcmConfig, TrTcmProfile};

/// The number of ports.
const PORTS: usize = 4;

/// The meter configuration of every port: CIR 1 MB/s, PIR 2 MB/s, CBS 3000 B,
/// PBS 6000 B, on the 1 MHz timer. A `const`: the configuration is plain data.
const CONFIG: TrTcmConfig = TrTcmConfig::new(
    Rate::from_bytes_per_sec(1_000_000),
    Rate::from_bytes_per_sec(2_000_000),
    3000,
    6000,
)
.with_tick(TickRate::MICROS);

/// The profile shared by every port. `TrTcmProfile::new` validates the
/// configuration and precomputes its constants at run time (it is not a
/// `const fn`), so the static is filled once at start-up by `singleton!`,
/// which hands out its only reference; the profile is read-only afterwards.
fn profile() -> &'static TrTcmProfile {
    let Ok(p) = TrTcmProfile::new(&CONFIG) else {
        fail("the configuration was refused");
    };
    match cortex_m::singleton!(PROFILE: TrTcmProfile = p) {
        Some(p) => p,
        None => fail("profile() called twice"),
    }
}

/// One port's state: its meter (24 bytes) and its counters.
struct Port {
    meter: TrTcm,
    counters: Counters,
}

// ---------------------------------------------------------------------------
// The 1 MHz timer
// ---------------------------------------------------------------------------

/// SysTick wraps counted by its exception: the high bits of the 64-bit clock.
static WRAPS: AtomicU32 = AtomicU32::new(0);
const RELOAD: u32 = 0x00FF_FFFF;

#[exception]
fn SysTick() {
    WRAPS.fetch_add(1, Ordering::Relaxed);
}

fn start_timer(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::External); // the 1 MHz reference
    syst.set_reload(RELOAD);
    // Clearing sets the counter to 0; it loads RELOAD on the next tick
    // without an exception (one fires on the step from 1 to 0). Until then
    // `now()` would read a full period ahead, so wait for the load.
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
    while SYST::get_current() == 0 {}
}

/// The 1 MHz timer as an `Instant`: wraps x 2^24 + ticks into this period.
///
/// Reads the wrap count on both sides of the counter and starts again if a
/// wrap was counted in between. Called with the SysTick exception held off
/// (in a critical section or a handler of higher priority), a wrap may be
/// pending but not yet counted: the pending bit, with a counter just
/// reloaded (in the upper half), counts it. 2^56 microseconds last 2,284
/// years; should the clock ever wrap, `Instant`'s wrapping arithmetic carries
/// on across it.
fn now() -> Instant {
    loop {
        let before = WRAPS.load(Ordering::Acquire);
        let down = SYST::get_current();
        let pending = SCB::is_pendst_pending();
        let after = WRAPS.load(Ordering::Acquire);
        if before == after {
            let wraps = u64::from(before) + u64::from(pending && down > RELOAD / 2);
            let up = u64::from(RELOAD - down);
            return Instant::from_ticks((wraps << 24) | up);
        }
    }
}

// ---------------------------------------------------------------------------

fn fail(why: &str) -> ! {
    hprintln!("FAIL: {}", why);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("FAIL: panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::bkpt();
    }
}

#[entry]
fn main() -> ! {
    let Some(core) = cortex_m::Peripherals::take() else {
        fail("peripherals taken twice");
    };
    start_timer(core.SYST);
    let profile = profile();

    // Per-port state in a fixed-capacity vector: no allocator.
    let t0 = now();
    let mut ports: Vec<Port, PORTS> = Vec::new();
    for _ in 0..PORTS {
        let port = Port {
            meter: TrTcm::new(profile, t0),
            counters: Counters::default(),
        };
        if ports.push(port).is_err() {
            fail("more ports than capacity");
        }
    }

    // The receive loop: port i gets packets of 64 + 300 i bytes back to back.
    let run = 200_000; // microseconds
    let mut first = [t0; PORTS];
    let mut t = t0;
    while t.ticks_since(t0) < run {
        for (i, port) in ports.iter_mut().enumerate() {
            t = now();
            let len = 64 + 300 * i as u32;
            if port.counters.total_packets() == 0 {
                first[i] = t;
            }
            let color = port.meter.color_blind(profile, t, len);
            port.counters.record(color, len);
        }
    }
    let elapsed = t.ticks_since(t0);

    // The check, per port, at its own last packet `tl` (the meter's last
    // update; t counts microseconds, so CIR and PIR are 1 and 2 bytes a tick).
    // RFC 2698: green <= CBS + CIR t, green + yellow <= PBS + PIR t. And the
    // meter is exact: every byte a bucket was credited is either in a packet of
    // its colors or still in the bucket. The buckets start full at t0, so what
    // they would have gained before the port's first packet `tf` was lost to
    // the cap; after it, packets arrive every few microseconds, far above PIR,
    // and neither bucket fills again. So, to the byte:
    //   green          + C left + CIR (tf - t0) = CBS + CIR (tl - t0)
    //   green + yellow + P left + PIR (tf - t0) = PBS + PIR (tl - t0)
    // That needs a clock without gaps of milliseconds between packets: under
    // QEMU, `-icount` (virtual time follows the instructions executed) rather
    // than the host's clock, whose scheduling pauses the emulated core.
    let mut ok = elapsed >= run;
    for (i, port) in ports.iter().enumerate() {
        let g = port.counters.bytes(Color::Green);
        let y = port.counters.bytes(Color::Yellow);
        let r = port.counters.bytes(Color::Red);
        let tl = port.meter.last().ticks_since(t0);
        let tf = first[i].ticks_since(t0);
        let c_left = profile.committed().whole_bytes(port.meter.tc());
        let p_left = profile.peak().whole_bytes(port.meter.tp());
        let green_max = 3000 + tl;
        let passed_max = 6000 + 2 * tl;
        let port_ok = g <= green_max
            && g + y <= passed_max
            && g + c_left + tf == green_max
            && g + y + p_left + 2 * tf == passed_max
            && r > 0;
        ok &= port_ok;
        hprintln!(
            "port {}: {} packets; green {} B + {} B left in C (bound {}), green + yellow {} B + {} B left in P (bound {}), red {} B {}",
            i,
            port.counters.total_packets(),
            g,
            c_left,
            green_max,
            g + y,
            p_left,
            passed_max,
            r,
            if port_ok { "ok" } else { "FAIL" }
        );
    }
    hprintln!(
        "{} us on the 1 MHz timer; profile {} B in a static, {} B of port state",
        elapsed,
        core::mem::size_of::<TrTcmProfile>(),
        core::mem::size_of::<Vec<Port, PORTS>>()
    );
    if !ok {
        fail("a port broke its bounds, or the timer did not run");
    }
    debug::exit(debug::EXIT_SUCCESS);
    loop {
        cortex_m::asm::bkpt();
    }
}

//! RFC 2963 G-trRAS (section 3.4/3.5): a trRAS whose head also leaves at T2,
//! the instant the downstream trTCM would color it green. Driven like
//! `ras_trras`, with the trTCM seeing only the shaper's output; checks
//! `ras_shaper::invariants::shaper_consistent` and `rate_bounds` after every
//! operation, and, with a forward clock, `release_in_order` and `green_at_t2`
//! (a packet released at T2 is green) on every release.
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{ras, Burst, RateSel, TickSel};
use ras_shaper::{TrRasConfig, TrRasProfile, TrThresholds};
use trtcm::{TrTcm, TrTcmConfig, TrTcmProfile};

#[derive(Arbitrary, Debug)]
struct Input {
    cir: RateSel,
    pir: RateSel,
    mir: Option<RateSel>,
    line: RateSel,
    thresholds: Option<(Burst, Burst, Burst)>,
    buffer: Burst,
    k_ns: Option<u64>,
    cbs: Burst,
    pbs: Burst,
    /// Meter CIR and PIR: `None` are the shaper's (the usual setting).
    meter_rates: Option<(RateSel, RateSel)>,
    tick: TickSel,
    wild: bool,
    start: u64,
    occ: u64,
    ops: Vec<ras::Op>,
}

fuzz_target!(|input: Input| {
    let tick = input.tick.get();
    let mut cfg = TrRasConfig::new(
        input.cir.get(),
        input.pir.get(),
        input.line.get(),
        input.buffer.get(),
    )
    // The largest packet at most the buffer (every buffer stays reachable).
    .with_max_packet_bytes(
        u32::try_from(input.buffer.get())
            .unwrap_or(u32::MAX)
            .clamp(1, ras_shaper::DEFAULT_MAX_PACKET),
    )
    .with_k(
        input
            .k_ns
            .map_or(ras_shaper::DEFAULT_K, Duration::from_nanos),
    )
    .with_tick(tick);
    cfg.mir = input.mir.map(RateSel::get);
    cfg.thresholds = input
        .thresholds
        .map(|(c, p, m)| TrThresholds::new(c.get(), p.get(), m.get()));
    let (cir, pir) = input
        .meter_rates
        .map_or((cfg.cir, cfg.pir), |(c, p)| (c.get(), p.get()));
    let mc = TrTcmConfig::new(cir, pir, input.cbs.get(), input.pbs.get()).with_tick(tick);
    let (Ok(p), Ok(mp)) = (TrRasProfile::new(&cfg), TrTcmProfile::new(&mc)) else {
        return;
    };
    ras::run_green::<TrTcm>(
        "ras_g_trras",
        &p,
        &mp,
        input.wild,
        input.start,
        input.occ,
        &input.ops,
    );
});

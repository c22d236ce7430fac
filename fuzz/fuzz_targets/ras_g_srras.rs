//! RFC 2963 G-srRAS (section 3.2/3.3): an srRAS whose head also leaves at T2,
//! the instant the downstream srTCM would color it green. Driven like
//! `ras_srras`, with the srTCM seeing only the shaper's output; checks
//! `ras_shaper::invariants::shaper_consistent` and `rate_bounds` after every
//! operation, and, with a forward clock, `release_in_order` and `green_at_t2`
//! (a packet released at T2 is green) on every release.
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{ras, Burst, RateSel, TickSel};
use ras_shaper::{SrRasConfig, SrRasProfile, SrThresholds};
use trtcm::{SrTcm, SrTcmConfig, SrTcmProfile};

#[derive(Arbitrary, Debug)]
struct Input {
    cir: RateSel,
    mir: Option<RateSel>,
    line: RateSel,
    thresholds: Option<(Burst, Burst)>,
    buffer: Burst,
    k_ns: Option<u64>,
    cbs: Burst,
    ebs: Burst,
    /// Meter CIR: `None` is the shaper's CIR (the usual setting).
    meter_cir: Option<RateSel>,
    tick: TickSel,
    wild: bool,
    start: u64,
    occ: u64,
    ops: Vec<ras::Op>,
}

fuzz_target!(|input: Input| {
    let tick = input.tick.get();
    let mut cfg = SrRasConfig::new(input.cir.get(), input.line.get(), input.buffer.get())
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
        .map(|(c, m)| SrThresholds::new(c.get(), m.get()));
    let mc = SrTcmConfig::new(
        input.meter_cir.map_or(cfg.cir, RateSel::get),
        input.cbs.get(),
        input.ebs.get(),
    )
    .with_tick(tick);
    let (Ok(p), Ok(mp)) = (SrRasProfile::new(&cfg), SrTcmProfile::new(&mc)) else {
        return;
    };
    ras::run_green::<SrTcm>(
        "ras_g_srras",
        &p,
        &mp,
        input.wild,
        input.start,
        input.occ,
        &input.ops,
    );
});

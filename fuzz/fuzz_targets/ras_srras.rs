//! RFC 2963 srRAS: configuration validation (section 2.2), then a plain
//! srRAS (`Ras<u32, 16>`) driven through enqueues and waits, every due packet
//! dequeued, with `ras_shaper::invariants::shaper_consistent`, `rate_bounds`
//! and (forward clock) `release_in_order` after every operation.
#![no_main]

use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{ras, Burst, RateSel, TickSel};
use ras_shaper::{SrRasConfig, SrRasProfile, SrThresholds};

#[derive(Arbitrary, Debug)]
struct Input {
    cir: RateSel,
    mir: Option<RateSel>,
    line: RateSel,
    thresholds: Option<(Burst, Burst)>,
    buffer: Burst,
    k_ns: Option<u64>,
    tick: TickSel,
    wild: bool,
    start: u64,
    occ: u64,
    ops: Vec<ras::Op>,
}

fuzz_target!(|input: Input| {
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
        .with_tick(input.tick.get());
    cfg.mir = input.mir.map(RateSel::get);
    cfg.thresholds = input
        .thresholds
        .map(|(c, m)| SrThresholds::new(c.get(), m.get()));
    let Ok(p) = SrRasProfile::new(&cfg) else {
        return;
    };
    ras::run_plain(
        "ras_srras",
        &p,
        input.wild,
        input.start,
        input.occ,
        &input.ops,
    );
});

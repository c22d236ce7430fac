//! Adaptive RED (Floyd, Gummadi and Shenker 2001): a RED configuration (any,
//! valid or not: an invalid one must be refused, never panic) with an
//! adaptation interval and a start instant, then a sequence of arrivals,
//! departures and clock steps at any time (backwards, wrap-around, 2^62-tick
//! jumps). `aqm_red::invariants::check_adaptive` checks after every step that
//! max_p adapts once per elapsed interval and in figure 2's direction, never
//! moves away from `[0.009, 0.51]`, that the curve follows it, and RED's own
//! invariants (average, p_b, buffer, ECN).
#![no_main]

use aqm_red::invariants::check_adaptive;
use aqm_red::{AdaptiveRedConfig, QueueSettings, RedConfig};
use arbitrary::Arbitrary;
use core::time::Duration;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::aqm::{self, TxTicks, Units};
use netcond_fuzz::Frac;

/// The adaptation interval in ticks (nanoseconds: the configuration's clock).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Interval {
    /// Zero: refused.
    Zero,
    /// 1 to 256 ticks: many adaptations per run.
    Small(u8),
    /// Up to 2^24 ticks.
    Medium(u32),
    /// The paper's 0.5 s in nanoseconds.
    Paper,
    /// 2^62 and more: at most one adaptation per serial half range.
    Huge(u8),
    /// Any `u64`.
    Any(u64),
}

impl Interval {
    fn get(self) -> u64 {
        match self {
            Interval::Zero => 0,
            Interval::Small(v) => u64::from(v) + 1,
            Interval::Medium(v) => u64::from(v % (1 << 24)) + 1,
            Interval::Paper => 500_000_000,
            Interval::Huge(v) => (1 << 62) + u64::from(v),
            Interval::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    min_th: Units,
    max_th: Units,
    max_p: Frac,
    w_q: Frac,
    limit: Units,
    bytes: bool,
    gentle: bool,
    byte_mode: Option<Units>,
    ecn: bool,
    ecn_drop_th: Option<Units>,
    idle_tx: TxTicks,
    spreading: u8,
    interval: Interval,
    start: u64,
    seed: u64,
    ops: Vec<aqm::Op>,
}

fuzz_target!(|input: Input| {
    let cfg = RedConfig::packets(
        input.min_th.get(),
        input.max_th.get(),
        aqm::fx(input.max_p),
        aqm::fx(input.w_q),
        input.limit.get(),
    )
    .with_queue(
        QueueSettings::new(aqm::fx(input.w_q), input.limit.get())
            .with_unit(aqm::unit(input.bytes))
            .with_gentle(input.gentle)
            .with_byte_mode(input.byte_mode.map(Units::get))
            .with_ecn(input.ecn)
            .with_ecn_drop_th(input.ecn_drop_th.map(Units::get))
            .with_typical_tx(input.idle_tx.duration())
            .with_spreading(aqm::spreading(input.spreading)),
    );
    let ac = AdaptiveRedConfig::new(cfg, Duration::from_nanos(input.interval.get()));
    let ops = aqm::ops(&input.ops);
    if let Err(e) = check_adaptive(&ac, input.start, &ops, input.seed) {
        panic!("adaptive_red: {e} (config {ac:?}, start {})", input.start);
    }
});

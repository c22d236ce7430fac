//! AECN (Zheng and Kinicki): RED average, per-class marking probabilities and
//! mark-front over a fixed-capacity queue of 64 descriptors. The configuration
//! is validated, then `aqm_red::invariants::check_aecn` drives an
//! `AecnQueue<_, 64>` through the decoded operations and checks the queue
//! limit and the capacity (at most 64 held, whatever the limit), the
//! average, the handed-back packets and the mark-front cursors after every
//! step.
#![no_main]

use aqm_red::invariants::check_aecn;
use aqm_red::{AecnConfig, AecnProfile};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::aqm::{self, TxTicks, Units};
use netcond_fuzz::Frac;

#[derive(Arbitrary, Debug)]
struct Input {
    w_q: Frac,
    min_th: Units,
    max_th: Units,
    base_max_p: Frac,
    alpha: Frac,
    beta: Frac,
    limit: Units,
    idle_tx: TxTicks,
    spreading: u8,
    seed: u64,
    ops: Vec<aqm::Op>,
}

fuzz_target!(|input: Input| {
    let cfg = AecnConfig::new(
        aqm::fx(input.w_q),
        input.min_th.get(),
        input.max_th.get(),
        aqm::fx(input.base_max_p),
        aqm::fx(input.alpha),
        aqm::fx(input.beta),
        // Mostly within the queue's capacity of 64.
        input.limit.get() % 80,
    )
    .with_typical_tx(input.idle_tx.duration())
    .with_spreading(aqm::spreading(input.spreading));
    let Ok(p) = AecnProfile::new(&cfg) else {
        return;
    };
    let ops = aqm::ops(&input.ops);
    if let Err(e) = check_aecn(&p, &ops, input.seed) {
        panic!("aecn: {e} (config {cfg:?})");
    }
});

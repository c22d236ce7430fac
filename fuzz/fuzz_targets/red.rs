//! RED (FJ93; RFC 2309, RFC 7567) with gentle mode, byte mode, packet or byte
//! queues, ECN (RFC 3168) and every drop spreading: the configuration is
//! validated, then `aqm_red::invariants::check_red` (which also runs
//! `check_red_curve`) drives the state machine through the decoded operations
//! and checks the average, p_b, the buffer and ECN after every step.
#![no_main]

use aqm_red::invariants::check_red;
use aqm_red::{QueueSettings, RedConfig, RedProfile};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::aqm::{self, TxTicks, Units};
use netcond_fuzz::Frac;

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
    let Ok(p) = RedProfile::new(&cfg) else {
        return;
    };
    let ops = aqm::ops(&input.ops);
    if let Err(e) = check_red(&p, &ops, input.seed) {
        panic!("red: {e} (config {cfg:?})");
    }
});

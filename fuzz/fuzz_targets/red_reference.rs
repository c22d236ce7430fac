//! RED's fixed-point average and p_b against FJ93's formulas in `f64`
//! (`aqm_red::reference`, the `reference` feature). Any valid configuration
//! (an invalid one must be refused, never panic), then arrivals to empty and
//! nonempty queues, queue-empty events and backward steps, with timestamps
//! kept below 2^63 (the model compares plain tick counts).
//!
//! Error bounds, derived in `aqm_red::reference::RefRedAvg`:
//!
//! - the average: within the bound the model tracks step by step. With `u =
//!   2^-F` the average's resolution, an arrival to a nonempty queue adds less
//!   than `u` (the EWMA rounds away from zero) to the earlier distance shrunk
//!   by `1 - w_q` (so arrivals alone stay within `u / w_q`, the crate's own
//!   differential bound); an idle decay by `f = (1 - w_q)^(dt/s)` adds half a
//!   unit (rounding to nearest) and a relative 2^-40 (the decay table and its
//!   products) to the earlier distance shrunk by `f`; plus the `f64` model's
//!   own rounding (2^-51 of the limit per arrival, 2^-50 of the average per
//!   decay).
//! - p_b at the fixed-point average: at most the exact value and at most
//!   2^-31 below it (two 2^-32 units of the curve's slope rounding, module
//!   `fx`, `Segment`), with 2^-50 for the `f64` evaluation.
#![no_main]

use aqm_red::reference::{p_b as ref_p_b, RefRedAvg};
use aqm_red::{Ecn, Packet, QueueSettings, Red, RedConfig, RedProfile};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_core::{Instant, SplitMix64};
use netcond_fuzz::aqm::{self, TxTicks, Units};
use netcond_fuzz::{bounded, Frac, Len, Step};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    /// A packet arrives to a queue of `queue` (0: an empty queue, idle decay).
    Arrive {
        step: Step,
        queue: Units,
        len: Len,
        ecn: u8,
    },
    /// A packet arrives to an empty queue.
    ArriveEmpty { step: Step, len: Len },
    /// The queue becomes empty.
    Empty(Step),
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
    start: u64,
    seed: u64,
    ops: Vec<Op>,
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
    let (min_th, max_th) = (f64::from(cfg.min_th), f64::from(cfg.max_th));
    let max_p = p.max_p().to_num::<f64>();
    let mut red = Red::new(&p, Instant::ZERO);
    let mut model = RefRedAvg::new(&p, &cfg);
    let mut rng = SplitMix64::new(input.seed);
    let mut now = input.start >> 1;
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        match *op {
            Op::Arrive {
                step,
                queue,
                len,
                ecn,
            } => {
                now = step.bounded(now);
                let q = queue.get();
                let pkt = Packet::new(len.get(), Ecn::from_bits(ecn));
                let _ = red.on_arrival(&p, Instant::from_ticks(now), q, pkt, &mut rng);
                model.arrive(now, q);
            }
            Op::ArriveEmpty { step, len } => {
                now = step.bounded(now);
                let pkt = Packet::not_ect(len.get());
                let _ = red.on_arrival(&p, Instant::from_ticks(now), 0, pkt, &mut rng);
                model.arrive(now, 0);
            }
            Op::Empty(step) => {
                now = step.bounded(now);
                red.on_queue_empty(&p, Instant::from_ticks(now));
                model.queue_empty(now);
            }
        }
        let avg = red.avg(&p);
        let got = avg.to_num::<f64>();
        assert!(
            model.matches(got),
            "red_reference: op {i} at {now}: fixed-point average {got} vs reference {} \
             (bound {}, config {cfg:?})",
            model.avg.avg,
            model.bound
        );
        let pb = p.p_b(avg).to_num::<f64>();
        let want = ref_p_b(got, min_th, max_th, max_p, cfg.queue.gentle);
        let slack = 2f64.powi(-50);
        assert!(
            pb <= want + slack && pb >= want - 2f64.powi(-31) - slack,
            "red_reference: op {i} at {now}: p_b {pb} at average {got}, reference {want} \
             (config {cfg:?})"
        );
    }
});

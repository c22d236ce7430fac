//! RFC 5670 threshold meter (section 2.3, appendix A.1):
//! `pcn_meter::invariants::meter_step` and `not_pcn_is_not_metered` at every
//! packet, and the exact reference model
//! `pcn_meter::reference::RefThresholdMeter` when timestamps stay below 2^63.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{pcn, Burst, RateSel, TickSel};
use pcn_meter::reference::RefThresholdMeter;
use pcn_meter::{ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile};

#[derive(Arbitrary, Debug)]
struct Input {
    rate: RateSel,
    bs_tm: Burst,
    threshold: Burst,
    tick: TickSel,
    wild: bool,
    start: u64,
    ops: Vec<pcn::Op>,
}

fuzz_target!(|input: Input| {
    let c = ThresholdMeterConfig::new(input.rate.get(), input.bs_tm.get(), input.threshold.get())
        .with_tick(input.tick.get());
    let Ok(p) = ThresholdMeterProfile::new(&c) else {
        return;
    };
    pcn::run::<ThresholdMeter, _>(
        "pcn_threshold_meter",
        &p,
        p.units_per_byte(),
        input.start,
        input.wild,
        &input.ops,
        |t| RefThresholdMeter::new(c, t),
    );
});

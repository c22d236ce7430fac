//! RFC 5670 excess-traffic meter (section 2.4, appendix A.2), size-independent
//! and classic with both tie rules: `pcn_meter::invariants::meter_step` and
//! `not_pcn_is_not_metered` at every packet, and the exact reference model
//! `pcn_meter::reference::RefExcessTrafficMeter` when timestamps stay below
//! 2^63.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{pcn, Burst, RateSel, TickSel};
use pcn_meter::reference::RefExcessTrafficMeter;
use pcn_meter::{
    ClassicTie, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile,
};

#[derive(Arbitrary, Debug)]
enum Mode {
    SizeIndependent,
    Section2_4,
    AppendixB6,
}

#[derive(Arbitrary, Debug)]
struct Input {
    rate: RateSel,
    bs_etm: Burst,
    mode: Mode,
    tick: TickSel,
    wild: bool,
    start: u64,
    ops: Vec<pcn::Op>,
}

fuzz_target!(|input: Input| {
    let c = ExcessTrafficMeterConfig::new(input.rate.get(), input.bs_etm.get())
        .with_mode(match input.mode {
            Mode::SizeIndependent => ExcessMode::SizeIndependent,
            Mode::Section2_4 => ExcessMode::Classic(ClassicTie::Section2_4),
            Mode::AppendixB6 => ExcessMode::Classic(ClassicTie::AppendixB6),
        })
        .with_tick(input.tick.get());
    let Ok(p) = ExcessTrafficMeterProfile::new(&c) else {
        return;
    };
    pcn::run::<ExcessTrafficMeter, _>(
        "pcn_excess_meter",
        &p,
        p.units_per_byte(),
        input.start,
        input.wild,
        &input.ops,
        |t| RefExcessTrafficMeter::new(c, t),
    );
});

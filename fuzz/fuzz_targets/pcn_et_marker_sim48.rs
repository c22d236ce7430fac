//! The ET-marker as simulated in draft-babiarz-pcn-explicit-marking-01 section 4.8
//! (Figure 9; the bucket may go negative): `pcn_meter::invariants::meter_step` and
//! `not_pcn_is_not_metered` at every packet, and the exact reference model
//! `pcn_meter::reference::RefEtMarkerSim48` when timestamps stay below 2^63.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{pcn, Burst, RateSel, TickSel};
use pcn_meter::reference::RefEtMarkerSim48;
use pcn_meter::{EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile};

#[derive(Arbitrary, Debug)]
struct Input {
    pcn_pt: RateSel,
    pcn_tb: Burst,
    pcn_px: Burst,
    tick: TickSel,
    wild: bool,
    start: u64,
    ops: Vec<pcn::Op>,
}

fuzz_target!(|input: Input| {
    let c = EtMarkerSim48Config::new(input.pcn_pt.get(), input.pcn_tb.get(), input.pcn_px.get())
        .with_tick(input.tick.get());
    let Ok(p) = EtMarkerSim48Profile::new(&c) else {
        return;
    };
    pcn::run::<EtMarkerSim48, _>(
        "pcn_et_marker_sim48",
        &p,
        p.units_per_byte(),
        input.start,
        input.wild,
        &input.ops,
        |t| RefEtMarkerSim48::new(c, t),
    );
});

//! 3sM AS-marker, both forms (draft-babiarz-pcn-explicit-marking-01 section 1.2
//! and 3sm-01 section 3.2.2):
//! `pcn_meter::invariants::meter_step` and `not_pcn_is_not_metered` at every
//! packet, and the exact reference model `pcn_meter::reference::RefAsMarker`
//! when timestamps stay below 2^63.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{pcn, Burst, RateSel, TickSel};
use pcn_meter::reference::RefAsMarker;
use pcn_meter::{AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile};

#[derive(Arbitrary, Debug)]
struct Input {
    ar: RateSel,
    bucket: Burst,
    threshold: Burst,
    draft: bool,
    tick: TickSel,
    wild: bool,
    start: u64,
    ops: Vec<pcn::Op>,
}

fuzz_target!(|input: Input| {
    let c = AsMarkerConfig::draft_3sm01(input.ar.get(), input.bucket.get(), input.threshold.get())
        .with_form(if input.draft {
            AsForm::Draft3sm01
        } else {
            AsForm::DraftExplicitMarking01
        })
        .with_tick(input.tick.get());
    let Ok(p) = AsMarkerProfile::new(&c) else {
        return;
    };
    pcn::run::<AsMarker, _>(
        "pcn_as_marker",
        &p,
        p.units_per_byte(),
        input.start,
        input.wild,
        &input.ops,
        |t| RefAsMarker::new(c, t),
    );
});

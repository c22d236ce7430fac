//! 3sM ET-marker (draft-babiarz-pcn-explicit-marking-01 section 1.2; 3sm-01 section
//! 3.1.2 and appendix A.1.5), tail or size-independent marking, with or without "an arriving ET
//! packet adds s": `pcn_meter::invariants::meter_step` and
//! `not_pcn_is_not_metered` at every packet, and the exact reference model
//! `pcn_meter::reference::RefEtMarker` (marking and fill) when timestamps stay
//! below 2^63.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_fuzz::{pcn, Burst, RateSel, TickSel};
use pcn_meter::reference::RefEtMarker;
use pcn_meter::{EtMarker, EtMarkerConfig, EtMarkerProfile, EtMarking};

#[derive(Arbitrary, Debug)]
struct Input {
    sr: RateSel,
    bucket: Burst,
    s: Burst,
    already_et_adds_s: bool,
    /// `None`: tail marking; `Some(mtu)`: size independent.
    mtu: Option<u16>,
    tick: TickSel,
    wild: bool,
    start: u64,
    ops: Vec<pcn::Op>,
}

fuzz_target!(|input: Input| {
    let c = EtMarkerConfig::draft_3sm01(input.sr.get(), input.bucket.get(), input.s.get())
        .with_already_et_adds_s(input.already_et_adds_s)
        .with_marking(match input.mtu {
            None => EtMarking::TailMarking,
            Some(mtu) => EtMarking::SizeIndependent {
                mtu: u32::from(mtu),
            },
        })
        .with_tick(input.tick.get());
    let Ok(p) = EtMarkerProfile::new(&c) else {
        return;
    };
    pcn::run::<EtMarker, _>(
        "pcn_et_marker",
        &p,
        p.units_per_byte(),
        input.start,
        input.wild,
        &input.ops,
        |t| RefEtMarker::new(c, t),
    );
});

//! RFC 2698 trTCM: invariants of `trtcm::invariants::trtcm_step` at every
//! packet (including the debit rule: red takes nothing, yellow takes from P,
//! green from both), and the exact reference model `trtcm::reference::TrTcmRef`
//! (colors, both buckets and the last-update time, after every packet), and
//! the 16-byte `Compact` state against the 24-byte one where the profile fits.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::compact::Shadow;
use netcond_fuzz::{bounded, Burst, ColorIn, Len, RateSel, Step, TickSel};
use trtcm::invariants::trtcm_step;
use trtcm::reference::{to_reference_units, TrTcmRef};
use trtcm::{TrTcm, TrTcmConfig, TrTcmProfile};

#[derive(Arbitrary, Debug)]
struct Op {
    step: Step,
    len: Len,
    color: ColorIn,
}

#[derive(Arbitrary, Debug)]
struct Input {
    cir: RateSel,
    pir: RateSel,
    cbs: Burst,
    pbs: Burst,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let cfg = TrTcmConfig::new(
        input.cir.get(),
        input.pir.get(),
        input.cbs.get(),
        input.pbs.get(),
    )
    .with_tick(input.tick.get());
    let Ok(p) = TrTcmProfile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let mut s = TrTcm::new(&p, Instant::from_ticks(now));
    // The 16-byte state, where the profile allows it, must track `s` exactly.
    let mut s16 = Shadow::<TrTcm>::new(p, Instant::from_ticks(now));
    let mut r = TrTcmRef::new(&cfg, now);
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        now = op.step.wild(now);
        let (t, len, c) = (Instant::from_ticks(now), op.len.get(), op.color.get());
        let got = match trtcm_step(&p, &mut s, t, len, c) {
            Ok(got) => got,
            Err(v) => panic!("trtcm: packet {i} at {now} len {len} {c:?}: {v}"),
        };
        if let Some(s16) = &mut s16 {
            s16.check("trtcm", i, (t, len, c), got, &s);
        }
        let want = match c {
            None => r.color_blind(now, len),
            Some(c) => r.color_aware(now, len, c),
        };
        let tc = to_reference_units(p.committed(), s.tc(), cfg.tick);
        let tp = to_reference_units(p.peak(), s.tp(), cfg.tick);
        assert!(
            got == want && tc == r.tc && tp == r.tp && s.last().ticks() == r.last,
            "trtcm: packet {i} at {now} len {len} {c:?}: fast {got} (Tc {tc}, Tp {tp}, last {}), \
             reference {want} (Tc {}, Tp {}, last {})",
            s.last().ticks(),
            r.tc,
            r.tp,
            r.last
        );
    }
});

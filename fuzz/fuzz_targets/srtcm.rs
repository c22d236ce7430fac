//! RFC 2697 srTCM: invariants of `trtcm::invariants::srtcm_step` at every
//! packet, and the exact reference model `trtcm::reference::SrTcmRef`
//! (colors, both buckets and the last-update time, after every packet), and
//! the 16-byte `Compact` state against the 24-byte one where the profile fits.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::compact::Shadow;
use netcond_fuzz::{bounded, Burst, ColorIn, Len, RateSel, Step, TickSel};
use trtcm::invariants::srtcm_step;
use trtcm::reference::{to_reference_units, SrTcmRef};
use trtcm::{SrTcm, SrTcmConfig, SrTcmProfile};

#[derive(Arbitrary, Debug)]
struct Op {
    step: Step,
    len: Len,
    color: ColorIn,
}

#[derive(Arbitrary, Debug)]
struct Input {
    cir: RateSel,
    cbs: Burst,
    ebs: Burst,
    tick: TickSel,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let cfg = SrTcmConfig::new(input.cir.get(), input.cbs.get(), input.ebs.get())
        .with_tick(input.tick.get());
    let Ok(p) = SrTcmProfile::new(&cfg) else {
        return;
    };
    let mut now = input.start;
    let mut s = SrTcm::new(&p, Instant::from_ticks(now));
    // The 16-byte state, where the profile allows it, must track `s` exactly.
    let mut s16 = Shadow::<SrTcm>::new(p, Instant::from_ticks(now));
    let mut r = SrTcmRef::new(&cfg, now);
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        now = op.step.wild(now);
        let (t, len, c) = (Instant::from_ticks(now), op.len.get(), op.color.get());
        let got = match srtcm_step(&p, &mut s, t, len, c) {
            Ok(got) => got,
            Err(v) => panic!("srtcm: packet {i} at {now} len {len} {c:?}: {v}"),
        };
        if let Some(s16) = &mut s16 {
            s16.check("srtcm", i, (t, len, c), got, &s);
        }
        let want = match c {
            None => r.color_blind(now, len),
            Some(c) => r.color_aware(now, len, c),
        };
        let tc = to_reference_units(p.committed(), s.tc(), cfg.tick);
        let te = to_reference_units(p.excess(), s.te(), cfg.tick);
        assert!(
            got == want && tc == r.tc && te == r.te && s.last().ticks() == r.last,
            "srtcm: packet {i} at {now} len {len} {c:?}: fast {got} (Tc {tc}, Te {te}, last {}), \
             reference {want} (Tc {}, Te {}, last {})",
            s.last().ticks(),
            r.tc,
            r.te,
            r.last
        );
    }
});

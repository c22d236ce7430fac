//! RFC 4115 trTCM, with both tie rules (figure 1 and the text): invariants of
//! `trtcm::invariants::rfc4115_step` at every packet, and the exact reference
//! model `trtcm::reference::Rfc4115Ref` (colors, both buckets and the
//! last-update time, after every packet), and the 16-byte `Compact` state
//! against the 24-byte one where the profile fits.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use netcond_core::Instant;
use netcond_fuzz::compact::Shadow;
use netcond_fuzz::{bounded, Burst, ColorIn, Len, RateSel, Step, TickSel};
use trtcm::invariants::rfc4115_step;
use trtcm::reference::{to_reference_units, Rfc4115Ref};
use trtcm::{Rfc4115, Rfc4115Config, Rfc4115Profile, Rfc4115Ties};

#[derive(Arbitrary, Debug)]
struct Op {
    step: Step,
    len: Len,
    color: ColorIn,
}

#[derive(Arbitrary, Debug)]
struct Input {
    cir: RateSel,
    eir: RateSel,
    cbs: Burst,
    ebs: Burst,
    tick: TickSel,
    text_ties: bool,
    start: u64,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let cfg = Rfc4115Config::new(
        input.cir.get(),
        input.eir.get(),
        input.cbs.get(),
        input.ebs.get(),
    )
    .with_tick(input.tick.get());
    let ties = if input.text_ties {
        Rfc4115Ties::Text
    } else {
        Rfc4115Ties::Figure1
    };
    let Ok(p) = Rfc4115Profile::with_ties(&cfg, ties) else {
        return;
    };
    let mut now = input.start;
    let mut s = Rfc4115::new(&p, Instant::from_ticks(now));
    // The 16-byte state, where the profile allows it, must track `s` exactly.
    let mut s16 = Shadow::<Rfc4115>::new(p, Instant::from_ticks(now));
    let mut r = Rfc4115Ref::new(&cfg, ties, now);
    for (i, op) in bounded(&input.ops).iter().enumerate() {
        now = op.step.wild(now);
        let (t, len, c) = (Instant::from_ticks(now), op.len.get(), op.color.get());
        let got = match rfc4115_step(&p, &mut s, t, len, c) {
            Ok(got) => got,
            Err(v) => panic!("rfc4115: packet {i} at {now} len {len} {c:?}: {v}"),
        };
        if let Some(s16) = &mut s16 {
            s16.check("rfc4115", i, (t, len, c), got, &s);
        }
        let want = match c {
            None => r.color_blind(now, len),
            Some(c) => r.color_aware(now, len, c),
        };
        let tc = to_reference_units(p.committed(), s.tc(), cfg.tick);
        let te = to_reference_units(p.excess(), s.te(), cfg.tick);
        assert!(
            got == want && tc == r.tc && te == r.te && s.last().ticks() == r.last,
            "rfc4115: packet {i} at {now} len {len} {c:?} {ties:?}: fast {got} (Tc {tc}, Te {te}, \
             last {}), reference {want} (Tc {}, Te {}, last {})",
            s.last().ticks(),
            r.tc,
            r.te,
            r.last
        );
    }
});

//! The fuzz targets' invariants on the real code, in the runs that catch the
//! mutants cargo-mutants makes of F, the shaping rate's cap at MIR and the
//! green shapers' T2 (docs/verification.md, "Mutation testing with
//! cargo-mutants"): no invariant fails on the unbroken code.

use super::*;

/// `rate_bounds` (as the fuzz targets call it) along a burst much faster than
/// MIR through a plain shaper of `p`: true if it fails.
fn rate_bounds_fail(p: &RasProfile) -> bool {
    let mut s: Ras<u32, 64> = Ras::new(p, Instant::ZERO);
    (0..2_000u64).any(|i| {
        let _ = s.enqueue(p, t(i * 10), 1500);
        while let Some(r) = s.next_release() {
            if r.ticks() > i * 10 {
                break;
            }
            let _ = s.dequeue(p, r);
        }
        [0, s.bytes(), p.buffer_bytes()]
            .iter()
            .any(|&occ| invariants::rate_bounds(p, s.ear(), occ).is_err())
    })
}

/// A green shaper's run with its invariants (`green_at_t2`, `mir_spacing`,
/// `shaper_consistent`, as the fuzz targets check them) on on/off traffic:
/// true if one fails.
fn green_fails<M: crate::GreenMeter>(p: &RasProfile, mp: &M::Profile) -> bool {
    (0..3u64).any(|seed| {
        let trace = onoff_trace(seed, 3_000, 20_000_000, 40);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_green::<M, 256>(p, mp, &trace);
        }))
        .is_err()
    })
}

fn ras_caught(id: u32) -> bool {
    match id {
        1 => rate_bounds_fail(&sr_profile()),
        2 => rate_bounds_fail(&tr_profile()),
        3 => green_fails::<SrTcm>(&sr_profile(), &srtcm_profile(3000)),
        4 => green_fails::<TrTcm>(&tr_profile(), &trtcm_profile(3000)),
        _ => false,
    }
}

/// No detector fires on the real code.
#[test]
#[cfg_attr(miri, ignore = "thousands of packets per detector")]
fn detectors_pass_on_the_real_code() {
    for id in 1..=4 {
        assert!(!ras_caught(id), "detector {id} fires on the unbroken code");
    }
}

//! Facts from the sources: ET marking is proportional to the excess.

use super::*;

#[test]
fn et_s0_marks_exactly_the_excess_beyond_the_bucket() {
    let c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_mbps(SR_40M), 50_000, 0);
    let p = EtMarkerProfile::new(&c).unwrap();
    let mut m = EtMarker::new(&p, ns(0));
    let (arrived, marked, _, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
    // SR x T in bytes: 5,000,000 B/s over t ns.
    let sr_t = 5_000_000u128 * u128::from(t) / 1_000_000_000;
    let expect = u128::from(arrived) - 50_000 - sr_t;
    assert!(
        u128::from(marked) >= expect && u128::from(marked) < expect + u128::from(G711),
        "marked {marked}, arrived {arrived}, SR*T {sr_t}"
    );
    // And exactly: unmarked bytes = TB.size + SR x T - final fill, in units.
    let scale = u128::from(p.units_per_byte());
    let unmarked = u128::from(arrived - marked);
    assert_eq!(
        unmarked * scale * 8_000_000_000,
        50_000 * scale * 8_000_000_000 + 40_000_000 * u128::from(t) * scale
            - u128::from(m.fill_units()) * 8_000_000_000
    );
}

#[test]
fn et_s0_random_sizes_within_bucket_and_one_mtu() {
    let (seeds, n) = if cfg!(miri) { (2, 1_000) } else { (20, 50_000) };
    for seed in 0..seeds {
        let c = EtMarkerConfig::draft_3sm01(Rate::from_mbps(SR_40M), 50_000, 0);
        let p = EtMarkerProfile::new(&c).unwrap();
        let mut m = EtMarker::new(&p, ns(0));
        let mut r = SplitMix64::new(seed);
        let (mut t, mut arrived, mut marked) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            let len = match r.below(8) {
                0..=3 => 64,
                4..=6 => 576,
                _ => 1500,
            };
            arrived += u64::from(len);
            if m.mark(&p, ns(t), len, PcnMark::Nm) == PcnMark::Etm {
                marked += u64::from(len);
            }
            // Mean 470 B every 47 us: 2 x SR.
            t += 47_000;
        }
        t -= 47_000;
        let sr_t = 5_000_000 * u128::from(t) / 1_000_000_000;
        let excess = u128::from(arrived) - sr_t;
        let marked = u128::from(marked);
        assert!(
            marked + 50_000 >= excess,
            "seed {seed}: marked {marked} excess {excess}"
        );
        assert!(
            marked <= excess + 1500,
            "seed {seed}: marked {marked} excess {excess}"
        );
    }
}

#[test]
fn et_s_marks_once_per_s_plus_packet_of_excess() {
    for s in [1064u64, 2064, 4064] {
        let c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_mbps(SR_40M), 50_000, s);
        let p = EtMarkerProfile::new(&c).unwrap();
        let mut m = EtMarker::new(&p, ns(0));
        let (arrived, marked, marks, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
        let l = u128::from(G711);
        // Token conservation, exactly: in = size + SR T + marks s, out = unmarked.
        let scale = u128::from(p.units_per_byte());
        let hz8 = 8_000_000_000u128;
        let lhs = u128::from(arrived - marked) * scale * hz8 + u128::from(m.fill_units()) * hz8;
        let rhs = (50_000 + u128::from(marks) * u128::from(s)) * scale * hz8
            + 40_000_000 * u128::from(t) * scale;
        assert_eq!(lhs, rhs, "s = {s}");
        // Hence marks (s + size) = excess - size_TB + final fill, final fill < s + size.
        let excess = u128::from(arrived) - 5_000_000 * u128::from(t) / 1_000_000_000;
        let got = u128::from(marks) * (u128::from(s) + l);
        assert!(got + 50_000 + 1 >= excess, "s = {s}: {got} vs {excess}");
        assert!(
            got + 50_000 < excess + u128::from(s) + l + 1,
            "s = {s}: {got} vs {excess}"
        );
    }
}

#[test]
fn et_size_independent_proportional_reduction_is_exact() {
    // s * size / MTU with s = 1064, MTU = 1500: 141.866.. bytes per 200-byte mark.
    let c =
        EtMarkerConfig::draft_3sm01_size_independent(Rate::from_mbps(SR_40M), 50_000, 1064, 1500);
    let p = EtMarkerProfile::new(&c).unwrap();
    let mut m = EtMarker::new(&p, ns(0));
    let (arrived, marked, marks, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
    assert!(marks > if cfg!(miri) { 100 } else { 1000 });
    // Conservation in bytes x 1500: out x 1500 = (size + SR T) x 1500 + marks x s x 200 - fill.
    let scale = u128::from(p.units_per_byte());
    let hz8 = 8_000_000_000u128;
    let lhs =
        u128::from(arrived - marked) * 1500 * scale * hz8 + u128::from(m.fill_units()) * 1500 * hz8;
    let rhs = (50_000 * 1500 + u128::from(marks) * 1064 * 200) * scale * hz8
        + 40_000_000 * u128::from(t) * 1500 * scale;
    assert_eq!(lhs, rhs);
    // A packet is marked iff fill < MTU: small and large packets alike.
    let mut m = EtMarker::new(&p, ns(0));
    let mut small = 0;
    let mut large = 0;
    let mut r = SplitMix64::new(77);
    let (mut n_small, mut n_large) = (0u64, 0u64);
    let n = if cfg!(miri) { 2_000 } else { 200_000u64 };
    for i in 0..n {
        let len = if r.below(2) == 0 { 100 } else { 1400 };
        if len == 100 {
            n_small += 1;
        } else {
            n_large += 1;
        }
        if m.mark(&p, ns(i * 75_000), len, PcnMark::Nm) == PcnMark::Etm {
            if len == 100 {
                small += 1;
            } else {
                large += 1;
            }
        }
    }
    // The same fraction of each size class is marked, within 10 % (tail marking
    // marks the 1400-byte packets far more often: checked below).
    let min = if cfg!(miri) { 100 } else { 1000 };
    assert!(small > min && large > min, "{small} {large}");
    let (fs, fl) = (small * n_large, large * n_small);
    assert!(
        fs * 100 > fl * 90 && fl * 100 > fs * 90,
        "{small}/{n_small} vs {large}/{n_large}"
    );
    let pt = EtMarkerProfile::new(&EtMarkerConfig::draft_3sm01(
        Rate::from_mbps(SR_40M),
        50_000,
        1064,
    ))
    .unwrap();
    let mut m = EtMarker::new(&pt, ns(0));
    let mut r = SplitMix64::new(77);
    let (mut ts, mut tl) = (0u64, 0u64);
    for i in 0..n {
        let len = if r.below(2) == 0 { 100 } else { 1400 };
        if m.mark(&pt, ns(i * 75_000), len, PcnMark::Nm) == PcnMark::Etm {
            if len == 100 {
                ts += 1;
            } else {
                tl += 1;
            }
        }
    }
    assert!(
        tl * n_small > 2 * ts * n_large,
        "tail marking: {ts} small, {tl} large"
    );
}

#[test]
fn et_already_et_option() {
    let mk = |adds| {
        let mut c = EtMarkerConfig::draft_explicit_marking_01(Rate::from_mbps(1), 10_000, 1000);
        c.already_et_adds_s = adds;
        EtMarkerProfile::new(&c).unwrap()
    };
    for adds in [false, true] {
        let p = mk(adds);
        let mut m = EtMarker::new(&p, ns(0));
        // Drain the bucket at one instant.
        for _ in 0..50 {
            m.mark(&p, ns(0), 200, PcnMark::Nm);
        }
        let before = m.fill_units();
        assert_eq!(m.mark(&p, ns(0), 200, PcnMark::Etm), PcnMark::Etm);
        let gain = m.fill_units() - before;
        assert_eq!(gain, if adds { 1000 * p.units_per_byte() } else { 0 });
    }
}

#[test]
fn sim48_marks_once_per_px_of_excess() {
    for px in [2064u64, 4064, 8064] {
        let c = EtMarkerSim48Config {
            pcn_pt: Rate::from_mbps(SR_40M),
            pcn_tb: 50_000,
            pcn_px: px,
            tick: TickRate::NANOS,
        };
        let p = EtMarkerSim48Profile::new(&c).unwrap();
        let mut m = EtMarkerSim48::new(&p, ns(0));
        let (arrived, _, marks, t) = run_cbr(&p, &mut m, CBR_PACKETS, G711, GAP_2X);
        // tokens = tb + SR T - arrived + marks px (every packet is taken).
        let scale = i128::from(p.units_per_byte() as i64);
        let hz8 = 8_000_000_000i128;
        assert_eq!(
            m.tokens_units() * hz8,
            (50_000 - arrived as i128 + marks as i128 * px as i128) * scale * hz8
                + 40_000_000 * t as i128 * scale
        );
        assert!(m.tokens_units() > -(i128::from(G711) * i128::from(p.units_per_byte())));
    }
}

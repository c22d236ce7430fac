//! Differential tests: each fast marker against its exact reference model over
//! random streams (random configurations, lengths from 0 to `u32::MAX`, time steps
//! including zero, huge jumps and backward steps, random input colors), with every
//! invariant of `trtcm::invariants` checked at each packet.

use netcond_core::{Color, Instant, RandomSource, Rate, SplitMix64, TickRate};
use proptest::prelude::*;
use trtcm::invariants::{policer_step, rfc4115_step, srtcm_step, trtcm_step};
use trtcm::reference::{to_reference_units, PremiumPolicerRef, Rfc4115Ref, SrTcmRef, TrTcmRef};
use trtcm::{
    PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115, Rfc4115Config,
    Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};

/// One packet of a random stream: time step (wrapping; >= 2^63 steps backwards),
/// length, and input color (`None`: color-blind).
#[derive(Clone, Copy, Debug)]
struct Op {
    dt: u64,
    len: u32,
    input: Option<Color>,
}

fn tick_from(r: &mut SplitMix64) -> TickRate {
    let hz = match r.below(6) {
        0 => 1,
        1 => 1000,
        2 => 1_000_000,
        3 => 1_000_000_000,
        4 => 2_300_000_000,
        _ => 1 + (r.next_u64() >> 30),
    };
    TickRate::from_hz(hz).unwrap()
}

fn rate_from(r: &mut SplitMix64) -> Rate {
    Rate::from_bits_per_sec(match r.below(5) {
        0 => 1 + u64::from(r.below(1000)),
        1 => 8 * (1 + u64::from(r.next_u32())),
        2 => 368_000_000,
        3 => 1 + (r.next_u64() >> 24),
        _ => 1 + (r.next_u64() >> 1),
    })
}

fn burst_from(r: &mut SplitMix64) -> u64 {
    match r.below(5) {
        0 => 0,
        1 => 1 + u64::from(r.below(100)),
        2 => 1500 + u64::from(r.below(10_000)),
        3 => u64::from(r.next_u32()),
        _ => 2048,
    }
}

fn op_from(r: &mut SplitMix64) -> Op {
    let dt = match r.below(10) {
        0 => 0,
        1 => u64::MAX - u64::from(r.below(1_000_000)), // a small step backwards
        2 => r.next_u64(),                             // anything, half of it backwards
        3 => u64::from(r.next_u32()),
        4 => 1u64 << 62,
        _ => u64::from(r.below(100_000)),
    };
    let len = match r.below(10) {
        0 => 0,
        1 => u32::MAX,
        2 => r.next_u32(),
        3 => 2047 + r.below(3),
        4 => 4095 + r.below(3),
        _ => 1 + r.below(1600),
    };
    let input = match r.below(4) {
        0 => None,
        c => Some(Color::from_index(c as usize - 1)),
    };
    Op { dt, len, input }
}

fn run_srtcm(cfg: &SrTcmConfig, start: u64, ops: &[Op]) -> Result<(), String> {
    let Ok(p) = SrTcmProfile::new(cfg) else {
        return Ok(());
    };
    let mut now = Instant::from_ticks(start);
    let mut s = SrTcm::new(&p, now);
    let mut r = SrTcmRef::new(cfg, start);
    for (i, op) in ops.iter().enumerate() {
        now = now.wrapping_add(op.dt);
        let got = srtcm_step(&p, &mut s, now, op.len, op.input)
            .map_err(|v| format!("packet {i} {op:?}: {v}"))?;
        let want = match op.input {
            None => r.color_blind(now.ticks(), op.len),
            Some(c) => r.color_aware(now.ticks(), op.len, c),
        };
        let tc = to_reference_units(p.committed(), s.tc(), cfg.tick);
        let te = to_reference_units(p.excess(), s.te(), cfg.tick);
        if got != want || tc != r.tc || te != r.te || s.last().ticks() != r.last {
            return Err(format!(
                "packet {i} {op:?}: fast {got} ({tc}, {te}), reference {want} ({}, {})",
                r.tc, r.te
            ));
        }
    }
    Ok(())
}

fn run_trtcm(cfg: &TrTcmConfig, start: u64, ops: &[Op]) -> Result<(), String> {
    let Ok(p) = TrTcmProfile::new(cfg) else {
        return Ok(());
    };
    let mut now = Instant::from_ticks(start);
    let mut s = TrTcm::new(&p, now);
    let mut r = TrTcmRef::new(cfg, start);
    for (i, op) in ops.iter().enumerate() {
        now = now.wrapping_add(op.dt);
        let got = trtcm_step(&p, &mut s, now, op.len, op.input)
            .map_err(|v| format!("packet {i} {op:?}: {v}"))?;
        let want = match op.input {
            None => r.color_blind(now.ticks(), op.len),
            Some(c) => r.color_aware(now.ticks(), op.len, c),
        };
        let tc = to_reference_units(p.committed(), s.tc(), cfg.tick);
        let tp = to_reference_units(p.peak(), s.tp(), cfg.tick);
        if got != want || tc != r.tc || tp != r.tp || s.last().ticks() != r.last {
            return Err(format!(
                "packet {i} {op:?}: fast {got} ({tc}, {tp}), reference {want} ({}, {})",
                r.tc, r.tp
            ));
        }
    }
    Ok(())
}

fn run_rfc4115(
    cfg: &Rfc4115Config,
    ties: Rfc4115Ties,
    start: u64,
    ops: &[Op],
) -> Result<(), String> {
    let Ok(p) = Rfc4115Profile::with_ties(cfg, ties) else {
        return Ok(());
    };
    let mut now = Instant::from_ticks(start);
    let mut s = Rfc4115::new(&p, now);
    let mut r = Rfc4115Ref::new(cfg, ties, start);
    for (i, op) in ops.iter().enumerate() {
        now = now.wrapping_add(op.dt);
        let got = rfc4115_step(&p, &mut s, now, op.len, op.input)
            .map_err(|v| format!("packet {i} {op:?}: {v}"))?;
        let want = match op.input {
            None => r.color_blind(now.ticks(), op.len),
            Some(c) => r.color_aware(now.ticks(), op.len, c),
        };
        let tc = to_reference_units(p.committed(), s.tc(), cfg.tick);
        let te = to_reference_units(p.excess(), s.te(), cfg.tick);
        if got != want || tc != r.tc || te != r.te || s.last().ticks() != r.last {
            return Err(format!(
                "packet {i} {op:?}: fast {got} ({tc}, {te}), reference {want} ({}, {})",
                r.tc, r.te
            ));
        }
    }
    Ok(())
}

/// For the policer, an `input` of `Some(Red)` means "a departure of `len % 4096`
/// bytes" instead of an arrival.
fn run_policer(cfg: &PremiumPolicerConfig, start: u64, ops: &[Op]) -> Result<(), String> {
    let Ok(p) = PremiumPolicerProfile::new(cfg) else {
        return Ok(());
    };
    let mut now = Instant::from_ticks(start);
    let mut s = PremiumPolicer::new(&p, now);
    let mut r = PremiumPolicerRef::new(cfg, start);
    for (i, op) in ops.iter().enumerate() {
        now = now.wrapping_add(op.dt);
        if op.input == Some(Color::Red) {
            s.dequeued(op.len % 4096);
            r.dequeued(op.len % 4096);
        } else {
            let got = policer_step(&p, &mut s, now, op.len)
                .map_err(|v| format!("packet {i} {op:?}: {v}"))?;
            let want = r.offer(now.ticks(), op.len);
            if got.index() != want {
                return Err(format!("packet {i} {op:?}: fast {got:?}, reference {want}"));
            }
        }
        let tokens = to_reference_units(p.committed(), s.tokens(), cfg.tick);
        if tokens != r.tokens || u128::from(s.backlog()) != r.backlog {
            return Err(format!(
                "packet {i} {op:?}: fast ({tokens}, {}), reference ({}, {})",
                s.backlog(),
                r.tokens,
                r.backlog
            ));
        }
    }
    Ok(())
}

/// Many random configurations, 20,000 packets each, all four markers: zero
/// mismatches expected.
#[test]
fn random_streams_match_the_reference() {
    let mut r = SplitMix64::new(0x5eed_2697);
    let mut configs = [0usize; 4];
    for round in 0..120 {
        let tick = tick_from(&mut r);
        let start = if round % 7 == 0 {
            u64::MAX - 1000
        } else {
            r.next_u64()
        };
        let ops: Vec<Op> = (0..20_000).map(|_| op_from(&mut r)).collect();
        let (cir, x) = (rate_from(&mut r), rate_from(&mut r));
        let (b1, b2) = (burst_from(&mut r), burst_from(&mut r));

        let sr = SrTcmConfig::new(cir, b1, b2).with_tick(tick);
        configs[0] += usize::from(SrTcmProfile::new(&sr).is_ok());
        run_srtcm(&sr, start, &ops).unwrap();

        let pir = Rate::from_bits_per_sec(cir.bits_per_sec().saturating_add(x.bits_per_sec() / 3));
        let tr = TrTcmConfig::new(cir, pir, b1.max(1), b2.max(1)).with_tick(tick);
        configs[1] += usize::from(TrTcmProfile::new(&tr).is_ok());
        run_trtcm(&tr, start, &ops).unwrap();

        let zero = if round % 5 == 0 { Rate::ZERO } else { cir };
        let r4 = Rfc4115Config::new(zero, x, b1, b2).with_tick(tick);
        let ties = if round % 2 == 0 {
            Rfc4115Ties::Figure1
        } else {
            Rfc4115Ties::Text
        };
        configs[2] += usize::from(Rfc4115Profile::with_ties(&r4, ties).is_ok());
        run_rfc4115(&r4, ties, start, &ops).unwrap();

        let po = PremiumPolicerConfig::new(cir, b1.max(1600), b2.max(1600), 1600).with_tick(tick);
        configs[3] += usize::from(PremiumPolicerProfile::new(&po).is_ok());
        run_policer(&po, start, &ops).unwrap();
    }
    // Most configurations must be representable, or the test proves little.
    for (i, n) in configs.iter().enumerate() {
        assert!(
            *n >= 60,
            "marker {i}: only {n} of 120 configurations accepted"
        );
    }
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let dt = prop_oneof![
        Just(0u64),
        Just(1_000_000u64),
        0u64..10_000,
        0u64..10_000_000_000,
        any::<u64>(),
        (0u64..1_000_000).prop_map(|d| u64::MAX - d),
    ];
    let len = prop_oneof![
        Just(0u32),
        Just(u32::MAX),
        Just(1000u32),
        Just(2048u32),
        Just(4096u32),
        1u32..5000,
        any::<u32>(),
    ];
    let input = prop_oneof![
        Just(None),
        Just(Some(Color::Green)),
        Just(Some(Color::Yellow)),
        Just(Some(Color::Red)),
    ];
    (dt, len, input).prop_map(|(dt, len, input)| Op { dt, len, input })
}

fn tick_strategy() -> impl Strategy<Value = TickRate> {
    prop_oneof![
        Just(TickRate::NANOS),
        Just(TickRate::from_hz(2_300_000_000).unwrap()),
        Just(TickRate::MILLIS),
        (1u64..1 << 36).prop_map(|hz| TickRate::from_hz(hz).unwrap()),
    ]
}

fn rate_strategy() -> impl Strategy<Value = Rate> {
    prop_oneof![
        (1u64..1_000_000).prop_map(Rate::from_bits_per_sec),
        (1u64..u64::MAX / 8).prop_map(Rate::from_bytes_per_sec),
        any::<u64>().prop_map(Rate::from_bits_per_sec),
    ]
}

fn burst_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1000u64),
        Just(2048u64),
        Just(4096u64),
        0u64..100_000
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn srtcm_matches_reference(
        cir in rate_strategy(), cbs in burst_strategy(), ebs in burst_strategy(),
        tick in tick_strategy(), start in any::<u64>(),
        ops in proptest::collection::vec(op_strategy(), 1..300),
    ) {
        let cfg = SrTcmConfig::new(cir, cbs, ebs).with_tick(tick);
        prop_assert_eq!(run_srtcm(&cfg, start, &ops), Ok(()));
    }

    #[test]
    fn trtcm_matches_reference(
        cir in rate_strategy(), extra in any::<u64>(), cbs in burst_strategy().prop_map(|b| b.max(1)), pbs in burst_strategy().prop_map(|b| b.max(1)),
        tick in tick_strategy(), start in any::<u64>(),
        ops in proptest::collection::vec(op_strategy(), 1..300),
    ) {
        let pir = Rate::from_bits_per_sec(cir.bits_per_sec().saturating_add(extra >> (extra % 64)));
        let cfg = TrTcmConfig::new(cir, pir, cbs, pbs).with_tick(tick);
        prop_assert_eq!(run_trtcm(&cfg, start, &ops), Ok(()));
    }

    #[test]
    fn rfc4115_matches_reference(
        cir in rate_strategy(), eir in rate_strategy(), zero in 0u8..3,
        cbs in burst_strategy(), ebs in burst_strategy(), text in any::<bool>(),
        tick in tick_strategy(), start in any::<u64>(),
        ops in proptest::collection::vec(op_strategy(), 1..300),
    ) {
        let cfg = Rfc4115Config::new(if zero == 1 { Rate::ZERO } else { cir }, if zero == 2 { Rate::ZERO } else { eir }, cbs, ebs).with_tick(tick);
        let ties = if text { Rfc4115Ties::Text } else { Rfc4115Ties::Figure1 };
        prop_assert_eq!(run_rfc4115(&cfg, ties, start, &ops), Ok(()));
    }

    #[test]
    fn policer_matches_reference(
        rate in rate_strategy(), tbs in 1500u64..100_000, pbs in 1500u64..100_000,
        tick in tick_strategy(), start in any::<u64>(),
        ops in proptest::collection::vec(op_strategy(), 1..300),
    ) {
        let cfg = PremiumPolicerConfig::new(rate, tbs, pbs, 1500).with_tick(tick);
        prop_assert_eq!(run_policer(&cfg, start, &ops), Ok(()));
    }
}

/// The differential harness itself must be able to fail: a reference started
/// from a different state disagrees.
#[test]
fn harness_detects_a_difference() {
    let cfg = TrTcmConfig::default();
    let p = TrTcmProfile::new(&cfg).unwrap();
    let mut s = TrTcm::new(&p, Instant::ZERO);
    let mut r = TrTcmRef::new(&cfg, 0);
    r.tc -= 1;
    let got = s.color_blind(&p, Instant::ZERO, 2048);
    let want = r.color_blind(0, 2048);
    assert_ne!(got, want);
}

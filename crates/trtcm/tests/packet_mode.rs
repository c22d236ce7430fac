//! Packet mode: every marker and the policer against its exact reference model
//! in packet units (every packet costs one unit, rates in packets per second,
//! bursts in packets), through both entry points (the markers' length-taking
//! methods, whose length a packet-mode profile ignores, and the `..._packet`
//! methods),
//! and the bound `size + rate x time` packets over intervals.

use netcond_core::{Color, Instant, RandomSource, SplitMix64, TickRate};
use trtcm::invariants::{policer_step, rfc4115_step, srtcm_step, trtcm_step};
use trtcm::reference::{to_reference_units, PremiumPolicerRef, Rfc4115Ref, SrTcmRef, TrTcmRef};
use trtcm::{
    Mode, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115,
    Rfc4115Config, Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig, SrTcmProfile, ThreeColorMarker,
    TrTcm, TrTcmConfig, TrTcmProfile,
};

#[derive(Clone, Copy, Debug)]
struct Op {
    dt: u64,
    len: u32,
    input: Option<Color>,
    /// Through the `..._packet` method rather than the length-taking one.
    packet_call: bool,
}

fn ops(r: &mut SplitMix64, n: usize) -> Vec<Op> {
    (0..n)
        .map(|_| {
            let dt = match r.below(8) {
                0 => 0,
                1 => u64::MAX - u64::from(r.below(1000)),
                2 => r.next_u64(),
                3 => u64::from(r.next_u32()),
                _ => u64::from(r.below(5_000_000)),
            };
            let len = match r.below(4) {
                0 => 0,
                1 => u32::MAX,
                _ => r.next_u32() % 9000,
            };
            let input = match r.below(4) {
                0 => None,
                c => Some(Color::from_index(c as usize - 1)),
            };
            Op {
                dt,
                len,
                input,
                packet_call: r.below(2) == 0,
            }
        })
        .collect()
}

fn tick(r: &mut SplitMix64) -> TickRate {
    TickRate::from_hz(match r.below(4) {
        0 => 1000,
        1 => 1_000_000_000,
        2 => 2_300_000_000,
        _ => 1 + (r.next_u64() >> 34),
    })
    .unwrap()
}

fn pps(r: &mut SplitMix64) -> u64 {
    match r.below(3) {
        0 => 1 + u64::from(r.below(100)),
        1 => 1 + u64::from(r.below(10_000_000)),
        _ => 1 + (r.next_u64() >> 20),
    }
}

fn burst(r: &mut SplitMix64) -> u64 {
    match r.below(3) {
        0 => 1 + u64::from(r.below(4)),
        1 => 1 + u64::from(r.below(100)),
        _ => 1 + u64::from(r.below(100_000)),
    }
}

/// Colors `op` on `s`: through the checked step (length ignored) or the
/// `..._packet` methods.
fn color<M: ThreeColorMarker>(
    p: &M::Profile,
    s: &mut M,
    now: Instant,
    op: &Op,
    step: impl FnOnce(&mut M) -> Color,
) -> Color {
    if op.packet_call {
        match op.input {
            None => s.color_blind_packet(p, now),
            Some(c) => s.color_aware_packet(p, now, c),
        }
    } else {
        step(s)
    }
}

#[test]
fn markers_match_the_reference_in_packet_units() {
    let mut r = SplitMix64::new(0x9ace7);
    let mut accepted = [0usize; 3];
    for round in 0..90 {
        let tick = tick(&mut r);
        let start = r.next_u64();
        let ops = ops(&mut r, 5_000);
        let (a, b) = (pps(&mut r), pps(&mut r));
        let (b1, b2) = (burst(&mut r), burst(&mut r));

        let cfg = SrTcmConfig::packets(a, b1, b2).with_tick(tick);
        if let Ok(p) = SrTcmProfile::new(&cfg) {
            accepted[0] += 1;
            assert_eq!(p.mode(), Mode::Packets);
            let mut now = Instant::from_ticks(start);
            let (mut s, mut m) = (SrTcm::new(&p, now), SrTcmRef::new(&cfg, start));
            for (i, op) in ops.iter().enumerate() {
                now = now.wrapping_add(op.dt);
                let got = color(&p, &mut s, now, op, |s| {
                    srtcm_step(&p, s, now, op.len, op.input).unwrap()
                });
                let want = m.color_aware(now.ticks(), 1, op.input.unwrap_or(Color::Green));
                let tc = to_reference_units(p.committed(), s.tc(), tick);
                let te = to_reference_units(p.excess(), s.te(), tick);
                assert_eq!(
                    (got, tc, te),
                    (want, m.tc, m.te),
                    "srTCM round {round} packet {i} {op:?}"
                );
            }
        }

        let cfg = TrTcmConfig::packets(a.min(b), a.max(b), b1, b2).with_tick(tick);
        if let Ok(p) = TrTcmProfile::new(&cfg) {
            accepted[1] += 1;
            let mut now = Instant::from_ticks(start);
            let (mut s, mut m) = (TrTcm::new(&p, now), TrTcmRef::new(&cfg, start));
            for (i, op) in ops.iter().enumerate() {
                now = now.wrapping_add(op.dt);
                let got = color(&p, &mut s, now, op, |s| {
                    trtcm_step(&p, s, now, op.len, op.input).unwrap()
                });
                let want = m.color_aware(now.ticks(), 1, op.input.unwrap_or(Color::Green));
                let tc = to_reference_units(p.committed(), s.tc(), tick);
                let tp = to_reference_units(p.peak(), s.tp(), tick);
                assert_eq!(
                    (got, tc, tp),
                    (want, m.tc, m.tp),
                    "trTCM round {round} packet {i} {op:?}"
                );
            }
        }

        let ties = if round % 2 == 0 {
            Rfc4115Ties::Figure1
        } else {
            Rfc4115Ties::Text
        };
        let cfg = Rfc4115Config::packets(a, b, b1, b2).with_tick(tick);
        if let Ok(p) = Rfc4115Profile::with_ties(&cfg, ties) {
            accepted[2] += 1;
            let mut now = Instant::from_ticks(start);
            let (mut s, mut m) = (Rfc4115::new(&p, now), Rfc4115Ref::new(&cfg, ties, start));
            for (i, op) in ops.iter().enumerate() {
                now = now.wrapping_add(op.dt);
                let got = color(&p, &mut s, now, op, |s| {
                    rfc4115_step(&p, s, now, op.len, op.input).unwrap()
                });
                let want = m.color_aware(now.ticks(), 1, op.input.unwrap_or(Color::Green));
                let tc = to_reference_units(p.committed(), s.tc(), tick);
                let te = to_reference_units(p.excess(), s.te(), tick);
                assert_eq!(
                    (got, tc, te),
                    (want, m.tc, m.te),
                    "RFC 4115 round {round} packet {i} {op:?}"
                );
            }
        }
    }
    for n in accepted {
        assert!(n >= 60, "only {n} of 90 configurations accepted");
    }
}

#[test]
fn policer_matches_the_reference_in_packet_units() {
    let mut r = SplitMix64::new(0x9011ce);
    for round in 0..60 {
        let tick = tick(&mut r);
        let start = r.next_u64();
        let ops = ops(&mut r, 5_000);
        let cfg = PremiumPolicerConfig::packets(pps(&mut r), burst(&mut r), burst(&mut r))
            .with_tick(tick);
        let Ok(p) = PremiumPolicerProfile::new(&cfg) else {
            continue;
        };
        let mut now = Instant::from_ticks(start);
        let (mut s, mut m) = (
            PremiumPolicer::new(&p, now),
            PremiumPolicerRef::new(&cfg, start),
        );
        for (i, op) in ops.iter().enumerate() {
            now = now.wrapping_add(op.dt);
            if op.input == Some(Color::Red) {
                let n = op.len % 4;
                s.dequeued(n);
                m.dequeued(n);
                continue;
            }
            // `offer` charges the length it is given: one packet here.
            let got = if op.packet_call {
                s.offer_packet(&p, now)
            } else {
                policer_step(&p, &mut s, now, 1).unwrap()
            };
            let want = m.offer(now.ticks(), 1);
            let tokens = to_reference_units(p.committed(), s.tokens(), tick);
            assert_eq!(
                (got.index(), tokens, u128::from(s.backlog())),
                (want, m.tokens, m.backlog),
                "round {round} packet {i} {op:?}"
            );
        }
    }
}

/// The exactness statement in packet units: over any interval, green packets
/// are at most `CBS + CIR x time` and green plus yellow at most
/// `PBS + PIR x time` (trTCM), and a stream that keeps the buckets busy gets
/// exactly that to within one packet.
#[test]
fn packets_over_an_interval_are_bounded_and_exact() {
    // CIR 1000 packet/s, PIR 3000 packet/s, CBS 10, PBS 30, on a 1 MHz clock.
    let tick = TickRate::MICROS;
    let cfg = TrTcmConfig::packets(1000, 3000, 10, 30).with_tick(tick);
    let p = TrTcmProfile::new(&cfg).unwrap();
    let mut s = TrTcm::new(&p, Instant::ZERO);
    let mut green = [0u64; 2001];
    let mut passed = [0u64; 2001];
    let mut rng = SplitMix64::new(7);
    // 10,000 packets per second offered for 2 s, with random lengths that
    // packet mode must ignore; counts at each millisecond boundary.
    let (mut g, mut y) = (0, 0);
    for t in 0..20_000u64 {
        let now = Instant::from_ticks(t * 100);
        match s.color_blind(&p, now, rng.next_u32() % 9000) {
            Color::Green => g += 1,
            Color::Yellow => y += 1,
            Color::Red => {}
        }
        if t % 10 == 9 {
            green[(t / 10 + 1) as usize] = g;
            passed[(t / 10 + 1) as usize] = g + y;
        }
    }
    // Any interval [a, b] ms: green <= CBS + CIR (b - a) + the packets of one
    // arrival slot, passed <= PBS + PIR (b - a) + the same.
    for a in (0..2000).step_by(37) {
        for b in (a + 1..=2000).step_by(53) {
            let ms = (b - a) as u64;
            assert!(green[b] - green[a] <= 10 + ms + 1, "green {a}..{b}");
            assert!(passed[b] - passed[a] <= 30 + 3 * ms + 1, "passed {a}..{b}");
        }
    }
    // Over the whole 2 s (the last arrival at 1.9999 s): exactly the bucket
    // plus the rate to within one packet.
    assert!(green[2000] <= 10 + 2000 && green[2000] >= 10 + 2000 - 1);
    assert!(passed[2000] <= 30 + 6000 && passed[2000] >= 30 + 6000 - 1);
}

#[test]
fn the_length_is_ignored_and_bytes_mode_is_unchanged() {
    let cfg = SrTcmConfig::packets(1, 2, 1).with_tick(TickRate::MILLIS);
    let p = SrTcmProfile::new(&cfg).unwrap();
    let t = Instant::from_ticks(5);
    let mut s = SrTcm::new(&p, Instant::ZERO);
    // Two green, one yellow, then red, whatever the lengths.
    assert_eq!(s.color_blind(&p, t, u32::MAX), Color::Green);
    assert_eq!(s.color_blind_packet(&p, t), Color::Green);
    assert_eq!(s.color_blind(&p, t, 0), Color::Yellow);
    assert_eq!(s.color_blind(&p, t, 1), Color::Red);
    // One second later, one packet's worth of tokens.
    let t = Instant::from_ticks(1005);
    assert_eq!(s.color_aware_packet(&p, t, Color::Green), Color::Green);
    assert_eq!(s.color_aware(&p, t, 64, Color::Yellow), Color::Red);

    // A byte-mode profile built from the same numbers counts bytes.
    let bytes = SrTcmProfile::new(&cfg.with_mode(Mode::Bytes)).unwrap();
    assert_eq!(bytes.mode(), Mode::Bytes);
    let mut s = SrTcm::new(&bytes, Instant::ZERO);
    assert_eq!(s.color_blind(&bytes, t, 3), Color::Red);
    assert_eq!(s.color_blind_packet(&bytes, t), Color::Green);

    // The policer's buffer counts packets.
    let cfg = PremiumPolicerConfig::packets(1000, 4, 2).with_tick(TickRate::MILLIS);
    let p = PremiumPolicerProfile::new(&cfg).unwrap();
    let mut s = PremiumPolicer::new(&p, Instant::ZERO);
    let t = Instant::ZERO;
    assert_eq!(s.offer_packet(&p, t), PolicerVerdict::Admitted);
    assert_eq!(s.offer_packet(&p, t), PolicerVerdict::Admitted);
    assert_eq!(s.offer_packet(&p, t), PolicerVerdict::BufferDrop);
    assert_eq!(s.backlog(), 2);
    s.dequeued(1);
    assert_eq!(s.offer_packet(&p, t), PolicerVerdict::Admitted);
    assert_eq!(s.offer_packet(&p, t), PolicerVerdict::PolicerDrop);
}

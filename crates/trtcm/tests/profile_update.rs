//! Profile updates (`move_to`): every marker and the policer against its exact
//! reference model with rates and sizes changing mid-stream, packet by packet
//! (colors, verdicts and every bucket's content equal), and worked cases of
//! the carry-over rule.

use netcond_core::{Color, Instant, RandomSource, Rate, SplitMix64, TickRate};
use trtcm::reference::{to_reference_units, PremiumPolicerRef, Rfc4115Ref, SrTcmRef, TrTcmRef};
use trtcm::{
    Compact, CompactProfile, Mode, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile,
    Rfc4115, Rfc4115Config, Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig, SrTcmProfile,
    ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile,
};

fn tick(r: &mut SplitMix64) -> TickRate {
    TickRate::from_hz(match r.below(5) {
        0 => 1000,
        1 => 1_000_000,
        2 => 1_000_000_000,
        3 => 2_300_000_000,
        _ => 1 + (r.next_u64() >> 30),
    })
    .unwrap()
}

fn rate(r: &mut SplitMix64) -> Rate {
    Rate::from_bits_per_sec(match r.below(4) {
        0 => 1 + u64::from(r.below(1000)),
        1 => 8 * (1 + u64::from(r.next_u32())),
        2 => 368_000_000,
        _ => 1 + (r.next_u64() >> 24),
    })
}

fn burst(r: &mut SplitMix64) -> u64 {
    match r.below(4) {
        0 => 1 + u64::from(r.below(100)),
        1 => 1500 + u64::from(r.below(10_000)),
        2 => 2048,
        _ => u64::from(r.next_u32()),
    }
}

fn mode(r: &mut SplitMix64) -> Mode {
    if r.below(8) == 0 {
        Mode::Packets
    } else {
        Mode::Bytes
    }
}

/// One step of a stream: a packet, or (`update`) a switch to configuration
/// `update - 1` of the round's list.
#[derive(Clone, Copy, Debug)]
struct Op {
    dt: u64,
    len: u32,
    input: Option<Color>,
    update: usize,
}

fn ops(r: &mut SplitMix64, n: usize, configs: usize) -> Vec<Op> {
    (0..n)
        .map(|_| Op {
            dt: match r.below(8) {
                0 => 0,
                1 => u64::MAX - u64::from(r.below(1000)),
                2 => u64::from(r.next_u32()),
                _ => u64::from(r.below(2_000_000)),
            },
            len: match r.below(6) {
                0 => 0,
                1 => u32::MAX,
                _ => r.below(9000),
            },
            input: match r.below(4) {
                0 => None,
                c => Some(Color::from_index(c as usize - 1)),
            },
            update: if r.below(50) == 0 {
                1 + r.below(configs as u32) as usize
            } else {
                0
            },
        })
        .collect()
}

const CONFIGS: usize = 4;
const ROUNDS: usize = 80;
const PACKETS: usize = 4000;

#[test]
fn srtcm_matches_the_reference_across_updates() {
    let mut r = SplitMix64::new(0x2697);
    for round in 0..ROUNDS {
        let tick = tick(&mut r);
        let cfgs: Vec<SrTcmConfig> = (0..CONFIGS)
            .map(|_| {
                SrTcmConfig::new(rate(&mut r), burst(&mut r), burst(&mut r))
                    .with_tick(tick)
                    .with_mode(mode(&mut r))
            })
            .collect();
        let Ok(ps) = cfgs
            .iter()
            .map(SrTcmProfile::new)
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        let start = r.next_u64();
        let mut now = Instant::from_ticks(start);
        let (mut at, mut s, mut m) = (0, SrTcm::new(&ps[0], now), SrTcmRef::new(&cfgs[0], start));
        for (i, op) in ops(&mut r, PACKETS, CONFIGS).iter().enumerate() {
            now = now.wrapping_add(op.dt);
            let (got, want) = if op.update > 0 {
                let to = op.update - 1;
                s.move_to(&ps[at], &ps[to], now);
                m.move_to(&cfgs[to], now.ticks());
                at = to;
                (Color::Green, Color::Green)
            } else {
                let input = op.input.unwrap_or(Color::Green);
                (
                    s.color_aware(&ps[at], now, op.len, input),
                    m.color_aware(now.ticks(), op.len, input),
                )
            };
            let tc = to_reference_units(ps[at].committed(), s.tc(), tick);
            let te = to_reference_units(ps[at].excess(), s.te(), tick);
            assert_eq!(
                (got, tc, te, s.last().ticks()),
                (want, m.tc, m.te, m.last),
                "round {round} step {i} {op:?}"
            );
        }
    }
}

#[test]
fn trtcm_matches_the_reference_across_updates() {
    let mut r = SplitMix64::new(0x2698);
    for round in 0..ROUNDS {
        let tick = tick(&mut r);
        let cfgs: Vec<TrTcmConfig> = (0..CONFIGS)
            .map(|_| {
                let (a, b) = (rate(&mut r), rate(&mut r));
                TrTcmConfig::new(a.min(b), a.max(b), burst(&mut r), burst(&mut r))
                    .with_tick(tick)
                    .with_mode(mode(&mut r))
            })
            .collect();
        let Ok(ps) = cfgs
            .iter()
            .map(TrTcmProfile::new)
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        let start = r.next_u64();
        let mut now = Instant::from_ticks(start);
        let (mut at, mut s, mut m) = (0, TrTcm::new(&ps[0], now), TrTcmRef::new(&cfgs[0], start));
        for (i, op) in ops(&mut r, PACKETS, CONFIGS).iter().enumerate() {
            now = now.wrapping_add(op.dt);
            let (got, want) = if op.update > 0 {
                let to = op.update - 1;
                s.move_to(&ps[at], &ps[to], now);
                m.move_to(&cfgs[to], now.ticks());
                at = to;
                (Color::Green, Color::Green)
            } else {
                let input = op.input.unwrap_or(Color::Green);
                (
                    s.color_aware(&ps[at], now, op.len, input),
                    m.color_aware(now.ticks(), op.len, input),
                )
            };
            let tc = to_reference_units(ps[at].committed(), s.tc(), tick);
            let tp = to_reference_units(ps[at].peak(), s.tp(), tick);
            assert_eq!(
                (got, tc, tp, s.last().ticks()),
                (want, m.tc, m.tp, m.last),
                "round {round} step {i} {op:?}"
            );
        }
    }
}

#[test]
fn rfc4115_and_its_compact_state_match_the_reference_across_updates() {
    let mut r = SplitMix64::new(0x4115);
    let mut compact_rounds = 0;
    for round in 0..ROUNDS {
        // Every other round on a millisecond clock, where most buckets fit
        // the compact state.
        let tick = if round % 2 == 0 {
            TickRate::MILLIS
        } else {
            tick(&mut r)
        };
        let cfgs: Vec<(Rfc4115Config, Rfc4115Ties)> = (0..CONFIGS)
            .map(|_| {
                let cir = if r.below(6) == 0 {
                    Rate::ZERO
                } else {
                    rate(&mut r)
                };
                let cfg = Rfc4115Config::new(cir, rate(&mut r), burst(&mut r), burst(&mut r))
                    .with_tick(tick)
                    .with_mode(mode(&mut r));
                let ties = if r.below(2) == 0 {
                    Rfc4115Ties::Figure1
                } else {
                    Rfc4115Ties::Text
                };
                (cfg, ties)
            })
            .collect();
        let Ok(ps) = cfgs
            .iter()
            .map(|(c, t)| Rfc4115Profile::with_ties(c, *t))
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        let compact: Option<Vec<_>> = ps.iter().map(|p| CompactProfile::new(*p).ok()).collect();
        compact_rounds += usize::from(compact.is_some());
        let start = r.next_u64();
        let mut now = Instant::from_ticks(start);
        let mut at = 0;
        let mut s = Rfc4115::new(&ps[0], now);
        let mut m = Rfc4115Ref::new(&cfgs[0].0, cfgs[0].1, start);
        let mut small = compact
            .as_ref()
            .map(|c| Compact::<Rfc4115>::new(&c[0], now));
        for (i, op) in ops(&mut r, PACKETS, CONFIGS).iter().enumerate() {
            now = now.wrapping_add(op.dt);
            let (got, want) = if op.update > 0 {
                let to = op.update - 1;
                s.move_to(&ps[at], &ps[to], now);
                m.move_to(&cfgs[to].0, cfgs[to].1, now.ticks());
                if let (Some(c), Some(x)) = (compact.as_ref(), small.as_mut()) {
                    ThreeColorMarker::move_to(x, &c[at], &c[to], now);
                }
                at = to;
                (Color::Green, Color::Green)
            } else {
                let input = op.input.unwrap_or(Color::Green);
                if let (Some(c), Some(x)) = (compact.as_ref(), small.as_mut()) {
                    x.color_aware(&c[at], now, op.len, input);
                }
                (
                    s.color_aware(&ps[at], now, op.len, input),
                    m.color_aware(now.ticks(), op.len, input),
                )
            };
            let tc = to_reference_units(ps[at].committed(), s.tc(), tick);
            let te = to_reference_units(ps[at].excess(), s.te(), tick);
            assert_eq!(
                (got, tc, te, s.last().ticks()),
                (want, m.tc, m.te, m.last),
                "round {round} step {i} {op:?}"
            );
            if let Some(x) = small {
                assert_eq!(x.to_state(), s, "compact, round {round} step {i}");
            }
        }
    }
    assert!(compact_rounds >= 10, "only {compact_rounds} compact rounds");
}

#[test]
fn policer_matches_the_reference_across_updates() {
    let mut r = SplitMix64::new(0x90);
    for round in 0..ROUNDS {
        let tick = tick(&mut r);
        let cfgs: Vec<PremiumPolicerConfig> = (0..CONFIGS)
            .map(|_| {
                if r.below(8) == 0 {
                    PremiumPolicerConfig::packets(
                        1 + u64::from(r.below(100_000)),
                        1 + burst(&mut r) % 64,
                        1 + burst(&mut r) % 64,
                    )
                    .with_tick(tick)
                } else {
                    let (tbs, pbs) = (burst(&mut r).max(1600), burst(&mut r).max(1600));
                    PremiumPolicerConfig::new(rate(&mut r), tbs, pbs, 1600).with_tick(tick)
                }
            })
            .collect();
        let Ok(ps) = cfgs
            .iter()
            .map(PremiumPolicerProfile::new)
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        let start = r.next_u64();
        let mut now = Instant::from_ticks(start);
        let mut at = 0;
        let mut s = PremiumPolicer::new(&ps[0], now);
        let mut m = PremiumPolicerRef::new(&cfgs[0], start);
        for (i, op) in ops(&mut r, PACKETS, CONFIGS).iter().enumerate() {
            now = now.wrapping_add(op.dt);
            let (got, want) = if op.update > 0 {
                let to = op.update - 1;
                s.move_to(&ps[at], &ps[to], now);
                m.move_to(&cfgs[to], now.ticks());
                at = to;
                (0, 0)
            } else if op.input == Some(Color::Red) {
                s.dequeued(op.len % 4096);
                m.dequeued(op.len % 4096);
                (0, 0)
            } else {
                (
                    s.offer(&ps[at], now, op.len).index(),
                    m.offer(now.ticks(), op.len),
                )
            };
            let tokens = to_reference_units(ps[at].committed(), s.tokens(), tick);
            assert_eq!(
                (got, tokens, u128::from(s.backlog()), s.last().ticks()),
                (want, m.tokens, m.backlog, m.last),
                "round {round} step {i} {op:?}"
            );
        }
    }
}

/// The rule on numbers: refill to `now` under the old profile, carry the bytes
/// over rounded down to the new unit, cap at the new size, keep the clock.
#[test]
fn carry_over_rule_by_hand() {
    // Old: CIR 1000 B/s on a millisecond clock (1 B per tick, scale 1), CBS
    // 100, PBS 200. New: CIR 3 bit/s... on the same clock: scale 8000 / 1 =
    // 8000 units per byte.
    let ms = TickRate::MILLIS;
    let old = TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(1000),
            Rate::from_bytes_per_sec(2000),
            100,
            200,
        )
        .with_tick(ms),
    )
    .unwrap();
    let new = TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bits_per_sec(3),
            Rate::from_bytes_per_sec(4000),
            50,
            1000,
        )
        .with_tick(ms),
    )
    .unwrap();
    assert_eq!(old.committed().scale(), 1);
    assert_eq!(new.committed().scale(), 8000);
    let mut s = TrTcm::new(&old, Instant::ZERO);
    assert_eq!(s.color_blind(&old, Instant::ZERO, 100), Color::Green);
    assert_eq!((s.tc(), s.tp()), (0, 100));
    // 30 ms later under the old rates: Tc 30 B, Tp 160 B; then C is capped at
    // nothing (30 < 50 B) and becomes 30 x 8000 units; P keeps 160 B.
    s.move_to(&old, &new, Instant::from_ticks(30));
    assert_eq!(s.last(), Instant::from_ticks(30));
    assert_eq!(s.tc(), 30 * 8000);
    assert_eq!(s.tp() / new.peak().scale(), 160);
    // Back to the old profile: exact in bytes again.
    s.move_to(&new, &old, Instant::from_ticks(30));
    assert_eq!((s.tc(), s.tp()), (30, 160));
    // A smaller bucket caps: CBS 10.
    let tiny = TrTcmProfile::new(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(1000),
            Rate::from_bytes_per_sec(2000),
            10,
            20,
        )
        .with_tick(ms),
    )
    .unwrap();
    s.move_to(&old, &tiny, Instant::from_ticks(30));
    assert_eq!((s.tc(), s.tp()), (10, 20));
    // A clock stepping backwards refills nothing and keeps the last update.
    s.move_to(&tiny, &old, Instant::from_ticks(5));
    assert_eq!(
        (s.tc(), s.tp(), s.last()),
        (10, 20, Instant::from_ticks(30))
    );
    // Rounding down: old unit 1/8000 byte, new unit 1 byte: 7999 units are
    // 0.999875 bytes, which become 0.
    // (P's unit is one byte in both.)
    assert_eq!(new.peak().scale(), 1);
    let mut s = TrTcm::from_parts(&new, 7999, 150, Instant::from_ticks(0));
    s.move_to(&new, &old, Instant::ZERO);
    assert_eq!((s.tc(), s.tp()), (0, 150));
    let mut s = TrTcm::from_parts(&new, 16_001, 150, Instant::from_ticks(0));
    s.move_to(&new, &old, Instant::ZERO);
    assert_eq!(s.tc(), 2);
    // Bytes to packets: no exchange rate, the buckets start full.
    let pk = TrTcmProfile::new(&TrTcmConfig::packets(10, 20, 3, 6).with_tick(ms)).unwrap();
    s.move_to(&old, &pk, Instant::from_ticks(40));
    assert_eq!(
        (s.tc(), s.tp(), s.last()),
        (
            pk.committed().full(),
            pk.peak().full(),
            Instant::from_ticks(40)
        )
    );
}

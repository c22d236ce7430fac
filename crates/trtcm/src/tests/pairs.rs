//! The `WithProfile` pairs color, police and start exactly as their states do.

use netcond_core::{Color, Instant, Rate, TickRate, WithProfile};

use crate::{
    PolicerPair, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerError, PremiumPolicerProfile,
    Rfc4115Config, SrTcmConfig, SrTcmError, State, ThreeColorMarker, ThreeColorPair, TrTcmConfig,
};

/// Drives a pair and a bare state side by side over packets of every input
/// color, long enough to empty the buckets, and compares every color.
fn same_colors<M: ThreeColorMarker + PartialEq + core::fmt::Debug>(mut pair: WithProfile<M>) {
    let mut bare = M::start(&pair.profile, Instant::ZERO);
    assert_eq!(pair.state, bare);
    let mut seen = [0u32; 3];
    for i in 0..400u64 {
        let now = Instant::from_ticks(i * 30);
        let len = 200 + (i % 7) as u32 * 150;
        let input = [Color::Green, Color::Yellow, Color::Red][(i % 3) as usize];
        let (a, b) = if i % 2 == 0 {
            (
                pair.color_blind(now, len),
                bare.color_blind(&pair.profile, now, len),
            )
        } else {
            (
                pair.color_aware(now, len, input),
                bare.color_aware(&pair.profile, now, len, input),
            )
        };
        assert_eq!(a, b, "packet {i}");
        seen[a as usize] += 1;
        assert_eq!(pair.state, bare);
    }
    // The stream meets all three colors, so a pair that colored otherwise
    // than its state could not pass.
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    pair.restart(Instant::from_ticks(5));
    assert_eq!(pair.state, M::start(&pair.profile, Instant::from_ticks(5)));
}

#[test]
fn marker_pairs_color_as_their_states() {
    let tick = TickRate::MICROS;
    let sr = SrTcmConfig::new(Rate::from_bytes_per_sec(1_000_000), 3000, 3000).with_tick(tick);
    same_colors(sr.meter(Instant::ZERO).unwrap());
    let tr = TrTcmConfig::new(
        Rate::from_bytes_per_sec(1_000_000),
        Rate::from_bytes_per_sec(2_000_000),
        3000,
        6000,
    )
    .with_tick(tick);
    same_colors(tr.meter(Instant::ZERO).unwrap());
    let r4 = Rfc4115Config::new(
        Rate::from_bytes_per_sec(1_000_000),
        Rate::from_bytes_per_sec(1_000_000),
        3000,
        3000,
    )
    .with_tick(tick);
    same_colors(r4.meter(Instant::ZERO).unwrap());
    // A refused configuration is refused by `meter` too.
    let bad = SrTcmConfig::new(Rate::ZERO, 3000, 3000);
    assert_eq!(bad.meter(Instant::ZERO).unwrap_err(), SrTcmError::ZeroCir);
}

#[test]
fn policer_pair_polices_as_its_state() {
    // 10 kB/s on a millisecond clock, offered 14 kB/s and served at about
    // 4.7 kB/s: every verdict occurs.
    let cfg = PremiumPolicerConfig {
        tick: TickRate::MILLIS,
        ..PremiumPolicerConfig::new(Rate::from_bytes_per_sec(10_000), 1500, 3000, 1500)
    };
    let mut pair = cfg.meter(Instant::ZERO).unwrap();
    let p = PremiumPolicerProfile::new(&cfg).unwrap();
    let mut bare = PremiumPolicer::start(&p, Instant::ZERO);
    let mut seen = [0u32; 3];
    for i in 0..60u64 {
        let now = Instant::from_ticks(i * 50);
        let v = pair.offer(now, 700);
        assert_eq!(v, bare.offer(&p, now, 700), "packet {i}");
        seen[v.index()] += 1;
        if i % 3 == 0 {
            pair.dequeued(700);
            bare.dequeued(700);
        }
        assert_eq!(pair.state, bare);
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    assert!(bare.backlog() > 0);
    let bad = PremiumPolicerConfig { tbs: 0, ..cfg };
    assert_eq!(
        bad.meter(Instant::ZERO).unwrap_err(),
        PremiumPolicerError::ZeroTbs
    );
}

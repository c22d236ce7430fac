//! The `..._counted` methods: the same colors and states as the plain methods,
//! and counters equal to a tally kept beside them.

use netcond_core::{Color, Instant, RandomSource, SplitMix64};
use trtcm::{
    Compact, CompactProfile, Counters, PolicerVerdict, PremiumPolicer, PremiumPolicerConfig,
    PremiumPolicerProfile, Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig,
    SrTcmProfile, ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile,
};

/// Runs a stream through `plain` and `counted` (the same marker), checking
/// colors and states, and returns the counters and the tally by hand.
fn run<M: ThreeColorMarker + PartialEq + core::fmt::Debug>(
    p: &M::Profile,
    seed: u64,
    step: impl Fn(&mut M, &M::Profile, Instant, u32, Option<Color>, &mut Counters) -> Color,
) -> (Counters, [u64; 3], [u64; 3]) {
    let mut r = SplitMix64::new(seed);
    let (mut plain, mut counted) = (M::start(p, Instant::ZERO), M::start(p, Instant::ZERO));
    let mut c = Counters::default();
    let (mut pk, mut by) = ([0u64; 3], [0u64; 3]);
    let mut t = 0u64;
    for _ in 0..20_000 {
        t += u64::from(r.below(40_000));
        let now = Instant::from_ticks(t);
        let len = 40 + r.below(1500);
        let input = match r.below(4) {
            0 => None,
            i => Some(Color::from_index(i as usize - 1)),
        };
        let want = match input {
            None => plain.color_blind(p, now, len),
            Some(i) => plain.color_aware(p, now, len, i),
        };
        let got = step(&mut counted, p, now, len, input, &mut c);
        assert_eq!(got, want);
        assert_eq!(counted, plain);
        pk[got.index()] += 1;
        by[got.index()] += u64::from(len);
    }
    (c, pk, by)
}

fn check(c: Counters, pk: [u64; 3], by: [u64; 3]) {
    assert_eq!((c.packets, c.bytes), (pk, by));
    assert_eq!((c.dropped_packets, c.dropped_bytes), (0, 0));
    assert!(pk.iter().all(|&n| n > 100), "every color seen: {pk:?}");
}

#[test]
fn markers_count_what_they_color() {
    let sr = SrTcmProfile::new(&SrTcmConfig::default()).unwrap();
    let (c, pk, by) = run::<SrTcm>(&sr, 1, |m, p, now, len, input, c| match input {
        None => m.color_blind_counted(p, now, len, c),
        Some(i) => m.color_aware_counted(p, now, len, i, c),
    });
    check(c, pk, by);
    let tr = TrTcmProfile::new(&TrTcmConfig::default()).unwrap();
    let (c, pk, by) = run::<TrTcm>(&tr, 2, |m, p, now, len, input, c| match input {
        None => m.color_blind_counted(p, now, len, c),
        Some(i) => m.color_aware_counted(p, now, len, i, c),
    });
    check(c, pk, by);
    let r4 = Rfc4115Profile::new(&Rfc4115Config::default()).unwrap();
    let (c, pk, by) = run::<Rfc4115>(&r4, 3, |m, p, now, len, input, c| match input {
        None => m.color_blind_counted(p, now, len, c),
        Some(i) => m.color_aware_counted(p, now, len, i, c),
    });
    check(c, pk, by);
    // Through the trait, on the compact state.
    let cp = CompactProfile::new(tr).unwrap();
    let (c, pk, by) = run::<Compact<TrTcm>>(&cp, 4, |m, p, now, len, input, c| match input {
        None => ThreeColorMarker::color_blind_counted(m, p, now, len, c),
        Some(i) => ThreeColorMarker::color_aware_counted(m, p, now, len, i, c),
    });
    check(c, pk, by);
}

#[test]
fn packet_mode_counts_packets_and_their_bytes() {
    let p = SrTcmProfile::new(&SrTcmConfig::packets(1000, 10, 10)).unwrap();
    let (mut plain, mut counted) = (SrTcm::new(&p, Instant::ZERO), SrTcm::new(&p, Instant::ZERO));
    let mut c = Counters::default();
    for i in 0..1000u64 {
        let now = Instant::from_ticks(i * 500_000);
        let want = plain.color_blind_packet(&p, now);
        let got = if i % 2 == 0 {
            counted.color_blind_packet_counted(&p, now, 1500, &mut c)
        } else {
            counted.color_aware_packet_counted(&p, now, 1500, Color::Green, &mut c)
        };
        assert_eq!(got, want);
    }
    // 0.5 s at 1000 packets/s plus 10 + 10 in the buckets: 519 or 520 pass.
    let passed = c.packets(Color::Green) + c.packets(Color::Yellow);
    assert!((519..=520).contains(&passed), "{passed}");
    assert_eq!(c.total_packets(), 1000);
    assert_eq!(c.total_bytes(), 1_500_000);
}

#[test]
fn the_policer_counts_conformance_and_drops() {
    let p = PremiumPolicerProfile::new(&PremiumPolicerConfig::default().with_pbs(3000)).unwrap();
    let (mut plain, mut counted) = (
        PremiumPolicer::new(&p, Instant::ZERO),
        PremiumPolicer::new(&p, Instant::ZERO),
    );
    let mut c = Counters::default();
    let mut tally = [0u64; 3];
    let mut r = SplitMix64::new(9);
    let mut t = 0;
    for _ in 0..20_000u64 {
        t += u64::from(r.below(60_000_000));
        let now = Instant::from_ticks(t);
        let len = 40 + r.below(1461);
        let want = plain.offer(&p, now, len);
        assert_eq!(counted.offer_counted(&p, now, len, &mut c), want);
        tally[want.index()] += 1;
        if r.below(3) == 0 {
            plain.dequeued(1500);
            counted.dequeued(1500);
        }
    }
    let [admitted, policer, buffer] = tally;
    assert!(admitted > 0 && policer > 0 && buffer > 0, "{tally:?}");
    assert_eq!(c.packets(Color::Green), admitted + buffer);
    assert_eq!(c.packets(Color::Red), policer);
    assert_eq!(c.packets(Color::Yellow), 0);
    assert_eq!(c.dropped_packets, policer + buffer);
    let _ = PolicerVerdict::ALL;
}

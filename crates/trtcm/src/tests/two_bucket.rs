//! What the macros of `two_bucket.rs` write, item by item, for every type they
//! write it for (cargo-mutants does not mutate inside a macro's body).

use crate::*;
use netcond_core::{BucketProfile, Instant, Rate, TickRate};

/// Each builder sets its own field and leaves every other one as it was.
#[test]
fn builders_set_their_field_only() {
    let r = Rate::from_bytes_per_sec(123_456);
    let t = TickRate::MICROS;
    let m = Mode::Packets;

    let d = SrTcmConfig::default();
    assert_eq!(d.with_mode(m), SrTcmConfig { mode: m, ..d });
    assert_eq!(d.with_cir(r), SrTcmConfig { cir: r, ..d });
    assert_eq!(d.with_cbs(7), SrTcmConfig { cbs: 7, ..d });
    assert_eq!(d.with_ebs(9), SrTcmConfig { ebs: 9, ..d });
    assert_eq!(d.with_tick(t), SrTcmConfig { tick: t, ..d });

    let d = TrTcmConfig::default();
    assert_eq!(d.with_mode(m), TrTcmConfig { mode: m, ..d });
    assert_eq!(d.with_cir(r), TrTcmConfig { cir: r, ..d });
    assert_eq!(d.with_pir(r), TrTcmConfig { pir: r, ..d });
    assert_eq!(d.with_cbs(7), TrTcmConfig { cbs: 7, ..d });
    assert_eq!(d.with_pbs(9), TrTcmConfig { pbs: 9, ..d });
    assert_eq!(d.with_tick(t), TrTcmConfig { tick: t, ..d });

    let d = Rfc4115Config::default();
    assert_eq!(d.with_mode(m), Rfc4115Config { mode: m, ..d });
    assert_eq!(d.with_cir(r), Rfc4115Config { cir: r, ..d });
    assert_eq!(d.with_eir(r), Rfc4115Config { eir: r, ..d });
    assert_eq!(d.with_cbs(7), Rfc4115Config { cbs: 7, ..d });
    assert_eq!(d.with_ebs(9), Rfc4115Config { ebs: 9, ..d });
    assert_eq!(d.with_tick(t), Rfc4115Config { tick: t, ..d });

    let d = PremiumPolicerConfig::default();
    assert_eq!(d.with_mode(m), PremiumPolicerConfig { mode: m, ..d });
    assert_eq!(d.with_rate(r), PremiumPolicerConfig { rate: r, ..d });
    assert_eq!(d.with_tbs(7), PremiumPolicerConfig { tbs: 7, ..d });
    assert_eq!(d.with_pbs(9), PremiumPolicerConfig { pbs: 9, ..d });
    assert_eq!(
        d.with_max_packet(11),
        PremiumPolicerConfig {
            max_packet: 11,
            ..d
        }
    );
    assert_eq!(d.with_tick(t), PremiumPolicerConfig { tick: t, ..d });
}

/// The profile's and state's items of one marker: `c` and `second` are the
/// buckets the profile was built from (C 1000 B/s, 100 B; the second 2000 B/s,
/// 300 B; millisecond ticks, so one unit is one byte).
macro_rules! check_marker {
    ($state:ident, $profile:expr, $packets:expr, $second:ident, $t2:ident, $t2_at:ident) => {{
        let p = $profile;
        let pk = $packets;
        let c = BucketProfile::new(Rate::from_bytes_per_sec(1000), 100, TickRate::MILLIS).unwrap();
        let e = BucketProfile::new(Rate::from_bytes_per_sec(2000), 300, TickRate::MILLIS).unwrap();
        assert_eq!(*p.committed(), c);
        assert_eq!(*p.$second(), e);
        assert_eq!(p.mode(), Mode::Bytes);
        assert_eq!(pk.mode(), Mode::Packets);
        assert_eq!((p.units(1500), pk.units(1500)), (1500, 1));
        assert_eq!((p.units(0), pk.units(0)), (0, 1));
        assert_eq!(p.bucket_c().full(), 100);
        assert_eq!(p.bucket_c().b, c);
        assert_eq!(p.bucket_c().fill_ticks, 100);
        assert!(p.on_fast_path());
        let g = p.general_path_only();
        assert!(!g.on_fast_path());
        assert_eq!(g.mode(), p.mode());

        let t0 = Instant::from_ticks(40);
        let s = $state::new(&p, t0);
        assert_eq!((s.tc(), s.$t2(), s.last()), (100, 300, t0));
        let s = $state::from_parts(&p, 10, 20, t0);
        assert_eq!((s.tc(), s.$t2(), s.last()), (10, 20, t0));
        assert_eq!(s.second_count(), 20);
        // Clamped to the buckets.
        let s = $state::from_parts(&p, 101, 301, t0);
        assert_eq!((s.tc(), s.$t2()), (100, 300));
        let s = $state::from_counts([3, 4], t0);
        assert_eq!((s.tc(), s.$t2(), s.second_count(), s.last()), (3, 4, 4, t0));
        // 30 ms later C holds 30 bytes more; earlier, what it held.
        let s = $state::from_parts(&p, 10, 0, t0);
        assert_eq!(s.tc_at(&p, Instant::from_ticks(70)), 40);
        assert_eq!(s.tc_at(&p, Instant::from_ticks(10)), 10);
        assert_eq!(s.tc_at(&p, Instant::from_ticks(1000)), 100);
        let _ = s.$t2_at(&p, Instant::from_ticks(70));
    }};
}

fn rates() -> (Rate, Rate) {
    (
        Rate::from_bytes_per_sec(1000),
        Rate::from_bytes_per_sec(2000),
    )
}

#[test]
fn trtcm_items() {
    let (c, e) = rates();
    let cfg = TrTcmConfig::new(c, e, 100, 300).with_tick(TickRate::MILLIS);
    let p = TrTcmProfile::new(&cfg).unwrap();
    let pk = TrTcmProfile::new(&cfg.with_mode(Mode::Packets)).unwrap();
    check_marker!(TrTcm, p, pk, peak, tp, tp_at);
    assert_eq!(p.bucket_p().b, *p.peak());
    assert_eq!(p.bucket_p().full(), 300);
    assert_eq!(p.bucket_p().fill_ticks, 150);
}

#[test]
fn rfc4115_items() {
    let (c, e) = rates();
    let cfg = Rfc4115Config::new(c, e, 100, 300).with_tick(TickRate::MILLIS);
    let p = Rfc4115Profile::new(&cfg).unwrap();
    let pk = Rfc4115Profile::new(&cfg.with_mode(Mode::Packets)).unwrap();
    check_marker!(Rfc4115, p, pk, excess, te, te_at);
    assert_eq!(p.bucket_e().b, *p.excess());
    assert_eq!(p.bucket_e().full(), 300);
    assert_eq!(p.bucket_e().fill_ticks, 150);
}

#[test]
fn srtcm_items() {
    // The srTCM's E has C's rate: only C's bucket is checked against the
    // shared one here, E against its own.
    let (c, _) = rates();
    let cfg = SrTcmConfig::new(c, 100, 300).with_tick(TickRate::MILLIS);
    let p = SrTcmProfile::new(&cfg).unwrap();
    let pk = SrTcmProfile::new(&cfg.with_mode(Mode::Packets)).unwrap();
    let e = BucketProfile::new(c, 300, TickRate::MILLIS).unwrap();
    assert_eq!(*p.excess(), e);
    assert_eq!(p.bucket_e().b, e);
    assert_eq!(p.bucket_e().full(), 300);
    assert_eq!(*p.committed(), p.bucket_c().b);
    assert_eq!((p.mode(), pk.mode()), (Mode::Bytes, Mode::Packets));
    assert_eq!((p.units(9), pk.units(9)), (9, 1));
    assert!(p.on_fast_path() && !p.general_path_only().on_fast_path());
    let t0 = Instant::from_ticks(40);
    let s = SrTcm::new(&p, t0);
    assert_eq!((s.tc(), s.te(), s.last()), (100, 300, t0));
    let s = SrTcm::from_parts(&p, 101, 20, t0);
    assert_eq!((s.tc(), s.te(), s.second_count()), (100, 20, 20));
    let s = SrTcm::from_counts([3, 4], t0);
    assert_eq!((s.tc(), s.te(), s.last()), (3, 4, t0));
    let s = SrTcm::from_parts(&p, 10, 0, t0);
    assert_eq!(s.tc_at(&p, Instant::from_ticks(70)), 40);
    assert_eq!(s.tc_at(&p, Instant::from_ticks(10)), 10);
}

//! Differential tests: each meter against its reference model, packet by
//! packet, over random streams.

use super::*;

#[test]
fn et_marker_matches_reference() {
    let mut cfgs = SplitMix64::new(1);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let sr = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let s = u64::from(cfgs.below(12_000));
        let marking = if cfgs.below(2) == 0 {
            EtMarking::TailMarking
        } else {
            let mtu = 1 + cfgs.below(9000);
            EtMarking::SizeIndependent { mtu }
        };
        let bucket = match marking {
            EtMarking::SizeIndependent { mtu } => bucket.max(u64::from(mtu)),
            EtMarking::TailMarking => bucket,
        };
        let c = EtMarkerConfig {
            sr,
            bucket_size: bucket,
            s,
            already_et_adds_s: cfgs.below(2) == 0,
            marking,
            tick,
        };
        let Ok(p) = EtMarkerProfile::new(&c) else {
            continue;
        };
        built += 1;
        // The bucket's size in units: its bytes at the profile's scale.
        assert_eq!(p.capacity_units(), bucket * p.units_per_byte());
        bad += differential::<EtMarker, _>(i, packets, &p, p.units_per_byte(), sr, tick, |t| {
            RefEtMarker::new(c, t)
        });
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn et_marker_sim48_matches_reference() {
    let mut cfgs = SplitMix64::new(2);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let c = EtMarkerSim48Config {
            pcn_pt: rate,
            pcn_tb: u64::from(cfgs.below(60_000)),
            pcn_px: u64::from(cfgs.below(12_000)) + 1000,
            tick,
        };
        let Ok(p) = EtMarkerSim48Profile::new(&c) else {
            continue;
        };
        built += 1;
        // The bucket's size in units: its bytes at the profile's scale.
        assert_eq!(p.capacity_units(), c.pcn_tb * p.units_per_byte());
        assert_eq!(p.px_units(), c.pcn_px * p.units_per_byte());
        bad +=
            differential::<EtMarkerSim48, _>(i, packets, &p, p.units_per_byte(), rate, tick, |t| {
                RefEtMarkerSim48::new(c, t)
            });
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn as_marker_matches_reference() {
    let mut cfgs = SplitMix64::new(3);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let c = AsMarkerConfig {
            ar: rate,
            bucket_size: bucket,
            threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
            form: if cfgs.below(2) == 0 {
                AsForm::DraftExplicitMarking01
            } else {
                AsForm::Draft3sm01
            },
            tick,
        };
        let Ok(p) = AsMarkerProfile::new(&c) else {
            continue;
        };
        built += 1;
        // The bucket's size in units: its bytes at the profile's scale.
        assert_eq!(p.capacity_units(), bucket * p.units_per_byte());
        bad += differential::<AsMarker, _>(i, packets, &p, p.units_per_byte(), rate, tick, |t| {
            RefAsMarker::new(c, t)
        });
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn threshold_meter_matches_reference() {
    let mut cfgs = SplitMix64::new(4);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000));
        let c = ThresholdMeterConfig {
            threshold_rate: rate,
            bs_tm: bucket,
            threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
            tick,
        };
        let Ok(p) = ThresholdMeterProfile::new(&c) else {
            continue;
        };
        built += 1;
        bad += differential::<ThresholdMeter, _>(
            i,
            packets,
            &p,
            p.units_per_byte(),
            rate,
            tick,
            |t| RefThresholdMeter::new(c, t),
        );
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

#[test]
fn excess_meter_matches_reference() {
    let mut cfgs = SplitMix64::new(5);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let c = ExcessTrafficMeterConfig {
            excess_rate: rate,
            bs_etm: u64::from(cfgs.below(60_000)),
            mode: match cfgs.below(3) {
                0 => ExcessMode::SizeIndependent,
                1 => ExcessMode::Classic(ClassicTie::Section2_4),
                _ => ExcessMode::Classic(ClassicTie::AppendixB6),
            },
            tick,
        };
        let Ok(p) = ExcessTrafficMeterProfile::new(&c) else {
            continue;
        };
        built += 1;
        // The bucket's size in units: its bytes at the profile's scale.
        assert_eq!(p.capacity_units(), c.bs_etm * p.units_per_byte());
        bad += differential::<ExcessTrafficMeter, _>(
            i,
            packets,
            &p,
            p.units_per_byte(),
            rate,
            tick,
            |t| RefExcessTrafficMeter::new(c, t),
        );
    }
    assert!(built > min_built, "only {built} configurations built");
    assert!(
        marked_so_far() > min_marked,
        "streams marked only {} packets",
        marked_so_far()
    );
    assert_eq!(bad, 0, "mismatches");
}

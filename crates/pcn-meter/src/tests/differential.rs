//! Differential tests: each meter against its reference model, packet by
//! packet, over random streams.

use super::*;

/// One differential test: `DIFF`'s configurations from the stream `seed`,
/// each drawn by `draw` after its clock and rate; every one that validates
/// (`build`) runs a random stream through the meter and through the model
/// that `reference` starts, and must agree on every packet. `units` checks
/// what the profile says of its buckets and gives its units per byte.
fn meter_matches_reference<M: PcnMeter, C: Copy, R: Model>(
    seed: u64,
    mut draw: impl FnMut(&mut SplitMix64, TickRate, Rate) -> C,
    build: impl Fn(&C) -> Option<M::Profile>,
    units: impl Fn(&C, &M::Profile) -> u64,
    reference: impl Fn(C, Instant) -> R,
) {
    let mut cfgs = SplitMix64::new(seed);
    let (mut bad, mut built) = (0, 0);
    let (configs, packets, min_built, min_marked) = DIFF;
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let c = draw(&mut cfgs, tick, rate);
        let Some(p) = build(&c) else {
            continue;
        };
        built += 1;
        let per_byte = units(&c, &p);
        bad += differential::<M, _>(i, packets, &p, per_byte, rate, tick, |t| reference(c, t));
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
fn et_marker_matches_reference() {
    meter_matches_reference::<EtMarker, _, _>(
        1,
        |cfgs, tick, sr| {
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
            EtMarkerConfig {
                sr,
                bucket_size: bucket,
                s,
                already_et_adds_s: cfgs.below(2) == 0,
                marking,
                tick,
            }
        },
        |c| EtMarkerProfile::new(c).ok(),
        |c, p| {
            // The bucket's size in units: its bytes at the profile's scale.
            assert_eq!(p.capacity_units(), c.bucket_size * p.units_per_byte());
            p.units_per_byte()
        },
        RefEtMarker::new,
    );
}

#[test]
fn et_marker_sim48_matches_reference() {
    meter_matches_reference::<EtMarkerSim48, _, _>(
        2,
        |cfgs, tick, rate| EtMarkerSim48Config {
            pcn_pt: rate,
            pcn_tb: u64::from(cfgs.below(60_000)),
            pcn_px: u64::from(cfgs.below(12_000)) + 1000,
            tick,
        },
        |c| EtMarkerSim48Profile::new(c).ok(),
        |c, p| {
            assert_eq!(p.capacity_units(), c.pcn_tb * p.units_per_byte());
            assert_eq!(p.px_units(), c.pcn_px * p.units_per_byte());
            p.units_per_byte()
        },
        RefEtMarkerSim48::new,
    );
}

#[test]
fn as_marker_matches_reference() {
    meter_matches_reference::<AsMarker, _, _>(
        3,
        |cfgs, tick, rate| {
            let bucket = u64::from(cfgs.below(60_000));
            AsMarkerConfig {
                ar: rate,
                bucket_size: bucket,
                threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
                form: if cfgs.below(2) == 0 {
                    AsForm::DraftExplicitMarking01
                } else {
                    AsForm::Draft3sm01
                },
                tick,
            }
        },
        |c| AsMarkerProfile::new(c).ok(),
        |c, p| {
            assert_eq!(p.capacity_units(), c.bucket_size * p.units_per_byte());
            p.units_per_byte()
        },
        RefAsMarker::new,
    );
}

#[test]
fn threshold_meter_matches_reference() {
    meter_matches_reference::<ThresholdMeter, _, _>(
        4,
        |cfgs, tick, rate| {
            let bucket = u64::from(cfgs.below(60_000));
            ThresholdMeterConfig {
                threshold_rate: rate,
                bs_tm: bucket,
                threshold: u64::from(cfgs.next_u32()) % (bucket + 1),
                tick,
            }
        },
        |c| ThresholdMeterProfile::new(c).ok(),
        |_, p| p.units_per_byte(),
        RefThresholdMeter::new,
    );
}

#[test]
fn excess_meter_matches_reference() {
    meter_matches_reference::<ExcessTrafficMeter, _, _>(
        5,
        |cfgs, tick, rate| ExcessTrafficMeterConfig {
            excess_rate: rate,
            bs_etm: u64::from(cfgs.below(60_000)),
            mode: match cfgs.below(3) {
                0 => ExcessMode::SizeIndependent,
                1 => ExcessMode::Classic(ClassicTie::Section2_4),
                _ => ExcessMode::Classic(ClassicTie::AppendixB6),
            },
            tick,
        },
        |c| ExcessTrafficMeterProfile::new(c).ok(),
        |c, p| {
            assert_eq!(p.capacity_units(), c.bs_etm * p.units_per_byte());
            p.units_per_byte()
        },
        RefExcessTrafficMeter::new,
    );
}

//! Facts from the sources: the AS-marker.

use super::*;

#[test]
fn as_marks_every_packet_above_ar_and_none_well_below() {
    // draft-babiarz-pcn-explicit-marking-01 section 3.2: TB.size 20 KB, threshold 10 KB; AR 1 Mbps; 200 B packets.
    for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
        let c = AsMarkerConfig {
            ar: Rate::from_mbps(1),
            bucket_size: 20_000,
            threshold: 10_000,
            form,
            tick: TickRate::NANOS,
        };
        let p = AsMarkerProfile::new(&c).unwrap();
        // 1.1 x AR: 137,500 B/s, 200 B every 1,454,545 ns.
        let mut m = AsMarker::new(&p, ns(0));
        let mut unmarked_late = 0;
        // 2.3 s under Miri: past the 0.8 s the bucket needs to settle.
        let n = if cfg!(miri) { 1_600 } else { 20_000u64 };
        for i in 0..n {
            let out = m.mark(&p, ns(i * 1_454_545), G711, PcnMark::Nm);
            // The bucket needs (20,000 - 10,000) / 12,500 B/s = 0.8 s to settle.
            if i * 1_454_545 > 2_000_000_000 && out != PcnMark::Thm {
                unmarked_late += 1;
            }
        }
        assert_eq!(unmarked_late, 0, "{form:?}");
        // 0.8 x AR: never marked (40 s natively, 0.8 s under Miri).
        let mut m = AsMarker::new(&p, ns(0));
        let below = if cfg!(miri) { 400 } else { n };
        for i in 0..below {
            assert_eq!(
                m.mark(&p, ns(i * 2_000_000), G711, PcnMark::Nm),
                PcnMark::Nm,
                "{form:?}"
            );
        }
    }
}

#[test]
fn as_meters_only_non_et_packets() {
    let p = AsMarkerProfile::new(&AsMarkerConfig::draft_explicit_marking_01(
        Rate::from_mbps(1),
        20_000,
        10_000,
    ))
    .unwrap();
    let mut m = AsMarker::new(&p, ns(0));
    let n = if cfg!(miri) { 100 } else { 1000 };
    for _ in 0..n {
        assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::Etm), PcnMark::Etm);
        assert_eq!(m.mark(&p, ns(0), 1500, PcnMark::NotPcn), PcnMark::NotPcn);
    }
    assert_eq!(m.fill_units(), p.capacity_units());
    // draft-babiarz-pcn-explicit-marking-01's form: a packet larger than the fill is marked and takes nothing;
    // draft form: the fill test comes first and the bucket empties.
    let mut a = AsMarker::new(&p, ns(0));
    assert_eq!(a.mark(&p, ns(0), 15_000, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(a.fill_units(), 5_000 * p.units_per_byte());
    assert_eq!(a.mark(&p, ns(0), 6_000, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(a.fill_units(), 5_000 * p.units_per_byte());
    let pd = AsMarkerProfile::new(&AsMarkerConfig::draft_3sm01(
        Rate::from_mbps(1),
        20_000,
        10_000,
    ))
    .unwrap();
    let mut d = AsMarker::new(&pd, ns(0));
    assert_eq!(d.mark(&pd, ns(0), 15_000, PcnMark::Nm), PcnMark::Nm);
    assert_eq!(d.mark(&pd, ns(0), 6_000, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(d.fill_units(), 0);
}

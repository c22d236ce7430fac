//! Extreme configurations: edge clocks, rates and sizes against the
//! reference models, exact debts, lengths that fit against held lengths,
//! refused configurations.

use super::*;
use netcond_core::State;

/// Runs the fixed packets `(time, len, mark)` through a fast meter and a
/// reference model started at `start`, expecting equal markings and levels
/// after every packet; returns the fast meter's final level.
fn replay<M: PcnMeter, R: Model>(
    profile: &M::Profile,
    per_byte: u64,
    start: u64,
    packets: &[(u64, u32, PcnMark)],
    make: impl FnOnce(Instant) -> R,
) -> i128 {
    let mut m = M::start(profile, ns(start));
    let mut model = make(ns(start));
    assert!(model.same(m.level(), per_byte), "start level");
    for (i, &(t, len, mark)) in packets.iter().enumerate() {
        let fast = meter_step(profile, &mut m, ns(t), len, mark).expect("invariant");
        let slow = model.step(ns(t), len, mark);
        assert_eq!(fast, slow, "packet {i} at {t} len {len} {mark:?}: marking");
        assert!(
            model.same(m.level(), per_byte),
            "packet {i} at {t} len {len} {mark:?}: fast level {}",
            m.level()
        );
    }
    m.level()
}

/// Clocks and rates at the edges of what the profiles accept.
const EDGE_HZ: [u64; 6] = [
    1,
    3,
    1_000_000_000,
    1 << 61,
    18_384_871_255_879_778_303,
    u64::MAX,
];
const EDGE_RATES: [u64; 6] = [0, 1, 251, 9227, 1 << 40, u64::MAX];
const T_MAX: u64 = (1 << 63) - 1;

/// A packet stream at the edges: huge and zero lengths, every marking, long
/// gaps up to 2^63 ticks and a step back in time.
fn edge_packets() -> [(u64, u32, PcnMark); 12] {
    use PcnMark::*;
    [
        (0, u32::MAX, Nm),
        (0, u32::MAX, Nm),
        (1, 0, Thm),
        (1 << 20, 1500, Nm),
        (1 << 62, u32::MAX, Nm),
        (1 << 62, u32::MAX, Etm),
        ((1 << 62) + 1, 64, Nm),
        (5, 64, Nm),
        ((1 << 62) + 3, u32::MAX, Thm),
        (T_MAX - 1, 1, NotPcn),
        (T_MAX, u32::MAX, Nm),
        (T_MAX, 9000, Nm),
    ]
}

/// Bucket sizes to try with a profile of `per_byte` units per byte: small ones
/// and the largest that stays below 2^62 units.
fn edge_sizes(per_byte: u64) -> [u64; 4] {
    [0, 1, 1500, ((1u64 << 62) - 1) / per_byte.max(1)]
}

/// Regression (fuzz, `reference.rs` line 183 of the unreduced models): the
/// AS-marker with AR 0, TB.size 2,596,939,812,627,471,323 B and a
/// 18,384,871,255,879,778,303 Hz clock was accepted (a zero rate made one byte
/// one unit), and `TB.size * 8 hz` overflowed the reference's `i128`. A zero
/// AR is now refused (RFC 5670 section 2.3 by analogy: no token is ever
/// added), and so is any rate on that clock with that bucket.
#[test]
fn reference_as_marker_zero_rate_huge_clock() {
    for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
        let mut c = AsMarkerConfig {
            ar: Rate::from_bits_per_sec(0),
            bucket_size: 2_596_939_812_627_471_323,
            threshold: 2_000_000_000_000_000_000,
            form,
            tick: TickRate::from_hz(18_384_871_255_879_778_303).unwrap(),
        };
        assert_eq!(AsMarkerProfile::new(&c), Err(AsMarkerError::ZeroRate));
        c.ar = Rate::from_bits_per_sec(1);
        assert_eq!(AsMarkerProfile::new(&c), Err(AsMarkerError::TooLarge));
    }
}

/// Regression (fuzz, `reference.rs` lines 31, 71, 132, 183, 250 and 301 of the
/// unreduced models): every model stays total and equal to its fast meter on
/// configurations at the edges of what the profiles accept (clocks up to
/// `u64::MAX` Hz, zero and `u64::MAX` rates, the largest buckets, `u32::MAX`-byte
/// packets, 2^63-tick gaps).
#[test]
#[cfg_attr(
    miri,
    ignore = "10,000 edge configurations: overflow at the limits of the arithmetic, \
              which the overflow checks catch natively; Miri takes minutes"
)]
fn references_total_on_edge_configurations() {
    let mut built = [0usize; 5];
    for hz in EDGE_HZ {
        let tick = TickRate::from_hz(hz).unwrap();
        for bits in EDGE_RATES {
            let rate = Rate::from_bits_per_sec(bits);
            let Ok(p0) = ThresholdMeterProfile::new(&ThresholdMeterConfig {
                threshold_rate: rate,
                bs_tm: 1,
                threshold: 0,
                tick,
            }) else {
                continue;
            };
            for size in edge_sizes(p0.units_per_byte()) {
                let c = ThresholdMeterConfig {
                    threshold_rate: rate,
                    bs_tm: size,
                    threshold: size / 2,
                    tick,
                };
                if let Ok(p) = ThresholdMeterProfile::new(&c) {
                    built[0] += 1;
                    replay::<ThresholdMeter, _>(&p, p.units_per_byte(), 0, &edge_packets(), |t| {
                        RefThresholdMeter::new(c, t)
                    });
                }
                for mode in [
                    ExcessMode::SizeIndependent,
                    ExcessMode::Classic(ClassicTie::Section2_4),
                    ExcessMode::Classic(ClassicTie::AppendixB6),
                ] {
                    let c = ExcessTrafficMeterConfig {
                        excess_rate: rate,
                        bs_etm: size,
                        mode,
                        tick,
                    };
                    if let Ok(p) = ExcessTrafficMeterProfile::new(&c) {
                        built[1] += 1;
                        replay::<ExcessTrafficMeter, _>(
                            &p,
                            p.units_per_byte(),
                            0,
                            &edge_packets(),
                            |t| RefExcessTrafficMeter::new(c, t),
                        );
                    }
                }
                for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
                    let c = AsMarkerConfig {
                        ar: rate,
                        bucket_size: size,
                        threshold: size / 3,
                        form,
                        tick,
                    };
                    if let Ok(p) = AsMarkerProfile::new(&c) {
                        built[2] += 1;
                        replay::<AsMarker, _>(&p, p.units_per_byte(), 0, &edge_packets(), |t| {
                            RefAsMarker::new(c, t)
                        });
                    }
                }
                for px in [0, 1, size] {
                    let c = EtMarkerSim48Config {
                        pcn_pt: rate,
                        pcn_tb: size,
                        pcn_px: px,
                        tick,
                    };
                    if let Ok(p) = EtMarkerSim48Profile::new(&c) {
                        built[3] += 1;
                        replay::<EtMarkerSim48, _>(
                            &p,
                            p.units_per_byte(),
                            0,
                            &edge_packets(),
                            |t| RefEtMarkerSim48::new(c, t),
                        );
                    }
                }
                for marking in [
                    EtMarking::TailMarking,
                    EtMarking::SizeIndependent { mtu: 1 },
                    EtMarking::SizeIndependent { mtu: 1500 },
                    EtMarking::SizeIndependent { mtu: u32::MAX },
                ] {
                    for s in [0, 1, 3000, u64::MAX] {
                        for already_et_adds_s in [false, true] {
                            let c = EtMarkerConfig {
                                sr: rate,
                                bucket_size: size,
                                s,
                                already_et_adds_s,
                                marking,
                                tick,
                            };
                            // With k > 1 the largest size is smaller: try it too.
                            let mut cs = [c, c];
                            if let Ok(p) = EtMarkerProfile::new(&EtMarkerConfig {
                                bucket_size: 1,
                                ..c
                            }) {
                                cs[1].bucket_size = ((1u64 << 62) - 1) / p.units_per_byte();
                            }
                            for c in cs {
                                if let Ok(p) = EtMarkerProfile::new(&c) {
                                    built[4] += 1;
                                    replay::<EtMarker, _>(
                                        &p,
                                        p.units_per_byte(),
                                        0,
                                        &edge_packets(),
                                        |t| RefEtMarker::new(c, t),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        built.iter().all(|&n| n > 20),
        "too few configurations built: {built:?}"
    );
}

/// Regression (fuzz, finding 3): excess rate 251 bit/s, BS_etm 0, ns clock,
/// one NM packet of `u32::MAX` bytes 2^62 ticks after the start. Its debt
/// (about 3.4e19 units) passes 2^62 units: the level goes to exactly minus
/// the packet's cost (it used to be held at -2^62), as in the reference,
/// which follows appendix A.2 with no limit.
#[test]
fn excess_meter_debt_is_exact() {
    let c = ExcessTrafficMeterConfig {
        excess_rate: Rate::from_bits_per_sec(251),
        bs_etm: 1,
        mode: ExcessMode::SizeIndependent,
        tick: TickRate::NANOS,
    };
    let p = ExcessTrafficMeterProfile::new(&c).unwrap();
    let per_byte = p.units_per_byte();
    assert_eq!(per_byte, 8_000_000_000);
    let t = 1u64 << 62;
    let one = [(t, u32::MAX, PcnMark::Nm)];
    let level = replay::<ExcessTrafficMeter, _>(&p, per_byte, 0, &one, |t| {
        RefExcessTrafficMeter::new(c, t)
    });
    assert_eq!(level, -(i128::from(u32::MAX - 1) * i128::from(per_byte)));
    // Then: marked while negative, and the refill from the debt agrees too.
    let packets = [
        one[0],
        (t + 1, 1500, PcnMark::Nm),
        (t + 1_000_000_000, 64, PcnMark::Thm),
        (t + (1 << 61), 1500, PcnMark::Nm),
        (T_MAX, 1500, PcnMark::Nm),
        (T_MAX, 1500, PcnMark::Nm),
    ];
    replay::<ExcessTrafficMeter, _>(&p, per_byte, 0, &packets, |t| {
        RefExcessTrafficMeter::new(c, t)
    });
    // The same through the RFC 5670 node (finding 3 via `NodeRfc5670`).
    let tc = ThresholdMeterConfig {
        threshold_rate: Rate::from_bits_per_sec(251),
        bs_tm: 1,
        threshold: 0,
        tick: TickRate::NANOS,
    };
    let np = NodeProfile {
        excess: p,
        threshold: ThresholdMeterProfile::new(&tc).unwrap(),
    };
    let mut node = NodeRfc5670::new(&np, ns(0));
    let mut re = RefExcessTrafficMeter::new(c, ns(0));
    let mut rt = RefThresholdMeter::new(tc, ns(0));
    for &(t, len, mark) in &packets {
        let fast = node.mark(&np, ns(t), len, mark);
        let slow = rt.mark(ns(t), len, re.mark(ns(t), len, mark));
        assert_eq!(fast, slow, "node at {t}");
        assert!(re.fill_matches(node.excess.level(), per_byte));
        assert!(rt.fill_matches(node.threshold.level(), np.threshold.units_per_byte()));
    }
}

/// The ET-marker of draft-babiarz-pcn-explicit-marking-01 section 4.8 with packets of more than 2^62
/// units: fast and reference both charge them exactly (no floor).
#[test]
fn et_marker_sim48_debt_is_exact() {
    let c = EtMarkerSim48Config {
        pcn_pt: Rate::from_bits_per_sec(251),
        pcn_tb: 1,
        pcn_px: 0,
        tick: TickRate::NANOS,
    };
    let p = EtMarkerSim48Profile::new(&c).unwrap();
    let packets = [
        (1, u32::MAX, PcnMark::Nm),
        (2, u32::MAX, PcnMark::Nm),
        (1 << 62, 1500, PcnMark::Nm),
    ];
    let mut m = EtMarkerSim48::start(&p, ns(0));
    m.mark(&p, ns(1), u32::MAX, PcnMark::Nm);
    assert_eq!(
        m.level(),
        -(i128::from(u32::MAX - 1) * i128::from(p.units_per_byte()))
    );
    assert!(m.level() < -(1 << 62));
    replay::<EtMarkerSim48, _>(&p, p.units_per_byte(), 0, &packets, |t| {
        RefEtMarkerSim48::new(c, t)
    });
}

/// Runs one random stream through `fast` (a profile whose lengths fit, taking
/// the path that does not hold them) and through `held` (the same constants,
/// forced onto the path that holds every length at `len_over`), comparing the
/// marking and the whole state after every packet. Lengths cover zero, the
/// bucket size in bytes (`bucket`) and just beyond, and up to `u32::MAX`.
/// Returns the mismatches and the packets longer than the bucket.
fn fast_vs_held<M: PcnMeter + PartialEq + core::fmt::Debug>(
    seed: u64,
    packets: usize,
    fast: &M::Profile,
    held: &M::Profile,
    rate: Rate,
    tick: TickRate,
    bucket: u64,
) -> (usize, usize) {
    let mut r = SplitMix64::new(seed);
    let mut t = u64::from(r.next_u32());
    let (mut a, mut b) = (M::start(fast, ns(t)), M::start(held, ns(t)));
    let (mut bad, mut long) = (0, 0);
    for _ in 0..packets {
        let len = match r.below(8) {
            0 => u32::MAX - r.below(3),
            1 => u32::try_from(bucket + u64::from(r.below(3))).unwrap_or(u32::MAX),
            2 => r.next_u32(),
            _ => pick_len(&mut r),
        };
        long += usize::from(u64::from(len) > bucket);
        let (step, back) = pick_step(&mut r, rate, tick, len);
        t = if back {
            t.saturating_sub(step)
        } else {
            t + step
        };
        let mark = MARKS[r.below(4) as usize];
        let (x, y) = (
            a.mark(fast, ns(t), len, mark),
            b.mark(held, ns(t), len, mark),
        );
        bad += usize::from(x != y || a != b);
    }
    (bad, long)
}

/// The meters whose lengths fit skip holding them (`Units::held`); the same
/// profiles forced to hold every length give the same markings and states,
/// packets longer than the bucket (up to `u32::MAX` bytes) included.
#[test]
fn lengths_that_fit_are_not_held_with_the_same_results() {
    let mut cfgs = SplitMix64::new(9);
    let (configs, packets) = if cfg!(miri) { (4, 60) } else { (200, 2000) };
    let (mut bad, mut long, mut fit, mut unfit) = (0, 0, 0, 0);
    let mut tally = |(b, l): (usize, usize), f: bool| {
        bad += b;
        long += l;
        fit += usize::from(f);
    };
    for i in 0..configs {
        let tick = pick_tick(&mut cfgs);
        let rate = pick_rate(&mut cfgs);
        let bucket = u64::from(cfgs.below(60_000)) + 1;
        let threshold = u64::from(cfgs.below(60_000)).min(bucket);
        let mtu = 1 + cfgs.below(9000).min(bucket as u32 - 1);
        let s = u64::from(cfgs.below(12_000));
        for marking in [EtMarking::TailMarking, EtMarking::SizeIndependent { mtu }] {
            let c = EtMarkerConfig {
                sr: rate,
                bucket_size: bucket,
                s,
                already_et_adds_s: i % 2 == 0,
                marking,
                tick,
            };
            let Ok(p) = EtMarkerProfile::new(&c) else {
                continue;
            };
            let (h, f) = p.held_always();
            unfit += usize::from(!f);
            if f {
                tally(
                    fast_vs_held::<EtMarker>(i, packets, &p, &h, rate, tick, bucket),
                    f,
                );
            }
        }
        for form in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01] {
            let c = AsMarkerConfig {
                ar: rate,
                bucket_size: bucket,
                threshold,
                form,
                tick,
            };
            let Ok(p) = AsMarkerProfile::new(&c) else {
                continue;
            };
            let (h, f) = p.held_always();
            unfit += usize::from(!f);
            if f {
                tally(
                    fast_vs_held::<AsMarker>(i, packets, &p, &h, rate, tick, bucket),
                    f,
                );
            }
        }
        let c = ThresholdMeterConfig {
            threshold_rate: rate,
            bs_tm: bucket,
            threshold,
            tick,
        };
        if let Ok(p) = ThresholdMeterProfile::new(&c) {
            let (h, f) = p.held_always();
            unfit += usize::from(!f);
            if f {
                tally(
                    fast_vs_held::<ThresholdMeter>(i, packets, &p, &h, rate, tick, bucket),
                    f,
                );
            }
        }
    }
    assert_eq!(bad, 0, "mismatches");
    assert!(
        fit > configs as usize,
        "only {fit} profiles whose lengths fit"
    );
    assert!(long > fit, "only {long} packets beyond the bucket");
    // The random clocks and rates give profiles on both paths (the
    // differential tests against the reference models run both).
    if !cfg!(miri) {
        assert!(unfit > 10, "only {unfit} profiles that hold lengths");
    }
}

/// draft-babiarz-pcn-explicit-marking-01's AS-marker with a held length whose cost plus the threshold
/// exceeds an empty fill by more than 2^63 (a 1-byte bucket of about 2^61.6
/// units): still marked, as the reference model says (the test of
/// `fill < size + threshold` once read the sign of a difference that wrapped).
#[test]
fn as_marker_explicit_marking_huge_units_marks_an_empty_bucket() {
    let c = AsMarkerConfig {
        ar: Rate::from_bits_per_sec(1),
        bucket_size: 1,
        threshold: 1,
        form: AsForm::DraftExplicitMarking01,
        tick: TickRate::from_hz(450_000_000_000_000_001).unwrap(),
    };
    let p = AsMarkerProfile::new(&c).unwrap();
    assert!(p.units_per_byte() > (1 << 63) / 3);
    let packets = [
        (0, 1, PcnMark::Nm),
        (0, 2, PcnMark::Nm),
        (0, u32::MAX, PcnMark::Nm),
        (1, 2, PcnMark::Thm),
    ];
    let mut m = AsMarker::start(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), 1, PcnMark::Nm), PcnMark::Thm);
    assert_eq!(m.fill_units(), 0);
    assert_eq!(m.mark(&p, ns(0), 2, PcnMark::Nm), PcnMark::Thm);
    replay::<AsMarker, _>(&p, p.units_per_byte(), 0, &packets, |t| {
        RefAsMarker::new(c, t)
    });
}

/// RFC 5670 appendix A.2 on a ns clock with an odd bit rate (1,000,000,001
/// bit/s: 8e9 units per byte, so a packet above 576,460,752 bytes costs more
/// than 2^62 units): a 4,294,967,295-byte packet is charged all its bytes
/// (it used to be charged 576,460,752), so the meter stays negative, and
/// marks, until that many bytes' worth of time has passed.
#[test]
fn excess_meter_charges_jumbo_packets_in_full() {
    let c = ExcessTrafficMeterConfig {
        excess_rate: Rate::from_bits_per_sec(1_000_000_001),
        bs_etm: 1500,
        mode: ExcessMode::SizeIndependent,
        tick: TickRate::NANOS,
    };
    let p = ExcessTrafficMeterProfile::new(&c).unwrap();
    let per_byte = p.units_per_byte();
    assert_eq!(per_byte, 8_000_000_000);
    let mut m = ExcessTrafficMeter::new(&p, ns(0));
    assert_eq!(m.mark(&p, ns(0), u32::MAX, PcnMark::Nm), PcnMark::Nm);
    let debt = i128::from(u32::MAX) * i128::from(per_byte) - i128::from(p.capacity_units());
    assert_eq!(m.level(), -debt);
    // The debt is repaid at 1,000,000,001 units per ns: marked before, not after.
    let repaid = u64::try_from(debt / 1_000_000_001 + 1).unwrap();
    assert_eq!(m.mark(&p, ns(repaid - 1), 0, PcnMark::Nm), PcnMark::Etm);
    assert_eq!(m.mark(&p, ns(repaid), 0, PcnMark::Nm), PcnMark::Nm);
    let packets = [
        (0, u32::MAX, PcnMark::Nm),
        (1, 1500, PcnMark::Nm),
        (repaid - 1, 1500, PcnMark::Thm),
        (repaid, 1500, PcnMark::Nm),
        (repaid, u32::MAX, PcnMark::Nm),
        (repaid + 1, u32::MAX, PcnMark::Nm),
    ];
    replay::<ExcessTrafficMeter, _>(&p, per_byte, 0, &packets, |t| {
        RefExcessTrafficMeter::new(c, t)
    });
}

/// draft-babiarz-pcn-explicit-marking-01 Fig. 9 at 12,499,999,999 B/s on a ns clock with packets of about
/// 1.2 GB: the exact count goes to about -5.2e9 bytes, below the -2^62 units
/// (-4.6e9 bytes) the count used to be held at; every mark now agrees with
/// the reference, which has no floor.
#[test]
#[cfg_attr(miri, ignore = "20,000 packets; Miri takes minutes")]
fn et_marker_sim48_has_no_floor_on_fig9_stream() {
    let c = EtMarkerSim48Config {
        pcn_pt: Rate::from_bytes_per_sec(12_499_999_999),
        pcn_tb: 60_000,
        pcn_px: 1_000_000,
        tick: TickRate::NANOS,
    };
    let p = EtMarkerSim48Profile::new(&c).unwrap();
    let mut m = EtMarkerSim48::start(&p, ns(0));
    let mut r = RefEtMarkerSim48::new(c, ns(0));
    let mut rng = netcond_core::SplitMix64::new(7);
    let mut t = 0u64;
    let mut lowest = i128::MAX;
    for i in 0..20_000 {
        t += 1 + rng.below(100_000_000) as u64;
        let len = 1_100_000_000 + rng.below(200_000_000);
        let (a, b) = (
            m.mark(&p, ns(t), len, PcnMark::Nm),
            r.mark(ns(t), len, PcnMark::Nm),
        );
        assert_eq!(a, b, "packet {i}");
        assert!(r.fill_matches(m.level(), p.units_per_byte()), "packet {i}");
        lowest = lowest.min(m.level());
    }
    let floor_bytes = -(1i128 << 62) / i128::from(p.units_per_byte());
    assert!(
        lowest / i128::from(p.units_per_byte()) < floor_bytes,
        "{lowest}"
    );
}

/// RFC 5670 sections 2.3 and 2.4 (and the 3sM markers by analogy): a zero
/// rate never adds a token and a zero bucket holds none; both are refused,
/// each with its own error.
#[test]
fn zero_rates_and_buckets_are_refused() {
    let r = Rate::from_mbps(1);
    let t = TickRate::NANOS;
    let tm = |rate, bs| {
        ThresholdMeterProfile::new(&ThresholdMeterConfig {
            threshold_rate: rate,
            bs_tm: bs,
            threshold: 0,
            tick: t,
        })
        .err()
    };
    assert_eq!(tm(Rate::ZERO, 1500), Some(Rfc5670Error::ZeroRate));
    assert_eq!(tm(r, 0), Some(Rfc5670Error::ZeroBucket));
    assert_eq!(tm(r, 1), None);
    let em = |rate, bs| {
        ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
            excess_rate: rate,
            bs_etm: bs,
            mode: ExcessMode::SizeIndependent,
            tick: t,
        })
        .err()
    };
    assert_eq!(em(Rate::ZERO, 1500), Some(Rfc5670Error::ZeroRate));
    assert_eq!(em(r, 0), Some(Rfc5670Error::ZeroBucket));
    assert_eq!(em(r, 1), None);
    let et = |rate, bs| {
        EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(rate, bs, 0)).err()
    };
    assert_eq!(et(Rate::ZERO, 1500), Some(EtMarkerError::ZeroRate));
    assert_eq!(et(r, 0), Some(EtMarkerError::ZeroBucket));
    assert_eq!(et(r, 1), None);
    let s48 = |rate, bs| {
        EtMarkerSim48Profile::new(&EtMarkerSim48Config {
            pcn_pt: rate,
            pcn_tb: bs,
            pcn_px: 1500,
            tick: t,
        })
        .err()
    };
    assert_eq!(s48(Rate::ZERO, 1500), Some(EtMarkerSim48Error::ZeroRate));
    assert_eq!(s48(r, 0), Some(EtMarkerSim48Error::ZeroBucket));
    assert_eq!(s48(r, 1), None);
    let asm = |rate, bs| {
        AsMarkerProfile::new(&AsMarkerConfig {
            ar: rate,
            bucket_size: bs,
            threshold: 0,
            form: AsForm::DraftExplicitMarking01,
            tick: t,
        })
        .err()
    };
    assert_eq!(asm(Rate::ZERO, 1500), Some(AsMarkerError::ZeroRate));
    assert_eq!(asm(r, 0), Some(AsMarkerError::ZeroBucket));
    assert_eq!(asm(r, 1), None);
}

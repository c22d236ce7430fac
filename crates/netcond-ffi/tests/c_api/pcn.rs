//! The C test `tests/c/pcn_test.c`, of the PCN meters and markers: its cases,
//! and its seeded streams against the same streams through the Rust API.

use super::*;
use pcn_meter::{
    AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, ClassicTie, EtMarker, EtMarkerConfig,
    EtMarkerProfile, EtMarking, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig,
    ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670, PcnMark, PcnMeter,
    ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};

const PACKETS: u32 = 100_000;

struct Pkt {
    now: u64,
    len: u32,
    mark: PcnMark,
}

/// The C side's `next_pkt`.
fn next_pkt(rng: &mut Rng, now: &mut u64) -> Pkt {
    let r = rng.next_u64();
    let kind = (r >> 8) % 1000;
    let m = (r >> 40) % 8;
    if kind == 0 && *now > 1_000_000 {
        *now -= 1_000_000;
    } else {
        *now += r % 900_000;
    }
    let mut len = 64 + ((r >> 20) % 1455) as u32;
    if kind == 1 {
        len = 0;
    }
    if kind == 2 {
        len = u32::MAX;
    }
    let code = match m {
        0..=4 => 2,
        7 => 3,
        _ => (m - 5) as u8,
    };
    Pkt {
        now: *now,
        len,
        mark: PcnMark::from_ecn(code),
    }
}

fn stream(
    name: &str,
    variant: u32,
    seed: u64,
    mut mark: impl FnMut(u64, u32, PcnMark) -> PcnMark,
) -> String {
    let mut rng = Rng(seed);
    let mut now = 0;
    let mut counts = [0u64; 4];
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        let v = mark(k.now, k.len, k.mark).ecn() as u64;
        counts[v as usize] += 1;
        hash = (hash ^ v).wrapping_mul(0x0100_0000_01b3);
    }
    format!(
        "{name}{variant} {} {} {} {} {hash:016x}",
        counts[0], counts[1], counts[2], counts[3]
    )
}

fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for v in 0..3u32 {
        let p = EtMarkerProfile::new(
            &EtMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_000_000), 30_000, 3000)
                .with_already_et_adds_s(v != 1)
                .with_marking(if v == 2 {
                    EtMarking::SizeIndependent { mtu: 1500 }
                } else {
                    EtMarking::TailMarking
                })
                .with_tick(HZ),
        )
        .unwrap();
        let mut m = EtMarker::new(&p, t(0));
        lines.push(stream("et", v, seed, |n, l, k| m.mark(&p, t(n), l, k)));
    }
    for (v, form) in [AsForm::DraftExplicitMarking01, AsForm::Draft3sm01]
        .into_iter()
        .enumerate()
    {
        let p = AsMarkerProfile::new(
            &AsMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                .with_form(form)
                .with_tick(HZ),
        )
        .unwrap();
        let mut m = AsMarker::new(&p, t(0));
        lines.push(stream("as", v as u32, seed, |n, l, k| {
            m.mark(&p, t(n), l, k)
        }));
    }
    let p = ThresholdMeterProfile::new(
        &ThresholdMeterConfig::new(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
            .with_tick(HZ),
    )
    .unwrap();
    let mut m = ThresholdMeter::new(&p, t(0));
    lines.push(stream("tm", 0, seed, |n, l, k| m.mark(&p, t(n), l, k)));
    let modes = [
        ExcessMode::SizeIndependent,
        ExcessMode::Classic(ClassicTie::Section2_4),
        ExcessMode::Classic(ClassicTie::AppendixB6),
    ];
    for (v, mode) in modes.into_iter().enumerate() {
        let p = ExcessTrafficMeterProfile::new(
            &ExcessTrafficMeterConfig::new(Rate::from_bytes_per_sec(1_000_000), 30_000)
                .with_mode(mode)
                .with_tick(HZ),
        )
        .unwrap();
        let mut m = ExcessTrafficMeter::new(&p, t(0));
        lines.push(stream("etm", v as u32, seed, |n, l, k| {
            m.mark(&p, t(n), l, k)
        }));
    }
    let p3 = NodeProfile {
        excess: EtMarkerProfile::new(
            &EtMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_000_000), 30_000, 3000)
                .with_tick(HZ),
        )
        .unwrap(),
        threshold: AsMarkerProfile::new(
            &AsMarkerConfig::draft_3sm01(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                .with_tick(HZ),
        )
        .unwrap(),
    };
    let mut m = <Node3sm as netcond_core::State>::start(&p3, t(0));
    lines.push(stream("node3sm", 0, seed, |n, l, k| {
        m.mark(&p3, t(n), l, k)
    }));
    let p5 = NodeProfile {
        excess: ExcessTrafficMeterProfile::new(
            &ExcessTrafficMeterConfig::new(Rate::from_bytes_per_sec(1_000_000), 30_000)
                .with_mode(ExcessMode::Classic(ClassicTie::Section2_4))
                .with_tick(HZ),
        )
        .unwrap(),
        threshold: ThresholdMeterProfile::new(
            &ThresholdMeterConfig::new(Rate::from_bytes_per_sec(1_200_000), 30_000, 15_000)
                .with_tick(HZ),
        )
        .unwrap(),
    };
    let mut m = <NodeRfc5670 as netcond_core::State>::start(&p5, t(0));
    lines.push(stream("node5670", 0, seed, |n, l, k| {
        m.mark(&p5, t(n), l, k)
    }));
    lines.extend(edge_streams(seed));
    lines
}

/// The C side's stop-blocking and CLE admission streams.
fn edge_streams(seed: u64) -> Vec<String> {
    use pcn_meter::{
        per_mille, Admission, CleAdmission, CleAdmissionConfig, CleAdmissionProfile,
        StopBlockingConfig, StopBlockingProfile, StopBlockingTimer,
    };
    const FNV: u64 = 0x0100_0000_01b3;
    let sp = StopBlockingProfile::new(
        &StopBlockingConfig::new(Duration::from_millis(1), false).with_tick(HZ),
    )
    .unwrap();
    let cp = CleAdmissionProfile::new(
        &CleAdmissionConfig::new(Duration::from_millis(20), per_mille(300), per_mille(200))
            .with_tick(HZ),
    )
    .unwrap();
    let mut tmr = StopBlockingTimer::new(&sp, t(0));
    let mut ca = CleAdmission::new(&cp, t(0));
    let mut rng = Rng(seed);
    let mut now = 0;
    let (mut c1, mut h1) = ([0u64; 4], 0xcbf2_9ce4_8422_2325u64);
    let (mut c2, mut h2) = ([0u64; 4], 0xcbf2_9ce4_8422_2325u64);
    let adm = |a: Admission| u64::from(a == Admission::Block);
    for _ in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        if k.mark == PcnMark::Etm {
            let v = u64::from(tmr.on_block(&sp, t(k.now)));
            c1[v as usize] += 1;
            h1 = (h1 ^ v).wrapping_mul(FNV);
        }
        if let Some(at) = tmr.poll(&sp, t(k.now)) {
            h1 = (h1 ^ at.ticks()).wrapping_mul(FNV);
        }
        let v = adm(tmr.admission()) + 2;
        c1[v as usize] += 1;
        h1 = (h1 ^ v).wrapping_mul(FNV);
        ca.on_packet(&cp, t(k.now), k.len, k.mark);
        if let Some(d) = ca.poll(&cp, t(k.now)) {
            let v = adm(d.admission) + 2 * u64::from(d.changed);
            c2[v as usize] += 1;
            h2 = (h2 ^ v).wrapping_mul(FNV);
            h2 = (h2 ^ d.cle.marked ^ (d.cle.total << 20) ^ d.end.ticks()).wrapping_mul(FNV);
        }
    }
    let line = |name: &str, c: [u64; 4], h: u64| {
        format!("{name}0 {} {} {} {} {h:016x}", c[0], c[1], c[2], c[3])
    };
    let mut lines = vec![line("stopblock", c1, h1), line("cle", c2, h2)];
    lines.extend((0..2).map(|b| egress_stream(seed, b)));
    lines
}

/// The C side's egress and decision stream for behaviour `b` (0 CL, 1 SM).
fn egress_stream(seed: u64, b: u32) -> String {
    use fixed::types::{U16F16, U1F31};
    use pcn_meter::{
        per_mille, Admission, DecisionConfig, DecisionPoint, DecisionProfile, EdgeBehaviour,
        EgressMeter, EgressMeterConfig, EgressMeterProfile, Suppression, Termination,
    };
    const FNV: u64 = 0x0100_0000_01b3;
    let behaviour = if b == 0 {
        EdgeBehaviour::ControlledLoad
    } else {
        EdgeBehaviour::SingleMarking {
            u: U16F16::from_bits(3 << 15),
        }
    };
    let ep = EgressMeterProfile::new(
        &EgressMeterConfig::controlled_load()
            .with_behaviour(behaviour)
            .with_t_meas(Duration::from_millis(20))
            .with_record_etm_flows(b == 0)
            .with_suppression(
                (b == 1).then_some(Suppression::new(per_mille(100), Duration::from_millis(100))),
            )
            .with_tick(HZ),
    )
    .unwrap();
    let dp = DecisionProfile::new(
        &DecisionConfig::controlled_load()
            .with_behaviour(behaviour)
            .with_cle_limit(U1F31::from_bits(((50u64 << 31) / 1000) as u32))
            .with_admission_enabled(true)
            .with_termination_enabled(true),
    )
    .unwrap();
    let mut m = EgressMeter::<u32, 16>::new(&ep, t(0));
    let mut pt = DecisionPoint::new(&dp, t(0));
    let mut rng = Rng(seed);
    let mut now = 0;
    let (mut c, mut h) = ([0u64; 4], 0xcbf2_9ce4_8422_2325u64);
    for _ in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        m.on_packet(&ep, t(k.now), k.len, k.mark, ((k.now >> 20) % 40) as u32);
        if let Some(r) = m.poll(&ep, t(k.now)) {
            let d = pt.on_report(&dp, &r);
            let (term, sar) = match d.termination {
                Termination::None => (0, 0),
                Termination::RequestSentRate => (1, 0),
                Termination::Terminate { sar } => (2, sar),
                // A step the C side cannot report: a value it never
                // produces, so the comparison fails.
                _ => (u64::MAX / 4, 0),
            };
            let v = u64::from(d.admission == Admission::Block) + 2 * term;
            // As the C side's run_add: counts for 0..3, every value hashed.
            if let Some(n) = c.get_mut(v as usize) {
                *n += 1;
            }
            h = (h ^ v).wrapping_mul(FNV);
            h = (h ^ r.nm_bytes ^ (r.etm_rate << 7) ^ sar ^ r.end.ticks()).wrapping_mul(FNV);
            for f in &r.etm_flows {
                h = (h ^ u64::from(*f)).wrapping_mul(FNV);
            }
        }
    }
    format!("egress{b} {} {} {} {} {h:016x}", c[0], c[1], c[2], c[3])
}

#[test]
fn pcn_cases_errors_and_bad_arguments() {
    c_cases("pcn_test", "all PCN cases passed");
}

#[test]
fn pcn_streams_through_c_equal_streams_through_rust() {
    c_streams("pcn_test", [5u64, 0xfeed_f00d], rust_streams, |rust| {
        // Every meter marked some packets (ThM or ETM out of NM in);
        // the timer blocked and admitted; CLE admission blocked and
        // admitted again.
        for line in &rust {
            let f = counts(line, 4);
            if line.starts_with("egress") {
                assert!(f.iter().sum::<u64>() > 100, "{line}");
            } else if line.starts_with("cle") {
                assert!(f[2] > 0 && f[3] > 0, "{line}");
            } else {
                assert!(f[2] > 0 && f[1] + f[3] > 0, "{line}");
            }
        }
    });
}

//! The egress against its model.

use super::*;

/// A random egress stream for [`check_egress`]: packets of every marking from
/// six flows, polls, steps around T_meas (and now and then a step back or a
/// jump of many intervals).
pub(super) fn egress_ops(r: &mut SplitMix64, n: usize, t_meas: u64) -> Vec<EgressOp> {
    (0..n)
        .map(|_| {
            let dt = match r.below(16) {
                0 => 0,
                1 => 0u64.wrapping_sub(u64::from(r.below(1000))),
                2 => t_meas * u64::from(r.below(5)),
                3 => t_meas,
                _ => r.next_u64() % (t_meas / 4 + 1),
            };
            if r.below(4) == 0 {
                EgressOp::Poll { dt }
            } else {
                EgressOp::Packet {
                    dt,
                    len: [0, 1, 64, 1500, u32::MAX][r.below(5) as usize],
                    mark: [PcnMark::NotPcn, PcnMark::Nm, PcnMark::Thm, PcnMark::Etm]
                        [r.below(4) as usize],
                    flow: r.below(6) as u16,
                }
            }
        })
        .collect()
}

/// The egress measurement, decision point and CLE admission against the
/// exact model of `invariants::check_egress`, on CL and SM, with and without
/// suppression, every admission and termination switch.
#[test]
fn egress_matches_its_model() {
    let mut r = SplitMix64::new(61);
    let runs = if cfg!(miri) { 4 } else { 300 };
    for i in 0..runs {
        let (ec, dc, cc) = egress_configs(&mut r, i);
        let ops = egress_ops(&mut r, 300, ec.tick.ticks_from_duration(ec.t_meas));
        check_egress(&ec, &dc, &cc, Instant::from_ticks(r.next_u64()), &ops)
            .unwrap_or_else(|e| panic!("run {i}: {e}: {ec:?} {dc:?} {cc:?}"));
    }
}

/// Configurations for [`egress_matches_its_model`] (nanosecond clock).
pub(super) fn egress_configs(
    r: &mut SplitMix64,
    i: u32,
) -> (EgressMeterConfig, DecisionConfig, CleAdmissionConfig) {
    use fixed::types::{U16F16, U1F31};
    let behaviour = if i % 2 == 0 {
        EdgeBehaviour::ControlledLoad
    } else {
        EdgeBehaviour::SingleMarking {
            u: U16F16::from_bits(65_536 + 1 + r.below(65_536)),
        }
    };
    let frac = |r: &mut SplitMix64| U1F31::from_bits(r.below((1 << 31) + 1));
    let ec = EgressMeterConfig {
        behaviour,
        t_meas: Duration::from_nanos(1 + u64::from(r.below(1_000_000))),
        record_etm_flows: r.below(2) == 0,
        suppression: (r.below(2) == 0).then(|| Suppression {
            cle_reporting_threshold: frac(r),
            t_maxsuppress: Duration::from_nanos(1 + u64::from(r.below(5_000_000))),
        }),
        tick: TickRate::NANOS,
    };
    let dc = DecisionConfig {
        behaviour,
        cle_limit: frac(r),
        admission_enabled: r.below(4) != 0,
        termination_enabled: r.below(4) != 0,
    };
    let (a, b) = (frac(r), frac(r));
    let cc = CleAdmissionConfig {
        interval: Duration::from_nanos(1 + u64::from(r.below(1_000_000))),
        stop: a.max(b),
        resume: a.min(b),
        tick: TickRate::NANOS,
    };
    (ec, dc, cc)
}

/// A T_meas that is not a whole number of ticks (1 ns on a 2.3 GHz clock: 2
/// ticks) and rates past `u64::MAX` octets per second: the meter measures
/// over the whole ticks and saturates its rates, and the model agrees. Four
/// ETM packets of `u32::MAX` bytes in one 2-tick interval are 2.3 x 10^9 x
/// (2^34 - 4) / 2 octets per second, past 2^64. Regression for the fuzz
/// input pcn_egress_cl/regress-rate-saturates (the model compared unsaturated
/// rates with the report's saturated ones).
#[test]
fn egress_rates_over_whole_ticks_saturate() {
    let tick = TickRate::from_hz(2_300_000_000).unwrap();
    let ec = EgressMeterConfig::controlled_load()
        .with_t_meas(Duration::from_nanos(1))
        .with_tick(tick);
    let p = EgressMeterProfile::new(&ec).unwrap();
    let mut m: EgressMeter<u16, 4> = EgressMeter::new(&p, Instant::from_ticks(10));
    for _ in 0..4 {
        m.on_packet(&p, Instant::from_ticks(11), u32::MAX, PcnMark::Etm, 1);
    }
    m.on_packet(&p, Instant::from_ticks(11), 1000, PcnMark::Nm, 1);
    let r = m.poll(&p, Instant::from_ticks(12)).unwrap();
    assert_eq!((r.start.ticks(), r.end.ticks()), (10, 12));
    assert_eq!(r.etm_rate, u64::MAX);
    assert_eq!(r.nm_rate, 1000 * 2_300_000_000 / 2);
    let mut ops: Vec<EgressOp> = (0..4)
        .map(|_| EgressOp::Packet {
            dt: 0,
            len: u32::MAX,
            mark: PcnMark::Etm,
            flow: 1,
        })
        .collect();
    ops.push(EgressOp::Poll { dt: 2 });
    let dc = DecisionConfig::controlled_load();
    let cc = CleAdmissionConfig::new(
        Duration::from_micros(1),
        fixed::types::U1F31::ZERO,
        fixed::types::U1F31::ZERO,
    )
    .with_tick(tick);
    check_egress(&ec, &dc, &cc, Instant::from_ticks(10), &ops).unwrap();
}

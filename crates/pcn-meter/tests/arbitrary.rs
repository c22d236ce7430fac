//! The `arbitrary` feature: configurations and packets generated from fuzzer
//! bytes, each configuration accepted or refused by its profile without a
//! panic, and every accepted meter and marker run on generated packets with
//! each step's invariants checked (`pcn_meter::invariants::meter_step`).
#![cfg(feature = "arbitrary")]

use arbitrary::Arbitrary;
use netcond_core::arbitrary::values;
use netcond_core::{Instant, Rate, TickRate};
use pcn_meter::invariants::meter_step;
use pcn_meter::{
    AsMarker, AsMarkerConfig, AsMarkerProfile, CleAdmissionProfile, DecisionProfile,
    EgressMeterProfile, EtMarker, EtMarkerConfig, EtMarkerProfile, EtMarkerSim48,
    EtMarkerSim48Config, EtMarkerSim48Profile, EtMarking, ExcessTrafficMeter,
    ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, PcnMark, PcnMeter, StopBlockingProfile,
    ThresholdMeter, ThresholdMeterConfig, ThresholdMeterProfile,
};

/// A generated packet: the clock's step (backwards when `back`), its length
/// and its marking.
type Pkt = (u32, bool, u16, PcnMark);

/// Every generated configuration, and the same fitted towards the rules
/// (`fit`), is accepted or refused without a panic; some generated ones are
/// refused and most fitted ones accepted. The accepted profiles.
fn profiles<C: PartialEq + Clone, P, E>(
    cfgs: &[C],
    fit: impl Fn(&mut C),
    new: impl Fn(&C) -> Result<P, E>,
) -> Vec<P> {
    assert!(cfgs.windows(2).any(|w| w[0] != w[1]));
    let (mut accepted, mut refused) = (Vec::new(), 0);
    for c in cfgs {
        match new(c) {
            Ok(p) => accepted.push(p),
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 0, "none refused");
    let before = accepted.len();
    for c in cfgs {
        let mut c = c.clone();
        fit(&mut c);
        accepted.extend(new(&c).ok());
    }
    assert!(
        accepted.len() - before > cfgs.len() / 2,
        "few fitted accepted"
    );
    accepted
}

/// Runs `pkts` through a meter started on each profile, every step checked;
/// the count of each marking given.
fn run<M: PcnMeter>(profiles: &[M::Profile], pkts: &[Pkt]) -> [usize; 4] {
    let mut out = [0; 4];
    for p in profiles {
        let mut now = Instant::from_ticks(1 << 40);
        let mut m = M::start(p, now);
        for &(dt, back, len, mark) in pkts {
            now = if back {
                Instant::from_ticks(now.ticks().wrapping_sub(u64::from(dt)))
            } else {
                now.wrapping_add(u64::from(dt))
            };
            let got = meter_step(p, &mut m, now, u32::from(len), mark).unwrap();
            out[got.ecn() as usize] += 1;
        }
    }
    out
}

/// A bucket of 1 to 2^20 bytes.
fn bucket(b: u64) -> u64 {
    b % (1 << 20) + 1
}

/// A clock of 1 Hz to 1 MHz.
fn tick(t: TickRate) -> TickRate {
    TickRate::from_hz(t.hz() % 1_000_000 + 1).unwrap()
}

/// A rate of at least 1 bit/s.
fn rate(r: Rate) -> Rate {
    Rate::from_bits_per_sec(r.bits_per_sec().max(1))
}

#[test]
fn generated_rfc5670_meters_are_checked_and_run() {
    let pkts: Vec<Pkt> = values(200, 1).unwrap();
    assert!(pkts.windows(2).any(|w| w[0] != w[1]));
    let th: Vec<ThresholdMeterConfig> = values(500, 2).unwrap();
    let fit = |c: &mut ThresholdMeterConfig| {
        c.threshold_rate = rate(c.threshold_rate);
        (c.bs_tm, c.tick) = (bucket(c.bs_tm), tick(c.tick));
        c.threshold %= c.bs_tm + 1;
    };
    let marks = run::<ThresholdMeter>(&profiles(&th, fit, ThresholdMeterProfile::new), &pkts);
    assert!(marks[PcnMark::Thm.ecn() as usize] > 0, "{marks:?}");
    let et: Vec<ExcessTrafficMeterConfig> = values(500, 3).unwrap();
    let fit = |c: &mut ExcessTrafficMeterConfig| {
        c.excess_rate = rate(c.excess_rate);
        (c.bs_etm, c.tick) = (bucket(c.bs_etm), tick(c.tick));
    };
    let p = profiles(&et, fit, ExcessTrafficMeterProfile::new);
    let marks = run::<ExcessTrafficMeter>(&p, &pkts);
    assert!(marks[PcnMark::Etm.ecn() as usize] > 0, "{marks:?}");
}

#[test]
fn generated_draft_markers_are_checked_and_run() {
    let pkts: Vec<Pkt> = values(200, 4).unwrap();
    let a: Vec<AsMarkerConfig> = values(500, 5).unwrap();
    let fit = |c: &mut AsMarkerConfig| {
        (c.ar, c.bucket_size, c.tick) = (rate(c.ar), bucket(c.bucket_size), tick(c.tick));
        c.threshold %= c.bucket_size + 1;
    };
    run::<AsMarker>(&profiles(&a, fit, AsMarkerProfile::new), &pkts);
    let e: Vec<EtMarkerConfig> = values(500, 6).unwrap();
    let fit = |c: &mut EtMarkerConfig| {
        (c.sr, c.bucket_size, c.tick) = (rate(c.sr), bucket(c.bucket_size), tick(c.tick));
        if let EtMarking::SizeIndependent { mtu } = &mut c.marking {
            *mtu = *mtu % 1500 + 1;
            c.bucket_size += u64::from(*mtu);
        }
        c.s %= c.bucket_size + 1;
    };
    run::<EtMarker>(&profiles(&e, fit, EtMarkerProfile::new), &pkts);
    let s: Vec<EtMarkerSim48Config> = values(500, 7).unwrap();
    let fit = |c: &mut EtMarkerSim48Config| {
        (c.pcn_pt, c.pcn_tb, c.tick) = (rate(c.pcn_pt), bucket(c.pcn_tb), tick(c.tick));
        c.pcn_px %= c.pcn_tb + 1;
    };
    run::<EtMarkerSim48>(&profiles(&s, fit, EtMarkerSim48Profile::new), &pkts);
}

/// The edge's configurations: each accepted or refused without a panic (most
/// generated durations, up to 2^64 seconds, are refused), and some refused.
#[test]
fn generated_edge_configurations_are_checked() {
    fn both<C, P, E>(seed: u64, new: impl Fn(&C) -> Result<P, E>)
    where
        C: for<'a> Arbitrary<'a> + PartialEq,
    {
        let cfgs: Vec<C> = values(500, seed).unwrap();
        assert!(cfgs.windows(2).any(|w| w[0] != w[1]));
        let ok = cfgs.iter().filter(|c| new(c).is_ok()).count();
        assert!(ok < cfgs.len(), "{ok} of {}", cfgs.len());
    }
    both(8, StopBlockingProfile::new);
    both(9, EgressMeterProfile::new);
    both(10, CleAdmissionProfile::new);
    both(11, DecisionProfile::new);
}

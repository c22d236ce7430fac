//! The `arbitrary` feature: configurations and per-packet inputs generated
//! from fuzzer bytes; every configuration is accepted or refused by its
//! profile without a panic, the accepted ones run, and generated inputs run
//! through the documents' configurations.
#![cfg(feature = "arbitrary")]

use aqm_delay::{
    Codel, CodelConfig, CodelProfile, DualHead, DualPi2, DualPi2Config, DualPi2Profile,
    FqCodelConfig, FqCodelProfile, FqPieConfig, FqPieProfile, Head, Pie, PieConfig, PieProfile,
    Verdict,
};
use netcond_core::arbitrary::values;
use netcond_core::{Instant, SplitMix64};

/// Runs CoDel on `heads`, one dequeue each, on a clock that moves forward.
fn run_codel(p: &CodelProfile, heads: &[Head]) -> usize {
    let mut s = Codel::new(p, Instant::ZERO);
    let mut drops = 0;
    for (i, h) in heads.iter().enumerate() {
        let now = Instant::from_ticks(i as u64 * 1_000_000);
        drops += usize::from(s.on_dequeue(p, now, *h, u64::from(h.len)) == Verdict::Drop);
    }
    drops
}

/// Runs PIE on `heads`: an update, an arrival and a departure each.
fn run_pie(p: &PieProfile, heads: &[Head]) {
    let mut s = Pie::new(p, Instant::ZERO);
    let mut rng = SplitMix64::new(9);
    for (i, h) in heads.iter().enumerate() {
        let now = Instant::from_ticks(i as u64 * 1_000_000);
        s.poll(p, now, 100_000);
        let _ = s.on_arrival(p, now, *h, i as u32, 100_000, &mut rng);
        s.on_dequeue(p, now, *h, 100_000);
    }
}

#[test]
fn generated_codel_and_pie_configurations_are_checked_and_run() {
    let heads: Vec<Head> = values(64, 1).unwrap();
    assert!(heads.windows(2).any(|w| w[0] != w[1]));
    let codel: Vec<CodelConfig> = values(2000, 2).unwrap();
    assert!(codel.windows(2).any(|w| w[0] != w[1]));
    let (mut accepted, mut refused) = (0, 0);
    for c in &codel {
        match CodelProfile::new(c) {
            Ok(p) => {
                accepted += 1;
                run_codel(&p, &heads);
            }
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 0, "{accepted} accepted");
    let pie: Vec<PieConfig> = values(2000, 3).unwrap();
    assert!(pie.windows(2).any(|w| w[0] != w[1]));
    let mut refused = 0;
    for c in &pie {
        match PieProfile::new(c) {
            Ok(p) => run_pie(&p, &heads),
            Err(_) => refused += 1,
        }
    }
    assert!(refused > 0);
    // The generated heads through the documents' configurations.
    for c in [
        CodelConfig::rfc8289(),
        CodelConfig::linux(),
        CodelConfig::ns3(),
    ] {
        run_codel(&CodelProfile::new(&c).unwrap(), &heads);
    }
    for c in [PieConfig::linux(), PieConfig::rfc8033()] {
        run_pie(&PieProfile::new(&c).unwrap(), &heads);
    }
}

#[test]
fn generated_dualpi2_inputs_run_and_configurations_are_checked() {
    let heads: Vec<DualHead> = values(64, 4).unwrap();
    assert!(heads.windows(2).any(|w| w[0] != w[1]));
    let p = DualPi2Profile::new(&DualPi2Config::rfc9332()).unwrap();
    let mut s = DualPi2::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(5);
    for (i, h) in heads.iter().enumerate() {
        let now = Instant::from_ticks(i as u64 * 1_000_000);
        s.poll(&p, now, Some(h.enqueued), None);
        if let Some(q) = s.on_arrival(&p, now, h.ecn, h.len, 0) {
            let _ = s.on_dequeue(&p, now, q, *h, 0, &mut rng);
        }
    }
    let cfgs: Vec<DualPi2Config> = values(2000, 6).unwrap();
    assert!(cfgs.windows(2).any(|w| w[0] != w[1]));
    assert!(cfgs.iter().any(|c| DualPi2Profile::new(c).is_err()));
}

#[test]
fn generated_fq_configurations_are_checked() {
    let fq: Vec<FqCodelConfig> = values(2000, 7).unwrap();
    assert!(fq.windows(2).any(|w| w[0] != w[1]));
    assert!(fq.iter().any(|c| FqCodelProfile::new(c).is_err()));
    let fq_pie: Vec<FqPieConfig> = values(2000, 8).unwrap();
    assert!(fq_pie.windows(2).any(|w| w[0] != w[1]));
    assert!(fq_pie.iter().any(|c| FqPieProfile::new(c).is_err()));
}

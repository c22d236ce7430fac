//! The `arbitrary` feature: configurations and packets generated from fuzzer
//! bytes, each configuration accepted or refused by its profile without a
//! panic, and the accepted ones run.
#![cfg(feature = "arbitrary")]

use aqm_red::{AecnConfig, AecnProfile, Packet, Red, RedConfig, RedProfile, RioConfig, RioProfile};
use netcond_core::arbitrary::values;
use netcond_core::{Instant, SplitMix64};

#[test]
fn generated_red_configurations_are_checked_and_run() {
    let cfgs: Vec<RedConfig> = values(2000, 1).unwrap();
    assert!(cfgs.windows(2).any(|w| w[0] != w[1]));
    let packets: Vec<Packet> = values(64, 2).unwrap();
    let mut refused = 0;
    for mut cfg in cfgs {
        // Also within the rules (max_p and w_q in range, min_th < max_th <=
        // limit), so that some are accepted.
        let mut fitted = cfg;
        fitted.max_p = RedConfig::prob(0.1);
        fitted.queue.w_q = RedConfig::prob(0.002);
        fitted.queue.limit = fitted.queue.limit.max(3);
        fitted.max_th = fitted.max_th % fitted.queue.limit + 1;
        fitted.min_th %= fitted.max_th;
        fitted.queue.byte_mode = fitted.queue.byte_mode.map(|m| m.max(1));
        fitted.queue.ecn_drop_th = None;
        fitted.queue.typical_tx = core::time::Duration::from_secs(1);
        let p = RedProfile::new(&fitted).unwrap();
        let mut red = Red::new(&p, Instant::ZERO);
        let mut rng = SplitMix64::new(3);
        for (i, pkt) in packets.iter().enumerate() {
            let _ = red.on_arrival(&p, Instant::from_ticks(i as u64), i as u32, *pkt, &mut rng);
        }
        cfg.queue.limit = cfg.queue.limit.max(1);
        refused += usize::from(RedProfile::new(&cfg).is_err());
    }
    assert!(refused > 0);
}

#[test]
fn generated_rio_and_aecn_configurations_are_checked() {
    let rio: Vec<RioConfig> = values(500, 4).unwrap();
    assert!(rio.windows(2).any(|w| w[0] != w[1]));
    assert!(rio.iter().filter(|c| RioProfile::new(c).is_err()).count() > 0);
    let aecn: Vec<AecnConfig> = values(500, 5).unwrap();
    assert!(aecn.windows(2).any(|w| w[0] != w[1]));
    assert!(aecn.iter().filter(|c| AecnProfile::new(c).is_err()).count() > 0);
}

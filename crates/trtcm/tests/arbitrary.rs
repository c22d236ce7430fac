//! The `arbitrary` feature: configurations and packets generated from fuzzer
//! bytes, each configuration accepted or refused by its profile without a
//! panic, and every accepted profile run on generated packets with each
//! step's invariants checked (`trtcm::invariants`).
#![cfg(feature = "arbitrary")]

use netcond_core::arbitrary::values;
use netcond_core::{Color, Instant, Rate, TickRate};
use trtcm::invariants::{policer_step, rfc4115_step, srtcm_step, trtcm_step};
use trtcm::{
    PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile, Rfc4115, Rfc4115Config,
    Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm, TrTcmConfig,
    TrTcmProfile,
};

/// A generated packet: the clock's step (backwards when `back`), its length
/// and its input color (`None`: color-blind).
type Pkt = (u32, bool, u16, Option<Color>);

/// The packets' instants: forward by each step, or back by it.
fn instants(pkts: &[Pkt]) -> impl Iterator<Item = (Instant, u32, Option<Color>)> + '_ {
    let mut now = Instant::from_ticks(1 << 40);
    pkts.iter().map(move |&(dt, back, len, input)| {
        now = if back {
            Instant::from_ticks(now.ticks().wrapping_sub(u64::from(dt)))
        } else {
            now.wrapping_add(u64::from(dt))
        };
        (now, u32::from(len), input)
    })
}

/// Every generated configuration is accepted or refused without a panic, and
/// some are refused; each is also fitted within the rules (`fit`), and every
/// fitted one is accepted: the profiles to run.
fn profiles<C: PartialEq + Clone, P, E>(
    cfgs: &[C],
    fit: impl Fn(&mut C),
    new: impl Fn(&C) -> Result<P, E>,
) -> Vec<P> {
    assert!(cfgs.windows(2).any(|w| w[0] != w[1]));
    let refused = cfgs.iter().filter(|c| new(c).is_err()).count();
    assert!(refused > 0, "none refused");
    cfgs.iter()
        .map(|c| {
            let mut c = c.clone();
            fit(&mut c);
            new(&c).ok().expect("a fitted configuration is refused")
        })
        .collect()
}

/// A burst of 1 to 2^24 bytes: with a clock of at most 10^9 Hz its tokens fit
/// the 2^62-unit counter whatever the rate.
fn burst(b: u64) -> u64 {
    b % (1 << 24) + 1
}

/// A clock of 1 Hz to 1 GHz.
fn tick(t: TickRate) -> TickRate {
    TickRate::from_hz(t.hz() % 1_000_000_000 + 1).unwrap()
}

/// A rate of at least 1 bit/s.
fn rate(r: Rate) -> Rate {
    Rate::from_bits_per_sec(r.bits_per_sec().max(1))
}

#[test]
fn generated_srtcm_and_trtcm_configurations_are_checked_and_run() {
    let pkts: Vec<Pkt> = values(200, 1).unwrap();
    assert!(pkts.windows(2).any(|w| w[0] != w[1]));
    let sr: Vec<SrTcmConfig> = values(1000, 2).unwrap();
    let fit = |c: &mut SrTcmConfig| {
        (c.cir, c.cbs, c.ebs, c.tick) = (rate(c.cir), burst(c.cbs), burst(c.ebs), tick(c.tick));
    };
    let mut colors = [0usize; 3];
    for p in profiles(&sr, fit, SrTcmProfile::new) {
        let mut s = SrTcm::new(&p, Instant::from_ticks(1 << 40));
        for (now, len, input) in instants(&pkts) {
            colors[srtcm_step(&p, &mut s, now, len, input).unwrap() as usize] += 1;
        }
    }
    // Many configurations on many packets: each color given.
    assert!(colors.iter().all(|&n| n > 1000), "{colors:?}");
    let tr: Vec<TrTcmConfig> = values(1000, 3).unwrap();
    let fit = |c: &mut TrTcmConfig| {
        (c.cir, c.pir) = (rate(c.cir.min(c.pir)), rate(c.cir.max(c.pir)));
        (c.cbs, c.pbs, c.tick) = (burst(c.cbs), burst(c.pbs), tick(c.tick));
    };
    for p in profiles(&tr, fit, TrTcmProfile::new) {
        let mut s = TrTcm::new(&p, Instant::from_ticks(1 << 40));
        for (now, len, input) in instants(&pkts) {
            trtcm_step(&p, &mut s, now, len, input).unwrap();
        }
    }
}

#[test]
fn generated_rfc4115_and_policer_configurations_are_checked_and_run() {
    let pkts: Vec<Pkt> = values(200, 4).unwrap();
    let cfgs: Vec<(Rfc4115Config, Rfc4115Ties)> = values(1000, 5).unwrap();
    assert!(cfgs.iter().any(|c| c.1 == Rfc4115Ties::Text));
    assert!(cfgs.iter().any(|c| c.1 == Rfc4115Ties::Figure1));
    let fit = |(c, _): &mut (Rfc4115Config, Rfc4115Ties)| {
        (c.cir, c.eir, c.tick) = (rate(c.cir), c.eir, tick(c.tick));
        (c.cbs, c.ebs) = (burst(c.cbs), burst(c.ebs));
    };
    for p in profiles(&cfgs, fit, |(c, t)| Rfc4115Profile::with_ties(c, *t)) {
        let mut s = Rfc4115::new(&p, Instant::from_ticks(1 << 40));
        for (now, len, input) in instants(&pkts) {
            rfc4115_step(&p, &mut s, now, len, input).unwrap();
        }
    }
    let pol: Vec<PremiumPolicerConfig> = values(1000, 6).unwrap();
    let fit = |c: &mut PremiumPolicerConfig| {
        c.max_packet = c.max_packet % 9000 + 1;
        let m = u64::from(c.max_packet);
        (c.rate, c.tick) = (rate(c.rate), tick(c.tick));
        (c.tbs, c.pbs) = (burst(c.tbs) + m, burst(c.pbs) + m);
    };
    for p in profiles(&pol, fit, PremiumPolicerProfile::new) {
        let mut s = PremiumPolicer::new(&p, Instant::from_ticks(1 << 40));
        for (now, len, _) in instants(&pkts) {
            policer_step(&p, &mut s, now, len).unwrap();
            if len % 3 == 0 {
                s.dequeued(len);
            }
        }
    }
}

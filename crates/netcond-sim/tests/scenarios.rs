//! The scenarios at reduced size, with what must hold.

use netcond_sim::engine::MS;
use netcond_sim::erlang::erlang_b;
use netcond_sim::progress::Progress;
use netcond_sim::scenarios::pcn_admission::sweep;
use netcond_sim::scenarios::pcn_termination::{simulate, TermConfig};
use netcond_sim::{find, registry, ReproduceOpts};

fn term(set: &[&str], seed: u64) -> netcond_sim::scenarios::pcn_termination::TermResult {
    let sc = find("pcn-termination").unwrap();
    let p = sc.defaults().with(set).unwrap();
    simulate(&TermConfig::from_params(&p), seed, &Progress::hidden()).unwrap()
}

#[test]
fn registry_names_are_unique_and_defaults_validate() {
    let names: Vec<&str> = registry().iter().map(|s| s.name()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    for s in registry() {
        let _ = s.defaults(); // panics on an invalid default
        assert!(!s.description().is_empty());
    }
}

#[test]
fn runs_are_deterministic() {
    let sc = find("pcn-termination").unwrap();
    let p = sc
        .defaults()
        .with(&[
            "mix=3vbr+cbr",
            "sr_mbps=4",
            "tb_bytes=10000",
            "duration_s=6",
        ])
        .unwrap();
    let a = sc.run(&p, 42, &Progress::hidden()).unwrap();
    let b = sc.run(&p, 42, &Progress::hidden()).unwrap();
    let c = sc.run(&p, 43, &Progress::hidden()).unwrap();
    assert_eq!(a, b, "same seed, same report");
    assert_ne!(a.plots, c.plots, "another seed, another run");
}

#[test]
fn termination_reaches_sr_without_over_termination_large_cbr() {
    // Figure 2, G.711 CBR: 500 + 500 flows at 40 Mbps, s = 1064, RTT 50 ms.
    for seed in 1..=3 {
        let r = term(&["duration_s=6", "stats_from_s=3", "stats_len_s=3"], seed);
        assert_eq!(r.flows_base, 500);
        assert_eq!(r.flows_added, 500);
        let t100 = r.times[3].expect("reaches SR");
        assert!(t100 < 1.5, "t100 {t100}");
        assert!(r.times[0].unwrap() <= r.times[1].unwrap());
        // At most 2 % over-termination (10 flows) and no under-termination.
        assert!(r.flows_end <= 500 && r.flows_end >= 490, "{}", r.flows_end);
        assert!(r.avg <= 40.0 + 1e-9 && r.avg >= 39.2, "{}", r.avg);
    }
}

#[test]
fn termination_small_cbr_and_vbr_mix() {
    let r = term(
        &[
            "sr_mbps=0.8",
            "tb_bytes=10000",
            "duration_s=8",
            "stats_from_s=4",
            "stats_len_s=4",
        ],
        5,
    );
    assert_eq!((r.flows_base, r.flows_added), (10, 10));
    assert!(r.flows_end >= 9 && r.flows_end <= 10, "{}", r.flows_end);
    // The mix: the rate comes down from 200 % to about SR.
    let m = term(
        &[
            "mix=3vbr+cbr",
            "duration_s=8",
            "stats_from_s=4",
            "stats_len_s=4",
        ],
        5,
    );
    assert!(m.times[1].is_some(), "reaches 125 %");
    assert!(m.avg > 36.0 && m.avg < 42.0, "{}", m.avg);
}

#[test]
fn termination_signal_takes_exactly_the_rtt() {
    for rtt in [50u64, 200] {
        let r = term(
            &[
                "sr_mbps=0.8",
                "tb_bytes=10000",
                "duration_s=3",
                &format!("rtt_ms={rtt}"),
            ],
            1,
        );
        let (m, s) = (r.first_et.unwrap(), r.first_stop.unwrap());
        assert_eq!(s - m, rtt * MS);
    }
}

#[test]
fn bigger_s_terminates_slower() {
    let a = term(&["duration_s=5", "s_bytes=1064"], 3);
    let b = term(&["duration_s=5", "s_bytes=4064"], 3);
    assert!(b.times[2].unwrap() > a.times[2].unwrap());
}

#[test]
fn erlang_b_blocking_close_to_theory_at_m_and_l() {
    let sc = find("pcn-admission").unwrap();
    let p = sc.defaults().with(&["runs=10"]).unwrap();
    let m = sweep("erlang", 50, &p, 1, &Progress::hidden()).unwrap();
    let theory_m = 100.0 * erlang_b(50, 37.5);
    assert!(
        (m.blocking_pct[0] - theory_m).abs() < 1.0,
        "M: {} vs {theory_m}",
        m.blocking_pct[0]
    );
    assert!(
        m.util_pct[0] > 60.0 && m.util_pct[0] < 76.0,
        "M util {}",
        m.util_pct[0]
    );
    let p = sc.defaults().with(&["runs=4"]).unwrap();
    let l = sweep("erlang", 200, &p, 1, &Progress::hidden()).unwrap();
    assert!(l.blocking_pct[0] < 0.5, "L: {}", l.blocking_pct[0]);
    assert!(
        l.overshoot_pct[0] < 5.0,
        "L overshoot {}",
        l.overshoot_pct[0]
    );
}

#[test]
fn overload_is_held_near_the_base_load() {
    let sc = find("pcn-admission").unwrap();
    let p = sc.defaults().with(&["runs=3", "observe_s=60"]).unwrap();
    let s = sweep("overload", 50, &p, 2, &Progress::hidden()).unwrap();
    // Twice the arrivals: a good part is blocked, the rate stays near N flows.
    assert!(s.blocking_pct[0] > 20.0, "{}", s.blocking_pct[0]);
    assert!(
        s.util_pct[0] > 80.0 && s.util_pct[0] < 105.0,
        "{}",
        s.util_pct[0]
    );
    assert!(s.overshoot_pct[0] < 30.0, "{}", s.overshoot_pct[0]);
}

#[test]
fn rbcc_rates_equal_the_optimum_table() {
    let sc = find("rbcc-scenario7").unwrap();
    let rep = sc
        .reproduce(
            &ReproduceOpts {
                seed: 1,
                quick: true,
            },
            &Progress::hidden(),
        )
        .unwrap();
    let rates: Vec<_> = rep
        .comparisons
        .iter()
        .filter(|c| c.metric.starts_with("RBCC rate"))
        .collect();
    assert_eq!(rates.len(), 15);
    for c in rates {
        let (d, o) = (c.doc.unwrap(), c.ours.unwrap());
        assert!((o / d - 1.0).abs() < 0.01, "{}: {o} vs {d}", c.case);
    }
    // RBCC loses nothing; TCP does.
    let drops = rep
        .comparisons
        .iter()
        .find(|c| c.case == "drops RBCC")
        .unwrap();
    assert_eq!(drops.ours, Some(0.0));
    let delay = rep
        .comparisons
        .iter()
        .find(|c| c.case == "source 5 delay RBCC" && c.metric == "min s")
        .unwrap();
    assert!(delay.ours.unwrap() >= 1.1875);
}

#[test]
fn parallel_reproduce_is_deterministic() {
    let sc = find("pcn-termination").unwrap();
    let o = ReproduceOpts {
        seed: 3,
        quick: true,
    };
    let a = sc.reproduce(&o, &Progress::hidden()).unwrap();
    let b = sc.reproduce(&o, &Progress::hidden()).unwrap();
    assert_eq!(a.comparisons, b.comparisons);
}

#[test]
fn video_termination_brings_the_rate_back_to_sr() {
    let sc = find("pcn-video").unwrap();
    let p = sc.defaults();
    let r = netcond_sim::scenarios::pcn_video::simulate(&p, 1, &Progress::hidden()).unwrap();
    assert_eq!(r.windows.len(), 2);
    for &(mean, sd, _) in &r.windows {
        let pct = 100.0 * mean / r.sr_mbps;
        assert!(pct > 90.0 && pct < 110.0, "{pct}% of SR");
        assert!(sd / r.sr_mbps < 0.1);
    }
    // 80 + 100 + 100 flows at 400 kbps against 40 Mbps: about 180 terminated.
    assert!(r.terminated > 150 && r.terminated < 210, "{}", r.terminated);
}

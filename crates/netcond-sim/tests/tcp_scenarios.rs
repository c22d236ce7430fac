//! The TCP experiments at reduced size: what must hold in each.

use netcond_sim::progress::Progress;
use netcond_sim::scenarios::aecn::{run_aecn, Aecn};
use netcond_sim::scenarios::premium_tcp::{run_premium, PremiumTcp};
use netcond_sim::scenarios::ras_tcp::{run_ras, RasTcp};
use netcond_sim::Scenario;

fn quiet() -> Progress {
    Progress::hidden()
}

/// RFC 2963 A.2 / A.4: at CBS 3 KB the trRAS routers get more goodput and more
/// green than the unshaped routers of the same CIR (2 and 6 Mbit/s).
#[test]
fn ras_shaped_beats_unshaped_at_small_cbs() {
    for shaper in ["trras", "gtrras"] {
        let p = RasTcp
            .defaults()
            .with(&[
                format!("shaper={shaper}"),
                "cbs_kb=3".into(),
                "duration_s=32".into(),
            ])
            .unwrap();
        let o = run_ras(&p, 7, &quiet()).unwrap();
        // C1 (0) vs C6 (5): 2 Mbit/s; C3 (2) vs C8 (7): 6 Mbit/s.
        for (unsh, sh) in [(0, 5), (2, 7)] {
            assert!(
                o.goodput[sh] > o.goodput[unsh],
                "{shaper}: C{} {} vs C{} {}",
                sh + 1,
                o.goodput[sh],
                unsh + 1,
                o.goodput[unsh]
            );
            assert!(o.colors[sh][0] > o.colors[unsh][0], "{shaper}: more green");
        }
    }
}

/// RFC 2963 A.7: at large CBS the G-trRAS routers are about equal to the
/// unshaped ones (not worse than 10 % below them, summed over the five CIRs).
#[test]
fn green_ras_not_worse_at_large_cbs() {
    let p = RasTcp
        .defaults()
        .with(&["shaper=gtrras", "cbs_kb=400", "duration_s=32"])
        .unwrap();
    let o = run_ras(&p, 7, &quiet()).unwrap();
    let unsh: f64 = o.goodput[..5].iter().sum();
    let sh: f64 = o.goodput[5..].iter().sum();
    assert!(sh >= 0.9 * unsh, "shaped {sh} vs unshaped {unsh}");
}

/// AECN slides (Zheng and Kinicki): with 60 flows and max_p 0.5, AECN's Jain
/// index exceeds ECN's, and ECN signals mostly by marks where RED drops.
#[test]
fn aecn_fairer_than_ecn_at_60_flows() {
    let run = |scheme: &str| {
        let p = Aecn
            .defaults()
            .with(&[format!("scheme={scheme}"), "duration_s=30".into()])
            .unwrap();
        run_aecn(&p, 3, &quiet()).unwrap()
    };
    let red = run("red");
    let ecn = run("ecn");
    let aecn = run("aecn");
    assert!(
        aecn.jain > ecn.jain,
        "AECN {} vs ECN {}",
        aecn.jain,
        ecn.jain
    );
    assert!(ecn.marks > 0 && red.marks == 0);
    assert!(ecn.early_drops + ecn.forced_drops < red.early_drops + red.forced_drops);
}

/// Premium TCP test, case A at 8 %: about 152 kbit/s (within 10 %).
#[test]
fn premium_case_a_near_152_kbps() {
    let p = PremiumTcp
        .defaults()
        .with(&["case=A", "bw_pct=8", "duration_s=120"])
        .unwrap();
    let o = run_premium(&p, &quiet()).unwrap();
    assert!(
        (o.real_kbps - 152.0).abs() <= 15.2,
        "real throughput {} kbps",
        o.real_kbps
    );
    assert!(o.real_kbps <= o.committed_kbps * 1.01);
}

/// The premium TCP test's rule: PBs > TBs + one packet gives no buffer drop; a premium
/// buffer smaller than the bucket does drop (the check can fail).
#[test]
fn premium_no_buffer_drop_when_pbs_exceeds_tbs_plus_a_packet() {
    for case in ["A", "B"] {
        for pct in [8, 12, 19] {
            let p = PremiumTcp
                .defaults()
                .with(&[
                    format!("case={case}"),
                    format!("bw_pct={pct}"),
                    "duration_s=40".into(),
                ])
                .unwrap();
            let o = run_premium(&p, &quiet()).unwrap();
            assert_eq!(o.buffer_drops, 0, "case {case} {pct}%");
            assert!(o.policer_drops > 0, "the policer did work");
        }
    }
    let p = PremiumTcp
        .defaults()
        .with(&["tbs=11000", "pbs=4000", "bw_pct=19", "duration_s=40"])
        .unwrap();
    let o = run_premium(&p, &quiet()).unwrap();
    assert!(o.buffer_drops > 0, "PBs 4000 < TBs 11000 must drop");
}

/// The scenarios run through the trait with reports.
#[test]
fn reports_have_tables() {
    let p = PremiumTcp.defaults().with(&["duration_s=5"]).unwrap();
    let r = PremiumTcp.run(&p, 1, &quiet()).unwrap();
    assert!(!r.tables.is_empty() && !r.comparisons.is_empty());
    assert!(r.events > 0);
}

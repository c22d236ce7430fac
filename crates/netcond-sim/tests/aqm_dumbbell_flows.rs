//! `aqm-dumbbell`'s per-flow TCP statistics, the square-root law set beside
//! them, and the flow-count sweep, at reduced size.

use netcond_sim::params::Params;
use netcond_sim::progress::Progress;
use netcond_sim::scenarios::aqm_dumbbell::flowcount::{self, SWEEP_DISCIPLINES, SWEEP_FLOWS};
use netcond_sim::scenarios::aqm_dumbbell::law;
use netcond_sim::scenarios::aqm_dumbbell::{run_dumbbell, AqmDumbbell, DumbbellOutcome};
use netcond_sim::Scenario;

fn short(extra: &[String]) -> Params {
    let mut sets = vec!["duration_s=20".to_string(), "warmup_s=5".to_string()];
    sets.extend_from_slice(extra);
    AqmDumbbell.defaults().with(&sets).unwrap()
}

fn run(p: &Params) -> DumbbellOutcome {
    AqmDumbbell.check(p, u64::MAX).unwrap();
    run_dumbbell(p, 11, &Progress::hidden()).unwrap()
}

#[test]
fn per_flow_counters_add_up_to_the_runs_totals() {
    for d in ["codel", "fq_codel", "pie", "dualpi2"] {
        let o = run(&short(&[format!("discipline={d}")]));
        assert_eq!(o.flows.len(), 9, "{d}");
        let drops: u64 = o.flows.iter().map(|f| f.drops).sum();
        assert_eq!(drops, o.drops[0] + o.drops[1], "{d}");
        let rtos: u64 = o.flows.iter().map(|f| f.timeouts).sum();
        assert_eq!(rtos, o.timeouts, "{d}");
        // Every packet sent after the warm-up arrived after it, or was
        // waiting at its end (at most the 1000-packet buffer).
        let arrivals: u64 = o.flows.iter().map(|f| f.arrivals).sum();
        let sent = o.delay[0].packets as u64;
        assert!(
            arrivals + 1000 >= sent + drops,
            "{d}: {arrivals} {sent} {drops}"
        );
        assert!(
            arrivals <= sent + drops + 1000,
            "{d}: {arrivals} {sent} {drops}"
        );
        for f in &o.flows {
            assert!(f.drops <= f.arrivals + 1000, "{d}");
            // Segments sent before the warm-up's end may arrive after it,
            // and segments sent at the end may not have arrived yet: at most
            // a window (below the 1000-packet buffer here) either way.
            assert!(f.arrivals <= f.segments_sent + 1000, "{d}: {f:?}");
            assert!(f.segments_sent <= f.arrivals + 1000, "{d}: {f:?}");
            // A window is at least one segment (RFC 5681's loss window).
            assert!(f.mean_cwnd >= 1.0 && f.mean_flight > 0.0, "{d}: {f:?}");
            assert!((0.0..1.0).contains(&f.loss()), "{d}: {f:?}");
        }
    }
}

#[test]
fn under_codel_each_flow_holds_about_the_window_the_square_root_law_gives_its_loss() {
    // Mathis et al.: mean window sqrt(3/(2p)) for a loss fraction p. The
    // measured windows include the time spent in recovery and after
    // timeouts, so they are compared within a third either way.
    let o = run(&short(&["discipline=codel".to_string()]));
    for (i, f) in o.flows.iter().enumerate() {
        let w = law::window_for_loss(f.loss()).unwrap();
        let ratio = f.mean_cwnd / w;
        assert!((0.75..1.33).contains(&ratio), "flow {i}: {f:?}, law {w}");
    }
}

#[test]
fn the_sweep_gives_a_row_for_every_flow_count_and_discipline() {
    let base = AqmDumbbell
        .defaults()
        .with(&["duration_s=6".to_string(), "warmup_s=2".to_string()])
        .unwrap();
    let points = flowcount::points();
    assert_eq!(points.len(), SWEEP_FLOWS.len() * SWEEP_DISCIPLINES.len());
    let mut outs = Vec::new();
    for &p in &points {
        let params = flowcount::params(&base, p).unwrap();
        AqmDumbbell.check(&params, u64::MAX).unwrap();
        let o = run_dumbbell(&params, 11, &Progress::hidden()).unwrap();
        assert_eq!(o.discipline, p.discipline);
        assert_eq!(o.flows.len() as u64, p.flows, "{p:?}");
        // No scalable flow; base RTTs 10, 20, 50, 100 ms round-robin.
        for (i, f) in o.flows.iter().enumerate() {
            assert!(!f.scalable);
            assert_eq!(f.rtt_ms, [10.0, 20.0, 50.0, 100.0][i % 4], "{p:?}");
        }
        outs.push(o);
    }
    let rows: Vec<_> = outs.iter().map(flowcount::row).collect();
    let table = flowcount::table(&rows);
    assert_eq!(table.rows.len(), points.len());
    for (r, p) in table.rows.iter().zip(&points) {
        assert_eq!(r[0], p.discipline);
        assert_eq!(r[1], p.flows.to_string());
        assert!(r.iter().all(|c| !c.is_empty() && c != "NaN"), "{r:?}");
    }
    let plot = flowcount::plot(&rows);
    assert_eq!(plot.series.len(), SWEEP_DISCIPLINES.len());
    for s in &plot.series {
        let xs: Vec<f64> = s.points.iter().map(|p| p.0).collect();
        let ns: Vec<f64> = SWEEP_FLOWS.iter().map(|&n| n as f64).collect();
        assert_eq!(xs, ns, "{}", s.label);
    }
    // The law's 5 ms columns, worked by hand. One flow of 10 ms: W =
    // 833.33 x 0.015 = 12.5, p = 1.5 / 156.25 = 0.96 %. Nine flows (10 ms
    // three times, 20, 50, 100 ms twice each): 3/0.015 + 2/0.025 + 2/0.055 +
    // 2/0.105 = 335.41; W = 2.485; p = 24.3 %.
    let one = rows.iter().find(|r| r.flows == 1).unwrap();
    assert!((one.law_window_5ms - 12.5).abs() < 1e-9);
    assert!((one.law_loss_5ms - 0.0096).abs() < 1e-12);
    let nine = rows.iter().find(|r| r.flows == 9).unwrap();
    assert!((nine.law_window_5ms - 2.485).abs() < 0.001, "{nine:?}");
    assert!((nine.law_loss_5ms - 0.243).abs() < 0.0005, "{nine:?}");
}

#[test]
fn the_sweeps_row_of_the_default_mix_agrees_with_the_main_run() {
    // The sweep's row of the default run's own outcome repeats its numbers,
    // and its law column is the one worked by hand in `law`'s tests (nine
    // flows of 10, 20, 50, 100 ms twice and 20 ms: W 2.699 at 5 ms).
    let main = run(&short(&["discipline=codel".to_string()]));
    let row = flowcount::row(&main);
    assert_eq!(row.flows, 9);
    assert_eq!(row.standing_p50, main.standing[0].p50);
    assert_eq!(row.delay_p50, main.delay[0].p50);
    assert_eq!(row.utilization, main.utilization);
    assert_eq!(row.timeouts, main.timeouts);
    let drops: u64 = main.flows.iter().map(|f| f.drops).sum();
    let arrivals: u64 = main.flows.iter().map(|f| f.arrivals).sum();
    assert_eq!(row.loss, drops as f64 / arrivals as f64);
    assert!((row.law_window_5ms - 2.699).abs() < 0.001, "{row:?}");
    // Nine Classic flows (the ninth of 10 ms where the default run has a
    // 20 ms scalable sender that CoDel drops like a Reno flow) load CoDel
    // about as the default run does.
    let base = short(&[]);
    let p = flowcount::SweepPoint {
        discipline: "codel",
        flows: 9,
    };
    let nine = flowcount::row(&run(&flowcount::params(&base, p).unwrap()));
    let near = |a: f64, b: f64| a / b > 2.0 / 3.0 && a / b < 1.5;
    assert!(
        near(nine.standing_p50, row.standing_p50),
        "{nine:?} {row:?}"
    );
    assert!(near(nine.loss, row.loss), "{nine:?} {row:?}");
    assert!(near(nine.mean_cwnd, row.mean_cwnd), "{nine:?} {row:?}");
}

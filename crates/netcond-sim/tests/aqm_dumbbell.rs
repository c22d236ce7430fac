//! `aqm-dumbbell` at reduced size: what must hold whatever the exact numbers.

use netcond_sim::progress::Progress;
use netcond_sim::scenarios::aqm_dumbbell::queues::DISCIPLINES;
use netcond_sim::scenarios::aqm_dumbbell::{
    run_dumbbell, AqmDumbbell, DelayStats, DumbbellOutcome,
};
use netcond_sim::{ReproduceOpts, Scenario};

fn run(discipline: &str, extra: &[&str]) -> DumbbellOutcome {
    let mut sets = vec![
        format!("discipline={discipline}"),
        "duration_s=20".to_string(),
        "warmup_s=5".to_string(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let p = AqmDumbbell.defaults().with(&sets).unwrap();
    AqmDumbbell.check(&p, u64::MAX).unwrap();
    run_dumbbell(&p, 11, &Progress::hidden()).unwrap()
}

#[test]
fn delay_percentiles_are_nearest_rank() {
    let d = DelayStats::of((1..=100u64).rev().map(|v| v * 1_000_000).collect());
    assert_eq!(d.packets, 100);
    assert_eq!((d.p50, d.p95, d.p99), (50.0, 95.0, 99.0));
    assert!((d.mean - 50.5).abs() < 1e-9);
    assert_eq!(d.cdf.first(), Some(&(1.0, 0.01)));
    assert_eq!(d.cdf.last(), Some(&(100.0, 1.0)));
    let one = DelayStats::of(vec![3_000_000]);
    assert_eq!((one.p50, one.p99, one.mean), (3.0, 3.0, 3.0));
    assert_eq!(DelayStats::of(Vec::new()), DelayStats::default());
}

#[test]
fn codel_median_delay_far_below_droptail_at_the_same_utilization() {
    let dt = run("droptail", &[]);
    let codel = run("codel", &[]);
    for o in [&dt, &codel] {
        assert!(o.utilization > 0.95, "{}: {}", o.discipline, o.utilization);
    }
    assert!((dt.utilization - codel.utilization).abs() < 0.03);
    // A 1000-packet drop-tail buffer fills (1.2 s at 10 Mbit/s); CoDel keeps
    // tens of milliseconds at most.
    assert!(dt.delay[0].p50 > 300.0, "drop-tail p50 {}", dt.delay[0].p50);
    assert!(
        codel.delay[0].p50 * 10.0 < dt.delay[0].p50,
        "CoDel p50 {} vs drop-tail {}",
        codel.delay[0].p50,
        dt.delay[0].p50
    );
    assert!(
        codel.delay[0].p99 < 200.0,
        "CoDel p99 {}",
        codel.delay[0].p99
    );
}

#[test]
fn every_byte_offered_to_the_bottleneck_is_accounted_for() {
    for d in DISCIPLINES {
        let o = run(d, &[]);
        let t = &o.totals;
        assert!(t.arrived_bytes > 0, "{d}");
        assert_eq!(
            t.arrived_bytes,
            t.dropped_bytes + t.sent_bytes + t.queued_bytes,
            "{d}: arrived = dropped + sent + still queued"
        );
        // Every packet sent after the warm-up has one delay sample.
        assert!(o.delay[0].packets > 0, "{d}");
        assert_eq!(
            o.delay[0].packets,
            o.delay[1].packets + o.delay[2].packets,
            "{d}"
        );
        // The receivers cannot have got more payload than the link carried
        // after the warm-up plus what was queued at its end (1000 packets).
        let span = 15.0;
        let carried_mbps = (o.delay[0].packets + 1000) as f64 * 1460.0 * 8.0 / span / 1e6;
        assert!(
            o.goodput_mbps <= carried_mbps,
            "{d}: goodput {} vs carried {}",
            o.goodput_mbps,
            carried_mbps
        );
        assert!(o.utilization <= 1.0 + 1e-9, "{d}: {}", o.utilization);
    }
}

#[test]
fn fq_codel_is_at_least_as_fair_as_droptail() {
    let dt = run("droptail", &[]);
    let fq = run("fq_codel", &[]);
    assert!(
        fq.jain >= dt.jain,
        "FQ-CoDel {} vs drop-tail {}",
        fq.jain,
        dt.jain
    );
    // Per-flow queues: nearly equal shares whatever the RTT.
    assert!(fq.jain > 0.95, "{}", fq.jain);
}

#[test]
fn dualpi2_keeps_l4s_delay_below_the_classic_queue_and_marks_instead_of_dropping() {
    let o = run("dualpi2", &[]);
    let (classic, l4s) = (&o.delay[1], &o.delay[2]);
    assert!(l4s.packets > 1000 && classic.packets > 1000);
    assert!(
        l4s.p99 < classic.p50,
        "L4S p99 {} vs Classic p50 {}",
        l4s.p99,
        classic.p50
    );
    // The scalable flow's ECT(1) packets are marked; the Not-ECT Classic
    // packets are dropped, never marked.
    assert!(o.marks[1] > 100, "{:?}", o.marks);
    assert_eq!(o.marks[0], 0);
    assert!(o.drops[0] > 0);
    // The Classic queue is steered toward 15 ms, far below a full buffer.
    assert!(
        classic.mean > 3.0 && classic.mean < 60.0,
        "Classic mean {}",
        classic.mean
    );
}

#[test]
fn without_ecn_the_single_queue_aqms_drop_the_scalable_flow_too() {
    for d in ["red", "codel", "pie"] {
        let o = run(d, &[]);
        assert_eq!(o.marks, [0, 0], "{d}");
        assert!(o.drops[1] > 0, "{d}: {:?}", o.drops);
    }
    // With ECN on, the same queues mark the Classic flows' ECT(0) packets.
    for d in ["red", "codel"] {
        let o = run(d, &["ecn=true"]);
        assert!(o.marks[0] > 0, "{d}: {:?}", o.marks);
    }
    // PIE marks only while its probability is below 10 % (RFC 8033 section
    // 5.1): with nine flows' small windows it stays above and PIE drops;
    // with three flows it marks.
    let o = run("pie", &["ecn=true"]);
    assert_eq!(o.marks[0], 0, "{:?}", o.marks);
    let o = run("pie", &["ecn=true", "flows=2"]);
    assert!(o.marks[0] > 0 && o.marks[1] > 0, "{:?}", o.marks);
}

#[test]
fn pie_and_red_keep_the_queue_short() {
    let dt = run("droptail", &[]);
    for d in ["red", "pie"] {
        let o = run(d, &[]);
        assert!(o.utilization > 0.9, "{d}: {}", o.utilization);
        assert!(
            o.delay[0].mean * 10.0 < dt.delay[0].mean,
            "{d}: mean {} vs drop-tail {}",
            o.delay[0].mean,
            dt.delay[0].mean
        );
    }
}

#[test]
fn a_run_is_a_function_of_its_seed() {
    let a = run("fq_codel", &["duration_s=8", "warmup_s=2"]);
    let b = run("fq_codel", &["duration_s=8", "warmup_s=2"]);
    assert_eq!(a, b);
}

#[test]
fn quick_reproduction_compares_every_target() {
    let r = AqmDumbbell
        .reproduce(
            &ReproduceOpts {
                seed: 1,
                quick: true,
            },
            &Progress::hidden(),
        )
        .unwrap();
    let targets = r.comparisons.iter().filter(|c| c.doc.is_some()).count();
    assert_eq!(targets, 12);
    assert!(r.comparisons.iter().all(|c| c.ours.is_some()));
    assert_eq!(r.tables[0].rows.len(), DISCIPLINES.len());
    assert_eq!(r.plots.len(), 2);
}

#[test]
fn warmup_must_leave_time_to_measure() {
    let p = AqmDumbbell
        .defaults()
        .with(&["duration_s=10", "warmup_s=9.5"])
        .unwrap();
    assert!(AqmDumbbell.check(&p, u64::MAX).is_err());
}

#[test]
fn fq_pie_is_fair_and_keeps_delay_far_below_droptail() {
    let dt = run("droptail", &[]);
    let fq = run("fq_pie", &[]);
    assert!(fq.utilization > 0.95, "{}", fq.utilization);
    // Per-flow queues: nearly equal shares whatever the RTT.
    assert!(
        fq.jain > 0.95 && fq.jain >= dt.jain,
        "{} vs {}",
        fq.jain,
        dt.jain
    );
    // Each flow's PIE holds its queue near 15 ms: far below the full
    // drop-tail buffer, and PIE drops (no ECN here), never marks.
    assert!(
        fq.delay[0].mean * 10.0 < dt.delay[0].mean,
        "FQ-PIE mean {} vs drop-tail {}",
        fq.delay[0].mean,
        dt.delay[0].mean
    );
    assert!(fq.drops[0] > 0);
    assert_eq!(fq.marks, [0, 0]);
}

#[test]
fn fq_pie_marks_ecn_capable_packets_with_ecn_on() {
    let o = run("fq_pie", &["ecn=true"]);
    assert!(o.marks[0] > 0, "{:?}", o.marks);
}

#[test]
fn standing_queue_is_the_per_window_minimum() {
    let codel = run("codel", &[]);
    // 15 measured seconds: 150 windows of 100 ms, each counted for all
    // packets (the link is busy, so every window sends packets).
    let st = &codel.standing[0];
    assert_eq!(st.windows, 150);
    // A window's minimum is at most every delay in it, so the standing
    // queue lies below the median of all packets; at full load it is not 0.
    assert!(
        st.p50 > 0.0 && st.p50 <= codel.delay[0].p50,
        "standing {} vs p50 {}",
        st.p50,
        codel.delay[0].p50
    );
    assert!(st.p50 <= st.p90);
    // Per flow: every flow's windows, at most 9 x 150.
    let pf = &codel.standing_per_flow;
    assert!(pf.windows > 150 && pf.windows <= 9 * 150, "{}", pf.windows);
    // A bottleneck faster than all access links together (9 x 100 Mbit/s)
    // idles in every window: the standing queue is 0.
    let fast = run(
        "codel",
        &["capacity_mbps=1000", "duration_s=3", "warmup_s=1"],
    );
    assert_eq!(fast.standing[0].windows, 20);
    assert_eq!((fast.standing[0].p50, fast.standing[0].p90), (0.0, 0.0));
    assert!(fast.delay[0].packets > 0);
}

//! Many runs of one test and size, averaged; and the runs it takes to tell
//! two blocking probabilities apart.

use super::*;

/// Averages of `runs` runs of one test and size.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Mean blocking probability (%), per aggregate.
    pub blocking_pct: Vec<f64>,
    /// Standard error of that mean (the runs' sample standard deviation over
    /// the square root of the number of runs), per aggregate.
    pub blocking_se_pct: Vec<f64>,
    /// Mean utilization (%).
    pub util_pct: Vec<f64>,
    /// Mean data rate (Mbps).
    pub rate_mbps: Vec<f64>,
    /// Mean of the per-run largest number of active flows.
    pub max_active: Vec<f64>,
    /// Worst overshoot over all runs (%).
    pub overshoot_pct: Vec<f64>,
    /// Events.
    pub events: u64,
    /// Samples of the first run, first aggregate.
    pub samples: Vec<(f64, f64, u32)>,
}

/// Runs `test` at base load `n` (`runs` runs in parallel, seeds derived from `seed`).
pub fn sweep(
    test: &str,
    n: u64,
    p: &Params,
    seed: u64,
    progress: &Progress,
) -> Result<Summary, SimError> {
    let net = build(test, n, p);
    let runs: Vec<u64> = (0..p.u64("runs")).collect();
    let work = |_: &u64| secs(p.f64("warmup_s") + p.f64("observe_s")) / MS;
    let all = run_jobs(&runs, progress, work, |_, &i| {
        // Only the first run's samples are plotted: the others drop theirs.
        simulate(&net, p, derive_seed(seed, i), progress).map(|(mut r, e)| {
            if i > 0 {
                for a in &mut r {
                    a.samples = Vec::new();
                }
            }
            (r, e)
        })
    })?;
    let na = net.aggs.len();
    let k = all.len() as f64;
    let mean = |f: &dyn Fn(&AggResult) -> f64, a: usize| {
        all.iter().map(|(r, _)| f(&r[a])).sum::<f64>() / k
    };
    let mut s = Summary {
        blocking_pct: Vec::new(),
        blocking_se_pct: Vec::new(),
        util_pct: Vec::new(),
        rate_mbps: Vec::new(),
        max_active: Vec::new(),
        overshoot_pct: Vec::new(),
        events: all.iter().map(|(_, e)| e).sum(),
        samples: all[0].0[0].samples.clone(),
    };
    for a in 0..na {
        let bl = |r: &AggResult| 100.0 * r.blocked as f64 / r.arrived.max(1) as f64;
        let m = mean(&bl, a);
        s.blocking_pct.push(m);
        let ss: f64 = all.iter().map(|(r, _)| (bl(&r[a]) - m).powi(2)).sum();
        s.blocking_se_pct.push(if k > 1.0 {
            (ss / (k - 1.0)).sqrt() / k.sqrt()
        } else {
            0.0
        });
        s.util_pct
            .push(mean(&|r| 100.0 * r.rate_bps / r.target_bps, a));
        s.rate_mbps.push(mean(&|r| r.rate_bps / 1e6, a));
        s.max_active.push(mean(&|r| f64::from(r.max_active), a));
        s.overshoot_pct.push(
            all.iter()
                .map(|(r, _)| {
                    (100.0 * (f64::from(r[a].max_active) / r[a].n as f64 - 1.0)).max(0.0_f64)
                })
                .fold(0.0, f64::max),
        );
    }
    Ok(s)
}

/// Runs in each size of the blocking-precision table.
const PRECISION_RUNS: u64 = 400;

/// Erlang-B blocking at S and M with many runs, so that the standard error is
/// below the differences discussed (ours against the document's 12 % and 0.3 %,
/// and against B(N, 0.75 N) and B(N - 1, 0.75 N x 55/60)).
pub(super) fn precision(
    rep: &mut Report,
    base: &Params,
    seed: u64,
    progress: &Progress,
) -> Result<(), SimError> {
    let p = base.with(&[format!("runs={PRECISION_RUNS}")])?;
    let mut rows = Vec::new();
    for (si, doc) in [(0usize, 12.0), (1, 0.3)] {
        let (size, n) = SIZES[si];
        // Seeds 100, 101: apart from the main table's rows (0..18).
        let run = 100 + si as u64;
        let s = sweep("erlang", n, &p, derive_seed(seed, run), progress)?;
        rep.runs.push(RunRecord::new(
            run,
            &format!("erlang {size}, {PRECISION_RUNS} runs"),
            seed,
            &p.with(&["test=erlang".to_string(), format!("n={n}")])?,
            &Params::defaults(PARAMS),
        ));
        let nf = n as f64;
        let (m, se) = (s.blocking_pct[0], s.blocking_se_pct[0]);
        rep.comparisons.push(Comparison::new(
            &format!("Erlang-B {size}, {PRECISION_RUNS} runs"),
            "blocking %",
            Some(doc),
            Some(m),
        ));
        rows.push(vec![
            format!("{size} (N = {n})"),
            PRECISION_RUNS.to_string(),
            format!("{m:.3}"),
            format!("{se:.3}"),
            format!("{:.3}-{:.3}", m - 1.96 * se, m + 1.96 * se),
            fmt_num(doc),
            format!("{:.3}", 100.0 * erlang_b(n as u32, 0.75 * nf)),
            format!(
                "{:.3}",
                100.0 * erlang_b(n as u32 - 1, 0.75 * nf * 55.0 / 60.0)
            ),
        ]);
        rep.events += s.events;
        rep.sim_seconds += PRECISION_RUNS as f64 * (p.f64("warmup_s") + p.f64("observe_s"));
    }
    rep.tables.push(Table {
        name: "blocking_precision".into(),
        title: format!(
            "Erlang-B test, blocking % over {PRECISION_RUNS} runs: mean, standard error, 95 % interval; draft-babiarz-pcn-explicit-marking-01; B(N, 0.75 N); B(N-1, 0.75 N x 55/60) (AR = (N-1) flows, load seen after the mean 5 s media delay)"
        ),
        header: [
            "size",
            "runs",
            "blocking %",
            "std. error",
            "95 % interval",
            "document",
            "B(N, 0.75N)",
            "B(N-1, 0.75N x 55/60)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
    Ok(())
}

//! The flow-count sweep of `reproduce aqm-dumbbell`: N Classic flows and no
//! scalable one, for CoDel, FQ-CoDel and PIE, every other parameter at its
//! default. The flows take the base RTTs of `rtt_ms` round-robin as in the
//! default run (flow i gets the (i mod 4)-th of 10, 20, 50, 100 ms), and the
//! seed is the default run's, so flow i starts at the same instant as flow i
//! of the default run.

use super::flowstats::{dropped_flows, measured, pct};
use super::{law, DumbbellOutcome};
use crate::params::Params;
use crate::report::{fmt_num, Plot, Report, Table};
use crate::SimError;

/// The flow counts.
pub const SWEEP_FLOWS: &[u64] = &[1, 2, 3, 4, 6, 8, 9, 12, 16];
/// The disciplines.
pub const SWEEP_DISCIPLINES: &[&str] = &["codel", "fq_codel", "pie"];

/// One run of the sweep: `flows` Classic flows under `discipline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepPoint {
    /// The discipline.
    pub discipline: &'static str,
    /// Classic flows.
    pub flows: u64,
}

/// Every point: each discipline over every flow count.
#[must_use]
pub fn points() -> Vec<SweepPoint> {
    SWEEP_DISCIPLINES
        .iter()
        .flat_map(|&discipline| {
            SWEEP_FLOWS
                .iter()
                .map(move |&flows| SweepPoint { discipline, flows })
        })
        .collect()
}

/// The parameters of `point`: `base` with its discipline, its flows and no
/// scalable flow.
pub fn params(base: &Params, point: SweepPoint) -> Result<Params, SimError> {
    base.with(&[
        format!("discipline={}", point.discipline),
        format!("flows={}", point.flows),
        "l4s_flows=0".to_string(),
    ])
}

/// One row of the sweep's table.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// The discipline.
    pub discipline: String,
    /// Flows.
    pub flows: usize,
    /// Standing-queue median over all packets, ms.
    pub standing_p50: f64,
    /// Per-flow standing-queue median, ms.
    pub standing_per_flow_p50: f64,
    /// Median queue delay, ms.
    pub delay_p50: f64,
    /// Mean queue delay, ms.
    pub delay_mean: f64,
    /// Utilization, fraction.
    pub utilization: f64,
    /// Drops over arrivals at the bottleneck, every flow.
    pub loss: f64,
    /// Mean over the flows of each one's time-averaged window, segments.
    pub mean_cwnd: f64,
    /// Fast recoveries.
    pub fast_recoveries: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// The square-root law's window at a 5 ms standing queue, segments:
    /// every flow's (single queue: equal windows), or the mean over the
    /// flows (fair scheduler: equal rates).
    pub law_window_5ms: f64,
    /// The loss fraction it needs.
    pub law_loss_5ms: f64,
    /// The law's loss fraction at the measured standing-queue median (per
    /// flow for FQ-CoDel, whose CoDel sees each flow's own queue).
    pub law_loss_measured: f64,
}

/// The row of one run.
#[must_use]
pub fn row(o: &DumbbellOutcome) -> SweepRow {
    let flows = dropped_flows(o);
    let m = measured(&flows);
    let rtts: Vec<f64> = flows.iter().map(|f| f.rtt_ms / 1e3).collect();
    // A single FIFO: every flow sees the same loss fraction, so the same
    // window; a fair scheduler: every flow gets the same rate.
    let fq = o.discipline.starts_with("fq_");
    let at = |q_ms: f64| {
        if fq {
            law::fair_share_point(&rtts, q_ms / 1e3, o.link_pps)
        } else {
            law::operating_point(&rtts, q_ms / 1e3, o.link_pps)
        }
    };
    let q = if fq {
        o.standing_per_flow.p50
    } else {
        o.standing[0].p50
    };
    let five = at(5.0);
    SweepRow {
        discipline: o.discipline.clone(),
        flows: o.flows.len(),
        standing_p50: o.standing[0].p50,
        standing_per_flow_p50: o.standing_per_flow.p50,
        delay_p50: o.delay[0].p50,
        delay_mean: o.delay[0].mean,
        utilization: o.utilization,
        loss: m.loss,
        mean_cwnd: m.mean_cwnd,
        fast_recoveries: m.fast_recoveries,
        timeouts: m.timeouts,
        law_window_5ms: five.map_or(f64::NAN, |p| p.window),
        law_loss_5ms: five.map_or(f64::NAN, |p| p.loss),
        law_loss_measured: at(q).map_or(f64::NAN, |p| p.loss),
    }
}

fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.1}")
    }
}

/// The sweep's table.
#[must_use]
pub fn table(rows: &[SweepRow]) -> Table {
    let header = [
        "discipline",
        "flows",
        "standing p50 ms",
        "per-flow standing p50 ms",
        "p50 ms",
        "mean ms",
        "utilization %",
        "loss %",
        "mean cwnd seg",
        "fast recoveries",
        "RTOs",
        "law W at 5 ms seg",
        "law loss at 5 ms %",
        "law loss at measured standing %",
    ];
    Table {
        name: "flow_count".into(),
        title: "flow-count sweep: N Classic flows (base RTTs 10, 20, 50, 100 ms round-robin), no scalable flow, default seed; standing-queue medians (all packets, per flow), queue delay median and mean, utilization, drops / arrivals, mean window, fast recoveries and RTOs; the square-root law's window and loss fraction for a 5 ms standing queue, and its loss fraction at the measured standing queue (CoDel, PIE: every flow the same window; FQ-CoDel: every flow the same rate, the means over the flows, at its per-flow standing queue)".into(),
        header: header.iter().map(|s| s.to_string()).collect(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.discipline.clone(),
                    r.flows.to_string(),
                    ms(r.standing_p50),
                    ms(r.standing_per_flow_p50),
                    ms(r.delay_p50),
                    ms(r.delay_mean),
                    format!("{:.2}", r.utilization * 100.0),
                    pct(r.loss),
                    format!("{:.2}", r.mean_cwnd),
                    r.fast_recoveries.to_string(),
                    r.timeouts.to_string(),
                    format!("{:.2}", r.law_window_5ms),
                    pct(r.law_loss_5ms),
                    pct(r.law_loss_measured),
                ]
            })
            .collect(),
    }
}

/// Standing queue against N: CoDel's and PIE's over all packets, FQ-CoDel's
/// per flow, with TARGET and the factor-of-2 band around it.
#[must_use]
pub fn plot(rows: &[SweepRow]) -> Plot {
    let mut p = Plot {
        name: "flow_count".into(),
        title: "Standing queue (median per-100 ms minimum) against the number of Classic flows"
            .into(),
        x_label: "Classic flows N".into(),
        y_label: "standing queue median, ms".into(),
        ..Plot::default()
    };
    for (k, d) in SWEEP_DISCIPLINES.iter().enumerate() {
        let fq = d.starts_with("fq_");
        let pts = rows
            .iter()
            .filter(|r| r.discipline == *d)
            .map(|r| {
                let q = if fq {
                    r.standing_per_flow_p50
                } else {
                    r.standing_p50
                };
                (r.flows as f64, q)
            })
            .collect();
        let label = if fq {
            format!("{d} (per flow)")
        } else {
            (*d).to_string()
        };
        p.styled_line(&label, pts, k, false);
    }
    p.hlines.push((10.0, "2 x TARGET".into()));
    p.hlines.push((5.0, "TARGET 5 ms".into()));
    p.hlines.push((2.5, "TARGET / 2".into()));
    p.hlines.push((15.0, "PIE QDELAY_REF 15 ms".into()));
    p
}

/// Adds the sweep's table and plot to `r`.
pub fn report(r: &mut Report, outs: &[DumbbellOutcome]) {
    let rows: Vec<SweepRow> = outs.iter().map(row).collect();
    r.tables.push(table(&rows));
    r.plots.push(plot(&rows));
}

/// The label of a point's run record.
#[must_use]
pub fn label(point: SweepPoint) -> String {
    format!(
        "flow-count sweep: {}, {} Classic flows",
        point.discipline,
        fmt_num(point.flows as f64)
    )
}

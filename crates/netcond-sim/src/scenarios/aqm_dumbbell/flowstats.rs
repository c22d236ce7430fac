//! Each flow's TCP statistics at the bottleneck, and the square-root law
//! (module [`law`]) set beside them.

use super::{law, DumbbellOutcome, FlowResult};
use crate::report::{fmt_num, Table};

/// The disciplines with one FIFO for the Classic flows, for which the law's
/// shared standing queue applies (drop-tail drops too seldom to matter).
pub const LAW_DISCIPLINES: &[&str] = &["red", "codel", "pie", "dualpi2"];

/// The flows whose congestion signal is a drop: those of a class the queue
/// never marked (with ECN off, every flow but DualPI2's scalable one).
pub fn dropped_flows(o: &DumbbellOutcome) -> Vec<&FlowResult> {
    o.flows
        .iter()
        .filter(|f| o.marks[usize::from(f.scalable)] == 0)
        .collect()
}

/// What a set of flows measured together.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measured {
    /// Flows counted.
    pub flows: usize,
    /// Their drops over their arrivals at the bottleneck.
    pub loss: f64,
    /// The mean over the flows of each one's time-averaged window, segments.
    pub mean_cwnd: f64,
    /// Retransmission timeouts, summed.
    pub timeouts: u64,
    /// Fast recoveries, summed.
    pub fast_recoveries: u64,
}

/// The sums and means of `flows`.
#[must_use]
pub fn measured(flows: &[&FlowResult]) -> Measured {
    let arrivals: u64 = flows.iter().map(|f| f.arrivals).sum();
    let drops: u64 = flows.iter().map(|f| f.drops).sum();
    Measured {
        flows: flows.len(),
        loss: if arrivals == 0 {
            0.0
        } else {
            drops as f64 / arrivals as f64
        },
        mean_cwnd: flows.iter().map(|f| f.mean_cwnd).sum::<f64>() / flows.len().max(1) as f64,
        timeouts: flows.iter().map(|f| f.timeouts).sum(),
        fast_recoveries: flows.iter().map(|f| f.fast_recoveries).sum(),
    }
}

pub(super) fn pct(p: f64) -> String {
    format!("{:.2}", p * 100.0)
}

fn kind(f: &FlowResult) -> &'static str {
    if f.scalable {
        "scalable"
    } else {
        "Classic"
    }
}

/// One row per discipline and flow: loss fraction at the bottleneck,
/// time-averaged window and flight, the law's window for the flow's own loss
/// fraction, fast recoveries and timeouts, all over the measured interval.
pub(super) fn flow_tcp_table(outs: &[DumbbellOutcome]) -> Table {
    let header = [
        "discipline",
        "flow",
        "kind",
        "base RTT ms",
        "arrivals",
        "drops",
        "loss %",
        "mean cwnd seg",
        "mean in flight seg",
        "law W seg",
        "cwnd / law W",
        "fast recoveries",
        "RTOs",
        "goodput Mbps",
    ];
    let mut rows = Vec::new();
    for o in outs {
        for (i, f) in o.flows.iter().enumerate() {
            let w = law::window_for_loss(f.loss());
            rows.push(vec![
                o.discipline.clone(),
                i.to_string(),
                kind(f).to_string(),
                fmt_num(f.rtt_ms),
                f.arrivals.to_string(),
                f.drops.to_string(),
                pct(f.loss()),
                format!("{:.2}", f.mean_cwnd),
                format!("{:.2}", f.mean_flight),
                w.map_or(String::new(), |w| format!("{w:.2}")),
                w.map_or(String::new(), |w| format!("{:.2}", f.mean_cwnd / w)),
                f.fast_recoveries.to_string(),
                f.timeouts.to_string(),
                format!("{:.3}", f.goodput_mbps),
            ]);
        }
    }
    Table {
        name: "flow_tcp".into(),
        title: "per flow at the bottleneck (measured interval): loss fraction (drops / arrivals), congestion window and segments in flight averaged over 10 ms samples, the square-root law's window sqrt(3/(2p)) for the flow's own p, fast recoveries, RTOs".into(),
        header: header.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

/// The law's operating points of `o`'s drop-signalled flows at the queues
/// `(label, q in ms)`, beside what those flows measured.
#[must_use]
pub fn law_rows(o: &DumbbellOutcome, queues: &[(&str, f64)]) -> Vec<Vec<String>> {
    let flows = dropped_flows(o);
    let m = measured(&flows);
    let rtts: Vec<f64> = flows.iter().map(|f| f.rtt_ms / 1e3).collect();
    queues
        .iter()
        .filter_map(|&(label, q_ms)| {
            let op = law::operating_point(&rtts, q_ms / 1e3, o.link_pps)?;
            Some(vec![
                o.discipline.clone(),
                m.flows.to_string(),
                label.to_string(),
                format!("{q_ms:.2}"),
                format!("{:.2}", op.window),
                pct(op.loss),
                format!("{:.2}", m.mean_cwnd),
                pct(m.loss),
                format!("{:.2}", m.loss / op.loss),
                m.fast_recoveries.to_string(),
                m.timeouts.to_string(),
            ])
        })
        .collect()
}

/// The queues at which the law is evaluated for `o`: CoDel's TARGET, and the
/// standing-queue median and the mean queue delay of the drop-signalled
/// flows' packets (DualPI2: its Classic queue).
#[must_use]
pub fn law_queues(o: &DumbbellOutcome) -> Vec<(&'static str, f64)> {
    let k = usize::from(o.discipline == "dualpi2");
    vec![
        ("5 ms (RFC 8289 TARGET)", 5.0),
        ("standing queue median", o.standing[k].p50),
        ("mean queue delay", o.delay[k].mean),
    ]
}

/// The law's table for the single-FIFO disciplines of `outs`.
pub(super) fn law_table(outs: &[DumbbellOutcome]) -> Table {
    let rows = outs
        .iter()
        .filter(|o| LAW_DISCIPLINES.contains(&o.discipline.as_str()))
        .flat_map(|o| law_rows(o, &law_queues(o)))
        .collect();
    Table {
        name: "law".into(),
        title: "square-root law (Mathis et al. 1997, W = sqrt(3/(2p))): the equal window W with which the drop-signalled flows fill the link when a queue q adds to every base RTT (W sum 1/(RTT_i + q) = link rate), and the loss fraction p it needs, beside those flows' mean time-averaged window and their drops / arrivals".into(),
        header: [
            "discipline",
            "flows",
            "queue q",
            "q ms",
            "law W seg",
            "law loss %",
            "measured mean cwnd seg",
            "measured loss %",
            "measured / law loss",
            "fast recoveries",
            "RTOs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    }
}

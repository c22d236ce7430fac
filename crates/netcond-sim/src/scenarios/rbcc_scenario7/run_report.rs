//! The tables and plots of a run.

use super::*;

pub(super) const NAMES: [&str; 4] = ["source 5", "source 6", "source 7", "source 8"];

pub(super) fn rate_plot(name: &str, title: &str, r: &S7Result) -> Plot {
    let mut p = Plot {
        name: name.into(),
        title: title.into(),
        x_label: "time (s)".into(),
        y_label: "rate (bit/s)".into(),
        ..Plot::default()
    };
    for (i, n) in NAMES.iter().enumerate() {
        p.series.push(Series {
            label: (*n).into(),
            points: r.samples.iter().map(|s| (s.0, s.1[i])).collect(),
            axis: Axis::Left,
            step: true,
            color: None,
            dashed: false,
        });
    }
    for (v, l) in [
        (64_000.0, "64000"),
        (31_168.8, "31168.8"),
        (20_779.2, "20779.2"),
    ] {
        p.hlines.push((v, l.into()));
    }
    p
}

pub(super) fn extra_plots(tag: &str, r: &S7Result) -> Vec<Plot> {
    let mut q = Plot {
        name: format!("{tag}_router2_queue"),
        title: format!("{tag}: router 2 queue (2->3)"),
        x_label: "time (s)".into(),
        y_label: "packets".into(),
        ..Plot::default()
    };
    q.series.push(Series {
        label: "queue".into(),
        points: r.samples.iter().map(|s| (s.0, f64::from(s.2))).collect(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    let mut d = Plot {
        name: format!("{tag}_delay5"),
        title: format!("{tag}: source 5 end-to-end delay"),
        x_label: "time (s)".into(),
        y_label: "delay (s)".into(),
        ..Plot::default()
    };
    d.line("source 5", Axis::Left, r.delay5.clone());
    let mut u = Plot {
        name: format!("{tag}_util23"),
        title: format!("{tag}: 2->3 link utilisation (2 s periods)"),
        x_label: "time (s)".into(),
        y_label: "utilisation".into(),
        ..Plot::default()
    };
    u.series.push(Series {
        label: "2->3".into(),
        points: r.util.clone(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    vec![q, d, u]
}

/// Per phase and flow: (the rate at the end of the phase, mean over the phase
/// after 5 s of settling).
pub(super) fn phase_rates(r: &S7Result, ph: &Phase, flow: usize) -> (Option<f64>, Option<f64>) {
    let inside: Vec<f64> = r
        .samples
        .iter()
        .filter(|s| s.0 > ph.from + 5.0 && s.0 < ph.to - 1e-9)
        .map(|s| s.1[flow])
        .collect();
    let last = r
        .samples
        .iter()
        .rfind(|s| s.0 < ph.to - 1e-9)
        .map(|s| s.1[flow]);
    let mean = if inside.is_empty() {
        None
    } else {
        Some(inside.iter().sum::<f64>() / inside.len() as f64)
    };
    (last, mean)
}

pub(super) fn summary_rows(tag: &str, r: &S7Result) -> Vec<Vec<String>> {
    let d: Vec<f64> = r.delay5.iter().map(|x| x.1).collect();
    let min = d.iter().copied().fold(f64::INFINITY, f64::min);
    let max = d.iter().copied().fold(0.0, f64::max);
    let util: Vec<f64> = r.util.iter().map(|u| u.1).collect();
    let umean = util.iter().sum::<f64>() / util.len().max(1) as f64;
    let qmean = r
        .samples
        .iter()
        .filter(|s| s.0 >= 20.0)
        .map(|s| f64::from(s.2))
        .sum::<f64>()
        / r.samples.iter().filter(|s| s.0 >= 20.0).count().max(1) as f64;
    vec![vec![
        tag.into(),
        format!("{min:.4}"),
        format!("{max:.3}"),
        r.max_queue.to_string(),
        format!("{qmean:.2}"),
        format!("{:.1}", 100.0 * umean),
        r.drops.to_string(),
    ]]
}

pub(super) fn summary_header() -> Vec<String> {
    [
        "protocol",
        "delay5 min s",
        "delay5 max s",
        "max queue (>20 s)",
        "mean queue",
        "2->3 util %",
        "drops",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

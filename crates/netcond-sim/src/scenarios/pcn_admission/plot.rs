//! The plot of a row's first run: data rate and active flows over time.

use super::*;

pub(super) fn plot_of(name: &str, title: &str, s: &Summary, target_mbps: f64) -> Plot {
    let mut p = Plot {
        name: name.into(),
        title: title.into(),
        x_label: "time (s)".into(),
        y_label: "data rate (Mbps)".into(),
        y2_label: Some("active flows".into()),
        ..Plot::default()
    };
    p.series.push(Series {
        label: "data rate".into(),
        points: s.samples.iter().map(|x| (x.0, x.1)).collect(),
        axis: Axis::Left,
        step: true,
        color: None,
        dashed: false,
    });
    p.line(
        "active flows",
        Axis::Right,
        s.samples.iter().map(|x| (x.0, f64::from(x.2))).collect(),
    );
    p.hlines.push((target_mbps, "N x mean flow rate".into()));
    p
}

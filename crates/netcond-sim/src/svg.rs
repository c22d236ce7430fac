//! A small hand-written SVG line chart: a left and an optional right axis,
//! legend, reference lines. No dependencies.

use crate::report::{fmt_num, Axis, Plot};
use std::fmt::Write as _;

const W: f64 = 900.0;
const H: f64 = 480.0;
const ML: f64 = 70.0;
const MR: f64 = 70.0;
const MT: f64 = 40.0;
const MB: f64 = 90.0;
const COLORS: &[&str] = &[
    "#e07000", "#7030a0", "#1f77b4", "#2ca02c", "#d62728", "#8c564b", "#17becf", "#bcbd22",
];

fn nice_step(span: f64) -> f64 {
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let f = if n < 1.5 {
        1.0
    } else if n < 3.0 {
        2.0
    } else if n < 7.0 {
        5.0
    } else {
        10.0
    };
    f * mag
}

fn range(vals: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero && lo > 0.0 {
        lo = 0.0;
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    let step = nice_step(hi - lo);
    ((lo / step).floor() * step, (hi / step).ceil() * step)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Renders `plot` as a standalone SVG document.
#[must_use]
pub fn render(plot: &Plot) -> String {
    let (x0, x1) = range(
        plot.series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0)),
        false,
    );
    let left = plot.series.iter().filter(|s| s.axis == Axis::Left);
    let (y0, y1) = range(
        left.flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(plot.hlines.iter().map(|h| h.0)),
        true,
    );
    let has_right = plot.series.iter().any(|s| s.axis == Axis::Right);
    let (r0, r1) = range(
        plot.series
            .iter()
            .filter(|s| s.axis == Axis::Right)
            .flat_map(|s| s.points.iter().map(|p| p.1)),
        true,
    );
    let pw = W - ML - MR;
    let ph = H - MT - MB;
    let sx = |x: f64| ML + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| MT + ph - (y - y0) / (y1 - y0) * ph;
    let sr = |y: f64| MT + ph - (y - r0) / (r1 - r0) * ph;

    // The legend has three entries per row below the plot; rows past the
    // third make the picture taller rather than fall outside it.
    let rows = plot.series.len().div_ceil(3);
    let full_h = H + rows.saturating_sub(3) as f64 * 15.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{full_h}" viewBox="0 0 {W} {full_h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{full_h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        W / 2.0,
        esc(&plot.title)
    );
    // Grid and ticks.
    let xs = nice_step(x1 - x0);
    let mut x = x0;
    while x <= x1 + xs * 1e-9 {
        let px = sx(x);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{MT}" x2="{px:.1}" y2="{:.1}" stroke="#ddd" stroke-dasharray="3,3"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            MT + ph,
            MT + ph + 16.0,
            fmt_num(x)
        );
        x += xs;
    }
    let ys = nice_step(y1 - y0);
    let mut y = y0;
    while y <= y1 + ys * 1e-9 {
        let py = sy(y);
        let _ = writeln!(
            s,
            r##"<line x1="{ML}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            ML + pw,
            ML - 6.0,
            py + 4.0,
            fmt_num(y)
        );
        y += ys;
    }
    if has_right {
        let rs = nice_step(r1 - r0);
        let mut y = r0;
        while y <= r1 + rs * 1e-9 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                ML + pw + 6.0,
                sr(y) + 4.0,
                fmt_num(y)
            );
            y += rs;
        }
    }
    let _ = writeln!(
        s,
        r#"<rect x="{ML}" y="{MT}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        ML + pw / 2.0,
        MT + ph + 34.0,
        esc(&plot.x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        MT + ph / 2.0,
        esc(&plot.y_label)
    );
    if let Some(l) = &plot.y2_label {
        let _ = writeln!(
            s,
            r#"<text transform="translate({:.1},{:.1}) rotate(90)" text-anchor="middle">{}</text>"#,
            W - 14.0,
            MT + ph / 2.0,
            esc(l)
        );
    }
    // The data in pixels, sampled along each segment, so that reference-line
    // labels can be put where they cover the fewest data.
    let mut ink: Vec<(f64, f64)> = Vec::new();
    for ser in &plot.series {
        let to_px =
            |&(x, y): &(f64, f64)| (sx(x), if ser.axis == Axis::Left { sy(y) } else { sr(y) });
        let pts: Vec<(f64, f64)> = ser.points.iter().map(to_px).collect();
        for w in pts.windows(2) {
            let ((ax, ay), (bx, by)) = (w[0], w[1]);
            let by = if ser.step { ay } else { by };
            let n = (((bx - ax).abs() + (by - ay).abs()) / 4.0)
                .ceil()
                .clamp(1.0, 200.0) as usize;
            for k in 0..=n {
                let f = k as f64 / n as f64;
                ink.push((ax + f * (bx - ax), ay + f * (by - ay)));
            }
            if ser.step {
                ink.push((bx, w[1].1));
            }
        }
        if pts.len() == 1 {
            ink.push(pts[0]);
        }
    }
    for (v, label) in &plot.hlines {
        let py = sy(*v);
        let tw = 7.0 * label.chars().count() as f64;
        // (x of the text, anchor, baseline): left above first (the former place).
        let cands = [
            (ML + 4.0, "start", py - 3.0),
            (ML + pw - 4.0, "end", py - 3.0),
            (ML + pw / 2.0, "middle", py - 3.0),
            (ML + 4.0, "start", py + 13.0),
            (ML + pw - 4.0, "end", py + 13.0),
            (ML + pw / 2.0, "middle", py + 13.0),
        ];
        let covered = |&(x, anchor, base): &(f64, &str, f64)| {
            let x0 = match anchor {
                "start" => x,
                "end" => x - tw,
                _ => x - tw / 2.0,
            };
            ink.iter()
                .filter(|&&(px, py)| {
                    px >= x0 - 2.0 && px <= x0 + tw + 2.0 && py >= base - 12.0 && py <= base + 3.0
                })
                .count()
        };
        let best = cands
            .iter()
            .min_by_key(|c| covered(c))
            .copied()
            .unwrap_or(cands[0]);
        let anchor = if best.1 == "start" {
            String::new()
        } else {
            format!(r#" text-anchor="{}""#, best.1)
        };
        let _ = writeln!(
            s,
            r##"<line x1="{ML}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#555" stroke-dasharray="6,4"/><text x="{:.1}" y="{:.1}"{anchor} fill="#555">{}</text>"##,
            ML + pw,
            best.0,
            best.2,
            esc(label)
        );
    }
    for (i, ser) in plot.series.iter().enumerate() {
        let color = COLORS[ser.color.unwrap_or(i) % COLORS.len()];
        // Past the palette, the colors come again dashed, so that no two
        // series look alike (unless the series chose its own style).
        let dash = if ser.dashed || (ser.color.is_none() && (i / COLORS.len()) % 2 == 1) {
            r#" stroke-dasharray="7,3""#
        } else {
            ""
        };
        let mut d = String::new();
        let mut last_y: Option<f64> = None;
        for (j, &(x, y)) in ser.points.iter().enumerate() {
            let px = sx(x);
            let py = if ser.axis == Axis::Left { sy(y) } else { sr(y) };
            if j == 0 {
                let _ = write!(d, "M{px:.1},{py:.1}");
            } else {
                if ser.step {
                    if let Some(ly) = last_y {
                        let _ = write!(d, " L{px:.1},{ly:.1}");
                    }
                }
                let _ = write!(d, " L{px:.1},{py:.1}");
            }
            last_y = Some(py);
        }
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.3"{dash}/>"#
        );
        let lx = ML + (i as f64 % 3.0) * (pw / 3.0);
        let ly = H - 30.0 + (i / 3) as f64 * 15.0 - 10.0;
        let axis = if ser.axis == Axis::Right {
            " (right)"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="3"{dash}/><text x="{:.1}" y="{:.1}">{}{}</text>"#,
            lx + 20.0,
            lx + 26.0,
            ly + 4.0,
            esc(&ser.label),
            axis
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_valid_looking_svg() {
        let mut p = Plot {
            name: "t".into(),
            title: "rate <test>".into(),
            x_label: "time (s)".into(),
            y_label: "Mbps".into(),
            y2_label: Some("flows".into()),
            ..Plot::default()
        };
        p.line("rate", Axis::Left, vec![(0.0, 1.0), (1.0, 2.0)]);
        p.line("flows", Axis::Right, vec![(0.0, 10.0), (1.0, 5.0)]);
        p.hlines.push((1.5, "SR".into()));
        let s = render(&p);
        assert!(s.starts_with("<svg"));
        assert!(s.trim_end().ends_with("</svg>"));
        assert!(s.contains("rate &lt;test&gt;"));
        assert_eq!(s.matches("<path").count(), 2);
    }

    /// With more series than the palette and three legend rows, every legend
    /// entry lies inside the picture and no two series are drawn alike.
    #[test]
    fn many_series_fit_and_differ() {
        let mut p = Plot::default();
        for k in 0..16 {
            p.line(
                &format!("s{k}"),
                Axis::Left,
                vec![(0.0, k as f64), (1.0, 1.0)],
            );
        }
        let s = render(&p);
        let attr = |line: &str, name: &str| -> Option<String> {
            let at = line.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(line[at..].split('"').next()?.to_string())
        };
        let height: f64 = attr(s.lines().next().unwrap(), "height")
            .unwrap()
            .parse()
            .unwrap();
        let mut looks = Vec::new();
        for line in s
            .lines()
            .filter(|l| l.starts_with("<line") && l.contains("stroke-width=\"3\""))
        {
            let y: f64 = attr(line, "y1").unwrap().parse().unwrap();
            assert!(
                y + 8.0 <= height,
                "legend entry at {y} below {height}: {line}"
            );
            looks.push((attr(line, "stroke"), attr(line, "stroke-dasharray")));
        }
        // One legend entry (a thick line) per series.
        assert_eq!(looks.len(), 16);
        let mut distinct = looks.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 16, "{looks:?}");
    }

    /// Pairs drawn with `styled_line` share their colour, and the dashed
    /// member of each pair is dashed in the plot and in the legend.
    #[test]
    fn styled_pairs_share_a_colour_and_the_second_is_dashed() {
        let mut p = Plot::default();
        for j in 0..4 {
            p.styled_line(
                &format!("r{j} ours"),
                vec![(0.0, 1.0), (1.0, 2.0)],
                j,
                false,
            );
            p.styled_line(&format!("r{j} RFC"), vec![(0.0, 1.5), (1.0, 2.5)], j, true);
        }
        let s = render(&p);
        let paths: Vec<&str> = s.lines().filter(|l| l.starts_with("<path")).collect();
        assert_eq!(paths.len(), 8);
        let stroke = |l: &str| {
            l.split("stroke=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_string()
        };
        for j in 0..4 {
            let (a, b) = (paths[2 * j], paths[2 * j + 1]);
            assert_eq!(stroke(a), stroke(b), "pair {j}");
            assert!(!a.contains("dasharray"), "{a}");
            assert!(b.contains("stroke-dasharray"), "{b}");
        }
        assert_ne!(stroke(paths[0]), stroke(paths[2]));
        let legend: Vec<&str> = s
            .lines()
            .filter(|l| l.starts_with("<line") && l.contains("stroke-width=\"3\""))
            .collect();
        assert!(legend
            .iter()
            .filter(|l| l.contains("RFC"))
            .all(|l| l.contains("dasharray")));
        assert!(legend
            .iter()
            .filter(|l| l.contains("ours"))
            .all(|l| !l.contains("dasharray")));
    }

    /// A reference line's label moves away from a series that runs along the
    /// line under its usual place (the left end, just above it).
    #[test]
    fn reference_labels_avoid_the_data() {
        let mut p = Plot::default();
        // Flat at 10 on the left half, far below on the right half.
        p.line(
            "rate",
            Axis::Left,
            vec![(0.0, 10.2), (5.0, 10.2), (5.1, 0.0), (10.0, 0.0)],
        );
        p.hlines.push((10.0, "SR".into()));
        let s = render(&p);
        let line = s
            .lines()
            .find(|l| l.contains(">SR</text>"))
            .expect("the label");
        assert!(
            line.contains("text-anchor=\"end\""),
            "label still on the series at the left: {line}"
        );
        // With nothing near, it stays at the left, as before.
        let mut q = Plot::default();
        q.line("rate", Axis::Left, vec![(0.0, 0.0), (10.0, 1.0)]);
        q.hlines.push((10.0, "SR".into()));
        let s = render(&q);
        let line = s.lines().find(|l| l.contains(">SR</text>")).unwrap();
        assert!(!line.contains("text-anchor"), "{line}");
    }
}

//! A run's result: the document's numbers beside ours, extra tables and plots,
//! printed as text and written as CSV and SVG.

use crate::svg;
use std::fmt::Write as _;
use std::path::Path;

/// One number of the document beside ours.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The row of the document's table (e.g. "Fig. 2 G.711CBR").
    pub case: String,
    /// The column (e.g. "t150% s").
    pub metric: String,
    /// The document's value, if it gives one.
    pub doc: Option<f64>,
    /// The document's value as printed, when it is not a plain number ("~2", "-", "*").
    pub doc_text: Option<String>,
    /// Our value.
    pub ours: Option<f64>,
}

impl Comparison {
    /// A comparison with a numeric document value.
    #[must_use]
    pub fn new(case: &str, metric: &str, doc: Option<f64>, ours: Option<f64>) -> Comparison {
        Comparison {
            case: case.to_string(),
            metric: metric.to_string(),
            doc,
            doc_text: None,
            ours,
        }
    }

    /// The same with the document's printed text (e.g. "~2" for 2.0).
    #[must_use]
    pub fn doc_text(mut self, text: &str) -> Comparison {
        self.doc_text = Some(text.to_string());
        self
    }

    /// ours - doc, when both exist.
    #[must_use]
    pub fn diff(&self) -> Option<f64> {
        Some(self.ours? - self.doc?)
    }
}

/// A free table (our numbers only), printed and written as CSV.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// File-safe name.
    pub name: String,
    /// Title line.
    pub title: String,
    /// Column headers.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

/// Which y axis a series is drawn against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The left axis.
    Left,
    /// The right axis (e.g. active flows beside a rate).
    Right,
}

/// One line of a plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
    /// Axis.
    pub axis: Axis,
    /// Draw as a step function (rates over intervals) instead of straight segments.
    pub step: bool,
}

/// A plot: series over a common x axis, written as CSV and SVG.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plot {
    /// File-safe name.
    pub name: String,
    /// Title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Left axis label.
    pub y_label: String,
    /// Right axis label, if any series uses it.
    pub y2_label: Option<String>,
    /// The lines.
    pub series: Vec<Series>,
    /// Horizontal reference lines on the left axis (value, label).
    pub hlines: Vec<(f64, String)>,
}

impl Plot {
    /// Adds a series.
    pub fn line(&mut self, label: &str, axis: Axis, points: Vec<(f64, f64)>) -> &mut Self {
        self.series.push(Series {
            label: label.to_string(),
            points,
            axis,
            step: false,
        });
        self
    }

    /// The plot as CSV: one row per (series, point).
    #[must_use]
    pub fn to_csv(&self) -> String {
        let mut s = String::from("series,x,y\n");
        for l in &self.series {
            for (x, y) in &l.points {
                let _ = writeln!(s, "{},{x},{y}", csv_field(&l.label));
            }
        }
        s
    }
}

/// The result of a run or of a reproduction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Scenario name.
    pub scenario: String,
    /// One-line title.
    pub title: String,
    /// Parameters used (key=value).
    pub params: Vec<String>,
    /// The document's numbers beside ours.
    pub comparisons: Vec<Comparison>,
    /// Extra tables.
    pub tables: Vec<Table>,
    /// Plots.
    pub plots: Vec<Plot>,
    /// Free-text notes (choices made, caveats, mismatch explanations).
    pub notes: Vec<String>,
    /// Events processed.
    pub events: u64,
    /// Simulated seconds (summed over runs).
    pub sim_seconds: f64,
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Formats a number for tables: up to 4 significant decimals, trimmed.
#[must_use]
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    let s = if a >= 1000.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    };
    if s.contains('.') && !s.contains('e') {
        let t = s.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" {
            "0".to_string()
        } else {
            t.to_string()
        }
    } else {
        s
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), fmt_num)
}

fn render_table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let mut w: Vec<usize> = header.iter().map(String::len).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i < w.len() {
                w[i] = w[i].max(c.len());
            } else {
                w.push(c.len());
            }
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i == 0 {
                let _ = write!(s, "{:<w$}", c, w = w[i]);
            } else {
                let _ = write!(s, "  {:>w$}", c, w = w[i]);
            }
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header));
    let total: usize = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    let _ = writeln!(out, "{}", "-".repeat(total));
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
}

impl Report {
    /// An empty report for `scenario`.
    #[must_use]
    pub fn new(scenario: &str, title: &str) -> Report {
        Report {
            scenario: scenario.to_string(),
            title: title.to_string(),
            ..Report::default()
        }
    }

    /// Appends `other`'s content (comparisons, tables, plots, notes, counters).
    pub fn absorb(&mut self, other: Report) {
        self.comparisons.extend(other.comparisons);
        self.tables.extend(other.tables);
        self.plots.extend(other.plots);
        for n in other.notes {
            if !self.notes.contains(&n) {
                self.notes.push(n);
            }
        }
        self.events += other.events;
        self.sim_seconds += other.sim_seconds;
    }

    /// The comparison rows as a table: case, metric, document, ours, difference.
    #[must_use]
    pub fn comparison_text(&self) -> String {
        let header: Vec<String> = ["case", "metric", "document", "ours", "ours-doc"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let rows: Vec<Vec<String>> = self
            .comparisons
            .iter()
            .map(|c| {
                vec![
                    c.case.clone(),
                    c.metric.clone(),
                    c.doc_text.clone().unwrap_or_else(|| opt(c.doc)),
                    opt(c.ours),
                    c.diff().map_or_else(String::new, |d| {
                        if d >= 0.0 {
                            format!("+{}", fmt_num(d))
                        } else {
                            fmt_num(d)
                        }
                    }),
                ]
            })
            .collect();
        let mut s = String::new();
        render_table(&mut s, &header, &rows);
        s
    }

    /// The whole report as text.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "== {}: {}", self.scenario, self.title);
        if !self.params.is_empty() {
            let _ = writeln!(s, "parameters: {}", self.params.join(" "));
        }
        if !self.comparisons.is_empty() {
            let _ = writeln!(s);
            s.push_str(&self.comparison_text());
        }
        for t in &self.tables {
            let _ = writeln!(s, "\n{}", t.title);
            render_table(&mut s, &t.header, &t.rows);
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\nnotes:");
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        let _ = writeln!(
            s,
            "\n{} events, {} simulated seconds",
            self.events,
            fmt_num(self.sim_seconds)
        );
        s
    }

    /// The comparisons as CSV.
    #[must_use]
    pub fn comparison_csv(&self) -> String {
        let mut s = String::from("case,metric,document,document_text,ours,difference\n");
        for c in &self.comparisons {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{}",
                csv_field(&c.case),
                csv_field(&c.metric),
                c.doc.map_or(String::new(), |v| v.to_string()),
                csv_field(c.doc_text.as_deref().unwrap_or("")),
                c.ours.map_or(String::new(), |v| v.to_string()),
                c.diff().map_or(String::new(), |v| v.to_string()),
            );
        }
        s
    }

    /// Writes `report.txt`, `comparison.csv`, one CSV per table and a CSV and an
    /// SVG per plot into `dir` (created if needed). Returns the files written.
    pub fn write(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        std::fs::create_dir_all(dir)?;
        let mut files = Vec::new();
        let mut put = |name: String, body: String| -> std::io::Result<()> {
            let p = dir.join(&name);
            std::fs::write(&p, body)?;
            files.push(p.display().to_string());
            Ok(())
        };
        put("report.txt".into(), self.to_text())?;
        if !self.comparisons.is_empty() {
            put("comparison.csv".into(), self.comparison_csv())?;
        }
        for t in &self.tables {
            let mut s = t
                .header
                .iter()
                .map(|h| csv_field(h))
                .collect::<Vec<_>>()
                .join(",");
            s.push('\n');
            for r in &t.rows {
                s.push_str(&r.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
                s.push('\n');
            }
            put(format!("{}.csv", t.name), s)?;
        }
        for p in &self.plots {
            put(format!("{}.csv", p.name), p.to_csv())?;
            put(format!("{}.svg", p.name), svg::render(p))?;
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format_compactly() {
        assert_eq!(fmt_num(40.0), "40");
        assert_eq!(fmt_num(0.15), "0.15");
        assert_eq!(fmt_num(31168.83), "31168.8");
        assert_eq!(fmt_num(-0.0001), "-1.00e-4");
    }

    #[test]
    fn comparison_text_has_difference() {
        let mut r = Report::new("x", "t");
        r.comparisons
            .push(Comparison::new("Fig 2", "t150", Some(0.15), Some(0.2)));
        r.comparisons
            .push(Comparison::new("Fig 2", "t100", Some(2.0), Some(1.5)).doc_text("~2"));
        let t = r.comparison_text();
        assert!(t.contains("+0.05"), "{t}");
        assert!(t.contains("~2"), "{t}");
        assert!(t.contains("-0.5"), "{t}");
    }
}

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

    /// ours - doc, when both exist, without float noise: a difference within
    /// 10^-9 of the larger magnitude or below 10^-12 (the rounding of the
    /// subtraction, e.g. 0.3 - 0.1 - 0.2) is 0, and -0 is 0.
    #[must_use]
    pub fn diff(&self) -> Option<f64> {
        let (o, d) = (self.ours?, self.doc?);
        let diff = o - d;
        if diff.abs() <= 1e-9 * o.abs().max(d.abs()) || diff.abs() < 1e-12 {
            Some(0.0)
        } else {
            Some(diff)
        }
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
    /// Palette colour index; `None`: by position.
    pub color: Option<usize>,
    /// Dashed line.
    pub dashed: bool,
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
            color: None,
            dashed: false,
        });
        self
    }

    /// Adds a series drawn in palette colour `color`, dashed or solid (pairs
    /// of series that belong together share a colour).
    pub fn styled_line(
        &mut self,
        label: &str,
        points: Vec<(f64, f64)>,
        color: usize,
        dashed: bool,
    ) -> &mut Self {
        self.series.push(Series {
            label: label.to_string(),
            points,
            axis: Axis::Left,
            step: false,
            color: Some(color),
            dashed,
        });
        self
    }

    /// The plot as CSV: one row per (series, point).
    #[must_use]
    pub fn to_csv(&self) -> String {
        let rows: Vec<Vec<String>> = self
            .series
            .iter()
            .flat_map(|l| {
                l.points
                    .iter()
                    .map(|(x, y)| vec![l.label.clone(), x.to_string(), y.to_string()])
            })
            .collect();
        csv_text(&["series", "x", "y"], &rows)
    }
}

/// One simulated run of a reproduction: what it was, its seed and its
/// parameters, so that `netcond-sim run` can repeat it alone.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    /// The run's number in the reproduction: its seed is
    /// `engine::derive_seed(reproduction seed, run)`.
    pub run: u64,
    /// The row(s) of the tables it feeds.
    pub label: String,
    /// The reproduction's seed (`reproduce --seed`).
    pub reproduce_seed: u64,
    /// The derived seed.
    pub seed: u64,
    /// Its parameters that differ from the scenario's defaults (key=value).
    pub sets: Vec<String>,
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
    /// The runs of a reproduction with their seeds (written as `runs.csv`).
    pub runs: Vec<RunRecord>,
}

/// CSV text of `header` and `rows`, written by the `csv` crate (fields
/// quoted only where needed).
#[must_use]
pub fn csv_text<S: AsRef<str>>(header: &[S], rows: &[Vec<String>]) -> String {
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    let _ = w.write_record(header.iter().map(AsRef::as_ref));
    for r in rows {
        let _ = w.write_record(r);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// Events, wall time and, when the CPU time is long enough to measure (at
/// least 0.05 s: the kernel counts it in 10 ms ticks), events per CPU-second;
/// the rate per wall second only when the wall time is at least 10 ms.
#[must_use]
pub fn perf_line(events: u64, wall: f64, cpu: Option<f64>) -> String {
    let mut s = format!("{events} events in {wall:.2} s wall");
    if wall >= 0.01 {
        let _ = write!(s, " ({:.2} M events/s)", events as f64 / wall / 1e6);
    }
    if let Some(c) = cpu.filter(|&c| c >= 0.05) {
        let _ = write!(
            s,
            ", {c:.2} s CPU ({:.2} M events per CPU-second)",
            events as f64 / c / 1e6
        );
    }
    s
}

/// Formats a number for tables: up to 4 significant decimals, trimmed.
#[must_use]
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        // Parameters are checked so that no statistic is undefined; should
        // one be, the table says so rather than print NaN or inf.
        return "n/a".to_string();
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

impl RunRecord {
    /// Run `run` of a reproduction seeded `reproduce_seed`, with `params`
    /// (only the values that differ from `defaults` are kept).
    #[must_use]
    pub fn new(
        run: u64,
        label: &str,
        reproduce_seed: u64,
        params: &crate::Params,
        defaults: &crate::Params,
    ) -> RunRecord {
        let base = defaults.listing();
        RunRecord {
            run,
            label: label.to_string(),
            reproduce_seed,
            seed: crate::engine::derive_seed(reproduce_seed, run),
            sets: params
                .listing()
                .into_iter()
                .filter(|kv| !base.contains(kv))
                .collect(),
        }
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
        self.runs.extend(other.runs);
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
                        let t = fmt_num(d);
                        if t.starts_with('-') || t == "0" {
                            t
                        } else {
                            format!("+{t}")
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
        let rows: Vec<Vec<String>> = self
            .comparisons
            .iter()
            .map(|c| {
                vec![
                    c.case.clone(),
                    c.metric.clone(),
                    c.doc.map_or(String::new(), |v| v.to_string()),
                    c.doc_text.clone().unwrap_or_default(),
                    c.ours.map_or(String::new(), |v| v.to_string()),
                    c.diff().map_or(String::new(), |v| v.to_string()),
                ]
            })
            .collect();
        csv_text(
            &[
                "case",
                "metric",
                "document",
                "document_text",
                "ours",
                "difference",
            ],
            &rows,
        )
    }

    /// The runs as CSV: run number, label, derived seed, and the command that
    /// repeats the run alone.
    #[must_use]
    pub fn runs_csv(&self) -> String {
        let rows: Vec<Vec<String>> = self
            .runs
            .iter()
            .map(|r| {
                let mut cmd = format!("netcond-sim run {} --seed {}", self.scenario, r.seed);
                for s in &r.sets {
                    cmd.push_str(&format!(" --set {s}"));
                }
                vec![
                    r.run.to_string(),
                    r.label.clone(),
                    r.reproduce_seed.to_string(),
                    r.seed.to_string(),
                    cmd,
                ]
            })
            .collect();
        csv_text(
            &["run", "label", "reproduce_seed", "seed", "command"],
            &rows,
        )
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
        if !self.runs.is_empty() {
            put("runs.csv".into(), self.runs_csv())?;
        }
        for t in &self.tables {
            put(format!("{}.csv", t.name), csv_text(&t.header, &t.rows))?;
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
    fn differences_have_no_float_noise() {
        let c = Comparison::new("a", "b", Some(0.1 + 0.2), Some(0.3));
        assert_eq!(c.diff(), Some(0.0));
        let c = Comparison::new("a", "b", Some(1.67e-16), Some(0.0));
        assert_eq!(c.diff(), Some(0.0));
        let c = Comparison::new("a", "b", Some(1e-3), Some(0.0));
        assert_eq!(
            c.diff(),
            Some(-1e-3),
            "a real difference at a small scale stays"
        );
        let c = Comparison::new("a", "b", Some(5.0), Some(5.0 - 1e-12));
        assert_eq!(c.diff(), Some(0.0));
        let mut r = Report::new("x", "t");
        r.comparisons.push(c);
        r.comparisons
            .push(Comparison::new("z", "m", Some(2.0), Some(2.0 - 1e-7)));
        let t = r.comparison_text();
        assert!(
            !t.contains("e-1") && !t.contains("-0\n") && !t.contains("+0\n"),
            "{t}"
        );
        assert!(
            !r.comparison_csv().contains("e-1"),
            "{}",
            r.comparison_csv()
        );
        assert_eq!(fmt_num(-0.0), "0");
        assert_eq!(fmt_num(f64::NAN), "n/a");
        assert_eq!(fmt_num(f64::INFINITY), "n/a");
    }

    #[test]
    fn perf_line_omits_rates_it_cannot_measure() {
        let l = perf_line(1000, 0.001, Some(0.0));
        assert!(!l.contains("CPU") && !l.contains("M events/s"), "{l}");
        let l = perf_line(10_000_000, 2.0, Some(1.0));
        assert!(
            l.contains("5.00 M events/s") && l.contains("10.00 M events per CPU-second"),
            "{l}"
        );
    }

    #[test]
    fn csv_quotes_only_where_needed() {
        let t = csv_text(
            &["a", "b"],
            &[
                vec!["x,y".into(), "say \"hi\"".into()],
                vec!["1".into(), "".into()],
            ],
        );
        assert_eq!(t, "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n1,\n");
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

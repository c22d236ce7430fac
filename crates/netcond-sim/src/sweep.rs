//! Parameter sweeps: a grid of `--set` values times a list of seeds, expanded
//! in a fixed order, cut into shards for job arrays, and merged back.
//!
//! A sweep's points are numbered `0..points`: the grid keys vary in the order
//! given (the first key slowest), the seeds fastest. Shard `i` of `n` runs the
//! points whose number is `i` modulo `n`, so every shard gets a similar mix.
//! Each point is one [`Scenario::run`] with the sweep's
//! fixed `--set` values, the point's grid values and the point's seed: exactly
//! what `netcond-sim run <scenario> --seed S --set ...` computes.
//!
//! Output (all CSV written with the `csv` crate):
//! - `manifest.txt`: the sweep's definition (scenario, fixed values, grid,
//!   seeds, number of points); a shard's also names the shard;
//! - `results.csv`: one row per number a run reported, in long form:
//!   `point, <grid keys>, seed, table, row, column, value`, where `table` is
//!   the run's table name (or `comparison` for a document-vs-ours row, `run`
//!   for the event count), `row` the first cell of the table's row and
//!   `column` the header of the value's column;
//! - `summary.csv`: per grid point and (table, row, column), the count, mean,
//!   sample standard deviation, minimum and maximum over the seeds of the
//!   values that are numbers.
//!
//! [`merge`] reads shard directories and writes the same three files, byte for
//! byte, as a single run of the whole sweep.

use crate::params::Params;
use crate::progress::Progress;
use crate::report::Report;
use crate::runner::run_jobs;
use crate::scenarios::Scenario;
use crate::SimError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The first line of a manifest.
const MAGIC: &str = "netcond-sim sweep manifest v1";

/// A sweep's definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepSpec {
    /// Scenario name.
    pub scenario: String,
    /// Fixed `key=value` assignments applied to every point.
    pub sets: Vec<String>,
    /// Grid keys with their values, the first key varying slowest.
    pub grid: Vec<(String, Vec<String>)>,
    /// Seeds, varying fastest.
    pub seeds: Vec<u64>,
}

/// One slice of a sweep: points `k` with `k % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based index.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// The whole sweep.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `i/n` (0-based `i < n`).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("--shard {s}: expected i/n, e.g. 0/4"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("--shard {s}: `{i}` is not a shard index"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("--shard {s}: `{n}` is not a shard count"))?;
        Shard::new(index, count).map_err(|e| format!("--shard {s}: {e}"))
    }

    /// Shard `index` of `count`, checked.
    pub fn new(index: usize, count: usize) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} out of range 0..{count} (indices are 0-based)"
            ));
        }
        Ok(Shard { index, count })
    }

    /// The shard a batch system's job array assigns, from the environment:
    /// Slurm's `SLURM_ARRAY_TASK_ID` (minus `SLURM_ARRAY_TASK_MIN`, so arrays
    /// numbered from 1 work too) with `SLURM_ARRAY_TASK_COUNT` (or `count`),
    /// or Kubernetes Indexed Jobs' `JOB_COMPLETION_INDEX` with `count` (the
    /// Job's `completions`). `None` when neither is set.
    pub fn from_env(
        get: &dyn Fn(&str) -> Option<String>,
        count: Option<usize>,
    ) -> Option<Result<Shard, String>> {
        let num = |name: &str| -> Result<Option<usize>, String> {
            match get(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .map(Some)
                    .map_err(|_| format!("{name}={v}: not a non-negative integer")),
            }
        };
        let slurm = |id: Result<usize, String>| -> Result<Shard, String> {
            let id = id?;
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let n = match count {
                Some(c) => c,
                None => num("SLURM_ARRAY_TASK_COUNT")?.ok_or(
                    "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --shards N",
                )?,
            };
            let i = id.checked_sub(min).ok_or_else(|| {
                format!("SLURM_ARRAY_TASK_ID {id} below SLURM_ARRAY_TASK_MIN {min}")
            })?;
            Shard::new(i, n)
        };
        let k8s = |idx: Result<usize, String>| -> Result<Shard, String> {
            let n = count
                .ok_or("JOB_COMPLETION_INDEX is set: give the Job's completions as --shards N")?;
            Shard::new(idx?, n)
        };
        match num("SLURM_ARRAY_TASK_ID").transpose() {
            Some(id) => Some(slurm(id)),
            None => num("JOB_COMPLETION_INDEX").transpose().map(k8s),
        }
    }

    /// Whether point `k` belongs to this shard.
    #[must_use]
    pub fn owns(self, k: usize) -> bool {
        k % self.count == self.index
    }
}

/// Parses `a..b` (both ends included: `1..100` is 100 seeds), `a..=b`, or a
/// comma list `1,5,9`.
pub fn parse_seeds(s: &str) -> Result<Vec<u64>, String> {
    let bad = |why: &str| format!("--seeds {s}: {why} (e.g. 1..100, both ends included, or 1,5,9)");
    if let Some((a, b)) = s.split_once("..") {
        let b = b.strip_prefix('=').unwrap_or(b);
        let a: u64 = a
            .trim()
            .parse()
            .map_err(|_| bad("not a number before .."))?;
        let b: u64 = b.trim().parse().map_err(|_| bad("not a number after .."))?;
        if b < a {
            return Err(bad("the range is empty"));
        }
        if b - a >= 10_000_000 {
            return Err(bad("more than 10^7 seeds"));
        }
        return Ok((a..=b).collect());
    }
    let v: Result<Vec<u64>, _> = s.split(',').map(|x| x.trim().parse::<u64>()).collect();
    let v = v.map_err(|_| bad("not a list of unsigned integers"))?;
    if v.is_empty() {
        return Err(bad("no seed"));
    }
    Ok(v)
}

/// Parses `key=v1,v2,...`.
pub fn parse_grid(s: &str) -> Result<(String, Vec<String>), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("--grid {s}: expected key=v1,v2,..."))?;
    let vals: Vec<String> = v.split(',').map(|x| x.trim().to_string()).collect();
    if k.trim().is_empty() || vals.iter().any(String::is_empty) {
        return Err(format!("--grid {s}: empty key or value"));
    }
    Ok((k.trim().to_string(), vals))
}

/// One result row: the point's number and the remaining cells.
pub type Row = (usize, Vec<String>);

impl SweepSpec {
    /// Number of points (grid size x seeds).
    #[must_use]
    pub fn points(&self) -> usize {
        self.grid.iter().map(|(_, v)| v.len()).product::<usize>() * self.seeds.len()
    }

    /// Point `k`: its grid values (one per grid key) and its seed.
    #[must_use]
    pub fn point(&self, k: usize) -> (Vec<&str>, u64) {
        let ns = self.seeds.len();
        let seed = self.seeds[k % ns];
        let mut g = k / ns;
        let mut vals = vec![""; self.grid.len()];
        for (j, (_, v)) in self.grid.iter().enumerate().rev() {
            vals[j] = &v[g % v.len()];
            g /= v.len();
        }
        (vals, seed)
    }

    /// The parameters of point `k`, validated against `sc`.
    pub fn params(&self, sc: &dyn Scenario, k: usize) -> Result<Params, SimError> {
        let (vals, _) = self.point(k);
        let mut p = sc.defaults().with(&self.sets)?;
        for ((key, _), v) in self.grid.iter().zip(vals) {
            p.set(key, v)?;
        }
        Ok(p)
    }

    /// The manifest (`shard` adds a line naming it).
    #[must_use]
    pub fn manifest(&self, shard: Option<Shard>) -> String {
        let mut s = format!("{MAGIC}\nscenario {}\n", self.scenario);
        for a in &self.sets {
            s.push_str(&format!("set {a}\n"));
        }
        for (k, v) in &self.grid {
            s.push_str(&format!("grid {k}={}\n", v.join(",")));
        }
        let seeds: Vec<String> = self.seeds.iter().map(u64::to_string).collect();
        s.push_str(&format!(
            "seeds {}\npoints {}\n",
            seeds.join(","),
            self.points()
        ));
        if let Some(sh) = shard {
            s.push_str(&format!("shard {}/{}\n", sh.index, sh.count));
        }
        s
    }

    /// Parses a manifest; returns the spec and its shard line, if any.
    pub fn parse_manifest(text: &str) -> Result<(SweepSpec, Option<Shard>), String> {
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(format!(
                "not a sweep manifest (first line is not `{MAGIC}`)"
            ));
        }
        let mut spec = SweepSpec {
            scenario: String::new(),
            sets: Vec::new(),
            grid: Vec::new(),
            seeds: Vec::new(),
        };
        let mut shard = None;
        let mut points = None;
        for l in lines {
            let (k, v) = l.split_once(' ').unwrap_or((l, ""));
            match k {
                "scenario" => spec.scenario = v.to_string(),
                "set" => spec.sets.push(v.to_string()),
                "grid" => spec.grid.push(parse_grid(v)?),
                "seeds" => spec.seeds = parse_seeds(v)?,
                "points" => points = v.parse::<usize>().ok(),
                "shard" => shard = Some(Shard::parse(v)?),
                _ => return Err(format!("unknown manifest line `{l}`")),
            }
        }
        if points != Some(spec.points()) {
            return Err("the manifest's point count does not match its grid and seeds".into());
        }
        Ok((spec, shard))
    }

    /// The header of `results.csv`.
    #[must_use]
    pub fn results_header(&self) -> Vec<String> {
        let mut h = vec!["point".to_string()];
        h.extend(self.grid.iter().map(|(k, _)| k.clone()));
        h.extend(
            ["seed", "table", "row", "column", "value"]
                .iter()
                .map(|s| s.to_string()),
        );
        h
    }
}

/// The numbers of one run's report as result rows (without the point's cells).
#[must_use]
pub fn report_cells(rep: &Report) -> Vec<[String; 4]> {
    let mut out = Vec::new();
    for c in &rep.comparisons {
        if let Some(v) = c.ours {
            out.push([
                "comparison".to_string(),
                c.case.clone(),
                c.metric.clone(),
                v.to_string(),
            ]);
        }
    }
    for t in &rep.tables {
        for r in &t.rows {
            let label = r.first().cloned().unwrap_or_default();
            for (j, cell) in r.iter().enumerate().skip(1) {
                let col = t.header.get(j).cloned().unwrap_or_else(|| j.to_string());
                out.push([t.name.clone(), label.clone(), col, cell.clone()]);
            }
        }
    }
    out.push([
        "run".to_string(),
        "all".to_string(),
        "events".to_string(),
        rep.events.to_string(),
    ]);
    out
}

/// Runs the points of `shard` (in parallel) and returns their rows in point
/// order, with the number of events simulated.
pub fn run_points(
    sc: &dyn Scenario,
    spec: &SweepSpec,
    shard: Shard,
    budget: u64,
    progress: &Progress,
) -> Result<(Vec<Row>, u64), SimError> {
    let mine: Vec<usize> = (0..spec.points()).filter(|&k| shard.owns(k)).collect();
    // Every point's parameters are checked before any runs.
    let params: Vec<Params> = mine
        .iter()
        .map(|&k| {
            let p = spec.params(sc, k)?;
            sc.check(&p, budget)
                .map_err(|e| SimError::Param(format!("point {k}: {e}")))?;
            Ok(p)
        })
        .collect::<Result<_, SimError>>()?;
    // The bar counts points: each run draws on a hidden bar of its own.
    let hidden = Progress::hidden();
    let jobs: Vec<(usize, Params)> = mine.iter().copied().zip(params).collect();
    let reps = run_jobs(
        &jobs,
        progress,
        |_| 1,
        |_, (k, p)| {
            let (_, seed) = spec.point(*k);
            let r = sc.run(p, seed, &hidden);
            progress.advance(1);
            r
        },
    )?;
    let mut rows = Vec::new();
    let mut events = 0;
    for (&k, rep) in mine.iter().zip(reps) {
        events += rep.events;
        let (vals, seed) = spec.point(k);
        for cells in report_cells(&rep) {
            let mut row: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
            row.push(seed.to_string());
            row.extend(cells);
            rows.push((k, row));
        }
    }
    Ok((rows, events))
}

fn csv_bytes(
    header: &[String],
    rows: impl Iterator<Item = Vec<String>>,
) -> Result<Vec<u8>, SimError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let e = |e: csv::Error| SimError::Io(e.to_string());
    w.write_record(header).map_err(e)?;
    for r in rows {
        w.write_record(&r).map_err(e)?;
    }
    w.into_inner().map_err(|e| SimError::Io(e.to_string()))
}

/// `results.csv` of `rows` (which must be in point order).
pub fn results_csv(spec: &SweepSpec, rows: &[Row]) -> Result<Vec<u8>, SimError> {
    csv_bytes(
        &spec.results_header(),
        rows.iter().map(|(k, r)| {
            let mut v = vec![k.to_string()];
            v.extend(r.iter().cloned());
            v
        }),
    )
}

/// `summary.csv`: per grid point and (table, row, column), statistics over
/// the seeds of the values that are finite numbers.
pub fn summary_csv(spec: &SweepSpec, rows: &[Row]) -> Result<Vec<u8>, SimError> {
    let ng = spec.grid.len();
    let ns = spec.seeds.len();
    // (grid point, first-appearance order) -> values
    let mut groups: BTreeMap<(usize, usize), (Vec<String>, Vec<f64>)> = BTreeMap::new();
    let mut order: BTreeMap<(usize, [String; 3]), usize> = BTreeMap::new();
    for (k, r) in rows {
        let g = k / ns;
        let key = [r[ng + 1].clone(), r[ng + 2].clone(), r[ng + 3].clone()];
        let next = order.len();
        let o = *order.entry((g, key.clone())).or_insert(next);
        let e = groups.entry((g, o)).or_insert_with(|| {
            let mut id: Vec<String> = r[..ng].to_vec();
            id.extend(key);
            (id, Vec::new())
        });
        if let Ok(v) = r[ng + 4].trim().trim_end_matches('%').parse::<f64>() {
            if v.is_finite() {
                e.1.push(v);
            }
        }
    }
    let mut header: Vec<String> = spec.grid.iter().map(|(k, _)| k.clone()).collect();
    header.extend(
        ["table", "row", "column", "n", "mean", "sd", "min", "max"]
            .iter()
            .map(|s| s.to_string()),
    );
    let out = groups
        .into_values()
        .filter(|(_, v)| !v.is_empty())
        .map(|(mut id, v)| {
            let n = v.len() as f64;
            let mean = v.iter().sum::<f64>() / n;
            let sd = if v.len() > 1 {
                (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt()
            } else {
                0.0
            };
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            id.extend([
                v.len().to_string(),
                mean.to_string(),
                sd.to_string(),
                min.to_string(),
                max.to_string(),
            ]);
            id
        });
    csv_bytes(&header, out)
}

/// Writes `manifest.txt`, `results.csv` and (for a whole sweep) `summary.csv`
/// into `dir`. Returns the files written.
pub fn write(
    dir: &Path,
    spec: &SweepSpec,
    shard: Option<Shard>,
    rows: &[Row],
) -> Result<Vec<PathBuf>, SimError> {
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    let mut put = |name: &str, body: &[u8]| -> Result<(), SimError> {
        let p = dir.join(name);
        std::fs::write(&p, body).map_err(|e| SimError::Io(format!("{}: {e}", p.display())))?;
        files.push(p);
        Ok(())
    };
    put("manifest.txt", spec.manifest(shard).as_bytes())?;
    put("results.csv", &results_csv(spec, rows)?)?;
    if shard.is_none() {
        put("summary.csv", &summary_csv(spec, rows)?)?;
    }
    Ok(files)
}

/// The directory a shard writes into, below the sweep's output directory.
#[must_use]
pub fn shard_dir(out: &Path, shard: Shard) -> PathBuf {
    out.join(format!("shard-{:04}-of-{:04}", shard.index, shard.count))
}

/// Reads the shards in `dirs` (each a shard's directory, or a directory whose
/// subdirectories are shards) and returns the sweep and all its rows in point
/// order. Every shard of one sweep must be there, each once.
pub fn merge(dirs: &[PathBuf]) -> Result<(SweepSpec, Vec<Row>), String> {
    let mut shard_dirs = Vec::new();
    for d in dirs {
        if d.join("manifest.txt").is_file() {
            shard_dirs.push(d.clone());
            continue;
        }
        let rd = std::fs::read_dir(d).map_err(|e| format!("{}: {e}", d.display()))?;
        let mut subs: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("manifest.txt").is_file())
            .collect();
        if subs.is_empty() {
            return Err(format!(
                "{}: no manifest.txt in it or in its subdirectories",
                d.display()
            ));
        }
        subs.sort();
        shard_dirs.extend(subs);
    }
    let mut spec: Option<SweepSpec> = None;
    let mut seen: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut count = None;
    let mut rows: Vec<Row> = Vec::new();
    for d in &shard_dirs {
        let mpath = d.join("manifest.txt");
        let text =
            std::fs::read_to_string(&mpath).map_err(|e| format!("{}: {e}", mpath.display()))?;
        let (s, sh) =
            SweepSpec::parse_manifest(&text).map_err(|e| format!("{}: {e}", mpath.display()))?;
        let sh = sh.unwrap_or(Shard::ALL);
        match &spec {
            None => spec = Some(s.clone()),
            Some(prev) if *prev != s => {
                return Err(format!(
                    "{}: a different sweep from the other shards",
                    mpath.display()
                ))
            }
            Some(_) => {}
        }
        if *count.get_or_insert(sh.count) != sh.count {
            return Err(format!(
                "{}: shard {}/{} does not match the others' count {}",
                mpath.display(),
                sh.index,
                sh.count,
                count.unwrap_or(0)
            ));
        }
        if let Some(prev) = seen.insert(sh.index, d.clone()) {
            return Err(format!(
                "shard {}/{} given twice: {} and {}",
                sh.index,
                sh.count,
                prev.display(),
                d.display()
            ));
        }
        let rpath = d.join("results.csv");
        let mut rd =
            csv::Reader::from_path(&rpath).map_err(|e| format!("{}: {e}", rpath.display()))?;
        let header: Vec<String> = rd
            .headers()
            .map_err(|e| format!("{}: {e}", rpath.display()))?
            .iter()
            .map(str::to_string)
            .collect();
        if header != s.results_header() {
            return Err(format!("{}: unexpected header", rpath.display()));
        }
        for rec in rd.records() {
            let rec = rec.map_err(|e| format!("{}: {e}", rpath.display()))?;
            let mut it = rec.iter();
            let k: usize = it
                .next()
                .and_then(|x| x.parse().ok())
                .ok_or_else(|| format!("{}: a row without a point number", rpath.display()))?;
            if !sh.owns(k) || k >= s.points() {
                return Err(format!(
                    "{}: point {k} does not belong to shard {}/{}",
                    rpath.display(),
                    sh.index,
                    sh.count
                ));
            }
            rows.push((k, it.map(str::to_string).collect()));
        }
    }
    let spec = spec.ok_or("no shard given")?;
    let n = count.unwrap_or(1);
    let missing: Vec<String> = (0..n)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing shards: {}", missing.join(", ")));
    }
    // Stable: rows of one point keep their order.
    rows.sort_by_key(|(k, _)| *k);
    Ok((spec, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SweepSpec {
        SweepSpec {
            scenario: "x".into(),
            sets: vec!["a=1".into()],
            grid: vec![
                ("k".into(), vec!["1".into(), "2".into()]),
                ("m".into(), vec!["a".into(), "b".into(), "c".into()]),
            ],
            seeds: vec![7, 8],
        }
    }

    #[test]
    fn points_expand_seeds_fastest_first_key_slowest() {
        let s = spec();
        assert_eq!(s.points(), 12);
        assert_eq!(s.point(0), (vec!["1", "a"], 7));
        assert_eq!(s.point(1), (vec!["1", "a"], 8));
        assert_eq!(s.point(2), (vec!["1", "b"], 7));
        assert_eq!(s.point(11), (vec!["2", "c"], 8));
    }

    #[test]
    fn manifest_round_trips() {
        let s = spec();
        let (t, sh) =
            SweepSpec::parse_manifest(&s.manifest(Some(Shard { index: 2, count: 5 }))).unwrap();
        assert_eq!(t, s);
        assert_eq!(sh, Some(Shard { index: 2, count: 5 }));
    }

    #[test]
    fn seeds_and_shards_parse() {
        assert_eq!(parse_seeds("1..3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("1..=3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("5,9").unwrap(), vec![5, 9]);
        assert!(parse_seeds("3..1").is_err());
        assert_eq!(Shard::parse("3/4").unwrap(), Shard { index: 3, count: 4 });
        assert!(Shard::parse("4/4").is_err());
        assert!(Shard::parse("0/0").is_err());
    }

    #[test]
    fn shards_from_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
        };
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        assert_eq!(
            Shard::from_env(&slurm, None).unwrap().unwrap(),
            Shard { index: 4, count: 8 }
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(
            Shard::from_env(&k8s, Some(7)).unwrap().unwrap(),
            Shard { index: 3, count: 7 }
        );
        assert!(Shard::from_env(&k8s, None).unwrap().is_err());
        assert!(Shard::from_env(&env(&[]), Some(3)).is_none());
    }
}

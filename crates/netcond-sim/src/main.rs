//! `netcond-sim`: runs the scenarios, reproduces the documents' experiments, and runs
//! parameter sweeps that can be cut into shards for a batch system.
//!
//! ```text
//! netcond-sim list
//! netcond-sim run <scenario> [--seed N | --seed-of-row I] [--set key=value ...] [--out DIR]
//! netcond-sim reproduce <scenario>|quick|all [--seed N] [--out DIR]
//! netcond-sim sweep <scenario> --grid key=v1,v2 --seeds 1..100 [--shard i/n] [--out DIR]
//! netcond-sim merge DIR... --out DIR
//! ```
//! `netcond-sim <command> --help` says more; `netcond-sim run <scenario> --help`
//! lists the scenario's parameters with unit, range and default.

use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use netcond::base::ByteSize;
use netcond_sim::engine::derive_seed;
use netcond_sim::params::{describe, help_text};
use netcond_sim::progress::Progress;
use netcond_sim::report::perf_line;
use netcond_sim::scenarios::names;
use netcond_sim::sweep::{self, Shard, SweepSpec};
use netcond_sim::{find, registry, ReproduceOpts, Scenario};
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Deterministic discrete-event simulator of the netcond traffic conditioners,
/// and the reproductions of the experiments of the source documents.
#[derive(Parser, Debug)]
#[command(
    name = "netcond-sim",
    bin_name = "netcond-sim",
    version,
    propagate_version = true
)]
#[command(
    after_help = "A run is a pure function of its scenario, parameters and seed. \
`reproduce all` writes every document's table beside ours to out/."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// List the scenarios with their parameters (key = default [range unit] meaning).
    List {
        /// Print only the scenario names, one a line.
        #[arg(long)]
        names: bool,
    },
    /// One run of a scenario with its defaults (the document's parameters),
    /// changed by --set; prints the result and writes CSV/SVG to OUT/<scenario>/run.
    Run(RunArgs),
    /// The documents' tables: ours beside the document's, with differences;
    /// writes report.txt, comparison.csv, runs.csv, CSV and SVG plots to OUT/<scenario>/.
    Reproduce(ReproduceArgs),
    /// A grid of parameter values times a list of seeds, one run per point;
    /// with --shard (or a job array's environment) only one slice of the points.
    Sweep(SweepArgs),
    /// Combine the shards of one sweep into the files a single run of the whole
    /// sweep writes, byte for byte.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
struct OutArgs {
    /// Output directory (created if missing; its parent must exist).
    #[arg(long, value_name = "DIR", default_value = "out")]
    out: PathBuf,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The scenario (see `netcond-sim list`).
    #[arg(value_parser = scenario_name)]
    scenario: String,
    /// Seed of the run.
    #[arg(long, default_value_t = 1, conflicts_with = "seed_of_row")]
    seed: u64,
    /// Use the seed that `reproduce --seed S` gives its run number I (runs.csv's
    /// `run` column): derive_seed(S, I), with S from --reproduce-seed (default 1).
    #[arg(long, value_name = "I")]
    seed_of_row: Option<u64>,
    /// The reproduction's seed S for --seed-of-row.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "seed_of_row")]
    reproduce_seed: u64,
    /// Change a parameter: key=value (repeatable). Sizes and rates take tc's
    /// units: tb_bytes=32k, sr_mbps=10mbit.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Refuse a parameter set whose estimated memory exceeds this (tc size: 2g, 512m).
    #[arg(long, value_name = "SIZE", default_value = "2g", value_parser = parse_size)]
    memory_budget: u64,
    #[command(flatten)]
    out: OutArgs,
}

#[derive(Args, Debug)]
struct ReproduceArgs {
    /// A scenario, `quick` (a reduced subset, seconds) or `all`.
    #[arg(value_parser = reproduce_target)]
    target: String,
    /// The reproduction's seed; its run I uses derive_seed(seed, I).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    out: OutArgs,
}

#[derive(Args, Debug)]
struct SweepArgs {
    /// The scenario.
    #[arg(value_parser = scenario_name)]
    scenario: String,
    /// A grid axis: key=v1,v2,... (repeatable; the first varies slowest).
    #[arg(long, value_name = "KEY=V1,V2")]
    grid: Vec<String>,
    /// Seeds: a..b (both ends included: 1..100 is 100 seeds) or a list 1,5,9.
    #[arg(long, default_value = "1")]
    seeds: String,
    /// A value fixed for every point: key=value (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Run only slice i of n (0-based). Without it, SLURM_ARRAY_TASK_ID /
    /// SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX (with --shards) choose it.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// The number of shards, for JOB_COMPLETION_INDEX (a Kubernetes Indexed
    /// Job's completions) or to override SLURM_ARRAY_TASK_COUNT.
    #[arg(long, value_name = "N")]
    shards: Option<usize>,
    /// Run the whole sweep here even if a job array's environment is set.
    #[arg(long, conflicts_with_all = ["shard", "shards"])]
    no_shard: bool,
    /// Refuse a point whose estimated memory exceeds this (tc size).
    #[arg(long, value_name = "SIZE", default_value = "2g", value_parser = parse_size)]
    memory_budget: u64,
    #[command(flatten)]
    out: OutArgs,
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// Shard directories, or directories holding them.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where to write the merged files.
    #[arg(long, value_name = "DIR", default_value = "out/sweep")]
    out: PathBuf,
}

fn scenario_name(s: &str) -> Result<String, String> {
    find(s)
        .map(|sc| sc.name().to_string())
        .ok_or_else(|| format!("unknown scenario `{s}`; valid: {}", names().join(", ")))
}

fn reproduce_target(s: &str) -> Result<String, String> {
    if s == "quick" || s == "all" || find(s).is_some() {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown target `{s}`; valid: quick, all, {}",
            names().join(", ")
        ))
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    s.parse::<ByteSize>()
        .map(ByteSize::bytes)
        .map_err(|e| e.to_string())
}

/// Writes to stdout; a closed pipe (`netcond-sim list | head -1`) ends the
/// program quietly with status 0, as Unix filters do.
fn out(s: &str) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(s.as_bytes()).and_then(|()| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// Writes a line to stderr, ignoring a closed stderr.
macro_rules! note {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

fn progress(quiet: bool, label: &str) -> Progress {
    if quiet {
        Progress::hidden()
    } else {
        Progress::new(label)
    }
}

/// CPU seconds (user + system, all threads) this process used so far, from
/// /proc/self/stat (Linux; None elsewhere). 100 ticks per second is assumed,
/// the kernel's USER_HZ on every common platform.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ut: f64 = f.get(11)?.parse().ok()?;
    let st: f64 = f.get(12)?.parse().ok()?;
    Some((ut + st) / 100.0)
}

/// Checks that `dir` can take the output before anything is simulated: it is
/// a directory we can write into, or it does not exist and its parent does
/// (then it is created). `subdirs` below it must not be files.
fn check_out(dir: &Path, subdirs: &[&str]) -> Result<(), String> {
    let shown = dir.display();
    if dir.exists() {
        if !dir.is_dir() {
            return Err(format!("--out {shown}: exists and is not a directory"));
        }
    } else {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(format!(
                "--out {shown}: its parent {} does not exist or is not a directory",
                parent.display()
            ));
        }
        // Another shard of a job array may create it at the same moment.
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(format!("--out {shown}: cannot create it: {e}")),
        }
    }
    let probe = dir.join(format!(".netcond-sim-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| format!("--out {shown}: cannot write into it: {e}"))?;
    let _ = std::fs::remove_file(&probe);
    for s in subdirs {
        let p = dir.join(s);
        if p.exists() && !p.is_dir() {
            return Err(format!(
                "--out: {} exists and is not a directory",
                p.display()
            ));
        }
    }
    Ok(())
}

enum Failure {
    /// Bad usage or refused input: status 2.
    Usage(String),
    /// A run failed: status 1.
    Run(String),
}

fn cmd_list(names_only: bool) {
    let mut s = String::new();
    for sc in registry() {
        if names_only {
            s.push_str(sc.name());
            s.push('\n');
        } else {
            s.push_str(&format!("{}  {}\n", sc.name(), sc.description()));
            s.push_str(&describe(sc.params()));
            s.push('\n');
        }
    }
    out(&s);
}

fn cmd_run(a: &RunArgs) -> Result<(), Failure> {
    let sc = find(&a.scenario).ok_or_else(|| Failure::Usage("unknown scenario".into()))?;
    let params = sc
        .defaults()
        .with(&a.sets)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    sc.check(&params, a.memory_budget)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let seed = match a.seed_of_row {
        Some(i) => derive_seed(a.reproduce_seed, i),
        None => a.seed,
    };
    let sub = format!("{}/run", sc.name());
    check_out(&a.out.out, &[sc.name(), &sub]).map_err(Failure::Usage)?;
    let p = progress(a.out.quiet, sc.name());
    let t = Instant::now();
    let c0 = cpu_seconds();
    let rep = sc
        .run(&params, seed, &p)
        .map_err(|e| Failure::Run(e.to_string()))?;
    p.finish();
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
    out(&format!("seed: {seed}\n{}", rep.to_text()));
    let dir = a.out.out.join(sc.name()).join("run");
    let files = rep
        .write(&dir)
        .map_err(|e| Failure::Run(format!("{}: {e}", dir.display())))?;
    note!("{}", perf_line(rep.events, wall, cpu));
    note!("wrote {} files to {}", files.len(), dir.display());
    Ok(())
}

fn cmd_reproduce(a: &ReproduceArgs) -> Result<(), Failure> {
    let (list, quick): (Vec<&'static dyn Scenario>, bool) = match a.target.as_str() {
        "all" => (registry(), false),
        "quick" => (
            registry().into_iter().filter(|s| s.in_quick()).collect(),
            true,
        ),
        t => (
            vec![find(t).ok_or_else(|| Failure::Usage(format!("unknown target `{t}`")))?],
            false,
        ),
    };
    let subs: Vec<&str> = list.iter().map(|s| s.name()).collect();
    check_out(&a.out.out, &subs).map_err(Failure::Usage)?;
    let total = Instant::now();
    let mut failed = Vec::new();
    for sc in list {
        let p = progress(a.out.quiet, sc.name());
        let t = Instant::now();
        let c0 = cpu_seconds();
        let opts = ReproduceOpts {
            seed: a.seed,
            quick,
        };
        match sc.reproduce(&opts, &p) {
            Ok(rep) => {
                p.finish();
                let wall = t.elapsed().as_secs_f64();
                let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
                out(&format!("{}\n", rep.to_text()));
                let dir = a.out.out.join(sc.name());
                let files = rep
                    .write(&dir)
                    .map_err(|e| Failure::Run(format!("{}: {e}", dir.display())))?;
                note!(
                    "{}: {}; wrote {} files to {}",
                    sc.name(),
                    perf_line(rep.events, wall, cpu),
                    files.len(),
                    dir.display()
                );
            }
            Err(e) => {
                p.finish();
                note!("{}: {e}", sc.name());
                failed.push(sc.name());
            }
        }
    }
    note!("total {:.1} s", total.elapsed().as_secs_f64());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Run(format!("failed: {}", failed.join(", "))))
    }
}

fn cmd_sweep(a: &SweepArgs) -> Result<(), Failure> {
    let u = Failure::Usage;
    let sc = find(&a.scenario).ok_or_else(|| u("unknown scenario".into()))?;
    let grid = a
        .grid
        .iter()
        .map(|g| sweep::parse_grid(g))
        .collect::<Result<Vec<_>, _>>()
        .map_err(u)?;
    let spec = SweepSpec {
        scenario: sc.name().to_string(),
        sets: a.sets.clone(),
        grid,
        seeds: sweep::parse_seeds(&a.seeds).map_err(u)?,
    };
    // Keys and values are checked on the first point of every grid value.
    for k in 0..spec.points() {
        if k % spec.seeds.len() == 0 {
            spec.params(sc, k)
                .map_err(|e| Failure::Usage(e.to_string()))?;
        }
    }
    let shard = if a.no_shard {
        None
    } else if let Some(s) = &a.shard {
        Some(Shard::parse(s).map_err(Failure::Usage)?)
    } else {
        match Shard::from_env(&|k| std::env::var(k).ok(), a.shards) {
            Some(r) => Some(r.map_err(Failure::Usage)?),
            None if a.shards.is_some() => {
                return Err(Failure::Usage(
                    "--shards N needs --shard I/N or a job array's index in the environment (SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)".into(),
                ))
            }
            None => None,
        }
    };
    let shard = shard.filter(|s| s.count > 1);
    check_out(&a.out.out, &[]).map_err(Failure::Usage)?;
    let dir = match shard {
        Some(s) => sweep::shard_dir(&a.out.out, s),
        None => a.out.out.clone(),
    };
    let p = progress(a.out.quiet, sc.name());
    let t = Instant::now();
    let c0 = cpu_seconds();
    let (rows, events) =
        sweep::run_points(sc, &spec, shard.unwrap_or(Shard::ALL), a.memory_budget, &p).map_err(
            |e| match e {
                netcond_sim::SimError::Param(m) => Failure::Usage(m),
                e => Failure::Run(e.to_string()),
            },
        )?;
    p.finish();
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
    let files = sweep::write(&dir, &spec, shard, &rows).map_err(|e| Failure::Run(e.to_string()))?;
    let mine = (0..spec.points())
        .filter(|&k| shard.unwrap_or(Shard::ALL).owns(k))
        .count();
    note!(
        "{}: {mine} of {} points{}; {}",
        sc.name(),
        spec.points(),
        shard.map_or(String::new(), |s| format!(
            " (shard {}/{})",
            s.index, s.count
        )),
        perf_line(events, wall, cpu)
    );
    note!("wrote {} files to {}", files.len(), dir.display());
    Ok(())
}

fn cmd_merge(a: &MergeArgs) -> Result<(), Failure> {
    let (spec, rows) = sweep::merge(&a.dirs).map_err(Failure::Usage)?;
    check_out(&a.out, &[]).map_err(Failure::Usage)?;
    let files =
        sweep::write(&a.out, &spec, None, &rows).map_err(|e| Failure::Run(e.to_string()))?;
    note!(
        "merged {} points of {} ({} rows); wrote {} files to {}",
        spec.points(),
        spec.scenario,
        rows.len(),
        files.len(),
        a.out.display()
    );
    Ok(())
}

/// The command line, with `run <scenario> --help` and `sweep <scenario>
/// --help` listing that scenario's parameters.
fn command(args: &[OsString]) -> clap::Command {
    let mut cmd = Cli::command();
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let sub = words.iter().position(|w| !w.starts_with('-'));
    if let Some(i) = sub {
        let name = words[i];
        if name == "run" || name == "sweep" {
            let sc = words[i + 1..].iter().find_map(|w| find(w));
            let extra = match sc {
                Some(sc) => format!(
                    "{}: {}\n\n{}",
                    sc.name(),
                    sc.description(),
                    help_text(sc.params())
                ),
                None => format!(
                    "Scenarios: {}\n`netcond-sim {name} <scenario> --help` lists a scenario's parameters.",
                    names().join(", ")
                ),
            };
            cmd = cmd.mut_subcommand(name, |c| c.after_help(extra));
        }
    }
    cmd
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let matches = match command(&args).try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => {
            let code = e.exit_code();
            // --help and --version go to stdout: quietly stop on a closed pipe.
            let text = e.render();
            if e.use_stderr() {
                let _ = write!(std::io::stderr(), "{}", text.ansi());
            } else {
                out(&text.to_string());
            }
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            let _ = write!(std::io::stderr(), "{e}");
            return ExitCode::from(2);
        }
    };
    let r = match &cli.cmd {
        Cmd::List { names } => {
            cmd_list(*names);
            Ok(())
        }
        Cmd::Run(a) => cmd_run(a),
        Cmd::Reproduce(a) => cmd_reproduce(a),
        Cmd::Sweep(a) => cmd_sweep(a),
        Cmd::Merge(a) => cmd_merge(a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            note!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Run(e)) => {
            note!("error: {e}");
            ExitCode::from(1)
        }
    }
}

//! `netcond-sim`: runs the scenarios and reproduces the seed experiments.
//!
//! ```text
//! netcond-sim list
//! netcond-sim run <scenario> [--seed N] [--set key=value ...] [--out DIR] [--quiet]
//! netcond-sim reproduce <scenario>|quick|all [--seed N] [--out DIR] [--quiet]
//! ```

use netcond_sim::params::describe;
use netcond_sim::progress::Progress;
use netcond_sim::scenarios::names;
use netcond_sim::{find, registry, ReproduceOpts, Scenario, SimError};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  netcond-sim list
  netcond-sim run <scenario> [--seed N] [--set key=value ...] [--out DIR] [--quiet]
  netcond-sim reproduce <scenario>|quick|all [--seed N] [--out DIR] [--quiet]

  run        one run with the scenario's defaults (the document's parameters),
             changed by --set; prints the result and writes CSV/SVG to DIR/<scenario>/run
  reproduce  the document's tables: ours beside the document's, with differences;
             writes report.txt, comparison.csv, CSV and SVG plots to DIR/<scenario>/
             `quick` runs a reduced subset, `all` everything
  --seed N   seed of the run or sweep (default 1)
  --out DIR  output directory (default out)
  --quiet    no progress bar";

struct Opts {
    seed: u64,
    sets: Vec<String>,
    out: PathBuf,
    quiet: bool,
    positional: Vec<String>,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        seed: 1,
        sets: Vec::new(),
        out: PathBuf::from("out"),
        quiet: false,
        positional: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => {
                let v = it.next().ok_or("--seed needs a value")?;
                o.seed = v
                    .parse()
                    .map_err(|_| format!("--seed {v}: not an unsigned integer"))?;
            }
            "--set" => o.sets.push(it.next().ok_or("--set needs key=value")?.clone()),
            "--out" => o.out = PathBuf::from(it.next().ok_or("--out needs a directory")?),
            "--quiet" | "-q" => o.quiet = true,
            s if s.starts_with("--set=") => o.sets.push(s["--set=".len()..].to_string()),
            s if s.starts_with("--seed=") => {
                o.seed = s["--seed=".len()..]
                    .parse()
                    .map_err(|_| format!("{s}: not an unsigned integer"))?;
            }
            s if s.starts_with("--out=") => o.out = PathBuf::from(&s["--out=".len()..]),
            s if s.starts_with('-') => {
                return Err(format!(
                    "unknown option `{s}`; valid options: --seed N, --set key=value, --out DIR, --quiet"
                ))
            }
            _ => o.positional.push(a.clone()),
        }
    }
    Ok(o)
}

fn scenario(name: Option<&String>) -> Result<&'static dyn Scenario, String> {
    let Some(name) = name else {
        return Err(format!("missing scenario; valid: {}", names().join(", ")));
    };
    find(name).ok_or_else(|| format!("unknown scenario `{name}`; valid: {}", names().join(", ")))
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

fn perf_line(events: u64, wall: f64, cpu: Option<f64>) -> String {
    let mut s = format!(
        "{events} events in {wall:.2} s wall ({:.2} M events/s)",
        events as f64 / wall.max(1e-9) / 1e6
    );
    if let Some(c) = cpu {
        s.push_str(&format!(
            ", {c:.2} s CPU ({:.2} M events per CPU-second)",
            events as f64 / c.max(1e-9) / 1e6
        ));
    }
    s
}

fn cmd_list() {
    for s in registry() {
        println!("{}  {}", s.name(), s.description());
        print!("{}", describe(s.params()));
        println!();
    }
}

fn cmd_run(o: &Opts) -> Result<(), String> {
    if o.positional.len() > 2 {
        return Err(format!("unexpected argument `{}`", o.positional[2]));
    }
    let sc = scenario(o.positional.get(1))?;
    let params = sc.defaults().with(&o.sets).map_err(|e| e.to_string())?;
    let p = progress(o.quiet, sc.name());
    let t = Instant::now();
    let c0 = cpu_seconds();
    let rep = sc.run(&params, o.seed, &p).map_err(|e| e.to_string())?;
    p.finish();
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
    print!("{}", rep.to_text());
    let dir = o.out.join(sc.name()).join("run");
    let files = rep.write(&dir).map_err(|e| SimError::from(e).to_string())?;
    eprintln!("{}", perf_line(rep.events, wall, cpu));
    eprintln!("wrote {} files to {}", files.len(), dir.display());
    Ok(())
}

fn cmd_reproduce(o: &Opts) -> Result<(), String> {
    if !o.sets.is_empty() {
        return Err(
            "reproduce uses the documents' parameters; use `run --set` to change them".into(),
        );
    }
    if o.positional.len() > 2 {
        return Err(format!("unexpected argument `{}`", o.positional[2]));
    }
    let which = o
        .positional
        .get(1)
        .ok_or_else(|| format!("missing target; valid: quick, all, {}", names().join(", ")))?;
    let (list, quick): (Vec<&'static dyn Scenario>, bool) = match which.as_str() {
        "all" => (registry(), false),
        "quick" => (
            registry().into_iter().filter(|s| s.in_quick()).collect(),
            true,
        ),
        _ => (
            vec![find(which).ok_or_else(|| {
                format!(
                    "unknown target `{which}`; valid: quick, all, {}",
                    names().join(", ")
                )
            })?],
            false,
        ),
    };
    let total = Instant::now();
    let mut failed = Vec::new();
    for sc in list {
        let p = progress(o.quiet, sc.name());
        let t = Instant::now();
        let c0 = cpu_seconds();
        let opts = ReproduceOpts {
            seed: o.seed,
            quick,
        };
        match sc.reproduce(&opts, &p) {
            Ok(rep) => {
                p.finish();
                let wall = t.elapsed().as_secs_f64();
                let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
                println!("{}", rep.to_text());
                let dir = o.out.join(sc.name());
                let files = rep.write(&dir).map_err(|e| SimError::from(e).to_string())?;
                eprintln!(
                    "{}: {}; wrote {} files to {}",
                    sc.name(),
                    perf_line(rep.events, wall, cpu),
                    files.len(),
                    dir.display()
                );
            }
            Err(e) => {
                p.finish();
                eprintln!("{}: {e}", sc.name());
                failed.push(sc.name());
            }
        }
    }
    eprintln!("total {:.1} s", total.elapsed().as_secs_f64());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let r = match o.positional.first().map(String::as_str) {
        Some("list") => {
            cmd_list();
            Ok(())
        }
        Some("run") => cmd_run(&o),
        Some("reproduce") => cmd_reproduce(&o),
        Some("help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(c) => Err(format!(
            "unknown command `{c}`; valid: list, run, reproduce, help"
        )),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

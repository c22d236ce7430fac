//! netcond-sim: a deterministic discrete-event simulator that embeds the netcond
//! conditioners and reproduces the experiments of its source documents (draft-babiarz-pcn-explicit-marking-01, RFC 2963,
//! Zheng & Kinicki's AECN, a DiffServ Premium TCP test, Toomey's TRUMP/RBCC), and
//! compares the delay-based AQMs with drop-tail and RED on a TCP dumbbell
//! (`aqm-dumbbell`, against the targets of RFC 8289, 8033 and 9332).
//!
//! # Layout
//!
//! | module | what |
//! |---|---|
//! | [`engine`] | time in nanoseconds, the event queue (time, then sequence number), the seeded RNG |
//! | [`net`] | the one network model of every scenario: links (rate, propagation delay; a pipe or a queueing discipline, a buffered FIFO being a tail-drop one; each packet handed back once, at its far end), the traits conditioners, queue managers and shapers plug in through, the one event loop ([`net::Sim`], [`net::Model`]) |
//! | [`traffic`] | CBR, on/off and dual-rate voice codecs, AR(1) video, Poisson flow arrivals, reroute steps |
//! | [`pcn_loop`] | the PCN edge control loop: signalling delay, admission blocking, flow termination |
//! | [`erlang`] | Erlang-B blocking, the admission experiment's theoretical row |
//! | [`params`] | `key=value` scenario parameters with defaults, validation and listing |
//! | [`report`] | a run's result: the document's numbers beside ours, tables, plots; text, CSV, SVG |
//! | [`svg`] | a small hand-written SVG line chart |
//! | [`progress`] | a progress bar on stderr, shared by parallel runs |
//! | [`runner`] | the one runner of a reproduction's or a sweep's runs: in parallel, results in order |
//! | [`scenarios`] | the [`Scenario`] trait and the registry of named scenarios |
//! | [`sweep`] | grids of parameters x seeds, shards for job arrays, merging shards |
//!
//! Every conditioner is the workspace crate's own code, reached through the
//! `netcond` umbrella crate; the simulator never re-implements one. Statistics
//! and reports use `f64` (this is a `std` crate); the per-packet decisions do not.
//!
//! # Running
//!
//! ```text
//! cargo run --release -p netcond-sim -- list                  # scenarios and their parameters
//! cargo run --release -p netcond-sim -- reproduce quick       # a reduced subset, seconds
//! cargo run --release -p netcond-sim -- reproduce all         # every document table
//! cargo run --release -p netcond-sim -- run pcn-termination --set s_bytes=2064 --seed 7
//! cargo run --release -p netcond-sim -- run pcn-admission --help  # its parameters
//! cargo run --release -p netcond-sim -- sweep pcn-termination --grid rtt_ms=50,200 --seeds 1..20
//! ```
//!
//! `run` checks the parameters before it simulates: each value's range, the
//! combinations ([`Scenario::validate`]) and an estimate of the memory a run
//! needs ([`Scenario::memory_estimate`]) against `--memory-budget` (2 GiB by
//! default). `sweep` expands a grid times seeds and can run one shard of it
//! (`--shard i/n`, or a Slurm or Kubernetes job array's index); `merge`
//! combines the shards (module [`sweep`], docs/scaling.md).
//!
//! docs/reproductions.md sets the document's numbers beside ours and discusses
//! each mismatch.
//!
//! # Determinism
//!
//! A run is a pure function of its scenario, its parameters and its seed: events
//! with equal times are ordered by the sequence number in which they were
//! scheduled, every random draw comes from a [`engine::Rng`] seeded from the run's
//! seed, and parallel sweeps give each run its own seed derived from the sweep's
//! seed and the run's index (never from the thread that runs it), so a sweep's
//! output is identical whatever the number of threads.
//!
//! # Adding a scenario
//!
//! 1. Write a module in `src/scenarios/`, e.g. `src/scenarios/my_case.rs`, with a
//!    unit struct implementing [`Scenario`]:
//!    - `name()` (the CLI name, kebab-case) and `description()` (one line);
//!    - `params()`: a `&'static [ParamSpec]` whose defaults are the document's
//!      parameters (say in `help` which section each comes from, and which ones
//!      the document left out and you chose);
//!    - `run(&params, seed, &progress) -> Result<Report, SimError>`: one run;
//!      read values with `params.u64("key")`, `params.f64("key")`,
//!      `params.str("key")`, `params.bool("key")` (already validated);
//!    - optionally `reproduce(&opts, &progress)`: the document's whole table
//!      (a list of runs handed to [`runner::run_jobs`], which runs them in
//!      parallel, each seeded with [`engine::derive_seed`]), filling
//!      [`report::Comparison`] rows with the document's number beside ours;
//!      the default runs `run` with the defaults;
//!    - optionally `in_quick()`: false if it is too slow for `reproduce quick`.
//! 2. Register it with two one-line edits in `src/scenarios/mod.rs`:
//!    `pub mod my_case;` and `&my_case::MyCase,` in [`scenarios::registry`].
//! 3. Add a test in `tests/` that runs it at reduced size (`--set` overrides via
//!    [`Params::with`]) and asserts what must hold.
//!
//! The CLI (`netcond-sim list | run | reproduce | sweep`) picks the scenario up
//! from the registry; `reproduce` prints the comparison and writes
//! `comparison.csv`, `runs.csv` (each run's derived seed), one CSV per table and
//! one CSV plus one SVG per plot under `out/<scenario>/`. Implement `validate`
//! and `memory_estimate` when a parameter set can be meaningless or large.
//!
//! # Example
//!
//! ```
//! use netcond_sim::{find, progress::Progress};
//! let sc = find("pcn-termination").unwrap();
//! let p = sc.defaults().with(&["sr_mbps=0.8", "duration_s=4"]).unwrap();
//! let report = sc.run(&p, 1, &Progress::hidden()).unwrap();
//! assert!(report.events > 0);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod engine;
pub mod erlang;
pub mod net;
pub mod params;
pub mod pcn_loop;
pub mod progress;
pub mod report;
pub mod runner;
pub mod scenarios;
pub mod svg;
pub mod sweep;
pub mod tcp;
pub mod traffic;

pub use params::{ParamKind, ParamSpec, Params};
pub use report::Report;
pub use scenarios::{find, registry, ReproduceOpts, Scenario};

/// Why a run could not be made.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// A parameter was unknown or its value invalid; the message lists the valid ones.
    Param(String),
    /// A conditioner refused its configuration (the crate's own error message).
    Config(String),
    /// Writing the output failed.
    Io(String),
}

impl core::fmt::Display for SimError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SimError::Param(m) => write!(f, "parameter error: {m}"),
            SimError::Config(m) => write!(f, "configuration refused: {m}"),
            SimError::Io(m) => write!(f, "output error: {m}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<std::io::Error> for SimError {
    fn from(e: std::io::Error) -> Self {
        SimError::Io(e.to_string())
    }
}

//! The [`Scenario`] trait and the registry of named scenarios.
//!
//! To add a scenario: `pub mod my_case;` below and `&my_case::MyCase,` in
//! [`registry`] (see the crate docs for the whole recipe).

use crate::params::{ParamSpec, Params};
use crate::progress::Progress;
use crate::report::Report;
use crate::SimError;

pub mod aecn;
pub mod aqm_dumbbell;
pub mod pcn_admission;
pub mod pcn_termination;
pub mod pcn_video;
pub mod premium_tcp;
pub mod ras_tcp;
pub mod rbcc_scenario7;

/// Options of a reproduction (`netcond-sim reproduce`).
#[derive(Clone, Debug)]
pub struct ReproduceOpts {
    /// The sweep's seed; run `i` uses `engine::derive_seed(seed, i)`.
    pub seed: u64,
    /// Reduced size (fewer runs, shorter times) for `reproduce quick`; say in the
    /// report what was reduced.
    pub quick: bool,
}

/// A named experiment whose defaults are a document's parameters.
pub trait Scenario: Sync {
    /// The CLI name (kebab-case).
    fn name(&self) -> &'static str;

    /// One line: what it reproduces (document and section).
    fn description(&self) -> &'static str;

    /// The parameters, with the document's values as defaults.
    fn params(&self) -> &'static [ParamSpec];

    /// One run with `params` and `seed`.
    fn run(&self, params: &Params, seed: u64, progress: &Progress) -> Result<Report, SimError>;

    /// The document's table(s): by default one run with the defaults.
    fn reproduce(&self, opts: &ReproduceOpts, progress: &Progress) -> Result<Report, SimError> {
        self.run(&self.defaults(), opts.seed, progress)
    }

    /// Refuses parameter combinations that make no sense together (each
    /// value already passed its own range check): an empty statistics
    /// window, a sampling period longer than the run, and the like. The
    /// message names the keys and says what would be accepted.
    fn validate(&self, _params: &Params) -> Result<(), SimError> {
        Ok(())
    }

    /// An upper estimate, in bytes, of the memory one call of `run` with
    /// `params` needs at its peak (live flows, events waiting, samples kept,
    /// counting the runs that rayon runs side by side). Zero when small.
    fn memory_estimate(&self, _params: &Params) -> u64 {
        0
    }

    /// `validate`, then the memory estimate against `budget` bytes: a
    /// parameter set that would need more is refused before it runs, with
    /// the estimate in the message.
    fn check(&self, params: &Params, budget: u64) -> Result<(), SimError> {
        self.validate(params)?;
        let need = self.memory_estimate(params);
        if need > budget {
            return Err(SimError::Param(format!(
                "this parameter set would need about {} of memory, more than the budget of {} \
                 (raise it with --memory-budget, or reduce the sizes)",
                human_bytes(need),
                human_bytes(budget)
            )));
        }
        Ok(())
    }

    /// Whether `reproduce quick` includes this scenario.
    fn in_quick(&self) -> bool {
        true
    }

    /// The default parameters.
    fn defaults(&self) -> Params {
        Params::defaults(self.params())
    }
}

/// The default memory budget of one run: 2 GiB.
pub const DEFAULT_MEMORY_BUDGET: u64 = 2 << 30;

/// `bytes` as MiB or GiB with one decimal, for messages.
#[must_use]
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    }
}

/// Every scenario, in listing order.
#[must_use]
pub fn registry() -> Vec<&'static dyn Scenario> {
    vec![
        &pcn_termination::PcnTermination,
        &pcn_admission::PcnAdmission,
        &pcn_video::PcnVideo,
        &rbcc_scenario7::RbccScenario7,
        &premium_tcp::PremiumTcp,
        &aecn::Aecn,
        &ras_tcp::RasTcp,
        &aqm_dumbbell::AqmDumbbell,
    ]
}

/// The scenario called `name`.
#[must_use]
pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    registry().into_iter().find(|s| s.name() == name)
}

/// The registered names (for error messages).
#[must_use]
pub fn names() -> Vec<&'static str> {
    registry().iter().map(|s| s.name()).collect()
}

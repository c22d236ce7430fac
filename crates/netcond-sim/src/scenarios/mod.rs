//! The [`Scenario`] trait and the registry of named scenarios.
//!
//! To add a scenario: `pub mod my_case;` below and `&my_case::MyCase,` in
//! [`registry`] (see the crate docs for the whole recipe).

use crate::params::{ParamSpec, Params};
use crate::progress::Progress;
use crate::report::Report;
use crate::SimError;

pub mod aecn;
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

    /// Whether `reproduce quick` includes this scenario.
    fn in_quick(&self) -> bool {
        true
    }

    /// The default parameters.
    fn defaults(&self) -> Params {
        Params::defaults(self.params())
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

//! `rbcc-scenario7`: TRUMP/RBCC Scenario 7 against TCP Reno (seed 004).

use crate::params::{ParamSpec, Params};
use crate::progress::Progress;
use crate::report::Report;
use crate::scenarios::Scenario;
use crate::SimError;

/// The scenario.
pub struct RbccScenario7;

static PARAMS: &[ParamSpec] = &[];

impl Scenario for RbccScenario7 {
    fn name(&self) -> &'static str {
        "rbcc-scenario7"
    }

    fn description(&self) -> &'static str {
        "TRUMP/RBCC Scenario 7 against TCP Reno (seed 004)"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn run(&self, _params: &Params, _seed: u64, _progress: &Progress) -> Result<Report, SimError> {
        Err(SimError::Config("not yet implemented".into()))
    }
}

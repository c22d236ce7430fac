//! `pcn-admission`: PCN admission control (seed 000 s3.2.1 table).

use crate::params::{ParamSpec, Params};
use crate::progress::Progress;
use crate::report::Report;
use crate::scenarios::Scenario;
use crate::SimError;

/// The scenario.
pub struct PcnAdmission;

static PARAMS: &[ParamSpec] = &[];

impl Scenario for PcnAdmission {
    fn name(&self) -> &'static str {
        "pcn-admission"
    }

    fn description(&self) -> &'static str {
        "PCN admission control (seed 000 s3.2.1 table)"
    }

    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    fn run(&self, _params: &Params, _seed: u64, _progress: &Progress) -> Result<Report, SimError> {
        Err(SimError::Config("not yet implemented".into()))
    }
}

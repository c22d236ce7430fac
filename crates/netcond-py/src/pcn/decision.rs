//! The RFC 6661 / RFC 6662 Decision Point.

use super::edge::{
    admission_arg, admission_name, behaviour, behaviour_name, fraction, fraction_value,
    EgressReportPy,
};
use crate::args;
use crate::shared::{self, py_bool};
use netcond::base::Instant;
use netcond::pcn::{
    amount_to_terminate, Admission, DecisionConfig, DecisionPoint, DecisionProfile, EdgeBehaviour,
    Termination,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The validated constants of an RFC 6661 / 6662 Decision Point.
///
/// `DecisionProfile(behaviour="controlled-load", u=None, cle_limit=0.05,
/// admission_enabled=True, termination_enabled=True)`: `behaviour` and `u`
/// as for `EgressMeterProfile`; `cle_limit` a fraction (admit while CLE <
/// CLE-limit, RFC section 3.3.1). `sar(report)` is the report's sustainable
/// aggregate rate in octets per second: NM-rate + ThM-rate (CL) or U x
/// NM-rate rounded down (SM).
#[pyclass(module = "netcond", name = "DecisionProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct DecisionProfilePy {
    cfg: DecisionConfig,
    prof: DecisionProfile,
}

#[pymethods]
impl DecisionProfilePy {
    #[new]
    #[pyo3(signature = (behaviour = "controlled-load", u = None, cle_limit = None, admission_enabled = true, termination_enabled = true))]
    fn py_new(
        behaviour: &str,
        u: Option<f64>,
        cle_limit: Option<&Bound<'_, PyAny>>,
        admission_enabled: bool,
        termination_enabled: bool,
    ) -> PyResult<Self> {
        let b = self::behaviour(behaviour, u)?;
        let mut cfg = match b {
            EdgeBehaviour::ControlledLoad => DecisionConfig::controlled_load(),
            _ => DecisionConfig::single_marking(),
        }
        .with_behaviour(b)
        .with_admission_enabled(admission_enabled)
        .with_termination_enabled(termination_enabled);
        if let Some(c) = cle_limit {
            cfg = cfg.with_cle_limit(fraction(c, "cle_limit")?);
        }
        let prof = DecisionProfile::new(&cfg).map_err(args::value_error)?;
        Ok(DecisionProfilePy { cfg, prof })
    }
    #[getter]
    fn behaviour(&self) -> &'static str {
        behaviour_name(self.cfg.behaviour).0
    }
    #[getter]
    fn u(&self) -> Option<f64> {
        behaviour_name(self.cfg.behaviour).1
    }
    #[getter]
    fn cle_limit(&self) -> f64 {
        fraction_value(self.cfg.cle_limit)
    }
    #[getter]
    fn admission_enabled(&self) -> bool {
        self.cfg.admission_enabled
    }
    #[getter]
    fn termination_enabled(&self) -> bool {
        self.cfg.termination_enabled
    }
    fn sar(&self, report: &EgressReportPy) -> u64 {
        self.prof.sar(&report.r)
    }
    fn __repr__(&self) -> String {
        format!(
            "DecisionProfile(behaviour='{}', u={}, cle_limit={}, admission_enabled={}, \
             termination_enabled={})",
            self.behaviour(),
            shared::py_opt(self.u()),
            self.cle_limit(),
            py_bool(self.admission_enabled()),
            py_bool(self.termination_enabled())
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.behaviour(),
            s.u(),
            s.cle_limit(),
            s.admission_enabled(),
            s.termination_enabled(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The Decision Point's decision on one report: `admission` (`"admit"` or
/// `"block"`; always admit with admission disabled) and `termination`:
/// `"none"`, `"request-sent-rate"` (ask the ingress for the PCN-sent-rate;
/// the next report decides) or `"terminate"` (terminate
/// `DecisionPoint.amount_to_terminate(pcn_sent_rate, sar)` octets per second
/// of flows; `sar` is set only then).
#[pyclass(module = "netcond", name = "EdgeDecision", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct EdgeDecisionPy {
    admission: Admission,
    termination: Termination,
}

fn termination_parts(t: Termination) -> (&'static str, Option<u64>) {
    match t {
        Termination::RequestSentRate => ("request-sent-rate", None),
        Termination::Terminate { sar } => ("terminate", Some(sar)),
        _ => ("none", None),
    }
}

#[pymethods]
impl EdgeDecisionPy {
    #[new]
    #[pyo3(signature = (admission, termination = "none", sar = None))]
    fn py_new(admission: &str, termination: &str, sar: Option<u64>) -> PyResult<Self> {
        let termination = match (termination, sar) {
            ("none", None) => Termination::None,
            ("request-sent-rate", None) => Termination::RequestSentRate,
            ("terminate", Some(sar)) => Termination::Terminate { sar },
            _ => {
                return Err(PyValueError::new_err(format!(
                    "termination: expected 'none', 'request-sent-rate' or 'terminate' (the \
                     last with its sar), got {termination:?} with sar={sar:?}"
                )))
            }
        };
        Ok(EdgeDecisionPy {
            admission: admission_arg(admission)?,
            termination,
        })
    }
    #[getter]
    fn admission(&self) -> &'static str {
        admission_name(self.admission)
    }
    #[getter]
    fn termination(&self) -> &'static str {
        termination_parts(self.termination).0
    }
    #[getter]
    fn sar(&self) -> Option<u64> {
        termination_parts(self.termination).1
    }
    fn __repr__(&self) -> String {
        format!(
            "EdgeDecision('{}', '{}', sar={})",
            self.admission(),
            self.termination(),
            shared::py_opt(self.sar())
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        (slf.get_type(), (s.admission(), s.termination(), s.sar())).into_pyobject(slf.py())
    }
}

/// The RFC 6661 / 6662 Decision Point for one aggregate (section 3.3), with
/// its profile: `on_report(report)` -> `EdgeDecision`. Admission: admit if
/// CLE < CLE-limit, else block. Termination: a report with ETM bytes (CL) or
/// a block state (SM) requests the PCN-sent-rate; if the next report has ETM
/// bytes, the decision is to terminate PCN-sent-rate - SAR of that report
/// (`amount_to_terminate(pcn_sent_rate, sar)`). `awaiting_report` is True
/// while a PCN-sent-rate was requested.
#[pyclass(module = "netcond", name = "DecisionPoint")]
#[derive(Clone)]
pub struct DecisionPointPy {
    profile: DecisionProfilePy,
    state: DecisionPoint,
}

#[pymethods]
impl DecisionPointPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<DecisionProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = DecisionPoint::new(&profile.prof, Instant::from_ticks(now));
        Ok(DecisionPointPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> DecisionProfilePy {
        self.profile.clone()
    }
    #[getter]
    fn awaiting_report(&self) -> bool {
        self.state.awaiting_report()
    }
    fn on_report(&mut self, report: &EgressReportPy) -> EdgeDecisionPy {
        let d = self.state.on_report(&self.profile.prof, &report.r);
        EdgeDecisionPy {
            admission: d.admission,
            termination: d.termination,
        }
    }
    /// RFC 6661 / 6662 section 3.3.2 step 2: PCN-sent-rate - SAR, or 0.
    #[staticmethod]
    fn amount_to_terminate(pcn_sent_rate: u64, sar: u64) -> u64 {
        amount_to_terminate(pcn_sent_rate, sar)
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &s.state)
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        self.state = shared::restore(state)?;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "DecisionPoint({}, awaiting_report={})",
            self.profile.__repr__(),
            py_bool(self.awaiting_report())
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DecisionProfilePy>()?;
    m.add_class::<EdgeDecisionPy>()?;
    m.add_class::<DecisionPointPy>()
}

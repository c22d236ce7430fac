//! The 3sM draft's CLE-based admission option at the PCN edge.

use super::edge::poll_feed;
use super::edge::{admission_arg, admission_name, cle_value, fraction, fraction_value, ns};
use super::mark_arg;
use crate::args;
use crate::bulk;
use crate::shared::{self, py_bool};
use netcond::base::Instant;
use netcond::pcn::{
    Cle, CleAdmission, CleAdmissionConfig, CleAdmissionProfile, CleDecision, PcnMark,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The validated constants of the 3sM draft's CLE-based admission option.
///
/// `CleAdmissionProfile(interval, stop, resume, tick_hz=10**9)`: the
/// measurement interval (a duration), the admission-stop and
/// admission-continue thresholds as fractions of the PCN bytes (0 to 1,
/// `resume <= stop`; kept rounded down to a multiple of 2**-31, so that a
/// CLE of exactly `k / 1000` reaches a threshold of `k / 1000`).
#[pyclass(module = "netcond", name = "CleAdmissionProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct CleAdmissionProfilePy {
    cfg: CleAdmissionConfig,
    prof: CleAdmissionProfile,
}

#[pymethods]
impl CleAdmissionProfilePy {
    #[new]
    #[pyo3(signature = (interval, stop, resume, tick_hz = None))]
    fn py_new(
        interval: &Bound<'_, PyAny>,
        stop: &Bound<'_, PyAny>,
        resume: &Bound<'_, PyAny>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut cfg = CleAdmissionConfig::new(
            args::duration(interval, "interval")?,
            fraction(stop, "stop")?,
            fraction(resume, "resume")?,
        );
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = CleAdmissionProfile::new(&cfg).map_err(args::value_error)?;
        Ok(CleAdmissionProfilePy { cfg, prof })
    }
    /// The measurement interval in nanoseconds.
    #[getter]
    fn interval(&self) -> u64 {
        ns(self.cfg.interval)
    }
    #[getter]
    fn stop(&self) -> f64 {
        fraction_value(self.cfg.stop)
    }
    #[getter]
    fn resume(&self) -> f64 {
        fraction_value(self.cfg.resume)
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "CleAdmissionProfile(interval={}, stop={}, resume={}, tick_hz={})",
            self.interval(),
            self.stop(),
            self.resume(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.interval(), s.stop(), s.resume(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The outcome of one measurement interval of a `CleAdmission`: the
/// interval `[start, end)` in ticks, its CLE as `cle_marked / cle_total`
/// bytes (`cle` as a float), the admission state from then on (`"admit"` or
/// `"block"`) and whether it `changed` at this interval.
#[pyclass(module = "netcond", name = "CleDecision", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct CleDecisionPy {
    d: CleDecision,
}

#[pymethods]
impl CleDecisionPy {
    #[new]
    fn py_new(
        start: u64,
        end: u64,
        cle_marked: u64,
        cle_total: u64,
        admission: &str,
        changed: bool,
    ) -> PyResult<Self> {
        if cle_marked > cle_total {
            return Err(PyValueError::new_err(format!(
                "cle_marked: {cle_marked} marked bytes out of {cle_total}"
            )));
        }
        Ok(CleDecisionPy {
            d: CleDecision {
                start: Instant::from_ticks(start),
                end: Instant::from_ticks(end),
                cle: Cle::new(cle_marked, cle_total),
                admission: admission_arg(admission)?,
                changed,
            },
        })
    }
    #[getter]
    fn start(&self) -> u64 {
        self.d.start.ticks()
    }
    #[getter]
    fn end(&self) -> u64 {
        self.d.end.ticks()
    }
    #[getter]
    fn cle_marked(&self) -> u64 {
        self.d.cle.marked
    }
    #[getter]
    fn cle_total(&self) -> u64 {
        self.d.cle.total
    }
    #[getter]
    fn cle(&self) -> f64 {
        cle_value(self.d.cle)
    }
    #[getter]
    fn admission(&self) -> &'static str {
        admission_name(self.d.admission)
    }
    #[getter]
    fn changed(&self) -> bool {
        self.d.changed
    }
    fn __repr__(&self) -> String {
        format!(
            "CleDecision(start={}, end={}, cle_marked={}, cle_total={}, admission='{}', changed={})",
            self.start(),
            self.end(),
            self.cle_marked(),
            self.cle_total(),
            self.admission(),
            py_bool(self.changed())
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.start(),
            s.end(),
            s.cle_marked(),
            s.cle_total(),
            s.admission(),
            s.changed(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The 3sM draft's CLE-based admission for one aggregate, with its profile:
/// per interval, CLE = (AS + ET bytes) / (all PCN bytes); an admitting
/// aggregate blocks when CLE >= `stop`, a blocked one resumes when CLE <
/// `resume`.
///
/// `on_packet(now, length, mark)`; `poll(now)` gives the `CleDecision` of
/// an interval that has ended (a packet at or after its end closes it; only
/// the latest is kept if several close unpolled); `next_wakeup`;
/// `admission`. Bulk: `on_packets(now, length, mark)` over uint64, uint32,
/// uint8 arrays does, for each packet, `poll(now)` until None and then
/// `on_packet`, with the GIL released, and gives the decisions so polled.
#[pyclass(module = "netcond", name = "CleAdmission")]
#[derive(Clone)]
pub struct CleAdmissionPy {
    profile: CleAdmissionProfilePy,
    state: CleAdmission,
}

#[pymethods]
impl CleAdmissionPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<CleAdmissionProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = CleAdmission::new(&profile.prof, Instant::from_ticks(now));
        Ok(CleAdmissionPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> CleAdmissionProfilePy {
        self.profile.clone()
    }
    /// `"admit"` or `"block"`.
    #[getter]
    fn admission(&self) -> &'static str {
        admission_name(self.state.admission())
    }
    fn on_packet(&mut self, now: u64, length: u32, mark: u8) -> PyResult<()> {
        let m = mark_arg(mark)?;
        self.state
            .on_packet(&self.profile.prof, Instant::from_ticks(now), length, m);
        Ok(())
    }
    fn on_packets<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        mark: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<CleDecisionPy>> {
        bulk::arrays!(t = now: u64, l = length: u32, m = mark: u8);
        poll_feed::check_marks(&m)?;
        bulk::same_len(&[("now", t.len()), ("length", l.len()), ("mark", m.len())])?;
        let prof = self.profile.prof;
        let (out, ()) = poll_feed::poll_then_feed(
            py,
            &mut self.state,
            &t,
            |st, at| st.poll(&prof, at).map(|d| CleDecisionPy { d }),
            |st, i, at| st.on_packet(&prof, at, l[i], PcnMark::from_ecn(m[i])),
            (),
        );
        Ok(out)
    }
    fn poll(&mut self, now: u64) -> Option<CleDecisionPy> {
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now))
            .map(|d| CleDecisionPy { d })
    }
    #[getter]
    fn next_wakeup(&self) -> u64 {
        self.state.next_wakeup().ticks()
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
            "CleAdmission({}, admission='{}', next_wakeup={})",
            self.profile.__repr__(),
            self.admission(),
            self.next_wakeup()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CleAdmissionProfilePy>()?;
    m.add_class::<CleDecisionPy>()?;
    m.add_class::<CleAdmissionPy>()?;
    super::stop_blocking::register(m)?;
    super::decision::register(m)
}

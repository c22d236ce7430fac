//! The PCN edge's admission and termination: the 3sM drafts' CLE-based
//! admission, stop-blocking timer and egress control, and the RFC 6661 /
//! 6662 Decision Point.

use super::edge::{
    admission_name, behaviour, behaviour_name, cle_value, fraction, fraction_value, EgressReportPy,
};
use super::mark_arg;
use crate::args;
use crate::bulk;
use crate::shared::{self, py_bool};
use netcond::base::Instant;
use netcond::pcn::{
    amount_to_terminate, Admission, Cle, CleAdmission, CleAdmissionConfig, CleAdmissionProfile,
    CleDecision, DecisionConfig, DecisionPoint, DecisionProfile, EdgeBehaviour, Egress3sm,
    EgressSignal, PcnMark, StopBlockingConfig, StopBlockingProfile, StopBlockingTimer, Termination,
};
use pyo3::exceptions::{PyKeyError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The most aggregates an `Egress3sm` holds.
pub const MAX_AGGREGATES: usize = 64;

fn ns(d: core::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn admission_arg(s: &str) -> PyResult<Admission> {
    match s {
        "admit" => Ok(Admission::Admit),
        "block" => Ok(Admission::Block),
        _ => Err(PyValueError::new_err(format!(
            "admission: expected 'admit' or 'block', got {s:?}"
        ))),
    }
}

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
        if let Some(&bad) = m.iter().find(|&&x| x > 3) {
            mark_arg(bad)?;
        }
        let n = bulk::same_len(&[("now", t.len()), ("length", l.len()), ("mark", m.len())])?;
        let prof = self.profile.prof;
        let st = &mut self.state;
        let out = py.allow_threads(|| {
            let mut out = Vec::new();
            for i in 0..n {
                let at = Instant::from_ticks(t[i]);
                while let Some(d) = st.poll(&prof, at) {
                    out.push(CleDecisionPy { d });
                }
                st.on_packet(&prof, at, l[i], PcnMark::from_ecn(m[i]));
            }
            out
        });
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

/// The validated stop-blocking timeout of draft-babiarz-pcn-explicit-marking-01
/// section 2.3.
///
/// `StopBlockingProfile(timeout="1s", et_blocks=True, tick_hz=10**9)`: the
/// timeout (the draft's 1 s by default); `et_blocks`: an ET packet also
/// signals "block" (section 2.3, admission modelled at the same time).
#[pyclass(module = "netcond", name = "StopBlockingProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct StopBlockingProfilePy {
    cfg: StopBlockingConfig,
    prof: StopBlockingProfile,
}

#[pymethods]
impl StopBlockingProfilePy {
    #[new]
    #[pyo3(signature = (timeout = None, et_blocks = true, tick_hz = None))]
    fn py_new(
        timeout: Option<&Bound<'_, PyAny>>,
        et_blocks: bool,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut cfg = StopBlockingConfig::draft_explicit_marking_01().with_et_blocks(et_blocks);
        if let Some(t) = timeout {
            cfg = cfg.with_timeout(args::duration(t, "timeout")?);
        }
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = StopBlockingProfile::new(&cfg).map_err(args::value_error)?;
        Ok(StopBlockingProfilePy { cfg, prof })
    }
    /// The timeout in nanoseconds.
    #[getter]
    fn timeout(&self) -> u64 {
        ns(self.cfg.timeout)
    }
    /// The timeout in ticks of the clock.
    #[getter]
    fn timeout_ticks(&self) -> u64 {
        self.prof.timeout_ticks()
    }
    #[getter]
    fn et_blocks(&self) -> bool {
        self.cfg.et_blocks
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "StopBlockingProfile(timeout={}, et_blocks={}, tick_hz={})",
            self.timeout(),
            py_bool(self.et_blocks()),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.timeout(), s.et_blocks(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The stop-blocking timer of one aggregate (draft-babiarz-pcn-explicit-marking-01
/// section 2.3), with its profile.
///
/// `on_block(now)` -> True if it blocked an admitting aggregate (and started
/// the timer); at each timeout the timer restarts if another block came in
/// that period, otherwise admission resumes: `poll(now)` gives the instant it
/// resumed, once (else None); `next_wakeup` (None when idle); `admission`.
#[pyclass(module = "netcond", name = "StopBlockingTimer")]
#[derive(Clone)]
pub struct StopBlockingTimerPy {
    profile: StopBlockingProfilePy,
    state: StopBlockingTimer,
}

#[pymethods]
impl StopBlockingTimerPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<StopBlockingProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = StopBlockingTimer::new(&profile.prof, Instant::from_ticks(now));
        Ok(StopBlockingTimerPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> StopBlockingProfilePy {
        self.profile.clone()
    }
    #[getter]
    fn admission(&self) -> &'static str {
        admission_name(self.state.admission())
    }
    fn on_block(&mut self, now: u64) -> bool {
        self.state
            .on_block(&self.profile.prof, Instant::from_ticks(now))
    }
    fn poll(&mut self, now: u64) -> Option<u64> {
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now))
            .map(Instant::ticks)
    }
    #[getter]
    fn next_wakeup(&self) -> Option<u64> {
        self.state.next_wakeup().map(Instant::ticks)
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
            "StopBlockingTimer({}, admission='{}', next_wakeup={})",
            self.profile.__repr__(),
            self.admission(),
            shared::py_opt(self.next_wakeup())
        )
    }
}

/// What the egress control signals for one packet: `kind` is `"nothing"`
/// (NM or not-PCN), `"block"` (an AS packet) or `"terminate"` (an ET packet;
/// `flow` is the flow to terminate); `new_period` is True when the signal
/// blocked an admitting aggregate (a terminate only with `et_blocks`).
#[pyclass(module = "netcond", name = "EgressSignal", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct EgressSignalPy {
    s: EgressSignal<u64>,
}

#[pymethods]
impl EgressSignalPy {
    #[new]
    #[pyo3(signature = (kind, flow = None, new_period = false))]
    fn py_new(kind: &str, flow: Option<u64>, new_period: bool) -> PyResult<Self> {
        let s = match (kind, flow) {
            ("nothing", None) if !new_period => EgressSignal::Nothing,
            ("block", None) => EgressSignal::Block { new_period },
            ("terminate", Some(flow)) => EgressSignal::Terminate {
                flow,
                new_block_period: new_period,
            },
            _ => {
                return Err(PyValueError::new_err(format!(
                    "EgressSignal: expected ('nothing'), ('block', None, new_period) or \
                     ('terminate', flow, new_period), got ({kind:?}, {flow:?}, {new_period})"
                )))
            }
        };
        Ok(EgressSignalPy { s })
    }
    #[getter]
    fn kind(&self) -> &'static str {
        match self.s {
            EgressSignal::Nothing => "nothing",
            EgressSignal::Block { .. } => "block",
            EgressSignal::Terminate { .. } => "terminate",
        }
    }
    #[getter]
    fn flow(&self) -> Option<u64> {
        match self.s {
            EgressSignal::Terminate { flow, .. } => Some(flow),
            _ => None,
        }
    }
    #[getter]
    fn new_period(&self) -> bool {
        match self.s {
            EgressSignal::Block { new_period } => new_period,
            EgressSignal::Terminate {
                new_block_period, ..
            } => new_block_period,
            EgressSignal::Nothing => false,
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "EgressSignal('{}', flow={}, new_period={})",
            self.kind(),
            shared::py_opt(self.flow()),
            py_bool(self.new_period())
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        (slf.get_type(), (s.kind(), s.flow(), s.new_period())).into_pyobject(slf.py())
    }
}

/// draft-babiarz-pcn-explicit-marking-01's egress traffic control (section
/// 2.3) for up to 64 ingress-egress aggregates, named by ints below 2**64:
/// one stop-blocking timer per aggregate, one flow termination per ET packet.
///
/// `add(key)` registers an aggregate (admitting) and gives its index (its
/// existing index if registered); a 65th aggregate raises `OverflowError`.
/// `on_packet(now, key, flow, mark)` -> `EgressSignal` (an unregistered key
/// raises `KeyError`); `poll(now)` -> `(key, instant)` of one aggregate whose
/// admission resumed, or None (call until None); `next_wakeup` (None when
/// every aggregate is idle); `admission(key)`; `len()`.
#[pyclass(module = "netcond", name = "Egress3sm")]
#[derive(Clone)]
pub struct Egress3smPy {
    profile: StopBlockingProfilePy,
    state: Egress3sm<u64, MAX_AGGREGATES>,
}

#[pymethods]
impl Egress3smPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<StopBlockingProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Egress3sm::new(&profile.prof, Instant::from_ticks(now));
        Ok(Egress3smPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> StopBlockingProfilePy {
        self.profile.clone()
    }
    fn add(&mut self, key: u64) -> PyResult<usize> {
        self.state.add(key).map_err(|k| {
            PyOverflowError::new_err(format!(
                "aggregate {k}: an Egress3sm holds at most {MAX_AGGREGATES} aggregates"
            ))
        })
    }
    fn index_of(&self, key: u64) -> Option<usize> {
        self.state.index_of(key)
    }
    fn __len__(&self) -> usize {
        self.state.len()
    }
    /// `"admit"` or `"block"`, None for an unregistered key.
    fn admission(&self, key: u64) -> Option<&'static str> {
        self.state.admission(key).map(admission_name)
    }
    fn on_packet(&mut self, now: u64, key: u64, flow: u64, mark: u8) -> PyResult<EgressSignalPy> {
        let m = mark_arg(mark)?;
        self.state
            .on_packet(&self.profile.prof, Instant::from_ticks(now), key, flow, m)
            .map(|s| EgressSignalPy { s })
            .map_err(|k| PyKeyError::new_err(format!("aggregate {k} is not registered")))
    }
    fn poll(&mut self, now: u64) -> Option<(u64, u64)> {
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now))
            .map(|(k, at)| (k, at.ticks()))
    }
    #[getter]
    fn next_wakeup(&self) -> Option<u64> {
        self.state.next_wakeup().map(Instant::ticks)
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
            "Egress3sm({}, aggregates={}, next_wakeup={})",
            self.profile.__repr__(),
            self.state.len(),
            shared::py_opt(self.next_wakeup())
        )
    }
}

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
    m.add_class::<CleAdmissionProfilePy>()?;
    m.add_class::<CleDecisionPy>()?;
    m.add_class::<CleAdmissionPy>()?;
    m.add_class::<StopBlockingProfilePy>()?;
    m.add_class::<StopBlockingTimerPy>()?;
    m.add_class::<EgressSignalPy>()?;
    m.add_class::<Egress3smPy>()?;
    m.add_class::<DecisionProfilePy>()?;
    m.add_class::<EdgeDecisionPy>()?;
    m.add_class::<DecisionPointPy>()
}

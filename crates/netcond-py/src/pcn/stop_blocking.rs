//! draft-babiarz-pcn-explicit-marking-01 section 2.3 at the egress: the
//! stop-blocking timer and the egress control of up to 64 aggregates.

use super::edge::{admission_name, ns, poll_feed};
use super::mark_arg;
use crate::args;
use crate::bulk;
use crate::shared::{self, py_bool};
use netcond::base::Instant;
use netcond::pcn::{
    Egress3sm, EgressSignal, PcnMark, StopBlockingConfig, StopBlockingProfile, StopBlockingTimer,
};
use pyo3::exceptions::{PyKeyError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The most aggregates an `Egress3sm` holds.
pub const MAX_AGGREGATES: usize = 64;

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
/// every aggregate is idle); `admission(key)`; `len()`. Bulk:
/// `on_packets(now, key, flow, mark)` over uint64, uint64, uint64, uint8
/// arrays gives `(kinds, new_period, resumed)` (see the method).
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
    /// Bulk: for each packet, `poll(now)` until None, then `on_packet`,
    /// with the GIL released. Gives the signals' kinds (uint8: 0 nothing,
    /// 1 block, 2 terminate; a terminate's flow is the packet's), their
    /// `new_period` (bool) and the `(key, instant)` resumptions polled.
    fn on_packets<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        key: &Bound<'py, PyAny>,
        flow: &Bound<'py, PyAny>,
        mark: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        bulk::arrays!(t = now: u64, k = key: u64, f = flow: u64, m = mark: u8);
        poll_feed::check_marks(&m)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("key", k.len()),
            ("flow", f.len()),
            ("mark", m.len()),
        ])?;
        let index = k
            .iter()
            .map(|&x| {
                self.state
                    .index_of(x)
                    .ok_or_else(|| PyKeyError::new_err(format!("aggregate {x} is not registered")))
            })
            .collect::<PyResult<Vec<usize>>>()?;
        let prof = self.profile.prof;
        let (resumed, (kinds, new)) = poll_feed::poll_then_feed(
            py,
            &mut self.state,
            &t,
            |st, at| st.poll(&prof, at).map(|(key, when)| (key, when.ticks())),
            |st, i, at| match st.on_packet_at(&prof, at, index[i], f[i], PcnMark::from_ecn(m[i])) {
                EgressSignal::Nothing => (0u8, false),
                EgressSignal::Block { new_period } => (1, new_period),
                EgressSignal::Terminate {
                    new_block_period, ..
                } => (2, new_block_period),
            },
            (Vec::with_capacity(n), Vec::with_capacity(n)),
        );
        (
            numpy::PyArray1::from_vec(py, kinds),
            numpy::PyArray1::from_vec(py, new),
            resumed,
        )
            .into_pyobject(py)
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<StopBlockingProfilePy>()?;
    m.add_class::<StopBlockingTimerPy>()?;
    m.add_class::<EgressSignalPy>()?;
    m.add_class::<Egress3smPy>()
}

//! An RCP-style rate controller (rbcc-rate's `Rcp`): one rate per interface,
//! updated every control interval from the input rate and the queue.

use crate::args;
use crate::bulk;
use crate::shared;
use netcond::base::Instant;
use netcond::rbcc::{FixedRate, FlowId, NodeId, RateHeader, Rcp, RcpConfig, RcpProfile};
use netcond::trtcm::Mode;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// 2**-16 bit/s, the unit of the controller's rates, as a float.
fn bits(r: FixedRate) -> f64 {
    r.raw() as f64 / 65536.0
}

/// The validated constants of an RCP interface.
///
/// `RcpProfile(capacity, rtt, node=1, alpha=(1, 10), beta=(1, 1),
/// interval=None, initial=None, min_rate=1, tick_hz=10**9)`: every control
/// interval T (by default the round-trip time d0, `rtt`) the rate becomes
/// `R (1 + (T/d0) (alpha (C - y) - beta q/d0) / C)`, clamped to
/// [min_rate, C], with y the input rate over the interval and q the queue;
/// alpha and beta are fractions (numerator, denominator); rates in bit/s or
/// tc strings; `initial` defaults to C.
#[pyclass(module = "netcond", name = "RcpProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct RcpProfilePy {
    cfg: RcpConfig,
    prof: RcpProfile,
}

#[pymethods]
impl RcpProfilePy {
    #[new]
    #[pyo3(signature = (capacity, rtt, node = 1, alpha = (1, 10), beta = (1, 1), interval = None, initial = None, min_rate = None, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        capacity: &Bound<'_, PyAny>,
        rtt: &Bound<'_, PyAny>,
        node: u32,
        alpha: (u32, u32),
        beta: (u32, u32),
        interval: Option<&Bound<'_, PyAny>>,
        initial: Option<&Bound<'_, PyAny>>,
        min_rate: Option<&Bound<'_, PyAny>>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let rate = |x: &Bound<'_, PyAny>, what| args::rate(x, what, Mode::Bytes);
        let mut cfg = RcpConfig::new(
            NodeId(node),
            rate(capacity, "capacity")?,
            args::duration(rtt, "rtt")?,
        )
        .with_alpha(alpha)
        .with_beta(beta);
        if let Some(i) = interval {
            cfg = cfg.with_interval(args::duration(i, "interval")?);
        }
        if let Some(r) = initial {
            cfg = cfg.with_initial(rate(r, "initial")?);
        }
        if let Some(r) = min_rate {
            cfg = cfg.with_min_rate(rate(r, "min_rate")?);
        }
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = RcpProfile::new(&cfg).map_err(args::value_error)?;
        Ok(RcpProfilePy { cfg, prof })
    }
    #[getter]
    fn capacity(&self) -> u64 {
        self.cfg.capacity.bits_per_sec()
    }
    /// d0 in nanoseconds.
    #[getter]
    fn rtt(&self) -> u64 {
        self.cfg.rtt.as_nanos() as u64
    }
    #[getter]
    fn node(&self) -> u32 {
        self.cfg.node.0
    }
    #[getter]
    fn alpha(&self) -> (u32, u32) {
        self.cfg.alpha
    }
    #[getter]
    fn beta(&self) -> (u32, u32) {
        self.cfg.beta
    }
    /// T in nanoseconds.
    #[getter]
    fn interval(&self) -> u64 {
        self.cfg.interval.as_nanos() as u64
    }
    #[getter]
    fn initial(&self) -> u64 {
        self.cfg.initial.bits_per_sec()
    }
    #[getter]
    fn min_rate(&self) -> u64 {
        self.cfg.min_rate.bits_per_sec()
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "RcpProfile(capacity={}, rtt={}, node={}, alpha={:?}, beta={:?}, interval={}, initial={}, min_rate={}, tick_hz={})",
            self.capacity(),
            self.rtt(),
            self.node(),
            self.alpha(),
            self.beta(),
            self.interval(),
            self.initial(),
            self.min_rate(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.capacity(),
            s.rtt(),
            s.node(),
            s.alpha(),
            s.beta(),
            s.interval(),
            s.initial(),
            s.min_rate(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// An RCP interface's state: the rate R, the bytes counted in the current
/// control interval and the interval's start.
///
/// `on_arrival(now, length)` counts arrivals (ints or arrays);
/// `control(now, queue_bytes)` runs the update when T has passed (-> bool);
/// `stamp(rate)` lowers a data packet's rate field (bit/s) to R and gives
/// `(rate, bottleneck)`, the bottleneck this node when lowered, else 0.
/// Bulk: `run(now, length, queue_bytes)` takes each packet's arrival, then
/// the control step at its instant with the queue given, and gives R after
/// each packet (float64 bit/s, exact below 2**37 bit/s).
#[pyclass(module = "netcond", name = "Rcp")]
#[derive(Clone)]
pub struct RcpPy {
    profile: RcpProfilePy,
    state: Rcp,
}

#[pymethods]
impl RcpPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<RcpProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Rcp::new(&profile.prof, Instant::from_ticks(now));
        Ok(RcpPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> RcpProfilePy {
        self.profile.clone()
    }
    /// R in bit/s (a float: the rate is kept in units of 2**-16 bit/s).
    #[getter]
    fn rate(&self) -> f64 {
        bits(self.state.rate())
    }
    /// R in units of 2**-16 bit/s, exact.
    #[getter]
    fn rate_raw(&self) -> u64 {
        self.state.rate().raw()
    }
    #[getter]
    fn interval_start(&self) -> u64 {
        self.state.interval_start().ticks()
    }
    #[getter]
    fn arrived_bytes(&self) -> u64 {
        self.state.arrived_bytes()
    }
    /// Counts arrivals: ints, or uint64 `now` and uint32 `length` arrays.
    fn on_arrival(
        &mut self,
        py: Python<'_>,
        now: &Bound<'_, PyAny>,
        length: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let p = self.profile.prof;
        if !bulk::is_array(now) {
            let t = Instant::from_ticks(now.extract()?);
            self.state.on_arrival(&p, t, length.extract()?);
            return Ok(());
        }
        bulk::arrays!(t = now: u64, l = length: u32);
        let n = bulk::same_len(&[("now", t.len()), ("length", l.len())])?;
        bulk::each(py, &mut self.state, n, |st, i| {
            st.on_arrival(&p, Instant::from_ticks(t[i]), l[i]);
        });
        Ok(())
    }
    /// Runs the update if T has passed since the interval began; returns
    /// whether it ran.
    fn control(&mut self, now: u64, queue_bytes: u64) -> bool {
        self.state
            .control(&self.profile.prof, Instant::from_ticks(now), queue_bytes)
    }
    /// A data packet's rate field (bit/s) after this interface: `(rate,
    /// bottleneck)`.
    fn stamp(&mut self, rate: u64) -> (u64, u32) {
        let mut h = RateHeader::new(FixedRate::from_bps(rate));
        let flow: FlowId = 0;
        let _ = self
            .state
            .on_data(&self.profile.prof, Instant::ZERO, flow, &mut h);
        (h.rate.bps(), h.bottleneck.0)
    }
    /// Bulk: each packet's arrival then the control step at its instant.
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        queue_bytes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        bulk::arrays!(t = now: u64, l = length: u32, q = queue_bytes: u64);
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("length", l.len()),
            ("queue_bytes", q.len()),
        ])?;
        let p = self.profile.prof;
        Ok(bulk::map(py, &mut self.state, n, |st, i| {
            let now = Instant::from_ticks(t[i]);
            st.on_arrival(&p, now, l[i]);
            st.control(&p, now, q[i]);
            bits(st.rate())
        }))
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
            "Rcp({}, rate_raw={}, arrived_bytes={}, interval_start={})",
            self.profile.__repr__(),
            self.rate_raw(),
            self.arrived_bytes(),
            self.interval_start()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RcpProfilePy>()?;
    m.add_class::<RcpPy>()?;
    Ok(())
}

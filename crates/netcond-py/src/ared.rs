//! Adaptive RED (Floyd, Gummadi and Shenker 2001): RED whose max_p follows
//! the load so that the average stays in the middle of the thresholds.

use crate::args;
use crate::red::{arrivals, RedProfilePy};
use crate::shared;
use core::time::Duration;
use netcond::base::{Instant, SplitMix64};
use netcond::red::{AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The validated constants of an Adaptive RED queue: RED's (`RedProfile`'s
/// keywords, `max_p` the starting value) and the adaptation interval.
///
/// `AdaptiveRedProfile(min_th, max_th, max_p, w_q=0.002, limit=None,
/// unit="packets", gentle=False, ecn=False, byte_mode=None,
/// interval="500ms")`: every `interval` (the paper's 0.5 s by default),
/// max_p grows by min(0.01, max_p / 4) while the average is above the target
/// band [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)] and
/// max_p <= 0.5, and shrinks by a factor 0.9 while the average is below it and
/// max_p >= 0.01.
#[pyclass(module = "netcond", name = "AdaptiveRedProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct AredProfilePy {
    red: RedProfilePy,
    interval: Duration,
    prof: AdaptiveRedProfile,
}

#[pymethods]
impl AredProfilePy {
    #[new]
    #[pyo3(signature = (min_th, max_th, max_p, w_q = 0.002, limit = None, unit = "packets", gentle = false, ecn = false, byte_mode = None, interval = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        min_th: u32,
        max_th: u32,
        max_p: f64,
        w_q: f64,
        limit: Option<u32>,
        unit: &str,
        gentle: bool,
        ecn: bool,
        byte_mode: Option<u32>,
        interval: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let red = RedProfilePy::py_new(
            min_th, max_th, max_p, w_q, limit, unit, gentle, ecn, byte_mode,
        )?;
        let interval = match interval {
            Some(i) => args::duration(i, "interval")?,
            None => Duration::from_millis(500),
        };
        // A zero-tick interval is refused.
        let prof = AdaptiveRedProfile::new(&AdaptiveRedConfig::new(red.cfg, interval))
            .map_err(args::value_error)?;
        Ok(AredProfilePy {
            red,
            interval,
            prof,
        })
    }
    #[getter]
    fn min_th(&self) -> u32 {
        self.red.cfg.min_th
    }
    #[getter]
    fn max_th(&self) -> u32 {
        self.red.cfg.max_th
    }
    /// The starting max_p as a float (the exact value is a U32F32).
    #[getter]
    fn max_p(&self) -> f64 {
        self.red.cfg.max_p.to_num::<f64>()
    }
    /// The adaptation interval in nanoseconds.
    #[getter]
    fn interval(&self) -> u128 {
        self.interval.as_nanos()
    }
    /// RED's profile with the starting max_p.
    #[getter]
    fn red(&self) -> RedProfilePy {
        self.red.clone()
    }
    fn __repr__(&self) -> String {
        let red = self.red.__repr__();
        let args = red
            .strip_prefix("RedProfile(")
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or(&red);
        format!("AdaptiveRedProfile({args}, interval={})", self.interval())
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let q = &s.red.cfg.queue;
        let a = (
            s.min_th(),
            s.max_th(),
            s.max_p(),
            q.w_q.to_num::<f64>(),
            q.limit,
            s.red.unit(),
            q.gentle,
            q.ecn,
            q.byte_mode,
            s.interval.as_nanos() as u64,
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// An Adaptive RED queue's state (with max_p as adapted so far), its profile
/// (the constants, shared) and a seeded random source (SplitMix64; the same seed gives the same
/// decisions).
///
/// `on_arrival(now, queue_len, length, ecn_capable=False)` first runs the
/// adaptations due by `now`, then decides as `Red.on_arrival` (per packet or
/// bulk); `on_queue_empty(now)` when the queue empties; `adapt(now)` runs the
/// adaptations due without a packet.
#[pyclass(module = "netcond", name = "AdaptiveRed")]
#[derive(Clone)]
pub struct AredPy {
    profile: AredProfilePy,
    state: AdaptiveRed,
    rng: SplitMix64,
}

#[pymethods]
impl AredPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<AredProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = AdaptiveRed::new(&profile.prof, Instant::from_ticks(now));
        Ok(AredPy {
            profile,
            state,
            rng: SplitMix64::new(seed),
        })
    }
    #[getter]
    fn profile(&self) -> AredProfilePy {
        self.profile.clone()
    }
    /// The current max_p as a float (exact value: a U32F32).
    #[getter]
    fn max_p(&self) -> f64 {
        self.state.max_p().to_num::<f64>()
    }
    /// The average queue size as a float (exact value: fixed point).
    #[getter]
    fn avg(&self) -> f64 {
        self.state
            .red()
            .avg(self.profile.prof.red())
            .to_num::<f64>()
    }
    /// Packets since the last early drop or mark.
    #[getter]
    fn count(&self) -> u32 {
        self.state.red().count()
    }
    /// The target band (lo, hi) of the average, in queue units.
    #[getter]
    fn target(&self) -> (f64, f64) {
        let (lo, hi) = self.profile.prof.target();
        (lo.to_num::<f64>(), hi.to_num::<f64>())
    }
    /// The tick the current adaptation interval began at.
    #[getter]
    fn interval_start(&self) -> u64 {
        self.state.interval_start().ticks()
    }
    /// Per packet: ints give a `Decision`. Bulk: uint64 `now`, uint32
    /// `queue_len` and `length` arrays (and an optional bool `ecn_capable`
    /// array) give a uint8 array of decisions, as the calls one by one would.
    #[pyo3(signature = (now, queue_len, length, ecn_capable = None))]
    fn on_arrival<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        queue_len: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let prof = self.profile.prof;
        let mut sr = (self.state, self.rng);
        let out = arrivals(
            py,
            &mut sr,
            now,
            queue_len,
            length,
            ecn_capable,
            |(st, rng), t, q, pkt| st.on_arrival(&prof, t, q, pkt, rng),
        );
        (self.state, self.rng) = sr;
        out
    }
    /// The queue became empty at `now`.
    fn on_queue_empty(&mut self, now: u64) {
        self.state
            .on_queue_empty(&self.profile.prof, Instant::from_ticks(now));
    }
    /// Runs the adaptations due by `now` (at most 128); returns how many ran.
    fn adapt(&mut self, now: u64) -> u32 {
        self.state
            .adapt(&self.profile.prof, Instant::from_ticks(now))
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &(s.state, s.rng))
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (st, rng): (AdaptiveRed, SplitMix64) = shared::restore(state)?;
        self.state = st;
        self.rng = rng;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "AdaptiveRed({}, max_p={:?}, avg={:?}, count={}, interval_start={})",
            self.profile.__repr__(),
            self.max_p(),
            self.avg(),
            self.count(),
            self.interval_start()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AredProfilePy>()?;
    m.add_class::<AredPy>()?;
    Ok(())
}

//! AECN (Zheng and Kinicki): RED with ECN marking scaled per flow class.

use crate::args;
use crate::bulk;
use crate::shared;
use netcond::base::{Instant, SplitMix64};
use netcond::red::{Aecn, AecnConfig, AecnProfile, FlowClass, RedConfig};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::red::{decision_index, ecn_of, DECISIONS};

fn class(c: u8) -> PyResult<FlowClass> {
    match c {
        0 => Ok(FlowClass::Robust),
        1 => Ok(FlowClass::Average),
        2 => Ok(FlowClass::Fragile),
        c => Err(PyValueError::new_err(format!(
            "flow_class: expected 0 (robust), 1 (average) or 2 (fragile), got {c}"
        ))),
    }
}

fn number(x: f64, what: &str) -> PyResult<netcond::red::U32F32> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "{what}: expected a finite number >= 0, got {x}"
        )));
    }
    Ok(RedConfig::prob(x))
}

/// The validated constants of an AECN queue.
///
/// `AecnProfile(base_max_p, min_th=10, max_th=30, alpha=2.5, beta=2.5,
/// w_q=0.001, limit=50)` (packets; the defaults are the AECN slides'):
/// robust flows are marked with `min(alpha base_max_p, 1)`, average ones with
/// `base_max_p`, fragile ones with `base_max_p / beta`.
#[pyclass(module = "netcond", name = "AecnProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct AecnProfilePy {
    cfg: AecnConfig,
    prof: AecnProfile,
}

#[pymethods]
impl AecnProfilePy {
    #[new]
    #[pyo3(signature = (base_max_p, min_th = 10, max_th = 30, alpha = 2.5, beta = 2.5, w_q = 0.001, limit = 50))]
    fn py_new(
        base_max_p: f64,
        min_th: u32,
        max_th: u32,
        alpha: f64,
        beta: f64,
        w_q: f64,
        limit: u32,
    ) -> PyResult<Self> {
        let cfg = AecnConfig::new(
            number(w_q, "w_q")?,
            min_th,
            max_th,
            number(base_max_p, "base_max_p")?,
            number(alpha, "alpha")?,
            number(beta, "beta")?,
            limit,
        );
        let prof = AecnProfile::new(&cfg).map_err(args::value_error)?;
        Ok(AecnProfilePy { cfg, prof })
    }
    #[getter]
    fn base_max_p(&self) -> f64 {
        self.cfg.base_max_p.to_num::<f64>()
    }
    #[getter]
    fn min_th(&self) -> u32 {
        self.cfg.min_th
    }
    #[getter]
    fn max_th(&self) -> u32 {
        self.cfg.max_th
    }
    #[getter]
    fn alpha(&self) -> f64 {
        self.cfg.alpha.to_num::<f64>()
    }
    #[getter]
    fn beta(&self) -> f64 {
        self.cfg.beta.to_num::<f64>()
    }
    #[getter]
    fn w_q(&self) -> f64 {
        self.cfg.w_q.to_num::<f64>()
    }
    #[getter]
    fn limit(&self) -> u32 {
        self.cfg.limit
    }
    /// The marking probability of a class (0 robust, 1 average, 2 fragile).
    fn max_p(&self, flow_class: u8) -> PyResult<f64> {
        Ok(self.prof.max_p(class(flow_class)?).to_num::<f64>())
    }
    fn __repr__(&self) -> String {
        format!(
            "AecnProfile(base_max_p={:?}, min_th={}, max_th={}, alpha={:?}, beta={:?}, w_q={:?}, limit={})",
            self.base_max_p(),
            self.min_th(),
            self.max_th(),
            self.alpha(),
            self.beta(),
            self.w_q(),
            self.limit()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.base_max_p(),
            s.min_th(),
            s.max_th(),
            s.alpha(),
            s.beta(),
            s.w_q(),
            s.limit(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// An AECN queue's state with its profile and a seeded random source
/// (SplitMix64). `on_arrival(now, queue_len, flow_class=1, ecn_capable=False)`
/// gives a `Decision`.
#[pyclass(module = "netcond", name = "Aecn")]
#[derive(Clone)]
pub struct AecnPy {
    profile: AecnProfilePy,
    state: Aecn,
    rng: SplitMix64,
}

#[pymethods]
impl AecnPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<AecnProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Aecn::new(&profile.prof, Instant::from_ticks(now));
        Ok(AecnPy {
            profile,
            state,
            rng: SplitMix64::new(seed),
        })
    }
    #[getter]
    fn profile(&self) -> AecnProfilePy {
        self.profile.clone()
    }
    #[getter]
    fn avg(&self) -> f64 {
        self.state.avg(&self.profile.prof).to_num::<f64>()
    }
    /// Each class's packets since its last early drop or mark.
    #[getter]
    fn counts(&self) -> (u32, u32, u32) {
        let c = self.state.counts();
        (c[0], c[1], c[2])
    }
    /// Per packet: ints give a `Decision`. Bulk: uint64 `now`, uint32
    /// `queue_len`, uint8 `flow_class` arrays (and an optional bool
    /// `ecn_capable` array) give a uint8 array of decisions.
    #[pyo3(signature = (now, queue_len, flow_class = None, ecn_capable = None))]
    fn on_arrival<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        queue_len: &Bound<'py, PyAny>,
        flow_class: Option<&Bound<'py, PyAny>>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let prof = self.profile.prof;
        if !bulk::is_array(now) {
            let c = match flow_class {
                Some(c) => class(c.extract()?)?,
                None => FlowClass::Average,
            };
            let e = bulk::flag(ecn_capable)?;
            let d = self.state.on_arrival(
                &prof,
                Instant::from_ticks(now.extract()?),
                queue_len.extract()?,
                c,
                ecn_of(e),
                &mut self.rng,
            );
            return Ok(DECISIONS.get(py, decision_index(d))?.into_bound(py));
        }
        bulk::arrays!(t = now: u64, q = queue_len: u32);
        let cs = bulk::opt_array::<u8>(flow_class, "flow_class")?
            .map(|v| {
                v.into_iter()
                    .map(class)
                    .collect::<PyResult<Vec<FlowClass>>>()
            })
            .transpose()?;
        let ecn = bulk::flags(ecn_capable)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("queue_len", q.len()),
            ("flow_class", bulk::opt_len(&cs, t.len())),
            ("ecn_capable", bulk::opt_len(&ecn, t.len())),
        ])?;
        let mut sr = (self.state, self.rng);
        let out = bulk::map(py, &mut sr, n, |(st, rng), i| {
            let c = cs.as_ref().map_or(FlowClass::Average, |x| x[i]);
            let e = ecn_of(bulk::flag_at(&ecn, i));
            decision_index(st.on_arrival(&prof, Instant::from_ticks(t[i]), q[i], c, e, rng)) as u8
        });
        (self.state, self.rng) = sr;
        Ok(out)
    }
    /// The queue became empty at `now`.
    fn on_queue_empty(&mut self, now: u64) {
        self.state
            .on_queue_empty(&self.profile.prof, Instant::from_ticks(now));
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
        let (st, rng): (Aecn, SplitMix64) = shared::restore(state)?;
        self.state = st;
        self.rng = rng;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Aecn({}, counts={:?})",
            self.profile.__repr__(),
            self.counts()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AecnProfilePy>()?;
    m.add_class::<AecnPy>()?;
    Ok(())
}

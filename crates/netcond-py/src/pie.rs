//! PIE (RFC 8033; Linux `sch_pie`'s integer arithmetic or the RFC's own law).

use crate::args;
use crate::bulk;
use crate::codel::{verdict_index, AQM_VERDICTS};
use crate::renamed;
use crate::shared::{self, py_bool};
use netcond::base::{Instant, SplitMix64};
use netcond::delay::{Head, Pie, PieConfig, PieEstimator, PieLaw, PieProfile};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

fn law_name(l: PieLaw) -> &'static str {
    match l {
        PieLaw::Linux => "linux",
        PieLaw::Rfc8033 => "rfc8033",
    }
}

fn estimator_name(e: PieEstimator) -> &'static str {
    match e {
        PieEstimator::Timestamp => "timestamp",
        PieEstimator::DepartureRate => "departure-rate",
    }
}

/// The keywords PIE and FQ-PIE share, applied over a law's defaults.
pub(crate) struct PieArgs<'a, 'py> {
    pub target: Option<&'a Bound<'py, PyAny>>,
    pub t_update: Option<&'a Bound<'py, PyAny>>,
    pub max_burst: Option<&'a Bound<'py, PyAny>>,
    pub alpha: Option<u32>,
    pub beta: Option<u32>,
    pub mtu: Option<&'a Bound<'py, PyAny>>,
    pub ecn: bool,
    pub bytemode: bool,
    pub tick_hz: Option<&'a Bound<'py, PyAny>>,
}

impl PieArgs<'_, '_> {
    pub fn apply(&self, mut cfg: PieConfig) -> PyResult<PieConfig> {
        if let Some(t) = self.target {
            cfg = cfg.with_target(args::duration(t, "target")?);
        }
        if let Some(t) = self.t_update {
            cfg = cfg.with_t_update(args::duration(t, "t_update")?);
        }
        if let Some(t) = self.max_burst {
            cfg = cfg.with_max_burst(args::duration(t, "max_burst")?);
        }
        cfg = cfg.with_alpha_beta(
            self.alpha.unwrap_or(cfg.alpha),
            self.beta.unwrap_or(cfg.beta),
        );
        if let Some(m) = self.mtu {
            cfg = cfg.with_mtu(args::size_u32(m, "mtu")?);
        }
        cfg = cfg.with_ecn(self.ecn).with_bytemode(self.bytemode);
        if let Some(t) = self.tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        Ok(cfg)
    }
}

/// The validated constants of PIE.
///
/// `PieProfile(target="15ms", t_update="15ms", max_burst="150ms", alpha=2,
/// beta=20, limit=1000, mtu=1514, ecn=False, bytemode=False, bound_prob=None,
/// law="linux", estimator="timestamp", derandomize=True, tick_hz=10**9)`:
/// `alpha` and `beta` in units of 1/16 Hz as tc takes them; `law` is
/// `"linux"` (sch_pie's integer code) or `"rfc8033"` (the RFC's rules, exact);
/// `estimator` (`"timestamp"` or `"departure-rate"`) and `derandomize` apply
/// to the RFC law; `bound_prob` defaults to the law's (Linux no, RFC yes).
#[pyclass(module = "netcond", name = "PieProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PieProfilePy {
    cfg: PieConfig,
    prof: PieProfile,
}

#[pymethods]
impl PieProfilePy {
    #[new]
    #[pyo3(signature = (target = None, t_update = None, max_burst = None, alpha = None, beta = None, limit = None, mtu = None, ecn = false, bytemode = false, bound_prob = None, law = "linux", estimator = "timestamp", derandomize = true, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        target: Option<&Bound<'_, PyAny>>,
        t_update: Option<&Bound<'_, PyAny>>,
        max_burst: Option<&Bound<'_, PyAny>>,
        alpha: Option<u32>,
        beta: Option<u32>,
        limit: Option<u32>,
        mtu: Option<&Bound<'_, PyAny>>,
        ecn: bool,
        bytemode: bool,
        bound_prob: Option<bool>,
        law: &str,
        estimator: &str,
        derandomize: bool,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut cfg = match law {
            "linux" => PieConfig::linux(),
            "rfc8033" | "rfc" => PieConfig::rfc8033(),
            l => {
                return Err(PyValueError::new_err(format!(
                    "law: expected 'linux' or 'rfc8033', got {l:?}"
                )))
            }
        };
        cfg = cfg.with_estimator(match estimator {
            "timestamp" => PieEstimator::Timestamp,
            "departure-rate" | "departure_rate" => PieEstimator::DepartureRate,
            e => {
                return Err(PyValueError::new_err(format!(
                    "estimator: expected 'timestamp' or 'departure-rate', got {e:?}"
                )))
            }
        });
        cfg = PieArgs {
            target,
            t_update,
            max_burst,
            alpha,
            beta,
            mtu,
            ecn,
            bytemode,
            tick_hz,
        }
        .apply(cfg)?;
        if let Some(l) = limit {
            cfg = cfg.with_limit(l);
        }
        if let Some(b) = bound_prob {
            cfg = cfg.with_bound_prob(b);
        }
        cfg = cfg.with_derandomize(derandomize);
        let prof = PieProfile::new(&cfg).map_err(args::value_error)?;
        Ok(PieProfilePy { cfg, prof })
    }
    /// QDELAY_REF in nanoseconds.
    #[getter]
    fn target(&self) -> u128 {
        self.cfg.target.as_nanos()
    }
    /// T_UPDATE in nanoseconds.
    #[getter]
    fn t_update(&self) -> u128 {
        self.cfg.t_update.as_nanos()
    }
    /// MAX_BURST in nanoseconds.
    #[getter]
    fn max_burst(&self) -> u128 {
        self.cfg.max_burst.as_nanos()
    }
    #[getter]
    fn alpha(&self) -> u32 {
        self.cfg.alpha
    }
    #[getter]
    fn beta(&self) -> u32 {
        self.cfg.beta
    }
    #[getter]
    fn limit(&self) -> u32 {
        self.cfg.limit
    }
    #[getter]
    fn mtu(&self) -> u32 {
        self.cfg.mtu
    }
    #[getter]
    fn ecn(&self) -> bool {
        self.cfg.ecn
    }
    #[getter]
    fn bytemode(&self) -> bool {
        self.cfg.bytemode
    }
    #[getter]
    fn bound_prob(&self) -> bool {
        self.cfg.bound_prob
    }
    #[getter]
    fn law(&self) -> &'static str {
        law_name(self.cfg.law)
    }
    #[getter]
    fn estimator(&self) -> &'static str {
        estimator_name(self.cfg.estimator)
    }
    #[getter]
    fn derandomize(&self) -> bool {
        self.cfg.derandomize
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "PieProfile(target={}, t_update={}, max_burst={}, alpha={}, beta={}, limit={}, mtu={}, ecn={}, bytemode={}, bound_prob={}, law='{}', estimator='{}', derandomize={}, tick_hz={})",
            self.target(),
            self.t_update(),
            self.max_burst(),
            self.alpha(),
            self.beta(),
            self.limit(),
            self.mtu(),
            py_bool(self.ecn()),
            py_bool(self.bytemode()),
            py_bool(self.bound_prob()),
            self.law(),
            self.estimator(),
            py_bool(self.derandomize()),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let py = slf.py();
        let a = PyTuple::new(
            py,
            [
                (s.cfg.target.as_nanos() as u64)
                    .into_pyobject(py)?
                    .into_any(),
                (s.cfg.t_update.as_nanos() as u64)
                    .into_pyobject(py)?
                    .into_any(),
                (s.cfg.max_burst.as_nanos() as u64)
                    .into_pyobject(py)?
                    .into_any(),
                s.alpha().into_pyobject(py)?.into_any(),
                s.beta().into_pyobject(py)?.into_any(),
                s.limit().into_pyobject(py)?.into_any(),
                s.mtu().into_pyobject(py)?.into_any(),
                s.ecn().into_pyobject(py)?.to_owned().into_any(),
                s.bytemode().into_pyobject(py)?.to_owned().into_any(),
                s.bound_prob().into_pyobject(py)?.to_owned().into_any(),
                s.law().into_pyobject(py)?.into_any(),
                s.estimator().into_pyobject(py)?.into_any(),
                s.derandomize().into_pyobject(py)?.to_owned().into_any(),
                s.tick_hz().into_pyobject(py)?.into_any(),
            ],
        )?;
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// PIE's state for one queue, with its profile and a seeded random source
/// (SplitMix64; the same seed gives the same decisions).
///
/// The caller keeps the packets: `on_arrival(now, length, qlen, backlog,
/// ecn_capable=False, poll=False)` for each arrival (packets and bytes queued
/// before it) gives an `AqmVerdict`; `on_dequeue(now, enqueued, length,
/// backlog)` for each departure (bytes left after it); `poll(now, backlog)`
/// runs the drop probability update when T_UPDATE has passed (the timer).
/// `poll=True` polls at the arrival's instant with its `backlog` first.
#[pyclass(module = "netcond", name = "Pie")]
#[derive(Clone)]
pub struct PiePy {
    profile: PieProfilePy,
    state: Pie,
    rng: SplitMix64,
}

#[pymethods]
impl PiePy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<PieProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Pie::new(&profile.prof, Instant::from_ticks(now));
        Ok(PiePy {
            profile,
            state,
            rng: SplitMix64::new(seed),
        })
    }
    #[getter]
    fn profile(&self) -> PieProfilePy {
        self.profile.clone()
    }
    /// The drop probability in units of 2**-56 (`MAX_PROB` = 2**56 - 1 is one).
    #[getter]
    fn prob(&self) -> u64 {
        self.state.prob()
    }
    /// The drop probability as a float (it may exceed 1 under the Linux law).
    #[getter]
    fn probability(&self) -> f64 {
        self.state.prob() as f64 / netcond::delay::MAX_PROB as f64
    }
    /// The derandomization's accumulated probability (units of `prob`).
    #[getter]
    fn accu_prob(&self) -> u64 {
        self.state.accu_prob()
    }
    /// The current queue delay estimate (Linux law: psched ticks of 64 ns).
    #[getter]
    fn qdelay(&self) -> u64 {
        self.state.qdelay()
    }
    /// The burst allowance left (Linux law: psched ticks of 64 ns).
    #[getter]
    fn burst_time(&self) -> u64 {
        self.state.burst_time()
    }
    /// The tick at which the next update is due.
    #[getter]
    fn next_update(&self) -> u64 {
        self.state.next_update().ticks()
    }
    /// The arriving packet's verdict. Per packet: ints give an `AqmVerdict`.
    /// Bulk: uint64 `now`, uint32 `length`, uint32 `qlen`, uint64 `backlog`
    /// arrays (and an optional bool/uint8 `ecn_capable` array) give a uint8
    /// array (0 deliver, 1 mark, 2 drop), as the calls one by one would.
    #[pyo3(signature = (now, length, qlen, backlog, ecn_capable = None, *, poll = false))]
    #[allow(clippy::too_many_arguments)]
    fn on_arrival<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        qlen: &Bound<'py, PyAny>,
        backlog: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
        poll: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let prof = self.profile.prof;
        if !bulk::is_array(now) {
            let t = Instant::from_ticks(now.extract()?);
            let q: u64 = backlog.extract()?;
            let head = Head::new(t, length.extract()?, bulk::flag(ecn_capable)?);
            if poll {
                self.state.poll(&prof, t, q);
            }
            let v = self
                .state
                .on_arrival(&prof, t, head, qlen.extract()?, q, &mut self.rng);
            return Ok(AQM_VERDICTS.get(py, verdict_index(v))?.into_bound(py));
        }
        bulk::arrays!(t = now: u64, l = length: u32, ql = qlen: u32, b = backlog: u64);
        let ecn = bulk::flags(ecn_capable)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("length", l.len()),
            ("qlen", ql.len()),
            ("backlog", b.len()),
            ("ecn_capable", bulk::opt_len(&ecn, t.len())),
        ])?;
        let mut sr = (self.state, self.rng);
        let out = bulk::map(py, &mut sr, n, |(st, rng), i| {
            let now = Instant::from_ticks(t[i]);
            let head = Head::new(now, l[i], bulk::flag_at(&ecn, i));
            if poll {
                st.poll(&prof, now, b[i]);
            }
            verdict_index(st.on_arrival(&prof, now, head, ql[i], b[i], rng)) as u8
        });
        (self.state, self.rng) = sr;
        Ok(out)
    }
    /// The old name of `on_arrival`: warns (`DeprecationWarning`), then
    /// does what `on_arrival` does.
    #[pyo3(signature = (now, length, qlen, backlog, ecn_capable = None, *, poll = false))]
    #[allow(clippy::too_many_arguments)]
    fn on_enqueue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        qlen: &Bound<'py, PyAny>,
        backlog: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
        poll: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        renamed::warn(py, "Pie.on_enqueue", "Pie.on_arrival")?;
        self.on_arrival(py, now, length, qlen, backlog, ecn_capable, poll)
    }
    /// A packet left the queue (enqueued at `enqueued`, `backlog` bytes left
    /// after it). Per packet with ints; bulk with uint64 `now`, uint64
    /// `enqueued`, uint32 `length`, uint64 `backlog` arrays (returns None).
    fn on_dequeue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        enqueued: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        backlog: &Bound<'py, PyAny>,
    ) -> PyResult<()> {
        let prof = self.profile.prof;
        if !bulk::is_array(now) {
            let head = Head::new(
                Instant::from_ticks(enqueued.extract()?),
                length.extract()?,
                false,
            );
            self.state.on_dequeue(
                &prof,
                Instant::from_ticks(now.extract()?),
                head,
                backlog.extract()?,
            );
            return Ok(());
        }
        bulk::arrays!(t = now: u64, e = enqueued: u64, l = length: u32, b = backlog: u64);
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("enqueued", e.len()),
            ("length", l.len()),
            ("backlog", b.len()),
        ])?;
        bulk::each(py, &mut self.state, n, |st, i| {
            let head = Head::new(Instant::from_ticks(e[i]), l[i], false);
            st.on_dequeue(&prof, Instant::from_ticks(t[i]), head, b[i]);
        });
        Ok(())
    }
    /// Runs the drop probability update if T_UPDATE has passed since the
    /// last one (`backlog` bytes queued now); returns whether it ran.
    fn poll(&mut self, now: u64, backlog: u64) -> bool {
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now), backlog)
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
        let (st, rng): (Pie, SplitMix64) = shared::restore(state)?;
        self.state = st;
        self.rng = rng;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Pie({}, prob={}, qdelay={}, burst_time={})",
            self.profile.__repr__(),
            self.state.prob(),
            self.state.qdelay(),
            self.state.burst_time()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PieProfilePy>()?;
    m.add_class::<PiePy>()?;
    Ok(())
}

//! DualPI2 (RFC 9332) with its L4S and Classic FIFOs kept here.

use crate::args;
use crate::bulk;
use crate::codel::{verdict_index, AQM_VERDICTS};
use crate::shared;
use netcond::base::{Instant, SplitMix64};
use netcond::delay::{
    DualDecision, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue, DualScheduler, Ecn,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::VecDeque;

fn decision_name(d: DualDecision) -> &'static str {
    match d {
        DualDecision::Recur => "recur",
        DualDecision::Random { two_draws: true } => "random-two",
        DualDecision::Random { two_draws: false } => "random",
    }
}

/// The validated constants of DualPI2.
///
/// `DualPi2Profile(defaults="rfc9332", target=, t_update=, alpha_mhz=,
/// beta_mhz=, k16=, min_th=, range=, th_len=, limit=, mtu=, curq_max=,
/// tshift=, decision=, tick_hz=10**9)`: each keyword left out takes the
/// `defaults` set's value (`"rfc9332"`: RFC 9332's Appendix A, or `"linux"`:
/// Linux `sch_dualpi2`'s). Gains in millihertz, `k16` the coupling factor
/// times 16, `limit` in bytes, `tshift` the time-shifted FIFO's shift;
/// `decision` is `"recur"`, `"random"` or `"random-two"` (two draws for the
/// Classic square).
#[pyclass(module = "netcond", name = "DualPi2Profile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct DualPi2ProfilePy {
    cfg: DualPi2Config,
    defaults: &'static str,
    prof: DualPi2Profile,
}

impl DualPi2ProfilePy {
    fn tshift_ns(&self) -> Option<u64> {
        match self.cfg.scheduler {
            DualScheduler::TimeShifted { tshift } => Some(tshift.as_nanos() as u64),
            DualScheduler::WeightedRoundRobin { .. } => None,
        }
    }
    fn kwargs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let c = &self.cfg;
        d.set_item("defaults", self.defaults)?;
        d.set_item("target", c.target.as_nanos() as u64)?;
        d.set_item("t_update", c.t_update.as_nanos() as u64)?;
        d.set_item("alpha_mhz", c.alpha_mhz)?;
        d.set_item("beta_mhz", c.beta_mhz)?;
        d.set_item("k16", c.k16)?;
        d.set_item("min_th", c.min_th.as_nanos() as u64)?;
        d.set_item("range", c.range.as_nanos() as u64)?;
        d.set_item("th_len", c.th_len)?;
        d.set_item("limit", c.limit)?;
        d.set_item("mtu", c.mtu)?;
        d.set_item("curq_max", c.curq_max)?;
        d.set_item("tshift", self.tshift_ns())?;
        d.set_item("decision", decision_name(c.decision))?;
        d.set_item("tick_hz", c.tick.hz())?;
        Ok(d)
    }
}

#[pymethods]
impl DualPi2ProfilePy {
    #[new]
    #[pyo3(signature = (defaults = "rfc9332", target = None, t_update = None, alpha_mhz = None, beta_mhz = None, k16 = None, min_th = None, range = None, th_len = None, limit = None, mtu = None, curq_max = None, tshift = None, decision = None, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        defaults: &str,
        target: Option<&Bound<'_, PyAny>>,
        t_update: Option<&Bound<'_, PyAny>>,
        alpha_mhz: Option<u32>,
        beta_mhz: Option<u32>,
        k16: Option<u32>,
        min_th: Option<&Bound<'_, PyAny>>,
        range: Option<&Bound<'_, PyAny>>,
        th_len: Option<u32>,
        limit: Option<&Bound<'_, PyAny>>,
        mtu: Option<&Bound<'_, PyAny>>,
        curq_max: Option<bool>,
        tshift: Option<&Bound<'_, PyAny>>,
        decision: Option<&str>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (mut cfg, defaults) = match defaults {
            "rfc9332" => (DualPi2Config::rfc9332(), "rfc9332"),
            "linux" => (DualPi2Config::linux_defaults(), "linux"),
            d => {
                return Err(PyValueError::new_err(format!(
                    "defaults: expected 'rfc9332' or 'linux', got {d:?}"
                )))
            }
        };
        if let Some(t) = target {
            cfg = cfg.with_target(args::duration(t, "target")?);
        }
        if let Some(t) = t_update {
            cfg = cfg.with_t_update(args::duration(t, "t_update")?);
        }
        cfg = cfg.with_gains(
            alpha_mhz.unwrap_or(cfg.alpha_mhz),
            beta_mhz.unwrap_or(cfg.beta_mhz),
        );
        if let Some(k) = k16 {
            cfg = cfg.with_k16(k);
        }
        let mt = match min_th {
            Some(m) => args::duration(m, "min_th")?,
            None => cfg.min_th,
        };
        let rg = match range {
            Some(r) => args::duration(r, "range")?,
            None => cfg.range,
        };
        cfg = cfg.with_ramp(mt, rg);
        if let Some(t) = th_len {
            cfg = cfg.with_th_len(t);
        }
        let lim = match limit {
            Some(l) => args::size_u32(l, "limit")? as u64,
            None => cfg.limit,
        };
        let m = match mtu {
            Some(m) => args::size_u32(m, "mtu")?,
            None => cfg.mtu,
        };
        cfg = cfg.with_limit(lim, m);
        if let Some(c) = curq_max {
            cfg = cfg.with_curq_max(c);
        }
        if let Some(t) = tshift {
            cfg = cfg.with_scheduler(DualScheduler::TimeShifted {
                tshift: args::duration(t, "tshift")?,
            });
        }
        if let Some(d) = decision {
            cfg = cfg.with_decision(match d {
                "recur" => DualDecision::Recur,
                "random" => DualDecision::Random { two_draws: false },
                "random-two" => DualDecision::Random { two_draws: true },
                d => {
                    return Err(PyValueError::new_err(format!(
                        "decision: expected 'recur', 'random' or 'random-two', got {d:?}"
                    )))
                }
            });
        }
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = DualPi2Profile::new(&cfg).map_err(args::value_error)?;
        Ok(DualPi2ProfilePy {
            cfg,
            defaults,
            prof,
        })
    }
    #[getter]
    fn target(&self) -> u128 {
        self.cfg.target.as_nanos()
    }
    #[getter]
    fn t_update(&self) -> u128 {
        self.cfg.t_update.as_nanos()
    }
    #[getter]
    fn alpha_mhz(&self) -> u32 {
        self.cfg.alpha_mhz
    }
    #[getter]
    fn beta_mhz(&self) -> u32 {
        self.cfg.beta_mhz
    }
    #[getter]
    fn k16(&self) -> u32 {
        self.cfg.k16
    }
    #[getter]
    fn min_th(&self) -> u128 {
        self.cfg.min_th.as_nanos()
    }
    #[getter]
    fn range(&self) -> u128 {
        self.cfg.range.as_nanos()
    }
    #[getter]
    fn th_len(&self) -> u32 {
        self.cfg.th_len
    }
    #[getter]
    fn limit(&self) -> u64 {
        self.cfg.limit
    }
    #[getter]
    fn mtu(&self) -> u32 {
        self.cfg.mtu
    }
    #[getter]
    fn curq_max(&self) -> bool {
        self.cfg.curq_max
    }
    #[getter]
    fn tshift(&self) -> Option<u64> {
        self.tshift_ns()
    }
    #[getter]
    fn decision(&self) -> &'static str {
        decision_name(self.cfg.decision)
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let d = self.kwargs(py)?;
        let mut parts = Vec::new();
        for (k, v) in d.iter() {
            parts.push(format!("{}={}", k.str()?, v.repr()?));
        }
        Ok(format!("DualPi2Profile({})", parts.join(", ")))
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let partial = py
            .import("functools")?
            .getattr("partial")?
            .call((slf.get_type(),), Some(&slf.get().kwargs(py)?))?;
        (partial, ()).into_pyobject(py)
    }
}

/// DualPI2's state with its two FIFOs (enqueue instant, length, ECN field of
/// each packet) and a seeded random source (SplitMix64).
///
/// `enqueue(now, length, ecn)` classifies a packet by its ECN field (0
/// Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE; ECT(1) and CE go to the L4S queue) and
/// returns 0 (L4S), 1 (Classic) or None when the shared buffer is full;
/// `dequeue(now)` takes the scheduled head and returns `(queue, enqueued,
/// length, AqmVerdict)` or None when both are empty (after a `DROP`, call
/// again); `poll(now)` runs the PI update when Tupdate has passed.
#[pyclass(module = "netcond", name = "DualPi2")]
#[derive(Clone)]
pub struct DualPi2Py {
    profile: DualPi2ProfilePy,
    state: DualPi2,
    rng: SplitMix64,
    l: VecDeque<DualHead>,
    c: VecDeque<DualHead>,
    bytes: u64,
}

impl DualPi2Py {
    fn heads(&self) -> (Option<Instant>, Option<Instant>) {
        (
            self.l.front().map(|h| h.enqueued),
            self.c.front().map(|h| h.enqueued),
        )
    }
}

#[pymethods]
impl DualPi2Py {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<DualPi2ProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = DualPi2::new(&profile.prof, Instant::from_ticks(now));
        Ok(DualPi2Py {
            profile,
            state,
            rng: SplitMix64::new(seed),
            l: VecDeque::new(),
            c: VecDeque::new(),
            bytes: 0,
        })
    }
    #[getter]
    fn profile(&self) -> DualPi2ProfilePy {
        self.profile.clone()
    }
    /// The base probability p' in units of 2**-32.
    #[getter]
    fn p_prime(&self) -> u64 {
        self.state.p_prime()
    }
    /// The coupled L4S probability p_CL in units of 2**-32.
    #[getter]
    fn p_cl(&self) -> u64 {
        self.state.p_cl(&self.profile.prof)
    }
    /// Packets queued in (L4S, Classic).
    #[getter]
    fn packets(&self) -> (usize, usize) {
        (self.l.len(), self.c.len())
    }
    /// Bytes queued in both queues.
    #[getter]
    fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Queues a packet with ECN field `ecn` (0-3); returns its queue (0 L4S,
    /// 1 Classic) or None when the buffer is full (the packet is dropped).
    /// Bulk: uint64 `now`, uint32 `length` and an optional uint8 `ecn` array
    /// give an int8 array (0 L4S, 1 Classic, -1 dropped).
    #[pyo3(signature = (now, length, ecn = None))]
    fn enqueue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        ecn: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            let e = match ecn {
                Some(e) => e.extract::<u8>()?,
                None => 0,
            };
            return Ok(
                match self.enqueue_one(now.extract()?, length.extract()?, e) {
                    Some(q) => q.into_pyobject(py)?.into_any(),
                    None => py.None().into_bound(py),
                },
            );
        }
        bulk::arrays!(t = now: u64, l = length: u32);
        let e = bulk::opt_array::<u8>(ecn, "ecn")?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("length", l.len()),
            ("ecn", bulk::opt_len(&e, t.len())),
        ])?;
        Ok(bulk::map_in_place(py, self, n, |s, i| {
            let ecn = e.as_ref().map_or(0, |x| x[i]);
            s.enqueue_one(t[i], l[i], ecn).map_or(-1, |q| q as i8)
        }))
    }
    /// Takes the scheduled head packet: `(queue, enqueued, length,
    /// AqmVerdict)`, or None when both queues are empty. Bulk: a uint64
    /// `now` array gives `(queue, verdict)` arrays: int8 queues (-1 where
    /// both were empty, its verdict then 0) and uint8 verdicts.
    fn dequeue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            return match self.dequeue_one(now.extract()?) {
                None => Ok(py.None().into_bound(py)),
                Some((q, h, v)) => (
                    q,
                    h.enqueued.ticks(),
                    h.len,
                    AQM_VERDICTS.get(py, verdict_index(v))?,
                )
                    .into_pyobject(py)
                    .map(Bound::into_any),
            };
        }
        bulk::arrays!(t = now: u64);
        bulk::map2_in_place(py, self, t.len(), |s, i| match s.dequeue_one(t[i]) {
            None => (-1i8, 0u8),
            Some((q, _, v)) => (q as i8, verdict_index(v) as u8),
        })
    }
    /// Runs the PI update if Tupdate has passed since the last one, with the
    /// current heads' enqueue instants; returns whether it ran.
    fn poll(&mut self, now: u64) -> bool {
        let (lh, ch) = self.heads();
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now), lh, ch)
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(
            slf,
            s.profile.clone(),
            &(s.state, s.rng, &s.l, &s.c, s.bytes),
        )
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        type Saved = (
            DualPi2,
            SplitMix64,
            VecDeque<DualHead>,
            VecDeque<DualHead>,
            u64,
        );
        let (st, rng, l, c, bytes): Saved = shared::restore(state)?;
        self.state = st;
        self.rng = rng;
        self.l = l;
        self.c = c;
        self.bytes = bytes;
        Ok(())
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "DualPi2({}, p_prime={}, packets={:?})",
            self.profile.__repr__(py)?,
            self.state.p_prime(),
            (self.l.len(), self.c.len())
        ))
    }
}

impl DualPi2Py {
    fn enqueue_one(&mut self, now: u64, length: u32, ecn: u8) -> Option<u8> {
        let t = Instant::from_ticks(now);
        let e = Ecn::from_bits(ecn);
        let q = self
            .state
            .on_arrival(&self.profile.prof, t, e, length, self.bytes)?;
        let h = DualHead::new(t, length, e);
        self.bytes += u64::from(length);
        match q {
            DualQueue::L4s => {
                self.l.push_back(h);
                Some(0)
            }
            DualQueue::Classic => {
                self.c.push_back(h);
                Some(1)
            }
        }
    }
    fn dequeue_one(&mut self, now: u64) -> Option<(u8, DualHead, netcond::delay::Verdict)> {
        let t = Instant::from_ticks(now);
        let (lh, ch) = self.heads();
        let q = self.state.schedule(&self.profile.prof, t, lh, ch)?;
        let fifo = match q {
            DualQueue::L4s => &mut self.l,
            DualQueue::Classic => &mut self.c,
        };
        let h = fifo.pop_front()?;
        let left = u32::try_from(fifo.len()).unwrap_or(u32::MAX);
        self.bytes -= u64::from(h.len);
        let v = self
            .state
            .on_dequeue(&self.profile.prof, t, q, h, left, &mut self.rng);
        Some((u8::from(q == DualQueue::Classic), h, v))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DualPi2ProfilePy>()?;
    m.add_class::<DualPi2Py>()?;
    Ok(())
}

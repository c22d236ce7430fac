//! RED (Floyd and Jacobson 1993; RFC 2309), with gentle, byte mode and ECN.

use crate::args;
use crate::bulk::{self, EnumCache};
use crate::shared::{self, py_bool};
use netcond::base::{Instant, SplitMix64};
use netcond::red::{Decision, Ecn, Packet, QueueUnit, Red, RedConfig, RedProfile};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

pub(crate) static DECISIONS: EnumCache = EnumCache::new("Decision");

pub(crate) fn decision_index(d: Decision) -> usize {
    match d {
        Decision::Enqueue => 0,
        Decision::Mark => 1,
        Decision::DropEarly => 2,
        Decision::DropForced => 3,
    }
}

fn prob(x: f64, what: &str) -> PyResult<netcond::red::U32F32> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "{what}: expected a finite number >= 0, got {x}"
        )));
    }
    Ok(RedConfig::prob(x))
}

pub(crate) fn ecn_of(capable: bool) -> Ecn {
    if capable {
        Ecn::Ect0
    } else {
        Ecn::NotEct
    }
}

/// `on_arrival` of RED and Adaptive RED, per packet or bulk: `step` decides
/// one packet (arrival instant, queue length, packet) on `state`.
pub(crate) fn arrivals<'py, S, F>(
    py: Python<'py>,
    state: &mut S,
    now: &Bound<'py, PyAny>,
    queue_len: &Bound<'py, PyAny>,
    length: &Bound<'py, PyAny>,
    ecn_capable: Option<&Bound<'py, PyAny>>,
    step: F,
) -> PyResult<Bound<'py, PyAny>>
where
    S: Copy + Send,
    F: Fn(&mut S, Instant, u32, Packet) -> Decision + Sync,
{
    if !bulk::is_array(now) {
        let pkt = Packet::new(length.extract()?, ecn_of(bulk::flag(ecn_capable)?));
        let d = step(
            state,
            Instant::from_ticks(now.extract()?),
            queue_len.extract()?,
            pkt,
        );
        return Ok(DECISIONS.get(py, decision_index(d))?.into_bound(py));
    }
    bulk::arrays!(t = now: u64, q = queue_len: u32, l = length: u32);
    let ecn = bulk::flags(ecn_capable)?;
    let n = bulk::same_len(&[
        ("now", t.len()),
        ("queue_len", q.len()),
        ("length", l.len()),
        ("ecn_capable", bulk::opt_len(&ecn, t.len())),
    ])?;
    Ok(bulk::map(py, state, n, |st, i| {
        let pkt = Packet::new(l[i], ecn_of(bulk::flag_at(&ecn, i)));
        decision_index(step(st, Instant::from_ticks(t[i]), q[i], pkt)) as u8
    }))
}

/// The validated constants of a RED queue.
///
/// `RedProfile(min_th, max_th, max_p, w_q=0.002, limit=None, unit="packets",
/// gentle=False, ecn=False, byte_mode=None)`: thresholds and the limit in
/// packets (bytes with `unit="bytes"`), `max_p` and `w_q` as numbers (stored
/// as U32F32 fixed point), `limit` defaulting to 2 x max_th; `byte_mode=M`
/// scales the drop probability by length / M.
#[pyclass(module = "netcond", name = "RedProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct RedProfilePy {
    pub(crate) cfg: RedConfig,
    pub(crate) prof: RedProfile,
}

#[pymethods]
impl RedProfilePy {
    #[new]
    #[pyo3(signature = (min_th, max_th, max_p, w_q = 0.002, limit = None, unit = "packets", gentle = false, ecn = false, byte_mode = None))]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn py_new(
        min_th: u32,
        max_th: u32,
        max_p: f64,
        w_q: f64,
        limit: Option<u32>,
        unit: &str,
        gentle: bool,
        ecn: bool,
        byte_mode: Option<u32>,
    ) -> PyResult<Self> {
        let unit = match unit {
            "packets" => QueueUnit::Packets,
            "bytes" => QueueUnit::Bytes,
            u => {
                return Err(PyValueError::new_err(format!(
                    "unit: expected 'packets' or 'bytes', got {u:?}"
                )))
            }
        };
        let limit = limit.unwrap_or(max_th.saturating_mul(2));
        let mut cfg = RedConfig::packets(
            min_th,
            max_th,
            prob(max_p, "max_p")?,
            prob(w_q, "w_q")?,
            limit,
        );
        cfg.queue = cfg
            .queue
            .with_unit(unit)
            .with_gentle(gentle)
            .with_ecn(ecn)
            .with_byte_mode(byte_mode);
        let prof = RedProfile::new(&cfg).map_err(args::value_error)?;
        Ok(RedProfilePy { cfg, prof })
    }
    #[getter]
    fn min_th(&self) -> u32 {
        self.cfg.min_th
    }
    #[getter]
    fn max_th(&self) -> u32 {
        self.cfg.max_th
    }
    /// max_p as a float (the exact value is a U32F32).
    #[getter]
    fn max_p(&self) -> f64 {
        self.cfg.max_p.to_num::<f64>()
    }
    #[getter]
    fn w_q(&self) -> f64 {
        self.cfg.queue.w_q.to_num::<f64>()
    }
    #[getter]
    fn limit(&self) -> u32 {
        self.cfg.queue.limit
    }
    #[getter]
    pub(crate) fn unit(&self) -> &'static str {
        match self.cfg.queue.unit {
            QueueUnit::Bytes => "bytes",
            _ => "packets",
        }
    }
    #[getter]
    fn gentle(&self) -> bool {
        self.cfg.queue.gentle
    }
    #[getter]
    fn ecn(&self) -> bool {
        self.cfg.queue.ecn
    }
    #[getter]
    fn byte_mode(&self) -> Option<u32> {
        self.cfg.queue.byte_mode
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "RedProfile(min_th={}, max_th={}, max_p={:?}, w_q={:?}, limit={}, unit='{}', gentle={}, ecn={}, byte_mode={})",
            self.min_th(),
            self.max_th(),
            self.max_p(),
            self.w_q(),
            self.limit(),
            self.unit(),
            py_bool(self.gentle()),
            py_bool(self.ecn()),
            shared::py_opt(self.byte_mode())
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.min_th(),
            s.max_th(),
            s.max_p(),
            s.w_q(),
            s.limit(),
            s.unit(),
            s.gentle(),
            s.ecn(),
            s.byte_mode(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// A RED queue's state with its profile and a seeded random source
/// (SplitMix64; the same seed gives the same decisions).
///
/// `on_arrival(now, queue_len, length, ecn_capable=False)` gives a `Decision`
/// (enqueue, mark, drop early, drop forced) for a packet arriving to a queue
/// of `queue_len` packets (bytes with a byte-counted profile); call
/// `on_queue_empty(now)` when the queue empties.
#[pyclass(module = "netcond", name = "Red")]
#[derive(Clone)]
pub struct RedPy {
    profile: RedProfilePy,
    state: Red,
    rng: SplitMix64,
}

#[pymethods]
impl RedPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<RedProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Red::new(&profile.prof, Instant::from_ticks(now));
        Ok(RedPy {
            profile,
            state,
            rng: SplitMix64::new(seed),
        })
    }
    #[getter]
    fn profile(&self) -> RedProfilePy {
        self.profile.clone()
    }
    /// The average queue size as a float (exact value: fixed point).
    #[getter]
    fn avg(&self) -> f64 {
        self.state.avg(&self.profile.prof).to_num::<f64>()
    }
    /// Packets since the last early drop or mark.
    #[getter]
    fn count(&self) -> u32 {
        self.state.count()
    }
    /// Per packet: ints give a `Decision`. Bulk: uint64 `now`, uint32
    /// `queue_len` and `length` arrays (and an optional bool `ecn_capable`
    /// array) give a uint8 array (0 enqueue, 1 mark, 2 drop early, 3 drop
    /// forced), as the calls one by one would with the same random source.
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
    /// The queue became empty at `now` (the next arrival decays the average).
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
        let (st, rng): (Red, SplitMix64) = shared::restore(state)?;
        self.state = st;
        self.rng = rng;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Red({}, avg={:?}, count={})",
            self.profile.__repr__(),
            self.avg(),
            self.state.count()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RedProfilePy>()?;
    m.add_class::<RedPy>()?;
    Ok(())
}

//! RED (Floyd and Jacobson 1993; RFC 2309), with gentle, byte mode and ECN.

use crate::args;
use crate::bulk::{self, EnumCache};
use netcond::base::{Instant, SplitMix64};
use netcond::red::{Decision, Ecn, Packet, QueueUnit, Red, RedConfig, RedProfile};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

static DECISIONS: EnumCache = EnumCache::new("Decision");

fn decision_index(d: Decision) -> usize {
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
    cfg: RedConfig,
    prof: RedProfile,
}

#[pymethods]
impl RedProfilePy {
    #[new]
    #[pyo3(signature = (min_th, max_th, max_p, w_q = 0.002, limit = None, unit = "packets", gentle = false, ecn = false, byte_mode = None))]
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
    fn unit(&self) -> &'static str {
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
    fn __repr__(&self) -> String {
        let b = |x: bool| if x { "True" } else { "False" };
        format!(
            "RedProfile(min_th={}, max_th={}, max_p={:?}, w_q={:?}, limit={}, unit='{}', gentle={}, ecn={}, byte_mode={})",
            self.min_th(),
            self.max_th(),
            self.max_p(),
            self.w_q(),
            self.limit(),
            self.unit(),
            b(self.gentle()),
            b(self.ecn()),
            self.byte_mode().map_or("None".to_string(), |m| m.to_string())
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
        let profile = match (profile, config) {
            (Some(_), Some(c)) if !c.is_empty() => {
                return Err(PyValueError::new_err(
                    "give either a profile or the configuration's keywords, not both",
                ))
            }
            (Some(p), _) => p,
            (None, c) => py
                .get_type::<RedProfilePy>()
                .call((), c)?
                .extract::<RedProfilePy>()?,
        };
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
        let ecn_of = |x: bool| if x { Ecn::Ect0 } else { Ecn::NotEct };
        if !bulk::is_array(now) {
            let pkt = Packet::new(
                length.extract()?,
                ecn_of(match ecn_capable {
                    Some(e) => e.is_truthy()?,
                    None => false,
                }),
            );
            let d = self.state.on_arrival(
                &self.profile.prof,
                Instant::from_ticks(now.extract()?),
                queue_len.extract()?,
                pkt,
                &mut self.rng,
            );
            return Ok(DECISIONS.get(py, decision_index(d))?.into_bound(py));
        }
        let t = bulk::array::<u64>(now, "now", "uint64")?;
        let t = bulk::cow(&t);
        let q = bulk::array::<u32>(queue_len, "queue_len", "uint32")?;
        let q = bulk::cow(&q);
        let l = bulk::array::<u32>(length, "length", "uint32")?;
        let l = bulk::cow(&l);
        let ecn: Option<Vec<u8>> = match ecn_capable {
            Some(x) => {
                let a = x
                    .call_method1("astype", ("uint8",))?
                    .extract::<numpy::PyReadonlyArray1<'_, u8>>()?;
                Some(bulk::cow(&a).into_owned())
            }
            None => None,
        };
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("queue_len", q.len()),
            ("length", l.len()),
            ("ecn_capable", ecn.as_ref().map_or(t.len(), Vec::len)),
        ])?;
        let prof = self.profile.prof;
        let mut st = self.state;
        let mut rng = self.rng;
        let out = py.allow_threads(|| {
            (0..n)
                .map(|i| {
                    let pkt = Packet::new(l[i], ecn_of(ecn.as_ref().is_some_and(|x| x[i] != 0)));
                    decision_index(st.on_arrival(
                        &prof,
                        Instant::from_ticks(t[i]),
                        q[i],
                        pkt,
                        &mut rng,
                    )) as u8
                })
                .collect::<Vec<u8>>()
        });
        self.state = st;
        self.rng = rng;
        Ok(PyArray1::from_vec(py, out).into_any())
    }
    /// The queue became empty at `now` (the next arrival decays the average).
    fn on_queue_empty(&mut self, now: u64) {
        self.state.on_queue_empty(Instant::from_ticks(now));
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let s = slf.borrow();
        let state = serde_json::to_vec(&(s.state, s.rng))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        (
            slf.get_type(),
            (s.profile.clone(),),
            PyBytes::new(py, &state),
        )
            .into_pyobject(py)
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (st, rng): (Red, SplitMix64) =
            serde_json::from_slice(state).map_err(|e| PyValueError::new_err(e.to_string()))?;
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

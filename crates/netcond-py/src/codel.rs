//! CoDel (RFC 8289; the exact law, or Linux's and ns-3's arithmetic).

use crate::args;
use crate::bulk::{self, EnumCache};
use crate::renamed;
use crate::shared::{self, py_bool};
use netcond::base::Instant;
use netcond::delay::{Codel, CodelConfig, CodelProfile, Head, Verdict};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

pub static AQM_VERDICTS: EnumCache = EnumCache::new("AqmVerdict");

pub fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::Deliver => 0,
        Verdict::Mark => 1,
        Verdict::Drop => 2,
    }
}

/// The validated constants of CoDel.
///
/// `CodelProfile(target="5ms", interval="100ms", mtu=None, ecn=False,
/// law="rfc8289", tick_hz=10**9)`: durations as int nanoseconds,
/// `datetime.timedelta` or tc strings; `law` is `"rfc8289"` (the exact
/// control law), `"linux"` (Linux's `codel_impl.h` arithmetic and state
/// machine) or `"ns3"` (the same arithmetic in ns-3's state machine); `mtu`
/// defaults to the law's (1500, Linux 1514).
#[pyclass(module = "netcond", name = "CodelProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct CodelProfilePy {
    cfg: CodelConfig,
    law: &'static str,
    prof: CodelProfile,
}

#[pymethods]
impl CodelProfilePy {
    #[new]
    #[pyo3(signature = (target = None, interval = None, mtu = None, ecn = false, law = "rfc8289", tick_hz = None))]
    fn py_new(
        target: Option<&Bound<'_, PyAny>>,
        interval: Option<&Bound<'_, PyAny>>,
        mtu: Option<&Bound<'_, PyAny>>,
        ecn: bool,
        law: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (mut cfg, law) = match law {
            "rfc8289" | "exact" => (CodelConfig::rfc8289(), "rfc8289"),
            "linux" => (CodelConfig::linux(), "linux"),
            "ns3" | "ns-3" => (CodelConfig::ns3(), "ns3"),
            l => {
                return Err(PyValueError::new_err(format!(
                    "law: expected 'rfc8289', 'linux' or 'ns3', got {l:?}"
                )))
            }
        };
        if let Some(t) = target {
            cfg = cfg.with_target(args::duration(t, "target")?);
        }
        if let Some(i) = interval {
            cfg = cfg.with_interval(args::duration(i, "interval")?);
        }
        if let Some(m) = mtu {
            cfg = cfg.with_mtu(args::size_u32(m, "mtu")?);
        }
        cfg = cfg.with_ecn(ecn);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = CodelProfile::new(&cfg).map_err(args::value_error)?;
        Ok(CodelProfilePy { cfg, law, prof })
    }
    /// TARGET in nanoseconds.
    #[getter]
    fn target(&self) -> u128 {
        self.cfg.target.as_nanos()
    }
    /// INTERVAL in nanoseconds.
    #[getter]
    fn interval(&self) -> u128 {
        self.cfg.interval.as_nanos()
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
    fn law(&self) -> &'static str {
        self.law
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "CodelProfile(target={}, interval={}, mtu={}, ecn={}, law='{}', tick_hz={})",
            self.target(),
            self.interval(),
            self.mtu(),
            py_bool(self.ecn()),
            self.law,
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.cfg.target.as_nanos() as u64,
            s.cfg.interval.as_nanos() as u64,
            s.mtu(),
            s.ecn(),
            s.law,
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// CoDel's state for one queue, with its profile.
///
/// The caller keeps the packets: at each dequeue it calls
/// `on_dequeue(now, enqueued, length, backlog, ecn_capable=False)` for the head
/// packet (its enqueue instant and length, and the bytes still queued after
/// it) and gets an `AqmVerdict` (deliver, mark, drop); after a drop it calls
/// again for the next head at the same instant, or `on_queue_empty(now)`.
#[pyclass(module = "netcond", name = "Codel")]
#[derive(Clone)]
pub struct CodelPy {
    profile: CodelProfilePy,
    state: Codel,
}

#[pymethods]
impl CodelPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<CodelProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Codel::new(&profile.prof, Instant::from_ticks(now));
        Ok(CodelPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> CodelProfilePy {
        self.profile.clone()
    }
    /// Drops (and marks) in the current dropping state.
    #[getter]
    fn count(&self) -> u32 {
        self.state.count()
    }
    #[getter]
    fn dropping(&self) -> bool {
        self.state.dropping()
    }
    /// The head packet's verdict. Per packet: ints give an `AqmVerdict`.
    /// Bulk: uint64 `now`, uint64 `enqueued`, uint32 `length`, uint64
    /// `backlog` arrays (and an optional bool/uint8 `ecn_capable` array) give a
    /// uint8 array (0 deliver, 1 mark, 2 drop), as the calls one by one would;
    /// the bulk form is for replaying a recorded queue's dequeues.
    #[pyo3(signature = (now, enqueued, length, backlog, ecn_capable = None))]
    fn on_dequeue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        enqueued: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        backlog: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            let head = Head::new(
                Instant::from_ticks(enqueued.extract()?),
                length.extract()?,
                bulk::flag(ecn_capable)?,
            );
            let v = self.state.on_dequeue(
                &self.profile.prof,
                Instant::from_ticks(now.extract()?),
                head,
                backlog.extract()?,
            );
            return Ok(AQM_VERDICTS.get(py, verdict_index(v))?.into_bound(py));
        }
        bulk::arrays!(t = now: u64, e = enqueued: u64, l = length: u32, b = backlog: u64);
        let ecn = bulk::flags(ecn_capable)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("enqueued", e.len()),
            ("length", l.len()),
            ("backlog", b.len()),
            ("ecn_capable", bulk::opt_len(&ecn, t.len())),
        ])?;
        let prof = self.profile.prof;
        Ok(bulk::map(py, &mut self.state, n, |st, i| {
            let head = Head::new(Instant::from_ticks(e[i]), l[i], bulk::flag_at(&ecn, i));
            verdict_index(st.on_dequeue(&prof, Instant::from_ticks(t[i]), head, b[i])) as u8
        }))
    }
    /// The queue is empty at `now`.
    fn on_queue_empty(&mut self, now: u64) {
        self.state
            .on_queue_empty(&self.profile.prof, Instant::from_ticks(now));
    }
    /// The old name of `on_queue_empty`: warns (`DeprecationWarning`), then
    /// does what `on_queue_empty` does.
    fn on_empty(&mut self, py: Python<'_>, now: u64) -> PyResult<()> {
        renamed::warn(py, "Codel.on_empty", "Codel.on_queue_empty")?;
        self.on_queue_empty(now);
        Ok(())
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
            "Codel({}, dropping={}, count={})",
            self.profile.__repr__(),
            py_bool(self.state.dropping()),
            self.state.count()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CodelProfilePy>()?;
    m.add_class::<CodelPy>()?;
    Ok(())
}

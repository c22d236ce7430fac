//! A token bucket filter with Linux tbf's semantics (ras-shaper's `Tbf`).

use crate::args;
use crate::bulk::{self, EnumCache};
use crate::length::LengthAdjustPy;
use crate::shared;
use netcond::base::Instant;
use netcond::ras::{Tbf, TbfConfig, TbfDeparture, TbfPeak, TbfProfile, TbfVerdict};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::VecDeque;

/// Departure times and verdicts of a shaped stream.
type Shaped<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u8>>);

static TBF_VERDICTS: EnumCache = EnumCache::new("TbfVerdict");

fn verdict_index(v: TbfVerdict) -> usize {
    match v {
        TbfVerdict::Accept => 0,
        TbfVerdict::DropOverLimit => 1,
        TbfVerdict::DropTooBig => 2,
    }
}

/// The validated constants of a token bucket filter.
///
/// `TbfProfile(rate, burst, limit=None, latency=None, peakrate=None,
/// mtu=None, tick_hz=10**9)` as tc-tbf(8): `rate` and `peakrate` in bit/s or
/// tc strings, `burst`, `limit` and `mtu` in bytes or tc strings, `latency`
/// as a duration (int ns, timedelta or `"50ms"`); exactly one of `limit` and
/// `latency`. `adjust=LengthAdjust(...)` charges each packet its adjusted
/// length (tc's `overhead`, `mpu`, `linklayer atm`).
#[pyclass(module = "netcond", name = "TbfProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct TbfProfilePy {
    cfg: TbfConfig,
    prof: TbfProfile,
}

#[pymethods]
impl TbfProfilePy {
    #[new]
    #[pyo3(signature = (rate, burst, limit = None, latency = None, peakrate = None, mtu = None, tick_hz = None, adjust = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        rate: &Bound<'_, PyAny>,
        burst: &Bound<'_, PyAny>,
        limit: Option<&Bound<'_, PyAny>>,
        latency: Option<&Bound<'_, PyAny>>,
        peakrate: Option<&Bound<'_, PyAny>>,
        mtu: Option<&Bound<'_, PyAny>>,
        tick_hz: Option<&Bound<'_, PyAny>>,
        adjust: Option<LengthAdjustPy>,
    ) -> PyResult<Self> {
        let bytes = netcond::trtcm::Mode::Bytes;
        let rate = args::rate(rate, "rate", bytes)?;
        let burst = args::size(burst, "burst")?;
        let mut cfg = TbfConfig::with_limit(rate, burst, 0);
        cfg.limit = match limit {
            Some(l) => Some(args::size(l, "limit")?),
            None => None,
        };
        cfg.latency = match latency {
            Some(l) => Some(args::duration(l, "latency")?),
            None => None,
        };
        cfg.peak = match (peakrate, mtu) {
            (Some(r), m) => Some(TbfPeak {
                rate: args::rate(r, "peakrate", bytes)?,
                mtu: match m {
                    Some(m) => args::size(m, "mtu")?,
                    None => 0,
                },
            }),
            (None, Some(_)) => {
                return Err(PyValueError::new_err("mtu: only with peakrate (tc-tbf(8))"))
            }
            (None, None) => None,
        };
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        if let Some(a) = adjust {
            cfg = cfg.with_adjust(a.adj);
        }
        let prof = TbfProfile::new(&cfg).map_err(args::value_error)?;
        Ok(TbfProfilePy { cfg, prof })
    }
    #[getter]
    fn rate(&self) -> u64 {
        self.cfg.rate.bits_per_sec()
    }
    #[getter]
    fn burst(&self) -> u64 {
        self.cfg.burst
    }
    /// The byte limit in force (from `limit`, or computed from `latency`).
    #[getter]
    fn limit(&self) -> u64 {
        self.prof.limit()
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    /// The length adjustment, or None.
    #[getter]
    fn adjust(&self) -> Option<LengthAdjustPy> {
        (!self.cfg.adjust.is_none()).then_some(LengthAdjustPy {
            adj: self.cfg.adjust,
        })
    }
    fn __repr__(&self) -> String {
        let mut s = format!("TbfProfile(rate={}, burst={}", self.rate(), self.burst());
        if let Some(l) = self.cfg.limit {
            s += &format!(", limit={l}");
        }
        if let Some(l) = self.cfg.latency {
            s += &format!(", latency={}", l.as_nanos());
        }
        if let Some(p) = self.cfg.peak {
            s += &format!(", peakrate={}, mtu={}", p.rate.bits_per_sec(), p.mtu);
        }
        if let Some(a) = self.adjust() {
            s += &format!(", adjust={}", a.__repr__());
        }
        s + &format!(", tick_hz={})", self.tick_hz())
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let c = &s.cfg;
        let a = (
            s.rate(),
            s.burst(),
            c.limit,
            c.latency.map(|l| l.as_nanos() as u64),
            c.peak.map(|p| p.rate.bits_per_sec()),
            c.peak.map(|p| p.mtu),
            s.tick_hz(),
            s.adjust(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// A token bucket filter's state; the caller keeps the packets.
///
/// Per packet: `enqueue(now, length)` gives a `TbfVerdict`;
/// `dequeue(now, head_len)` is True when the head left (tokens taken),
/// False when it must wait; `next_departure(now, head_len)` is the instant it
/// may leave (None: never). Bulk: `shape(now, length)` runs a FIFO behind
/// the filter for a whole arrival stream (non-decreasing uint64 times, uint32
/// lengths, an infinitely fast link behind it) and gives the departure times
/// (uint64; 2**64 - 1 for a dropped packet) and the verdicts (uint8).
#[pyclass(module = "netcond", name = "Tbf")]
#[derive(Clone)]
pub struct TbfPy {
    profile: TbfProfilePy,
    state: Tbf,
}

#[pymethods]
impl TbfPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<TbfProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Tbf::new(&profile.prof, Instant::from_ticks(now));
        Ok(TbfPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> TbfProfilePy {
        self.profile.clone()
    }
    /// Bytes queued (accepted and not yet dequeued).
    #[getter]
    fn backlog(&self) -> u64 {
        self.state.backlog()
    }
    fn enqueue(&mut self, py: Python<'_>, now: u64, length: u32) -> PyResult<Py<PyAny>> {
        let v = self
            .state
            .enqueue(&self.profile.prof, Instant::from_ticks(now), length);
        TBF_VERDICTS.get(py, verdict_index(v))
    }
    fn next_departure(&self, now: u64, head_len: u32) -> Option<u64> {
        self.state
            .next_departure(&self.profile.prof, Instant::from_ticks(now), head_len)
            .map(Instant::ticks)
    }
    fn dequeue(&mut self, now: u64, head_len: u32) -> bool {
        matches!(
            self.state
                .dequeue(&self.profile.prof, Instant::from_ticks(now), head_len),
            TbfDeparture::Now
        )
    }
    /// Shapes a whole arrival stream (see the class docs): returns
    /// `(departures, verdicts)`.
    fn shape<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
    ) -> PyResult<Shaped<'py>> {
        bulk::arrays!(t = now: u64, l = length: u32);
        let n = bulk::same_len(&[("now", t.len()), ("length", l.len())])?;
        if let Some(i) = (1..n).find(|&i| t[i] < t[i - 1]) {
            return Err(PyValueError::new_err(format!(
                "now must be non-decreasing: now[{i}] < now[{}]",
                i - 1
            )));
        }
        if self.state.backlog() != 0 {
            return Err(PyValueError::new_err(
                "shape() needs an empty queue: this filter holds packets enqueued one by one",
            ));
        }
        let prof = self.profile.prof;
        let mut st = self.state;
        let (dep, ver) = py.allow_threads(|| {
            let mut dep = vec![u64::MAX; n];
            let mut ver = vec![0u8; n];
            let mut q: VecDeque<usize> = VecDeque::new();
            let mut cur = t.first().copied().unwrap_or(0);
            let drain = |st: &mut Tbf,
                         q: &mut VecDeque<usize>,
                         cur: &mut u64,
                         dep: &mut [u64],
                         until: Option<u64>| {
                while let Some(&j) = q.front() {
                    let Some(d) = st.next_departure(&prof, Instant::from_ticks(*cur), l[j]) else {
                        break;
                    };
                    let d = d.ticks();
                    if until.is_some_and(|u| d > u) {
                        break;
                    }
                    *cur = d;
                    if !matches!(
                        st.dequeue(&prof, Instant::from_ticks(d), l[j]),
                        TbfDeparture::Now
                    ) {
                        break;
                    }
                    dep[j] = d;
                    q.pop_front();
                }
            };
            for i in 0..n {
                drain(&mut st, &mut q, &mut cur, &mut dep, Some(t[i]));
                cur = cur.max(t[i]);
                let v = st.enqueue(&prof, Instant::from_ticks(t[i]), l[i]);
                ver[i] = verdict_index(v) as u8;
                if v == TbfVerdict::Accept {
                    q.push_back(i);
                }
            }
            drain(&mut st, &mut q, &mut cur, &mut dep, None);
            (dep, ver)
        });
        self.state = st;
        Ok((PyArray1::from_vec(py, dep), PyArray1::from_vec(py, ver)))
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
        self.state = shared::restore::<Tbf>(state)?;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Tbf({}, backlog={})",
            self.profile.__repr__(),
            self.state.backlog()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TbfProfilePy>()?;
    m.add_class::<TbfPy>()?;
    Ok(())
}

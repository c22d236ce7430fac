//! RFC 2963's rate adaptive shapers (srRAS, trRAS) and their EAR estimator.

use crate::args;
use crate::bulk;
use crate::shared::{self, py_opt};
use core::time::Duration;
use netcond::base::Instant;
use netcond::ras::{
    Ear, RasCore, RasProfile, SrRasConfig, SrRasProfile, SrThresholds, TrRasConfig, TrRasProfile,
    TrThresholds,
};
use netcond::trtcm::Mode;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::VecDeque;

/// The validated constants of an srRAS or, with `pir`, a trRAS.
///
/// `RasProfile(cir, line_rate, buffer, pir=None, mir=None, cir_th=None,
/// pir_th=None, mir_th=None, max_packet=1500, k="100ms", tick_hz=10**9)`:
/// rates in bit/s or tc strings, sizes in bytes or tc strings. MIR defaults to
/// the line rate; the thresholds, given all or none (`pir_th` only with
/// `pir`), default to a quarter, a half (trRAS) and three quarters of the
/// buffer; K is the EAR's averaging constant.
#[pyclass(module = "netcond", name = "RasProfile", frozen)]
#[derive(Clone)]
pub struct RasProfilePy {
    cir: u64,
    pir: Option<u64>,
    mir: u64,
    line_rate: u64,
    max_packet: u32,
    k: Duration,
    prof: RasProfile,
}

impl PartialEq for RasProfilePy {
    /// Equal when the validated constants are: a default and the value it
    /// stands for are the same profile.
    fn eq(&self, other: &Self) -> bool {
        self.prof == other.prof && self.pir.is_some() == other.pir.is_some()
    }
}

#[pymethods]
impl RasProfilePy {
    #[new]
    #[pyo3(signature = (cir, line_rate, buffer, pir = None, mir = None, cir_th = None, pir_th = None, mir_th = None, max_packet = None, k = None, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        cir: &Bound<'_, PyAny>,
        line_rate: &Bound<'_, PyAny>,
        buffer: &Bound<'_, PyAny>,
        pir: Option<&Bound<'_, PyAny>>,
        mir: Option<&Bound<'_, PyAny>>,
        cir_th: Option<&Bound<'_, PyAny>>,
        pir_th: Option<&Bound<'_, PyAny>>,
        mir_th: Option<&Bound<'_, PyAny>>,
        max_packet: Option<&Bound<'_, PyAny>>,
        k: Option<&Bound<'_, PyAny>>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let cir = args::rate(cir, "cir", Mode::Bytes)?;
        let line = args::rate(line_rate, "line_rate", Mode::Bytes)?;
        let buffer = args::size(buffer, "buffer")?;
        let mir = mir.map(|m| args::rate(m, "mir", Mode::Bytes)).transpose()?;
        let size = |x: Option<&Bound<'_, PyAny>>, what| x.map(|v| args::size(v, what)).transpose();
        let (cth, pth, mth) = (
            size(cir_th, "cir_th")?,
            size(pir_th, "pir_th")?,
            size(mir_th, "mir_th")?,
        );
        let max_packet = max_packet
            .map(|m| args::size_u32(m, "max_packet"))
            .transpose()?
            .unwrap_or(1500);
        let k = k
            .map(|k| args::duration(k, "k"))
            .transpose()?
            .unwrap_or(Duration::from_millis(100));
        let tick = tick_hz.map(args::tick).transpose()?;
        let all_or_none = || {
            PyValueError::new_err(
                "the thresholds are given all (cir_th, mir_th, and pir_th with pir) or none",
            )
        };
        let (prof, pir): (RasProfile, _) = match pir {
            None => {
                if pth.is_some() {
                    return Err(PyValueError::new_err(
                        "pir_th: an srRAS (no pir) has no PIR threshold",
                    ));
                }
                let mut c = SrRasConfig::new(cir, line, buffer)
                    .with_max_packet_bytes(max_packet)
                    .with_k(k);
                c = match (cth, mth) {
                    (Some(a), Some(b)) => c.with_thresholds(SrThresholds::new(a, b)),
                    (None, None) => c,
                    _ => return Err(all_or_none()),
                };
                if let Some(m) = mir {
                    c = c.with_mir(m);
                }
                if let Some(t) = tick {
                    c = c.with_tick(t);
                }
                (
                    SrRasProfile::new(&c).map_err(args::value_error)?.into(),
                    None,
                )
            }
            Some(p) => {
                let pir = args::rate(p, "pir", Mode::Bytes)?;
                let mut c = TrRasConfig::new(cir, pir, line, buffer)
                    .with_max_packet_bytes(max_packet)
                    .with_k(k);
                c = match (cth, pth, mth) {
                    (Some(a), Some(b), Some(m)) => c.with_thresholds(TrThresholds::new(a, b, m)),
                    (None, None, None) => c,
                    _ => return Err(all_or_none()),
                };
                if let Some(m) = mir {
                    c = c.with_mir(m);
                }
                if let Some(t) = tick {
                    c = c.with_tick(t);
                }
                let prof = TrRasProfile::new(&c).map_err(args::value_error)?.into();
                (prof, Some(pir.bits_per_sec()))
            }
        };
        Ok(RasProfilePy {
            cir: cir.bits_per_sec(),
            pir,
            mir: mir.unwrap_or(line).bits_per_sec(),
            line_rate: line.bits_per_sec(),
            max_packet,
            k,
            prof,
        })
    }
    /// `"sr"` or `"tr"`.
    #[getter]
    fn kind(&self) -> &'static str {
        if self.pir.is_some() {
            "tr"
        } else {
            "sr"
        }
    }
    #[getter]
    fn cir(&self) -> u64 {
        self.cir
    }
    #[getter]
    fn pir(&self) -> Option<u64> {
        self.pir
    }
    #[getter]
    fn mir(&self) -> u64 {
        self.mir
    }
    #[getter]
    fn line_rate(&self) -> u64 {
        self.line_rate
    }
    #[getter]
    fn buffer(&self) -> u64 {
        self.prof.buffer_bytes()
    }
    /// (CIR_th, PIR_th, MIR_th) in bytes (srRAS: PIR_th = CIR_th).
    #[getter]
    fn thresholds(&self) -> (u64, u64, u64) {
        self.prof.thresholds()
    }
    #[getter]
    fn max_packet(&self) -> u32 {
        self.max_packet
    }
    /// K in nanoseconds.
    #[getter]
    fn k(&self) -> u64 {
        self.k.as_nanos() as u64
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.prof.tick_hz()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.extract::<RasProfilePy>().is_ok_and(|o| *self == o)
    }
    pub(crate) fn __repr__(&self) -> String {
        let (c, p, m) = self.thresholds();
        format!(
            "RasProfile(cir={}, line_rate={}, buffer={}, pir={}, mir={}, cir_th={c}, pir_th={}, mir_th={m}, max_packet={}, k={}, tick_hz={})",
            self.cir,
            self.line_rate,
            self.buffer(),
            py_opt(self.pir),
            self.mir,
            py_opt(self.pir.map(|_| p)),
            self.max_packet,
            self.k(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let (c, p, m) = s.thresholds();
        let a = (
            s.cir,
            s.line_rate,
            s.buffer(),
            s.pir,
            s.mir,
            c,
            s.pir.map(|_| p),
            m,
            s.max_packet,
            s.k(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

impl RasProfilePy {
    /// The validated constants.
    pub(crate) fn prof(&self) -> RasProfile {
        self.prof
    }
}

/// An srRAS or trRAS with its FIFO (each packet's length and arrival kept
/// here).
///
/// `enqueue(now, length)` -> accepted (False: the buffer is full, tail drop);
/// `next_release` the instant the head may leave (None when empty);
/// `dequeue(now)` -> `(length, arrival)` of the head if it is due, else None.
/// `shape(now, length)` runs a whole non-decreasing arrival stream through an
/// empty shaper (each head released at its release instant, before an
/// arrival at the same instant) and gives `(departures, accepted)`: uint64
/// departure instants (2**64 - 1 for a dropped packet) and a bool array.
#[pyclass(module = "netcond", name = "Ras")]
#[derive(Clone)]
pub struct RasPy {
    profile: RasProfilePy,
    core: RasCore,
    fifo: VecDeque<(u32, u64)>,
}

impl RasPy {
    fn release(&mut self, now: u64) -> Option<(u32, u64)> {
        let &(len, _) = self.fifo.front()?;
        let behind = self.fifo.get(1).map_or(0, |x| x.1);
        let p = &self.profile.prof;
        if !self.core.dequeue(
            p,
            Instant::from_ticks(now),
            len,
            Instant::from_ticks(behind),
        ) {
            return None;
        }
        self.fifo.pop_front()
    }
}

type Shaped<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<bool>>);

/// A shaper whose packets leave in arrival order, as the bulk `shape` of
/// [`RasPy`], the green RAS and the metered RAS drive it.
pub(crate) trait InOrderShaper: Send {
    /// The head packet's release instant, if a packet is queued.
    fn head_release(&self) -> Option<u64>;
    /// Releases the head at `now`: its color index (0 for a shaper that does
    /// not color), or None if it does not leave.
    fn release_head(&mut self, now: u64) -> Option<u8>;
    /// A packet of `length` bytes arrives at `now`: true when it is queued.
    fn arrive(&mut self, now: u64, length: u32) -> bool;
    /// Packets queued.
    fn queued(&self) -> usize;
}

/// Shapes a whole arrival stream (`now` non-decreasing) through an empty
/// shaper, with the GIL released: each packet's departure instant
/// (`u64::MAX` when refused), whether it was queued, and its color index
/// (`u8::MAX` when refused). Every queued packet leaves at its release
/// instant; arrivals and departures at the same instant take departures
/// first, as the per-packet calls in instant order do.
pub(crate) fn shape_stream<S: InOrderShaper>(
    s: &mut S,
    py: Python<'_>,
    t: &[u64],
    l: &[u32],
) -> PyResult<(Vec<u64>, Vec<bool>, Vec<u8>)> {
    let n = bulk::same_len(&[("now", t.len()), ("length", l.len())])?;
    if let Some(i) = (1..n).find(|&i| t[i] < t[i - 1]) {
        return Err(PyValueError::new_err(format!(
            "now must be non-decreasing: now[{i}] < now[{}]",
            i - 1
        )));
    }
    if s.queued() != 0 {
        return Err(PyValueError::new_err(
            "shape() needs an empty shaper: this one holds packets enqueued one by one",
        ));
    }
    Ok(py.allow_threads(|| {
        let mut dep = vec![u64::MAX; n];
        let mut ok = vec![false; n];
        let mut col = vec![u8::MAX; n];
        // The stream's indices of the queued packets, in order.
        let mut idx: VecDeque<usize> = VecDeque::new();
        let mut drain = |s: &mut S, idx: &mut VecDeque<usize>, until: u64| {
            while let Some(r) = s.head_release() {
                if r > until {
                    break;
                }
                let Some(c) = s.release_head(r) else {
                    break;
                };
                if let Some(j) = idx.pop_front() {
                    dep[j] = r;
                    col[j] = c;
                }
            }
        };
        for i in 0..n {
            drain(s, &mut idx, t[i]);
            if s.arrive(t[i], l[i]) {
                ok[i] = true;
                idx.push_back(i);
            }
        }
        drain(s, &mut idx, u64::MAX);
        (dep, ok, col)
    }))
}

impl InOrderShaper for RasPy {
    fn head_release(&self) -> Option<u64> {
        self.core.next_release().map(Instant::ticks)
    }
    fn release_head(&mut self, now: u64) -> Option<u8> {
        self.release(now).map(|_| 0)
    }
    fn arrive(&mut self, now: u64, length: u32) -> bool {
        self.enqueue(now, length)
    }
    fn queued(&self) -> usize {
        self.fifo.len()
    }
}

#[pymethods]
impl RasPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<RasProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let core = RasCore::new(&profile.prof, Instant::from_ticks(now), usize::MAX);
        Ok(RasPy {
            profile,
            core,
            fifo: VecDeque::new(),
        })
    }
    #[getter]
    fn profile(&self) -> RasProfilePy {
        self.profile.clone()
    }
    /// Packets queued.
    #[getter]
    fn packets(&self) -> usize {
        self.core.len()
    }
    /// Bytes queued.
    #[getter]
    fn bytes(&self) -> u64 {
        self.core.bytes()
    }
    /// The shaping rate now, max(EAR, F(occupancy)) capped at MIR, in bit/s.
    #[getter]
    fn shaping_rate(&self) -> u64 {
        let p = &self.profile.prof;
        p.units_to_bits_per_sec(self.core.shaping_rate(p))
    }
    /// The estimated average rate of the arrivals, in bit/s.
    #[getter]
    fn ear(&self) -> u64 {
        let p = &self.profile.prof;
        p.units_to_bits_per_sec(p.ear_rate(self.core.ear()))
    }
    #[getter]
    fn next_release(&self) -> Option<u64> {
        self.core.next_release().map(Instant::ticks)
    }
    /// A packet of `length` bytes arrives at `now`: True when it is queued.
    fn enqueue(&mut self, now: u64, length: u32) -> bool {
        let ok = self
            .core
            .enqueue(&self.profile.prof, Instant::from_ticks(now), length);
        if ok {
            self.fifo.push_back((length, now));
        }
        ok
    }
    /// The head packet's `(length, arrival)` if its release instant is not
    /// after `now` (it leaves), else None.
    fn dequeue(&mut self, now: u64) -> Option<(u32, u64)> {
        self.release(now)
    }
    /// Shapes a whole arrival stream (see the class docs).
    fn shape<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
    ) -> PyResult<Shaped<'py>> {
        bulk::arrays!(t = now: u64, l = length: u32);
        let (dep, ok, _) = shape_stream(self, py, &t, &l)?;
        Ok((PyArray1::from_vec(py, dep), PyArray1::from_vec(py, ok)))
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &(&s.core, &s.fifo))
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (core, fifo): (RasCore, VecDeque<(u32, u64)>) = shared::restore(state)?;
        if core.len() != fifo.len() {
            return Err(PyValueError::new_err(
                "a Ras's pickle holds a shaper and a queue of different lengths",
            ));
        }
        self.core = core;
        self.fifo = fifo;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Ras({}, packets={}, bytes={}, ear={})",
            self.profile.__repr__(),
            self.packets(),
            self.bytes(),
            self.ear()
        )
    }
}

/// RFC 2963 section 2.3's estimated average rate of a packet stream, as a
/// RAS of `profile` keeps it (K and the clock are the profile's).
///
/// `update(now, length)` counts an arrival and gives the estimate after it in
/// bit/s; bulk: uint64 `now` and uint32 `length` arrays give a uint64 array
/// of estimates, with the GIL released.
#[pyclass(module = "netcond", name = "Ear")]
#[derive(Clone)]
pub struct EarPy {
    profile: RasProfilePy,
    ear: Ear,
}

#[pymethods]
impl EarPy {
    #[new]
    #[pyo3(signature = (profile, *, now = 0))]
    fn py_new(profile: RasProfilePy, now: u64) -> Self {
        let ear = Ear::new(profile.prof.ear(), Instant::from_ticks(now));
        EarPy { profile, ear }
    }
    #[getter]
    fn profile(&self) -> RasProfilePy {
        self.profile.clone()
    }
    /// The estimate in bit/s (rounded down).
    #[getter]
    fn rate(&self) -> u64 {
        let p = &self.profile.prof;
        p.units_to_bits_per_sec(p.ear_rate(&self.ear))
    }
    /// The estimate as kept, in units of 2**-(S + 16) bytes per tick.
    #[getter]
    fn raw(&self) -> u64 {
        self.ear.raw()
    }
    /// The last arrival counted, in ticks.
    #[getter]
    fn last_arrival(&self) -> u64 {
        self.ear.last_arrival().ticks()
    }
    fn update<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = self.profile.prof;
        let step = move |e: &mut Ear, t: u64, l: u32| {
            e.update(p.ear(), Instant::from_ticks(t), l);
            p.units_to_bits_per_sec(p.ear_rate(e))
        };
        if !bulk::is_array(now) {
            let r = step(&mut self.ear, now.extract()?, length.extract()?);
            return Ok(r.into_pyobject(py)?.into_any());
        }
        bulk::arrays!(t = now: u64, l = length: u32);
        let n = bulk::same_len(&[("now", t.len()), ("length", l.len())])?;
        Ok(bulk::map(py, &mut self.ear, n, |e, i| step(e, t[i], l[i])))
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &s.ear)
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        self.ear = shared::restore::<Ear>(state)?;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Ear({}, rate={}, last_arrival={})",
            self.profile.__repr__(),
            self.rate(),
            self.last_arrival()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RasProfilePy>()?;
    m.add_class::<RasPy>()?;
    m.add_class::<EarPy>()?;
    Ok(())
}

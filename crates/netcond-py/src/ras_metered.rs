//! RFC 2963's plain rate adaptive shaper (srRAS, trRAS) followed by its
//! downstream meter: the shaper does not read the meter, and each released
//! packet is colored by it (color-blind), as ras-shaper's `MeteredRasShaper`.

use crate::bulk;
use crate::bulk::COLORS;
use crate::markers::{SrTcmProfilePy, TrTcmProfilePy};
use crate::ras::RasProfilePy;
use crate::shared;
use netcond::base::Instant;
use netcond::ras::{GreenMeter, Ras};
use netcond::trtcm::{SrTcm, TrTcm};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Packets a metered shaper's FIFO holds at most (besides its buffer size).
pub const CAPACITY: usize = 4096;

#[derive(Clone)]
enum Meter {
    Sr(SrTcmProfilePy, SrTcm),
    Tr(TrTcmProfilePy, TrTcm),
}

/// A plain RAS (srRAS or trRAS, as its `RasProfile`) followed by a meter, an
/// `SrTcm` or `TrTcm` given by its profile, which colors each released packet
/// (color-blind). The shaper does not read the meter: its releases are those
/// of a `Ras` of the same profile.
///
/// `MeteredRas(profile, meter, now=0)`; `enqueue(now, length)` -> accepted
/// (False: the buffer, or 4096 packets, is full); `next_release`;
/// `dequeue(now)` -> `(length, Color)` if the head is due, else None.
/// `shape(now, length)` runs a whole non-decreasing arrival stream through an
/// empty shaper (each head released at its release instant, before an
/// arrival at the same instant), with the GIL released, and gives
/// `(departures, accepted, colors)`: uint64 departures (2**64 - 1 where
/// dropped), bool, and uint8 colors (255 where dropped).
///
/// >>> import netcond
/// >>> p = netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64000)
/// >>> m = netcond.SrTcmProfile(cir="1mbit", cbs=3000, ebs=3000)
/// >>> s = netcond.MeteredRas(p, m)
/// >>> s.enqueue(0, 1500), s.enqueue(0, 1500)
/// (True, True)
/// >>> s.dequeue(0)
/// (1500, <Color.GREEN: 0>)
/// >>> s.dequeue(s.next_release)
/// (1500, <Color.GREEN: 0>)
#[pyclass(module = "netcond", name = "MeteredRas")]
#[derive(Clone)]
pub struct MeteredRasPy {
    profile: RasProfilePy,
    meter: Meter,
    state: Box<Ras<u32, CAPACITY>>,
}

type Shaped<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<u8>>,
);

impl MeteredRasPy {
    fn enqueue_one(&mut self, now: u64, length: u32) -> bool {
        let p = self.profile.prof();
        self.state
            .enqueue(&p, Instant::from_ticks(now), length)
            .is_ok()
    }

    /// `MeteredRasShaper`'s dequeue: the shaper releases, the meter colors.
    fn dequeue_one(&mut self, now: u64) -> Option<(u32, u8)> {
        let p = self.profile.prof();
        let t = Instant::from_ticks(now);
        let len = self.state.dequeue(&p, t)?;
        let c = match &mut self.meter {
            Meter::Sr(m, st) => st.color(&m.prof, t, len),
            Meter::Tr(m, st) => st.color(&m.prof, t, len),
        };
        Some((len, c.index() as u8))
    }
}

impl crate::ras::InOrderShaper for MeteredRasPy {
    fn head_release(&self) -> Option<u64> {
        self.state.next_release().map(Instant::ticks)
    }
    fn release_head(&mut self, now: u64) -> Option<u8> {
        self.dequeue_one(now).map(|(_, c)| c)
    }
    fn arrive(&mut self, now: u64, length: u32) -> bool {
        self.enqueue_one(now, length)
    }
    fn queued(&self) -> usize {
        self.packets()
    }
}

#[pymethods]
impl MeteredRasPy {
    #[new]
    #[pyo3(signature = (profile, meter, *, now = 0))]
    fn py_new(profile: RasProfilePy, meter: &Bound<'_, PyAny>, now: u64) -> PyResult<Self> {
        let t = Instant::from_ticks(now);
        let meter = if let Ok(m) = meter.extract::<SrTcmProfilePy>() {
            let st = SrTcm::new(&m.prof, t);
            Meter::Sr(m, st)
        } else if let Ok(m) = meter.extract::<TrTcmProfilePy>() {
            let st = TrTcm::new(&m.prof, t);
            Meter::Tr(m, st)
        } else {
            return Err(PyTypeError::new_err(
                "meter: expected an SrTcmProfile or a TrTcmProfile",
            ));
        };
        let hz = match &meter {
            Meter::Sr(m, _) => m.cfg.tick.hz(),
            Meter::Tr(m, _) => m.cfg.tick.hz(),
        };
        if hz != profile.prof().tick_hz() {
            return Err(PyValueError::new_err(format!(
                "the shaper and its meter must count ticks of the same clock: tick_hz {} and {hz}",
                profile.prof().tick_hz()
            )));
        }
        let state = Box::new(Ras::new(&profile.prof(), t));
        Ok(MeteredRasPy {
            profile,
            meter,
            state,
        })
    }
    #[getter]
    fn profile(&self) -> RasProfilePy {
        self.profile.clone()
    }
    /// The meter's profile.
    #[getter]
    fn meter(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(match &self.meter {
            Meter::Sr(m, _) => m.clone().into_pyobject(py)?.into_any().unbind(),
            Meter::Tr(m, _) => m.clone().into_pyobject(py)?.into_any().unbind(),
        })
    }
    /// Packets queued.
    #[getter]
    fn packets(&self) -> usize {
        self.state.len()
    }
    #[getter]
    fn next_release(&self) -> Option<u64> {
        self.state.next_release().map(Instant::ticks)
    }
    /// A packet of `length` bytes arrives at `now`: True when it is queued.
    fn enqueue(&mut self, now: u64, length: u32) -> bool {
        self.enqueue_one(now, length)
    }
    /// The head packet's `(length, Color)` if its release instant is not
    /// after `now` (it leaves, colored by the meter), else None.
    fn dequeue<'py>(&mut self, py: Python<'py>, now: u64) -> PyResult<Option<(u32, PyObject)>> {
        match self.dequeue_one(now) {
            None => Ok(None),
            Some((l, c)) => Ok(Some((l, COLORS.get(py, usize::from(c))?))),
        }
    }
    /// Shapes a whole arrival stream (see the class docs).
    fn shape<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
    ) -> PyResult<Shaped<'py>> {
        bulk::arrays!(t = now: u64, l = length: u32);
        let (dep, ok, col) = crate::ras::shape_stream(self, py, &t, &l)?;
        Ok((
            PyArray1::from_vec(py, dep),
            PyArray1::from_vec(py, ok),
            PyArray1::from_vec(py, col),
        ))
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
        let (meter, counts) = match &s.meter {
            Meter::Sr(m, st) => (
                m.clone().into_pyobject(py)?.into_any(),
                (st.tc(), st.te(), st.last().ticks()),
            ),
            Meter::Tr(m, st) => (
                m.clone().into_pyobject(py)?.into_any(),
                (st.tc(), st.tp(), st.last().ticks()),
            ),
        };
        shared::reduce_args(slf, (s.profile.clone(), meter), &(counts, &*s.state))
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        type Saved = ((u64, u64, u64), Ras<u32, CAPACITY>);
        let ((c1, c2, last), r): Saved = shared::restore(state)?;
        let last = Instant::from_ticks(last);
        match &mut self.meter {
            Meter::Sr(m, st) => *st = SrTcm::from_parts(&m.prof, c1, c2, last),
            Meter::Tr(m, st) => *st = TrTcm::from_parts(&m.prof, c1, c2, last),
        }
        *self.state = r;
        Ok(())
    }
    fn __repr__(&self) -> String {
        let m = match &self.meter {
            Meter::Sr(m, _) => m.__repr__(),
            Meter::Tr(m, _) => m.__repr__(),
        };
        format!(
            "MeteredRas({}, {m}, packets={})",
            self.profile.__repr__(),
            self.packets()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MeteredRasPy>()
}

//! RFC 2963 section 3's green rate adaptive shapers (G-srRAS, G-trRAS): a
//! RAS that reads its downstream srTCM or trTCM and releases the head packet
//! as soon as the meter would color it green (never above MIR).

use crate::bulk;
use crate::bulk::COLORS;
use crate::markers::{SrTcmProfilePy, TrTcmProfilePy};
use crate::ras::RasProfilePy;
use crate::shared;
use netcond::base::Instant;
use netcond::ras::GreenRas;
use netcond::trtcm::{SrTcm, TrTcm};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Packets a green shaper's FIFO holds at most (besides its buffer size).
pub const CAPACITY: usize = 4096;

#[derive(Clone)]
pub(crate) enum Meter {
    Sr(SrTcmProfilePy, SrTcm),
    Tr(TrTcmProfilePy, TrTcm),
}

/// `$body` with `$mp` the meter's profile and `$st` its state, whichever
/// meter it is.
macro_rules! with_meter {
    ($m:expr, |$mp:ident, $st:ident| $body:expr) => {
        match $m {
            Meter::Sr(p, $st) => {
                let $mp = &p.prof;
                $body
            }
            Meter::Tr(p, $st) => {
                let $mp = &p.prof;
                $body
            }
        }
    };
}

/// What the bulk `shape` of a shaper with a meter gives: departures,
/// accepted, colors.
pub(crate) type Shaped<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<u8>>,
);

/// A shaper class with a downstream meter (the green RAS here, the metered
/// RAS in `ras_metered`): `$ty` named `$name` in Python, holding a
/// `$shaper<u32, CAPACITY>`, its queue length `$len` with `$s` the shaper.
/// The type's own `enqueue_one` and `dequeue_one` say how the shaper and the
/// meter work together; everything else of the class is this.
macro_rules! meter_shaper_class {
    ($(#[$doc:meta])* name = $name:literal, $ty:ident, $shaper:ident, |$s:ident| $len:expr) => {
        $(#[$doc])*
        #[pyclass(module = "netcond", name = $name)]
        #[derive(Clone)]
        pub struct $ty {
            profile: RasProfilePy,
            meter: $crate::ras_green::Meter,
            state: Box<$shaper<u32, CAPACITY>>,
        }

        impl $crate::ras::InOrderShaper for $ty {
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
        impl $ty {
            #[new]
            #[pyo3(signature = (profile, meter, *, now = 0))]
            fn py_new(profile: RasProfilePy, meter: &Bound<'_, PyAny>, now: u64) -> PyResult<Self> {
                let t = Instant::from_ticks(now);
                let meter = if let Ok(m) = meter.extract::<SrTcmProfilePy>() {
                    let st = SrTcm::new(&m.prof, t);
                    $crate::ras_green::Meter::Sr(m, st)
                } else if let Ok(m) = meter.extract::<TrTcmProfilePy>() {
                    let st = TrTcm::new(&m.prof, t);
                    $crate::ras_green::Meter::Tr(m, st)
                } else {
                    return Err(PyTypeError::new_err(
                        "meter: expected an SrTcmProfile or a TrTcmProfile",
                    ));
                };
                let hz = match &meter {
                    $crate::ras_green::Meter::Sr(m, _) => m.cfg.tick.hz(),
                    $crate::ras_green::Meter::Tr(m, _) => m.cfg.tick.hz(),
                };
                if hz != profile.prof().tick_hz() {
                    return Err(PyValueError::new_err(format!(
                        "the shaper and its meter must count ticks of the same clock: tick_hz {} and {hz}",
                        profile.prof().tick_hz()
                    )));
                }
                let state = Box::new($shaper::new(&profile.prof(), t));
                Ok($ty {
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
                    $crate::ras_green::Meter::Sr(m, _) => m.clone().into_pyobject(py)?.into_any().unbind(),
                    $crate::ras_green::Meter::Tr(m, _) => m.clone().into_pyobject(py)?.into_any().unbind(),
                })
            }
            /// Packets queued.
            #[getter]
            fn packets(&self) -> usize {
                let $s = &self.state;
                $len
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
                    $crate::ras_green::Meter::Sr(m, st) => (
                        m.clone().into_pyobject(py)?.into_any(),
                        (st.tc(), st.te(), st.last().ticks()),
                    ),
                    $crate::ras_green::Meter::Tr(m, st) => (
                        m.clone().into_pyobject(py)?.into_any(),
                        (st.tc(), st.tp(), st.last().ticks()),
                    ),
                };
                shared::reduce_args(slf, (s.profile.clone(), meter), &(counts, &*s.state))
            }
            fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
                type Saved = ((u64, u64, u64), $shaper<u32, CAPACITY>);
                let ((c1, c2, last), g): Saved = shared::restore(state)?;
                let last = Instant::from_ticks(last);
                match &mut self.meter {
                    $crate::ras_green::Meter::Sr(m, st) => *st = SrTcm::from_parts(&m.prof, c1, c2, last),
                    $crate::ras_green::Meter::Tr(m, st) => *st = TrTcm::from_parts(&m.prof, c1, c2, last),
                }
                *self.state = g;
                Ok(())
            }
            fn __repr__(&self) -> String {
                let m = match &self.meter {
                    $crate::ras_green::Meter::Sr(m, _) => m.__repr__(),
                    $crate::ras_green::Meter::Tr(m, _) => m.__repr__(),
                };
                format!(
                    "{}({}, {m}, packets={})",
                    $name,
                    self.profile.__repr__(),
                    self.packets()
                )
            }
        }
    };
}
pub(crate) use meter_shaper_class;

meter_shaper_class!(
/// A green RAS (G-srRAS or G-trRAS, as its `RasProfile`) in front of its
/// meter, an `SrTcm` or `TrTcm` given by its profile, which it colors each
/// released packet with (color-blind).
///
/// `GreenRas(profile, meter, now=0)`; `enqueue(now, length)` -> accepted
/// (False: the buffer, or 4096 packets, is full); `next_release`;
/// `dequeue(now)` -> `(length, Color)` if the head is due, else None.
/// `shape(now, length)` runs a whole non-decreasing arrival stream through an
/// empty shaper (each head released at its release instant, before an
/// arrival at the same instant) and gives `(departures, accepted, colors)`:
/// uint64 departures (2**64 - 1 where dropped), bool, and uint8 colors (255
/// where dropped).
    name = "GreenRas",
    GreenRasPy,
    GreenRas,
    |g| g.ras().len()
);

impl GreenRasPy {
    fn enqueue_one(&mut self, now: u64, length: u32) -> bool {
        let p = self.profile.prof();
        let g = &mut self.state;
        let t = Instant::from_ticks(now);
        with_meter!(&self.meter, |mp, st| g
            .enqueue(&p, mp, st, t, length)
            .is_ok())
    }

    fn dequeue_one(&mut self, now: u64) -> Option<(u32, u8)> {
        let p = self.profile.prof();
        let g = &mut self.state;
        let t = Instant::from_ticks(now);
        with_meter!(&mut self.meter, |mp, st| g
            .dequeue(&p, mp, st, t)
            .map(|(l, c)| (l, c.index() as u8)))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GreenRasPy>()
}

//! The floor of a per-packet call from Python: a class whose `color_blind`
//! takes and checks its arguments as the markers' does and returns a `Color`
//! the same way, but meters nothing. `examples/python/bench.py` times it
//! beside `TrTcm.color_blind`; the difference is what the meter itself costs.

use pyo3::prelude::*;

use crate::bulk::{self, COLORS};

/// A stand-in for a marker that does all of a per-packet call but the
/// metering (`netcond._netcond._CallProbe`, for benchmarks).
#[pyclass(name = "_CallProbe", module = "netcond._netcond")]
pub struct CallProbe {
    calls: u64,
}

#[pymethods]
impl CallProbe {
    #[new]
    fn new() -> CallProbe {
        CallProbe { calls: 0 }
    }

    /// Converts `now` and `length` as `TrTcm.color_blind` does (a NumPy array
    /// is refused here) and returns `Color.GREEN`.
    #[pyo3(signature = (now, length = None))]
    fn color_blind<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if bulk::is_array(now) {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "_CallProbe takes one packet at a time",
            ));
        }
        let t: u64 = now.extract()?;
        let l: u32 = match length {
            Some(l) => l.extract()?,
            None => 1,
        };
        self.calls = self.calls.wrapping_add(t ^ u64::from(l));
        Ok(COLORS.get(py, 0)?.into_bound(py))
    }

    /// The calls' arguments folded together (so the work is not optimized
    /// away).
    #[getter]
    fn folded(&self) -> u64 {
        self.calls
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CallProbe>()
}

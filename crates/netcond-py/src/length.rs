//! tc's packet length adjustment (`overhead`, `mpu`, `linklayer atm`): the
//! bytes a meter or shaper is to charge for a packet.

use crate::bulk;
use crate::shared::py_bool;
use netcond::base::LengthAdjust;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `LengthAdjust(overhead=0, mpu=0, atm=False)`: a packet of `length` bytes
/// is charged `max(length + overhead, mpu, 0)` bytes, then, with `atm`,
/// `ceil(that / 48) * 53` (ATM cells), in the order Linux applies tc's
/// `overhead`, `mpu` and `linklayer atm`; a result above 2**32 - 1 is
/// charged 2**32 - 1.
///
/// `apply(length)` takes an int or a uint32 array (then gives a uint32 array,
/// with the GIL released), to pass to any meter's or policer's call:
/// `m.color_blind(now, adj.apply(length))`.
#[pyclass(module = "netcond", name = "LengthAdjust", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct LengthAdjustPy {
    pub(crate) adj: LengthAdjust,
}

#[pymethods]
impl LengthAdjustPy {
    #[new]
    #[pyo3(signature = (overhead = 0, mpu = 0, atm = false))]
    fn py_new(overhead: i32, mpu: u32, atm: bool) -> Self {
        LengthAdjustPy {
            adj: LengthAdjust::NONE
                .with_overhead(overhead)
                .with_mpu(mpu)
                .with_atm(atm),
        }
    }
    #[getter]
    fn overhead(&self) -> i32 {
        self.adj.overhead
    }
    #[getter]
    fn mpu(&self) -> u32 {
        self.adj.mpu
    }
    #[getter]
    fn atm(&self) -> bool {
        self.adj.atm
    }
    /// The bytes charged for packets of `length` bytes: an int gives an int,
    /// a uint32 array a uint32 array.
    fn apply<'py>(
        &self,
        py: Python<'py>,
        length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(length) {
            let n = self.adj.apply(length.extract()?);
            return Ok(n.into_pyobject(py)?.into_any());
        }
        bulk::arrays!(l = length: u32);
        let mut adj = self.adj;
        Ok(bulk::map(py, &mut adj, l.len(), |a, i| a.apply(l[i])))
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "LengthAdjust(overhead={}, mpu={}, atm={})",
            self.adj.overhead,
            self.adj.mpu,
            py_bool(self.adj.atm)
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let a = slf.get().adj;
        (slf.get_type(), (a.overhead, a.mpu, a.atm)).into_pyobject(slf.py())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LengthAdjustPy>()
}

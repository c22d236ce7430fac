//! RFC 6660's encoding in the TOS / traffic-class byte: which DSCPs are
//! PCN-compatible, the PCN state their ECN field carries, and re-marking.

use super::{mark_arg, MARKS};
use crate::bulk;
use netcond::pcn::{PcnDscps, PcnMark};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The DSCPs a PCN domain treats as PCN-compatible (RFC 6660 section 3).
///
/// `PcnDscps(*dscps)`: e.g. `PcnDscps(46)`. `decode_tos(tos)` gives the
/// `PcnMark` a TOS byte carries, or None when its DSCP is not PCN-compatible
/// (its ECN field then has RFC 3168's meaning); `remark_tos(tos, indicated)`
/// gives the byte after a meter indicated `indicated` (the ECN field
/// re-marked only for a PCN-compatible DSCP, never less severe; the DSCP
/// unchanged). Both take uint8 arrays too (with the GIL released);
/// `decode_tos` then gives 0, not-PCN, where the DSCP is not PCN-compatible,
/// which a meter's `mark` leaves alone, as it should.
#[pyclass(module = "netcond", name = "PcnDscps", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PcnDscpsPy {
    set: PcnDscps,
}

#[pymethods]
impl PcnDscpsPy {
    #[new]
    #[pyo3(signature = (*dscps))]
    fn py_new(dscps: Vec<u8>) -> PyResult<Self> {
        let mut set = PcnDscps::NONE;
        for d in dscps {
            if d > 63 {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "dscp: expected 0..=63, got {d}"
                )));
            }
            set = set.with(d);
        }
        Ok(PcnDscpsPy { set })
    }
    /// The DSCPs in the set, in increasing order (a list: a `Vec<u8>` would
    /// reach Python as bytes).
    #[getter]
    fn dscps(&self) -> Vec<u32> {
        (0..64u8)
            .filter(|&d| self.set.contains(d))
            .map(u32::from)
            .collect()
    }
    /// The set as a 64-bit mask (bit d for DSCP d).
    #[getter]
    fn mask(&self) -> u64 {
        self.set.mask()
    }
    fn __contains__(&self, dscp: u8) -> bool {
        self.set.contains(dscp)
    }
    fn decode_tos<'py>(
        &self,
        py: Python<'py>,
        tos: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(tos) {
            return match self.set.decode_tos(tos.extract()?) {
                None => Ok(py.None().into_bound(py)),
                Some(m) => Ok(MARKS.get(py, usize::from(m.ecn()))?.into_bound(py)),
            };
        }
        bulk::arrays!(b = tos: u8);
        let mut set = self.set;
        Ok(bulk::map(py, &mut set, b.len(), |s, i| {
            s.decode_tos(b[i]).map_or(0, PcnMark::ecn)
        }))
    }
    fn remark_tos<'py>(
        &self,
        py: Python<'py>,
        tos: &Bound<'py, PyAny>,
        indicated: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(tos) {
            let m = mark_arg(indicated.extract()?)?;
            let out = self.set.remark_tos(tos.extract()?, m);
            return Ok(out.into_pyobject(py)?.into_any());
        }
        bulk::arrays!(b = tos: u8, m = indicated: u8);
        let n = bulk::same_len(&[("tos", b.len()), ("indicated", m.len())])?;
        if let Some(&bad) = m.iter().find(|&&x| x > 3) {
            mark_arg(bad)?;
        }
        let mut set = self.set;
        Ok(bulk::map(py, &mut set, n, |s, i| {
            s.remark_tos(b[i], PcnMark::from_ecn(m[i]))
        }))
    }
    fn __repr__(&self) -> String {
        let d: Vec<String> = self.dscps().iter().map(u32::to_string).collect();
        format!("PcnDscps({})", d.join(", "))
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let d = PyTuple::new(slf.py(), slf.get().dscps())?;
        (slf.get_type(), d).into_pyobject(slf.py())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PcnDscpsPy>()
}

//! NumPy bulk calls: arrays in, a `uint8` result array out, the loop in Rust
//! with the GIL released.

use numpy::{PyReadonlyArray1, PyUntypedArray};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::PyInt;

/// Whether `obj` is a NumPy array (then the call is a bulk call).
pub fn is_array(obj: &Bound<'_, PyAny>) -> bool {
    !obj.is_exact_instance_of::<PyInt>() && obj.downcast::<PyUntypedArray>().is_ok()
}

/// A 1-D array argument of element type `T`, copied only if it is not contiguous.
pub fn array<'py, T: numpy::Element + Copy>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    dtype: &str,
) -> PyResult<PyReadonlyArray1<'py, T>> {
    obj.extract::<PyReadonlyArray1<'py, T>>().map_err(|_| {
        let got = obj
            .getattr("dtype")
            .and_then(|d| d.str().map(|s| s.to_string()))
            .unwrap_or_else(|_| obj.get_type().name().map(|n| n.to_string()).unwrap_or_default());
        let nd = obj.getattr("ndim").and_then(|n| n.extract::<usize>()).unwrap_or(1);
        PyTypeError::new_err(format!(
            "{what}: expected a 1-D numpy array of {dtype}, got {}{got} (convert with np.asarray(x, dtype=np.{dtype}))",
            if nd == 1 { String::new() } else { format!("a {nd}-D array of ") }
        ))
    })
}

/// The elements of `a` as a slice, or as a copy when `a` is strided.
pub fn cow<'a, T: numpy::Element + Copy>(
    a: &'a PyReadonlyArray1<'_, T>,
) -> std::borrow::Cow<'a, [T]> {
    match a.as_slice() {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(a.as_array().iter().copied().collect()),
    }
}

/// A `ValueError` unless every length equals the first one.
pub fn same_len(lens: &[(&str, usize)]) -> PyResult<usize> {
    let (n0, l0) = lens[0];
    for &(n, l) in &lens[1..] {
        if l != l0 {
            return Err(PyValueError::new_err(format!(
                "{n0} has {l0} elements but {n} has {l}"
            )));
        }
    }
    Ok(l0)
}

/// The members of a Python `IntEnum` of `netcond._enums`, looked up once.
pub struct EnumCache {
    name: &'static str,
    cell: GILOnceCell<Vec<Py<PyAny>>>,
}

impl EnumCache {
    pub const fn new(name: &'static str) -> EnumCache {
        EnumCache {
            name,
            cell: GILOnceCell::new(),
        }
    }

    /// The member with value `i`.
    pub fn get(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        let members = self.cell.get_or_try_init(py, || -> PyResult<_> {
            let cls = py.import("netcond._enums")?.getattr(self.name)?;
            let mut v = Vec::new();
            for m in cls.try_iter()? {
                v.push(m?.unbind());
            }
            Ok(v)
        })?;
        Ok(members[i].clone_ref(py))
    }
}

pub static COLORS: EnumCache = EnumCache::new("Color");

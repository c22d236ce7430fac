//! What every state class shares: building its profile from keywords,
//! pickling through the library's serde form, and Python's spelling of values.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use pyo3::PyClass;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The profile a state class is built on: the one given, or one built from
/// the configuration's keywords (`Red(min_th=5, ...)`), never both.
pub fn profile_or_config<P>(
    py: Python<'_>,
    profile: Option<P>,
    config: Option<&Bound<'_, PyDict>>,
) -> PyResult<P>
where
    P: PyClass + Clone + for<'py> FromPyObject<'py>,
{
    match (profile, config) {
        (Some(_), Some(c)) if !c.is_empty() => Err(PyValueError::new_err(
            "give either a profile or the configuration's keywords, not both",
        )),
        (Some(p), _) => Ok(p),
        (None, c) => py.get_type::<P>().call((), c)?.extract::<P>(),
    }
}

/// `__reduce__` of a state class: rebuilt from its profile, then given
/// `state` (the library's serde form, as JSON bytes) by `__setstate__`.
pub fn reduce<'py, T: PyClass, P: IntoPyObject<'py>, S: Serialize>(
    slf: &Bound<'py, T>,
    profile: P,
    state: &S,
) -> PyResult<Bound<'py, PyTuple>> {
    reduce_args(slf, (profile,), state)
}

/// [`reduce`] for a class whose constructor takes more than its profile:
/// rebuilt from `args`, then given `state` by `__setstate__`.
pub fn reduce_args<'py, T: PyClass, A: IntoPyObject<'py>, S: Serialize>(
    slf: &Bound<'py, T>,
    args: A,
    state: &S,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = slf.py();
    let bytes =
        serde_json::to_vec(&(VERSION, state)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    (slf.as_any().get_type(), args, PyBytes::new(py, &bytes)).into_pyobject(py)
}

/// The package's version, written into every state's pickle: the serde form
/// is the library's internal fields, which another version may lay out or
/// scale differently, so a pickle is read back by the same version only.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The state `__setstate__` is given, as [`reduce`] wrote it.
pub fn restore<S: DeserializeOwned>(bytes: &[u8]) -> PyResult<S> {
    let (version, state): (String, serde_json::Value) =
        serde_json::from_slice(bytes).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if version != VERSION {
        return Err(PyValueError::new_err(format!(
            "this state was pickled by netcond {version}: it is read back by that version \
             only (this is {VERSION})"
        )));
    }
    serde_json::from_value(state).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `True` or `False`, for the `__repr__`s.
pub fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `None` or the value, for the `__repr__`s.
pub fn py_opt<T: core::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(|| "None".to_string(), |v| v.to_string())
}

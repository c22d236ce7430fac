//! Old method names kept as aliases: each call warns, then does what the new
//! name does.

use pyo3::exceptions::PyDeprecationWarning;
use pyo3::prelude::*;
use std::ffi::CString;

/// Issues a `DeprecationWarning` that `old` is now called `new`, attributed
/// to the caller's line.
pub fn warn(py: Python<'_>, old: &str, new: &str) -> PyResult<()> {
    let msg = CString::new(format!("{old} is deprecated: renamed to {new}"))?;
    PyErr::warn(py, &py.get_type::<PyDeprecationWarning>(), &msg, 1)
}

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

/// The NumPy name of an array element type, for the `TypeError`s.
pub trait Dtype: numpy::Element + Copy {
    const NAME: &'static str;
}

impl Dtype for u64 {
    const NAME: &'static str = "uint64";
}

impl Dtype for u32 {
    const NAME: &'static str = "uint32";
}

impl Dtype for u8 {
    const NAME: &'static str = "uint8";
}

/// Array arguments of a bulk call, each as a slice named as its argument:
/// `arrays!(t = now: u64, l = length: u32);` checks that `now` is a 1-D
/// uint64 array and binds its elements to `t` (a copy only where the array
/// is strided), and so on.
macro_rules! arrays {
    ($($var:ident = $obj:ident : $t:ty),+ $(,)?) => {
        $(
            let $var = $crate::bulk::array::<$t>(
                $obj,
                stringify!($obj),
                <$t as $crate::bulk::Dtype>::NAME,
            )?;
            let $var = $crate::bulk::cow(&$var);
        )+
    };
}
pub(crate) use arrays;

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

/// The per-packet form of an optional flag (`ecn_capable`): its truth value,
/// false when omitted.
pub fn flag(obj: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    obj.map_or(Ok(false), |o| o.is_truthy())
}

/// The bulk form of an optional flag: a bool (or integer) array as one byte
/// per element (nonzero is true), `None` when omitted.
pub fn flags(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<u8>>> {
    let Some(x) = obj else { return Ok(None) };
    let a = x
        .call_method1("astype", ("uint8",))?
        .extract::<PyReadonlyArray1<'_, u8>>()?;
    Ok(Some(cow(&a).into_owned()))
}

/// The length of an optional array argument (`n` when it is omitted), for
/// [`same_len`].
pub fn opt_len<T>(v: &Option<Vec<T>>, n: usize) -> usize {
    v.as_ref().map_or(n, Vec::len)
}

/// Element `i` of an optional flag array (false when omitted).
#[inline(always)]
pub fn flag_at(v: &Option<Vec<u8>>, i: usize) -> bool {
    v.as_ref().is_some_and(|x| x[i] != 0)
}

/// The loop of a bulk call: `f` on each index `0..n` with the GIL released,
/// on a copy of `state` that is written back at the end, its results handed
/// to NumPy as a new array.
pub fn map<'py, S, T, F>(py: Python<'py>, state: &mut S, n: usize, f: F) -> Bound<'py, PyAny>
where
    S: Copy + Send,
    T: numpy::Element + Send,
    F: Fn(&mut S, usize) -> T + Sync,
{
    let mut st = *state;
    let out = py.allow_threads(|| (0..n).map(|i| f(&mut st, i)).collect::<Vec<T>>());
    *state = st;
    numpy::PyArray1::from_vec(py, out).into_any()
}

/// The bulk form of the calls that take `now` and a `length` that packet mode
/// leaves out (`None`): `bytes` or `packets` on each element with the GIL
/// released, on a copy of `state` written back at the end.
pub fn timed<'py, S, B, P>(
    py: Python<'py>,
    state: &mut S,
    now: &Bound<'py, PyAny>,
    length: Option<&Bound<'py, PyAny>>,
    bytes: B,
    packets: P,
) -> PyResult<Bound<'py, PyAny>>
where
    S: Copy + Send,
    B: Fn(&mut S, u64, u32) -> u8 + Sync,
    P: Fn(&mut S, u64) -> u8 + Sync,
{
    arrays!(times = now: u64);
    let mut st = *state;
    let out = match length {
        Some(length) => {
            arrays!(lens = length: u32);
            same_len(&[("now", times.len()), ("length", lens.len())])?;
            py.allow_threads(|| {
                times
                    .iter()
                    .zip(lens.iter())
                    .map(|(&t, &l)| bytes(&mut st, t, l))
                    .collect::<Vec<u8>>()
            })
        }
        None => py.allow_threads(|| times.iter().map(|&t| packets(&mut st, t)).collect()),
    };
    *state = st;
    Ok(numpy::PyArray1::from_vec(py, out).into_any())
}

/// [`map`] for a state that is not `Copy` (one that keeps its packets): the
/// loop runs on the state in place.
pub fn map_in_place<'py, S, T, F>(
    py: Python<'py>,
    state: &mut S,
    n: usize,
    f: F,
) -> Bound<'py, PyAny>
where
    S: Send,
    T: numpy::Element + Send,
    F: Fn(&mut S, usize) -> T + Sync,
{
    let out = py.allow_threads(|| (0..n).map(|i| f(state, i)).collect::<Vec<T>>());
    numpy::PyArray1::from_vec(py, out).into_any()
}

/// [`map_in_place`] for calls with two results per element, handed to NumPy
/// as a tuple of two arrays.
pub fn map2_in_place<'py, S, A, B, F>(
    py: Python<'py>,
    state: &mut S,
    n: usize,
    f: F,
) -> PyResult<Bound<'py, PyAny>>
where
    S: Send,
    A: numpy::Element + Send,
    B: numpy::Element + Send,
    F: Fn(&mut S, usize) -> (A, B) + Sync,
{
    let (a, b): (Vec<A>, Vec<B>) = py.allow_threads(|| (0..n).map(|i| f(state, i)).unzip());
    (
        numpy::PyArray1::from_vec(py, a),
        numpy::PyArray1::from_vec(py, b),
    )
        .into_pyobject(py)
        .map(Bound::into_any)
}

/// An optional array argument as an owned vector, `None` when omitted.
pub fn opt_array<T: Dtype>(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<T>>> {
    let Some(o) = obj else { return Ok(None) };
    let a = array::<T>(o, what, T::NAME)?;
    Ok(Some(cow(&a).into_owned()))
}

/// [`map`] without results, for calls that return nothing.
pub fn each<S, F>(py: Python<'_>, state: &mut S, n: usize, f: F)
where
    S: Copy + Send,
    F: Fn(&mut S, usize) + Sync,
{
    let mut st = *state;
    py.allow_threads(|| (0..n).for_each(|i| f(&mut st, i)));
    *state = st;
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

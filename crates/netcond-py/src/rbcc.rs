//! RBCC (TRUMP) router rate allocation: one output interface's table of the
//! flows crossing it and its max-min fair share, stamped into packets.

use crate::args;
use crate::bulk;
use crate::shared;
use netcond::base::Instant;
use netcond::rbcc::{
    AckHeader, AckModel, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};
use netcond::trtcm::Mode;
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Rows of an interface's table (a power of two; about twice the flows it
/// expects, so that most lookups take one probe).
pub const ROWS: usize = 1024;

/// A rate in bit/s as the controller keeps it (2**-16 bit/s, rounded down);
/// None, or infinity, is unlimited.
fn fixed(rate: Option<f64>, what: &str) -> PyResult<FixedRate> {
    match rate {
        None => Ok(FixedRate::UNLIMITED),
        Some(r) if r == f64::INFINITY => Ok(FixedRate::UNLIMITED),
        Some(r) if r.is_finite() && r >= 0.0 => {
            let raw = r * 65536.0;
            if raw >= u64::MAX as f64 {
                Ok(FixedRate::UNLIMITED)
            } else {
                Ok(FixedRate::from_raw(raw as u64))
            }
        }
        Some(r) => Err(PyValueError::new_err(format!(
            "{what}: expected a rate >= 0 in bit/s (or None), got {r}"
        ))),
    }
}

/// A kept rate in bit/s: exact below 2**37 bit/s; unlimited is infinity.
fn float(r: FixedRate) -> f64 {
    if r.is_unlimited() {
        f64::INFINITY
    } else {
        r.raw() as f64 / 65536.0
    }
}

/// The validated constants of one RBCC output interface.
///
/// `RbccProfile(capacity, node=1, ack_bytes=40, data_bytes=1500,
/// ack_model="outside-load", idle_timeout="10s", tick_hz=10**9)`: the
/// capacity in bit/s or a tc string; `node` the id stamped into bottleneck
/// fields (not 0); ACKs of `ack_bytes` per data packet of `data_bytes` load
/// the interface they leave by as outside load (`"outside-load"`, Toomey's
/// Scenario 7) or share it with that weight (`"coupled"`).
#[pyclass(module = "netcond", name = "RbccProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct RbccProfilePy {
    cfg: RbccConfig,
    prof: RbccProfile,
}

#[pymethods]
impl RbccProfilePy {
    #[new]
    #[pyo3(signature = (capacity, node = 1, ack_bytes = 40, data_bytes = 1500, ack_model = "outside-load", idle_timeout = None, tick_hz = None))]
    fn py_new(
        capacity: &Bound<'_, PyAny>,
        node: u32,
        ack_bytes: u32,
        data_bytes: u32,
        ack_model: &str,
        idle_timeout: Option<&Bound<'_, PyAny>>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let model = match ack_model {
            "outside-load" => AckModel::OutsideLoad,
            "coupled" => AckModel::Coupled,
            m => {
                return Err(PyValueError::new_err(format!(
                    "ack_model: expected 'outside-load' or 'coupled', got {m:?}"
                )))
            }
        };
        let mut cfg = RbccConfig::new(
            NodeId(node),
            args::rate(capacity, "capacity", Mode::Bytes)?,
            ack_bytes,
            data_bytes,
        )
        .with_ack_model(model);
        if let Some(t) = idle_timeout {
            cfg = cfg.with_idle_timeout(args::duration(t, "idle_timeout")?);
        }
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = RbccProfile::new(&cfg).map_err(args::value_error)?;
        Ok(RbccProfilePy { cfg, prof })
    }
    #[getter]
    fn capacity(&self) -> u64 {
        self.cfg.capacity.bits_per_sec()
    }
    #[getter]
    fn node(&self) -> u32 {
        self.cfg.node.0
    }
    #[getter]
    fn ack_bytes(&self) -> u32 {
        self.cfg.ack_bytes
    }
    #[getter]
    fn data_bytes(&self) -> u32 {
        self.cfg.data_bytes
    }
    #[getter]
    fn ack_model(&self) -> &'static str {
        match self.cfg.ack_model {
            AckModel::Coupled => "coupled",
            _ => "outside-load",
        }
    }
    /// The idle timeout in nanoseconds.
    #[getter]
    fn idle_timeout(&self) -> u128 {
        self.cfg.idle_timeout.as_nanos()
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "RbccProfile(capacity={}, node={}, ack_bytes={}, data_bytes={}, ack_model='{}', idle_timeout={}, tick_hz={})",
            self.capacity(),
            self.node(),
            self.ack_bytes(),
            self.data_bytes(),
            self.ack_model(),
            self.idle_timeout(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.capacity(),
            s.node(),
            s.ack_bytes(),
            s.data_bytes(),
            s.ack_model(),
            s.cfg.idle_timeout.as_nanos().min(u128::from(u64::MAX)) as u64,
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// One output interface's RBCC allocator (a table of 1024 rows).
///
/// Rates are bit/s as floats (kept in units of 2**-16 bit/s, rounded down;
/// exact below 2**37 bit/s), unlimited as None on input and infinity on
/// output. `on_data(now, flow, requested=None, rate=None, bottleneck=0)`: a
/// data packet leaves by this interface carrying a requested rate and the
/// rate and bottleneck fields so far; gives the fields after it, `(rate,
/// bottleneck)`, lowered to the advertised rate (the bottleneck then this
/// node). `on_return(now, flow, rate, bottleneck)`: the flow's ACK comes back
/// through this router. `on_ack(now, flow, rate, bottleneck)`: an ACK of a
/// flow going the other way leaves by this interface; gives its fields after
/// it. A full table raises `OverflowError`. Bulk: `on_data` with uint64
/// `now`, uint32 `flow` and float64 `requested` arrays gives (float64 rate,
/// uint32 bottleneck) arrays.
#[pyclass(module = "netcond", name = "RbccInterface")]
#[derive(Clone)]
pub struct RbccPy {
    profile: RbccProfilePy,
    state: Box<RbccInterface<ROWS>>,
}

fn full(flow: u32) -> PyErr {
    pyo3::exceptions::PyOverflowError::new_err(format!(
        "the interface's table of {ROWS} rows is full: flow {flow} cannot join"
    ))
}

type Stamped<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u32>>);

#[pymethods]
impl RbccPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<RbccProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = crate::shared::profile_or_config(py, profile, config)?;
        let state = Box::new(RbccInterface::new(&profile.prof, Instant::from_ticks(now)));
        Ok(RbccPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> RbccProfilePy {
        self.profile.clone()
    }
    /// The advertised rate (the fair share), bit/s.
    #[getter]
    fn advertised(&self) -> f64 {
        float(self.state.advertised())
    }
    /// Rows in the table (data and ACK flows).
    fn __len__(&self) -> usize {
        self.state.len()
    }
    /// Flow `flow`'s data row: a dict of `requested`, `elsewhere`,
    /// `allocated` (bit/s), `bottleneck` (bool) and `last_seen`, or None.
    fn flow<'py>(&self, py: Python<'py>, flow: u32) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(e) = self.state.data(flow) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("requested", float(e.requested))?;
        d.set_item("elsewhere", float(e.elsewhere))?;
        d.set_item("allocated", float(e.allocated))?;
        d.set_item("bottleneck", e.bottleneck)?;
        d.set_item("last_seen", e.last_seen.ticks())?;
        Ok(Some(d))
    }
    #[pyo3(signature = (now, flow, requested = None, rate = None, bottleneck = 0))]
    fn on_data<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        flow: &Bound<'py, PyAny>,
        requested: Option<&Bound<'py, PyAny>>,
        rate: Option<f64>,
        bottleneck: u32,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = self.profile.prof;
        if !bulk::is_array(now) {
            let flow: u32 = flow.extract()?;
            let req = fixed(requested.map(|r| r.extract()).transpose()?, "requested")?;
            let mut h = RateHeader::new(req);
            h.rate = h.rate.min(fixed(rate, "rate")?);
            h.bottleneck = NodeId(bottleneck);
            let t = Instant::from_ticks(now.extract()?);
            self.state.on_data(&p, t, flow, &mut h).map_err(full)?;
            return (float(h.rate), h.bottleneck.0)
                .into_pyobject(py)
                .map(Bound::into_any);
        }
        if rate.is_some() || bottleneck != 0 {
            return Err(PyTypeError::new_err(
                "bulk on_data takes now, flow and requested arrays only (packets entering here)",
            ));
        }
        bulk::arrays!(t = now: u64, f = flow: u32);
        let req: Vec<FixedRate> = match requested {
            None => vec![FixedRate::UNLIMITED; t.len()],
            Some(r) => {
                let a = r
                    .extract::<numpy::PyReadonlyArray1<'_, f64>>()
                    .map_err(|_| {
                        PyTypeError::new_err("requested: expected a 1-D numpy array of float64")
                    })?;
                bulk::cow(&a)
                    .iter()
                    .map(|&x| fixed(Some(x), "requested"))
                    .collect::<PyResult<_>>()?
            }
        };
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("flow", f.len()),
            ("requested", req.len()),
        ])?;
        let state = &mut self.state;
        let (rates, nodes, err) = py.allow_threads(|| {
            let mut rates = Vec::with_capacity(n);
            let mut nodes = Vec::with_capacity(n);
            for i in 0..n {
                let mut h = RateHeader::new(req[i]);
                if let Err(fl) = state.on_data(&p, Instant::from_ticks(t[i]), f[i], &mut h) {
                    return (rates, nodes, Some(fl));
                }
                rates.push(float(h.rate));
                nodes.push(h.bottleneck.0);
            }
            (rates, nodes, None)
        });
        if let Some(fl) = err {
            return Err(full(fl));
        }
        let out: Stamped<'py> = (PyArray1::from_vec(py, rates), PyArray1::from_vec(py, nodes));
        out.into_pyobject(py).map(Bound::into_any)
    }
    /// The flow's ACK comes back through this router, carrying its rate and
    /// bottleneck.
    fn on_return(
        &mut self,
        now: u64,
        flow: u32,
        rate: Option<f64>,
        bottleneck: u32,
    ) -> PyResult<()> {
        let ack = AckHeader {
            rate: fixed(rate, "rate")?,
            bottleneck: NodeId(bottleneck),
        };
        self.state
            .on_return(&self.profile.prof, Instant::from_ticks(now), flow, &ack);
        Ok(())
    }
    /// An ACK of `flow` (data going the other way) leaves by this interface:
    /// its `(rate, bottleneck)` after it.
    fn on_ack(
        &mut self,
        now: u64,
        flow: u32,
        rate: Option<f64>,
        bottleneck: u32,
    ) -> PyResult<(f64, u32)> {
        let mut ack = AckHeader {
            rate: fixed(rate, "rate")?,
            bottleneck: NodeId(bottleneck),
        };
        self.state
            .on_ack(&self.profile.prof, Instant::from_ticks(now), flow, &mut ack)
            .map_err(full)?;
        Ok((float(ack.rate), ack.bottleneck.0))
    }
    /// `flow` closed: its rows leave the table. True if any did.
    fn close(&mut self, flow: u32) -> bool {
        self.state.close(&self.profile.prof, flow)
    }
    /// Removes the rows idle for the profile's timeout; returns how many.
    fn expire(&mut self, now: u64) -> usize {
        self.state
            .expire(&self.profile.prof, Instant::from_ticks(now))
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &s.state)
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        self.state = shared::restore(state)?;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "RbccInterface({}, rows={}, advertised={:?})",
            self.profile.__repr__(),
            self.state.len(),
            self.advertised()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RbccProfilePy>()?;
    m.add_class::<RbccPy>()?;
    Ok(())
}

//! rbcc-rate's network-wide max-min solver: the allocation the per-interface
//! RBCC tables converge to, for a network of links and flows.

use crate::args;
use netcond::rbcc::solver::{Network, NetworkError};
use netcond::rbcc::{AckModel, FixedRate};
use netcond::trtcm::Mode;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

/// Links a network holds at most.
pub const MAX_LINKS: usize = 64;
/// Flows a network holds at most.
pub const MAX_FLOWS: usize = 256;

type Net = Network<MAX_LINKS, MAX_FLOWS>;

/// A rate as given: whole bit/s (a rate read from a number or a tc string
/// is whole bit/s); unlimited is `u64::MAX`, which reads back as unlimited.
fn whole(r: FixedRate) -> u64 {
    if r.is_unlimited() {
        u64::MAX
    } else {
        r.bps()
    }
}

/// A kept rate in bit/s (2**-16 bit/s units); unlimited is infinity.
fn float(r: FixedRate) -> f64 {
    if r.is_unlimited() {
        f64::INFINITY
    } else {
        r.raw() as f64 / 65536.0
    }
}

fn fixed(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<FixedRate> {
    Ok(FixedRate::from_rate(args::rate(obj, what, Mode::Bytes)?))
}

/// One flow as added: its name, requested rate, and the links its data and
/// its ACKs cross (indices).
struct Flow {
    name: PyObject,
    requested: FixedRate,
    data: Vec<usize>,
    acks: Vec<usize>,
}

/// A network of directed links and flows, solved for the max-min fair
/// allocation that RBCC's per-interface tables converge to (rbcc-rate's
/// `solver::Network`): every flow gets its requested rate or its share at a
/// link it fills, no link carries more than its capacity, and no flow can
/// get more without taking from one that has no more.
///
/// `RbccNetwork(links=None, flows=None, *, ack_bytes=40, data_bytes=1500,
/// ack_model="outside-load")`: `links` maps link names to capacities (or is
/// a list of capacities, named 0, 1, ...); `flows` maps flow names to dicts
/// of `data` (the links its data crosses), `acks` (the links its ACKs
/// cross) and `requested` (None: unlimited), or is a list of such dicts.
/// Rates are bit/s or tc strings ("10mbit"). ACKs load the links they cross
/// with `ack_bytes` per `data_bytes` of the flow's rate, as outside load
/// (`"outside-load"`) or sharing the link with that weight (`"coupled"`).
/// `add_link` and `add_flow` add more; `solve()` gives a dict of each flow's
/// rate in bit/s (`raw=True`: integers in 2**-16 bit/s, exact). At most 64
/// links and 256 flows; a name not known, given twice, or past the limits is
/// a ValueError. A network pickles (its links, flows and ACK settings).
///
/// >>> import netcond
/// >>> net = netcond.RbccNetwork(links={"a": "10mbit", "b": "4mbit"},
/// ...     flows={"x": {"data": ["a", "b"]}, "y": {"data": ["a"]}})
/// >>> net.solve()
/// {'x': 4000000.0, 'y': 6000000.0}
#[pyclass(module = "netcond", name = "RbccNetwork")]
pub struct RbccNetworkPy {
    ack_bytes: u32,
    data_bytes: u32,
    model: AckModel,
    link_index: Py<PyDict>,
    link_names: Vec<PyObject>,
    capacity: Vec<FixedRate>,
    flow_index: Py<PyDict>,
    flows: Vec<Flow>,
}

impl RbccNetworkPy {
    fn links_of(&self, py: Python<'_>, names: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<usize>> {
        let Some(names) = names else {
            return Ok(Vec::new());
        };
        if names.is_instance_of::<PyString>() {
            return Err(PyValueError::new_err(
                "a flow's links are a list of link names, not a string",
            ));
        }
        let index = self.link_index.bind(py);
        names
            .try_iter()?
            .map(|n| {
                let n = n?;
                match index.get_item(&n)? {
                    Some(i) => i.extract::<usize>(),
                    None => Err(PyValueError::new_err(format!("unknown link {}", n.repr()?))),
                }
            })
            .collect()
    }

    /// The network as the solver takes it.
    fn build(&self) -> Result<Box<Net>, NetworkError> {
        let mut net = Box::new(Net::new(self.ack_bytes, self.data_bytes, self.model));
        for &c in &self.capacity {
            net.add_link(c)?;
        }
        for f in &self.flows {
            net.add_flow(f.requested, &f.data, &f.acks)?;
        }
        Ok(net)
    }
}

#[pymethods]
impl RbccNetworkPy {
    #[new]
    #[pyo3(signature = (links = None, flows = None, *, ack_bytes = 40, data_bytes = 1500, ack_model = "outside-load"))]
    fn py_new(
        py: Python<'_>,
        links: Option<&Bound<'_, PyAny>>,
        flows: Option<&Bound<'_, PyAny>>,
        ack_bytes: u32,
        data_bytes: u32,
        ack_model: &str,
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
        if data_bytes == 0 {
            return Err(PyValueError::new_err("data_bytes: must be at least 1"));
        }
        let mut net = RbccNetworkPy {
            ack_bytes,
            data_bytes,
            model,
            link_index: PyDict::new(py).unbind(),
            link_names: Vec::new(),
            capacity: Vec::new(),
            flow_index: PyDict::new(py).unbind(),
            flows: Vec::new(),
        };
        if let Some(links) = links {
            if let Ok(d) = links.downcast::<PyDict>() {
                for (name, c) in d.iter() {
                    net.add_link(py, &c, Some(&name))?;
                }
            } else {
                for c in links.try_iter()? {
                    net.add_link(py, &c?, None)?;
                }
            }
        }
        if let Some(flows) = flows {
            let add = |net: &mut Self, spec: &Bound<'_, PyAny>, name: Option<&Bound<'_, PyAny>>| {
                let spec = spec.downcast::<PyDict>().map_err(|_| {
                    PyValueError::new_err(
                        "a flow is a dict of data, acks and requested (all optional)",
                    )
                })?;
                for k in spec.keys() {
                    let k: String = k.extract()?;
                    if !matches!(k.as_str(), "data" | "acks" | "requested") {
                        return Err(PyValueError::new_err(format!(
                            "a flow has data, acks and requested, not {k:?}"
                        )));
                    }
                }
                net.add_flow(
                    py,
                    spec.get_item("data")?.as_ref(),
                    spec.get_item("acks")?.as_ref(),
                    spec.get_item("requested")?.as_ref(),
                    name,
                )
                .map(|_| ())
            };
            if let Ok(d) = flows.downcast::<PyDict>() {
                for (name, spec) in d.iter() {
                    add(&mut net, &spec, Some(&name))?;
                }
            } else {
                for spec in flows.try_iter()? {
                    add(&mut net, &spec?, None)?;
                }
            }
        }
        Ok(net)
    }

    /// Adds a link of `capacity` (bit/s or a tc string) named `name`
    /// (default: its index) and returns its name.
    #[pyo3(signature = (capacity, name = None))]
    fn add_link(
        &mut self,
        py: Python<'_>,
        capacity: &Bound<'_, PyAny>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        if self.capacity.len() == MAX_LINKS {
            return Err(PyValueError::new_err(format!(
                "a network holds at most {MAX_LINKS} links"
            )));
        }
        let c = fixed(capacity, "capacity")?;
        let i = self.capacity.len();
        let name = match name {
            Some(n) => n.clone().unbind(),
            None => i.into_pyobject(py)?.into_any().unbind(),
        };
        let index = self.link_index.bind(py);
        if index.contains(&name)? {
            return Err(PyValueError::new_err(format!(
                "link {} is given twice",
                name.bind(py).repr()?
            )));
        }
        index.set_item(&name, i)?;
        self.link_names.push(name.clone_ref(py));
        self.capacity.push(c);
        Ok(name)
    }

    /// Adds a flow whose data crosses the links named in `data` and whose
    /// ACKs cross those in `acks`, asking for `requested` (None: unlimited),
    /// named `name` (default: its index); returns its name.
    #[pyo3(signature = (data = None, acks = None, requested = None, name = None))]
    fn add_flow(
        &mut self,
        py: Python<'_>,
        data: Option<&Bound<'_, PyAny>>,
        acks: Option<&Bound<'_, PyAny>>,
        requested: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        if self.flows.len() == MAX_FLOWS {
            return Err(PyValueError::new_err(format!(
                "a network holds at most {MAX_FLOWS} flows"
            )));
        }
        let requested = match requested {
            Some(r) if !r.is_none() => fixed(r, "requested")?,
            _ => FixedRate::UNLIMITED,
        };
        let data = self.links_of(py, data)?;
        let acks = self.links_of(py, acks)?;
        let i = self.flows.len();
        let name = match name {
            Some(n) => n.clone().unbind(),
            None => i.into_pyobject(py)?.into_any().unbind(),
        };
        let index = self.flow_index.bind(py);
        if index.contains(&name)? {
            return Err(PyValueError::new_err(format!(
                "flow {} is given twice",
                name.bind(py).repr()?
            )));
        }
        index.set_item(&name, i)?;
        self.flows.push(Flow {
            name: name.clone_ref(py),
            requested,
            data,
            acks,
        });
        Ok(name)
    }

    /// The links' capacities in bit/s, by name.
    #[getter]
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, &c) in self.link_names.iter().zip(&self.capacity) {
            d.set_item(n, float(c))?;
        }
        Ok(d)
    }

    /// The flows' names, in the order they were added.
    #[getter]
    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.flows.iter().map(|f| f.name.clone_ref(py)))
    }

    #[getter]
    fn ack_model(&self) -> &'static str {
        match self.model {
            AckModel::Coupled => "coupled",
            _ => "outside-load",
        }
    }

    /// Each flow's max-min fair rate, by name: bit/s as floats (infinity for
    /// an unlimited flow on no link), or with `raw=True` integers in 2**-16
    /// bit/s as the solver computes them. Computed with the GIL released. A
    /// RuntimeError when the ACK-load iteration does not settle.
    #[pyo3(signature = (*, raw = false))]
    fn solve<'py>(&self, py: Python<'py>, raw: bool) -> PyResult<Bound<'py, PyDict>> {
        let net = self.build().map_err(|e| {
            PyValueError::new_err(format!("the network does not fit the solver: {e:?}"))
        })?;
        // The solver's only error: the ACK-load iteration did not settle.
        let x = py.allow_threads(|| net.try_solve().ok()).ok_or_else(|| {
            PyRuntimeError::new_err(
                "the ACK-load iteration did not settle: no max-min allocation was found",
            )
        })?;
        let d = PyDict::new(py);
        for (f, r) in self.flows.iter().zip(x) {
            if raw {
                d.set_item(&f.name, r.raw())?;
            } else {
                d.set_item(&f.name, float(r))?;
            }
        }
        Ok(d)
    }

    /// Rebuilt from its links and flows, then given its ACK settings.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let s = slf.borrow();
        let links = PyDict::new(py);
        for (n, &c) in s.link_names.iter().zip(&s.capacity) {
            links.set_item(n, whole(c))?;
        }
        let flows = PyDict::new(py);
        for f in &s.flows {
            let names =
                |v: &[usize]| PyList::new(py, v.iter().map(|&l| s.link_names[l].clone_ref(py)));
            let spec = PyDict::new(py);
            spec.set_item("data", names(&f.data)?)?;
            spec.set_item("acks", names(&f.acks)?)?;
            if !f.requested.is_unlimited() {
                spec.set_item("requested", f.requested.bps())?;
            }
            flows.set_item(&f.name, spec)?;
        }
        let settings = (s.ack_bytes, s.data_bytes, s.ack_model());
        (slf.get_type(), (links, flows), settings).into_pyobject(py)
    }

    fn __setstate__(&mut self, state: (u32, u32, String)) -> PyResult<()> {
        let (ack_bytes, data_bytes, model) = state;
        self.model = match model.as_str() {
            "coupled" => AckModel::Coupled,
            "outside-load" => AckModel::OutsideLoad,
            m => return Err(PyValueError::new_err(format!("ack_model: {m:?}"))),
        };
        if data_bytes == 0 {
            return Err(PyValueError::new_err("data_bytes: must be at least 1"));
        }
        self.ack_bytes = ack_bytes;
        self.data_bytes = data_bytes;
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.flows.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "RbccNetwork(links={}, flows={}, ack_bytes={}, data_bytes={}, ack_model={:?})",
            self.capacity.len(),
            self.flows.len(),
            self.ack_bytes,
            self.data_bytes,
            self.ack_model()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RbccNetworkPy>()
}

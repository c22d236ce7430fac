//! The section 4.8 ET-marker of draft-babiarz-pcn-explicit-marking-01 and the
//! per-link node markers: an excess stage then a threshold stage on each packet.

use super::{mark_arg, AsProfilePy, EtProfilePy, EtmProfilePy, Pickled, TmProfilePy, MARKS};
use crate::args;
use crate::bulk;
use crate::shared;
use netcond::base::Instant;
use netcond::pcn::{
    EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, Node3sm, Node3smSim48, NodeProfile,
    NodeRfc5670, PcnMark, PcnMeter,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The validated constants of the ET-marker as simulated in
/// draft-babiarz-pcn-explicit-marking-01 section 4.8 (figure 9).
///
/// `EtMarkerSim48Profile(pcn_pt, pcn_tb, pcn_px, tick_hz=10**9)`: the
/// preemption threshold rate in bit/s or a tc string, the bucket depth and the
/// tokens added after each mark in bytes or tc strings.
#[pyclass(module = "netcond", name = "EtMarkerSim48Profile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Sim48ProfilePy {
    cfg: EtMarkerSim48Config,
    pub(crate) prof: EtMarkerSim48Profile,
}

#[pymethods]
impl Sim48ProfilePy {
    #[new]
    #[pyo3(signature = (pcn_pt, pcn_tb, pcn_px, tick_hz = None))]
    fn py_new(
        pcn_pt: &Bound<'_, PyAny>,
        pcn_tb: &Bound<'_, PyAny>,
        pcn_px: &Bound<'_, PyAny>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut cfg = EtMarkerSim48Config::new(
            args::rate(pcn_pt, "pcn_pt", netcond::trtcm::Mode::Bytes)?,
            args::size(pcn_tb, "pcn_tb")?,
            args::size(pcn_px, "pcn_px")?,
        );
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = EtMarkerSim48Profile::new(&cfg).map_err(args::value_error)?;
        Ok(Sim48ProfilePy { cfg, prof })
    }
    #[getter]
    fn pcn_pt(&self) -> u64 {
        self.cfg.pcn_pt.bits_per_sec()
    }
    #[getter]
    fn pcn_tb(&self) -> u64 {
        self.cfg.pcn_tb
    }
    #[getter]
    fn pcn_px(&self) -> u64 {
        self.cfg.pcn_px
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "EtMarkerSim48Profile(pcn_pt={}, pcn_tb={}, pcn_px={}, tick_hz={})",
            self.pcn_pt(),
            self.pcn_tb(),
            self.pcn_px(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.pcn_pt(), s.pcn_tb(), s.pcn_px(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

pcn_meter!(Sim48Py, "EtMarkerSim48", Sim48ProfilePy, EtMarkerSim48);

/// The profile of a node marker: the profiles of its excess stage (run
/// first, on the packet as it arrived) and of its threshold stage (run on the
/// excess stage's result), which must count time on the same clock.
macro_rules! node_profile {
    ($py:ident, $name:literal, $e:ident, $t:ident, $ep:ty, $tp:ty) => {
        #[doc = concat!("`", $name, "(excess, threshold)`: the two stages' profiles.")]
        #[pyclass(module = "netcond", name = $name, frozen, eq)]
        #[derive(Clone, PartialEq)]
        pub struct $py {
            excess: $e,
            threshold: $t,
            pub(crate) prof: NodeProfile<$ep, $tp>,
        }

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (excess, threshold))]
            fn py_new(excess: $e, threshold: $t) -> PyResult<Self> {
                if excess.tick_hz() != threshold.tick_hz() {
                    return Err(PyValueError::new_err(format!(
                        "the two stages must count ticks of the same clock: excess has tick_hz={}, threshold {}",
                        excess.tick_hz(),
                        threshold.tick_hz()
                    )));
                }
                let prof = NodeProfile {
                    excess: excess.prof,
                    threshold: threshold.prof,
                };
                Ok($py {
                    excess,
                    threshold,
                    prof,
                })
            }
            /// The excess stage's profile.
            #[getter]
            fn excess(&self) -> $e {
                self.excess.clone()
            }
            /// The threshold stage's profile.
            #[getter]
            fn threshold(&self) -> $t {
                self.threshold.clone()
            }
            #[getter]
            fn tick_hz(&self) -> u64 {
                self.excess.tick_hz()
            }
            fn __repr__(&self) -> String {
                format!(
                    concat!($name, "(excess={}, threshold={})"),
                    self.excess.__repr__(),
                    self.threshold.__repr__()
                )
            }
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
                let s = slf.get();
                (slf.get_type(), (s.excess.clone(), s.threshold.clone())).into_pyobject(slf.py())
            }
        }
    };
}

node_profile!(
    NodeRfc5670ProfilePy,
    "NodeRfc5670Profile",
    EtmProfilePy,
    TmProfilePy,
    netcond::pcn::ExcessTrafficMeterProfile,
    netcond::pcn::ThresholdMeterProfile
);
node_profile!(
    Node3smProfilePy,
    "Node3smProfile",
    EtProfilePy,
    AsProfilePy,
    netcond::pcn::EtMarkerProfile,
    netcond::pcn::AsMarkerProfile
);
node_profile!(
    Node3smSim48ProfilePy,
    "Node3smSim48Profile",
    Sim48ProfilePy,
    AsProfilePy,
    EtMarkerSim48Profile,
    netcond::pcn::AsMarkerProfile
);

pcn_meter!(
    NodeRfc5670Py,
    "NodeRfc5670",
    NodeRfc5670ProfilePy,
    NodeRfc5670
);
pcn_meter!(Node3smPy, "Node3sm", Node3smProfilePy, Node3sm);
pcn_meter!(
    Node3smSim48Py,
    "Node3smSim48",
    Node3smSim48ProfilePy,
    Node3smSim48
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sim48ProfilePy>()?;
    m.add_class::<Sim48Py>()?;
    m.add_class::<NodeRfc5670ProfilePy>()?;
    m.add_class::<Node3smProfilePy>()?;
    m.add_class::<Node3smSim48ProfilePy>()?;
    m.add_class::<NodeRfc5670Py>()?;
    m.add_class::<Node3smPy>()?;
    m.add_class::<Node3smSim48Py>()?;
    Ok(())
}

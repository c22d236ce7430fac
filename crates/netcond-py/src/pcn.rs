//! RFC 5670's PCN meters, marking per RFC 6660's 3-in-1 encoding.

use crate::args;
use crate::bulk::{self, EnumCache};
use crate::shared;
use netcond::base::Instant;
use netcond::pcn::{
    AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, ClassicTie, EtMarker, EtMarkerConfig,
    EtMarkerProfile, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig,
    ExcessTrafficMeterProfile, NodeMarker, PcnMark, PcnMeter, ThresholdMeter, ThresholdMeterConfig,
    ThresholdMeterProfile,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

static MARKS: EnumCache = EnumCache::new("PcnMark");

fn mark_arg(m: u8) -> PyResult<PcnMark> {
    if m > 3 {
        return Err(PyValueError::new_err(format!(
            "mark: expected an ECN codepoint 0..=3 (0 not-PCN, 1 ThM, 2 NM, 3 ETM), got {m}"
        )));
    }
    Ok(PcnMark::from_ecn(m))
}

/// The validated constants of an RFC 5670 threshold meter (section 2.3).
///
/// `ThresholdMeterProfile(threshold_rate, bs_tm, threshold, tick_hz=10**9)`:
/// the rate in bit/s or a tc string, the bucket size BS_tm and the threshold
/// in bytes or tc strings.
#[pyclass(module = "netcond", name = "ThresholdMeterProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct TmProfilePy {
    cfg: ThresholdMeterConfig,
    pub(crate) prof: ThresholdMeterProfile,
}

#[pymethods]
impl TmProfilePy {
    #[new]
    #[pyo3(signature = (threshold_rate, bs_tm, threshold, tick_hz = None))]
    fn py_new(
        threshold_rate: &Bound<'_, PyAny>,
        bs_tm: &Bound<'_, PyAny>,
        threshold: &Bound<'_, PyAny>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut cfg = ThresholdMeterConfig::new(
            args::rate(
                threshold_rate,
                "threshold_rate",
                netcond::trtcm::Mode::Bytes,
            )?,
            args::size(bs_tm, "bs_tm")?,
            args::size(threshold, "threshold")?,
        );
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = ThresholdMeterProfile::new(&cfg).map_err(args::value_error)?;
        Ok(TmProfilePy { cfg, prof })
    }
    #[getter]
    fn threshold_rate(&self) -> u64 {
        self.cfg.threshold_rate.bits_per_sec()
    }
    #[getter]
    fn bs_tm(&self) -> u64 {
        self.cfg.bs_tm
    }
    #[getter]
    fn threshold(&self) -> u64 {
        self.cfg.threshold
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "ThresholdMeterProfile(threshold_rate={}, bs_tm={}, threshold={}, tick_hz={})",
            self.threshold_rate(),
            self.bs_tm(),
            self.threshold(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.threshold_rate(), s.bs_tm(), s.threshold(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The validated constants of an RFC 5670 excess-traffic meter (section 2.4).
///
/// `ExcessTrafficMeterProfile(excess_rate, bs_etm, mode="classic",
/// tick_hz=10**9)`: `mode` is `"classic"` (section 2.4's tie rule),
/// `"classic-b6"` (appendix B.6's) or `"size-independent"`.
#[pyclass(module = "netcond", name = "ExcessTrafficMeterProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct EtmProfilePy {
    cfg: ExcessTrafficMeterConfig,
    pub(crate) prof: ExcessTrafficMeterProfile,
}

#[pymethods]
impl EtmProfilePy {
    #[new]
    #[pyo3(signature = (excess_rate, bs_etm, mode = "classic", tick_hz = None))]
    fn py_new(
        excess_rate: &Bound<'_, PyAny>,
        bs_etm: &Bound<'_, PyAny>,
        mode: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mode = match mode {
            "classic" => ExcessMode::Classic(ClassicTie::Section2_4),
            "classic-b6" => ExcessMode::Classic(ClassicTie::AppendixB6),
            "size-independent" => ExcessMode::SizeIndependent,
            m => {
                return Err(PyValueError::new_err(format!(
                    "mode: expected 'classic', 'classic-b6' or 'size-independent', got {m:?}"
                )))
            }
        };
        let mut cfg = ExcessTrafficMeterConfig::new(
            args::rate(excess_rate, "excess_rate", netcond::trtcm::Mode::Bytes)?,
            args::size(bs_etm, "bs_etm")?,
        )
        .with_mode(mode);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = ExcessTrafficMeterProfile::new(&cfg).map_err(args::value_error)?;
        Ok(EtmProfilePy { cfg, prof })
    }
    #[getter]
    fn excess_rate(&self) -> u64 {
        self.cfg.excess_rate.bits_per_sec()
    }
    #[getter]
    fn bs_etm(&self) -> u64 {
        self.cfg.bs_etm
    }
    #[getter]
    fn mode(&self) -> &'static str {
        match self.cfg.mode {
            ExcessMode::Classic(ClassicTie::AppendixB6) => "classic-b6",
            ExcessMode::SizeIndependent => "size-independent",
            _ => "classic",
        }
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "ExcessTrafficMeterProfile(excess_rate={}, bs_etm={}, mode='{}', tick_hz={})",
            self.excess_rate(),
            self.bs_etm(),
            self.mode(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.excess_rate(), s.bs_etm(), s.mode(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The validated constants of a 3sM AS-marker.
///
/// `AsMarkerProfile(ar, bucket_size, threshold, form="3sm-01", tick_hz=10**9)`:
/// AR in bit/s or a tc string, TB.size and TB.threshold in bytes; `form` is
/// `"3sm-01"` (draft-babiarz-pcn-3sm-01 s3.2.2) or `"explicit-marking-01"`
/// (draft-babiarz-pcn-explicit-marking-01 s1.2).
#[pyclass(module = "netcond", name = "AsMarkerProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct AsProfilePy {
    cfg: AsMarkerConfig,
    pub(crate) prof: AsMarkerProfile,
}

#[pymethods]
impl AsProfilePy {
    #[new]
    #[pyo3(signature = (ar, bucket_size, threshold, form = "3sm-01", tick_hz = None))]
    fn py_new(
        ar: &Bound<'_, PyAny>,
        bucket_size: &Bound<'_, PyAny>,
        threshold: &Bound<'_, PyAny>,
        form: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let form = match form {
            "3sm-01" => AsForm::Draft3sm01,
            "explicit-marking-01" => AsForm::DraftExplicitMarking01,
            f => {
                return Err(PyValueError::new_err(format!(
                    "form: expected '3sm-01' or 'explicit-marking-01', got {f:?}"
                )))
            }
        };
        let mut cfg = AsMarkerConfig::draft_3sm01(
            args::rate(ar, "ar", netcond::trtcm::Mode::Bytes)?,
            args::size(bucket_size, "bucket_size")?,
            args::size(threshold, "threshold")?,
        )
        .with_form(form);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = AsMarkerProfile::new(&cfg).map_err(args::value_error)?;
        Ok(AsProfilePy { cfg, prof })
    }
    #[getter]
    fn ar(&self) -> u64 {
        self.cfg.ar.bits_per_sec()
    }
    #[getter]
    fn bucket_size(&self) -> u64 {
        self.cfg.bucket_size
    }
    #[getter]
    fn threshold(&self) -> u64 {
        self.cfg.threshold
    }
    #[getter]
    fn form(&self) -> &'static str {
        match self.cfg.form {
            AsForm::DraftExplicitMarking01 => "explicit-marking-01",
            _ => "3sm-01",
        }
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "AsMarkerProfile(ar={}, bucket_size={}, threshold={}, form='{}', tick_hz={})",
            self.ar(),
            self.bucket_size(),
            self.threshold(),
            self.form(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.ar(),
            s.bucket_size(),
            s.threshold(),
            s.form(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The validated constants of a 3sM ET-marker.
///
/// `EtMarkerProfile(sr, bucket_size, s, form="3sm-01", mtu=None,
/// tick_hz=10**9)`: SR in bit/s or a tc string, TB.size and `s` in bytes;
/// `form` is `"3sm-01"` (tail marking, s3.1.2), `"explicit-marking-01"`
/// (s1.2: an already-ET packet also adds `s`) or `"size-independent"`
/// (3sm-01 appendix A.1.5, which needs `mtu`).
#[pyclass(module = "netcond", name = "EtMarkerProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct EtProfilePy {
    cfg: EtMarkerConfig,
    form: &'static str,
    pub(crate) prof: EtMarkerProfile,
}

#[pymethods]
impl EtProfilePy {
    #[new]
    #[pyo3(signature = (sr, bucket_size, s, form = "3sm-01", mtu = None, tick_hz = None))]
    fn py_new(
        sr: &Bound<'_, PyAny>,
        bucket_size: &Bound<'_, PyAny>,
        s: &Bound<'_, PyAny>,
        form: &str,
        mtu: Option<&Bound<'_, PyAny>>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let sr = args::rate(sr, "sr", netcond::trtcm::Mode::Bytes)?;
        let b = args::size(bucket_size, "bucket_size")?;
        let s = args::size(s, "s")?;
        let (mut cfg, form) = match (form, mtu) {
            ("3sm-01", None) => (EtMarkerConfig::draft_3sm01(sr, b, s), "3sm-01"),
            ("explicit-marking-01", None) => (
                EtMarkerConfig::draft_explicit_marking_01(sr, b, s),
                "explicit-marking-01",
            ),
            ("size-independent", Some(m)) => (
                EtMarkerConfig::draft_3sm01_size_independent(sr, b, s, args::size_u32(m, "mtu")?),
                "size-independent",
            ),
            ("size-independent", None) => {
                return Err(PyValueError::new_err(
                    "mtu: the size-independent form needs the MTU",
                ))
            }
            ("3sm-01" | "explicit-marking-01", Some(_)) => {
                return Err(PyValueError::new_err(
                    "mtu: only the size-independent form takes an MTU",
                ))
            }
            (f, _) => {
                return Err(PyValueError::new_err(format!(
                "form: expected '3sm-01', 'explicit-marking-01' or 'size-independent', got {f:?}"
            )))
            }
        };
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = EtMarkerProfile::new(&cfg).map_err(args::value_error)?;
        Ok(EtProfilePy { cfg, form, prof })
    }
    #[getter]
    fn sr(&self) -> u64 {
        self.cfg.sr.bits_per_sec()
    }
    #[getter]
    fn bucket_size(&self) -> u64 {
        self.cfg.bucket_size
    }
    #[getter]
    fn s(&self) -> u64 {
        self.cfg.s
    }
    #[getter]
    fn form(&self) -> &'static str {
        self.form
    }
    #[getter]
    fn mtu(&self) -> Option<u32> {
        match self.cfg.marking {
            netcond::pcn::EtMarking::SizeIndependent { mtu } => Some(mtu),
            _ => None,
        }
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "EtMarkerProfile(sr={}, bucket_size={}, s={}, form='{}', mtu={}, tick_hz={})",
            self.sr(),
            self.bucket_size(),
            self.s(),
            self.form,
            shared::py_opt(self.mtu()),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let x = slf.get();
        let a = (x.sr(), x.bucket_size(), x.s(), x.form, x.mtu(), x.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

macro_rules! pcn_meter {
    ($py:ident, $name:literal, $prof:ident, $state:ident) => {
        #[doc = concat!("A PCN ", $name, " (RFC 5670 or the 3sM drafts): a profile and one link's state.")]
        ///
        /// `mark(now, length, mark=PcnMark.NM)` meters a packet carrying
        /// `mark` (an RFC 6660 ECN codepoint) and gives its new `PcnMark`;
        /// bulk: uint64 `now`, uint32 `length` and an optional uint8 `mark`
        /// array (default all NM) give a uint8 array of codepoints.
        #[pyclass(module = "netcond", name = $name)]
        #[derive(Clone)]
        pub struct $py {
            profile: $prof,
            state: $state,
        }

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = (profile = None, *, now = 0, **config))]
            fn py_new(
                py: Python<'_>,
                profile: Option<$prof>,
                now: u64,
                config: Option<&Bound<'_, PyDict>>,
            ) -> PyResult<Self> {
                let profile = shared::profile_or_config(py, profile, config)?;
                let state = <$state as netcond::base::State>::start(&profile.prof, Instant::from_ticks(now));
                Ok($py { profile, state })
            }
            #[getter]
            fn profile(&self) -> $prof {
                self.profile.clone()
            }
            #[pyo3(signature = (now, length, mark = None))]
            fn mark<'py>(
                &mut self,
                py: Python<'py>,
                now: &Bound<'py, PyAny>,
                length: &Bound<'py, PyAny>,
                mark: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyAny>> {
                if !bulk::is_array(now) {
                    let m = match mark {
                        Some(m) => mark_arg(m.extract()?)?,
                        None => PcnMark::Nm,
                    };
                    let out = self.state.mark(
                        &self.profile.prof,
                        Instant::from_ticks(now.extract()?),
                        length.extract()?,
                        m,
                    );
                    return Ok(MARKS.get(py, usize::from(out.ecn()))?.into_bound(py));
                }
                bulk::arrays!(t = now: u64, l = length: u32);
                let marks = bulk::opt_array::<u8>(mark, "mark")?;
                if let Some(&bad) = marks.iter().flatten().find(|&&x| x > 3) {
                    mark_arg(bad)?;
                }
                let n = bulk::same_len(&[
                    ("now", t.len()),
                    ("length", l.len()),
                    ("mark", bulk::opt_len(&marks, t.len())),
                ])?;
                let prof = self.profile.prof;
                Ok(bulk::map(py, &mut self.state, n, |st, i| {
                            let m = marks
                                .as_ref()
                                .map_or(PcnMark::Nm, |v| PcnMark::from_ecn(v[i]));
                            st.mark(&prof, Instant::from_ticks(t[i]), l[i], m).ecn()
                        }))
            }
            fn __copy__(&self) -> Self {
                self.clone()
            }
            fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
                self.clone()
            }
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
                let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &s.state.to_form())
            }
            fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
                self.state = Pickled::from_form(shared::restore(state)?);
                Ok(())
            }
            fn __repr__(&self) -> String {
                format!(
                    concat!($name, "({}, {})"),
                    self.profile.__repr__(),
                    self.state.describe()
                )
            }
        }
    };
}

/// A meter's state in the form its pickle carries (the library's serde
/// form; a node marker's is its two stages'), and its levels for `repr`.
pub trait Pickled: Sized {
    type Form: serde::Serialize + serde::de::DeserializeOwned;
    fn to_form(&self) -> Self::Form;
    fn from_form(form: Self::Form) -> Self;
    fn describe(&self) -> String;
}

macro_rules! pickled_as_itself {
    ($($t:ty),*) => {$(
        impl Pickled for $t {
            type Form = $t;
            fn to_form(&self) -> $t {
                *self
            }
            fn from_form(form: $t) -> $t {
                form
            }
            fn describe(&self) -> String {
                format!("fill_units={}", self.level())
            }
        }
    )*};
}

pickled_as_itself!(
    ThresholdMeter,
    ExcessTrafficMeter,
    AsMarker,
    EtMarker,
    netcond::pcn::EtMarkerSim48
);

impl<E: Pickled + PcnMeter, T: Pickled + PcnMeter> Pickled for NodeMarker<E, T> {
    type Form = (E::Form, T::Form);
    fn to_form(&self) -> Self::Form {
        (self.excess.to_form(), self.threshold.to_form())
    }
    fn from_form((e, t): Self::Form) -> Self {
        NodeMarker {
            excess: E::from_form(e),
            threshold: T::from_form(t),
        }
    }
    fn describe(&self) -> String {
        format!(
            "excess_units={}, threshold_units={}",
            self.excess.level(),
            self.threshold.level()
        )
    }
}

mod decision;
mod dscp;
mod edge;
mod edge_control;
mod node;
mod stop_blocking;

pcn_meter!(TmPy, "ThresholdMeter", TmProfilePy, ThresholdMeter);
pcn_meter!(
    EtmPy,
    "ExcessTrafficMeter",
    EtmProfilePy,
    ExcessTrafficMeter
);

pcn_meter!(AsPy, "AsMarker", AsProfilePy, AsMarker);
pcn_meter!(EtPy, "EtMarker", EtProfilePy, EtMarker);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AsProfilePy>()?;
    m.add_class::<EtProfilePy>()?;
    m.add_class::<AsPy>()?;
    m.add_class::<EtPy>()?;
    m.add_class::<TmProfilePy>()?;
    m.add_class::<EtmProfilePy>()?;
    m.add_class::<TmPy>()?;
    m.add_class::<EtmPy>()?;
    dscp::register(m)?;
    edge::register(m)?;
    node::register(m)
}

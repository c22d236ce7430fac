//! RFC 2697 srTCM, RFC 2698 trTCM and RFC 4115 markers.

use crate::args;
use crate::bulk::{self, COLORS};
use crate::shared;
use netcond::base::{Color, Instant};
use netcond::trtcm::{
    Rfc4115, Rfc4115Config, Rfc4115Profile, Rfc4115Ties, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm,
    TrTcmConfig, TrTcmProfile,
};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The validated constants of an RFC 2697 single rate three color marker.
///
/// `SrTcmProfile(cir, cbs, ebs, mode="bytes", tick_hz=10**9)`: `cir` in bit/s
/// (an int, or a tc string such as `"10mbit"`), `cbs` and `ebs` in bytes (an
/// int, or `"10kb"`); in packet mode rates are packets/s and bursts packets.
#[pyclass(module = "netcond", name = "SrTcmProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct SrTcmProfilePy {
    pub cfg: SrTcmConfig,
    pub prof: SrTcmProfile,
}

#[pymethods]
impl SrTcmProfilePy {
    #[new]
    #[pyo3(signature = (cir, cbs, ebs, mode = "bytes", tick_hz = None))]
    fn py_new(
        cir: &Bound<'_, PyAny>,
        cbs: &Bound<'_, PyAny>,
        ebs: &Bound<'_, PyAny>,
        mode: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mode = args::mode(mode)?;
        let mut cfg = SrTcmConfig::new(
            args::rate(cir, "cir", mode)?,
            args::size(cbs, "cbs")?,
            args::size(ebs, "ebs")?,
        )
        .with_mode(mode);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = SrTcmProfile::new(&cfg).map_err(args::value_error)?;
        Ok(SrTcmProfilePy { cfg, prof })
    }
    /// CIR: bit/s (packets/s in packet mode).
    #[getter]
    fn cir(&self) -> u64 {
        args::rate_number(self.cfg.cir, self.cfg.mode)
    }
    /// CBS: bytes (packets in packet mode).
    #[getter]
    fn cbs(&self) -> u64 {
        self.cfg.cbs
    }
    /// EBS: bytes (packets in packet mode).
    #[getter]
    fn ebs(&self) -> u64 {
        self.cfg.ebs
    }
    #[getter]
    fn mode(&self) -> &'static str {
        args::mode_name(self.cfg.mode)
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "SrTcmProfile(cir={}, cbs={}, ebs={}, mode='{}', tick_hz={})",
            self.cir(),
            self.cbs(),
            self.ebs(),
            self.mode(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.cir(), s.cbs(), s.ebs(), s.mode(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The validated constants of an RFC 2698 two rate three color marker.
///
/// `TrTcmProfile(cir, pir, cbs, pbs, mode="bytes", tick_hz=10**9)`: rates in
/// bit/s or tc strings (`"10mbit"`), bursts in bytes or tc strings (`"10kb"`).
#[pyclass(module = "netcond", name = "TrTcmProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct TrTcmProfilePy {
    pub cfg: TrTcmConfig,
    pub prof: TrTcmProfile,
}

#[pymethods]
impl TrTcmProfilePy {
    #[new]
    #[pyo3(signature = (cir, pir, cbs, pbs, mode = "bytes", tick_hz = None))]
    fn py_new(
        cir: &Bound<'_, PyAny>,
        pir: &Bound<'_, PyAny>,
        cbs: &Bound<'_, PyAny>,
        pbs: &Bound<'_, PyAny>,
        mode: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mode = args::mode(mode)?;
        let mut cfg = TrTcmConfig::new(
            args::rate(cir, "cir", mode)?,
            args::rate(pir, "pir", mode)?,
            args::size(cbs, "cbs")?,
            args::size(pbs, "pbs")?,
        )
        .with_mode(mode);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = TrTcmProfile::new(&cfg).map_err(args::value_error)?;
        Ok(TrTcmProfilePy { cfg, prof })
    }
    /// CIR: bit/s (packets/s in packet mode).
    #[getter]
    fn cir(&self) -> u64 {
        args::rate_number(self.cfg.cir, self.cfg.mode)
    }
    /// PIR: bit/s (packets/s in packet mode).
    #[getter]
    fn pir(&self) -> u64 {
        args::rate_number(self.cfg.pir, self.cfg.mode)
    }
    #[getter]
    fn cbs(&self) -> u64 {
        self.cfg.cbs
    }
    #[getter]
    fn pbs(&self) -> u64 {
        self.cfg.pbs
    }
    #[getter]
    fn mode(&self) -> &'static str {
        args::mode_name(self.cfg.mode)
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "TrTcmProfile(cir={}, pir={}, cbs={}, pbs={}, mode='{}', tick_hz={})",
            self.cir(),
            self.pir(),
            self.cbs(),
            self.pbs(),
            self.mode(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (s.cir(), s.pir(), s.cbs(), s.pbs(), s.mode(), s.tick_hz());
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The validated constants of an RFC 4115 marker.
///
/// `Rfc4115Profile(cir, eir, cbs, ebs, mode="bytes", tick_hz=10**9,
/// ties="figure1")`: `ties="text"` takes section 3's `T - B > 0` in place of
/// figure 1's `B <= T`.
#[pyclass(module = "netcond", name = "Rfc4115Profile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Rfc4115ProfilePy {
    pub cfg: Rfc4115Config,
    pub prof: Rfc4115Profile,
}

#[pymethods]
impl Rfc4115ProfilePy {
    #[new]
    #[pyo3(signature = (cir, eir, cbs, ebs, mode = "bytes", tick_hz = None, ties = "figure1"))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        cir: &Bound<'_, PyAny>,
        eir: &Bound<'_, PyAny>,
        cbs: &Bound<'_, PyAny>,
        ebs: &Bound<'_, PyAny>,
        mode: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
        ties: &str,
    ) -> PyResult<Self> {
        let mode = args::mode(mode)?;
        let mut cfg = Rfc4115Config::new(
            args::rate(cir, "cir", mode)?,
            args::rate(eir, "eir", mode)?,
            args::size(cbs, "cbs")?,
            args::size(ebs, "ebs")?,
        )
        .with_mode(mode);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let ties = match ties {
            "figure1" => Rfc4115Ties::Figure1,
            "text" => Rfc4115Ties::Text,
            t => {
                return Err(PyValueError::new_err(format!(
                    "ties: expected 'figure1' or 'text', got {t:?}"
                )))
            }
        };
        let prof = Rfc4115Profile::with_ties(&cfg, ties).map_err(args::value_error)?;
        Ok(Rfc4115ProfilePy { cfg, prof })
    }
    #[getter]
    fn cir(&self) -> u64 {
        args::rate_number(self.cfg.cir, self.cfg.mode)
    }
    #[getter]
    fn eir(&self) -> u64 {
        args::rate_number(self.cfg.eir, self.cfg.mode)
    }
    #[getter]
    fn cbs(&self) -> u64 {
        self.cfg.cbs
    }
    #[getter]
    fn ebs(&self) -> u64 {
        self.cfg.ebs
    }
    #[getter]
    fn mode(&self) -> &'static str {
        args::mode_name(self.cfg.mode)
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    #[getter]
    fn ties(&self) -> &'static str {
        match self.prof.ties() {
            Rfc4115Ties::Text => "text",
            _ => "figure1",
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "Rfc4115Profile(cir={}, eir={}, cbs={}, ebs={}, mode='{}', tick_hz={}, ties='{}')",
            self.cir(),
            self.eir(),
            self.cbs(),
            self.ebs(),
            self.mode(),
            self.tick_hz(),
            self.ties()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.cir(),
            s.eir(),
            s.cbs(),
            s.ebs(),
            s.mode(),
            s.tick_hz(),
            s.ties(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// A marker: one profile and one flow's state, with per-packet and bulk calls.
macro_rules! marker {
    ($py:ident, $name:literal, $prof:ident, $state:ident, $t1:ident, $t2:ident) => {
        #[doc = concat!("A ", $name, " marker: a profile and one flow's state.")]
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
                let state = $state::new(&profile.prof, Instant::from_ticks(now));
                Ok($py { profile, state })
            }

            /// The profile (a copy; the meter keeps its own).
            #[getter]
            fn profile(&self) -> $prof {
                self.profile.clone()
            }

            /// Tokens of the first bucket, in the profile's units of 1/scale byte.
            #[getter]
            fn $t1(&self) -> u64 {
                self.state.$t1()
            }

            /// Tokens of the second bucket, in the profile's units of 1/scale byte.
            #[getter]
            fn $t2(&self) -> u64 {
                self.state.$t2()
            }

            /// The last instant the state has seen, in ticks.
            #[getter]
            fn last(&self) -> u64 {
                self.state.last().ticks()
            }

            /// Colors packets, color-blind. Per packet: `now` (ticks) and
            /// `length` (bytes; ignored in packet mode, where it may be
            /// omitted) give a `Color`. Bulk: `now` a uint64 array and `length`
            /// a uint32 array (or None in packet mode) give a uint8 array of
            /// colors (0 green, 1 yellow, 2 red), exactly as the same calls one
            /// by one would, with the GIL released.
            #[pyo3(signature = (now, length = None))]
            fn color_blind<'py>(
                &mut self,
                py: Python<'py>,
                now: &Bound<'py, PyAny>,
                length: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyAny>> {
                if !bulk::is_array(now) {
                    let t = Instant::from_ticks(now.extract::<u64>()?);
                    let c = match length {
                        Some(l) => self.state.color_blind(&self.profile.prof, t, l.extract()?),
                        None => self.state.color_blind_packet(&self.profile.prof, t),
                    };
                    return Ok(COLORS.get(py, c.index())?.into_bound(py));
                }
                let prof = self.profile.prof;
                bulk::timed(
                    py,
                    &mut self.state,
                    now,
                    length,
                    |st, t, l| st.color_blind(&prof, Instant::from_ticks(t), l) as u8,
                    |st, t| st.color_blind_packet(&prof, Instant::from_ticks(t)) as u8,
                )
            }

            /// Colors pre-colored packets, color-aware (a result is never
            /// better than its input color). Per packet: `now`, `length`,
            /// `color` give a `Color`; bulk: uint64 `now`, uint32 `length`
            /// (or None in packet mode) and uint8 `color` arrays give a uint8
            /// array.
            #[pyo3(signature = (now, length, color))]
            fn color_aware<'py>(
                &mut self,
                py: Python<'py>,
                now: &Bound<'py, PyAny>,
                length: Option<&Bound<'py, PyAny>>,
                color: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyAny>> {
                if !bulk::is_array(now) {
                    let t = Instant::from_ticks(now.extract::<u64>()?);
                    let input = args::color(color.extract()?)?;
                    let c = match length {
                        Some(l) => {
                            self.state
                                .color_aware(&self.profile.prof, t, l.extract()?, input)
                        }
                        None => self.state.color_aware_packet(&self.profile.prof, t, input),
                    };
                    return Ok(COLORS.get(py, c.index())?.into_bound(py));
                }
                bulk::arrays!(times = now: u64, ins = color: u8);
                bulk::same_len(&[("now", times.len()), ("color", ins.len())])?;
                if let Some(&bad) = ins.iter().find(|&&c| c > 2) {
                    args::color(bad)?;
                }
                let prof = self.profile.prof;
                let mut st = self.state;
                let colors = match length {
                    Some(l) => {
                        let lens = bulk::array::<u32>(l, "length", "uint32")?;
                        let lens = bulk::cow(&lens);
                        bulk::same_len(&[("now", times.len()), ("length", lens.len())])?;
                        py.allow_threads(|| {
                            times
                                .iter()
                                .zip(lens.iter())
                                .zip(ins.iter())
                                .map(|((&t, &l), &c)| {
                                    st.color_aware(
                                        &prof,
                                        Instant::from_ticks(t),
                                        l,
                                        Color::from_index(usize::from(c)),
                                    ) as u8
                                })
                                .collect::<Vec<u8>>()
                        })
                    }
                    None => py.allow_threads(|| {
                        times
                            .iter()
                            .zip(ins.iter())
                            .map(|(&t, &c)| {
                                st.color_aware_packet(
                                    &prof,
                                    Instant::from_ticks(t),
                                    Color::from_index(usize::from(c)),
                                ) as u8
                            })
                            .collect::<Vec<u8>>()
                    }),
                };
                self.state = st;
                Ok(PyArray1::from_vec(py, colors).into_any())
            }

            /// Moves the flow to `profile` at `now`: tokens carried over
            /// exactly in bytes, capped at the new bucket sizes.
            fn move_to(&mut self, profile: $prof, now: u64) {
                self.state
                    .move_to(&self.profile.prof, &profile.prof, Instant::from_ticks(now));
                self.profile = profile;
            }

            fn __repr__(&self) -> String {
                format!(
                    concat!($name, "({}, {}={}, {}={}, last={})"),
                    self.profile.__repr__(),
                    stringify!($t1),
                    self.state.$t1(),
                    stringify!($t2),
                    self.state.$t2(),
                    self.state.last().ticks()
                )
            }

            fn __copy__(&self) -> Self {
                self.clone()
            }

            fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
                self.clone()
            }

            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
                let py = slf.py();
                let s = slf.borrow();
                let state = (s.state.$t1(), s.state.$t2(), s.state.last().ticks());
                (slf.get_type(), (s.profile.clone(),), state).into_pyobject(py)
            }

            fn __setstate__(&mut self, state: (u64, u64, u64)) {
                self.state = $state::from_parts(
                    &self.profile.prof,
                    state.0,
                    state.1,
                    Instant::from_ticks(state.2),
                );
            }
        }
    };
}

marker!(SrTcmPy, "SrTcm", SrTcmProfilePy, SrTcm, tc, te);
marker!(TrTcmPy, "TrTcm", TrTcmProfilePy, TrTcm, tc, tp);
marker!(Rfc4115Py, "Rfc4115", Rfc4115ProfilePy, Rfc4115, tc, te);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SrTcmProfilePy>()?;
    m.add_class::<TrTcmProfilePy>()?;
    m.add_class::<Rfc4115ProfilePy>()?;
    m.add_class::<SrTcmPy>()?;
    m.add_class::<TrTcmPy>()?;
    m.add_class::<Rfc4115Py>()?;
    m.add_function(wrap_pyfunction!(trtcm_rust_loop_seconds, m)?)?;
    Ok(())
}

/// The Rust loop of a bulk trTCM call timed inside Rust (seconds), without
/// the Python call, argument checks or the result array's wrapping: the
/// reference the benchmark compares the bulk call with.
#[pyfunction]
pub fn trtcm_rust_loop_seconds(
    py: Python<'_>,
    profile: TrTcmProfilePy,
    now: numpy::PyReadonlyArray1<'_, u64>,
    length: numpy::PyReadonlyArray1<'_, u32>,
) -> PyResult<f64> {
    let times = bulk::cow(&now);
    let lens = bulk::cow(&length);
    bulk::same_len(&[("now", times.len()), ("length", lens.len())])?;
    let prof = profile.prof;
    Ok(py.allow_threads(|| {
        let mut st = TrTcm::new(&prof, Instant::ZERO);
        let mut out = vec![0u8; times.len()];
        let t0 = std::time::Instant::now();
        for ((o, &t), &l) in out.iter_mut().zip(times.iter()).zip(lens.iter()) {
            *o = st.color_blind(&prof, Instant::from_ticks(t), l) as u8;
        }
        let dt = t0.elapsed().as_secs_f64();
        std::hint::black_box(&out);
        dt
    }))
}

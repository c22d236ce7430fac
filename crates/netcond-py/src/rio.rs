//! RIO (Clark and Fang's RED with In/Out; RIO-C, RIO-D and WRED) over three colors.

use crate::args;
use crate::bulk;
use crate::shared::{self, py_bool};
use netcond::base::{Color, Instant, SplitMix64};
use netcond::red::{Packet, Precedence, QueueUnit, RedConfig, Rio, RioConfig, RioMode, RioProfile};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::red::{decision_index, ecn_of, DECISIONS};

fn color(c: u8) -> PyResult<Color> {
    match c {
        0 => Ok(Color::Green),
        1 => Ok(Color::Yellow),
        2 => Ok(Color::Red),
        c => Err(PyValueError::new_err(format!(
            "color: expected 0 (green), 1 (yellow) or 2 (red), got {c}"
        ))),
    }
}

fn mode_name(m: RioMode) -> &'static str {
    match m {
        RioMode::Coupled => "coupled",
        RioMode::Decoupled => "decoupled",
        _ => "wred",
    }
}

/// The validated constants of a RIO queue.
///
/// `RioProfile(green, yellow, red, mode="coupled", w_q=0.002, limit=None,
/// unit="packets", gentle=False, ecn=False)`: each color's `(min_th, max_th,
/// max_p)`, thresholds and limit in packets (bytes with `unit="bytes"`),
/// `limit` defaulting to 2 x the largest max_th; `mode` is `"coupled"`
/// (RIO-C), `"decoupled"` (RIO-D) or `"wred"`.
#[pyclass(module = "netcond", name = "RioProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct RioProfilePy {
    cfg: RioConfig,
    prof: RioProfile,
}

impl RioProfilePy {
    fn color_thresholds(&self, i: usize) -> (u32, u32, f64) {
        let c = &self.cfg.colors[i];
        (c.min_th, c.max_th, c.max_p.to_num::<f64>())
    }
}

#[pymethods]
impl RioProfilePy {
    #[new]
    #[pyo3(signature = (green, yellow, red, mode = "coupled", w_q = 0.002, limit = None, unit = "packets", gentle = false, ecn = false))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        green: (u32, u32, f64),
        yellow: (u32, u32, f64),
        red: (u32, u32, f64),
        mode: &str,
        w_q: f64,
        limit: Option<u32>,
        unit: &str,
        gentle: bool,
        ecn: bool,
    ) -> PyResult<Self> {
        let mode = match mode {
            "coupled" | "rio-c" => RioMode::Coupled,
            "decoupled" | "rio-d" => RioMode::Decoupled,
            "wred" => RioMode::Wred,
            m => {
                return Err(PyValueError::new_err(format!(
                    "mode: expected 'coupled', 'decoupled' or 'wred', got {m:?}"
                )))
            }
        };
        let unit = match unit {
            "packets" => QueueUnit::Packets,
            "bytes" => QueueUnit::Bytes,
            u => {
                return Err(PyValueError::new_err(format!(
                    "unit: expected 'packets' or 'bytes', got {u:?}"
                )))
            }
        };
        let p = |(lo, hi, mp): (u32, u32, f64), what: &str| -> PyResult<Precedence> {
            if !(mp.is_finite() && mp >= 0.0) {
                return Err(PyValueError::new_err(format!(
                    "{what}: max_p must be a finite number >= 0, got {mp}"
                )));
            }
            Ok(Precedence::new(lo, hi, RedConfig::prob(mp)))
        };
        if !(w_q.is_finite() && w_q >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "w_q: expected a finite number >= 0, got {w_q}"
            )));
        }
        let limit = limit.unwrap_or(green.1.max(yellow.1).max(red.1).saturating_mul(2));
        let mut cfg = RioConfig::new(
            mode,
            RedConfig::prob(w_q),
            [p(green, "green")?, p(yellow, "yellow")?, p(red, "red")?],
            limit,
        );
        cfg.queue = cfg.queue.with_unit(unit).with_gentle(gentle).with_ecn(ecn);
        let prof = RioProfile::new(&cfg).map_err(args::value_error)?;
        Ok(RioProfilePy { cfg, prof })
    }
    #[getter]
    fn green(&self) -> (u32, u32, f64) {
        self.color_thresholds(0)
    }
    #[getter]
    fn yellow(&self) -> (u32, u32, f64) {
        self.color_thresholds(1)
    }
    #[getter]
    fn red(&self) -> (u32, u32, f64) {
        self.color_thresholds(2)
    }
    #[getter]
    fn mode(&self) -> &'static str {
        mode_name(self.cfg.mode)
    }
    #[getter]
    fn w_q(&self) -> f64 {
        self.cfg.queue.w_q.to_num::<f64>()
    }
    #[getter]
    fn limit(&self) -> u32 {
        self.cfg.queue.limit
    }
    #[getter]
    fn unit(&self) -> &'static str {
        match self.cfg.queue.unit {
            QueueUnit::Bytes => "bytes",
            _ => "packets",
        }
    }
    #[getter]
    fn gentle(&self) -> bool {
        self.cfg.queue.gentle
    }
    #[getter]
    fn ecn(&self) -> bool {
        self.cfg.queue.ecn
    }
    fn __repr__(&self) -> String {
        let t = |c: (u32, u32, f64)| format!("({}, {}, {:?})", c.0, c.1, c.2);
        format!(
            "RioProfile(green={}, yellow={}, red={}, mode='{}', w_q={:?}, limit={}, unit='{}', gentle={}, ecn={})",
            t(self.green()),
            t(self.yellow()),
            t(self.red()),
            self.mode(),
            self.w_q(),
            self.limit(),
            self.unit(),
            py_bool(self.gentle()),
            py_bool(self.ecn()),
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.green(),
            s.yellow(),
            s.red(),
            s.mode(),
            s.w_q(),
            s.limit(),
            s.unit(),
            s.gentle(),
            s.ecn(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// A RIO queue's state with its profile and a seeded random source
/// (SplitMix64; the same seed gives the same decisions).
///
/// `on_arrival(now, queue, color, length, ecn_capable=False)`: `queue` is the
/// queued amount of each color `(green, yellow, red)` before the packet,
/// `color` its `Color`; gives a `Decision`.
#[pyclass(module = "netcond", name = "Rio")]
#[derive(Clone)]
pub struct RioPy {
    profile: RioProfilePy,
    state: Rio,
    rng: SplitMix64,
}

#[pymethods]
impl RioPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<RioProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Rio::new(&profile.prof, Instant::from_ticks(now));
        Ok(RioPy {
            profile,
            state,
            rng: SplitMix64::new(seed),
        })
    }
    #[getter]
    fn profile(&self) -> RioProfilePy {
        self.profile.clone()
    }
    /// Each color's average queue as floats (exact values: fixed point).
    #[getter]
    fn avg(&self) -> (f64, f64, f64) {
        let p = &self.profile.prof;
        (
            self.state.avg(p, Color::Green).to_num::<f64>(),
            self.state.avg(p, Color::Yellow).to_num::<f64>(),
            self.state.avg(p, Color::Red).to_num::<f64>(),
        )
    }
    /// Each color's packets since its last early drop or mark.
    #[getter]
    fn counts(&self) -> (u32, u32, u32) {
        let c = self.state.counts();
        (c[0], c[1], c[2])
    }
    /// Per packet: ints (and a 3-tuple `queue`) give a `Decision`. Bulk:
    /// uint64 `now`, a (n, 3) uint32 `queue` array, uint8 `color` and uint32
    /// `length` arrays (and an optional bool `ecn_capable` array) give a
    /// uint8 array (0 enqueue, 1 mark, 2 drop early, 3 drop forced).
    #[pyo3(signature = (now, queue, color, length, ecn_capable = None))]
    fn on_arrival<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        queue: &Bound<'py, PyAny>,
        color: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let prof = self.profile.prof;
        if !bulk::is_array(now) {
            let q: (u32, u32, u32) = queue.extract()?;
            let pkt = Packet::new(length.extract()?, ecn_of(bulk::flag(ecn_capable)?));
            let d = self.state.on_arrival(
                &prof,
                Instant::from_ticks(now.extract()?),
                [q.0, q.1, q.2],
                self::color(color.extract()?)?,
                pkt,
                &mut self.rng,
            );
            return Ok(DECISIONS.get(py, decision_index(d))?.into_bound(py));
        }
        bulk::arrays!(t = now: u64);
        let q = queue
            .extract::<numpy::PyReadonlyArray2<'_, u32>>()
            .map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(
                    "queue: expected a (n, 3) numpy array of uint32",
                )
            })?;
        let qa = q.as_array();
        if qa.ncols() != 3 {
            return Err(PyValueError::new_err(
                "queue: expected 3 columns (green, yellow, red)",
            ));
        }
        let qv: Vec<[u32; 3]> = qa.rows().into_iter().map(|r| [r[0], r[1], r[2]]).collect();
        bulk::arrays!(c = color: u8);
        let cs = c
            .iter()
            .map(|&x| self::color(x))
            .collect::<PyResult<Vec<Color>>>()?;
        bulk::arrays!(l = length: u32);
        let ecn = bulk::flags(ecn_capable)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("queue", qv.len()),
            ("color", cs.len()),
            ("length", l.len()),
            ("ecn_capable", bulk::opt_len(&ecn, t.len())),
        ])?;
        let mut sr = (self.state, self.rng);
        let out = bulk::map(py, &mut sr, n, |(st, rng), i| {
            let pkt = Packet::new(l[i], ecn_of(bulk::flag_at(&ecn, i)));
            decision_index(st.on_arrival(&prof, Instant::from_ticks(t[i]), qv[i], cs[i], pkt, rng))
                as u8
        });
        (self.state, self.rng) = sr;
        Ok(out)
    }
    /// The whole queue became empty at `now`.
    fn on_queue_empty(&mut self, now: u64) {
        self.state
            .on_queue_empty(&self.profile.prof, Instant::from_ticks(now));
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &(s.state, s.rng))
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (st, rng): (Rio, SplitMix64) = shared::restore(state)?;
        self.state = st;
        self.rng = rng;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "Rio({}, counts={:?})",
            self.profile.__repr__(),
            self.counts()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RioProfilePy>()?;
    m.add_class::<RioPy>()?;
    Ok(())
}

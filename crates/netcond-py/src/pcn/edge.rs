//! The PCN edge (RFC 6661 / 6662 and the 3sM drafts): what the egress
//! measures and the CLE fractions, U and admission states the edge classes
//! share. The egress meter and its reports are here; the CLE admission in
//! `edge_control`, the stop-blocking timer in `stop_blocking`, the decision
//! point in `decision`; the bulk loop they share in `poll_feed`.

use super::mark_arg;
use crate::args;
use crate::bulk;
use crate::shared::{self, py_bool};
use fixed::types::{U16F16, U1F31};
use netcond::base::Instant;
use netcond::pcn::{
    Admission, Cle, EdgeBehaviour, EgressMeter, EgressMeterConfig, EgressMeterProfile, PcnMark,
    Report, Suppression,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The most ETM flows an egress report lists (the most recent distinct ones).
pub const MAX_FLOWS: usize = 16;

/// The library's report, flows as Python ints.
pub type EdgeReport = Report<u64, MAX_FLOWS>;

pub(super) mod poll_feed;

const ONE_Q31: f64 = 2_147_483_648.0;

/// A CLE fraction (0 to 1) as a `U1F31`, rounded down to a multiple of
/// 2**-31: `k / 1000` gives the library's `per_mille(k)`. Values from 1 to 2
/// are passed on for the profile to refuse with netcond's message.
pub fn fraction(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<U1F31> {
    let f: f64 = obj
        .extract()
        .map_err(|_| PyValueError::new_err(format!("{what}: expected a number between 0 and 1")))?;
    if !(0.0..2.0).contains(&f) {
        return Err(PyValueError::new_err(format!(
            "{what}: expected a fraction between 0 and 1, got {f}"
        )));
    }
    Ok(U1F31::from_bits((f * ONE_Q31).floor() as u32))
}

/// A `U1F31` as the float it is exactly.
pub fn fraction_value(x: U1F31) -> f64 {
    f64::from(x.to_bits()) / ONE_Q31
}

/// `behaviour` (`"controlled-load"` or `"single-marking"`) with its U (SM
/// only; 1.5 when omitted), U rounded to the nearest 2**-16.
pub fn behaviour(name: &str, u: Option<f64>) -> PyResult<EdgeBehaviour> {
    match (name, u) {
        ("controlled-load" | "cl", None) => Ok(EdgeBehaviour::ControlledLoad),
        ("controlled-load" | "cl", Some(_)) => Err(PyValueError::new_err(
            "u: only single marking (RFC 6662) takes U",
        )),
        ("single-marking" | "sm", None) => Ok(EdgeBehaviour::SingleMarking {
            u: U16F16::from_bits(3 << 15),
        }),
        ("single-marking" | "sm", Some(u)) => {
            let u = U16F16::checked_from_num(u).ok_or_else(|| {
                PyValueError::new_err(format!("u: {u} is not a number from 0 to 65536"))
            })?;
            Ok(EdgeBehaviour::SingleMarking { u })
        }
        (b, _) => Err(PyValueError::new_err(format!(
            "behaviour: expected 'controlled-load' or 'single-marking', got {b:?}"
        ))),
    }
}

/// The name and U of a behaviour, as [`behaviour`] takes them.
pub fn behaviour_name(b: EdgeBehaviour) -> (&'static str, Option<f64>) {
    match b {
        EdgeBehaviour::SingleMarking { u } => ("single-marking", Some(u.to_num::<f64>())),
        _ => ("controlled-load", None),
    }
}

/// An admission state as Python spells it.
pub fn admission_name(a: Admission) -> &'static str {
    match a {
        Admission::Admit => "admit",
        Admission::Block => "block",
    }
}

/// An admission state from its Python spelling.
pub fn admission_arg(s: &str) -> PyResult<Admission> {
    match s {
        "admit" => Ok(Admission::Admit),
        "block" => Ok(Admission::Block),
        _ => Err(PyValueError::new_err(format!(
            "admission: expected 'admit' or 'block', got {s:?}"
        ))),
    }
}

/// A CLE as a float (0 with no traffic).
pub fn cle_value(c: Cle) -> f64 {
    if c.total == 0 {
        0.0
    } else {
        c.marked as f64 / c.total as f64
    }
}

/// A sequence of ints as Python writes a tuple of them.
pub fn py_tuple(v: &[u64]) -> String {
    match v {
        [x] => format!("({x},)"),
        _ => format!(
            "({})",
            v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// A duration in nanoseconds, for getters and pickles.
pub fn ns(d: core::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The validated constants of an RFC 6661 (CL) or RFC 6662 (SM)
/// PCN-egress-node measurement.
///
/// `EgressMeterProfile(behaviour="controlled-load", u=None, t_meas="200ms",
/// record_etm_flows=None, cle_reporting_threshold=None, t_maxsuppress=None,
/// tick_hz=10**9)`: `behaviour` is `"controlled-load"` (RFC 6661) or
/// `"single-marking"` (RFC 6662, with `u`, 1.5 by default, kept to the
/// nearest 2**-16); `t_meas` is the measurement interval; `record_etm_flows`
/// (CL only; default True for CL) lists the flows seen with ETM packets;
/// giving `t_maxsuppress` turns on report suppression (section 3.2.3) with
/// `cle_reporting_threshold` (a fraction, default 0).
#[pyclass(module = "netcond", name = "EgressMeterProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct EgressMeterProfilePy {
    cfg: EgressMeterConfig,
    pub(crate) prof: EgressMeterProfile,
}

#[pymethods]
impl EgressMeterProfilePy {
    #[new]
    #[pyo3(signature = (behaviour = "controlled-load", u = None, t_meas = None, record_etm_flows = None, cle_reporting_threshold = None, t_maxsuppress = None, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        behaviour: &str,
        u: Option<f64>,
        t_meas: Option<&Bound<'_, PyAny>>,
        record_etm_flows: Option<bool>,
        cle_reporting_threshold: Option<&Bound<'_, PyAny>>,
        t_maxsuppress: Option<&Bound<'_, PyAny>>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let b = self::behaviour(behaviour, u)?;
        let mut cfg = match b {
            EdgeBehaviour::ControlledLoad => EgressMeterConfig::controlled_load(),
            _ => EgressMeterConfig::single_marking(),
        }
        .with_behaviour(b);
        if let Some(t) = t_meas {
            cfg = cfg.with_t_meas(args::duration(t, "t_meas")?);
        }
        if let Some(r) = record_etm_flows {
            cfg = cfg.with_record_etm_flows(r);
        }
        let suppression = match (cle_reporting_threshold, t_maxsuppress) {
            (None, None) => None,
            (thr, Some(t)) => Some(Suppression::new(
                thr.map_or(Ok(U1F31::ZERO), |x| fraction(x, "cle_reporting_threshold"))?,
                args::duration(t, "t_maxsuppress")?,
            )),
            (Some(_), None) => {
                return Err(PyValueError::new_err(
                    "cle_reporting_threshold: report suppression also needs t_maxsuppress \
                     (RFC 6661 section 3.2.3)",
                ))
            }
        };
        cfg = cfg.with_suppression(suppression);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = EgressMeterProfile::new(&cfg).map_err(args::value_error)?;
        Ok(EgressMeterProfilePy { cfg, prof })
    }
    /// `"controlled-load"` or `"single-marking"`.
    #[getter]
    fn behaviour(&self) -> &'static str {
        behaviour_name(self.cfg.behaviour).0
    }
    /// U (single marking), as held (a multiple of 2**-16); None for CL.
    #[getter]
    fn u(&self) -> Option<f64> {
        behaviour_name(self.cfg.behaviour).1
    }
    /// T_meas in nanoseconds.
    #[getter]
    fn t_meas(&self) -> u64 {
        ns(self.cfg.t_meas)
    }
    #[getter]
    fn record_etm_flows(&self) -> bool {
        self.cfg.record_etm_flows
    }
    /// The CLE-reporting-threshold, None without suppression.
    #[getter]
    fn cle_reporting_threshold(&self) -> Option<f64> {
        self.cfg
            .suppression
            .map(|s| fraction_value(s.cle_reporting_threshold))
    }
    /// T_maxsuppress in nanoseconds, None without suppression.
    #[getter]
    fn t_maxsuppress(&self) -> Option<u64> {
        self.cfg.suppression.map(|s| ns(s.t_maxsuppress))
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    pub(crate) fn __repr__(&self) -> String {
        format!(
            "EgressMeterProfile(behaviour='{}', u={}, t_meas={}, record_etm_flows={}, \
             cle_reporting_threshold={}, t_maxsuppress={}, tick_hz={})",
            self.behaviour(),
            shared::py_opt(self.u()),
            self.t_meas(),
            py_bool(self.record_etm_flows()),
            shared::py_opt(self.cle_reporting_threshold()),
            shared::py_opt(self.t_maxsuppress()),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.behaviour(),
            s.u(),
            s.t_meas(),
            s.record_etm_flows(),
            s.cle_reporting_threshold(),
            s.t_maxsuppress(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// One measurement report of an `EgressMeter` (RFC 6661 / 6662 section 3.2).
///
/// `start`, `end`: the interval `[start, end)` in ticks; `nm_bytes`,
/// `thm_bytes`, `etm_bytes`: the bytes of each marking in it (SM counts ThM
/// as ETM); `nm_rate`, `thm_rate`, `etm_rate`: the same in octets per second
/// (RFC 6661's unit), rounded down; `cle_marked / cle_total`: the CLE as an
/// exact ratio of bytes (`cle` as a float); `etm_flows`: the flows seen with
/// ETM packets (CL option), most recent last, at most 16. Built by the meter,
/// or by hand to feed a `DecisionPoint`.
#[pyclass(module = "netcond", name = "EgressReport", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct EgressReportPy {
    pub(crate) r: EdgeReport,
}

#[pymethods]
impl EgressReportPy {
    #[new]
    #[pyo3(signature = (start, end, nm_bytes, thm_bytes, etm_bytes, nm_rate, thm_rate, etm_rate, cle_marked, cle_total, etm_flows = Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        start: u64,
        end: u64,
        nm_bytes: u64,
        thm_bytes: u64,
        etm_bytes: u64,
        nm_rate: u64,
        thm_rate: u64,
        etm_rate: u64,
        cle_marked: u64,
        cle_total: u64,
        etm_flows: Vec<u64>,
    ) -> PyResult<Self> {
        if cle_marked > cle_total {
            return Err(PyValueError::new_err(format!(
                "cle_marked: {cle_marked} marked bytes out of {cle_total}"
            )));
        }
        let flows = heapless::Vec::from_slice(&etm_flows).map_err(|()| {
            PyValueError::new_err(format!(
                "etm_flows: a report lists at most {MAX_FLOWS} flows, got {}",
                etm_flows.len()
            ))
        })?;
        Ok(EgressReportPy {
            r: Report {
                start: Instant::from_ticks(start),
                end: Instant::from_ticks(end),
                nm_bytes,
                thm_bytes,
                etm_bytes,
                nm_rate,
                thm_rate,
                etm_rate,
                cle: Cle::new(cle_marked, cle_total),
                etm_flows: flows,
            },
        })
    }
    #[getter]
    fn start(&self) -> u64 {
        self.r.start.ticks()
    }
    #[getter]
    fn end(&self) -> u64 {
        self.r.end.ticks()
    }
    #[getter]
    fn nm_bytes(&self) -> u64 {
        self.r.nm_bytes
    }
    #[getter]
    fn thm_bytes(&self) -> u64 {
        self.r.thm_bytes
    }
    #[getter]
    fn etm_bytes(&self) -> u64 {
        self.r.etm_bytes
    }
    #[getter]
    fn nm_rate(&self) -> u64 {
        self.r.nm_rate
    }
    #[getter]
    fn thm_rate(&self) -> u64 {
        self.r.thm_rate
    }
    #[getter]
    fn etm_rate(&self) -> u64 {
        self.r.etm_rate
    }
    #[getter]
    fn cle_marked(&self) -> u64 {
        self.r.cle.marked
    }
    #[getter]
    fn cle_total(&self) -> u64 {
        self.r.cle.total
    }
    /// The CLE as a float (0 with no traffic).
    #[getter]
    fn cle(&self) -> f64 {
        cle_value(self.r.cle)
    }
    #[getter]
    fn etm_flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.r.etm_flows.iter())
    }
    fn __repr__(&self) -> String {
        let r = &self.r;
        format!(
            "EgressReport(start={}, end={}, nm_bytes={}, thm_bytes={}, etm_bytes={}, \
             nm_rate={}, thm_rate={}, etm_rate={}, cle_marked={}, cle_total={}, etm_flows={})",
            r.start.ticks(),
            r.end.ticks(),
            r.nm_bytes,
            r.thm_bytes,
            r.etm_bytes,
            r.nm_rate,
            r.thm_rate,
            r.etm_rate,
            r.cle.marked,
            r.cle.total,
            py_tuple(&r.etm_flows)
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let r = &slf.get().r;
        let a = (
            r.start.ticks(),
            r.end.ticks(),
            r.nm_bytes,
            r.thm_bytes,
            r.etm_bytes,
            r.nm_rate,
            r.thm_rate,
            r.etm_rate,
            r.cle.marked,
            r.cle.total,
            r.etm_flows.to_vec(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// The PCN-egress-node measurement of one ingress-egress aggregate (RFC 6661
/// / 6662 section 3.2), with its profile: bytes of NM, ThM and ETM packets
/// per T_meas, and at the end of each interval an `EgressReport`.
///
/// `on_packet(now, length, mark, flow=0)`: one packet (`mark` an RFC 6660
/// ECN codepoint, `flow` an int below 2**64 naming its flow). A packet at or
/// after the end of the interval closes it; `poll(now)` gives the report
/// (call until it gives None); `next_wakeup` is when `poll` next has
/// something to do. A report lists at most 16 ETM flows: beyond that the
/// oldest are dropped from the list (the bytes are all counted).
///
/// Bulk: `on_packets(now, length, mark, flow=None)` over uint64, uint32,
/// uint8 (and uint64) arrays does, for each packet, `poll(now)` until None
/// and then `on_packet`, with the GIL released, and gives the reports so
/// polled as a list; the interval the last packet is in stays open.
#[pyclass(module = "netcond", name = "EgressMeter")]
#[derive(Clone)]
pub struct EgressMeterPy {
    profile: EgressMeterProfilePy,
    state: EgressMeter<u64, MAX_FLOWS>,
}

#[pymethods]
impl EgressMeterPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<EgressMeterProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = EgressMeter::new(&profile.prof, Instant::from_ticks(now));
        Ok(EgressMeterPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> EgressMeterProfilePy {
        self.profile.clone()
    }
    #[pyo3(signature = (now, length, mark, flow = 0))]
    fn on_packet(&mut self, now: u64, length: u32, mark: u8, flow: u64) -> PyResult<()> {
        let m = mark_arg(mark)?;
        self.state.on_packet(
            &self.profile.prof,
            Instant::from_ticks(now),
            length,
            m,
            flow,
        );
        Ok(())
    }
    #[pyo3(signature = (now, length, mark, flow = None))]
    fn on_packets<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        mark: &Bound<'py, PyAny>,
        flow: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<EgressReportPy>> {
        bulk::arrays!(t = now: u64, l = length: u32, m = mark: u8);
        let flows = bulk::opt_array::<u64>(flow, "flow")?;
        poll_feed::check_marks(&m)?;
        bulk::same_len(&[
            ("now", t.len()),
            ("length", l.len()),
            ("mark", m.len()),
            ("flow", bulk::opt_len(&flows, t.len())),
        ])?;
        let prof = self.profile.prof;
        let (out, ()) = poll_feed::poll_then_feed(
            py,
            &mut self.state,
            &t,
            |st, at| st.poll(&prof, at).map(|r| EgressReportPy { r }),
            |st, i, at| {
                let f = flows.as_ref().map_or(0, |v| v[i]);
                st.on_packet(&prof, at, l[i], PcnMark::from_ecn(m[i]), f);
            },
            (),
        );
        Ok(out)
    }
    /// The report of the interval that has ended, if any (call until None).
    fn poll(&mut self, now: u64) -> Option<EgressReportPy> {
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now))
            .map(|r| EgressReportPy { r })
    }
    /// When `poll` next has something to do, in ticks.
    #[getter]
    fn next_wakeup(&self) -> u64 {
        self.state.next_wakeup().ticks()
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
            "EgressMeter({}, next_wakeup={})",
            self.profile.__repr__(),
            self.next_wakeup()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EgressMeterProfilePy>()?;
    m.add_class::<EgressReportPy>()?;
    m.add_class::<EgressMeterPy>()?;
    super::edge_control::register(m)
}

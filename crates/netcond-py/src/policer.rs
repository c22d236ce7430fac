//! The single-rate EF premium policer: a token bucket in front of a premium buffer.

use crate::args;
use crate::bulk::{self, EnumCache};
use crate::shared;
use netcond::base::Instant;
use netcond::trtcm::{PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

static VERDICTS: EnumCache = EnumCache::new("Verdict");

/// The validated constants of a premium policer.
///
/// `PremiumPolicerProfile(rate, tbs, pbs, max_packet=1500, mode="bytes",
/// tick_hz=10**9)`: the committed `rate` (bit/s or a tc string), the token
/// bucket size TBs and the premium buffer PBs (bytes or tc strings).
#[pyclass(module = "netcond", name = "PremiumPolicerProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PolicerProfilePy {
    cfg: PremiumPolicerConfig,
    prof: PremiumPolicerProfile,
}

#[pymethods]
impl PolicerProfilePy {
    #[new]
    #[pyo3(signature = (rate, tbs, pbs, max_packet = None, mode = "bytes", tick_hz = None))]
    fn py_new(
        rate: &Bound<'_, PyAny>,
        tbs: &Bound<'_, PyAny>,
        pbs: &Bound<'_, PyAny>,
        max_packet: Option<&Bound<'_, PyAny>>,
        mode: &str,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mode = args::mode(mode)?;
        let max_packet = match max_packet {
            Some(m) => args::size_u32(m, "max_packet")?,
            None if mode.is_packets() => 1,
            None => 1500,
        };
        let mut cfg = PremiumPolicerConfig::new(
            args::rate(rate, "rate", mode)?,
            args::size(tbs, "tbs")?,
            args::size(pbs, "pbs")?,
            max_packet,
        )
        .with_mode(mode);
        if let Some(t) = tick_hz {
            cfg = cfg.with_tick(args::tick(t)?);
        }
        let prof = PremiumPolicerProfile::new(&cfg).map_err(args::value_error)?;
        Ok(PolicerProfilePy { cfg, prof })
    }
    /// The committed rate: bit/s (packets/s in packet mode).
    #[getter]
    fn rate(&self) -> u64 {
        args::rate_number(self.cfg.rate, self.cfg.mode)
    }
    #[getter]
    fn tbs(&self) -> u64 {
        self.cfg.tbs
    }
    #[getter]
    fn pbs(&self) -> u64 {
        self.cfg.pbs
    }
    #[getter]
    fn max_packet(&self) -> u32 {
        self.cfg.max_packet
    }
    #[getter]
    fn mode(&self) -> &'static str {
        args::mode_name(self.cfg.mode)
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.tick.hz()
    }
    /// Whether PBs > TBs + one packet (the premium TCP test's rule for no buffer drop).
    fn pbs_exceeds_tbs_plus_packet(&self) -> bool {
        self.prof.pbs_exceeds_tbs_plus_packet()
    }
    fn __repr__(&self) -> String {
        format!(
            "PremiumPolicerProfile(rate={}, tbs={}, pbs={}, max_packet={}, mode='{}', tick_hz={})",
            self.rate(),
            self.tbs(),
            self.pbs(),
            self.max_packet(),
            self.mode(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.rate(),
            s.tbs(),
            s.pbs(),
            s.max_packet(),
            s.mode(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// A premium policer: a profile and one flow's state.
///
/// `offer(now, length)` gives a `Verdict` (admitted, policer drop, buffer
/// drop); report departures from the premium buffer with `dequeued(length)`.
/// A bulk `offer` (arrays) offers the packets in order with no departures in
/// between.
#[pyclass(module = "netcond", name = "PremiumPolicer")]
#[derive(Clone)]
pub struct PolicerPy {
    profile: PolicerProfilePy,
    state: PremiumPolicer,
}

#[pymethods]
impl PolicerPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<PolicerProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = PremiumPolicer::new(&profile.prof, Instant::from_ticks(now));
        Ok(PolicerPy { profile, state })
    }
    #[getter]
    fn profile(&self) -> PolicerProfilePy {
        self.profile.clone()
    }
    /// Tokens in the bucket, in the profile's units of 1/scale byte.
    #[getter]
    fn tokens(&self) -> u64 {
        self.state.tokens()
    }
    /// Bytes (packets in packet mode) in the premium buffer.
    #[getter]
    fn backlog(&self) -> u64 {
        self.state.backlog()
    }
    #[getter]
    fn last(&self) -> u64 {
        self.state.last().ticks()
    }
    /// Polices packets. Per packet: `now` (ticks) and `length` (bytes; omit in
    /// packet mode) give a `Verdict`. Bulk: a uint64 `now` array and a uint32
    /// `length` array (or None) give a uint8 array of verdicts.
    #[pyo3(signature = (now, length = None))]
    fn offer<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        length: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            let t = Instant::from_ticks(now.extract::<u64>()?);
            let v = match length {
                Some(l) => self.state.offer(&self.profile.prof, t, l.extract()?),
                None => self.state.offer_packet(&self.profile.prof, t),
            };
            return Ok(VERDICTS.get(py, v.index())?.into_bound(py));
        }
        let prof = self.profile.prof;
        bulk::timed(
            py,
            &mut self.state,
            now,
            length,
            |st, t, l| st.offer(&prof, Instant::from_ticks(t), l) as u8,
            |st, t| st.offer_packet(&prof, Instant::from_ticks(t)) as u8,
        )
    }
    /// Reports that `length` bytes (packets in packet mode) left the premium buffer.
    fn dequeued(&mut self, length: u32) {
        self.state.dequeued(length);
    }
    /// Moves the flow to `profile` at `now` (tokens carried over exactly, capped at the new TBs).
    fn move_to(&mut self, profile: PolicerProfilePy, now: u64) {
        self.state
            .move_to(&self.profile.prof, &profile.prof, Instant::from_ticks(now));
        self.profile = profile;
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
        self.state = shared::restore::<PremiumPolicer>(state)?;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "PremiumPolicer({}, tokens={}, backlog={}, last={})",
            self.profile.__repr__(),
            self.state.tokens(),
            self.state.backlog(),
            self.state.last().ticks()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PolicerProfilePy>()?;
    m.add_class::<PolicerPy>()?;
    Ok(())
}

//! FQ-CoDel (RFC 8290) over 1024 flow queues, the packets' FIFOs kept here.

use crate::args;
use crate::bulk;
use crate::codel::{verdict_index, AQM_VERDICTS};
use crate::shared::{self, py_bool};
use netcond::base::Instant;
use netcond::delay::{
    Enqueued, FqCodel, FqCodelConfig, FqCodelProfile, Head, OverflowDrop, Verdict,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::VecDeque;

/// The number of flow queues (Linux's default `flows`).
pub const FLOWS: usize = 1024;

/// The validated constants of FQ-CoDel.
///
/// `FqCodelProfile(target="5ms", interval="100ms", mtu=None, ecn=True,
/// law="rfc8290", quantum=1514, limit=10240, drop_batch=None, tick_hz=10**9)`:
/// `law="rfc8290"` runs RFC 8289's exact CoDel in every flow and drops one
/// packet on overflow; `law="linux"` is `sch_fq_codel`'s arithmetic and its
/// batch drop (at most `drop_batch`, 64, packets until half the fattest flow's
/// bytes are gone). `drop_batch` given selects the batch drop.
#[pyclass(module = "netcond", name = "FqCodelProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct FqCodelProfilePy {
    cfg: FqCodelConfig,
    law: &'static str,
    prof: FqCodelProfile,
}

#[pymethods]
impl FqCodelProfilePy {
    #[new]
    #[pyo3(signature = (target = None, interval = None, mtu = None, ecn = true, law = "rfc8290", quantum = None, limit = None, drop_batch = None, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        target: Option<&Bound<'_, PyAny>>,
        interval: Option<&Bound<'_, PyAny>>,
        mtu: Option<&Bound<'_, PyAny>>,
        ecn: bool,
        law: &str,
        quantum: Option<&Bound<'_, PyAny>>,
        limit: Option<u32>,
        drop_batch: Option<u32>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (mut cfg, law) = match law {
            "rfc8290" => (FqCodelConfig::rfc8290(), "rfc8290"),
            "linux" => (FqCodelConfig::linux(), "linux"),
            l => {
                return Err(PyValueError::new_err(format!(
                    "law: expected 'rfc8290' or 'linux', got {l:?}"
                )))
            }
        };
        let mut c = cfg.codel;
        if let Some(t) = target {
            c = c.with_target(args::duration(t, "target")?);
        }
        if let Some(i) = interval {
            c = c.with_interval(args::duration(i, "interval")?);
        }
        if let Some(m) = mtu {
            c = c.with_mtu(args::size_u32(m, "mtu")?);
        }
        c = c.with_ecn(ecn);
        if let Some(t) = tick_hz {
            c = c.with_tick(args::tick(t)?);
        }
        cfg = cfg.with_codel(c);
        if let Some(q) = quantum {
            cfg = cfg.with_quantum(args::size_u32(q, "quantum")?);
        }
        if let Some(l) = limit {
            cfg = cfg.with_limit(l);
        }
        if let Some(b) = drop_batch {
            cfg = cfg.with_overflow(OverflowDrop::Batch { max_packets: b });
        }
        let prof = FqCodelProfile::new(&cfg).map_err(args::value_error)?;
        Ok(FqCodelProfilePy { cfg, law, prof })
    }
    /// TARGET in nanoseconds.
    #[getter]
    fn target(&self) -> u128 {
        self.cfg.codel.target.as_nanos()
    }
    /// INTERVAL in nanoseconds.
    #[getter]
    fn interval(&self) -> u128 {
        self.cfg.codel.interval.as_nanos()
    }
    #[getter]
    fn mtu(&self) -> u32 {
        self.cfg.codel.mtu
    }
    #[getter]
    fn ecn(&self) -> bool {
        self.cfg.codel.ecn
    }
    #[getter]
    fn law(&self) -> &'static str {
        self.law
    }
    #[getter]
    fn quantum(&self) -> u32 {
        self.cfg.quantum
    }
    #[getter]
    fn limit(&self) -> u32 {
        self.cfg.limit
    }
    /// The batch drop's most packets, or None for the single-packet drop.
    #[getter]
    fn drop_batch(&self) -> Option<u32> {
        match self.cfg.overflow {
            OverflowDrop::Single => None,
            OverflowDrop::Batch { max_packets } => Some(max_packets),
        }
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.codel.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "FqCodelProfile(target={}, interval={}, mtu={}, ecn={}, law='{}', quantum={}, limit={}, drop_batch={}, tick_hz={})",
            self.target(),
            self.interval(),
            self.mtu(),
            py_bool(self.ecn()),
            self.law,
            self.quantum(),
            self.limit(),
            self.drop_batch()
                .map_or_else(|| "None".to_string(), |b| b.to_string()),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.cfg.codel.target.as_nanos() as u64,
            s.cfg.codel.interval.as_nanos() as u64,
            s.mtu(),
            s.ecn(),
            s.law,
            s.quantum(),
            s.limit(),
            s.drop_batch(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// FQ-CoDel over 1024 flow queues, holding each queued packet's enqueue
/// instant, length and ECN capability in its flow's FIFO.
///
/// `enqueue(now, flow, length, ecn_capable=False)` queues a packet in flow
/// `flow % 1024` (the caller's hash) and returns how many packets an overflow
/// dropped (0 if none); `dequeue(now)` takes the head packet of the flow DRR
/// schedules and returns `(flow, enqueued, length, AqmVerdict)`, or None when
/// empty: after a `DROP`, call again.
#[pyclass(module = "netcond", name = "FqCodel")]
#[derive(Clone)]
pub struct FqCodelPy {
    profile: FqCodelProfilePy,
    state: Box<FqCodel<FLOWS>>,
    fifos: Vec<VecDeque<Head>>,
}

impl FqCodelPy {
    fn enqueue_one(&mut self, now: u64, flow: usize, len: u32, ecn: bool) -> u32 {
        let f = flow % FLOWS;
        let t = Instant::from_ticks(now);
        self.fifos[f].push_back(Head::new(t, len, ecn));
        let fifos = &mut self.fifos;
        match self.state.enqueue(&self.profile.prof, t, f, len, |v| {
            fifos[v].pop_front().map(|h| h.len)
        }) {
            Enqueued::Queued => 0,
            Enqueued::Overflow { packets, .. } => packets,
        }
    }

    fn dequeue_one(&mut self, now: u64) -> Option<(usize, Head, Verdict)> {
        let t = Instant::from_ticks(now);
        let f = self.state.schedule(&self.profile.prof, t)?;
        let head = self.fifos[f].pop_front()?;
        let v = self.state.on_dequeue(&self.profile.prof, t, f, head);
        Some((f, head, v))
    }
}

#[pymethods]
impl FqCodelPy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<FqCodelProfilePy>,
        now: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Box::new(FqCodel::new(&profile.prof, Instant::from_ticks(now)));
        Ok(FqCodelPy {
            profile,
            state,
            fifos: vec![VecDeque::new(); FLOWS],
        })
    }
    #[getter]
    fn profile(&self) -> FqCodelProfilePy {
        self.profile.clone()
    }
    /// Packets queued.
    #[getter]
    fn packets(&self) -> u32 {
        self.state.packets()
    }
    /// Bytes queued.
    #[getter]
    fn bytes(&self) -> u64 {
        self.state.bytes()
    }
    /// Packets queued in flow `flow % 1024`.
    fn flow_packets(&self, flow: usize) -> u32 {
        self.state.flow_packets(flow % FLOWS)
    }
    /// The DRR deficit of flow `flow % 1024`, in bytes.
    fn deficit(&self, flow: usize) -> i64 {
        self.state.deficit(flow % FLOWS)
    }
    /// Queues a packet. Per packet: ints give the overflow's drop count.
    /// Bulk: uint64 `now`, uint32 `flow`, uint32 `length` arrays (and an
    /// optional bool/uint8 `ecn_capable` array) give a uint32 array of drop
    /// counts, as the calls one by one would.
    #[pyo3(signature = (now, flow, length, ecn_capable = None))]
    fn enqueue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        flow: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            let e = bulk::flag(ecn_capable)?;
            let n = self.enqueue_one(now.extract()?, flow.extract()?, length.extract()?, e);
            return Ok(n.into_pyobject(py)?.into_any());
        }
        bulk::arrays!(t = now: u64, f = flow: u32, l = length: u32);
        let ecn = bulk::flags(ecn_capable)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("flow", f.len()),
            ("length", l.len()),
            ("ecn_capable", bulk::opt_len(&ecn, t.len())),
        ])?;
        Ok(bulk::map_in_place(py, self, n, |s, i| {
            s.enqueue_one(t[i], f[i] as usize, l[i], bulk::flag_at(&ecn, i))
        }))
    }
    /// Takes the scheduled head packet. Per packet: an int gives
    /// `(flow, enqueued, length, AqmVerdict)` or None when empty. Bulk: a
    /// uint64 `now` array gives `(flow, verdict)` arrays, int64 flows (-1
    /// where the queue was empty, its verdict then 0) and uint8 verdicts.
    fn dequeue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            return match self.dequeue_one(now.extract()?) {
                None => Ok(py.None().into_bound(py)),
                Some((f, h, v)) => (
                    f,
                    h.enqueued.ticks(),
                    h.len,
                    AQM_VERDICTS.get(py, verdict_index(v))?,
                )
                    .into_pyobject(py)
                    .map(Bound::into_any),
            };
        }
        bulk::arrays!(t = now: u64);
        bulk::map2_in_place(py, self, t.len(), |s, i| match s.dequeue_one(t[i]) {
            None => (-1i64, 0u8),
            Some((f, _, v)) => (f as i64, verdict_index(v) as u8),
        })
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    /// Pickled with the packets it holds: the queues' state and their FIFOs.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &(&s.state, &s.fifos))
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (st, fifos): (Box<FqCodel<FLOWS>>, Vec<VecDeque<Head>>) = shared::restore(state)?;
        check_fifos(&fifos, |f| st.flow_packets(f))?;
        self.state = st;
        self.fifos = fifos;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "FqCodel({}, packets={}, bytes={})",
            self.profile.__repr__(),
            self.state.packets(),
            self.state.bytes()
        )
    }
}

/// A pickled state's FIFOs hold one queue per flow, each with the packets
/// its flow counts (`packets(f)`, saturating at `u32::MAX`).
pub fn check_fifos(fifos: &[VecDeque<Head>], packets: impl Fn(usize) -> u32) -> PyResult<()> {
    if fifos.len() != FLOWS {
        return Err(PyValueError::new_err(format!(
            "a pickled state holds {} flow FIFOs, not {FLOWS}",
            fifos.len()
        )));
    }
    match fifos
        .iter()
        .enumerate()
        .find(|(f, q)| u32::try_from(q.len()).unwrap_or(u32::MAX) != packets(*f))
    {
        Some((f, q)) => Err(PyValueError::new_err(format!(
            "a pickled state's flow {f} counts {} packets but its FIFO holds {}",
            packets(f),
            q.len()
        ))),
        None => Ok(()),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FqCodelProfilePy>()?;
    m.add_class::<FqCodelPy>()?;
    Ok(())
}

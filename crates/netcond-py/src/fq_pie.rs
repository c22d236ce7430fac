//! FQ-PIE (Linux `sch_fq_pie`): FQ-CoDel's flow scheduler with a PIE per
//! flow, over 1024 flow queues, the packets' FIFOs kept here.

use crate::args;
use crate::bulk;
use crate::codel::{verdict_index, AQM_VERDICTS};
use crate::fq_codel::{check_fifos, FLOWS};
use crate::pie::PieArgs;
use crate::shared::{self, py_bool};
use netcond::base::{Instant, SplitMix64};
use netcond::delay::{FqPie, FqPieConfig, FqPieProfile, Head, Verdict};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::VecDeque;

/// The validated constants of FQ-PIE.
///
/// `FqPieProfile(target="15ms", t_update="15ms", max_burst="150ms", alpha=2,
/// beta=20, mtu=1514, ecn=False, bytemode=False, quantum=1514, limit=10240,
/// ecn_prob=10, tick_hz=10**9)`: `sch_fq_pie`'s defaults; each flow runs
/// PIE's Linux law on its own backlog; `limit` counts packets over all flows;
/// with `ecn` an early-drop candidate is marked while its flow's probability
/// is at most `ecn_prob` percent.
#[pyclass(module = "netcond", name = "FqPieProfile", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct FqPieProfilePy {
    cfg: FqPieConfig,
    prof: FqPieProfile,
}

#[pymethods]
impl FqPieProfilePy {
    #[new]
    #[pyo3(signature = (target = None, t_update = None, max_burst = None, alpha = None, beta = None, mtu = None, ecn = false, bytemode = false, quantum = None, limit = None, ecn_prob = None, tick_hz = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        target: Option<&Bound<'_, PyAny>>,
        t_update: Option<&Bound<'_, PyAny>>,
        max_burst: Option<&Bound<'_, PyAny>>,
        alpha: Option<u32>,
        beta: Option<u32>,
        mtu: Option<&Bound<'_, PyAny>>,
        ecn: bool,
        bytemode: bool,
        quantum: Option<&Bound<'_, PyAny>>,
        limit: Option<u32>,
        ecn_prob: Option<u32>,
        tick_hz: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut cfg = FqPieConfig::linux();
        let pie = PieArgs {
            target,
            t_update,
            max_burst,
            alpha,
            beta,
            mtu,
            ecn,
            bytemode,
            tick_hz,
        }
        .apply(cfg.pie)?;
        cfg = cfg.with_pie(pie);
        if let Some(q) = quantum {
            cfg = cfg.with_quantum(args::size_u32(q, "quantum")?);
        }
        if let Some(l) = limit {
            cfg = cfg.with_limit(l);
        }
        if let Some(e) = ecn_prob {
            cfg = cfg.with_ecn_prob(e);
        }
        let prof = FqPieProfile::new(&cfg).map_err(args::value_error)?;
        Ok(FqPieProfilePy { cfg, prof })
    }
    /// QDELAY_REF in nanoseconds.
    #[getter]
    fn target(&self) -> u64 {
        self.cfg.pie.target.as_nanos() as u64
    }
    /// T_UPDATE in nanoseconds.
    #[getter]
    fn t_update(&self) -> u64 {
        self.cfg.pie.t_update.as_nanos() as u64
    }
    /// MAX_BURST in nanoseconds.
    #[getter]
    fn max_burst(&self) -> u64 {
        self.cfg.pie.max_burst.as_nanos() as u64
    }
    #[getter]
    fn alpha(&self) -> u32 {
        self.cfg.pie.alpha
    }
    #[getter]
    fn beta(&self) -> u32 {
        self.cfg.pie.beta
    }
    #[getter]
    fn mtu(&self) -> u32 {
        self.cfg.pie.mtu
    }
    #[getter]
    fn ecn(&self) -> bool {
        self.cfg.pie.ecn
    }
    #[getter]
    fn bytemode(&self) -> bool {
        self.cfg.pie.bytemode
    }
    #[getter]
    fn quantum(&self) -> u32 {
        self.cfg.quantum
    }
    #[getter]
    fn limit(&self) -> u32 {
        self.cfg.limit
    }
    #[getter]
    fn ecn_prob(&self) -> u32 {
        self.cfg.ecn_prob
    }
    #[getter]
    fn tick_hz(&self) -> u64 {
        self.cfg.pie.tick.hz()
    }
    fn __repr__(&self) -> String {
        format!(
            "FqPieProfile(target={}, t_update={}, max_burst={}, alpha={}, beta={}, mtu={}, ecn={}, bytemode={}, quantum={}, limit={}, ecn_prob={}, tick_hz={})",
            self.target(),
            self.t_update(),
            self.max_burst(),
            self.alpha(),
            self.beta(),
            self.mtu(),
            py_bool(self.ecn()),
            py_bool(self.bytemode()),
            self.quantum(),
            self.limit(),
            self.ecn_prob(),
            self.tick_hz()
        )
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.get();
        let a = (
            s.target(),
            s.t_update(),
            s.max_burst(),
            s.alpha(),
            s.beta(),
            s.mtu(),
            s.ecn(),
            s.bytemode(),
            s.quantum(),
            s.limit(),
            s.ecn_prob(),
            s.tick_hz(),
        );
        (slf.get_type(), a).into_pyobject(slf.py())
    }
}

/// FQ-PIE over 1024 flow queues with a seeded random source (SplitMix64; the
/// same seed gives the same decisions), holding each queued packet's enqueue
/// instant, length and ECN capability in its flow's FIFO.
///
/// `enqueue(now, flow, length, ecn_capable=False, poll=False)` gives the
/// arrival's `AqmVerdict` in flow `flow % 1024` (a delivered or marked packet
/// is queued, a dropped one is not); `dequeue(now, poll=False)` takes the head
/// packet of the flow DRR schedules and returns `(flow, enqueued, length)`,
/// or None when empty; `poll(now)` runs every flow's probability update when
/// T_UPDATE has passed (the timer); `poll=True` polls at the call's instant
/// first.
#[pyclass(module = "netcond", name = "FqPie")]
#[derive(Clone)]
pub struct FqPiePy {
    profile: FqPieProfilePy,
    state: Box<FqPie<FLOWS>>,
    fifos: Vec<VecDeque<Head>>,
    rng: SplitMix64,
}

/// The part of an `FqPie` a bulk call works on, with the GIL released.
struct Queue<'a> {
    prof: &'a FqPieProfile,
    state: &'a mut FqPie<FLOWS>,
    fifos: &'a mut [VecDeque<Head>],
    rng: &'a mut SplitMix64,
}

impl Queue<'_> {
    fn enqueue(&mut self, now: u64, flow: usize, len: u32, ecn: bool, poll: bool) -> Verdict {
        let f = flow % FLOWS;
        let t = Instant::from_ticks(now);
        if poll {
            self.state.poll(self.prof, t);
        }
        let head = Head::new(t, len, ecn);
        let v = self.state.enqueue(self.prof, t, f, head, self.rng);
        if v != Verdict::Drop {
            self.fifos[f].push_back(head);
        }
        v
    }

    fn dequeue(&mut self, now: u64, poll: bool) -> Option<(usize, Head)> {
        let t = Instant::from_ticks(now);
        if poll {
            self.state.poll(self.prof, t);
        }
        let f = self.state.schedule(self.prof, t)?;
        let head = self.fifos[f].pop_front()?;
        self.state.on_dequeue(self.prof, t, f, head);
        Some((f, head))
    }
}

impl FqPiePy {
    fn queue(&mut self) -> Queue<'_> {
        Queue {
            prof: &self.profile.prof,
            state: &mut self.state,
            fifos: &mut self.fifos,
            rng: &mut self.rng,
        }
    }
}

#[pymethods]
impl FqPiePy {
    #[new]
    #[pyo3(signature = (profile = None, *, now = 0, seed = 1, **config))]
    fn py_new(
        py: Python<'_>,
        profile: Option<FqPieProfilePy>,
        now: u64,
        seed: u64,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let profile = shared::profile_or_config(py, profile, config)?;
        let state = Box::new(FqPie::new(&profile.prof, Instant::from_ticks(now)));
        Ok(FqPiePy {
            profile,
            state,
            fifos: vec![VecDeque::new(); FLOWS],
            rng: SplitMix64::new(seed),
        })
    }
    #[getter]
    fn profile(&self) -> FqPieProfilePy {
        self.profile.clone()
    }
    /// Packets queued over all flows.
    #[getter]
    fn packets(&self) -> u32 {
        self.state.totals().0
    }
    /// Bytes queued over all flows.
    #[getter]
    fn bytes(&self) -> u64 {
        self.state.totals().1
    }
    /// The tick at which the next probability update is due.
    #[getter]
    fn next_update(&self) -> u64 {
        self.state.next_update().ticks()
    }
    /// Flow `flow % 1024`'s packets, bytes and DRR deficit.
    fn flow(&self, flow: usize) -> (u32, u64, i64) {
        self.state.flow(flow)
    }
    /// Flow `flow % 1024`'s drop probability in units of 2**-56.
    fn prob(&self, flow: usize) -> u64 {
        self.state.pie(flow).prob()
    }
    /// Queues a packet. Per packet: ints give an `AqmVerdict`. Bulk: uint64
    /// `now`, uint32 `flow`, uint32 `length` arrays (and an optional
    /// bool/uint8 `ecn_capable` array) give a uint8 array of verdicts (0
    /// deliver, 1 mark, 2 drop), as the calls one by one would.
    #[pyo3(signature = (now, flow, length, ecn_capable = None, *, poll = false))]
    fn enqueue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        flow: &Bound<'py, PyAny>,
        length: &Bound<'py, PyAny>,
        ecn_capable: Option<&Bound<'py, PyAny>>,
        poll: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            let e = bulk::flag(ecn_capable)?;
            let (t, f, l) = (now.extract()?, flow.extract()?, length.extract()?);
            let v = self.queue().enqueue(t, f, l, e, poll);
            return Ok(AQM_VERDICTS.get(py, verdict_index(v))?.into_bound(py));
        }
        bulk::arrays!(t = now: u64, f = flow: u32, l = length: u32);
        let ecn = bulk::flags(ecn_capable)?;
        let n = bulk::same_len(&[
            ("now", t.len()),
            ("flow", f.len()),
            ("length", l.len()),
            ("ecn_capable", bulk::opt_len(&ecn, t.len())),
        ])?;
        let mut q = self.queue();
        Ok(bulk::map_in_place(py, &mut q, n, |q, i| {
            let v = q.enqueue(t[i], f[i] as usize, l[i], bulk::flag_at(&ecn, i), poll);
            verdict_index(v) as u8
        }))
    }
    /// Takes the scheduled head packet. Per packet: an int gives `(flow,
    /// enqueued, length)` or None when empty. Bulk: a uint64 `now` array
    /// gives `(flow, enqueued, length)` arrays: int64 flows (-1 where the
    /// queue was empty, its enqueued and length then 0), uint64 enqueue
    /// instants, uint32 lengths.
    #[pyo3(signature = (now, *, poll = false))]
    fn dequeue<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
        poll: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !bulk::is_array(now) {
            return match self.queue().dequeue(now.extract()?, poll) {
                None => Ok(py.None().into_bound(py)),
                Some((f, h)) => (f, h.enqueued.ticks(), h.len)
                    .into_pyobject(py)
                    .map(Bound::into_any),
            };
        }
        bulk::arrays!(t = now: u64);
        let mut q = self.queue();
        let (flows, enq, lens) = py.allow_threads(|| {
            let mut flows = Vec::with_capacity(t.len());
            let mut enq = Vec::with_capacity(t.len());
            let mut lens = Vec::with_capacity(t.len());
            for &now in t.iter() {
                let (f, e, l) = q.dequeue(now, poll).map_or((-1i64, 0u64, 0u32), |(f, h)| {
                    (f as i64, h.enqueued.ticks(), h.len)
                });
                flows.push(f);
                enq.push(e);
                lens.push(l);
            }
            (flows, enq, lens)
        });
        (
            PyArray1::from_vec(py, flows),
            PyArray1::from_vec(py, enq),
            PyArray1::from_vec(py, lens),
        )
            .into_pyobject(py)
            .map(Bound::into_any)
    }
    /// Runs every flow's probability update if T_UPDATE has passed since the
    /// last one; returns whether it ran.
    fn poll(&mut self, now: u64) -> bool {
        self.state
            .poll(&self.profile.prof, Instant::from_ticks(now))
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    /// Pickled with the packets it holds and its random source.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = slf.borrow();
        shared::reduce(slf, s.profile.clone(), &(&s.state, &s.fifos, s.rng))
    }
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (st, fifos, rng): (Box<FqPie<FLOWS>>, Vec<VecDeque<Head>>, SplitMix64) =
            shared::restore(state)?;
        check_fifos(&fifos, |f| st.flow(f).0)?;
        self.state = st;
        self.fifos = fifos;
        self.rng = rng;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "FqPie({}, packets={}, bytes={})",
            self.profile.__repr__(),
            self.packets(),
            self.bytes()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FqPieProfilePy>()?;
    m.add_class::<FqPiePy>()?;
    Ok(())
}

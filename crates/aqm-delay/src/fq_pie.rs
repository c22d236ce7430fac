//! FQ-PIE: FQ-CoDel's flow scheduler with a PIE per flow, as Linux's
//! `sch_fq_pie` (`net/sched/sch_fq_pie.c`) and ns-3's `FqPieQueueDisc` run
//! it: PIE's drop decision at enqueue on the flow's own backlog, DRR over new
//! and old flows at dequeue, one timer updating every flow's probability.

use netcond_core::{Instant, RandomSource};

use crate::drr::{Drr, ListId};
use crate::{DelayError, Head, Pie, PieConfig, PieLaw, PieProfile, Verdict, MAX_PROB};

/// Configuration of FQ-PIE.
///
/// ```
/// use aqm_delay::{FqPieConfig, FqPieProfile};
///
/// let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
/// assert_eq!(p.quantum(), 1514);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct FqPieConfig {
    /// Each flow's PIE (Linux's law; its `limit` is not used: the packet
    /// limit is `limit` below, over all flows; its `mtu` is `psched_mtu`).
    pub pie: PieConfig,
    /// The DRR quantum in bytes.
    pub quantum: u32,
    /// The packet limit over all flows: an arrival finding this many queued is
    /// dropped.
    pub limit: u32,
    /// Mark instead of drop (with ECN on) while the flow's probability is at
    /// most `ecn_prob` percent (`sch_fq_pie`'s `ecn_prob`, 10).
    pub ecn_prob: u32,
}

impl Default for FqPieConfig {
    fn default() -> Self {
        FqPieConfig::linux()
    }
}

impl FqPieConfig {
    /// `sch_fq_pie`'s defaults: PIE's (target 15 ms, T_UPDATE 15 ms, alpha
    /// 2/16, beta 20/16, burst 150 ms, no ECN, no byte mode), quantum and MTU
    /// 1514 (`psched_mtu` on Ethernet), limit 10240 packets, `ecn_prob` 10.
    #[must_use]
    pub const fn linux() -> FqPieConfig {
        FqPieConfig {
            pie: PieConfig::linux(),
            quantum: 1514,
            limit: 10 * 1024,
            ecn_prob: 10,
        }
    }

    /// Each flow's PIE.
    #[must_use]
    pub const fn with_pie(mut self, pie: PieConfig) -> FqPieConfig {
        self.pie = pie;
        self
    }

    /// The DRR quantum.
    #[must_use]
    pub const fn with_quantum(mut self, quantum: u32) -> FqPieConfig {
        self.quantum = quantum;
        self
    }

    /// The packet limit.
    #[must_use]
    pub const fn with_limit(mut self, limit: u32) -> FqPieConfig {
        self.limit = limit;
        self
    }

    /// The ECN marking threshold in percent.
    #[must_use]
    pub const fn with_ecn_prob(mut self, ecn_prob: u32) -> FqPieConfig {
        self.ecn_prob = ecn_prob;
        self
    }
}

/// A validated FQ-PIE configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FqPieProfile {
    pub(crate) pie: PieProfile,
    pub(crate) quantum: u32,
    pub(crate) limit: u32,
    /// `(MAX_PROB / 100) * ecn_prob`.
    pub(crate) ecn_prob: u64,
}

impl FqPieProfile {
    /// Validates `cfg`.
    ///
    /// # Errors
    ///
    /// PIE's errors ([`PieProfile::new`]), [`DelayError::FqPieLinuxOnly`] for
    /// the RFC law, [`DelayError::ZeroQuantum`], [`DelayError::QuantumTooLarge`],
    /// [`DelayError::ZeroLimit`], [`DelayError::FqPieEcnProbTooLarge`].
    pub fn new(cfg: &FqPieConfig) -> Result<FqPieProfile, DelayError> {
        if cfg.pie.law != PieLaw::Linux {
            return Err(DelayError::FqPieLinuxOnly);
        }
        let pie = PieProfile::new(&cfg.pie.with_limit(1))?;
        if cfg.quantum == 0 {
            return Err(DelayError::ZeroQuantum);
        }
        if cfg.quantum >= 1 << 31 {
            return Err(DelayError::QuantumTooLarge);
        }
        if cfg.limit == 0 {
            return Err(DelayError::ZeroLimit);
        }
        if cfg.ecn_prob > 100 {
            return Err(DelayError::FqPieEcnProbTooLarge);
        }
        Ok(FqPieProfile {
            pie,
            quantum: cfg.quantum,
            limit: cfg.limit,
            ecn_prob: (MAX_PROB / 100) * u64::from(cfg.ecn_prob),
        })
    }

    /// Each flow's PIE profile.
    #[must_use]
    pub const fn pie(&self) -> &PieProfile {
        &self.pie
    }

    /// The DRR quantum.
    #[must_use]
    pub const fn quantum(&self) -> u32 {
        self.quantum
    }

    /// The packet limit.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.limit
    }
}

/// FQ-PIE over `N` flow queues (`0 < N < 65535`), the packets kept by the
/// caller in one FIFO per flow.
///
/// - Enqueue: call [`enqueue`](Self::enqueue) with the flow index (taken
///   modulo `N`) and the packet; on [`Verdict::Deliver`] or [`Verdict::Mark`]
///   (set CE) push it to the tail of the flow's FIFO, on [`Verdict::Drop`]
///   discard it.
/// - Dequeue: [`schedule`](Self::schedule) names the flow to serve (DRR, new
///   flows first); take its head and call [`on_dequeue`](Self::on_dequeue).
/// - Every T_UPDATE: [`poll`](Self::poll) updates every flow's probability.
///
/// ```
/// use aqm_delay::{FqPie, FqPieConfig, FqPieProfile, Head, Verdict};
/// use netcond_core::{Instant, SplitMix64};
/// use std::collections::VecDeque;
///
/// let p = FqPieProfile::new(&FqPieConfig::linux()).unwrap();
/// let mut fq: FqPie<4> = FqPie::new(&p, Instant::ZERO);
/// let mut fifos: [VecDeque<Head>; 4] = Default::default();
/// let mut rng = SplitMix64::new(1);
/// let ms = |m: u64| Instant::from_ticks(m * 1_000_000);
/// let (mut sent, mut drops) = ([0u32; 4], [0u32; 4]);
/// // Flow 0 sends 3 packets per ms, flow 1 one per 2 ms; the link takes one
/// // 1500-byte packet per ms.
/// for t in 0..20_000u64 {
///     fq.poll(&p, ms(t));
///     for (f, n) in [(0usize, 3u64), (1, u64::from(t % 2 == 0))] {
///         for _ in 0..n {
///             let h = Head::new(ms(t), 1500, false);
///             match fq.enqueue(&p, ms(t), f, h, &mut rng) {
///                 Verdict::Drop => drops[f] += 1,
///                 _ => fifos[f].push_back(h),
///             }
///         }
///     }
///     if let Some(f) = fq.schedule(&p, ms(t)) {
///         let h = fifos[f].pop_front().unwrap();
///         fq.on_dequeue(&p, ms(t), f, h);
///         sent[f] += 1;
///     }
/// }
/// // The light flow loses nothing and gets all it asks for; the heavy flow
/// // takes the rest of the link, its PIE dropping its excess.
/// assert_eq!(drops[1], 0);
/// assert!(sent[1] >= 9_990 && sent[0] >= 9_900, "{sent:?}");
/// assert!(drops[0] > 30_000, "{drops:?}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FqPie<const N: usize> {
    /// The flows, each with its PIE, and their DRR lists.
    pub(crate) drr: Drr<Pie, N>,
    last: Instant,
    next_update: Instant,
}

impl<const N: usize> FqPie<N> {
    /// An empty queue whose flows' clocks start at `now`; the first update is
    /// due one T_UPDATE later.
    #[must_use]
    pub fn new(profile: &FqPieProfile, now: Instant) -> FqPie<N> {
        FqPie {
            drr: Drr::new(Pie::new(&profile.pie, now)),
            last: now,
            next_update: now.wrapping_add(profile.pie.t_update),
        }
    }

    /// Flow `flow % N`'s PIE.
    #[must_use]
    pub fn pie(&self, flow: usize) -> &Pie {
        &self.drr.flows[flow % N].aqm
    }

    /// Flow `flow % N`'s packets, bytes and DRR deficit.
    #[must_use]
    pub fn flow(&self, flow: usize) -> (u32, u64, i64) {
        let f = &self.drr.flows[flow % N];
        (f.packets, f.bytes, f.deficit)
    }

    /// Packets and bytes queued over all flows.
    #[must_use]
    pub const fn totals(&self) -> (u32, u64) {
        (self.drr.packets, self.drr.bytes)
    }

    /// When the next update is due.
    #[must_use]
    pub const fn next_update(&self) -> Instant {
        self.next_update
    }

    /// The newest instant seen.
    #[must_use]
    pub const fn last_seen(&self) -> Instant {
        self.last
    }

    /// The decision for a packet arriving to flow `flow % N`
    /// (`fq_pie_qdisc_enqueue`): dropped when `limit` packets are queued;
    /// else the flow's PIE (`pie_drop_early` on the flow's backlog) decides;
    /// an early-drop candidate is marked instead when ECN is on, the packet
    /// is ECN-capable and the flow's probability is at most `ecn_prob`
    /// percent. A drop resets the flow's accumulated probability. A queued
    /// packet joins the flow (a flow on no list goes to the tail of the new
    /// flows with a quantum of credit).
    pub fn enqueue<R: RandomSource>(
        &mut self,
        profile: &FqPieProfile,
        now: Instant,
        flow: usize,
        pkt: Head,
        rng: &mut R,
    ) -> Verdict {
        self.last.advance_to(now);
        // One clock for all flows: the newest instant seen by the queue.
        let now = self.last;
        let f = flow % N;
        let d = &mut self.drr;
        d.flows[f].aqm.advance(now);
        let verdict = if d.packets >= profile.limit {
            Verdict::Drop
        } else {
            let fl = &mut d.flows[f];
            if !fl
                .aqm
                .fq_drop_early(&profile.pie, now, fl.bytes, pkt.len, rng)
            {
                Verdict::Deliver
            } else if profile.pie.ecn && pkt.ecn_capable && fl.aqm.prob() <= profile.ecn_prob {
                Verdict::Mark
            } else {
                Verdict::Drop
            }
        };
        if verdict == Verdict::Drop {
            d.flows[f].aqm.reset_accu();
            return verdict;
        }
        if d.flows[f].list == ListId::Neither {
            let fl = &mut d.flows[f];
            fl.packets = 0;
            fl.bytes = 0;
            d.activate(f, profile.quantum);
        }
        let fl = &mut d.flows[f];
        fl.packets = fl.packets.saturating_add(1);
        fl.bytes = fl.bytes.saturating_add(u64::from(pkt.len));
        d.packets = d.packets.saturating_add(1);
        d.bytes = d.bytes.saturating_add(u64::from(pkt.len));
        verdict
    }

    /// The flow whose head packet to take next, or `None` when every flow is
    /// empty (`fq_pie_qdisc_dequeue`'s loop): a flow out of credit (deficit at
    /// zero or below) gets a quantum and goes to the tail of the old flows;
    /// an empty flow leaves its list, or moves from the new flows to the old
    /// ones when there are old flows.
    pub fn schedule(&mut self, profile: &FqPieProfile, now: Instant) -> Option<usize> {
        self.last.advance_to(now);
        // PIE keeps no state for an empty queue: nothing to tell it.
        self.drr.next_flow(profile.quantum, |_| {})
    }

    /// The head packet just taken from flow `flow % N`'s FIFO: charged to the
    /// flow's deficit, and its sojourn time given to the flow's PIE with the
    /// flow's backlog after it (`pie_process_dequeue`).
    pub fn on_dequeue(&mut self, profile: &FqPieProfile, now: Instant, flow: usize, head: Head) {
        self.last.advance_to(now);
        let now = self.last;
        let f = flow % N;
        let d = &mut self.drr;
        let fl = &mut d.flows[f];
        let n = u32::from(fl.packets > 0);
        let b = fl.bytes.min(u64::from(head.len));
        fl.packets -= n;
        fl.bytes -= b;
        fl.deficit = fl.deficit.saturating_sub(i64::from(head.len));
        let backlog = fl.bytes;
        fl.aqm.on_dequeue(&profile.pie, now, head, backlog);
        d.packets = d.packets.saturating_sub(n);
        d.bytes = d.bytes.saturating_sub(b);
    }

    /// Every flow's probability update (`fq_pie_timer`, all flows in one round
    /// as Linux does for up to 2048 flows), if due: one T_UPDATE after the
    /// previous one, or after the start; the next is due one T_UPDATE after
    /// `now`. Returns whether it ran.
    pub fn poll(&mut self, profile: &FqPieProfile, now: Instant) -> bool {
        self.last.advance_to(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= profile.pie.t_update {
            return false;
        }
        let at = self.last;
        for fl in &mut self.drr.flows {
            fl.aqm.update_at(&profile.pie, at, fl.bytes);
        }
        self.next_update = self.last.wrapping_add(profile.pie.t_update);
        true
    }
}

//! FQ-CoDel (RFC 8290): deficit round robin over flow queues, CoDel on each.

use netcond_core::Instant;

use crate::drr::{Drr, ListId, NIL};
use crate::{Codel, CodelConfig, CodelProfile, ControlLaw, DelayError, Head, Verdict};

/// What the queue drops when it goes over its packet limit: packets from the
/// head of the flow queue holding the most bytes (RFC 8290 sections 4.1 and
/// 5.2.3). How many differs between the sources: section 4.1 of the RFC drops
/// half of that queue's packets, at most 64; Linux's `fq_codel_drop` drops
/// until half of its bytes are gone, at most 64 packets ([`Batch`](Self::Batch));
/// [`Single`](Self::Single) is neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OverflowDrop {
    /// One packet from the head of the fattest flow: the least that makes
    /// room for the new packet (section 5.2.3's wording). Not the batch that
    /// RFC 8290 section 4.1 describes.
    Single,
    /// Linux's `fq_codel_drop`: packets from the head of the fattest flow
    /// until at least half of its bytes are gone, at most `max_packets` of
    /// them (Linux's `drop_batch_size`, 64 by default). RFC 8290 section 4.1
    /// counts the half in packets, not bytes; that reading is not implemented.
    Batch {
        /// The most packets one overflow drops.
        max_packets: u32,
    },
}

/// Configuration of an FQ-CoDel queue (RFC 8290).
///
/// ```
/// use aqm_delay::{FqCodelConfig, FqCodelProfile, OverflowDrop};
///
/// let cfg = FqCodelConfig::linux().with_limit(1000).with_quantum(300);
/// let p = FqCodelProfile::new(&cfg).unwrap();
/// assert_eq!(p.limit(), 1000);
/// assert_eq!(cfg.overflow, OverflowDrop::Batch { max_packets: 64 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[non_exhaustive]
pub struct FqCodelConfig {
    /// The CoDel of every flow queue (target, interval, MTU, ECN, law, clock).
    pub codel: CodelConfig,
    /// The DRR quantum in bytes (RFC 8290 section 5.2.4: 1514, an Ethernet MTU
    /// plus its 14-byte header).
    pub quantum: u32,
    /// The packet limit of the whole queue (RFC 8290 section 5.2.3: 10240,
    /// given there as Linux's default).
    pub limit: u32,
    /// What an overflow drops.
    pub overflow: OverflowDrop,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig::rfc8290()
    }
}

impl FqCodelConfig {
    /// RFC 8290's defaults: [`CodelConfig::rfc8289`] (target 5 ms and
    /// interval 100 ms, sections 5.2.2 and 5.2.1) with ECN on (section
    /// 5.2.6), quantum 1514 bytes (section 5.2.4), limit 10240 packets
    /// (section 5.2.3, Linux's default). The overflow drop is
    /// [`OverflowDrop::Single`], which is not the RFC's (see [`OverflowDrop`]).
    /// The number of flow queues is the caller's `N`; section 5.2.5 gives
    /// Linux's default, 1024.
    #[must_use]
    pub const fn rfc8290() -> FqCodelConfig {
        FqCodelConfig {
            codel: CodelConfig::rfc8289().with_ecn(true),
            quantum: 1514,
            limit: 10240,
            overflow: OverflowDrop::Single,
        }
    }

    /// Linux `sch_fq_codel`'s defaults: [`CodelConfig::linux`] with ECN on,
    /// quantum 1514, limit 10240, batch drops of at most 64 packets, and (as
    /// with every [`ControlLaw::Linux`] configuration) overflow drops added
    /// to the victim's CoDel `count`.
    #[must_use]
    pub const fn linux() -> FqCodelConfig {
        FqCodelConfig {
            codel: CodelConfig::linux().with_ecn(true),
            quantum: 1514,
            limit: 10240,
            overflow: OverflowDrop::Batch { max_packets: 64 },
        }
    }

    /// The CoDel configuration of the flow queues.
    #[must_use]
    pub const fn with_codel(mut self, codel: CodelConfig) -> FqCodelConfig {
        self.codel = codel;
        self
    }

    /// The DRR quantum in bytes.
    #[must_use]
    pub const fn with_quantum(mut self, quantum: u32) -> FqCodelConfig {
        self.quantum = quantum;
        self
    }

    /// The packet limit.
    #[must_use]
    pub const fn with_limit(mut self, limit: u32) -> FqCodelConfig {
        self.limit = limit;
        self
    }

    /// The overflow drop.
    #[must_use]
    pub const fn with_overflow(mut self, overflow: OverflowDrop) -> FqCodelConfig {
        self.overflow = overflow;
        self
    }
}

/// A validated FQ-CoDel configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FqCodelProfile {
    pub(crate) codel: CodelProfile,
    pub(crate) quantum: u32,
    pub(crate) limit: u32,
    pub(crate) batch: u32,
}

impl FqCodelProfile {
    /// Validates `cfg`.
    ///
    /// # Errors
    ///
    /// The CoDel rules of [`CodelProfile::new`], and [`DelayError::ZeroQuantum`],
    /// [`DelayError::QuantumTooLarge`], [`DelayError::ZeroLimit`],
    /// [`DelayError::ZeroDropBatch`].
    pub fn new(cfg: &FqCodelConfig) -> Result<FqCodelProfile, DelayError> {
        let codel = CodelProfile::new(&cfg.codel)?;
        if cfg.quantum == 0 {
            return Err(DelayError::ZeroQuantum);
        }
        if cfg.quantum > i32::MAX as u32 {
            return Err(DelayError::QuantumTooLarge);
        }
        if cfg.limit == 0 {
            return Err(DelayError::ZeroLimit);
        }
        let batch = match cfg.overflow {
            OverflowDrop::Single => 1,
            OverflowDrop::Batch { max_packets: 0 } => return Err(DelayError::ZeroDropBatch),
            OverflowDrop::Batch { max_packets } => max_packets,
        };
        Ok(FqCodelProfile {
            codel,
            quantum: cfg.quantum,
            limit: cfg.limit,
            batch,
        })
    }

    /// The flow queues' CoDel profile.
    #[must_use]
    pub const fn codel(&self) -> &CodelProfile {
        &self.codel
    }

    /// The DRR quantum in bytes.
    #[must_use]
    pub const fn quantum(&self) -> u32 {
        self.quantum
    }

    /// The packet limit.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.limit
    }

    /// The most packets one overflow drops (1 for [`OverflowDrop::Single`]).
    #[must_use]
    pub const fn drop_batch(&self) -> u32 {
        self.batch
    }
}

/// The result of [`FqCodel::enqueue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Enqueued {
    /// The packet is queued and the queue is within its limit.
    Queued,
    /// The queue went over its limit: `packets` packets (`bytes` bytes) were
    /// dropped from the head of flow `victim` through the caller's callback.
    /// When `victim` is the packet's own flow, Linux returns `NET_XMIT_CN`.
    Overflow {
        /// The fattest flow, whose head packets were dropped.
        victim: usize,
        /// How many were dropped.
        packets: u32,
        /// Their bytes.
        bytes: u64,
    },
}

/// FQ-CoDel over `N` flow queues (`0 < N < 65535`; Linux's default is 1024),
/// the packets kept by the caller in one FIFO per flow.
///
/// - Enqueue: push the packet to the tail of its flow's FIFO, then call
///   [`enqueue`](Self::enqueue) with the flow index (the caller's hash or
///   classifier; taken modulo `N`) and the length. Over the limit, the state
///   asks the caller's callback to drop head packets of the fattest flow.
/// - Dequeue: [`schedule`](Self::schedule) names the flow to serve (DRR, new
///   flows first); take the head of its FIFO and call
///   [`on_dequeue`](Self::on_dequeue), which runs the flow's CoDel. On
///   [`Verdict::Drop`] drop it and call `schedule` again: it returns the same
///   flow while CoDel's drop loop goes on.
///
/// ```
/// use aqm_delay::{FqCodel, FqCodelConfig, FqCodelProfile, Head, Verdict};
/// use netcond_core::Instant;
/// use std::collections::VecDeque;
///
/// let p = FqCodelProfile::new(&FqCodelConfig::rfc8290().with_quantum(1500)).unwrap();
/// let mut fq: FqCodel<4> = FqCodel::new(&p, Instant::ZERO);
/// let mut fifos: [VecDeque<Head>; 4] = Default::default();
/// let t0 = Instant::ZERO;
/// // Flow 1 queues three 1500-byte packets, then flow 2 one 100-byte packet.
/// for (flow, len) in [(1, 1500), (1, 1500), (1, 1500), (2, 100)] {
///     fifos[flow].push_back(Head::new(t0, len, false));
///     fq.enqueue(&p, t0, flow, len, |f| fifos[f].pop_front().map(|h| h.len));
/// }
/// let mut order = Vec::new();
/// while let Some(f) = fq.schedule(&p, t0) {
///     let head = fifos[f].pop_front().unwrap();
///     if fq.on_dequeue(&p, t0, f, head) != Verdict::Drop {
///         order.push(f);
///     }
/// }
/// // Both flows are new; each gets a quantum's worth before flow 1 goes on.
/// assert_eq!(order, [1, 2, 1, 1]);
/// ```
///
/// With the `serde` feature, a serde form is read back only if its lists are
/// well formed (links in range, no cycle, no flow twice, tails and list marks
/// right), every flow holding packets is on a list, the totals are the sums
/// over the flows, and the flow to continue, if any, is in a drop loop; any
/// other form is refused with an error naming the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "FqCodelRaw<N>"))]
pub struct FqCodel<const N: usize> {
    /// The flows, each with its CoDel, and their DRR lists.
    pub(crate) drr: Drr<Codel, N>,
    /// The flow in the middle of a CoDel drop loop, or NIL.
    pub(crate) pending: u16,
}

/// The fields of an [`FqCodel`] as read (the scheduler already checked).
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct FqCodelRaw<const N: usize> {
    drr: Drr<Codel, N>,
    pending: u16,
}

#[cfg(feature = "serde")]
impl<const N: usize> TryFrom<FqCodelRaw<N>> for FqCodel<N> {
    type Error = &'static str;

    fn try_from(raw: FqCodelRaw<N>) -> Result<Self, Self::Error> {
        if raw.pending != NIL {
            match raw.drr.flows.get(usize::from(raw.pending)) {
                Some(fl) if fl.aqm.in_drop_loop() => {}
                _ => return Err("the flow to continue is not a flow in a drop loop"),
            }
        }
        Ok(FqCodel {
            drr: raw.drr,
            pending: raw.pending,
        })
    }
}

impl<const N: usize> FqCodel<N> {
    /// An empty queue whose flows' clocks start at `now`.
    #[must_use]
    pub fn new(profile: &FqCodelProfile, now: Instant) -> FqCodel<N> {
        FqCodel {
            drr: Drr::new(Codel::new(&profile.codel, now)),
            pending: NIL,
        }
    }

    /// Packets queued in all flows.
    #[must_use]
    pub const fn packets(&self) -> u32 {
        self.drr.packets
    }

    /// Bytes queued in all flows.
    #[must_use]
    pub const fn bytes(&self) -> u64 {
        self.drr.bytes
    }

    /// Packets queued in flow `flow % N`.
    #[must_use]
    pub fn flow_packets(&self, flow: usize) -> u32 {
        self.drr.flows[flow % N].packets
    }

    /// Bytes queued in flow `flow % N`.
    #[must_use]
    pub fn flow_bytes(&self, flow: usize) -> u64 {
        self.drr.flows[flow % N].bytes
    }

    /// The DRR deficit of flow `flow % N`, in bytes.
    #[must_use]
    pub fn deficit(&self, flow: usize) -> i64 {
        self.drr.flows[flow % N].deficit
    }

    /// The CoDel state of flow `flow % N`.
    #[must_use]
    pub fn codel(&self, flow: usize) -> &Codel {
        &self.drr.flows[flow % N].aqm
    }

    /// Whether flow `flow % N` is on the new-flows list (RFC 8290 section 4.2).
    #[must_use]
    pub fn is_new(&self, flow: usize) -> bool {
        self.drr.flows[flow % N].list == ListId::New
    }

    /// Whether flow `flow % N` is on the old-flows list.
    #[must_use]
    pub fn is_old(&self, flow: usize) -> bool {
        self.drr.flows[flow % N].list == ListId::Old
    }

    /// A packet of `len` bytes was pushed to the tail of flow `flow % N`'s
    /// FIFO. A flow on neither list joins the tail of the new flows with a
    /// quantum of credit (RFC 8290 section 4.1). If the queue now holds more
    /// than the limit, `drop_head(victim)` is called for each packet to drop
    /// from the head of the fattest flow: it removes that packet from the
    /// caller's FIFO and returns its length (`None` if the FIFO is empty,
    /// which ends the drop).
    pub fn enqueue<F>(
        &mut self,
        profile: &FqCodelProfile,
        now: Instant,
        flow: usize,
        len: u32,
        mut drop_head: F,
    ) -> Enqueued
    where
        F: FnMut(usize) -> Option<u32>,
    {
        // Enqueueing does not read the clock: CoDel works at dequeue.
        let _ = now;
        let f = flow % N;
        let d = &mut self.drr;
        {
            let fl = &mut d.flows[f];
            let n = u32::from(fl.packets < u32::MAX && d.packets < u32::MAX);
            let b = u64::from(len).min(u64::MAX - d.bytes);
            fl.packets += n;
            fl.bytes += b;
            d.packets += n;
            d.bytes += b;
        }
        d.activate(f, profile.quantum);
        if d.packets <= profile.limit {
            return Enqueued::Queued;
        }
        // RFC 8290 s4.1: drop from the head of the flow with the most bytes
        // (the first such flow; Linux's linear scan).
        let mut victim = f;
        let mut most = 0u64;
        for (i, fl) in d.flows.iter().enumerate() {
            if fl.bytes > most {
                most = fl.bytes;
                victim = i;
            }
        }
        let threshold = most >> 1;
        let (mut n, mut dropped) = (0u32, 0u64);
        while let Some(l) = drop_head(victim) {
            n += 1;
            dropped = dropped.saturating_add(u64::from(l));
            self.remove_bytes(victim, l);
            if n >= profile.batch || dropped >= threshold {
                break;
            }
        }
        if profile.codel.law == ControlLaw::Linux {
            // Linux fq_codel_drop: the victim's CoDel counts the drops.
            self.drr.flows[victim]
                .aqm
                .on_overflow(&profile.codel, now, n);
        }
        Enqueued::Overflow {
            victim,
            packets: n,
            bytes: dropped,
        }
    }

    /// The flow whose head packet to take next, or `None` when every flow is
    /// empty (RFC 8290 section 4.2). Moves flows between the lists as DRR
    /// needs: a flow out of credit gets a quantum and goes to the tail of the
    /// old flows; an empty flow leaves its list (an empty new flow goes to the
    /// old flows instead if there are any, so that old flows are not starved).
    /// That last rule is Linux's `fq_codel_dequeue`; RFC 8290 section 4.2 moves
    /// an empty new flow to the old list whether or not old flows exist, which
    /// differs when other new flows follow it (see the crate's design notes).
    /// While a flow's CoDel is in a drop loop, returns that flow again.
    pub fn schedule(&mut self, profile: &FqCodelProfile, now: Instant) -> Option<usize> {
        let pending = core::mem::replace(&mut self.pending, NIL);
        if let Some(fl) = self.drr.flows.get_mut(usize::from(pending)) {
            if fl.aqm.in_drop_loop() {
                if fl.packets > 0 {
                    self.pending = pending;
                    return Some(usize::from(pending));
                }
                // The drop loop emptied the flow: CoDel sees no next packet.
                fl.aqm.on_queue_empty(&profile.codel, now);
                self.drr.retire(usize::from(pending));
            }
        }
        self.drr
            .next_flow(profile.quantum, |c| c.on_queue_empty(&profile.codel, now))
    }

    /// The verdict for the head packet just taken from flow `flow % N`'s FIFO
    /// (normally the flow [`schedule`](Self::schedule) returned): the flow's
    /// CoDel decides with the bytes left in the whole queue as its backlog (as
    /// Linux does). A delivered or marked packet is charged to the flow's
    /// deficit. On [`Verdict::Drop`], call `schedule` again.
    pub fn on_dequeue(
        &mut self,
        profile: &FqCodelProfile,
        now: Instant,
        flow: usize,
        head: Head,
    ) -> Verdict {
        let f = flow % N;
        self.remove_bytes(f, head.len);
        let backlog = self.drr.bytes;
        let fl = &mut self.drr.flows[f];
        let v = fl.aqm.on_dequeue(&profile.codel, now, head, backlog);
        if v == Verdict::Drop {
            self.pending = f as u16;
        } else {
            self.pending = NIL;
            fl.deficit = fl.deficit.saturating_sub(i64::from(head.len));
        }
        v
    }

    /// Accounts for one packet of `len` bytes leaving flow `f`.
    /// (A flow reported empty loses nothing: the totals stay the sums.)
    fn remove_bytes(&mut self, f: usize, len: u32) {
        let d = &mut self.drr;
        let fl = &mut d.flows[f];
        let n = u32::from(fl.packets > 0);
        let b = fl.bytes.min(u64::from(len));
        fl.packets -= n;
        fl.bytes -= b;
        d.packets = d.packets.saturating_sub(n);
        d.bytes = d.bytes.saturating_sub(b);
    }
}

//! FQ-CoDel: Linux's dequeue and drop loops over index rings.

use super::*;

/// Per-flow packet storage for [`FqCodelRef`].
pub trait FlowFifos {
    /// Removes and returns the head of flow `f`.
    fn pop(&mut self, f: usize) -> Option<Head>;
    /// Whether flow `f` is empty.
    fn is_empty(&self, f: usize) -> bool;
    /// Bytes in flow `f`.
    fn flow_bytes(&self, f: usize) -> u64;
    /// Bytes in all flows.
    fn total_bytes(&self) -> u64;
}

/// A fixed ring of flow indices, the reference's `list_head`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ring<const N: usize> {
    items: [usize; N],
    start: usize,
    pub(crate) len: usize,
}

impl<const N: usize> Ring<N> {
    pub(crate) fn new() -> Self {
        Ring {
            items: [0; N],
            start: 0,
            len: 0,
        }
    }
    pub(crate) fn first(&self) -> Option<usize> {
        (self.len > 0).then(|| self.items[self.start])
    }
    pub(crate) fn pop_front(&mut self) {
        if self.len > 0 {
            self.start = (self.start + 1) % N;
            self.len -= 1;
        }
    }
    pub(crate) fn contains(&self, f: usize) -> bool {
        (0..self.len).any(|i| self.items[(self.start + i) % N] == f)
    }
    pub(crate) fn push_back(&mut self, f: usize) {
        if self.len < N {
            self.items[(self.start + self.len) % N] = f;
            self.len += 1;
        }
    }
}

/// Linux's `fq_codel_enqueue`, `fq_codel_drop` and `fq_codel_dequeue` over
/// two rings of flow indices, each flow's CoDel a [`RefCodel`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FqCodelRef<const N: usize> {
    codels: [RefCodel; N],
    deficits: [i64; N],
    listed: [bool; N],
    new_flows: Ring<N>,
    old_flows: Ring<N>,
    qlen: u64,
}

/// Adapts one flow of a [`FlowFifos`] to a [`Fifo`] whose `bytes` is the
/// total backlog, as `sch->qstats.backlog` is.
pub(crate) struct OneFlow<'a, S: FlowFifos> {
    store: &'a mut S,
    flow: usize,
}

impl<S: FlowFifos> Fifo for OneFlow<'_, S> {
    fn pop(&mut self) -> Option<Head> {
        self.store.pop(self.flow)
    }
    fn bytes(&self) -> u64 {
        self.store.total_bytes()
    }
}

impl<const N: usize> FqCodelRef<N> {
    /// An empty queue, clocks at `now`.
    #[must_use]
    pub fn new(p: &FqCodelProfile, now: Instant) -> Self {
        FqCodelRef {
            codels: [RefCodel::new(&p.codel, now); N],
            deficits: [0; N],
            listed: [false; N],
            new_flows: Ring::new(),
            old_flows: Ring::new(),
            qlen: 0,
        }
    }

    /// The CoDel model of flow `f`.
    #[must_use]
    pub fn codel(&self, f: usize) -> &RefCodel {
        &self.codels[f % N]
    }

    /// The packet was already added to flow `f % N` of `store`. Returns the
    /// overflow victim and how many packets were dropped from its head.
    pub fn enqueue<S: FlowFifos>(
        &mut self,
        p: &FqCodelProfile,
        f: usize,
        store: &mut S,
    ) -> Option<(usize, u32)> {
        let f = f % N;
        if !self.listed[f] {
            self.listed[f] = true;
            self.new_flows.push_back(f);
            self.deficits[f] = i64::from(p.quantum);
        }
        self.qlen += 1;
        if self.qlen <= u64::from(p.limit) {
            return None;
        }
        let (mut idx, mut max) = (f, 0);
        for i in 0..N {
            if store.flow_bytes(i) > max {
                max = store.flow_bytes(i);
                idx = i;
            }
        }
        let threshold = max / 2;
        let (mut i, mut len) = (0u32, 0u64);
        while let Some(h) = store.pop(idx) {
            len += u64::from(h.len);
            i += 1;
            self.qlen = self.qlen.saturating_sub(1);
            if i >= p.batch || len >= threshold {
                break;
            }
        }
        if p.codel.law == ControlLaw::Linux {
            self.codels[idx].bump(i);
        }
        Some((idx, i))
    }

    /// One `fq_codel_dequeue`: the flow and packet sent (and whether marked),
    /// calling `drop` on each packet CoDel dropped.
    pub fn dequeue<S: FlowFifos, D: FnMut(usize, Head)>(
        &mut self,
        p: &FqCodelProfile,
        now: Instant,
        store: &mut S,
        mut drop: D,
    ) -> Option<(usize, Head, bool)> {
        loop {
            let (from_new, f) = match (self.new_flows.first(), self.old_flows.first()) {
                (Some(f), _) => (true, f),
                (None, Some(f)) => (false, f),
                (None, None) => return None,
            };
            if self.deficits[f] <= 0 {
                self.deficits[f] = self.deficits[f].saturating_add(i64::from(p.quantum));
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(f);
                continue;
            }
            let mut fifo = OneFlow { store, flow: f };
            let mut dropped = 0u64;
            let got = self.codels[f].dequeue(&p.codel, now, &mut fifo, |h| {
                dropped += 1;
                drop(f, h);
            });
            self.qlen = self.qlen.saturating_sub(dropped);
            match got {
                Some((h, marked)) => {
                    self.qlen = self.qlen.saturating_sub(1);
                    self.deficits[f] = self.deficits[f].saturating_sub(i64::from(h.len));
                    return Some((f, h, marked));
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                    } else {
                        self.old_flows.pop_front();
                    }
                    if from_new && self.old_flows.first().is_some() {
                        self.old_flows.push_back(f);
                    } else {
                        self.listed[f] = false;
                    }
                }
            }
        }
    }
}

//! FQ-PIE: Linux's `sch_fq_pie` over index rings.

use super::*;

/// Linux's `sch_fq_pie` (`fq_pie_qdisc_enqueue`, `fq_pie_qdisc_dequeue`,
/// `fq_pie_timer`) over plain index rings, with a [`LinuxPie`] per flow: the
/// flow lists as `list_head`s, the refills one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqPieRef<const N: usize> {
    /// Each flow's PIE variables.
    pub pies: [LinuxPie; N],
    /// Each flow's deficit.
    pub deficit: [i64; N],
    /// Each flow's backlog in bytes and packets (`flow->backlog`, `flow->qlen`).
    pub backlog: [u64; N],
    /// See `backlog`.
    pub qlen: [u32; N],
    new_flows: Ring<N>,
    old_flows: Ring<N>,
    /// `sch->q.qlen`.
    pub total: u32,
    /// The newest instant seen.
    pub last: Instant,
    /// When the timer fires next.
    pub next_update: Instant,
}

impl<const N: usize> FqPieRef<N> {
    /// `fq_pie_init`; the timer first fires one T_UPDATE after `now`.
    #[must_use]
    pub fn new(p: &crate::FqPieProfile, now: Instant) -> Self {
        FqPieRef {
            pies: [LinuxPie::new(&p.pie, now); N],
            deficit: [0; N],
            backlog: [0; N],
            qlen: [0; N],
            new_flows: Ring::new(),
            old_flows: Ring::new(),
            total: 0,
            last: now,
            next_update: Instant::from_ticks(wrap(
                i128::from(now.ticks()) + i128::from(p.pie.t_update),
            )),
        }
    }

    fn clock(&mut self, now: Instant) {
        if now.ticks().wrapping_sub(self.last.ticks()) < 1 << 63 {
            self.last = now;
        }
    }

    /// `fq_pie_qdisc_enqueue` for a packet of flow `flow % N`.
    pub fn enqueue<R: netcond_core::RandomSource>(
        &mut self,
        p: &crate::FqPieProfile,
        now: Instant,
        flow: usize,
        pkt: Head,
        rng: &mut R,
    ) -> crate::Verdict {
        self.clock(now);
        let now = self.last;
        let idx = flow % N;
        self.pies[idx].advance(now);
        let mut enqueue = false;
        let mut mark = false;
        // if (sch->q.qlen >= sch->limit) goto out;
        if self.total < p.limit {
            if !self.pies[idx].drop_early(&p.pie, self.backlog[idx], pkt.len, rng) {
                enqueue = true;
            } else if p.pie.ecn && self.pies[idx].prob <= p.ecn_prob && pkt.ecn_capable {
                enqueue = true;
                mark = true;
            }
        }
        if !enqueue {
            // out: sel_flow->vars.accu_prob = 0;
            self.pies[idx].accu_prob = 0;
            return crate::Verdict::Drop;
        }
        self.total += 1;
        // if (list_empty(&sel_flow->flowchain)) { add to new_flows; deficit = quantum; qlen = backlog = 0 }
        if !self.new_flows.contains(idx) && !self.old_flows.contains(idx) {
            self.new_flows.push_back(idx);
            self.deficit[idx] = i64::from(p.quantum);
            self.qlen[idx] = 0;
            self.backlog[idx] = 0;
        }
        self.qlen[idx] += 1;
        self.backlog[idx] += u64::from(pkt.len);
        if mark {
            crate::Verdict::Mark
        } else {
            crate::Verdict::Deliver
        }
    }

    /// `fq_pie_qdisc_dequeue`: the flow and packet sent.
    pub fn dequeue<S: FlowFifos>(
        &mut self,
        p: &crate::FqPieProfile,
        now: Instant,
        store: &mut S,
    ) -> Option<(usize, Head)> {
        self.clock(now);
        let now = self.last;
        loop {
            // head = new_flows, or old_flows, or NULL
            let from_new = self.new_flows.len > 0;
            let f = if from_new {
                self.new_flows.first()?
            } else {
                self.old_flows.first()?
            };
            // if (flow->deficit <= 0) { deficit += quantum; move to old tail; goto begin }
            if self.deficit[f] <= 0 {
                self.deficit[f] += i64::from(p.quantum);
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(f);
                continue;
            }
            let Some(h) = store.pop(f) else {
                // force a pass through old_flows to prevent starvation
                if from_new {
                    self.new_flows.pop_front();
                    if self.old_flows.len > 0 {
                        self.old_flows.push_back(f);
                    }
                } else {
                    self.old_flows.pop_front();
                }
                continue;
            };
            self.total -= 1;
            self.qlen[f] -= 1;
            self.deficit[f] -= i64::from(h.len);
            self.backlog[f] -= u64::from(h.len);
            let left = self.backlog[f];
            self.pies[f].dequeue(&p.pie, now, h, left);
            return Some((f, h));
        }
    }

    /// `fq_pie_timer` when due: every flow's `pie_calculate_probability`.
    pub fn timer(&mut self, p: &crate::FqPieProfile, now: Instant) -> bool {
        self.clock(now);
        let ahead = self.next_update.ticks().wrapping_sub(self.last.ticks());
        if ahead > 0 && ahead <= p.pie.t_update {
            return false;
        }
        for i in 0..N {
            self.pies[i].advance(self.last);
            self.pies[i].calculate_probability(&p.pie, self.backlog[i]);
        }
        self.next_update = Instant::from_ticks(wrap(
            i128::from(self.last.ticks()) + i128::from(p.pie.t_update),
        ));
        true
    }
}

//! The AQM stages' queues: enqueue and the link that drains them.

use super::aqm::{dual_heads, dual_index, AqmHeld, AqmKind};
use super::*;
use crate::chain::QueueLimit;
use netcond::base::Instant;
use netcond::delay::{Ecn as DualEcn, Verdict};
use std::collections::VecDeque;

impl Engine {
    /// A packet reaches AQM stage `i` at `at`.
    pub(super) fn aqm_enqueue<S: Sink>(
        &mut self,
        p: Pkt,
        i: usize,
        at: u64,
        sink: &mut S,
    ) -> std::io::Result<()> {
        let len = p.info.len;
        let ecn = current_tos(&p) & 3;
        let id = match self.free.last() {
            Some(&x) => x,
            None => self.held.len() as u32,
        };
        let h = AqmHeld {
            id,
            len,
            enqueued: at,
            ecn,
        };
        let now = Instant::from_ticks(at);
        let Rt::Aqm(a) = &mut self.stages[i] else {
            return Ok(());
        };
        a.kind.timer_replay(at);
        // Counter index: 0 enqueued, 1 ce-marked, 2 dropped, 3 overlimit.
        let mut counts: Vec<(usize, u32)> = Vec::new();
        let mut head_drops: Vec<(u32, u32)> = Vec::new();
        let mut accept = true;
        let mut mark = false;
        match &mut a.kind {
            AqmKind::Codel { limit, .. } => {
                let over = match *limit {
                    QueueLimit::Packets(n) => a.packets >= n,
                    QueueLimit::Bytes(b) => a.bytes + u64::from(len) > b,
                };
                if over {
                    accept = false;
                    counts.push((3, len));
                } else {
                    a.fifo.push_back(h);
                }
            }
            AqmKind::Fq {
                profile,
                fq,
                fifos,
                flows,
            } => {
                let f = fq_flow(&p.info, *flows);
                fifos[f].push_back(h);
                let r = fq.enqueue(profile, now, f, len, |v| {
                    let d = fifos.get_mut(v)?.pop_front()?;
                    head_drops.push((d.id, d.len));
                    Some(d.len)
                });
                let _ = r;
            }
            AqmKind::Pie {
                profile,
                pie,
                rng,
                limit,
                ..
            } => {
                let over = a.packets >= *limit;
                let v = pie.on_arrival(profile, now, h.head(), a.packets, a.bytes, rng);
                match v {
                    _ if over => {
                        accept = false;
                        counts.push((3, len));
                    }
                    Verdict::Drop => {
                        accept = false;
                        counts.push((2, len));
                    }
                    Verdict::Mark => {
                        mark = true;
                        counts.push((1, len));
                        a.fifo.push_back(h);
                    }
                    Verdict::Deliver => a.fifo.push_back(h),
                }
            }
            AqmKind::FqPie {
                profile,
                fq,
                fifos,
                flows,
                rng,
                ..
            } => {
                let f = fq_flow(&p.info, *flows);
                let over = fq.totals().0 >= profile.limit();
                match fq.enqueue(profile, now, f, h.head(), rng) {
                    Verdict::Drop => {
                        accept = false;
                        counts.push((if over { 3 } else { 2 }, len));
                    }
                    Verdict::Mark => {
                        mark = true;
                        counts.push((1, len));
                        fifos[f].push_back(h);
                    }
                    Verdict::Deliver => fifos[f].push_back(h),
                }
            }
            AqmKind::Dual {
                profile,
                dual,
                queues,
                ..
            } => match dual.on_arrival(profile, now, DualEcn::from_bits(ecn), len, a.bytes) {
                None => {
                    accept = false;
                    counts.push((3, len));
                }
                Some(q) => queues[dual_index(q)].push_back(h),
            },
        }
        let mut pie_timer = None;
        let mut kick = false;
        if accept {
            a.packets += 1;
            a.bytes += u64::from(len);
            counts.insert(0, (0, len));
            kick = !a.scheduled;
            a.scheduled = true;
            pie_timer = a.kind.timer_arm(at);
        }
        for &(_, l) in &head_drops {
            // fq_codel's overflow: the head packets dropped left the queue.
            if let Rt::Aqm(a) = &mut self.stages[i] {
                a.packets = a.packets.saturating_sub(1);
                a.bytes = a.bytes.saturating_sub(u64::from(l));
            }
            counts.push((3, l));
        }
        for (k, l) in counts {
            self.stats.count(i, k, l, at);
        }
        let mut p = p;
        if mark {
            let t = current_tos(&p) | 3;
            apply_tos(&mut p, t);
        }
        if accept {
            let got = self.hold(p, i);
            debug_assert_eq!(got, id);
        } else {
            self.leave(p, at, true, sink)?;
        }
        if let Some(t) = pie_timer {
            self.schedule(t, PIE_TAG | i as u64);
        }
        if kick {
            self.schedule(at, AQM_TAG | i as u64);
        }
        for (d, _) in head_drops {
            if let Some((q, _)) = self.take(d) {
                self.leave(q, at, true, sink)?;
            }
        }
        Ok(())
    }

    /// AQM stage `i`'s link at `at`: the packet sent leaves the stage, and
    /// the queue gives the next (dropping or marking on the way).
    pub(super) fn aqm_link<S: Sink>(
        &mut self,
        at: u64,
        i: usize,
        sink: &mut S,
    ) -> std::io::Result<()> {
        let now = Instant::from_ticks(at);
        let Rt::Aqm(a) = &mut self.stages[i] else {
            return Ok(());
        };
        let sent = a.tx.take();
        let mut dropped: Vec<u32> = Vec::new();
        let mut marked = None;
        let mut next: Option<AqmHeld> = None;
        match &mut a.kind {
            AqmKind::Codel { profile, codel, .. } => loop {
                let Some(h) = a.fifo.pop_front() else {
                    codel.on_queue_empty(profile, now);
                    break;
                };
                a.packets -= 1;
                a.bytes -= u64::from(h.len);
                match codel.on_dequeue(profile, now, h.head(), a.bytes) {
                    Verdict::Drop => dropped.push(h.id),
                    Verdict::Mark => {
                        marked = Some(h.id);
                        next = Some(h);
                        break;
                    }
                    Verdict::Deliver => {
                        next = Some(h);
                        break;
                    }
                }
            },
            AqmKind::Fq {
                profile, fq, fifos, ..
            } => {
                while let Some(f) = fq.schedule(profile, now) {
                    let Some(h) = fifos.get_mut(f).and_then(VecDeque::pop_front) else {
                        break;
                    };
                    a.packets -= 1;
                    a.bytes -= u64::from(h.len);
                    match fq.on_dequeue(profile, now, f, h.head()) {
                        Verdict::Drop => dropped.push(h.id),
                        Verdict::Mark => {
                            marked = Some(h.id);
                            next = Some(h);
                            break;
                        }
                        Verdict::Deliver => {
                            next = Some(h);
                            break;
                        }
                    }
                }
            }
            AqmKind::Pie { profile, pie, .. } => {
                if let Some(h) = a.fifo.pop_front() {
                    a.packets -= 1;
                    a.bytes -= u64::from(h.len);
                    pie.on_dequeue(profile, now, h.head(), a.bytes);
                    next = Some(h);
                }
            }
            AqmKind::FqPie {
                profile, fq, fifos, ..
            } => {
                if let Some(f) = fq.schedule(profile, now) {
                    if let Some(h) = fifos.get_mut(f).and_then(VecDeque::pop_front) {
                        a.packets -= 1;
                        a.bytes -= u64::from(h.len);
                        fq.on_dequeue(profile, now, f, h.head());
                        next = Some(h);
                    }
                }
            }
            AqmKind::Dual {
                profile,
                dual,
                queues,
                rng,
                ..
            } => loop {
                let (l, c) = dual_heads(queues);
                let Some(q) = dual.schedule(profile, now, l, c) else {
                    break;
                };
                let fifo = &mut queues[dual_index(q)];
                let Some(h) = fifo.pop_front() else {
                    break;
                };
                let left = fifo.len() as u32;
                a.packets -= 1;
                a.bytes -= u64::from(h.len);
                match dual.on_dequeue(profile, now, q, h.dual_head(), left, rng) {
                    Verdict::Drop => dropped.push(h.id),
                    Verdict::Mark => {
                        marked = Some(h.id);
                        next = Some(h);
                        break;
                    }
                    Verdict::Deliver => {
                        next = Some(h);
                        break;
                    }
                }
            },
        }
        let mut end = None;
        if let Some(h) = next {
            let start = a.busy_until.max(at);
            if start > a.busy_until {
                a.frac = 0;
            }
            let num = u128::from(h.len) * 8 * 1_000_000_000 + u128::from(a.frac);
            let bps = u128::from(a.link_bps);
            let dep = start.saturating_add((num / bps).min(u128::from(u64::MAX)) as u64);
            a.frac = (num % bps) as u64;
            a.busy_until = dep;
            a.tx = Some(h.id);
            end = Some(dep);
        } else {
            a.scheduled = false;
        }
        if let Some(dep) = end {
            self.schedule(dep, AQM_TAG | i as u64);
        }
        if let Some(id) = marked {
            let len = self
                .held
                .get(id as usize)
                .and_then(|x| x.as_ref())
                .map_or(0, |x| x.0.info.len);
            self.stats.count(i, 1, len, at);
            if let Some(Some((p, _))) = self.held.get_mut(id as usize) {
                let t = current_tos(p) | 3;
                apply_tos(p, t);
            }
        }
        for d in dropped {
            if let Some((p, _)) = self.take(d) {
                self.stats.count(i, 2, p.info.len, at);
                self.leave(p, at, true, sink)?;
            }
        }
        if let Some(id) = sent {
            if let Some((p, _)) = self.take(id) {
                self.run(p, i + 1, at, sink)?;
            }
        }
        Ok(())
    }
}

//! The queue stages' departures (RED, RAS, TBF) and a packet's run through
//! the chain from one stage on.

use super::*;
use netcond::base::Instant;
use netcond::ras::{TbfDeparture, TbfVerdict};
use netcond::red::{Decision, Ecn, Packet};

impl Engine {
    pub(super) fn fire<S: Sink>(&mut self, at: u64, tag: u64, sink: &mut S) -> std::io::Result<()> {
        if tag & KIND_TAGS == AQM_TAG {
            self.aqm_link(at, (tag & !AQM_TAG) as usize, sink)?;
        } else if tag & KIND_TAGS == PIE_TAG {
            let stage = (tag & !PIE_TAG) as usize;
            if let Rt::Aqm(a) = &mut self.stages[stage] {
                let (bytes, empty) = (a.bytes, a.packets == 0);
                if let Some(next) = a.kind.timer_poll(at, bytes, empty) {
                    self.schedule(next, tag);
                }
            }
        } else if tag & TBF_TAG != 0 && tag & RAS_TAG == 0 {
            let stage = (tag & !TBF_TAG) as usize;
            // Every head the buckets let go now leaves, as one run of
            // Linux's dequeue; the first that may not sets the watchdog.
            let mut out = Vec::new();
            let mut next = None;
            if let Rt::Tbf(t) = &mut self.stages[stage] {
                t.scheduled = false;
                let now = Instant::from_ticks(at);
                while let Some(&h) = t.fifo.front() {
                    match t.tbf.dequeue(&t.profile, now, h.len) {
                        TbfDeparture::Now => {
                            t.fifo.pop_front();
                            out.push(h.id);
                        }
                        TbfDeparture::At(w) => {
                            t.scheduled = true;
                            next = Some(w.ticks().max(at));
                            break;
                        }
                        // Not for a packet `enqueue` accepted; leave it rather than spin.
                        TbfDeparture::Never => {
                            t.fifo.pop_front();
                            out.push(h.id);
                        }
                    }
                }
            }
            if let Some(n) = next {
                self.schedule(n, tag);
            }
            for id in out {
                if let Some((p, _)) = self.take(id) {
                    self.run(p, stage + 1, at, sink)?;
                }
            }
        } else if tag & RAS_TAG != 0 {
            let stage = (tag & !RAS_TAG) as usize;
            let now = Instant::from_ticks(at);
            let (out, next) = match &mut self.stages[stage] {
                Rt::Ras(p, ras, scheduled) => {
                    *scheduled = false;
                    let out = ras.dequeue(p, now);
                    (out, ras.next_release())
                }
                _ => (None, None),
            };
            if let Some(n) = next {
                if let Rt::Ras(_, _, scheduled) = &mut self.stages[stage] {
                    *scheduled = true;
                }
                self.schedule(n.ticks().max(at), tag);
            }
            if let Some(h) = out {
                if let Some((p, _)) = self.take(h.id) {
                    self.run(p, stage + 1, at, sink)?;
                }
            }
        } else if let Some((p, stage)) = self.take(tag as u32) {
            if let Rt::Red(r) = &mut self.stages[stage] {
                // The packet has been sent: leave the FIFO.
                if r.queue.front().is_some_and(|&d| d <= at) {
                    r.queue.pop_front();
                    if r.queue.is_empty() {
                        r.red.on_queue_empty(&r.profile, Instant::from_ticks(at));
                    }
                }
            }
            self.run(p, stage + 1, at, sink)?;
        }
        Ok(())
    }

    /// Runs a packet from stage `from` at time `at`, holding it where a queue takes it.
    pub(super) fn run<S: Sink>(
        &mut self,
        mut p: Pkt,
        from: usize,
        at: u64,
        sink: &mut S,
    ) -> std::io::Result<()> {
        let len = p.info.len;
        // The TOS as the frame has it now (earlier stages may have changed it).
        let mut st = State {
            tos: current_tos(&p),
            pcp: p.info.pcp,
            color: p.color,
            pcn: p.pcn,
        };
        for i in from..self.stages.len() {
            match &mut self.stages[i] {
                Rt::Red(r) => {
                    // Packets whose transmission ended by now have left.
                    while let Some(&d) = r.queue.front() {
                        if d > at {
                            break;
                        }
                        r.queue.pop_front();
                        if r.queue.is_empty() {
                            r.red.on_queue_empty(&r.profile, Instant::from_ticks(d));
                        }
                    }
                    let qlen = r.queue.len() as u32;
                    let now = Instant::from_ticks(at);
                    let d = r.red.on_arrival(
                        &r.profile,
                        now,
                        qlen,
                        Packet::new(len, Ecn::from_bits(st.tos & 3)),
                        &mut r.rng,
                    );
                    self.stats.count(i, d.index(), len, at);
                    match d {
                        Decision::Enqueue | Decision::Mark => {
                            if d == Decision::Mark {
                                st.tos |= 3;
                            }
                            let start = r.busy_until.max(at);
                            if start > r.busy_until {
                                r.frac = 0;
                            }
                            let num = u128::from(len) * 8 * 1_000_000_000 + u128::from(r.frac);
                            let bps = u128::from(r.link_bps);
                            let dep =
                                start.saturating_add((num / bps).min(u128::from(u64::MAX)) as u64);
                            r.frac = (num % bps) as u64;
                            r.busy_until = dep;
                            r.queue.push_back(dep);
                            apply_tos(&mut p, st.tos);
                            p.color = st.color;
                            p.pcn = st.pcn;
                            let id = self.hold(p, i);
                            self.schedule(dep, u64::from(id));
                            return Ok(());
                        }
                        Decision::DropEarly | Decision::DropForced => {
                            return self.leave(p, at, true, sink);
                        }
                    }
                }
                Rt::Ras(prof, ras, scheduled) => {
                    apply_tos(&mut p, st.tos);
                    p.color = st.color;
                    p.pcn = st.pcn;
                    let now = Instant::from_ticks(at);
                    let was_scheduled = *scheduled;
                    // Reserve the slot id first; give it back if the queue refuses.
                    let id = match self.free.last() {
                        Some(&i) => i,
                        None => self.held.len() as u32,
                    };
                    let r = ras.enqueue(prof, now, Held { id, len });
                    let next = ras.next_release();
                    match r {
                        Ok(()) => {
                            self.stats.count(i, 0, len, at);
                            let got = self.hold(p, i);
                            debug_assert_eq!(got, id);
                            if !was_scheduled {
                                if let Some(n) = next {
                                    if let Rt::Ras(_, _, sch) = &mut self.stages[i] {
                                        *sch = true;
                                    }
                                    self.schedule(n.ticks().max(at), RAS_TAG | i as u64);
                                }
                            }
                            return Ok(());
                        }
                        Err(_) => {
                            self.stats.count(i, 1, len, at);
                            return self.leave(p, at, true, sink);
                        }
                    }
                }
                Rt::Tbf(t) => {
                    apply_tos(&mut p, st.tos);
                    p.color = st.color;
                    p.pcn = st.pcn;
                    let now = Instant::from_ticks(at);
                    match t.tbf.enqueue(&t.profile, now, len) {
                        TbfVerdict::Accept => {
                            let kick = !t.scheduled;
                            t.scheduled = true;
                            self.stats.count(i, 0, len, at);
                            let id = self.hold(p, i);
                            if let Rt::Tbf(t) = &mut self.stages[i] {
                                t.fifo.push_back(Held { id, len });
                            }
                            if kick {
                                self.schedule(at, TBF_TAG | i as u64);
                            }
                            return Ok(());
                        }
                        v => {
                            let k = if v == TbfVerdict::DropTooBig { 2 } else { 1 };
                            self.stats.count(i, k, len, at);
                            return self.leave(p, at, true, sink);
                        }
                    }
                }
                Rt::Aqm(_) => {
                    apply_tos(&mut p, st.tos);
                    p.color = st.color;
                    p.pcn = st.pcn;
                    return self.aqm_enqueue(p, i, at, sink);
                }
                _ => {
                    if !self.step(i, &mut st, len, p.slot, at) {
                        apply_tos(&mut p, st.tos);
                        return self.leave(p, at, true, sink);
                    }
                }
            }
        }
        apply_tos(&mut p, st.tos);
        self.leave(p, at, false, sink)
    }
}

//! Invariants of every meter and of the edge, as plain functions shared by the
//! property tests and the fuzz targets. Each returns `Err` with the broken rule.

use crate::edge::{Admission, StopBlockingProfile, StopBlockingTimer};
use crate::mark::PcnMark;
use crate::node::PcnMeter;
use netcond_core::Instant;

/// RFC 6660 section 5.2.1 on one packet: not-PCN stays not-PCN, a PCN packet
/// stays PCN, severity never falls.
pub fn marking_is_monotonic(before: PcnMark, after: PcnMark) -> Result<(), &'static str> {
    if !before.is_pcn() && after != PcnMark::NotPcn {
        return Err("a not-PCN packet was marked");
    }
    if before.is_pcn() && !after.is_pcn() {
        return Err("a PCN packet became not-PCN");
    }
    if after.severity() < before.severity() {
        return Err("a marking became less severe");
    }
    Ok(())
}

/// Runs one packet through `meter` and checks: the marking rule above; the
/// level within [`PcnMeter::level_bounds`]; the last-update time never moves
/// back; a timestamp older than (or equal to) the last update adds no tokens
/// (checked with a not-PCN probe of the same instant on a copy). Returns the
/// new marking.
pub fn meter_step<M: PcnMeter>(
    p: &M::Profile,
    meter: &mut M,
    now: Instant,
    len: u32,
    mark: PcnMark,
) -> Result<PcnMark, &'static str> {
    let before = *meter;
    let backwards = now.ticks_since(before.last_update()) == 0;
    if backwards {
        let mut probe = before;
        probe.mark(p, now, len, PcnMark::NotPcn);
        // (It may lower it: the section 4.8 bucket is capped at pcn_tb on every
        // call, and `+ pcn_px` can leave it above until then.)
        if probe.level() > before.level() {
            return Err("an old or repeated timestamp added tokens");
        }
        if probe.last_update() != before.last_update() {
            return Err("an old timestamp moved the last update");
        }
    }
    let out = meter.mark(p, now, len, mark);
    marking_is_monotonic(mark, out)?;
    let (lo, hi) = M::level_bounds(p);
    if meter.level() < lo || meter.level() > hi {
        return Err("bucket level out of bounds");
    }
    if meter.last_update() != before.last_update() && meter.last_update() != now {
        return Err("last update is neither the old one nor now");
    }
    if !mark.is_pcn() && out != PcnMark::NotPcn {
        return Err("not-PCN packet marked");
    }
    Ok(out)
}

/// A not-PCN packet is never metered: it changes the bucket only by the refill
/// a zero-length probe at the same instant would give.
pub fn not_pcn_is_not_metered<M: PcnMeter>(
    p: &M::Profile,
    meter: &M,
    now: Instant,
    len: u32,
) -> Result<(), &'static str> {
    let mut a = *meter;
    let mut b = *meter;
    a.mark(p, now, len, PcnMark::NotPcn);
    b.mark(p, now, 0, PcnMark::NotPcn);
    if a.level() != b.level() {
        return Err("a not-PCN packet took tokens");
    }
    Ok(())
}

/// The stop-blocking timer after any call: blocked exactly while a deadline is
/// pending, and a poll at the reported wakeup never finds a timeout still due.
pub fn stop_blocking_consistent(
    p: &StopBlockingProfile,
    t: &StopBlockingTimer,
    now: Instant,
) -> Result<(), &'static str> {
    if t.admission() == Admission::Block && t.next_wakeup().is_none() {
        return Err("blocked without a running timer");
    }
    let mut c = *t;
    let _ = c.poll(p, now);
    if c.admission() == Admission::Block {
        // The question is the timer's own: has `now` reached the deadline
        // (`now - deadline` modulo 2^64 below 2^63)? It must not be asked
        // the other way round (`deadline - now` in [1, 2^63)): at exactly
        // 2^63 ticks apart each instant reads as earlier than the other under
        // the serial-time rule (netcond_core::Instant), so the two questions
        // disagree there and only the timer's own is the contract.
        match c.next_wakeup() {
            Some(w) if !crate::units::reached(now, w) => {}
            _ => return Err("after poll(now) a blocked aggregate has a timeout not after now"),
        }
    }
    if c.poll(p, now).is_some() {
        return Err("poll reported the same resumption twice");
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// RFC 6661 / 6662 egress measurement and decision point: an exact model
// ---------------------------------------------------------------------------

use crate::edge::{
    CleAdmission, CleAdmissionConfig, CleAdmissionProfile, DecisionConfig, DecisionPoint,
    DecisionProfile, EdgeBehaviour, EgressMeter, EgressMeterConfig, EgressMeterProfile,
    Termination,
};

/// How many ETM flows [`check_egress`] records per interval.
pub const EGRESS_FLOWS: usize = 4;

/// One call of [`check_egress`]: the time moves by `dt` ticks (wrapping: a
/// `dt` of 2^63 or more is a step back), then a packet, or a poll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EgressOp {
    /// A packet of `len` bytes, marked `mark`, of flow `flow`.
    Packet {
        /// Ticks since the previous call.
        dt: u64,
        /// Length in bytes.
        len: u32,
        /// Its marking on arrival at the egress.
        mark: PcnMark,
        /// Its flow.
        flow: u16,
    },
    /// A poll of the meter, the decision point and the CLE admission.
    Poll {
        /// Ticks since the previous call.
        dt: u64,
    },
}

/// `now` has reached `deadline` in serial time (within 2^63 ticks after it).
fn at_or_after(now: u64, deadline: u64) -> bool {
    now.wrapping_sub(deadline) < 1 << 63
}

/// The model's measurement interval: its counts, written as RFC 6661 / 6662
/// section 3.2 says, in `u128` (never saturating).
struct ModelInterval {
    start: u64,
    end: u64,
    nm: u128,
    thm: u128,
    etm: u128,
}

impl ModelInterval {
    fn new(start: u64, len: u64) -> ModelInterval {
        ModelInterval {
            start,
            end: start.wrapping_add(len),
            nm: 0,
            thm: 0,
            etm: 0,
        }
    }

    /// The interval after this one that holds `now`: intervals are laid end
    /// to end from the first, so it starts a whole number of lengths after
    /// this one's end.
    fn next(&self, now: u64, len: u64) -> ModelInterval {
        let behind = now.wrapping_sub(self.end);
        let whole = behind / len;
        ModelInterval::new(self.end.wrapping_add(whole * len), len)
    }
}

/// Bytes per second over `[start, end)`, rounded down.
fn model_rate(bytes: u128, start: u64, end: u64, hz: u64) -> u128 {
    let d = end.wrapping_sub(start);
    if d == 0 {
        0
    } else {
        // A report's rate is a u64 that saturates (see `Report::nm_rate`):
        // only an interval shorter than one second can carry more than
        // u64::MAX bytes per second.
        (bytes * u128::from(hz) / u128::from(d)).min(u128::from(u64::MAX))
    }
}

/// Drives an RFC 6661 (CL) or RFC 6662 (SM) [`EgressMeter`] with its
/// [`DecisionPoint`], and a 3sM [`CleAdmission`], through `ops` from `start`,
/// and compares them after every call with an exact model written from the
/// RFC text: per `T_meas` interval, the NM, ThM and ETM bytes (ThM counted as
/// ETM with SM, RFC 6660 section 5.3), the rates, the CLE, the flows seen with
/// ETM (CL, the most recent [`EGRESS_FLOWS`]), report suppression (section
/// 3.2.3), the admission decision (CLE < CLE-limit admits, section 3.3.1),
/// the termination steps and the SAR the amount to terminate is taken from
/// (section 3.3.2), the CLE admission's hysteresis, and each object's next
/// wakeup. Configurations a profile refuses are skipped (`Ok`).
pub fn check_egress(
    ec: &EgressMeterConfig,
    dc: &DecisionConfig,
    cc: &CleAdmissionConfig,
    start: Instant,
    ops: &[EgressOp],
) -> Result<(), &'static str> {
    let (Ok(ep), Ok(dp), Ok(cp)) = (
        EgressMeterProfile::new(ec),
        DecisionProfile::new(dc),
        CleAdmissionProfile::new(cc),
    ) else {
        return Ok(());
    };
    let t_meas = ec.tick.ticks_from_duration(ec.t_meas);
    let cle_len = cc.tick.ticks_from_duration(cc.interval);
    let hz = ec.tick.hz();
    let sm_u = match ec.behaviour {
        EdgeBehaviour::ControlledLoad => None,
        EdgeBehaviour::SingleMarking { u } => Some(u128::from(u.to_bits())),
    };
    let dp_sm = matches!(dc.behaviour, EdgeBehaviour::SingleMarking { .. });
    let dp_u = match dc.behaviour {
        EdgeBehaviour::ControlledLoad => None,
        EdgeBehaviour::SingleMarking { u } => Some(u128::from(u.to_bits())),
    };
    let record = ec.record_etm_flows && sm_u.is_none();
    let suppress = ec.suppression.map(|s| {
        (
            u128::from(s.cle_reporting_threshold.to_bits()),
            ec.tick.ticks_from_duration(s.t_maxsuppress),
        )
    });

    let mut now = start.ticks();
    let mut meter = EgressMeter::<u16, EGRESS_FLOWS>::new(&ep, start);
    let mut point = DecisionPoint::new(&dp, start);
    let mut cle = CleAdmission::new(&cp, start);

    // The model.
    let mut iv = ModelInterval::new(now, t_meas);
    let mut flows: heapless::Vec<u16, EGRESS_FLOWS> = heapless::Vec::new();
    let mut last_report = now;
    let mut prev_above = false;
    // (start, end, nm, thm, etm, marked, total, flows) of a report not yet polled.
    type Pending = (u64, u64, u128, u128, u128, heapless::Vec<u16, EGRESS_FLOWS>);
    let mut pending: Option<Pending> = None;
    let mut awaiting = false;
    let mut civ = ModelInterval::new(now, cle_len);
    let mut c_admit = true;
    // (start, end, marked, total, admit, changed) of a CLE decision not yet polled.
    let mut c_pending: Option<(u64, u64, u128, u128, bool, bool)> = None;

    for op in ops {
        let (dt, packet) = match *op {
            EgressOp::Packet {
                dt,
                len,
                mark,
                flow,
            } => (dt, Some((len, mark, flow))),
            EgressOp::Poll { dt } => (dt, None),
        };
        now = now.wrapping_add(dt);
        let t = Instant::from_ticks(now);
        // Closing the meter's interval (on a packet, or a poll with nothing pending).
        let closes = at_or_after(now, iv.end) && (packet.is_some() || pending.is_none());
        if closes {
            let marked = iv.thm + iv.etm;
            let total = iv.nm + iv.thm + iv.etm;
            let send = match suppress {
                None => true,
                Some((thr, tmax)) => {
                    // CLE > threshold, exactly: marked / total > thr / 2^31.
                    let above = marked << 31 > thr * total;
                    let s = above
                        || prev_above
                        || iv.end.wrapping_sub(last_report) >= tmax
                            && at_or_after(iv.end, last_report);
                    prev_above = above;
                    s
                }
            };
            if send {
                last_report = iv.end;
                pending = Some((iv.start, iv.end, iv.nm, iv.thm, iv.etm, flows.clone()));
            }
            flows.clear();
            iv = iv.next(now, t_meas);
        }
        let c_closes = at_or_after(now, civ.end) && (packet.is_some() || c_pending.is_none());
        if c_closes {
            let marked = civ.thm + civ.etm;
            let total = civ.nm + civ.thm + civ.etm;
            let below = |limit: u128| marked << 31 < limit * total;
            let before = c_admit;
            c_admit = if c_admit {
                below(u128::from(cc.stop.to_bits()))
            } else {
                below(u128::from(cc.resume.to_bits()))
            };
            c_pending = Some((
                civ.start,
                civ.end,
                marked,
                total,
                c_admit,
                c_admit != before,
            ));
            civ = civ.next(now, cle_len);
        }
        match packet {
            Some((len, mark, flow)) => {
                meter.on_packet(&ep, t, len, mark, flow);
                cle.on_packet(&cp, t, len, mark);
                let l = u128::from(len);
                match mark {
                    PcnMark::NotPcn => {}
                    PcnMark::Nm => {
                        iv.nm += l;
                        civ.nm += l;
                    }
                    PcnMark::Thm => {
                        if sm_u.is_some() {
                            iv.etm += l;
                        } else {
                            iv.thm += l;
                        }
                        civ.thm += l;
                    }
                    PcnMark::Etm => {
                        iv.etm += l;
                        civ.etm += l;
                        if record && !flows.contains(&flow) {
                            if flows.is_full() {
                                flows.remove(0);
                            }
                            let _ = flows.push(flow);
                        }
                    }
                }
            }
            None => {
                let got = meter.poll(&ep, t);
                let want = pending.take();
                match (got, want) {
                    (None, None) => {}
                    (Some(_), None) => return Err("egress: a report the model does not send"),
                    (None, Some(_)) => return Err("egress: a report the model sends is missing"),
                    (Some(r), Some((s, e, nm, thm, etm, fl))) => {
                        if (r.start.ticks(), r.end.ticks()) != (s, e) {
                            return Err(
                                "egress: the report's interval is not the model's T_meas grid",
                            );
                        }
                        if (
                            u128::from(r.nm_bytes),
                            u128::from(r.thm_bytes),
                            u128::from(r.etm_bytes),
                        ) != (nm, thm, etm)
                        {
                            return Err("egress: NM, ThM or ETM bytes of the interval differ");
                        }
                        let rates = (
                            model_rate(nm, s, e, hz),
                            model_rate(thm, s, e, hz),
                            model_rate(etm, s, e, hz),
                        );
                        if (
                            u128::from(r.nm_rate),
                            u128::from(r.thm_rate),
                            u128::from(r.etm_rate),
                        ) != rates
                        {
                            return Err("egress: a rate differs from bytes / T_meas");
                        }
                        let total = nm + thm + etm;
                        if (u128::from(r.cle.marked), u128::from(r.cle.total)) != (thm + etm, total)
                        {
                            return Err("egress: the CLE is not (ThM + ETM) / all bytes");
                        }
                        if r.etm_flows != fl {
                            return Err("egress: the ETM flows differ");
                        }
                        let d = point.on_report(&dp, &r);
                        // Section 3.3.1: admit while CLE < CLE-limit.
                        let admit = (thm + etm) << 31 < u128::from(dc.cle_limit.to_bits()) * total;
                        let want_adm = if !dc.admission_enabled || admit {
                            crate::edge::Admission::Admit
                        } else {
                            crate::edge::Admission::Block
                        };
                        if d.admission != want_adm {
                            return Err("egress: the admission decision is not CLE < CLE-limit");
                        }
                        // Section 3.3.2: SAR = NM-rate + ThM-rate (CL) or U x NM-rate (SM).
                        let sar = match dp_u {
                            None => rates.0 + rates.1,
                            Some(u) => (rates.0 * u) >> 16,
                        };
                        let sar = sar.min(u128::from(u64::MAX)) as u64;
                        if dp.sar(&r) != sar {
                            return Err("egress: the SAR differs");
                        }
                        let want_term = if !dc.termination_enabled {
                            Termination::None
                        } else if awaiting {
                            awaiting = false;
                            if etm > 0 {
                                Termination::Terminate { sar }
                            } else {
                                Termination::None
                            }
                        } else if (dp_sm && !admit) || (!dp_sm && etm > 0) {
                            awaiting = true;
                            Termination::RequestSentRate
                        } else {
                            Termination::None
                        };
                        if d.termination != want_term {
                            return Err("egress: the termination step differs");
                        }
                        if point.awaiting_report() != awaiting {
                            return Err("egress: the decision point's awaiting state differs");
                        }
                        // The amount to terminate: PCN-sent-rate - SAR, at least 0.
                        let sent = r.nm_rate.saturating_add(r.etm_rate);
                        if crate::edge::amount_to_terminate(sent, sar) != sent.saturating_sub(sar) {
                            return Err("egress: the amount to terminate is not sent - SAR");
                        }
                    }
                }
                let got = cle.poll(&cp, t);
                let want = c_pending.take();
                match (got, want) {
                    (None, None) => {}
                    (Some(_), None) | (None, Some(_)) => {
                        return Err("egress: a CLE admission decision differs in presence")
                    }
                    (Some(d), Some((s, e, marked, total, admit, changed))) => {
                        if (d.start.ticks(), d.end.ticks()) != (s, e)
                            || (u128::from(d.cle.marked), u128::from(d.cle.total))
                                != (marked, total)
                        {
                            return Err("egress: the CLE admission's interval or CLE differs");
                        }
                        let a = d.admission == crate::edge::Admission::Admit;
                        if a != admit || d.changed != changed {
                            return Err("egress: the CLE admission's hysteresis differs");
                        }
                    }
                }
            }
        }
        // After every call: the wakeups and the admission state.
        let want_wake = pending.as_ref().map_or(iv.end, |p| p.1);
        if meter.next_wakeup().ticks() != want_wake {
            return Err("egress: the meter's next wakeup is not the model's");
        }
        let want_cwake = c_pending.as_ref().map_or(civ.end, |p| p.1);
        if cle.next_wakeup().ticks() != want_cwake {
            return Err("egress: the CLE admission's next wakeup is not the model's");
        }
        if (cle.admission() == crate::edge::Admission::Admit) != c_admit {
            return Err("egress: the CLE admission state differs");
        }
    }
    Ok(())
}

//! Invariants of CoDel, FQ-CoDel, PIE, FQ-PIE and DualPI2, written once as
//! plain functions so that the property tests and users' fuzzers share them. Each returns the first
//! violated rule as a message. Call them after every step of any sequence of
//! operations (backwards clocks, zero and huge lengths included).
//!
//! CoDel ([`check_codel`]):
//!
//! - between the two calls of a drop loop (after [`Verdict::Drop`]) the queue
//!   is in the dropping state;
//! - in the dropping state `count >= 1`; with the exact law `lastcount <=
//!   count`;
//! - with the exact law, `drop_next` and `first_above_time` are never more than
//!   one interval after the newest instant seen (they are set at most one
//!   interval ahead of it, the clock only moves forward, and stale ones are
//!   kept within 2^62 ticks behind it). The Linux law is not checked for this:
//!   as in the kernel, its 32-bit times read as future again after about 36
//!   minutes in the past.
//!
//! FQ-CoDel ([`check_fq_codel`]):
//!
//! - the new and old lists are well formed (no cycle, tails right, each flow on
//!   at most one list and marked as on it);
//! - every flow holding packets is on a list;
//! - the queue's packet and byte totals are the sums over the flows;
//! - the flow the scheduler will continue (mid drop loop) is in a drop loop;
//! - every CoDel passes [`check_codel`].
//!
//! [`Verdict::Drop`]: crate::Verdict::Drop

use crate::drr::{Drr, NIL};
use crate::{Codel, CodelProfile, ControlLaw, FqCodel, FqCodelProfile};

/// Checks one CoDel state against its profile.
///
/// # Errors
///
/// The first violated rule.
pub fn check_codel(c: &Codel, p: &CodelProfile) -> Result<(), &'static str> {
    if c.in_drop_loop() && !c.dropping() {
        return Err("a drop loop is pending outside the dropping state");
    }
    let last = c.last_seen().ticks();
    let ahead = |t: u64| -> bool {
        let d = t.wrapping_sub(last);
        p.control_law() == ControlLaw::Exact && d > p.interval() && d < 1 << 63
    };
    if c.dropping() {
        if p.control_law() == ControlLaw::Exact {
            if c.count() == 0 {
                return Err("count is 0 in the dropping state");
            }
            if c.lastcount() > c.count() {
                return Err("lastcount above count");
            }
        }
        if ahead(c.drop_next()) {
            return Err("drop_next more than one interval ahead of the clock");
        }
    }
    if let Some(t) = c.first_above_time() {
        if ahead(t) {
            return Err("first_above_time more than one interval ahead of the clock");
        }
    }
    Ok(())
}

/// Checks an FQ-CoDel state against its profile.
///
/// # Errors
///
/// The first violated rule.
pub fn check_fq_codel<const N: usize>(
    fq: &FqCodel<N>,
    p: &FqCodelProfile,
) -> Result<(), &'static str> {
    check_drr(&fq.drr, |c| check_codel(c, &p.codel))?;
    if fq.pending != NIL {
        match fq.drr.flows.get(usize::from(fq.pending)) {
            Some(fl) if fl.aqm.in_drop_loop() => {}
            _ => return Err("the flow to continue is not in a drop loop"),
        }
    }
    Ok(())
}

/// Checks a PIE state against its profile: the burst allowance never exceeds
/// MAX_BURST (in the law's unit), the RFC law's probability never exceeds one
/// (RFC 8033 section 4.2), and the next update is at most one T_UPDATE after the newest
/// instant seen (the clock only moves forward; a stale one reads as due).
///
/// # Errors
///
/// The first violated rule.
pub fn check_pie(pie: &crate::Pie, p: &crate::PieProfile) -> Result<(), &'static str> {
    let max_burst = match p.law() {
        crate::PieLaw::Linux => p.burst,
        crate::PieLaw::Rfc8033 => p.burst_ticks(),
    };
    if pie.burst_time() > max_burst {
        return Err("the burst allowance exceeds MAX_BURST");
    }
    if p.law() == crate::PieLaw::Rfc8033 {
        // RFC 8033 section 4.2: bounded to [0, 1].
        if pie.prob() > crate::MAX_PROB {
            return Err("the RFC law's probability exceeds one");
        }
    }
    let ahead = pie
        .next_update()
        .ticks()
        .wrapping_sub(pie.last_seen().ticks());
    if ahead > p.t_update() && ahead < 1 << 63 {
        // Allowed only as a stale value, which poll treats as due.
        if ahead <= p.t_update().saturating_mul(2) {
            return Err("the next update is more than one T_UPDATE ahead");
        }
    }
    Ok(())
}

/// Checks a DualPI2 state against its profile: `p'` within [0, 1] (RFC 9332
/// Appendix A bounds it), the `recur()` accumulators below one (each signal
/// takes one off as soon as it passes one), the round robin's count below its
/// weight, and the next update at most one Tupdate after the newest instant
/// seen (a stale one reads as due).
///
/// # Errors
///
/// The first violated rule.
pub fn check_dualpi2(d: &crate::DualPi2, p: &crate::DualPi2Profile) -> Result<(), &'static str> {
    if d.p_prime() > crate::P_ONE {
        return Err("p' exceeds one");
    }
    let (l, c) = d.counts();
    if l > crate::RECUR_ONE || c > crate::RECUR_ONE {
        return Err("a recur() accumulator exceeds one");
    }
    let (served, classic) = d.wrr_position();
    let quota = if classic { p.wrr.1 } else { p.wrr.0 };
    if served >= quota {
        return Err("the round robin's turn is over its weight");
    }
    let ahead = d.next_update().ticks().wrapping_sub(d.last_seen().ticks());
    if ahead > p.t_update() && ahead < 1 << 63 && ahead <= p.t_update().saturating_mul(2) {
        return Err("the next update is more than one Tupdate ahead");
    }
    Ok(())
}

/// Checks an FQ-PIE state against its profile: the new and old lists well
/// formed (no cycle, right tails, each flow on at most one list and marked as
/// on it), every flow holding packets on a list, the totals the sums over the
/// flows, and every flow's PIE passing [`check_pie`].
///
/// # Errors
///
/// The first violated rule.
pub fn check_fq_pie<const N: usize>(
    fq: &crate::FqPie<N>,
    p: &crate::FqPieProfile,
) -> Result<(), &'static str> {
    check_drr(&fq.drr, |c| check_pie(c, p.pie()))
}

/// The flow scheduler's invariants ([`Drr::check_links`]: both lists well
/// formed, every flow holding packets on a list, the totals the sums over the
/// flows), and `check` passing for every flow's AQM.
fn check_drr<A, const N: usize, C>(drr: &Drr<A, N>, mut check: C) -> Result<(), &'static str>
where
    C: FnMut(&A) -> Result<(), &'static str>,
{
    drr.check_links()?;
    drr.flows.iter().try_for_each(|fl| check(&fl.aqm))
}

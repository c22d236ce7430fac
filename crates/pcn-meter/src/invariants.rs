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
        match c.next_wakeup() {
            Some(w) if w.ticks_since(now) > 0 => {}
            _ => return Err("after poll(now) a blocked aggregate has a timeout not after now"),
        }
    }
    if c.poll(p, now).is_some() {
        return Err("poll reported the same resumption twice");
    }
    Ok(())
}

//! Invariants of the RED family, written once as plain functions so that the
//! property tests and the fuzz targets share them.
//!
//! Each `check_*` function drives a state machine through a sequence of
//! operations (anything a caller may do, including backwards clocks, zero and
//! huge lengths) and checks after every step that:
//!
//! - the average stays within `[0, limit]` (the buffer, in queue units);
//! - every p_b is within `[0, 1]`, and is 0 below min_th;
//! - decisions respect the buffer (never admit a packet that does not fit)
//!   and ECN (never mark a not-ECT packet; never mark when ECN is off);
//! - for AECN: the queue never exceeds its limit, the cursors stay within the
//!   queue, and no unmarked ECN-capable packet of a class sits before its
//!   cursor;
//! - for Adaptive RED: one adaptation per elapsed interval (at most
//!   [`AdaptiveRed::MAX_CATCH_UP`] per call), none while the clock stands
//!   still or steps back, each one in the direction figure 2 of Floyd, Gummadi
//!   and Shenker (2001) gives for the average, never moving max_p away from
//!   `[0.009, 0.51]`, and the curve rebuilt for the new max_p.
//!
//! Nothing may panic. A violation is reported as a message.

use fixed::types::U32F32;
use netcond_core::{Color, Instant, SplitMix64};

use crate::red::Common;
use crate::{
    AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile, AecnDescriptor, AecnProfile, AecnQueue,
    Decision, Ecn, FlowClass, Packet, Red, RedProfile, Rio, RioProfile,
};

/// One thing a caller can do to a RED-family queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A packet arrives `dt` ticks after the previous operation (wrapping) to a
    /// queue of `queue_len`; for RIO, `color` and the queue split evenly-ish.
    Arrive {
        /// Ticks since the previous operation.
        dt: u64,
        /// Queue length (RED, RIO total); AECN ignores it.
        queue_len: u32,
        /// Packet length in bytes.
        len: u32,
        /// ECN codepoint bits.
        ecn: u8,
        /// Color index (RIO) or class index (AECN).
        color: u8,
    },
    /// The queue becomes empty (RED, RIO), or one packet leaves (AECN).
    Depart {
        /// Ticks since the previous operation.
        dt: u64,
    },
    /// The clock jumps back by `back` ticks (wrapping).
    ClockBack {
        /// Ticks to go back.
        back: u64,
    },
}

fn p_ok(p: U32F32) -> bool {
    p <= U32F32::ONE
}

/// A decision respects the buffer and ECN.
fn decision_ok(c: &Common, queue_len: u32, pkt: Packet, d: Decision) -> Result<(), &'static str> {
    if d.admits() && c.overflows(queue_len, pkt.len) {
        return Err("admitted a packet that does not fit the buffer");
    }
    if d == Decision::Mark && !(c.ecn && pkt.ecn.is_capable()) {
        return Err("marked a packet that cannot be marked");
    }
    Ok(())
}

/// Checks a RED profile's curve: p_b within `[0, 1]` at a spread of averages
/// from 0 to past the limit, nondecreasing in the average.
pub fn check_red_curve(profile: &RedProfile) -> Result<(), &'static str> {
    let limit = u64::from(profile.limit());
    let mut prev = U32F32::ZERO;
    for i in 0..=64u64 {
        let bits = ((u128::from(limit) * u128::from(i)) << 32) / 60;
        let avg = U32F32::from_bits(u64::try_from(bits).unwrap_or(u64::MAX));
        let p = profile.p_b(avg);
        if !p_ok(p) {
            return Err("p_b above 1");
        }
        if p < prev {
            return Err("p_b decreases as the average grows");
        }
        prev = p;
    }
    Ok(())
}

/// Drives a [`Red`] through `ops` and checks the invariants after each.
pub fn check_red(profile: &RedProfile, ops: &[Op], seed: u64) -> Result<(), &'static str> {
    check_red_curve(profile)?;
    let mut red = Red::new(profile, Instant::ZERO);
    let mut rng = SplitMix64::new(seed);
    let mut now = Instant::ZERO;
    let c = &profile.common;
    for op in ops {
        match *op {
            Op::Arrive {
                dt,
                queue_len,
                len,
                ecn,
                ..
            } => {
                now = now.wrapping_add(dt);
                let pkt = Packet::new(len, Ecn::from_bits(ecn));
                let d = red.on_arrival(profile, now, queue_len, pkt, &mut rng);
                decision_ok(c, queue_len, pkt, d)?;
            }
            Op::Depart { dt } => {
                now = now.wrapping_add(dt);
                red.on_queue_empty(profile, now);
            }
            Op::ClockBack { back } => now = Instant::from_ticks(now.ticks().wrapping_sub(back)),
        }
        if red.avg_bits() > c.avg.limit_fx {
            return Err("average above the buffer limit");
        }
        if !p_ok(profile.p_b(red.avg(profile))) {
            return Err("p_b above 1");
        }
    }
    Ok(())
}

/// Drives a [`Rio`] through `ops` (the queue length split over the colors as
/// `q/2`, `q/4`, the rest) and checks the invariants after each.
pub fn check_rio(profile: &RioProfile, ops: &[Op], seed: u64) -> Result<(), &'static str> {
    let mut rio = Rio::new(profile, Instant::ZERO);
    let mut rng = SplitMix64::new(seed);
    let mut now = Instant::ZERO;
    let c = &profile.common;
    for op in ops {
        match *op {
            Op::Arrive {
                dt,
                queue_len,
                len,
                ecn,
                color,
            } => {
                now = now.wrapping_add(dt);
                let q = [
                    queue_len / 2,
                    queue_len / 4,
                    queue_len - queue_len / 2 - queue_len / 4,
                ];
                let pkt = Packet::new(len, Ecn::from_bits(ecn));
                let col = Color::from_index(color as usize);
                let d = rio.on_arrival(profile, now, q, col, pkt, &mut rng);
                decision_ok(c, queue_len, pkt, d)?;
            }
            Op::Depart { dt } => {
                now = now.wrapping_add(dt);
                rio.on_queue_empty(profile, now);
            }
            Op::ClockBack { back } => now = Instant::from_ticks(now.ticks().wrapping_sub(back)),
        }
        for col in Color::ALL {
            if rio.avg_bits()[col.index()] > c.avg.limit_fx {
                return Err("average above the buffer limit");
            }
            if !p_ok(profile.p_b(col, rio.avg(profile, col))) {
                return Err("p_b above 1");
            }
        }
    }
    Ok(())
}

/// How far a max_p (2^-32 units) lies outside Adaptive RED's range
/// `[0.009, 0.51]`.
fn outside_adaptive_range(p: u64) -> u64 {
    let (lo, hi) = (
        AdaptiveRed::MAX_P_FLOOR.to_bits(),
        AdaptiveRed::MAX_P_CEIL.to_bits(),
    );
    lo.saturating_sub(p).max(p.saturating_sub(hi))
}

/// Checks one call that may adapt (`adapt` or `on_arrival`) at `now` on a
/// queue of `profile` (built from `cfg`): `before` is the queue before the call, `after` the queue after its adaptations
/// (before the arrival's own average update), `n` the adaptations it ran.
///
/// Timing: `n` is the number of whole intervals elapsed since the interval
/// start, at most [`AdaptiveRed::MAX_CATCH_UP`] (so at most one adaptation
/// per interval of forward time, and none when the clock stands still or
/// steps back), and the interval start moves by exactly `n` intervals, or to
/// `now` after a longer silence.
///
/// max_p (the average is the same for every adaptation of one call): unchanged
/// inside the target band; above it, nondecreasing, and unchanged from above
/// 0.5; below it, nonincreasing, and unchanged from below 0.01. One
/// adaptation is exactly figure 2's step: `+ min(0.01, max_p / 4)` or `* 0.9`
/// (rounded down). Adaptations never move max_p further from
/// `[0.009, 0.51]`. The curve is rebuilt for the new max_p: p_b stays a
/// nondecreasing curve within `[0, 1]`, at most max_p below max_th, and at
/// max_th exactly max_p (gentle) or 1.
pub fn adaptation_ok(
    cfg: &AdaptiveRedConfig,
    profile: &AdaptiveRedProfile,
    before: &AdaptiveRed,
    after: &AdaptiveRed,
    n: u32,
    now: Instant,
) -> Result<(), &'static str> {
    let cfg = &cfg.red;
    let iv = profile.interval_ticks();
    if iv == 0 {
        return Err("the adaptation interval is zero");
    }
    let elapsed = now.ticks_since(before.interval_start());
    let due = elapsed / iv;
    let cap = u64::from(AdaptiveRed::MAX_CATCH_UP);
    if u64::from(n) != due.min(cap) {
        return Err("not one adaptation per elapsed interval");
    }
    let start = if due > cap {
        now
    } else {
        before.interval_start().wrapping_add(u64::from(n) * iv)
    };
    if after.interval_start() != start {
        return Err("the interval start did not move by the intervals adapted");
    }
    let (old, new) = (before.max_p().to_bits(), after.max_p().to_bits());
    let avg = before.red().avg_bits();
    if after.red().avg_bits() != avg {
        return Err("an adaptation changed the average");
    }
    let (lo, hi) = profile.target_bits();
    let (inc, dec) = (avg > hi, avg < lo);
    let p001 = 42_949_673; // 0.01, rounded to nearest
    let unchanged =
        n == 0 || !(inc || dec) || (inc && old > U32F32::ONE.to_bits() / 2) || (dec && old < p001);
    if unchanged {
        if new != old {
            return Err("max_p changed without a due adaptation that changes it");
        }
    } else if n == 1 {
        let ok = if inc {
            new == old + (old / 4).min(p001)
        } else {
            10 * new <= 9 * old && 9 * old < 10 * new + 10
        };
        if !ok {
            return Err("one adaptation is not figure 2's step");
        }
    }
    if (inc && new < old) || (dec && new > old) {
        return Err("max_p moved against the average");
    }
    if outside_adaptive_range(new) > outside_adaptive_range(old) {
        return Err("max_p moved away from [0.009, 0.51]");
    }
    if new != old {
        let p = &after.current_profile(profile);
        check_red_curve(p)?;
        let f = p.avg_frac_bits();
        let at_max = U32F32::from_bits(u64::from(cfg.max_th) << 32);
        let below_max = U32F32::from_bits(at_max.to_bits() - (1 << (32 - f)));
        if p.p_b(below_max) > after.max_p() {
            return Err("p_b above max_p below max_th");
        }
        let want = if cfg.queue.gentle {
            after.max_p()
        } else {
            U32F32::ONE
        };
        if p.p_b(at_max) != want {
            return Err("p_b at max_th is not max_p (gentle) or 1");
        }
    }
    Ok(())
}

/// Drives an [`AdaptiveRed`] (configuration `cfg`, started at tick `start`) through `ops` and checks [`adaptation_ok`] and
/// RED's invariants after each. Arrivals adapt inside `on_arrival`, which must
/// adapt exactly as `adapt` at the same instant; departures call
/// `on_queue_empty` and then `adapt` (a timer); a backward clock step calls
/// `adapt` too. A configuration is refused exactly when RED refuses it or the
/// interval is zero (then there is nothing more to check).
pub fn check_adaptive(
    acfg: &AdaptiveRedConfig,
    start: u64,
    ops: &[Op],
    seed: u64,
) -> Result<(), &'static str> {
    let cfg = &acfg.red;
    let mut now = Instant::from_ticks(start);
    let valid = cfg.tick.ticks_from_duration(acfg.interval) > 0 && RedProfile::new(cfg).is_ok();
    let ap = match AdaptiveRedProfile::new(acfg) {
        Ok(p) if valid => p,
        Err(_) if !valid => return Ok(()),
        _ => return Err("configuration accepted or refused against the rules"),
    };
    let ap = &ap;
    let mut a = AdaptiveRed::new(ap, now);
    if a.max_p() != cfg.max_p || a.interval_start() != now {
        return Err("Adaptive RED did not start from the configured max_p and instant");
    }
    let (lo, hi) = ap.target_bits();
    let c = ap.red().common;
    let th = |t: u32| u64::from(t) << c.avg.frac;
    if lo > hi || u64::from(lo) < th(cfg.min_th) || u64::from(hi) > th(cfg.max_th) {
        return Err("target band not within [min_th, max_th]");
    }
    check_red_curve(&a.current_profile(ap))?;
    let mut rng = SplitMix64::new(seed);
    for op in ops {
        match *op {
            Op::Arrive {
                dt,
                queue_len,
                len,
                ecn,
                ..
            } => {
                now = now.wrapping_add(dt);
                let pkt = Packet::new(len, Ecn::from_bits(ecn));
                let mut probe = a;
                let n = probe.adapt(ap, now);
                adaptation_ok(acfg, ap, &a, &probe, n, now)?;
                let d = a.on_arrival(ap, now, queue_len, pkt, &mut rng);
                if a.max_p() != probe.max_p() || a.interval_start() != probe.interval_start() {
                    return Err("on_arrival adapted differently from adapt");
                }
                decision_ok(&c, queue_len, pkt, d)?;
            }
            Op::Depart { dt } => {
                now = now.wrapping_add(dt);
                a.on_queue_empty(ap, now);
                let before = a;
                let n = a.adapt(ap, now);
                adaptation_ok(acfg, ap, &before, &a, n, now)?;
            }
            Op::ClockBack { back } => {
                now = Instant::from_ticks(now.ticks().wrapping_sub(back));
                let before = a;
                let n = a.adapt(ap, now);
                adaptation_ok(acfg, ap, &before, &a, n, now)?;
            }
        }
        if a.red().avg_bits() > c.avg.limit_fx {
            return Err("average above the buffer limit");
        }
        if !p_ok(a.p_b(ap, a.red().avg(ap.red()))) {
            return Err("p_b above 1");
        }
    }
    Ok(())
}

/// The descriptor [`check_aecn`] queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestDescriptor {
    /// The class.
    pub class: FlowClass,
    /// The ECN field.
    pub ecn: Ecn,
    /// A sequence number.
    pub seq: u32,
}

impl AecnDescriptor for TestDescriptor {
    fn class(&self) -> FlowClass {
        self.class
    }
    fn ecn(&self) -> Ecn {
        self.ecn
    }
    fn set_ce(&mut self) {
        self.ecn = Ecn::Ce;
    }
}

/// Drives an [`AecnQueue`] of capacity 64 through `ops` and checks the
/// invariants after each, with a queue of capacity 64: any `profile.limit()`
/// (above 64, the queue never holds more than 64, and an arrival to a full
/// queue is handed back as a forced drop).
pub fn check_aecn(profile: &AecnProfile, ops: &[Op], seed: u64) -> Result<(), &'static str> {
    const CAP: usize = 64;
    let mut q = AecnQueue::<TestDescriptor, CAP>::new(profile, Instant::ZERO);
    let mut rng = SplitMix64::new(seed);
    let mut now = Instant::ZERO;
    let mut seq = 0u32;
    for op in ops {
        match *op {
            Op::Arrive { dt, ecn, color, .. } => {
                now = now.wrapping_add(dt);
                let class = FlowClass::ALL[(color % 3) as usize];
                let d = TestDescriptor {
                    class,
                    ecn: Ecn::from_bits(ecn),
                    seq,
                };
                seq = seq.wrapping_add(1);
                let before = q.len();
                match q.enqueue(profile, now, d, &mut rng) {
                    Ok(_) => {
                        if q.len() != before + 1 {
                            return Err("an admitted packet was not queued");
                        }
                    }
                    Err(r) => {
                        if r.packet != d || !r.decision.is_drop() || q.len() != before {
                            return Err("a refused packet was not handed back unchanged");
                        }
                    }
                }
            }
            Op::Depart { dt } => {
                now = now.wrapping_add(dt);
                let before = q.len();
                let out = q.dequeue(profile, now);
                if out.is_some() != (before > 0) {
                    return Err("dequeue disagrees with the length");
                }
            }
            Op::ClockBack { back } => now = Instant::from_ticks(now.ticks().wrapping_sub(back)),
        }
        if q.len() > profile.limit() as usize || q.len() > CAP {
            return Err("queue above its limit or its capacity");
        }
        if q.avg(profile) > U32F32::from_num(profile.limit()) {
            return Err("average above the buffer limit");
        }
        for class in FlowClass::ALL {
            let cur = q.cursors()[class.index()] as usize;
            if cur > q.len() {
                return Err("cursor past the end of the queue");
            }
            if q.iter()
                .take(cur)
                .any(|d| d.class == class && matches!(d.ecn, Ecn::Ect0 | Ecn::Ect1))
            {
                return Err("an unmarked packet sits before its class's cursor");
            }
        }
    }
    Ok(())
}

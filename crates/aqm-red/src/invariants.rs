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
//!   cursor.
//!
//! Nothing may panic. A violation is reported as a message.

use fixed::types::U32F32;
use netcond_core::{Color, Instant, SplitMix64};

use crate::{
    AecnDescriptor, AecnProfile, AecnQueue, Decision, Ecn, FlowClass, Packet, Red, RedProfile, Rio,
    RioProfile,
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
    let mut red = Red::new();
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
                if d.admits() && c.overflows(queue_len, len) {
                    return Err("admitted a packet that does not fit the buffer");
                }
                if d == Decision::Mark && !(c.ecn && pkt.ecn.is_capable()) {
                    return Err("marked a packet that cannot be marked");
                }
            }
            Op::Depart { dt } => {
                now = now.wrapping_add(dt);
                red.on_queue_empty(now);
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
    let mut rio = Rio::new();
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
                if d.admits() && c.overflows(queue_len, len) {
                    return Err("admitted a packet that does not fit the buffer");
                }
                if d == Decision::Mark && !(c.ecn && pkt.ecn.is_capable()) {
                    return Err("marked a packet that cannot be marked");
                }
            }
            Op::Depart { dt } => {
                now = now.wrapping_add(dt);
                rio.on_queue_empty(now);
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
/// invariants after each. `profile.limit()` must be at most 64 (else the
/// queue is refused, which is checked too).
pub fn check_aecn(profile: &AecnProfile, ops: &[Op], seed: u64) -> Result<(), &'static str> {
    let mut q = match AecnQueue::<TestDescriptor, 64>::new(profile) {
        Ok(q) => q,
        Err(_) if profile.limit() > 64 => return Ok(()),
        Err(_) => return Err("queue refused a limit within its capacity"),
    };
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
                let out = q.dequeue(now);
                if out.is_some() != (before > 0) {
                    return Err("dequeue disagrees with the length");
                }
            }
            Op::ClockBack { back } => now = Instant::from_ticks(now.ticks().wrapping_sub(back)),
        }
        if q.len() > profile.limit() as usize {
            return Err("queue above its limit");
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

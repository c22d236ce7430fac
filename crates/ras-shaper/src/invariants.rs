//! Invariants of the shapers, written once as plain functions so that the
//! property tests and fuzz targets share them. Each returns `Err` with the name
//! of the broken rule.

use netcond_core::{Color, Instant};

use crate::ear::{Ear, EAR_EXTRA_BITS};
use crate::profile::RasProfile;
use crate::schedule::Schedule;
use crate::shaper::{PacketLen, Ras};

/// F and the shaping rate stay within `[CIR, MIR]`, F is non-decreasing from
/// `occupancy` to `occupancy + 1`, and the shaping rate is at least F and at
/// least the EAR (up to MIR).
pub fn rate_bounds(p: &RasProfile, ear: &Ear, occupancy: u64) -> Result<(), &'static str> {
    let f = p.rate_function(occupancy);
    if f < p.cir_units() || f > p.mir_units() {
        return Err("F outside [CIR, MIR]");
    }
    if p.rate_function(occupancy.saturating_add(1)) < f {
        return Err("F decreasing");
    }
    let r = p.shaping_rate(ear, occupancy);
    if r < f || r > p.mir_units() {
        return Err("shaping rate below F or above MIR");
    }
    let e = (ear.raw() >> EAR_EXTRA_BITS).min(p.mir_units());
    if r < e {
        return Err("shaping rate below EAR");
    }
    Ok(())
}

/// The queue's byte count equals the sum of its packets and stays within the
/// buffer size and `N` entries; the head's release point is `min(T1, T2)`, is
/// not before the head's arrival, and `next_release` is its first whole tick.
pub fn shaper_consistent<P: PacketLen, const N: usize>(
    p: &RasProfile,
    s: &Ras<P, N>,
) -> Result<(), &'static str> {
    let sum: u64 = s.iter().map(|x| x.packet_len() as u64).sum();
    if sum != s.bytes() {
        return Err("byte count differs from the queued packets");
    }
    if s.bytes() > p.buffer_bytes() || s.len() > N {
        return Err("capacity exceeded");
    }
    let Some(arrival) = s.head_arrival() else {
        return if s.next_release().is_none() {
            Ok(())
        } else {
            Err("empty shaper with a release time")
        };
    };
    let head = s.head_schedule();
    let t1 = s.head_t1();
    let expected = match s.head_t2() {
        Some(t2) if not_after(Schedule::whole(t2), t1) => Schedule::whole(t2),
        _ => t1,
    };
    if head != expected {
        return Err("head release is not min(T1, T2)");
    }
    if !not_after(Schedule::whole(arrival), t1) {
        return Err("T1 before the head's arrival");
    }
    if s.next_start() != t1 && Schedule::whole(arrival) != t1 {
        return Err("T1 is neither the arrival nor the previous release plus its gap");
    }
    if s.next_release() != Some(head.ceil()) {
        return Err("release instant is not the first tick of the schedule");
    }
    Ok(())
}

/// Two consecutive releases of one shaper are in order, and a packet is not
/// released before its release instant.
pub fn release_in_order(
    previous: Option<Instant>,
    release: Instant,
    now: Instant,
) -> Result<(), &'static str> {
    if release.ticks_since(now) != 0 {
        return Err("released before its release instant");
    }
    if let Some(prev) = previous {
        if prev.ticks_since(release) != 0 {
            return Err("releases out of order");
        }
    }
    Ok(())
}

/// Two consecutive release instants of one shaper, `previous` that of a
/// packet of `len` bytes, leave that packet its transmission time at MIR: the
/// output never runs faster than MIR, whether the next packet left at T1 or at
/// T2.
///
/// The previous packet's release point lies within the tick before its
/// release instant, and the gaps carry the reciprocal's relative error (below
/// 1e-10) and a Q32 fraction, so the rule checked is `d + 1 > g (1 - 2^-30)`
/// with `d` the ticks between the instants and `g = len 2^S / MIR` the exact
/// gap in ticks (capped at [`MAX_GAP_TICKS`](crate::MAX_GAP_TICKS)): a 1500 B
/// packet followed in the same tick fails it whenever MIR needs two ticks or
/// more for it.
pub fn mir_spacing(
    p: &RasProfile,
    previous: Option<(Instant, u32)>,
    release: Instant,
) -> Result<(), &'static str> {
    let Some((prev, len)) = previous else {
        return Ok(());
    };
    let d = release.ticks().wrapping_sub(prev.ticks());
    if d > i64::MAX as u64 {
        return Err("releases out of order");
    }
    let window = d as u128 + 1;
    if window >= crate::MAX_GAP_TICKS as u128 {
        return Ok(());
    }
    // Fails when (d + 1) (1 + 2^-30) < len 2^S / MIR, in integers; a product
    // that overflows is above the right side, which is below 2^(32 + 63 + 30).
    let mir = p.mir_units().max(1) as u128;
    let left = window
        .checked_mul(mir)
        .and_then(|x| x.checked_mul((1 << 30) + 1));
    let right = ((len as u128) << p.scale().min(63)) << 30;
    match left {
        Some(l) if l < right => Err("two releases closer than MIR allows"),
        _ => Ok(()),
    }
}

/// A packet that a green shaper released at T2 (no later than T1) is green at
/// the meter (RFC 2963 section 3).
pub fn green_at_t2(released_at_t2: bool, color: Color) -> Result<(), &'static str> {
    if released_at_t2 && color != Color::Green {
        return Err("released at T2 but not green");
    }
    Ok(())
}

fn not_after(a: Schedule, b: Schedule) -> bool {
    let d = b.at.ticks().wrapping_sub(a.at.ticks());
    if d == 0 {
        a.frac <= b.frac
    } else {
        d <= i64::MAX as u64
    }
}

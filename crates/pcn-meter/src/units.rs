//! Scaled token units shared by the meters of this crate.
//!
//! Every bucket here counts tokens in units of `1 / (scale * k)` byte, where
//! `scale` and the per-tick increment `inc` come from
//! [`netcond_core::BucketProfile`] (one tick adds exactly `inc` units, one byte
//! costs exactly `scale` units) and `k` is an extra refinement factor, 1 except
//! for the proportional reduction of 3sM (`s * size / MTU`), where
//! `k = MTU / gcd(s * scale, MTU)` makes `s * scale * k / MTU` a whole number of
//! units per byte, so that the reduction is exact too.
//!
//! Capacities stay below 2^62 units, so a full bucket plus one more addition of
//! at most 2^62 units never overflows a `u64`. The two buckets that may go
//! negative keep an `i128` level ([`Wide`]), charged each packet's exact cost
//! (see [`FLOOR`]).

use netcond_core::{BucketProfile, Instant, Rate, TickRate};

/// 2^62: the largest capacity (exclusive) and the cap of any per-packet amount.
pub(crate) const MAX_UNITS: u64 = 1 << 62;

/// The lowest value the two signed levels ([`EtMarkerSim48`](crate::EtMarkerSim48)
/// and the size-independent [`ExcessTrafficMeter`](crate::ExcessTrafficMeter))
/// may take: `i128::MIN` units, held there (saturating).
///
/// Every packet is charged its exact cost, `len * scale` units, below 2^94
/// (`len < 2^32`, `scale < 2^62`), and the level is an `i128`. The
/// size-independent excess meter only subtracts from a level that is not
/// negative, so its level never goes below -2^94: the floor is unreachable.
/// The section 4.8 ET-marker may go down by up to one packet's cost per
/// packet (when `pcn_px` is smaller than the packets); from a level of at
/// least -2^94 it takes more than 2^33 packets, each 4 GiB long, with no
/// token added in between (more than 2^65 bytes) to reach the floor. Any
/// shorter sequence is exact.
pub const FLOOR: i128 = i128::MIN;

/// A signed level stored as two 64-bit words (an `i128` would align the
/// state to 16 bytes and make it 32 bytes long; this keeps it at 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct Wide {
    lo: u64,
    hi: u64,
}

impl Wide {
    /// `v` stored.
    #[inline(always)]
    pub(crate) const fn new(v: i128) -> Wide {
        Wide {
            lo: v as u64,
            hi: (v >> 64) as u64,
        }
    }

    /// The value, if it fits an `i64` (the high word is the low word's sign).
    #[inline(always)]
    pub(crate) const fn narrow(self) -> Option<i64> {
        if ((self.lo as i64) >> 63) as u64 == self.hi {
            Some(self.lo as i64)
        } else {
            None
        }
    }

    /// The value.
    #[inline(always)]
    pub(crate) const fn get(self) -> i128 {
        ((self.hi as u128) << 64 | self.lo as u128) as i128
    }
}

/// The precomputed units of one bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Units {
    /// Units added per tick (saturated at `u64::MAX`: then any tick fills it).
    pub inc: u64,
    /// Units per byte.
    pub scale: u64,
    /// Capacity in units, below 2^62.
    pub cap: u64,
    /// `min(inc, cap)`: a tick never needs to bring more than a full bucket.
    pub inc_fill: u64,
    /// Ticks that fill an empty bucket: `ceil(cap / inc_fill)` (0 if either is
    /// 0). With `inc_fill`, see [`gain_to_cap`](Self::gain_to_cap).
    pub fill_ticks: u64,
    /// One byte more than the bucket holds, `cap / scale + 1` (scale >= 1).
    /// A packet's length held at `len_over` costs `min(len, len_over) * scale`
    /// units: exactly its cost up to the bucket size, and above the capacity
    /// (`len_over * scale > cap`) beyond, where only "more than the fill"
    /// matters to a bucket that is never negative. At most `cap + scale`,
    /// below 2^63: the product cannot overflow.
    pub len_over: u64,
    /// Whether every length fits: `u32::MAX * scale <= 2^62`, so that any
    /// packet's cost `len * scale` is at most 2^62 without holding the length
    /// at `len_over` (see [`held`](Self::held)).
    pub lens_fit: bool,
    /// 0, the fill of an empty bucket, read from the profile rather than
    /// written as a literal, so that [`sat_sub`](Self::sat_sub) stays a
    /// select rather than a saturating subtraction.
    pub empty: u64,
}

impl Units {
    /// Units of a bucket of `size` bytes at `rate`, refined by `k`. `None` if the
    /// capacity or the scale does not stay below 2^62.
    pub(crate) fn new(rate: Rate, size: u64, tick: TickRate, k: u64) -> Option<Units> {
        let b = BucketProfile::new(rate, size, tick).ok()?;
        let scale = b.scale() as u128 * k as u128;
        let cap = b.full() as u128 * k as u128;
        if scale >= MAX_UNITS as u128 || cap >= MAX_UNITS as u128 {
            return None;
        }
        let inc = b.inc().saturating_mul(k);
        let (scale, cap) = (scale as u64, cap as u64);
        let inc_fill = inc.min(cap);
        Some(Units {
            inc,
            scale,
            cap,
            inc_fill,
            fill_ticks: if inc_fill == 0 {
                0
            } else {
                cap.div_ceil(inc_fill)
            },
            // scale >= 1: a byte is 8 hz / gcd(rate, 8 hz) >= 1 units.
            len_over: cap / scale + 1,
            lens_fit: u128::from(u32::MAX) * u128::from(scale) <= MAX_UNITS as u128,
            empty: 0,
        })
    }

    /// Units of `bytes` bytes, `None` at or above 2^62.
    pub(crate) fn bytes(&self, bytes: u64) -> Option<u64> {
        let u = bytes as u128 * self.scale as u128;
        if u >= MAX_UNITS as u128 {
            None
        } else {
            Some(u as u64)
        }
    }

    /// The tokens `dt` ticks bring to a bucket whose fill is never negative:
    /// exactly `dt * inc` when that is below the capacity, and at least the
    /// capacity otherwise, so that `min(fill + gain_to_cap(dt), cap)` is the
    /// refill for any `0 <= fill <= cap`. Below `2 * cap` (below 2^63): with
    /// `dt` held at `fill_ticks = ceil(cap / inc_fill)` the product is below
    /// `cap + inc_fill <= 2 * cap`. No overflow, no saturation, one multiply.
    ///
    /// Proof of the two cases. If `dt < fill_ticks` then `inc_fill > 0`, and
    /// `inc_fill < cap` (else `fill_ticks` would be 1 and `dt` 0, a gain of 0
    /// either way), so `inc_fill = inc` and `dt * inc <= (fill_ticks - 1) * inc
    /// < cap`: exact. Otherwise the result is `fill_ticks * inc_fill >= cap`,
    /// and `dt * inc >= fill_ticks * inc_fill >= cap` too (or `cap == 0`).
    #[inline(always)]
    pub(crate) fn gain_to_cap(&self, dt: u64) -> u64 {
        let dt = if dt > self.fill_ticks {
            self.fill_ticks
        } else {
            dt
        };
        dt * self.inc_fill
    }

    /// The fill of a bucket that is never negative after `dt` ticks:
    /// `min(fill + dt * inc, cap)`, exactly. `fill <= cap < 2^62` and the
    /// gain is below `2 cap`: the sum does not overflow.
    ///
    /// After `fill_ticks` ticks the bucket is full whatever it held, which
    /// is taken without a multiply: a rate above zero (`inc_fill > 0`; the
    /// meters that call this reject a zero rate), and, as for
    /// [`gain_to_cap`](Self::gain_to_cap), `dt * inc_fill < cap` below.
    #[inline(always)]
    pub(crate) fn refill(&self, fill: u64, dt: u64) -> u64 {
        if dt >= self.fill_ticks {
            self.cap
        } else {
            self.cap_at(fill + dt * self.inc_fill)
        }
    }

    /// `min(x, cap)`.
    #[inline(always)]
    pub(crate) fn cap_at(&self, x: u64) -> u64 {
        if x > self.cap {
            self.cap
        } else {
            x
        }
    }

    /// The length a packet is costed at, `len * scale` units: `len` held at
    /// `len_over`.
    ///
    /// The cost is exact up to the bucket size, and beyond it above the
    /// capacity (`len_over * scale > cap`), at most `cap + scale`, so below
    /// 2^63; every use of a cost here only asks whether it is more than a fill
    /// of at most `cap` (and then leaves the fill or empties it), so holding
    /// changes no result. The markers' common cases (the ET-marker's tail
    /// marking and the AS-marker's draft-babiarz-pcn-explicit-marking-01 form
    /// with lengths that fit, `lens_fit`) skip the hold on their own paths;
    /// skipping it here too saved under 10 % of instructions on every meter
    /// that uses it (docs/performance.md), so there is one form.
    #[inline(always)]
    pub(crate) fn held(&self, len: u32) -> u64 {
        u64::from(len).min(self.len_over)
    }

    /// The signed level after `dt` ticks: `min(fill + dt * inc, cap)`,
    /// exactly (`cap` too when the fill is already above it).
    #[inline(always)]
    pub(crate) fn refill_wide(&self, fill: i128, dt: u64) -> i128 {
        let cap = self.cap as i128;
        if fill >= cap {
            return cap;
        }
        // cap < 2^62 and fill >= i128::MIN: the room is below 2^128.
        let room = cap.wrapping_sub(fill) as u128;
        let gain = u128::from(dt) * u128::from(self.inc);
        if gain >= room {
            cap
        } else {
            fill + gain as i128
        }
    }

    /// The exact cost of a `len`-byte packet in units: below 2^94.
    #[inline(always)]
    pub(crate) fn cost_wide(&self, len: u32) -> u128 {
        u128::from(len) * u128::from(self.scale)
    }
}

/// 1 if `a < b`, else 0, for `a, b < 2^63`: the sign of `a - b`, as an
/// index into the output tables.
#[inline(always)]
pub(crate) const fn below(a: u64, b: u64) -> usize {
    (a.wrapping_sub(b) >> 63) as usize
}

impl Units {
    /// Moves `last` to `now` and returns the ticks elapsed, exactly as
    /// [`Instant::advance_to`], through its per-packet form
    /// [`Instant::advance_to_hot`].
    #[inline(always)]
    pub(crate) fn elapsed(&self, last: &mut Instant, now: Instant) -> u64 {
        last.advance_to_hot(now)
    }

    /// [`elapsed`](Self::elapsed) as two conditional moves, no branch: the
    /// excess meter's own form, which saves it 10.8 % of its instructions
    /// over [`elapsed`](Self::elapsed)'s branch (docs/pcn-meter.md). The zero
    /// is read from `empty`, which saves clearing a register in every iteration
    /// of a loop short of registers; both selects use the flags of the one
    /// subtraction.
    #[inline(always)]
    pub(crate) fn elapsed_select(&self, last: &mut Instant, now: Instant) -> u64 {
        let d = now.ticks().wrapping_sub(last.ticks());
        let back = (d as i64) < 0;
        *last = select(back, *last, now);
        select(back, self.empty, d)
    }

    /// `max(x - y, 0)`, as a select (see `empty`; `x & empty` keeps the zero
    /// in a register).
    #[inline(always)]
    pub(crate) fn sat_sub(&self, x: u64, y: u64) -> u64 {
        select(x >= y, x.wrapping_sub(y), x & self.empty)
    }
}

/// `if c { a } else { b }` without a branch: the compiler is told that `c`
/// is unpredictable (netcond-core's `select_unpredictable`), so that it keeps
/// a conditional move where LLVM's x86 cmov-to-branch pass would otherwise
/// make a branch of it.
pub(crate) use netcond_core::branchless::select_unpredictable as select;
/// True when serial time `now` has reached `deadline` (modulo 2^64, half range).
#[inline(always)]
pub(crate) fn reached(now: Instant, deadline: Instant) -> bool {
    now.ticks().wrapping_sub(deadline.ticks()) <= i64::MAX as u64
}

/// The longest timer or interval, in ticks: 2^62 (146 years at 1 ns). The
/// deadlines are serial times compared over half the 64-bit range, so a
/// duration must stay well below 2^63 ticks for "reached" to mean anything.
pub const MAX_DURATION_TICKS: u64 = 1 << 62;

/// Ticks in `nanos` nanoseconds of clock `tick`, refused when zero or longer
/// than [`MAX_DURATION_TICKS`].
pub(crate) fn duration_ticks(
    tick: TickRate,
    d: core::time::Duration,
) -> Result<u64, crate::EdgeError> {
    match tick.ticks_from_duration(d) {
        0 => Err(crate::EdgeError::ZeroDuration),
        t if t > MAX_DURATION_TICKS => Err(crate::EdgeError::DurationTooLong),
        t => Ok(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    #[test]
    fn signed_refill_caps_and_never_overflows() {
        let u = Units::new(Rate::from_bytes_per_sec(1_000), 100, TickRate::MILLIS, 1).unwrap();
        assert_eq!((u.inc, u.scale, u.cap), (1, 1, 100));
        assert_eq!(u.refill_wide(-50, 30), -20);
        assert_eq!(u.refill_wide(-50, u64::MAX), 100);
        assert_eq!(u.refill_wide(FLOOR, u64::MAX), FLOOR + i128::from(u64::MAX));
        assert_eq!(u.refill_wide(-1 << 60, u64::MAX), 100);
        assert_eq!(u.refill_wide(FLOOR, 5), FLOOR + 5);
        assert_eq!(u.refill_wide(500, 0), 100);
        assert_eq!(u.cost_wide(u32::MAX), u128::from(u32::MAX));
        for v in [0, -1, 1, FLOOR, i128::MAX, -(1 << 94), 1 << 70] {
            assert_eq!(Wide::new(v).get(), v);
            assert_eq!(Wide::new(v).narrow(), i64::try_from(v).ok());
        }
        for v in [i64::MIN, i64::MAX, -5, 0] {
            assert_eq!(Wide::new(i128::from(v)).narrow(), Some(v));
        }
    }

    /// Units of `size` bytes at `bits` bit/s on a clock of `hz`, if accepted.
    fn units(bits: u64, size: u64, hz: u64) -> Option<Units> {
        Units::new(
            Rate::from_bits_per_sec(bits),
            size,
            TickRate::from_hz(hz).unwrap(),
            1,
        )
    }

    /// The proofs of `gain_to_cap` and `len_over`, at their boundaries: exact
    /// below the capacity, at least it from `fill_ticks` on, below `2 cap`;
    /// a length held at `len_over` costs exactly up to the bucket size, more
    /// than the capacity beyond, and less than 2^63.
    #[test]
    fn gain_and_cost_hold_at_their_bounds() {
        let mut checked = 0;
        for bits in [0, 1, 3, 251, 480_000_000, 1 << 40, u64::MAX] {
            for hz in [1, 3, 1_000_000_000, 2_300_000_000, 1 << 61, u64::MAX] {
                let Some(probe) = units(bits, 0, hz) else {
                    continue;
                };
                let biggest = (MAX_UNITS - 1) / probe.scale;
                for size in [0, 1, 1500, 50_000, biggest] {
                    let Some(u) = units(bits, size, hz) else {
                        continue;
                    };
                    checked += 1;
                    let ft = u.fill_ticks;
                    for dt in [
                        0,
                        1,
                        2,
                        ft.saturating_sub(1),
                        ft,
                        ft + 1,
                        1 << 62,
                        u64::MAX >> 1,
                    ] {
                        let g = u.gain_to_cap(dt);
                        let exact = u128::from(dt) * u128::from(u.inc);
                        if exact < u128::from(u.cap) {
                            assert_eq!(u128::from(g), exact, "{u:?} dt {dt}");
                        } else {
                            assert!(g >= u.cap, "{u:?} dt {dt}");
                        }
                        assert!(g == 0 || g < 2 * u.cap, "{u:?} dt {dt}");
                    }
                    let lo = u128::from(u.len_over);
                    let per = u128::from(u.scale);
                    assert!(lo * per > u128::from(u.cap), "{u:?}");
                    assert!((lo - 1) * per <= u128::from(u.cap), "{u:?}");
                    assert!(lo * per < 1 << 63, "{u:?}");
                    assert_eq!(u.len_over - 1, size, "{u:?}");
                }
            }
        }
        assert!(checked > 50, "{checked}");
    }

    /// The hinted select (build.rs) gives the plain select's value for every
    /// type the meters choose between.
    #[test]
    fn hinted_select_is_the_plain_select() {
        use netcond_core::branchless::select as plain;
        for c in [false, true] {
            assert_eq!(select(c, 3u64, u64::MAX), plain(c, 3u64, u64::MAX));
            assert_eq!(select(c, -1i64, i64::MIN), plain(c, -1i64, i64::MIN));
            assert_eq!(select(c, 1usize, 0usize), plain(c, 1usize, 0usize));
            let (a, b) = (Instant::from_ticks(5), Instant::from_ticks(u64::MAX));
            assert_eq!(select(c, a, b), plain(c, a, b));
        }
    }

    /// Lengths fit up to a scale of 2^30: `u32::MAX * 2^30 < 2^62`, and one
    /// more unit per byte than that may cost more than 2^62.
    #[test]
    fn lengths_fit_up_to_scale_2_pow_30() {
        // One bit per second: a byte is 8 hz units.
        let u = units(1, 100, 1 << 27).unwrap();
        assert_eq!(u.scale, 1 << 30);
        assert!(u.lens_fit);
        assert!(u64::from(u32::MAX) * u.scale <= MAX_UNITS);
        // The hold is one byte past the bucket, whether lengths fit or not.
        assert_eq!(u.held(u32::MAX), 101);
        let u = units(1, 100, (1 << 27) + 1).unwrap();
        assert_eq!(u.scale, (1 << 30) + 8);
        assert!(!u.lens_fit);
        assert!(u128::from(u32::MAX) * u128::from(u.scale) > u128::from(MAX_UNITS));
        assert_eq!(u.held(u32::MAX), 101);
        assert_eq!(u.held(7), 7);
    }

    #[test]
    fn branch_free_helpers() {
        let u = units(8_000, 100, 1_000).unwrap();
        for (a, b) in [
            (0, 0),
            (0, 1),
            (1, 0),
            (5, 5),
            ((1 << 63) - 1, 0),
            (0, (1 << 63) - 1),
        ] {
            assert_eq!(below(a, b), usize::from(a < b));
            assert_eq!(u.sat_sub(a, b), a.saturating_sub(b));
        }
        assert_eq!(u.sat_sub(u64::MAX, 1), u64::MAX - 1);
        for (last, now) in [
            (0, 0),
            (5, 3),
            (3, 5),
            (u64::MAX - 1, 2),
            (0, 1 << 63),
            (0, (1 << 63) - 1),
            (1 << 63, 0),
        ] {
            let (mut a, mut b) = (Instant::from_ticks(last), Instant::from_ticks(last));
            let mut c = a;
            let now = Instant::from_ticks(now);
            let dt = b.advance_to(now);
            assert_eq!(u.elapsed(&mut a, now), dt, "{last} {now:?}");
            assert_eq!(u.elapsed_select(&mut c, now), dt, "{last} {now:?}");
            assert_eq!(c, b);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn serial_deadlines() {
        let d = Instant::from_ticks(u64::MAX - 5);
        assert!(reached(Instant::from_ticks(3), d));
        assert!(reached(d, d));
        assert!(!reached(Instant::from_ticks(u64::MAX - 6), d));
    }

    #[test]
    fn durations_are_bounded_both_ways() {
        use crate::EdgeError;
        let ghz4 = TickRate::from_hz(4_000_000_000).unwrap();
        assert_eq!(
            duration_ticks(TickRate::NANOS, Duration::from_nanos(0)),
            Err(EdgeError::ZeroDuration)
        );
        assert_eq!(
            duration_ticks(TickRate::MILLIS, Duration::from_nanos(999_999)),
            Err(EdgeError::ZeroDuration)
        );
        assert_eq!(
            duration_ticks(TickRate::NANOS, Duration::from_nanos(1)),
            Ok(1)
        );
        assert_eq!(
            duration_ticks(TickRate::NANOS, Duration::from_nanos(1 << 62)),
            Ok(1 << 62)
        );
        assert_eq!(
            duration_ticks(TickRate::NANOS, Duration::from_nanos((1 << 62) + 1)),
            Err(EdgeError::DurationTooLong)
        );
        // 2^63 ticks: "reached" cannot tell such a deadline from a past one.
        assert_eq!(
            duration_ticks(ghz4, Duration::from_nanos(1 << 61)),
            Err(EdgeError::DurationTooLong)
        );
        assert_eq!(
            duration_ticks(ghz4, Duration::from_nanos(u64::MAX)),
            Err(EdgeError::DurationTooLong)
        );
    }
}

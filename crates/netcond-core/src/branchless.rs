//! Branch-free helpers for per-packet decisions.
//!
//! Whether a packet fits a bucket, or is marked, follows the traffic; a
//! conditional branch on it mispredicts about as often as the outcome changes.
//! The helpers here compute such outcomes as all-ones / all-zeros masks from the
//! borrow of a wider subtraction, which compilers emit as `sub`/`sbb` (x86) or
//! `subs`/`sbc` (Arm) rather than as a compare and a jump, so that callers can
//! update counters with `&` and `|` and look results up in small tables.
//!
//! The masks are `u64`: `!0` for "yes", `0` for "no".
//!
//! ```
//! use netcond_core::branchless::{fits, mask};
//!
//! let (tokens, cost) = (1500u64, 1000u64);
//! let ok = fits(tokens, cost); // !0: the packet fits
//! let left = tokens - (cost & ok); // pay only if it fits
//! assert_eq!(left, 500);
//! assert_eq!(mask(false), 0);
//! ```
//!
//! Everything here is total: no input panics or overflows.

/// `!0` if `b`, else `0`.
///
/// ```
/// use netcond_core::branchless::mask;
/// assert_eq!(mask(true), u64::MAX);
/// assert_eq!(mask(false), 0);
/// ```
#[inline(always)]
#[must_use]
pub const fn mask(b: bool) -> u64 {
    0u64.wrapping_sub(b as u64)
}

/// `!0` if `a < b`, else `0`: the borrow of the 128-bit subtraction `a - b`.
///
/// ```
/// use netcond_core::branchless::borrow;
/// assert_eq!(borrow(3, 5), u64::MAX);
/// assert_eq!(borrow(5, 5), 0);
/// assert_eq!(borrow(u64::MAX, 0), 0);
/// ```
#[inline(always)]
#[must_use]
pub const fn borrow(a: u64, b: u64) -> u64 {
    ((a as u128).wrapping_sub(b as u128) >> 64) as u64
}

/// `!0` if `cost <= tokens` (a packet of `cost` fits a bucket holding
/// `tokens`), else `0`: the complement of [`borrow`]`(tokens, cost)`.
///
/// ```
/// use netcond_core::branchless::fits;
/// assert_eq!(fits(1500, 1500), u64::MAX);
/// assert_eq!(fits(1499, 1500), 0);
/// assert_eq!(fits(0, 0), u64::MAX);
/// ```
#[inline(always)]
#[must_use]
pub const fn fits(tokens: u64, cost: u64) -> u64 {
    !borrow(tokens, cost)
}

/// `if c { a } else { b }`.
///
/// A plain `if`, which compilers usually emit as a conditional move for
/// register-sized `T`; it is here so that every crate writes the choice the same
/// way and it can gain a stronger hint in one place (Rust 1.88's
/// `core::hint::select_unpredictable` is above this crate's minimum Rust
/// version).
///
/// ```
/// use netcond_core::branchless::select;
/// assert_eq!(select(true, 1, 2), 1);
/// assert_eq!(select(false, 1, 2), 2);
/// ```
#[inline(always)]
#[must_use]
pub fn select<T>(c: bool, a: T, b: T) -> T {
    if c {
        a
    } else {
        b
    }
}

/// [`select`] with the compiler told that `c` is unpredictable, so that it
/// keeps a conditional move where LLVM's x86 cmov-to-branch pass would
/// otherwise make a branch of it (it does so in loops when the condition is on
/// the critical path, which is where a decision that follows the traffic is).
/// The hint is Rust 1.88's `core::hint::select_unpredictable`, detected by
/// this crate's build.rs; with an older compiler this is [`select`]. The
/// result is the same either way.
///
/// ```
/// use netcond_core::branchless::select_unpredictable;
/// assert_eq!(select_unpredictable(true, 1, 2), 1);
/// assert_eq!(select_unpredictable(false, 1, 2), 2);
/// ```
#[cfg(netcond_select_unpredictable)]
#[clippy::msrv = "1.88"]
#[inline(always)]
#[must_use]
pub fn select_unpredictable<T>(c: bool, a: T, b: T) -> T {
    core::hint::select_unpredictable(c, a, b)
}

// A compiler without `core::hint::select_unpredictable` gets [`select`]
// under this name: a re-export, so that no second body exists to test.
#[cfg(not(netcond_select_unpredictable))]
pub use self::select as select_unpredictable;

/// `x` saturated to `u64::MAX`.
///
/// ```
/// use netcond_core::branchless::saturate_u64;
/// assert_eq!(saturate_u64(7), 7);
/// assert_eq!(saturate_u64(u128::from(u64::MAX) + 1), u64::MAX);
/// ```
#[inline(always)]
#[must_use]
pub const fn saturate_u64(x: u128) -> u64 {
    if x > u64::MAX as u128 {
        u64::MAX
    } else {
        x as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EDGES: [u64; 9] = [
        0,
        1,
        2,
        1 << 32,
        (1 << 63) - 1,
        1 << 63,
        (1 << 63) + 1,
        u64::MAX - 1,
        u64::MAX,
    ];

    #[test]
    fn masks_match_comparisons_on_edges() {
        for a in EDGES {
            for b in EDGES {
                assert_eq!(borrow(a, b), mask(a < b), "borrow({a}, {b})");
                assert_eq!(fits(a, b), mask(b <= a), "fits({a}, {b})");
            }
        }
        assert_eq!(mask(true), !0);
        assert_eq!(mask(false), 0);
    }

    #[test]
    fn select_and_saturate() {
        assert_eq!(select(true, "a", "b"), "a");
        assert_eq!(select(false, "a", "b"), "b");
        assert_eq!(saturate_u64(0), 0);
        assert_eq!(saturate_u64(u128::from(u64::MAX)), u64::MAX);
        assert_eq!(saturate_u64(u128::MAX), u64::MAX);
    }

    proptest::proptest! {
        #[test]
        fn masks_match_comparisons(a: u64, b: u64, c: bool) {
            proptest::prop_assert_eq!(borrow(a, b), mask(a < b));
            proptest::prop_assert_eq!(fits(a, b), mask(b <= a));
            proptest::prop_assert_eq!(select(c, a, b), if c { a } else { b });
        }
    }
}

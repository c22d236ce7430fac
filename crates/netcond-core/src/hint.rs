//! Hints to the processor and the compiler: a prefetch for callers that know
//! which state the next packets need, and a mark for rarely taken paths.
//!
//! A router that meters packets against a table of many flows (a million
//! states are tens of MiB) waits on a cache miss for nearly every packet. If
//! it knows the flow of a packet some packets ahead (DPDK applications look
//! eight packets ahead of the one they meter), it can ask the processor to
//! start loading that flow's state now, so that the miss overlaps the work on
//! the packets in between. [`prefetch`] is that request.
//!
//! It is a hint: it changes no value the program computes, it never faults,
//! and a processor may ignore it. On `x86_64` it is `prefetcht0`, on `aarch64`
//! `prfm pldl1keep`; on every other target, and under Miri, it does nothing.
//!
//! [`prefetch`] is the only `unsafe` code in the netcond library crates;
//! its safety argument is in its body.

/// Asks the processor to bring the cache line holding the start of `x` into
/// every level of its data cache (L1 included), without waiting for it.
///
/// No effect on any value: `x` is neither read nor written as far as the
/// program can tell, and nothing faults. It prefetches one 64-byte line (the
/// one holding `x`'s first byte); a value that straddles two lines has its
/// second line loaded when it is used. A no-op on targets other than
/// `x86_64` and `aarch64`, and under Miri.
///
/// # Example
///
/// Metering packets against a table of flows, prefetching the state of the
/// flow eight packets ahead, as DPDK's applications do:
///
/// ```
/// use netcond_core::hint::prefetch;
///
/// let mut tokens = vec![1000u64; 4096]; // per-flow state
/// let flows = [7usize, 3000, 12, 7, 4095, 99, 1, 2, 3, 4, 5];
/// let lens = [100u64; 11];
/// const AHEAD: usize = 8;
/// for (i, (&f, &len)) in flows.iter().zip(&lens).enumerate() {
///     if let Some(&next) = flows.get(i + AHEAD) {
///         prefetch(&tokens[next]);
///     }
///     tokens[f] = tokens[f].saturating_sub(len);
/// }
/// assert_eq!(tokens[7], 800);
/// ```
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T: ?Sized>(x: &T) {
    // The address of `x`'s first byte (a thin pointer, also for unsized `T`).
    let p = (x as *const T).cast::<u8>();
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `_mm_prefetch` is `prefetcht0`. It is an `unsafe fn` because it
    // takes a raw pointer, but the instruction never faults, whatever the
    // address (an invalid or unmapped one is ignored), reads nothing into a
    // register and writes nothing: it has no architectural effect, only a
    // cache one. Here the pointer comes from a live shared reference, so it
    // is valid and aligned anyway, and nothing is dereferenced. It needs
    // SSE, which every x86_64 processor has (the target's baseline).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    // SAFETY: `prfm pldl1keep, [p]` (Armv8-A, every aarch64 processor) is a
    // hint: it never generates a synchronous exception (a translation fault
    // on the address is ignored), does not write memory or any register,
    // and sets no flags. So the options hold: `nostack` (it does not touch
    // the stack), `preserves_flags` (NZCV unchanged), and `readonly` (it
    // writes no memory; claiming that it may read memory is more than it
    // does, which only limits how the compiler moves it). The pointer comes
    // from a live shared reference, so it is valid anyway.
    unsafe {
        core::arch::asm!(
            "prfm pldl1keep, [{0}]",
            in(reg) p,
            options(nostack, preserves_flags, readonly)
        );
    }
    #[cfg(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), miri))]
    let _ = p;
}

/// Marks the path it is on as rarely taken, so that the compiler lays it out
/// away from the common path (a meter's backwards step of the clock, for
/// instance). Rust 1.95's `core::hint::cold_path`, detected by this crate's
/// build.rs; with an older compiler it does nothing. Never changes a result.
///
/// ```
/// use netcond_core::hint::cold_path;
///
/// fn elapsed(last: u64, now: u64) -> u64 {
///     if now < last {
///         cold_path();
///         return 0;
///     }
///     now - last
/// }
/// assert_eq!(elapsed(5, 3), 0);
/// assert_eq!(elapsed(3, 5), 2);
/// ```
#[cfg(netcond_cold_path)]
#[clippy::msrv = "1.95"]
#[inline(always)]
pub fn cold_path() {
    core::hint::cold_path();
}

/// Nothing (this compiler has no `core::hint::cold_path`).
#[cfg(not(netcond_cold_path))]
#[inline(always)]
pub fn cold_path() {}

#[cfg(test)]
mod tests {
    use super::prefetch;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct State {
        tokens: u64,
        last: u64,
        flags: [u8; 3],
    }

    #[test]
    fn prefetch_takes_any_value_and_changes_nothing() {
        // Values of every shape: scalars, a zero-sized value, a struct, an
        // unsized slice's elements, a string, a reference to a reference.
        let n = 0x1234_5678_9abc_def0u64;
        prefetch(&n);
        prefetch(&());
        prefetch(&[0u8; 0]);
        let s = State {
            tokens: 17,
            last: u64::MAX,
            flags: [1, 2, 3],
        };
        prefetch(&s);
        let text = "a str";
        prefetch(&text);
        prefetch(text);
        let r = &&s;
        prefetch(&r);
        assert_eq!(n, 0x1234_5678_9abc_def0);
        assert_eq!(
            s,
            State {
                tokens: 17,
                last: u64::MAX,
                flags: [1, 2, 3]
            }
        );
        assert_eq!(text, "a str");

        // A table, prefetched element by element (past a cache's worth, and
        // the last element), then read and updated: the values are those of
        // the same work without prefetch.
        let len = if cfg!(miri) { 64 } else { 1 << 16 };
        let mut a: Vec<State> = (0..len)
            .map(|i| State {
                tokens: i,
                last: i * 3,
                flags: [i as u8; 3],
            })
            .collect();
        let mut b = a.clone();
        for i in 0..a.len() {
            prefetch(&a[(i * 7919) % a.len()]);
            a[i].tokens = a[i].tokens.wrapping_mul(3) + a[(i + 1) % len as usize].last;
        }
        prefetch(&a[a.len() - 1]);
        prefetch(a.as_slice());
        for i in 0..b.len() {
            b[i].tokens = b[i].tokens.wrapping_mul(3) + b[(i + 1) % len as usize].last;
        }
        assert_eq!(a, b);
    }
}

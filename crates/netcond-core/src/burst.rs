//! Bursts of packets over a table of per-flow states that share one profile.
//!
//! A router receives packets in bursts (DPDK's receive bursts are 32 packets)
//! and meters each against the state of its flow, one state among many: with a
//! million flows the states fill tens of MiB, and nearly every packet's state
//! is in neither L1 nor L2. [`meter_burst`] is the grouping that the burst
//! calls of the markers (`trtcm::burst`) and of the PCN meters
//! (`pcn_meter::burst`) share: it prefetches the states of the burst's first
//! eight flows ([`prefetch`]), then meters the packets in order, and before
//! each packet prefetches the state of the flow eight packets later, so that
//! about eight cache misses are always in flight and each state is on its way
//! to L1 well before its packet is metered. A prefetch retires at once, where
//! a plain load of the state would hold its place in the reorder buffer until
//! its line arrives.
//!
//! The hint fetches the line that holds a state's first byte; a state that
//! straddles two lines has its second line loaded when the packet is metered.
//! Where the hint is a no-op (targets other than `x86_64` and `aarch64`, and
//! Miri), the packets are metered in order with nothing ahead of them. Either
//! way the results are exactly those of metering the packets one by one.
//!
//! No allocation, no panic: a flow index past the table touches no state.
//!
//! ```
//! use netcond_core::burst::meter_burst;
//!
//! // Three flows, each a count of bytes left; a packet passes (true) if its
//! // flow has the bytes for it.
//! let mut left = [1000u32, 50, 0];
//! let ids = [0u32, 1, 7, 0];
//! let lens = [600u32, 60, 10, 600];
//! let mut out = [false; 4];
//! let unknown = meter_burst(
//!     &mut left,
//!     &ids,
//!     &mut out,
//!     |r| lens[r].iter().copied(),
//!     |bytes, len| match bytes.checked_sub(len) {
//!         Some(rest) => {
//!             *bytes = rest;
//!             true
//!         }
//!         None => false,
//!     },
//!     |_| false,
//! );
//! assert_eq!(out, [true, false, false, false]);
//! assert_eq!(unknown, 1); // flow 7 is past the table
//! assert_eq!(left, [400, 50, 0]);
//! ```

use core::ops::Range;

use crate::hint::prefetch;

/// DPDK's receive burst: the burst size of the benches and of the DPDK loops
/// beside them. (Until 2026-12-07 [`meter_burst`] also worked through a burst
/// this many packets at a time, prefetching each group's states before
/// metering it; docs/performance.md, "The burst API for many flows".)
pub const BURST: usize = 32;

/// Meters the packets of a burst against `states`: packet `i` belongs to flow
/// `ids[i]` (an index into `states`), carries `packets`' `i`-th item, and its
/// result goes to `out[i]`.
///
/// In order, a packet whose flow is in the table gets `meter(&mut
/// states[ids[i]], item)`, and a packet whose flow index is not below
/// `states.len()` gets `unknown(item)` and touches no state; before each
/// packet the state of the flow eight packets later is prefetched (and the
/// first eight before the first packet). The results and final states are
/// exactly those of that loop without the prefetches. Returns how many packets
/// had an unknown flow.
///
/// `packets(0..n)` gives the items of the packets in order, for example
/// `|r| lens[r].iter().copied()`, so that the per-packet loop walks plain
/// slices; it is called once. It should yield at least `n` items: the burst
/// stops at the first packet it has no item for.
///
/// Meters the first `n` packets, `n` the shorter of `ids` and `out` (a caller
/// with more per-packet slices shortens `ids` to the shortest of all first);
/// entries of `out` past `n` are not written. Neither allocates nor panics
/// (unless `packets` does, as slicing past a slice's end would).
#[inline(always)]
pub fn meter_burst<S, P, I, O>(
    states: &mut [S],
    ids: &[u32],
    out: &mut [O],
    mut packets: impl FnMut(Range<usize>) -> I,
    mut meter: impl FnMut(&mut S, P) -> O,
    mut unknown: impl FnMut(P) -> O,
) -> usize
where
    I: IntoIterator<Item = P>,
{
    let n = ids.len().min(out.len());
    let all = &ids[..n];
    prefetch_group(states, &all[..n.min(AHEAD)]);
    let mut missing = 0;
    let items = packets(0..n);
    for (i, ((&f, o), item)) in all.iter().zip(&mut out[..n]).zip(items).enumerate() {
        prefetch_ahead(states, all, i);
        *o = match states.get_mut(f as usize) {
            Some(s) => meter(s, item),
            None => {
                missing += 1;
                unknown(item)
            }
        };
    }
    missing
}

/// How many packets ahead [`meter_burst`] prefetches a flow's state: the
/// distance of the benches' prefetching loops, DPDK's included
/// (`benches/dpdk/shim.c`).
const AHEAD: usize = 8;

/// Prefetches the state of the flow of packet `i + AHEAD` of `ids`, if there
/// is such a packet and its flow is in the table. No effect on results (every
/// index is checked; a missing one prefetches nothing).
#[inline(always)]
fn prefetch_ahead<S>(states: &[S], ids: &[u32], i: usize) {
    if let Some(s) = ids.get(i + AHEAD).and_then(|&f| states.get(f as usize)) {
        prefetch(s);
    }
}

/// Prefetches the state of every flow in `ids` (those in range): the first
/// [`AHEAD`] of a burst, before its first packet. No effect on results. Not
/// inlined: inlined, it changed how the compiler laid out the metering loop
/// after it, at a cost in instructions there (docs/performance.md, "The burst
/// API for many flows").
#[inline(never)]
fn prefetch_group<S>(states: &[S], ids: &[u32]) {
    for &f in ids {
        if let Some(s) = states.get(f as usize) {
            prefetch(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RandomSource, SplitMix64};

    /// Random bursts (0 to 3 x BURST packets, indices up to 1/8 past the
    /// table and a few huge ones) through `meter_burst` and through the plain
    /// loop: the same results, unknown counts and states, and `out` past the
    /// packets untouched.
    #[test]
    fn same_as_the_plain_loop() {
        let mut r = SplitMix64::new(5);
        for flows in [0usize, 1, 50] {
            let mut a: Vec<u64> = (0..flows as u64).collect();
            let mut b = a.clone();
            for _ in 0..200 {
                let n = r.below(3 * BURST as u32 + 1) as usize;
                let range = (flows + flows / 8 + 1) as u32;
                let ids: Vec<u32> = (0..n)
                    .map(|_| match r.below(64) {
                        0 => u32::MAX - r.below(4),
                        _ => r.below(range),
                    })
                    .collect();
                let lens: Vec<u32> = (0..n).map(|_| r.below(9000)).collect();
                let mut out = vec![u64::MAX; n + 2];
                let step = |s: &mut u64, len: u32| {
                    *s = s.wrapping_mul(31).wrapping_add(u64::from(len));
                    *s % 7
                };
                let got = meter_burst(
                    &mut a,
                    &ids,
                    &mut out,
                    |r| lens[r].iter().copied(),
                    step,
                    |len| 100 + u64::from(len),
                );
                let mut want = 0;
                for i in 0..n {
                    let o = match b.get_mut(ids[i] as usize) {
                        Some(s) => step(s, lens[i]),
                        None => {
                            want += 1;
                            100 + u64::from(lens[i])
                        }
                    };
                    assert_eq!(out[i], o, "packet {i} of {n}");
                }
                assert_eq!(&out[n..], &[u64::MAX; 2]);
                assert_eq!(got, want);
                assert_eq!(a, b);
            }
        }
    }

    /// The shorter of `ids` and `out` sets how many packets are metered, and
    /// each group asks for the items of exactly its positions.
    #[test]
    fn shortest_slice_and_one_range() {
        let mut s = [0u32; 4];
        let ids = [1u32; 70];
        let mut out = [9u32; 69];
        let mut ranges = Vec::new();
        let got = meter_burst(
            &mut s,
            &ids,
            &mut out,
            |r| {
                ranges.push(r.clone());
                r.map(|k| k as u32)
            },
            |s, k| {
                *s += 1;
                k
            },
            |_| 0,
        );
        assert_eq!(got, 0);
        assert_eq!(ranges.len(), 1);
        assert_eq!(ranges[0], 0..69);
        assert_eq!(s, [0, 69, 0, 0]);
        assert!(out.iter().enumerate().all(|(i, &o)| o == i as u32));
        let mut out = [9u32; 3];
        let got = meter_burst(&mut s, &ids[..2], &mut out, |r| r, |_, _| 1, |_| 2);
        assert_eq!((got, out), (0, [1, 1, 9]));
        let got = meter_burst::<u32, _, _, _>(&mut [], &ids[..2], &mut out, |r| r, |_, _| 1, |_| 2);
        assert_eq!((got, out), (2, [2, 2, 9]));
    }

    /// Fewer items than packets: the burst stops at the first packet without
    /// one, and writes nothing past it.
    #[test]
    fn short_items_stop_the_burst() {
        let mut s = [0u32; 2];
        let ids = [0u32; 40];
        let mut out = [0u32; 40];
        let got = meter_burst(
            &mut s,
            &ids,
            &mut out,
            |r| r.take(3),
            |s, k| {
                *s += 1;
                k as u32 + 1
            },
            |_| 0,
        );
        assert_eq!(got, 0);
        assert_eq!(s[0], 3);
        assert_eq!(out[..4], [1, 2, 3, 0]);
        assert!(out[3..].iter().all(|&o| o == 0));
    }
}

//! Bursts of packets over a table of flows that share one profile.
//!
//! A router receives packets in bursts (DPDK's receive bursts are 32 packets)
//! and meters each against the state of its flow, one state among many: with a
//! million flows the states fill 24 MiB, and nearly every packet's state is in
//! neither L1 nor L2. [`color_blind_burst`] and [`color_aware_burst`] take a
//! whole burst (one flow index and one length per packet, one timestamp for
//! the burst) and give every packet exactly the color that the per-packet call
//! (`color_blind` / `color_aware`) would give, in order, with the same final
//! states; the tests check this packet by packet, repeated flows included.
//!
//! What they add is the order of the memory accesses
//! ([`netcond_core::burst::meter_burst`], shared with the PCN meters' bursts):
//! before each packet it prefetches the state of the flow eight packets later
//! ([`netcond_core::hint::prefetch`]), so that about eight cache misses are
//! always in flight and each state is on its way to L1 well before its packet
//! is metered. A prefetch retires at once, where a plain load of the state
//! (what this module did before the hint existed) holds its place in the
//! reorder buffer until its line arrives. The hint fetches the line that holds
//! a state's first byte; a state that
//! straddles two lines (two 24-byte states in eight) has its second line
//! loaded when the packet is metered. Where the hint is a no-op (targets
//! other than `x86_64` and `aarch64`, and Miri), the functions meter the
//! packets in order with nothing ahead of them. docs/performance.md gives the
//! instruction counts of both forms and what the burst saves against the
//! per-packet loop on 1,048,576 flows.
//!
//! **Flow indices out of range.** A packet whose flow index is not below
//! `states.len()` is colored [`Color::Red`] and touches no state: a flow the
//! table does not know has no tokens. The functions return how many such
//! packets the burst held, so that a caller can count them; they never panic.
//!
//! **Lengths of the slices.** The functions meter the first `n` packets, `n`
//! the length of the shortest of the per-packet slices (flow indices, lengths,
//! pre-colors, `out`); entries of `out` past `n` are not written.
//!
//! Neither function allocates.
//!
//! ```
//! use netcond_core::{Color, Instant, TickRate};
//! use trtcm::burst::color_blind_burst;
//! use trtcm::{ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile};
//!
//! let profile = TrTcmProfile::new(&TrTcmConfig::default()).unwrap();
//! let mut flows = vec![TrTcm::new(&profile, Instant::ZERO); 1000];
//! let ids = [7u32, 999, 7, 1000];
//! let lens = [1500u32, 64, 1000, 64];
//! let mut colors = [Color::Green; 4];
//! let unknown = color_blind_burst(&profile, &mut flows, &ids, &lens, Instant::ZERO, &mut colors);
//! // Flow 7: 1500 bytes green, then 1000 bytes is more than C has left (548).
//! assert_eq!(colors, [Color::Green, Color::Green, Color::Yellow, Color::Red]);
//! assert_eq!(unknown, 1); // flow 1000 is past the table
//! ```
use netcond_core::burst::meter_burst;
use netcond_core::{Color, Instant};

use crate::ThreeColorMarker;

/// DPDK's receive burst (`netcond_core::burst::BURST`): the burst size the
/// benches and the DPDK loops beside them use.
pub const BURST: usize = netcond_core::burst::BURST;

/// Colors a burst, color-blind: packet `i` of `lens[i]` bytes belongs to flow
/// `flow_ids[i]` (an index into `states`) and arrives at `now`; its color goes
/// to `out[i]`. Exactly the colors and states of calling
/// `states[flow_ids[i]].color_blind(profile, now, lens[i])` for each `i` in
/// order. Returns the number of packets whose flow index was out of range
/// (colored red, no state touched). See the [module docs](self).
pub fn color_blind_burst<M: ThreeColorMarker>(
    profile: &M::Profile,
    states: &mut [M],
    flow_ids: &[u32],
    lens: &[u32],
    now: Instant,
    out: &mut [Color],
) -> usize {
    let n = flow_ids.len().min(lens.len());
    meter_burst(
        states,
        &flow_ids[..n],
        out,
        |r| &lens[r],
        |m, &len| m.color_blind(profile, now, len),
        |_| Color::Red,
    )
}

/// Colors a burst, color-aware: as [`color_blind_burst`], packet `i`
/// pre-colored `input[i]`; exactly the colors and states of
/// `states[flow_ids[i]].color_aware(profile, now, lens[i], input[i])` in order.
/// A packet of an unknown flow is colored red whatever its pre-color.
pub fn color_aware_burst<M: ThreeColorMarker>(
    profile: &M::Profile,
    states: &mut [M],
    flow_ids: &[u32],
    lens: &[u32],
    input: &[Color],
    now: Instant,
    out: &mut [Color],
) -> usize {
    let n = flow_ids.len().min(lens.len()).min(input.len());
    meter_burst(
        states,
        &flow_ids[..n],
        out,
        |r| lens[r.clone()].iter().zip(&input[r]),
        |m, (&len, &c)| m.color_aware(profile, now, len, c),
        |_| Color::Red,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Compact, CompactProfile, Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig,
        SrTcmProfile, TrTcm, TrTcmConfig, TrTcmProfile,
    };
    use netcond_core::{RandomSource, SplitMix64, TickRate};

    /// Bursts of random sizes (0 to 3 x BURST packets) over `flows` flows,
    /// some indices out of range and many repeated, each burst `gap` ticks
    /// after the last (sometimes earlier: a clock stepping back), through the
    /// burst call and through per-packet calls on a copy of the table: the
    /// same colors, the same counts of unknown flows, the same states.
    fn same_as_per_packet<M: ThreeColorMarker + PartialEq + core::fmt::Debug>(
        p: &M::Profile,
        flows: usize,
        seed: u64,
    ) {
        let mut r = SplitMix64::new(seed);
        let mut a = vec![M::start(p, Instant::ZERO); flows];
        let mut b = a.clone();
        let mut now = 0u64;
        // Miri interprets every instruction: a few bursts still run each
        // branch of the burst code there; the full stream runs natively.
        let bursts = if cfg!(miri) { 12 } else { 400 };
        for _ in 0..bursts {
            let n = r.below(3 * BURST as u32 + 1) as usize;
            // Indices up to 1/8 past the table, and a few huge ones.
            let range = (flows + flows / 8 + 1) as u32;
            let ids: Vec<u32> = (0..n)
                .map(|_| {
                    if r.below(64) == 0 {
                        u32::MAX - r.below(4)
                    } else {
                        r.below(range)
                    }
                })
                .collect();
            let lens: Vec<u32> = (0..n)
                .map(|_| match r.below(6) {
                    0 => 0,
                    1 => u32::MAX,
                    _ => r.below(9000),
                })
                .collect();
            let input: Vec<Color> = (0..n)
                .map(|_| [Color::Green, Color::Yellow, Color::Red][r.below(3) as usize])
                .collect();
            now = match r.below(8) {
                0 => now.saturating_sub(u64::from(r.below(100_000))),
                1 => now,
                _ => now + u64::from(r.below(400_000)),
            };
            let t = Instant::from_ticks(now);
            let aware = r.below(2) == 0;
            let mut out = vec![Color::Green; n + 2];
            let unknown = if aware {
                color_aware_burst(p, &mut a, &ids, &lens, &input, t, &mut out)
            } else {
                color_blind_burst(p, &mut a, &ids, &lens, t, &mut out)
            };
            let mut want_unknown = 0;
            for i in 0..n {
                let want = match b.get_mut(ids[i] as usize) {
                    Some(m) if aware => m.color_aware(p, t, lens[i], input[i]),
                    Some(m) => m.color_blind(p, t, lens[i]),
                    None => {
                        want_unknown += 1;
                        Color::Red
                    }
                };
                assert_eq!(out[i], want, "packet {i} of a burst of {n}");
            }
            // Past the packets, `out` is not written.
            assert_eq!(&out[n..], &[Color::Green; 2]);
            assert_eq!(unknown, want_unknown);
            assert_eq!(a, b);
        }
    }

    fn tick() -> TickRate {
        TickRate::from_hz(2_300_000_000).unwrap()
    }

    #[test]
    fn trtcm_burst_is_per_packet() {
        let p = TrTcmProfile::new(&TrTcmConfig {
            tick: tick(),
            ..TrTcmConfig::default()
        })
        .unwrap();
        for seed in 0..4 {
            same_as_per_packet::<TrTcm>(&p, 50, seed);
        }
        same_as_per_packet::<TrTcm>(&p, 1, 9);
        same_as_per_packet::<TrTcm>(&p, 0, 10);
        let c = CompactProfile::new(p).unwrap();
        same_as_per_packet::<Compact<TrTcm>>(&c, 50, 11);
        // The general path too.
        same_as_per_packet::<TrTcm>(&p.general_path_only(), 50, 12);
    }

    #[test]
    fn srtcm_burst_is_per_packet() {
        let p = SrTcmProfile::new(&SrTcmConfig {
            tick: tick(),
            ..SrTcmConfig::default()
        })
        .unwrap();
        for seed in 0..4 {
            same_as_per_packet::<SrTcm>(&p, 50, 20 + seed);
        }
        let c = CompactProfile::new(p).unwrap();
        same_as_per_packet::<Compact<SrTcm>>(&c, 50, 30);
    }

    #[test]
    fn rfc4115_burst_is_per_packet() {
        let p = Rfc4115Profile::new(&Rfc4115Config {
            tick: tick(),
            ..Rfc4115Config::default()
        })
        .unwrap();
        for seed in 0..4 {
            same_as_per_packet::<Rfc4115>(&p, 50, 40 + seed);
        }
        let c = CompactProfile::new(p).unwrap();
        same_as_per_packet::<Compact<Rfc4115>>(&c, 50, 50);
    }

    #[test]
    fn mismatched_slices_meter_the_shortest() {
        let p = TrTcmProfile::new(&TrTcmConfig::default()).unwrap();
        let mut s = [TrTcm::new(&p, Instant::ZERO); 2];
        let mut out = [Color::Yellow; 3];
        let u = color_blind_burst(&p, &mut s, &[0, 1, 0], &[100, 100], Instant::ZERO, &mut out);
        assert_eq!(u, 0);
        assert_eq!(out, [Color::Green, Color::Green, Color::Yellow]);
        let u = color_aware_burst(
            &p,
            &mut s,
            &[0, 5],
            &[100, 100],
            &[Color::Yellow],
            Instant::ZERO,
            &mut out,
        );
        assert_eq!(u, 0);
        assert_eq!(out[0], Color::Yellow);
        let u = color_blind_burst::<TrTcm>(&p, &mut [], &[0, 1], &[1, 1], Instant::ZERO, &mut out);
        assert_eq!(u, 2);
        assert_eq!(out[..2], [Color::Red, Color::Red]);
    }
}

//! Bursts of packets over a table of links (or aggregates) that share one
//! profile.
//!
//! [`mark_burst`] meters a burst of packets, each against the state its index
//! names (one timestamp for the burst, as a router stamps a receive burst),
//! and gives every packet exactly the mark that the per-packet
//! [`PcnMeter::mark`] would give, in order, with the same final states; the
//! tests check this packet by packet, repeated indices included. It works for
//! every [`PcnMeter`]: the node markers ([`Node3sm`](crate::Node3sm),
//! [`NodeRfc5670`](crate::NodeRfc5670)) and each meter alone.
//!
//! What it adds is the order of the memory accesses
//! ([`netcond_core::burst::meter_burst`], shared with `trtcm::burst`): before
//! each packet it prefetches the state of the index eight packets later
//! ([`netcond_core::hint::prefetch`]), so that about eight cache misses are
//! always in flight and each state is on its way to L1 well before its packet
//! is metered. A prefetch retires at once, where a plain load (what
//! this module did before the hint existed) holds its place in the reorder
//! buffer until its line arrives. The hint fetches the line holding a
//! state's first byte; where it is a no-op (targets other than `x86_64` and
//! `aarch64`, and Miri), the packets are metered in order with nothing ahead
//! of them. docs/performance.md gives the instruction counts of both forms.
//!
//! **Indices out of range.** A packet whose index is not below
//! `states.len()` keeps the mark it arrived with and touches no state; the
//! function returns how many such packets the burst held and never panics.
//!
//! **Lengths of the slices.** It meters the first `n` packets, `n` the length
//! of the shortest of `ids`, `lens`, `marks` and `out`; entries of `out` past
//! `n` are not written. It does not allocate.
use netcond_core::burst::meter_burst;
use netcond_core::Instant;

use crate::{PcnMark, PcnMeter};

/// DPDK's receive burst (`netcond_core::burst::BURST`): the burst size the
/// benches and the DPDK loops beside them use.
pub const BURST: usize = netcond_core::burst::BURST;

/// Meters a burst: packet `i` of `lens[i]` bytes, arriving at `now` in state
/// `marks[i]`, belongs to `states[ids[i]]`; its new state goes to `out[i]`.
/// Exactly the marks and states of `states[ids[i]].mark(profile, now,
/// lens[i], marks[i])` for each `i` in order. Returns the number of packets
/// whose index was out of range (their mark passed through unchanged). See
/// the [module docs](self).
pub fn mark_burst<M: PcnMeter>(
    profile: &M::Profile,
    states: &mut [M],
    ids: &[u32],
    lens: &[u32],
    marks: &[PcnMark],
    now: Instant,
    out: &mut [PcnMark],
) -> usize {
    let n = ids.len().min(lens.len()).min(marks.len());
    meter_burst(
        states,
        &ids[..n],
        out,
        |r| lens[r.clone()].iter().zip(&marks[r]),
        |m, (&len, &mark)| m.mark(profile, now, len, mark),
        |(_, &mark)| mark,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, EtMarker, EtMarkerConfig,
        EtMarkerProfile, EtMarking, ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig,
        ExcessTrafficMeterProfile, Node3sm, NodeProfile, NodeRfc5670, ThresholdMeter,
        ThresholdMeterConfig, ThresholdMeterProfile,
    };
    use netcond_core::{RandomSource, Rate, SplitMix64, TickRate};

    fn tick() -> TickRate {
        TickRate::from_hz(2_300_000_000).unwrap()
    }

    fn node_3sm() -> NodeProfile<EtMarkerProfile, AsMarkerProfile> {
        NodeProfile {
            excess: EtMarkerProfile::new(&EtMarkerConfig {
                sr: Rate::from_bytes_per_sec(60_000_000),
                bucket_size: 50_000,
                s: 1064,
                already_et_adds_s: true,
                marking: EtMarking::TailMarking,
                tick: tick(),
            })
            .unwrap(),
            threshold: AsMarkerProfile::new(&AsMarkerConfig {
                ar: Rate::from_bytes_per_sec(50_000_000),
                bucket_size: 20_000,
                threshold: 10_000,
                form: AsForm::DraftExplicitMarking01,
                tick: tick(),
            })
            .unwrap(),
        }
    }

    fn node_rfc5670() -> NodeProfile<ExcessTrafficMeterProfile, ThresholdMeterProfile> {
        NodeProfile {
            excess: ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
                excess_rate: Rate::from_bytes_per_sec(60_000_000),
                bs_etm: 50_000,
                mode: ExcessMode::SizeIndependent,
                tick: tick(),
            })
            .unwrap(),
            threshold: ThresholdMeterProfile::new(&ThresholdMeterConfig {
                threshold_rate: Rate::from_bytes_per_sec(50_000_000),
                bs_tm: 20_000,
                threshold: 10_000,
                tick: tick(),
            })
            .unwrap(),
        }
    }

    /// Bursts of random sizes (0 to 3 x BURST) over `links` states, some
    /// indices out of range and many repeated, with every arriving mark, each
    /// burst a random gap after the last (sometimes earlier): the burst call
    /// and per-packet calls on a copy give the same marks, the same count of
    /// unknown indices and the same states.
    fn same_as_per_packet<M: PcnMeter + PartialEq + core::fmt::Debug>(
        p: &M::Profile,
        links: usize,
        seed: u64,
    ) {
        let mut r = SplitMix64::new(seed);
        let mut a = vec![M::start(p, Instant::ZERO); links];
        let mut b = a.clone();
        let mut now = 0u64;
        let all = [
            PcnMark::Nm,
            PcnMark::Nm,
            PcnMark::Nm,
            PcnMark::Thm,
            PcnMark::Etm,
            PcnMark::NotPcn,
        ];
        let mut marked = 0;
        // Miri interprets every instruction: a few bursts still run each
        // branch of the burst code there; the full stream runs natively.
        let bursts = if cfg!(miri) { 12 } else { 400 };
        for _ in 0..bursts {
            let n = r.below(3 * BURST as u32 + 1) as usize;
            let range = (links + links / 8 + 1) as u32;
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
                .map(|_| match r.below(8) {
                    0 => 0,
                    1 => u32::MAX,
                    _ => r.below(9000),
                })
                .collect();
            let marks: Vec<PcnMark> = (0..n).map(|_| all[r.below(6) as usize]).collect();
            now = match r.below(8) {
                0 => now.saturating_sub(u64::from(r.below(100_000))),
                1 => now,
                _ => now + u64::from(r.below(400_000)),
            };
            let t = Instant::from_ticks(now);
            let mut out = vec![PcnMark::NotPcn; n + 2];
            let unknown = mark_burst(p, &mut a, &ids, &lens, &marks, t, &mut out);
            let mut want_unknown = 0;
            for i in 0..n {
                let want = match b.get_mut(ids[i] as usize) {
                    Some(m) => m.mark(p, t, lens[i], marks[i]),
                    None => {
                        want_unknown += 1;
                        marks[i]
                    }
                };
                assert_eq!(out[i], want, "packet {i} of a burst of {n}");
                marked += usize::from(want != marks[i]);
            }
            assert_eq!(&out[n..], &[PcnMark::NotPcn; 2]);
            assert_eq!(unknown, want_unknown);
            assert_eq!(a, b);
        }
        // The stream marks packets, so the comparison is not of pass-throughs.
        assert!(marked > 0 || links == 0);
    }

    #[test]
    fn node_3sm_burst_is_per_packet() {
        let p = node_3sm();
        for seed in 0..4 {
            same_as_per_packet::<Node3sm>(&p, 50, seed);
        }
        same_as_per_packet::<Node3sm>(&p, 1, 8);
        same_as_per_packet::<Node3sm>(&p, 0, 9);
        same_as_per_packet::<EtMarker>(&p.excess, 50, 10);
        same_as_per_packet::<AsMarker>(&p.threshold, 50, 11);
    }

    #[test]
    fn node_rfc5670_burst_is_per_packet() {
        let p = node_rfc5670();
        for seed in 0..4 {
            same_as_per_packet::<NodeRfc5670>(&p, 50, 20 + seed);
        }
        same_as_per_packet::<ExcessTrafficMeter>(&p.excess, 50, 30);
        same_as_per_packet::<ThresholdMeter>(&p.threshold, 50, 31);
    }

    #[test]
    fn out_of_range_passes_the_mark_through() {
        let p = node_3sm();
        let mut s = [Node3sm::new(&p, Instant::ZERO); 1];
        let mut out = [PcnMark::NotPcn; 3];
        let u = mark_burst(
            &p,
            &mut s,
            &[3, 0, u32::MAX],
            &[100, 100, 100],
            &[PcnMark::Thm, PcnMark::Nm, PcnMark::Etm],
            Instant::ZERO,
            &mut out,
        );
        assert_eq!(u, 2);
        assert_eq!(out, [PcnMark::Thm, PcnMark::Nm, PcnMark::Etm]);
    }
}

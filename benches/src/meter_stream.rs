//! The meter benches' stream and per-burst loops (docs/performance.md):
//! shared by `benches/trtcm.rs` and the `contention` example, so that both
//! time the same code.
use netcond::base::hint::prefetch;
use netcond::base::{Color, Instant, Rate, SplitMix64, TickRate};
use netcond::trtcm::{Counters, SrTcmConfig, ThreeColorMarker};

use std::cell::Cell;

use crate::{flow_permutation, imix_lengths, precolors, BENCH_TICKS_PER_PACKET};

/// Packets per criterion iteration (one burst).
pub const PACKETS: usize = 4096;
/// Flows in the many-flow benches.
pub const FLOWS: u32 = 65_536;

/// The bench clock: ticks of 2.3 GHz.
#[must_use]
pub fn tick() -> TickRate {
    TickRate::from_hz(2_300_000_000).unwrap()
}

/// One burst's packets (lengths and pre-colors) and the many-flow benches'
/// flow table.
pub struct Stream {
    /// Lengths in bytes.
    pub lens: Vec<u32>,
    /// Pre-colors for the color-aware benches.
    pub colors: Vec<Color>,
    /// The many-flow benches' flow table: every one of the [`FLOWS`] flows
    /// once, in a pseudo-random order, cut into bursts of [`PACKETS`].
    /// Successive bursts take successive slices
    /// ([`next_flows`](Self::next_flows); DPDK's loops the same slices in the
    /// same order, `dpdk::Bursts`), so that every
    /// flow's state is read once per 16 bursts: the working set is all
    /// 65,536 states, not those of one burst.
    pub flows: Vec<u32>,
    /// The slice of `flows` the next burst takes.
    next: Cell<usize>,
}

impl Stream {
    /// The flow indices of the next burst: the table's slices in turn,
    /// starting from the first.
    pub fn next_flows(&self) -> &[u32] {
        let k = self.next.get();
        self.next.set((k + 1) % (self.flows.len() / PACKETS));
        &self.flows[k * PACKETS..(k + 1) * PACKETS]
    }
}

/// The stream every meter bench uses.
#[must_use]
pub fn stream() -> Stream {
    let lens = imix_lengths(PACKETS, 1);
    // Pre-colors for the color-aware benches: 6 green, 1 yellow, 1 red of 8.
    let colors = precolors(PACKETS, 2);
    Stream {
        lens,
        colors,
        flows: flow_permutation(FLOWS, 3),
        next: Cell::new(0),
    }
}

/// The coin-flip lengths: the bench stream's clock (one packet every
/// 12,563 ticks, 251 bytes of the default profiles' CIR) with lengths uniform
/// in [0, 1004): about twice CIR on average, so that C stays near empty and
/// whether a packet fits it is a biased coin flip (about two in three fit),
/// which the color of the packet before predicts only weakly (the trTCM's P,
/// at 1.33 times PIR, likewise). The tests below hold the shares.
#[must_use]
pub fn coin_lengths() -> Vec<u32> {
    let mut rng = SplitMix64::new(5);
    (0..PACKETS)
        .map(|_| u32::try_from(rng.next_u64() % 1004).unwrap_or(0))
        .collect()
}

/// The committed rate of [`coin_srtcm_config`], bytes per second.
pub const COIN_MANY_CIR: u64 = 500;

/// The srTCM profile of the coin-flip stream over 65,536 flows: CIR
/// [`COIN_MANY_CIR`] (500 B/s), CBS 2048, EBS 4096. Each flow gets one packet
/// in 65,536 (the flow table, [`Stream::flows`]), one every 65,536 x 12,563
/// ticks (0.36 s): about 1,400 B/s of coin-flip lengths, 2.8 times CIR, so
/// that every flow's C stays near empty and each packet's color is a coin
/// flip, green or red about equally often, independent of the last packet's
/// (the test below holds the shares).
#[must_use]
pub fn coin_srtcm_config() -> SrTcmConfig {
    SrTcmConfig::new(Rate::from_bytes_per_sec(COIN_MANY_CIR), 2048, 4096).with_tick(tick())
}

/// One burst of packets through one flow: the state and clock are copied into
/// locals (registers) for the burst. Not inlined, and the profile arrives as a
/// `&` argument, as in a router's per-burst function: the compiler may keep the
/// profile's constants in registers but cannot fold them (the caller passes it
/// through `black_box`).
#[inline(never)]
pub fn burst_one<M: ThreeColorMarker, const AWARE: bool>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    t: &mut u64,
) -> usize {
    let (mut mm, mut tt) = (*m, *t);
    let mut acc = 0usize;
    for (&len, &pre) in lens.iter().zip(colors) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let col = if AWARE {
            mm.color_aware(p, now, len, pre)
        } else {
            mm.color_blind(p, now, len)
        };
        acc += col.index();
    }
    (*m, *t) = (mm, tt);
    acc
}

/// One burst over many flows, the stream's next slice of its flow table
/// ([`Stream::next_flows`]): each packet updates the flow its index names.
/// With `PREFETCH`, the state of the flow `AHEAD` packets later is prefetched
/// first with `netcond::base::hint::prefetch`, as a caller that knows its
/// next packets' flows can do (DPDK's pipelines do the same, and so does the
/// DPDK loop beside it, `benches/dpdk/shim.c`); the marker itself is
/// unchanged.
#[inline(never)]
pub fn burst_many<M: ThreeColorMarker, const AWARE: bool, const PREFETCH: bool>(
    p: &M::Profile,
    s: &Stream,
    flows: &mut [M],
    t: &mut u64,
) -> usize {
    const AHEAD: usize = 8;
    let mut tt = *t;
    let mut acc = 0usize;
    let idx = s.next_flows();
    for (i, ((&len, &pre), &f)) in s.lens.iter().zip(&s.colors).zip(idx).enumerate() {
        if PREFETCH {
            if let Some(&next) = idx.get(i + AHEAD) {
                prefetch(&flows[next as usize]);
            }
        }
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let m = &mut flows[f as usize];
        let col = if AWARE {
            m.color_aware(p, now, len, pre)
        } else {
            m.color_blind(p, now, len)
        };
        acc += col.index();
    }
    *t = tt;
    acc
}

/// Packet-mode rates of the meter benches, in packets per second on the bench
/// stream's arrival rate (2.3e9 / 12,563, about 183,000 packets per second):
/// CIR about 57 % and PIR/EIR about 86 % of it, as the byte-mode profiles'
/// 46 and 69 MB/s are of the 80 MB/s offered. Bursts: 5 and 10 packets (the
/// byte profiles' 2048 and 4096 bytes in mean-sized packets).
pub const PACKET_CIR: u64 = 105_000;
/// See [`PACKET_CIR`].
pub const PACKET_PIR: u64 = 157_000;
/// See [`PACKET_CIR`].
pub const PACKET_CBS: u64 = 5;
/// See [`PACKET_CIR`].
pub const PACKET_PBS: u64 = 10;

/// [`burst_one`] in packet mode: the same loop over the same stream, each
/// packet colored by `color_blind_packet` / `color_aware_packet` (the lengths
/// are walked but not used).
#[inline(never)]
pub fn burst_one_packets<M: ThreeColorMarker, const AWARE: bool>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    t: &mut u64,
) -> usize {
    let (mut mm, mut tt) = (*m, *t);
    let mut acc = 0usize;
    for (_len, &pre) in lens.iter().zip(colors) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let col = if AWARE {
            mm.color_aware_packet(p, now, pre)
        } else {
            mm.color_blind_packet(p, now)
        };
        acc += col.index();
    }
    (*m, *t) = (mm, tt);
    acc
}

/// [`burst_one`] with per-color counters: each packet through
/// `color_blind_counted` / `color_aware_counted`, the counters kept in a
/// local for the burst as the state is.
#[inline(never)]
pub fn burst_one_counted<M: ThreeColorMarker, const AWARE: bool>(
    p: &M::Profile,
    lens: &[u32],
    colors: &[Color],
    m: &mut M,
    c: &mut Counters,
    t: &mut u64,
) -> usize {
    let (mut mm, mut cc, mut tt) = (*m, *c, *t);
    let mut acc = 0usize;
    for (&len, &pre) in lens.iter().zip(colors) {
        tt += BENCH_TICKS_PER_PACKET;
        let now = Instant::from_ticks(tt);
        let col = if AWARE {
            mm.color_aware_counted(p, now, len, pre, &mut cc)
        } else {
            mm.color_blind_counted(p, now, len, &mut cc)
        };
        acc += col.index();
    }
    (*m, *c, *t) = (mm, cc, tt);
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcond::trtcm::{
        Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmProfile, State, TrTcm, TrTcmConfig,
        TrTcmProfile,
    };

    /// The colors of `bursts` bursts of one flow after two bursts of warm-up,
    /// as the contention loops run them (state and clock kept across bursts).
    fn one_flow<M: ThreeColorMarker>(p: &M::Profile, lens: &[u32], bursts: usize) -> Vec<Color> {
        let s = stream();
        let (mut m, mut t) = (M::start(p, Instant::ZERO), 0u64);
        for _ in 0..2 {
            burst_one::<M, false>(p, lens, &s.colors, &mut m, &mut t);
        }
        let mut out = Vec::new();
        for _ in 0..bursts {
            for &len in lens {
                t += BENCH_TICKS_PER_PACKET;
                out.push(m.color_blind(p, Instant::from_ticks(t), len));
            }
        }
        out
    }

    /// The shares of green, yellow and red.
    fn shares(c: &[Color]) -> [f64; 3] {
        let n = c.len() as f64;
        [Color::Green, Color::Yellow, Color::Red]
            .map(|k| c.iter().filter(|&&x| x == k).count() as f64 / n)
    }

    /// The share of green after a green packet and after any other, in the
    /// order the loop meters them (what a branch predictor sees).
    fn green_after(c: &[Color]) -> [f64; 2] {
        let (mut after_g, mut g_g, mut after_other, mut g_other) = (0.0, 0.0, 0.0, 0.0);
        for w in c.windows(2) {
            let next = f64::from(u8::from(w[1] == Color::Green));
            if w[0] == Color::Green {
                after_g += 1.0;
                g_g += next;
            } else {
                after_other += 1.0;
                g_other += next;
            }
        }
        [g_g / after_g, g_other / after_other]
    }

    /// docs/performance.md: the bench stream is 85 % green for each marker on
    /// one flow; on the one-flow coin-flip lengths C stays near empty and a
    /// packet fits it about two times in three, with no color following from
    /// the one before more than four times in five.
    #[test]
    fn one_flow_streams_color_as_documented() {
        let sr = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap();
        let tr = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap();
        let r4 = Rfc4115Profile::new(&Rfc4115Config::default().with_tick(tick())).unwrap();
        let (bench, coin) = (stream().lens, coin_lengths());
        for c in [
            one_flow::<SrTcm>(&sr, &bench, 16),
            one_flow::<TrTcm>(&tr, &bench, 16),
            one_flow::<Rfc4115>(&r4, &bench, 16),
        ] {
            let g = shares(&c)[0];
            assert!((0.84..0.86).contains(&g), "bench stream green share {g}");
        }
        for c in [
            one_flow::<SrTcm>(&sr, &coin, 16),
            one_flow::<TrTcm>(&tr, &coin, 16),
            one_flow::<Rfc4115>(&r4, &coin, 16),
        ] {
            let [g, ..] = shares(&c);
            assert!((0.6..0.75).contains(&g), "coin green share {g}");
            for p in green_after(&c) {
                assert!((0.2..0.8).contains(&p), "green after a color: {p}");
            }
        }
    }

    /// The 65,536-flow coin-flip stream at `coin_srtcm_config`: green and red
    /// about equally often, each packet's color independent of the one before.
    /// And the flow table: every flow once per 16 bursts.
    #[test]
    fn many_flow_coin_stream_is_a_coin_flip() {
        let p = SrTcmProfile::new(&coin_srtcm_config()).unwrap();
        let s = stream();
        let coin = coin_lengths();
        let mut flows = vec![SrTcm::start(&p, Instant::ZERO); FLOWS as usize];
        let (mut t, mut colors) = (0u64, Vec::new());
        // 160 bursts take every flow to its steady state (ten packets each).
        for burst in 0..960 {
            for (&len, &f) in coin.iter().zip(s.next_flows()) {
                t += BENCH_TICKS_PER_PACKET;
                let c = flows[f as usize].color_blind(&p, Instant::from_ticks(t), len);
                if burst >= 800 {
                    colors.push(c);
                }
            }
        }
        let mut seen = s.flows.clone();
        seen.sort_unstable();
        assert!(seen.iter().copied().eq(0..FLOWS));
        assert_eq!(s.flows.len(), 16 * PACKETS);
        let [g, _, r] = shares(&colors);
        assert!((0.45..0.55).contains(&g) && r > 0.45, "shares {g} {r}");
        for after in green_after(&colors) {
            assert!(
                (after - g).abs() < 0.02,
                "green after a color {after}, overall {g}"
            );
        }
    }
}

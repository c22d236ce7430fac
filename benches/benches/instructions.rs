//! Instruction counts, cache misses and estimated cycles per packet of every
//! per-packet operation the criterion benches time, under valgrind's
//! callgrind (gungraun; docs/performance.md).
//!
//! Each benchmark is one case of [`case`]: its setup (not counted) builds the
//! stream, profile and state and runs one warm-up burst; the counted function
//! then runs the same per-burst loop as the criterion bench, on the same
//! stream, for the number of packets (or pairs, or recomputations) that ends
//! the benchmark's id (`..._n16384`), so that the per-packet figure is the
//! count divided by it (the call itself adds a few dozen instructions, under
//! 0.01 per packet). RED, RIO and AECN run one whole period of the queue's
//! triangle wave, so that every queue length counts once.
//!
//! Cache figures come from callgrind's simulation with fixed caches (L1 32
//! KiB 8-way, LL 8 MiB 16-way, 64-byte lines), the same on every machine, and
//! estimated cycles are gungraun's `L1 hits + 5 x LL hits + 35 x RAM hits`. The DPDK cases (feature `dpdk`) run DPDK 22.11's
//! rte_meter, rte_red and rte_pie through the shim on the same streams.
//!
//! `python3 benches/tools/perf.py icount` prints the per-packet table and
//! `python3 benches/tools/perf.py gate` checks it against
//! `benches/budget.json`.
use std::hint::black_box;

use gungraun::{
    library_benchmark, library_benchmark_group, main, Callgrind, CallgrindMetrics,
    LibraryBenchmarkConfig,
};
use netcond::base::RandomSource;
use netcond::base::TickRate;
use netcond::base::{Instant, Rate, SplitMix64};
use netcond::delay::{
    Codel, CodelConfig, CodelProfile, DualHead, DualPi2, DualPi2Config, DualPi2Profile, DualQueue,
    Ecn as DualEcn, FqCodel, FqCodelConfig, FqCodelProfile, Head, P_ONE,
};
use netcond::pcn::{
    AsForm, AsMarker, ClassicTie, EtMarker, EtMarkerSim48, EtMarkerSim48Config,
    EtMarkerSim48Profile, EtMarking, ExcessMode, ExcessTrafficMeter, Node3sm, NodeProfile,
    NodeRfc5670, PcnMeter, ThresholdMeter,
};
use netcond::ras::{Ear, Ras};
use netcond::rbcc::rcp::{Rcp, RcpConfig, RcpProfile};
use netcond::rbcc::{
    AckHeader, FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile,
};
use netcond::red::{
    AecnConfig, AecnDescriptor, AecnProfile, AecnQueue, Ecn, FlowClass, Packet, Red, Rio, RioMode,
    Spreading, U32F32,
};
use netcond::trtcm::{
    Compact, CompactProfile, Counters, PremiumPolicer, PremiumPolicerConfig, PremiumPolicerProfile,
    Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, ThreeColorMarker,
    TrTcm, TrTcmConfig, TrTcmProfile,
};
use netcond_benches::meter_stream::{
    burst_many, burst_one, burst_one_counted, burst_one_packets, stream, tick, FLOWS, PACKETS,
    PACKET_CBS, PACKET_CIR, PACKET_PBS, PACKET_PIR,
};
use netcond_benches::million::{
    pcn_burst, pcn_plain, pcn_prefetched, tcm_burst, tcm_plain, tcm_prefetched, Million,
};
use netcond_benches::pcn_stream as pcn;
use netcond_benches::pie_stream;
use netcond_benches::ras_stream::{
    ras_burst, sr_profile, srtcm, tbf_burst, tbf_profile, tr_profile, trtcm, GreenBench,
    GreenBurst, TbfBench, BACKLOG, CAP,
};
use netcond_benches::red_stream::{
    red_burst, red_profile, rio_burst, rio_colors, rio_profile, rio_split, w_q, Wave, STEP, TICKS,
};
use netcond_benches::{
    branch_free_srtcm, division_baseline, flow_indices, harness_floor, imix_lengths,
    BENCH_TICKS_PER_PACKET,
};

/// A prepared case: its counted work.
pub struct Case(Box<dyn FnMut() -> u64>);

/// Bursts of 4096 packets counted per meter case (16,384 packets).
const REPS: usize = 4;
/// Steps of a whole period of the RED wave (20 -> 140 -> 20).
const WAVE: usize = 240;

fn trtcm_profiles() -> (SrTcmProfile, TrTcmProfile, Rfc4115Profile) {
    let sr = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap();
    let tr = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap();
    let r4 = Rfc4115Profile::new(&Rfc4115Config::default().with_tick(tick())).unwrap();
    (sr, tr, r4)
}

/// A meter over one flow (`flows == 0`) or 65,536 (`prefetch` or not).
fn meter<M: ThreeColorMarker + 'static>(
    p: M::Profile,
    aware: bool,
    flows: u32,
    prefetch: bool,
) -> Case
where
    M::Profile: 'static,
{
    let s = stream();
    let mut t = 0u64;
    if flows == 0 {
        let mut m = M::start(&p, Instant::ZERO);
        let mut run = move || -> u64 {
            let mut acc = 0;
            for _ in 0..REPS {
                acc += if aware {
                    burst_one::<M, true>(black_box(&p), &s.lens, &s.colors, &mut m, &mut t)
                } else {
                    burst_one::<M, false>(black_box(&p), &s.lens, &s.colors, &mut m, &mut t)
                };
            }
            acc as u64
        };
        run();
        return Case(Box::new(run));
    }
    let mut v = vec![M::start(&p, Instant::ZERO); FLOWS as usize];
    let mut run = move || -> u64 {
        let mut acc = 0;
        for _ in 0..REPS {
            acc += match (aware, prefetch) {
                (false, false) => burst_many::<M, false, false>(black_box(&p), &s, &mut v, &mut t),
                (false, true) => burst_many::<M, false, true>(black_box(&p), &s, &mut v, &mut t),
                (true, false) => burst_many::<M, true, false>(black_box(&p), &s, &mut v, &mut t),
                (true, true) => burst_many::<M, true, true>(black_box(&p), &s, &mut v, &mut t),
            };
        }
        acc as u64
    };
    run();
    Case(Box::new(run))
}

/// The packet-mode profiles of the three markers (`meter_stream::PACKET_CIR`).
fn trtcm_packet_profiles() -> (SrTcmProfile, TrTcmProfile, Rfc4115Profile) {
    let sr = SrTcmConfig::packets(PACKET_CIR, PACKET_CBS, PACKET_PBS).with_tick(tick());
    let tr = TrTcmConfig::packets(PACKET_CIR, PACKET_PIR, PACKET_CBS, PACKET_PBS);
    let r4 = Rfc4115Config::packets(PACKET_CIR, PACKET_PIR - PACKET_CIR, PACKET_CBS, PACKET_PBS);
    (
        SrTcmProfile::new(&sr).unwrap(),
        TrTcmProfile::new(&tr.with_tick(tick())).unwrap(),
        Rfc4115Profile::new(&r4.with_tick(tick())).unwrap(),
    )
}

/// A meter over one flow with per-color counters (`..._counted` methods).
fn meter_counted<M: ThreeColorMarker + 'static>(p: M::Profile, aware: bool) -> Case
where
    M::Profile: 'static,
{
    let s = stream();
    let mut t = 0u64;
    let mut m = M::start(&p, Instant::ZERO);
    let mut c = Counters::default();
    let mut run = move || -> u64 {
        let mut acc = 0;
        for _ in 0..REPS {
            acc += if aware {
                burst_one_counted::<M, true>(
                    black_box(&p),
                    &s.lens,
                    &s.colors,
                    &mut m,
                    &mut c,
                    &mut t,
                )
            } else {
                burst_one_counted::<M, false>(
                    black_box(&p),
                    &s.lens,
                    &s.colors,
                    &mut m,
                    &mut c,
                    &mut t,
                )
            };
        }
        black_box(&c);
        acc as u64
    };
    run();
    Case(Box::new(run))
}

/// A packet-mode meter over one flow, through the `..._packet` methods.
fn meter_packets<M: ThreeColorMarker + 'static>(p: M::Profile, aware: bool) -> Case
where
    M::Profile: 'static,
{
    let s = stream();
    let mut t = 0u64;
    let mut m = M::start(&p, Instant::ZERO);
    let mut run = move || -> u64 {
        let mut acc = 0;
        for _ in 0..REPS {
            acc += if aware {
                burst_one_packets::<M, true>(black_box(&p), &s.lens, &s.colors, &mut m, &mut t)
            } else {
                burst_one_packets::<M, false>(black_box(&p), &s.lens, &s.colors, &mut m, &mut t)
            };
        }
        acc as u64
    };
    run();
    Case(Box::new(run))
}

fn pcn_case<M: PcnMeter + 'static>(p: M::Profile, many: bool) -> Case
where
    M::Profile: 'static,
{
    pcn_case_with::<M>(p, many, false)
}

/// A PCN meter over one link, or over 65,536 with (`prefetch`) or without the
/// caller prefetching each link's state eight packets ahead.
fn pcn_case_with<M: PcnMeter + 'static>(p: M::Profile, many: bool, prefetch: bool) -> Case
where
    M::Profile: 'static,
{
    let s = pcn::stream();
    let mut t = 0u64;
    let mut one = M::start(&p, Instant::ZERO);
    let mut v = if many {
        vec![M::start(&p, Instant::ZERO); pcn::LINKS as usize]
    } else {
        Vec::new()
    };
    let mut run = move || -> u64 {
        let mut acc = 0;
        for _ in 0..REPS {
            acc += if many && prefetch {
                pcn::burst_many::<M, true>(black_box(&p), &s, &mut v, &mut t)
            } else if many {
                pcn::burst_many::<M, false>(black_box(&p), &s, &mut v, &mut t)
            } else {
                pcn::burst_one::<M>(black_box(&p), &s, &mut one, &mut t)
            };
        }
        u64::from(acc)
    };
    run();
    Case(Box::new(run))
}

/// How a million-flow case runs each receive burst (`netcond_benches::million`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// The per-packet call.
    Plain,
    /// The per-packet call, the caller prefetching eight packets ahead.
    Prefetched,
    /// The burst API.
    Burst,
}

fn million_tcm<M: ThreeColorMarker + 'static>(p: M::Profile, way: Way) -> Case
where
    M::Profile: 'static,
{
    let s = Million::new();
    let mut v = vec![M::start(&p, Instant::ZERO); netcond_benches::million::FLOWS as usize];
    let (mut t, mut k) = (0u64, 0usize);
    let mut run = move || -> u64 {
        let mut acc = 0;
        for _ in 0..REPS {
            k += 1;
            acc += match way {
                Way::Plain => tcm_plain(black_box(&p), &mut v, s.flows_of(k), &s.lens, &mut t),
                Way::Prefetched => {
                    tcm_prefetched(black_box(&p), &mut v, s.flows_of(k), &s.lens, &mut t)
                }
                Way::Burst => tcm_burst(black_box(&p), &mut v, s.flows_of(k), &s.lens, &mut t),
            };
        }
        acc as u64
    };
    run();
    Case(Box::new(run))
}

fn million_node(way: Way) -> Case {
    let s = Million::new();
    let p = pcn::node_3sm();
    let mut v = vec![Node3sm::new(&p, Instant::ZERO); netcond_benches::million::FLOWS as usize];
    let (mut t, mut k) = (0u64, 0usize);
    let mut run = move || -> u64 {
        let mut acc = 0;
        for _ in 0..REPS {
            k += 1;
            acc += match way {
                Way::Plain => pcn_plain(black_box(&p), &mut v, &s, s.flows_of(k), &mut t),
                Way::Prefetched => pcn_prefetched(black_box(&p), &mut v, &s, s.flows_of(k), &mut t),
                Way::Burst => pcn_burst(black_box(&p), &mut v, &s, s.flows_of(k), &mut t),
            };
        }
        u64::from(acc)
    };
    run();
    Case(Box::new(run))
}

fn red_case(ecn: bool, spreading: Spreading) -> Case {
    let p = red_profile(ecn, spreading);
    let pkt = Packet::new(1500, if ecn { Ecn::Ect0 } else { Ecn::NotEct });
    let (mut red, mut rng, mut wave, mut now) = (
        Red::new(&p, Instant::ZERO),
        SplitMix64::new(1),
        Wave::new(),
        0u64,
    );
    let mut step = move || {
        u64::from(red_burst(
            black_box(&p),
            &mut red,
            &mut rng,
            &mut now,
            wave.step(),
            pkt,
        ))
    };
    step();
    Case(Box::new(move || (0..WAVE).map(|_| step()).sum()))
}

fn rio_case(mode: RioMode) -> Case {
    let p = rio_profile(mode);
    let colors = rio_colors();
    let (mut rio, mut rng, mut wave, mut now) = (
        Rio::new(&p, Instant::ZERO),
        SplitMix64::new(1),
        Wave::new(),
        0u64,
    );
    let mut step = move || {
        let split = rio_split(wave.step());
        u64::from(rio_burst(
            black_box(&p),
            &mut rio,
            &mut rng,
            &mut now,
            split,
            &colors,
        ))
    };
    step();
    Case(Box::new(move || (0..WAVE).map(|_| step()).sum()))
}

fn node_red_case() -> Case {
    let np = pcn::node_3sm();
    let rp = red_profile(false, Spreading::Accumulated);
    let s = pcn::stream();
    let (mut node, mut red, mut rng, mut wave, mut t) = (
        Node3sm::new(&np, Instant::ZERO),
        Red::new(&rp, Instant::ZERO),
        SplitMix64::new(1),
        Wave::new(),
        0u64,
    );
    // One wave step per burst of 4096 packets; 60 bursts run the wave from
    // 20 to 80 packets and the counted bursts on from there.
    let mut step = move || {
        let q = wave.step();
        u64::from(pcn::node_red_burst(
            black_box(&np),
            black_box(&rp),
            &s,
            &mut node,
            &mut red,
            &mut rng,
            &mut t,
            q,
        ))
    };
    for _ in 0..60 {
        step();
    }
    Case(Box::new(move || (0..REPS).map(|_| step()).sum()))
}

#[derive(Clone, Copy)]
struct Desc {
    class: FlowClass,
    ecn: Ecn,
    len: u16,
}

impl AecnDescriptor for Desc {
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

/// `benches/red.rs`'s AECN loop: one enqueue and one dequeue per packet.
fn aecn_case() -> Case {
    let mut cfg = AecnConfig::zheng_kinicki(U32F32::from_num(0.1));
    cfg.w_q = w_q();
    cfg.min_th = 32;
    cfg.max_th = 128;
    cfg.limit = 256;
    cfg.typical_tx = std::time::Duration::from_nanos(1200);
    cfg.spreading = Spreading::Accumulated;
    let p = AecnProfile::new(&cfg).unwrap();
    let classes: Vec<FlowClass> = flow_indices(STEP as usize, 3, 4)
        .into_iter()
        .map(|k| FlowClass::ALL[k as usize])
        .collect();
    let mut q = AecnQueue::<Desc, 256>::new(&p, Instant::ZERO);
    let mut rng = SplitMix64::new(1);
    let mut now = 0u64;
    let desc = |class| Desc {
        class,
        ecn: Ecn::Ect0,
        len: 1500,
    };
    for _ in 0..20 {
        let _ = q.enqueue(
            &p,
            Instant::from_ticks(0),
            desc(FlowClass::Average),
            &mut rng,
        );
    }
    let mut wave = Wave::new();
    let _ = wave.step();
    let mut step = move || {
        let target = wave.step() as usize;
        if q.len() < target {
            let _ = q.enqueue(
                &p,
                Instant::from_ticks(now),
                desc(FlowClass::Average),
                &mut rng,
            );
        } else if q.len() > target {
            let _ = q.dequeue(&p, Instant::from_ticks(now));
        }
        let mut bytes = 0u64;
        for &class in &classes {
            now += TICKS;
            let t = Instant::from_ticks(now);
            if black_box(q.enqueue(&p, t, desc(class), &mut rng)).is_ok() {
                if let Some(d) = q.dequeue(&p, t) {
                    bytes += u64::from(d.len);
                }
            }
        }
        bytes
    };
    step();
    Case(Box::new(move || (0..WAVE).map(|_| step()).sum()))
}

fn policer_case() -> Case {
    policer_case_with::<false, false>()
}

/// The policer's loop, with per-color counters (`offer_counted`) if `COUNTED`;
/// in packet mode (`offer_packet`) if `PKT_MODE`, with a rate in packets per
/// second that is the byte profile's rate divided by the stream's mean length
/// and buckets of 16 and 20 packets, so that about as many packets conform.
fn policer_case_with<const COUNTED: bool, const PKT_MODE: bool>() -> Case {
    let s = stream();
    let cfg = if PKT_MODE {
        let mean = s.lens.iter().map(|&l| u64::from(l)).sum::<u64>() / s.lens.len() as u64;
        PremiumPolicerConfig::packets(64_000_000 / mean.max(1), 16, 20)
    } else {
        PremiumPolicerConfig::new(Rate::from_bytes_per_sec(64_000_000), 16_384, 20_000, 1518)
    };
    let p = PremiumPolicerProfile::new(&cfg.with_tick(tick())).unwrap();
    let (mut st, mut t) = (PremiumPolicer::new(&p, Instant::ZERO), 0u64);
    let mut counters = Counters::default();
    let mut burst = move || {
        let p = black_box(&p);
        let (mut ss, mut tt, mut cc) = (st, t, counters);
        let mut acc = 0usize;
        for i in 0..PACKETS {
            tt += BENCH_TICKS_PER_PACKET;
            let now = Instant::from_ticks(tt);
            acc += if PKT_MODE {
                ss.offer_packet(p, now).index()
            } else if COUNTED {
                ss.offer_counted(p, now, s.lens[i], &mut cc).index()
            } else {
                ss.offer(p, now, s.lens[i]).index()
            };
            if i % 2 == 1 {
                ss.dequeued(if PKT_MODE { 1 } else { 1518 });
            }
        }
        (st, t, counters) = (ss, tt, cc);
        black_box(&counters);
        acc as u64
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

fn ear_case(gap: u64) -> Case {
    let lens = imix_lengths(PACKETS, 1);
    let p = tr_profile();
    let (mut e, mut t) = (Ear::new(p.ear(), Instant::ZERO), 0u64);
    let mut burst = move || {
        let ep = black_box(p.ear());
        for &len in &lens {
            t += gap;
            e.update(ep, Instant::from_ticks(t), len);
        }
        e.raw()
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

fn ras_case(tr: bool, backlog: bool) -> Case {
    let p = if tr { tr_profile() } else { sr_profile() };
    let lens = imix_lengths(PACKETS, 2);
    let mut s: Ras<u32, CAP> = Ras::new(&p, Instant::ZERO);
    if backlog {
        for &len in &lens[..BACKLOG] {
            let _ = s.enqueue(&p, Instant::ZERO, len);
        }
    }
    let gap = if backlog { 0 } else { BENCH_TICKS_PER_PACKET };
    let mut t = 0u64;
    let mut burst = move || ras_burst(black_box(&p), &mut s, &mut t, &lens, gap);
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

/// The token bucket filter's loop (`tbf_burst`): `idle` (arrivals
/// `BENCH_TICKS_PER_PACKET` apart, about twice the rate, so time follows the
/// departures) or `backlog` (32 packets queued), with or without a peak rate.
fn tbf_case(peak: bool, backlog: bool) -> Case {
    let p = tbf_profile(peak);
    let lens = imix_lengths(PACKETS, 2);
    let mut b = TbfBench::new(&p, &lens, backlog);
    let gap = if backlog { 0 } else { BENCH_TICKS_PER_PACKET };
    let mut t = 0u64;
    let mut burst = move || tbf_burst(black_box(&p), &mut b, &mut t, &lens, gap);
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

fn green_case(tr: bool, backlog: bool) -> Case {
    let mut g: Box<dyn GreenBurst> = if tr {
        Box::new(GreenBench::<TrTcm>::new(&tr_profile(), &trtcm(), backlog))
    } else {
        Box::new(GreenBench::<SrTcm>::new(&sr_profile(), &srtcm(), backlog))
    };
    g.burst();
    Case(Box::new(move || (0..REPS).map(|_| g.burst()).sum()))
}

fn rbcc_profile() -> RbccProfile {
    RbccProfile::new(&RbccConfig::toomey_scenario7(
        NodeId(1),
        Rate::from_mbps(10_000),
    ))
    .unwrap()
}

/// `benches/rbcc.rs`'s table of `flows` flows.
fn populated<const N: usize>(p: &RbccProfile, flows: u32) -> RbccInterface<N> {
    let mut t = RbccInterface::<N>::new(p, Instant::ZERO);
    let mut r = SplitMix64::new(9);
    for f in 0..flows {
        let req = if r.below(6) == 0 {
            FixedRate::from_bps(1_000 + u64::from(r.below(50_000_000)))
        } else {
            FixedRate::UNLIMITED
        };
        let mut h = RateHeader::new(req);
        t.on_data(p, Instant::ZERO, f, &mut h).unwrap();
        if r.below(3) == 0 {
            let a = AckHeader {
                rate: FixedRate::from_bps(1_000 + u64::from(r.below(20_000_000))),
                bottleneck: NodeId(2),
            };
            t.on_return(p, Instant::ZERO, f, &a);
        }
    }
    for f in 0..flows / 8 {
        let mut a = AckHeader {
            rate: FixedRate::from_bps(u64::from(r.below(10_000_000))),
            bottleneck: NodeId(2),
        };
        t.on_ack(p, Instant::ZERO, f, &mut a).unwrap();
    }
    t
}

/// `rbcc_on_data/<flows>` (`lookup`: the header's requested rate read from the
/// table per packet) or `rbcc_on_data_only/1024` (precomputed).
fn rbcc_stamp<const N: usize>(flows: u32, lookup: bool) -> Case {
    let p = rbcc_profile();
    let mut t = populated::<N>(&p, flows);
    let idx = flow_indices(PACKETS, flows, 5);
    let reqs: Vec<FixedRate> = idx.iter().map(|&f| t.data(f).unwrap().requested).collect();
    let mut now = 0u64;
    let mut burst = move || {
        let mut acc = 0u64;
        for (&f, &r) in idx.iter().zip(&reqs) {
            now += BENCH_TICKS_PER_PACKET;
            let req = if lookup {
                t.data(f).map_or(FixedRate::UNLIMITED, |e| e.requested)
            } else {
                r
            };
            let mut h = RateHeader::new(req);
            let _ = t.on_data(&p, Instant::from_ticks(now), black_box(f), &mut h);
            acc += black_box(h).rate.bps() & 1;
        }
        acc
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

fn rcp_case() -> Case {
    let rp = RcpProfile::new(&RcpConfig::new(
        NodeId(1),
        Rate::from_mbps(10_000),
        std::time::Duration::from_millis(100),
    ))
    .unwrap();
    let mut s = Rcp::new(&rp, Instant::ZERO);
    let idx = flow_indices(PACKETS, 1024, 5);
    let mut burst = move || {
        let mut acc = 0u64;
        for &f in &idx {
            let mut h = RateHeader::new(FixedRate::UNLIMITED);
            let _ = s.on_data(&rp, Instant::ZERO, f, &mut h);
            s.on_arrival(&rp, Instant::ZERO, 1500);
            acc += black_box(h).rate.bps() & 1;
        }
        acc
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

/// 16 recomputations of a table of `flows` flows.
fn recompute<const N: usize>(flows: u32) -> Case {
    let p = rbcc_profile();
    let mut t = populated::<N>(&p, flows);
    t.recompute(&p);
    Case(Box::new(move || {
        (0..16)
            .map(|_| {
                t.recompute(black_box(&p));
                black_box(t.advertised()).bps() & 1
            })
            .sum()
    }))
}

/// The case called `name` (the benchmark id without its `_n<count>` suffix).
#[allow(clippy::too_many_lines)]
/// Nanoseconds: the delay AQMs' benches run on a nanosecond clock.
const MS: u64 = 1_000_000;

/// CoDel's dequeue with the head 2 ms old and 150 kB behind it: below
/// TARGET (5 ms), so never dropping (RFC 8289's common case).
fn codel_case(cfg: CodelConfig) -> Case {
    let p = CodelProfile::new(&cfg).unwrap();
    let lens = imix_lengths(PACKETS, 3);
    let (mut c, mut t) = (Codel::new(&p, Instant::ZERO), 10 * MS);
    let mut burst = move || {
        let p = black_box(&p);
        let mut acc = 0u64;
        for &len in &lens {
            t += 10_000;
            let head = Head::new(Instant::from_ticks(t - 2 * MS), len, false);
            acc += c.on_dequeue(p, Instant::from_ticks(t), head, 150_000) as u64;
        }
        acc
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

/// FQ-CoDel over 1024 flows: one packet enqueued to a random flow, then the
/// scheduler's flow and its CoDel's verdict (below TARGET), per packet.
fn fq_codel_case() -> Case {
    let p = FqCodelProfile::new(&FqCodelConfig::linux()).unwrap();
    let lens = imix_lengths(PACKETS, 4);
    let flows = flow_indices(PACKETS, 1024, 5);
    let mut fq: Box<FqCodel<1024>> = Box::new(FqCodel::new(&p, Instant::ZERO));
    let mut t = 10 * MS;
    let mut burst = move || {
        let p = black_box(&p);
        let mut acc = 0u64;
        for (&len, &f) in lens.iter().zip(&flows) {
            t += 10_000;
            let now = Instant::from_ticks(t);
            fq.enqueue(p, now, f as usize, len, |_| None);
            if let Some(g) = fq.schedule(p, now) {
                let head = Head::new(Instant::from_ticks(t - MS), len, false);
                acc += fq.on_dequeue(p, now, g, head) as u64 + g as u64;
            }
        }
        acc
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

/// PIE's enqueue decision (Linux's law), burst allowance spent, 100 packets
/// queued (`netcond_benches::pie_stream`): on the congested stream
/// (probability far beyond one) the derandomization on every packet, which
/// then drops it without a draw; on the drawing stream (probability 20-30 %)
/// a random draw for most packets, most of them delivered.
fn pie_case(drawing: bool) -> Case {
    let (p, mut s, t) = if drawing {
        pie_stream::drawing()
    } else {
        pie_stream::congested()
    };
    let lens = pie_stream::lens();
    let mut rng = SplitMix64::new(7);
    let mut burst = move || pie_stream::pie_burst(&p, &mut s, &lens, t, &mut rng);
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

/// DualPI2 (RFC 9332's parameters and `recur()`): per packet, its enqueue
/// (classified by ECN, L4S and Classic in turn), the scheduler's choice
/// between two backlogged heads, and the dequeue decision, with `p'` about
/// 0.2 (set in the setup by a standing 40 ms Classic delay).
fn dualpi2_case() -> Case {
    let p = DualPi2Profile::new(&DualPi2Config::rfc9332()).unwrap();
    let mut s = DualPi2::new(&p, Instant::ZERO);
    let mut t = 0u64;
    while s.p_prime() < P_ONE / 5 {
        t += MS;
        let c = Some(Instant::from_ticks(t - 40 * MS));
        s.poll(&p, Instant::from_ticks(t), None, c);
    }
    let lens = imix_lengths(PACKETS, 8);
    let mut rng = SplitMix64::new(9);
    let mut k = 0u32;
    let mut burst = move || {
        let p = black_box(&p);
        let mut acc = 0u64;
        for &len in &lens {
            t += 1_000;
            k = k.wrapping_add(1);
            let now = Instant::from_ticks(t);
            let ecn = if k.is_multiple_of(2) {
                DualEcn::Ect1
            } else {
                DualEcn::NotEct
            };
            let q = s.on_arrival(p, now, ecn, len, 150_000);
            let (l, c) = (
                Some(Instant::from_ticks(t - 500_000)),
                Some(Instant::from_ticks(t - 20 * MS)),
            );
            if let (Some(_), Some(g)) = (q, s.schedule(p, now, l, c)) {
                let at = if g == DualQueue::L4s { l } else { c };
                let head = DualHead::new(at.unwrap_or(now), len, ecn);
                acc += s.on_dequeue(p, now, g, head, 5, &mut rng) as u64;
            }
        }
        acc
    };
    burst();
    Case(Box::new(move || (0..REPS).map(|_| burst()).sum()))
}

fn case(name: &str) -> Case {
    let (sr, tr, r4) = trtcm_profiles();
    let dv = division_baseline::Profile::new(2_300_000_000, 46_000_000, 69_000_000, 2048, 4096);
    let cfg = SrTcmConfig::default().with_tick(tick());
    let bs = branch_free_srtcm::Profile::new(cfg.cir, cfg.cbs, cfg.ebs, tick()).unwrap();
    let (sr16, tr16, r416) = (
        CompactProfile::new(sr).unwrap(),
        CompactProfile::new(tr).unwrap(),
        CompactProfile::new(r4).unwrap(),
    );
    let (one, many) = (0, FLOWS);
    let (srp, trp, r4p) = trtcm_packet_profiles();
    match name {
        "srtcm_blind_1flow_packets" => meter_packets::<SrTcm>(srp, false),
        "srtcm_aware_1flow_packets" => meter_packets::<SrTcm>(srp, true),
        "trtcm_blind_1flow_packets" => meter_packets::<TrTcm>(trp, false),
        "trtcm_aware_1flow_packets" => meter_packets::<TrTcm>(trp, true),
        "rfc4115_blind_1flow_packets" => meter_packets::<Rfc4115>(r4p, false),
        "rfc4115_aware_1flow_packets" => meter_packets::<Rfc4115>(r4p, true),
        "srtcm_blind_1flow" => meter::<SrTcm>(sr, false, one, false),
        "srtcm_blind_65536" => meter::<SrTcm>(sr, false, many, false),
        "srtcm_blind_65536_prefetched" => meter::<SrTcm>(sr, false, many, true),
        "srtcm_aware_1flow" => meter::<SrTcm>(sr, true, one, false),
        "srtcm_aware_65536" => meter::<SrTcm>(sr, true, many, false),
        "srtcm_aware_65536_prefetched" => meter::<SrTcm>(sr, true, many, true),
        "trtcm_blind_1flow" => meter::<TrTcm>(tr, false, one, false),
        "trtcm_blind_65536" => meter::<TrTcm>(tr, false, many, false),
        "trtcm_blind_65536_prefetched" => meter::<TrTcm>(tr, false, many, true),
        "trtcm_aware_1flow" => meter::<TrTcm>(tr, true, one, false),
        "trtcm_aware_65536" => meter::<TrTcm>(tr, true, many, false),
        "trtcm_aware_65536_prefetched" => meter::<TrTcm>(tr, true, many, true),
        "rfc4115_blind_1flow" => meter::<Rfc4115>(r4, false, one, false),
        "rfc4115_blind_65536" => meter::<Rfc4115>(r4, false, many, false),
        "rfc4115_blind_65536_prefetched" => meter::<Rfc4115>(r4, false, many, true),
        "rfc4115_aware_1flow" => meter::<Rfc4115>(r4, true, one, false),
        "rfc4115_aware_65536" => meter::<Rfc4115>(r4, true, many, false),
        "rfc4115_aware_65536_prefetched" => meter::<Rfc4115>(r4, true, many, true),
        "compact_srtcm_65536" => meter::<Compact<SrTcm>>(sr16, false, many, false),
        "compact_srtcm_65536_prefetched" => meter::<Compact<SrTcm>>(sr16, false, many, true),
        "compact_trtcm_65536" => meter::<Compact<TrTcm>>(tr16, false, many, false),
        "compact_trtcm_65536_prefetched" => meter::<Compact<TrTcm>>(tr16, false, many, true),
        "compact_rfc4115_65536" => meter::<Compact<Rfc4115>>(r416, false, many, false),
        "compact_rfc4115_65536_prefetched" => meter::<Compact<Rfc4115>>(r416, false, many, true),
        "division_1flow" => meter::<division_baseline::TrTcm>(dv, false, one, false),
        "division_65536" => meter::<division_baseline::TrTcm>(dv, false, many, false),
        "division_65536_prefetched" => meter::<division_baseline::TrTcm>(dv, false, many, true),
        "branch_free_srtcm_blind_1flow" => meter::<branch_free_srtcm::SrTcm>(bs, false, one, false),
        "branch_free_srtcm_aware_1flow" => meter::<branch_free_srtcm::SrTcm>(bs, true, one, false),
        "branch_free_srtcm_blind_65536" => {
            meter::<branch_free_srtcm::SrTcm>(bs, false, many, false)
        }
        "branch_free_srtcm_blind_65536_prefetched" => {
            meter::<branch_free_srtcm::SrTcm>(bs, false, many, true)
        }
        "million_branch_free_srtcm_prefetched" => {
            million_tcm::<branch_free_srtcm::SrTcm>(bs, Way::Prefetched)
        }
        "harness_floor_1flow" => meter::<harness_floor::Null>(1000, false, one, false),
        "harness_floor_65536" => meter::<harness_floor::Null>(1000, false, many, false),
        "harness_floor_65536_prefetched" => meter::<harness_floor::Null>(1000, false, many, true),
        "policer_offer" => policer_case(),
        "policer_offer_counted" => policer_case_with::<true, false>(),
        "policer_offer_packets" => policer_case_with::<false, true>(),
        "srtcm_blind_1flow_counted" => meter_counted::<SrTcm>(sr, false),
        "srtcm_aware_1flow_counted" => meter_counted::<SrTcm>(sr, true),
        "trtcm_blind_1flow_counted" => meter_counted::<TrTcm>(tr, false),
        "trtcm_aware_1flow_counted" => meter_counted::<TrTcm>(tr, true),
        "rfc4115_blind_1flow_counted" => meter_counted::<Rfc4115>(r4, false),
        "rfc4115_aware_1flow_counted" => meter_counted::<Rfc4115>(r4, true),
        "million_trtcm_plain" => million_tcm::<TrTcm>(tr, Way::Plain),
        "million_trtcm_prefetched" => million_tcm::<TrTcm>(tr, Way::Prefetched),
        "million_trtcm_burst" => million_tcm::<TrTcm>(tr, Way::Burst),
        "million_srtcm_plain" => million_tcm::<SrTcm>(sr, Way::Plain),
        "million_srtcm_prefetched" => million_tcm::<SrTcm>(sr, Way::Prefetched),
        "million_srtcm_burst" => million_tcm::<SrTcm>(sr, Way::Burst),
        "million_srtcm_compact_prefetched" => million_tcm::<Compact<SrTcm>>(sr16, Way::Prefetched),
        "million_trtcm_compact_prefetched" => million_tcm::<Compact<TrTcm>>(tr16, Way::Prefetched),
        "million_node_3sm_plain" => million_node(Way::Plain),
        "million_node_3sm_prefetched" => million_node(Way::Prefetched),
        "million_node_3sm_burst" => million_node(Way::Burst),
        "pcn_et_tail_1link" | "pcn_et_tail_65536" => pcn_case::<EtMarker>(
            pcn::et_marker(EtMarking::TailMarking),
            name.ends_with("65536"),
        ),
        "pcn_et_size_independent_1link" | "pcn_et_size_independent_65536" => pcn_case::<EtMarker>(
            pcn::et_marker(EtMarking::SizeIndependent { mtu: 1518 }),
            name.ends_with("65536"),
        ),
        "pcn_et_sim48_1link" | "pcn_et_sim48_65536" => {
            let p = EtMarkerSim48Profile::new(
                &EtMarkerSim48Config::new(pcn::sr(), 50_000, 2064).with_tick(tick()),
            )
            .unwrap();
            pcn_case::<EtMarkerSim48>(p, name.ends_with("65536"))
        }
        "pcn_as_explicit_marking_1link" | "pcn_as_explicit_marking_65536" => pcn_case::<AsMarker>(
            pcn::as_marker(AsForm::DraftExplicitMarking01),
            name.ends_with("65536"),
        ),
        "pcn_as_3sm01_1link" | "pcn_as_3sm01_65536" => {
            pcn_case::<AsMarker>(pcn::as_marker(AsForm::Draft3sm01), name.ends_with("65536"))
        }
        "pcn_rfc5670_threshold_1link" | "pcn_rfc5670_threshold_65536" => {
            pcn_case::<ThresholdMeter>(pcn::threshold(), name.ends_with("65536"))
        }
        "pcn_rfc5670_excess_size_independent_1link"
        | "pcn_rfc5670_excess_size_independent_65536" => pcn_case::<ExcessTrafficMeter>(
            pcn::excess(ExcessMode::SizeIndependent),
            name.ends_with("65536"),
        ),
        "pcn_rfc5670_excess_classic_1link" | "pcn_rfc5670_excess_classic_65536" => {
            pcn_case::<ExcessTrafficMeter>(
                pcn::excess(ExcessMode::Classic(ClassicTie::Section2_4)),
                name.ends_with("65536"),
            )
        }
        "pcn_node_3sm_1link" | "pcn_node_3sm_65536" => {
            pcn_case::<Node3sm>(pcn::node_3sm(), name.ends_with("65536"))
        }
        "pcn_node_3sm_65536_prefetched" => pcn_case_with::<Node3sm>(pcn::node_3sm(), true, true),
        "pcn_node_rfc5670_1link" | "pcn_node_rfc5670_65536" => pcn_case::<NodeRfc5670>(
            NodeProfile {
                excess: pcn::excess(ExcessMode::SizeIndependent),
                threshold: pcn::threshold(),
            },
            name.ends_with("65536"),
        ),
        "pcn_node_3sm_then_red" => node_red_case(),
        "red_decision" => red_case(false, Spreading::Accumulated),
        "red_decision_ecn" => red_case(true, Spreading::Accumulated),
        "red_decision_uniform" => red_case(false, Spreading::Uniform),
        "red_decision_dpdk_law" => red_case(false, Spreading::AccumulatedDpdk),
        "red_decision_dpdk_spreading" => red_case(false, Spreading::Dpdk),
        "rio_wred" => rio_case(RioMode::Wred),
        "rio_c" => rio_case(RioMode::Coupled),
        "aecn_pair" => aecn_case(),
        "ear_update" => ear_case(BENCH_TICKS_PER_PACKET),
        "ear_update_back_to_back" => ear_case(7),
        "srras_idle" => ras_case(false, false),
        "srras_backlog" => ras_case(false, true),
        "trras_idle" => ras_case(true, false),
        "trras_backlog" => ras_case(true, true),
        "tbf_idle" => tbf_case(false, false),
        "tbf_backlog" => tbf_case(false, true),
        "tbf_peak_backlog" => tbf_case(true, true),
        "g_srras_idle" => green_case(false, false),
        "g_srras_backlog" => green_case(false, true),
        "g_trras_idle" => green_case(true, false),
        "g_trras_backlog" => green_case(true, true),
        "rbcc_on_data_16" => rbcc_stamp::<32>(16, true),
        "rbcc_on_data_1024" => rbcc_stamp::<2048>(1024, true),
        "rbcc_on_data_only_1024" => rbcc_stamp::<2048>(1024, false),
        "rcp_on_data" => rcp_case(),
        "codel_dequeue" => codel_case(CodelConfig::linux().with_tick(TickRate::NANOS)),
        "codel_dequeue_exact" => codel_case(CodelConfig::rfc8289().with_tick(TickRate::NANOS)),
        "fq_codel_pair" => fq_codel_case(),
        "pie_enqueue" => pie_case(false),
        "pie_enqueue_drawing" => pie_case(true),
        "dualpi2_packet" => dualpi2_case(),
        "rbcc_recompute_16" => recompute::<32>(16),
        "rbcc_recompute_256" => recompute::<512>(256),
        "rbcc_recompute_1024" => recompute::<2048>(1024),
        ffi if ffi.starts_with("ffi_") => Case(netcond_benches::c_call::counted(ffi)),
        #[cfg(feature = "dpdk")]
        other => dpdk_side::case(other),
        #[cfg(not(feature = "dpdk"))]
        other => panic!("no case {other}"),
    }
}

#[cfg(feature = "dpdk")]
#[path = "../dpdk/ffi.rs"]
mod dpdk;

#[cfg(feature = "dpdk")]
mod dpdk_side {
    use super::*;
    const HZ: u64 = 2_300_000_000;

    /// DPDK's marker `M` over one flow of the meter stream, color-blind or
    /// color-aware (the stream's pre-colors), as `meter`'s one-flow case.
    fn one<M: dpdk::Meter + Default + 'static>(p: M::Profile, aware: bool) -> Case
    where
        M::Profile: 'static,
    {
        let s = stream();
        let (mut m, mut t) = (dpdk::start::<M>(&p, 0), 0u64);
        let mut b = move || {
            if aware {
                dpdk::burst_one_aware::<M>(black_box(&p), &s.lens, &s.colors, &mut m, &mut t)
            } else {
                dpdk::burst_one::<M>(black_box(&p), &s.lens, &mut m, &mut t)
            }
        };
        b();
        Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
    }

    /// `M` over 65,536 flows of the meter stream, as `meter`'s many-flow
    /// case (the state of the flow 8 packets ahead prefetched or not).
    fn many<M: dpdk::Meter + Default + 'static>(p: M::Profile, aware: bool, pre: bool) -> Case
    where
        M::Profile: 'static,
    {
        let s: &'static _ = Box::leak(Box::new(stream()));
        let mut bursts = dpdk::Bursts::new(&s.lens, &s.flows, Some(&s.colors), FLOWS as usize);
        let (mut v, mut t) = (vec![dpdk::start::<M>(&p, 0); FLOWS as usize], 0u64);
        let mut b = move || {
            let (p, v, t) = (black_box(&p), &mut v, &mut t);
            let burst = bursts.next_burst();
            match (aware, pre) {
                (false, false) => dpdk::burst_many::<M, false>(p, &burst, v, t),
                (false, true) => dpdk::burst_many::<M, true>(p, &burst, v, t),
                (true, false) => dpdk::burst_many_aware::<M, false>(p, &burst, v, t),
                (true, true) => dpdk::burst_many_aware::<M, true>(p, &burst, v, t),
            }
        };
        b();
        Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
    }

    pub fn case(name: &str) -> Case {
        let s = stream();
        let tr = dpdk::TrTcmProfile::new(HZ, 46_000_000, 69_000_000, 2048, 4096).unwrap();
        let sr = dpdk::SrTcmProfile::new(HZ, 46_000_000, 2048, 4096).unwrap();
        let r4 = dpdk::Rfc4115Profile::new(HZ, 46_000_000, 69_000_000, 2048, 4096).unwrap();
        let mut t = 0u64;
        match name {
            "dpdk_srtcm_aware_1flow" => one::<dpdk::SrTcm>(sr, true),
            "dpdk_srtcm_aware_65536" => many::<dpdk::SrTcm>(sr, true, false),
            "dpdk_srtcm_aware_65536_prefetched" => many::<dpdk::SrTcm>(sr, true, true),
            "dpdk_trtcm_aware_1flow" => one::<dpdk::TrTcm>(tr, true),
            "dpdk_trtcm_aware_65536" => many::<dpdk::TrTcm>(tr, true, false),
            "dpdk_trtcm_aware_65536_prefetched" => many::<dpdk::TrTcm>(tr, true, true),
            "dpdk_rfc4115_blind_1flow" => one::<dpdk::Rfc4115>(r4, false),
            "dpdk_rfc4115_blind_65536" => many::<dpdk::Rfc4115>(r4, false, false),
            "dpdk_rfc4115_blind_65536_prefetched" => many::<dpdk::Rfc4115>(r4, false, true),
            "dpdk_rfc4115_aware_1flow" => one::<dpdk::Rfc4115>(r4, true),
            "dpdk_rfc4115_aware_65536" => many::<dpdk::Rfc4115>(r4, true, false),
            "dpdk_rfc4115_aware_65536_prefetched" => many::<dpdk::Rfc4115>(r4, true, true),
            "dpdk_trtcm_blind_1flow" => {
                let mut m = dpdk::TrTcm::start(&tr, 0);
                let mut b = move || dpdk::trtcm_burst_one(black_box(&tr), &s.lens, &mut m, &mut t);
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_c_call_trtcm_blind_1flow" => {
                // DPDK's call in a C function of its own, through the driver
                // loop of the ffi_c_call_* rows.
                let (f, mut m) = (dpdk::trtcm_c_call(), dpdk::TrTcm::start(&tr, 0));
                let mut b =
                    move || dpdk::burst_c_call(f, black_box(&tr), &s.lens, &mut m, &mut t) as u64;
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_c_call_srtcm_blind_1flow" => {
                let (f, mut m) = (dpdk::srtcm_c_call(), dpdk::SrTcm::start(&sr, 0));
                let mut b =
                    move || dpdk::burst_c_call(f, black_box(&sr), &s.lens, &mut m, &mut t) as u64;
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_srtcm_blind_1flow" => {
                let mut m = dpdk::SrTcm::start(&sr, 0);
                let mut b = move || dpdk::srtcm_burst_one(black_box(&sr), &s.lens, &mut m, &mut t);
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_trtcm_blind_65536" | "dpdk_trtcm_blind_65536_prefetched" => {
                let pre = name.ends_with("prefetched");
                let s: &'static _ = Box::leak(Box::new(s));
                let mut bursts = dpdk::Bursts::new(&s.lens, &s.flows, None, FLOWS as usize);
                let mut v = vec![dpdk::TrTcm::start(&tr, 0); FLOWS as usize];
                let mut b = move || {
                    let burst = bursts.next_burst();
                    if pre {
                        dpdk::trtcm_burst_many::<true>(black_box(&tr), &burst, &mut v, &mut t)
                    } else {
                        dpdk::trtcm_burst_many::<false>(black_box(&tr), &burst, &mut v, &mut t)
                    }
                };
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_srtcm_blind_65536" | "dpdk_srtcm_blind_65536_prefetched" => {
                let pre = name.ends_with("prefetched");
                let s: &'static _ = Box::leak(Box::new(s));
                let mut bursts = dpdk::Bursts::new(&s.lens, &s.flows, None, FLOWS as usize);
                let mut v = vec![dpdk::SrTcm::start(&sr, 0); FLOWS as usize];
                let mut b = move || {
                    let burst = bursts.next_burst();
                    if pre {
                        dpdk::srtcm_burst_many::<true>(black_box(&sr), &burst, &mut v, &mut t)
                    } else {
                        dpdk::srtcm_burst_many::<false>(black_box(&sr), &burst, &mut v, &mut t)
                    }
                };
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_million_trtcm_plain"
            | "dpdk_million_trtcm_prefetched"
            | "dpdk_million_srtcm_plain"
            | "dpdk_million_srtcm_prefetched" => {
                use netcond_benches::million::{FLOWS as M, PACKETS as P, TABLE};
                let pre = name.ends_with("prefetched");
                let m: &'static Million = Box::leak(Box::new(Million::new()));
                let bursts: Vec<dpdk::Burst<'static>> = (0..TABLE / P)
                    .map(|k| dpdk::Burst::new(&m.lens, m.flows_of(k), M as usize))
                    .collect();
                let n = bursts.len();
                let mut k = 0usize;
                let mut b: Box<dyn FnMut() -> u64> = if name.contains("trtcm") {
                    let mut v = vec![dpdk::TrTcm::start(&tr, 0); M as usize];
                    Box::new(move || {
                        k += 1;
                        if pre {
                            dpdk::trtcm_burst_many::<true>(
                                black_box(&tr),
                                &bursts[k % n],
                                &mut v,
                                &mut t,
                            )
                        } else {
                            dpdk::trtcm_burst_many::<false>(
                                black_box(&tr),
                                &bursts[k % n],
                                &mut v,
                                &mut t,
                            )
                        }
                    })
                } else {
                    let mut v = vec![dpdk::SrTcm::start(&sr, 0); M as usize];
                    Box::new(move || {
                        k += 1;
                        if pre {
                            dpdk::srtcm_burst_many::<true>(
                                black_box(&sr),
                                &bursts[k % n],
                                &mut v,
                                &mut t,
                            )
                        } else {
                            dpdk::srtcm_burst_many::<false>(
                                black_box(&sr),
                                &bursts[k % n],
                                &mut v,
                                &mut t,
                            )
                        }
                    })
                };
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            "dpdk_red_decision" => {
                let c = dpdk::RedConfig::new(9, 32, 128, 10).unwrap();
                let mut r = dpdk::RedState::new();
                let mut rng = dpdk::RedRandom::take().unwrap();
                rng.seed(1);
                let mut wave = Wave::new();
                let mut step = move || {
                    u64::from(dpdk::red_burst(
                        black_box(&c),
                        &mut r,
                        &mut t,
                        wave.step(),
                        &mut rng,
                    ))
                };
                step();
                Case(Box::new(move || (0..WAVE).map(|_| step()).sum()))
            }
            pie @ ("dpdk_pie_enqueue" | "dpdk_pie_enqueue_drawing") => {
                // rte_pie_enqueue on pie_enqueue's (or pie_enqueue_drawing's)
                // arrivals, at the drop probability netcond's PIE reached,
                // bounded to one as rte_pie bounds its own (pie_stream), with
                // DPDK's (and RFC 8033's) 15 ms target and update interval
                // and 150 ms burst allowance; a tail-drop threshold of 512
                // packets, so that the 100 queued are above the 10 % under
                // which rte_pie does not drop. On the drawing stream, the
                // accumulated probability is zeroed after each drop as Linux
                // does (`pie_burst_linux_reset`; rte_pie alone would stop
                // drawing once it passes 8.5: benches/dpdk/tests.rs).
                let drawing = pie == "dpdk_pie_enqueue_drawing";
                let prob = if drawing {
                    pie_stream::dpdk_drawing_prob()
                } else {
                    pie_stream::dpdk_prob()
                };
                let burst = if drawing {
                    dpdk::pie_burst_linux_reset
                } else {
                    dpdk::pie_burst
                };
                let c = dpdk::PieConfig::new(HZ, 15, 15, 150, 512);
                let mut rng = dpdk::PieRandom::take().unwrap();
                let now = 1000 * HZ;
                let mut st = dpdk::PieState::congested(&c, prob, now, &mut rng);
                let (lens, q) = (pie_stream::lens(), pie_stream::QUEUED);
                let mut b =
                    move || u64::from(burst(black_box(&c), &mut st, &lens, q, now, &mut rng));
                b();
                Case(Box::new(move || (0..REPS).map(|_| b()).sum()))
            }
            other => panic!("no case {other}"),
        }
    }
}

// Counted: the case's work. The case is handed back so that freeing its
// tables happens after the count.
#[library_benchmark]
#[bench::srtcm_blind_1flow_n16384(args = ("srtcm_blind_1flow"), setup = case)]
#[bench::srtcm_blind_65536_n16384(args = ("srtcm_blind_65536"), setup = case)]
#[bench::srtcm_blind_65536_prefetched_n16384(args = ("srtcm_blind_65536_prefetched"), setup = case)]
#[bench::srtcm_aware_1flow_n16384(args = ("srtcm_aware_1flow"), setup = case)]
#[bench::srtcm_aware_65536_n16384(args = ("srtcm_aware_65536"), setup = case)]
#[bench::srtcm_aware_65536_prefetched_n16384(args = ("srtcm_aware_65536_prefetched"), setup = case)]
#[bench::trtcm_blind_1flow_n16384(args = ("trtcm_blind_1flow"), setup = case)]
#[bench::trtcm_blind_65536_n16384(args = ("trtcm_blind_65536"), setup = case)]
#[bench::trtcm_blind_65536_prefetched_n16384(args = ("trtcm_blind_65536_prefetched"), setup = case)]
#[bench::trtcm_aware_1flow_n16384(args = ("trtcm_aware_1flow"), setup = case)]
#[bench::trtcm_aware_65536_n16384(args = ("trtcm_aware_65536"), setup = case)]
#[bench::trtcm_aware_65536_prefetched_n16384(args = ("trtcm_aware_65536_prefetched"), setup = case)]
#[bench::rfc4115_blind_1flow_n16384(args = ("rfc4115_blind_1flow"), setup = case)]
#[bench::rfc4115_blind_65536_n16384(args = ("rfc4115_blind_65536"), setup = case)]
#[bench::rfc4115_blind_65536_prefetched_n16384(args = ("rfc4115_blind_65536_prefetched"), setup = case)]
#[bench::rfc4115_aware_1flow_n16384(args = ("rfc4115_aware_1flow"), setup = case)]
#[bench::rfc4115_aware_65536_n16384(args = ("rfc4115_aware_65536"), setup = case)]
#[bench::rfc4115_aware_65536_prefetched_n16384(args = ("rfc4115_aware_65536_prefetched"), setup = case)]
#[bench::compact_srtcm_65536_n16384(args = ("compact_srtcm_65536"), setup = case)]
#[bench::compact_srtcm_65536_prefetched_n16384(args = ("compact_srtcm_65536_prefetched"), setup = case)]
#[bench::compact_trtcm_65536_n16384(args = ("compact_trtcm_65536"), setup = case)]
#[bench::compact_trtcm_65536_prefetched_n16384(args = ("compact_trtcm_65536_prefetched"), setup = case)]
#[bench::compact_rfc4115_65536_n16384(args = ("compact_rfc4115_65536"), setup = case)]
#[bench::compact_rfc4115_65536_prefetched_n16384(args = ("compact_rfc4115_65536_prefetched"), setup = case)]
#[bench::division_1flow_n16384(args = ("division_1flow"), setup = case)]
#[bench::division_65536_n16384(args = ("division_65536"), setup = case)]
#[bench::division_65536_prefetched_n16384(args = ("division_65536_prefetched"), setup = case)]
#[bench::branch_free_srtcm_blind_1flow_n16384(args = ("branch_free_srtcm_blind_1flow"), setup = case)]
#[bench::branch_free_srtcm_aware_1flow_n16384(args = ("branch_free_srtcm_aware_1flow"), setup = case)]
#[bench::branch_free_srtcm_blind_65536_n16384(args = ("branch_free_srtcm_blind_65536"), setup = case)]
#[bench::branch_free_srtcm_blind_65536_prefetched_n16384(args = ("branch_free_srtcm_blind_65536_prefetched"), setup = case)]
#[bench::million_branch_free_srtcm_prefetched_n16384(args = ("million_branch_free_srtcm_prefetched"), setup = case)]
#[bench::harness_floor_1flow_n16384(args = ("harness_floor_1flow"), setup = case)]
#[bench::harness_floor_65536_n16384(args = ("harness_floor_65536"), setup = case)]
#[bench::harness_floor_65536_prefetched_n16384(args = ("harness_floor_65536_prefetched"), setup = case)]
#[bench::policer_offer_n16384(args = ("policer_offer"), setup = case)]
#[bench::policer_offer_counted_n16384(args = ("policer_offer_counted"), setup = case)]
#[bench::policer_offer_packets_n16384(args = ("policer_offer_packets"), setup = case)]
#[bench::srtcm_blind_1flow_counted_n16384(args = ("srtcm_blind_1flow_counted"), setup = case)]
#[bench::srtcm_aware_1flow_counted_n16384(args = ("srtcm_aware_1flow_counted"), setup = case)]
#[bench::trtcm_blind_1flow_counted_n16384(args = ("trtcm_blind_1flow_counted"), setup = case)]
#[bench::trtcm_aware_1flow_counted_n16384(args = ("trtcm_aware_1flow_counted"), setup = case)]
#[bench::rfc4115_blind_1flow_counted_n16384(args = ("rfc4115_blind_1flow_counted"), setup = case)]
#[bench::rfc4115_aware_1flow_counted_n16384(args = ("rfc4115_aware_1flow_counted"), setup = case)]
#[bench::srtcm_blind_1flow_packets_n16384(args = ("srtcm_blind_1flow_packets"), setup = case)]
#[bench::srtcm_aware_1flow_packets_n16384(args = ("srtcm_aware_1flow_packets"), setup = case)]
#[bench::trtcm_blind_1flow_packets_n16384(args = ("trtcm_blind_1flow_packets"), setup = case)]
#[bench::trtcm_aware_1flow_packets_n16384(args = ("trtcm_aware_1flow_packets"), setup = case)]
#[bench::rfc4115_blind_1flow_packets_n16384(args = ("rfc4115_blind_1flow_packets"), setup = case)]
#[bench::rfc4115_aware_1flow_packets_n16384(args = ("rfc4115_aware_1flow_packets"), setup = case)]
#[bench::million_trtcm_plain_n16384(args = ("million_trtcm_plain"), setup = case)]
#[bench::million_trtcm_prefetched_n16384(args = ("million_trtcm_prefetched"), setup = case)]
#[bench::million_trtcm_burst_n16384(args = ("million_trtcm_burst"), setup = case)]
#[bench::million_srtcm_plain_n16384(args = ("million_srtcm_plain"), setup = case)]
#[bench::million_srtcm_prefetched_n16384(args = ("million_srtcm_prefetched"), setup = case)]
#[bench::million_srtcm_burst_n16384(args = ("million_srtcm_burst"), setup = case)]
#[bench::million_srtcm_compact_prefetched_n16384(args = ("million_srtcm_compact_prefetched"), setup = case)]
#[bench::million_trtcm_compact_prefetched_n16384(args = ("million_trtcm_compact_prefetched"), setup = case)]
#[bench::million_node_3sm_plain_n16384(args = ("million_node_3sm_plain"), setup = case)]
#[bench::million_node_3sm_prefetched_n16384(args = ("million_node_3sm_prefetched"), setup = case)]
#[bench::million_node_3sm_burst_n16384(args = ("million_node_3sm_burst"), setup = case)]
#[bench::pcn_et_tail_1link_n16384(args = ("pcn_et_tail_1link"), setup = case)]
#[bench::pcn_et_tail_65536_n16384(args = ("pcn_et_tail_65536"), setup = case)]
#[bench::pcn_et_size_independent_1link_n16384(args = ("pcn_et_size_independent_1link"), setup = case)]
#[bench::pcn_et_size_independent_65536_n16384(args = ("pcn_et_size_independent_65536"), setup = case)]
#[bench::pcn_et_sim48_1link_n16384(args = ("pcn_et_sim48_1link"), setup = case)]
#[bench::pcn_et_sim48_65536_n16384(args = ("pcn_et_sim48_65536"), setup = case)]
#[bench::pcn_as_explicit_marking_1link_n16384(args = ("pcn_as_explicit_marking_1link"), setup = case)]
#[bench::pcn_as_explicit_marking_65536_n16384(args = ("pcn_as_explicit_marking_65536"), setup = case)]
#[bench::pcn_as_3sm01_1link_n16384(args = ("pcn_as_3sm01_1link"), setup = case)]
#[bench::pcn_as_3sm01_65536_n16384(args = ("pcn_as_3sm01_65536"), setup = case)]
#[bench::pcn_rfc5670_threshold_1link_n16384(args = ("pcn_rfc5670_threshold_1link"), setup = case)]
#[bench::pcn_rfc5670_threshold_65536_n16384(args = ("pcn_rfc5670_threshold_65536"), setup = case)]
#[bench::pcn_rfc5670_excess_size_independent_1link_n16384(args = ("pcn_rfc5670_excess_size_independent_1link"), setup = case)]
#[bench::pcn_rfc5670_excess_size_independent_65536_n16384(args = ("pcn_rfc5670_excess_size_independent_65536"), setup = case)]
#[bench::pcn_rfc5670_excess_classic_1link_n16384(args = ("pcn_rfc5670_excess_classic_1link"), setup = case)]
#[bench::pcn_rfc5670_excess_classic_65536_n16384(args = ("pcn_rfc5670_excess_classic_65536"), setup = case)]
#[bench::pcn_node_3sm_1link_n16384(args = ("pcn_node_3sm_1link"), setup = case)]
#[bench::pcn_node_3sm_65536_n16384(args = ("pcn_node_3sm_65536"), setup = case)]
#[bench::pcn_node_3sm_65536_prefetched_n16384(args = ("pcn_node_3sm_65536_prefetched"), setup = case)]
#[bench::pcn_node_rfc5670_1link_n16384(args = ("pcn_node_rfc5670_1link"), setup = case)]
#[bench::pcn_node_rfc5670_65536_n16384(args = ("pcn_node_rfc5670_65536"), setup = case)]
#[bench::pcn_node_3sm_then_red_n16384(args = ("pcn_node_3sm_then_red"), setup = case)]
#[bench::red_decision_n245760(args = ("red_decision"), setup = case)]
#[bench::red_decision_ecn_n245760(args = ("red_decision_ecn"), setup = case)]
#[bench::red_decision_uniform_n245760(args = ("red_decision_uniform"), setup = case)]
#[bench::red_decision_dpdk_law_n245760(args = ("red_decision_dpdk_law"), setup = case)]
#[bench::red_decision_dpdk_spreading_n245760(args = ("red_decision_dpdk_spreading"), setup = case)]
#[bench::rio_wred_n245760(args = ("rio_wred"), setup = case)]
#[bench::rio_c_n245760(args = ("rio_c"), setup = case)]
#[bench::aecn_pair_n245760(args = ("aecn_pair"), setup = case)]
#[bench::ear_update_n16384(args = ("ear_update"), setup = case)]
#[bench::ear_update_back_to_back_n16384(args = ("ear_update_back_to_back"), setup = case)]
#[bench::srras_idle_n16384(args = ("srras_idle"), setup = case)]
#[bench::srras_backlog_n16384(args = ("srras_backlog"), setup = case)]
#[bench::trras_idle_n16384(args = ("trras_idle"), setup = case)]
#[bench::trras_backlog_n16384(args = ("trras_backlog"), setup = case)]
#[bench::tbf_idle_n16384(args = ("tbf_idle"), setup = case)]
#[bench::tbf_backlog_n16384(args = ("tbf_backlog"), setup = case)]
#[bench::tbf_peak_backlog_n16384(args = ("tbf_peak_backlog"), setup = case)]
#[bench::g_srras_idle_n16384(args = ("g_srras_idle"), setup = case)]
#[bench::g_srras_backlog_n16384(args = ("g_srras_backlog"), setup = case)]
#[bench::g_trras_idle_n16384(args = ("g_trras_idle"), setup = case)]
#[bench::g_trras_backlog_n16384(args = ("g_trras_backlog"), setup = case)]
#[bench::rbcc_on_data_16_n16384(args = ("rbcc_on_data_16"), setup = case)]
#[bench::rbcc_on_data_1024_n16384(args = ("rbcc_on_data_1024"), setup = case)]
#[bench::rbcc_on_data_only_1024_n16384(args = ("rbcc_on_data_only_1024"), setup = case)]
#[bench::rcp_on_data_n16384(args = ("rcp_on_data"), setup = case)]
#[bench::codel_dequeue_n16384(args = ("codel_dequeue"), setup = case)]
#[bench::codel_dequeue_exact_n16384(args = ("codel_dequeue_exact"), setup = case)]
#[bench::fq_codel_pair_n16384(args = ("fq_codel_pair"), setup = case)]
#[bench::pie_enqueue_n16384(args = ("pie_enqueue"), setup = case)]
#[bench::pie_enqueue_drawing_n16384(args = ("pie_enqueue_drawing"), setup = case)]
#[bench::dualpi2_packet_n16384(args = ("dualpi2_packet"), setup = case)]
#[bench::rbcc_recompute_16_n16(args = ("rbcc_recompute_16"), setup = case)]
#[bench::rbcc_recompute_256_n16(args = ("rbcc_recompute_256"), setup = case)]
#[bench::rbcc_recompute_1024_n16(args = ("rbcc_recompute_1024"), setup = case)]
#[bench::ffi_rust_call_trtcm_blind_1flow_n16384(args = ("ffi_rust_call_trtcm_blind_1flow"), setup = case)]
#[bench::ffi_c_call_trtcm_blind_1flow_n16384(args = ("ffi_c_call_trtcm_blind_1flow"), setup = case)]
#[bench::ffi_c_bulk_trtcm_blind_1flow_n16384(args = ("ffi_c_bulk_trtcm_blind_1flow"), setup = case)]
#[bench::ffi_rust_call_srtcm_blind_1flow_n16384(args = ("ffi_rust_call_srtcm_blind_1flow"), setup = case)]
#[bench::ffi_c_call_srtcm_blind_1flow_n16384(args = ("ffi_c_call_srtcm_blind_1flow"), setup = case)]
fn netcond_ops(mut c: Case) -> (u64, Case) {
    let r = (c.0)();
    (r, c)
}

#[cfg(feature = "dpdk")]
#[library_benchmark]
#[bench::dpdk_trtcm_blind_1flow_n16384(args = ("dpdk_trtcm_blind_1flow"), setup = case)]
#[bench::dpdk_srtcm_blind_1flow_n16384(args = ("dpdk_srtcm_blind_1flow"), setup = case)]
#[bench::dpdk_trtcm_blind_65536_n16384(args = ("dpdk_trtcm_blind_65536"), setup = case)]
#[bench::dpdk_trtcm_blind_65536_prefetched_n16384(args = ("dpdk_trtcm_blind_65536_prefetched"), setup = case)]
#[bench::dpdk_srtcm_blind_65536_n16384(args = ("dpdk_srtcm_blind_65536"), setup = case)]
#[bench::dpdk_srtcm_blind_65536_prefetched_n16384(args = ("dpdk_srtcm_blind_65536_prefetched"), setup = case)]
#[bench::dpdk_million_trtcm_plain_n16384(args = ("dpdk_million_trtcm_plain"), setup = case)]
#[bench::dpdk_million_trtcm_prefetched_n16384(args = ("dpdk_million_trtcm_prefetched"), setup = case)]
#[bench::dpdk_million_srtcm_plain_n16384(args = ("dpdk_million_srtcm_plain"), setup = case)]
#[bench::dpdk_million_srtcm_prefetched_n16384(args = ("dpdk_million_srtcm_prefetched"), setup = case)]
#[bench::dpdk_red_decision_n245760(args = ("dpdk_red_decision"), setup = case)]
#[bench::dpdk_pie_enqueue_n16384(args = ("dpdk_pie_enqueue"), setup = case)]
#[bench::dpdk_pie_enqueue_drawing_n16384(args = ("dpdk_pie_enqueue_drawing"), setup = case)]
#[bench::dpdk_c_call_trtcm_blind_1flow_n16384(args = ("dpdk_c_call_trtcm_blind_1flow"), setup = case)]
#[bench::dpdk_c_call_srtcm_blind_1flow_n16384(args = ("dpdk_c_call_srtcm_blind_1flow"), setup = case)]
#[bench::dpdk_srtcm_aware_1flow_n16384(args = ("dpdk_srtcm_aware_1flow"), setup = case)]
#[bench::dpdk_srtcm_aware_65536_n16384(args = ("dpdk_srtcm_aware_65536"), setup = case)]
#[bench::dpdk_srtcm_aware_65536_prefetched_n16384(args = ("dpdk_srtcm_aware_65536_prefetched"), setup = case)]
#[bench::dpdk_trtcm_aware_1flow_n16384(args = ("dpdk_trtcm_aware_1flow"), setup = case)]
#[bench::dpdk_trtcm_aware_65536_n16384(args = ("dpdk_trtcm_aware_65536"), setup = case)]
#[bench::dpdk_trtcm_aware_65536_prefetched_n16384(args = ("dpdk_trtcm_aware_65536_prefetched"), setup = case)]
#[bench::dpdk_rfc4115_blind_1flow_n16384(args = ("dpdk_rfc4115_blind_1flow"), setup = case)]
#[bench::dpdk_rfc4115_blind_65536_n16384(args = ("dpdk_rfc4115_blind_65536"), setup = case)]
#[bench::dpdk_rfc4115_blind_65536_prefetched_n16384(args = ("dpdk_rfc4115_blind_65536_prefetched"), setup = case)]
#[bench::dpdk_rfc4115_aware_1flow_n16384(args = ("dpdk_rfc4115_aware_1flow"), setup = case)]
#[bench::dpdk_rfc4115_aware_65536_n16384(args = ("dpdk_rfc4115_aware_65536"), setup = case)]
#[bench::dpdk_rfc4115_aware_65536_prefetched_n16384(args = ("dpdk_rfc4115_aware_65536_prefetched"), setup = case)]
fn dpdk_ops(mut c: Case) -> (u64, Case) {
    let r = (c.0)();
    (r, c)
}

fn config() -> LibraryBenchmarkConfig {
    let mut c = LibraryBenchmarkConfig::default();
    c.tool(
        Callgrind::with_args([
            "--cache-sim=yes",
            "--I1=32768,8,64",
            "--D1=32768,8,64",
            "--LL=8388608,16,64",
        ])
        .format([CallgrindMetrics::All]),
    );
    c
}

#[cfg(not(feature = "dpdk"))]
library_benchmark_group!(name = per_packet, benchmarks = [netcond_ops]);
#[cfg(feature = "dpdk")]
library_benchmark_group!(name = per_packet, benchmarks = [netcond_ops, dpdk_ops]);

main!(config = config(), library_benchmark_groups = per_packet);

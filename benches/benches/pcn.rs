//! Per-packet cost of the PCN meters and markers and of the combined node marker.
//!
//! Stream: lengths 64/576/1518 in 4:3:1 from a 4096-entry table, arrivals
//! `BENCH_TICKS_PER_PACKET` ticks of a 2.3 GHz clock apart (about 80 MB/s
//! offered). The excess stages run at 60 MB/s (SR, PCN-excess-rate) and the
//! threshold stages at 50 MB/s (AR, PCN-threshold-rate), so both mark part of
//! the stream. Arriving states: 14 of 16 NM, 1 ThM, 1 ETM. One link (the state
//! stays in registers), or 65,536 links sharing one profile with each packet sent
//! to a pseudo-random one. Each criterion iteration marks 4096 packets;
//! throughput is per packet.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use netcond::core::{Instant, Rate, TickRate};
use netcond::pcn::{
    AsForm, AsMarker, AsMarkerConfig, AsMarkerProfile, ClassicTie, EtMarker, EtMarkerConfig,
    EtMarkerProfile, EtMarkerSim48, EtMarkerSim48Config, EtMarkerSim48Profile, EtMarking,
    ExcessMode, ExcessTrafficMeter, ExcessTrafficMeterConfig, ExcessTrafficMeterProfile, Node3sm,
    NodeProfile, NodeRfc5670, PcnMark, PcnMeter, ThresholdMeter, ThresholdMeterConfig,
    ThresholdMeterProfile,
};
use netcond_benches::{flow_indices, imix_lengths, BENCH_TICKS_PER_PACKET};

const PACKETS: usize = 4096;
const LINKS: u32 = 65_536;

fn tick() -> TickRate {
    TickRate::from_hz(2_300_000_000).unwrap()
}

fn sr() -> Rate {
    Rate::from_bytes_per_sec(60_000_000)
}

fn ar() -> Rate {
    Rate::from_bytes_per_sec(50_000_000)
}

struct Stream {
    lens: Vec<u32>,
    marks: Vec<PcnMark>,
    links: Vec<u32>,
}

fn stream() -> Stream {
    let marks = flow_indices(PACKETS, 16, 2)
        .into_iter()
        .map(|m| match m {
            0 => PcnMark::Thm,
            1 => PcnMark::Etm,
            _ => PcnMark::Nm,
        })
        .collect();
    Stream {
        lens: imix_lengths(PACKETS, 1),
        marks,
        links: flow_indices(PACKETS, LINKS, 3),
    }
}

/// One burst of packets through one link's meter, its state and clock in
/// locals for the burst. Not inlined, with the profile as a `&` argument, as in
/// a router's per-burst function (the caller passes it through `black_box`, so
/// its constants cannot be folded).
#[inline(never)]
fn burst_one<M: PcnMeter>(p: &M::Profile, s: &Stream, m: &mut M, t: &mut u64) -> u32 {
    let (mut mm, mut tt) = (*m, *t);
    let mut acc = 0u32;
    for (&len, &mark) in s.lens.iter().zip(&s.marks) {
        tt += BENCH_TICKS_PER_PACKET;
        acc += u32::from(mm.mark(p, Instant::from_ticks(tt), len, mark).ecn());
    }
    (*m, *t) = (mm, tt);
    acc
}

/// One burst over many links: each packet updates the meter its index names.
#[inline(never)]
fn burst_many<M: PcnMeter>(p: &M::Profile, s: &Stream, links: &mut [M], t: &mut u64) -> u32 {
    let mut tt = *t;
    let mut acc = 0u32;
    for ((&len, &mark), &l) in s.lens.iter().zip(&s.marks).zip(&s.links) {
        tt += BENCH_TICKS_PER_PACKET;
        let m = &mut links[l as usize];
        acc += u32::from(m.mark(p, Instant::from_ticks(tt), len, mark).ecn());
    }
    *t = tt;
    acc
}

fn bench<M: PcnMeter>(c: &mut Criterion, name: &str, profile: &M::Profile, s: &Stream) {
    let mut g = c.benchmark_group(format!("pcn/{name}"));
    g.throughput(Throughput::Elements(PACKETS as u64));

    let mut m = M::start(profile, Instant::ZERO);
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("mark", "1 link"), |b| {
        b.iter(|| black_box(burst_one::<M>(black_box(profile), s, &mut m, &mut t)))
    });

    let mut links = vec![M::start(profile, Instant::ZERO); LINKS as usize];
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("mark", "65536 links"), |b| {
        b.iter(|| black_box(burst_many::<M>(black_box(profile), s, &mut links, &mut t)))
    });
    g.finish();
}

fn et_marker(marking: EtMarking) -> EtMarkerProfile {
    EtMarkerProfile::new(&EtMarkerConfig {
        sr: sr(),
        bucket_size: 50_000,
        s: 1064,
        already_et_adds_s: true,
        marking,
        tick: tick(),
    })
    .unwrap()
}

fn as_marker(form: AsForm) -> AsMarkerProfile {
    AsMarkerProfile::new(&AsMarkerConfig {
        ar: ar(),
        bucket_size: 20_000,
        threshold: 10_000,
        form,
        tick: tick(),
    })
    .unwrap()
}

fn excess(mode: ExcessMode) -> ExcessTrafficMeterProfile {
    ExcessTrafficMeterProfile::new(&ExcessTrafficMeterConfig {
        excess_rate: sr(),
        bs_etm: 50_000,
        mode,
        tick: tick(),
    })
    .unwrap()
}

fn threshold() -> ThresholdMeterProfile {
    ThresholdMeterProfile::new(&ThresholdMeterConfig {
        threshold_rate: ar(),
        bs_tm: 20_000,
        threshold: 10_000,
        tick: tick(),
    })
    .unwrap()
}

fn markers(c: &mut Criterion) {
    let s = stream();
    bench::<EtMarker>(c, "et_marker_tail", &et_marker(EtMarking::TailMarking), &s);
    bench::<EtMarker>(
        c,
        "et_marker_size_independent",
        &et_marker(EtMarking::SizeIndependent { mtu: 1518 }),
        &s,
    );
    let sim = EtMarkerSim48Profile::new(&EtMarkerSim48Config {
        pcn_pt: sr(),
        pcn_tb: 50_000,
        pcn_px: 2064,
        tick: tick(),
    })
    .unwrap();
    bench::<EtMarkerSim48>(c, "et_marker_sim48", &sim, &s);
    bench::<AsMarker>(c, "as_marker_seed000", &as_marker(AsForm::Seed000), &s);
    bench::<AsMarker>(c, "as_marker_3sm01", &as_marker(AsForm::Draft3sm01), &s);
    bench::<ThresholdMeter>(c, "rfc5670_threshold", &threshold(), &s);
    bench::<ExcessTrafficMeter>(
        c,
        "rfc5670_excess_size_independent",
        &excess(ExcessMode::SizeIndependent),
        &s,
    );
    bench::<ExcessTrafficMeter>(
        c,
        "rfc5670_excess_classic",
        &excess(ExcessMode::Classic(ClassicTie::Section2_4)),
        &s,
    );
}

fn nodes(c: &mut Criterion) {
    let s = stream();
    let n3 = NodeProfile {
        excess: et_marker(EtMarking::TailMarking),
        threshold: as_marker(AsForm::Seed000),
    };
    bench::<Node3sm>(c, "node_3sm", &n3, &s);
    let nr = NodeProfile {
        excess: excess(ExcessMode::SizeIndependent),
        threshold: threshold(),
    };
    bench::<NodeRfc5670>(c, "node_rfc5670", &nr, &s);
}

/// The machine's state before and after this binary's benches
/// (`netcond_benches::machine`): two lines per run in the table.
fn machine_start(c: &mut Criterion) {
    netcond_benches::machine::bench(c, "pcn/start");
}

fn machine_end(c: &mut Criterion) {
    netcond_benches::machine::bench(c, "pcn/end");
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = machine_start, markers, nodes, machine_end
}
criterion_main!(benches);

//! Per-packet cost of the PCN meters and markers and of the combined node marker.
//!
//! Stream: lengths 64/576/1518 in 4:3:1 from a 4096-entry table, arrivals
//! `BENCH_TICKS_PER_PACKET` ticks of a 2.3 GHz clock apart (about 80 MB/s
//! offered). The excess stages run at 60 MB/s (SR, PCN-excess-rate) and the
//! threshold stages at 50 MB/s (AR, PCN-threshold-rate), so both mark part of
//! the stream. Arriving states: 14 of 16 NM, 1 ThM, 1 ETM. One link (the state
//! stays in registers), or 65,536 links sharing one profile with each packet sent
//! to a pseudo-random one (for the 3sM node marker also with the caller
//! prefetching each link's state eight packets ahead). Each criterion
//! iteration marks 4096 packets; throughput is per packet.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use netcond::base::Instant;
use netcond::pcn::{
    AsForm, AsMarker, ClassicTie, EtMarker, EtMarkerSim48, EtMarkerSim48Config,
    EtMarkerSim48Profile, EtMarking, ExcessMode, ExcessTrafficMeter, Node3sm, NodeProfile,
    NodeRfc5670, PcnMeter, ThresholdMeter,
};
use netcond_benches::pcn_stream::{
    as_marker, burst_many, burst_one, et_marker, excess, sr, stream, threshold, tick, Stream,
    LINKS, PACKETS,
};

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
        b.iter(|| {
            black_box(burst_many::<M, false>(
                black_box(profile),
                s,
                &mut links,
                &mut t,
            ))
        })
    });
    g.finish();
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
    let sim =
        EtMarkerSim48Profile::new(&EtMarkerSim48Config::new(sr(), 50_000, 2064).with_tick(tick()))
            .unwrap();
    bench::<EtMarkerSim48>(c, "et_marker_sim48", &sim, &s);
    bench::<AsMarker>(
        c,
        "as_marker_explicit_marking",
        &as_marker(AsForm::DraftExplicitMarking01),
        &s,
    );
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
        threshold: as_marker(AsForm::DraftExplicitMarking01),
    };
    bench::<Node3sm>(c, "node_3sm", &n3, &s);
    // The node marker over 65,536 links with the caller prefetching each
    // link's state eight packets ahead, as the prefetched meter benches
    // (benches/trtcm.rs) and DPDK's loops do.
    let mut g = c.benchmark_group("pcn/node_3sm");
    g.throughput(Throughput::Elements(PACKETS as u64));
    let mut links = vec![Node3sm::new(&n3, Instant::ZERO); LINKS as usize];
    let mut t = 0u64;
    g.bench_function(BenchmarkId::new("mark", "65536 links prefetched"), |b| {
        b.iter(|| {
            black_box(burst_many::<Node3sm, true>(
                black_box(&n3),
                &s,
                &mut links,
                &mut t,
            ))
        })
    });
    g.finish();
    let nr = NodeProfile {
        excess: excess(ExcessMode::SizeIndependent),
        threshold: threshold(),
    };
    bench::<NodeRfc5670>(c, "node_rfc5670", &nr, &s);
}

// 500 short samples rather than 100 long ones: on a shared machine a sample
// that spans a preemption is an outlier the median ignores (docs/performance.md).
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(500);
    targets = markers, nodes
}
criterion_main!(benches);

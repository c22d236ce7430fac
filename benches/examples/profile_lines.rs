//! Which 64-byte lines of each profile the per-packet calls read, on the
//! bench streams. Run it under valgrind's lackey, which prints every memory
//! access, and let `perf.py lines` count the lines:
//!
//! ```sh
//! cargo build --release --manifest-path benches/Cargo.toml --example profile_lines
//! valgrind --tool=lackey --trace-mem=yes benches/target/release/examples/profile_lines 2>&1 \
//!     | python3 benches/tools/perf.py lines
//! ```
//!
//! Each profile is copied into a box aligned to 64 bytes (its best case: a
//! profile that is not aligned can straddle one more line), its address range
//! is printed to stderr (where lackey writes its trace), and then 4096 packets of the bench stream run
//! through it. The profile is only written before its range is printed, so
//! every load lackey reports inside the range is a read by the packet path.
use std::hint::black_box;
use std::io::Write;

use netcond::base::{Instant, SplitMix64};
use netcond::pcn::{Node3sm, PcnMeter};
use netcond::red::{Packet, Red, Rio, RioMode, Spreading};
use netcond::trtcm::{
    Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, ThreeColorMarker,
    TrTcm, TrTcmConfig, TrTcmProfile,
};
use netcond_benches::meter_stream::{stream, tick};
use netcond_benches::pcn_stream;
use netcond_benches::red_stream::{red_profile, rio_colors, rio_profile, rio_split, Wave, TICKS};

/// A value on its own 64-byte line.
#[repr(align(64))]
struct Line<T>(T);

fn announce<T>(name: &str, b: &Line<T>) {
    let a = std::ptr::from_ref(&b.0) as usize;
    // One write, so that the line is not split by lackey's own lines.
    let line = format!("profile-range {a:x} {} {name}\n", core::mem::size_of::<T>());
    std::io::stderr()
        .write_all(line.as_bytes())
        .expect("stderr is writable");
}

fn meter<M: ThreeColorMarker>(name: &str, p: M::Profile) {
    let s = stream();
    let b = Box::new(Line(p));
    announce(name, &b);
    let mut m = M::start(&b.0, Instant::ZERO);
    let mut t = 0u64;
    let mut acc = 0;
    for (&len, &c) in s.lens.iter().zip(&s.colors) {
        t += netcond_benches::BENCH_TICKS_PER_PACKET;
        acc += m
            .color_blind(black_box(&b.0), Instant::from_ticks(t), len)
            .index();
        acc += m
            .color_aware(black_box(&b.0), Instant::from_ticks(t), len, c)
            .index();
    }
    black_box(acc);
}

fn main() {
    meter::<TrTcm>(
        "trTCM",
        TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick())).unwrap(),
    );
    meter::<SrTcm>(
        "srTCM",
        SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick())).unwrap(),
    );
    meter::<Rfc4115>(
        "RFC 4115",
        Rfc4115Profile::new(&Rfc4115Config::default().with_tick(tick())).unwrap(),
    );

    let s = pcn_stream::stream();
    let b = Box::new(Line(pcn_stream::node_3sm()));
    announce("3sM node marker", &b);
    let mut n = Node3sm::new(&b.0, Instant::ZERO);
    let mut t = 0u64;
    for (&len, &mark) in s.lens.iter().zip(&s.marks) {
        t += netcond_benches::BENCH_TICKS_PER_PACKET;
        black_box(n.mark(black_box(&b.0), Instant::from_ticks(t), len, mark));
    }

    // RED and RIO over one period of the bench's queue wave, 16 packets a step.
    for (name, spreading) in [
        ("RED (FJ93's law)", Spreading::Accumulated),
        ("RED (DPDK's law)", Spreading::AccumulatedDpdk),
    ] {
        let b = Box::new(Line(red_profile(false, spreading)));
        announce(name, &b);
        let (mut red, mut rng, mut wave, mut t) = (
            Red::new(&b.0, Instant::ZERO),
            SplitMix64::new(1),
            Wave::new(),
            0,
        );
        for _ in 0..240 {
            let q = wave.step();
            for _ in 0..16 {
                t += TICKS;
                let d = red.on_arrival(
                    &b.0,
                    Instant::from_ticks(t),
                    black_box(q),
                    Packet::not_ect(1500),
                    &mut rng,
                );
                black_box(d);
            }
        }
    }
    let b = Box::new(Line(rio_profile(RioMode::Coupled)));
    announce("RIO-C", &b);
    let colors = rio_colors();
    let (mut rio, mut rng, mut wave, mut t) = (
        Rio::new(&b.0, Instant::ZERO),
        SplitMix64::new(1),
        Wave::new(),
        0,
    );
    for _ in 0..240 {
        let split = rio_split(wave.step());
        for &c in &colors[..16] {
            t += TICKS;
            let d = rio.on_arrival(
                &b.0,
                Instant::from_ticks(t),
                black_box(split),
                c,
                Packet::not_ect(1500),
                &mut rng,
            );
            black_box(d);
        }
    }
}

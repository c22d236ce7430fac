//! How the meters' per-packet cost depends on the integer units this thread
//! gets: `cargo run --release -p netcond-benches --example contention --
//! [SECONDS] [--csv FILE] [--svg FILE]`.
//!
//! It alternates, in rounds of about 2 ms, a reading of the machine
//! (`netcond_benches::machine`: the clock, and the additions per cycle this
//! thread got) with bursts of the bench streams: a trTCM with one flow, an
//! srTCM over 65,536 flows (prefetched), RED's enqueue decision, RIO-C, the
//! green shapers' enqueue + dequeue pairs (idle and with a backlog), the
//! division-based trTCM with one flow, and RED's decision with DPDK's drop
//! law (`Spreading::AccumulatedDpdk`) on the same wave. Each round's figures
//! are medians of eight bursts. At the end the
//! rounds are grouped by the additions per cycle seen just before them, so that
//! a shared host's two speeds show as two rows rather than as one noisy median.
//! Pin it to one CPU (`taskset -c 0`) so that the reading and the bursts run on
//! the same core.
//!
//! With `--features dpdk` (DPDK's headers and libraries installed; see
//! `benches/benches/dpdk.rs`) each round also runs DPDK 22.11's own
//! `rte_meter_trtcm_color_blind_check` with one flow,
//! `rte_meter_srtcm_color_blind_check` over 65,536 flows (prefetched) and
//! `rte_red_enqueue` on the same streams, as three more columns binned by the
//! same readings.
use std::hint::black_box;
use std::io::Write;
use std::time::Instant as Clock;

use netcond::core::{Instant, SplitMix64};
use netcond::red::{Packet, Red, Rio, RioMode, Spreading};
use netcond::trtcm::{
    SrTcm, SrTcmConfig, SrTcmProfile, ThreeColorMarker, TrTcm, TrTcmConfig, TrTcmProfile,
};
use netcond_benches::division_baseline;
use netcond_benches::machine::{dependent_adds, independent_adds, ADDS_PER_ITER};
use netcond_benches::meter_stream::{burst_many, burst_one, stream, tick, FLOWS, PACKETS};
use netcond_benches::ras_stream::{
    sr_profile, srtcm, tr_profile, trtcm, GreenBench, GreenBurst, PACKETS as RAS_PACKETS,
};
use netcond_benches::red_stream::{
    red_burst, red_profile, rio_burst, rio_colors, rio_profile, rio_split, Wave, STEP,
};

/// Bursts (and probe readings) per round.
const PER_ROUND: usize = 8;
/// Probe iterations per reading (32 additions each).
const PROBE_ITERS: u64 = 1024;

/// One round: the reading, then each bench's median ns per packet.
struct Round {
    ghz: f64,
    adds_per_cycle: f64,
    ns: [f64; K],
}

/// The benches, in the order of the columns: netcond's nine, then DPDK's.
const K: usize = BASE + DPDK_K;
/// netcond's columns.
const BASE: usize = 10;
#[cfg(not(feature = "dpdk"))]
const DPDK_K: usize = 0;
#[cfg(feature = "dpdk")]
const DPDK_K: usize = 3;
#[cfg(not(feature = "dpdk"))]
const DPDK_NAMES: [&str; DPDK_K] = [];
#[cfg(feature = "dpdk")]
const DPDK_NAMES: [&str; DPDK_K] = [
    "DPDK trTCM 1 flow",
    "DPDK srTCM 65,536 flows prefetched",
    "DPDK RED decision",
];
const NAMES: [&str; K] = columns(BASE_NAMES, DPDK_NAMES);
const TARGETS: [Option<f64>; K] = columns(BASE_TARGETS, [None; DPDK_K]);

/// `a` then `b`.
const fn columns<T: Copy>(a: [T; BASE], b: [T; DPDK_K]) -> [T; K] {
    let mut out = [a[0]; K];
    let mut i = 0;
    while i < K {
        out[i] = if i < BASE { a[i] } else { b[i - BASE] };
        i += 1;
    }
    out
}

const BASE_NAMES: [&str; BASE] = [
    "trTCM 1 flow",
    "srTCM 65,536 flows prefetched",
    "RED decision",
    "RIO-C",
    "G-srRAS idle",
    "G-srRAS backlog",
    "G-trRAS idle",
    "G-trRAS backlog",
    "division trTCM 1 flow",
    "RED decision, DPDK's law",
];
/// Their targets (ns per packet or pair), where they have one.
const BASE_TARGETS: [Option<f64>; BASE] = [
    Some(3.5),
    Some(5.0),
    Some(2.5),
    Some(5.0),
    Some(25.0),
    Some(25.0),
    Some(25.0),
    Some(25.0),
    None,
    None,
];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Nanoseconds per unit of `f`, which does `units` of work.
fn timed(units: f64, f: impl FnOnce() -> u64) -> f64 {
    let t = Clock::now();
    black_box(f());
    t.elapsed().as_nanos() as f64 / units
}

fn main() {
    let mut secs = 60.0f64;
    let mut csv: Option<String> = None;
    let mut svg: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--csv" {
            csv = args.next();
        } else if a == "--svg" {
            svg = args.next();
        } else if let Ok(s) = a.parse() {
            secs = s;
        } else {
            eprintln!("usage: contention [SECONDS] [--csv FILE] [--svg FILE]");
            std::process::exit(2);
        }
    }
    if !cfg!(target_arch = "x86_64") {
        eprintln!("the machine reading is x86-64 assembly; nothing to do here");
        return;
    }

    let s = stream();
    let tr = TrTcmProfile::new(&TrTcmConfig {
        tick: tick(),
        ..TrTcmConfig::default()
    })
    .expect("the bench profile is valid");
    let sr = SrTcmProfile::new(&SrTcmConfig {
        tick: tick(),
        ..SrTcmConfig::default()
    })
    .expect("the bench profile is valid");
    let dv = division_baseline::Profile::new(2_300_000_000, 46_000_000, 69_000_000, 2048, 4096);
    let mut one = <TrTcm as ThreeColorMarker>::start(&tr, Instant::ZERO);
    let mut many = vec![<SrTcm as ThreeColorMarker>::start(&sr, Instant::ZERO); FLOWS as usize];
    let mut base = division_baseline::TrTcm::start(&dv, Instant::ZERO);
    let (mut t1, mut t2, mut t3) = (0u64, 0u64, 0u64);
    let redp = red_profile(false, Spreading::Accumulated);
    let red_dpdk_law = red_profile(false, Spreading::AccumulatedDpdk);
    let riop = rio_profile(RioMode::Coupled);
    let colors = rio_colors();
    let (mut red, mut rio) = (Red::new(), Rio::new());
    let (mut red_rng, mut rio_rng) = (SplitMix64::new(1), SplitMix64::new(1));
    let (mut red2, mut red2_rng, mut t6) = (Red::new(), SplitMix64::new(1), 0u64);
    let (mut red_wave, mut rio_wave) = (Wave::new(), Wave::new());
    let (mut t4, mut t5) = (0u64, 0u64);
    let steps = STEP as f64;
    let (sr_ras, tr_ras, sr_meter, tr_meter) = (sr_profile(), tr_profile(), srtcm(), trtcm());
    let mut greens: [Box<dyn GreenBurst>; 4] = [
        Box::new(GreenBench::<SrTcm>::new(&sr_ras, &sr_meter, false)),
        Box::new(GreenBench::<SrTcm>::new(&sr_ras, &sr_meter, true)),
        Box::new(GreenBench::<TrTcm>::new(&tr_ras, &tr_meter, false)),
        Box::new(GreenBench::<TrTcm>::new(&tr_ras, &tr_meter, true)),
    ];
    let pairs = RAS_PACKETS as f64;
    let adds = (PROBE_ITERS * ADDS_PER_ITER) as f64;
    let pkts = PACKETS as f64;
    #[cfg(feature = "dpdk")]
    let mut dpdk_side = DpdkSide::new(&s);

    let start = Clock::now();
    let mut next_report = 10.0;
    let mut rounds = Vec::new();
    while start.elapsed().as_secs_f64() < secs {
        let mut wide = [0.0; PER_ROUND];
        let mut chain = [0.0; PER_ROUND];
        let mut ns = [[0.0; PER_ROUND]; K];
        for i in 0..PER_ROUND {
            wide[i] = timed(adds, || independent_adds(black_box(PROBE_ITERS)));
            chain[i] = timed(adds, || dependent_adds(black_box(PROBE_ITERS)));
            ns[0][i] = timed(pkts, || {
                burst_one::<TrTcm, false>(black_box(&tr), &s.lens, &s.colors, &mut one, &mut t1)
                    as u64
            });
            ns[1][i] = timed(pkts, || {
                burst_many::<SrTcm, false, true>(black_box(&sr), &s, &mut many, &mut t2) as u64
            });
            let q = red_wave.step();
            ns[2][i] = timed(steps, || {
                let pkt = Packet::not_ect(1500);
                u64::from(red_burst(
                    black_box(&redp),
                    &mut red,
                    &mut red_rng,
                    &mut t4,
                    q,
                    pkt,
                ))
            });
            let split = rio_split(rio_wave.step());
            ns[3][i] = timed(steps, || {
                u64::from(rio_burst(
                    black_box(&riop),
                    &mut rio,
                    &mut rio_rng,
                    &mut t5,
                    split,
                    &colors,
                ))
            });
            for (k, g) in greens.iter_mut().enumerate() {
                ns[4 + k][i] = timed(pairs, || g.burst());
            }
            ns[8][i] = timed(pkts, || {
                burst_one::<division_baseline::TrTcm, false>(
                    black_box(&dv),
                    &s.lens,
                    &s.colors,
                    &mut base,
                    &mut t3,
                ) as u64
            });
            ns[9][i] = timed(steps, || {
                let pkt = Packet::not_ect(1500);
                u64::from(red_burst(
                    black_box(&red_dpdk_law),
                    &mut red2,
                    &mut red2_rng,
                    &mut t6,
                    q,
                    pkt,
                ))
            });
            #[cfg(feature = "dpdk")]
            dpdk_side.round(&mut ns, i);
        }
        let (w, c) = (median(&mut wide), median(&mut chain));
        rounds.push(Round {
            ghz: 1.0 / c,
            adds_per_cycle: c / w,
            ns: ns.map(|mut v| median(&mut v)),
        });
        let el = start.elapsed().as_secs_f64();
        if el >= next_report {
            eprintln!("{el:.0}/{secs:.0} s, {} rounds", rounds.len());
            next_report += 10.0;
        }
    }

    if let Some(path) = csv {
        let mut f = std::fs::File::create(&path).expect("cannot create the CSV file");
        let cols: Vec<String> = NAMES.iter().map(|n| format!("\"{n} ns\"")).collect();
        writeln!(f, "ghz,adds_per_cycle,{}", cols.join(",")).expect("write");
        for r in &rounds {
            let ns: Vec<String> = r.ns.iter().map(|v| format!("{v:.3}")).collect();
            writeln!(f, "{:.3},{:.3},{}", r.ghz, r.adds_per_cycle, ns.join(",")).expect("write");
        }
        eprintln!("wrote {} rounds to {path}", rounds.len());
    }

    if let Some(path) = svg {
        std::fs::write(&path, chart(&rounds)).expect("cannot write the SVG file");
        eprintln!("wrote the chart to {path}");
    }

    println!(
        "{} rounds in {secs:.0} s; medians of each group's rounds (ns per packet)",
        rounds.len()
    );
    println!();
    println!(
        "| additions per cycle | share of rounds | clock GHz | {} |",
        NAMES.join(" | ")
    );
    println!("|---|---:|---:|{}", "---:|".repeat(K));
    let target_row: Vec<String> = TARGETS
        .iter()
        .map(|t| t.map_or(String::new(), |v| format!("{v}")))
        .collect();
    println!("| target | | | {} |", target_row.join(" | "));
    let bins = [
        (0.0, 2.2),
        (2.2, 2.8),
        (2.8, 3.4),
        (3.4, 3.7),
        (3.7, f64::INFINITY),
    ];
    for (lo, hi) in bins {
        let g: Vec<&Round> = rounds
            .iter()
            .filter(|r| r.adds_per_cycle >= lo && r.adds_per_cycle < hi)
            .collect();
        if g.is_empty() {
            continue;
        }
        let share = g.len() as f64 / rounds.len() as f64;
        let col =
            |f: &dyn Fn(&Round) -> f64| median(&mut g.iter().map(|r| f(r)).collect::<Vec<_>>());
        let ghz = col(&|r| r.ghz);
        let n: Vec<String> = (0..K)
            .map(|k| format!("{:.2}", col(&|r| r.ns[k])))
            .collect();
        let range = if hi.is_finite() {
            format!("{lo:.1}-{hi:.1}")
        } else {
            format!("{lo:.1} and more")
        };
        println!(
            "| {range} | {:.0} % | {ghz:.2} | {} |",
            share * 100.0,
            n.join(" | ")
        );
    }
    println!();
    println!("A core to itself gives about 3.9 additions per cycle on Zen 3; fewer means another");
    println!("hardware thread shared it. The division trTCM, which mostly waits on its divider,");
    println!("moves least.");
}

#[cfg(feature = "dpdk")]
#[path = "../dpdk/ffi.rs"]
mod dpdk;

/// DPDK's columns: its trTCM with one flow, its srTCM over 65,536 flows
/// (prefetched) and its RED, each with its own state and clock on the same
/// streams as netcond's columns.
#[cfg(feature = "dpdk")]
struct DpdkSide<'s> {
    lens: &'s [u32],
    burst: dpdk::Burst<'s>,
    tr: dpdk::TrTcmProfile,
    sr: dpdk::SrTcmProfile,
    red_cfg: dpdk::RedConfig,
    one: dpdk::TrTcm,
    many: Vec<dpdk::SrTcm>,
    red: dpdk::RedState,
    rng: dpdk::RedRandom,
    wave: Wave,
    t: [u64; 3],
}

#[cfg(feature = "dpdk")]
impl<'s> DpdkSide<'s> {
    fn new(s: &'s netcond_benches::meter_stream::Stream) -> Self {
        const HZ: u64 = 2_300_000_000;
        let tr = dpdk::TrTcmProfile::new(HZ, 46_000_000, 69_000_000, 2048, 4096)
            .expect("the bench profile is valid");
        let sr = dpdk::SrTcmProfile::new(HZ, 46_000_000, 2048, 4096)
            .expect("the bench profile is valid");
        DpdkSide {
            lens: &s.lens,
            burst: dpdk::Burst::new(&s.lens, &s.flows, FLOWS as usize),
            tr,
            sr,
            red_cfg: dpdk::RedConfig::new(9, 32, 128, 10).expect("the bench profile is valid"),
            one: dpdk::TrTcm::start(&tr, 0),
            many: vec![dpdk::SrTcm::start(&sr, 0); FLOWS as usize],
            red: dpdk::RedState::new(),
            rng: dpdk::RedRandom::take().expect("one user of rte_red's generator"),
            wave: Wave::new(),
            t: [0; 3],
        }
    }

    /// Burst `i` of the round into columns 9, 10 and 11.
    fn round(&mut self, ns: &mut [[f64; PER_ROUND]; K], i: usize) {
        let [t1, t2, t3] = &mut self.t;
        ns[BASE][i] = timed(PACKETS as f64, || {
            dpdk::trtcm_burst_one(black_box(&self.tr), self.lens, &mut self.one, t1)
        });
        ns[BASE + 1][i] = timed(PACKETS as f64, || {
            dpdk::srtcm_burst_many::<true>(black_box(&self.sr), &self.burst, &mut self.many, t2)
        });
        let q = self.wave.step();
        ns[BASE + 2][i] = timed(STEP as f64, || {
            u64::from(dpdk::red_burst(
                black_box(&self.red_cfg),
                &mut self.red,
                t3,
                q,
                &mut self.rng,
            ))
        });
    }
}

/// Each bench's median against the additions per cycle, in steps of 0.1 (steps
/// with fewer than 1 % of the rounds left out), with the targets as lines.
fn chart(rounds: &[Round]) -> String {
    use netcond_sim::report::{Axis, Plot};
    let mut plot = Plot {
        name: "contention".into(),
        title: "ns per packet against the additions per cycle the thread got".into(),
        x_label: "additions per cycle (about 3.9 with a core to itself)".into(),
        y_label: "ns per packet (median of the rounds)".into(),
        hlines: vec![
            (2.5, "RED target".into()),
            (3.5, "trTCM 1 flow target".into()),
            (5.0, "65,536 flows and RIO-C target".into()),
            (25.0, "green shaper pair target".into()),
        ],
        ..Plot::default()
    };
    let min = rounds.len() / 100;
    for (k, name) in NAMES.iter().enumerate() {
        let mut points = Vec::new();
        for step in 10..45 {
            let lo = f64::from(step) / 10.0;
            let mut v: Vec<f64> = rounds
                .iter()
                .filter(|r| r.adds_per_cycle >= lo && r.adds_per_cycle < lo + 0.1)
                .map(|r| r.ns[k])
                .collect();
            if !v.is_empty() && v.len() >= min {
                points.push((lo + 0.05, median(&mut v)));
            }
        }
        plot.line(name, Axis::Left, points);
    }
    netcond_sim::svg::render(&plot)
}

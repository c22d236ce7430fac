//! Same-run ratios: `cargo run --release --manifest-path benches/Cargo.toml
//! [--features dpdk] --example contention -- [SECONDS] [--csv FILE]`.
//!
//! On a shared machine the time of one loop moves by a third or more from one
//! minute to the next (another tenant on the same core, a clock that
//! changes), so a nanosecond figure alone says little. What stays put is the
//! ratio of two loops timed side by side. This driver runs rounds of a few
//! milliseconds; in each round every loop below runs [`PER_ROUND`] bursts,
//! interleaved (loop 1, 2, ..., K, then again, starting each round at the next
//! loop), and the round records each loop's median ns per packet (or pair).
//! `benches/tools/perf.py ratios FILE` turns the rounds into the median ratio
//! of each pair of loops with its spread across rounds.
//!
//! The loops are those of the criterion benches (the same functions from the
//! benches library): trTCM with one flow; srTCM, trTCM and the 3sM node
//! marker over 65,536 flows with the state prefetched by the caller; the same
//! three over 1,048,576 flows, per packet, per packet with the caller
//! prefetching eight packets ahead (as DPDK's loop), and through the burst
//! API; the srTCM and trTCM on their 16-byte `Compact` states over 1,048,576
//! flows, per packet with the caller prefetching; the memory floors
//! (`harness_floor::Touch`, a state of 16 or 24 bytes read and written with
//! nothing computed) over 65,536 flows prefetched and over 1,048,576 flows
//! prefetched and through the burst API; the srTCM on one flow (on the bench
//! stream and on a coin-flip stream of colors), over 65,536 flows plain and
//! prefetched and over 1,048,576 flows plain and prefetched, beside the same
//! loops on the branch-free form its fast path used until 2026-12-07
//! (`branch_free_srtcm`); RED's enqueue decision with
//! FJ93's law and with DPDK's; RIO-C; the 3sM node marker followed by RED
//! on every packet of one link; and PIE's enqueue decision (Linux's law, on
//! `pie_stream`'s two streams: every arrival dropped, and drawing at 20-30 %). With `--features dpdk`, DPDK 22.11's rte_meter, rte_red and
//! rte_pie on the same streams.
use std::hint::black_box;
use std::io::Write;
use std::time::Instant as Clock;

use netcond::base::{Instant, SplitMix64};
use netcond::pcn::Node3sm;
use netcond::red::{Packet, Red, Rio, RioMode, Spreading};
use netcond::trtcm::{
    Compact, CompactProfile, Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig,
    SrTcmProfile, State, TrTcm, TrTcmConfig, TrTcmProfile,
};
use netcond_benches::branch_free_srtcm;
use netcond_benches::harness_floor::Touch;
use netcond_benches::meter_stream::{
    burst_many, burst_one, coin_lengths, coin_srtcm_config, stream, tick, COIN_MANY_CIR, FLOWS,
    PACKETS,
};
use netcond_benches::million::{
    self, pcn_burst, pcn_plain, pcn_prefetched, tcm_burst, tcm_plain, tcm_prefetched, Million,
};
use netcond_benches::pcn_stream::{self, node_3sm, node_red_burst};
use netcond_benches::pie_stream;
use netcond_benches::red_stream::{
    red_burst, red_profile, rio_burst, rio_colors, rio_profile, rio_split, Wave, STEP,
};

/// Bursts of each loop per round.
const PER_ROUND: usize = 5;

/// One loop: its name (a CSV column) and one burst, which returns the units
/// of work it did (packets or pairs) and a value to keep.
struct Loop {
    name: &'static str,
    burst: Box<dyn FnMut() -> (u64, u64)>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[allow(clippy::too_many_lines)]
fn loops() -> Vec<Loop> {
    let mut v: Vec<Loop> = Vec::new();
    let tr = TrTcmProfile::new(&TrTcmConfig::default().with_tick(tick()))
        .expect("the bench profile is valid");
    let sr = SrTcmProfile::new(&SrTcmConfig::default().with_tick(tick()))
        .expect("the bench profile is valid");
    let r4 = Rfc4115Profile::new(&Rfc4115Config::default().with_tick(tick()))
        .expect("the bench profile is valid");

    // One flow of `$lens` (with the bench stream's pre-colors and clock).
    macro_rules! one_loop {
        ($name:literal, $marker:ty, $p:expr, $lens:expr) => {{
            let p = $p;
            let s = stream();
            let lens: &'static [u32] = $lens.unwrap_or_else(|| s.lens.clone().leak());
            let (mut m, mut t) = (<$marker as State>::start(&p, Instant::ZERO), 0u64);
            v.push(Loop {
                name: $name,
                burst: Box::new(move || {
                    let r =
                        burst_one::<$marker, false>(black_box(&p), lens, &s.colors, &mut m, &mut t);
                    (PACKETS as u64, r as u64)
                }),
            });
        }};
    }
    // 65,536 flows of the bench stream (its lengths replaced by `$lens`
    // when given), the state 8 packets ahead prefetched or not.
    macro_rules! many_loop {
        ($name:literal, $marker:ty, $p:expr, $pre:literal, $lens:expr) => {{
            let p = $p;
            let mut s = stream();
            if let Some(lens) = $lens {
                s.lens = lens.to_vec();
            }
            let (mut many, mut t) = (
                vec![<$marker as State>::start(&p, Instant::ZERO); FLOWS as usize],
                0u64,
            );
            v.push(Loop {
                name: $name,
                burst: Box::new(move || {
                    let r =
                        burst_many::<$marker, false, $pre>(black_box(&p), &s, &mut many, &mut t);
                    (PACKETS as u64, r as u64)
                }),
            });
        }};
    }
    let bench: Option<&'static [u32]> = None;
    let cfg = SrTcmConfig::default().with_tick(tick());
    let bs = branch_free_srtcm::Profile::new(cfg.cir, cfg.cbs, cfg.ebs, tick())
        .expect("the bench profile is valid");
    let coin: &'static [u32] = coin_lengths().leak();
    let coin_sr = coin_srtcm_config();
    one_loop!("trtcm_1flow", TrTcm, tr, bench);
    one_loop!("srtcm_1flow", SrTcm, sr, bench);
    one_loop!(
        "branch_free_srtcm_1flow",
        branch_free_srtcm::SrTcm,
        bs,
        bench
    );
    one_loop!("rfc4115_1flow", Rfc4115, r4, bench);
    one_loop!("srtcm_1flow_coin", SrTcm, sr, Some(coin));
    one_loop!(
        "branch_free_srtcm_1flow_coin",
        branch_free_srtcm::SrTcm,
        bs,
        Some(coin)
    );
    one_loop!("trtcm_1flow_coin", TrTcm, tr, Some(coin));
    one_loop!("rfc4115_1flow_coin", Rfc4115, r4, Some(coin));
    many_loop!(
        "srtcm_65536_coin_prefetched",
        SrTcm,
        SrTcmProfile::new(&coin_sr).expect("the coin profile is valid"),
        true,
        Some(coin)
    );
    many_loop!(
        "branch_free_srtcm_65536_coin_prefetched",
        branch_free_srtcm::SrTcm,
        branch_free_srtcm::Profile::new(coin_sr.cir, coin_sr.cbs, coin_sr.ebs, tick())
            .expect("the coin profile is valid"),
        true,
        Some(coin)
    );
    many_loop!("srtcm_65536", SrTcm, sr, false, bench);
    many_loop!(
        "branch_free_srtcm_65536",
        branch_free_srtcm::SrTcm,
        bs,
        false,
        bench
    );
    many_loop!(
        "branch_free_srtcm_65536_prefetched",
        branch_free_srtcm::SrTcm,
        bs,
        true,
        bench
    );
    many_loop!("srtcm_65536_prefetched", SrTcm, sr, true, bench);
    many_loop!("trtcm_65536_prefetched", TrTcm, tr, true, bench);
    many_loop!("rfc4115_65536_prefetched", Rfc4115, r4, true, bench);
    many_loop!("floor24_65536_prefetched", Touch<3>, 1000u32, true, bench);
    let np = node_3sm();
    let s = pcn_stream::stream();
    let (mut many, mut t) = (
        vec![<Node3sm as State>::start(&np, Instant::ZERO); pcn_stream::LINKS as usize],
        0u64,
    );
    v.push(Loop {
        name: "node_65536_prefetched",
        burst: Box::new(move || {
            let r = pcn_stream::burst_many::<Node3sm, true>(black_box(&np), &s, &mut many, &mut t);
            (pcn_stream::PACKETS as u64, u64::from(r))
        }),
    });

    let m: &'static Million = Box::leak(Box::new(Million::new()));
    let n = m.lens.len() as u64;
    macro_rules! million_tcm {
        ($name:literal, $marker:ty, $p:expr, $f:ident) => {{
            let p = $p;
            let mut states = vec![<$marker>::start(&p, Instant::ZERO); million::FLOWS as usize];
            let (mut t, mut k) = (0u64, 0usize);
            v.push(Loop {
                name: $name,
                burst: Box::new(move || {
                    k += 1;
                    let r = $f(black_box(&p), &mut states, m.flows_of(k), &m.lens, &mut t);
                    (n, r as u64)
                }),
            });
        }};
    }
    million_tcm!("trtcm_1m_plain", TrTcm, tr, tcm_plain);
    million_tcm!("trtcm_1m_prefetched", TrTcm, tr, tcm_prefetched);
    million_tcm!("trtcm_1m_burst", TrTcm, tr, tcm_burst);
    million_tcm!("srtcm_1m_plain", SrTcm, sr, tcm_plain);
    million_tcm!("srtcm_1m_prefetched", SrTcm, sr, tcm_prefetched);
    million_tcm!("srtcm_1m_burst", SrTcm, sr, tcm_burst);
    million_tcm!("rfc4115_1m_prefetched", Rfc4115, r4, tcm_prefetched);
    million_tcm!(
        "srtcm_1m_compact_prefetched",
        Compact<SrTcm>,
        CompactProfile::new(sr).unwrap(),
        tcm_prefetched
    );
    million_tcm!(
        "trtcm_1m_compact_prefetched",
        Compact<TrTcm>,
        CompactProfile::new(tr).unwrap(),
        tcm_prefetched
    );
    million_tcm!(
        "branch_free_srtcm_1m_plain",
        branch_free_srtcm::SrTcm,
        bs,
        tcm_plain
    );
    million_tcm!(
        "branch_free_srtcm_1m_prefetched",
        branch_free_srtcm::SrTcm,
        bs,
        tcm_prefetched
    );
    million_tcm!("floor24_1m_prefetched", Touch<3>, 1000u32, tcm_prefetched);
    million_tcm!("floor24_1m_burst", Touch<3>, 1000u32, tcm_burst);
    million_tcm!("floor16_1m_prefetched", Touch<2>, 1000u32, tcm_prefetched);
    for (name, way) in [
        ("node_1m_plain", 0),
        ("node_1m_prefetched", 1),
        ("node_1m_burst", 2),
    ] {
        let np = node_3sm();
        let mut states =
            vec![<Node3sm as State>::start(&np, Instant::ZERO); million::FLOWS as usize];
        let (mut t, mut k) = (0u64, 0usize);
        v.push(Loop {
            name,
            burst: Box::new(move || {
                k += 1;
                let r = match way {
                    0 => pcn_plain(black_box(&np), &mut states, m, m.flows_of(k), &mut t),
                    1 => pcn_prefetched(black_box(&np), &mut states, m, m.flows_of(k), &mut t),
                    _ => pcn_burst(black_box(&np), &mut states, m, m.flows_of(k), &mut t),
                };
                (n, u64::from(r))
            }),
        });
    }

    for (name, spreading) in [
        ("red_fj93", Spreading::Accumulated),
        ("red_dpdk_law", Spreading::AccumulatedDpdk),
    ] {
        let p = red_profile(false, spreading);
        let (mut red, mut rng, mut wave, mut now) = (
            Red::new(&p, Instant::ZERO),
            SplitMix64::new(1),
            Wave::new(),
            0u64,
        );
        v.push(Loop {
            name,
            burst: Box::new(move || {
                let q = wave.step();
                let d = red_burst(
                    black_box(&p),
                    &mut red,
                    &mut rng,
                    &mut now,
                    q,
                    Packet::not_ect(1500),
                );
                (STEP, u64::from(d))
            }),
        });
    }
    let p = rio_profile(RioMode::Coupled);
    let colors = rio_colors();
    let (mut rio, mut rng, mut wave, mut now) = (
        Rio::new(&p, Instant::ZERO),
        SplitMix64::new(1),
        Wave::new(),
        0u64,
    );
    v.push(Loop {
        name: "rio_c",
        burst: Box::new(move || {
            let split = rio_split(wave.step());
            let d = rio_burst(black_box(&p), &mut rio, &mut rng, &mut now, split, &colors);
            (STEP, u64::from(d))
        }),
    });
    for (name, drawing) in [("pie", false), ("pie_draw", true)] {
        let (pp, mut pie, pt) = if drawing {
            pie_stream::drawing()
        } else {
            pie_stream::congested()
        };
        let (plens, mut prng) = (pie_stream::lens(), SplitMix64::new(7));
        v.push(Loop {
            name,
            burst: Box::new(move || {
                let d = pie_stream::pie_burst(&pp, &mut pie, &plens, pt, &mut prng);
                (plens.len() as u64, d)
            }),
        });
    }
    let np = node_3sm();
    let rp = red_profile(false, Spreading::Accumulated);
    let s = pcn_stream::stream();
    let (mut node, mut red, mut rng, mut wave, mut t) = (
        <Node3sm as State>::start(&np, Instant::ZERO),
        Red::new(&rp, Instant::ZERO),
        SplitMix64::new(1),
        Wave::new(),
        0u64,
    );
    v.push(Loop {
        name: "node_3sm_then_red",
        burst: Box::new(move || {
            let q = wave.step();
            let r = node_red_burst(
                black_box(&np),
                black_box(&rp),
                &s,
                &mut node,
                &mut red,
                &mut rng,
                &mut t,
                q,
            );
            (pcn_stream::PACKETS as u64, u64::from(r))
        }),
    });
    #[cfg(feature = "dpdk")]
    dpdk_side::loops(&mut v, m, coin);
    v
}

#[cfg(feature = "dpdk")]
#[path = "../dpdk/ffi.rs"]
mod dpdk;

#[cfg(feature = "dpdk")]
mod dpdk_side {
    use super::*;

    pub fn loops(v: &mut Vec<Loop>, m: &'static Million, coin: &'static [u32]) {
        const HZ: u64 = 2_300_000_000;
        let tr = dpdk::TrTcmProfile::new(HZ, 46_000_000, 69_000_000, 2048, 4096)
            .expect("the bench profile is valid");
        let sr = dpdk::SrTcmProfile::new(HZ, 46_000_000, 2048, 4096)
            .expect("the bench profile is valid");
        let s: &'static _ = Box::leak(Box::new(stream()));
        let r4 = dpdk::Rfc4115Profile::new(HZ, 46_000_000, 69_000_000, 2048, 4096)
            .expect("the bench profile is valid");
        let (mut one, mut t) = (dpdk::start::<dpdk::Rfc4115>(&r4, 0), 0u64);
        v.push(Loop {
            name: "dpdk_rfc4115_1flow",
            burst: Box::new(move || {
                let r = dpdk::burst_one::<dpdk::Rfc4115>(black_box(&r4), &s.lens, &mut one, &mut t);
                (PACKETS as u64, r)
            }),
        });
        macro_rules! dpdk_coin {
            ($name:literal, $marker:ty, $p:expr) => {{
                let p = $p;
                let (mut m, mut t) = (dpdk::start::<$marker>(&p, 0), 0u64);
                v.push(Loop {
                    name: $name,
                    burst: Box::new(move || {
                        let r = dpdk::burst_one::<$marker>(black_box(&p), coin, &mut m, &mut t);
                        (PACKETS as u64, r)
                    }),
                });
            }};
        }
        let coin_sr = dpdk::SrTcmProfile::new(HZ, COIN_MANY_CIR, 2048, 4096)
            .expect("the coin profile is valid");
        let mut b = dpdk::Bursts::new(coin, &s.flows, None, FLOWS as usize);
        let (mut many, mut t) = (vec![dpdk::SrTcm::start(&coin_sr, 0); FLOWS as usize], 0u64);
        v.push(Loop {
            name: "dpdk_srtcm_65536_coin_prefetched",
            burst: Box::new(move || {
                let r = dpdk::srtcm_burst_many::<true>(
                    black_box(&coin_sr),
                    &b.next_burst(),
                    &mut many,
                    &mut t,
                );
                (PACKETS as u64, r)
            }),
        });
        dpdk_coin!("dpdk_srtcm_1flow_coin", dpdk::SrTcm, sr);
        dpdk_coin!("dpdk_trtcm_1flow_coin", dpdk::TrTcm, tr);
        dpdk_coin!("dpdk_rfc4115_1flow_coin", dpdk::Rfc4115, r4);
        let (mut one, mut t) = (dpdk::SrTcm::start(&sr, 0), 0u64);
        v.push(Loop {
            name: "dpdk_srtcm_1flow",
            burst: Box::new(move || {
                let r = dpdk::srtcm_burst_one(black_box(&sr), &s.lens, &mut one, &mut t);
                (PACKETS as u64, r)
            }),
        });
        let (mut one, mut t) = (dpdk::TrTcm::start(&tr, 0), 0u64);
        v.push(Loop {
            name: "dpdk_trtcm_1flow",
            burst: Box::new(move || {
                let r = dpdk::trtcm_burst_one(black_box(&tr), &s.lens, &mut one, &mut t);
                (PACKETS as u64, r)
            }),
        });
        let mut b = dpdk::Bursts::new(&s.lens, &s.flows, None, FLOWS as usize);
        let mut b_tr = b.clone();
        let mut b_r4 = b.clone();
        let (mut many, mut t) = (vec![dpdk::SrTcm::start(&sr, 0); FLOWS as usize], 0u64);
        v.push(Loop {
            name: "dpdk_srtcm_65536_prefetched",
            burst: Box::new(move || {
                let r = dpdk::srtcm_burst_many::<true>(
                    black_box(&sr),
                    &b.next_burst(),
                    &mut many,
                    &mut t,
                );
                (PACKETS as u64, r)
            }),
        });
        let (mut many, mut t) = (vec![dpdk::TrTcm::start(&tr, 0); FLOWS as usize], 0u64);
        v.push(Loop {
            name: "dpdk_trtcm_65536_prefetched",
            burst: Box::new(move || {
                let r = dpdk::trtcm_burst_many::<true>(
                    black_box(&tr),
                    &b_tr.next_burst(),
                    &mut many,
                    &mut t,
                );
                (PACKETS as u64, r)
            }),
        });
        let (mut many, mut t) = (
            vec![dpdk::start::<dpdk::Rfc4115>(&r4, 0); FLOWS as usize],
            0u64,
        );
        v.push(Loop {
            name: "dpdk_rfc4115_65536_prefetched",
            burst: Box::new(move || {
                let r = dpdk::burst_many::<dpdk::Rfc4115, true>(
                    black_box(&r4),
                    &b_r4.next_burst(),
                    &mut many,
                    &mut t,
                );
                (PACKETS as u64, r)
            }),
        });
        let bursts: &'static [dpdk::Burst<'static>] = Box::leak(
            (0..million::TABLE / million::PACKETS)
                .map(|k| dpdk::Burst::new(&m.lens, m.flows_of(k), million::FLOWS as usize))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        let n = m.lens.len() as u64;
        // DPDK's loop over the million flows, the caller prefetching each
        // flow's state 8 packets ahead, as netcond's `*_1m_prefetched`.
        macro_rules! dpdk_million {
            ($name:literal, $meter:ty, $p:expr) => {{
                let p = $p;
                let (mut states, mut t, mut k) = (
                    vec![dpdk::start::<$meter>(&p, 0); million::FLOWS as usize],
                    0u64,
                    0usize,
                );
                v.push(Loop {
                    name: $name,
                    burst: Box::new(move || {
                        k += 1;
                        let r = dpdk::burst_many::<$meter, true>(
                            black_box(&p),
                            &bursts[k % bursts.len()],
                            &mut states,
                            &mut t,
                        );
                        (n, r)
                    }),
                });
            }};
        }
        dpdk_million!("dpdk_trtcm_1m_prefetched", dpdk::TrTcm, tr);
        dpdk_million!("dpdk_srtcm_1m_prefetched", dpdk::SrTcm, sr);
        dpdk_million!("dpdk_rfc4115_1m_prefetched", dpdk::Rfc4115, r4);
        let c = dpdk::RedConfig::new(9, 32, 128, 10).expect("the bench profile is valid");
        let mut r = dpdk::RedState::new();
        let mut rng = dpdk::RedRandom::take().expect("one user of rte_red's generator");
        let (mut wave, mut t) = (Wave::new(), 0u64);
        v.push(Loop {
            name: "dpdk_red",
            burst: Box::new(move || {
                let q = wave.step();
                let d = dpdk::red_burst(black_box(&c), &mut r, &mut t, q, &mut rng);
                (STEP, u64::from(d))
            }),
        });
        // As the dpdk_pie_enqueue(_drawing) rows of the instruction counts;
        // the two loops share rte_drand's generator (they run in turn).
        let c = dpdk::PieConfig::new(2_300_000_000, 15, 15, 150, 512);
        let rng = std::rc::Rc::new(std::cell::RefCell::new(
            dpdk::PieRandom::take().expect("one user of rte_drand's generator"),
        ));
        let now = 1000 * 2_300_000_000;
        // On the drawing stream, rte_pie's accumulated probability is
        // zeroed after each drop, as Linux does (benches/dpdk/tests.rs).
        type Burst = fn(
            &dpdk::PieConfig,
            &mut dpdk::PieState,
            &[u32],
            u32,
            u64,
            &mut dpdk::PieRandom,
        ) -> u32;
        let plain: Burst = dpdk::pie_burst;
        for (name, prob, burst) in [
            ("dpdk_pie", pie_stream::dpdk_prob(), plain),
            (
                "dpdk_pie_draw",
                pie_stream::dpdk_drawing_prob(),
                dpdk::pie_burst_linux_reset,
            ),
        ] {
            let rng = rng.clone();
            let mut s = dpdk::PieState::congested(&c, prob, now, &mut rng.borrow_mut());
            let lens = pie_stream::lens();
            v.push(Loop {
                name,
                burst: Box::new(move || {
                    let d = burst(
                        black_box(&c),
                        &mut s,
                        &lens,
                        pie_stream::QUEUED,
                        now,
                        &mut rng.borrow_mut(),
                    );
                    (lens.len() as u64, u64::from(d))
                }),
            });
        }
    }
}

fn main() {
    let mut secs = 30.0f64;
    let mut csv: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--csv" {
            csv = args.next();
        } else if let Ok(s) = a.parse() {
            secs = s;
        } else {
            eprintln!("usage: contention [SECONDS] [--csv FILE]");
            std::process::exit(2);
        }
    }
    let mut loops = loops();
    let k = loops.len();
    // One burst of each to fill caches and settle the states.
    for l in &mut loops {
        black_box((l.burst)());
    }
    let start = Clock::now();
    let mut rounds: Vec<Vec<f64>> = Vec::new();
    let mut next_report = 10.0;
    while start.elapsed().as_secs_f64() < secs {
        let first = rounds.len() % k;
        let mut ns = vec![Vec::with_capacity(PER_ROUND); k];
        for _ in 0..PER_ROUND {
            for j in 0..k {
                let i = (first + j) % k;
                let t = Clock::now();
                let (units, keep) = (loops[i].burst)();
                let el = t.elapsed().as_nanos() as f64;
                black_box(keep);
                ns[i].push(el / units as f64);
            }
        }
        rounds.push(ns.iter_mut().map(|v| median(v)).collect());
        let el = start.elapsed().as_secs_f64();
        if el >= next_report {
            eprintln!("{el:.0}/{secs:.0} s, {} rounds", rounds.len());
            next_report += 10.0;
        }
    }
    let names: Vec<&str> = loops.iter().map(|l| l.name).collect();
    let mut out: Box<dyn Write> = match &csv {
        Some(path) => Box::new(std::fs::File::create(path).expect("cannot create the CSV file")),
        None => Box::new(std::io::stdout()),
    };
    writeln!(out, "round,{}", names.join(",")).expect("write");
    for (r, ns) in rounds.iter().enumerate() {
        let cols: Vec<String> = ns.iter().map(|v| format!("{v:.3}")).collect();
        writeln!(out, "{r},{}", cols.join(",")).expect("write");
    }
    if let Some(path) = csv {
        eprintln!("wrote {} rounds of {k} loops to {path}", rounds.len());
    }
}

//! Colors 10 s of synthetic traffic offered at 1.5 x PIR with each marker and
//! prints packets, bytes and rates per color next to CIR and PIR.
//!
//! ```text
//! cargo run --release -p trtcm --example color_stream
//! ```
//!
//! Traffic: packets of 64, 576 and 1518 bytes in proportions 4:3:1, drawn from
//! a seeded generator, sent back to back at 103.5 MB/s (1.5 x PIR) with exact
//! nanosecond spacing. Markers: DPDK's test profile, CIR 46 MB/s, PIR 69 MB/s,
//! CBS 2048 B, PBS 4096 B; srTCM with EBS 4096 B; RFC 4115 with EIR = PIR - CIR
//! = 23 MB/s and EBS 4096 B, so that its green + yellow can be compared with the
//! trTCM's.
// Floats only for the printed summary, not the meter's path (the
// workspace's float_arithmetic lint is for the library code).
#![allow(clippy::float_arithmetic)]
use netcond_core::{Color, Instant, RandomSource, Rate, SplitMix64, TickRate};
use trtcm::{Counters, Rfc4115Config, SrTcmConfig, ThreeColorPair, TrTcmConfig};

const SECONDS: u64 = 10;
const CIR: u64 = 46_000_000;
const PIR: u64 = 69_000_000;
const OFFERED: u64 = PIR * 3 / 2;

fn main() {
    let t0 = Instant::ZERO;
    let tick = TickRate::NANOS;
    let mut sr = SrTcmConfig::meter(
        &SrTcmConfig::new(Rate::from_bytes_per_sec(CIR), 2048, 4096).with_tick(tick),
        t0,
    )
    .expect("valid srTCM configuration");
    let mut tr = TrTcmConfig::meter(
        &TrTcmConfig::new(
            Rate::from_bytes_per_sec(CIR),
            Rate::from_bytes_per_sec(PIR),
            2048,
            4096,
        )
        .with_tick(tick),
        t0,
    )
    .expect("valid trTCM configuration");
    let mut r4 = Rfc4115Config::meter(
        &Rfc4115Config::new(
            Rate::from_bytes_per_sec(CIR),
            Rate::from_bytes_per_sec(PIR - CIR),
            2048,
            4096,
        )
        .with_tick(tick),
        t0,
    )
    .expect("valid RFC 4115 configuration");

    let mut counts = [Counters::default(); 3];
    let mut rng = SplitMix64::new(2698);
    // Time in units of 1/OFFERED s, so that a packet of B bytes lasts exactly B
    // units; converted to nanoseconds (rounded down) when stamped.
    let end = SECONDS * OFFERED;
    let mut sent = 0u64;
    while sent < end {
        let len = match rng.below(8) {
            0..=3 => 64,
            4..=6 => 576,
            _ => 1518,
        };
        let now =
            Instant::from_ticks((u128::from(sent) * 1_000_000_000 / u128::from(OFFERED)) as u64);
        counts[0].record(sr.color_blind(now, len), len);
        counts[1].record(tr.color_blind(now, len), len);
        counts[2].record(r4.color_blind(now, len), len);
        sent += u64::from(len);
    }

    let mb = |bytes: u64| bytes as f64 / SECONDS as f64 / 1e6;
    println!(
        "{SECONDS} s of 64/576/1518-byte packets (4:3:1) offered at {:.1} MB/s = 1.5 x PIR",
        OFFERED as f64 / 1e6
    );
    println!(
        "CIR {:.1} MB/s, PIR {:.1} MB/s, CBS 2048 B, PBS/EBS 4096 B\n",
        CIR as f64 / 1e6,
        PIR as f64 / 1e6
    );
    println!(
        "{:<22} {:<7} {:>11} {:>14} {:>10}",
        "marker", "color", "packets", "bytes", "MB/s"
    );
    let names = [
        "srTCM (RFC 2697)",
        "trTCM (RFC 2698)",
        "RFC 4115 (EIR=PIR-CIR)",
    ];
    for (name, c) in names.iter().zip(&counts) {
        for color in Color::ALL {
            println!(
                "{:<22} {:<7} {:>11} {:>14} {:>10.3}",
                name,
                color.to_string(),
                c.packets(color),
                c.bytes(color),
                mb(c.bytes(color))
            );
        }
        println!();
    }
    let [s, t, r] = counts;
    let green_yellow = |c: &Counters| c.bytes(Color::Green) + c.bytes(Color::Yellow);
    println!(
        "green vs CIR ({:.3} MB/s): srTCM {:.3}, trTCM {:.3}, RFC 4115 {:.3}",
        CIR as f64 / 1e6,
        mb(s.bytes(Color::Green)),
        mb(t.bytes(Color::Green)),
        mb(r.bytes(Color::Green))
    );
    println!(
        "green + yellow vs PIR ({:.3} MB/s): trTCM {:.3}, RFC 4115 {:.3}",
        PIR as f64 / 1e6,
        mb(green_yellow(&t)),
        mb(green_yellow(&r))
    );
}

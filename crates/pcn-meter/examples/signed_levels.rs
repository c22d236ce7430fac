//! The signed PCN levels' per-packet loop, for instruction counts under
//! callgrind (docs/pcn-meter.md, "Exact for every u32 length"):
//!
//! ```sh
//! cargo build --release -p pcn-meter --example signed_levels
//! valgrind --tool=callgrind --toggle-collect='*run_*' \
//!     target/release/examples/signed_levels etm   # or etm_odd, sim, sim_odd
//! ```
//!
//! One million packets of 64, 576 or 1500 bytes, 12 to 19 us apart, through
//! the size-independent excess meter (`etm`) or the section 4.8 ET-marker
//! (`sim`) at 480 Mbit/s (lengths fit: the 64-bit path) or at 1,000,000,001
//! bit/s (`_odd`: 8 x 10^9 units per byte, the 128-bit path), on a ns clock.
use netcond_core::{Instant, RandomSource, Rate, SplitMix64, TickRate};
use pcn_meter::*;
use std::hint::black_box;

const N: u64 = 1_000_000;

#[inline(never)]
fn run_etm(p: &ExcessTrafficMeterProfile, m: &mut ExcessTrafficMeter, lens: &[u32]) -> u32 {
    let mut t = 0u64;
    let mut n = 0u32;
    for (i, &l) in lens.iter().enumerate() {
        t += 12_000 + (i as u64 & 7) * 1000;
        n += (m.mark(p, Instant::from_ticks(t), l, PcnMark::Nm) == PcnMark::Etm) as u32;
    }
    n
}

#[inline(never)]
fn run_sim(p: &EtMarkerSim48Profile, m: &mut EtMarkerSim48, lens: &[u32]) -> u32 {
    let mut t = 0u64;
    let mut n = 0u32;
    for (i, &l) in lens.iter().enumerate() {
        t += 12_000 + (i as u64 & 7) * 1000;
        n += (m.mark(p, Instant::from_ticks(t), l, PcnMark::Nm) == PcnMark::Etm) as u32;
    }
    n
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "etm".into());
    let mut r = SplitMix64::new(1);
    let lens: Vec<u32> = (0..N)
        .map(|_| [64, 576, 1500][r.below(3) as usize])
        .collect();
    let bits = if which.ends_with("odd") {
        1_000_000_001
    } else {
        480_000_000
    };
    let rate = Rate::from_bits_per_sec(bits);
    let out = if which.starts_with("etm") {
        let p = ExcessTrafficMeterProfile::new(
            &ExcessTrafficMeterConfig::new(rate, 30_000)
                .with_mode(ExcessMode::SizeIndependent)
                .with_tick(TickRate::NANOS),
        )
        .expect("valid");
        let mut m = ExcessTrafficMeter::new(&p, Instant::ZERO);
        run_etm(black_box(&p), &mut m, &lens)
    } else {
        let p = EtMarkerSim48Profile::new(
            &EtMarkerSim48Config::new(rate, 30_000, 3000).with_tick(TickRate::NANOS),
        )
        .expect("valid");
        let mut m = EtMarkerSim48::new(&p, Instant::ZERO);
        run_sim(black_box(&p), &mut m, &lens)
    };
    println!("{which}: {out}");
}

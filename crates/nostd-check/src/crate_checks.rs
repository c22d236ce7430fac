//! One operation per algorithm crate, each checked against a known answer.

use core::hint::black_box;
use netcond::core::{Color, Instant, Rate, TickRate};

fn trtcm_checks() -> i32 {
    use netcond::trtcm::{TrTcm, TrTcmConfig, TrTcmProfile};
    let Ok(p) = TrTcmProfile::new(&TrTcmConfig::default()) else {
        return 1;
    };
    // DPDK's test: 2049 bytes with full buckets is yellow.
    let t = Instant::from_ticks(black_box(5));
    let c = TrTcm::new(&p, t).color_blind(&p, t, black_box(2049));
    i32::from(c != Color::Yellow)
}

fn ras_checks() -> i32 {
    use netcond::ras::{RasShaper, TrRasConfig, TrRasProfile};
    let cfg = TrRasConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        Rate::from_mbps(34),
        64_000,
    );
    let Ok(profile) = TrRasProfile::new(&cfg) else {
        return 1;
    };
    let mut ras: RasShaper<u32, 8> = RasShaper::new(profile, Instant::ZERO);
    if ras.enqueue(Instant::ZERO, black_box(1500)).is_err() {
        return 1;
    }
    let Some(at) = ras.next_release() else {
        return 1;
    };
    i32::from(ras.dequeue(at) != Some(1500))
}

/// Returns the number of failed checks.
pub fn run() -> i32 {
    let _ = TickRate::NANOS;
    trtcm_checks() + ras_checks()
}

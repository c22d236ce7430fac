//! One operation per algorithm crate, each checked against a known answer.

use core::hint::black_box;
use netcond::base::{Color, Instant, Rate, TickRate};

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
    use netcond::ras::{RasShaper, ShaperPair, TrRasConfig, TrRasProfile};
    let cfg = TrRasConfig::new(
        Rate::from_mbps(2),
        Rate::from_mbps(4),
        Rate::from_mbps(34),
        64_000,
    );
    let Ok(profile) = TrRasProfile::new(&cfg) else {
        return 1;
    };
    let mut ras: RasShaper<u32, 8> = RasShaper::new(profile.into(), Instant::ZERO);
    if ras.enqueue(Instant::ZERO, black_box(1500)).is_err() {
        return 1;
    }
    let Some(at) = ras.next_release() else {
        return 1;
    };
    i32::from(ras.dequeue(at) != Some(1500))
}

fn pcn_checks() -> i32 {
    use netcond::pcn::{EtMarker, EtMarkerConfig, EtMarkerProfile, PcnMark};
    let Ok(p) = EtMarkerProfile::new(&EtMarkerConfig::draft_explicit_marking_01(
        Rate::from_kbps(1000),
        10_000,
        1064,
    )) else {
        return 1;
    };
    let mut m = EtMarker::new(&p, Instant::ZERO);
    // A full 10 kB bucket passes fifty 200-byte packets unmarked; the next is marked.
    let mut marks = 0;
    for _ in 0..51 {
        if m.mark(&p, Instant::ZERO, black_box(200), PcnMark::Nm) == PcnMark::Etm {
            marks += 1;
        }
    }
    i32::from(marks != 1)
}

fn red_checks() -> i32 {
    use netcond::red::{Decision, Ecn, Packet, Red, RedConfig, RedProfile};
    let cfg = RedConfig::packets(10, 30, RedConfig::prob(0.5), RedConfig::prob(0.001), 50);
    let Ok(p) = RedProfile::new(&cfg) else {
        return 1;
    };
    let mut red = Red::new(&p, Instant::ZERO);
    let mut rng = netcond::base::SplitMix64::new(1);
    // Below min_th nothing is dropped.
    let d = red.on_arrival(
        &p,
        Instant::ZERO,
        black_box(5),
        Packet::new(1500, Ecn::NotEct),
        &mut rng,
    );
    i32::from(d != Decision::Enqueue)
}

fn rbcc_checks() -> i32 {
    use netcond::rbcc::{FixedRate, NodeId, RateHeader, RbccConfig, RbccInterface, RbccProfile};
    let Ok(p) = RbccProfile::new(&RbccConfig::toomey_scenario7(
        NodeId(23),
        Rate::from_kbps(64),
    )) else {
        return 1;
    };
    let mut ifc: RbccInterface<4> = RbccInterface::new(&p, Instant::ZERO);
    let mut data = RateHeader::new(FixedRate::UNLIMITED);
    if ifc
        .on_data(&p, Instant::ZERO, black_box(5), &mut data)
        .is_err()
    {
        return 1;
    }
    // One flow alone gets the whole 64 kbit/s.
    i32::from(data.rate != FixedRate::from_bps(64_000))
}

fn delay_checks() -> i32 {
    use netcond::delay::{Codel, CodelConfig, CodelProfile, Head, Verdict};
    let Ok(p) = CodelProfile::new(&CodelConfig::rfc8289()) else {
        return 1;
    };
    // A standing queue of 10 ms (above the 5 ms target) from t = 11 ms:
    // RFC 8289's first drop comes once it has stood for an interval
    // (100 ms), at t = 111 ms.
    let ms = |m: u64| Instant::from_ticks(m * 1_000_000);
    let mut codel = Codel::new(&p, ms(0));
    let mut first = None;
    for t in 11..=150u64 {
        let head = Head::new(ms(t - 10), black_box(1500), false);
        if codel.on_dequeue(&p, ms(t), head, 10_000) == Verdict::Drop {
            first = Some(t);
            break;
        }
    }
    i32::from(first != Some(111))
}

/// Returns the number of failed checks.
pub fn run() -> i32 {
    let _ = TickRate::NANOS;
    trtcm_checks() + ras_checks() + pcn_checks() + red_checks() + rbcc_checks() + delay_checks()
}

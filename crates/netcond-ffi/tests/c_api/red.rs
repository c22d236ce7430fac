//! The C test `tests/c/red_test.c`, of the RED family (RED, RIO / WRED,
//! Adaptive RED): its cases, and its seeded streams against the same streams
//! through the Rust API.

use super::*;
use aqm_red::{
    AdaptiveRed, AdaptiveRedConfig, AdaptiveRedProfile, Decision, Ecn, Packet, Precedence,
    QueueSettings, QueueUnit, Red, RedConfig, RedProfile, Rio, RioConfig, RioMode, RioProfile,
    Spreading, Supplied, U32F32,
};
use netcond_core::SplitMix64;

const PACKETS: u32 = 100_000;

fn prob(num: u64, den: u64) -> U32F32 {
    U32F32::from_bits((num << 32) / den)
}

struct Arrival {
    now: u64,
    q: u32,
    len: u32,
    ecn: Ecn,
    color: Color,
    draw: u32,
    emptied: bool,
}

/// The C side's `next_arrival`.
fn next_arrival(rng: &mut Rng, now: &mut u64, q: &mut u32) -> Arrival {
    let r = rng.next_u64();
    *now += (r >> 8) % 2_000_000;
    let phase = (*now / 100_000_000) % 200;
    let center = 10 + if phase < 100 { phase } else { 200 - phase } as u32;
    let pull = if *q < center { 1 } else { -1 };
    let step = (r % 5) as i64 - 2 + ((r >> 3) & 1) as i64 * pull;
    if step < 0 && *q < 2 {
        *q = 0;
    } else {
        *q = (*q as i64 + step) as u32;
    }
    *q = (*q).min(110);
    let emptied = (r >> 30) & 4095 == 0;
    if emptied {
        *q = 0;
    }
    Arrival {
        now: *now,
        q: *q,
        len: 64 + ((r >> 36) % 1455) as u32,
        ecn: Ecn::from_bits(((r >> 50) & 3) as u8),
        color: Color::from_index(((r >> 52) % 3) as usize),
        draw: (rng.next_u64() >> 32) as u32,
        emptied,
    }
}

struct Tally {
    counts: [u64; 4],
    hash: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            counts: [0; 4],
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }
    fn add(&mut self, d: Decision) {
        let v = d.index();
        self.counts[v] += 1;
        self.hash = (self.hash ^ v as u64).wrapping_mul(0x0100_0000_01b3);
    }
    fn line(&self, name: &str, variant: u32, avg: U32F32) -> String {
        let c = self.counts;
        format!(
            "{name}{variant} {} {} {} {} {:016x} {}",
            c[0],
            c[1],
            c[2],
            c[3],
            self.hash,
            avg.to_bits()
        )
    }
}

fn base() -> RedConfig {
    RedConfig::packets(20, 60, prob(1, 10), prob(1, 500), 100)
}

fn variant(v: u32) -> RedConfig {
    let mut c = base();
    c.queue.spreading = [
        Spreading::Accumulated,
        Spreading::AccumulatedDpdk,
        Spreading::Uniform,
        Spreading::UniformCountFirst,
        Spreading::Dpdk,
        Spreading::Geometric,
    ][(v % 6) as usize];
    if v >= 6 {
        c.queue.unit = QueueUnit::Bytes;
        c.min_th = 20_000;
        c.max_th = 60_000;
        c.queue.limit = 100_000;
        c.queue.gentle = true;
        c.queue.byte_mode = Some(1500);
        c.queue.ecn = true;
        c.queue.ecn_drop_th = Some(80_000);
        c.queue.w_q = prob(1, 512);
    }
    c
}

fn rio(mode: RioMode) -> RioConfig {
    let p = Precedence::new;
    RioConfig::new(
        mode,
        prob(1, 512),
        [
            p(40, 70, prob(1, 50)),
            p(25, 50, prob(1, 10)),
            p(10, 30, prob(1, 5)),
        ],
        100,
    )
    .with_queue(
        QueueSettings::new(prob(1, 512), 100)
            .with_unit(QueueUnit::Packets)
            .with_typical_tx(std::time::Duration::from_micros(1200))
            .with_spreading(Spreading::Accumulated),
    )
}

/// The Rust side of `red_test stream SEED`.
fn rust_streams(seed: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for v in 0..12 {
        for supplied in [false, true] {
            let cfg = variant(v);
            let p = RedProfile::new(&cfg).unwrap();
            let mut m = Red::new(&p, t(0));
            let mut gen = SplitMix64::new(seed ^ 0x5555);
            let mut rng = Rng(seed);
            let (mut now, mut q) = (0, 0);
            let mut tally = Tally::new();
            for _ in 0..PACKETS {
                let a = next_arrival(&mut rng, &mut now, &mut q);
                let ql = if cfg.queue.unit == QueueUnit::Bytes {
                    a.q * 1000
                } else {
                    a.q
                };
                if a.emptied {
                    m.on_queue_empty(&p, t(a.now - 1));
                }
                let pkt = Packet::new(a.len, a.ecn);
                let d = if supplied {
                    m.on_arrival(&p, t(a.now), ql, pkt, &mut Supplied(a.draw))
                } else {
                    m.on_arrival(&p, t(a.now), ql, pkt, &mut gen)
                };
                tally.add(d);
            }
            let name = if supplied { "red_draw" } else { "red_rng" };
            lines.push(tally.line(name, v, m.avg(&p)));
        }
    }
    for (i, mode) in [RioMode::Coupled, RioMode::Decoupled, RioMode::Wred]
        .into_iter()
        .enumerate()
    {
        let p = RioProfile::new(&rio(mode)).unwrap();
        let mut m = Rio::new(&p, t(0));
        let mut gen = SplitMix64::new(seed ^ 0x7777);
        let mut rng = Rng(seed);
        let (mut now, mut q) = (0, 0);
        let mut tally = Tally::new();
        for k in 0..PACKETS {
            let a = next_arrival(&mut rng, &mut now, &mut q);
            let q3 = [a.q / 2, a.q / 3, a.q - a.q / 2 - a.q / 3];
            if a.emptied {
                m.on_queue_empty(&p, t(a.now - 1));
            }
            let pkt = Packet::new(a.len, a.ecn);
            let d = if k % 2 == 1 {
                m.on_arrival(&p, t(a.now), q3, a.color, pkt, &mut gen)
            } else {
                m.on_arrival(&p, t(a.now), q3, a.color, pkt, &mut Supplied(a.draw))
            };
            tally.add(d);
        }
        lines.push(tally.line("rio", i as u32, m.avg(&p, Color::Yellow)));
    }
    let ap = AdaptiveRedProfile::new(&AdaptiveRedConfig::paper(base())).unwrap();
    let mut ar = AdaptiveRed::new(&ap, t(0));
    let mut gen = SplitMix64::new(seed ^ 0x9999);
    let mut rng = Rng(seed);
    let (mut now, mut q) = (0, 0);
    let mut tally = Tally::new();
    for k in 0..PACKETS {
        let a = next_arrival(&mut rng, &mut now, &mut q);
        if a.emptied {
            ar.on_queue_empty(&ap, t(a.now - 1));
        }
        let pkt = Packet::new(a.len, a.ecn);
        let d = if k % 2 == 1 {
            ar.on_arrival(&ap, t(a.now), a.q, pkt, &mut gen)
        } else {
            ar.on_arrival(&ap, t(a.now), a.q, pkt, &mut Supplied(a.draw))
        };
        tally.add(d);
    }
    lines.push(tally.line("adaptive", 0, ar.red().avg(ap.red())));
    lines.push(format!("adaptive_max_p {}", ar.max_p().to_bits()));
    lines
}

#[test]
fn red_cases_errors_and_bad_arguments() {
    c_cases("red_test", "all RED cases passed");
}

#[test]
fn red_streams_through_c_equal_streams_through_rust() {
    c_streams("red_test", [3u64, 0x1234_5678_9abc], rust_streams, |rust| {
        // Each queue saw early drops or marks and forced drops.
        for line in rust.iter().filter(|l| !l.starts_with("adaptive_max_p")) {
            let f = counts(line, 4);
            assert!(f[0] > 0 && f[1] + f[2] > 0 && f[3] > 0, "{line}");
        }
    });
}

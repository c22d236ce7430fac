//! The packet-mode and counter calls' C test (`tests/c/meter_counted_test.c`):
//! its cases, and its seeded runs against the same runs through the Rust API
//! (`color_blind_packet`, the `..._counted` methods and `trtcm::Counters`).

use super::*;
use trtcm::{Counters, ThreeColorMarker};

#[test]
fn packet_mode_and_counter_cases_and_bad_arguments() {
    for san in variants() {
        let out = run(&build_c("meter_counted_test", "cases", san), &["cases"]);
        assert!(
            out.contains("all packet mode and counter cases passed"),
            "{out}"
        );
    }
}

/// A run's color (or verdict) counts, hash and counters, as the C side keeps
/// them.
struct Tally {
    counts: [u64; 3],
    hash: u64,
    c: Counters,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            counts: [0; 3],
            hash: 0xcbf2_9ce4_8422_2325,
            c: Counters::default(),
        }
    }

    fn add(&mut self, v: usize) {
        self.counts[v] += 1;
        self.hash = (self.hash ^ v as u64).wrapping_mul(0x0100_0000_01b3);
    }

    fn line(&self, name: &str, state: [u64; 3]) -> String {
        let k = &self.c;
        format!(
            "{name} {} {} {} {:016x} {} {} {} {} {} {} {} {} {} {} {}",
            self.counts[0],
            self.counts[1],
            self.counts[2],
            self.hash,
            k.packets[0],
            k.packets[1],
            k.packets[2],
            k.bytes[0],
            k.bytes[1],
            k.bytes[2],
            k.dropped_packets,
            k.dropped_bytes,
            state[0],
            state[1],
            state[2]
        )
    }
}

fn marker<S>(
    name: &str,
    seed: u64,
    mut s: S,
    mut color: impl FnMut(&mut S, &Pkt, &mut Counters) -> Color,
    read: impl Fn(&S) -> [u64; 3],
) -> String {
    let mut rng = Rng(seed);
    let mut now = 1000;
    let mut t = Tally::new();
    for _ in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        let c = color(&mut s, &k, &mut t.c);
        t.add(c.index());
    }
    t.line(name, read(&s))
}

fn policer(
    name: &str,
    seed: u64,
    p: &PremiumPolicerProfile,
    mut offer: impl FnMut(&mut PremiumPolicer, u64, &Pkt, &mut Counters) -> PolicerVerdict,
    out: u32,
    every: u32,
) -> String {
    let mut m = PremiumPolicer::new(p, t(1000));
    let mut rng = Rng(seed);
    let mut now = 1000;
    let mut tally = Tally::new();
    for i in 0..PACKETS {
        let k = next_pkt(&mut rng, &mut now);
        now += 30_000_000;
        let v = offer(&mut m, now, &k, &mut tally.c);
        tally.add(v.index());
        if i % every == every - 1 {
            m.dequeued(out);
        }
    }
    tally.line(name, [m.tokens(), m.backlog(), m.last().ticks()])
}

/// The Rust side of `meter_counted_test stream SEED`, line by line.
fn rust_lines(seed: u64) -> Vec<String> {
    let start = t(1000);
    let sb = srtcm();
    let tb = trtcm();
    let eb = rfc4115(Rfc4115Ties::Text);
    let sk = SrTcmProfile::new(&SrTcmConfig::packets(50_000, 16, 32).with_tick(HZ)).unwrap();
    let tk =
        TrTcmProfile::new(&TrTcmConfig::packets(50_000, 100_000, 16, 32).with_tick(HZ)).unwrap();
    let ek = Rfc4115Profile::with_ties(
        &Rfc4115Config::packets(50_000, 50_000, 16, 32).with_tick(HZ),
        Rfc4115Ties::Figure1,
    )
    .unwrap();
    let (csb, ctb, ceb) = (
        CompactProfile::new(sb).unwrap(),
        CompactProfile::new(tb).unwrap(),
        CompactProfile::new(eb).unwrap(),
    );
    let pb = PremiumPolicerProfile::new(
        &PremiumPolicerConfig::new(Rate::from_bytes_per_sec(20_480), 11_000, 13_000, 1500)
            .with_tick(HZ),
    )
    .unwrap();
    let pk = PremiumPolicerProfile::new(&PremiumPolicerConfig::packets(20, 8, 12).with_tick(HZ))
        .unwrap();
    let sr = |s: &SrTcm| [s.tc(), s.te(), s.last().ticks()];
    let tr = |s: &TrTcm| [s.tc(), s.tp(), s.last().ticks()];
    let er = |s: &Rfc4115| [s.tc(), s.te(), s.last().ticks()];
    let srs = SrTcm::new(&sk, start);
    let srb = SrTcm::new(&sb, start);
    let trs = TrTcm::new(&tk, start);
    let trb = TrTcm::new(&tb, start);
    let ers = Rfc4115::new(&ek, start);
    let erb = Rfc4115::new(&eb, start);
    vec![
        marker(
            "srtcm_blind_packet",
            seed,
            srs,
            |s, k, _| s.color_blind_packet(&sk, t(k.now)),
            sr,
        ),
        marker(
            "srtcm_aware_packet",
            seed,
            srs,
            |s, k, _| s.color_aware_packet(&sk, t(k.now), k.color),
            sr,
        ),
        marker(
            "srtcm_blind_counted",
            seed,
            srb,
            |s, k, c| s.color_blind_counted(&sb, t(k.now), k.len, c),
            sr,
        ),
        marker(
            "srtcm_aware_counted",
            seed,
            srb,
            |s, k, c| s.color_aware_counted(&sb, t(k.now), k.len, k.color, c),
            sr,
        ),
        marker(
            "srtcm_blind_packet_counted",
            seed,
            srs,
            |s, k, c| s.color_blind_packet_counted(&sk, t(k.now), k.len, c),
            sr,
        ),
        marker(
            "srtcm_aware_packet_counted",
            seed,
            srs,
            |s, k, c| s.color_aware_packet_counted(&sk, t(k.now), k.len, k.color, c),
            sr,
        ),
        marker(
            "trtcm_blind_packet",
            seed,
            trs,
            |s, k, _| s.color_blind_packet(&tk, t(k.now)),
            tr,
        ),
        marker(
            "trtcm_aware_packet",
            seed,
            trs,
            |s, k, _| s.color_aware_packet(&tk, t(k.now), k.color),
            tr,
        ),
        marker(
            "trtcm_blind_counted",
            seed,
            trb,
            |s, k, c| s.color_blind_counted(&tb, t(k.now), k.len, c),
            tr,
        ),
        marker(
            "trtcm_aware_counted",
            seed,
            trb,
            |s, k, c| s.color_aware_counted(&tb, t(k.now), k.len, k.color, c),
            tr,
        ),
        marker(
            "trtcm_blind_packet_counted",
            seed,
            trs,
            |s, k, c| s.color_blind_packet_counted(&tk, t(k.now), k.len, c),
            tr,
        ),
        marker(
            "trtcm_aware_packet_counted",
            seed,
            trs,
            |s, k, c| s.color_aware_packet_counted(&tk, t(k.now), k.len, k.color, c),
            tr,
        ),
        marker(
            "rfc4115_blind_packet",
            seed,
            ers,
            |s, k, _| s.color_blind_packet(&ek, t(k.now)),
            er,
        ),
        marker(
            "rfc4115_aware_packet",
            seed,
            ers,
            |s, k, _| s.color_aware_packet(&ek, t(k.now), k.color),
            er,
        ),
        marker(
            "rfc4115_blind_counted",
            seed,
            erb,
            |s, k, c| s.color_blind_counted(&eb, t(k.now), k.len, c),
            er,
        ),
        marker(
            "rfc4115_aware_counted",
            seed,
            erb,
            |s, k, c| s.color_aware_counted(&eb, t(k.now), k.len, k.color, c),
            er,
        ),
        marker(
            "rfc4115_blind_packet_counted",
            seed,
            ers,
            |s, k, c| s.color_blind_packet_counted(&ek, t(k.now), k.len, c),
            er,
        ),
        marker(
            "rfc4115_aware_packet_counted",
            seed,
            ers,
            |s, k, c| s.color_aware_packet_counted(&ek, t(k.now), k.len, k.color, c),
            er,
        ),
        marker(
            "srtcm_compact_blind_counted",
            seed,
            Compact::<SrTcm>::new(&csb, start),
            |s, k, c| s.color_blind_counted(&csb, t(k.now), k.len, c),
            |s| sr(&s.to_state()),
        ),
        marker(
            "srtcm_compact_aware_counted",
            seed,
            Compact::<SrTcm>::new(&csb, start),
            |s, k, c| s.color_aware_counted(&csb, t(k.now), k.len, k.color, c),
            |s| sr(&s.to_state()),
        ),
        marker(
            "trtcm_compact_blind_counted",
            seed,
            Compact::<TrTcm>::new(&ctb, start),
            |s, k, c| s.color_blind_counted(&ctb, t(k.now), k.len, c),
            |s| tr(&s.to_state()),
        ),
        marker(
            "trtcm_compact_aware_counted",
            seed,
            Compact::<TrTcm>::new(&ctb, start),
            |s, k, c| s.color_aware_counted(&ctb, t(k.now), k.len, k.color, c),
            |s| tr(&s.to_state()),
        ),
        marker(
            "rfc4115_compact_blind_counted",
            seed,
            Compact::<Rfc4115>::new(&ceb, start),
            |s, k, c| s.color_blind_counted(&ceb, t(k.now), k.len, c),
            |s| er(&s.to_state()),
        ),
        marker(
            "rfc4115_compact_aware_counted",
            seed,
            Compact::<Rfc4115>::new(&ceb, start),
            |s, k, c| s.color_aware_counted(&ceb, t(k.now), k.len, k.color, c),
            |s| er(&s.to_state()),
        ),
        policer(
            "policer_offer_counted",
            seed,
            &pb,
            |m, now, k, c| m.offer_counted(&pb, t(now), k.len, c),
            1500,
            16,
        ),
        policer(
            "policer_offer_packet",
            seed,
            &pk,
            |m, now, _, _| m.offer_packet(&pk, t(now)),
            1,
            2,
        ),
        policer(
            "policer_offer_packet_counted",
            seed,
            &pk,
            |m, now, k, c| {
                let v = m.offer_packet(&pk, t(now));
                c.record_verdict(v, k.len);
                v
            },
            1,
            2,
        ),
    ]
}

#[test]
fn packet_mode_and_counter_runs_through_c_equal_runs_through_rust() {
    for san in variants() {
        let exe = build_c("meter_counted_test", "stream", san);
        for seed in seeds(san, 3, 0x5eed_cafe) {
            let c = run(&exe, &["stream", &seed.to_string()]);
            let c: Vec<&str> = c.lines().collect();
            let rust = rust_lines(seed);
            assert_eq!(c.len(), rust.len(), "one line per run");
            for (c, r) in c.iter().zip(&rust) {
                assert_eq!(*c, r, "C and Rust differ (seed {seed})");
            }
            for line in &rust {
                let (name, f) = fields(line);
                // Every run saw all three colors (or verdicts).
                assert!(f[..3].iter().all(|&n| n > 0), "{line}");
                // A counted run's counters hold exactly its colors (the
                // policer's: conforming green, nonconforming red, every drop
                // dropped); the others counted nothing.
                let (want, dropped) = match (name.ends_with("counted"), name.starts_with("policer"))
                {
                    (false, _) => ([0; 3], 0),
                    (true, false) => ([f[0], f[1], f[2]], 0),
                    (true, true) => ([f[0] + f[2], 0, f[1]], f[1] + f[2]),
                };
                assert_eq!([f[3], f[4], f[5]], want, "{line}");
                assert_eq!(f[9], dropped, "{line}");
                assert_eq!(f[6] + f[7] + f[8] > 0, name.ends_with("counted"), "{line}");
            }
        }
    }
}

/// A line's name and its decimal fields (the hash left out).
fn fields(line: &str) -> (&str, Vec<u64>) {
    let mut it = line.split(' ');
    let name = it.next().unwrap();
    let f = it
        .enumerate()
        .filter(|&(i, _)| i != 3)
        .map(|(_, x)| x.parse().unwrap())
        .collect();
    (name, f)
}

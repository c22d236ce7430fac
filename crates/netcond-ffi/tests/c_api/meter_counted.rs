//! The packet-mode and counter calls' C test (`tests/c/meter_counted_test.c`):
//! its cases, and its seeded runs against the same runs through the Rust API
//! (`color_blind_packet`, the `..._counted` methods and `trtcm::Counters`).

use super::*;
use trtcm::{Counters, ThreeColorMarker, TwoBucket};

#[test]
fn packet_mode_and_counter_cases_and_bad_arguments() {
    c_cases(
        "meter_counted_test",
        "all packet mode and counter cases passed",
    );
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

/// The Rust calls a C marker run is compared with: the markers' own
/// `..._counted` methods.
trait Counted: ThreeColorMarker + Copy {
    fn blind_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color;
    fn aware_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color;
    fn blind_packet_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color;
    fn aware_packet_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color;
}

macro_rules! counted_by_the_marker {
    ($($m:ty),*) => {$(
        impl Counted for $m {
            fn blind_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color {
                self.color_blind_counted(p, t(k.now), k.len, c)
            }
            fn aware_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color {
                self.color_aware_counted(p, t(k.now), k.len, k.color, c)
            }
            fn blind_packet_counted(
                &mut self,
                p: &Self::Profile,
                k: &Pkt,
                c: &mut Counters,
            ) -> Color {
                self.color_blind_packet_counted(p, t(k.now), k.len, c)
            }
            fn aware_packet_counted(
                &mut self,
                p: &Self::Profile,
                k: &Pkt,
                c: &mut Counters,
            ) -> Color {
                self.color_aware_packet_counted(p, t(k.now), k.len, k.color, c)
            }
        }
    )*};
}

counted_by_the_marker!(SrTcm, TrTcm, Rfc4115);

/// The compact states have the trait's `..._counted` methods; in packet mode
/// (no `..._packet_counted` methods), `color_*_packet` and the packet
/// recorded.
impl<M: TwoBucket + core::fmt::Debug + Eq + core::hash::Hash> Counted for Compact<M> {
    fn blind_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color {
        self.color_blind_counted(p, t(k.now), k.len, c)
    }
    fn aware_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color {
        self.color_aware_counted(p, t(k.now), k.len, k.color, c)
    }
    fn blind_packet_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color {
        let color = self.color_blind_packet(p, t(k.now));
        c.record(color, k.len);
        color
    }
    fn aware_packet_counted(&mut self, p: &Self::Profile, k: &Pkt, c: &mut Counters) -> Color {
        let color = self.color_aware_packet(p, t(k.now), k.color);
        c.record(color, k.len);
        color
    }
}

/// The byte-mode counted runs of marker state `M` on profile `by`, as the C
/// side's `COUNTED_STREAMS`.
fn counted_runs<M: Counted>(
    name: &str,
    seed: u64,
    by: &M::Profile,
    read: impl Fn(&M) -> [u64; 3],
) -> Vec<String> {
    let m = M::start(by, t(1000));
    vec![
        marker(
            &format!("{name}_blind_counted"),
            seed,
            m,
            |s, k, c| s.blind_counted(by, k, c),
            &read,
        ),
        marker(
            &format!("{name}_aware_counted"),
            seed,
            m,
            |s, k, c| s.aware_counted(by, k, c),
            &read,
        ),
    ]
}

/// The six runs of marker state `M`, as the C side's `MARKER_STREAMS`:
/// packet mode on profile `pk`, plain, then counted around the byte-mode
/// counted runs on `by`.
fn marker_runs<M: Counted>(
    name: &str,
    seed: u64,
    by: &M::Profile,
    pk: &M::Profile,
    read: impl Fn(&M) -> [u64; 3],
) -> Vec<String> {
    let m = M::start(pk, t(1000));
    let mut lines = vec![
        marker(
            &format!("{name}_blind_packet"),
            seed,
            m,
            |s, k, _| s.color_blind_packet(pk, t(k.now)),
            &read,
        ),
        marker(
            &format!("{name}_aware_packet"),
            seed,
            m,
            |s, k, _| s.color_aware_packet(pk, t(k.now), k.color),
            &read,
        ),
    ];
    lines.extend(counted_runs(name, seed, by, &read));
    lines.push(marker(
        &format!("{name}_blind_packet_counted"),
        seed,
        m,
        |s, k, c| s.blind_packet_counted(pk, k, c),
        &read,
    ));
    lines.push(marker(
        &format!("{name}_aware_packet_counted"),
        seed,
        m,
        |s, k, c| s.aware_packet_counted(pk, k, c),
        &read,
    ));
    lines
}

/// The Rust side of `meter_counted_test stream SEED`, line by line.
fn rust_lines(seed: u64) -> Vec<String> {
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
    let (csk, ctk, cek) = (
        CompactProfile::new(sk).unwrap(),
        CompactProfile::new(tk).unwrap(),
        CompactProfile::new(ek).unwrap(),
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
    let mut lines = marker_runs("srtcm", seed, &sb, &sk, sr);
    lines.extend(marker_runs("trtcm", seed, &tb, &tk, tr));
    lines.extend(marker_runs("rfc4115", seed, &eb, &ek, er));
    let csr = |s: &Compact<SrTcm>| sr(&s.to_state());
    let ctr = |s: &Compact<TrTcm>| tr(&s.to_state());
    let cer = |s: &Compact<Rfc4115>| er(&s.to_state());
    lines.extend(marker_runs("srtcm_compact", seed, &csb, &csk, csr));
    lines.extend(marker_runs("trtcm_compact", seed, &ctb, &ctk, ctr));
    lines.extend(marker_runs("rfc4115_compact", seed, &ceb, &cek, cer));
    lines.extend([
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
    ]);
    lines
}

#[test]
fn packet_mode_and_counter_runs_through_c_equal_runs_through_rust() {
    c_streams("meter_counted_test", [3, 0x5eed_cafe], rust_lines, |rust| {
        for line in &rust {
            let (name, f) = fields(line);
            // Every run saw all three colors (or verdicts).
            assert!(f[..3].iter().all(|&n| n > 0), "{line}");
            // A counted run's counters hold exactly its colors (the
            // policer's: conforming green, nonconforming red, every drop
            // dropped); the others counted nothing.
            let (want, dropped) = match (name.ends_with("counted"), name.starts_with("policer")) {
                (false, _) => ([0; 3], 0),
                (true, false) => ([f[0], f[1], f[2]], 0),
                (true, true) => ([f[0] + f[2], 0, f[1]], f[1] + f[2]),
            };
            assert_eq!([f[3], f[4], f[5]], want, "{line}");
            assert_eq!(f[9], dropped, "{line}");
            assert_eq!(f[6] + f[7] + f[8] > 0, name.ends_with("counted"), "{line}");
        }
    });
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

//! Engine and traffic-model tests: determinism, ordering, serialization timing,
//! mean rates and on/off statistics.

use netcond_sim::engine::{EventQueue, Rng, Time, MS, SEC};
use netcond_sim::net::{Buffer, Link, Model, Network, Packet, Sim};
use netcond_sim::traffic::{
    Codec, FlowArrivals, Reroute, VideoModel, VideoSource, VoiceSource, DUAL_RATE, G711_10_VBR,
    G711_20_CBR, G711_20_VBR, G729_20_VBR,
};

#[test]
fn events_pop_in_time_then_schedule_order() {
    let mut q = EventQueue::new();
    let mut r = Rng::new(9);
    let mut expect = Vec::new();
    for i in 0..10_000u64 {
        let t = r.below(100);
        q.schedule(t, i);
        expect.push((t, i));
    }
    expect.sort(); // by time, then by the sequence (i increases with scheduling)
    let got: Vec<(Time, u64)> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(got, expect);
    assert_eq!(q.events(), 10_000);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pkt(u32);

impl Packet for Pkt {
    fn wire_len(&self) -> u32 {
        1500
    }
}

/// Sends packet `i` on link 0 at its event, and keeps what reaches the far
/// end: a scenario's side of a run on the one event loop.
struct FarEnd(Vec<(Pkt, Time)>);

impl Model<Pkt, ()> for FarEnd {
    type Ev = u32;
    fn on_event(&mut self, sim: &mut Sim<Pkt, (), u32>, _now: Time, i: u32) {
        sim.send(self, 0, Pkt(i));
    }
    fn on_deliver(&mut self, _sim: &mut Sim<Pkt, (), u32>, _link: u32, at: Time, pkt: Pkt) {
        self.0.push((pkt, at));
    }
}

#[test]
fn link_serialization_and_propagation_timing() {
    // 64 kbit/s, 1 s latency (the bottleneck of Toomey's Scenario 7): 1500 B take 187.5 ms.
    let mut net = Network::new(());
    net.add(Link::fifo(64_000, SEC, Buffer::Bytes(15_000)));
    let mut sim = Sim::new(net);
    for i in 0..12 {
        sim.schedule(0, i);
    }
    let mut far = FarEnd(Vec::new());
    sim.run(&mut far, 0);
    assert!(
        far.0.is_empty(),
        "a FIFO hands a packet back when it leaves"
    );
    assert_eq!(
        sim.net.links[0].stats.drops, 1,
        "only the 12th packet overflows 10 + 1"
    );
    assert_eq!(sim.net.links[0].len_packets(), 11);
    sim.run(&mut far, Time::MAX);
    assert_eq!(far.0.len(), 11);
    for (k, &(pkt, at)) in far.0.iter().enumerate() {
        assert_eq!(pkt, Pkt(k as u32));
        assert_eq!(at, (k as u64 + 1) * 187_500_000 + SEC);
    }
    assert_eq!(sim.net.links[0].stats.done_bytes, 11 * 1500);
    assert_eq!(
        sim.events(),
        12 + 11,
        "the sends and the ends of transmission"
    );
}

/// Drives one voice flow for `secs` seconds; returns (bytes, on time fraction,
/// mean spurt length s, mean silence length s).
fn drive(codec: Codec, secs: u64, seed: u64) -> (u64, f64, f64, f64) {
    let mut rng = Rng::new(seed);
    let (mut src, mut t) = VoiceSource::start(codec, 0, &mut rng);
    let end = secs * SEC;
    let mut bytes = 0;
    let (mut on_time, mut spurts, mut silences, mut off_time) = (0u64, 0u64, 0u64, 0u64);
    let mut state = src.is_on();
    let mut since = 0;
    while t < end {
        let (pkt, next) = src.fire(t, &mut rng);
        bytes += u64::from(pkt.unwrap_or(0));
        if src.is_on() != state {
            if state {
                on_time += t - since;
                spurts += 1;
            } else {
                off_time += t - since;
                silences += 1;
            }
            state = src.is_on();
            since = t;
        }
        t = next;
    }
    let frac = on_time as f64 / (on_time + off_time).max(1) as f64;
    (
        bytes,
        frac,
        on_time as f64 / spurts.max(1) as f64 / 1e9,
        off_time as f64 / silences.max(1) as f64 / 1e9,
    )
}

#[test]
fn cbr_codecs_send_their_exact_rate() {
    for c in [G711_20_CBR, DUAL_RATE] {
        let (bytes, ..) = drive(c, 100, 1);
        let rate = bytes as f64 * 8.0 / 100.0;
        assert!(
            (rate / c.peak_bps() - 1.0).abs() < 1e-3,
            "{}: {rate}",
            c.name
        );
    }
}

#[test]
fn on_off_codecs_mean_rate_and_periods() {
    // Many independent flows, 2000 s each: the mean rate within 1.5 %, the mean
    // talk spurt and silence within 3 % of 1.004 s and 1.590 s.
    for (k, c) in [G711_20_VBR, G711_10_VBR, G729_20_VBR]
        .into_iter()
        .enumerate()
    {
        let (mut bytes, mut on, mut off) = (0u64, 0.0, 0.0);
        let n = 20;
        for s in 0..n {
            let (b, _, m_on, m_off) = drive(c, 2000, 100 * k as u64 + s);
            bytes += b;
            on += m_on / n as f64;
            off += m_off / n as f64;
        }
        let rate = bytes as f64 * 8.0 / (2000.0 * n as f64);
        assert!(
            (rate / c.mean_bps() - 1.0).abs() < 0.015,
            "{}: {rate} vs {}",
            c.name,
            c.mean_bps()
        );
        assert!((on / 1.004 - 1.0).abs() < 0.03, "{}: spurt {on}", c.name);
        assert!(
            (off / 1.590 - 1.0).abs() < 0.03,
            "{}: silence {off}",
            c.name
        );
    }
}

#[test]
fn video_mean_rate_and_packetization() {
    let m = VideoModel::maglaris(400_000.0);
    let mut rng = Rng::new(5);
    let (mut src, _) = VideoSource::start(m, 0, &mut rng);
    let mut out = Vec::new();
    let (mut payload_bits, mut frames) = (0u64, 0u64);
    for _ in 0..300_000 {
        src.frame(&mut rng, &mut out);
        frames += 1;
        for (i, &len) in out.iter().enumerate() {
            assert!(len <= 1356 && len > 40);
            if i + 1 < out.len() {
                assert_eq!(len, 1356, "only the last packet of a frame may be short");
            }
            payload_bits += u64::from(len - 40) * 8;
        }
    }
    let rate = payload_bits as f64 / (frames as f64 / 30.0);
    // Rounding the remainder up to whole bytes adds < 4 bits per frame; the
    // truncation at zero bits adds a little too.
    assert!((rate / 400_000.0 - 1.0).abs() < 0.02, "{rate}");
}

#[test]
fn poisson_arrivals_and_holding_times() {
    let a = FlowArrivals {
        rate_per_sec: 2.5,
        batch_mean: 3.0,
        mean_holding: 60 * SEC,
        max_media_delay: 10 * SEC,
    };
    let mut r = Rng::new(11);
    let n = 100_000;
    let (mut gaps, mut batch, mut hold, mut media, mut media_max) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for _ in 0..n {
        gaps += a.next_gap(&mut r);
        batch += a.batch(&mut r);
        hold += a.holding(&mut r);
        let m = a.media_delay(&mut r);
        media += m;
        media_max = media_max.max(m);
    }
    let nf = n as f64;
    assert!((gaps as f64 / nf / 4e8 - 1.0).abs() < 0.01);
    assert!((batch as f64 / nf / 3.0 - 1.0).abs() < 0.02);
    assert!((hold as f64 / nf / 6e10 - 1.0).abs() < 0.01);
    assert!((media as f64 / nf / 5e9 - 1.0).abs() < 0.01);
    assert!(media_max < 10 * SEC);
}

#[test]
fn reroute_schedules() {
    let mut r = Rng::new(2);
    let t = Reroute::SEED_SLOW.start_times(500, 3 * SEC, &mut r);
    assert_eq!(t.iter().filter(|&&x| x < 4 * SEC).count(), 400);
    assert!(t.windows(2).all(|w| w[0] <= w[1]));
    assert!(*t.last().unwrap() < 9 * SEC);
    assert!(Reroute::Instant
        .start_times(3, 7 * MS, &mut r)
        .iter()
        .all(|&x| x == 7 * MS));
}

#[test]
fn same_seed_same_stream() {
    let mut a = Rng::new(77);
    let mut b = Rng::new(77);
    let mut c = Rng::new(78);
    let va: Vec<u64> = (0..100).map(|_| a.u64()).collect();
    let vb: Vec<u64> = (0..100).map(|_| b.u64()).collect();
    let vc: Vec<u64> = (0..100).map(|_| c.u64()).collect();
    assert_eq!(va, vb);
    assert_ne!(va, vc);
}

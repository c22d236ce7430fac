//! The `codel`, `fq_codel`, `pie`, `fq_pie` and `dualpi2` stages over
//! captures: the link sends at its rate, the AQMs hold the standing delay near
//! their targets under an overload that a FIFO would let grow without bound,
//! FQ-CoDel and FQ-PIE isolate a light flow from a heavy one, DualPI2 keeps
//! its L4S queue short beside a loaded Classic queue, marks replace drops
//! with ECN, and the counters add up. Also the color-aware meters' `colors=`
//! tables.

mod common;

use common::*;
use netcond_pcap::packet::{parse, Link};
use netcond_pcap::synth::{frame, write_pcap, Stream};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

type Frames = Vec<(u64, Vec<u8>)>;

fn src_port(f: &[u8]) -> u16 {
    let i = parse(Link::Ethernet, f).unwrap().unwrap();
    i.ports[0]
}

fn tos(f: &[u8]) -> u8 {
    parse(Link::Ethernet, f).unwrap().unwrap().tos
}

fn write_frames(path: &Path, frames: &[(u64, Vec<u8>)]) {
    let mut pw = PcapWriter::with_header(
        BufWriter::new(std::fs::File::create(path).unwrap()),
        PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            ..PcapHeader::default()
        },
    )
    .unwrap();
    for (t, f) in frames {
        pw.write_packet(&PcapPacket {
            timestamp: Duration::from_nanos(*t),
            orig_len: f.len() as u32,
            data: Cow::Borrowed(f),
        })
        .unwrap();
    }
}

fn run_file(name: &str, inp: &Path, chain: &str) -> (Frames, Frames, String) {
    let out = inp.with_file_name(format!("{name}-out.pcap"));
    let (rc, so, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", chain]);
    assert_eq!(rc, 0, "{se}");
    (read_pcap(inp), read_pcap(&out), so)
}

fn run(name: &str, s: &Stream, chain: &str) -> (Frames, Frames, String) {
    let d = dir(name);
    let inp = d.join("in.pcap");
    write_pcap(s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    run_file(name, &inp, chain)
}

/// Every packet out is matched to its arrival by its (unique) source port:
/// (arrival, departure) pairs in departure order.
fn delays(inp: &Frames, out: &Frames) -> Vec<(u64, u64)> {
    let at: BTreeMap<u16, u64> = inp.iter().map(|(t, f)| (src_port(f), *t)).collect();
    assert_eq!(at.len(), inp.len(), "source ports must be unique");
    out.iter().map(|(t, f)| (at[&src_port(f)], *t)).collect()
}

/// Back-to-back departures of 1000-byte packets at `bps` are at least the
/// transmission time apart (integer ns, so one ns of rounding).
fn assert_link_rate(out: &Frames, bps: u64) {
    let tx = 1000 * 8 * 1_000_000_000 / bps;
    for w in out.windows(2) {
        assert!(
            w[1].0 >= w[0].0 + tx - 1,
            "departures {} and {} closer than {tx} ns",
            w[0].0,
            w[1].0
        );
    }
}

/// 1000-byte IP packets every 800 us (10 Mbit/s), each its own source port.
fn overload(packets: u64, tos: u8) -> Stream {
    Stream {
        packets,
        payload: 972,
        gap_ns: 800_000,
        flows: 60_000,
        tos,
        ..Stream::default()
    }
}

/// CoDel behind a 9 Mbit/s link offered 10 Mbit/s (10 % too much, no
/// sender slowing down): RFC 8289's behaviour is that the standing queue
/// stays bounded; a tail-drop FIFO of 1000 packets would reach 0.9 s.
#[test]
fn codel_bounds_the_standing_delay() {
    for law in ["linux", "exact"] {
        let s = overload(25_000, 0);
        let (inp, out, so) = run(
            &format!("codel-{law}"),
            &s,
            &format!("codel rate=9mbit target=5ms interval=100ms law={law}"),
        );
        assert_link_rate(&out, 9_000_000);
        let d = delays(&inp, &out);
        // Departures in arrival order (a FIFO).
        assert!(d.windows(2).all(|w| w[1].0 > w[0].0));
        let (dropped, _) = stage_row(&so, 1, "dropped");
        let (enq, _) = stage_row(&so, 1, "enqueued");
        assert_eq!(enq, inp.len() as u64, "no tail drop: {so}");
        assert_eq!(enq - dropped, out.len() as u64);
        assert_eq!(total_row(&so, "dropped").0, dropped);
        // About one packet in ten must go for the link to keep up.
        let frac = dropped as f64 / inp.len() as f64;
        assert!(
            (0.05..0.15).contains(&frac),
            "{law}: dropped {dropped} of {}",
            inp.len()
        );
        // After the first 10 s, no packet waited 100 ms (a sojourn of 20
        // intervals would mean CoDel lost control).
        let start = inp[0].0;
        let worst = d
            .iter()
            .filter(|(a, _)| a - start > 10_000_000_000)
            .map(|(a, t)| t - a)
            .max()
            .unwrap();
        assert!(worst < 100_000_000, "{law}: worst delay {worst} ns");
        assert_eq!(stage_row(&so, 1, "ce-marked").0, 0);
    }
}

/// With `ecn` and ECT(0) packets CoDel marks instead of dropping: nothing is
/// lost, and the packets carrying CE are exactly the ones counted. (The
/// marks do not slow this sender, so the queue grows by about 10 % of the
/// arrivals: a limit above that keeps the tail drop out of the test.)
#[test]
fn codel_ecn_marks() {
    let s = overload(12_000, 0b10);
    let (inp, out, so) = run("codel-ecn", &s, "codel rate=9mbit ecn limit=5000");
    assert_eq!(out.len(), inp.len());
    let marked = out.iter().filter(|(_, f)| tos(f) & 3 == 3).count() as u64;
    assert!(marked > 0);
    assert_eq!(stage_row(&so, 1, "ce-marked").0, marked, "{so}");
    assert_eq!(stage_row(&so, 1, "dropped").0, 0);
    assert_eq!(stage_row(&so, 1, "over-limit").0, 0);
}

/// Under a 2x overload the packet limit tail-drops: the queue never holds
/// more than `limit`, so no packet waits longer than `limit + 1`
/// transmissions; a byte limit works the same way.
#[test]
fn codel_limit() {
    let s = Stream {
        gap_ns: 400_000,
        ..overload(3_000, 0)
    };
    for (limit, pkts) in [("20", 20u64), ("20p", 20), ("20000b", 20)] {
        let (inp, out, so) = run(
            "codel-limit",
            &s,
            &format!("codel rate=10mbit limit={limit}"),
        );
        let (over, _) = stage_row(&so, 1, "over-limit");
        let (enq, _) = stage_row(&so, 1, "enqueued");
        let (dropped, _) = stage_row(&so, 1, "dropped");
        assert!(over > 1000, "{limit}: {so}");
        assert_eq!(enq + over, inp.len() as u64);
        assert_eq!(enq - dropped, out.len() as u64);
        let tx = 800_000u64;
        for (a, t) in delays(&inp, &out) {
            assert!(t - a <= (pkts + 1) * tx, "{limit}: waited {} ns", t - a);
        }
    }
}

/// PIE on the same 10 % overload: the drop probability rises until the
/// queue delay settles about QDELAY_REF (15 ms).
#[test]
fn pie_holds_the_delay_near_target() {
    let s = overload(25_000, 0);
    let (inp, out, so) = run("pie", &s, "pie rate=9mbit target=15ms tupdate=15ms");
    assert_link_rate(&out, 9_000_000);
    let d = delays(&inp, &out);
    let (dropped, _) = stage_row(&so, 1, "dropped");
    let (enq, _) = stage_row(&so, 1, "enqueued");
    assert_eq!(enq + dropped, inp.len() as u64, "{so}");
    assert_eq!(enq, out.len() as u64);
    let start = inp[0].0;
    let late: Vec<u64> = d
        .iter()
        .filter(|(a, _)| a - start > 10_000_000_000)
        .map(|(a, t)| t - a)
        .collect();
    let mean = late.iter().sum::<u64>() / late.len() as u64;
    assert!(
        (5_000_000..45_000_000).contains(&mean),
        "mean delay {mean} ns"
    );
    assert!(*late.iter().max().unwrap() < 150_000_000);
    let frac = dropped as f64 / inp.len() as f64;
    assert!((0.05..0.2).contains(&frac), "dropped {dropped}");
}

/// PIE's limit drops arrivals at a full queue, counted apart from the early drops.
#[test]
fn pie_limit_and_ecn() {
    let s = Stream {
        gap_ns: 400_000,
        ..overload(3_000, 0b01)
    };
    let (inp, out, so) = run("pie-limit", &s, "pie rate=10mbit limit=30 ecn");
    let (over, _) = stage_row(&so, 1, "over-limit");
    let (enq, _) = stage_row(&so, 1, "enqueued");
    let (dropped, _) = stage_row(&so, 1, "dropped");
    assert!(over > 0, "{so}");
    assert_eq!(enq + over + dropped, inp.len() as u64);
    assert_eq!(enq, out.len() as u64);
    let marked = out.iter().filter(|(_, f)| tos(f) & 3 == 3).count() as u64;
    assert_eq!(stage_row(&so, 1, "ce-marked").0, marked);
}

/// FQ-CoDel: a light flow (100-byte packets, 0.8 Mbit/s) sharing a 9 Mbit/s
/// link with a heavy one (10 Mbit/s of 1000-byte packets) loses nothing and
/// waits at most a few packet times; the heavy flow takes the drops.
#[test]
fn fq_codel_isolates_a_light_flow() {
    fq_isolates_a_light_flow("fq_codel rate=9mbit");
}

/// FQ-PIE, the same: the light flow's own PIE sees no standing queue.
#[test]
fn fq_pie_isolates_a_light_flow() {
    fq_isolates_a_light_flow("fq_pie rate=9mbit");
}

fn fq_isolates_a_light_flow(chain: &str) {
    let heavy = Stream {
        flows: 1,
        ..overload(12_500, 0)
    };
    let light = Stream {
        packets: 10_000,
        payload: 72, // 100-byte IP packets
        gap_ns: 1_000_000,
        flows: 1,
        start_ns: heavy.start_ns + 123_456,
        ..Stream::default()
    };
    let mut frames = Vec::new();
    let hp = vec![0x5a; heavy.payload];
    for i in 0..heavy.packets {
        frames.push((heavy.start_ns + i * heavy.gap_ns, frame(&heavy, i, &hp)));
    }
    let lp = vec![0x5a; light.payload];
    for i in 0..light.packets {
        let mut f = frame(&light, i, &lp);
        // Another source port: another flow (the heavy one uses 10000).
        f[34..36].copy_from_slice(&20_000u16.to_be_bytes());
        f[40..42].copy_from_slice(&[0, 0]); // no UDP checksum
        frames.push((light.start_ns + i * light.gap_ns, f));
    }
    frames.sort_by_key(|x| x.0);
    let d = dir(&format!("fq-{}", chain.split(' ').next().unwrap()));
    let inp = d.join("in.pcap");
    write_frames(&inp, &frames);
    let (inp, out, so) = run_file("fq", &inp, chain);
    let light_in: Vec<u64> = inp
        .iter()
        .filter(|(_, f)| src_port(f) == 20_000)
        .map(|x| x.0)
        .collect();
    let light_out: Vec<u64> = out
        .iter()
        .filter(|(_, f)| src_port(f) == 20_000)
        .map(|x| x.0)
        .collect();
    assert_eq!(
        light_out.len(),
        light_in.len(),
        "the light flow lost packets"
    );
    // One heavy packet in transmission (889 us) and at most a quantum's
    // worth ahead of it, then its own 89 us.
    for (a, t) in light_in.iter().zip(&light_out) {
        assert!(
            t - a < 3_000_000,
            "{chain}: light packet waited {} ns",
            t - a
        );
    }
    let (dropped, _) = stage_row(&so, 1, "dropped");
    let heavy_out = out.len() - light_out.len();
    assert_eq!(
        dropped as usize,
        heavy.packets as usize - heavy_out,
        "{chain}: {so}"
    );
    assert!(dropped > 500, "{chain}: {so}");
    assert_link_rate_mixed(&out, 9_000_000);
}

fn assert_link_rate_mixed(out: &Frames, bps: u64) {
    for w in out.windows(2) {
        let len = u64::from(parse(Link::Ethernet, &w[1].1).unwrap().unwrap().len);
        let tx = len * 8 * 1_000_000_000 / bps;
        assert!(w[1].0 >= w[0].0 + tx - 1);
    }
}

/// FQ-CoDel's packet limit drops from the head of the fattest flow.
#[test]
fn fq_codel_overflow_hits_the_fat_flow() {
    let s = Stream {
        gap_ns: 400_000,
        flows: 1,
        ..overload(2_000, 0)
    };
    let (inp, out, so) = run(
        "fq-limit",
        &s,
        "fq_codel rate=10mbit limit=50 flows=16 quantum=1000",
    );
    let (over, _) = stage_row(&so, 1, "over-limit");
    let (enq, _) = stage_row(&so, 1, "enqueued");
    let (dropped, _) = stage_row(&so, 1, "dropped");
    assert!(over > 500, "{so}");
    assert_eq!(enq, inp.len() as u64);
    assert_eq!(enq - over - dropped, out.len() as u64, "{so}");
}

/// FQ-PIE's packet limit counts over all flows; an arrival finding it
/// full is counted as over the limit, apart from PIE's early drops.
#[test]
fn fq_pie_limit_and_ecn() {
    let s = Stream {
        gap_ns: 400_000,
        flows: 4,
        ..overload(3_000, 0b10)
    };
    let (inp, out, so) = run("fq-pie-limit", &s, "fq_pie rate=10mbit limit=40 ecn");
    let (over, _) = stage_row(&so, 1, "over-limit");
    let (enq, _) = stage_row(&so, 1, "enqueued");
    let (dropped, _) = stage_row(&so, 1, "dropped");
    assert!(over > 500, "{so}");
    assert_eq!(enq + over + dropped, inp.len() as u64, "{so}");
    assert_eq!(enq, out.len() as u64);
    let marked = out.iter().filter(|(_, f)| tos(f) & 3 == 3).count() as u64;
    assert_eq!(stage_row(&so, 1, "ce-marked").0, marked);
    // The queue never holds more than the limit (40 packets of 800 us on
    // the link): the last departure is within 41 transmissions of the last
    // arrival.
    assert!(out.last().unwrap().0 <= inp.last().unwrap().0 + 41 * 800_000);
}

/// DualPI2 on a 10 Mbit/s link: a Classic sender (Not-ECT, 8 Mbit/s) and an
/// L4S sender (ECT(1), 3 Mbit/s), neither slowing down. The Classic queue
/// is held near its 15 ms target by drops (p_C = p'^2); the L4S packets,
/// served first by the time-shifted FIFO, wait about a packet time and are
/// marked, never dropped (k p' stays below one).
#[test]
fn dualpi2_keeps_the_l4s_queue_short() {
    let classic = Stream {
        packets: 20_000,
        payload: 972,
        gap_ns: 1_000_000,
        flows: 60_000,
        ..Stream::default()
    };
    let l4s = Stream {
        packets: 7_500,
        payload: 972,
        gap_ns: 2_666_667,
        flows: 1,
        tos: 0b01,
        start_ns: classic.start_ns + 345_678,
        ..Stream::default()
    };
    let mut frames = Vec::new();
    let pay = vec![0x5a; 972];
    for i in 0..classic.packets {
        frames.push((
            classic.start_ns + i * classic.gap_ns,
            frame(&classic, i, &pay),
        ));
    }
    for i in 0..l4s.packets {
        let mut f = frame(&l4s, i, &pay);
        // Ports 40000 and up: every packet its own source port.
        f[34..36].copy_from_slice(&(40_000 + i as u16).to_be_bytes());
        f[40..42].copy_from_slice(&[0, 0]); // no UDP checksum
        frames.push((l4s.start_ns + i * l4s.gap_ns, f));
    }
    frames.sort_by_key(|x| x.0);
    let d = dir("dualpi2");
    let inp = d.join("in.pcap");
    write_frames(&inp, &frames);
    let (inp, out, so) = run_file("dualpi2", &inp, "dualpi2 rate=10mbit");
    assert_link_rate(&out, 10_000_000);
    let (enq, _) = stage_row(&so, 1, "enqueued");
    let (dropped, _) = stage_row(&so, 1, "dropped");
    let (over, _) = stage_row(&so, 1, "over-limit");
    assert_eq!(over, 0, "{so}");
    assert_eq!(enq, inp.len() as u64);
    assert_eq!(enq - dropped, out.len() as u64, "{so}");
    let marked = out.iter().filter(|(_, f)| tos(f) & 3 == 3).count() as u64;
    assert_eq!(stage_row(&so, 1, "ce-marked").0, marked);
    let start = inp[0].0;
    let (mut ld, mut cd) = (Vec::new(), Vec::new());
    let l4s_port = |f: &[u8]| src_port(f) >= 40_000;
    let l4s_in = inp.iter().filter(|(_, f)| l4s_port(f)).count();
    let l4s_out = out.iter().filter(|(_, f)| l4s_port(f)).count();
    assert_eq!(l4s_out, l4s_in, "L4S packets dropped: {so}");
    let at: BTreeMap<u16, u64> = inp.iter().map(|(t, f)| (src_port(f), *t)).collect();
    for (t, f) in &out {
        let a = at[&src_port(f)];
        if a - start > 10_000_000_000 {
            if l4s_port(f) {
                ld.push(t - a);
            } else {
                cd.push(t - a);
            }
        }
    }
    let mean = |v: &[u64]| v.iter().sum::<u64>() / v.len() as u64;
    let (lm, cm) = (mean(&ld), mean(&cd));
    eprintln!(
        "dualpi2: L4S mean {lm} ns, max {}, Classic mean {cm} ns; {so}",
        ld.iter().max().unwrap()
    );
    assert!(lm < 2_000_000, "L4S mean delay {lm} ns");
    assert!(
        (5_000_000..45_000_000).contains(&cm),
        "Classic mean delay {cm} ns"
    );
    let l4s_marked = out
        .iter()
        .filter(|(_, f)| l4s_port(f) && tos(f) & 3 == 3)
        .count();
    assert!(l4s_marked > 100, "{l4s_marked}");
}

fn af_trace(path: &Path, vlan: bool) -> Vec<(u64, Vec<u8>)> {
    // AF11, AF12, AF13 in turn: 300 packets of 500 bytes, 1 ms apart
    // (4 Mbit/s in all), PCP 0, 3 and 5 when tagged.
    let mut frames = Vec::new();
    for i in 0..300u64 {
        let dscp = [10u8, 12, 14][(i % 3) as usize];
        let s = Stream {
            packets: 1,
            payload: 472,
            tos: dscp << 2,
            ..Stream::default()
        };
        let mut f = frame(&s, i, &vec![0; s.payload]);
        if vlan {
            let pcp = [0u8, 3, 5][(i % 3) as usize];
            let tci = (u16::from(pcp) << 13) | 100;
            let mut g = f[..12].to_vec();
            g.extend_from_slice(&0x8100u16.to_be_bytes());
            g.extend_from_slice(&tci.to_be_bytes());
            g.extend_from_slice(&f[12..]);
            f = g;
        }
        frames.push((s.start_ns + i * 1_000_000, f));
    }
    write_frames(path, &frames);
    frames
}

/// A color-aware srTCM, trTCM and RFC 4115 meter with far more tokens than
/// the traffic needs keeps each packet's input color: AF11 green, AF12
/// yellow, AF13 red (RFC 2597 with `colors=rfc2597`), where a color-blind
/// meter makes all green. The colors are read from the DSCP, or the PCP.
#[test]
fn input_colors_from_the_af_dscps() {
    let d = dir("colors");
    let inp = d.join("in.pcap");
    af_trace(&inp, false);
    for meter in [
        "srtcm cir=100mbit cbs=64k ebs=64k",
        "trtcm cir=100mbit pir=200mbit cbs=64k pbs=64k",
        "rfc4115 cir=100mbit eir=100mbit cbs=64k ebs=64k",
    ] {
        let (_, _, so) = run_file("blind", &inp, meter);
        assert_eq!(stage_row(&so, 1, "green").0, 300, "{meter}: {so}");
        for colors in [
            "rfc2597",
            "dscp:af11=green,af12=yellow,14=red",
            "dscp:af12=y,af13=r",
        ] {
            let (_, out, so) = run_file(
                "aware",
                &inp,
                &format!("{meter} colors={colors} -> dscp cs1,cs2,cs3"),
            );
            assert_eq!(stage_row(&so, 1, "green").0, 100, "{meter} {colors}: {so}");
            assert_eq!(stage_row(&so, 1, "yellow").0, 100);
            assert_eq!(stage_row(&so, 1, "red").0, 100);
            // Each AF packet is rewritten by its own color.
            for (i, (_, f)) in out.iter().enumerate() {
                assert_eq!(
                    tos(f) >> 2,
                    [8, 16, 24][i % 3],
                    "{meter} {colors} packet {i}"
                );
            }
        }
    }
    // A meter with too few tokens still demotes: at 1 Mbit/s with 4 Mbit/s
    // offered, green input can turn yellow or red, but a yellow input never
    // turns green and a red input stays red (RFC 2697 section 3).
    let (_, out, _) = run_file(
        "aware-demote",
        &inp,
        "srtcm cir=1mbit cbs=3k ebs=3k colors=rfc2597 -> dscp cs1,cs2,cs3",
    );
    for (i, (_, f)) in out.iter().enumerate() {
        let c = tos(f) >> 2;
        match i % 3 {
            1 => assert_ne!(c, 8, "packet {i}: AF12 came out green"),
            2 => assert_eq!(c, 24, "packet {i}: AF13 came out {c}"),
            _ => {}
        }
    }
    // The VLAN PCP: 0 green (unlisted), 3 yellow, 5 red.
    let inp = d.join("vlan.pcap");
    af_trace(&inp, true);
    let (_, _, so) = run_file(
        "pcp",
        &inp,
        "srtcm cir=100mbit cbs=64k ebs=64k colors=pcp:3=yellow,5=red",
    );
    assert_eq!(stage_row(&so, 1, "green").0, 100, "{so}");
    assert_eq!(stage_row(&so, 1, "yellow").0, 100);
    assert_eq!(stage_row(&so, 1, "red").0, 100);
}

/// The `pie` stage against a direct simulation with the library: the same
/// link (8 Mbit/s, 1000-byte packets: 1 ms each), a PIE timer that runs every
/// T_UPDATE also through the idle periods, and the same random draws. Bursts
/// of 2 s at 10 Mbit/s with 3 s of silence between them exercise the
/// replay of the idle updates. (The simulation's clock starts at zero, 1.7e18
/// ns before the capture: there, an idle update that changes nothing is
/// followed at once by the last one due, as the stage does, rather than by
/// 10^11 identical ones.) The dropped packets and every departure time
/// must be the same. (The timestamps avoid ties between the timer and the
/// packets: arrivals are 123 ns off the 100 us grid of the timer.)
#[test]
fn pie_stage_equals_a_direct_simulation() {
    use netcond::base::{Instant, SplitMix64};
    use netcond::delay::{Head, Pie, PieConfig, PieProfile, Verdict};
    use std::collections::VecDeque;

    let start = 1_700_000_000_000_000_123u64;
    let mut arrivals = Vec::new();
    for burst in 0..4u64 {
        for i in 0..2_500u64 {
            arrivals.push(start + burst * 5_000_000_000 + i * 800_000);
        }
    }
    let s = Stream {
        payload: 972,
        flows: 60_000,
        ..Stream::default()
    };
    let payload = vec![0x5a; s.payload];
    let frames: Vec<(u64, Vec<u8>)> = arrivals
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, frame(&s, i as u64, &payload)))
        .collect();
    let d = dir("pie-ref");
    let inp = d.join("in.pcap");
    write_frames(&inp, &frames);
    let (inp, out, so) = run_file("pie-ref", &inp, "pie rate=8mbit");

    // The direct simulation.
    let prof = PieProfile::new(&PieConfig::linux()).unwrap();
    let mut pie = Pie::new(&prof, Instant::ZERO);
    let mut rng = SplitMix64::new(1);
    let mut queue: VecDeque<(usize, u64)> = VecDeque::new();
    let mut busy: Option<(usize, u64)> = None;
    let mut departures: Vec<(usize, u64)> = Vec::new();
    let mut dropped = Vec::new();
    // Runs the timer and the link up to `t` (inclusive), in time order.
    let advance = |t: u64,
                   pie: &mut Pie,
                   queue: &mut VecDeque<(usize, u64)>,
                   busy: &mut Option<(usize, u64)>,
                   departures: &mut Vec<(usize, u64)>| loop {
        let timer = pie.next_update().ticks();
        let link = busy.map_or(u64::MAX, |b| b.1);
        if timer.min(link) > t {
            break;
        }
        if timer < link {
            let before = (pie.prob(), pie.qdelay_old(), pie.burst_time());
            pie.poll(&prof, Instant::from_ticks(timer), queue.len() as u64 * 1000);
            // Idle and an update that changed nothing: the next ones, with
            // the same inputs, change nothing either; run the last one due
            // by `t` (the periodic timer's instant) at once.
            let after = (pie.prob(), pie.qdelay_old(), pie.burst_time());
            if queue.is_empty() && busy.is_none() && after == before {
                let nu = pie.next_update().ticks();
                if nu <= t {
                    let last = nu + (t - nu) / 15_000_000 * 15_000_000;
                    pie.poll(&prof, Instant::from_ticks(last), 0);
                }
            }
        } else {
            let (id, end) = busy.take().unwrap();
            departures.push((id, end));
            if let Some((nid, enq)) = queue.pop_front() {
                let backlog = queue.len() as u64 * 1000;
                pie.on_dequeue(
                    &prof,
                    Instant::from_ticks(end),
                    Head::new(Instant::from_ticks(enq), 1000, false),
                    backlog,
                );
                *busy = Some((nid, end + 1_000_000));
            }
        }
    };
    for (id, &t) in arrivals.iter().enumerate() {
        advance(t, &mut pie, &mut queue, &mut busy, &mut departures);
        let v = pie.on_arrival(
            &prof,
            Instant::from_ticks(t),
            Head::new(Instant::from_ticks(t), 1000, false),
            queue.len() as u32,
            queue.len() as u64 * 1000,
            &mut rng,
        );
        if v == Verdict::Drop {
            dropped.push(id);
            continue;
        }
        queue.push_back((id, t));
        if busy.is_none() {
            let (nid, enq) = queue.pop_front().unwrap();
            pie.on_dequeue(
                &prof,
                Instant::from_ticks(t),
                Head::new(Instant::from_ticks(enq), 1000, false),
                queue.len() as u64 * 1000,
            );
            busy = Some((nid, t + 1_000_000));
        }
    }
    while busy.is_some() {
        let t = busy.unwrap().1;
        advance(t, &mut pie, &mut queue, &mut busy, &mut departures);
    }
    assert!(dropped.len() > 100, "{}", dropped.len());
    assert_eq!(stage_row(&so, 1, "dropped").0, dropped.len() as u64, "{so}");
    let port = |i: usize| src_port(&inp[i].1);
    let want: Vec<(u16, u64)> = departures.iter().map(|&(i, t)| (port(i), t)).collect();
    let got: Vec<(u16, u64)> = out.iter().map(|(t, f)| (src_port(f), *t)).collect();
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "departure {k}");
    }
}

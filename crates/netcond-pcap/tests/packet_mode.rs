//! The meters in packet mode (`mode=packets`): what the chain parser takes
//! and refuses, and end to end that a packet-mode stage colors a capture of
//! varied packet lengths exactly as the library's packet-mode calls do, the
//! same whatever the lengths.

mod common;

use common::*;
use netcond::base::{Color, Instant, LengthAdjust, Rate};
use netcond::trtcm::{
    Mode, Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm,
    TrTcmConfig, TrTcmProfile,
};
use netcond_pcap::chain::{parse_chain, Colors, Stage};
use netcond_pcap::engine::{describe, Engine};
use netcond_pcap::flows::Classify;
use netcond_pcap::packet::{parse, Link};
use netcond_pcap::synth::{frame, Stream};
use netcond_pcap::{run, Options};
use pcap_file::pcap::PcapPacket;
use std::path::Path;

#[test]
fn parses_packet_mode() {
    let c = parse_chain("srtcm mode=packets cir=1000 cbs=16 ebs=0 -> drop-red").unwrap();
    assert_eq!(
        c[0],
        Stage::SrTcm {
            cir: Rate::from_bytes_per_sec(1000),
            cbs: 16,
            ebs: 0,
            adjust: LengthAdjust::NONE,
            colors: None,
            mode: Mode::Packets,
        }
    );
    assert_eq!(
        describe(&c[0]),
        "srtcm mode=packets cir=1000pps cbs=16p ebs=0p"
    );
    let c = parse_chain("trtcm mode=Packets cir=100 pir=200 cbs=10 pbs=20 colors=rfc2597").unwrap();
    assert_eq!(
        c[0],
        Stage::TrTcm {
            cir: Rate::from_bytes_per_sec(100),
            pir: Rate::from_bytes_per_sec(200),
            cbs: 10,
            pbs: 20,
            adjust: LengthAdjust::NONE,
            colors: Some(Colors::RFC2597),
            mode: Mode::Packets,
        }
    );
    assert_eq!(
        describe(&c[0]),
        "trtcm mode=packets cir=100pps pir=200pps cbs=10p pbs=20p colors=rfc2597"
    );
    // RFC 4115 may go without its excess rate and bucket.
    let c = parse_chain("rfc4115 mode=packets cir=50 eir=0 cbs=4 ebs=0").unwrap();
    assert!(matches!(
        c[0],
        Stage::Rfc4115 { eir, ebs: 0, mode: Mode::Packets, .. } if eir.is_zero()
    ));
    // mode=bytes is the default, and what it was before: tc's units.
    let a = parse_chain("srtcm mode=bytes cir=1mbit cbs=8k ebs=8k").unwrap();
    let b = parse_chain("srtcm cir=1mbit cbs=8k ebs=8k").unwrap();
    assert_eq!(a, b);
    assert!(matches!(
        a[0],
        Stage::SrTcm {
            mode: Mode::Bytes,
            cbs: 8192,
            ..
        }
    ));
    assert_eq!(describe(&a[0]), "srtcm cir=1mbit cbs=8192B ebs=8192B");
}

#[test]
fn refuses_bad_packet_mode() {
    for (chain, needle) in [
        (
            "srtcm mode=packets cir=10mbit cbs=16 ebs=0",
            "cir=10mbit: with mode=packets, a whole number of packets per second without a unit",
        ),
        (
            "trtcm mode=packets cir=1000pps pir=2000 cbs=1 pbs=1",
            "cir=1000pps: with mode=packets",
        ),
        (
            "srtcm mode=packets cir=1000 cbs=16k ebs=0",
            "cbs=16k: with mode=packets, a whole number of packets without a unit",
        ),
        (
            "srtcm mode=packets cir=-5 cbs=1 ebs=0",
            "cir=-5: with mode=packets",
        ),
        (
            "srtcm mode=packets cir=1.5 cbs=1 ebs=0",
            "cir=1.5: with mode=packets",
        ),
        (
            "srtcm mode=packets cir=1000 cbs=16 ebs=0 overhead=24",
            "overhead=24: no length adjustment in mode=packets",
        ),
        (
            "trtcm mode=packets cir=1 pir=2 cbs=1 pbs=1 mpu=64",
            "mpu=64: no length adjustment",
        ),
        (
            "rfc4115 mode=packets cir=1 eir=1 cbs=1 ebs=1 linklayer=atm",
            "linklayer=atm: no length adjustment",
        ),
        (
            "srtcm pkt_rate=1000 pkt_burst=16",
            "pkt_rate=1000: write tc police's pkt_rate/pkt_burst as mode=packets",
        ),
        (
            "srtcm cir=1mbit cbs=8k ebs=8k pkt_burst=16",
            "pkt_burst=16: write tc police's",
        ),
        (
            "srtcm mode=packets cir=0 cbs=16 ebs=0",
            "srtcm cir=0: must be at least 1 in mode=packets",
        ),
        (
            "trtcm mode=packets cir=10 pir=0 cbs=1 pbs=1",
            "trtcm pir=0: must be at least 1",
        ),
        (
            "trtcm mode=packets cir=10 pir=20 cbs=0 pbs=1",
            "trtcm cbs=0: must be at least 1",
        ),
        (
            "trtcm mode=packets cir=10 pir=20 cbs=1 pbs=0",
            "trtcm pbs=0: must be at least 1",
        ),
        (
            "rfc4115 mode=packets cir=0 eir=10 cbs=1 ebs=1",
            "rfc4115 cir=0: must be at least 1",
        ),
        (
            "trtcm mode=packets cir=10 cbs=1 pbs=1",
            "trtcm: missing pir=<packets per second>",
        ),
        (
            "srtcm mode=packets cir=10 cbs=1",
            "srtcm: missing ebs=<packets>",
        ),
        (
            "srtcm mode=packets cir=4294967296 cbs=1 ebs=0",
            "cir=4294967296: at most 4294967295 packets per second",
        ),
        (
            "srtcm mode=pkts cir=10 cbs=1 ebs=0",
            "srtcm mode=pkts: expected bytes or packets",
        ),
        (
            "pcn-node mode=packets threshold=1mbit excess=2mbit",
            "unknown parameter 'mode'",
        ),
    ] {
        match parse_chain(chain) {
            Ok(s) => panic!("{chain}: accepted as {s:?}"),
            Err(e) => assert!(e.0.contains(needle), "{chain}: {e} (wanted {needle})"),
        }
    }
    // What the library refuses is refused when the chain is set up.
    let c = parse_chain("trtcm mode=packets cir=20 pir=10 cbs=1 pbs=1").unwrap();
    let e = Engine::new(&c, Classify::Aggregate, 16)
        .err()
        .expect("PIR below CIR");
    assert!(e.0.starts_with("trtcm: PIR must be"), "{}", e.0);
}

const T0: u64 = 1_700_000_000_000_000_000;

/// A capture of `n` UDP/IPv4 packets arriving about every millisecond (gaps
/// 0 to 2 ms), DSCP cycling through AF11, AF12, AF13 and BE; the IP length
/// of packet `i` is `len(i)`. Returns the arrival times and DSCPs.
fn capture(path: &Path, n: u64, len: impl Fn(u64) -> usize) -> Vec<(u64, u8)> {
    let mut w = pcap_writer(path);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut t = T0;
    let mut sent = Vec::new();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += x % 2_000_001;
        let dscp = [10u8, 12, 14, 0][(i % 4) as usize];
        let s = Stream {
            tos: dscp << 2,
            ..Stream::default()
        };
        let f = frame(&s, i, &vec![0u8; len(i) - 28]);
        let ts = std::time::Duration::from_nanos(t);
        w.write_packet(&PcapPacket::new(ts, f.len() as u32, &f))
            .unwrap();
        sent.push((t, dscp));
    }
    sent
}

/// The DSCPs of a capture, in order.
fn dscps(path: &Path) -> Vec<u8> {
    read_pcap(path)
        .iter()
        .map(|(_, f)| parse(Link::Ethernet, f).unwrap().unwrap().tos >> 2)
        .collect()
}

/// Runs `chain` over `inp` through the library's `run`, writing `out`.
fn condition(inp: &Path, out: &Path, chain: &str) {
    let opts = Options {
        input: inp.into(),
        output: Some(out.into()),
        dropped: None,
        chain: parse_chain(chain).unwrap(),
        classify: Classify::Aggregate,
        max_flows: 16,
        csv: None,
        interval_ns: 100_000_000,
        allow_backwards: false,
        strict: false,
        progress: false,
        sync: false,
    };
    run(&opts).unwrap_or_else(|e| panic!("{chain}: {e}"));
}

/// The DSCP the chain's `dscp af11,af12,af13` writes for a color.
fn af1(c: Color) -> u8 {
    [10, 12, 14][c.index()]
}

/// Each packet-mode meter, color-blind and color-aware, over 3000 packets
/// of 40 to 1500 bytes: the output's colors are those of the library's
/// `color_blind_packet` / `color_aware_packet` at the capture's times (every
/// color occurs), and the same capture with every packet 64 bytes long
/// comes out with the same colors.
#[test]
fn colors_as_the_library_whatever_the_lengths() {
    let d = dir("packet-mode");
    let n = 3_000;
    let (varied, short) = (d.join("varied.pcap"), d.join("short.pcap"));
    let sent = capture(&varied, n, |i| 40 + ((i * 7919) % 1461) as usize);
    assert_eq!(capture(&short, n, |_| 64), sent);
    let now = |t: u64| Instant::from_ticks(t);
    let start = now(sent[0].0);
    let input = |dscp: u8| Colors::RFC2597.table.ds_field(dscp << 2);
    type Meter = Box<dyn FnMut(u64, u8) -> Color>;
    let cases: Vec<(&str, Meter)> = vec![
        ("srtcm mode=packets cir=600 cbs=5 ebs=20", {
            let p = SrTcmProfile::new(&SrTcmConfig::packets(600, 5, 20)).unwrap();
            let mut m = SrTcm::new(&p, start);
            Box::new(move |t, _| m.color_blind_packet(&p, now(t)))
        }),
        ("trtcm mode=packets cir=500 pir=900 cbs=4 pbs=8", {
            let p = TrTcmProfile::new(&TrTcmConfig::packets(500, 900, 4, 8)).unwrap();
            let mut m = TrTcm::new(&p, start);
            Box::new(move |t, _| m.color_blind_packet(&p, now(t)))
        }),
        ("rfc4115 mode=packets cir=500 eir=300 cbs=4 ebs=6", {
            let p = Rfc4115Profile::new(&Rfc4115Config::packets(500, 300, 4, 6)).unwrap();
            let mut m = Rfc4115::new(&p, start);
            Box::new(move |t, _| m.color_blind_packet(&p, now(t)))
        }),
        ("srtcm mode=packets cir=700 cbs=5 ebs=20 colors=rfc2597", {
            let p = SrTcmProfile::new(&SrTcmConfig::packets(700, 5, 20)).unwrap();
            let mut m = SrTcm::new(&p, start);
            Box::new(move |t, d| m.color_aware_packet(&p, now(t), input(d)))
        }),
        (
            "trtcm mode=packets cir=500 pir=900 cbs=4 pbs=8 colors=rfc2597",
            {
                let p = TrTcmProfile::new(&TrTcmConfig::packets(500, 900, 4, 8)).unwrap();
                let mut m = TrTcm::new(&p, start);
                Box::new(move |t, d| m.color_aware_packet(&p, now(t), input(d)))
            },
        ),
        (
            "rfc4115 mode=packets cir=500 eir=300 cbs=4 ebs=6 colors=rfc2597",
            {
                let p = Rfc4115Profile::new(&Rfc4115Config::packets(500, 300, 4, 6)).unwrap();
                let mut m = Rfc4115::new(&p, start);
                Box::new(move |t, d| m.color_aware_packet(&p, now(t), input(d)))
            },
        ),
    ];
    for (meter, mut lib) in cases {
        let chain = format!("{meter} -> dscp af11,af12,af13");
        let want: Vec<u8> = sent.iter().map(|&(t, d)| af1(lib(t, d))).collect();
        for c in [10, 12, 14] {
            assert!(
                want.contains(&c),
                "{meter}: no DSCP {c} in the expected colors"
            );
        }
        let out = d.join("out.pcap");
        condition(&varied, &out, &chain);
        assert_eq!(dscps(&out), want, "{meter}, packets of 40 to 1500 bytes");
        condition(&short, &out, &chain);
        assert_eq!(dscps(&out), want, "{meter}, packets of 64 bytes");
    }
}

/// The same through the `netcond-pcap` binary: the summary names the stage in
/// packets and counts the colors the library gives, the output carries them,
/// and a rate with a unit is refused with exit status 2.
#[test]
fn through_the_binary() {
    let d = dir("packet-mode-bin");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let sent = capture(&inp, 2_000, |i| 40 + ((i * 104_729) % 1461) as usize);
    let p = TrTcmProfile::new(&TrTcmConfig::packets(400, 800, 3, 6)).unwrap();
    let mut m = TrTcm::new(&p, Instant::from_ticks(sent[0].0));
    let want: Vec<Color> = sent
        .iter()
        .map(|&(t, _)| m.color_blind_packet(&p, Instant::from_ticks(t)))
        .collect();
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "trtcm mode=packets cir=400 pir=800 cbs=3 pbs=6 -> dscp af11,af12,af13 -> drop-red",
    ]);
    assert_eq!(rc, 0, "{se}");
    assert!(
        so.contains("trtcm mode=packets cir=400pps pir=800pps cbs=3p pbs=6p"),
        "{so}"
    );
    let count = |c: Color| want.iter().filter(|&&x| x == c).count() as u64;
    for (name, c) in [
        ("green", Color::Green),
        ("yellow", Color::Yellow),
        ("red", Color::Red),
    ] {
        assert!(count(c) > 0, "no {name} packets");
        assert_eq!(stage_row(&so, 1, name).0, count(c), "{name}\n{so}");
    }
    let kept: Vec<u8> = want
        .iter()
        .filter(|&&c| c != Color::Red)
        .map(|&c| af1(c))
        .collect();
    assert_eq!(dscps(&out), kept);
    let (rc, _, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "srtcm mode=packets cir=1mbit cbs=10 ebs=0",
    ]);
    assert_eq!(rc, 2);
    assert!(se.contains("without a unit"), "{se}");
}

//! The stages and the classification the other tests do not run end to end:
//! `rfc4115` with `drop-yellow`, `srras`, `--classify dscp`, and a meter
//! charging tc's adjusted length (`overhead`, `linklayer=atm`). The output
//! is read back with pcap-file (tshark checks the same kinds of output in
//! tests/tshark.rs).

mod common;

use common::*;
use netcond_pcap::packet::{parse, Link};
use netcond_pcap::synth::{frame, write_pcap, Stream};
use std::io::BufWriter;

fn dscp_of(f: &[u8]) -> u8 {
    parse(Link::Ethernet, f).unwrap().unwrap().tos >> 2
}

fn ip_len(f: &[u8]) -> u64 {
    u64::from(parse(Link::Ethernet, f).unwrap().unwrap().len)
}

/// RFC 4115 at 20 Mbit/s offered, CIR 5 and EIR 5 Mbit/s, yellow and red
/// dropped: only AF11 leaves, green bytes within CBS + CIR T and within a
/// packet of it, and yellow (dropped) between EIR T and EBS + EIR T.
#[test]
fn rfc4115_drop_yellow() {
    let d = dir("rfc4115");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 4_000,
        payload: 972, // 1000-byte IP packets
        gap_ns: 400_000,
        ..Stream::default()
    };
    write_pcap(&s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "rfc4115 cir=5mbit eir=5mbit cbs=16k ebs=16k -> dscp af11,af12,af13 -> drop-yellow",
    ]);
    assert_eq!(rc, 0, "{se}");
    let got = read_pcap(&out);
    let t_ns = (s.packets - 1) * s.gap_ns;
    let green: u64 = got.iter().map(|(_, f)| ip_len(f)).sum();
    assert!(got.iter().all(|(_, f)| dscp_of(f) == 10));
    let bound = 16_384 + 625_000 * t_ns / 1_000_000_000;
    assert!(
        green <= bound && green + 1000 > bound,
        "green {green}, bound {bound}"
    );
    assert_eq!(stage_row(&so, 1, "green").1, green);
    let yellow = stage_row(&so, 1, "yellow").1;
    // The E bucket (no coupling) starts full and overflows while the first
    // packets take green, so yellow reaches EIR T but not EBS + EIR T.
    let eir_t = 625_000 * t_ns / 1_000_000_000;
    assert!(
        yellow <= bound && yellow >= eir_t,
        "yellow {yellow}, {eir_t}..{bound}"
    );
    assert_eq!(stage_row(&so, 3, "dropped").0, s.packets - got.len() as u64);
}

/// srRAS at CIR 5 Mbit/s, MIR 10 Mbit/s, offered 20 Mbit/s: timestamps move
/// later and stay in order, the output rate is at most MIR (plus a packet),
/// and what the buffer could not hold is counted as tail drops.
#[test]
fn srras_shapes() {
    let d = dir("srras");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 3_000,
        payload: 972,
        gap_ns: 400_000,
        ..Stream::default()
    };
    write_pcap(&s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "srras cir=5mbit mir=10mbit buffer=64k",
    ]);
    assert_eq!(rc, 0, "{se}");
    let got = read_pcap(&out);
    let inp_frames = read_pcap(&inp);
    assert!(got.windows(2).all(|w| w[1].0 >= w[0].0));
    let span = got.last().unwrap().0 - got[0].0;
    let bytes: u64 = got.iter().map(|(_, f)| ip_len(f)).sum();
    assert!(
        bytes * 8 * 1_000_000_000 <= 10_000_000 * span + 1000 * 8 * 1_000_000_000,
        "{bytes} B in {span} ns"
    );
    assert!(got.last().unwrap().0 > inp_frames.last().unwrap().0);
    let tail = stage_row(&so, 1, "tail-drop").0;
    assert!(tail > 0);
    assert_eq!(got.len() as u64 + tail, s.packets);
    assert_eq!(total_row(&so, "dropped").0, tail);
}

/// `--classify dscp`: two classes (BE and AF41 on arrival), 10 Mbit/s each,
/// each with its own trTCM: each class's green bytes obey CBS + CIR T on
/// their own, and together they exceed what one meter would let through.
#[test]
fn classify_by_dscp() {
    let d = dir("bydscp");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let be = Stream {
        payload: 972,
        ..Stream::default()
    };
    let af41 = Stream {
        payload: 972,
        tos: 34 << 2,
        ..Stream::default()
    };
    let p = vec![0u8; 972];
    let t0 = 1_700_000_000_000_000_000u64;
    let n = 2_000u64;
    let gap = 800_000u64; // per class: 1000 B / 0.8 ms = 10 Mbit/s
    {
        use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
        let mut w = PcapWriter::with_header(
            BufWriter::new(std::fs::File::create(&inp).unwrap()),
            PcapHeader {
                ts_resolution: pcap_file::TsResolution::NanoSecond,
                ..PcapHeader::default()
            },
        )
        .unwrap();
        for i in 0..n {
            for (k, s) in [&be, &af41].into_iter().enumerate() {
                let f = frame(s, i, &p);
                let t = std::time::Duration::from_nanos(t0 + i * gap + k as u64 * 1000);
                w.write_packet(&PcapPacket::new(t, f.len() as u32, &f))
                    .unwrap();
            }
        }
    }
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "--classify",
        "dscp",
        "-c",
        "trtcm cir=4mbit pir=8mbit cbs=8k pbs=16k",
    ]);
    assert_eq!(rc, 0, "{se}");
    assert!(so.contains("flows: 2 (Dscp)"), "{so}");
    let t_ns = (n - 1) * gap + 1000;
    let one = 8_192 + 500_000 * t_ns / 1_000_000_000;
    let green = stage_row(&so, 1, "green").1;
    // Two meters: up to twice one meter's bound, and more than one meter's.
    assert!(
        green <= 2 * one && green > one + 1000,
        "green {green}, one meter {one}"
    );
    // The output keeps each packet's DSCP (no marking stage): both classes,
    // all packets.
    let got = read_pcap(&out);
    assert_eq!(got.len() as u64, 2 * n);
    assert_eq!(
        got.iter().filter(|(_, f)| dscp_of(f) == 34).count() as u64,
        n
    );
}

/// srTCM with `overhead=10 linklayer=atm` (ADSL's PPPoA): each 1000-byte IP
/// packet is charged ceil(1010 / 48) = 22 cells of 53 bytes, 1166 bytes, so
/// the green packets are those whose 1166 bytes fit CBS + CIR x T, to within
/// one packet; the counts still show the captured 1000 bytes. Without the
/// adjustment, the same stream gets more green packets.
#[test]
fn srtcm_charges_atm_cells() {
    let d = dir("adjust");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 2_000,
        payload: 972, // 1000-byte IP packets
        gap_ns: 400_000,
        ..Stream::default()
    };
    write_pcap(&s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    let green_packets = |chain: &str| {
        let (rc, so, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", chain]);
        assert_eq!(rc, 0, "{se}");
        let (packets, bytes) = stage_row(&so, 1, "green");
        assert_eq!(bytes, packets * 1000, "{so}");
        packets
    };
    let adjusted = green_packets("srtcm cir=5mbit cbs=16k ebs=16k overhead=10 linklayer=atm");
    let plain = green_packets("srtcm cir=5mbit cbs=16k ebs=16k");
    let t_ns = (s.packets - 1) * s.gap_ns;
    let bound = 16_384 + 625_000 * t_ns / 1_000_000_000;
    assert!(
        adjusted * 1166 <= bound && (adjusted + 1) * 1166 > bound,
        "green {adjusted} packets of 1166 charged bytes, bound {bound}"
    );
    assert!(
        plain * 1000 <= bound && (plain + 1) * 1000 > bound,
        "green {plain} packets of 1000 bytes, bound {bound}"
    );
    assert!(plain > adjusted);
}

//! Captures of known traffic through `netcond-pcap`, read back by tshark as an
//! independent decoder: every frame parses, every IPv4 header checksum is
//! good, the DSCP/ECN counts equal the tool's summary, and the meters' bounds
//! hold on what tshark sees.

mod common;

use common::*;
use netcond_pcap::synth::{write_pcap, Stream};
use std::io::BufWriter;
use std::path::Path;
use std::process::{Command, Stdio};

fn gen(path: &Path, s: &Stream) {
    write_pcap(s, BufWriter::new(std::fs::File::create(path).unwrap())).unwrap();
}

fn by_dscp_bytes(d: &[Decoded], dscp: u8) -> u64 {
    d.iter()
        .filter(|p| p.dscp == Some(dscp))
        .map(|p| p.ip_len.unwrap())
        .sum()
}

/// trTCM to AF11/AF12/AF13 at 41 Mbit/s offered: tshark's counts match the
/// summary, green bytes <= CBS + CIR T and within one packet of it, green +
/// yellow <= PBS + PIR T.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn trtcm_af_classes() {
    require_tshark();
    let d = dir("trtcm");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 4_000,
        payload: 1000,
        gap_ns: 200_000,
        flows: 4,
        ..Stream::default()
    };
    gen(&inp, &s);
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13",
    ]);
    assert_eq!(rc, 0, "{se}");
    let dec = tshark(&out);
    assert_eq!(dec.len(), 4_000);
    assert_clean(&dec, "trtcm");
    assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so));
    let t_ns = (s.packets - 1) * s.gap_ns;
    let green = by_dscp_bytes(&dec, 10);
    let yellow = by_dscp_bytes(&dec, 12);
    // CBS + CIR x T, CIR = 1.25 MB/s.
    let g_bound = 32_768 + 1_250_000 * t_ns / 1_000_000_000;
    let p_bound = 65_536 + 2_500_000 * t_ns / 1_000_000_000;
    assert!(green <= g_bound, "green {green} > {g_bound}");
    assert!(
        green + 1028 > g_bound,
        "green {green} more than a packet below {g_bound}"
    );
    assert!(
        green + yellow <= p_bound,
        "green+yellow {} > {p_bound}",
        green + yellow
    );
    assert!(green + yellow + 1028 > p_bound);
    assert_eq!(stage_row(&so, 1, "green").1, green);
}

/// srTCM with drop-red and --dropped: the two captures partition the input,
/// and the dropped one holds exactly the red packets.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn srtcm_drop_red_and_dropped_capture() {
    require_tshark();
    let d = dir("srtcm");
    let (inp, out, drp) = (d.join("in.pcap"), d.join("out.pcapng"), d.join("drop.pcap"));
    gen(
        &inp,
        &Stream {
            packets: 5_000,
            payload: 500,
            gap_ns: 100_000,
            ..Stream::default()
        },
    );
    let (rc, so, se) = tool(&[
        "-r",
        inp.to_str().unwrap(),
        "-w",
        out.to_str().unwrap(),
        "--dropped",
        drp.to_str().unwrap(),
        "-c",
        "srtcm cir=20mbit cbs=16k ebs=32k -> dscp af21,af22,af23 -> drop-red",
    ]);
    assert_eq!(rc, 0, "{se}");
    let (o, x) = (tshark(&out), tshark(&drp));
    assert_clean(&o, "forwarded");
    assert_clean(&x, "dropped");
    let red = stage_row(&so, 1, "red").0;
    assert!(red > 0);
    assert_eq!(x.len() as u64, red);
    assert_eq!(o.len() as u64 + red, 5_000);
    assert!(x.iter().all(|p| p.dscp == Some(22)));
    assert!(o.iter().all(|p| p.dscp == Some(18) || p.dscp == Some(20)));
    assert_eq!(decoded_by_mark(&o), summary_by_mark(&so));
    assert_eq!(total_row(&so, "dropped").0, red);
}

/// PCN: the ingress encodes EF + NM, the RFC 5670 node marks ThM and ETM on
/// an aggregate above both rates; tshark sees the ECN field the summary reports.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn pcn_node_rfc6660() {
    require_tshark();
    let d = dir("pcn");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    // 8 flows, 12 Mbit/s in total for 1 s.
    gen(
        &inp,
        &Stream {
            packets: 3_000,
            payload: 1472,
            gap_ns: 1_000_000,
            flows: 8,
            ..Stream::default()
        },
    );
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "--classify",
        "aggregate",
        "-c",
        "pcn-ingress dscp=ef -> pcn-node threshold=8mbit excess=10mbit tbs=32k ebs=32k -> rfc6660",
    ]);
    assert_eq!(rc, 0, "{se}");
    let dec = tshark(&out);
    assert_clean(&dec, "pcn");
    let by = decoded_by_mark(&dec);
    assert_eq!(by, summary_by_mark(&so));
    // ETM (11) about the excess above 10 Mbit/s, ThM (01) some, NM (10) the rest.
    let etm = by.get(&(46, 3)).map_or(0, |x| x.0);
    let thm = by.get(&(46, 1)).map_or(0, |x| x.0);
    let nm = by.get(&(46, 2)).map_or(0, |x| x.0);
    assert_eq!(etm + thm + nm, 3_000);
    assert_eq!(etm, stage_row(&so, 2, "etm").0);
    // Offered 1500 B/ms = 12 Mbit/s; the excess meter passes 10 Mbit/s + 32 KiB
    // unmarked over ~3 s: ETM about (12 - 10) / 12 of the packets, less the
    // 32 KiB bucket's 22 packets.
    let etm_frac = (etm + 22) as f64 / 3_000.0;
    assert!((0.15..0.18).contains(&etm_frac), "ETM fraction {etm_frac}");
}

/// RED on a 10 Mbit/s bottleneck offered 15 Mbit/s of ECT(0) traffic: CE marks
/// appear, nothing is dropped early, and what leaves never exceeds the link
/// rate: its departure timestamps are the link's.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn red_bottleneck_ecn() {
    require_tshark();
    let d = dir("red");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 6_000,
        payload: 972, // 1000-byte IP packets
        gap_ns: 533_333,
        tos: 0b10, // ECT(0)
        ..Stream::default()
    };
    gen(&inp, &s);
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit limit=100 -> ecn-or-drop",
    ]);
    assert_eq!(rc, 0, "{se}");
    let dec = tshark(&out);
    assert_clean(&dec, "red");
    assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so));
    let ce = dec.iter().filter(|p| p.ecn == Some(3)).count() as u64;
    assert!(ce > 0);
    assert_eq!(ce, stage_row(&so, 1, "ce-marked").0);
    // Departures are in order and spaced at least one transmission time (800 us) apart.
    for w in dec.windows(2) {
        assert!(w[1].time_ns >= w[0].time_ns + 800_000, "{:?}", w);
    }
}

/// CoDel and PIE with ECN on a 9 Mbit/s link offered 10 Mbit/s of ECT(0)
/// packets, and FQ-CoDel on drops: tshark's DSCP/ECN counts equal the
/// summary, its CE packets are the stage's marks, and departures are at
/// least one transmission time (889 us) apart.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn aqm_stages_ecn() {
    require_tshark();
    let d = dir("aqm-tshark");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 8_000,
        payload: 972, // 1000-byte IP packets
        gap_ns: 800_000,
        tos: 0b10, // ECT(0)
        ..Stream::default()
    };
    gen(&inp, &s);
    for chain in [
        "codel rate=9mbit ecn limit=5000",
        "pie rate=9mbit ecn",
        "fq_codel rate=9mbit noecn",
    ] {
        let (rc, so, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", chain]);
        assert_eq!(rc, 0, "{se}");
        let dec = tshark(&out);
        assert_clean(&dec, chain);
        assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so), "{chain}");
        let ce = dec.iter().filter(|p| p.ecn == Some(3)).count() as u64;
        assert_eq!(ce, stage_row(&so, 1, "ce-marked").0, "{chain}");
        let signals = ce + stage_row(&so, 1, "dropped").0;
        assert!(signals > 0, "{chain}: {so}");
        assert_eq!(
            dec.len() as u64 + total_row(&so, "dropped").0,
            s.packets,
            "{chain}"
        );
        for w in dec.windows(2) {
            assert!(w[1].time_ns >= w[0].time_ns + 888_888, "{chain}: {:?}", w);
        }
    }
}

/// trRAS shaping moves timestamps: the output rate stays at most MIR, and each
/// packet leaves no earlier than it arrived.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn trras_shapes() {
    require_tshark();
    let d = dir("trras");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream {
        packets: 2_000,
        payload: 1472,
        gap_ns: 300_000, // 40 Mbit/s bursts
        ..Stream::default()
    };
    gen(&inp, &s);
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "trras cir=10mbit pir=20mbit mir=30mbit line=100mbit buffer=256k -> trtcm cir=10mbit pir=20mbit cbs=3k pbs=6k -> dscp af11,af12,af13",
    ]);
    assert_eq!(rc, 0, "{se}");
    let dec = tshark(&out);
    assert_clean(&dec, "trras");
    assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so));
    let inp_frames = read_pcap(&inp);
    let out_frames = read_pcap(&out);
    let dropped = total_row(&so, "dropped").0;
    assert_eq!(out_frames.len() as u64 + dropped, 2_000);
    assert!(out_frames.windows(2).all(|w| w[1].0 >= w[0].0));
    // Over the output's span, at most MIR (30 Mbit/s) plus one packet.
    let span = out_frames.last().unwrap().0 - out_frames[0].0;
    let bytes: u64 = dec.iter().map(|p| p.ip_len.unwrap()).sum();
    assert!(
        bytes * 8 * 1_000_000_000 <= 30_000_000 * span + 1500 * 8 * 1_000_000_000,
        "{bytes} B in {span} ns"
    );
    assert!(out_frames.last().unwrap().0 > inp_frames.last().unwrap().0);
}

/// pcapng with microsecond timestamps (the default if_tsresol), IPv6, VLAN
/// tags and IPv4 options: timestamps scaled right, DSCP written, checksums good.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn pcapng_ipv6_vlan_options() {
    require_tshark();
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
    use pcap_file::pcapng::{Block, PcapNgWriter};
    use std::borrow::Cow;
    let d = dir("pcapng");
    let (inp, out, out_pcap) = (
        d.join("in.pcapng"),
        d.join("out.pcapng"),
        d.join("out.pcap"),
    );
    let mut w = PcapNgWriter::new(std::fs::File::create(&inp).unwrap()).unwrap();
    w.write_block(&Block::InterfaceDescription(InterfaceDescriptionBlock {
        linktype: pcap_file::DataLink::ETHERNET,
        snaplen: 0, // no limit
        options: vec![],
    }))
    .unwrap();
    let v6 = Stream {
        ipv6: true,
        payload: 100,
        ..Stream::default()
    };
    let v4 = Stream {
        payload: 100,
        ..Stream::default()
    };
    let payload = vec![1u8; 100];
    for i in 0..300u64 {
        let mut f = if i % 3 == 0 {
            netcond_pcap::synth::frame(&v6, i, &payload)
        } else {
            netcond_pcap::synth::frame(&v4, i, &payload)
        };
        if i % 3 == 1 {
            // An 802.1Q tag after the MACs.
            f.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
        }
        if i % 3 == 2 {
            // IPv4 options: a 4-byte NOP/NOP/NOP/EOL, IHL 6.
            f.splice(34..34, [1, 1, 1, 0]);
            f[14] = 0x46;
            let tl = u16::from_be_bytes([f[16], f[17]]) + 4;
            f[16..18].copy_from_slice(&tl.to_be_bytes());
            let c = netcond_pcap::packet::ipv4_checksum(&f[14..38]);
            f[24..26].copy_from_slice(&c.to_be_bytes());
        }
        // pcap-file writes the raw count; the IDB says microseconds.
        w.write_block(&Block::EnhancedPacket(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: std::time::Duration::from_nanos(1_700_000_000_000_000 + i * 1000),
            original_len: f.len() as u32,
            data: Cow::Owned(f),
            options: vec![],
        }))
        .unwrap();
    }
    drop(w);
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "--classify",
        "five-tuple",
        "-c",
        "trtcm cir=1mbit pir=2mbit cbs=2k pbs=4k -> dscp af31,af32,af33",
    ]);
    assert_eq!(rc, 0, "{se}");
    // 300 packets 1 ms apart: 0.299 s.
    assert!(so.contains("0.299000 s"), "{so}");
    assert!(so.contains("note: 100 IPv4 packets with options"), "{so}");
    let dec = tshark(&out);
    assert_eq!(dec.len(), 300);
    assert_clean(&dec, "pcapng");
    assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so));
    assert!(dec.iter().all(|p| matches!(p.dscp, Some(26 | 28 | 30))));
    assert_eq!(dec[1].time_ns - dec[0].time_ns, 1_000_000);
    // The same to a pcap file (the pcapng snap length 0 means no limit).
    let (rc, so2, se) = tool(&[
        inp.to_str().unwrap(),
        out_pcap.to_str().unwrap(),
        "--classify",
        "five-tuple",
        "-c",
        "trtcm cir=1mbit pir=2mbit cbs=2k pbs=4k -> dscp af31,af32,af33",
    ]);
    assert_eq!(rc, 0, "{se}");
    assert_eq!(summary_by_mark(&so2), summary_by_mark(&so));
    assert_eq!(decoded_by_mark(&tshark(&out_pcap)), summary_by_mark(&so));
}

/// A capture from the kernel's stack, made now: tcpdump on loopback while
/// ping runs, then policed and checked as above.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn real_stack_ping_capture() {
    require_tshark();
    let d = dir("ping");
    let (inp, out) = (d.join("lo.pcap"), d.join("out.pcap"));
    let tcpdump = Command::new("tcpdump")
        // --immediate-mode: each packet is handed over as it comes; without
        // it packets wait in a buffer block for up to a second, and those
        // still there when tcpdump is stopped can be lost.
        .args([
            "-i",
            "lo",
            "--immediate-mode",
            "-U",
            "-n",
            "-Z",
            &whoami(),
            "-w",
        ])
        .arg(&inp)
        .args(["icmp and host 127.0.0.1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut tcpdump) = tcpdump else {
        panic!("tcpdump does not run here: install it (bash .ci/pcap.sh does)");
    };
    // tcpdump says "listening on lo" once it captures.
    let mut err = std::io::BufReader::new(tcpdump.stderr.take().unwrap());
    let mut line = String::new();
    let _ = std::io::BufRead::read_line(&mut err, &mut line);
    if !line.contains("listening on") {
        let _ = tcpdump.kill();
        let _ = tcpdump.wait();
        panic!(
            "tcpdump cannot capture on lo here (it needs root or CAP_NET_RAW): {}",
            line.trim()
        );
    }
    let ping = Command::new("ping")
        .args([
            "-c",
            "50",
            "-i",
            "0.01",
            "-s",
            "1000",
            "-Q",
            "0",
            "127.0.0.1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    // Stop tcpdump once all 100 packets are in the file (or after 5 s).
    for _ in 0..50 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        if count_records(&inp) >= 100 {
            break;
        }
    }
    let _ = Command::new("kill")
        .args(["-INT", &tcpdump.id().to_string()])
        .status();
    let _ = tcpdump.wait();
    assert!(
        matches!(ping, Ok(s) if s.success()),
        "ping 127.0.0.1 failed here: {ping:?}"
    );
    let captured = tshark(&inp).len();
    assert!(captured >= 90, "captured {captured} of 100 ICMP packets");
    let (rc, so, se) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        "trtcm cir=400kbit pir=800kbit cbs=4k pbs=8k -> dscp af41,af42,af43",
    ]);
    assert_eq!(rc, 0, "{se}");
    let dec = tshark(&out);
    assert_eq!(dec.len(), captured);
    assert_clean(&dec, "ping");
    assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so));
    let t_ns = dec.last().unwrap().time_ns - dec[0].time_ns;
    let green = by_dscp_bytes(&dec, 34);
    let bound = 4096 + 50_000 * t_ns / 1_000_000_000 + 1;
    assert!(green <= bound, "green {green} > {bound}");
    // Whatever rate ping reached on this machine: green + yellow within
    // PBS + PIR T, and red exactly when the offered bytes exceed that by more
    // than a packet.
    let yellow = by_dscp_bytes(&dec, 36);
    let red = by_dscp_bytes(&dec, 38);
    let p_bound = 8192 + 100_000 * t_ns / 1_000_000_000 + 1;
    assert!(
        green + yellow <= p_bound,
        "green+yellow {} > {p_bound}",
        green + yellow
    );
    if green + yellow + red > p_bound + 1100 {
        assert!(red > 0);
    }
    assert!(green > 0);
}

fn whoami() -> String {
    Command::new("id")
        .arg("-un")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "root".into())
}

/// Complete records in a pcap file that may still be being written.
fn count_records(path: &Path) -> usize {
    let Ok(f) = std::fs::File::open(path) else {
        return 0;
    };
    let Ok(mut r) = pcap_file::pcap::PcapReader::new(f) else {
        return 0;
    };
    let mut n = 0;
    while let Some(Ok(_)) = r.next_packet() {
        n += 1;
    }
    n
}

/// Input colors end to end: a mix of AF11, AF12, AF13, EF and best-effort
/// packets of varied lengths at about six times CIR through each color-aware
/// meter with a `colors=dscp:...` table, re-marked CS1 / CS2 / CS3 by output
/// color. tshark reads the input and the output: every packet's output color
/// is the one the library's color-aware meter gives for tshark's time, IP
/// length and the table's input color (so no packet leaves better than it
/// came), and the summary's per-color packets and bytes are tshark's.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn input_color_table_end_to_end() {
    use netcond::base::{Color, Instant, Rate, SplitMix64};
    use netcond::trtcm::{
        Rfc4115, Rfc4115Config, Rfc4115Profile, SrTcm, SrTcmConfig, SrTcmProfile, TrTcm,
        TrTcmConfig, TrTcmProfile,
    };
    use netcond_pcap::synth::frame;
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    use pcap_file::{DataLink, TsResolution};
    use std::borrow::Cow;
    use std::time::Duration;

    require_tshark();
    let d = dir("colors");
    let inp = d.join("in.pcap");
    // 3000 packets 100 us apart, 64..1500 bytes of IP, DSCPs drawn at random.
    let mut rng = SplitMix64::new(7);
    let mut pw = PcapWriter::with_header(
        BufWriter::new(std::fs::File::create(&inp).unwrap()),
        PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            ..PcapHeader::default()
        },
    )
    .unwrap();
    for i in 0..3000u64 {
        let r = rng.next_u64();
        let dscp = [10u8, 12, 14, 46, 0][(r % 5) as usize];
        let s = Stream {
            packets: 1,
            payload: 36 + ((r >> 8) % 1437) as usize,
            tos: dscp << 2,
            flows: 7,
            ..Stream::default()
        };
        let f = frame(&s, i, &vec![0; s.payload]);
        pw.write_packet(&PcapPacket {
            timestamp: Duration::from_nanos(s.start_ns + i * 100_000),
            orig_len: f.len() as u32,
            data: Cow::Borrowed(&f),
        })
        .unwrap();
    }
    drop(pw);
    let input = tshark(&inp);
    assert_eq!(input.len(), 3000);
    assert_clean(&input, "colors input");
    // The table, written out: AF11 green, AF12 yellow, AF13 red, EF yellow,
    // every other DSCP green.
    let table = "colors=dscp:af11=green,af12=yellow,af13=r,ef=y";
    let input_color = |dscp: u8| match dscp {
        12 | 46 => Color::Yellow,
        14 => Color::Red,
        _ => Color::Green,
    };
    let cir = Rate::from_bits_per_sec(10_000_000);
    let peak = Rate::from_bits_per_sec(30_000_000);
    type Meter = Box<dyn FnMut(Instant, u32, Color) -> Color>;
    let t0 = Instant::from_ticks(input[0].time_ns);
    let meters: Vec<(&str, Meter)> = vec![
        ("srtcm cir=10mbit cbs=16k ebs=32k", {
            let p = SrTcmProfile::new(&SrTcmConfig::new(cir, 16_384, 32_768)).unwrap();
            let mut m = SrTcm::new(&p, t0);
            Box::new(move |t, l, c| m.color_aware(&p, t, l, c))
        }),
        ("trtcm cir=10mbit pir=30mbit cbs=16k pbs=32k", {
            let p = TrTcmProfile::new(&TrTcmConfig::new(cir, peak, 16_384, 32_768)).unwrap();
            let mut m = TrTcm::new(&p, t0);
            Box::new(move |t, l, c| m.color_aware(&p, t, l, c))
        }),
        ("rfc4115 cir=10mbit eir=30mbit cbs=16k ebs=32k", {
            let p = Rfc4115Profile::new(&Rfc4115Config::new(cir, peak, 16_384, 32_768)).unwrap();
            let mut m = Rfc4115::new(&p, t0);
            Box::new(move |t, l, c| m.color_aware(&p, t, l, c))
        }),
    ];
    for (meter, mut lib) in meters {
        let out = d.join("out.pcap");
        let (rc, so, se) = tool(&[
            inp.to_str().unwrap(),
            out.to_str().unwrap(),
            "-c",
            &format!("{meter} {table} -> dscp cs1,cs2,cs3"),
        ]);
        assert_eq!(rc, 0, "{meter}: {se}");
        let output = tshark(&out);
        assert_eq!(output.len(), input.len(), "{meter}: nothing is dropped");
        assert_clean(&output, meter);
        assert_eq!(decoded_by_mark(&output), summary_by_mark(&so), "{meter}");
        let mut per_color = [(0u64, 0u64); 3];
        for (i, (a, b)) in input.iter().zip(&output).enumerate() {
            let len = a.ip_len.unwrap();
            assert_eq!(
                (b.time_ns, b.ip_len),
                (a.time_ns, Some(len)),
                "{meter}: packet {i}"
            );
            let came = input_color(a.dscp.unwrap());
            let want = lib(Instant::from_ticks(a.time_ns), len as u32, came);
            let got = match b.dscp.unwrap() {
                8 => Color::Green,
                16 => Color::Yellow,
                24 => Color::Red,
                x => panic!("{meter}: packet {i} left with DSCP {x}"),
            };
            assert_eq!(got, want, "{meter}: packet {i} (DSCP {:?})", a.dscp);
            assert!(got.index() >= came.index(), "{meter}: packet {i} promoted");
            per_color[got.index()].0 += 1;
            per_color[got.index()].1 += len;
        }
        for (c, name) in ["green", "yellow", "red"].iter().enumerate() {
            assert_eq!(stage_row(&so, 1, name), per_color[c], "{meter}: {name}");
            // Every color occurs (the srTCM's yellow only for EBS's worth:
            // E refills only while C is full, which it never is again).
            assert!(
                per_color[c].0 > 0,
                "{meter}: no {name} packets: {per_color:?}"
            );
        }
    }
}

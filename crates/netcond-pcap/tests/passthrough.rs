//! Frames that are not IP pass untouched, at their own time, also when a
//! queue stage holds the IP packets around them; and memory does not grow
//! with the capture's length.

mod common;

use common::*;
use netcond_pcap::synth::{frame, write_pcap, Stream};
use std::io::BufWriter;
use std::path::Path;

fn write_frames(path: &Path, frames: &[(u64, Vec<u8>)]) {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    let mut w = PcapWriter::with_header(
        BufWriter::new(std::fs::File::create(path).unwrap()),
        PcapHeader {
            ts_resolution: pcap_file::TsResolution::NanoSecond,
            ..PcapHeader::default()
        },
    )
    .unwrap();
    for (t, f) in frames {
        w.write_packet(&PcapPacket::new(
            std::time::Duration::from_nanos(*t),
            f.len() as u32,
            f,
        ))
        .unwrap();
    }
}

/// An ARP request (ethertype 0x0806) or an LLDP frame (0x88cc), numbered `i`.
fn non_ip(i: u64) -> Vec<u8> {
    let mut f = vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 9];
    if i % 2 == 0 {
        f.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1]);
        f.extend_from_slice(&[2, 0, 0, 0, 0, 9, 10, 0, 0, 9]);
        f.extend_from_slice(&[0; 6]);
        f.extend_from_slice(&[10, 0, 0, (i % 250) as u8]);
        f.resize(60, 0);
    } else {
        f.extend_from_slice(&[0x88, 0xcc]);
        // Chassis ID (type 1, length 7, MAC subtype), Port ID (type 2,
        // length 7, MAC subtype), TTL (type 3, length 2, 120 s), End.
        f.extend_from_slice(&[0x02, 0x07, 4, 2, 0, 0, 0, 0, (i % 250) as u8]);
        f.extend_from_slice(&[0x04, 0x07, 3, 2, 0, 0, 0, 0, 1]);
        f.extend_from_slice(&[0x06, 0x02, 0, 120, 0, 0]);
        f.resize(60, 0);
    }
    f
}

/// 3000 UDP packets at 15 Mbit/s with a non-IP frame after every 50th.
fn mixed() -> Vec<(u64, Vec<u8>)> {
    let s = Stream::default();
    let p = vec![0x33u8; 972];
    let t0 = 1_700_000_000_000_000_000u64;
    let mut v = Vec::new();
    for i in 0..3000u64 {
        let t = t0 + i * 533_333;
        v.push((t, frame(&s, i, &p)));
        if i % 50 == 7 {
            v.push((t + 1000, non_ip(i)));
        }
    }
    v
}

fn check(chain: &str, queue: bool, with_tshark: bool) {
    let d = dir(if queue {
        "passthrough-q"
    } else {
        "passthrough"
    });
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let frames = mixed();
    write_frames(&inp, &frames);
    let (rc, so, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", chain]);
    assert_eq!(rc, 0, "{se}");
    let want: Vec<_> = frames
        .iter()
        .filter(|(_, f)| f[12..14] != [0x08, 0x00])
        .cloned()
        .collect();
    assert_eq!(want.len(), 60);
    assert!(so.contains("3060 frames, 3000 IP packets"), "{so}");
    assert!(so.contains(", 60 other frames"), "{so}");
    let got = read_pcap(&out);
    // Every non-IP frame, byte for byte, at its own time, in its order.
    let got_other: Vec<_> = got
        .iter()
        .filter(|(_, f)| f[12..14] != [0x08, 0x00])
        .cloned()
        .collect();
    assert_eq!(got_other, want);
    // The output stays in time order; with a queue the IP packets around
    // the non-IP frames moved later, without one nothing moved.
    assert!(got.windows(2).all(|w| w[1].0 >= w[0].0));
    let ip_in: Vec<_> = frames.iter().filter(|(_, f)| f[12..14] == [8, 0]).collect();
    let ip_out: Vec<_> = got.iter().filter(|(_, f)| f[12..14] == [8, 0]).collect();
    let (dropped, _) = total_row(&so, "dropped");
    assert_eq!(ip_out.len() as u64 + dropped, 3000);
    if queue {
        assert!(ip_out.last().unwrap().0 > ip_in.last().unwrap().0);
    } else {
        // Every forwarded packet keeps its arrival time.
        let times: std::collections::BTreeSet<u64> = ip_in.iter().map(|x| x.0).collect();
        assert!(dropped > 0);
        assert!(ip_out.iter().all(|x| times.contains(&x.0)));
    }
    if with_tshark {
        require_tshark();
        let dec = tshark(&out);
        assert_eq!(dec.len(), got.len());
        assert_clean(&dec, "passthrough");
        assert_eq!(dec.iter().filter(|p| p.dscp.is_none()).count(), 60);
        assert_eq!(decoded_by_mark(&dec), summary_by_mark(&so));
    }
}

const METER_CHAIN: &str =
    "trtcm cir=5mbit pir=10mbit cbs=16k pbs=32k -> dscp af11,af12,af13 -> drop-red";
const QUEUE_CHAIN: &str = "red min=5 max=15 maxp=0.1 wq=0.002 link=10mbit limit=40 -> ecn-or-drop";

#[test]
fn non_ip_frames_pass_untouched() {
    check(METER_CHAIN, false, false);
}

#[test]
fn non_ip_frames_pass_untouched_around_a_queue() {
    check(QUEUE_CHAIN, true, false);
}

/// The same, and tshark decodes the output.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn non_ip_frames_pass_untouched_as_tshark_decodes() {
    check(METER_CHAIN, false, true);
}

/// The same around a queue, and tshark decodes the output.
#[test]
#[ignore = "needs tshark: bash .ci/pcap.sh runs it"]
fn non_ip_frames_pass_untouched_around_a_queue_as_tshark_decodes() {
    check(QUEUE_CHAIN, true, true);
}

fn peak_mb(stdout: &str) -> f64 {
    let l = stdout
        .lines()
        .find(|l| l.starts_with("memory: peak resident"))
        .unwrap_or_else(|| panic!("no memory line in\n{stdout}"));
    l.split_whitespace().nth(3).unwrap().parse().unwrap()
}

/// Peak resident memory of a 100 k- and a 600 k-packet capture of the same
/// traffic (1000 five-tuple flows, output and dropped captures and CSV
/// written, a meter and a queue in the chain): the longer capture, 50 MB
/// more input, costs less than 2 MB more. (Below about 100 k packets the
/// peak still rises while the buffers and the flow table's pages are first
/// touched.)
#[test]
#[cfg(target_os = "linux")]
fn memory_does_not_grow_with_the_capture() {
    let d = dir("memory");
    let chain = "trtcm cir=50mbit pir=80mbit cbs=32k pbs=64k -> dscp af11,af12,af13 -> red min=20 max=60 link=100mbit limit=200";
    let mut peaks = Vec::new();
    for n in [100_000u64, 600_000] {
        let inp = d.join(format!("in{n}.pcap"));
        let s = Stream {
            packets: n,
            payload: 64,
            gap_ns: 5_000,
            flows: 1000,
            ..Stream::default()
        };
        write_pcap(&s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
        let (out, drp, csv) = (d.join("o.pcap"), d.join("d.pcap"), d.join("s.csv"));
        let (rc, so, se) = tool(&[
            inp.to_str().unwrap(),
            out.to_str().unwrap(),
            "--dropped",
            drp.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--classify",
            "five-tuple",
            "--no-sync",
            "-c",
            chain,
        ]);
        assert_eq!(rc, 0, "{se}");
        assert!(so.contains(&format!("{n} IP packets")), "{so}");
        peaks.push(peak_mb(&so));
        let _ = std::fs::remove_file(&inp);
    }
    assert!(
        peaks[1] < peaks[0] + 2.0,
        "peak resident {} MB for 100 k packets, {} MB for 600 k",
        peaks[0],
        peaks[1]
    );
}

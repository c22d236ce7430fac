//! Bad input: one line naming the problem (and the packet), exit status 2,
//! and the output either complete up to the last good packet or not there.

mod common;

use common::*;
use netcond_pcap::synth::{frame, write_pcap, Stream};
use std::io::BufWriter;
use std::path::Path;

const CHAIN: &str = "trtcm cir=10mbit pir=20mbit cbs=32k pbs=64k -> dscp af11,af12,af13";

fn gen(path: &Path, n: u64) -> Stream {
    let s = Stream {
        packets: n,
        payload: 200,
        gap_ns: 100_000,
        ..Stream::default()
    };
    write_pcap(&s, BufWriter::new(std::fs::File::create(path).unwrap())).unwrap();
    s
}

/// Exit status 2 and exactly one line on stderr containing every needle.
fn fails(args: &[&str], needles: &[&str]) -> String {
    let (rc, so, se) = tool(args);
    assert_eq!(rc, 2, "exit status for {args:?}: stdout {so} stderr {se}");
    assert_eq!(se.lines().count(), 1, "one line expected: {se}");
    for n in needles {
        assert!(se.contains(n), "'{n}' not in: {se}");
    }
    assert!(se.starts_with("netcond-pcap: error: "), "{se}");
    se
}

fn no_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.starts_with("out"))
        .collect()
}

#[test]
fn missing_file() {
    let d = dir("missing");
    let out = d.join("out.pcap");
    fails(
        &[
            d.join("nope.pcap").to_str().unwrap(),
            out.to_str().unwrap(),
            "-c",
            CHAIN,
        ],
        &["cannot open", "nope.pcap", "No such file"],
    );
    assert!(no_leftovers(&d).is_empty());
}

#[test]
fn bad_unit_and_unknown_stage() {
    let d = dir("badchain");
    let inp = d.join("in.pcap");
    gen(&inp, 10);
    let out = d.join("out.pcap");
    let (i, o) = (inp.to_str().unwrap(), out.to_str().unwrap());
    fails(
        &[i, o, "-c", "trtcm cir=10mbits pir=20mbit cbs=32k pbs=64k"],
        &["bad chain", "cir=10mbits", "unknown unit"],
    );
    fails(
        &[i, o, "-c", "shaper rate=1mbit"],
        &["unknown chain stage 'shaper'"],
    );
    fails(
        &[i, o, "-c", "srtcm cir=1mbit cbs=1k ebs=-3k"],
        &["ebs=-3k"],
    );
    fails(&[i, o, "-c", "dscp af11"], &["needs a color meter"]);
    fails(
        &[i, o, "-c", CHAIN, "--classify", "per-host"],
        &["unknown classification"],
    );
    // A configuration the library refuses: PIR below CIR.
    fails(
        &[i, o, "-c", "trtcm cir=20mbit pir=10mbit cbs=1k pbs=1k"],
        &["trtcm"],
    );
    assert!(no_leftovers(&d).is_empty(), "{:?}", no_leftovers(&d));
}

#[test]
fn chain_file() {
    let d = dir("chainfile");
    let inp = d.join("in.pcap");
    gen(&inp, 100);
    let f = d.join("chain.toml");
    std::fs::write(
        &f,
        "classify = \"five-tuple\"\nchain = [\"trtcm cir=1mbit pir=2mbit cbs=2k pbs=4k\", \"dscp af11,af12,af13\"]\n",
    )
    .unwrap();
    let (rc, so, se) = tool(&[inp.to_str().unwrap(), "-f", f.to_str().unwrap()]);
    assert_eq!(rc, 0, "{se}");
    assert!(so.contains("(FiveTuple)"), "{so}");
    std::fs::write(&f, "chain = \"trtcm cir=1mbit\"\nrate = 3\n").unwrap();
    fails(
        &[inp.to_str().unwrap(), "-f", f.to_str().unwrap()],
        &["unknown key 'rate'"],
    );
}

#[test]
fn truncated_capture_keeps_the_good_packets() {
    let d = dir("truncated");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    gen(&inp, 50);
    let bytes = std::fs::read(&inp).unwrap();
    // Global header 24 bytes, then records of 16 + 242 bytes: cut inside record 41.
    let rec = 16 + 242;
    let cut = 24 + 40 * rec + 100;
    std::fs::write(&inp, &bytes[..cut]).unwrap();
    fails(
        &[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN],
        &["packet 41", "truncated"],
    );
    let got = read_pcap(&out);
    assert_eq!(got.len(), 40);
    assert!(no_leftovers(&d).iter().all(|n| n == "out.pcap"));
}

#[test]
fn corrupt_record_and_not_a_capture() {
    let d = dir("corrupt");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    gen(&inp, 20);
    let mut bytes = std::fs::read(&inp).unwrap();
    // Record 6's captured length: far past the snap length.
    let at = 24 + 5 * (16 + 242) + 8;
    bytes[at..at + 4].copy_from_slice(&0x7fff_0000u32.to_be_bytes());
    std::fs::write(&inp, &bytes).unwrap();
    let (rc, _, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN]);
    assert_eq!(rc, 2);
    assert!(se.contains("packet 6"), "{se}");
    assert_eq!(read_pcap(&out).len(), 5);

    let junk = d.join("junk.pcap");
    std::fs::write(&junk, b"this is not a capture at all").unwrap();
    let out2 = d.join("out2.pcap");
    fails(
        &[junk.to_str().unwrap(), out2.to_str().unwrap(), "-c", CHAIN],
        &["junk.pcap", "not a pcap or pcapng"],
    );
    assert!(!out2.exists());
}

#[test]
fn unknown_link_type() {
    let d = dir("linktype");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    gen(&inp, 5);
    let mut bytes = std::fs::read(&inp).unwrap();
    // LINKTYPE_USER0, in the file's byte order.
    let lt = if bytes[0] == 0xa1 {
        147u32.to_be_bytes()
    } else {
        147u32.to_le_bytes()
    };
    bytes[20..24].copy_from_slice(&lt);
    std::fs::write(&inp, &bytes).unwrap();
    fails(
        &[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN],
        &["unknown link type 147"],
    );
    assert!(!out.exists());
    // The same in pcapng: the interface block declaring it comes before any packet.
    let ng = d.join("in.pcapng");
    {
        use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
        use pcap_file::pcapng::{Block, PcapNgWriter};
        let mut w = PcapNgWriter::new(std::fs::File::create(&ng).unwrap()).unwrap();
        w.write_block(&Block::InterfaceDescription(InterfaceDescriptionBlock {
            linktype: pcap_file::DataLink::from(147u32),
            snaplen: 65535,
            options: vec![],
        }))
        .unwrap();
    }
    fails(
        &[ng.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN],
        &["packet 1", "unknown link type 147"],
    );
    assert!(!out.exists());
    assert!(no_leftovers(&d).is_empty(), "{:?}", no_leftovers(&d));
}

fn write_frames(path: &Path, frames: &[(u64, Vec<u8>)]) {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    let mut w = PcapWriter::with_header(
        std::fs::File::create(path).unwrap(),
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

#[test]
fn non_monotonic_clock() {
    let d = dir("clock");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream::default();
    let p = vec![0u8; 100];
    let times = [1_000, 2_000, 3_000, 2_500, 4_000];
    let frames: Vec<_> = times
        .iter()
        .enumerate()
        .map(|(i, &t)| (1_700_000_000_000_000_000 + t, frame(&s, i as u64, &p)))
        .collect();
    write_frames(&inp, &frames);
    fails(
        &[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN],
        &["packet 4", "goes back 500 ns", "non-monotonic"],
    );
    assert_eq!(read_pcap(&out).len(), 3);
    let (rc, so, _) = tool(&[
        inp.to_str().unwrap(),
        out.to_str().unwrap(),
        "-c",
        CHAIN,
        "--allow-backwards",
    ]);
    assert_eq!(rc, 0);
    assert!(
        so.contains("note: 1 packets with a timestamp older") && so.contains("first: packet 4)"),
        "{so}"
    );
    let got = read_pcap(&out);
    assert_eq!(got.len(), 5);
    assert_eq!(got[3].0, got[2].0);
}

#[test]
fn options_fragments_and_bad_headers() {
    let d = dir("ipopts");
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    let s = Stream::default();
    let p = vec![0u8; 100];
    let mut frames = Vec::new();
    for i in 0..6u64 {
        let mut f = frame(&s, i, &p);
        if i == 2 {
            // IHL 6 with a 4-byte option.
            f.splice(34..34, [1, 1, 1, 0]);
            f[14] = 0x46;
            let tl = u16::from_be_bytes([f[16], f[17]]) + 4;
            f[16..18].copy_from_slice(&tl.to_be_bytes());
        }
        if i == 4 {
            f[20] |= 0x20; // more fragments
        }
        frames.push((1_700_000_000_000_000_000 + i * 1000, f));
    }
    write_frames(&inp, &frames);
    let (i, o) = (inp.to_str().unwrap(), out.to_str().unwrap());
    // Handled by default: options keep the checksum right (tshark checks it in
    // tests/tshark.rs), fragments are classified without ports.
    let (rc, so, se) = tool(&[i, o, "-c", CHAIN, "--classify", "five-tuple"]);
    assert_eq!(rc, 0, "{se}");
    assert!(
        so.contains("note: 1 IPv4 packets with options (first: packet 3)"),
        "{so}"
    );
    assert!(
        so.contains("note: 1 fragments (classified without ports; first: packet 5)"),
        "{so}"
    );
    let got = read_pcap(&out);
    assert_eq!(got.len(), 6);
    let h = &got[2].1[14..38];
    assert_eq!(
        netcond_pcap::packet::ipv4_checksum(h),
        u16::from_be_bytes([h[10], h[11]])
    );
    // --strict refuses them, naming the packet, and keeps what came before.
    fails(&[i, o, "-c", CHAIN, "--strict"], &["packet 3", "options"]);
    assert_eq!(read_pcap(&out).len(), 2);
    frames.remove(2);
    write_frames(&inp, &frames);
    fails(&[i, o, "-c", CHAIN, "--strict"], &["packet 4", "fragment"]);
    // A cut IPv4 header (IHL past the frame) passes untouched, or fails with --strict.
    let mut bad = frames[0].1.clone();
    bad.truncate(14 + 12);
    frames[1].1 = bad;
    write_frames(&inp, &frames);
    let (rc, so, _) = tool(&[i, o, "-c", CHAIN]);
    assert_eq!(rc, 0);
    assert!(
        so.contains("1 frames with an unreadable IP header passed untouched (first: packet 2)"),
        "{so}"
    );
    fails(&[i, o, "-c", CHAIN, "--strict"], &["packet 2", "IP header"]);
}

#[test]
fn unwritable_output() {
    let d = dir("unwritable");
    let inp = d.join("in.pcap");
    gen(&inp, 10);
    let out = d.join("no-such-dir").join("out.pcap");
    fails(
        &[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN],
        &["cannot create output", "no-such-dir"],
    );
    assert!(!out.exists());
}

#[test]
fn write_failure_leaves_no_file() {
    // An output whose temporary file cannot be renamed into place (the name
    // is a directory that is not empty): no temporary file is left.
    let d = dir("rename");
    let inp = d.join("in.pcap");
    gen(&inp, 10);
    let out = d.join("outdir");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep"), b"x").unwrap();
    fails(
        &[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", CHAIN],
        &["cannot write output", "outdir"],
    );
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

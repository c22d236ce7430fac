//! The `tbf` stage over captures: the output keeps the token bucket bounds
//! exactly, a backlogged queue leaves at exactly the rate (or the peak rate
//! within a burst), the latency's limit drops the tail, and packets longer
//! than the bucket are counted apart.

mod common;

use common::*;
use netcond_pcap::packet::{parse, Link};
use netcond_pcap::synth::{write_pcap, Stream};
use std::io::BufWriter;

fn ip_len(f: &[u8]) -> u64 {
    u64::from(parse(Link::Ethernet, f).unwrap().unwrap().len)
}

type Frames = Vec<(u64, Vec<u8>)>;

/// The input and output frames of one run, and the summary.
fn run(name: &str, s: &Stream, chain: &str) -> (Frames, Frames, String) {
    let d = dir(name);
    let (inp, out) = (d.join("in.pcap"), d.join("out.pcap"));
    write_pcap(s, BufWriter::new(std::fs::File::create(&inp).unwrap())).unwrap();
    let (rc, so, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", chain]);
    assert_eq!(rc, 0, "{se}");
    (read_pcap(&inp), read_pcap(&out), so)
}

/// Every window of departures `i..=j` sends at most `size + rate x (t_j - t_i)`
/// bytes (bits per second, exact in u128).
fn assert_bound(got: &[(u64, Vec<u8>)], size: u64, bits: u64, what: &str) {
    for i in 0..got.len() {
        let mut bytes = 0u128;
        for (j, (t, f)) in got.iter().enumerate().skip(i) {
            bytes += u128::from(ip_len(f));
            let dt = u128::from(t - got[i].0);
            assert!(
                bytes * 8 * 1_000_000_000
                    <= u128::from(size) * 8 * 1_000_000_000 + u128::from(bits) * dt,
                "{what}: {bytes} B in departures {i}..={j} over {dt} ns"
            );
        }
    }
}

/// 20 Mbit/s offered to `tbf rate=10mbit burst=16k latency=20ms`.
#[test]
fn tbf_shapes_to_the_rate() {
    let s = Stream {
        packets: 2_000,
        payload: 972, // 1000-byte IP packets
        gap_ns: 400_000,
        ..Stream::default()
    };
    let (inp, got, so) = run("tbf-rate", &s, "tbf rate=10mbit burst=16k latency=20ms");
    assert!(got.windows(2).all(|w| w[1].0 >= w[0].0));
    assert_bound(&got, 16_384, 10_000_000, "rate");
    // Backlogged: one 1000-byte packet every 800 us, exactly.
    let tail = &got[got.len() - 200..];
    assert!(
        tail.windows(2).all(|w| w[1].0 - w[0].0 == 800_000),
        "not paced at 10 Mbit/s"
    );
    // The first 16 packets fit the burst and leave on arrival.
    for k in 0..16 {
        assert_eq!(got[k].0, inp[k].0, "packet {k} delayed");
    }
    // Limit 10 Mbit/s x 20 ms + 16 KiB = 41384 B: the queue never holds
    // more, so no packet waits longer than (41384 - 16384) B / 10 Mbit/s
    // plus a packet; and what did not fit is counted over the limit.
    let limit = 25_000 + 16_384;
    let over = stage_row(&so, 1, "over-limit").0;
    assert!(over > 0);
    assert_eq!(got.len() as u64 + over, s.packets);
    assert_eq!(stage_row(&so, 1, "too-big").0, 0);
    assert_eq!(total_row(&so, "dropped").0, over);
    assert!(so.contains(&format!("limit={limit}B")), "{so}");
    // Throughput: the burst plus 10 Mbit/s over the span, within a packet.
    let span = got.last().unwrap().0 - got[0].0;
    let bytes: u64 = got.iter().map(|(_, f)| ip_len(f)).sum();
    let want = 16_384 + 1_250_000 * span / 1_000_000_000;
    assert!(bytes <= want && bytes + 1000 > want, "{bytes} vs {want}");
}

/// A peak rate spaces the burst: `rate=1mbit burst=10k peakrate=10mbit mtu=1000`
/// with 1000-byte packets offered at 100 Mbit/s.
#[test]
fn tbf_peakrate() {
    let s = Stream {
        packets: 100,
        payload: 972,
        gap_ns: 80_000,
        ..Stream::default()
    };
    let (inp, got, so) = run(
        "tbf-peak",
        &s,
        "tbf rate=1mbit burst=10k limit=200k peakrate=10mbit mtu=1000",
    );
    assert_eq!(got.len(), 100, "{so}");
    assert_bound(&got, 10_240, 1_000_000, "rate");
    assert_bound(&got, 1000, 10_000_000, "peak");
    assert_eq!(got[0].0, inp[0].0);
    // Within the burst, 1000 B at 10 Mbit/s: 800 us apart.
    for k in 1..10 {
        assert_eq!(got[k].0 - got[k - 1].0, 800_000, "packet {k}");
    }
    // Then the rate bucket: 8 ms apart.
    let n = got.len();
    assert_eq!(got[n - 1].0 - got[n - 2].0, 8_000_000);
}

/// Packets longer than the peak bucket (`mtu`) can never leave: dropped on
/// arrival and counted as too big, the others pass.
#[test]
fn tbf_too_big() {
    let s = Stream {
        packets: 50,
        payload: 1472, // 1500-byte IP packets
        gap_ns: 1_000_000,
        ..Stream::default()
    };
    let (_, got, so) = run(
        "tbf-big",
        &s,
        "tbf rate=10mbit burst=10k limit=100k peakrate=20mbit mtu=1499",
    );
    assert!(got.is_empty());
    assert_eq!(stage_row(&so, 1, "too-big").0, 50);
    let (_, got, so) = run(
        "tbf-fits",
        &s,
        "tbf rate=10mbit burst=10k limit=100k peakrate=20mbit mtu=1500 overhead=14 linklayer=atm",
    );
    assert_eq!(got.len(), 50, "{so}");
    assert!(so.contains("overhead=14B linklayer=atm"), "{so}");
}

/// Bad parameters are refused with one line naming the problem.
#[test]
fn tbf_bad_chain() {
    let d = dir("tbf-bad");
    let inp = d.join("in.pcap");
    write_pcap(
        &Stream::default(),
        BufWriter::new(std::fs::File::create(&inp).unwrap()),
    )
    .unwrap();
    let out = d.join("out.pcap");
    for (chain, needle) in [
        (
            "tbf rate=10mbit burst=10k",
            "one of limit (bytes) or latency",
        ),
        (
            "tbf rate=10mbit burst=10k latency=10ms limit=1k",
            "only one of limit",
        ),
        ("tbf rate=10mbit burst=10k latency=5fortnights", "bad time"),
    ] {
        let (rc, _, se) = tool(&[inp.to_str().unwrap(), out.to_str().unwrap(), "-c", chain]);
        assert_eq!(rc, 2, "{chain}");
        assert!(se.contains(needle), "{chain}: {se}");
    }
}

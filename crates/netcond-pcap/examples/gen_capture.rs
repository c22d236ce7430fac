//! Writes a synthetic capture: `gen_capture OUT PACKETS [FLOWS] [PAYLOAD] [GAP_NS] [TOS]`.
//! UDP/IPv4 over Ethernet, nanosecond pcap.

use netcond_pcap::synth::{write_pcap, Stream};
use std::io::BufWriter;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = a.first() else {
        eprintln!("usage: gen_capture OUT PACKETS [FLOWS] [PAYLOAD] [GAP_NS] [TOS]");
        std::process::exit(2);
    };
    let num = |i: usize, d: u64| a.get(i).map_or(d, |s| s.parse().expect("a number"));
    let s = Stream {
        packets: num(1, 1_000_000),
        flows: num(2, 1) as u16,
        payload: num(3, 64) as usize,
        gap_ns: num(4, 1_000),
        tos: num(5, 0) as u8,
        ..Stream::default()
    };
    let f = std::fs::File::create(out).expect("create output");
    write_pcap(&s, BufWriter::new(f)).expect("write capture");
}

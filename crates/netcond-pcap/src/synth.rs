//! Synthetic captures of known traffic, for tests and benchmarks.

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::borrow::Cow;
use std::io::Write;
use std::time::Duration;

/// A stream of UDP/IPv4 (or IPv6) packets over Ethernet.
#[derive(Debug, Clone)]
pub struct Stream {
    /// Packets.
    pub packets: u64,
    /// UDP payload bytes.
    pub payload: usize,
    /// Gap between packets, ns.
    pub gap_ns: u64,
    /// First timestamp, ns since the epoch.
    pub start_ns: u64,
    /// Flows (source ports `10000 + i % flows`).
    pub flows: u16,
    /// TOS byte.
    pub tos: u8,
    /// IPv6 instead of IPv4.
    pub ipv6: bool,
}

impl Default for Stream {
    fn default() -> Self {
        Stream {
            packets: 1000,
            payload: 1000,
            gap_ns: 100_000,
            start_ns: 1_700_000_000_000_000_000,
            flows: 1,
            tos: 0,
            ipv6: false,
        }
    }
}

/// One Ethernet frame of the stream: packet `i`.
pub fn frame(s: &Stream, i: u64, payload: &[u8]) -> Vec<u8> {
    let port = 10_000 + (i % u64::from(s.flows.max(1))) as u16;
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
    let mut out = Vec::with_capacity(payload.len() + 64);
    if s.ipv6 {
        let mut src = [0u8; 16];
        src[0] = 0xfd;
        src[15] = 1;
        let mut dst = src;
        dst[15] = 2;
        let mut b = b.ipv6(src, dst, 64).udp(port, 5001);
        // etherparse builds the traffic class from the header it sets up.
        let _ = &mut b;
        b.write(&mut out, payload).unwrap_or(());
        // Traffic class: version 6, then the 8 bits.
        out[14] = 0x60 | (s.tos >> 4);
        out[15] = (out[15] & 0x0f) | (s.tos << 4);
    } else {
        b.ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(port, 5001)
            .write(&mut out, payload)
            .unwrap_or(());
        if s.tos != 0 {
            out[15] = s.tos;
            let c = crate::packet::ipv4_checksum(&out[14..34]);
            out[24..26].copy_from_slice(&c.to_be_bytes());
        }
    }
    out
}

/// Writes the stream as a nanosecond pcap.
pub fn write_pcap<W: Write>(s: &Stream, w: W) -> Result<(), pcap_file::PcapError> {
    let mut pw = PcapWriter::with_header(
        w,
        PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            ..PcapHeader::default()
        },
    )?;
    let payload = vec![0x5au8; s.payload];
    for i in 0..s.packets {
        let f = frame(s, i, &payload);
        pw.write_packet(&PcapPacket {
            timestamp: Duration::from_nanos(s.start_ns + i * s.gap_ns),
            orig_len: f.len() as u32,
            data: Cow::Owned(f),
        })?;
    }
    Ok(())
}

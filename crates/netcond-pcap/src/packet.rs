//! Finding the IP header in a frame, reading what classification needs, and
//! rewriting the DSCP/ECN byte in place.

use etherparse::{Ipv4HeaderSlice, Ipv6HeaderSlice};

/// Link types understood (pcap LINKTYPE_ values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// LINKTYPE_ETHERNET (1), with any number of 802.1Q / 802.1ad tags.
    Ethernet,
    /// LINKTYPE_RAW (101), LINKTYPE_IPV4 (228), LINKTYPE_IPV6 (229): the frame is the IP packet.
    Raw,
    /// LINKTYPE_LINUX_SLL (113): 16-byte cooked header.
    LinuxSll,
    /// LINKTYPE_LINUX_SLL2 (276): 20-byte cooked header.
    LinuxSll2,
    /// LINKTYPE_NULL (0) / LINKTYPE_LOOP (108): 4-byte address family.
    Null,
}

impl Link {
    /// The link type of a pcap LINKTYPE_ value, or `None` if not supported.
    pub fn from_linktype(v: u32) -> Option<Link> {
        match v {
            1 => Some(Link::Ethernet),
            101 | 228 | 229 | 12 | 14 => Some(Link::Raw),
            113 => Some(Link::LinuxSll),
            276 => Some(Link::LinuxSll2),
            0 | 108 => Some(Link::Null),
            _ => None,
        }
    }
}

/// What the conditioners need to know about an IP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IpInfo {
    /// Offset of the IP header in the frame.
    pub off: usize,
    /// 4 or 6.
    pub version: u8,
    /// The TOS / traffic-class byte.
    pub tos: u8,
    /// The IP packet's length from its header (IPv4 total length, IPv6 40 + payload length).
    pub len: u32,
    /// Source and destination addresses (IPv4 in the first 4 bytes).
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// Transport protocol (after IPv6 extension headers).
    pub proto: u8,
    /// Source and destination ports (0 when absent, truncated or a fragment).
    pub ports: [u16; 2],
    /// IPv4 header carries options.
    pub options: bool,
    /// A fragment (any piece, the first included).
    pub fragment: bool,
    /// The PCP of the outermost 802.1Q/802.1ad tag (0 for an untagged frame
    /// or a link without tags).
    pub pcp: u8,
}

/// Why a frame that claims to be IP could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpError {
    /// The IP header is cut short or invalid.
    BadHeader,
}

/// Offset of the network header and its ethertype, or `None` for frames that
/// are not IP (they pass untouched).
fn l3(link: Link, d: &[u8]) -> Option<(usize, u16, u8)> {
    let (off, et) = l3_plain(link, d)?;
    let pcp = match link {
        Link::Ethernet
            if matches!(u16::from_be_bytes([d[12], d[13]]), 0x8100 | 0x88a8 | 0x9100) =>
        {
            d[14] >> 5
        }
        _ => 0,
    };
    Some((off, et, pcp))
}

fn l3_plain(link: Link, d: &[u8]) -> Option<(usize, u16)> {
    match link {
        Link::Ethernet => {
            if d.len() < 14 {
                return None;
            }
            let mut off = 12;
            let mut et = u16::from_be_bytes([d[off], d[off + 1]]);
            // 802.1Q, 802.1ad, and the old QinQ ethertypes.
            while matches!(et, 0x8100 | 0x88a8 | 0x9100) {
                off += 4;
                if d.len() < off + 2 {
                    return None;
                }
                et = u16::from_be_bytes([d[off], d[off + 1]]);
            }
            Some((off + 2, et))
        }
        Link::Raw => match d.first().map(|b| b >> 4) {
            Some(4) => Some((0, 0x0800)),
            Some(6) => Some((0, 0x86dd)),
            _ => None,
        },
        Link::LinuxSll => {
            if d.len() < 16 {
                return None;
            }
            Some((16, u16::from_be_bytes([d[14], d[15]])))
        }
        Link::LinuxSll2 => {
            if d.len() < 20 {
                return None;
            }
            Some((20, u16::from_be_bytes([d[0], d[1]])))
        }
        Link::Null => {
            if d.len() < 4 {
                return None;
            }
            // Host byte order of the writer: take whichever reading is a known family.
            let le = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            let be = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
            let fam = if le < 256 { le } else { be };
            match fam {
                2 => Some((4, 0x0800)),
                10 | 24 | 28 | 30 => Some((4, 0x86dd)),
                _ => None,
            }
        }
    }
}

/// Reads the IP header of a frame. `Ok(None)`: not an IP packet.
pub fn parse(link: Link, d: &[u8]) -> Result<Option<IpInfo>, IpError> {
    let Some((off, et, pcp)) = l3(link, d) else {
        return Ok(None);
    };
    let ip = &d[off..];
    match et {
        0x0800 => {
            let h = Ipv4HeaderSlice::from_slice(ip).map_err(|_| IpError::BadHeader)?;
            let ihl = usize::from(h.ihl()) * 4;
            let mut info = IpInfo {
                off,
                version: 4,
                tos: ip[1],
                len: u32::from(h.total_len()),
                proto: h.protocol().0,
                options: ihl > 20,
                fragment: h.more_fragments() || h.fragments_offset().value() != 0,
                pcp,
                ..IpInfo::default()
            };
            info.src[..4].copy_from_slice(&ip[12..16]);
            info.dst[..4].copy_from_slice(&ip[16..20]);
            if !info.fragment {
                info.ports = ports(info.proto, ip.get(ihl..).unwrap_or(&[]));
            }
            Ok(Some(info))
        }
        0x86dd => {
            let h = Ipv6HeaderSlice::from_slice(ip).map_err(|_| IpError::BadHeader)?;
            let mut info = IpInfo {
                off,
                version: 6,
                tos: (ip[0] << 4) | (ip[1] >> 4),
                len: 40 + u32::from(h.payload_length()),
                pcp,
                ..IpInfo::default()
            };
            info.src.copy_from_slice(&ip[8..24]);
            info.dst.copy_from_slice(&ip[24..40]);
            // Walk the extension headers that may precede the transport header.
            let mut next = h.next_header().0;
            let mut pos = 40usize;
            loop {
                match next {
                    0 | 43 | 60 => {
                        let Some(e) = ip.get(pos..pos + 2) else { break };
                        next = e[0];
                        pos += (usize::from(e[1]) + 1) * 8;
                    }
                    51 => {
                        let Some(e) = ip.get(pos..pos + 2) else { break };
                        next = e[0];
                        pos += (usize::from(e[1]) + 2) * 4;
                    }
                    44 => {
                        info.fragment = true;
                        let Some(e) = ip.get(pos..pos + 1) else { break };
                        next = e[0];
                        pos += 8;
                    }
                    _ => break,
                }
            }
            info.proto = next;
            if !info.fragment {
                info.ports = ports(next, ip.get(pos..).unwrap_or(&[]));
            }
            Ok(Some(info))
        }
        _ => Ok(None),
    }
}

fn ports(proto: u8, t: &[u8]) -> [u16; 2] {
    // TCP, UDP, DCCP, SCTP, UDP-Lite all start with the two ports.
    if matches!(proto, 6 | 17 | 33 | 132 | 136) && t.len() >= 4 {
        [
            u16::from_be_bytes([t[0], t[1]]),
            u16::from_be_bytes([t[2], t[3]]),
        ]
    } else {
        [0, 0]
    }
}

/// The Internet checksum (RFC 1071) of `h`, with the checksum field counted as zero.
pub fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut i = 0;
    while i + 1 < h.len() {
        if i != 10 {
            sum += u32::from(u16::from_be_bytes([h[i], h[i + 1]]));
        }
        i += 2;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Writes a new TOS / traffic-class byte into the frame; for IPv4 recomputes
/// the header checksum over the whole header (options included).
pub fn set_tos(frame: &mut [u8], info: &IpInfo, tos: u8) {
    let ip = &mut frame[info.off..];
    if info.version == 4 {
        ip[1] = tos;
        let ihl = usize::from(ip[0] & 0x0f) * 4;
        let c = ipv4_checksum(&ip[..ihl]);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
    } else {
        ip[0] = (ip[0] & 0xf0) | (tos >> 4);
        ip[1] = (ip[1] & 0x0f) | (tos << 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_a_known_header() {
        // The RFC 1071-style example header used widely: 0xb861.
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&h), 0xb861);
    }

    #[test]
    fn ipv6_traffic_class_round_trip() {
        let mut f = vec![0u8; 60];
        f[0] = 0x60;
        f[4..6].copy_from_slice(&20u16.to_be_bytes());
        f[6] = 17;
        f[7] = 64;
        let info = parse(Link::Raw, &f).unwrap().unwrap();
        assert_eq!((info.version, info.tos, info.len), (6, 0, 60));
        set_tos(&mut f, &info, 0xb9);
        let info = parse(Link::Raw, &f).unwrap().unwrap();
        assert_eq!(info.tos, 0xb9);
        assert_eq!(f[0] >> 4, 6);
    }
}

//! Reading pcap / pcapng captures frame by frame, and writing them.

use crate::packet::Link;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::{Block, PcapNgReader, PcapNgWriter};
use pcap_file::{DataLink, PcapError, TsResolution};
use std::borrow::Cow;
use std::io::{BufRead, Read, Write};
use std::time::Duration;

/// One frame read.
#[derive(Debug, Clone, Copy)]
pub struct FrameMeta {
    /// Timestamp, ns since the epoch.
    pub ts_ns: u64,
    /// Length on the wire.
    pub orig_len: u32,
    /// Index of the interface (pcapng, across sections); 0 for pcap.
    pub iface: u32,
    /// The frame's link type.
    pub link: Link,
}

/// An interface as read: link type and timestamp scale.
#[derive(Debug, Clone)]
pub struct Iface {
    /// pcap LINKTYPE_ value.
    pub linktype: u32,
    /// Parsed link.
    pub link: Link,
    /// Snap length.
    pub snaplen: u32,
    tsresol: u8,
    tsoffset_s: u64,
}

/// What went wrong while reading.
#[derive(Debug)]
pub enum ReadError {
    /// The file is not a pcap or pcapng capture.
    NotACapture,
    /// A link type this tool does not understand.
    UnknownLink(u32),
    /// The capture ends in the middle of a record.
    Truncated,
    /// A record is malformed.
    Corrupt(String),
    /// A pcapng packet names an interface that was never described.
    NoInterface(u32),
    /// A simple packet block carries no timestamp.
    NoTimestamp,
    /// I/O.
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotACapture => f.write_str("not a pcap or pcapng capture (unknown magic number)"),
            ReadError::UnknownLink(l) => write!(
                f,
                "unknown link type {l} (supported: 1 Ethernet, 101/228/229 raw IP, 113 Linux cooked, 276 Linux cooked v2, 0/108 BSD loopback)"
            ),
            ReadError::Truncated => f.write_str("capture is truncated (the file ends inside a record)"),
            ReadError::Corrupt(s) => write!(f, "corrupt record: {s}"),
            ReadError::NoInterface(i) => write!(f, "packet names interface {i}, which no interface description block declared"),
            ReadError::NoTimestamp => f.write_str("simple packet block has no timestamp; cannot condition in time"),
            ReadError::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

fn map_err(e: PcapError) -> ReadError {
    match e {
        PcapError::IncompleteBuffer => ReadError::Truncated,
        PcapError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            ReadError::Truncated
        }
        PcapError::IoError(e) => ReadError::Io(e),
        PcapError::InvalidField(s) => ReadError::Corrupt(s.to_string()),
        PcapError::InvalidInterfaceId(i) => ReadError::NoInterface(i),
        other => ReadError::Corrupt(other.to_string()),
    }
}

/// A capture being read.
pub enum Input<R: Read> {
    /// Classic pcap.
    Pcap {
        /// The reader.
        r: PcapReader<R>,
        /// The one interface.
        iface: Iface,
        /// Whether the writer has been told of it.
        announced: bool,
    },
    /// pcapng.
    Ng {
        /// The reader.
        r: PcapNgReader<R>,
        /// Interfaces of every section so far, in order.
        ifaces: Vec<Iface>,
        /// Index of the current section's first interface.
        section_base: usize,
        /// New interfaces not yet announced to the writer.
        announced: usize,
    },
}

fn iface_of(idb: &InterfaceDescriptionBlock) -> Result<Iface, ReadError> {
    let linktype = u32::from(idb.linktype);
    let link = Link::from_linktype(linktype).ok_or(ReadError::UnknownLink(linktype))?;
    let mut tsresol = 6;
    let mut tsoffset_s = 0;
    for o in &idb.options {
        match o {
            InterfaceDescriptionOption::IfTsResol(v) => tsresol = *v,
            InterfaceDescriptionOption::IfTsOffset(v) => tsoffset_s = *v,
            _ => {}
        }
    }
    Ok(Iface {
        linktype,
        link,
        snaplen: idb.snaplen,
        tsresol,
        tsoffset_s,
    })
}

impl Iface {
    fn to_ns(&self, raw: u64) -> u64 {
        let r = u128::from(raw);
        let v = self.tsresol;
        let ns = if v & 0x80 == 0 {
            let v = u32::from(v);
            if v <= 9 {
                r * 10u128.pow(9 - v)
            } else if v <= 38 {
                r / 10u128.pow(v - 9)
            } else {
                0
            }
        } else {
            let b = u32::from(v & 0x7f).min(127);
            (r * 1_000_000_000) >> b
        };
        let ns = ns + u128::from(self.tsoffset_s) * 1_000_000_000;
        u64::try_from(ns).unwrap_or(u64::MAX)
    }
}

impl<R: Read> Input<R> {
    /// Opens a capture, telling pcap from pcapng by its magic number.
    pub fn open(mut r: std::io::BufReader<R>) -> Result<Input<std::io::BufReader<R>>, ReadError> {
        let magic = {
            let b = r.fill_buf().map_err(ReadError::Io)?;
            if b.len() < 4 {
                return Err(if b.is_empty() {
                    ReadError::NotACapture
                } else {
                    ReadError::Truncated
                });
            }
            [b[0], b[1], b[2], b[3]]
        };
        match magic {
            [0x0a, 0x0d, 0x0d, 0x0a] => {
                let r = PcapNgReader::new(r).map_err(map_err)?;
                Ok(Input::Ng {
                    r,
                    ifaces: Vec::new(),
                    section_base: 0,
                    announced: 0,
                })
            }
            [0xa1, 0xb2, 0xc3, 0xd4]
            | [0xd4, 0xc3, 0xb2, 0xa1]
            | [0xa1, 0xb2, 0x3c, 0x4d]
            | [0x4d, 0x3c, 0xb2, 0xa1] => {
                let r = PcapReader::new(r).map_err(map_err)?;
                let h = r.header();
                let linktype = u32::from(h.datalink);
                let link = Link::from_linktype(linktype).ok_or(ReadError::UnknownLink(linktype))?;
                Ok(Input::Pcap {
                    iface: Iface {
                        linktype,
                        link,
                        snaplen: h.snaplen,
                        tsresol: 9,
                        tsoffset_s: 0,
                    },
                    announced: false,
                    r,
                })
            }
            _ => Err(ReadError::NotACapture),
        }
    }

    /// Interfaces declared since the last call (for the writer).
    pub fn new_ifaces(&mut self) -> Vec<Iface> {
        match self {
            Input::Pcap {
                iface, announced, ..
            } => {
                if *announced {
                    Vec::new()
                } else {
                    *announced = true;
                    vec![iface.clone()]
                }
            }
            Input::Ng {
                ifaces, announced, ..
            } => {
                let v = ifaces[*announced..].to_vec();
                *announced = ifaces.len();
                v
            }
        }
    }

    /// Reads the next frame into `buf`. `Ok(None)` at the end.
    pub fn next(&mut self, buf: &mut Vec<u8>) -> Result<Option<FrameMeta>, ReadError> {
        match self {
            Input::Pcap { r, iface, .. } => match r.next_packet() {
                None => Ok(None),
                Some(Err(e)) => Err(map_err(e)),
                Some(Ok(p)) => {
                    buf.clear();
                    buf.extend_from_slice(&p.data);
                    Ok(Some(FrameMeta {
                        ts_ns: u64::try_from(p.timestamp.as_nanos()).unwrap_or(u64::MAX),
                        orig_len: p.orig_len,
                        iface: 0,
                        link: iface.link,
                    }))
                }
            },
            Input::Ng {
                r,
                ifaces,
                section_base,
                ..
            } => loop {
                let b = match r.next_block() {
                    None => return Ok(None),
                    Some(Err(e)) => return Err(map_err(e)),
                    Some(Ok(b)) => b,
                };
                match b {
                    Block::SectionHeader(_) => *section_base = ifaces.len(),
                    Block::InterfaceDescription(idb) => ifaces.push(iface_of(&idb)?),
                    Block::EnhancedPacket(p) => {
                        let idx = *section_base + p.interface_id as usize;
                        let Some(i) = ifaces.get(idx) else {
                            return Err(ReadError::NoInterface(p.interface_id));
                        };
                        buf.clear();
                        buf.extend_from_slice(&p.data);
                        // pcap-file hands the raw 64-bit count as nanoseconds;
                        // scale it by the interface's if_tsresol.
                        let raw = u64::try_from(p.timestamp.as_nanos()).unwrap_or(u64::MAX);
                        return Ok(Some(FrameMeta {
                            ts_ns: i.to_ns(raw),
                            orig_len: p.original_len,
                            iface: idx as u32,
                            link: i.link,
                        }));
                    }
                    Block::SimplePacket(_) => return Err(ReadError::NoTimestamp),
                    _ => {}
                }
            },
        }
    }
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Classic pcap, nanosecond timestamps.
    Pcap,
    /// pcapng, nanosecond timestamps (if_tsresol 9).
    PcapNg,
}

impl Format {
    /// pcapng for a `.pcapng` name, pcap otherwise.
    pub fn for_path(p: &std::path::Path) -> Format {
        match p.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("pcapng") => Format::PcapNg,
            _ => Format::Pcap,
        }
    }
}

/// A capture being written.
pub enum Output<W: Write> {
    /// Not started: waits for the first interface.
    Pending(Option<W>, Format),
    /// Classic pcap with one link type.
    Pcap(PcapWriter<W>, u32),
    /// pcapng.
    Ng(PcapNgWriter<W>),
}

/// Why writing failed.
#[derive(Debug)]
pub enum WriteError {
    /// pcap output cannot hold two link types.
    MixedLinks(u32, u32),
    /// I/O.
    Io(std::io::Error),
}

fn werr(e: PcapError) -> WriteError {
    match e {
        PcapError::IoError(e) => WriteError::Io(e),
        other => WriteError::Io(std::io::Error::other(other.to_string())),
    }
}

impl<W: Write> Output<W> {
    /// A writer that starts when the first interface is announced.
    pub fn new(w: W, format: Format) -> Output<W> {
        Output::Pending(Some(w), format)
    }

    /// Declares interfaces (in the input's order).
    pub fn interfaces(&mut self, ifaces: &[Iface]) -> Result<(), WriteError> {
        for i in ifaces {
            match self {
                Output::Pending(w, f) => {
                    let w = w
                        .take()
                        .ok_or_else(|| WriteError::Io(std::io::Error::other("writer gone")))?;
                    *self = match f {
                        Format::Pcap => Output::Pcap(
                            PcapWriter::with_header(
                                w,
                                PcapHeader {
                                    // At least 256 KiB: pcapng's snaplen 0 means no limit,
                                    // and later interfaces may allow longer frames.
                                    snaplen: i.snaplen.max(262_144),
                                    datalink: DataLink::from(i.linktype),
                                    ts_resolution: TsResolution::NanoSecond,
                                    ..PcapHeader::default()
                                },
                            )
                            .map_err(werr)?,
                            i.linktype,
                        ),
                        Format::PcapNg => {
                            let mut n = PcapNgWriter::new(w).map_err(werr)?;
                            n.write_block(&Block::InterfaceDescription(idb(i)))
                                .map_err(werr)?;
                            Output::Ng(n)
                        }
                    };
                }
                Output::Pcap(_, l) => {
                    if *l != i.linktype {
                        return Err(WriteError::MixedLinks(*l, i.linktype));
                    }
                }
                Output::Ng(n) => {
                    n.write_block(&Block::InterfaceDescription(idb(i)))
                        .map_err(werr)?;
                }
            }
        }
        Ok(())
    }

    /// Writes one frame.
    #[inline]
    pub fn write(
        &mut self,
        ts_ns: u64,
        frame: &[u8],
        orig_len: u32,
        iface: u32,
    ) -> Result<(), WriteError> {
        let ts = Duration::from_nanos(ts_ns);
        match self {
            Output::Pcap(w, _) => {
                w.write_packet(&PcapPacket {
                    timestamp: ts,
                    orig_len: orig_len.max(frame.len() as u32),
                    data: Cow::Borrowed(frame),
                })
                .map_err(werr)?;
            }
            Output::Ng(w) => {
                w.write_block(&Block::EnhancedPacket(EnhancedPacketBlock {
                    interface_id: iface,
                    timestamp: ts,
                    original_len: orig_len.max(frame.len() as u32),
                    data: Cow::Borrowed(frame),
                    options: vec![],
                }))
                .map_err(werr)?;
            }
            Output::Pending(..) => {
                return Err(WriteError::Io(std::io::Error::other(
                    "no interface declared before the first packet",
                )))
            }
        }
        Ok(())
    }

    /// Finishes and hands back the inner writer. A capture that declared no
    /// interface still gets a valid header (Ethernet for pcap).
    pub fn into_inner(mut self) -> Result<W, WriteError> {
        if let Output::Pending(_, Format::Pcap) = self {
            self.interfaces(&[Iface {
                linktype: 1,
                link: Link::Ethernet,
                snaplen: 65535,
                tsresol: 9,
                tsoffset_s: 0,
            }])?;
        }
        Ok(match self {
            Output::Pending(w, _) => {
                let w = w.ok_or_else(|| WriteError::Io(std::io::Error::other("writer gone")))?;
                PcapNgWriter::new(w).map_err(werr)?.into_inner()
            }
            Output::Pcap(w, _) => w.into_writer(),
            Output::Ng(w) => w.into_inner(),
        })
    }
}

fn idb(i: &Iface) -> InterfaceDescriptionBlock<'static> {
    InterfaceDescriptionBlock {
        linktype: DataLink::from(i.linktype),
        snaplen: i.snaplen,
        options: vec![InterfaceDescriptionOption::IfTsResol(9)],
    }
}

//! Runs a chain over packets in time order.
//!
//! Meters and markers (`trtcm`, `srtcm`, `rfc4115`, `pcn-node`) keep one state
//! per flow in a [`FlowTable`]; the queue stages (`red`, `trras`, `srras`, `tbf`) model
//! one queue, the link's, shared by every packet that reaches them, and hold
//! packets until they leave: their output timestamps are the departure times.
//! Departures are events ordered by time; before a packet arriving at `t` is
//! processed, every departure at or before `t` is, so the output is in time
//! order whenever the input is.

use crate::chain::Colors;
use crate::flows::FlowTable;
use crate::packet::{self, IpInfo, Link};
use crate::stats::Stats;
use netcond::base::{Color, LengthAdjust, SplitMix64};
use netcond::pcn::{
    ExcessTrafficMeterProfile, NodeProfile, NodeRfc5670, PcnDscps, PcnMark, ThresholdMeterProfile,
};
use netcond::ras::{PacketLen, Ras, RasProfile, Tbf, TbfProfile};
use netcond::red::{Red, RedProfile};
use netcond::trtcm::{Rfc4115, Rfc4115Profile, SrTcm, SrTcmProfile, TrTcm, TrTcmProfile};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod aqm;
mod aqm_queue;
mod describe;
mod inplace;
mod queues;
mod setup;

use aqm::AqmRt;
pub use aqm::{check_aqm, fq_flow};
pub use describe::describe;

/// Packets a shaper queue holds at most (its byte buffer usually fills first).
pub const RAS_SLOTS: usize = 4096;

/// Where a packet goes.
pub trait Sink {
    /// A packet leaves the chain at `ts_ns` (forwarded, or dropped when `dropped`).
    fn emit(
        &mut self,
        ts_ns: u64,
        frame: &[u8],
        orig_len: u32,
        iface: u32,
        dropped: bool,
    ) -> std::io::Result<()>;
}

/// A packet on its way through the chain.
#[derive(Debug)]
struct Pkt {
    frame: Vec<u8>,
    orig_len: u32,
    iface: u32,
    info: IpInfo,
    slot: u32,
    color: Color,
    pcn: PcnMark,
}

#[derive(Clone, Copy, Debug)]
struct Held {
    id: u32,
    len: u32,
}

impl PacketLen for Held {
    fn packet_len(&self) -> u32 {
        self.len
    }
}

enum Rt {
    TrTcm(TrTcmProfile, LengthAdjust, Option<Colors>, Vec<TrTcm>),
    SrTcm(SrTcmProfile, LengthAdjust, Option<Colors>, Vec<SrTcm>),
    Rfc4115(Rfc4115Profile, LengthAdjust, Option<Colors>, Vec<Rfc4115>),
    Dscp([u8; 3]),
    DropRed,
    DropYellow,
    PcnIngress(u8),
    PcnNode(
        NodeProfile<ExcessTrafficMeterProfile, ThresholdMeterProfile>,
        PcnDscps,
        Vec<NodeRfc5670>,
    ),
    Rfc6660,
    Red(Box<RedRt>),
    Ras(RasProfile, Box<Ras<Held, RAS_SLOTS>>, bool),
    Tbf(Box<TbfRt>),
    Aqm(Box<AqmRt>),
}

/// A `tbf` stage: the library's state and the FIFO of held packets it
/// leaves to its caller.
struct TbfRt {
    profile: TbfProfile,
    tbf: Tbf,
    fifo: VecDeque<Held>,
    /// A departure event is pending.
    scheduled: bool,
}

struct RedRt {
    profile: RedProfile,
    red: Red,
    rng: SplitMix64,
    link_bps: u64,
    /// Departure times (ns) of the packets in the queue, oldest first.
    queue: VecDeque<u64>,
    busy_until: u64,
    /// Remainder of `busy_until` in 1/link_bps ns.
    frac: u64,
}

/// A configuration the library refused, or an impossible combination.
#[derive(Debug)]
pub struct SetupError(pub String);

/// The chain, its state, and its counters.
pub struct Engine {
    stages: Vec<Rt>,
    /// Names for the summary.
    pub names: Vec<String>,
    flows: FlowTable,
    /// Counters.
    pub stats: Stats,
    events: BinaryHeap<Reverse<(u64, u64, u64)>>,
    seq: u64,
    held: Vec<Option<(Pkt, usize)>>,
    free: Vec<u32>,
}

const RAS_TAG: u64 = 1 << 63;
const TBF_TAG: u64 = 1 << 62;
/// An AQM stage's link: the packet in transmission leaves, the next starts.
const AQM_TAG: u64 = 1 << 61;
/// A PIE stage's probability update.
const PIE_TAG: u64 = 1 << 60;
const KIND_TAGS: u64 = RAS_TAG | TBF_TAG | AQM_TAG | PIE_TAG;

fn tc(e: impl std::fmt::Display, stage: &str) -> SetupError {
    SetupError(format!("{stage}: {e}"))
}

impl Engine {
    /// Flows seen and evicted.
    pub fn flow_counts(&self) -> (u64, u64, usize) {
        (self.flows.seen, self.flows.evicted, self.flows.capacity())
    }

    /// True when some stage holds packets (queues).
    pub fn has_queues(&self) -> bool {
        self.stages
            .iter()
            .any(|s| matches!(s, Rt::Red(_) | Rt::Ras(..) | Rt::Tbf(_) | Rt::Aqm(_)))
    }

    /// Runs every departure due at or before `t`.
    pub fn advance<S: Sink>(&mut self, t: u64, sink: &mut S) -> std::io::Result<()> {
        while let Some(&Reverse((at, _, tag))) = self.events.peek() {
            if at > t {
                break;
            }
            self.events.pop();
            self.fire(at, tag, sink)?;
        }
        Ok(())
    }

    /// The time of the next departure from a queue stage, if a packet is held.
    pub fn next_departure(&self) -> Option<u64> {
        self.events.peek().map(|&Reverse((at, _, _))| at)
    }

    /// Runs every remaining departure (end of the capture).
    pub fn finish<S: Sink>(&mut self, sink: &mut S) -> std::io::Result<()> {
        self.advance(u64::MAX, sink)
    }

    fn schedule(&mut self, at: u64, tag: u64) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, tag)));
    }

    fn hold(&mut self, p: Pkt, stage: usize) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.held[i as usize] = Some((p, stage));
                i
            }
            None => {
                self.held.push(Some((p, stage)));
                (self.held.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, id: u32) -> Option<(Pkt, usize)> {
        let x = self.held.get_mut(id as usize)?.take();
        if x.is_some() {
            self.free.push(id);
        }
        x
    }

    /// Offers one frame arriving at `ts_ns` (not before the previous one).
    /// Frames that are not IP pass untouched. Returns `Err` for an IP header
    /// that cannot be read.
    pub fn push<S: Sink>(
        &mut self,
        ts_ns: u64,
        link: Link,
        frame: &mut Vec<u8>,
        orig_len: u32,
        iface: u32,
        sink: &mut S,
    ) -> Result<Option<IpInfo>, PushError> {
        self.advance(ts_ns, sink).map_err(PushError::Io)?;
        let info = match packet::parse(link, frame) {
            Ok(Some(i)) => i,
            Ok(None) => {
                self.stats.non_ip(frame.len() as u64);
                sink.emit(ts_ns, frame, orig_len, iface, false)
                    .map_err(PushError::Io)?;
                return Ok(None);
            }
            Err(_) => return Err(PushError::BadIp),
        };
        let (slot, _fresh) = self.flows.lookup(&info, ts_ns);
        if _fresh {
            self.reset_slot(slot, ts_ns);
        }
        self.stats.arrival(ts_ns, info.len);
        if self.has_queues_cached() {
            let p = Pkt {
                frame: std::mem::take(frame),
                orig_len,
                iface,
                info,
                slot,
                color: Color::Green,
                pcn: PcnMark::NotPcn,
            };
            let r = self.run(p, 0, ts_ns, sink).map_err(PushError::Io);
            r.map(|_| Some(info))
        } else {
            // Fast path: no stage holds packets, so the frame is conditioned in place.
            let (tos, dropped) = self.run_inplace(&info, slot, ts_ns);
            if tos != info.tos {
                packet::set_tos(frame, &info, tos);
            }
            self.stats.leave(ts_ns, info.len, tos, dropped);
            sink.emit(ts_ns, frame, orig_len, iface, dropped)
                .map_err(PushError::Io)?;
            Ok(Some(info))
        }
    }

    fn has_queues_cached(&self) -> bool {
        self.stats.has_queues
    }

    fn leave<S: Sink>(
        &mut self,
        p: Pkt,
        at: u64,
        dropped: bool,
        sink: &mut S,
    ) -> std::io::Result<()> {
        self.stats.leave(at, p.info.len, current_tos(&p), dropped);
        sink.emit(at, &p.frame, p.orig_len, p.iface, dropped)
    }
}

/// Why a frame could not be taken.
#[derive(Debug)]
pub enum PushError {
    /// Writing the output failed.
    Io(std::io::Error),
    /// The IP header is cut short or invalid.
    BadIp,
}

struct State {
    tos: u8,
    pcp: u8,
    color: Color,
    pcn: PcnMark,
}

fn current_tos(p: &Pkt) -> u8 {
    let ip = &p.frame[p.info.off..];
    if p.info.version == 4 {
        ip[1]
    } else {
        (ip[0] << 4) | (ip[1] >> 4)
    }
}

fn apply_tos(p: &mut Pkt, tos: u8) {
    if current_tos(p) != tos {
        let info = p.info;
        packet::set_tos(&mut p.frame, &info, tos);
    }
}

//! The PCN control loop of draft-babiarz-pcn-explicit-marking-01 (sections 2.2 and 2.3): interior nodes mark
//! packets, the egress reads the marks, and its signals reach the ingress (the
//! traffic sources) one RTT later.
//!
//! - [`Meter`]: a node's marker, one of the pcn-meter crate's (3sM ET-marker,
//!   the section 4.8 ET-marker, the AS-marker), picked by a scenario parameter.
//! - [`Termination`]: "a flow termination signal will be sent to the traffic
//!   source model for each ET-marked packet"; the flow stops RTT later. A flow
//!   marked again while its signal is on the way is not signalled twice.
//! - Admission: the egress's stop-blocking timers are the pcn-meter crate's
//!   `Egress3sm` (draft-babiarz-pcn-explicit-marking-01 section 2.3); the simulator delivers its block and
//!   start-admission signals to the ingress RTT later.

use crate::engine::{instant, Time};
use crate::net::{Conditioner, Packet};
use crate::SimError;
use netcond::base::{Instant, Rate};
use netcond::pcn;

pub use netcond::pcn::PcnMark;

/// A PCN node's meter/marker: one of the pcn-meter crate's markers with its
/// profile (a thin adapter so a scenario can pick the marker by name).
#[derive(Clone, Copy, Debug)]
pub enum Meter {
    /// The 3sM ET-marker (draft-babiarz-pcn-explicit-marking-01 section 1.2).
    Et(pcn::EtMarkerProfile, pcn::EtMarker),
    /// The ET-marker as simulated in draft-babiarz-pcn-explicit-marking-01 section 4.8.
    EtSim48(pcn::EtMarkerSim48Profile, pcn::EtMarkerSim48),
    /// The 3sM AS-marker (draft-babiarz-pcn-explicit-marking-01 section 1.2).
    As(pcn::AsMarkerProfile, pcn::AsMarker),
}

impl Meter {
    /// The 3sM ET-marker of draft-babiarz-pcn-explicit-marking-01 section
    /// 1.2: SR in bits per second, TB.size and s in bytes; already-ET packets
    /// add s.
    pub fn et_3sm(sr_bps: u64, size: u64, s: u64) -> Result<Meter, SimError> {
        let c = pcn::EtMarkerConfig::draft_explicit_marking_01(
            Rate::from_bits_per_sec(sr_bps),
            size,
            s,
        );
        let p = pcn::EtMarkerProfile::new(&c).map_err(|e| SimError::Config(e.to_string()))?;
        Ok(Meter::Et(p, pcn::EtMarker::new(&p, Instant::ZERO)))
    }

    /// The ET-marker of draft-babiarz-pcn-explicit-marking-01 section 4.8 (`pcn_pt`, `pcn_tb`, `pcn_px`).
    pub fn et_sim48(pt_bps: u64, tb: u64, px: u64) -> Result<Meter, SimError> {
        let c = pcn::EtMarkerSim48Config::new(Rate::from_bits_per_sec(pt_bps), tb, px);
        let p = pcn::EtMarkerSim48Profile::new(&c).map_err(|e| SimError::Config(e.to_string()))?;
        Ok(Meter::EtSim48(
            p,
            pcn::EtMarkerSim48::new(&p, Instant::ZERO),
        ))
    }

    /// The AS-marker of draft-babiarz-pcn-explicit-marking-01 section 1.2: AR
    /// in bits per second, TB.size and TB.threshold in bytes.
    pub fn as_explicit_marking(ar_bps: u64, size: u64, threshold: u64) -> Result<Meter, SimError> {
        let c = pcn::AsMarkerConfig::draft_explicit_marking_01(
            Rate::from_bits_per_sec(ar_bps),
            size,
            threshold,
        );
        let p = pcn::AsMarkerProfile::new(&c).map_err(|e| SimError::Config(e.to_string()))?;
        Ok(Meter::As(p, pcn::AsMarker::new(&p, Instant::ZERO)))
    }

    /// Meters a packet of `len` bytes arriving at `now` in state `mark`;
    /// returns its new state.
    #[inline]
    pub fn mark(&mut self, now: Time, len: u32, mark: PcnMark) -> PcnMark {
        let now = instant(now);
        match self {
            Meter::Et(p, m) => m.mark(p, now, len, mark),
            Meter::EtSim48(p, m) => m.mark(p, now, len, mark),
            Meter::As(p, m) => m.mark(p, now, len, mark),
        }
    }
}

/// A packet of the PCN scenarios: its flow, length, aggregate, hop along the
/// aggregate's route and PCN mark.
#[derive(Clone, Copy, Debug)]
pub struct PcnPacket {
    /// Flow (a scenario's index or slot).
    pub flow: u32,
    /// Bytes on the wire.
    pub len: u32,
    /// Ingress-egress aggregate.
    pub agg: u8,
    /// Position along the aggregate's route.
    pub hop: u8,
    /// PCN marking state.
    pub mark: PcnMark,
}

impl PcnPacket {
    /// A not-marked packet at the first hop.
    #[must_use]
    pub fn new(flow: u32, len: u32, agg: u8) -> PcnPacket {
        PcnPacket {
            flow,
            len,
            agg,
            hop: 0,
            mark: PcnMark::Nm,
        }
    }
}

impl Packet for PcnPacket {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.len
    }
}

/// The PCN nodes' markers as the network's conditioner: link `i` is the
/// output of the node that runs `meters[i]`.
#[derive(Clone, Debug)]
pub struct Markers {
    /// One meter per link.
    pub meters: Vec<Meter>,
    /// Packets that entered a meter not ET-marked and left it ET-marked.
    pub et_marked: u64,
}

impl Markers {
    /// Markers for links `0..meters.len()`.
    #[must_use]
    pub fn new(meters: Vec<Meter>) -> Markers {
        Markers {
            meters,
            et_marked: 0,
        }
    }
}

impl Conditioner<PcnPacket> for Markers {
    #[inline(always)]
    fn condition(&mut self, now: Time, link: u32, pkt: &mut PcnPacket) -> bool {
        let m = self.meters[link as usize].mark(now, pkt.len, pkt.mark);
        if m == PcnMark::Etm && pkt.mark != PcnMark::Etm {
            self.et_marked += 1;
        }
        pkt.mark = m;
        true
    }
}

/// Per-flow termination signalling: one signal per flow, RTT after the mark is
/// seen at the egress.
#[derive(Clone, Debug, Default)]
pub struct Termination {
    /// Signalling delay.
    pub rtt: Time,
    pending: Vec<bool>,
    /// Termination signals sent.
    pub signals: u64,
}

impl Termination {
    /// For `flows` flows (grown on demand) and signalling delay `rtt`.
    #[must_use]
    pub fn new(flows: usize, rtt: Time) -> Termination {
        Termination {
            rtt,
            pending: vec![false; flows],
            signals: 0,
        }
    }

    /// An ET-marked packet of `flow` leaves the network at `now`: returns when the
    /// flow stops, unless a signal for it is already on the way.
    pub fn on_et(&mut self, flow: usize, now: Time) -> Option<Time> {
        if flow >= self.pending.len() {
            self.pending.resize(flow + 1, false);
        }
        if self.pending[flow] {
            return None;
        }
        self.pending[flow] = true;
        self.signals += 1;
        Some(now + self.rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn one_termination_per_flow() {
        let mut t = Termination::new(2, 50 * MS);
        assert_eq!(t.on_et(1, 10), Some(10 + 50 * MS));
        assert_eq!(t.on_et(1, 20), None);
        assert_eq!(t.on_et(5, 30), Some(30 + 50 * MS));
        assert_eq!(t.signals, 2);
    }
}

//! The stages without a queue: meters, markers and PCN, run in place.

use super::*;
use crate::chain::{ColorBy, Colors};
use crate::packet::IpInfo;
use netcond::base::{Color, Instant};
use netcond::pcn::{NodeRfc5670, PcnMark, PcnMeter};
use netcond::trtcm::{Rfc4115, SrTcm, TrTcm};

/// Colors a packet with one of the three meters (their calls have the same
/// names): color-blind or color-aware (`colors=`), charging the adjusted
/// length in byte mode, one packet in packet mode.
macro_rules! meter {
    ($m:expr, $p:expr, $a:expr, $c:expr, $st:expr, $now:expr, $len:expr) => {
        match ($c, $p.mode().is_packets()) {
            (None, false) => $m.color_blind($p, $now, $a.apply($len)),
            (None, true) => $m.color_blind_packet($p, $now),
            (Some(c), false) => $m.color_aware($p, $now, $a.apply($len), input_color(c, $st)),
            (Some(c), true) => $m.color_aware_packet($p, $now, input_color(c, $st)),
        }
    };
}

impl Engine {
    pub(super) fn reset_slot(&mut self, slot: u32, ts: u64) {
        let now = Instant::from_ticks(ts);
        let s = slot as usize;
        for st in &mut self.stages {
            match st {
                Rt::TrTcm(p, _, _, v) => v[s] = TrTcm::new(p, now),
                Rt::SrTcm(p, _, _, v) => v[s] = SrTcm::new(p, now),
                Rt::Rfc4115(p, _, _, v) => v[s] = Rfc4115::new(p, now),
                Rt::PcnNode(p, _, v) => v[s] = NodeRfc5670::new(p, now),
                _ => {}
            }
        }
    }

    /// The stages without queues: the new TOS, and whether the packet was
    /// dropped (a dropped packet keeps the marks it had when dropped).
    #[inline]
    pub(super) fn run_inplace(&mut self, info: &IpInfo, slot: u32, ts: u64) -> (u8, bool) {
        let mut st = State {
            tos: info.tos,
            pcp: info.pcp,
            color: Color::Green,
            pcn: PcnMark::NotPcn,
        };
        for i in 0..self.stages.len() {
            if !self.step(i, &mut st, info.len, slot, ts) {
                return (st.tos, true);
            }
        }
        (st.tos, false)
    }

    /// One stage without a queue. Returns false if the packet is dropped.
    #[inline(always)]
    pub(super) fn step(&mut self, i: usize, st: &mut State, len: u32, slot: u32, ts: u64) -> bool {
        let now = Instant::from_ticks(ts);
        let s = slot as usize;
        match &mut self.stages[i] {
            Rt::TrTcm(p, a, c, v) => {
                st.color = meter!(v[s], p, a, c, st, now, len);
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::SrTcm(p, a, c, v) => {
                st.color = meter!(v[s], p, a, c, st, now, len);
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::Rfc4115(p, a, c, v) => {
                st.color = meter!(v[s], p, a, c, st, now, len);
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::Dscp(c) => {
                let d = c[st.color.index()];
                st.tos = (d << 2) | (st.tos & 3);
                self.stats.count(i, st.color.index(), len, ts);
            }
            Rt::DropRed => {
                if st.color == Color::Red {
                    self.stats.count(i, 1, len, ts);
                    return false;
                }
                self.stats.count(i, 0, len, ts);
            }
            Rt::DropYellow => {
                if st.color != Color::Green {
                    self.stats.count(i, 1, len, ts);
                    return false;
                }
                self.stats.count(i, 0, len, ts);
            }
            Rt::PcnIngress(d) => {
                st.tos = (*d << 2) | PcnMark::Nm.ecn();
                self.stats.count(i, 0, len, ts);
            }
            Rt::PcnNode(p, set, v) => match set.decode_tos(st.tos) {
                Some(m) if m.is_pcn() => {
                    st.pcn = v[s].mark(p, now, len, m);
                    self.stats.count(i, pcn_index(st.pcn), len, ts);
                }
                _ => {
                    st.pcn = PcnMark::NotPcn;
                    self.stats.count(i, 0, len, ts);
                }
            },
            Rt::Rfc6660 => {
                if st.pcn.is_pcn() {
                    st.tos = (st.tos & !3) | st.pcn.ecn();
                    self.stats.count(i, 1, len, ts);
                } else {
                    self.stats.count(i, 0, len, ts);
                }
            }
            Rt::Red(_) | Rt::Ras(..) | Rt::Tbf(_) | Rt::Aqm(_) => {}
        }
        true
    }
}

/// The input color of a packet for a color-aware meter.
#[inline(always)]
fn input_color(c: &Colors, st: &State) -> Color {
    match c.by {
        ColorBy::Dscp => c.table.ds_field(st.tos),
        ColorBy::Pcp => c.table.pcp(st.pcp),
    }
}

/// Summary index of a PCN mark: 0 not-PCN, 1 NM, 2 ThM, 3 ETM.
fn pcn_index(m: PcnMark) -> usize {
    match m {
        PcnMark::NotPcn => 0,
        PcnMark::Nm => 1,
        PcnMark::Thm => 2,
        PcnMark::Etm => 3,
    }
}

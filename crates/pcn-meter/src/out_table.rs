//! The markers' output tables: the state a packet leaves in, by its arriving
//! ECN code and whether it was marked, and the per-code constant tables.

use crate::mark::PcnMark;

/// A marker's output by ECN code and decision, flat: `2 * code + marked`.
///
/// Flat: the index is one address computation, `marked + 2 * code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OutTable([PcnMark; 8]);

/// The same table by rows, `[code][marked]`, as the RFC 5670 meters index
/// it.
pub(crate) type OutRows = [[PcnMark; 2]; 4];

impl OutTable {
    /// The table by rows.
    pub(crate) const fn rows(self) -> OutRows {
        let mut t = [[PcnMark::NotPcn; 2]; 4];
        let mut i = 0;
        while i < 4 {
            t[i] = [self.0[2 * i], self.0[2 * i + 1]];
            i += 1;
        }
        t
    }

    /// The state a packet arriving with ECN code `e` (at most 3) leaves in,
    /// marked (`m = 1`) or not (`m = 0`).
    #[inline(always)]
    pub(crate) fn at(&self, e: usize, m: usize) -> PcnMark {
        self.0[2 * e + m]
    }
}

/// The output table of a marker that turns each state `s` into `to[s]`
/// when it marks (`to` indexed by ECN code).
pub(crate) const fn out_table(to: [PcnMark; 4]) -> OutTable {
    let mut t = [PcnMark::NotPcn; 8];
    let mut i = 0;
    while i < 4 {
        t[2 * i] = PcnMark::from_ecn(i as u8);
        t[2 * i + 1] = to[i];
        i += 1;
    }
    OutTable(t)
}

/// ET-marker (and excess meter): NM and ThM become ETM.
pub(crate) const OUT_ET: OutTable = out_table(by_code(
    PcnMark::NotPcn,
    PcnMark::Etm,
    PcnMark::Etm,
    PcnMark::Etm,
));

/// AS-marker (and threshold meter): NM becomes ThM, the rest stay.
pub(crate) const OUT_AS: OutTable = out_table(by_code(
    PcnMark::NotPcn,
    PcnMark::Thm,
    PcnMark::Thm,
    PcnMark::Etm,
));

/// Four marks indexed by ECN code, from those of not-PCN, NM, ThM and ETM.
const fn by_code(not_pcn: PcnMark, nm: PcnMark, thm: PcnMark, etm: PcnMark) -> [PcnMark; 4] {
    let mut t = [PcnMark::NotPcn; 4];
    t[PcnMark::NotPcn as usize] = not_pcn;
    t[NM] = nm;
    t[THM] = thm;
    t[ETM] = etm;
    t
}

/// The ECN codes (the index of the per-mark tables) of NM, ThM and ET.
const NM: usize = PcnMark::Nm as usize;
const THM: usize = PcnMark::Thm as usize;
const ETM: usize = PcnMark::Etm as usize;

/// A table of four `u64` indexed by ECN code, from the values of not-PCN, NM,
/// ThM and ETM.
pub(crate) const fn by_mark(not_pcn: u64, nm: u64, thm: u64, etm: u64) -> [u64; 4] {
    let mut t = [0; 4];
    t[PcnMark::NotPcn as usize] = not_pcn;
    t[NM] = nm;
    t[THM] = thm;
    t[ETM] = etm;
    t
}

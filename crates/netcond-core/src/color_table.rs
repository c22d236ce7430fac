//! Input colors from the packet's header: DSCP and VLAN PCP tables.

use crate::Color;

/// The input [`Color`] of a packet for color-aware metering, looked up from
/// its DSCP (64 entries, RFC 2474's six-bit field) or its VLAN PCP (8
/// entries, IEEE 802.1Q's priority code point), as DPDK's `dscp_table` and
/// `vlan_table` of an `rte_mtr` meter do.
///
/// `Copy`, 72 bytes, built in `const` contexts; lookups mask the index (DSCP
/// to 6 bits, PCP to 3), so they are total and branch-free.
///
/// [`ColorTable::RFC2597`] is the ready table of RFC 2597's Assured
/// Forwarding codepoints (section 6): the low drop precedence AFx1 is green,
/// the medium AFx2 yellow, the high AFx3 red, for the four classes; every
/// other DSCP and every PCP is green, the color of a packet no upstream
/// marker has demoted (a caller that wants another default uses
/// [`ColorTable::rfc2597_with_default`]).
///
/// ```
/// use netcond_core::{Color, ColorTable};
///
/// const AF: ColorTable = ColorTable::RFC2597;
/// assert_eq!(AF.dscp(10), Color::Green); // AF11
/// assert_eq!(AF.dscp(20), Color::Yellow); // AF22
/// assert_eq!(AF.dscp(38), Color::Red); // AF43
/// assert_eq!(AF.dscp(46), Color::Green); // EF: not AF, the default
/// // The IPv4 TOS / IPv6 traffic class byte: DSCP in its upper six bits.
/// assert_eq!(AF.ds_field(20 << 2 | 0b01), Color::Yellow);
///
/// // PCP 1 (background) yellow, the rest green.
/// const VLAN: ColorTable = ColorTable::uniform(Color::Green).with_pcp(1, Color::Yellow);
/// assert_eq!(VLAN.pcp(1), Color::Yellow);
/// assert_eq!(VLAN.pcp(9), Color::Yellow); // masked to 3 bits
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorTable {
    dscp: [Color; 64],
    pcp: [Color; 8],
}

impl ColorTable {
    /// Every DSCP and every PCP maps to `color`.
    #[must_use]
    pub const fn uniform(color: Color) -> ColorTable {
        ColorTable {
            dscp: [color; 64],
            pcp: [color; 8],
        }
    }

    /// A table from its two arrays, indexed by DSCP and by PCP.
    #[must_use]
    pub const fn from_arrays(dscp: [Color; 64], pcp: [Color; 8]) -> ColorTable {
        ColorTable { dscp, pcp }
    }

    /// RFC 2597 section 6's AF codepoints: AFx1 (DSCP 10, 18, 26, 34) green,
    /// AFx2 (12, 20, 28, 36) yellow, AFx3 (14, 22, 30, 38) red; every other
    /// DSCP and every PCP green.
    pub const RFC2597: ColorTable = ColorTable::rfc2597_with_default(Color::Green);

    /// RFC 2597's AF codepoints as [`RFC2597`](Self::RFC2597), with every
    /// other DSCP and every PCP mapped to `default`.
    #[must_use]
    pub const fn rfc2597_with_default(default: Color) -> ColorTable {
        let mut t = ColorTable::uniform(default);
        // RFC 2597 section 6: class i (1..=4) in the upper three bits, drop
        // precedence j (1..=3) in the next two, the last bit zero.
        let mut class = 1;
        while class <= 4 {
            t.dscp[(class << 3) | (1 << 1)] = Color::Green;
            t.dscp[(class << 3) | (2 << 1)] = Color::Yellow;
            t.dscp[(class << 3) | (3 << 1)] = Color::Red;
            class += 1;
        }
        t
    }

    /// This table with DSCP `dscp` (masked to 6 bits) mapped to `color`.
    #[must_use]
    pub const fn with_dscp(mut self, dscp: u8, color: Color) -> ColorTable {
        self.dscp[(dscp & 63) as usize] = color;
        self
    }

    /// This table with PCP `pcp` (masked to 3 bits) mapped to `color`.
    #[must_use]
    pub const fn with_pcp(mut self, pcp: u8, color: Color) -> ColorTable {
        self.pcp[(pcp & 7) as usize] = color;
        self
    }

    /// The input color of DSCP `dscp` (masked to its 6 bits).
    #[inline]
    #[must_use]
    pub const fn dscp(&self, dscp: u8) -> Color {
        self.dscp[(dscp & 63) as usize]
    }

    /// The input color of a packet whose IPv4 TOS or IPv6 Traffic Class byte
    /// (the DS field with ECN in its low two bits) is `ds_field`.
    #[inline]
    #[must_use]
    pub const fn ds_field(&self, ds_field: u8) -> Color {
        self.dscp[(ds_field >> 2) as usize]
    }

    /// The input color of VLAN PCP `pcp` (masked to its 3 bits).
    #[inline]
    #[must_use]
    pub const fn pcp(&self, pcp: u8) -> Color {
        self.pcp[(pcp & 7) as usize]
    }

    /// The DSCP table, indexed by DSCP.
    #[must_use]
    pub const fn dscp_table(&self) -> &[Color; 64] {
        &self.dscp
    }

    /// The PCP table, indexed by PCP.
    #[must_use]
    pub const fn pcp_table(&self) -> &[Color; 8] {
        &self.pcp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    #[test]
    fn rfc2597_codepoints() {
        // RFC 2597 section 6's table, as bit strings.
        let rows = [
            (G, ["001010", "010010", "011010", "100010"]),
            (Y, ["001100", "010100", "011100", "100100"]),
            (R, ["001110", "010110", "011110", "100110"]),
        ];
        let t = ColorTable::RFC2597;
        let mut af = 0;
        for (color, codes) in rows {
            for code in codes {
                let d = u8::from_str_radix(code, 2).unwrap();
                assert_eq!(t.dscp(d), color, "{code}");
                assert_eq!(t.ds_field(d << 2 | 3), color);
                af += 1;
            }
        }
        assert_eq!(af, 12);
        let others = (0..64u8).filter(|&d| t.dscp(d) != G).count();
        assert_eq!(others, 8, "only AFx2 and AFx3 are not green");
        let t = ColorTable::rfc2597_with_default(R);
        assert_eq!((t.dscp(0), t.dscp(46), t.dscp(10), t.pcp(3)), (R, R, G, R));
    }

    #[test]
    fn builders_and_masks() {
        const T: ColorTable = ColorTable::uniform(G)
            .with_dscp(46, Y)
            .with_pcp(7, R)
            .with_dscp(64 + 1, R);
        assert_eq!(
            (T.dscp(46), T.dscp(46 + 64), T.dscp(1), T.dscp(0)),
            (Y, Y, R, G)
        );
        assert_eq!((T.pcp(7), T.pcp(15), T.pcp(0)), (R, R, G));
        assert_eq!(T.dscp_table()[46], Y);
        assert_eq!(T.pcp_table()[7], R);
        let u = ColorTable::from_arrays(*T.dscp_table(), *T.pcp_table());
        assert_eq!(u, T);
        assert_eq!(core::mem::size_of::<ColorTable>(), 72);
        for b in 0..=255u8 {
            assert_eq!(T.ds_field(b), T.dscp(b >> 2));
        }
    }
}
